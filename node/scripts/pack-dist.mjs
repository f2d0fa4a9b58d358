#!/usr/bin/env node
// Packs @restartkit/node the way napi-rs publishes a native package (make dist; run after
// `make node`):
//   @restartkit/node                 the JavaScript API and the loader (binding.js), no binary;
//                                    optionalDependencies on every platform package
//   @restartkit/node-linux-x64-gnu   the binary only, with os/cpu/libc so that npm installs it on
//                                    matching machines alone
// The loader napi generates (binding.js) tries ./restartkit.<platform>.node first and then
// require('@restartkit/node-<platform>'), so an installed main package finds the platform one.
// The platform package's manifest is napi's own (`napi create-npm-dirs`); this script adds the
// binary and the main package's optionalDependencies, then `npm pack`s both into <out-dir>.
//   node scripts/pack-dist.mjs <out-dir> [--binaries DIR] [--stage DIR]
// --binaries: where the restartkit.<platform>.node files are (default node/; make dist builds
// them apart, linked against glibc 2.17).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const nodeDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: opts, positionals } = parseArgs({ allowPositionals: true, options: { binaries: { type: 'string' }, stage: { type: 'string' } } });
if (positionals.length !== 1) {
  console.error('usage: node scripts/pack-dist.mjs <out-dir> [--binaries DIR] [--stage DIR]');
  process.exit(2);
}
const out = resolve(positionals[0]);
const stage = resolve(opts.stage ?? join(tmpdir(), `restartkit-node-pack-${process.pid}`));
const binDir = resolve(opts.binaries ?? nodeDir);
const manifest = JSON.parse(readFileSync(join(nodeDir, 'package.json'), 'utf8'));
const binaryName = manifest.napi?.binaryName;
if (!binaryName) throw new Error('node/package.json has no napi.binaryName');

const binaries = readdirSync(binDir).filter((f) => f.startsWith(`${binaryName}.`) && f.endsWith('.node'));
for (const needed of ['binding.js', 'binding.d.ts', 'contract.d.ts']) {
  if (!existsSync(join(nodeDir, needed))) throw new Error(`node/${needed} is missing: run \`make node\` first`);
}
if (binaries.length === 0) throw new Error(`no ${binaryName}.<platform>.node in ${binDir}`);

rmSync(stage, { recursive: true, force: true });
const mainDir = join(stage, 'main');
mkdirSync(mainDir, { recursive: true });

// ---- the platform packages: napi writes their manifests from package.json's napi targets.
writeFileSync(join(mainDir, 'package.json'), JSON.stringify(manifest, null, 2));
execFileSync(join(nodeDir, 'node_modules', '.bin', 'napi'), ['create-npm-dirs', '--cwd', mainDir], { stdio: ['ignore', 'ignore', 'inherit'] });
const platformsDir = join(stage, 'platforms');
renameSync(join(mainDir, 'npm'), platformsDir);
const optionalDependencies = {};
const platformDirs = [];
for (const platform of readdirSync(platformsDir)) {
  const dir = join(platformsDir, platform);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const binary = `${binaryName}.${platform}.node`;
  if (pkg.main !== binary) throw new Error(`napi's ${pkg.name} expects ${pkg.main}, not ${binary}`);
  if (!binaries.includes(binary)) throw new Error(`${binDir}/${binary} was not built (found ${binaries.join(', ')})`);
  cpSync(join(binDir, binary), join(dir, binary));
  pkg.description = `The ${platform} binary of ${manifest.name} (installed by it; not used on its own).`;
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  optionalDependencies[pkg.name] = manifest.version;
  platformDirs.push(dir);
}

// ---- the main package: everything of `files` but the binaries, which live in the platform packages.
const files = manifest.files.filter((f) => !f.endsWith('.node'));
for (const f of files) {
  const from = join(nodeDir, f.replace(/\/$/, ''));
  if (!existsSync(from)) throw new Error(`node/${f} (in package.json files) is missing`);
  cpSync(from, join(mainDir, f.replace(/\/$/, '')), { recursive: true });
}
if (existsSync(join(nodeDir, 'README.md'))) cpSync(join(nodeDir, 'README.md'), join(mainDir, 'README.md'));
const { devDependencies: _dev, scripts: _scripts, ...published } = manifest;
published.files = files;
published.optionalDependencies = optionalDependencies;
writeFileSync(join(mainDir, 'package.json'), `${JSON.stringify(published, null, 2)}\n`);

// ---- pack
mkdirSync(out, { recursive: true });
for (const dir of [mainDir, ...platformDirs]) {
  const [info] = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', out], { cwd: dir, encoding: 'utf8' }));
  console.error(`  ${info.filename}: ${info.entryCount} files, ${(info.size / 1024).toFixed(0)} KiB`);
}
rmSync(stage, { recursive: true, force: true });
