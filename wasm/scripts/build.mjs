#!/usr/bin/env node
// Builds the npm package restartkit-wasm into wasm/pkg (or $RESTARTKIT_WASM_PKG):
//   cargo (wasm32-unknown-unknown) -> wasm-bindgen (web + nodejs glue, one shared .wasm)
//   -> wasm-opt -Oz (npm binaryen) -> the module split into a first-load and an on-demand part
//   (split.mjs; wasm-split from Debian's binaryen) -> entry points for browser ESM, Node ESM and Node CJS,
//   package.json with `exports`, .d.ts (the contract types come from build.rs, generated from
//   the core's JSON Schemas), schemas.js (the same JSON Schemas, kept out of the module).
// Tools are installed by mk/wasm.mk. Env: CARGO_TARGET_DIR, RESTARTKIT_WASM_OPT=0 to skip wasm-opt,
// RESTARTKIT_WASM_NAMES=1 to keep the function names (for tools/wasm_first_load.mjs; not shipped).
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { EXPORT_PREFIX, PLACEHOLDERS, PRIMARY, splitModule } from './split.mjs';
import { moveOnDemandData, readRelocations, withoutRelocations } from './data-split.mjs';
import { setEditorSchemas } from './training.mjs';
import { OPS, WRAPPERS } from './ops.mjs';

// The core types whose schemas complete() hands to the module (the core's SCHEMA_NAMES).
const EDITOR_SCHEMA_NAMES = ['Pod', 'Job', 'JobSet', 'KubeletConfiguration', 'ContainerRecreateRequest'];

const here = dirname(fileURLToPath(import.meta.url));
const wasmDir = resolve(here, '..');
const root = resolve(wasmDir, '..');
const pkg = resolve(process.env.RESTARTKIT_WASM_PKG ?? join(wasmDir, 'pkg'));
const t0 = Date.now();
const lap = (what) => console.error(`  ${what}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);

// ---- 1. cargo
// A dedicated profile: size-optimised, fat LTO, one codegen unit. Passed with --config so the
// root Cargo.toml stays as it is.
const profile = 'wasm-release';
const cargoArgs = [
  'rustc', '--locked', '-p', 'restartkit-wasm', '--lib', '--target', 'wasm32-unknown-unknown', '--profile', profile,
  '--config', `profile.${profile}.inherits="release"`,
  '--config', `profile.${profile}.opt-level="z"`,
  '--config', `profile.${profile}.lto=true`,
  '--config', `profile.${profile}.codegen-units=1`,
  '--config', `profile.${profile}.panic="abort"`,
  '--message-format=json-render-diagnostics',
];
/** Builds the module (extra cargo args: features) and returns its path and build.rs's OUT_DIR. */
function cargoBuild(extra) {
  // `cargo rustc` passes what follows `--` to the crate's own link only: wasm-ld keeps its
  // relocations in the module (--emit-relocs), which data-split.mjs reads to know which constants
  // the first-load part's code can reach.
  const cargo = spawnSync('cargo', [...cargoArgs, ...extra, '--', '-C', 'link-arg=--emit-relocs'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 28 });
  if (cargo.status !== 0) process.exit(cargo.status ?? 1);
  let file = null;
  let dir = null;
  for (const line of cargo.stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    const m = JSON.parse(line);
    const id = String(m.package_id ?? '');
    if (!/#restartkit-wasm@/.test(id) && !id.startsWith('restartkit-wasm ')) continue;
    if (m.reason === 'compiler-artifact') file = m.filenames?.find((f) => f.endsWith('.wasm')) ?? file;
    if (m.reason === 'build-script-executed') dir = m.out_dir;
  }
  if (!file || !dir) throw new Error(`cargo did not report the module or build.rs's OUT_DIR (module ${file}, out ${dir})`);
  return { file, dir };
}
const { file: linkedFile, dir: outDir } = cargoBuild([]);
const linked = readRelocations(readFileSync(linkedFile));
// wasm-bindgen reads the module without the relocations (they describe the module as linked, which
// wasm-bindgen and wasm-opt rewrite; only its data keeps its addresses, see data-split.mjs).
const relocDir = mkdtempSync(join(tmpdir(), 'restartkit-linked-'));
const wasmFile = join(relocDir, 'restartkit_wasm.wasm');
writeFileSync(wasmFile, withoutRelocations(readFileSync(linkedFile)));
lap('cargo build');

