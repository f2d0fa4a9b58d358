// restartkit-wasm explains the parity snapshots exactly as the core does
// (conformance/explain-parity.json).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pkgDir } from './helpers.mjs';
import { testExplainParity } from '../../conformance/explain-parity.mjs';

const rk = await import(join(pkgDir, 'index.node.mjs'));
testExplainParity(test, assert, rk.explain);
