// restartkit lsp through vscode-languageserver-protocol's client (the protocol layer of VS Code's
// vscode-languageclient): diagnostics, the quick fix, hover, completion, the lenses and the
// what-if command, as an editor exchanges them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';
import {
  createProtocolConnection, StreamMessageReader, StreamMessageWriter, InitializeRequest,
  InitializedNotification, DidOpenTextDocumentNotification, DidChangeTextDocumentNotification,
  PublishDiagnosticsNotification, CodeActionRequest, HoverRequest, CompletionRequest,
  CodeLensRequest, ExecuteCommandRequest, ShutdownRequest, ExitNotification,
  ShowMessageNotification, ConfigurationRequest, DidChangeConfigurationNotification,
} from 'vscode-languageserver-protocol/node';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const server = process.env.RESTARTKIT_BIN ?? join(process.env.CARGO_TARGET_DIR ?? '', 'debug', 'restartkit');
const file = join(root, 'examples', 'editor', 'job-fix-me.yaml');
const uri = pathToFileURL(file).href;

/** A started server and a client connection to it; `diagnostics(uri)` resolves with the next publish. */
function start() {
  const child = spawn(server, ['lsp'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const conn = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  const waiting = new Map();
  const shown = [];
  conn.onNotification(PublishDiagnosticsNotification.type, (p) => {
    const w = waiting.get(p.uri);
    if (w) { waiting.delete(p.uri); w(p); }
  });
  conn.onNotification(ShowMessageNotification.type, (p) => shown.push(p.message));
  // The workspace configuration the server pulls: Kubernetes 1.35.
  conn.onRequest(ConfigurationRequest.type, (p) => p.items.map(() => ({ kubernetesVersion: '1.35' })));
  conn.listen();
  const diagnostics = (u) => new Promise((resolve) => waiting.set(u, resolve));
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  return { conn, diagnostics, shown, exited };
}

test('diagnostics, quick fix, hover, completion and what-if through the protocol client', async () => {
  const { conn, diagnostics, shown, exited } = start();
  const init = await conn.sendRequest(InitializeRequest.type, {
    processId: process.pid, rootUri: null, workspaceFolders: null,
    capabilities: { workspace: { configuration: true }, textDocument: { publishDiagnostics: { relatedInformation: true } } },
  });
  assert.equal(init.serverInfo.name, 'restartkit');
  assert.deepEqual(init.capabilities.executeCommandProvider.commands, ['restartkit.whatIf', 'restartkit.backoffCurve']);
  conn.sendNotification(InitializedNotification.type, {});

  const text = readFileSync(file, 'utf8');
  const first = diagnostics(uri);
  conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: 'yaml', version: 1, text } });
  const published = await first;
  const [d] = published.diagnostics;
  assert.equal(published.diagnostics.length, 1);
  assert.deepEqual(d.range, { start: { line: 21, character: 21 }, end: { line: 21, character: 30 } });
  assert.equal(d.code, 'FieldValueInvalid');
  assert.match(d.relatedInformation[0].message, /pkg\/apis\/batch\/validation\/validation\.go/);

  const actions = await conn.sendRequest(CodeActionRequest.type, {
    textDocument: { uri }, range: d.range, context: { diagnostics: [d] },
  });
  assert.equal(actions.length, 1);
  assert.equal(actions[0].title, 'set restartPolicy to "Never" (a podFailurePolicy needs it)');
  const [edit] = actions[0].edit.changes[uri];
  const cleared = diagnostics(uri);
  conn.sendNotification(DidChangeTextDocumentNotification.type, {
    textDocument: { uri, version: 2 }, contentChanges: [{ range: edit.range, text: edit.newText }],
  });
  assert.deepEqual((await cleared).diagnostics, []);

  // The workspace asked for Kubernetes 1.35 (pulled), the file's comment says 1.36; a settings
  // change pushed without a value makes the server ask again.
  conn.sendNotification(DidChangeConfigurationNotification.type, { settings: null });

  const hover = await conn.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line: 16, character: 8 } });
  assert.match(hover.contents.value, /podFailurePolicy rule 1\*\*: `Ignore`/);
  assert.match(hover.contents.value, /`DisruptionTarget` \(status True\)/);

  const completion = await conn.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: { line: 22, character: 6 } });
  const labels = completion.items.map((i) => i.label);
  assert.ok(labels.includes('initContainers') && labels.includes('activeDeadlineSeconds'), labels.join(','));
  assert.ok(!labels.includes('restartPolicy'), 'restartPolicy is written already');

  const lenses = await conn.sendRequest(CodeLensRequest.type, { textDocument: { uri } });
  assert.deepEqual(lenses.map((l) => l.command.title), ['What if trainer exits 1?', 'CrashLoopBackOff curve']);
  const answer = await conn.sendRequest(ExecuteCommandRequest.type, {
    command: lenses[0].command.command, arguments: [{ ...lenses[0].command.arguments[0], exitCode: 3, quiet: true }],
  });
  assert.equal(answer.result.kubelet.action, 'DoNotRestart');
  assert.equal(answer.result.job.outcome, 'JobFailed');
  assert.match(answer.text, /Container trainer for pod default\/train-0 failed with exit code 3 matching FailJob rule at index 0/);
  assert.deepEqual(shown, [], 'quiet: no message shown');

  await conn.sendRequest(ShutdownRequest.type);
  conn.sendNotification(ExitNotification.type);
  assert.equal(await exited, 0);
  conn.dispose();
});
