// Type-checked (tsc --noEmit) against the built package's declarations: CommonJS consumer.
import rk = require('restartkit-wasm');

const out: rk.ValidateOutput = rk.validate({ apiVersion: 'v1', kind: 'Pod' });
const d: rk.Description = rk.describe();
const err: typeof rk.RestartkitError = rk.RestartkitError;
const policy: rk.Policy = rk.compile({ apiVersion: 'v1', kind: 'Pod' });
// @ts-expect-error no such export
rk.nope();
