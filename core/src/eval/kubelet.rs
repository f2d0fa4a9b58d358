//! The kubelet's per-container restart decision (KEP-5307 rules, pod restartPolicy).
//! PLACEHOLDER: to be implemented.
use crate::api::{ContainerStatus, Pod};
use crate::diag::Diagnostic;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

fn pending() -> Diagnostic {
    Diagnostic::request("not-implemented", "op", "not implemented yet")
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContainerRestartInput {
    pub pod: Pod,
    pub container: String,
    pub exit_code: i32,
    #[serde(default)]
    pub kubernetes_version: Option<String>,
    #[serde(default)]
    pub feature_gates: Option<BTreeMap<String, bool>>,
}
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContainerRestartOutput {
    pub action: String,
}
pub fn container_restart(_i: ContainerRestartInput) -> Result<ContainerRestartOutput, Diagnostic> {
    Err(pending())
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContainerRestartableInput {
    pub pod: Pod,
    pub container: String,
    #[serde(default)]
    pub kubernetes_version: Option<String>,
    #[serde(default)]
    pub feature_gates: Option<BTreeMap<String, bool>>,
}
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContainerRestartableOutput {
    pub restartable: bool,
}
pub fn container_restartable(_i: ContainerRestartableInput) -> Result<ContainerRestartableOutput, Diagnostic> {
    Err(pending())
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MatchRestartRuleInput {
    pub pod: Pod,
    pub container: String,
    pub exit_code: i32,
    #[serde(default)]
    pub kubernetes_version: Option<String>,
    #[serde(default)]
    pub feature_gates: Option<BTreeMap<String, bool>>,
}
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MatchRestartRuleOutput {
    pub matched: bool,
    pub rule_index: Option<usize>,
}
pub fn match_restart_rule(_i: MatchRestartRuleInput) -> Result<MatchRestartRuleOutput, Diagnostic> {
    Err(pending())
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StatusTransitionInput {
    pub pod: Pod,
    pub old_container_statuses: Vec<ContainerStatus>,
    pub new_container_statuses: Vec<ContainerStatus>,
    #[serde(default)]
    pub kubernetes_version: Option<String>,
    #[serde(default)]
    pub feature_gates: Option<BTreeMap<String, bool>>,
}
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatusTransitionOutput {
    pub valid: bool,
}
pub fn status_transition(_i: StatusTransitionInput) -> Result<StatusTransitionOutput, Diagnostic> {
    Err(pending())
}
