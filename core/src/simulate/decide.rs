//! The simulator asks the engine's own operations for the controllers' decisions — the Job's
//! pod failure policy, the JobSet's failure policy, the backoff figures — so a simulated
//! timeline can never disagree with what `evaluate` answers. (The kubelet's per-exit decision
//! comes from the same compiled tables `containerRestart` is checked against.) Answers that
//! depend only on a few values are cached: a run asks the same question many times.

use crate::contract::call_op as call;
use crate::diag::Diagnostic;
use serde_json::{Value, json};
use std::collections::HashMap;

/// The Job controller's answer for one failed Pod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodFailureOutcome {
    /// `FailJob`, `FailIndex`, `Ignore`, `Count`, or None when no rule matched.
    pub action: Option<String>,
    pub count_failed: bool,
    pub message: Option<String>,
}

/// Options every request of one run carries (version, gates).
#[derive(Debug, Clone, Default)]
pub struct Decider {
    pub options: serde_json::Map<String, Value>,
    pfp_cache: HashMap<(usize, String), PodFailureOutcome>,
    job_backoff_cache: HashMap<u32, u64>,
}

impl Decider {
    pub fn new(options: serde_json::Map<String, Value>) -> Self {
        Decider {
            options,
            ..Default::default()
        }
    }

    fn input(&self, extra: Value) -> Value {
        let mut m = self.options.clone();
        if let Value::Object(e) = extra {
            m.extend(e);
        }
        Value::Object(m)
    }

    /// The Job controller's pod failure policy for a failed Pod; `key` identifies the failure's
    /// shape (which containers ended with which codes, which conditions) for caching — the
    /// message, which names the Pod, is asked for again when the rule is FailJob.
    pub fn pod_failure(
        &mut self,
        job_template: usize,
        key: String,
        job: &Value,
        pod: &Value,
    ) -> Result<PodFailureOutcome, Diagnostic> {
        if let Some(o) = self.pfp_cache.get(&(job_template, key.clone()))
            && o.action.as_deref() != Some("FailJob")
        {
            return Ok(o.clone());
        }
        let r = call(
            "podFailurePolicy",
            self.input(json!({"job": job, "pod": pod})),
        )?;
        let o = PodFailureOutcome {
            action: r.get("action").and_then(Value::as_str).map(str::to_owned),
            count_failed: r
                .get("countFailed")
                .and_then(Value::as_bool)
                .unwrap_or(true),
            message: r.get("message").and_then(Value::as_str).map(str::to_owned),
        };
        self.pfp_cache.insert((job_template, key), o.clone());
        Ok(o)
    }

    /// The JobSet controller's answer to failed Jobs (full result of `jobsetFailurePolicy`).
    pub fn jobset(&mut self, jobset: &Value, failed_jobs: &[Value]) -> Result<Value, Diagnostic> {
        call(
            "jobsetFailurePolicy",
            self.input(json!({"jobset": jobset, "failedJobs": failed_jobs})),
        )
    }

    /// CrashLoopBackOff (initial, max) in milliseconds for this run's version, gates and kubelet config.
    pub fn crash_loop(&self, kubelet_config: Option<&Value>) -> Result<(u64, u64), Diagnostic> {
        let mut q = json!({"component": "kubelet", "restarts": 2});
        if let (Some(c), Some(m)) = (kubelet_config, q.as_object_mut()) {
            m.insert("kubeletConfig".into(), c.clone());
        }
        let r = call("backoff", self.input(q))?;
        let ms = |k: &str| {
            r.get(k)
                .and_then(Value::as_f64)
                .map(|s| (s * 1000.0).round() as u64)
        };
        match (ms("initialSeconds"), ms("maxSeconds")) {
            (Some(i), Some(m)) => Ok((i, m)),
            _ => Err(Diagnostic::request(
                "internal",
                "",
                "the backoff op gave no initialSeconds/maxSeconds",
            )),
        }
    }

    /// The Job controller's delay before it creates Pods again after `failures` failures in a
    /// row, in milliseconds (getRemainingTime at the instant of the last failure).
    pub fn job_backoff_ms(&mut self, failures: u32) -> Result<u64, Diagnostic> {
        if failures == 0 {
            return Ok(0);
        }
        if let Some(ms) = self.job_backoff_cache.get(&failures) {
            return Ok(*ms);
        }
        let t = "2026-01-01T00:00:00Z";
        let r = call(
            "backoff",
            json!({"component": "job-controller", "function": "getRemainingTime", "defaultBackoffSeconds": 10,
                   "maxBackoffSeconds": 600, "failuresAfterLastSuccess": failures, "lastFailureTime": t, "now": t}),
        )?;
        let ms = r
            .get("remainingSeconds")
            .and_then(Value::as_f64)
            .map(|s| (s * 1000.0).round() as u64)
            .unwrap_or(0);
        self.job_backoff_cache.insert(failures, ms);
        Ok(ms)
    }
}
