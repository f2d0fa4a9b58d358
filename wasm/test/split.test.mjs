// The module ships in two parts (wasm/scripts/split.mjs): a first-load part and an on-demand part,
// which also carries the constants only its code reads (wasm/scripts/data-split.mjs). These tests
// run the first-load part alone, with a loader that refuses to give the on-demand part, so that
// any call reaching into it fails here, and with the memory the on-demand part's data would fill
// overwritten by a poison byte, so that a constant the data split moved but the first-load part
// reads shows as a different answer or a trap: the build's training work and the playground's
// first view of its default example (as playground/src/app.js and worker.js make the calls) must
// not need it and must answer as the whole module does; an example marked `onDemand` (a Kubeflow
// TrainJob: the trainer's build) and the simulator must need it (so that the split is real).
// Then, loaded, every op answers as the Node entry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { pkgDir, repoDir } from './helpers.mjs';
import { dataRanges } from '../scripts/data-split.mjs';
import { attempt, firstCalls, setEditorSchemas, train } from '../scripts/training.mjs';
import { PRIMARY } from '../scripts/split.mjs';

// A separate instance of the glue (the query makes it a module of its own), on the first part only.
const raw = await import(`${pathToFileURL(join(pkgDir, 'web', 'restartkit_wasm.js')).href}?first-load-only`);
const firstPart = readFileSync(join(pkgDir, 'web', 'restartkit_wasm_bg.wasm'));
const lazyBytes = readFileSync(join(pkgDir, 'web', 'restartkit_wasm_lazy.wasm'));
// What the on-demand part's data segments write when it is linked, poisoned until then.
const moved = dataRanges(lazyBytes);
const POISON = 0xa5;
function poison() {
  const memory = new Uint8Array(raw.__rkExports().memory.buffer);
  for (const r of moved) memory.fill(POISON, r.offset, r.offset + r.length);
}
/** A fresh instance of the first-load part, poisoned. */
function reset() {
  raw.__wbg_reset_state();
  poison();
}
raw.initSync({ module: firstPart });
poison();
let lazyAsked = 0;
let allowLazy = false;
let lazyModule = null;
raw.__rkSetLazyLoader(() => {
  lazyAsked++;
  if (!allowLazy) throw new Error('the on-demand part was needed');
  return (lazyModule ??= new WebAssembly.Module(lazyBytes));
});
/** Runs f with the on-demand part refused; returns how often it was asked for. */
function firstLoadOnly(f) {
  const before = lazyAsked;
  try {
    f();
  } catch (e) {
    if (lazyAsked === before) throw e;
    // The instance was left inside a call: start again from a fresh one.
    reset();
  }
  return lazyAsked - before;
}

const playground = join(repoDir, 'playground', 'examples');
const examples = JSON.parse(readFileSync(join(playground, 'index.json'), 'utf8'));

// The whole module, both parts linked from the start: what the first-load part alone must match.
const whole = await import(`${pathToFileURL(join(pkgDir, 'web', 'restartkit_wasm.js')).href}?whole`);
whole.initSync({ module: firstPart });
whole.__rkSetLazyLoader(() => (lazyModule ??= new WebAssembly.Module(lazyBytes)));
/** A fresh instance of the whole module, the on-demand part linked (its constants written) at once. */
function resetWhole() {
  whole.__wbg_reset_state();
  new WebAssembly.Instance(lazyModule ??= new WebAssembly.Module(lazyBytes), { [PRIMARY]: whole.__rkExports() });
}
const { default: SCHEMAS_JSON } = await import(pathToFileURL(join(pkgDir, 'schemas.js')).href);

/** `g` with every function's answer (or error message) appended to `log`. */
function recorded(g, log) {
  return new Proxy(g, {
    get(target, key) {
      const v = target[key];
      if (typeof v !== 'function' || key === '__wbg_reset_state') return v;
      return (...args) => {
        try {
          const out = v(...args);
          log.push([key, JSON.stringify(out) ?? null]);
          return out;
        } catch (e) {
          log.push([key, 'error', e instanceof WebAssembly.RuntimeError ? 'trap' : String(e?.message ?? e)]);
          throw e;
        }
      };
    },
  });
}

test('the split moved constants out of the first-load part', () => {
  const bytes = moved.reduce((a, r) => a + r.length, 0);
  assert.ok(bytes > 64 * 1024, `the on-demand part carries ${bytes} bytes of constants`);
});

