// A page that bundles restartkit-wasm (esbuild and Vite, tools/dist/test-dist.sh) and validates
// a manifest in the browser.
import { validate, version } from 'restartkit-wasm';

const r = validate('apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: 5\n');
document.getElementById('out').textContent = JSON.stringify({ version: version(), valid: r.valid, field: r.errors[0]?.field, line: r.errors[0]?.line });
