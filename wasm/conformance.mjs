#!/usr/bin/env node
// Conformance runner for the npm package restartkit-wasm (conformance/FORMAT.md):
//   node wasm/conformance.mjs FILE...
// runs every vector of the files through the built package (`request(op, input)`, values as JS
// objects), compares the result with the vector's `expect` with the core's comparator
// (`compareExpect`, the same code as the Rust runner), prints `FAIL <id>: <what differed>` per
// failing vector and `N passed, M failed`, and exits 1 when any vector failed (2 on bad usage).
// The package is read from wasm/pkg, or from $RESTARTKIT_WASM_PKG.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Runs one vector; returns null when it passes, else the text after `FAIL <id>: `. */
export function runVector(m, vector) {
  if (typeof vector !== 'object' || vector === null) return 'vector is not an object';
  if (typeof vector.op !== 'string') return 'vector has no op';
  if (vector.expect === undefined) return 'vector has no expect';
  const resp = m.request(vector.op, vector.input ?? null);
  if (resp.status !== 'ok') {
    return `request failed: ${(resp.errors ?? []).map((e) => e.message).join('; ')}`;
  }
  // The known upstream divergences (conformance/divergences.json) are applied by the core.
  const corrected = m.request('vectorExpect', { vector });
  const expect = corrected.status === 'ok' ? corrected.result.expect : vector.expect;
  return m.compareExpect(expect, resp.result) ?? null;
}

/** Reads vector files: each a JSON array of vectors (a single vector object is accepted too). */
export function loadVectors(files) {
  const out = [];
  for (const f of files) {
    const data = JSON.parse(readFileSync(f, 'utf8'));
    for (const v of Array.isArray(data) ? data : [data]) out.push({ file: f, vector: v });
  }
  return out;
}

export async function loadPackage(dir) {
  const pkgDir = resolve(dir ?? process.env.RESTARTKIT_WASM_PKG ?? join(dirname(fileURLToPath(import.meta.url)), 'pkg'));
  return import(pathToFileURL(join(pkgDir, 'index.node.mjs')).href);
}

async function main(argv) {
  const files = argv.filter((a) => a !== '--');
  if (files.length === 0 || files.some((a) => a === '-h' || a === '--help')) {
    console.error('usage: node wasm/conformance.mjs FILE...');
    return 2;
  }
  let vectors;
  try {
    vectors = loadVectors(files);
  } catch (e) {
    console.error(`error: ${e.message}`);
    return 2;
  }
  const m = await loadPackage();
  let passed = 0;
  let failed = 0;
  for (const { vector } of vectors) {
    let why;
    try {
      why = runVector(m, vector);
    } catch (e) {
      why = `threw ${e.name}: ${e.message}`;
    }
    if (why === null) {
      passed++;
    } else {
      failed++;
      console.log(`FAIL ${vector?.id ?? '(no id)'}: ${why}`);
    }
  }
  console.log(`${passed} passed, ${failed} failed`);
  return failed > 0 ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = await main(process.argv.slice(2));
}
