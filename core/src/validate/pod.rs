//! Pod and PodSpec validation for the restart scope (kube-apiserver).
//! PLACEHOLDER: to be implemented.
use super::Ctx;
use crate::api::{Pod, PodSpec};
use crate::diag::{FieldPath, Findings};

/// SetDefaults_Pod / SetDefaults_PodSpec, as far as restart behaviour depends on them.
pub fn default_pod_spec(_spec: &mut PodSpec) {}

/// ValidatePodSpec, restart and failure scope. `path` is the path of the PodSpec (`spec`, or
/// `spec.template.spec` in a Job).
pub fn validate_pod_spec(_spec: &PodSpec, _path: &FieldPath, _ctx: &Ctx, _out: &mut Findings) {}

/// ValidatePodCreate, restart scope.
pub fn validate_pod(pod: &Pod, ctx: &Ctx, out: &mut Findings) {
    validate_pod_spec(&pod.spec, &FieldPath::new("spec"), ctx, out);
}
