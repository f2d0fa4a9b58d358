// The extension without VS Code: which server it starts, and that its manifest matches the server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const { serverCommand } = require('../server.js');
const manifest = JSON.parse(readFileSync(join(here, '..', 'package.json'), 'utf8'));
const root = join(here, '..', '..', '..');

test('the server: configured path, then the bundled binary, then PATH, then the wheel', () => {
  const base = { extensionPath: '/ext', platform: 'linux', arch: 'x64' };
  assert.deepEqual(serverCommand({ ...base, configured: '/opt/rk' }), { command: '/opt/rk', args: ['lsp'], from: 'restartkit.server.path' });
  const bundled = serverCommand({ ...base, exists: (p) => p === '/ext/bin/linux-x64/restartkit' });
  assert.equal(bundled.command, '/ext/bin/linux-x64/restartkit');
  const onPath = serverCommand({ ...base, platform: 'darwin', arch: 'arm64', exists: () => false, which: (n) => n === 'restartkit' });
  assert.deepEqual([onPath.command, onPath.from], ['restartkit', 'PATH']);
  const wheel = serverCommand({ ...base, exists: () => false, which: () => false });
  assert.deepEqual([wheel.command, ...wheel.args], ['python3', '-m', 'restartkit', 'lsp']);
});

test('the manifest: the workspace version, the settings the server reads, the versions it models', () => {
  const cargo = readFileSync(join(root, 'Cargo.toml'), 'utf8');
  const version = /\[workspace\.package\][^[]*?\nversion = "([^"]+)"/.exec(cargo)[1];
  assert.equal(manifest.version, version);
  const props = Object.keys(manifest.contributes.configuration.properties);
  assert.deepEqual(props, ['restartkit.kubernetesVersion', 'restartkit.featureGates', 'restartkit.debounceMs', 'restartkit.server.path', 'restartkit.trace.server']);
  // The server reads these names (cli/src/lsp/mod.rs, read_config).
  const server = readFileSync(join(root, 'cli', 'src', 'lsp', 'mod.rs'), 'utf8');
  for (const p of ['kubernetesVersion', 'featureGates', 'debounceMs']) assert.ok(server.includes(`("${p}"`), p);
  // The versions offered are the ones the core models (features.rs).
  const features = readFileSync(join(root, 'core', 'src', 'features.rs'), 'utf8');
  const minors = /SUPPORTED_MINORS[^=]*=\s*&?\[([^\]]+)\]/.exec(features)?.[1].split(',').map((m) => `1.${m.trim()}`);
  assert.deepEqual(manifest.contributes.configuration.properties['restartkit.kubernetesVersion'].enum.slice(1), minors);
  // Commands the extension registers are the ones it declares.
  const ext = readFileSync(join(here, '..', 'extension.js'), 'utf8');
  for (const c of manifest.contributes.commands) assert.ok(ext.includes(`registerCommand('${c.command}'`), c.command);
});
