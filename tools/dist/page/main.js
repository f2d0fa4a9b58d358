// A page that bundles restartkit-wasm (esbuild and Vite, tools/dist/test-dist.sh) and validates
// a manifest in the browser.
import { call, validate, version } from 'restartkit-wasm';

const r = validate('apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: 5\n');
// The simulator is in the module's on-demand part: the bundler must have shipped both parts.
const sim = call('simulate', { scenario: {
  kind: 'Scenario', runFor: '5m',
  workload: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } },
  exits: [{ container: 'c', afterSeconds: 5, exitCode: 1 }],
} });
document.getElementById('out').textContent = JSON.stringify({
  version: version(), valid: r.valid, field: r.errors[0]?.field, line: r.errors[0]?.line, inPlaceRestarts: sim.summary.inPlaceRestarts,
});
