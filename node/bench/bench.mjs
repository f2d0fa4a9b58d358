#!/usr/bin/env node
// Per-call cost of @restartkit/node (a script, not timed tests): decide, decideMany per decision,
// handleJson, validate (object and YAML text), validateManyAsync per manifest. The lead compares
// these with the wasm package.
//   node node/bench/bench.mjs [--quick]
import { createRequire } from 'node:module';

const rk = createRequire(import.meta.url)('../index.js');
const quick = process.argv.includes('--quick');
const scale = quick ? 10 : 1;

function perCall(fn, n, repeat = 5) {
  for (let i = 0; i < Math.min(n, 1000); i++) fn(); // warm up
  let best = Infinity;
  for (let r = 0; r < repeat; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn();
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / n);
  }
  return best; // ns
}
const fmt = (ns) => (ns < 10000 ? `${ns.toFixed(0)} ns` : `${(ns / 1000).toFixed(1)} µs`);

const JOB = {
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'train', namespace: 'default' },
  spec: {
    backoffLimit: 3,
    podFailurePolicy: {
      rules: [
        { action: 'FailJob', onExitCodes: { containerName: 'trainer', operator: 'In', values: [42, 43] } },
        { action: 'Ignore', onExitCodes: { operator: 'In', values: [137, 143] } },
        { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] },
      ],
    },
    template: { spec: { restartPolicy: 'Never', containers: [{ name: 'trainer', image: 'trainer:1' }, { name: 'sidecar', image: 'proxy:1' }] } },
  },
};
const POD = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'worker', namespace: 'default' },
  spec: {
    restartPolicy: 'Never',
    containers: [{ name: 'trainer', image: 'trainer:1', restartPolicy: 'Never', restartPolicyRules: [{ action: 'Restart', exitCodes: { operator: 'In', values: [42, 43] } }] }],
    initContainers: [{ name: 'proxy', image: 'proxy:1', restartPolicy: 'Always' }],
  },
};
const YAML = `apiVersion: batch/v1
kind: Job
metadata: {name: train, namespace: default}
spec:
  backoffLimit: 3
  podFailurePolicy:
    rules:
    - action: FailJob
      onExitCodes: {containerName: trainer, operator: In, values: [42, 43]}
    - action: Ignore
      onPodConditions: [{type: DisruptionTarget}]
  template:
    spec:
      restartPolicy: Never
      containers: [{name: trainer, image: "trainer:1"}, {name: sidecar, image: "proxy:1"}]
`;

console.log(`@restartkit/node ${rk.VERSION} (napi), node ${process.version}`);
const describeReq = JSON.stringify({ op: 'describe', input: {} });
console.log(`handleJson(describe)                 ${fmt(perCall(() => rk.handleJson(describeReq), 2000 / scale))}`);
const validateReq = JSON.stringify({ op: 'validate', input: { object: JOB } });
console.log(`handleJson(validate Job)             ${fmt(perCall(() => rk.handleJson(validateReq), 5000 / scale))}`);
console.log(`validate(Pod object)                 ${fmt(perCall(() => rk.validate(POD), 5000 / scale))}`);
console.log(`containerRestart(Pod, exit 42)       ${fmt(perCall(() => rk.containerRestart(POD, 'trainer', 42), 5000 / scale))}`);
console.log(`validate(Job object)                 ${fmt(perCall(() => rk.validate(JOB), 5000 / scale))}`);
console.log(`validate(Job YAML text)              ${fmt(perCall(() => rk.validate(YAML), 5000 / scale))}`);

let policy = null;
try {
  policy = rk.compile(JOB);
} catch (e) {
  console.log(`compile/decide: skipped (${e.message})`);
}
if (policy) {
  const tDecide = perCall(() => policy.decide('trainer', 42), 500000 / scale);
  console.log(`policy.decide                        ${fmt(tDecide)}`);
  const codes = new Int32Array(100000).map((_, i) => i % 256);
  const tMany = perCall(() => policy.decideMany('trainer', codes), 50 / scale || 1) / codes.length;
  console.log(`policy.decideMany, per decision      ${fmt(tMany)}  (${(tDecide / tMany).toFixed(0)}x faster than decide)`);
}

const manifests = Array.from({ length: 1000 }, () => JOB);
const t0 = process.hrtime.bigint();
await rk.validateManyAsync(manifests);
console.log(`validateManyAsync, per manifest      ${fmt(Number(process.hrtime.bigint() - t0) / manifests.length)}`);
