// restartkit playground: everything runs in the page, on the restartkit-wasm package (./pkg) and
// local files (./examples). No request leaves the page.
// The package's core entry: the module's first-load part (validation, evaluation, backoff). The
// on-demand part (the simulator, sweeps, proposals, rarely taken paths) is fetched by
// core.loadFull() when the simulation panel opens, or when a call here first needs it.
import * as core from './pkg/core.browser.js';
import { createEditor } from './editor.js';
import { schemaForKind } from './kinds.js';
import { stashText, stashedText } from './stash.js';
import { renderChart, restartsWithin, WINDOWS, fmtSeconds } from './chart.js';
import { DEFAULTS, parseFragment, toFragment } from './state.js';
import { $, h } from './dom.js';
import { renderWhatIf, workloadOf } from './whatif.js';
import { renderSimulation, scenarioInput } from './simulate.js';
import { createSweepPanel } from './sweep.js';
import { explainPanel } from './explain.js';

// On this (main) thread a call that needs the on-demand part before it has loaded fails with code
// module-loading and starts the fetch; the page shows that error where it shows errors and renders
// again once the part is in. In the validation worker such calls simply load it.
// When the part cannot be fetched (offline, a 404), the calls that need it fail with that reason
// (code module-load-failed) instead of showing "loading" for ever; a later call tries again.
let reloadQueued = false;
let loadFailure = null;
function onDemand(fn) {
  return (...args) => {
    try {
      return fn(...args);
    } catch (e) {
      if (e?.code !== 'module-loading') throw e;
      if (!reloadQueued) {
        reloadQueued = true;
        core.loadFull().then(() => { reloadQueued = false; loadFailure = null; simKey = null; update(); }, (err) => {
          reloadQueued = false;
          const first = loadFailure === null;
          loadFailure = err;
          if (first) update();
        });
      }
      if (loadFailure) {
        throw new core.RestartkitError(`the rest of the engine (the module's on-demand part) could not be loaded: ${loadFailure.message}`, { code: 'module-load-failed', cause: loadFailure });
      }
      throw e;
    }
  };
}
const rk = Object.fromEntries(Object.entries(core).map(([k, v]) => [k, typeof v === 'function' && k !== 'RestartkitError' && k !== 'Policy' ? onDemand(v) : v]));

const description = rk.describe();
const examples = await (await fetch('./examples/index.json')).json();
const exampleTexts = new Map();
async function exampleText(id) {
  const ex = examples.find((e) => e.id === id);
  if (!ex) return null;
  if (!exampleTexts.has(id)) exampleTexts.set(id, await (await fetch(`./examples/${ex.file}`)).text());
  return exampleTexts.get(id);
}

let state = { ...DEFAULTS, g: {}, p: [] };
const SCHEMAS = rk.schemas();
const editor = createEditor($('editor'), {
  onInput: (text) => { state.m = text; schedule(); },
  schemaFor: (kind) => schemaForKind(SCHEMAS, kind),
  // Completion is the core's (the language server's too), with the target chosen here.
  complete: (source, line, column) => rk.complete(source, line, column),
  label: 'Manifest: YAML or JSON (Tab indents, Esc then Tab leaves)',
  describedBy: 'diag-count',
  testid: 'manifest-input',
  id: 'manifest-input',
});

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
  ...withProposals(),
});

// ---- proposals (experimental; docs/proposals.md) -------------------------------------------
// The list comes from the core: the contract's JSON Schema of `proposals` (the Proposal enum,
// with its doc comments), served by the package from build-time JSON. Nothing is hard-coded here.
const PROPOSALS = (() => {
  const schemas = SCHEMAS;
  const def = schemas.ValidateInput?.$defs?.Proposal ?? schemas.BackoffCompareInput?.$defs?.Proposal;
  return (def?.oneOf ?? (def?.enum ?? []).map((v) => ({ const: v })))
    .filter((x) => typeof x.const === 'string')
    .map((x) => ({ name: x.const, summary: x.description ?? '' }));
})();
const PROPOSAL_NAMES = new Set(PROPOSALS.map((p) => p.name));
/** `{proposals: [...]}` when any is on, else nothing: a request without one is upstream's. */
const withProposals = () => (state.p.length ? { proposals: [...state.p] } : {});

