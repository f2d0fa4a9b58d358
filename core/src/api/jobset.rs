use super::{Condition, JobTemplateSpec, ObjectMeta, Other};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `jobset.x-k8s.io/v1alpha2` JobSet.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobSet {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: JobSetSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<JobSetStatus>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobSetSpec {
    #[serde(default)]
    pub replicated_jobs: Vec<ReplicatedJob>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_policy: Option<JobSetFailurePolicy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub success_policy: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub startup_policy: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub managed_by: Option<String>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReplicatedJob {
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    #[serde(default)]
    pub template: JobTemplateSpec,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobSetFailurePolicy {
    #[serde(default)]
    pub max_restarts: i32,
    /// `Recreate` (default), `BlockingRecreate` or `InPlaceRestart`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart_strategy: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<JobSetFailurePolicyRule>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobSetFailurePolicyRule {
    #[serde(default)]
    pub name: String,
    /// `FailJobSet`, `RestartJobSet`, `RestartJobSetAndIgnoreMaxRestarts`, `RestartJob`,
    /// `RestartJobAndIgnoreMaxRestarts`.
    #[serde(default)]
    pub action: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub on_job_failure_reasons: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub on_job_failure_message_patterns: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub target_replicated_jobs: Vec<String>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobSetStatus {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    #[serde(default)]
    pub restarts: i32,
    #[serde(default)]
    pub restarts_count_towards_max: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminal_state: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replicated_jobs_status: Vec<ReplicatedJobStatus>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReplicatedJobStatus {
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_restarts: Option<Vec<i32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_restarts_count_towards_max: Option<Vec<i32>>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}
