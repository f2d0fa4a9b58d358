// The sweep panel's worker: runs a sweep off the main thread, chunk by chunk, on the package's
// main entry (both parts of the module at import: the page's first load has only the first-load part).
// The page sends {type: 'run', id, input} (a `sweep` op input); the worker answers
//   {type: 'plan', id, plan, total}                      the variants and seeds (sweepPlan)
//   {type: 'progress', id, done, total, variant, measures, phases}
//                                                        after each chunk: that chunk's tallies
//   {type: 'result', id, output}                         sweepMerge of every chunk: `sweep`'s answer
//   {type: 'error', id, message, field, code}            the core's refusal (variant and field named)
// Stopping is the page terminating this worker: nothing here needs to check for it.
import * as rk from './pkg/index.browser.js';

// A chunk should take about this long, so progress moves several times a second while the
// per-chunk cost (each sweepChunk call decodes and checks every variant again) stays small.
const CHUNK_TARGET_MS = 150;
// The first chunk is one run (its time is unknown); later chunks grow at most this much at once,
// so one fast run does not size a chunk that takes seconds.
const MAX_GROWTH = 4;

self.onmessage = ({ data }) => {
  if (data?.type === 'run') runSweep(data.id, data.input);
};

function runSweep(id, input) {
  try {
    const plan = rk.call('sweepPlan', input);
    const variants = plan.variants.length;
    const total = plan.seeds * variants;
    self.postMessage({ type: 'plan', id, plan, total });
    // Every chunk's partial is kept for the exact merge at the end: partials hold value tallies
    // (a few entries per distinct value), never runs or timelines.
    const partials = [];
    let done = 0;
    let start = 0;
    let count = 1;
    // The variants advance together (one chunk of each per round), so a stopped sweep shows
    // every variant at about the same number of runs.
    while (start < plan.seeds) {
      const n = Math.min(count, plan.seeds - start);
      const t0 = performance.now();
      for (let v = 0; v < variants; v++) {
        const partial = rk.call('sweepChunk', { sweep: input, variant: v, start, count: n });
        partials.push(partial);
        done += n;
        const { measures, phases } = partial.variants[v];
        self.postMessage({ type: 'progress', id, done, total, variant: v, measures, phases });
      }
      start += n;
      const perRun = Math.max(performance.now() - t0, 0.01) / (n * variants);
      count = Math.max(1, Math.min(n * MAX_GROWTH, Math.round(CHUNK_TARGET_MS / perRun)));
    }
    self.postMessage({ type: 'result', id, output: rk.call('sweepMerge', { partials }) });
  } catch (e) {
    self.postMessage({ type: 'error', id, message: e.message, field: e.field ?? null, code: e.code ?? null });
  }
}

self.postMessage({ ready: true });
