// Every public conformance vector (conformance/vectors/*.json) through the package, one test each.
// Until the core's op semantics are merged, the vectors of unimplemented ops fail here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadPackage, loadVectors, runVector } from '../conformance.mjs';
import { pkgDir, vectorsDir } from './helpers.mjs';

const m = await loadPackage(pkgDir);
const files = readdirSync(vectorsDir).filter((f) => f.endsWith('.json')).sort().map((f) => join(vectorsDir, f));
const vectors = loadVectors(files);

test('there are vectors to run', () => {
  assert.ok(vectors.length > 0);
});

for (const { file, vector } of vectors) {
  test(`${file.split('/').pop()} :: ${vector.id}`, () => {
    const why = runVector(m, vector);
    assert.equal(why, null, `FAIL ${vector.id}: ${why}`);
  });
}
