//! The Job strategy's `PrepareForCreate` (pkg/registry/batch/job/strategy.go): the fields of
//! disabled gates it drops before validation, and the lint that tells what was dropped.

use crate::api::JobSpec;
use crate::diag::{Diagnostic, FieldPath, Findings};
use crate::features::FeatureGates;

pub(super) const GATE_BACKOFF_LIMIT_PER_INDEX: &str = "JobBackoffLimitPerIndex";
pub(super) const GATE_POD_REPLACEMENT_POLICY: &str = "JobPodReplacementPolicy";
pub(super) const GATE_SUCCESS_POLICY: &str = "JobSuccessPolicy";
pub(super) const GATE_MANAGED_BY: &str = "JobManagedBy";

/// The Job strategy's `PrepareForCreate`: fields of disabled gates are dropped before
/// validation (including FailIndex rules when JobBackoffLimitPerIndex is off).
pub fn prepare_for_create(spec: &mut JobSpec, gates: &FeatureGates) {
    if !gates.enabled(GATE_MANAGED_BY) {
        spec.managed_by = None;
    }
    if !gates.enabled(GATE_SUCCESS_POLICY) {
        spec.success_policy = None;
    }
    if !gates.enabled(GATE_BACKOFF_LIMIT_PER_INDEX) {
        spec.backoff_limit_per_index = None;
        spec.max_failed_indexes = None;
        if let Some(pfp) = spec.pod_failure_policy.as_mut() {
            pfp.rules.retain(|r| r.action != "FailIndex");
        }
    }
    if !gates.enabled(GATE_POD_REPLACEMENT_POLICY) {
        spec.pod_replacement_policy = None;
    }
}

/// Whether `prepare_for_create` would change `spec`: with the gates on (every default from
/// 1.33) it changes nothing, and validation skips copying the whole spec and Pod template.
pub(super) fn prepare_changes(spec: &JobSpec, gates: &FeatureGates) -> bool {
    (!gates.enabled(GATE_MANAGED_BY) && spec.managed_by.is_some())
        || (!gates.enabled(GATE_SUCCESS_POLICY) && spec.success_policy.is_some())
        || (!gates.enabled(GATE_BACKOFF_LIMIT_PER_INDEX)
            && (spec.backoff_limit_per_index.is_some()
                || spec.max_failed_indexes.is_some()
                || spec
                    .pod_failure_policy
                    .as_ref()
                    .is_some_and(|p| p.rules.iter().any(|r| r.action == "FailIndex"))))
        || (!gates.enabled(GATE_POD_REPLACEMENT_POLICY) && spec.pod_replacement_policy.is_some())
}

/// Warns when PrepareForCreate silently dropped something the user wrote.
pub(super) fn lint_dropped_fields(
    before: &JobSpec,
    after: &JobSpec,
    path: &FieldPath,
    out: &mut Findings,
) {
    let rules_before = before
        .pod_failure_policy
        .as_ref()
        .map_or(0, |p| p.rules.len());
    let rules_after = after
        .pod_failure_policy
        .as_ref()
        .map_or(0, |p| p.rules.len());
    if before.backoff_limit_per_index.is_some() && after.backoff_limit_per_index.is_none()
        || rules_before != rules_after
    {
        out.push(Diagnostic::lint(
            "job-gate-dropped-fields",
            path,
            "the JobBackoffLimitPerIndex feature gate is disabled: the API server drops backoffLimitPerIndex, maxFailedIndexes and every FailIndex rule before validation",
        ));
    }
    if before.managed_by.is_some() && after.managed_by.is_none() {
        out.push(Diagnostic::lint(
            "job-gate-dropped-fields",
            &path.child("managedBy"),
            "the JobManagedBy feature gate is disabled: the API server drops managedBy",
        ));
    }
    if before.success_policy.is_some() && after.success_policy.is_none() {
        out.push(Diagnostic::lint(
            "job-gate-dropped-fields",
            &path.child("successPolicy"),
            "the JobSuccessPolicy feature gate is disabled: the API server drops successPolicy",
        ));
    }
    if before.pod_replacement_policy.is_some() && after.pod_replacement_policy.is_none() {
        out.push(Diagnostic::lint(
            "job-gate-dropped-fields",
            &path.child("podReplacementPolicy"),
            "the JobPodReplacementPolicy feature gate is disabled: the API server drops podReplacementPolicy",
        ));
    }
}
