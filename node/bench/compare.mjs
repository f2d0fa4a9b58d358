#!/usr/bin/env node
// Per-call cost of @restartkit/node (native, napi-rs) against restartkit-wasm on the same Node,
// and against the core in Rust (criterion, core/benches/frontends.rs), on the same calls and
// inputs (core/benches/frontend_calls.json). A script for `make bench-node`, not a timed test.
//   node node/bench/compare.mjs [--quick] [--criterion DIR]   (DIR: $CARGO_TARGET_DIR/criterion)
import { readFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..');
const require = createRequire(import.meta.url);
const native = require('../index.js');
const wasmPkg = resolve(process.env.RESTARTKIT_WASM_PKG ?? join(root, 'wasm', 'pkg'));
if (!existsSync(join(wasmPkg, 'index.cjs'))) throw new Error(`no restartkit-wasm package in ${wasmPkg}: run \`make wasm\``);
const wasm = require(join(wasmPkg, 'index.cjs'));
const calls = JSON.parse(readFileSync(join(root, 'core', 'benches', 'frontend_calls.json'), 'utf8'));
const quick = process.argv.includes('--quick');
const criterionDir = process.argv.includes('--criterion') ? process.argv[process.argv.indexOf('--criterion') + 1] : null;

/**
 * Mean ns per call over `n` calls, best of `repeat` rounds, for several functions timed in
 * alternation (so that load from other processes hits them alike).
 */
function perCall(fns, n, repeat = quick ? 3 : 7) {
  n = Math.max(1, Math.round(quick ? n / 10 : n));
  for (const fn of fns) for (let i = 0; i < Math.min(n, 200); i++) fn();
  const best = fns.map(() => Infinity);
  for (let r = 0; r < repeat; r++) {
    fns.forEach((fn, k) => {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < n; i++) fn();
      best[k] = Math.min(best[k], Number(process.hrtime.bigint() - t0) / n);
    });
  }
  return best;
}

// Criterion's medians (ns) from its estimates files: `<criterion dir>/<benchmark id>/new/estimates.json`.
// core/benches/frontends.rs names them frontends/...; core/benches/engine.rs times two of the same
// calls on the same inputs under its own names, used when frontends has not been run.
const ALIASES = {
  'frontends/handleJson containerRestart': 'handle_json containerRestart',
  'frontends/validate Job YAML': 'validate typical Job from YAML',
};
function rustTime(id) {
  if (!criterionDir) return undefined;
  for (const name of [id, ALIASES[id]].filter(Boolean)) {
    const f = join(criterionDir, name, 'new', 'estimates.json');
    if (existsSync(f)) return JSON.parse(readFileSync(f, 'utf8')).median.point_estimate;
  }
  return undefined;
}

const reqText = JSON.stringify(calls.containerRestartRequest);
const crIn = calls.containerRestartRequest.input;
const codes = new Int32Array(calls.decideManyCount).map((_, i) => i % 256);
const cases = [
  { name: 'handleJson containerRestart', rust: 'frontends/handleJson containerRestart', n: 20000, run: (rk) => () => rk.handleJson(reqText) },
  { name: 'containerRestart (objects)', n: 20000, run: (rk) => () => rk.containerRestart(crIn.pod, crIn.container, crIn.exitCode) },
  { name: 'validate Job YAML', rust: 'frontends/validate Job YAML', n: 5000, run: (rk) => () => rk.validate(calls.jobYaml) },
  { name: 'compile Job', rust: 'frontends/compile Job', n: 5000, run: (rk) => () => rk.compile(calls.job) },
  {
    name: 'decide (compiled)', rust: 'frontends/decide', n: 500000,
    run: (rk) => { const p = rk.compile(calls.job); return () => p.decide(calls.decideContainer, calls.decideExitCode); },
  },
  {
    name: `decideMany ${calls.decideManyCount} codes`, rust: 'frontends-batch/decideMany 1M', n: 20,
    run: (rk) => { const p = rk.compile(calls.job); return () => p.decideMany(calls.decideContainer, codes); },
  },
];

// The two packages must agree before their speed means anything.
for (const c of cases) {
  const a = c.run(native)(); const b = c.run(wasm)();
  const norm = (v) => (v instanceof Uint8Array ? Array.from(v.subarray(0, 1000)) : typeof v === 'string' && v.startsWith('{') ? JSON.parse(v) : v?.containers ?? v);
  if (JSON.stringify(norm(a)) !== JSON.stringify(norm(b))) throw new Error(`${c.name}: the packages disagree`);
}

const fmt = (ns) => (ns === undefined ? '—' : ns < 1e3 ? `${ns.toFixed(1)} ns` : ns < 1e6 ? `${(ns / 1e3).toFixed(2)} µs` : `${(ns / 1e6).toFixed(2)} ms`);
console.log(`node ${process.version}; @restartkit/node ${native.VERSION}; restartkit-wasm from ${wasmPkg}`);
console.log(`${'call'.padEnd(34)}${'Rust core'.padStart(12)}${'native'.padStart(12)}${'wasm'.padStart(12)}${'native/wasm'.padStart(13)}${'native/Rust'.padStart(13)}`);
const rows = [];
for (const c of cases) {
  const [tn, tw] = perCall([c.run(native), c.run(wasm)], c.n);
  const tr = c.rust ? rustTime(c.rust) : undefined;
  rows.push({ call: c.name, rustNs: tr ?? null, nativeNs: tn, wasmNs: tw, nativeOverWasm: tn / tw });
  console.log(`${c.name.padEnd(34)}${fmt(tr).padStart(12)}${fmt(tn).padStart(12)}${fmt(tw).padStart(12)}${(tn / tw).toFixed(2).padStart(13)}${(tr ? (tn / tr).toFixed(1) : '—').padStart(13)}`);
}
const worst = Math.max(...rows.map((r) => r.nativeOverWasm));
console.log(`target: native <= 0.5 x wasm per call; worst ratio ${worst.toFixed(2)} (${worst <= 0.5 ? 'met' : 'not met'})`);
if (process.env.BENCH_JSON) console.log(JSON.stringify(rows));
