'use strict';
// Conformance vectors (conformance/FORMAT.md) through the Node front end: each vector's request
// goes through handleJson, as a user's would, and its result is compared with `expect` by the
// rules of FORMAT.md (the same as the core's reference comparator, core/src/conformance.rs).

const fs = require('node:fs');

class Mismatch extends Error {}

const j = (v) => JSON.stringify(v);
const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** `exp` ⊆ `got`: objects by named keys (null also accepts missing), lists elementwise with equal length. */
function partialEq(exp, got, path = '') {
  if (isObj(exp) && isObj(got)) {
    for (const [k, ev] of Object.entries(exp)) {
      if (!(k in got)) {
        if (ev === null) continue;
        throw new Mismatch(`${path}.${k}: missing (expected ${j(ev)})`);
      }
      partialEq(ev, got[k], `${path}.${k}`);
    }
    return;
  }
  if (Array.isArray(exp) && Array.isArray(got)) {
    if (exp.length !== got.length) throw new Mismatch(`${path}: expected ${exp.length} items, got ${got.length} (${j(got)})`);
    exp.forEach((ev, i) => partialEq(ev, got[i], `${path}[${i}]`));
    return;
  }
  if (typeof exp === 'number' && typeof got === 'number') {
    if (exp !== got) throw new Mismatch(`${path}: expected ${j(exp)}, got ${j(got)}`);
    return;
  }
  if (exp === got) return;
  throw new Mismatch(`${path}: expected ${j(exp)}, got ${j(got)}`);
}

function messages(errors) {
  return Array.isArray(errors) ? errors.filter((e) => isObj(e) && typeof e.message === 'string').map((e) => e.message) : [];
}

function key(e) {
  if (!isObj(e)) return ['', null];
  return [typeof e.field === 'string' ? e.field : '', typeof e.type === 'string' ? e.type : null];
}

function compareErrors(expected, got, complete) {
  const exp = Array.isArray(expected) ? expected : [];
  const gotList = Array.isArray(got) ? got : [];
  const gotKeys = gotList.map(key);
  const msgs = messages(gotList);
  const typed = [];
  const untyped = [];
  for (const e of exp) {
    const [field, ty] = key(e);
    if (ty !== null) {
      if (!gotKeys.some(([f, t]) => f === field && t === ty)) {
        throw new Mismatch(`missing error {${field}, ${ty}}; got [${gotKeys.map(([f, t]) => `{${f}, ${t ?? 'null'}}`).join(', ')}]`);
      }
      typed.push([field, ty]);
    } else {
      const m = isObj(e) && typeof e.message === 'string' ? e.message : '';
      if (!msgs.some((x) => x.includes(m))) throw new Mismatch(`no error message contains ${j(m)}; messages: ${j(msgs)}`);
      untyped.push(m);
    }
  }
  if (complete) {
    gotList.forEach((g, i) => {
      const [f, t] = gotKeys[i];
      const gm = isObj(g) && typeof g.message === 'string' ? g.message : '';
      // Expected when it matches a typed expectation by {field, type}, or an untyped one (whose
      // field is not compared) by message.
      const ok = (t !== null && typed.some(([ef, et]) => ef === f && et === t)) || untyped.some((u) => gm.includes(u));
      if (!ok) throw new Mismatch(`unexpected error {${f}, ${t ?? 'null'}}: ${gm}`);
    });
  }
}

/** Throws Mismatch when `result` does not satisfy `expect`. */
function compare(expect, result) {
  if (!isObj(expect) || !isObj(result)) throw new Mismatch('expect and result must be objects');
  const complete = expect.errorsComplete !== false;
  for (const [k, ev] of Object.entries(expect)) {
    if (k === 'errorsComplete') continue;
    if (k === 'errors') compareErrors(ev, result.errors, complete);
    else if (k === 'errorMessages') {
      const msgs = messages(result.errors);
      for (const m of Array.isArray(ev) ? ev : []) {
        if (!msgs.some((x) => x.includes(String(m)))) throw new Mismatch(`no error message contains ${j(m)}; messages: ${j(msgs)}`);
      }
    } else if (!(k in result)) throw new Mismatch(`result has no ${j(k)} (expected ${j(ev)})`);
    else partialEq(ev, result[k], k);
  }
}

/** Runs one vector through `handleJson`; throws Mismatch on any difference. */
function runVector(handleJson, vector) {
  if (!isObj(vector)) throw new Mismatch('a vector must be an object');
  if (typeof vector.op !== 'string') throw new Mismatch('vector has no op');
  if (!('expect' in vector)) throw new Mismatch('vector has no expect');
  const resp = JSON.parse(handleJson(JSON.stringify({ op: vector.op, input: vector.input ?? null })));
  if (resp.status !== 'ok') throw new Mismatch(`request failed: ${messages(resp.errors).join('; ')}`);
  compare(correctedExpect(handleJson, vector), resp.result);
}

/** The vector's expect with the known upstream divergences applied (conformance/divergences.json, by the core). */
function correctedExpect(handleJson, vector) {
  const r = JSON.parse(handleJson(JSON.stringify({ op: 'vectorExpect', input: { vector } })));
  return r.status === 'ok' ? r.result.expect : vector.expect;
}

/** Runs every vector of `files`; writes FAIL lines and the summary; returns the exit status. */
function runFiles(handleJson, files, out = (s) => process.stdout.write(s + '\n'), err = (s) => process.stderr.write(s + '\n')) {
  let passed = 0;
  let failed = 0;
  for (const f of files) {
    let vectors;
    try {
      vectors = JSON.parse(fs.readFileSync(f, 'utf8'));
      if (!Array.isArray(vectors)) throw new Error('a vector file must hold a JSON array');
    } catch (e) {
      err(`error: ${f}: ${e.message}`);
      return 2;
    }
    for (const v of vectors) {
      try {
        runVector(handleJson, v);
        passed++;
      } catch (e) {
        if (!(e instanceof Mismatch)) throw e;
        failed++;
        out(`FAIL ${isObj(v) && v.id != null ? v.id : '?'}: ${e.message}`);
      }
    }
  }
  out(`${passed} passed, ${failed} failed`);
  return failed ? 1 : 0;
}

module.exports = { Mismatch, partialEq, compare, runVector, runFiles };
