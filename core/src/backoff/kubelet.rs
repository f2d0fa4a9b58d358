//! The kubelet's CrashLoopBackOff curve.
//! PLACEHOLDER: to be implemented.
use crate::diag::Diagnostic;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KubeletBackoffInput {
    #[serde(default)]
    pub restarts: Option<u32>,
}
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KubeletBackoffOutput {
    pub initial_seconds: f64,
}
pub fn run(_i: KubeletBackoffInput) -> Result<KubeletBackoffOutput, Diagnostic> {
    Err(Diagnostic::request("not-implemented", "op", "not implemented yet"))
}