// ---- 2. wasm-bindgen: web glue (ESM, browser + Node ESM) and nodejs glue (CJS) share one .wasm.
rmSync(pkg, { recursive: true, force: true });
mkdirSync(pkg, { recursive: true });
const bindgen = (target, dir) =>
  execFileSync('wasm-bindgen', ['--target', target, '--out-dir', join(pkg, dir), '--experimental-reset-state-function', wasmFile], { stdio: 'inherit' });
bindgen('web', 'web');
bindgen('nodejs', 'cjs');
const wasmPath = join(pkg, 'web', 'restartkit_wasm_bg.wasm');
const cjsWasm = join(pkg, 'cjs', 'restartkit_wasm_bg.wasm');
if (!readFileSync(wasmPath).equals(readFileSync(cjsWasm))) {
  throw new Error('wasm-bindgen wrote different modules for the web and nodejs targets; they can no longer share one');
}
rmSync(cjsWasm);
rmSync(join(pkg, 'cjs', 'restartkit_wasm_bg.wasm.d.ts'));
const cjsGlue = join(pkg, 'cjs', 'restartkit_wasm.js');
const glue = readFileSync(cjsGlue, 'utf8');
const needle = '`${__dirname}/restartkit_wasm_bg.wasm`';
if (!glue.includes(needle)) throw new Error('the nodejs glue no longer names its module as expected');
writeFileSync(cjsGlue, glue.replace(needle, "require('path').join(__dirname, '..', 'web', 'restartkit_wasm_bg.wasm')"));
// The CJS glue's folder must read as CommonJS: the package is "type": "module".
writeFileSync(join(pkg, 'cjs', 'package.json'), '{ "type": "commonjs" }\n');
const rawSize = statSync(wasmPath).size;
lap('wasm-bindgen');

// ---- 3. wasm-opt (npm binaryen), in place; RESTARTKIT_WASM_OPT=0 leaves the module as it is.
// -Oz inlines every function that has one caller, however large: the entry points of on-demand
// work (one caller each, in contract::answer: the Kubeflow Trainer's build, the simulator and
// sweeps, the upgrade check, proposals, the conformance ops) would land in answer, which the first
// view runs, and so in the first-load part. --no-inline keeps their functions out of their callers
// (matched by name: the first run's input still has wasm-bindgen's name section).
const NO_INLINE = ['trainer', 'simulate', 'sweep', 'upgrade', 'proposals', 'conformance'].map((m) => `restartkit::${m}::*`);
// And -Oz inlines any function with one caller, of any size: the op table's dispatcher (one arm per
// op, each decoding and encoding its own types) became one 146 KiB function in the first-load part,
// every op's decoding with it. Inlining only small single-caller functions keeps each op's code a
// function of its own, which the split places by what the first view runs (first-load part
// 502.8 -> 414.8 KiB gzipped; the whole module 922.8 -> 832.5 KiB gzipped; 50 measured best of
// 0, 50, 100, 200, 1000 and unlimited, tools/wasm_first_load.mjs shows where the bytes are).
const ONE_CALLER_INLINE_MAX = 50;
const optimise = process.env.RESTARTKIT_WASM_OPT === '0' ? () => {} : (path) => {
  execFileSync(join(wasmDir, 'node_modules', '.bin', 'wasm-opt'), [...NO_INLINE.map((p) => `--no-inline=${p}`), `-ocimfs=${ONE_CALLER_INLINE_MAX}`, '-Oz', ...(process.env.RESTARTKIT_WASM_NAMES === '1' ? ['-g'] : ['--strip-debug']), '--strip-producers', path, '-o', `${path}.opt`], { stdio: 'inherit' });
  renameSync(`${path}.opt`, path);
};
optimise(wasmPath);
lap('wasm-opt');
const wholeSize = statSync(wasmPath).size;
const wholeGz = gzipSync(readFileSync(wasmPath), { level: 9 }).length;

