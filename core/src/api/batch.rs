use super::{Condition, ObjectMeta, Other, PodTemplateSpec};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `batch/v1` Job.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Job {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: JobSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<JobStatus>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

/// `batch/v1` JobTemplateSpec (as embedded in JobSets and CronJobs).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobTemplateSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<ObjectMeta>,
    #[serde(default)]
    pub spec: JobSpec,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallelism: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_deadline_seconds: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_failure_policy: Option<PodFailurePolicy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub success_policy: Option<SuccessPolicy>,
    /// How many Pod failures the Job tolerates before it fails (`BackoffLimitExceeded`);
    /// 6 when unset, and effectively unlimited once `backoffLimitPerIndex` is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff_limit: Option<i32>,
    /// How many times one index is retried before that index is marked failed (the count is
    /// kept per Pod in the `batch.kubernetes.io/job-index-failure-count` annotation). Only with
    /// `completionMode: Indexed` and a Pod `restartPolicy` of `Never`; immutable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff_limit_per_index: Option<i32>,
    /// With `backoffLimitPerIndex`: the Job fails once more indexes than this have failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_failed_indexes: Option<i32>,
    /// `NonIndexed` (default) or `Indexed`.
    #[schemars(extend("examples" = ["NonIndexed", "Indexed"]))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion_mode: Option<String>,
    /// `TerminatingOrFailed` or `Failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_replacement_policy: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub managed_by: Option<String>,
    #[serde(default)]
    pub template: PodTemplateSpec,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

// The podFailurePolicy's size limits, as batch/v1 documents them on its types (the Job's
// validation refuses more; its lints and the evaluator rely on them).
/// Most rules a podFailurePolicy may hold.
pub const MAX_POD_FAILURE_POLICY_RULES: usize = 20;
/// Most values an onExitCodes requirement may hold.
pub const MAX_ON_EXIT_CODES_VALUES: usize = 255;
/// Most patterns an onPodConditions requirement may hold.
pub const MAX_ON_POD_CONDITIONS_PATTERNS: usize = 20;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PodFailurePolicy {
    #[serde(default)]
    pub rules: Vec<PodFailurePolicyRule>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PodFailurePolicyRule {
    /// `FailJob`, `FailIndex`, `Ignore` or `Count`.
    #[schemars(extend("examples" = ["FailJob", "FailIndex", "Ignore", "Count"]))]
    #[serde(default)]
    pub action: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_exit_codes: Option<PodFailurePolicyOnExitCodesRequirement>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_pod_conditions: Option<Vec<PodFailurePolicyOnPodConditionsPattern>>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PodFailurePolicyOnExitCodesRequirement {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container_name: Option<String>,
    /// `In` or `NotIn`.
    #[schemars(extend("examples" = ["In", "NotIn"]))]
    #[serde(default)]
    pub operator: String,
    #[serde(default)]
    pub values: Vec<i32>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PodFailurePolicyOnPodConditionsPattern {
    #[serde(rename = "type", default)]
    pub type_: String,
    /// `True` (the default the API server sets), `False` or `Unknown`.
    #[serde(default)]
    pub status: String,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

/// KEP-3998 `successPolicy` of an Indexed Job.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SuccessPolicy {
    /// Kept apart from an empty list: upstream prints the two differently (`null`, `[]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<Vec<SuccessPolicyRule>>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

/// One rule: the Job succeeds once `succeededIndexes` (an interval list such as `0,2-4`) have
/// succeeded, or `succeededCount` of them (of all indexes when `succeededIndexes` is unset).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SuccessPolicyRule {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub succeeded_indexes: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub succeeded_count: Option<i32>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobStatus {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub succeeded: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_indexes: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_indexes: Option<String>,
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: Other,
}
