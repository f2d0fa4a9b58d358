// restartkit playground: everything runs in the page, on the restartkit-wasm package (./pkg) and
// local files (./examples). No request leaves the page.
import * as rk from './pkg/index.browser.js';
import { createEditor } from './editor.js';
import { renderChart, restartsWithin, WINDOWS, fmtSeconds } from './chart.js';
import { DEFAULTS, parseFragment, toFragment } from './state.js';

const $ = (id) => document.getElementById(id);
const h = (tag, attrs = {}, ...children) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c);
  return e;
};

const description = rk.describe();
const examples = await (await fetch('./examples/index.json')).json();
const exampleTexts = new Map();
async function exampleText(id) {
  const ex = examples.find((e) => e.id === id);
  if (!ex) return null;
  if (!exampleTexts.has(id)) exampleTexts.set(id, await (await fetch(`./examples/${ex.file}`)).text());
  return exampleTexts.get(id);
}

let state = { ...DEFAULTS, g: {} };
const editor = createEditor($('editor'), { onInput: (text) => { state.m = text; schedule(); } });

// ---- version and gates --------------------------------------------------------------------
const versionSelect = $('version');
for (const v of description.kubernetesVersions) versionSelect.append(h('option', { value: v }, v));
versionSelect.addEventListener('change', () => { state.v = versionSelect.value; renderGates(); schedule(); });

const version = () => state.v ?? description.defaultKubernetesVersion;
const gateDefault = (g) => g.defaults[version()] ?? false;
const gateOn = (name) => {
  const g = description.featureGates.find((x) => x.name === name);
  return name in state.g ? state.g[name] : g ? gateDefault(g) : false;
};
/** A gate upstream has removed in the selected version: always on there, and an override of it
 * is a request error (the components reject unknown gates), so its box is locked. */
const removedGate = (name) => description.featureGates.find((x) => x.name === name)?.stages?.[version()] === 'Removed';
/** The gates as the ops should see them: the overrides only (the version gives the rest); an
 * override kept from an older version is left out where the gate no longer exists. */
const opts = () => ({
  kubernetesVersion: version(),
  featureGates: Object.fromEntries(Object.entries(state.g).filter(([name]) => !removedGate(name))),
});

function renderGates() {
  const box = $('gates');
  const byComponent = new Map();
  for (const g of description.featureGates) {
    if (!byComponent.has(g.component)) byComponent.set(g.component, []);
    byComponent.get(g.component).push(g);
  }
  box.replaceChildren(...[...byComponent].map(([component, gates]) => h('fieldset', {},
    h('legend', {}, component),
    ...gates.map((g) => {
      const id = `gate-${g.name}`;
      const removed = removedGate(g.name);
      const overridden = !removed && g.name in state.g;
      const badge = removed ? `removed in ${version()}: always on` : overridden ? 'override' : `default ${gateDefault(g) ? 'on' : 'off'}`;
      return h('div', { class: 'gate' },
        h('input', {
          type: 'checkbox', id, 'data-gate': g.name, checked: removed || gateOn(g.name), disabled: removed,
          onchange: (e) => {
            if (e.target.checked === gateDefault(g)) delete state.g[g.name];
            else state.g[g.name] = e.target.checked;
            renderGates();
            schedule();
          },
        }),
        h('label', { for: id, title: g.summary }, g.name),
        h('span', { class: overridden ? 'badge override' : 'badge' }, badge));
    }))));
}
$('reset-gates').addEventListener('click', () => { state.g = {}; renderGates(); schedule(); });

// ---- gallery --------------------------------------------------------------------------------
$('gallery').replaceChildren(...examples.map((ex) => h('li', {},
  h('button', { type: 'button', 'data-example': ex.id, title: ex.summary, onclick: () => loadExample(ex.id) }, ex.title))));

async function loadExample(id) {
  const ex = examples.find((e) => e.id === id);
  const text = await exampleText(id);
  if (text === null) return;
  state.ex = id;
  state.m = text;
  if (ex.whatIf) { state.c = ex.whatIf.container; state.x = ex.whatIf.exitCode; }
  editor.value = text;
  update();
}

// ---- what-if --------------------------------------------------------------------------------
$('whatif-container').addEventListener('change', (e) => { state.c = e.target.value; schedule(); });
$('whatif-exit').addEventListener('input', (e) => {
  if (/^-?\d+$/.test(e.target.value)) { state.x = Number(e.target.value); schedule(); }
});