// ---- 3b. the split: the glue learns to link the on-demand part, then split.mjs cuts the module
// into the first-load part (web/restartkit_wasm_bg.wasm, the name the glue loads) and the
// on-demand part (web/restartkit_wasm_lazy.wasm).
const lazyPath = join(pkg, 'web', 'restartkit_wasm_lazy.wasm');
const linkCode = (exportLine) => `
// ---- added by wasm/scripts/build.mjs: the module is split in two (wasm/scripts/split.mjs). Calls
// into the on-demand part go through the function table, whose slots hold these placeholders until
// that part is linked; the first placeholder called links it (the entry's loader gives the compiled
// module synchronously, or throws when it cannot yet) and makes the call. A new instance
// (__wbg_reset_state) starts unlinked and links again on first use.
let __rk_lazy_loader = null;
let __rk_linked_to = null;
function __rk_link() {
  if (__rk_linked_to === wasm) return;
  if (__rk_lazy_loader === null) throw new Error('restartkit-wasm: the on-demand part of the module has no loader');
  new WebAssembly.Instance(__rk_lazy_loader(), { ${JSON.stringify(PRIMARY)}: wasm });
  __rk_linked_to = wasm;
}
const __rk_placeholders = new Proxy({}, {
  get(_, slot) {
    const index = Number(slot);
    return function (...args) {
      try {
        __rk_link();
      } catch (e) {
        // Marked so that the entry's guard knows the call stopped inside the module.
        if (e !== null && typeof e === 'object') e.restartkitOnDemandPart = true;
        throw e;
      }
      return wasm[${JSON.stringify(`${EXPORT_PREFIX}table`)}].get(index)(...args);
    };
  },
});
${exportLine}
`;
for (const [glueFile, exportLine] of [
  [join(pkg, 'web', 'restartkit_wasm.js'), 'export function __rkSetLazyLoader(loader) { __rk_lazy_loader = loader; }\n// The current instance\'s exports (the build\'s training run reads its profile from them).\nexport function __rkExports() { return wasm; }'],
  [cjsGlue, 'exports.__rkSetLazyLoader = function (loader) { __rk_lazy_loader = loader; };\nexports.__rkExports = function () { return wasm; };'],
]) {
  let text = readFileSync(glueFile, 'utf8');
  const at = text.indexOf('function __wbg_get_imports() {');
  const ret = text.indexOf('"./restartkit_wasm_bg.js": import0,', at);
  if (at < 0 || ret < 0) throw new Error(`${glueFile}: wasm-bindgen's imports no longer look as expected`);
  text = `${text.slice(0, ret)}${JSON.stringify(PLACEHOLDERS)}: __rk_placeholders,\n        ${text.slice(ret)}`;
  text = `${text.slice(0, at)}${linkCode(exportLine)}\n${text.slice(at)}`;
  writeFileSync(glueFile, text);
}
// The training run completes as the playground does, with the schemas the package ships.
const allSchemas = JSON.parse(readFileSync(join(outDir, 'schemas.json'), 'utf8'));
setEditorSchemas(JSON.stringify(Object.fromEntries(EDITOR_SCHEMA_NAMES.map((n) => [n, allSchemas[n]]))));
const splitDir = mkdtempSync(join(tmpdir(), 'restartkit-split-'));
const split = await splitModule({
  wasmPath, glue: join(pkg, 'web', 'restartkit_wasm.js'),
  primaryPath: join(splitDir, 'primary.wasm'), secondaryPath: lazyPath, workDir: splitDir,
});
renameSync(join(splitDir, 'primary.wasm'), wasmPath);
rmSync(splitDir, { recursive: true, force: true });
// wasm-split writes both parts unoptimised; binaryen 132 leaves the exported table and the
// imports and exports that link the parts as they are.
optimise(wasmPath);
optimise(lazyPath);
// The constants only the on-demand part's code reads go with it (data-split.mjs).
const dataMove = moveOnDemandData({ primary: readFileSync(wasmPath), secondary: readFileSync(lazyPath), linked });
writeFileSync(wasmPath, dataMove.primary);
writeFileSync(lazyPath, dataMove.secondary);
rmSync(relocDir, { recursive: true, force: true });
lap(`split (${split.kept} of ${split.functions} functions and ${((linked.rodata.end - linked.rodata.start - dataMove.movedBytes) / 1024).toFixed(0)} of ${((linked.rodata.end - linked.rodata.start) / 1024).toFixed(0)} KiB of constants in the first-load part)`);

