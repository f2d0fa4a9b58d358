#!/usr/bin/env node
// node node/conformance.mjs FILE...: runs conformance vectors through @restartkit/node; prints
// `FAIL <id>: ...` per failing vector and `N passed, M failed`; exit 1 on any failure, 2 when a
// file cannot be read.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { handleJson } = require('./index.js');
const { runFiles } = require('./lib/conformance.js');

const files = process.argv.slice(2);
if (files.length === 0) {
  process.stderr.write('usage: node conformance.mjs FILE...\n');
  process.exit(2);
}
process.exitCode = runFiles(handleJson, files);
