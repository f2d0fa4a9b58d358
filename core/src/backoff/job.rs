//! The Job controller's pod-failure backoff.
//! PLACEHOLDER: to be implemented.
use crate::diag::Diagnostic;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobBackoffInput {
    pub function: String,
}
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobBackoffOutput {
    pub remaining_seconds: Option<f64>,
}
pub fn run(_i: JobBackoffInput) -> Result<JobBackoffOutput, Diagnostic> {
    Err(Diagnostic::request("not-implemented", "op", "not implemented yet"))
}
