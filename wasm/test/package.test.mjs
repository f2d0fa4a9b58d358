// The package's entry points and API: import, require, values as objects, structured errors,
// panics. Behaviour that needs the core's semantics is written for upstream's real answers.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { consumerProject, pkgDir, repoDir } from './helpers.mjs';

let consumer;
let esm;
let cjs;
before(async () => {
  consumer = consumerProject();
  // Resolve through the package name, as a user would, in both module systems.
  const req = createRequire(join(consumer.dir, 'index.js'));
  cjs = req('restartkit-wasm');
  const esmPath = execFileSync(process.execPath, ['--input-type=module', '-e', 'console.log(import.meta.resolve("restartkit-wasm"))'], { cwd: consumer.dir, encoding: 'utf8' }).trim();
  esm = await import(esmPath);
});
after(() => consumer.cleanup());

const pod = (rules, restartPolicy = 'Never') => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'default' },
  spec: {
    restartPolicy,
    containers: [{ name: 'main', image: 'busybox', restartPolicy, ...(rules ? { restartPolicyRules: rules } : {}) }],
  },
});
const restartOn42 = [{ action: 'Restart', exitCodes: { operator: 'In', values: [42] } }];

describe('entry points', () => {
  test('package.json exports name a file for each condition, and each exists', () => {
    const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
    assert.equal(manifest.name, 'restartkit-wasm');
    const dot = manifest.exports['.'];
    const files = [dot.browser.default, dot.browser.types, dot.node.import.default, dot.node.import.types,
      dot.node.require.default, dot.node.require.types, dot.default, dot.types];
    for (const f of files) assert.ok(readFileSync(join(pkgDir, f)).length > 0, f);
  });

  test('import and require resolve to the Node entries', () => {
    const resolvedEsm = execFileSync(process.execPath, ['--input-type=module', '-e', 'console.log(import.meta.resolve("restartkit-wasm"))'], { cwd: consumer.dir, encoding: 'utf8' }).trim();
    assert.match(resolvedEsm, /index\.node\.mjs$/);
    const resolvedCjs = execFileSync(process.execPath, ['-e', 'console.log(require.resolve("restartkit-wasm"))'], { cwd: consumer.dir, encoding: 'utf8' }).trim();
    assert.match(resolvedCjs, /index\.cjs$/);
  });

  test('ESM and CJS offer the same API', () => {
    const names = (m) => Object.keys(m).filter((k) => k !== 'default' && k !== 'module.exports').sort();
    assert.deepEqual(names(esm), names(cjs));
    for (const fn of ['handleJson', 'request', 'call', 'validate', 'check', 'containerRestart', 'podFailurePolicy',
      'jobsetFailurePolicy', 'backoff', 'describe', 'schemas', 'compile', 'RestartkitError', 'Policy']) {
      assert.equal(typeof esm[fn], 'function', fn);
    }
  });

  test('a plain `node` script can import and require it', () => {
    writeFileSync(join(consumer.dir, 'a.mjs'), 'import { describe } from "restartkit-wasm"; console.log(describe().contractVersion);\n');
    writeFileSync(join(consumer.dir, 'b.cjs'), 'const { describe } = require("restartkit-wasm"); console.log(describe().contractVersion);\n');
    assert.equal(execFileSync(process.execPath, ['a.mjs'], { cwd: consumer.dir, encoding: 'utf8' }).trim(), '1.3');
    assert.equal(execFileSync(process.execPath, ['b.cjs'], { cwd: consumer.dir, encoding: 'utf8' }).trim(), '1.3');
  });
});

