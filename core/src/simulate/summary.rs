//! What a simulated run reports: the summary counts, each Pod's, Job's and JobSet's end state,
//! and the timeline. Its own file, so the engine (which fills it) and the TrainJob run (which
//! extends it) name it without reaching the op in mod.rs.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// Simulated time at the end (runFor, or, when everything finished earlier, the instant
    /// of the last timeline event: what the kubelet still had queued for an ended Pod, such as
    /// a sidecar's restart, does not extend the run).
    pub end_seconds: f64,
    pub container_exits: u64,
    /// Containers restarted in place by the kubelet.
    pub in_place_restarts: u64,
    /// Whole-Pod in-place restarts (RestartAllContainers).
    pub whole_pod_restarts: u64,
    pub pods_created: u64,
    /// Pods created to replace a failed one.
    pub pods_replaced: u64,
    pub jobs_created: u64,
    pub job_failures: u64,
    pub job_restarts: u64,
    pub jobset_restarts: u64,
    pub crr_recreations: u64,
    pub faults: u64,
    /// Nodes lost (`nodeFailure`): each took its Pod with it.
    #[serde(default)]
    pub nodes_lost: u64,
    /// Pods on a lost node that had not failed when the run ended: Terminating or still
    /// waiting for their eviction, as nothing deletes their Node (see `nodeLoss`).
    #[serde(default)]
    pub pods_stuck_on_lost_nodes: u64,
    /// Seconds during which a container or Pod slot waited to run again, summed over slots: a
    /// restarted container's back-off and start-up (up to its Pod's end: a wait the Pod's end
    /// cuts short counts until then); a replaced Pod's Job back-off, rescheduling
    /// and start-up; and for a Job or JobSet restart, every Pod slot of the restarted Jobs
    /// (finished ones included) until its new Pod starts. Work lost since the last checkpoint is
    /// not modelled.
    pub time_lost_seconds: f64,
    /// Seconds during which every Pod the workload runs at once (the Pod; a Job's parallelism;
    /// every Job's of a JobSet) was running and ready on a live node: the time a synchronous
    /// job, which needs every worker, makes progress (before work lost since its last
    /// checkpoint, which restartkit does not know).
    #[serde(default)]
    pub all_pods_running_seconds: f64,
    /// Timeline events produced (also those past `maxTimelineEvents`).
    pub events: u64,
    pub timeline_truncated: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContainerSummary {
    pub name: String,
    pub restart_count: u32,
    pub last_exit_code: Option<i32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PodSummary {
    pub name: String,
    /// Kubernetes' Pod phase (`Pending`, `Running`, `Succeeded`, `Failed`), or `Deleted`.
    pub phase: String,
    pub reason: Option<String>,
    pub containers: Vec<ContainerSummary>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobSummary {
    pub name: String,
    /// `Running`, `Complete` or `Failed`.
    pub phase: String,
    pub reason: Option<String>,
    pub message: Option<String>,
    pub failed: u32,
    pub succeeded: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobSetSummary {
    pub name: String,
    /// `Running`, `Completed` or `Failed`.
    pub phase: String,
    pub reason: Option<String>,
    pub message: Option<String>,
    pub restarts: i64,
    /// `status.restartsCountTowardsMax`: the restarts that count against `maxRestarts`.
    pub restarts_count_towards_max: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SimulationEvent {
    /// Seconds since the start.
    pub t: f64,
    /// `pod/<ns>/<name>`, `job/<ns>/<name>`, `jobset/<ns>/<name>`.
    pub object: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// For a Pod of a Job: its completion index (Indexed) or slot (NonIndexed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_index: Option<u32>,
    pub event: String,
    pub reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// The result of one scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SimulationRun {
    pub name: Option<String>,
    pub kubernetes_version: String,
    pub summary: Summary,
    /// The newest Pod of each Job index (or the Pod).
    pub pods: Vec<PodSummary>,
    pub jobs: Vec<JobSummary>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jobset: Option<JobSetSummary>,
    pub timeline: Vec<SimulationEvent>,
    /// The proposals this run was made under (absent: upstream semantics only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub proposals: Vec<crate::proposals::Proposal>,
    /// For a Kubeflow TrainJob workload: the TrainJob's state, as its controller derives it
    /// from the JobSet (and its activeDeadlineSeconds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub train_job: Option<crate::trainer::op::TrainJobSummary>,
}
