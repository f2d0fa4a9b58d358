// Every conformance vector through the Node front end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rk, vectors } from './helpers.mjs';
import { createRequire } from 'node:module';

const { runVector } = createRequire(import.meta.url)('../lib/conformance.js');

test('there are vectors', () => assert.ok(vectors.length >= 100));

for (const v of vectors) {
  test(`vector ${v.id}`, () => {
    runVector(rk.handleJson, v);
  });
}