describe('API', () => {
  test('describe lists versions, gates with per-version defaults and the ops', () => {
    for (const m of [esm, cjs]) {
      const d = m.describe();
      assert.ok(d.kubernetesVersions.includes(d.defaultKubernetesVersion));
      assert.ok(d.operations.includes('validate') && d.operations.includes('backoff'));
      const gate = d.featureGates.find((g) => g.name === 'ContainerRestartRules');
      assert.ok(gate, 'ContainerRestartRules is described');
      assert.deepEqual(Object.keys(gate.defaults).sort(), [...d.kubernetesVersions].sort());
    }
  });

  test('schemas() returns the contract schemas, a fresh copy each time', () => {
    const s = esm.schemas();
    for (const name of ['Request', 'Response', 'Diagnostic', 'ValidateInput', 'ValidateOutput', 'BackoffInput']) assert.ok(s[name], name);
    s.Request.mutated = true;
    assert.equal(esm.schemas().Request.mutated, undefined);
    assert.deepEqual(cjs.schemas(), esm.schemas());
  });

  test('handleJson never throws', () => {
    const bad = JSON.parse(esm.handleJson('{not json'));
    assert.equal(bad.status, 'error');
    assert.equal(bad.errors[0].code, 'invalid-json');
    assert.equal(JSON.parse(esm.handleJson('{"op":"describe"}')).status, 'ok');
    assert.equal(JSON.parse(esm.handleJson('{"op":"nope","input":{}}')).errors[0].code, 'unknown-op');
  });

  test('request returns the response object; call throws on a request error', () => {
    assert.equal(esm.request('describe', {}).status, 'ok');
    const r = esm.request('frobnicate', {});
    assert.equal(r.status, 'error');
    assert.equal(r.errors[0].field, 'op');
    assert.throws(() => esm.call('frobnicate', {}), (e) => e instanceof esm.RestartkitError && e.code === 'unknown-op' && e.op === 'frobnicate');
    assert.equal(esm.call('describe', {}).contractVersion, '1.3');
  });

  test('parseDocuments reads a multi-document stream with lines; a syntax error carries its line', () => {
    const docs = esm.parseDocuments('a: 1\n---\n# c\nb: [x, 2]\n');
    assert.deepEqual(docs, [{ index: 0, line: 1, value: { a: 1 } }, { index: 1, line: 4, value: { b: ['x', 2] } }]);
    assert.throws(() => cjs.parseDocuments('a: [\n'), (e) => e instanceof cjs.RestartkitError && e.line === 2);
  });

  test('validate takes YAML text and points diagnostics at their lines', () => {
    const text = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: 5\n';
    const out = esm.validate(text);
    assert.equal(out.valid, false);
    const d = out.errors.find((e) => e.field === 'spec.containers');
    assert.ok(d, JSON.stringify(out.errors));
    assert.equal(d.line, 6);
    assert.equal(typeof d.column, 'number');
  });

  test('resolve: the JobSet Kubeflow Trainer builds from a TrainJob and its runtime, in text or apart', () => {
    const text = readFileSync(join(repoDir, 'examples', 'trainjob-torch.yaml'), 'utf8');
    const [runtimeText, trainJobText] = text.split('\n---\n');
    const both = esm.resolve(text);
    assert.equal(both.valid, true, JSON.stringify(both.errors));
    const node = both.trainJobs[0].jobSet.spec.replicatedJobs.find((r) => r.name === 'node').template.spec;
    assert.deepEqual([node.parallelism, node.completions], [4, 4]);
    const trainJob = cjs.parseDocuments(trainJobText)[0].value;
    assert.deepEqual(cjs.resolve(trainJob, { runtimes: [{ source: runtimeText }] }).trainJobs[0].jobSet, both.trainJobs[0].jobSet);
    // No runtime: the trainer webhook's message, and no JobSet.
    const alone = esm.resolve(trainJob);
    assert.equal(alone.valid, false);
    assert.ok(alone.errors.some((e) => e.field === 'spec.RuntimeRef' && /must be created before the TrainJob is created$/.test(e.message)));
    assert.throws(() => esm.resolve(42), (e) => e instanceof esm.RestartkitError && /trainJob/.test(`${e.field} ${e.message}`));
  });

  test('check throws a RestartkitError carrying the diagnostics when invalid', () => {
    const text = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: 5\n';
    for (const m of [esm, cjs]) {
      assert.throws(() => m.check(text), (e) => {
        assert.ok(e instanceof m.RestartkitError);
        assert.ok(e instanceof Error);
        assert.equal(e.name, 'RestartkitError');
        assert.equal(e.code, 'invalid');
        assert.equal(e.field, 'spec.containers');
        assert.equal(e.line, 6);
        assert.equal(e.diagnostics[0].field, 'spec.containers');
        assert.match(e.message, /spec\.containers/);
        return true;
      });
    }
  });

  test('malformed input gives a structured error, not a crash', () => {
    // A Pod that is not an object, a container list of the wrong type, a BigInt, a cycle.
    const cases = [
      () => esm.containerRestart('not a pod', 'main', 1),
      () => esm.containerRestart({ spec: { containers: 'x' } }, 'main', 1),
      () => esm.backoff({ component: 'kubelet', restarts: 10n }),
      () => { const o = {}; o.self = o; return esm.podFailurePolicy(o, {}); },
      () => esm.validate({ kind: 'Pod' }, 'not options'),
    ];
    for (const c of cases) {
      assert.throws(c, (e) => {
        assert.ok(e instanceof esm.RestartkitError, `${e}`);
        assert.ok(Array.isArray(e.diagnostics) && e.diagnostics.length > 0);
        assert.equal(typeof e.field, 'string');
        assert.ok('type' in e && 'line' in e && 'column' in e);
        assert.equal(e.diagnostics[0].severity, 'error');
        assert.doesNotMatch(e.message, /unreachable/);
        return true;
      });
    }
    const e = (() => { try { esm.containerRestart({ spec: { containers: 'x' } }, 'main', 1); } catch (err) { return err; } })();
    assert.equal(e.field, 'input.pod.spec.containers');
  });

  test('a Rust panic surfaces as RestartkitError code "panic", and the module keeps working', () => {
    for (const m of [esm, cjs]) {
      const quiet = console.error;
      console.error = () => {};
      try {
        assert.throws(() => m.__selfTestPanic('boom'), (e) => {
          assert.ok(e instanceof m.RestartkitError);
          assert.equal(e.code, 'panic');
          assert.match(e.message, /self-test panic: boom/);
          assert.doesNotMatch(e.message, /^RuntimeError|unreachable$/);
          assert.ok(e.cause instanceof WebAssembly.RuntimeError);
          return true;
        });
      } finally {
        console.error = quiet;
      }
      // A fresh instance answers afterwards.
      assert.equal(m.describe().contractVersion, '1.3');
      assert.equal(JSON.parse(m.handleJson('{"op":"describe"}')).status, 'ok');
    }
  });

  test('containerRestart: exit 42 with a Restart In [42] rule on a Never pod restarts (KEP-5307)', () => {
    const opts = { featureGates: { ContainerRestartRules: true } };
    assert.equal(esm.containerRestart(pod(restartOn42), 'main', 42, opts).action, 'Restart');
    assert.equal(esm.containerRestart(pod(restartOn42), 'main', 1, opts).action, 'DoNotRestart');
    assert.equal(cjs.containerRestart(pod(restartOn42), 'main', 42, opts).action, 'Restart');
  });

  test('compile: decide and decideMany agree with containerRestart', () => {
    const opts = { featureGates: { ContainerRestartRules: true } };
    const policy = esm.compile(pod(restartOn42), opts);
    try {
      assert.deepEqual(policy.containers, ['main']);
      assert.equal(policy.decide('main', 42), 'Restart');
      assert.equal(policy.decide(0, 1), 'DoNotRestart');
      const codes = policy.decideMany('main', new Int32Array([42, 1, 42]));
      assert.ok(codes instanceof Uint8Array);
      assert.deepEqual([...codes], [1, 0, 1]);
      assert.deepEqual([...policy.decideMany(0, [1, 42])], [0, 1]);
      assert.throws(() => policy.decide('nope', 1), (e) => e instanceof esm.RestartkitError && e.field === 'container');
    } finally {
      policy.free();
    }
  });

  test('an object the API server would refuse: upstream\'s answer, with its errors as warnings', () => {
    const job = (action) => ({
      apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j', namespace: 'default' },
      spec: {
        podFailurePolicy: { rules: [{ action, onExitCodes: { containerName: 'main', operator: 'In', values: [3] } }] },
        template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } },
      },
    });
    const plainPod = (restartPolicy) => ({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' },
      spec: { restartPolicy, containers: [{ name: 'main', image: 'busybox' }] },
    });
    const failed = { ...plainPod('Never'), status: { phase: 'Failed', containerStatuses: [{ name: 'main', state: { terminated: { exitCode: 3 } } }] } };
    const field = 'spec.podFailurePolicy.rules[0].action';
    for (const m of [esm, cjs]) {
      const out = m.podFailurePolicy(job('Bogus'), failed);
      assert.equal(out.matched, false);
      assert.deepEqual(out.warnings.map((w) => [w.field, w.type, w.code, w.severity]), [[field, 'FieldValueNotSupported', 'invalid-object', 'warning']]);
      assert.deepEqual(m.podFailurePolicy(job('FailJob'), failed).warnings, []);
      const whatIf = m.call('whatIf', { object: job('Bogus'), container: 'main', exitCode: 3 });
      assert.deepEqual(whatIf.warnings.map((w) => w.field), [field]);
      assert.deepEqual(m.call('whatIf', { object: job('Ignore'), container: 'main', exitCode: 3 }).warnings, []);
      assert.deepEqual(m.containerRestart(plainPod('Sometimes'), 'main', 1).warnings.map((w) => w.field), ['spec.restartPolicy']);
      assert.deepEqual(m.containerRestart(plainPod('Never'), 'main', 1).warnings, []);
      const bad = m.compile(job('Bogus'));
      const good = m.compile(job('FailJob'));
      try {
        assert.equal(bad.decide('main', 3), 'Count');
        assert.deepEqual(bad.warnings.map((w) => [w.field, w.code]), [[field, 'invalid-object']]);
        assert.equal(good.decide('main', 3), 'FailJob');
        assert.deepEqual(good.warnings, []);
      } finally {
        bad.free();
        good.free();
      }
    }
  });

  test('backoff: the legacy kubelet curve is 10s doubling to 300s', () => {
    const out = esm.backoff({ component: 'kubelet', featureGates: { ReduceDefaultCrashLoopBackOffDecay: false, KubeletCrashLoopBackOffMax: false }, restarts: 7 });
    assert.equal(out.initialSeconds, 10);
    assert.equal(out.maxSeconds, 300);
    assert.deepEqual(out.delaysSeconds, [0, 10, 20, 40, 80, 160, 300]);
  });
});

