// Clean-room check of @restartkit/node from CommonJS: node node_smoke.cjs VERSION
'use strict';
const assert = require('node:assert/strict');
const { validate, VERSION } = require('@restartkit/node');

assert.equal(VERSION, process.argv[2]);
const r = validate('apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: 5\n');
assert.equal(r.valid, false);
assert.equal(r.errors[0].field, 'spec.containers');
console.log(`node CJS ok: @restartkit/node ${VERSION}`);
