//! The scenario file: a workload, what happens to it, and for how long.

use crate::api::KubeletConfiguration;
use crate::diag::Diagnostic;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// A simulation scenario (`kind: Scenario`; YAML or JSON).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Scenario {
    /// `Scenario` (optional in the JSON contract).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// `restartkit.dev/v1alpha1` (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    /// A name shown in the output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kubernetes_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feature_gates: Option<BTreeMap<String, bool>>,
    /// The node's kubelet configuration (crashLoopBackOff.maxContainerRestartPeriod, featureGates).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kubelet_config: Option<KubeletConfiguration>,
    /// An inline Pod, Job or JobSet. (`workloadFile` is resolved by the CLI before the request.)
    #[serde(default)]
    pub workload: Value,
    /// A path to the workload manifest, relative to the scenario file (CLI only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload_file: Option<String>,
    /// When the workload is a Kubeflow TrainJob: its TrainingRuntime or ClusterTrainingRuntime
    /// (the JobSet the trainer builds from the two is simulated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<Value>,
    /// A path to the runtime manifest, relative to the scenario file (CLI only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_file: Option<String>,
    /// How long to simulate: `90s`, `30m`, `2h`, `30d` (default `1h`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_for: Option<String>,
    /// Seconds from a container's start decision until it runs (image pull, start).
    #[serde(default)]
    pub startup_seconds: f64,
    /// Seconds from a replacement Pod's creation until its first container starts (scheduling,
    /// sandbox, volumes).
    #[serde(default)]
    pub pod_reschedule_seconds: f64,
    /// Scripted exits, applied in order to each matching container.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exits: Vec<ScriptedExit>,
    /// Stochastic faults, reproducible with `seed`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub faults: Vec<Fault>,
    /// OpenKruise ContainerRecreateRequests issued during the run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub container_recreate_requests: Vec<CrrAction>,
    #[serde(default)]
    pub seed: u64,
    /// Keep at most this many timeline events (default 10,000; the summary counts everything).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_timeline_events: Option<usize>,
    /// Proposals to simulate under (docs/proposals.md): `Rapid` runs the kubelet's
    /// CrashLoopBackOff at 250 ms / 60 s. The result lists them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub proposals: Vec<crate::proposals::Proposal>,
    /// Proposal AlwaysPod: how the kubelet restarts the whole Pod — `Recreate` the Pod sandbox
    /// (the KEP's work-in-progress approach; default) or `Reuse` it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub always_pod_sandbox: Option<String>,
    /// How the cluster handles a lost node (`exits[].nodeFailure`, `faults[].kind: nodeFailure`):
    /// kube-controller-manager's node monitor settings, and whether and when the Node object is
    /// deleted or tainted out-of-service (docs/simulation.md, "A lost node").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_loss: Option<NodeLoss>,
    /// Proposal AlwaysPod with `Recreate`: seconds to tear down and recreate the sandbox (network
    /// namespace, IP) before the init containers run again (default 0).
    #[serde(default)]
    pub sandbox_recreate_seconds: f64,
}

/// Which containers an exit, fault or CRR applies to: every selector given must match
/// (`container`; `replicatedJob`; `jobIndex`, the Job's index in its replicatedJob; `podIndex`,
/// the completion index or pod number within the Job).
#[derive(Debug, Clone, Copy, Default)]
pub struct Selector<'a> {
    pub container: Option<&'a str>,
    pub replicated_job: Option<&'a str>,
    pub job_index: Option<u32>,
    pub pod_index: Option<u32>,
}

macro_rules! selector_of {
    ($t:ty) => {
        impl $t {
            pub fn selector(&self) -> Selector<'_> {
                Selector {
                    container: self.container.as_deref(),
                    replicated_job: self.replicated_job.as_deref(),
                    job_index: self.job_index,
                    pod_index: self.pod_index,
                }
            }
        }
    };
}
selector_of!(ScriptedExit);
selector_of!(Fault);
selector_of!(CrrAction);

#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScriptedExit {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicated_job: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_index: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_index: Option<u32>,
    /// Run time after each start before the container exits.
    pub after_seconds: f64,
    pub exit_code: i32,
    /// How many runs this entry scripts; omitted means every run from here on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<u32>,
    /// The terminated reason (`Error` by default; `OOMKilled`, `Completed`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Instead of the container exiting, the Pod's node is lost at this time (its kubelet stops):
    /// the node lifecycle controller, taint eviction and Pod GC take it from there
    /// (`nodeLoss`; docs/simulation.md, "A lost node").
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub node_failure: bool,
    /// Instead of the container exiting, the Pod is disrupted at this time while its node
    /// lives: the scheduler preempts it (`PreemptionByScheduler`) or an eviction — `kubectl
    /// drain`, cluster-autoscaler's scale-down — evicts it through the Eviction API
    /// (`EvictionByEvictionAPI`; the PodDisruptionBudget is taken to allow it). Either adds the
    /// DisruptionTarget condition with that reason and deletes the Pod with its grace period;
    /// the kubelet kills what still runs at its end (exit code 137).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disruption: Option<Disruption>,
}

