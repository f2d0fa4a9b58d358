#!/usr/bin/env node
// Builds the npm package restartkit-wasm into wasm/pkg (or $RESTARTKIT_WASM_PKG):
//   cargo (wasm32-unknown-unknown) -> wasm-bindgen (web + nodejs glue, one shared .wasm)
//   -> wasm-opt -Oz (npm binaryen) -> entry points for browser ESM, Node ESM and Node CJS,
//   package.json with `exports`, .d.ts (the contract types come from build.rs, generated from
//   the core's JSON Schemas), schemas.js (the same JSON Schemas, kept out of the module).
// Tools are installed by mk/wasm.mk. Env: CARGO_TARGET_DIR, RESTARTKIT_WASM_OPT=0 to skip wasm-opt.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

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
  'build', '--locked', '-p', 'restartkit-wasm', '--lib', '--target', 'wasm32-unknown-unknown', '--profile', profile,
  '--config', `profile.${profile}.inherits="release"`,
  '--config', `profile.${profile}.opt-level="z"`,
  '--config', `profile.${profile}.lto=true`,
  '--config', `profile.${profile}.codegen-units=1`,
  '--config', `profile.${profile}.panic="abort"`,
  '--message-format=json-render-diagnostics',
];
/** Builds the module (extra cargo args: features) and returns its path and build.rs's OUT_DIR. */
function cargoBuild(extra) {
  const cargo = spawnSync('cargo', [...cargoArgs, ...extra], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 28 });
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
// The core module (web-core/: everything but the simulator) is built first: the two builds
// share the output path, so the full one is copied out by wasm-bindgen before the other overwrites it.
const coreBuild = cargoBuild(['--no-default-features']);
const coreStash = `${coreBuild.file}.core`;
cpSync(coreBuild.file, coreStash);
const { file: wasmFile, dir: outDir } = cargoBuild([]);
lap('cargo build (core and full modules)');

// ---- 2. wasm-bindgen: web glue (ESM, browser + Node ESM) and nodejs glue (CJS) share one .wasm.
rmSync(pkg, { recursive: true, force: true });
mkdirSync(pkg, { recursive: true });
const bindgen = (target, dir) =>
  execFileSync('wasm-bindgen', ['--target', target, '--out-dir', join(pkg, dir), '--experimental-reset-state-function', wasmFile], { stdio: 'inherit' });
bindgen('web', 'web');
bindgen('nodejs', 'cjs');
execFileSync('wasm-bindgen', ['--target', 'web', '--out-dir', join(pkg, 'web-core'), '--out-name', 'restartkit_wasm', '--experimental-reset-state-function', coreStash], { stdio: 'inherit' });
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

// ---- 3. wasm-opt (npm binaryen)
const coreWasmPath = join(pkg, 'web-core', 'restartkit_wasm_bg.wasm');
if (process.env.RESTARTKIT_WASM_OPT !== '0') {
  const opt = join(wasmDir, 'node_modules', '.bin', 'wasm-opt');
  for (const p of [wasmPath, coreWasmPath]) {
    execFileSync(opt, ['-Oz', '--strip-debug', '--strip-producers', p, '-o', `${p}.opt`], { stdio: 'inherit' });
    renameSync(`${p}.opt`, p);
  }
  lap('wasm-opt');
}

// ---- 4. JSON Schemas (build.rs wrote them) as a JS module, outside the wasm
const schemasJson = JSON.stringify(JSON.parse(readFileSync(join(outDir, 'schemas.json'), 'utf8')));
writeFileSync(join(pkg, 'schemas.js'), `// Generated from restartkit::contract::json_schemas(). Do not edit.\nexport default ${JSON.stringify(schemasJson)};\n`);
writeFileSync(join(pkg, 'schemas.cjs'), `// Generated from restartkit::contract::json_schemas(). Do not edit.\nmodule.exports = ${JSON.stringify(schemasJson)};\n`);

// ---- 5. entry points
// The names the glue exports, read from the CJS glue itself (so a new op shows up by itself).
const require = createRequire(import.meta.url);
const rawApi = require(cjsGlue);
const hidden = new Set(['__wbg_reset_state', '__takePanic']);
const names = Object.keys(rawApi).filter((n) => !hidden.has(n)).sort();
const fnNames = names.filter((n) => n !== 'Policy');

// Behaviour shared by every entry: guard each call so that a trap (a Rust panic; the module is
// built with panic=abort) becomes a RestartkitError with code "panic" and a fresh instance.
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

function guard(fn) {
  return function (...args) {
    try {
      return fn.apply(this, args);
    } catch (e) {
      throw e instanceof WebAssembly.RuntimeError ? panicError(e) : e;
    }
  };
}

