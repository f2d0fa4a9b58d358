//! JobSet admission (the JobSet webhook's defaulting and ValidateCreate), plus the Job templates
//! inside replicatedJobs.
//! PLACEHOLDER: to be implemented.
use super::Ctx;
use crate::api::{JobSet, JobSetSpec};
use crate::diag::{FieldPath, Findings};

pub fn default_jobset_spec(_spec: &mut JobSetSpec) {}
pub fn validate_jobset_spec(_spec: &JobSetSpec, _path: &FieldPath, _ctx: &Ctx, _out: &mut Findings) {}
pub fn validate_jobset(js: &JobSet, ctx: &Ctx, out: &mut Findings) {
    validate_jobset_spec(&js.spec, &FieldPath::new("spec"), ctx, out);
}
