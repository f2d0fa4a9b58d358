// The "what if container X exits with code N" panel. One call to the core's `whatIf` op gives the
// kubelet's decision, the Job controller's outcome (with upstream's exact failure message) and the
// JobSet controller's action; this module only lays the answer out.
import { h } from './dom.js';

const RUNTIME_KINDS = ['TrainingRuntime', 'ClusterTrainingRuntime'];
const ANCESTOR_LABEL = 'trainer.kubeflow.org/trainjob-ancestor-step';

/** The runtime a Kubeflow TrainJob names among `objs` (the first runtime when none has its name). */
export function runtimeOf(objs, trainJob) {
  const runtimes = objs.filter((o) => RUNTIME_KINDS.includes(o?.kind));
  return runtimes.find((r) => r.metadata?.name === trainJob?.spec?.runtimeRef?.name) ?? runtimes[0] ?? null;
}

/** The Pod template of the runtime's trainer replicatedJob (the one the trainer labels so). */
function trainerPodSpec(runtime) {
  const rjs = runtime?.spec?.template?.spec?.replicatedJobs ?? [];
  const rj = rjs.find((r) => r?.template?.metadata?.labels?.[ANCESTOR_LABEL] === 'trainer') ?? rjs[0];
  return rj?.template?.spec?.template?.spec;
}

/**
 * The first Pod, Job, JobSet or Kubeflow TrainJob of the manifest, and the containers of its Pod
 * template (a TrainJob's: its runtime's trainer Pods, the runtime taken from the same manifest).
 */
export function workloadOf(docs) {
  const objs = docs.map((d) => d.value);
  for (const o of objs) {
    if (!o || typeof o !== 'object') continue;
    let spec = null;
    let runtime = null;
    if (o.kind === 'Pod') spec = o.spec;
    else if (o.kind === 'Job') spec = o.spec?.template?.spec;
    else if (o.kind === 'JobSet') spec = o.spec?.replicatedJobs?.[0]?.template?.spec?.template?.spec;
    else if (o.kind === 'TrainJob') {
      runtime = runtimeOf(objs, o);
      spec = trainerPodSpec(runtime);
    } else continue;
    const containers = [
      ...(spec?.initContainers ?? []).map((c) => ({ name: c.name, init: true })),
      ...(spec?.containers ?? []).map((c) => ({ name: c.name, init: false })),
    ].filter((c) => typeof c.name === 'string');
    return { kind: o.kind, obj: o, runtime, containers };
  }
  return null;
}

function row(label, value, detail, note, testid) {
  return h('div', { class: 'decision-row', 'data-testid': testid },
    h('dt', {}, label),
    h('dd', {},
      h('strong', { class: 'action' }, value),
      detail ? h('div', { class: 'detail' }, detail) : null,
      note ? h('div', { class: 'note muted' }, note) : null));
}

const JOB_OUTCOME = {
  JobFailed: 'the Job fails',
  IndexFailed: 'the index fails',
  PodReplaced: 'a replacement Pod is created',
  PodSucceeded: 'the Pod counts as a completion',
};

/** How many of the object's validation errors the panel lists (the diagnostics list has all). */
const SHOWN_OBJECT_ERRORS = 3;

/**
 * The core's `warnings` of the result: the object's validation errors (code `invalid-object`).
 * The answer is still upstream's, but for an object the API server would refuse: say so beside it.
 */
function objectWarnings(kind, warnings) {
  if (!warnings?.length) return null;
  const n = warnings.length;
  return h('div', { class: 'object-warnings', role: 'note', 'data-testid': 'whatif-warnings' },
    h('p', {},
      h('strong', {}, `The API server would refuse this ${kind}`),
      ` (${n} validation error${n === 1 ? '' : 's'}): the answer below is what upstream's code decides for an object that cannot exist.`),
    h('ul', {}, warnings.slice(0, SHOWN_OBJECT_ERRORS).map((w) => h('li', { 'data-field': w.field, 'data-code': w.code }, w.message))),
    h('p', { class: 'muted' }, n > SHOWN_OBJECT_ERRORS
      ? `${n - SHOWN_OBJECT_ERRORS} more in the diagnostics list.`
      : 'The diagnostics list shows where they are.'));
}