// handleJson and request never throw: a panic becomes an error response.
function guardResponse(fn, asText) {
  return function (...args) {
    try {
      return fn.apply(this, args);
    } catch (e) {
      if (!(e instanceof WebAssembly.RuntimeError)) throw e;
      const err = panicError(e);
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
`;
const wrap = (n) => (n === 'handleJson' ? `guardResponse(raw.${n}, true)` : n === 'request' ? `guardResponse(raw.${n}, false)` : `guard(raw.${n})`);
const esmExports = [
  ...fnNames.map((n) => `export const ${n} = ${wrap(n)};`),
  'export const Policy = raw.Policy;',
  'export { RestartkitError, schemas };',
].join('\n');
const cjsExports = [
  ...fnNames.map((n) => `exports.${n} = ${wrap(n)};`),
  'exports.Policy = raw.Policy;',
  'exports.RestartkitError = RestartkitError;',
  'exports.schemas = schemas;',
].join('\n');
const banner = '// restartkit-wasm entry point, generated by wasm/scripts/build.mjs. Do not edit.\n';

const browserEntry = (dir) => `${banner}import init, * as raw from './${dir}/restartkit_wasm.js';
import SCHEMAS_JSON from './schemas.js';

await init({ module_or_path: new URL('./${dir}/restartkit_wasm_bg.wasm', import.meta.url) });
${common}
${esmExports}
`;
writeFileSync(join(pkg, 'index.browser.js'), browserEntry('web'));
// restartkit-wasm/core: the same API on the module without the simulator (`simulate` answers
// with the error code op-not-built); a page that simulates imports the main entry when needed.
writeFileSync(join(pkg, 'core.browser.js'), browserEntry('web-core'));
writeFileSync(join(pkg, 'index.node.mjs'), `${banner}import { readFileSync } from 'node:fs';
import * as raw from './web/restartkit_wasm.js';
import SCHEMAS_JSON from './schemas.js';

raw.initSync({ module: readFileSync(new URL('./web/restartkit_wasm_bg.wasm', import.meta.url)) });
${common}
${esmExports}
`);
writeFileSync(join(pkg, 'index.cjs'), `${banner}'use strict';
const raw = require('./cjs/restartkit_wasm.js');
const SCHEMAS_JSON = require('./schemas.cjs');
${common}
${cjsExports}
`);

// Declarations: wasm-bindgen's .d.ts (with the contract types generated by build.rs) limited to
// what the entries export.
// Names starting with `__` are test hooks without declarations.
const exported = [...fnNames.filter((n) => !n.startsWith('__')), 'Policy', 'RestartkitError', 'schemas'].join(', ');
// Both read the nodejs glue's declarations: the web glue's add init() types that need the DOM lib.
writeFileSync(join(pkg, 'index.d.ts'), `${banner}export type * from './cjs/restartkit_wasm.js';\nexport { ${exported} } from './cjs/restartkit_wasm.js';\n`);
writeFileSync(join(pkg, 'index.d.cts'), `${banner}export type * from './cjs/restartkit_wasm.js';\nexport { ${exported} } from './cjs/restartkit_wasm.js';\n`);

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
    './package.json': './package.json',
  },
  main: './index.cjs',
  module: './index.browser.js',
  types: './index.d.ts',
  files: ['index.*', 'core.browser.js', 'schemas.*', 'web/', 'web-core/', 'cjs/', 'README.md'],
  engines: { node: '>=18' },
};
writeFileSync(join(pkg, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
if (existsSync(join(wasmDir, 'README.md'))) cpSync(join(wasmDir, 'README.md'), join(pkg, 'README.md'));

const size = statSync(wasmPath).size;
const gz = gzipSync(readFileSync(wasmPath), { level: 9 }).length;
const coreSize = statSync(coreWasmPath).size;
const coreGz = gzipSync(readFileSync(coreWasmPath), { level: 9 }).length;
lap('package');
console.error(`restartkit-wasm ${version} -> ${pkg}`);
console.error(`  module: ${(rawSize / 1024).toFixed(1)} KiB after wasm-bindgen, ${(size / 1024).toFixed(1)} KiB shipped, ${(gz / 1024).toFixed(1)} KiB gzipped (-9)`);
console.error(`  core module (no simulator): ${(coreSize / 1024).toFixed(1)} KiB, ${(coreGz / 1024).toFixed(1)} KiB gzipped (-9)`);
writeFileSync(join(pkg, 'SIZES.txt'), `module_bytes=${size}\nmodule_gzip_bytes=${gz}\nmodule_before_wasm_opt_bytes=${rawSize}\ncore_module_bytes=${coreSize}\ncore_module_gzip_bytes=${coreGz}\n`);
