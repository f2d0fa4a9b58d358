// Type-checked (tsc --noEmit) against the built package's declarations: ESM consumer.
import {
  validate, check, containerRestart, podFailurePolicy, jobsetFailurePolicy, backoff, describe, schemas,
  compile, handleJson, request, call, RestartkitError, Policy, parseDocuments, resolve,
} from 'restartkit-wasm';
import type {
  Pod, Job, JobSet, Diagnostic, ValidateOutput, ValidateOptions, ContainerRestartOutput, BackoffInput,
  BackoffOutput, Description, Response, ErrorType, PodFailurePolicyOutput, JobsetFailurePolicyOutput, ActionName,
  ResolveOptions, ResolveOutput,
} from 'restartkit-wasm';

const pod: Pod = {
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { app: 'x' } },
  spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox', restartPolicy: 'Never', restartPolicyRules: [{ action: 'Restart', exitCodes: { operator: 'In', values: [42] } }] }] },
};
const opts: ValidateOptions = { kubernetesVersion: '1.35', featureGates: { ContainerRestartRules: true }, skipDefaulting: false };
const v: ValidateOutput = validate(pod, opts);
const v2: ValidateOutput = validate('apiVersion: v1\nkind: Pod\n');
const firstLine: number | null | undefined = v.errors[0]?.line;
const d: Diagnostic | undefined = v2.warnings[0];
const t: ErrorType | null | undefined = d?.type;
check(pod);
const r: ContainerRestartOutput = containerRestart(pod, 'main', 42, { featureGates: { ContainerRestartRules: true } });
const action: string = r.action;
const job: Job = { apiVersion: 'batch/v1', kind: 'Job', spec: { template: { spec: { containers: [] } } } };
const p: PodFailurePolicyOutput = podFailurePolicy(job, pod);
const js: JobSet = { apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet' };
const jr: JobsetFailurePolicyOutput = jobsetFailurePolicy(js, [job]);
const bi: BackoffInput = { component: 'kubelet', restarts: 5 };
const bo: BackoffOutput = backoff(bi);
const desc: Description = describe();
const versions: string[] = desc.kubernetesVersions;
const s: Record<string, Record<string, unknown>> = schemas();
const text: string = handleJson('{"op":"describe"}');
const resp: Response = request('describe', {});
if (resp.status === 'error') {
  const msgs: string[] = resp.errors.map((e) => e.message);
}
const docs: { index: number; line: number; value: unknown }[] = parseDocuments('a: 1');
const anything: unknown = call('describe', {});
const policy: Policy = compile(pod, { kubernetesVersion: '1.35' });
const a: ActionName = policy.decide('main', 42);
const codes: Uint8Array = policy.decideMany(0, new Int32Array([1, 42]));
const codes2: Uint8Array = policy.decideMany('main', [1, 2]);
const names: string[] = policy.containers;
// The object's validation errors, as warnings, on the policy and on every evaluation result.
const policyWarnings: Diagnostic[] = policy.warnings;
const resultWarnings: Diagnostic[] = [...r.warnings, ...p.warnings, ...jr.warnings];
policy.free();
try {
  check(pod);
} catch (e) {
  if (e instanceof RestartkitError) {
    const f: string | null = e.field;
    const l: number | null = e.line;
    const all: Diagnostic[] = e.diagnostics;
    const c: string | null = e.code;
  }
}
// Kubeflow Trainer: a TrainJob with its runtime.
const resolveOpts: ResolveOptions = { runtimes: [{ source: 'kind: ClusterTrainingRuntime\n', fileName: 'rt.yaml' }], kubernetesVersion: '1.35' };
const built: ResolveOutput = resolve('kind: TrainJob\n', resolveOpts);
const builtJobSet: unknown = built.trainJobs[0]?.jobSet;
const builtErrors: Diagnostic[] = built.errors;
// @ts-expect-error exitCode must be a number
containerRestart(pod, 'main', '42');
// @ts-expect-error unknown options are rejected
validate(pod, { kubernetesVersoin: '1.35' });
// @ts-expect-error backoff components are named
backoff({ component: 'kublet' });