// ---- 4. JSON Schemas (build.rs wrote them) as a JS module, outside the wasm (complete() hands the
// core types' ones to the module: EDITOR_SCHEMA_NAMES, restartkit::editor::complete::SCHEMA_NAMES)
const schemasJson = JSON.stringify(JSON.parse(readFileSync(join(outDir, 'schemas.json'), 'utf8')));
writeFileSync(join(pkg, 'schemas.js'), `// Generated from restartkit::contract::json_schemas(). Do not edit.\nexport default ${JSON.stringify(schemasJson)};\n`);
writeFileSync(join(pkg, 'schemas.cjs'), `// Generated from restartkit::contract::json_schemas(). Do not edit.\nmodule.exports = ${JSON.stringify(schemasJson)};\n`);

// ---- 5. entry points
// The names the glue exports, read from the CJS glue itself (so a new op shows up by itself).
const require = createRequire(import.meta.url);
const rawApi = require(cjsGlue);
const hidden = new Set(['__wbg_reset_state', '__takePanic', '__rkSetLazyLoader', '__rkExports', '__textFromBytes']);
const names = Object.keys(rawApi).filter((n) => !hidden.has(n)).sort();
const fnNames = names.filter((n) => n !== 'Policy');
// Every op of the core's table as a JS wrapper over \`call\` (scripts/ops.mjs, generated), but
// complete(), which passes the package's schemas (below).
const opNames = OPS.filter((n) => n !== 'complete' && !fnNames.includes(n));

