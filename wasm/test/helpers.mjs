// Shared by the tests: where the built package is, and a throw-away consumer project that has it
// installed as node_modules/restartkit-wasm (so the tests resolve it through package.json `exports`).
import { mkdirSync, mkdtempSync, existsSync, symlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const wasmDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const repoDir = resolve(wasmDir, '..');
export const pkgDir = resolve(process.env.RESTARTKIT_WASM_PKG ?? join(wasmDir, 'pkg'));
export const vectorsDir = join(repoDir, 'conformance', 'vectors');

if (!existsSync(join(pkgDir, 'package.json'))) {
  throw new Error(`no built package in ${pkgDir}: run \`make wasm\` first`);
}

/** A fresh directory with node_modules/restartkit-wasm -> the built package. */
export function consumerProject() {
  const dir = mkdtempSync(join(tmpdir(), 'restartkit-wasm-consumer-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(pkgDir, join(dir, 'node_modules', 'restartkit-wasm'), 'dir');
  writeFileSync(join(dir, 'package.json'), '{"name": "consumer", "private": true}\n');
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
