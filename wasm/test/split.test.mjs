// The module ships in two parts (wasm/scripts/split.mjs): a first-load part and an on-demand part.
// These tests run the first-load part alone, with a loader that refuses to give the on-demand
// part, so that any call reaching into it fails here: the playground's first view of each of its
// examples (as playground/src/app.js and worker.js make the calls) must not need it, but for those
// marked `onDemand` (a Kubeflow TrainJob: the trainer's build loads on demand), and the simulator
// must (so that the split is real). Then, loaded, every op answers as the Node entry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { pkgDir, repoDir } from './helpers.mjs';

// A separate instance of the glue (the query makes it a module of its own), on the first part only.
const raw = await import(`${pathToFileURL(join(pkgDir, 'web', 'restartkit_wasm.js')).href}?first-load-only`);
raw.initSync({ module: readFileSync(join(pkgDir, 'web', 'restartkit_wasm_bg.wasm')) });
let lazyAsked = 0;
let allowLazy = false;
let lazyModule = null;
raw.__rkSetLazyLoader(() => {
  lazyAsked++;
  if (!allowLazy) throw new Error('the on-demand part was needed');
  return (lazyModule ??= new WebAssembly.Module(readFileSync(join(pkgDir, 'web', 'restartkit_wasm_lazy.wasm'))));
});
/** Runs f with the on-demand part refused; returns how often it was asked for. */
function firstLoadOnly(f) {
  const before = lazyAsked;
  try {
    f();
  } catch (e) {
    if (lazyAsked === before) throw e;
    // The instance was left inside a call: start again from a fresh one.
    raw.__wbg_reset_state();
  }
  return lazyAsked - before;
}

const playground = join(repoDir, 'playground', 'examples');
const examples = JSON.parse(readFileSync(join(playground, 'index.json'), 'utf8'));

test('the playground\'s first view of each of its examples runs on the first-load part alone', () => {
  const description = raw.call('describe', {});
  const version = description.defaultKubernetesVersion;
  const off = { ReduceDefaultCrashLoopBackOffDecay: false, KubeletCrashLoopBackOffMax: false };
  assert.ok(examples.length >= 5);
  for (const ex of examples.filter((e) => !e.onDemand)) {
    const text = readFileSync(join(playground, ex.file), 'utf8');
    let docs = [];
    // worker.js, on an instance of its own: parseDocuments is its first call.
    raw.__wbg_reset_state();
    const askedByWorker = firstLoadOnly(() => {
      docs = raw.parseDocuments(text);
      raw.call('validate', { source: text, kubernetesVersion: version, featureGates: {} });
    });
    assert.equal(askedByWorker, 0, `${ex.id}: validation needed the on-demand part`);
    // app.js, on the page's instance (describe first): the what-if panel and the backoff chart
    // (range 600 s, per-node maximum 30 s).
    raw.__wbg_reset_state();
    const asked = firstLoadOnly(() => {
      raw.call('describe', {});
      if (ex.whatIf) {
        const obj = docs.map((d) => d.value).find((o) => ['Pod', 'Job', 'JobSet'].includes(o?.kind));
        raw.call('whatIf', { object: obj, container: ex.whatIf.container, exitCode: ex.whatIf.exitCode, kubernetesVersion: version, featureGates: {} });
      }
      const kc = docs.map((d) => d.value).find((o) => o?.kind === 'KubeletConfiguration');
      for (const input of [
        { featureGates: off },
        { featureGates: { ...off, ReduceDefaultCrashLoopBackOffDecay: true } },
        { featureGates: { ...off, KubeletCrashLoopBackOffMax: true }, kubeletConfig: { apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration', featureGates: { KubeletCrashLoopBackOffMax: true }, crashLoopBackOff: { maxContainerRestartPeriod: '30s' } } },
        { featureGates: { ReduceDefaultCrashLoopBackOffDecay: false, KubeletCrashLoopBackOffMax: false }, ...(kc ? { kubeletConfig: kc } : {}) },
      ]) raw.call('backoff', { component: 'kubelet', restarts: 602, ...input });
    });
    assert.equal(asked, 0, `${ex.id}: the first view needed the on-demand part`);
  }
});

test('an example marked onDemand (a Kubeflow TrainJob: the trainer\'s build) needs the on-demand part', () => {
  const marked = examples.filter((e) => e.onDemand);
  assert.ok(marked.length >= 1);
  for (const ex of marked) {
    const text = readFileSync(join(playground, ex.file), 'utf8');
    raw.__wbg_reset_state();
    assert.ok(firstLoadOnly(() => raw.call('validate', { source: text })) > 0, `${ex.id}: validated without the on-demand part; drop its onDemand mark`);
  }
});

test('the simulator is in the on-demand part; once loaded, the ops answer as the Node entry', async () => {
  const node = await import(join(pkgDir, 'index.node.mjs'));
  const scenario = node.parseDocuments(readFileSync(join(repoDir, 'examples', 'scenarios', 'crashlooping-sidecar.yaml'), 'utf8'))[0].value;
  assert.ok(firstLoadOnly(() => raw.call('simulate', { scenario })) > 0, 'simulate ran without the on-demand part');
  allowLazy = true;
  assert.deepEqual(raw.call('simulate', { scenario }), node.call('simulate', { scenario }));
  for (const ex of examples) {
    const text = readFileSync(join(playground, ex.file), 'utf8');
    assert.deepEqual(raw.call('validate', { source: text, proposals: ['AlwaysPod'] }), node.validate(text, { proposals: ['AlwaysPod'] }), ex.id);
  }
});

test('a package whose on-demand part cannot be read: a RestartkitError naming it, and the first-load ops still answer', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'restartkit-wasm-no-lazy-'));
  try {
    cpSync(pkgDir, dir, { recursive: true });
    rmSync(join(dir, 'web', 'restartkit_wasm_lazy.wasm'));
    const m = await import(pathToFileURL(join(dir, 'index.node.mjs')).href);
    const scenario = m.parseDocuments(readFileSync(join(repoDir, 'examples', 'scenarios', 'crashlooping-sidecar.yaml'), 'utf8'))[0].value;
    assert.throws(() => m.call('simulate', { scenario }), (e) => e instanceof m.RestartkitError && e.code === 'module-load-failed' && /restartkit_wasm_lazy\.wasm/.test(e.message));
    assert.equal(m.request('simulate', { scenario }).errors[0].code, 'module-load-failed');
    // The instance was replaced; what the first-load part holds still works.
    assert.equal(m.validate('apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: [{name: c, image: i}]\n').valid, true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