/** The first modelled workload of the manifest: its kind, Pod spec and names. */
function workload(docs) {
  for (const { value: o } of docs) {
    if (!o || typeof o !== 'object') continue;
    const ns = o.metadata?.namespace ?? 'default';
    if (o.kind === 'Pod') return { kind: 'Pod', obj: o, podSpec: o.spec ?? {}, podMeta: o.metadata ?? {}, ns };
    if (o.kind === 'Job') return { kind: 'Job', obj: o, job: o, podSpec: o.spec?.template?.spec ?? {}, podMeta: o.spec?.template?.metadata ?? {}, ns, jobName: o.metadata?.name ?? 'job' };
    if (o.kind === 'JobSet') {
      const rj = o.spec?.replicatedJobs?.[0];
      if (!rj) continue;
      const jobName = `${o.metadata?.name ?? 'jobset'}-${rj.name}-0`;
      const job = {
        apiVersion: 'batch/v1', kind: 'Job',
        metadata: { name: jobName, namespace: ns, labels: { 'jobset.sigs.k8s.io/jobset-name': o.metadata?.name ?? 'jobset', 'jobset.sigs.k8s.io/replicatedjob-name': rj.name } },
        spec: rj.template?.spec ?? {},
      };
      return { kind: 'JobSet', obj: o, jobset: o, job, podSpec: job.spec.template?.spec ?? {}, podMeta: job.spec.template?.metadata ?? {}, ns, jobName, replicatedJob: rj.name };
    }
  }
  return null;
}

const containersOf = (spec) => [
  ...(spec.initContainers ?? []).map((c) => ({ name: c.name, init: true })),
  ...(spec.containers ?? []).map((c) => ({ name: c.name, init: false })),
].filter((c) => typeof c.name === 'string');

function row(label, value, detail, testid) {
  return h('div', { class: 'decision-row', 'data-testid': testid },
    h('dt', {}, label), h('dd', {}, h('strong', { class: 'action' }, value), detail ? h('div', { class: 'detail' }, detail) : null));
}

function renderWhatIf(w) {
  const out = $('decision');
  const select = $('whatif-container');
  $('whatif-exit').value = String(state.x);
  if (!w) {
    select.replaceChildren();
    select.disabled = true;
    out.replaceChildren(h('p', { class: 'muted' }, 'Load a Pod, Job or JobSet to ask what happens when one of its containers exits.'));
    return;
  }
  const containers = containersOf(w.podSpec);
  select.disabled = false;
  select.replaceChildren(...containers.map((c) => h('option', { value: c.name }, c.init ? `${c.name} (init)` : c.name)));
  if (!containers.some((c) => c.name === state.c)) state.c = containers[containers.length - 1]?.name ?? null;
  if (state.c) select.value = state.c;
  const c = containers.find((x) => x.name === state.c);
  if (!c) { out.replaceChildren(h('p', { class: 'muted' }, 'No containers.')); return; }

  const rows = [];
  const exitCode = state.x;
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: `${w.jobName ?? w.obj.metadata?.name ?? 'pod'}${w.kind === 'Pod' ? '' : '-abcde'}`, namespace: w.ns, ...(w.podMeta.labels ? { labels: w.podMeta.labels } : {}) }, spec: w.podSpec };
  let kubelet;
  try {
    kubelet = rk.containerRestart(pod, c.name, exitCode, opts()).action;
    rows.push(row('Kubelet', kubelet, kubelet === 'Restart'
      ? `${c.name} is restarted in place (CrashLoopBackOff applies); the Pod keeps running.`
      : `${c.name} stays terminated with exit code ${exitCode}.`, 'decision-kubelet'));
  } catch (e) {
    rows.push(row('Kubelet', 'error', e.message, 'decision-kubelet'));
  }

  if (w.job) {
    if (kubelet === undefined) {
      rows.push(row('Job', '—', 'needs the kubelet decision', 'decision-job'));
    } else if (kubelet !== 'DoNotRestart') {
      rows.push(row('Job', 'no Pod failure', 'the container restarts in place, so the Job sees no failed Pod', 'decision-job'));
    } else if (exitCode === 0) {
      rows.push(row('Job', 'no Pod failure', `${c.name} succeeded`, 'decision-job'));
    } else {
      const statusKey = c.init ? 'initContainerStatuses' : 'containerStatuses';
      const failedPod = { ...pod, status: { phase: 'Failed', [statusKey]: [{ name: c.name, state: { terminated: { exitCode } } }] } };
      let jobFailure = null;
      try {
        const r = rk.podFailurePolicy(w.job, failedPod, opts());
        const limit = w.job.spec?.backoffLimit ?? 6;
        if (r.action === 'FailJob') {
          jobFailure = { reason: 'PodFailurePolicy', message: r.message };
          rows.push(row('Job', 'FailJob', r.message, 'decision-job'));
        } else if (r.action === 'Ignore') {
          rows.push(row('Job', 'Ignore', 'the failure is not counted against backoffLimit; the Pod is replaced', 'decision-job'));
        } else if (r.action === 'FailIndex') {
          rows.push(row('Job', 'FailIndex', r.message ?? 'the index fails (backoffLimitPerIndex)', 'decision-job'));
        } else {
          const fails = limit === 0;
          if (fails) jobFailure = { reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' };
          rows.push(row('Job', r.action ?? 'Count', `${r.matched ? 'a Count rule matched' : 'no podFailurePolicy rule matched'}: the failure counts against backoffLimit (${limit})${fails ? ', which is 0: the Job fails (BackoffLimitExceeded)' : ''}`, 'decision-job'));
        }
      } catch (e) {
        rows.push(row('Job', 'error', e.message, 'decision-job'));
      }
      if (w.jobset) {
        if (!jobFailure) {
          rows.push(row('JobSet', 'no action', 'the Job has not failed', 'decision-jobset'));
        } else {
          const failedJob = { ...w.job, status: { failed: 1, conditions: [{ type: 'Failed', status: 'True', reason: jobFailure.reason, message: jobFailure.message ?? '', lastTransitionTime: '2026-01-01T00:00:00Z' }] } };
          try {
            const r = rk.jobsetFailurePolicy(w.jobset, [failedJob], opts());
            const cond = (r.conditions ?? []).map((x) => `${x.type}: ${x.message ?? x.reason ?? ''}`).join('; ');
            rows.push(row('JobSet', r.action, [r.matchedRuleName ? `rule ${r.matchedRuleName}` : (r.matchedRule != null ? `rule ${r.matchedRule}` : null), cond].filter(Boolean).join(' — '), 'decision-jobset'));
          } catch (e) {
            rows.push(row('JobSet', 'error', e.message, 'decision-jobset'));
          }
        }
      }
    }
  }
  out.replaceChildren(h('dl', {}, rows));
}

