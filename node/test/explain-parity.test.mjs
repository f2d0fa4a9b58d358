// @restartkit/node explains the parity snapshots exactly as the core does
// (conformance/explain-parity.json).
import test from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { testExplainParity } from '../../conformance/explain-parity.mjs';

const rk = createRequire(import.meta.url)('../index.js');
testExplainParity(test, assert, rk.explain);
