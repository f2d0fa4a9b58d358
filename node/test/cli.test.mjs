// node conformance.mjs FILE...: output format and exit codes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { here, vectorFiles } from './helpers.mjs';

const runner = path.join(here, '..', 'conformance.mjs');
const run = (...files) => spawnSync(process.execPath, [runner, ...files], { encoding: 'utf8' });

function file(vectors) {
  const f = path.join(mkdtempSync(path.join(tmpdir(), 'rk-')), 'v.json');
  writeFileSync(f, JSON.stringify(vectors));
  return f;
}

test('FAIL lines, summary and exit status', () => {
  const ok = { id: 'describe-ok', op: 'describe', input: {}, expect: { contractVersion: '1.3' } };
  const bad = { id: 'describe-bad', op: 'describe', input: {}, expect: { contractVersion: '9' } };
  const unknown = { id: 'unknown-op', op: 'nope', input: {}, expect: {} };
  const p = run(file([ok, bad, unknown]));
  const lines = p.stdout.trim().split('\n');
  assert.equal(p.status, 1);
  assert.ok(lines[0].startsWith('FAIL describe-bad: contractVersion: expected "9", got "1.3"'), lines[0]);
  assert.ok(lines[1].startsWith('FAIL unknown-op: request failed: '), lines[1]);
  assert.equal(lines.at(-1), '1 passed, 2 failed');
  const good = run(file([ok]));
  assert.equal(good.status, 0);
  assert.equal(good.stdout.trim(), '1 passed, 0 failed');
  assert.equal(run('/nonexistent/v.json').status, 2);
});

test('the repository vectors all pass', () => {
  const p = run(...vectorFiles);
  assert.match(p.stdout.trim().split('\n').at(-1), /^\d+ passed, \d+ failed$/);
  assert.equal(p.status, 0, p.stdout.slice(-3000));
});
