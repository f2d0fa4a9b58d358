#!/usr/bin/env node
// Builds the static playground into playground/dist, ready for any static host under any path
// (every URL in it is relative):
//   - src/app.js and src/worker.js bundled with esbuild (CodeMirror and the rest from npm), the
//     stylesheet too; file names carry a content hash, so a host may cache them forever;
//   - the browser part of the restartkit-wasm package (wasm/pkg, built by `make wasm`) in
//     dist/pkg-<hash>/ (the hash of its files: its own relative imports stay as they are);
//   - index.html (names rewritten to the hashed ones), examples/, and the simulator's scenarios
//     in dist/sim/ with the workload files they name and dist/sim/index.json.
// Prints the sizes; writes dist/build.json (file names and sizes, read by the tests).
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const here = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = resolve(process.env.RESTARTKIT_WASM_PKG ?? join(here, '..', 'wasm', 'pkg'));
const dist = resolve(process.argv[2] ?? join(here, 'dist'));
if (!existsSync(join(pkg, 'index.browser.js'))) throw new Error(`no restartkit-wasm package in ${pkg}: run \`make wasm\``);

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });

// ---- the wasm package, in a folder named by the hash of its content
// The browser entries (core.browser.js: the module's first-load part, the on-demand part fetched
// by loadFull(); index.browser.js: both at import) with their glue and the two parts, in web/.
const moduleFiles = readdirSync(join(pkg, 'web')).filter((f) => /\.(js|wasm)$/.test(f)).map((f) => `web/${f}`);
const browserFiles = ['index.browser.js', 'core.browser.js', 'schemas.js', 'package.json', ...moduleFiles];
for (const f of browserFiles) if (!existsSync(join(pkg, f))) throw new Error(`${pkg} has no ${f}: run \`make wasm\``);
const pkgHash = createHash('sha256');
for (const f of browserFiles.sort()) pkgHash.update(f).update(readFileSync(join(pkg, f)));
const pkgDir = `pkg-${pkgHash.digest('hex').slice(0, 10)}`;
for (const f of browserFiles) {
  mkdirSync(dirname(join(dist, pkgDir, f)), { recursive: true });
  cpSync(join(pkg, f), join(dist, pkgDir, f));
}