/**
 * Renders the panel into `out` for workload `w` (from workloadOf), asking `rk.call('whatIf')`.
 * `ask` is {container, exitCode, kubernetesVersion, featureGates, proposals?}; `marker(list, testid)`
 * renders the notice of a result made under proposals.
 */
export function renderWhatIf(rk, out, w, ask, marker = () => null) {
  if (!w) {
    out.replaceChildren(h('p', { class: 'muted' }, 'Load a Pod, Job, JobSet or TrainJob to ask what happens when one of its containers exits.'));
    return;
  }
  if (!ask.container) {
    out.replaceChildren(h('p', { class: 'muted' }, 'No containers.'));
    return;
  }
  let r;
  try {
    r = rk.call('whatIf', {
      object: w.obj,
      container: ask.container,
      exitCode: ask.exitCode,
      kubernetesVersion: ask.kubernetesVersion,
      featureGates: ask.featureGates,
      ...(ask.proposals ? { proposals: ask.proposals } : {}),
      // A TrainJob is answered for the JobSet the trainer builds from it and its runtime.
      ...(w.runtime ? { runtimes: [{ object: w.runtime }] } : {}),
    });
  } catch (e) {
    // The trainer's build is in the module's on-demand part: the page renders again once it is in.
    if (e?.code === 'module-loading') {
      out.replaceChildren(h('p', { class: 'muted', 'data-testid': 'decision-loading' }, 'Loading the rest of the engine…'));
      return;
    }
    out.replaceChildren(h('dl', {}, row('whatIf', 'error', e.message, e.field ? `at ${e.field}` : null, 'decision-error')));
    return;
  }
  const rows = [];
  const k = r.kubelet ?? {};
  rows.push(row('Kubelet', k.action ?? '—', k.reason ?? null, `Pod phase afterwards: ${r.podPhase}`, 'decision-kubelet'));
  if (r.job) {
    const j = r.job;
    const pfp = j.podFailurePolicy;
    const action = pfp ? (pfp.action ?? 'Count') : j.outcome;
    const detail = j.outcome === 'JobFailed' || j.outcome === 'IndexFailed' ? j.failureMessage : null;
    const notes = [JOB_OUTCOME[j.outcome] ?? j.outcome];
    if (pfp) notes.push(pfp.matched ? `podFailurePolicy rule ${pfp.ruleIndex} matched` : 'no podFailurePolicy rule matched');
    if (j.failureReason) notes.push(`reason ${j.failureReason}`);
    if (j.outcome === 'PodReplaced' && j.failuresUntilFailed != null) notes.push(`${j.failuresUntilFailed} such failures fail it`);
    rows.push(row('Job', action, detail, notes.join('; '), 'decision-job'));
  } else if (w.kind !== 'Pod') {
    rows.push(row('Job', 'no Pod failure', null, r.podPhase === 'Running' ? 'the container restarts in place, so the Job sees no failed Pod' : null, 'decision-job'));
  }
  if (w.kind === 'JobSet' || w.kind === 'TrainJob') {
    if (r.jobset) {
      const js = r.jobset;
      const rule = js.matchedRuleName ? `rule ${js.matchedRuleName}` : js.matchedRule != null ? `rule ${js.matchedRule}` : null;
      const cond = (js.conditions ?? []).map((c) => `${c.type}: ${c.message ?? c.reason ?? ''}`).join('; ');
      rows.push(row('JobSet', js.action ?? '—', cond || null, rule, 'decision-jobset'));
    } else {
      rows.push(row('JobSet', 'no action', null, 'the Job has not failed', 'decision-jobset'));
    }
  }
  out.replaceChildren(
    ...[marker(r.proposals, 'whatif-marker'), objectWarnings(w.kind, r.warnings)].filter(Boolean),
    h('dl', {}, rows),
    h('details', { class: 'story' }, h('summary', {}, 'Step by step'), h('ol', { 'data-testid': 'decision-story' }, (r.story ?? []).map((s) => h('li', {}, s)))),
  );
}