describe('versions', () => {
  test('fieldValidation: 1.33 does not know restartPolicyRules', () => {
    const strict = esm.validate(pod(restartOn42), { kubernetesVersion: '1.33', fieldValidation: 'Strict' });
    assert.equal(strict.valid, false);
    assert.ok(strict.errors.some((e) => e.message.includes('unknown field') && e.message.includes('restartPolicyRules')));
    // Under Warn the rules are dropped with a warning; the container's restartPolicy, which 1.33
    // forbids on a regular container, is still an error.
    const warn = esm.validate(pod(restartOn42), { kubernetesVersion: '1.33' });
    assert.ok(warn.warnings.some((w) => w.message.includes('restartPolicyRules')));
    assert.deepEqual(warn.errors.map((e) => [e.field, e.type]), [['spec.containers[0].restartPolicy', 'FieldValueForbidden']]);
  });

  test('compareVersions: the rules Pod from 1.33 to 1.35', () => {
    for (const m of [esm, cjs]) {
      const r = m.compareVersions(pod(restartOn42), { fromVersion: '1.33', toVersion: '1.35', fieldValidation: 'Strict', exitCodes: [42] });
      assert.deepEqual([r.documents[0].from.valid, r.documents[0].to.valid], [false, true]);
      assert.equal(r.decisionsChanged, 1);
      assert.throws(() => m.compareVersions(pod(restartOn42), { fromVersion: '1.30', toVersion: '1.35' }), (e) => e.name === 'RestartkitError' && /1\.31 to 1\.37/.test(e.message));
    }
  });
});
