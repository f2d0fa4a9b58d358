// The conformance comparator on its own (FORMAT.md rules), without the engine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const { compare, partialEq, Mismatch } = createRequire(import.meta.url)('../lib/conformance.js');

test('partial objects, lists and numbers', () => {
  partialEq({ a: 1 }, { a: 1.0, b: 2 });
  partialEq({ a: null }, {});
  assert.throws(() => partialEq({ a: [1, 2] }, { a: [1] }), /expected 2 items, got 1/);
  assert.throws(() => partialEq({ a: 'x' }, { a: 'y' }), /\.a: expected "x", got "y"/);
  assert.throws(() => partialEq({ a: true }, { a: 1 }), Mismatch);
  assert.throws(() => partialEq({ xs: [{ a: 1 }] }, { xs: [{ a: 2 }] }), /\[0\]\.a/);
  partialEq({ xs: [{ a: 1 }] }, { xs: [{ a: 1, b: 2 }] });
});

const GOT = { valid: false, errors: [{ field: 'a', type: 'FieldValueRequired', message: 'a: Required value' }] };

test('error sets', () => {
  compare({ valid: false, errors: [{ field: 'a', type: 'FieldValueRequired' }] }, GOT);
  assert.throws(() => compare({ valid: false, errors: [] }, GOT), /unexpected error/);
  compare({ valid: false, errors: [], errorsComplete: false }, GOT);
  assert.throws(() => compare({ errors: [{ field: 'a', type: 'FieldValueInvalid' }] }, GOT), /missing error/);
  assert.throws(() => compare({ errors: [{ field: 'b', type: 'FieldValueRequired' }] }, GOT), /missing error/);
});

test('untyped errors match by message', () => {
  compare({ errors: [{ field: 'x', type: null, message: 'Required' }], errorsComplete: false }, GOT);
  // An untyped expectation accounts for a typed error of the result by message.
  compare({ errors: [{ field: 'x', type: null, message: 'Required' }] }, GOT);
  const two = { errors: [...GOT.errors, { field: 'b', type: 'FieldValueForbidden', message: 'b: Forbidden' }] };
  assert.throws(() => compare({ errors: [{ field: 'x', type: null, message: 'Required' }] }, two), /unexpected error \{b, FieldValueForbidden\}/);
  assert.throws(() => compare({ errors: [{ type: null, message: 'Forbidden' }] }, GOT), /no error message contains/);
  const untyped = { errors: [{ field: 'x', type: null, message: 'the webhook says no' }] };
  compare({ errors: [{ type: null, message: 'says no' }] }, untyped);
  assert.throws(() => compare({ errors: [] }, untyped), /unexpected error/);
});

test('errorMessages and missing keys', () => {
  compare({ errorMessages: ['Required'] }, GOT);
  assert.throws(() => compare({ errorMessages: ['nope'] }, GOT), /no error message contains/);
  assert.throws(() => compare({ action: 'Restart' }, GOT), /result has no "action"/);
  assert.throws(() => compare({ valid: true }, GOT), Mismatch);
});
