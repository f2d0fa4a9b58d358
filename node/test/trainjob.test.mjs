// Kubeflow Trainer: resolve, validate and whatIf on a TrainJob with its runtime.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { rk, root } from './helpers.mjs';

const text = readFileSync(path.join(root, 'examples', 'trainjob-torch.yaml'), 'utf8');
const [runtimeText, trainJobText] = text.split('\n---\n');
const nodeJob = (out) => out.trainJobs[0].jobSet.spec.replicatedJobs.find((r) => r.name === 'node').template.spec;

test('resolve: one text with both, or the TrainJob with the runtime apart, give one JobSet', () => {
  const both = rk.resolve(text);
  assert.equal(both.valid, true, JSON.stringify(both.errors));
  const job = nodeJob(both);
  assert.deepEqual([job.parallelism, job.completions], [4, 4]);
  assert.equal(job.template.spec.containers[0].image, 'ghcr.io/example/llm-finetune:1.0');
  assert.deepEqual(rk.resolve(trainJobText, { runtime: runtimeText }).trainJobs[0].jobSet, both.trainJobs[0].jobSet);
  assert.deepEqual(rk.resolve(trainJobText, { runtimes: [{ source: runtimeText, fileName: 'rt.yaml' }] }).trainJobs[0].jobSet, both.trainJobs[0].jobSet);
});

test('resolve: a missing runtime gets the trainer webhook\'s message, and no JobSet', () => {
  const out = rk.resolve(trainJobText);
  assert.equal(out.valid, false);
  assert.equal(out.trainJobs[0].jobSet, null);
  assert.ok(out.trainJobs[0].notBuilt);
  // spec.RuntimeRef: the ClusterTrainingRuntime validator's own spelling (clustertrainingruntime.go).
  assert.ok(out.errors.some((e) => e.field === 'spec.RuntimeRef' && e.line === 7 && /specified clusterTrainingRuntime must be created before the TrainJob is created$/.test(e.message)), JSON.stringify(out.errors));
});

test('validate: a runtime error is placed in the runtime\'s file and line', () => {
  const bad = runtimeText.replace('values: [2]', 'values: [0]');
  const out = rk.validate(trainJobText, { fileName: 'tj.yaml', runtimes: [{ source: bad, fileName: 'rt.yaml' }] });
  assert.equal(out.valid, false);
  const e = out.errors.find((d) => d.field.includes('onExitCodes'));
  assert.ok(e, JSON.stringify(out.errors));
  assert.equal(e.file, 'rt.yaml');
  assert.equal(e.line, bad.split('\n').findIndex((l) => l.includes('values: [0]')) + 1);
});

test('whatIf: a user error fails the JobSet, another exit restarts it', () => {
  const obj = { apiVersion: 'trainer.kubeflow.org/v1alpha1', kind: 'TrainJob', metadata: { name: 'llm-finetune', namespace: 'training' },
    spec: { runtimeRef: { name: 'torch-distributed-resilient' }, trainer: { numNodes: 4, image: 'ghcr.io/example/llm-finetune:1.0' } } };
  assert.equal(rk.whatIf(obj, 2, { runtime: runtimeText }).jobset.action, 'FailJobSet');
  assert.equal(rk.whatIf(obj, 1, { runtime: runtimeText }).jobset.action, 'RestartJobSet');
  assert.throws(() => rk.whatIf(obj, 1, { runtimes: [42] }), TypeError);
});
