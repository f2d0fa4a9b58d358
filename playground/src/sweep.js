// The sweep panel: the simulation panel's scenario run for N seeds under one or two variants
// (each the scenario with a JSON Merge Patch typed here), summarised as the core's `sweep` op
// does (docs/sweeps.md). The runs happen in a dedicated Web Worker (src/sweep-worker.js) on the
// full module, chunk by chunk (sweepPlan, sweepChunk, sweepMerge), so the page stays responsive
// and Stop can end a run at once by terminating the worker. The page only lays out: the numbers
// (shares of each final phase with their Wilson intervals, the statistics) are the op's; the
// histogram bins the exact value tallies the chunks carry.
import { $, h } from './dom.js';
import { fmtNumber, renderHistograms } from './sweep-chart.js';

/** The playground's bound on seeds (the core allows 1,000,000; a browser tab is not a cluster). */
export const MAX_PLAYGROUND_SEEDS = 10_000;
export const DEFAULT_SEEDS = 100;

/** The measures a histogram can show: the op's measure names with their labels. */
export const SWEEP_MEASURES = [
  ['timeLostSeconds', 'time lost (s)'],
  ['jobsetRestarts', 'JobSet restarts'],
  ['jobFailures', 'Job failures'],
  ['containerExits', 'container exits'],
  ['inPlaceRestarts', 'in-place restarts'],
  ['podsReplaced', 'Pods recreated'],
  ['faults', 'faults'],
  ['timeToFinishSeconds', 'time to finish (s), runs that finished'],
  ['endSeconds', 'simulated (s)'],
  ['allPodsRunningSeconds', 'all Pods running (s)'],
];
const measureLabel = (key) => SWEEP_MEASURES.find(([k]) => k === key)?.[1] ?? key;
const COLORS = ['#2563eb', '#d97706'];
const STATS = [['runs', 'runs'], ['mean', 'mean'], ['stdDev', 'std dev'], ['min', 'min'], ['p25', 'p25'], ['p50', 'median'],
  ['p75', 'p75'], ['p90', 'p90'], ['p99', 'p99'], ['max', 'max']];

const pct = (p) => `${(p * 100).toFixed(1)} %`;

/**
 * rk: the package's core module (for reading patch text); workerUrl: the sweep worker's URL, or
 * null when the build has none; state(): the page's state (keys ws, wa, wpa, wb, wpb, wm, see
 * src/state.js); readScenario(): the simulation panel's scenario as an op input (a promise);
 * scenarioTitle(): its name; onChange(): the state changed (the page rewrites the fragment).
 */
