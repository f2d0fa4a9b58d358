//! The JobSet controller's failure policy.
//! PLACEHOLDER: to be implemented.
use crate::api::{Job, JobSet};
use crate::diag::Diagnostic;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct JobSetFailurePolicyInput {
    pub jobset: JobSet,
    pub failed_jobs: Vec<Job>,
    #[serde(default)]
    pub kubernetes_version: Option<String>,
    #[serde(default)]
    pub feature_gates: Option<BTreeMap<String, bool>>,
}
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobSetFailurePolicyOutput {
    pub action: String,
}
pub fn jobset_failure_policy(_i: JobSetFailurePolicyInput) -> Result<JobSetFailurePolicyOutput, Diagnostic> {
    Err(Diagnostic::request("not-implemented", "op", "not implemented yet"))
}