// Behaviour shared by every entry: guard each call so that a trap (a Rust panic; the module is
// built with panic=abort) becomes a RestartkitError with code "panic" and a fresh instance, and so
// that a call that needs the on-demand part while it cannot be loaded synchronously (a browser's
// main thread, restartkit-wasm/core before loadFull()) becomes one with code "module-loading".
const common = `
class RestartkitError extends Error {
  constructor(message, fields = {}) {
    super(message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.name = 'RestartkitError';
    this.diagnostics = fields.diagnostics ?? [];
    const first = this.diagnostics[0] ?? {};
    this.field = fields.field ?? first.field ?? null;
    this.type = fields.type ?? first.type ?? null;
    this.line = fields.line ?? first.line ?? null;
    this.column = fields.column ?? first.column ?? null;
    this.code = fields.code ?? first.code ?? null;
    this.op = fields.op ?? null;
  }
  // Errors made inside the module are plain Errors named RestartkitError with the same fields.
  static [Symbol.hasInstance](v) {
    return v instanceof Error && v.name === 'RestartkitError';
  }
}

function panicError(e) {
  let detail = null;
  try { detail = raw.__takePanic() ?? null; } catch { /* the instance is gone */ }
  try { raw.__wbg_reset_state(); } catch { /* nothing more to do */ }
  const message = 'restartkit panicked: ' + (detail ?? e.message);
  const diagnostic = { severity: 'error', field: '', type: null, message, origin: 'restartkit', code: 'panic' };
  return new RestartkitError(message, { diagnostics: [diagnostic], code: 'panic', cause: e });
}

// Thrown by the lazy loader, through the module, when the on-demand part is still being fetched.
class LazyPartPending extends Error {}

function loadingError(e) {
  // The call was cut short inside the module (its stack and any state it held are abandoned):
  // start again from a fresh instance, as after a panic.
  try { raw.__wbg_reset_state(); } catch { /* nothing more to do */ }
  const message = 'restartkit-wasm: this call needs the part of the module that loads on demand, and it is loading now: await loadFull(), then call again';
  const diagnostic = { severity: 'error', field: '', type: null, message, origin: 'restartkit', code: 'module-loading' };
  return new RestartkitError(message, { diagnostics: [diagnostic], code: 'module-loading', cause: e });
}

function loadFailedError(e) {
  try { raw.__wbg_reset_state(); } catch { /* nothing more to do */ }
  const message = \`restartkit-wasm: the part of the module that loads on demand could not be loaded: \${e?.message ?? e}\`;
  const diagnostic = { severity: 'error', field: '', type: null, message, origin: 'restartkit', code: 'module-load-failed' };
  return new RestartkitError(message, { diagnostics: [diagnostic], code: 'module-load-failed', cause: e });
}

function failure(e) {
  if (e instanceof WebAssembly.RuntimeError) return panicError(e);
  if (e instanceof LazyPartPending) return loadingError(e);
  if (e?.restartkitOnDemandPart) return loadFailedError(e);
  return null;
}

function guard(fn) {
  return function (...args) {
    try {
      return fn.apply(this, args);
    } catch (e) {
      throw failure(e) ?? e;
    }
  };
}

// handleJson and request never throw: a panic becomes an error response.
function guardResponse(fn, asText) {
  return function (...args) {
    try {
      return fn.apply(this, args);
    } catch (e) {
      const err = failure(e);
      if (err === null) throw e;
      const resp = { status: 'error', errors: err.diagnostics };
      return asText ? JSON.stringify(resp) : resp;
    }
  };
}

for (const key of Object.getOwnPropertyNames(raw.Policy.prototype)) {
  const d = Object.getOwnPropertyDescriptor(raw.Policy.prototype, key);
  if (key === 'constructor' || key === 'free' || key.startsWith('__')) continue;
  if (typeof d.value === 'function') d.value = guard(d.value);
  if (typeof d.get === 'function') d.get = guard(d.get);
  Object.defineProperty(raw.Policy.prototype, key, d);
}

function schemas() {
  return JSON.parse(SCHEMAS_JSON);
}

// The runtime of the generated op wrappers (scripts/ops.mjs, from the core's op table): the
// positional arguments as their kinds say, the options merged in, one \`call\`.
const callOp = guard(raw.call);
const textFromBytes = guard(raw.__textFromBytes);
// (not named parseDocuments: the entry exports that name from the glue's own list)
const parseDocs = guard(raw.parseDocuments);
function inputError(field, message) {
  const diagnostic = { severity: 'error', field, type: null, message: \`\${field}: \${message}\`, origin: 'restartkit', code: 'invalid-input' };
  return new RestartkitError(diagnostic.message, { diagnostics: [diagnostic], code: 'invalid-input' });
}
function textOf(v) {
  return typeof v === 'string' ? v : v instanceof Uint8Array ? textFromBytes(v) : null;
}
function objectArg(v, member) {
  const text = textOf(v);
  if (text === null) return v;
  const docs = parseDocs(text);
  if (docs.length === 0) throw inputError(member, 'the text holds no document');
  return docs[0].value;
}
const rt = {
  op(op, args, opts, textMembers) {
    if (opts != null && (typeof opts !== 'object' || Array.isArray(opts))) throw inputError(args.length ? 'opts' : 'input', 'must be an object');
    const input = {};
    for (const [k, v] of Object.entries(opts ?? {})) {
      if (v !== undefined) input[k] = textMembers.includes(k) ? objectArg(v, k) : v;
    }
    for (const [member, kind, value] of args) {
      if (kind === 'objectOrText') {
        const text = textOf(value);
        if (text !== null) input.source = text;
        else input[member] = value;
      } else if (kind === 'object') input[member] = objectArg(value, member);
      else if (kind === 'objects') {
        if (value == null || typeof value[Symbol.iterator] !== 'function') throw inputError(member, 'must be a list of objects');
        input[member] = Array.from(value, (o) => objectArg(o, member));
      } else if (kind === 'int32') {
        // As @restartkit/node checks it: the field named, before the core's serde message.
        if (!Number.isInteger(value) || value < -2147483648 || value > 2147483647) throw inputError(member, \`\${String(value)} is not an int32 exit code\`);
        input[member] = value;
      } else input[member] = value;
    }
    return callOp(op, input);
  },
};
const ops = (${WRAPPERS})(rt);

function check(objOrText, opts) {
  const out = ops.validate(objOrText, opts);
  if (out.valid === false) {
    const errors = out.errors ?? [];
    const message = (errors[0]?.message ?? 'restartkit: request failed') + (errors.length > 1 ? \` (and \${errors.length - 1} more)\` : '');
    throw new RestartkitError(message, { diagnostics: errors, code: 'invalid', op: 'validate' });
  }
  return out;
}

// The core types' schemas the completer reads, as one JSON text, made on first use.
const EDITOR_SCHEMA_NAMES = ${JSON.stringify(EDITOR_SCHEMA_NAMES)};
let editorSchemas = null;
const completeWith = guard(raw.__completeWith);
function complete(source, line, column) {
  editorSchemas ??= JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(SCHEMAS_JSON)).filter(([k]) => EDITOR_SCHEMA_NAMES.includes(k))));
  return completeWith(source, line, column, editorSchemas);
}
`;
const wrap = (n) => (n === 'handleJson' ? `guardResponse(raw.${n}, true)` : n === 'request' ? `guardResponse(raw.${n}, false)` : `guard(raw.${n})`);
const esmExports = [
  ...fnNames.map((n) => `export const ${n} = ${wrap(n)};`),
  ...opNames.map((n) => `export const ${n} = ops.${n};`),
  `export const OPS = Object.freeze(${JSON.stringify(OPS)});`,
  'export const Policy = raw.Policy;',
  'export { RestartkitError, schemas, complete, check };',
].join('\n');
const cjsExports = [
  ...fnNames.map((n) => `exports.${n} = ${wrap(n)};`),
  ...opNames.map((n) => `exports.${n} = ops.${n};`),
  `exports.OPS = Object.freeze(${JSON.stringify(OPS)});`,
  'exports.check = check;',
  'exports.Policy = raw.Policy;',
  'exports.RestartkitError = RestartkitError;',
  'exports.schemas = schemas;',
  'exports.complete = complete;',
].join('\n');
const banner = '// restartkit-wasm entry point, generated by wasm/scripts/build.mjs. Do not edit.\n';

