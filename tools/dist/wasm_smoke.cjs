// Clean-room check of restartkit-wasm from Node CommonJS: node wasm_smoke.cjs VERSION
'use strict';
const assert = require('node:assert/strict');
const { call, validate, version } = require('restartkit-wasm');

assert.equal(version(), process.argv[2]);
const r = validate('apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: 5\n');
assert.equal(r.valid, false);
assert.equal(r.errors[0].field, 'spec.containers');
// The simulator is in the module's on-demand part (read from the package when first needed).
const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } };
const sim = call('simulate', { scenario: { kind: 'Scenario', runFor: '5m', workload: pod, exits: [{ container: 'c', afterSeconds: 5, exitCode: 1 }] } });
assert.equal(sim.summary.inPlaceRestarts, 5);
console.log(`wasm CJS ok: restartkit-wasm ${version()}`);
