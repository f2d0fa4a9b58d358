// Every op of the core's table is a function of @restartkit/node (the op's own name), and each
// refuses a malformed input with a RestartkitError naming the field, never a crash.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const rk = require('../index.js');

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
  const src = rk[op].toString();
  const m = src.match(/rt\.op\("[^"]+", \[(.*)\], (?:opts|input), /);
  return [...(m ? m[1] : '').matchAll(/\["([^"]+)", "([^"]+)", /g)].map(([, , kind]) => PLAUSIBLE[kind]);
}

for (const op of rk.OPS) {
  test(`${op}: malformed input names the field`, () => {
    const args = argsOf(op);
    if (op === 'describe') {
      assert.ok(rk.describe({ notAMember: 1 }).operations.length > 0); // takes no input
      return;
    }
    assert.throws(() => rk[op](...args, { notAMember: 1 }), (e) => {
      assert.equal(e.name, 'RestartkitError');
      assert.match(e.message, /notAMember|missing field `/);
      return true;
    });
  });
}

test('a wrong type names its field; listGates', () => {
  assert.throws(() => rk.containerRestart(POD, 'c', 'one'), (e) => e.name === 'RestartkitError' && e.field === 'exitCode');
  assert.throws(() => rk.listGates({ kubernetesVersion: '1.20' }), (e) => e.field === 'kubernetesVersion');
  const out = rk.listGates({ kubernetesVersion: '1.31', nameContains: 'sidecar' });
  const side = out.gates.find((g) => g.name === 'SidecarContainers');
  assert.deepEqual([side.stage, side.default], ['Beta', true]);
});
