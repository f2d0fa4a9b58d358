// The bad-input corpus (manifest.json) for the JavaScript front ends: the cases and their bytes,
// the expectation check, and a child-process runner so that a hang or a crash of the native or
// wasm module fails one case instead of the whole suite.
//
//   import { cases, runCase } from '../../conformance/bad-input/runner.mjs';
//   const r = runCase('node', '/abs/path/to/node/index.js', 'nan-yaml');   // {ok, why}
//
// As a script (the child): node runner.mjs <frontEnd> <module> <case> prints the diagnostics.
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
// Bounds a hang; it is not a speed target.
export const CASE_TIMEOUT_MS = 300_000;

export const cases = JSON.parse(readFileSync(join(here, 'manifest.json'), 'utf8')).cases;

export function caseBytes(c) {
  if (c.file) return new Uint8Array(readFileSync(join(here, c.file)));
  const chunks = [];
  for (const part of c.generate) {
    if (typeof part === 'string') chunks.push(Buffer.from(part, 'utf8'));
    else if (part.bytes) chunks.push(Buffer.from(part.bytes, 'hex'));
    else {
      const items = [];
      for (let i = 0; i < part.times; i++) items.push(part.repeat.replaceAll('{i}', String(i)));
      chunks.push(Buffer.from(items.join(part.separator ?? ''), 'utf8'));
    }
  }
  return new Uint8Array(Buffer.concat(chunks));
}

export function expected(c, frontEnd) {
  return c.frontEnds?.[frontEnd] ?? c.expect;
}

/** Null when some diagnostic has every expected key, else what went wrong. */
export function check(diags, want) {
  for (const d of diags) {
    if (typeof d.message !== 'string' || d.message.trim() === '') return `a diagnostic without a message: ${JSON.stringify(d)}`;
  }
  const hit = diags.some((d) => Object.entries(want).every(([k, v]) => d[k] === v));
  return hit ? null : `no diagnostic has ${JSON.stringify(want)}; got ${JSON.stringify(diags).slice(0, 2000)}`;
}

/** Runs case `name` through the front end in a child process; {ok, why}. */
export function runCase(frontEnd, modulePath, name) {
  const c = cases.find((x) => x.name === name);
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), frontEnd, modulePath, name], {
    timeout: CASE_TIMEOUT_MS,
    maxBuffer: 256 << 20,
    encoding: 'utf8',
  });
  if (r.error && r.error.code === 'ETIMEDOUT') return { ok: false, why: `no answer within ${CASE_TIMEOUT_MS} ms (a hang)` };
  if (r.status !== 0) return { ok: false, why: `the child exited with ${r.status ?? r.signal}: ${(r.stderr || '').slice(-2000)}` };
  let diags;
  try {
    diags = JSON.parse(r.stdout);
  } catch (e) {
    return { ok: false, why: `the child printed no JSON (${e.message}): ${r.stdout.slice(0, 500)} ${r.stderr.slice(-1000)}` };
  }
  const why = check(diags, expected(c, frontEnd));
  return { ok: why === null, why };
}

async function child(frontEnd, modulePath, name) {
  const mod = await import(pathToFileURL(modulePath).href);
  const rk = mod.validate ? mod : mod.default;
  const c = cases.find((x) => x.name === name);
  const bytes = caseBytes(c);
  let diags;
  if (c.input === 'request') {
    const resp = JSON.parse(rk.handleJson(new TextDecoder().decode(bytes)));
    diags = resp.status === 'error' ? resp.errors : resp.result.errors ?? [];
  } else {
    try {
      diags = rk.validate(bytes).errors;
    } catch (e) {
      // Only RestartkitError counts: a TypeError or a trap is not a clear error.
      if (e?.name !== 'RestartkitError') throw e;
      diags = e.diagnostics;
    }
  }
  process.stdout.write(JSON.stringify(diags));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [frontEnd, modulePath, name] = process.argv.slice(2);
  await child(frontEnd, modulePath, name);
}