/// Who disrupts a Pod (`exits[].disruption`): the DisruptionTarget condition's reason.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
pub enum Disruption {
    /// The scheduler's preemption of a lower-priority victim (pkg/scheduler/framework/preemption).
    PreemptionByScheduler,
    /// The Eviction API (pkg/registry/core/pod/storage/eviction.go): kubectl drain,
    /// cluster-autoscaler's scale-down, a descheduler.
    EvictionByEvictionAPI,
}

impl Disruption {
    /// The timeline event, and the DisruptionTarget condition's reason and message as upstream
    /// writes them (the preemptor's scheduler taken to be default-scheduler).
    pub fn condition(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Disruption::PreemptionByScheduler => (
                "Preempted",
                "PreemptionByScheduler",
                "default-scheduler: preempting to accommodate a higher priority pod",
            ),
            Disruption::EvictionByEvictionAPI => {
                ("Evicted", "EvictionByEvictionAPI", "Eviction API: evicting")
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum FaultKind {
    /// A running container exits with one of `exitCodes`.
    ContainerExit,
    /// The container is OOM-killed (exit 137, reason OOMKilled).
    OomKill,
    /// The Pod's node is lost (as `exits[].nodeFailure`; see `nodeLoss`).
    NodeFailure,
    /// The scheduler preempts the Pod (as `exits[].disruption: PreemptionByScheduler`).
    Preemption,
    /// The Eviction API evicts the Pod: a drain or a scale-down (as `exits[].disruption:
    /// EvictionByEvictionAPI`).
    Eviction,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Fault {
    pub kind: FaultKind,
    /// Mean faults per hour for each matching running Pod (a Poisson process).
    pub rate_per_hour: f64,
    /// For containerExit: the exit codes, drawn uniformly (default [1]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exit_codes: Vec<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicated_job: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_index: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_index: Option<u32>,
}

/// What happens around a lost node. Upstream's defaults apply to what is left out.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NodeLoss {
    /// kube-controller-manager's `--node-monitor-grace-period`: how long a node may go without
    /// renewing its Lease before it is marked not ready (default 40 s at 1.31, 50 s from 1.32).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_monitor_grace_period_seconds: Option<f64>,
    /// `--node-monitor-period`: how often the node lifecycle controller looks (default 5 s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_monitor_period_seconds: Option<f64>,
    /// The Node object is deleted this long after the loss (a cloud provider's node controller,
    /// an operator); the Pod garbage collector then fails the node's Pods. Default: never.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_deleted_after_seconds: Option<f64>,
    /// An operator taints the Node `node.kubernetes.io/out-of-service:NoExecute` this long after
    /// the loss; the Pod garbage collector then fails its terminating Pods. Default: never.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub out_of_service_after_seconds: Option<f64>,
    /// Idealised, not what a cluster does: the Pod fails at the instant its node is lost, with
    /// DisruptionTarget and every container ended with 137, as if the node lifecycle, taint
    /// eviction and Pod GC took no time. For tests of the Job and JobSet controllers and for
    /// comparing with runs made before restartkit modelled the node's path.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub idealised_instant_failure: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CrrAction {
    pub at_seconds: f64,
    /// The containers to recreate, in order.
    pub containers: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicated_job: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_index: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_index: Option<u32>,
}

/// Parses `90s`, `1.5h`, `30m`, `2d`, `1h30m`, or a plain number of seconds, into milliseconds.
pub fn parse_duration_ms(s: &str) -> Result<u64, Diagnostic> {
    let bad = || {
        Diagnostic::request(
            "invalid-duration",
            "runFor",
            format!("{s:?} is not a duration such as \"90s\", \"30m\", \"2h\" or \"30d\""),
        )
    };
    let t = s.trim();
    if let Ok(secs) = t.parse::<f64>() {
        return secs_to_ms(secs).ok_or_else(bad);
    }
    let mut total = 0f64;
    let mut num = String::new();
    let mut chars = t.chars().peekable();
    let mut any = false;
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() || c == '.' {
            num.push(c);
            continue;
        }
        let unit = if c == 'm' && chars.peek() == Some(&'s') {
            chars.next();
            0.001
        } else {
            match c {
                's' => 1.0,
                'm' => 60.0,
                'h' => 3600.0,
                'd' => 86400.0,
                _ => return Err(bad()),
            }
        };
        let n: f64 = num.parse().map_err(|_| bad())?;
        total += n * unit;
        num.clear();
        any = true;
    }
    if !num.is_empty() || !any {
        return Err(bad());
    }
    secs_to_ms(total).ok_or_else(bad)
}

pub fn secs_to_ms(secs: f64) -> Option<u64> {
    if (0.0..1e13).contains(&secs) {
        Some((secs * 1000.0).round() as u64)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ms("90s").ok(), Some(90_000));
        assert_eq!(parse_duration_ms("1h30m").ok(), Some(5_400_000));
        assert_eq!(parse_duration_ms("30d").ok(), Some(2_592_000_000));
        assert_eq!(parse_duration_ms("250ms").ok(), Some(250));
        assert_eq!(parse_duration_ms("12").ok(), Some(12_000));
        assert!(parse_duration_ms("soon").is_err());
        assert!(parse_duration_ms("-5").is_err());
        assert!(parse_duration_ms("5x").is_err());
    }
}
