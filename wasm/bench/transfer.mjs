// Measures a request made with JS objects (`request(op, input)`) against the raw JSON-text path
// (`JSON.parse(handleJson(JSON.stringify(...)))`). Used to choose how values cross the boundary:
// with serde-wasm-bindgen inside `request` this showed the JSON path faster in every case, so
// `request` now carries JSON text too and the two columns should be about equal (see README.md).
// Usage: node bench/transfer.mjs [pkg dir]
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const pkgDir = resolve(process.argv[2] ?? new URL('../pkg', import.meta.url).pathname);
const m = await import(pathToFileURL(`${pkgDir}/index.node.mjs`).href);

const vectors = ['restart-rules', 'failure-policy', 'backoff-and-crr']
  .flatMap((f) => JSON.parse(readFileSync(new URL(`../../conformance/vectors/${f}.json`, import.meta.url))));
const pick = (pred) => vectors.find(pred);
const bigPod = structuredClone(pick((v) => v.op === 'validate' && v.input.object?.kind === 'Pod').input);
// A larger Pod: 20 containers with env and rules, the size of a real manifest.
bigPod.object.spec.containers = Array.from({ length: 20 }, (_, i) => ({
  name: `c${i}`, image: 'registry.example/app:1.2.3', args: ['--flag', String(i)],
  env: Array.from({ length: 10 }, (_, j) => ({ name: `E${j}`, value: `v${j}` })),
  restartPolicy: 'Never', restartPolicyRules: [{ action: 'Restart', exitCodes: { operator: 'In', values: [42] } }],
}));
const cases = [
  ['validate (1 container)', 'validate', pick((v) => v.op === 'validate' && v.input.object?.kind === 'Pod').input],
  ['validate (20 containers)', 'validate', bigPod],
  ['jobsetFailurePolicy', 'jobsetFailurePolicy', pick((v) => v.op === 'jobsetFailurePolicy').input],
  ['describe (large output)', 'describe', {}],
];
const time = (fn, n) => {
  for (let i = 0; i < Math.min(200, n); i++) fn();
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn();
  return Number(process.hrtime.bigint() - t) / n / 1000;
};
console.log('case | request(op, objects) µs | handleJson(JSON text) µs');
for (const [name, op, input] of cases) {
  const n = 3000;
  const a = time(() => m.request(op, input), n);
  const b = time(() => JSON.parse(m.handleJson(JSON.stringify({ op, input }))), n);
  console.log(`${name} | ${a.toFixed(1)} | ${b.toFixed(1)}`);
}
