// The sweep panel's histograms: plain SVG drawn from code, in the style of the backoff chart
// (src/chart.js, whose element and tick helpers it uses). The input is the sweep's exact value
// tallies (each distinct value of a measure with how many runs had it, as the core's partials
// carry them), never a list of runs; every variant of one measure shares the bins and the count
// axis so that the histograms compare side by side.
import { el, niceTicks } from './chart.js';

/** At most this many bins: enough to show a shape, few enough to read. */
const MAX_BINS = 30;

const numberFormat = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 4 });
/** A measure's value for a label: integers whole, other values to 4 significant digits. */
export const fmtNumber = (v) => (Number.isInteger(v) ? v.toLocaleString('en-US') : numberFormat.format(v));

/** The smallest of 1, 2, 5 × 10^k that is at least `raw` (at least 1 for whole numbers). */
function niceStep(raw, integer) {
  const pow = 10 ** Math.floor(Math.log10(Math.max(raw, 1e-12)));
  const step = [1, 2, 5, 10].map((k) => k * pow).find((s) => s >= raw);
  return integer ? Math.max(1, Math.round(step)) : step;
}

/**
 * Bins for a set of values: `edges` (count + 1 ascending numbers); a value v falls in bin i when
 * edges[i] <= v < edges[i + 1] (the last bin also holds its upper edge). Whole-number measures
 * (restarts, failures) with a small range get one bin per value.
 */
export function binsFor(values) {
  let min = Infinity;
  let max = -Infinity;
  let integers = true;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
    if (!Number.isInteger(v)) integers = false;
  }
  if (min === Infinity) return { edges: [0, 1], integers: true };
  const width = integers
    ? niceStep((max - min + 1) / MAX_BINS, true)
    : niceStep(max > min ? (max - min) / MAX_BINS : Math.max(Math.abs(max), 1) / 10, false);
  const start = Math.floor(min / width) * width;
  const count = Math.floor((max - start) / width) + 1;
  // Edges rounded to 12 significant digits: 0.1 * 3 is 0.30000000000000004, not an edge to show.
  const edges = Array.from({ length: count + 1 }, (_, i) => Number((start + i * width).toPrecision(12)));
  return { edges, integers };
}

/** Runs per bin: `tally` maps a value (the core's decimal string) to its count of runs. */
export function binCounts(bins, tally) {
  const { edges } = bins;
  const counts = new Array(edges.length - 1).fill(0);
  for (const [text, n] of tally) {
    const v = Number(text);
    // The last edge at or below v (binary search); values past the ends go to the end bins.
    let lo = 0;
    let hi = counts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (edges[mid] <= v) lo = mid; else hi = mid - 1;
    }
    counts[lo] += n;
  }
  return counts;
}

/**
 * One histogram per variant, sharing bins and the count axis.
 * variants: [{name, color, tally: Map<string, number>}]; returns one <svg> per variant.
 */
export function renderHistograms(variants, measureLabel, { width = 520, height = 240 } = {}) {
  const bins = binsFor(variants.flatMap((v) => [...v.tally.keys()].map(Number)));
  const counts = variants.map((v) => binCounts(bins, v.tally));
  const maxCount = Math.max(1, ...counts.flat());
  const m = { l: 52, r: 24, t: 12, b: 40 };
  const w = width - m.l - m.r;
  const hgt = height - m.t - m.b;
  const { edges } = bins;
  const bars = edges.length - 1;
  const x = (i) => m.l + (i / bars) * w;
  const y = (n) => m.t + hgt - (n / maxCount) * hgt;
  // Whole numbers in bins of one: the label is the value under its bar; otherwise the edges.
  const unitBins = bins.integers && edges[1] - edges[0] === 1;
  const labelEvery = Math.max(1, Math.ceil((unitBins ? bars : bars + 1) / 8));
  return variants.map((variant, vi) => {
    const runs = counts[vi].reduce((a, b) => a + b, 0);
    const titleId = `sweep-hist-title-${vi}`;
    const descId = `sweep-hist-desc-${vi}`;
    const svg = el('svg', {
      viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-labelledby': `${titleId} ${descId}`,
      'data-variant': vi, 'data-runs': runs, class: 'histogram',
    });
    svg.append(el('title', { id: titleId }, `${variant.name}: ${measureLabel}, ${runs} runs`));
    svg.append(el('desc', { id: descId }, counts[vi].map((n, i) => (n ? `${n} with ${rangeText(bins, i, measureLabel)}` : null)).filter(Boolean).join('; ')));
    const axis = el('g', { class: 'axis' });
    for (const n of niceTicks(maxCount, true)) {
      axis.append(el('line', { x1: m.l, x2: m.l + w, y1: y(n), y2: y(n), class: 'grid' }));
      axis.append(el('text', { x: m.l - 6, y: y(n) + 4, 'text-anchor': 'end' }, String(n)));
    }
    if (unitBins) {
      for (let i = 0; i < bars; i += labelEvery) axis.append(el('text', { x: (x(i) + x(i + 1)) / 2, y: height - m.b + 16, 'text-anchor': 'middle' }, fmtNumber(edges[i])));
    } else {
      for (let i = 0; i <= bars; i += labelEvery) {
        axis.append(el('line', { x1: x(i), x2: x(i), y1: m.t + hgt, y2: m.t + hgt + 4, class: 'tick' }));
        axis.append(el('text', { x: x(i), y: height - m.b + 16, 'text-anchor': 'middle' }, fmtNumber(edges[i])));
      }
    }
    axis.append(el('text', { x: m.l + w / 2, y: height - 4, 'text-anchor': 'middle', class: 'label' }, measureLabel));
    axis.append(el('text', { x: 12, y: m.t + hgt / 2, transform: `rotate(-90 12 ${m.t + hgt / 2})`, 'text-anchor': 'middle', class: 'label' }, 'runs'));
    svg.append(axis);
    const g = el('g', { 'data-series': vi });
    counts[vi].forEach((n, i) => {
      const bar = el('rect', {
        x: (x(i) + 0.5).toFixed(2), width: Math.max(0.5, x(i + 1) - x(i) - 1).toFixed(2),
        y: y(n).toFixed(2), height: (m.t + hgt - y(n)).toFixed(2), fill: variant.color,
        class: 'bar', 'data-lo': edges[i], 'data-hi': edges[i + 1], 'data-count': n,
      });
      bar.append(el('title', {}, `${n} run${n === 1 ? '' : 's'} with ${rangeText(bins, i, measureLabel)}`));
      g.append(bar);
    });
    svg.append(g);
    return svg;
  });
}

function rangeText(bins, i, label) {
  const { edges, integers } = bins;
  if (integers && edges[i + 1] - edges[i] === 1) return `${label} ${fmtNumber(edges[i])}`;
  const last = i === edges.length - 2;
  return `${fmtNumber(edges[i])} ≤ ${label} ${last ? '≤' : '<'} ${fmtNumber(edges[i + 1])}`;
}
