// The first-load work that decides what stays in the first-load part of the module (split.mjs):
// what a page that validates, evaluates and draws backoff curves does before it simulates — the
// playground's first view and its main-thread panels. Every function this runs stays in that part;
// the rest (the simulator and sweeps, proposals, the conformance ops, JobSet message patterns,
// the Kubeflow Trainer's build, what other manifests and their mistakes need) loads on demand.
// Inputs are the repository's own: the playground's and the bundled examples, and the
// conformance vectors of the kubelet/Job evaluation and backoff ops. The real-world and
// bad-input corpora and the validate vectors were part of it until issue 39's Pod spec checks
// took the first-load part to 501 KiB gzipped, over its 475 KiB guard: a manifest pasted into
// the playground that reaches code outside the first view now fetches the on-demand part in the
// validation worker (synchronously, as a worker does) on first use. Deterministic: same inputs,
// same profile.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
// The ops whose vectors are first-load work (the others' run on demand).
const FIRST_LOAD_OPS = new Set(['validate', 'containerRestart', 'containerRestartable', 'matchRestartRule',
  'statusTransition', 'podFailurePolicy', 'backoff']);

// The Kubeflow Trainer's API group, as a manifest names it in apiVersion.
const TRAINER_API = /\bapiVersion["']?\s*:\s*["']?trainer\.kubeflow\.org\//;

const walk = (d) => readdirSync(d).sort().flatMap((f) => {
  const p = join(d, f);
  return statSync(p).isDirectory() ? walk(p) : [p];
});
const list = (x) => (Array.isArray(x) ? x : []);
/** The core types' schemas as the package's complete() passes them (set by build.mjs). */
let editorSchemas = '{}';
export function setEditorSchemas(json) {
  editorSchemas = json;
}

/** Runs f; an error is part of the work and gives null, a trap (a panic) is thrown. */
export const attempt = (f) => {
  try {
    return f();
  } catch (e) {
    // Errors are part of the work (diagnostics, request errors); a trap is not.
    if (e instanceof WebAssembly.RuntimeError) throw e;
    return null;
  }
};

/** The Pod template of a workload object, as the playground's whatIf panel picks it. */
function podSpecOf(value) {
  switch (value.kind) {
    case 'Pod': return value.spec;
    case 'Job': return value.spec?.template?.spec;
    case 'CronJob': return value.spec?.jobTemplate?.spec?.template?.spec;
    case 'JobSet': return list(value.spec?.replicatedJobs)[0]?.template?.spec?.template?.spec;
    default: return null;
  }
}

/**
 * The calls a fresh instance may get first (the validation worker's is parseDocuments, the page's
 * describe): each is played on an instance of its own, because the first call into an instance
 * runs the one-time set-up of what it touches (lazily made statics such as the hash maps' keys)
 * and later calls skip it.
 */
export function firstCalls(g) {
  const pod = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  restartPolicy: Never\n  containers:\n  - name: c\n    image: i\n';
  const obj = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'i' }] } };
  return [
    () => g.call('describe', {}),
    () => g.parseDocuments(pod),
    () => g.call('validate', { source: pod }),
    () => g.call('validate', { object: obj }),
    () => g.call('whatIf', { object: obj, container: 'c', exitCode: 1 }),
    () => g.call('backoff', { component: 'kubelet', restarts: 10 }),
    () => g.__completeWith(pod, 6, 18, editorSchemas),
    () => g.request('validate', { object: obj }),
    () => g.handleJson(JSON.stringify({ op: 'validate', input: { object: obj } })),
    () => g.call('containerRestart', { pod: obj, container: 'c', exitCode: 1 }),
    () => g.call('podFailurePolicy', { job: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, spec: { template: { spec: obj.spec } } }, pod: obj }),
  ];
}

