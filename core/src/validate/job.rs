//! Job validation (batch/v1), restart and failure scope.
//! PLACEHOLDER: to be implemented.
use super::Ctx;
use crate::api::{Job, JobSpec};
use crate::diag::{FieldPath, Findings};

/// SetDefaults_Job, as far as failure behaviour depends on it.
pub fn default_job_spec(_spec: &mut JobSpec) {}

/// ValidateJobSpec; `path` is the JobSpec's path (`spec`, or `spec.replicatedJobs[0].template.spec`).
pub fn validate_job_spec(_spec: &JobSpec, _path: &FieldPath, _ctx: &Ctx, _out: &mut Findings) {}

pub fn validate_job(job: &Job, ctx: &Ctx, out: &mut Findings) {
    validate_job_spec(&job.spec, &FieldPath::new("spec"), ctx, out);
}
