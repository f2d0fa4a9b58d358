// tsc --noEmit over TypeScript consumers (test/types/) of the built package: the declarations
// (contract types generated from the JSON Schemas + wasm-bindgen's) must compile, accept real
// objects and reject wrong ones (@ts-expect-error lines).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { consumerProject, wasmDir } from './helpers.mjs';

test('tsc --noEmit accepts the ESM and CJS consumers', () => {
  const c = consumerProject();
  try {
    for (const f of ['esm.mts', 'cjs.cts', 'tsconfig.json']) cpSync(join(wasmDir, 'test', 'types', f), join(c.dir, f));
    const tsc = join(wasmDir, 'node_modules', 'typescript', 'bin', 'tsc');
    const r = spawnSync(process.execPath, [tsc, '-p', c.dir], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stdout + r.stderr);
  } finally {
    c.cleanup();
  }
});