test('the build\'s training work runs on the first-load part alone, poisoned, and answers as the whole module', () => {
  setEditorSchemas(JSON.stringify(Object.fromEntries(['Pod', 'Job', 'JobSet', 'KubeletConfiguration', 'ContainerRecreateRequest']
    .map((n) => [n, JSON.parse(SCHEMAS_JSON)[n]]))));
  const alone = [];
  const reference = [];
  reset();
  assert.equal(firstLoadOnly(() => train(recorded(raw, alone))), 0, 'the training work needed the on-demand part');
  resetWhole();
  train(recorded(whole, reference));
  assert.ok(alone.length > 40, `the training work made ${alone.length} calls`);
  assert.deepEqual(alone, reference);
  for (let i = 0; i < firstCalls(raw).length; i++) {
    const a = [];
    const r = [];
    reset();
    assert.equal(firstLoadOnly(() => attempt(firstCalls(recorded(raw, a))[i])), 0, `first call ${i} needed the on-demand part`);
    resetWhole();
    attempt(firstCalls(recorded(whole, r))[i]);
    assert.deepEqual(a, r, `first call ${i}`);
  }
});

test('the playground\'s first view of its default example runs on the first-load part alone', () => {
  const description = raw.call('describe', {});
  const version = description.defaultKubernetesVersion;
  const off = { ReduceDefaultCrashLoopBackOffDecay: false, KubeletCrashLoopBackOffMax: false };
  const ex = examples[0];
  const text = readFileSync(join(playground, ex.file), 'utf8');
  // worker.js, on an instance of its own: parseDocuments is its first call.
  const play = (g) => {
    const log = [];
    const r = recorded(g, log);
    const docs = r.parseDocuments(text);
    r.call('validate', { source: text, kubernetesVersion: version, featureGates: {} });
    // app.js, on the page's instance (describe first): the what-if panel and the backoff chart
    // (range 600 s, per-node maximum 30 s).
    if (g === raw) reset(); else resetWhole();
    r.call('describe', {});
    if (ex.whatIf) {
      const obj = docs.map((d) => d.value).find((o) => ['Pod', 'Job', 'JobSet'].includes(o?.kind));
      r.call('whatIf', { object: obj, container: ex.whatIf.container, exitCode: ex.whatIf.exitCode, kubernetesVersion: version, featureGates: {} });
    }
    for (const input of [
      { featureGates: off },
      { featureGates: { ...off, ReduceDefaultCrashLoopBackOffDecay: true } },
      { featureGates: { ...off, KubeletCrashLoopBackOffMax: true }, kubeletConfig: { apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration', featureGates: { KubeletCrashLoopBackOffMax: true }, crashLoopBackOff: { maxContainerRestartPeriod: '30s' } } },
    ]) r.call('backoff', { component: 'kubelet', restarts: 602, ...input });
    return log;
  };
  reset();
  let alone = null;
  assert.equal(firstLoadOnly(() => { alone = play(raw); }), 0, `${ex.id}: the first view needed the on-demand part`);
  resetWhole();
  assert.deepEqual(alone, play(whole));
});

test('an example marked onDemand (a Kubeflow TrainJob: the trainer\'s build) needs the on-demand part', () => {
  const marked = examples.filter((e) => e.onDemand);
  assert.ok(marked.length >= 1);
  for (const ex of marked) {
    const text = readFileSync(join(playground, ex.file), 'utf8');
    reset();
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
    // Read by the whole package: reading this file's YAML reaches code of the on-demand part.
    const whole = await import(pathToFileURL(join(pkgDir, 'index.node.mjs')).href);
    const scenario = whole.parseDocuments(readFileSync(join(repoDir, 'examples', 'scenarios', 'crashlooping-sidecar.yaml'), 'utf8'))[0].value;
    assert.throws(() => m.call('simulate', { scenario }), (e) => e instanceof m.RestartkitError && e.code === 'module-load-failed' && /restartkit_wasm_lazy\.wasm/.test(e.message));
    assert.equal(m.request('simulate', { scenario }).errors[0].code, 'module-load-failed');
    // The instance was replaced; what the first-load part holds still works.
    assert.equal(m.validate('apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  restartPolicy: Never\n  containers:\n  - name: c\n    image: i\n').valid, true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