// The loaders of the on-demand part. Node reads it from disk when first needed. The main browser
// entry fetches both parts at import. restartkit-wasm/core fetches only the first-load part: in a
// worker the on-demand part is fetched synchronously when first needed; on a page's main thread
// (where only small modules may be compiled synchronously) loadFull() fetches it, and a call that
// needs it before then fails with code "module-loading" and starts the fetch.
const lazyFile = 'restartkit_wasm_lazy.wasm';
const browserLazy = `
const lazyUrl = new URL('./web/${lazyFile}', import.meta.url);
async function compileLazy() {
  const response = await fetch(lazyUrl);
  if (!response.ok) throw new Error(\`restartkit-wasm: \${lazyUrl} answered \${response.status}\`);
  // compileStreaming needs the application/wasm type, which not every static host sends.
  try {
    return await WebAssembly.compileStreaming(response.clone());
  } catch {
    return WebAssembly.compile(await response.arrayBuffer());
  }
}
`;
const fullBrowserEntry = `${banner}import init, * as raw from './web/restartkit_wasm.js';
import SCHEMAS_JSON from './schemas.js';
${browserLazy}
// A second part that cannot be fetched does not stop the import: the ops that need it fail with
// module-load-failed (naming it), the rest answer.
const [, lazyModule] = await Promise.all([
  init({ module_or_path: new URL('./web/restartkit_wasm_bg.wasm', import.meta.url) }),
  compileLazy().catch((e) => e),
]);
raw.__rkSetLazyLoader(() => {
  if (lazyModule instanceof Error) throw lazyModule;
  return lazyModule;
});
${common}
/** Resolves once every op can run; in this entry, at once. */
async function loadFull() {}
${esmExports}
export { loadFull };
`;
const coreBrowserEntry = `${banner}import init, * as raw from './web/restartkit_wasm.js';
import SCHEMAS_JSON from './schemas.js';
${browserLazy}
await init({ module_or_path: new URL('./web/restartkit_wasm_bg.wasm', import.meta.url) });
${common}
let lazyModule = null;
let lazyLoading = null;
/** Fetches and compiles the on-demand part (once); resolves when every op can run. */
function loadFull() {
  lazyLoading ??= compileLazy().then(
    (m) => { lazyModule = m; },
    (e) => { lazyLoading = null; throw e; },
  );
  return lazyLoading;
}
const inWorker = typeof WorkerGlobalScope !== 'undefined' && globalThis instanceof WorkerGlobalScope;
raw.__rkSetLazyLoader(() => {
  if (lazyModule !== null) return lazyModule;
  if (inWorker) {
    const xhr = new XMLHttpRequest();
    xhr.open('GET', lazyUrl, false);
    xhr.responseType = 'arraybuffer';
    xhr.send();
    if (xhr.status !== 200 && xhr.status !== 0) throw new Error(\`restartkit-wasm: \${lazyUrl} answered \${xhr.status}\`);
    lazyModule = new WebAssembly.Module(xhr.response);
    return lazyModule;
  }
  loadFull().catch(() => { /* reported by the next call's loadFull() */ });
  throw new LazyPartPending();
});
${esmExports}
export { loadFull };
`;
writeFileSync(join(pkg, 'index.browser.js'), fullBrowserEntry);
writeFileSync(join(pkg, 'core.browser.js'), coreBrowserEntry);
writeFileSync(join(pkg, 'index.node.mjs'), `${banner}import { readFileSync } from 'node:fs';
import * as raw from './web/restartkit_wasm.js';
import SCHEMAS_JSON from './schemas.js';

raw.initSync({ module: readFileSync(new URL('./web/restartkit_wasm_bg.wasm', import.meta.url)) });
let lazyModule = null;
raw.__rkSetLazyLoader(() => (lazyModule ??= new WebAssembly.Module(readFileSync(new URL('./web/${lazyFile}', import.meta.url)))));
${common}
/** Resolves once every op can run; in Node, at once (the on-demand part is read when first needed). */
async function loadFull() {}
${esmExports}
export { loadFull };
`);
writeFileSync(join(pkg, 'index.cjs'), `${banner}'use strict';
const raw = require('./cjs/restartkit_wasm.js');
const SCHEMAS_JSON = require('./schemas.cjs');
let lazyModule = null;
raw.__rkSetLazyLoader(() => (lazyModule ??= new WebAssembly.Module(require('fs').readFileSync(require('path').join(__dirname, 'web', '${lazyFile}')))));
${common}
/** Resolves once every op can run; in Node, at once (the on-demand part is read when first needed). */
async function loadFull() {}
${cjsExports}
exports.loadFull = loadFull;
`);

