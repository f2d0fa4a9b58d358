// Splits the package's module in two with binaryen's wasm-split, guided by a profile: the functions
// that the first-load work (training.mjs) runs stay in the primary module (the first-load part);
// everything else (the simulator, sweeps, rarely taken paths) goes to the secondary module (the
// on-demand part), which the primary reaches through its function table. Until the secondary is
// linked, those table slots hold placeholder imports (namespace PLACEHOLDERS), which the glue
// answers by linking it (build.mjs adds that code to wasm-bindgen's glue).
//
// wasm-split is Debian's binaryen 108 (npm's binaryen has no wasm-split). Its reader mixes up the
// indices of exported tables when a module has two (wasm-bindgen's funcref table and externref
// table), so fixTableExports() repairs the table exports of what it writes (wasm/README.md, "One
// module in two parts").
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { attempt, firstCalls, train } from './training.mjs';

// Names that the two parts carry hundreds of times each (one import or export per function that
// crosses between them), so short ones: the placeholders' import module, the module name under
// which the on-demand part imports the first-load part's exports, and the prefix of those exports
// (wasm-bindgen's own names never start with it).
export const PLACEHOLDERS = 'p';
export const PRIMARY = 'r';
export const EXPORT_PREFIX = '%';
// The features rustc's wasm32-unknown-unknown target turns on; binaryen 108's --all-features would
// add GC and write the externref table as anyref.
const FEATURES = ['--enable-bulk-memory', '--enable-sign-ext', '--enable-nontrapping-float-to-int',
  '--enable-mutable-globals', '--enable-multivalue', '--enable-reference-types'];

// ---- a minimal reader/writer of the sections this needs (import, table, export)
export function readU32(b, pos) {
  let result = 0;
  let shift = 0;
  for (;;) {
    const byte = b[pos.i++];
    result |= (byte & 0x7f) << shift;
    if (!(byte & 0x80)) return result >>> 0;
    shift += 7;
  }
}
export function u32(n) {
  const out = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n) byte |= 0x80;
    out.push(byte);
  } while (n);
  return out;
}
export const readName = (b, pos) => {
  const len = readU32(b, pos);
  const s = Buffer.from(b.subarray(pos.i, pos.i + len)).toString('utf8');
  pos.i += len;
  return s;
};
const skipLimits = (b, pos) => {
  const flags = b[pos.i++];
  readU32(b, pos);
  if (flags & 1) readU32(b, pos);
};
export function sections(b) {
  if (b.readUInt32LE(0) !== 0x6d736100) throw new Error('not a WebAssembly module');
  const out = [];
  const pos = { i: 8 };
  while (pos.i < b.length) {
    const hdr = pos.i;
    const id = b[pos.i++];
    const size = readU32(b, pos);
    out.push({ id, hdr, start: pos.i, end: pos.i + size });
    pos.i += size;
  }
  return out;
}

/** The module's tables (imported first) as reference type bytes (0x70 funcref, 0x6f externref),
 * and its imports of tables as {module, name, type}. */
function tablesOf(b) {
  const types = [];
  const tableImports = [];
  for (const s of sections(b)) {
    const pos = { i: s.start };
    if (s.id === 2) {
      for (let n = readU32(b, pos); n > 0; n--) {
        const module = readName(b, pos);
        const name = readName(b, pos);
        const kind = b[pos.i++];
        if (kind === 0) readU32(b, pos);
        else if (kind === 1) { const type = b[pos.i++]; skipLimits(b, pos); types.push(type); tableImports.push({ module, name, type }); }
        else if (kind === 2) skipLimits(b, pos);
        else if (kind === 3) pos.i += 2;
        else throw new Error(`import kind ${kind} not expected in this module`);
      }
    } else if (s.id === 4) {
      for (let n = readU32(b, pos); n > 0; n--) {
        if (b[pos.i] === 0x40) throw new Error('tables with initialisers are not expected in this module');
        types.push(b[pos.i++]);
        skipLimits(b, pos);
      }
    }
  }
  return { types, tableImports };
}

/**
 * Rewrites the export section so that each table export in `want` ({name: reftype}) names the
 * module's only table of that reference type (adding the export when missing). Returns the new bytes.
 */
