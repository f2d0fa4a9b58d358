// The language server's editing benchmark (docs/performance.md, "Language server"): a 2,000-line
// file of 50 Jobs open in the protocol client VS Code's client is built on; one keystroke-sized
// edit at a time in one of its documents, each timed from the didChange until the server has
// published that version's diagnostics; the server pinned to one core (taskset). Then 10,000
// edits as fast as they can be sent, and the server's resident memory before and after.
//   RESTARTKIT_BIN=target/release/restartkit node editors/lsp-tests/bench/edit.mjs
import { spawn, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import {
  createProtocolConnection, StreamMessageReader, StreamMessageWriter, InitializeRequest,
  InitializedNotification, DidOpenTextDocumentNotification, DidChangeTextDocumentNotification,
  PublishDiagnosticsNotification, ShutdownRequest, ExitNotification,
} from 'vscode-languageserver-protocol/node';

const server = process.env.RESTARTKIT_BIN;
const EDITS = Number(process.env.EDITS ?? 300);
const FLOOD = Number(process.env.FLOOD ?? 10000);

function job(i) {
  const lines = [
    'apiVersion: batch/v1', 'kind: Job', 'metadata:', `  name: train-${i}`, '  labels:', '    team: ml',
    'spec:', '  backoffLimit: 3', '  completions: 4', '  parallelism: 4', '  completionMode: Indexed',
    '  backoffLimitPerIndex: 1', '  podFailurePolicy:', '    rules:', '    - action: FailJob', '      onExitCodes:',
    '        containerName: trainer', '        operator: In', '        values: [2, 3]', '    - action: Ignore',
    '      onPodConditions:', '      - type: DisruptionTarget', '  template:', '    spec:', '      restartPolicy: Never',
    '      containers:', '      - name: trainer', '        image: registry.example/trainer:1.0',
    '        args: ["--epochs", "10"]', '        restartPolicy: Never', '        restartPolicyRules:',
    '        - action: Restart', '          exitCodes:', '            operator: In', '            values: [42]',
    '      - name: logger', '        image: registry.example/logger:1.0', '        env:', '        - {name: LEVEL, value: info}',
  ];
  lines.push('---');
  return lines;
}
const lines = Array.from({ length: 50 }, (_, i) => job(i)).flat();
const text = lines.join('\n') + '\n';
const values = lines.map((l, n) => [l, n]).filter(([l]) => l === '  backoffLimit: 3').map(([, n]) => n);

const cpu = execFileSync('nproc', { encoding: 'utf8' }).trim();
const child = spawn('taskset', ['-c', '0', server, 'lsp'], { stdio: ['pipe', 'pipe', 'inherit'] });
const conn = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
const waiting = new Map();
conn.onNotification(PublishDiagnosticsNotification.type, (p) => {
  const w = waiting.get(p.version);
  if (w) { waiting.delete(p.version); w(p); }
});
conn.listen();
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]);
await conn.sendRequest(InitializeRequest.type, { processId: process.pid, rootUri: null, capabilities: {}, initializationOptions: { debounceMs: Number(process.env.DEBOUNCE_MS ?? 25) } });
conn.sendNotification(InitializedNotification.type, {});
const uri = 'file:///bench/jobs.yaml';
let version = 1;
const published = (v) => new Promise((resolve) => waiting.set(v, resolve));
let p = published(version);
conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: 'yaml', version, text } });
await p;

const times = [];
for (let i = 0; i < EDITS; i++) {
  const line = values[i % values.length];
  version += 1;
  const digit = String((i % 9) + 1);
  p = published(version);
  const t0 = process.hrtime.bigint();
  conn.sendNotification(DidChangeTextDocumentNotification.type, {
    textDocument: { uri, version },
    contentChanges: [{ range: { start: { line, character: 16 }, end: { line, character: 17 } }, text: digit }],
  });
  const d = await p;
  times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  if (d.diagnostics.some((x) => x.severity === 1)) throw new Error(`unexpected error: ${JSON.stringify(d.diagnostics[0])}`);
}
times.sort((a, b) => a - b);
const q = (f) => times[Math.min(times.length - 1, Math.floor(f * times.length))].toFixed(1);
// 10,000 more edits, sent in rounds of 1,000 without waiting, each round ended by its publish:
// the server's resident memory after each round.
const memory = [rss()];
for (let round = 0; round < FLOOD / 1000; round++) {
  for (let i = 0; i < 1000; i++) {
    const line = values[i % values.length];
    version += 1;
    conn.sendNotification(DidChangeTextDocumentNotification.type, {
      textDocument: { uri, version },
      contentChanges: [{ range: { start: { line, character: 16 }, end: { line, character: 17 } }, text: String((i % 9) + 1) }],
    });
  }
  p = published(version);
  await p;
  memory.push(rss());
}
console.log(`file: ${lines.length} lines, 50 documents, ${text.length} bytes; server pinned to 1 of ${cpu} cores; debounce ${process.env.DEBOUNCE_MS ?? 25} ms`);
console.log(`edit -> diagnostics republished (${EDITS} edits): median ${q(0.5)} ms, p90 ${q(0.9)} ms, p99 ${q(0.99)} ms, max ${times.at(-1).toFixed(1)} ms`);
console.log(`resident memory (MiB) after the timed edits, then after each 1,000 of ${FLOOD} more: ${memory.map((k) => (k / 1024).toFixed(1)).join(', ')}`);
await conn.sendRequest(ShutdownRequest.type);
conn.sendNotification(ExitNotification.type);
conn.dispose();