function renderProposals() {
  const box = $('proposals');
  box.replaceChildren(h('legend', {}, 'Answer under'), ...PROPOSALS.map((p) => {
    const id = `proposal-${p.name}`;
    return h('div', { class: 'gate' },
      h('input', {
        type: 'checkbox', id, 'data-proposal': p.name, checked: state.p.includes(p.name),
        'aria-describedby': `${id}-summary`,
        onchange: (e) => {
          const on = new Set(state.p);
          if (e.target.checked) on.add(p.name); else on.delete(p.name);
          state.p = PROPOSALS.map((x) => x.name).filter((n) => on.has(n));
          simKey = null;
          renderProposals();
          schedule();
        },
      }),
      h('label', { for: id }, p.name),
      h('span', { id: `${id}-summary`, class: 'badge' }, p.summary.split('\n').join(' ')));
  }));
  $('proposals-count').textContent = state.p.length ? `${state.p.length} on` : 'off';
  if (state.p.length) $('proposals-box').open = true;
}

/** The visible marker of a result made under proposals (the result's own `proposals` list). */
function proposalMarker(list, testid) {
  if (!list?.length) return null;
  return h('p', { class: 'proposal-note', 'data-testid': testid, 'data-proposals': list.join(',') },
    h('span', { class: 'proposal-marker' }, 'experimental'), ` made under proposal${list.length > 1 ? 's' : ''} ${list.join(', ')}, not upstream's behaviour`);
}

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

/** Fills the container selector from the workload and asks the core's whatIf op. */
function updateWhatIf(w) {
  const select = $('whatif-container');
  $('whatif-exit').value = String(state.x);
  const containers = w?.containers ?? [];
  select.disabled = !w;
  select.replaceChildren(...containers.map((c) => h('option', { value: c.name }, c.init ? `${c.name} (init)` : c.name)));
  if (w && !containers.some((c) => c.name === state.c)) state.c = containers[containers.length - 1]?.name ?? null;
  if (state.c && w) select.value = state.c;
  renderWhatIf(rk, $('decision'), w, { container: w ? state.c : null, exitCode: state.x, ...opts() }, proposalMarker);
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
  // Under proposals: the curves backoffCompare offers for them, beside upstream's (each carries
  // `proposal`; upstream's own curve in that answer is left out, it is drawn above).
  let proposalError = null;
  if (state.p.length) {
    try {
      const out = rk.call('backoffCompare', { curves: [{ label: 'legacy', featureGates: off }], horizonSeconds: R, ...withProposals() });
      const palette = ['#059669', '#7c3aed', '#db2777', '#0891b2', '#65a30d', '#9333ea', '#ea580c', '#0d9488', '#be123c', '#4f46e5', '#ca8a04', '#16a34a', '#c026d3'];
      out.curves.filter((c) => c.proposal).forEach((c, i) => series.push({
        id: `proposal-${i}`, proposal: c.proposal, label: `${c.label} [proposal ${c.proposal}]`,
        color: palette[i % palette.length], dash: '1 2', times: c.restartTimesSeconds,
      }));
    } catch (e) {
      proposalError = e.message;
    }
  }
  const chart = $('backoff-chart');
  chart.replaceChildren(renderChart(series, R));
  $('legend').replaceChildren(...series.map((s) => h('li', { 'data-series': s.id, 'data-proposal': s.proposal ?? null },
    h('span', { class: 'swatch', style: `border-top: 3px ${s.dash ? 'dashed' : 'solid'} ${s.color}` }),
    s.proposal ? h('span', { class: 'proposal-marker' }, 'experimental') : null, s.proposal ? ' ' : null,
    s.label, s.error ? h('span', { class: 'error-text' }, ` — ${s.error}`) : null)),
    ...(proposalError ? [h('li', { class: 'error-text', 'data-testid': 'proposal-error' }, `proposals: ${proposalError}`)] : []));
  $('backoff-table').replaceChildren(
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'restarts within'), ...WINDOWS.map((w) => h('th', { scope: 'col' }, w.label)))),
    h('tbody', {}, ...series.map((s) => h('tr', { 'data-series': s.id },
      h('th', { scope: 'row' }, s.label),
      ...WINDOWS.map((w) => h('td', {}, s.times ? String(restartsWithin(s.times, w.seconds)) : '—'))))));
  $('backoff-note').textContent = `t = 0 is the first crash; a container that crashes at once on every start. Range ${fmtSeconds(R)}.`;
}

