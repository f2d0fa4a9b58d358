// The runner (wasm/conformance.mjs) and its comparator (compareExpect, the core's) on their own:
// vectors built from ops that answer today (describe, validate of text), so these tests do not
// wait for the core's semantics.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPackage } from '../conformance.mjs';
import { pkgDir, wasmDir } from './helpers.mjs';

const m = await loadPackage(pkgDir);
let dir;
before(() => { dir = mkdtempSync(join(tmpdir(), 'rk-conf-')); });
after(() => rmSync(dir, { recursive: true, force: true }));

const run = (vectors) => {
  const f = join(dir, `v${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(f, JSON.stringify(vectors));
  return spawnSync(process.execPath, [join(wasmDir, 'conformance.mjs'), f], { encoding: 'utf8', env: { ...process.env, RESTARTKIT_WASM_PKG: pkgDir } });
};

test('comparator: expect is a subset of the result; numbers compare by value', () => {
  assert.equal(m.compareExpect({ a: 1 }, { a: 1.0, b: 2 }) ?? null, null);
  assert.match(m.compareExpect({ a: [1, 2] }, { a: [1] }), /expected 2 items/);
  assert.equal(m.compareExpect({ o: { a: null } }, { o: {} }) ?? null, null);
  assert.match(m.compareExpect({ a: null }, {}), /result has no "a"/);
  assert.match(m.compareExpect({ a: 'x' }, { a: 'y' }), /expected "x", got "y"/);
  assert.match(m.compareExpect({ a: 1 }, {}), /result has no "a"/);
});

test('comparator: errors compare as a set of {field, type}; errorsComplete; untyped by message', () => {
  const got = { valid: false, errors: [{ field: 'a', type: 'FieldValueRequired', message: 'a: Required value' }] };
  assert.equal(m.compareExpect({ valid: false, errors: [{ field: 'a', type: 'FieldValueRequired' }] }, got) ?? null, null);
  assert.match(m.compareExpect({ valid: false, errors: [] }, got), /unexpected error \{a, FieldValueRequired\}/);
  assert.equal(m.compareExpect({ valid: false, errors: [], errorsComplete: false }, got) ?? null, null);
  assert.match(m.compareExpect({ errors: [{ field: 'b', type: 'FieldValueInvalid' }] }, got), /missing error \{b, FieldValueInvalid\}/);
  assert.equal(m.compareExpect({ errors: [{ field: 'ignored', type: null, message: 'Required' }], errorsComplete: false }, got) ?? null, null);
  // An untyped expectation (field not compared) accounts for a typed error by its message.
  assert.equal(m.compareExpect({ errors: [{ field: 'a', type: null, message: 'Required' }] }, got) ?? null, null);
  assert.match(m.compareExpect({ errors: [{ field: 'a', type: null, message: 'Other' }] }, got), /no error message contains "Other"/);
  assert.match(m.compareExpect({ errorMessages: ['nope'] }, got), /no error message contains "nope"/);
});

test('runner: passing vectors, the summary line and exit 0', () => {
  const r = run([
    { id: 'd1', op: 'describe', input: {}, expect: { contractVersion: '1.3' } },
    { id: 'v1', op: 'validate', input: { source: 'apiVersion: v1\nkind: Pod\nspec:\n  containers: 5\n' }, expect: { valid: false, errors: [{ field: 'spec.containers', type: 'FieldValueTypeInvalid' }] } },
  ]);
  assert.equal(r.stdout, '2 passed, 0 failed\n');
  assert.equal(r.status, 0);
});

test('runner: one FAIL line per failing vector, exit 1', () => {
  const r = run([
    { id: 'ok', op: 'describe', input: {}, expect: { contractVersion: '1.3' } },
    { id: 'wrong-value', op: 'describe', input: {}, expect: { contractVersion: '9.9' } },
    { id: 'bad-op', op: 'nope', input: {}, expect: {} },
    { id: 'no-expect', op: 'describe', input: {} },
  ]);
  assert.equal(r.status, 1);
  const lines = r.stdout.trim().split('\n');
  assert.deepEqual(lines.map((l) => l.split(':')[0]), ['FAIL wrong-value', 'FAIL bad-op', 'FAIL no-expect', '1 passed, 3 failed']);
  assert.match(lines[0], /^FAIL wrong-value: contractVersion: expected "9.9", got "1.3"$/);
  assert.match(lines[1], /^FAIL bad-op: request failed: unknown op "nope"/);
});

test('runner: usage error without files exits 2', () => {
  const r = spawnSync(process.execPath, [join(wasmDir, 'conformance.mjs')], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /usage/);
});
