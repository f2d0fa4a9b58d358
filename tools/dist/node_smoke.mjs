// Clean-room check of @restartkit/node from ESM: node node_smoke.mjs VERSION
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import rk from '@restartkit/node';

const require = createRequire(import.meta.url);
const expected = process.argv[2];
assert.equal(rk.VERSION, expected);
assert.equal(require('@restartkit/node/package.json').version, expected);
// The binary comes from the platform package, not from the main one.
const platform = require.resolve('@restartkit/node-linux-x64-gnu');
assert.match(platform, /node_modules\/@restartkit\/node-linux-x64-gnu\/restartkit\.linux-x64-gnu\.node$/);
assert.equal(require('@restartkit/node-linux-x64-gnu/package.json').version, expected);
const r = rk.validate('apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: 5\n');
assert.equal(r.valid, false);
assert.equal(r.errors[0].field, 'spec.containers');
const policy = rk.compile({
  apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j', namespace: 'default' },
  spec: {
    podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [42] } }] },
    template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'm' }] } },
  },
});
assert.equal(policy.decide('main', 42), 'FailJob');
console.log(`node ESM ok: @restartkit/node ${rk.VERSION} (binary ${platform})`);
