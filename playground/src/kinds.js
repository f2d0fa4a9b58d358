// Which of restartkit's JSON Schemas (rk.schemas(), generated from the core's types) describes a
// document, by its `kind`. The core has no CronJob type of its own (it validates a CronJob's
// `spec.jobTemplate.spec` as a JobSpec), so the CronJob schema here is the Job's JobSpec under
// `spec.jobTemplate`; every other kind is the core's schema as is.
const KINDS = ['Pod', 'Job', 'CronJob', 'JobSet', 'KubeletConfiguration', 'ContainerRecreateRequest'];

export function schemaForKind(schemas, kind) {
  if (kind === 'CronJob' && schemas.Job) return cronJobSchema(schemas.Job);
  if (kind && KINDS.includes(kind) && schemas[kind]) return schemas[kind];
  // No kind yet: offer the kinds restartkit knows.
  return {
    type: 'object',
    properties: {
      apiVersion: { type: 'string', examples: ['v1', 'batch/v1', 'jobset.x-k8s.io/v1alpha2', 'kubelet.config.k8s.io/v1beta1', 'apps.kruise.io/v1alpha1'] },
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
