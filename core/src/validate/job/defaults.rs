//! SetDefaults_Job (pkg/apis/batch/v1/defaults.go).

use super::strategy::GATE_POD_REPLACEMENT_POLICY;
use crate::api::JobSpec;
use crate::features::FeatureGates;

/// SetDefaults_Job with the JobPodReplacementPolicy gate on (its default in every modelled
/// version; from 1.37 the gate is gone and defaults.go always defaults podReplacementPolicy).
/// Use [`default_job_spec_with_gates`] when the request names gates.
pub fn default_job_spec(spec: &mut JobSpec) {
    default_job_spec_with(spec, true);
}

/// SetDefaults_Job for the given gates.
pub fn default_job_spec_with_gates(spec: &mut JobSpec, gates: &FeatureGates) {
    default_job_spec_with(spec, gates.enabled(GATE_POD_REPLACEMENT_POLICY));
}

fn default_job_spec_with(spec: &mut JobSpec, pod_replacement_policy_gate: bool) {
    if spec.completions.is_none() && spec.parallelism.is_none() {
        spec.completions = Some(1);
        spec.parallelism = Some(1);
    }
    if spec.parallelism.is_none() {
        spec.parallelism = Some(1);
    }
    if spec.backoff_limit.is_none() {
        spec.backoff_limit = Some(if spec.backoff_limit_per_index.is_some() {
            i32::MAX
        } else {
            6
        });
    }
    if spec.completion_mode.is_none() {
        spec.completion_mode = Some("NonIndexed".to_owned());
    }
    if spec.suspend.is_none() {
        spec.suspend = Some(false);
    }
    default_pod_failure_policy(spec);
    if pod_replacement_policy_gate && spec.pod_replacement_policy.is_none() {
        let v = if spec.pod_failure_policy.is_some() {
            "Failed"
        } else {
            "TerminatingOrFailed"
        };
        spec.pod_replacement_policy = Some(v.to_owned());
    }
    crate::validate::pod::default_pod_spec(&mut spec.template.spec);
}

/// The part of SetDefaults_Job that touches the podFailurePolicy: an empty
/// `onPodConditions[].status` becomes `True`. The Job controller only ever sees defaulted Jobs,
/// so the matcher applies this too.
pub fn default_pod_failure_policy(spec: &mut JobSpec) {
    if let Some(pfp) = spec.pod_failure_policy.as_mut() {
        for rule in &mut pfp.rules {
            for pattern in rule.on_pod_conditions.iter_mut().flatten() {
                if pattern.status.is_empty() {
                    pattern.status = "True".to_owned();
                }
            }
        }
    }
}
