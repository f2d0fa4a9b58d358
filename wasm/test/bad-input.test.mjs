// The shared bad-input corpus (conformance/bad-input/manifest.json) through restartkit-wasm in
// Node: every case must give a RestartkitError or `valid: false` whose diagnostics name the
// expected line or field, in a child process under a timeout (no trap, no crash, no hang).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pkgDir } from './helpers.mjs';
import { cases, runCase } from '../../conformance/bad-input/runner.mjs';

const entry = join(pkgDir, 'index.node.mjs');

for (const c of cases) {
  test(`bad input: ${c.name}`, () => {
    const r = runCase('wasm', entry, c.name);
    assert.ok(r.ok, `${c.name}: ${r.why}`);
  });
}
