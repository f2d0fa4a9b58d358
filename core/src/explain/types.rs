//! The `explain` op's input and output: what each front end sends and gets (the JSON schemas
//! and the generated types come from these).

use crate::api::KubeletConfiguration;
use crate::backoff::kubelet::StepReason;
use crate::eval::kubelet::{ContainerKind, DecidedBy};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExplainInput {
    /// The objects: a Pod, Job or JobSet, a `kind: List` of them (`kubectl get -o json`), or
    /// an array of objects.
    #[serde(default)]
    pub objects: Option<Value>,
    /// Or: YAML or JSON text of any number of documents (`kubectl get pod,job,jobset -o yaml`).
    #[serde(default)]
    pub source: Option<String>,
    /// Shown in messages; not read.
    #[serde(default)]
    pub file_name: Option<String>,
    #[serde(default)]
    pub kubernetes_version: Option<String>,
    #[serde(default)]
    pub feature_gates: Option<BTreeMap<String, bool>>,
    /// The node's KubeletConfiguration (its crashLoopBackOff and featureGates apply).
    #[serde(default)]
    pub kubelet_config: Option<Box<KubeletConfiguration>>,
    /// The instant to explain at (RFC 3339); default: the newest timestamp in the objects.
    #[serde(default)]
    pub now: Option<String>,
    /// Also give the explanation as the text `restartkit explain` prints (in `text`).
    #[serde(default)]
    pub text: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExplainOutput {
    pub kubernetes_version: String,
    /// The instant the answers are relative to.
    pub now: String,
    /// `input` (given) or `newestTimestamp` (the newest instant found in the objects).
    pub now_from: String,
    /// The kubelet's CrashLoopBackOff curve at this version, gates and kubelet configuration.
    pub crash_loop_curve: String,
    pub workloads: Vec<Workload>,
    /// What was passed over or could not be read, in words.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// With `text: true` in the input: all of the above as `restartkit explain` prints it, the
    /// same text in every front end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// One top-level workload: a JobSet with its Jobs, a Job with its Pods, or the Pods of one
/// other owner (a ReplicaSet, a StatefulSet, none).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Workload {
    pub kind: String,
    pub namespace: String,
    pub name: String,
    /// Whether the owner itself is in the input (false: only what it owns is).
    pub present: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jobset: Option<JobSetExplained>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub jobs: Vec<JobExplained>,
    /// The Pods of a workload that is not a Job (a Job's Pods are under `jobs`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pods: Vec<PodExplained>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PodExplained {
    pub name: String,
    pub phase: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion_index: Option<i32>,
    pub containers: Vec<ContainerExplained>,
    /// A failed Pod of a Job: what the Job controller makes of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<PodFailureExplained>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContainerExplained {
    pub name: String,
    pub container_kind: ContainerKind,
    pub restart_count: i32,
    /// `running`, `waiting: CrashLoopBackOff`, `terminated: Error`, ...
    pub state: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_termination: Option<Termination>,
    /// The kubelet's decision on the last termination.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<Decision>,
    /// The CrashLoopBackOff wait before the next restart, when the kubelet restarts it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crash_loop_back_off: Option<CrashLoopBackOff>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Termination {
    pub exit_code: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The signal that ended the process (exit code 128 + N, or the status' `signal`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    /// `Restart` or `DoNotRestart`.
    pub action: String,
    pub restart_all_containers: bool,
    pub decided_by: DecidedBy,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule_index: Option<usize>,
    pub reason: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CrashLoopBackOff {
    /// The wait from the last finishedAt to the next restart.
    pub delay_seconds: f64,
    /// Why that wait: `noEntry`, `expired` (ran over 600 s), `backOff`, `garbageCollected`.
    pub why: StepReason,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_restart_at: Option<String>,
    /// From `now` (negative: due already; the kubelet restarts it at its next Pod sync).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_restart_in_seconds: Option<f64>,
    /// When the wait ends with the garbage collection of the kubelet's back-off entry
    /// (`why: garbageCollected`): the latest instant of the restart. The collection runs at the
    /// kubelet's housekeeping, every 2 s on a phase the objects do not show, so the restart
    /// comes after `nextRestartAt` and at the latest at this instant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_restart_latest_at: Option<String>,
    /// The wait the restart after that sees if the container crashes again at once.
    pub following_delay_seconds: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PodFailureExplained {
    /// The podFailurePolicy rule the Pod matched (none: the failure counts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule_index: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// Whether it counts against backoffLimit (or its index's backoffLimitPerIndex).
    pub counted: bool,
    pub reason: String,
    pub finished_at: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobExplained {
    pub name: String,
    pub present: bool,
    /// `Complete`, `Failed`, `Suspended`, or `Running`.
    pub phase: String,
    pub active: i32,
    pub succeeded: i32,
    /// status.failed: the failures the controller counted (Ignore matches are not).
    pub failed: i32,
    pub backoff_limit: i32,
    /// Counted failures the Job can still absorb (backoffLimit − failed); the next counted
    /// failure after these fails it (the controller fails a Job when failed > backoffLimit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failures_left: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff_limit_per_index: Option<i32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub indexes: Vec<IndexExplained>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_indexes: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_failed_indexes: Option<i32>,
    /// The Job controller's Pod-creation back-off, when Pods are still to be created.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_creation_back_off: Option<PodCreationBackOff>,
    pub conditions: Vec<ConditionExplained>,
    pub pods: Vec<PodExplained>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IndexExplained {
    pub index: i32,
    /// Counted failures of the index so far (its last Pod's failure-count annotation, plus it).
    pub failures: i64,
    /// Counted failures the index can still absorb; the next after these fails the index.
    pub failures_left: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_creation_back_off: Option<PodCreationBackOff>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PodCreationBackOff {
    /// Failures after the last success the record holds (Ignore matches included).
    pub failures: i32,
    pub last_failure_at: String,
    pub delay_seconds: f64,
    pub next_pod_at: String,
    /// From `now` (0 or less: the controller may create the Pod now).
    pub next_pod_in_seconds: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConditionExplained {
    #[serde(rename = "type")]
    pub type_: String,
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub meaning: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobSetExplained {
    pub restarts: i32,
    pub restarts_count_towards_max: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_restarts: Option<i32>,
    /// `Completed`, `Failed`, `Suspended` or `Running`.
    pub phase: String,
    /// Per replicatedJob: what the JobSet controller does when one of its Jobs fails next.
    pub next_failure: Vec<NextJobFailure>,
    /// The Jobs the RestartJob actions restarted alone (status.replicatedJobsStatus'
    /// jobRestarts), per Job index, with the restarts that count towards maxRestarts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub job_restarts: Vec<JobRestarts>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobRestarts {
    pub replicated_job: String,
    pub job_index: usize,
    pub restarts: i32,
    /// Of them, those that count towards maxRestarts (RestartJob; not
    /// RestartJobAndIgnoreMaxRestarts).
    pub count_towards_max: i32,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NextJobFailure {
    pub replicated_job: String,
    /// The Job failure reason supposed (`BackoffLimitExceeded`).
    pub job_failure_reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matched_rule: Option<String>,
    pub jobset_fails: bool,
    pub jobset_restarts: bool,
    pub outcome: String,
}
