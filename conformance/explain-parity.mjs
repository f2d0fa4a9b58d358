// The explain parity snapshots (explain-parity.json): a front end's explain(objectsOrText, opts)
// must give each entry's `output`, the core's own answer (core/tests/explain_parity.rs keeps
// the outputs current). Used by the Node and the wasm package's tests.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const explainParity = JSON.parse(
  readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'explain-parity.json'), 'utf8'),
);

/** One test per snapshot: `explain` answers it as the core does. */
export function testExplainParity(test, assert, explain) {
  for (const { id, input, output } of explainParity) {
    test(`explain parity: ${id}`, () => {
      const { objects, source, ...opts } = input;
      assert.deepEqual(explain(source ?? objects, opts), output);
    });
  }
}
