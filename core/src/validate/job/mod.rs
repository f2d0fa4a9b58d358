//! Job admission (batch/v1), restart and failure scope: `SetDefaults_Job`
//! (pkg/apis/batch/v1/defaults.go), the gate-dependent field dropping of the Job strategy's
//! `PrepareForCreate` (pkg/registry/batch/job/strategy.go) and `validateJobSpec` /
//! `validatePodFailurePolicy` (pkg/apis/batch/validation/validation.go).
//!
//! Selector, metadata and the Pod template itself are other validators' business; the template's
//! PodSpec is handed to [`crate::validate::pod::validate_pod_spec`].
//!
//! One file per thing modelled: `defaults.rs` (SetDefaults_Job), `strategy.rs` (what
//! PrepareForCreate drops, and the lint that says so), `spec.rs` (validateJobSpec with the
//! completion mode and the successPolicy), `pod_failure_policy.rs` (validatePodFailurePolicy).
//! This file is ValidateJob, which runs them in upstream's order.

mod defaults;
mod pod_failure_policy;
mod spec;
mod strategy;

use super::Ctx;
use super::names::is_dns1123_label;
use crate::api::Job;
use crate::diag::{Diagnostic, FieldPath, Findings};

pub use crate::api::batch::{
    MAX_ON_EXIT_CODES_VALUES, MAX_ON_POD_CONDITIONS_PATTERNS, MAX_POD_FAILURE_POLICY_RULES,
};
pub use defaults::{default_job_spec, default_job_spec_with_gates, default_pod_failure_policy};
pub use pod_failure_policy::POD_FAILURE_POLICY_ACTIONS;
pub use spec::{count_indexes, validate_job_spec};
pub use strategy::prepare_for_create;

pub(super) use crate::go_strconv::quote as go_quote;

/// ValidateJob, failure scope: the Job strategy's PrepareForCreate (unless the request asks to
/// validate the object exactly as given), the Indexed-hostname check on `metadata.name`, then
/// [`validate_job_spec`].
pub fn validate_job(job: &Job, ctx: &Ctx, out: &mut Findings) {
    let path = FieldPath::new("spec");
    // The name the API server checks: an object with only generateName is named first.
    let (name, generated) = super::meta::name_on_create(
        job.metadata.name.as_deref(),
        job.metadata.generate_name.as_deref(),
    );
    if let (Some("Indexed"), Some(c)) = (job.spec.completion_mode.as_deref(), job.spec.completions)
        && c > 0
    {
        let host = format!("{name}-{}", c - 1);
        if !is_dns1123_label(&host) {
            let mut d = Diagnostic::invalid(
                &FieldPath::new("metadata").child("name"),
                name.as_str(),
                format!("will not able to create pod with invalid DNS label: {host}"),
            );
            d.message.push_str(super::meta::generated_note(generated));
            out.push(d);
        }
    }
    if ctx.skip_defaulting || !strategy::prepare_changes(&job.spec, &ctx.gates) {
        validate_job_spec(&job.spec, &path, ctx, out);
    } else {
        let mut spec = job.spec.clone();
        prepare_for_create(&mut spec, &ctx.gates);
        strategy::lint_dropped_fields(&job.spec, &spec, &path, out);
        validate_job_spec(&spec, &path, ctx, out);
    }
}

#[cfg(test)]
mod tests;