// The sources import the package as ./pkg/<file>; in dist it is ./pkg-<hash>/<file>, not bundled
// (its module is fetched next to its glue with new URL(..., import.meta.url)).
const pkgExternal = {
  name: 'restartkit-wasm-package',
  setup(b) {
    b.onResolve({ filter: /^\.\/pkg\// }, (args) => ({ path: args.path.replace(/^\.\/pkg\//, `./${pkgDir}/`), external: true }));
  },
};
// codemirror-json-schema, trimmed to what the playground uses (its YAML mode). Its markdown
// renderer (markdown-it + the shiki highlighter, about 140 KiB gzipped) becomes src/schema-markdown.js,
// and its JSON5 parser (the json5 and codemirror-json5 packages) a stub that refuses: JSON5 mode
// is never switched on here. The library's own code is used as published otherwise.
const schemaEditorTrim = {
  name: 'codemirror-json-schema-trim',
  setup(b) {
    const fromLibrary = (args) => /[\\/]codemirror-json-schema[\\/]dist[\\/]/.test(args.importer);
    b.onResolve({ filter: /^\.\.\/utils\/markdown(\.js)?$/ }, (args) =>
      (fromLibrary(args) ? { path: join(here, 'src', 'schema-markdown.js') } : undefined));
    b.onResolve({ filter: /^\.\/json5-parser(\.js)?$/ }, (args) =>
      (fromLibrary(args) ? { path: 'json5-parser', namespace: 'schema-editor-trim' } : undefined));
    b.onLoad({ filter: /^json5-parser$/, namespace: 'schema-editor-trim' }, () => ({
      contents: "export function parseJSON5DocumentState() { throw new Error('JSON5 mode is not in the playground bundle'); }\n",
      loader: 'js',
    }));
  },
};
const common = {
  bundle: true, format: 'esm', target: 'es2022', minify: true, sourcemap: false, logLevel: 'warning',
  outdir: dist, entryNames: '[name]-[hash]', chunkNames: 'chunks/[name]-[hash]', metafile: true, plugins: [pkgExternal, schemaEditorTrim],
};
// The output file of one entry point (metafile paths are relative to absWorkingDir, here).
const outputOf = (result, entry) => relative(dist, resolve(here, Object.entries(result.metafile.outputs)
  .find(([, o]) => o.entryPoint === entry)[0]));

const workerBuild = await build({ ...common, absWorkingDir: here, entryPoints: ['src/worker.js', 'src/sweep-worker.js'] });
const workerFile = outputOf(workerBuild, 'src/worker.js');
const sweepWorkerFile = outputOf(workerBuild, 'src/sweep-worker.js');
const appBuild = await build({
  ...common, absWorkingDir: here, entryPoints: ['src/app.js', 'src/style.css'], splitting: true,
  define: { WORKER_URL: JSON.stringify(`./${workerFile}`), SWEEP_WORKER_URL: JSON.stringify(`./${sweepWorkerFile}`) },
});
const appFile = outputOf(appBuild, 'src/app.js');
const cssFile = outputOf(appBuild, 'src/style.css');

const html = readFileSync(join(here, 'src', 'index.html'), 'utf8');
for (const needle of ['href="./style.css"', 'src="./app.js"']) if (!html.includes(needle)) throw new Error(`index.html no longer has ${needle}`);
// The engine's first-load part and its glue are fetched beside the bundle, not after it has run.
const preload = [
  `<link rel="modulepreload" href="./${pkgDir}/core.browser.js">`,
  `<link rel="modulepreload" href="./${pkgDir}/web/restartkit_wasm.js">`,
  `<link rel="preload" href="./${pkgDir}/web/restartkit_wasm_bg.wasm" as="fetch" type="application/wasm" crossorigin>`,
].map((l) => `  ${l}\n`).join('');
writeFileSync(join(dist, 'index.html'), html.replace('href="./style.css"', `href="./${cssFile}"`)
  .replace(/( *)<script type="module" src="\.\/app\.js"><\/script>/, `${preload}$1<script type="module" src="./${appFile}"></script>`));

cpSync(join(here, 'examples'), join(dist, 'examples'), { recursive: true });
// The explain panel's examples: kubectl get -o yaml snapshots (examples/explain).
cpSync(join(here, '..', 'examples', 'explain'), join(dist, 'explain'), { recursive: true });
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

// ---- sizes
const files = {};
const walk = (d) => readdirSync(d).forEach((f) => {
  const p = join(d, f);
  if (statSync(p).isDirectory()) return walk(p);
  const bytes = readFileSync(p);
  files[relative(dist, p)] = { bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
});
walk(dist);
const sum = (pred, k) => Object.entries(files).filter(([f]) => pred(f)).reduce((a, [, v]) => a + v[k], 0);
const wasmFiles = Object.keys(files).filter((f) => f.endsWith('.wasm'));
writeFileSync(join(dist, 'build.json'), `${JSON.stringify({ pkgDir, app: appFile, worker: workerFile, css: cssFile, wasm: wasmFiles, files }, null, 2)}\n`);
const kib = (n) => `${(n / 1024).toFixed(0)} KiB`;
console.error(`playground -> ${dist}: ${kib(sum(() => true, 'bytes'))} (${kib(sum(() => true, 'gzip'))} gzipped); ` +
  `wasm ${wasmFiles.map((f) => `${basename(f)} ${kib(files[f].bytes)} / ${kib(files[f].gzip)} gz`).join(', ')}; ` +
  `JS ${kib(sum((f) => f.endsWith('.js') && !f.startsWith(pkgDir), 'bytes'))} / ${kib(sum((f) => f.endsWith('.js') && !f.startsWith(pkgDir), 'gzip'))} gz`);