// ---- backoff chart --------------------------------------------------------------------------
$('node-max').addEventListener('input', (e) => {
  if (/^\d+$/.test(e.target.value) && Number(e.target.value) > 0) { state.max = Number(e.target.value); schedule(); }
});
$('chart-range').addEventListener('change', (e) => { state.r = Number(e.target.value); schedule(); });

function kubeletConfigOf(docs) {
  return docs.map((d) => d.value).find((o) => o && o.kind === 'KubeletConfiguration') ?? null;
}

function curve(input, rangeSeconds) {
  // Enough restarts to cover the range even at 1 s apart.
  const restarts = Math.min(rangeSeconds + 2, 2000);
  try {
    return { times: rk.backoff({ component: 'kubelet', restarts, ...input }).restartTimesSeconds ?? [] };
  } catch (e) {
    return { times: null, error: e.message };
  }
}

function renderBackoff(docs) {
  const R = state.r;
  $('node-max').value = String(state.max);
  $('chart-range').value = String(R);
  const off = { ReduceDefaultCrashLoopBackOffDecay: false, KubeletCrashLoopBackOffMax: false };
  const kc = kubeletConfigOf(docs);
  const selectedGates = { ReduceDefaultCrashLoopBackOffDecay: gateOn('ReduceDefaultCrashLoopBackOffDecay'), KubeletCrashLoopBackOffMax: gateOn('KubeletCrashLoopBackOffMax') };
  const series = [
    { id: 'legacy', label: 'legacy (10 s doubling to 300 s)', color: '#6b7280', dash: '6 4', ...curve({ featureGates: off }, R) },
    { id: 'reduced', label: 'KEP-4603 reduced (1 s doubling to 60 s)', color: '#2563eb', dash: '2 3', ...curve({ featureGates: { ...off, ReduceDefaultCrashLoopBackOffDecay: true } }, R) },
    { id: 'node-max', label: `per-node maximum ${state.max} s`, color: '#d97706', dash: '10 3 2 3', ...curve({
      featureGates: { ...off, KubeletCrashLoopBackOffMax: true },
      kubeletConfig: { apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration', featureGates: { KubeletCrashLoopBackOffMax: true }, crashLoopBackOff: { maxContainerRestartPeriod: `${state.max}s` } },
    }, R) },
    { id: 'selected', label: `this configuration (Kubernetes ${version()}${kc ? ', the editor\'s KubeletConfiguration' : ''})`, color: '#dc2626', ...curve({ featureGates: selectedGates, ...(kc ? { kubeletConfig: kc } : {}) }, R) },
  ];
  const chart = $('backoff-chart');
  chart.replaceChildren(renderChart(series, R));
  $('legend').replaceChildren(...series.map((s) => h('li', { 'data-series': s.id },
    h('span', { class: 'swatch', style: `border-top: 3px ${s.dash ? 'dashed' : 'solid'} ${s.color}` }),
    s.label, s.error ? h('span', { class: 'error-text' }, ` — ${s.error}`) : null)));
  $('backoff-table').replaceChildren(
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'restarts within'), ...WINDOWS.map((w) => h('th', { scope: 'col' }, w.label)))),
    h('tbody', {}, ...series.map((s) => h('tr', { 'data-series': s.id },
      h('th', { scope: 'row' }, s.label),
      ...WINDOWS.map((w) => h('td', {}, s.times ? String(restartsWithin(s.times, w.seconds)) : '—'))))));
  $('backoff-note').textContent = `t = 0 is the first crash; a container that crashes at once on every start. Range ${fmtSeconds(R)}.`;
}

