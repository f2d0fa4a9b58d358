//! The Job controller's pod failure policy matching.
//! PLACEHOLDER: to be implemented.
use crate::api::{Job, Pod};
use crate::diag::Diagnostic;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PodFailurePolicyInput {
    pub job: Job,
    pub pod: Pod,
    #[serde(default)]
    pub kubernetes_version: Option<String>,
    #[serde(default)]
    pub feature_gates: Option<BTreeMap<String, bool>>,
}
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PodFailurePolicyOutput {
    pub matched: bool,
    pub action: Option<String>,
    pub count_failed: bool,
    pub message: Option<String>,
}
pub fn pod_failure_policy(_i: PodFailurePolicyInput) -> Result<PodFailurePolicyOutput, Diagnostic> {
    Err(Diagnostic::request("not-implemented", "op", "not implemented yet"))
}
