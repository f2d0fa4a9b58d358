// Custom resources in the package: the bundled CRDs' schemas and the CEL rules
// (x-kubernetes-validations) of a CRD given with the request are judged as the API server judges
// them, as the native builds do. Both load on demand (wasm/README.md): their code and the bundled
// CRDs' text are in the module's on-demand part.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pkgDir } from './helpers.mjs';

const rk = await import(join(pkgDir, 'index.node.mjs'));

const widgetCrd = JSON.stringify({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    names: { kind: 'Widget', plural: 'widgets' },
    scope: 'Namespaced',
    versions: [{
      name: 'v1', served: true, storage: true,
      schema: { openAPIV3Schema: { type: 'object', properties: { spec: {
        type: 'object',
        'x-kubernetes-validations': [{ rule: 'self.replicas <= 3', message: 'at most three' }, { rule: 'self.replicas >= 0' }],
        properties: { replicas: { type: 'integer' } },
      } } } },
    }],
  },
});
const widget = (replicas) => `apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  replicas: ${replicas}\n`;

test('a CRD\'s CEL rules are evaluated: the failed rule\'s message, or the rule itself, at its field', () => {
  const tooMany = rk.validate(widget(5), { crds: [{ source: widgetCrd }] });
  assert.equal(tooMany.valid, false);
  assert.deepEqual(tooMany.errors.map((e) => [e.field, e.type, e.message]), [['spec', 'FieldValueInvalid', 'spec: Invalid value: at most three']]);
  assert.equal(tooMany.errors[0].line, 5);
  const negative = rk.validate(widget(-1), { crds: [{ source: widgetCrd }] });
  assert.deepEqual(negative.errors.map((e) => e.message), ['spec: Invalid value: failed rule: self.replicas >= 0']);
  const ok = rk.validate(widget(2), { crds: [{ source: widgetCrd }] });
  assert.equal(ok.valid, true);
  assert.ok(![...ok.warnings, ...(ok.infos ?? [])].some((d) => d.code === 'cel-not-evaluated'), 'the rules were evaluated');
});

test('a JobSet is checked against the bundled JobSet CRD\'s schema without giving it', () => {
  const jobset = (suspend) => 'apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: j\nspec:\n'
    + `  suspend: ${suspend}\n  replicatedJobs:\n  - name: w\n    replicas: 1\n    template:\n      spec:\n        template:\n          spec:\n`
    + '            restartPolicy: Never\n            containers:\n            - name: c\n              image: i\n';
  const bad = rk.validate(jobset('"yes"'));
  assert.deepEqual(bad.errors.map((e) => [e.field, e.type, e.code]), [['spec.suspend', 'FieldValueTypeInvalid', 'crd-schema']]);
  assert.match(bad.errors[0].message, /spec\.suspend in body must be of type boolean: "string"/);
  assert.equal(rk.validate(jobset('true')).valid, true);
});