// ---- diagnostics ----------------------------------------------------------------------------
function renderDiagnostics(list, proposals) {
  const ul = $('diagnostics');
  $('diag-marker').replaceChildren(...[proposalMarker(proposals, 'validate-marker')].filter(Boolean));
  $('diag-count').textContent = list.length === 0 ? 'No problems.' : `${list.length} diagnostic${list.length === 1 ? '' : 's'}`;
  // For screen readers (a polite live region): the count and the first three, by line.
  const announce = list.length === 0 ? 'No problems.' : `${list.length} diagnostic${list.length === 1 ? '' : 's'}: ${list.slice(0, 3)
    .map((d) => `${d.line ? `line ${d.line}: ` : ''}${d.severity} ${d.message}`).join('; ')}`;
  if ($('diag-announce').textContent !== announce) $('diag-announce').textContent = announce;
  ul.replaceChildren(...list.map((d) => h('li', { class: `diag diag-${d.severity}`, 'data-field': d.field ?? '' },
    h('button', { type: 'button', class: 'goto', disabled: !d.line, onclick: () => d.line && editor.focusLine(d.line), title: d.line ? `go to line ${d.line}` : undefined },
      d.line ? `${d.line}:${d.column ?? 1}` : '—'),
    h('span', { class: 'sev' }, d.severity),
    h('code', { class: 'field' }, d.field || '(document)'),
    h('span', { class: 'msg' }, d.message),
    d.type ? h('span', { class: 'type' }, d.type) : null,
    h('span', { class: 'origin' }, d.origin ?? ''),
    ...placedFixes(d).map((fix) => h('button', { type: 'button', class: 'fix', 'data-testid': 'quick-fix', onclick: () => applyFix(fix) }, `Fix: ${fix.description}`)))));
}

// ---- simulation ---------------------------------------------------------------------------
const scenarios = await (await fetch('./sim/index.json')).json();
const fileCache = new Map();
async function simFile(path) {
  if (!fileCache.has(path)) {
    const r = await fetch(new URL(path, new URL('./sim/', location.href)));
    fileCache.set(path, r.ok ? await r.text() : null);
  }
  return fileCache.get(path);
}
const scenarioFile = (id) => scenarios.find((x) => x.id === id)?.file;
const scenarioText = async (id) => (scenarioFile(id) ? simFile(`scenarios/${scenarioFile(id)}`) : null);
const scenarioBase = (id) => `scenarios/${scenarioFile(id) ?? ''}`;
const scenarioEditor = createEditor($('scenario-editor'), {
  onInput: (text) => { state.sm = text; schedule(); },
  schemaFor: () => SCHEMAS.Scenario,
  label: 'Scenario: YAML or JSON (Tab indents, Esc then Tab leaves)',
  testid: 'scenario-input',
  id: 'scenario-input',
});
$('scenario-select').replaceChildren(...scenarios.map((x) => h('option', { value: x.id }, x.title)));
$('compare-select').replaceChildren(h('option', { value: '' }, 'nothing'), ...scenarios.map((x) => h('option', { value: x.id }, x.title)));
$('scenario-select').addEventListener('change', async (e) => {
  state.s = e.target.value;
  state.sm = await scenarioText(state.s);
  scenarioEditor.value = state.sm ?? '';
  simKey = null;
  update();
});
$('compare-select').addEventListener('change', (e) => { state.sc = e.target.value || null; simKey = null; update(); });

// The simulator runs only when its inputs change (not on every keystroke elsewhere); runs are
// asynchronous because workload files load on demand, so a newer run supersedes an older one.
let simKey = null;
let simSeq = 0;
let lastWorkload = null;
// The simulator is in the module's on-demand part, fetched the first time the panel opens: most
// visits only validate, and the first-load part is about 60 % of the module.
const simPanel = $('simulation');
const loadSimulator = () => core.loadFull().then(() => rk);
simPanel.addEventListener('toggle', () => {
  if (!simPanel.open) return;
  simKey = null;
  updateSimulation(lastWorkload);
  history.replaceState(null, '', fragment());
});
const loadRelative = (base) => (path) => simFile(new URL(path, new URL(base, 'http://x/')).pathname.slice(1));
/** The scenario as the simulation panel runs it: workloadFile resolved, the editor's workload
 * when the scenario names none, and the proposal toggles (on the scenario, not the compare). */
