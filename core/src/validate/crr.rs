//! OpenKruise ContainerRecreateRequest admission (the mutating webhook, which also rejects).
//! PLACEHOLDER: to be implemented.
use super::Ctx;
use crate::api::ContainerRecreateRequest;
use crate::diag::{Diagnostic, Findings};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The checks that need no Pod or Node (a CRR in a manifest file).
pub fn validate_crr_manifest(_crr: &ContainerRecreateRequest, _ctx: &Ctx, _out: &mut Findings) {}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CrrValidateInput {
    pub object: serde_json::Value,
}
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CrrValidateOutput {
    pub valid: bool,
    pub errors: Vec<Diagnostic>,
}
pub fn run(_i: CrrValidateInput) -> Result<CrrValidateOutput, Diagnostic> {
    Err(Diagnostic::request("not-implemented", "op", "not implemented yet"))
}