// ---- diagnostics ----------------------------------------------------------------------------
function renderDiagnostics(list) {
  const ul = $('diagnostics');
  $('diag-count').textContent = list.length === 0 ? 'No problems.' : `${list.length} diagnostic${list.length === 1 ? '' : 's'}`;
  ul.replaceChildren(...list.map((d) => h('li', { class: `diag diag-${d.severity}`, 'data-field': d.field ?? '' },
    h('button', { type: 'button', class: 'goto', disabled: !d.line, onclick: () => d.line && editor.focusLine(d.line), title: d.line ? `go to line ${d.line}` : undefined },
      d.line ? `${d.line}:${d.column ?? 1}` : '—'),
    h('span', { class: 'sev' }, d.severity),
    h('code', { class: 'field' }, d.field || '(document)'),
    h('span', { class: 'msg' }, d.message),
    d.type ? h('span', { class: 'type' }, d.type) : null,
    h('span', { class: 'origin' }, d.origin ?? ''))));
}

// ---- update loop ----------------------------------------------------------------------------
let timer = null;
function schedule() {
  clearTimeout(timer);
  timer = setTimeout(update, 120);
}

function update() {
  clearTimeout(timer);
  versionSelect.value = version();
  const text = editor.value;
  let diags = [];
  let docs = [];
  try {
    docs = rk.parseDocuments(text);
  } catch (e) {
    diags = e.diagnostics ?? [{ severity: 'error', field: '', message: e.message, origin: 'restartkit' }];
  }
  if (docs.length) {
    try {
      const out = rk.validate(text, opts());
      diags = [...out.errors, ...out.warnings, ...(out.infos ?? [])];
    } catch (e) {
      diags = e.diagnostics ?? [{ severity: 'error', field: e.field ?? '', message: e.message, origin: 'restartkit' }];
    }
  }
  editor.setDiagnostics(diags);
  renderDiagnostics(diags);
  renderWhatIf(workload(docs));
  renderBackoff(docs);
  const exText = state.ex ? exampleTexts.get(state.ex) : undefined;
  const frag = toFragment({ ...state, m: text }, exText);
  if (location.hash !== frag) history.replaceState(null, '', frag);
  document.body.dataset.ready = 'true';
}

async function loadFragment() {
  const s = parseFragment(location.hash);
  state = { ...DEFAULTS, ...s, g: s.g };
  if (state.v && !description.kubernetesVersions.includes(state.v)) state.v = null;
  let text = state.m;
  if (text === null) {
    if (!state.ex) state.ex = examples[0].id;
    text = await exampleText(state.ex);
    if (!s.c) {
      const ex = examples.find((e) => e.id === state.ex);
      if (ex?.whatIf) { state.c = ex.whatIf.container; state.x = ex.whatIf.exitCode; }
    }
  } else if (state.ex) {
    await exampleText(state.ex);
  }
  state.m = text ?? '';
  editor.value = state.m;
  renderGates();
  update();
}

window.addEventListener('hashchange', () => {
  // Only links pasted or edited by hand: our own replaceState does not fire hashchange.
  loadFragment();
});
$('version-info').textContent = `restartkit ${description.restartkitVersion}, contract ${description.contractVersion}`;
await loadFragment();