async function currentScenario(reader, w) {
  const scenario = await scenarioInput(reader, state.sm ?? '', { loadFile: loadRelative(scenarioBase(state.s)), fallbackWorkload: w?.obj, fallbackRuntime: w?.runtime });
  if (state.p.length) scenario.proposals = [...new Set([...(scenario.proposals ?? []), ...state.p])];
  return scenario;
}
function updateSimulation(w) {
  lastWorkload = w;
  $('scenario-select').value = state.s ?? '';
  $('compare-select').value = state.sc ?? '';
  if (!simPanel.open) return;
  const key = JSON.stringify([state.sm, state.sc, state.p, state.sm !== null && !/^\s*workload(File)?:/m.test(state.sm) ? [w?.obj, w?.runtime] : null]);
  if (key === simKey) return;
  simKey = key;
  const seq = ++simSeq;
  const out = $('sim-output');
  delete out.dataset.ready;
  (async () => {
    try {
      const sim = await loadSimulator();
      // The toggles apply to the scenario, not to the compare run (as `restartkit simulate
      // --proposal` does), so a scenario can be compared with itself without the proposal.
      const scenario = await currentScenario(sim, w);
      const compare = state.sc
        ? await scenarioInput(sim, (await scenarioText(state.sc)) ?? '', { loadFile: loadRelative(scenarioBase(state.sc)), fallbackWorkload: w?.obj, fallbackRuntime: w?.runtime })
        : null;
      if (seq !== simSeq) return;
      renderSimulation(sim, out, scenario, compare, proposalMarker);
    } catch (e) {
      if (seq !== simSeq) return;
      out.replaceChildren(h('p', { class: 'error-text', 'data-testid': 'sim-error' }, e.message));
    }
    out.dataset.ready = 'true';
  })();
}

// ---- sweep ---------------------------------------------------------------------------------
// The simulation panel's scenario over many seeds, in its own worker on the full module (created
// at the first run, so the first load still fetches only the core module).
const sweepPanel = $('sweep');
const sweep = createSweepPanel({
  rk,
  workerUrl: typeof SWEEP_WORKER_URL === 'string' ? new URL(SWEEP_WORKER_URL, import.meta.url) : null,
  state: () => state,
  readScenario: () => currentScenario(rk, lastWorkload),
  scenarioTitle: () => (state.sm === (state.s ? fileCache.get(`scenarios/${scenarioFile(state.s)}`) : undefined)
    ? scenarios.find((x) => x.id === state.s)?.title : null),
  onChange: () => history.replaceState(null, '', fragment()),
});
sweepPanel.addEventListener('toggle', () => {
  if (sweepPanel.open) sweep.sync();
  history.replaceState(null, '', fragment());
});

// ---- update loop ----------------------------------------------------------------------------
let timer = null;
function schedule() {
  clearTimeout(timer);
  timer = setTimeout(update, 120);
}

// Validation runs in a Web Worker (./worker.js); only the answer to the latest request is used,
// and a worker still busy with an older text is replaced, so a huge or hostile paste never
// blocks typing. Everything else (what-if, chart, simulator) runs here on the parsed documents.
const VALIDATION_TIMEOUT_MS = 15000;
let worker = null;
let workerBusy = false;
let requestSeq = 0;
let watchdog = null;
// Messages that reach a module worker before its imports (the wasm) are ready would be lost:
// the latest request waits here until the worker says it is ready.
let workerReady = false;
let pendingRequest = null;
function startWorker() {
  workerReady = false;
  worker = new Worker(new URL(WORKER_URL, import.meta.url), { type: 'module' });
  worker.onmessage = ({ data }) => {
    if (data.ready) {
      workerReady = true;
      if (pendingRequest) worker.postMessage(pendingRequest);
      pendingRequest = null;
      return;
    }
    workerBusy = false;
    clearTimeout(watchdog);
    if (data.id === requestSeq) render(data);
  };
  worker.onerror = (e) => {
    workerBusy = false;
    clearTimeout(watchdog);
    render({ id: requestSeq, docs: [], diags: [{ severity: 'error', field: '', message: `validation failed: ${e.message}`, origin: 'playground' }], proposals: null });
  };
}

// The explain panel reads its own text (pasted objects) at the page's version and gates.
const updateExplain = explainPanel({ load: loadSimulator, opts });

