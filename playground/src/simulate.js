// The simulator panel: a scenario (examples/scenarios/*.yaml, or edited here) run through the
// core's `simulate` op, optionally beside a compare scenario; shows the summary and the event
// timeline. A scenario without `workload`/`workloadFile` runs the editor's manifest.
import { h } from './dom.js';
import { fmtSeconds } from './chart.js';
import { runtimeOf } from './whatif.js';

const SUMMARY = [
  ['inPlaceRestarts', 'in-place restarts'],
  ['wholePodRestarts', 'whole-Pod restarts'],
  ['containerExits', 'container exits'],
  ['podsCreated', 'Pods created'],
  ['podsReplaced', 'Pods recreated'],
  ['jobFailures', 'Job failures'],
  ['jobsetRestarts', 'JobSet restarts'],
  ['crrRecreations', 'CRR recreations'],
  ['nodesLost', 'nodes lost'],
  ['podsStuckOnLostNodes', 'Pods stuck on lost nodes'],
  ['timeLostSeconds', 'time lost (s)'],
  ['allPodsRunningSeconds', 'all Pods running (s)'],
  ['endSeconds', 'simulated (s)'],
];

const WORKLOAD_KINDS = ['Pod', 'Job', 'JobSet', 'TrainJob'];

/**
 * Reads scenario text into the op's input; resolves `workloadFile` (and `runtimeFile`, or the
 * runtime beside a TrainJob in the workload file) with `loadFile(path)`. Without a workload the
 * editor's (`fallbackWorkload`, with `fallbackRuntime` for a TrainJob) runs.
 */
export async function scenarioInput(rk, text, { loadFile, fallbackWorkload, fallbackRuntime }) {
  const docs = rk.parseDocuments(text);
  const doc = docs[0]?.value;
  if (!doc || typeof doc !== 'object') throw new Error('the scenario is empty');
  const s = { ...doc };
  const objectsOf = async (key) => {
    const t = await loadFile(s[key]);
    if (t === null) throw new Error(`${key} ${s[key]}: not among the playground's files`);
    return rk.parseDocuments(t).map((d) => d.value);
  };
  if (typeof s.workloadFile === 'string') {
    const objs = await objectsOf('workloadFile');
    const w = objs.find((o) => WORKLOAD_KINDS.includes(o?.kind));
    if (!w) throw new Error(`workloadFile ${s.workloadFile}: no Pod, Job, JobSet or TrainJob`);
    delete s.workloadFile;
    s.workload = w;
    const rt = w.kind === 'TrainJob' ? runtimeOf(objs, w) : null;
    if (rt && s.runtime === undefined) s.runtime = rt;
  } else if (s.workload === undefined && fallbackWorkload) {
    s.workload = fallbackWorkload;
    if (fallbackRuntime && s.runtime === undefined) s.runtime = fallbackRuntime;
  }
  if (typeof s.runtimeFile === 'string') {
    const rt = runtimeOf(await objectsOf('runtimeFile'), s.workload);
    if (!rt) throw new Error(`runtimeFile ${s.runtimeFile}: no TrainingRuntime or ClusterTrainingRuntime`);
    delete s.runtimeFile;
    s.runtime = rt;
  }
  return s;
}

function summaryTable(runs) {
  return h('table', { class: 'table', 'data-testid': 'sim-summary' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, ''), ...runs.map((r) => h('th', { scope: 'col' }, r.label)))),
    h('tbody', {},
      ...SUMMARY.map(([key, label]) => h('tr', { 'data-key': key },
        h('th', { scope: 'row' }, label),
        ...runs.map((r) => h('td', {}, String(r.run.summary?.[key] ?? '—'))))),
      h('tr', { 'data-key': 'final' }, h('th', { scope: 'row' }, 'final phases'),
        ...runs.map((r) => h('td', {}, finalPhases(r.run))))));
}

function finalPhases(run) {
  const parts = [];
  if (run.trainJob) parts.push(`TrainJob ${run.trainJob.name}: ${run.trainJob.phase}${run.trainJob.reason ? ` (${run.trainJob.reason})` : ''}`);
  if (run.jobset) parts.push(`JobSet ${run.jobset.name}: ${run.jobset.phase}${run.jobset.reason ? ` (${run.jobset.reason})` : ''}`);
  for (const j of run.jobs ?? []) parts.push(`Job ${j.name}: ${j.phase}${j.reason ? ` (${j.reason})` : ''}`);
  const pods = run.pods ?? [];
  if (pods.length <= 4) for (const p of pods) parts.push(`Pod ${p.name}: ${p.phase}`);
  else {
    const by = {};
    for (const p of pods) by[p.phase] = (by[p.phase] ?? 0) + 1;
    parts.push(`Pods: ${Object.entries(by).map(([k, v]) => `${v} ${k}`).join(', ')}`);
  }
  return parts.join('; ');
}

function timelineTable(run, id) {
  return h('table', { class: 'table timeline', 'data-testid': `sim-timeline${id === 'compare' ? '-compare' : ''}` },
    h('thead', {}, h('tr', {}, ...['time', 'object', 'container', 'event', 'reason', 'message'].map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, ...(run.timeline ?? []).map((e) => h('tr', { 'data-t': e.t, 'data-event': e.event, 'data-container': e.container ?? '' },
      h('td', { class: 'num', title: fmtSeconds(e.t) }, `${e.t} s`),
      h('td', {}, e.object), h('td', {}, e.container ?? ''), h('td', {}, e.event), h('td', {}, e.reason), h('td', { class: 'muted' }, e.message ?? '')))));
}

/** Runs the op and renders into `out`; returns nothing, errors show in the panel. */
export function renderSimulation(rk, out, scenario, compare, marker = () => null) {
  let r;
  try {
    r = rk.call('simulate', compare ? { scenario, compare } : { scenario });
  } catch (e) {
    out.replaceChildren(h('p', { class: 'error-text', 'data-testid': 'sim-error' }, `${e.field ? `${e.field}: ` : ''}${e.message}`));
    return;
  }
  // Without compare the result is the run itself; with it, {run, compare}.
  const main = r.run ?? r;
  const runs = [{ id: 'run', label: main.name ?? 'scenario', run: main }];
  if (r.compare) runs.push({ id: 'compare', label: r.compare.name ?? 'compare', run: r.compare });
  out.replaceChildren(
    summaryTable(runs),
    h('div', { class: runs.length > 1 ? 'side-by-side' : '' }, ...runs.map((x) => h('section', { 'data-run': x.id },
      marker(x.run.proposals, `sim-marker-${x.id}`),
      h('h3', {}, `${x.label} — Kubernetes ${x.run.kubernetesVersion}, ${x.run.timeline?.length ?? 0} events${x.run.summary?.timelineTruncated ? ' (truncated)' : ''}`),
      h('div', { class: 'timeline-box' }, timelineTable(x.run, x.id))))),
  );
}
