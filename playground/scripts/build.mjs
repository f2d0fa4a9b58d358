#!/usr/bin/env node
// Builds the static playground into playground/dist: src/ as is, examples/, and the browser part
// of the restartkit-wasm package (wasm/pkg, built by `make wasm`) under dist/pkg/.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = resolve(process.env.RESTARTKIT_WASM_PKG ?? join(here, '..', 'wasm', 'pkg'));
const dist = resolve(process.argv[2] ?? join(here, 'dist'));
if (!existsSync(join(pkg, 'index.browser.js'))) throw new Error(`no restartkit-wasm package in ${pkg}: run \`make wasm\``);

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });
cpSync(join(here, 'src'), dist, { recursive: true });
cpSync(join(here, 'examples'), join(dist, 'examples'), { recursive: true });
// Simulator scenarios (examples/scenarios) under dist/sim/scenarios/, with the workload files they
// name by `workloadFile` at the same relative place, and an index for the scenario picker.
const exRoot = join(here, '..', 'examples');
const simDir = join(dist, 'sim');
mkdirSync(join(simDir, 'scenarios'), { recursive: true });
const scenarios = [];
for (const f of readdirSync(join(exRoot, 'scenarios')).filter((f) => /\.ya?ml$/.test(f)).sort()) {
  const text = readFileSync(join(exRoot, 'scenarios', f), 'utf8');
  cpSync(join(exRoot, 'scenarios', f), join(simDir, 'scenarios', f));
  const wf = /^workloadFile:\s*(\S+)\s*$/m.exec(text)?.[1];
  if (wf) {
    const src = resolve(exRoot, 'scenarios', wf);
    const rel = relative(exRoot, src);
    if (rel.startsWith('..')) throw new Error(`${f}: workloadFile ${wf} is outside examples/`);
    mkdirSync(dirname(join(simDir, rel)), { recursive: true });
    cpSync(src, join(simDir, rel));
  }
  const name = /^name:\s*(.+?)\s*$/m.exec(text)?.[1] ?? f;
  // Scenarios that simulate a proposal (top-level `proposals:`, docs/proposals.md) go after the
  // upstream ones, so the default (the first) is upstream behaviour.
  scenarios.push({ id: f.replace(/\.ya?ml$/, ''), file: f, title: name.replace(/^["']|["']$/g, ''), proposal: /^proposals:/m.test(text) });
}
scenarios.sort((a, b) => Number(a.proposal) - Number(b.proposal) || a.file.localeCompare(b.file));
writeFileSync(join(simDir, 'index.json'), `${JSON.stringify(scenarios, null, 2)}\n`);

mkdirSync(join(dist, 'pkg', 'web'), { recursive: true });
for (const f of ['index.browser.js', 'schemas.js', 'package.json']) cpSync(join(pkg, f), join(dist, 'pkg', f));
for (const f of ['restartkit_wasm.js', 'restartkit_wasm_bg.wasm']) cpSync(join(pkg, 'web', f), join(dist, 'pkg', 'web', f));

let total = 0;
const walk = (d) => readdirSync(d).forEach((f) => { const p = join(d, f); statSync(p).isDirectory() ? walk(p) : (total += statSync(p).size); });
walk(dist);
console.error(`playground -> ${dist} (${(total / 1024).toFixed(0)} KiB)`);
