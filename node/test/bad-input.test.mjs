// The shared bad-input corpus (conformance/bad-input/manifest.json) through @restartkit/node:
// every case must give a RestartkitError or `valid: false` whose diagnostics name the expected
// line or field, in a child process under a timeout (no crash, no hang).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { root } from './helpers.mjs';
import { cases, runCase } from '../../conformance/bad-input/runner.mjs';

const entry = path.join(root, 'node', 'index.js');

for (const c of cases) {
  test(`bad input: ${c.name}`, () => {
    const r = runCase('node', entry, c.name);
    assert.ok(r.ok, `${c.name}: ${r.why}`);
  });
}
