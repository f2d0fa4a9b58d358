use super::{ObjectMeta, Other};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `apps.kruise.io` ContainerRecreateRequest, v1alpha1 and v1beta1 (the same spec shape).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContainerRecreateRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: CrrSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<serde_json::Value>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CrrSpec {
    #[serde(default)]
    pub pod_name: String,
    #[serde(default)]
    pub containers: Vec<CrrContainer>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<CrrStrategy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_deadline_seconds: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_seconds_after_finished: Option<i32>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CrrContainer {
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pre_stop: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ports: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_context: Option<CrrStatusContext>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CrrStatusContext {
    #[serde(default, rename = "containerID")]
    pub container_id: String,
    #[serde(default)]
    pub restart_count: i32,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CrrStrategy {
    /// `Fail` (default) or `Ignore`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_policy: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ordered_recreate: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub force_recreate: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub termination_grace_period_seconds: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unready_grace_period_seconds: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_started_seconds: Option<i32>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}