/** Runs the work on `g`, the wasm-bindgen glue's exports (request, validate, ...). */
export function train(g) {
  const describe = g.call('describe', {});
  // Older Kubernetes minors are on-demand work: the playground's first view judges for the newest
  // (describe's default), and what is particular to 1.31-1.36 (their fields, messages and
  // controllers) loads when a user picks one.
  const newest = describe.defaultKubernetesVersion;
  const forNewest = (input) => input?.kubernetesVersion == null || String(input.kubernetesVersion) === newest;
  const allGates = Object.fromEntries(describe.featureGates
    .filter((x) => x.stages?.[describe.defaultKubernetesVersion] !== 'Removed').map((x) => [x.name, true]));

  // 1. The examples as the playground handles them: read and validated (in its worker) as they are,
  // and with every gate on; then, on the main thread, what happens when
  // each container exits, and the backoff curves of a KubeletConfiguration.
  // Kubeflow Trainer manifests (TrainJobs and their runtimes) are left out: the trainer's build of
  // the JobSet loads on demand, so that the first view of the other examples stays small (a
  // playground example marked `onDemand` is one of them).
  const texts = [join(root, 'playground', 'examples'), join(root, 'examples')]
    .flatMap(walk).filter((p) => /\.(ya?ml|json)$/.test(p)).map((p) => readFileSync(p, 'utf8'))
    .filter((text) => !TRAINER_API.test(text));
  // Completion as the manifest editor asks for it (the core's `complete`, on Ctrl-Space and while
  // typing): at the end of each line of the playground's examples and after each key's colon.
  for (const p of walk(join(root, 'playground', 'examples')).filter((f) => /\.ya?ml$/.test(f))) {
    const text = readFileSync(p, 'utf8');
    if (TRAINER_API.test(text)) continue;
    text.split('\n').forEach((l, i) => {
      attempt(() => g.__completeWith(text, i + 1, [...l].length + 1, editorSchemas));
      const colon = l.indexOf(': ');
      if (colon > 0) attempt(() => g.__completeWith(text, i + 1, colon + 3, editorSchemas));
    });
  }
  for (const text of texts) {
    const docs = attempt(() => g.parseDocuments(text)) ?? [];
    for (const opts of [{}, { featureGates: allGates }]) attempt(() => g.call('validate', { source: text, ...opts }));
    for (const { value } of docs) {
      if (!value || typeof value !== 'object') continue;
      attempt(() => g.call('validate', { object: value }));
      const spec = podSpecOf(value);
      for (const c of [...list(spec?.initContainers), ...list(spec?.containers)]) {
        for (const exitCode of [0, 1, 42, 137]) {
          for (const featureGates of [undefined, allGates]) {
            attempt(() => g.call('whatIf', { object: value, container: c.name, exitCode, ...(featureGates ? { featureGates } : {}) }));
          }
        }
      }
      if (value.kind === 'KubeletConfiguration') {
        attempt(() => g.call('backoff', { component: 'kubelet', restarts: 20, kubeletConfig: value, featureGates: allGates }));
      }
    }
  }

  // 2. The playground's backoff panel: the curves it draws on its first view (playground/src/app.js
  // renderBackoff: legacy, reduced, a per-node maximum, the selected gates), over its ranges.
  const off = { ReduceDefaultCrashLoopBackOffDecay: false, KubeletCrashLoopBackOffMax: false };
  const nodeMax = (max) => ({
    featureGates: { ...off, KubeletCrashLoopBackOffMax: true },
    kubeletConfig: { apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration', featureGates: { KubeletCrashLoopBackOffMax: true }, crashLoopBackOff: { maxContainerRestartPeriod: `${max}s` } },
  });
  for (const range of [600, 3600]) {
    for (const input of [{ featureGates: off }, { featureGates: { ...off, ReduceDefaultCrashLoopBackOffDecay: true } }, nodeMax(30), nodeMax(1), { featureGates: allGates }, {}]) {
      attempt(() => g.call('backoff', { component: 'kubelet', restarts: Math.min(range + 2, 2000), ...input }));
    }
  }

  // 3. The sweep panel reads its variants' patches on the main thread (playground/src/sweep.js
  // variantOf: parseDocuments), block and flow YAML and JSON alike.
  for (const patch of ['runFor: 2h', '{runFor: 2h, workload: {spec: {failurePolicy: {maxRestarts: 10}}}}',
    'workload:\n  spec:\n    failurePolicy:\n      maxRestarts: 10\n', '{"runFor": "2h", "seeds": [1, 2]}', '[1, 2', '{a: [b, {c: d}]']) {
    attempt(() => g.parseDocuments(patch));
  }

  // 4. The conformance vectors of the first-load ops but validate (whose error paths load on
  // demand), through the request API.
  for (const f of readdirSync(join(root, 'conformance', 'vectors')).filter((x) => x.endsWith('.json')).sort()) {
    for (const v of [JSON.parse(readFileSync(join(root, 'conformance', 'vectors', f), 'utf8'))].flat()) {
      if (FIRST_LOAD_OPS.has(v.op) && v.op !== 'validate' && forNewest(v.input)) attempt(() => g.request(v.op, v.input ?? null));
    }
  }
  attempt(() => g.version());
}
