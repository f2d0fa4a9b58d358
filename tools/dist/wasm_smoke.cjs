// Clean-room check of restartkit-wasm from Node CommonJS: node wasm_smoke.cjs VERSION
'use strict';
const assert = require('node:assert/strict');
const { validate, version } = require('restartkit-wasm');

assert.equal(version(), process.argv[2]);
const r = validate('apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: 5\n');
assert.equal(r.valid, false);
assert.equal(r.errors[0].field, 'spec.containers');
console.log(`wasm CJS ok: restartkit-wasm ${version()}`);