export function createSweepPanel({ rk, workerUrl, state, readScenario, scenarioTitle, onChange }) {
  const seedsInput = $('sweep-seeds');
  const measureSelect = $('sweep-measure');
  const nameA = $('sweep-name-a');
  const patchA = $('sweep-patch-a');
  const secondOn = $('sweep-b-on');
  const nameB = $('sweep-name-b');
  const patchB = $('sweep-patch-b');
  const runButton = $('sweep-run');
  const stopButton = $('sweep-stop');
  const progress = $('sweep-progress');
  const progressText = $('sweep-progress-text');
  const announce = $('sweep-announce');
  const out = $('sweep-output');

  measureSelect.replaceChildren(...SWEEP_MEASURES.map(([k, label]) => h('option', { value: k }, label)));

  // ---- controls <-> state
  const changed = () => onChange();
  seedsInput.addEventListener('input', () => {
    if (/^\d+$/.test(seedsInput.value)) { state().ws = Number(seedsInput.value); changed(); }
  });
  measureSelect.addEventListener('change', () => { state().wm = measureSelect.value; render(); changed(); });
  nameA.addEventListener('input', () => { state().wa = nameA.value; changed(); });
  patchA.addEventListener('input', () => { state().wpa = patchA.value; changed(); });
  nameB.addEventListener('input', () => { state().wb = nameB.value; changed(); });
  patchB.addEventListener('input', () => { state().wpb = patchB.value; changed(); });
  secondOn.addEventListener('change', () => {
    state().wb = secondOn.checked ? (nameB.value || 'patched') : null;
    sync();
    changed();
  });

  /** Fills the controls from the state (a loaded link, or the panel opening). */
  function sync() {
    const s = state();
    if (s.ws === null || s.ws === undefined) s.ws = DEFAULT_SEEDS;
    const set = (input, v) => { if (input.value !== v) input.value = v; };
    set(seedsInput, String(s.ws));
    set(measureSelect, SWEEP_MEASURES.some(([k]) => k === s.wm) ? s.wm : SWEEP_MEASURES[0][0]);
    set(nameA, s.wa);
    set(patchA, s.wpa);
    secondOn.checked = s.wb !== null;
    nameB.disabled = patchB.disabled = s.wb === null;
    set(nameB, s.wb ?? 'patched');
    set(patchB, s.wpb);
    describeScenario();
  }

  function describeScenario() {
    $('sweep-scenario').textContent = `Scenario: ${scenarioTitle() ?? 'the simulation panel\'s (edited)'}, as the simulation panel runs it (edit it there).`;
  }

  // ---- the request
  /** The `sweep` input from the controls; a throw is a message for the user. */
  async function buildInput() {
    const s = state();
    const text = seedsInput.value.trim();
    if (!/^\d+$/.test(text)) throw new Error(`seeds: enter a whole number of seeds (1 to ${MAX_PLAYGROUND_SEEDS.toLocaleString('en-US')}), not "${text}"`);
    const seeds = Number(text);
    if (seeds > MAX_PLAYGROUND_SEEDS) {
      throw new Error(`seeds: ${seeds.toLocaleString('en-US')} is more than the playground runs (at most ${MAX_PLAYGROUND_SEEDS.toLocaleString('en-US')} per variant); ` +
        'the CLI (`restartkit sweep`) and the Python package run up to 1,000,000 seeds on every core, or on Ray (docs/sweeps.md)');
    }
    // A sweep runs the simulator, which is in the module's on-demand part, and reading a patch may
    // need that part too (only the first view's reading is in the first-load part): load it first.
    await rk.loadFull();
    const variants = [variantOf(s.wa, s.wpa)];
    if (s.wb !== null) variants.push(variantOf(s.wb, s.wpb));
    return { scenario: await readScenario(), seeds, variants };
  }

  /** A variant from its name and patch text (YAML or JSON; empty: the scenario as is). The core
   * checks the rest (a name, a unique name, a patch that is an object, the patched scenario). */
  function variantOf(name, text) {
    if (!text.trim()) return { name, patch: {} };
    let docs;
    try {
      docs = rk.parseDocuments(text);
    } catch (e) {
      throw new Error(`variant ${JSON.stringify(name)}: patch: ${e.message}`);
    }
    if (docs.length !== 1) throw new Error(`variant ${JSON.stringify(name)}: patch: one YAML or JSON document expected, found ${docs.length}`);
    return { name, patch: docs[0].value };
  }

  // ---- the worker
  // Messages that reach a module worker before its imports (the wasm) are ready would be lost:
  // the request waits until the worker says it is ready (as the validation worker's do).
  let worker = null;
  let workerReady = false;
  let pending = null;
  let runSeq = 0;
  /** The run shown: {id, state: 'starting'|'running'|'finished'|'stopped'|'error', plan, done,
   * total, tallies: per variant a Map measure -> Map value -> runs, phases: per variant counts,
   * output, message}. */
  let current = null;

  function startWorker() {
    workerReady = false;
    worker = new Worker(workerUrl, { type: 'module' });
    worker.onmessage = ({ data }) => {
      if (data.ready) {
        workerReady = true;
        if (pending) worker.postMessage(pending);
        pending = null;
        return;
      }
      if (!current || data.id !== current.id) return;
      onWorkerMessage(data);
    };
    worker.onerror = (e) => {
      e.preventDefault?.();
      stopWorker();
      if (current && (current.state === 'running' || current.state === 'starting')) {
        fail(`the sweep's worker failed: ${e.message || 'it could not start or ran out of memory'}`);
      }
    };
  }

  function stopWorker() {
    worker?.terminate();
    worker = null;
    workerReady = false;
    pending = null;
  }

  function send(message) {
    if (!worker) startWorker();
    if (workerReady) worker.postMessage(message);
    else pending = message;
  }

  function onWorkerMessage(data) {
    const c = current;
    if (data.type === 'plan') {
      c.plan = data.plan;
      c.total = data.total;
      c.state = 'running';
      c.tallies = data.plan.variants.map(() => new Map());
      c.phases = data.plan.variants.map(() => ({}));
      c.runs = data.plan.variants.map(() => 0);
      setProgress();
      scheduleRender();
    } else if (data.type === 'progress') {
      const tallies = c.tallies[data.variant];
      for (const [measure, pairs] of Object.entries(data.measures)) {
        if (!tallies.has(measure)) tallies.set(measure, new Map());
        const t = tallies.get(measure);
        for (const [value, n] of pairs) t.set(value, (t.get(value) ?? 0) + n);
      }
      const phases = c.phases[data.variant];
      let runs = 0;
      for (const [phase, n] of Object.entries(data.phases)) { phases[phase] = (phases[phase] ?? 0) + n; runs += n; }
      c.runs[data.variant] += runs;
      c.done = data.done;
      setProgress();
      scheduleRender();
    } else if (data.type === 'result') {
      c.output = data.output;
      c.state = 'finished';
      setRunning(false);
      render();
      announce.textContent = `Sweep finished: ${c.plan.seeds.toLocaleString('en-US')} runs of each variant. ${data.output.variants.map((v) => `${v.name}: ${Object.entries(v.phases).filter(([, p]) => p.runs > 0)
        .map(([phase, p]) => `${phase} ${pct(p.probability)} (95 % interval ${pct(p.low)} to ${pct(p.high)})`).join(', ')}`).join('; ')}`;
    } else if (data.type === 'error') {
      fail(data.message, data.field);
    }
  }

  function fail(message, field = null) {
    current.state = 'error';
    current.message = message;
    current.field = field;
    setRunning(false);
    render();
    announce.textContent = `Sweep refused: ${message}`;
  }

  function setRunning(running) {
    runButton.disabled = running;
    stopButton.disabled = !running;
    out.setAttribute('aria-busy', String(running));
  }

  function setProgress() {
    const c = current;
    const total = c?.total ?? 0;
    const done = c?.done ?? 0;
    progress.setAttribute('aria-valuemax', String(total));
    progress.setAttribute('aria-valuenow', String(done));
    const text = total ? `${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} runs` : '';
    progress.setAttribute('aria-valuetext', text || 'not started');
    progress.firstElementChild.style.width = total ? `${(100 * done) / total}%` : '0';
    progressText.textContent = c?.state === 'stopped' ? `${text}: stopped` : text;
  }

  async function run() {
    const id = ++runSeq;
    current = { id, state: 'starting', plan: null, done: 0, total: 0 };
    setRunning(true);
    setProgress();
    out.dataset.state = 'starting';
    out.replaceChildren(h('p', { class: 'muted' }, 'Starting…'));
    let input;
    try {
      input = await buildInput();
    } catch (e) {
      if (current?.id === id) fail(e.message, e.field ?? null);
      return;
    }
    // Stopped (or replaced) while the scenario's files were loading: nothing to start.
    if (current?.id !== id || current.state !== 'starting') return;
    send({ type: 'run', id, input });
  }

  function stop() {
    if (!current || (current.state !== 'running' && current.state !== 'starting')) return;
    // Terminating ends the worker wherever it is, mid-chunk included; a new one starts next run.
    stopWorker();
    current.state = 'stopped';
    setRunning(false);
    setProgress();
    render();
    announce.textContent = `Sweep stopped after ${current.done.toLocaleString('en-US')} of ${current.total.toLocaleString('en-US')} runs: the counts shown are partial, not a result.`;
  }

  runButton.addEventListener('click', run);
  stopButton.addEventListener('click', stop);
  if (!workerUrl) {
    runButton.disabled = true;
    out.replaceChildren(h('p', { class: 'error-text' }, 'This build of the playground has no sweep worker (scripts/build.mjs bundles src/sweep-worker.js).'));
  }

  // ---- rendering
  // Progress messages can come faster than frames: render at most once a frame.
  let frame = 0;
  function scheduleRender() {
    if (!frame) frame = requestAnimationFrame(() => { frame = 0; render(); });
  }

  function render() {
    const c = current;
    if (!c) return;
    out.dataset.state = c.state;
    if (c.state === 'error') {
      out.replaceChildren(h('p', { class: 'error-text', 'data-testid': 'sweep-error', 'data-field': c.field ?? '' }, c.message));
      return;
    }
    if (!c.plan) {
      if (c.state === 'stopped') out.replaceChildren(h('p', { class: 'sweep-status stopped', 'data-testid': 'sweep-status' }, 'Stopped before the first run.'));
      return;
    }
    const measure = state().wm;
    const names = c.plan.variants;
    const lastSeed = c.plan.firstSeed + c.plan.seeds - 1;
    const status = c.state === 'finished'
      ? `${c.plan.seeds.toLocaleString('en-US')} runs of each variant, seeds ${c.plan.firstSeed} to ${lastSeed}.`
      : c.state === 'stopped'
        ? `Stopped after ${c.done.toLocaleString('en-US')} of ${c.total.toLocaleString('en-US')} runs: these counts are partial, not a result (no intervals or statistics).`
        : `Running: ${c.done.toLocaleString('en-US')} of ${c.total.toLocaleString('en-US')} runs.`;
    const histograms = renderHistograms(names.map((name, i) => ({
      name, color: COLORS[i % COLORS.length], tally: c.tallies[i].get(measure) ?? new Map(),
    })), measureLabel(measure));
    const finished = c.state === 'finished' ? c.output.variants : null;
    out.replaceChildren(
      h('p', { class: c.state === 'stopped' ? 'sweep-status stopped' : 'sweep-status', 'data-testid': 'sweep-status' }, status),
      h('div', { class: names.length > 1 ? 'side-by-side' : '' }, ...names.map((name, i) => h('section', { 'data-variant': i, 'data-name': name },
        h('h3', {}, h('span', { class: 'swatch', style: `background: ${COLORS[i % COLORS.length]}` }), ` ${name} — ${c.runs[i].toLocaleString('en-US')} runs`),
        h('div', { class: 'chart' }, histograms[i]),
        finished ? statsTable(finished[i], measure) : null))),
      phaseTable(names, c, finished),
      finished ? h('p', {}, h('a', {
        'data-testid': 'sweep-json', download: 'sweep.json',
        href: `data:application/json;charset=utf-8,${encodeURIComponent(`${JSON.stringify(c.output, null, 2)}\n`)}`,
      }, 'Download the result as JSON'), h('span', { class: 'muted' }, ' (the sweep op\'s output, the same as restartkit sweep -o json)')) : null,
    );
  }

  function statsTable(variant, measure) {
    const s = variant.measures[measure];
    return h('table', { class: 'table', 'data-testid': 'sweep-stats', 'data-measure': measure },
      h('caption', {}, measureLabel(measure)),
      h('tbody', {}, ...STATS.map(([key, label]) => h('tr', { 'data-key': key },
        h('th', { scope: 'row' }, label),
        h('td', { 'data-value': s ? s[key] : '' }, s ? fmtNumber(s[key]) : '—')))));
  }

  /** The final phases: the op's share and 95 % Wilson interval when finished, else counts. */
  function phaseTable(names, c, finished) {
    const phases = [...new Set(names.flatMap((_, i) => Object.keys(finished ? finished[i].phases : c.phases[i])))];
    return h('table', { class: 'table sweep-phases', 'data-testid': 'sweep-phases' },
      h('caption', {}, finished ? 'Final phase of the workload: share of runs, 95 % Wilson interval' : 'Final phase of the workload: runs so far (partial)'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'phase'), ...names.map((n) => h('th', { scope: 'col' }, n)))),
      h('tbody', {}, ...phases.map((phase) => h('tr', { 'data-phase': phase },
        h('th', { scope: 'row' }, phase),
        ...names.map((_, i) => {
          if (!finished) {
            const k = c.phases[i][phase] ?? 0;
            return h('td', { 'data-runs': k }, `${k.toLocaleString('en-US')} of ${c.runs[i].toLocaleString('en-US')}`);
          }
          const p = finished[i].phases[phase];
          if (!p) return h('td', {}, '—');
          return h('td', { 'data-runs': p.runs, 'data-probability': p.probability, 'data-low': p.low, 'data-high': p.high },
            `${pct(p.probability)} [${pct(p.low)}, ${pct(p.high)}]`, h('span', { class: 'muted' }, ` ${p.runs.toLocaleString('en-US')} of ${finished[i].runs.toLocaleString('en-US')}`));
        })))));
  }

  return { sync, describeScenario };
}