export function fixTableExports(bytes, want) {
  const b = Buffer.from(bytes);
  const { types } = tablesOf(b);
  const indexOf = (type) => {
    const found = types.flatMap((t, i) => (t === type ? [i] : []));
    if (found.length !== 1) throw new Error(`expected one table of type 0x${type.toString(16)}, found ${found.length}`);
    return found[0];
  };
  const exp = sections(b).find((s) => s.id === 7);
  if (!exp) throw new Error('the module has no exports');
  const pos = { i: exp.start };
  const entries = [];
  for (let n = readU32(b, pos); n > 0; n--) {
    const name = readName(b, pos);
    const kind = b[pos.i++];
    const index = readU32(b, pos);
    entries.push({ name, kind, index });
  }
  const missing = new Set(Object.keys(want));
  for (const e of entries) {
    if (e.kind === 1 && e.name in want) {
      e.index = indexOf(want[e.name]);
      missing.delete(e.name);
    }
  }
  for (const name of missing) entries.push({ name, kind: 1, index: indexOf(want[name]) });
  const body = [...u32(entries.length)];
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    body.push(...u32(name.length), ...name, e.kind, ...u32(e.index));
  }
  return Buffer.concat([b.subarray(0, exp.hdr), Buffer.from([7, ...u32(body.length), ...body]), b.subarray(exp.end)]);
}

/**
 * Splits `wasmPath` (wasm-bindgen's module, optimised) into `primaryPath` and `secondaryPath`.
 * `glue` is the wasm-bindgen web glue (restartkit_wasm.js) of that module, used to run the training
 * work on an instrumented copy. Returns {functions, kept} for the build's report.
 */
export async function splitModule({ wasmPath, glue, primaryPath, secondaryPath, workDir }) {
  const externrefs = { __wbindgen_externrefs: 0x6f };
  const instrumented = join(workDir, 'instrumented.wasm');
  execFileSync('wasm-split', [...FEATURES, '--instrument', wasmPath, '-o', instrumented], { stdio: 'inherit' });
  writeFileSync(instrumented, fixTableExports(readFileSync(instrumented), externrefs));

  // The training run, on the instrumented module; its profile records which functions ran. Then
  // each possible first call on a fresh instance (training.mjs), each with a profile of its own;
  // wasm-split keeps what any of them ran.
  const g = await import(`${pathToFileURL(glue).href}?instrumented`);
  g.initSync({ module: readFileSync(instrumented) });
  const profiles = [];
  const writeProfile = () => {
    const wasm = g.__rkExports();
    const size = 1 << 20;
    const ptr = wasm.__wbindgen_malloc(size, 1);
    const len = wasm.__write_profile(ptr, size);
    const file = join(workDir, `run-${profiles.length}.prof`);
    writeFileSync(file, new Uint8Array(wasm.memory.buffer, ptr, len));
    profiles.push(file);
  };
  train(g);
  writeProfile();
  for (const call of firstCalls(g)) {
    g.__wbg_reset_state();
    attempt(call);
    writeProfile();
  }
  const profile = join(workDir, 'first-load.prof');
  execFileSync('wasm-split', ['--merge-profiles', ...profiles, '-o', profile], { stdio: 'inherit' });
  if (process.env.RESTARTKIT_WASM_NAMES === '1') {
    // Kept for tools/wasm_first_load.mjs: the named module and which of its functions the profile keeps.
    const keep = join(tmpdir(), 'restartkit-wasm-names');
    mkdirSync(keep, { recursive: true });
    copyFileSync(wasmPath, join(keep, 'module.wasm'));
    copyFileSync(profile, join(keep, 'first-load.prof'));
  }
  const timestamps = readFileSync(profile).subarray(8);
  const functions = timestamps.length / 4;
  let kept = 0;
  for (let i = 0; i < functions; i++) if (timestamps.readUInt32LE(4 * i) !== 0) kept++;

  execFileSync('wasm-split', [...FEATURES, '--profile', profile, wasmPath, '-o1', primaryPath, '-o2', secondaryPath,
    `--export-prefix=${EXPORT_PREFIX}`, `--placeholder-namespace=${PLACEHOLDERS}`, `--import-namespace=${PRIMARY}`], { stdio: 'inherit' });
  // The primary must export every table the secondary imports from it, each the right one.
  const wanted = Object.fromEntries(tablesOf(readFileSync(secondaryPath)).tableImports.filter((t) => t.module === PRIMARY).map((t) => [t.name, t.type]));
  writeFileSync(primaryPath, fixTableExports(readFileSync(primaryPath), wanted));
  return { functions, kept };
}
