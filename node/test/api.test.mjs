// The JavaScript API: conversions, errors, async variants, robustness, the compiled policy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rk, pod, job, BAD_POD_YAML } from './helpers.mjs';

const { RestartkitError } = rk;

test('version, actions and describe', () => {
  const d = rk.describe();
  assert.equal(rk.VERSION, d.restartkitVersion);
  assert.equal(rk.ACTIONS[3], 'FailJob');
  assert.ok(Object.isFrozen(rk.ACTIONS));
  for (const op of ['validate', 'containerRestart', 'podFailurePolicy', 'jobsetFailurePolicy', 'backoff']) assert.ok(d.operations.includes(op));
  assert.ok(d.kubernetesVersions.includes(d.defaultKubernetesVersion));
});

test('schemas', () => {
  const s = rk.schemas();
  for (const n of ['Pod', 'Job', 'JobSet', 'ValidateOutput', 'Diagnostic']) assert.ok(n in s, n);
});

test('handleJson is the raw contract and never throws', () => {
  assert.equal(JSON.parse(rk.handleJson('{"op":"describe","input":{}}')).status, 'ok');
  const bad = JSON.parse(rk.handleJson('{not json'));
  assert.equal(bad.status, 'error');
  const unknown = JSON.parse(rk.handleJson('{"op":"noSuchOp","input":{}}'));
  assert.equal(unknown.errors[0].code, 'unknown-op');
  assert.equal(JSON.parse(rk.handleJson('')).status, 'error');
});

test('request errors are RestartkitError with field', () => {
  assert.throws(() => rk.request('noSuchOp', {}), (e) => e instanceof RestartkitError && e instanceof Error && e.field === 'op' && /noSuchOp/.test(e.message));
  assert.throws(
    () => rk.request('containerRestart', { pod: pod(), container: 'main', exitCode: 'one' }),
    (e) => e instanceof RestartkitError && e.field === 'input.exitCode',
  );
  assert.throws(() => rk.validate(pod(), { kubernetesVersion: '0.1' }), RestartkitError);
});

test('validate: objects, YAML with lines, options', () => {
  const ok = rk.validate(pod());
  assert.equal(ok.valid, true);
  assert.deepEqual(ok.errors, []);
  assert.equal(rk.validate(pod(), { kubernetesVersion: '1.34' }).kubernetesVersion, '1.34');
  const r = rk.validate(BAD_POD_YAML);
  assert.equal(r.valid, false);
  const e = r.errors[0];
  assert.ok(e.field.startsWith('spec.containers'));
  assert.equal(e.type, 'FieldValueTypeInvalid');
  assert.equal(e.line, 6);
  assert.equal(r.documents[0].name, 'bad');
  assert.equal(rk.validate(new TextEncoder().encode(JSON.stringify(pod()))).valid, true);
});

test('check throws RestartkitError carrying every diagnostic', () => {
  assert.throws(
    () => rk.check(BAD_POD_YAML),
    (e) => e instanceof RestartkitError && e.name === 'RestartkitError' && e.field.startsWith('spec.containers') && e.type === 'FieldValueTypeInvalid' && e.line === 6 && e.column !== null && e.diagnostics.length >= 1 && e.result.valid === false,
  );
  assert.equal(rk.check(pod()).valid, true);
});

test('check catches podFailurePolicy without restartPolicy Never', () => {
  assert.throws(() => rk.check(job('OnFailure')), (e) => e.diagnostics.some((d) => d.field === 'spec.template.spec.restartPolicy'));
  rk.check(job('Never'));
});

test('malformed YAML is an error of the result naming its document and line', () => {
  // A document that cannot be read is judged as kubectl judges it: an error of that document,
  // with the others still validated (docs/contract.md, "Streams").
  const r = rk.validate('apiVersion: v1\nkind: Pod\nspec: [unclosed\n');
  assert.equal(r.valid, false);
  const e = r.errors.find((d) => d.code === 'syntax');
  assert.ok(e && e.line >= 3 && e.document === 0, JSON.stringify(r.errors));
});

test('wrong JavaScript types', () => {
  assert.throws(() => rk.validate(42), TypeError);
  assert.throws(() => rk.validate(null), TypeError);
  assert.throws(() => rk.containerRestart([1], 'main', 1), TypeError);
  assert.throws(() => rk.handleJson(5), TypeError);
  const circular = pod();
  circular.metadata.self = circular;
  assert.throws(() => rk.validate(circular), RestartkitError);
  const nan = pod();
  nan.spec.terminationGracePeriodSeconds = NaN;
  assert.throws(() => rk.validate(nan), /finite/);
  const big = pod();
  big.spec.terminationGracePeriodSeconds = 10n;
  assert.equal(rk.validate(big).valid, true);
});

function nest(depth) {
  const d = {};
  let cur = d;
  for (let i = 0; i < depth; i++) {
    cur.a = {};
    cur = cur.a;
  }
  return d;
}

