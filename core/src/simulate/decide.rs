//! The simulator asks the controllers' decisions — the Job's pod failure policy, the JobSet's
//! failure policy, the backoff figures — from the same typed functions the engine's operations
//! call, on the objects it holds, so a simulated timeline can never disagree with what
//! `evaluate` answers. (The kubelet's per-exit decision comes from the same compiled tables
//! `containerRestart` is checked against.) The pod failure policy's answers are cached by the
//! failure's shape: a run asks the same question many times.

use crate::api::{Job, JobSet, KubeletConfiguration, Pod};
use crate::backoff::job::{
    DEFAULT_JOB_POD_FAILURE_BACKOFF_SECONDS, MAX_JOB_POD_FAILURE_BACKOFF_SECONDS,
    remaining_for_failures,
};
use crate::diag::Diagnostic;
use crate::eval::jobset::JobSetFailurePolicyOutput;
use crate::features::FeatureGates;
use rustc_hash::FxHashMap;

/// The Job controller's answer for one failed Pod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodFailureOutcome {
    /// `FailJob`, `FailIndex`, `Ignore`, `Count`, or None when no rule matched.
    pub action: Option<String>,
    pub count_failed: bool,
    pub message: Option<String>,
}

/// What a container's status shows when its Pod fails (the part the policy reads).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ContainerShape {
    Running,
    Exited(i32),
    NotStarted,
}

/// A failed Pod as the pod failure policy sees it: its containers' states, in the template's
/// order, and its True conditions. Two Pods of one template with the same shape get the same
/// answer (but for a FailJob message, which names the Pod).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FailureShape {
    pub containers: Vec<ContainerShape>,
    pub conditions: Vec<&'static str>,
}

/// The decisions of one run, under its version and gates.
#[derive(Debug, Clone)]
pub struct Decider {
    gates: FeatureGates,
    pfp_cache: FxHashMap<(usize, FailureShape), PodFailureOutcome>,
}

/// Seconds (as the ops give them) to whole milliseconds, as the simulator's clock counts.
fn ms(seconds: f64) -> u64 {
    (seconds * 1000.0).round() as u64
}

impl Decider {
    /// The Kubernetes minor of the run.
    pub fn minor(&self) -> u32 {
        self.gates.version.minor
    }

    /// Whether feature gate `name` is on in the run.
    pub fn gate(&self, name: &str) -> bool {
        self.gates.enabled(name)
    }

    pub fn new(gates: FeatureGates) -> Self {
        Decider {
            gates,
            pfp_cache: FxHashMap::default(),
        }
    }

    /// The cached answer for a failure of this shape, unless it has to be asked again (FailJob:
    /// its message names the Pod).
    pub fn cached_pod_failure(
        &self,
        job_template: usize,
        shape: &FailureShape,
    ) -> Option<PodFailureOutcome> {
        // The key is built once per lookup; a failure shape is a few bytes.
        self.pfp_cache
            .get(&(job_template, shape.clone()))
            .filter(|o| o.action.as_deref() != Some("FailJob"))
            .cloned()
    }

    /// The Job controller's pod failure policy for failed Pod `pod` of `job` (the
    /// `podFailurePolicy` op's function), remembered under `shape`.
    pub fn pod_failure(
        &mut self,
        job_template: usize,
        shape: FailureShape,
        job: &Job,
        pod: &Pod,
    ) -> PodFailureOutcome {
        let r = crate::eval::job::evaluate(job, pod, &self.gates);
        let o = PodFailureOutcome {
            action: r.action,
            count_failed: r.count_failed,
            message: r.message,
        };
        self.pfp_cache.insert((job_template, shape), o.clone());
        o
    }

    /// The JobSet controller's answer to failed Jobs (the `jobsetFailurePolicy` op's function).
    pub fn jobset(
        &self,
        jobset: &JobSet,
        failed_jobs: &[Job],
    ) -> Result<JobSetFailurePolicyOutput, Diagnostic> {
        crate::eval::jobset::failure_policy(jobset, failed_jobs, &self.gates, None)
    }

    /// CrashLoopBackOff (initial, max) in milliseconds for this run's version, gates and kubelet
    /// configuration (the `backoff` op's kubelet set-up: a configuration the kubelet refuses is
    /// an error).
    pub fn crash_loop(
        &self,
        kubelet_config: Option<&KubeletConfiguration>,
    ) -> Result<(u64, u64), Diagnostic> {
        let setup = crate::backoff::kubelet::kubelet_setup(&self.gates, kubelet_config.cloned())?;
        Ok((ms(setup.initial.as_secs_f64()), ms(setup.max.as_secs_f64())))
    }

    /// The Job controller's delay before it creates Pods again after `failures` failures in a
    /// row, in milliseconds (getRemainingTime at the instant of the last failure).
    pub fn job_backoff_ms(&self, failures: u32) -> u64 {
        let nanos = |s: f64| (s * 1e9) as i64;
        let remaining = remaining_for_failures(
            nanos(DEFAULT_JOB_POD_FAILURE_BACKOFF_SECONDS),
            nanos(MAX_JOB_POD_FAILURE_BACKOFF_SECONDS),
            i32::try_from(failures).unwrap_or(i32::MAX),
            0,
        );
        ms(remaining as f64 / 1e9)
    }
}
