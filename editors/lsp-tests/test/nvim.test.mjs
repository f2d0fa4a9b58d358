// restartkit lsp in Neovim's built-in client, headless (nvim/check.lua does the steps).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..', '..');
const server = process.env.RESTARTKIT_BIN ?? join(process.env.CARGO_TARGET_DIR ?? '', 'debug', 'restartkit');

test('Neovim: the diagnostic at its line, the quick fix clears it, hover and what-if', () => {
  const r = spawnSync('nvim', ['--headless', '--clean', '-u', 'NONE', '-c', `luafile ${join(here, '..', 'nvim', 'check.lua')}`,
    join(root, 'examples', 'editor', 'job-fix-me.yaml')], { env: { ...process.env, RESTARTKIT_BIN: server }, encoding: 'utf8', timeout: 120000 });
  assert.equal(r.error, undefined);
  const lines = r.stdout.trim().split('\n');
  assert.deepEqual(lines.filter((l) => !l.startsWith('ok ')), ['0 failed'], r.stdout + r.stderr);
  assert.equal(lines.length, 12, r.stdout);
  assert.equal(r.status, 0);
});