for (const depth of [200, 5000, 100000]) {
  test(`deep nesting (${depth}) is an error, not a crash`, () => {
    const p = pod();
    p.metadata.annotations = nest(depth);
    assert.throws(() => rk.validate(p), RestartkitError);
  });
}

test('deeply nested YAML and JSON text are errors, not crashes', () => {
  const yaml = 'apiVersion: v1\nkind: Pod\nmetadata:\n  annotations: ' + '['.repeat(50000) + ']'.repeat(50000) + '\n';
  const r = rk.validate(yaml);
  assert.equal(r.valid, false);
  assert.ok(r.errors.some((d) => d.document === 0 && d.line === 4), JSON.stringify(r.errors.slice(0, 2)));
  const resp = JSON.parse(rk.handleJson('{"op":"validate","input":{"object":' + '['.repeat(100000) + ']'.repeat(100000) + '}}'));
  assert.equal(resp.status, 'error');
});

test('huge lists', () => {
  const p = pod();
  p.spec.containers = Array.from({ length: 100000 }, (_, i) => ({ name: `c${i}`, image: 'busybox', imagePullPolicy: 'IfNotPresent', terminationMessagePolicy: 'File' }));
  assert.equal(typeof rk.validate(p).valid, 'boolean');
  const j = job();
  j.spec.podFailurePolicy.rules[0].onExitCodes.values = Array.from({ length: 100000 }, (_, i) => i + 1);
  const r = rk.validate(j);
  assert.equal(r.valid, false); // upstream allows at most 255 values
  assert.ok(r.errors.some((e) => e.field.startsWith('spec.podFailurePolicy.rules[0].onExitCodes.values')));
});

test('validateAsync and validateManyAsync run off the main thread and agree with validate', async () => {
  const objs = [pod(), BAD_POD_YAML, job('OnFailure')];
  const many = await rk.validateManyAsync(objs);
  assert.deepEqual(many, objs.map((o) => rk.validate(o)));
  assert.deepEqual(await rk.validateAsync(BAD_POD_YAML), rk.validate(BAD_POD_YAML));
  await assert.rejects(rk.validateAsync(pod(), { kubernetesVersion: '0.1' }), RestartkitError);
  const parallel = await Promise.all(Array.from({ length: 16 }, () => rk.validateAsync(BAD_POD_YAML)));
  assert.ok(parallel.every((r) => r.valid === false));
});

test('containerRestart', () => {
  const p = pod({ restartPolicy: 'OnFailure' });
  assert.equal(rk.containerRestart(p, 'main', 1).action, 'Restart');
  assert.equal(rk.containerRestart(p, 'main', 0).action, 'DoNotRestart');
});

test('podFailurePolicy', () => {
  const failed = pod();
  failed.status = {
    phase: 'Failed',
    containerStatuses: [
      { name: 'trainer', state: { terminated: { exitCode: 42 } } },
      { name: 'sidecar', state: { terminated: { exitCode: 0 } } },
    ],
  };
  const out = rk.podFailurePolicy(job(), failed);
  assert.equal(out.matched, true);
  assert.equal(out.action, 'FailJob');
});

test('backoff', () => {
  const out = rk.backoff({ component: 'kubelet', restarts: 5, featureGates: { ReduceDefaultCrashLoopBackOffDecay: false, KubeletCrashLoopBackOffMax: false } });
  assert.equal(out.initialSeconds, 10);
});

test('compile, decide and decideMany', () => {
  const policy = rk.compile(job());
  assert.deepEqual(policy.containers.slice(0, 2), ['trainer', 'sidecar']);
  assert.equal(policy.decide('trainer', 42), 'FailJob');
  assert.equal(policy.decide(0, 42), 'FailJob');
  assert.equal(policy.decide('trainer', 1), 'Count');
  const codes = [0, 1, 42, 137, -1];
  const expected = Uint8Array.from(codes.map((c) => rk.ACTIONS.indexOf(policy.decide('trainer', c))));
  assert.deepEqual(policy.decideMany('trainer', codes), expected);
  assert.deepEqual(policy.decideMany('trainer', Int32Array.from(codes)), expected);
  assert.deepEqual(policy.decideMany('trainer', Int32Array.from(codes).buffer), expected);
  assert.deepEqual(policy.decideMany('trainer', Buffer.from(Int32Array.from(codes).buffer)), expected);
  const big = new Int32Array(100000).map((_, i) => i % 256);
  const out = policy.decideMany('trainer', big);
  assert.equal(out.length, 100000);
  assert.equal(out[42], rk.ACTIONS.indexOf('FailJob'));
});

