// The first-load work that decides what stays in the first-load part of the module (split.mjs):
// the playground's first view, as issue 44 defines it, and the first call an embedder may make.
// The first view is the default example (the first of playground/examples/index.json) at the
// default minor: read and validated in the validation worker, completion on each of its lines
// (hover is the page's own JavaScript, from the JSON Schemas), the what-if panel on its containers
// and the backoff chart's curves. Every function this runs stays in that part, and with it the
// constants those functions can reach (data-split.mjs); the rest loads on demand: the other
// examples and minors, pasted manifests whose checks the default example does not reach, the
// simulator and sweeps, proposals, the conformance ops, the Kubeflow Trainer's build.
//
// History: until issue 44 the profile also played every playground and bundled example, the sweep
// panel's patches and the evaluation ops' conformance vectors. With those the first-load part was
// 418 KiB gzipped (325 KiB with the playground's examples alone, after the data split); with the
// default example alone it is under the 300 KiB goal, and another example's first view
// fetches the on-demand part (synchronously in the validation worker, through core.loadFull() on
// the page). Deterministic: same inputs, same profile.
import { readFileSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
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
  const allGates = Object.fromEntries(describe.featureGates
    .filter((x) => x.stages?.[describe.defaultKubernetesVersion] !== 'Removed').map((x) => [x.name, true]));

  // 1. The default example as the playground's first view handles it: read and validated (in its
  // worker) as it is and with every gate on; completion as the manifest editor asks for it (the
  // core's `complete`, on Ctrl-Space and while typing: at the end of each line and after each
  // key's colon); then, on the main thread, what happens when each container exits.
  const first = JSON.parse(readFileSync(join(root, 'playground', 'examples', 'index.json'), 'utf8'))[0];
  const texts = [readFileSync(join(root, 'playground', 'examples', first.file), 'utf8')];
  for (const text of texts) {
    text.split('\n').forEach((l, i) => {
      attempt(() => g.__completeWith(text, i + 1, [...l].length + 1, editorSchemas));
      const colon = l.indexOf(': ');
      if (colon > 0) attempt(() => g.__completeWith(text, i + 1, colon + 3, editorSchemas));
    });
  }
  for (const text of texts) {
    const docs = attempt(() => g.parseDocuments(text)) ?? [];
    // As an embedder calls it (the defaults) and as the page does (app.js opts(): the version and
    // the gate overrides, none or all).
    const page = [{}, { kubernetesVersion: newest, featureGates: {} }, { kubernetesVersion: newest, featureGates: allGates }];
    for (const opts of page) attempt(() => g.call('validate', { source: text, ...opts }));
    for (const { value } of docs) {
      if (!value || typeof value !== 'object') continue;
      attempt(() => g.call('validate', { object: value }));
      const spec = podSpecOf(value);
      for (const c of [...list(spec?.initContainers), ...list(spec?.containers)]) {
        for (const exitCode of [0, 1, 42, 137]) {
          for (const opts of page) attempt(() => g.call('whatIf', { object: value, container: c.name, exitCode, ...opts }));
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

  // 3. Reading, which every manifest goes through first: each playground example is read (not
  // validated), so that the reader's syntax they use stays here (comments, flow sequences, quoted
  // strings, several documents) and a page that could not fetch the on-demand part still has the
  // documents; and a small Pod in flow YAML and in JSON, as an embedder or a test writes one.
  for (const text of [
    'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: [{name: c, image: i}]\n',
    '{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "i"}]}}',
  ]) attempt(() => g.call('validate', { source: text }));
  for (const { file } of JSON.parse(readFileSync(join(root, 'playground', 'examples', 'index.json'), 'utf8'))) {
    attempt(() => g.parseDocuments(readFileSync(join(root, 'playground', 'examples', file), 'utf8')));
  }
  attempt(() => g.version());
}
