// Which of restartkit's JSON Schemas (rk.schemas(), generated from the core's types) describes a
// document, by its `kind`. The core has no CronJob type of its own (it validates a CronJob's
// `spec.jobTemplate.spec` as a JobSpec), so the CronJob schema here is the Job's JobSpec under
// `spec.jobTemplate`; a ClusterTrainingRuntime's is the TrainingRuntime's; every other kind is the
// core's schema as is.
const KINDS = ['Pod', 'Job', 'CronJob', 'JobSet', 'TrainJob', 'TrainingRuntime', 'ClusterTrainingRuntime', 'KubeletConfiguration', 'ContainerRecreateRequest'];
// A ClusterTrainingRuntime has the TrainingRuntime's schema (the core reads both as one type).
const SCHEMA_OF = { ClusterTrainingRuntime: 'TrainingRuntime' };

const cache = new WeakMap();
/** The schema as the editor gets it (see forEditor), made once per schema object. */
function prepared(schema) {
  if (!cache.has(schema)) cache.set(schema, forEditor(schema));
  return cache.get(schema);
}

export function schemaForKind(schemas, kind) {
  if (kind === 'CronJob' && schemas.Job) return prepared(cronJobSchema(prepared(schemas.Job)));
  const name = SCHEMA_OF[kind] ?? kind;
  if (kind && KINDS.includes(kind) && schemas[name]) return prepared(schemas[name]);
  // No kind yet: offer the kinds restartkit knows.
  return {
    type: 'object',
    properties: {
      apiVersion: { type: 'string', examples: ['v1', 'batch/v1', 'jobset.x-k8s.io/v1alpha2', 'trainer.kubeflow.org/v1alpha1', 'kubelet.config.k8s.io/v1beta1', 'apps.kruise.io/v1alpha1'] },
      kind: { type: 'string', description: 'The object kind; its schema drives completion once set.', examples: KINDS },
    },
  };
}

function cronJobSchema(job) {
  return {
    ...job,
    title: 'CronJob',
    description: '`batch/v1` CronJob: restartkit checks `spec.jobTemplate.spec` as a Job spec.',
    properties: {
      apiVersion: { type: 'string', examples: ['batch/v1'] },
      kind: { type: 'string', examples: ['CronJob'] },
      metadata: job.properties.metadata,
      spec: {
        type: 'object',
        properties: {
          schedule: { type: 'string', description: 'Cron schedule, e.g. `*/5 * * * *`.' },
          jobTemplate: {
            type: 'object',
            properties: { metadata: job.properties.metadata, spec: job.properties.spec },
          },
        },
      },
    },
  };
}

/**
 * codemirror-json-schema follows `$ref` only on the way down to the cursor and looks for values
 * (enum, examples) only in the schema itself, not behind a `$ref` inside `anyOf`. schemars writes
 * every optional struct field as `anyOf: [{$ref}, {type: null}]`, so the editor gets the schema
 * with each `#/$defs/` reference inlined and such a nullable `anyOf` collapsed to its one
 * alternative. A reference met again on its own path (a recursive type) is left as it is.
 */
export function forEditor(root) {
  const defs = root.$defs ?? {};
  const walk = (node, seen) => {
    if (Array.isArray(node)) return node.map((x) => walk(x, seen));
    if (!node || typeof node !== 'object') return node;
    let out = node;
    const ref = typeof out.$ref === 'string' && /^#\/\$defs\/(.+)$/.exec(out.$ref)?.[1];
    if (ref && defs[ref] && !seen.has(ref)) {
      const { $ref, ...rest } = out;
      return walk({ ...defs[ref], ...rest }, new Set([...seen, ref]));
    }
    if (Array.isArray(out.anyOf)) {
      const real = out.anyOf.filter((x) => x?.type !== 'null');
      if (real.length === 1 && real.length < out.anyOf.length) {
        const { anyOf, ...rest } = out;
        return walk({ ...real[0], ...rest }, seen);
      }
    }
    out = {};
    for (const [k, v] of Object.entries(node)) out[k] = k === '$defs' ? v : walk(v, seen);
    return out;
  };
  return walk(root, new Set());
}
