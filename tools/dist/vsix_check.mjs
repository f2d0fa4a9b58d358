// The VS Code extension as VS Code installs it (the .vsix's extension/ folder unpacked into an
// extensions directory), checked without VS Code: its manifest, the bundled static CLI, and a
// language-server session through the protocol client the extension itself ships.
//   node vsix_check.mjs EXTENSION_DIR VSIXMANIFEST VERSION MANIFEST_YAML
import assert from 'node:assert/strict';
import { readFileSync, existsSync, statSync } from 'node:fs';
import { spawn, execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [ext, vsixManifest, version, example] = process.argv.slice(2);
const pkg = JSON.parse(readFileSync(join(ext, 'package.json'), 'utf8'));
assert.equal(pkg.name, 'restartkit');
assert.equal(pkg.publisher, 'restartkit');
assert.equal(pkg.version, version);
assert.match(pkg.engines.vscode, /^\^1\.\d+\.\d+$/);
assert.deepEqual(pkg.activationEvents, ['onLanguage:yaml', 'onLanguage:json']);
assert.ok(existsSync(join(ext, pkg.main)), `main ${pkg.main}`);
for (const key of ['restartkit.kubernetesVersion', 'restartkit.featureGates', 'restartkit.server.path']) {
  assert.ok(pkg.contributes.configuration.properties[key], key);
}
const xml = readFileSync(vsixManifest, 'utf8');
assert.match(xml, new RegExp(`<Identity [^>]*Id="restartkit"[^>]*Version="${version.replaceAll('.', '\\.')}"[^>]*Publisher="restartkit"[^>]*TargetPlatform="linux-x64"`));
assert.ok(!existsSync(join(ext, 'test')), 'tests are not shipped');
assert.ok(!existsSync(join(ext, 'node_modules', '@vscode', 'vsce')), 'the packager is not shipped');

// The bundled server is the one the extension picks, and it is the static CLI of this version.
const require = createRequire(join(ext, 'extension.js'));
const { serverCommand } = require('./server.js');
const found = serverCommand({ extensionPath: ext, platform: 'linux', arch: 'x64' });
assert.equal(found.from, 'bundled');
assert.ok(statSync(found.command).mode & 0o111, 'the bundled binary is executable');
assert.equal(execFileSync(found.command, ['--version'], { encoding: 'utf8' }).trim(), `restartkit ${version}`);
assert.ok(!execFileSync('readelf', ['-l', found.command], { encoding: 'utf8' }).includes('INTERP'), 'static');

// A session through the extension's own vscode-languageserver-protocol.
const lsp = require('vscode-languageserver-protocol/node');
const child = spawn(found.command, found.args, { stdio: ['pipe', 'pipe', 'inherit'] });
const conn = lsp.createProtocolConnection(new lsp.StreamMessageReader(child.stdout), new lsp.StreamMessageWriter(child.stdin));
const uri = pathToFileURL(example).href;
const published = new Promise((resolve) => conn.onNotification(lsp.PublishDiagnosticsNotification.type, resolve));
conn.listen();
const init = await conn.sendRequest(lsp.InitializeRequest.type, { processId: process.pid, rootUri: null, capabilities: {} });
assert.equal(init.serverInfo.version, version);
conn.sendNotification(lsp.InitializedNotification.type, {});
conn.sendNotification(lsp.DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: 'yaml', version: 1, text: readFileSync(example, 'utf8') } });
const d = await published;
assert.equal(d.diagnostics.length, 1);
assert.equal(d.diagnostics[0].range.start.line, 21);
await conn.sendRequest(lsp.ShutdownRequest.type);
const exited = new Promise((resolve) => child.on('exit', resolve));
conn.sendNotification(lsp.ExitNotification.type);
assert.equal(await exited, 0);
conn.dispose();
console.log(`vsix ok: restartkit ${version}, ${found.command}, a diagnostic at line ${d.diagnostics[0].range.start.line + 1}`);