// Declarations: wasm-bindgen's .d.ts (with the contract types generated by build.rs) limited to
// what the entries export.
// Names starting with `__` are test hooks without declarations.
const exported = [...fnNames.filter((n) => !n.startsWith('__')), ...opNames, 'OPS', 'check', 'Policy', 'RestartkitError', 'schemas', 'complete'].join(', ');
// Both read the nodejs glue's declarations: the web glue's add init() types that need the DOM lib.
const loadFullDecl = '/** Resolves once every op can run (restartkit-wasm/core in a browser: fetches the part of the module that loads on demand). */\nexport declare function loadFull(): Promise<void>;\n';
writeFileSync(join(pkg, 'index.d.ts'), `${banner}export type * from './cjs/restartkit_wasm.js';\nexport { ${exported} } from './cjs/restartkit_wasm.js';\n${loadFullDecl}`);
writeFileSync(join(pkg, 'index.d.cts'), `${banner}export type * from './cjs/restartkit_wasm.js';\nexport { ${exported} } from './cjs/restartkit_wasm.js';\n${loadFullDecl}`);

const version = execFileSync('cargo', ['pkgid', '-p', 'restartkit-wasm'], { cwd: root, encoding: 'utf8' }).trim().split(/[#@]/).pop();
const manifest = {
  name: 'restartkit-wasm',
  version,
  description: 'How Kubernetes restarts and fails containers, Pods, Jobs and JobSets, exactly as upstream: restartkit compiled to WebAssembly.',
  license: 'Apache-2.0',
  type: 'module',
  sideEffects: ['./index.browser.js', './index.node.mjs', './index.cjs'],
  exports: {
    '.': {
      browser: { types: './index.d.ts', default: './index.browser.js' },
      node: {
        import: { types: './index.d.ts', default: './index.node.mjs' },
        require: { types: './index.d.cts', default: './index.cjs' },
      },
      types: './index.d.ts',
      default: './index.browser.js',
    },
    './core': { types: './index.d.ts', default: './core.browser.js' },
    './restartkit_wasm_bg.wasm': './web/restartkit_wasm_bg.wasm',
    './restartkit_wasm_lazy.wasm': './web/restartkit_wasm_lazy.wasm',
    './package.json': './package.json',
  },
  main: './index.cjs',
  module: './index.browser.js',
  types: './index.d.ts',
  files: ['index.*', 'core.browser.js', 'schemas.*', 'web/', 'cjs/', 'README.md'],
  engines: { node: '>=18' },
};
writeFileSync(join(pkg, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
if (existsSync(join(wasmDir, 'README.md'))) cpSync(join(wasmDir, 'README.md'), join(pkg, 'README.md'));

const sizeOf = (p) => ({ bytes: statSync(p).size, gzip: gzipSync(readFileSync(p), { level: 9 }).length });
const first = sizeOf(wasmPath);
const lazy = sizeOf(lazyPath);
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
lap('package');
console.error(`restartkit-wasm ${version} -> ${pkg}`);
console.error(`  module: ${kib(rawSize)} after wasm-bindgen, ${kib(wholeSize)} optimised (${kib(wholeGz)} gzipped -9)`);
console.error(`  shipped split: first-load part ${kib(first.bytes)} (${kib(first.gzip)} gzipped), on-demand part ${kib(lazy.bytes)} (${kib(lazy.gzip)} gzipped)`);
writeFileSync(join(pkg, 'SIZES.txt'), [
  `first_load_bytes=${first.bytes}`, `first_load_gzip_bytes=${first.gzip}`,
  `on_demand_bytes=${lazy.bytes}`, `on_demand_gzip_bytes=${lazy.gzip}`,
  `unsplit_bytes=${wholeSize}`, `unsplit_gzip_bytes=${wholeGz}`,
  `module_before_wasm_opt_bytes=${rawSize}`, '',
].join('\n'));
