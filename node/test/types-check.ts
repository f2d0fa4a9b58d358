// Compiled by `tsc --noEmit` only: the declarations describe the API as the tests use it.
import rk = require('../index.js');

const job: rk.Job = { apiVersion: 'batch/v1', kind: 'Job', spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c' }] } } } };
const out: rk.ValidateOutput = rk.validate(job, { kubernetesVersion: '1.35', featureGates: { JobManagedBy: true } });
const first: rk.Diagnostic | undefined = out.errors[0];
const line: number | null | undefined = first?.line;
const action: string = rk.compile(job).decide('c', 1);
const codes: Uint8Array = rk.compile(job).decideMany(0, new Int32Array([1, 2]));
const many: Promise<rk.ValidateOutput[]> = rk.validateManyAsync(['kind: Pod', job]);
try {
  rk.check('apiVersion: v1');
} catch (e) {
  if (e instanceof rk.RestartkitError) {
    const f: string = e.field;
    const t: string | null = e.type;
    const ds: rk.Diagnostic[] = e.diagnostics;
    void [f, t, ds];
  }
}
const r: rk.ContainerRestartOutput = rk.containerRestart({ apiVersion: 'v1', kind: 'Pod' }, 'c', 137);
const b: rk.BackoffOutput = rk.backoff({ component: 'kubelet', restarts: 3 });
// Evaluation results and compiled policies carry the object's validation errors as warnings.
const resultWarnings: rk.Diagnostic[] = r.warnings;
const policyWarnings: readonly rk.Diagnostic[] = rk.compile(job).warnings;
const pfpWarnings: rk.Diagnostic[] = rk.podFailurePolicy(job, { apiVersion: 'v1', kind: 'Pod' }).warnings;
void [out, line, action, codes, many, r, b, rk.ACTIONS, rk.VERSION, resultWarnings, policyWarnings, pfpWarnings];
// Kubeflow Trainer: a TrainJob with its runtime (text, an object, or a RuntimeInput).
const built: rk.ResolveOutput = rk.resolve('kind: TrainJob\n', { runtime: 'kind: ClusterTrainingRuntime\n', fileName: 'tj.yaml' });
const builtJobSet: rk.JobSet | null | undefined = built.trainJobs[0]?.jobSet;
const answer: rk.WhatIfOutput = rk.whatIf({ kind: 'TrainJob' }, 2, { runtimes: [{ source: 'kind: ClusterTrainingRuntime\n', fileName: 'rt.yaml' }], container: 'node' });
const story: string[] = answer.story;
void [builtJobSet, story];
