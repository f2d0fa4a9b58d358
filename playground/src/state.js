// The playground's whole state in the URL fragment, so a link reproduces the view.
// Format (documented in playground/README.md): URLSearchParams after '#':
//   v=1.35            Kubernetes version
//   g=Name:1,Other:0  feature-gate overrides (only the gates that differ from the version's default)
//   ex=<id>           the gallery example the manifest came from
//   m=<base64url>     the manifest text (UTF-8, base64url without padding); absent when it is
//                     the unchanged example `ex`
//   c=<name>          what-if container;  x=<int> what-if exit code
//   max=<seconds>     the per-node maximum of the backoff chart;  r=<seconds> chart range
//   s=<id>            simulator scenario (examples/scenarios/<id>.yaml)
//   sm=<base64url>    the scenario text, when it differs from scenario `s`
//   sc=<id>           compare scenario (absent: none)
//   p=Name,Other      proposals answered under (docs/proposals.md; absent: none, upstream only)
//   ws=<int>          sweep seeds; present while the sweep panel is open (src/sweep.js), with
//   wa=<name>         its first variant's name (absent: "as is"), wpa=<base64url> its patch text,
//   wb=<name>         the second variant's name (absent: no second variant), wpb=<base64url> its
//                     patch text, wm=<measure> the histogram's measure (absent: timeLostSeconds)
export const DEFAULTS = Object.freeze({ v: null, g: {}, ex: null, m: null, c: null, x: 1, max: 30, r: 600, s: null, sm: null, sc: null, sim: false, p: [],
  ws: null, wa: 'as is', wpa: '', wb: null, wpb: '', wm: 'timeLostSeconds' });

export function encodeText(text) {
  const bytes = new TextEncoder().encode(text);
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function decodeText(s) {
  const b64 = s.replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

const int = (s, d) => (s !== null && /^-?\d+$/.test(s) ? Number(s) : d);

export function parseFragment(hash) {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const g = {};
  for (const part of (p.get('g') ?? '').split(',').filter(Boolean)) {
    const [name, on] = part.split(':');
    if (name && (on === '1' || on === '0')) g[name] = on === '1';
  }
  const text = (k) => {
    if (!p.has(k)) return null;
    try { return decodeText(p.get(k)); } catch { return null; }
  };
  const m = text('m');
  return {
    v: p.get('v') || null,
    g,
    ex: p.get('ex') || null,
    m,
    mref: p.get('mref') === 'tab' && m === null ? 'tab' : null,
    c: p.get('c') || null,
    x: int(p.get('x'), DEFAULTS.x),
    max: int(p.get('max'), DEFAULTS.max),
    r: int(p.get('r'), DEFAULTS.r),
    s: p.get('s') || null,
    sm: text('sm'),
    sc: p.get('sc') || null,
    sim: p.get('sim') === '1',
    p: [...new Set((p.get('p') ?? '').split(',').filter(Boolean))],
    ws: int(p.get('ws'), null),
    wa: p.has('wa') ? p.get('wa') : DEFAULTS.wa,
    wpa: text('wpa') ?? DEFAULTS.wpa,
    wb: p.has('wb') ? p.get('wb') : DEFAULTS.wb,
    wpb: text('wpb') ?? DEFAULTS.wpb,
    wm: p.get('wm') || DEFAULTS.wm,
  };
}

/** Longest manifest text (base64url characters) the fragment carries; browsers cap URLs near
 * 2 MB. A longer text is kept in the tab's IndexedDB (src/stash.js) and named by `mref=tab`. */
export const MAX_FRAGMENT_TEXT = 1_000_000;

export function toFragment(s, exampleText, scenarioText) {
  const p = new URLSearchParams();
  if (s.v) p.set('v', s.v);
  const gates = Object.entries(s.g).sort(([a], [b]) => a.localeCompare(b)).map(([k, on]) => `${k}:${on ? 1 : 0}`);
  if (gates.length) p.set('g', gates.join(','));
  if (s.ex) p.set('ex', s.ex);
  if (s.m !== null && s.m !== exampleText) {
    const m = encodeText(s.m);
    if (m.length <= MAX_FRAGMENT_TEXT) p.set('m', m);
    else p.set('mref', 'tab');
  }
  if (s.c) p.set('c', s.c);
  p.set('x', String(s.x));
  p.set('max', String(s.max));
  p.set('r', String(s.r));
  if (s.s) p.set('s', s.s);
  if (s.sm !== null && s.sm !== scenarioText) p.set('sm', encodeText(s.sm));
  if (s.sc) p.set('sc', s.sc);
  if (s.p?.length) p.set('p', s.p.join(','));
  // The sweep panel's keys, only while it is open (the page passes ws: null otherwise).
  if (s.ws !== null && s.ws !== undefined) {
    p.set('ws', String(s.ws));
    // The sweep keeps the scenario keys (s, sm, sc) for itself: `sim` says the simulation panel
    // was open too.
    if (s.sim) p.set('sim', '1');
    if (s.wa !== DEFAULTS.wa) p.set('wa', s.wa);
    if (s.wpa) p.set('wpa', encodeText(s.wpa));
    if (s.wb !== null && s.wb !== undefined) {
      p.set('wb', s.wb);
      if (s.wpb) p.set('wpb', encodeText(s.wpb));
    }
    if (s.wm && s.wm !== DEFAULTS.wm) p.set('wm', s.wm);
  }
  return `#${p.toString()}`;
}
