// Clean-room check of restartkit-wasm from Node ESM (tools/dist/test-dist.sh): node wasm_smoke.mjs VERSION
import assert from 'node:assert/strict';
import { call, check, validate, version, RestartkitError } from 'restartkit-wasm';
import pkg from 'restartkit-wasm/package.json' with { type: 'json' };

const expected = process.argv[2];
assert.equal(version(), expected);
assert.equal(pkg.version, expected);
const bad = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: 5\n';
const r = validate(bad);
assert.equal(r.valid, false);
assert.equal(r.errors[0].field, 'spec.containers');
assert.throws(() => check(bad), (e) => e instanceof RestartkitError && e.line === 6);
// The simulator is in the module's on-demand part (read from the package when first needed).
const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } };
const sim = call('simulate', { scenario: { kind: 'Scenario', runFor: '5m', workload: pod, exits: [{ container: 'c', afterSeconds: 5, exitCode: 1 }] } });
assert.equal(sim.summary.inPlaceRestarts, 5);
console.log(`wasm ESM ok: restartkit-wasm ${version()}`);