test('compiled policy errors', () => {
  const policy = rk.compile(job());
  assert.throws(() => policy.decide('nope', 1), (e) => e instanceof RestartkitError && e.field === 'container');
  assert.throws(() => policy.decide(99, 1), RestartkitError);
  assert.throws(() => policy.decide('trainer', 2 ** 40), (e) => e.field === 'exitCode');
  assert.throws(() => policy.decide('trainer', 1.5), RestartkitError);
  assert.throws(() => policy.decideMany('trainer', [1, 'x']), (e) => e.field === 'exitCodes[1]');
  assert.throws(() => policy.decideMany('trainer', new Uint8Array(3)), /multiple of 4/);
  assert.throws(() => policy.decideMany('trainer', 5), TypeError);
  assert.throws(() => rk.compile({ apiVersion: 'v1', kind: 'ConfigMap' }), RestartkitError);
});

// An object the API server would refuse: the answer stays upstream's, and warnings say why it
// cannot exist (docs/contract.md, "Evaluation warnings").
const BOGUS_FIELD = 'spec.podFailurePolicy.rules[0].action';

function bogusJob() {
  const j = job();
  j.spec.podFailurePolicy.rules[0].action = 'Bogus';
  return j;
}

function failedTrainer(exitCode) {
  return { ...pod(), status: { phase: 'Failed', containerStatuses: [{ name: 'trainer', state: { terminated: { exitCode } } }] } };
}

test('evaluation results carry the warnings of an invalid Job, none for a valid one', () => {
  const out = rk.podFailurePolicy(bogusJob(), failedTrainer(42));
  assert.equal(out.matched, false);
  assert.equal(out.countFailed, true);
  assert.equal(out.warnings.length, 1);
  const [w] = out.warnings;
  assert.equal(w.code, 'invalid-object');
  assert.equal(w.severity, 'warning');
  assert.equal(w.field, BOGUS_FIELD);
  assert.equal(w.type, 'FieldValueNotSupported');
  assert.match(w.message, /Unsupported value: "Bogus"/);
  assert.deepEqual(rk.podFailurePolicy(job(), failedTrainer(42)).warnings, []);
  const whatIf = rk.request('whatIf', { object: bogusJob(), container: 'trainer', exitCode: 42 });
  assert.deepEqual(whatIf.warnings.map((x) => x.field), [BOGUS_FIELD]);
  assert.deepEqual(rk.request('whatIf', { object: job(), container: 'trainer', exitCode: 42 }).warnings, []);
  const bad = rk.containerRestart(pod({ restartPolicy: 'Sometimes' }), 'main', 1);
  assert.deepEqual(bad.warnings.map((x) => [x.field, x.code]), [['spec.restartPolicy', 'invalid-object']]);
  assert.deepEqual(rk.containerRestart(pod(), 'main', 1).warnings, []);
});

test('a compiled policy has the warnings of an invalid Job, found once', () => {
  const policy = rk.compile(bogusJob());
  assert.equal(policy.decide('trainer', 42), 'Count');
  assert.equal(policy.decide('trainer', 1000), 'Count');
  assert.equal(policy.warnings.length, 1);
  assert.equal(policy.warnings[0].field, BOGUS_FIELD);
  assert.equal(policy.warnings[0].code, 'invalid-object');
  assert.ok(Object.isFrozen(policy.warnings));
  const valid = rk.compile(job());
  assert.deepEqual(valid.warnings, []);
  assert.equal(valid.decide('trainer', 42), 'FailJob');
});

const RULES_POD = `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  restartPolicy: Never
  containers:
  - name: app
    image: busybox
    restartPolicy: Never
    restartPolicyRules:
    - action: Restart
      exitCodes: {operator: In, values: [42]}
`;

test('fieldValidation: an older minor refuses, warns about or drops fields it does not know', () => {
  const strict = rk.validate(RULES_POD, { kubernetesVersion: '1.33', fieldValidation: 'Strict' });
  assert.equal(strict.valid, false);
  assert.ok(strict.errors.some((e) => e.message.includes('unknown field') && e.message.includes('restartPolicyRules')));
  const warn = rk.validate(RULES_POD, { kubernetesVersion: '1.33', fieldValidation: 'Warn' });
  assert.ok(warn.warnings.some((w) => w.message.includes('restartPolicyRules')));
  const ignore = rk.validate(RULES_POD, { kubernetesVersion: '1.33', fieldValidation: 'Ignore' });
  assert.ok(!ignore.warnings.some((w) => w.message.includes('restartPolicyRules')));
});

test('compareVersions: admitted by the newer minor, exit 42 decided differently', () => {
  const r = rk.compareVersions(RULES_POD, { fromVersion: '1.33', toVersion: 'v1.35.4', fieldValidation: 'Strict', exitCodes: [42] });
  assert.deepEqual([r.fromVersion, r.toVersion], ['1.33', '1.35']);
  const [doc] = r.documents;
  assert.deepEqual([doc.from.valid, doc.to.valid], [false, true]);
  const decision = doc.changes.find((c) => c.kind === 'decision');
  assert.equal(decision.exitCode, 42);
  assert.equal(r.decisionsChanged, 1);
  assert.throws(() => rk.compareVersions(RULES_POD, { fromVersion: '1.30', toVersion: '1.35' }), (e) => e instanceof RestartkitError && /1\.31 to 1\.37/.test(e.message));
});
