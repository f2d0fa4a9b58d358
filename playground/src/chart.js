// The backoff chart: plain SVG drawn from code. x: seconds since the first crash; y: restarts so
// far (a step line per series) with a marker at every restart.
const NS = 'http://www.w3.org/2000/svg';
export const el = (name, attrs = {}, text) => {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
};

export const WINDOWS = [
  { label: '10 s', seconds: 10 },
  { label: '30 s', seconds: 30 },
  { label: '70 s', seconds: 70 },
  { label: '5 min', seconds: 300 },
  { label: '30 min', seconds: 1800 },
];

/** Restarts at or before `t` (t = 0 is the first crash; the first restart follows at once). */
export const restartsWithin = (times, t) => times.filter((x) => x <= t).length;

/**
 * series: [{id, label, color, dash, times: number[] | null, error?: string}]
 * Returns an <svg> element.
 */
export function renderChart(series, rangeSeconds, { width = 720, height = 300 } = {}) {
  const m = { l: 48, r: 16, t: 12, b: 36 };
  const w = width - m.l - m.r;
  const h = height - m.t - m.b;
  const shown = series.filter((s) => Array.isArray(s.times));
  const maxY = Math.max(1, ...shown.map((s) => restartsWithin(s.times, rangeSeconds)));
  const x = (t) => m.l + (Math.min(t, rangeSeconds) / rangeSeconds) * w;
  const y = (n) => m.t + h - (n / maxY) * h;
  const svg = el('svg', { viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-labelledby': 'chart-title chart-desc' });
  svg.append(el('title', { id: 'chart-title' }, 'CrashLoopBackOff: restarts over time'));
  svg.append(el('desc', { id: 'chart-desc' }, shown.map((s) => `${s.label}: ${restartsWithin(s.times, rangeSeconds)} restarts in ${rangeSeconds} s`).join('; ')));
  // Axes and grid.
  const axis = el('g', { class: 'axis' });
  const xticks = niceTicks(rangeSeconds);
  for (const t of xticks) {
    axis.append(el('line', { x1: x(t), x2: x(t), y1: m.t, y2: m.t + h, class: 'grid' }));
    axis.append(el('text', { x: x(t), y: height - m.b + 16, 'text-anchor': 'middle' }, fmtSeconds(t)));
  }
  for (const n of niceTicks(maxY, true)) {
    axis.append(el('line', { x1: m.l, x2: m.l + w, y1: y(n), y2: y(n), class: 'grid' }));
    axis.append(el('text', { x: m.l - 6, y: y(n) + 4, 'text-anchor': 'end' }, String(n)));
  }
  axis.append(el('text', { x: m.l + w / 2, y: height - 4, 'text-anchor': 'middle', class: 'label' }, 'time since the first crash'));
  axis.append(el('text', { x: 12, y: m.t + h / 2, transform: `rotate(-90 12 ${m.t + h / 2})`, 'text-anchor': 'middle', class: 'label' }, 'restarts'));
  svg.append(axis);
  for (const s of shown) {
    const times = s.times.filter((t) => t <= rangeSeconds);
    let d = `M ${x(0)} ${y(0)}`;
    times.forEach((t, i) => { d += ` H ${x(t).toFixed(2)} V ${y(i + 1).toFixed(2)}`; });
    d += ` H ${x(rangeSeconds)}`;
    const g = el('g', { 'data-series': s.id, 'data-restarts': times.length });
    g.append(el('path', { d, fill: 'none', stroke: s.color, 'stroke-width': 2, 'stroke-dasharray': s.dash ?? 'none' }));
    // Markers at each restart (thinned when there are very many).
    const step = Math.max(1, Math.ceil(times.length / 150));
    times.forEach((t, i) => {
      if (i % step === 0) g.append(el('circle', { cx: x(t).toFixed(2), cy: y(i + 1).toFixed(2), r: 3, fill: s.color, class: 'marker' }));
    });
    svg.append(g);
  }
  return svg;
}

export function niceTicks(max, integer = false) {
  const raw = max / 6;
  const pow = 10 ** Math.floor(Math.log10(Math.max(raw, 1e-9)));
  const step = [1, 2, 5, 10].map((k) => k * pow).find((s) => s >= raw) ?? raw;
  const st = integer ? Math.max(1, Math.round(step)) : step;
  const out = [];
  for (let v = 0; v <= max + 1e-9; v += st) out.push(Math.round(v * 1000) / 1000);
  return out;
}

export function fmtSeconds(t) {
  if (t < 60) return `${t}s`;
  if (t % 60 === 0) return `${t / 60}m`;
  return `${Math.floor(t / 60)}m${t % 60}s`;
}
