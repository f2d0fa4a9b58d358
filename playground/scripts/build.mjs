#!/usr/bin/env node
// Builds the static playground into playground/dist: src/ as is, examples/, and the browser part
// of the restartkit-wasm package (wasm/pkg, built by `make wasm`) under dist/pkg/.
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = resolve(process.env.RESTARTKIT_WASM_PKG ?? join(here, '..', 'wasm', 'pkg'));
const dist = resolve(process.argv[2] ?? join(here, 'dist'));
if (!existsSync(join(pkg, 'index.browser.js'))) throw new Error(`no restartkit-wasm package in ${pkg}: run \`make wasm\``);

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });
cpSync(join(here, 'src'), dist, { recursive: true });
cpSync(join(here, 'examples'), join(dist, 'examples'), { recursive: true });
mkdirSync(join(dist, 'pkg', 'web'), { recursive: true });
for (const f of ['index.browser.js', 'schemas.js', 'package.json']) cpSync(join(pkg, f), join(dist, 'pkg', f));
for (const f of ['restartkit_wasm.js', 'restartkit_wasm_bg.wasm']) cpSync(join(pkg, 'web', f), join(dist, 'pkg', 'web', f));

let total = 0;
const walk = (d) => readdirSync(d).forEach((f) => { const p = join(d, f); statSync(p).isDirectory() ? walk(p) : (total += statSync(p).size); });
walk(dist);
console.error(`playground -> ${dist} (${(total / 1024).toFixed(0)} KiB)`);