function update() {
  clearTimeout(timer);
  updateExplain();
  versionSelect.value = version();
  if (workerBusy) { worker.terminate(); startWorker(); }
  const id = ++requestSeq;
  workerBusy = true;
  clearTimeout(watchdog);
  watchdog = setTimeout(() => {
    if (id !== requestSeq || !workerBusy) return;
    worker.terminate();
    startWorker();
    workerBusy = false;
    render({ id, docs: [], diags: [{ severity: 'error', field: '', message: `validation did not finish within ${VALIDATION_TIMEOUT_MS / 1000} s; the text was not checked`, origin: 'playground' }], proposals: null });
  }, VALIDATION_TIMEOUT_MS);
  const request = { id, text: editor.value, opts: opts() };
  if (workerReady) worker.postMessage(request);
  else pendingRequest = request;
}

/** The view as a fragment; the simulator's keys only while its panel is open. */
function fragment() {
  const exText = state.ex ? exampleTexts.get(state.ex) : undefined;
  // The sweep runs the simulation panel's scenario: its keys stay while either panel is open.
  const simKeys = simPanel.open || sweepPanel.open ? {} : { s: null, sm: null, sc: null };
  const sweepKeys = sweepPanel.open ? {} : { ws: null };
  return toFragment({ ...state, m: editor.value, ...simKeys, ...sweepKeys, sim: simPanel.open }, exText, state.s ? fileCache.get(`scenarios/${scenarioFile(state.s)}`) : undefined);
}

let lastDiags = [];
let stashedValue = null;
let renders = 0;
function render({ docs, diags, proposals }) {
  lastDiags = diags;
  editor.setDiagnostics(diags, quickFixes);
  renderDiagnostics(diags, proposals);
  const w = workloadOf(docs);
  updateWhatIf(w);
  updateSimulation(w);
  sweep.describeScenario();
  renderBackoff(docs);
  const frag = fragment();
  // A text too long for the link stays in this tab's IndexedDB, so a reload finds it.
  if (/[#&]mref=tab(&|$)/.test(frag) && editor.value !== stashedValue) {
    stashedValue = editor.value;
    stashText(stashedValue);
  }
  try {
    if (location.hash !== frag) history.replaceState(null, '', frag);
  } catch {
    // A text too long for a URL (browsers cap them near 2 MB) stays in the editor only.
  }
  document.body.dataset.ready = 'true';
  // Counted so that a test can time an interaction up to the answer it renders.
  document.body.dataset.renders = String(++renders);
}

/** The core's fixes of a diagnostic that it could place in the text (`fixes[].textEdits`). */
const placedFixes = (d) => (d.fixes ?? []).filter((f) => f.textEdits?.length);

/** Applies a fix's text edits (1-based lines, columns in characters) to the manifest editor. */
function applyFix(fix) {
  const doc = editor.view.state.doc;
  const at = (line, column) => {
    const l = doc.line(Math.min(Math.max(line, 1), doc.lines));
    return Math.min(l.from + column - 1, l.to);
  };
  editor.view.dispatch({
    changes: fix.textEdits.map((e) => ({ from: at(e.line, e.column), to: at(e.endLine, e.endColumn), insert: e.newText })),
    userEvent: 'input.fix',
  });
}

/** CodeMirror lint actions (buttons in the diagnostic's tooltip and the lint panel). */
function quickFixes(d) {
  return placedFixes(d).map((fix) => ({ name: `Fix: ${fix.description}`, apply: () => applyFix(fix) }));
}

async function loadFragment() {
  const s = parseFragment(location.hash);
  // A sweep link carries the scenario keys too: it opens the simulation panel only with `sim`.
  if ((s.s || s.sm || s.sc) && (s.ws === null || s.sim)) simPanel.open = true;
  if (s.ws !== null) sweepPanel.open = true;
  state = { ...DEFAULTS, ...s, g: s.g, p: s.p.filter((n) => PROPOSAL_NAMES.has(n)) };
  if (state.v && !description.kubernetesVersions.includes(state.v)) state.v = null;
  let text = state.m;
  if (text === null && s.mref === 'tab') text = await stashedText();
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
  if (!state.s || !scenarioFile(state.s)) state.s = scenarios[0]?.id ?? null;
  if (state.sc && !scenarioFile(state.sc)) state.sc = null;
  const st = state.s ? await scenarioText(state.s) : null;
  if (state.sm === null) state.sm = st ?? '';
  scenarioEditor.value = state.sm;
  simKey = null;
  sweep.sync();
  renderGates();
  renderProposals();
  update();
}

window.addEventListener('hashchange', () => {
  // Only links pasted or edited by hand: our own replaceState does not fire hashchange.
  loadFragment();
});
startWorker();
$('version-info').textContent = `restartkit ${description.restartkitVersion}, contract ${description.contractVersion}`;
await loadFragment();
