// Every op of the core's table is a function of restartkit-wasm (the op's own name), and each
// refuses a malformed input with a RestartkitError naming the field, never a trap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pkgDir } from './helpers.mjs';

const rk = await import(join(pkgDir, 'index.node.mjs'));

const POD = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'i' }] } };
const PLAUSIBLE = { object: POD, objectOrText: POD, objects: [], string: 'c', int32: 1, json: [] };

test('every op of the table is exposed under its own name', () => {
  const table = rk.describe().operations;
  assert.deepEqual([...rk.OPS], table);
  for (const op of table) assert.equal(typeof rk[op], 'function', op);
});

// The positional arguments' kinds, as the generated wrappers pass them to the runtime.
// (greedy up to the options: the list itself holds "], " between its entries)
function argsOf(op) {
  const m = rk[op].toString().match(/rt\.op\("[^"]+", \[(.*)\], (?:opts|input), /);
  return [...(m ? m[1] : '').matchAll(/\["([^"]+)", "([^"]+)", /g)].map(([, , kind]) => PLAUSIBLE[kind]);
}

for (const op of rk.OPS) {
  if (op === 'describe' || op === 'complete') continue; // no input; complete() takes source, line, column
  test(`${op}: malformed input names the field`, () => {
    assert.throws(() => rk[op](...argsOf(op), { notAMember: 1 }), (e) => {
      assert.equal(e.name, 'RestartkitError');
      assert.match(e.message, /notAMember|missing field `|not in this build/);
      assert.notEqual(e.code, 'panic');
      return true;
    });
  });
}

test('a wrong type names its field; listGates; check', () => {
  assert.throws(() => rk.containerRestart(POD, 'c', 'one'), (e) => e.name === 'RestartkitError' && e.field === 'exitCode');
  assert.throws(() => rk.validate(new Uint8Array([0x61, 0x0a, 0xff])), (e) => e.code === 'invalid-utf8' && e.line === 2);
  const out = rk.listGates({ kubernetesVersion: '1.31', nameContains: 'sidecar' });
  const side = out.gates.find((g) => g.name === 'SidecarContainers');
  assert.deepEqual([side.stage, side.default], ['Beta', true]);
  assert.throws(() => rk.check({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} }), (e) => e.code === 'invalid' && e.diagnostics.length > 0);
});
