//! The kubelet's CrashLoopBackOff curve.
//!
//! Upstream: `pkg/kubelet/kubelet.go` (newCrashLoopBackOff, its 600 s expiry function),
//! `pkg/kubelet/kuberuntime/kuberuntime_manager.go` (doBackOff),
//! `staging/src/k8s.io/client-go/util/flowcontrol/backoff.go` (Backoff: Next, IsInBackOffSince,
//! GC). Idealised time: a restart happens the instant its backoff has expired (real restarts wait
//! for the next pod sync, so they are a little later), and no jitter (the kubelet uses none).
//!
//! - initial/max: 10 s / 300 s; 1 s / 60 s with ReduceDefaultCrashLoopBackOffDecay; with
//!   KubeletCrashLoopBackOffMax the max becomes the node's maxContainerRestartPeriod and the
//!   initial is lowered to it when larger.
//! - The first restart after a crash with no backoff entry is immediate; `Next` then stores the
//!   initial value, which delays the second restart; each later restart doubles it up to max.
//! - The entry expires (the next restart is immediate and the curve starts again) when the
//!   container ran more than 600 s since the previous restart decision; housekeeping GC also
//!   drops an entry 600 s after that decision, even while the container waits in back-off.

use crate::api::KubeletConfiguration;
use crate::diag::{Diagnostic, Findings, Severity};
use crate::features::FeatureGates;
use crate::validate::Ctx;
use crate::validate::kubelet_config::{self, GATE_MAX, GATE_REDUCED};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Duration;

/// `initialCrashLoopBackOff`.
pub const INITIAL: Duration = Duration::from_secs(10);
/// `MaxCrashLoopBackOff` (v1beta1.MaxContainerBackOff).
pub const MAX: Duration = Duration::from_secs(300);
/// `reducedInitialCrashLoopBackOff`.
pub const REDUCED_INITIAL: Duration = Duration::from_secs(1);
/// `reducedMaxCrashLoopBackOff`.
pub const REDUCED_MAX: Duration = Duration::from_secs(60);
/// The kubelet's expiry: an entry older than this (since the last `Next`) is reset.
pub const RESET_AFTER_RUN: Duration = Duration::from_secs(600);
/// The kubelet's housekeeping period (housekeepingPeriod, pkg/kubelet/kubelet.go): its garbage
/// collection of back-off entries runs this often, so an entry is dropped at the first run more
/// than `RESET_AFTER_RUN` after its last update.
pub const HOUSEKEEPING_PERIOD: Duration = Duration::from_secs(2);

/// newCrashLoopBackOff from the kubelet's effective gates and its (defaulted) node setting.
/// `max_container_restart_period` None with the max gate on stands for the defaulted 300 s.
pub fn crash_loop_params_for(
    gates: &FeatureGates,
    max_container_restart_period: Option<Duration>,
) -> (Duration, Duration) {
    let (mut initial, mut max) = (INITIAL, MAX);
    if gates.enabled(GATE_REDUCED) {
        initial = REDUCED_INITIAL;
        max = REDUCED_MAX;
    }
    if gates.enabled(GATE_MAX) {
        max = max_container_restart_period.unwrap_or(MAX);
        if max < initial {
            initial = max;
        }
    }
    (initial, max)
}

/// newCrashLoopBackOff for a kubelet started with `gates` (version defaults and command-line
/// overrides) and configuration `cfg`: the configuration's own `featureGates` apply on top, and
/// its crashLoopBackOff is defaulted first. `cfg` is assumed valid (see
/// `validate::kubelet_config`); an unreadable or negative period counts as unset.
pub fn crash_loop_params(gates: &FeatureGates, cfg: &KubeletConfiguration) -> (Duration, Duration) {
    let effective = kubelet_config::kubelet_gates(gates, cfg);
    let period = kubelet_config::max_container_restart_period(cfg)
        .ok()
        .flatten()
        .and_then(|n| u64::try_from(n).ok())
        .map(Duration::from_nanos);
    crash_loop_params_for(&effective, period)
}

/// Most restarts one `backoff` curve may hold: the curve is materialised step by step, and
/// u32::MAX steps would exhaust memory (found by the bad-input corpus). `backoffCompare` asks
/// for at most this many.
pub const MAX_RESTARTS: u32 = 1_000_000;

/// The wait before each of `restarts` restarts of a container that crashes as soon as it starts
/// (no reset in between): 0, I, 2I, 4I, … capped at max.
pub fn delays(initial: Duration, max: Duration, restarts: usize) -> Vec<Duration> {
    simulate(initial, max, &crashes(restarts))
        .map(|steps| steps.into_iter().map(|s| s.delay).collect())
        .unwrap_or_default()
}

/// One step of a simulated timeline.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// Index of the event that caused it.
    pub event: usize,
    /// Time of the crash (the container's FinishedAt), from the first start.
    pub finished_at: Duration,
    /// Wait from FinishedAt to the restart.
    pub delay: Duration,
    /// Time of the restart.
    pub restart_at: Duration,
    /// The backoff stored after the restart (the wait the next crash will see, before doubling).
    pub backoff_after: Duration,
    pub why: StepReason,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum StepReason {
    /// No backoff entry (first crash, or state forgotten): immediate restart.
    NoEntry,
    /// The container ran more than 600 s since the last restart decision: entry expired.
    Expired,
    /// Restarted when the backoff ran out.
    BackOff,
    /// Housekeeping GC dropped the entry (600 s after the last decision) during the wait.
    GarbageCollected,
}

/// A timeline event: `crash` (with `ranSeconds`, the time from the restart decision to the
/// container's exit; 0 when absent), `kubeletRestart` (the kubelet restarts and forgets every
/// backoff entry) or `specChange` (the container spec changes, so its backoff key is new).
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TimelineEvent {
    pub event: String,
    #[serde(default)]
    pub ran_seconds: Option<f64>,
}

/// Runs the kubelet's Backoff over a timeline; one step per crash. Starts at t = 0 with the
/// container's first start.
pub fn simulate(
    initial: Duration,
    max: Duration,
    events: &[TimelineEvent],
) -> Result<Vec<Step>, Diagnostic> {
    let mut t = Duration::ZERO;
    // (backoff, lastUpdate)
    let mut entry: Option<(Duration, Duration)> = None;
    let mut steps = Vec::new();
    for (k, e) in events.iter().enumerate() {
        match e.event.as_str() {
            "crash" => {
                let ran_s = e.ran_seconds.unwrap_or(0.0);
                let ran = Duration::try_from_secs_f64(ran_s).map_err(|_| {
                    Diagnostic::request(
                        "invalid-input",
                        &format!("input.timeline[{k}].ranSeconds"),
                        format!("input.timeline[{k}].ranSeconds: {ran_s} is not a non-negative number of seconds"),
                    )
                })?;
                let finished = t.saturating_add(ran);
                let (delay, why, next) = match entry {
                    None => (Duration::ZERO, StepReason::NoEntry, initial),
                    Some((_, last)) if finished.saturating_sub(last) > RESET_AFTER_RUN => {
                        (Duration::ZERO, StepReason::Expired, initial)
                    }
                    Some((b, last)) => {
                        let gc_at = last.saturating_add(RESET_AFTER_RUN);
                        if finished.saturating_add(b) > gc_at {
                            (
                                gc_at.saturating_sub(finished),
                                StepReason::GarbageCollected,
                                initial,
                            )
                        } else {
                            (b, StepReason::BackOff, b.saturating_mul(2).min(max))
                        }
                    }
                };
                let restart_at = finished.saturating_add(delay);
                entry = Some((next, restart_at));
                t = restart_at;
                steps.push(Step {
                    event: k,
                    finished_at: finished,
                    delay,
                    restart_at,
                    backoff_after: next,
                    why,
                });
            }
            "kubeletRestart" | "specChange" => entry = None,
            other => {
                return Err(Diagnostic::request(
                    "invalid-input",
                    &format!("input.timeline[{k}].event"),
                    format!(
                        "input.timeline[{k}].event: unknown event {other:?}; known events: crash, kubeletRestart, specChange"
                    ),
                ));
            }
        }
    }
    Ok(steps)
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KubeletBackoffInput {
    #[serde(default)]
    pub kubernetes_version: Option<String>,
    /// The kubelet's command-line gates over the version defaults.
    #[serde(default)]
    pub feature_gates: Option<BTreeMap<String, bool>>,
    /// The node's KubeletConfiguration; its own featureGates apply on top of `featureGates`.
    #[serde(default)]
    pub kubelet_config: Option<Box<KubeletConfiguration>>,
    /// Number of restarts of a container that crashes as soon as it starts (at most 1,000,000:
    /// `MAX_RESTARTS`).
    #[serde(default)]
    pub restarts: Option<u32>,
    /// Or: an explicit sequence of crashes and resets.
    #[serde(default)]
    pub timeline: Option<Vec<TimelineEvent>>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TimelineStepOutput {
    pub event: usize,
    pub finished_at_seconds: f64,
    pub delay_seconds: f64,
    pub restart_at_seconds: f64,
    pub backoff_after_seconds: f64,
    pub reason: StepReason,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KubeletBackoffOutput {
    pub initial_seconds: f64,
    pub max_seconds: f64,
    /// A container that runs longer than this after a restart starts the curve again.
    pub reset_after_run_seconds: f64,
    /// `delaysSeconds[k]`: the wait before restart k+1, from the previous container's FinishedAt.
    pub delays_seconds: Vec<f64>,
    /// Times of the restarts from the first start (t = 0).
    pub restart_times_seconds: Vec<f64>,
    /// The kubelet's effective crash-loop gates.
    pub feature_gates: BTreeMap<String, bool>,
    /// maxContainerRestartPeriod after defaulting, when the max gate is on.
    pub max_container_restart_period_seconds: Option<f64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub timeline: Vec<TimelineStepOutput>,
    pub reason: String,
}

/// A kubelet as it starts: its configuration after defaulting, its effective gates, and its
/// CrashLoopBackOff curve.
#[derive(Debug, Clone)]
pub struct KubeletSetup {
    pub config: KubeletConfiguration,
    pub effective_gates: FeatureGates,
    pub initial: Duration,
    pub max: Duration,
}

/// The kubelet started with `gates` and configuration `cfg` (None: all defaults): defaulted,
/// validated (a configuration the kubelet refuses is an error naming the field), and its curve.
/// The `backoff` op and the simulator both start their kubelet here.
pub fn kubelet_setup(
    gates: &FeatureGates,
    cfg: Option<KubeletConfiguration>,
) -> Result<KubeletSetup, Diagnostic> {
    let mut cfg = cfg.unwrap_or_default();
    let ctx = Ctx {
        gates: gates.clone(),
        skip_defaulting: false,
        future_rules: false,
        always_pod: false,
        field_validation: Default::default(),
    };
    kubelet_config::default_kubelet_config(&mut cfg, &ctx);
    let mut findings = Findings::default();
    kubelet_config::validate_kubelet_config(&cfg, &ctx, &mut findings);
    if let Some(e) = findings
        .errors
        .into_iter()
        .find(|d| d.severity == Severity::Error)
    {
        let mut e = e;
        e.message = format!("the kubelet refuses this configuration: {}", e.message);
        e.field = format!("input.kubeletConfig.{}", e.field);
        return Err(e);
    }
    let effective_gates = kubelet_config::kubelet_gates(gates, &cfg);
    let (initial, max) = crash_loop_params(gates, &cfg);
    Ok(KubeletSetup {
        config: cfg,
        effective_gates,
        initial,
        max,
    })
}

/// The crash times of a container that crashes as soon as it starts, `n` times.
pub fn crashes(n: usize) -> Vec<TimelineEvent> {
    vec![
        TimelineEvent {
            event: "crash".to_owned(),
            ran_seconds: None
        };
        n
    ]
}

pub fn run(i: KubeletBackoffInput) -> Result<KubeletBackoffOutput, Diagnostic> {
    let (gates, _) =
        FeatureGates::resolve(i.kubernetes_version.as_deref(), i.feature_gates.as_ref())?;
    let period_given = !i_period_was_default(&i.kubelet_config);
    let KubeletSetup {
        config: cfg,
        effective_gates: effective,
        initial,
        max,
    } = kubelet_setup(&gates, i.kubelet_config.map(|b| *b))?;
    let steps = match (&i.timeline, i.restarts) {
        (Some(_), Some(_)) => {
            return Err(Diagnostic::request(
                "invalid-input",
                "input",
                "give either `restarts` or `timeline`, not both",
            ));
        }
        (Some(tl), None) => simulate(initial, max, tl)?,
        (None, n) => {
            let n = n.unwrap_or(0);
            if n > MAX_RESTARTS {
                return Err(Diagnostic::request(
                    "invalid-input",
                    "input.restarts",
                    format!(
                        "input.restarts: {n} is more than the {MAX_RESTARTS} restarts one curve may hold"
                    ),
                ));
            }
            let n = usize::try_from(n).unwrap_or(0);
            simulate(initial, max, &crashes(n))?
        }
    };
    let period = kubelet_config::max_container_restart_period(&cfg)
        .ok()
        .flatten()
        .map(kubelet_config::duration_seconds);
    let on = |g: &str| effective.enabled(g);
    let mut reason = match (on(GATE_REDUCED), on(GATE_MAX)) {
        (false, false) => format!(
            "default curve: {}s doubling to {}s",
            INITIAL.as_secs(),
            MAX.as_secs()
        ),
        (true, false) => "ReduceDefaultCrashLoopBackOffDecay: 1s doubling to 60s".to_owned(),
        (reduced, true) => format!(
            "KubeletCrashLoopBackOffMax: max = maxContainerRestartPeriod {}s{}; initial {}s{}",
            kubelet_config::go_float(max.as_secs_f64()),
            if period_given { "" } else { " (defaulted)" },
            kubelet_config::go_float(initial.as_secs_f64()),
            if initial < if reduced { REDUCED_INITIAL } else { INITIAL } {
                " (lowered to the max)"
            } else if reduced {
                " (ReduceDefaultCrashLoopBackOffDecay)"
            } else {
                ""
            }
        ),
    };
    reason.push_str("; the first restart after a crash is immediate, and the curve starts again after a run longer than 600s");
    Ok(KubeletBackoffOutput {
        initial_seconds: initial.as_secs_f64(),
        max_seconds: max.as_secs_f64(),
        reset_after_run_seconds: RESET_AFTER_RUN.as_secs_f64(),
        delays_seconds: steps.iter().map(|s| s.delay.as_secs_f64()).collect(),
        restart_times_seconds: steps.iter().map(|s| s.restart_at.as_secs_f64()).collect(),
        feature_gates: [GATE_MAX, GATE_REDUCED]
            .iter()
            .map(|g| ((*g).to_owned(), effective.enabled(g)))
            .collect(),
        max_container_restart_period_seconds: if effective.enabled(GATE_MAX) {
            period
        } else {
            None
        },
        timeline: if i.timeline.is_some() {
            steps
                .iter()
                .map(|s| TimelineStepOutput {
                    event: s.event,
                    finished_at_seconds: s.finished_at.as_secs_f64(),
                    delay_seconds: s.delay.as_secs_f64(),
                    restart_at_seconds: s.restart_at.as_secs_f64(),
                    backoff_after_seconds: s.backoff_after.as_secs_f64(),
                    reason: s.why,
                })
                .collect()
        } else {
            Vec::new()
        },
        reason,
    })
}

fn i_period_was_default(cfg: &Option<Box<KubeletConfiguration>>) -> bool {
    cfg.as_ref()
        .and_then(|c| c.crash_loop_back_off.as_ref())
        .and_then(|c| c.max_container_restart_period.as_ref())
        .is_none()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use super::*;
    use proptest::prelude::*;

    fn gates(reduced: bool, max: bool) -> FeatureGates {
        let mut g = FeatureGates::default();
        g.set(GATE_REDUCED, reduced);
        g.set(GATE_MAX, max);
        g
    }

    fn secs(v: &[Duration]) -> Vec<f64> {
        v.iter().map(Duration::as_secs_f64).collect()
    }

    #[test]
    fn params_for_every_gate_combination() {
        let s = Duration::from_secs;
        assert_eq!(
            crash_loop_params_for(&gates(false, false), None),
            (s(10), s(300))
        );
        assert_eq!(
            crash_loop_params_for(&gates(true, false), None),
            (s(1), s(60))
        );
        assert_eq!(
            crash_loop_params_for(&gates(false, true), None),
            (s(10), s(300))
        );
        assert_eq!(
            crash_loop_params_for(&gates(false, true), Some(s(30))),
            (s(10), s(30))
        );
        assert_eq!(
            crash_loop_params_for(&gates(false, true), Some(s(2))),
            (s(2), s(2))
        );
        assert_eq!(
            crash_loop_params_for(&gates(true, true), None),
            (s(1), s(300))
        );
        assert_eq!(
            crash_loop_params_for(&gates(true, true), Some(s(2))),
            (s(1), s(2))
        );
        // The period is ignored without the max gate (validation rejects it there anyway).
        assert_eq!(
            crash_loop_params_for(&gates(false, false), Some(s(2))),
            (s(10), s(300))
        );
    }

    #[test]
    fn config_gates_apply_on_top() {
        let cfg: KubeletConfiguration = serde_json::from_value(serde_json::json!({
            "featureGates": {"KubeletCrashLoopBackOffMax": true},
            "crashLoopBackOff": {"maxContainerRestartPeriod": "1m30s"}
        }))
        .unwrap();
        assert_eq!(
            crash_loop_params(&gates(false, false), &cfg),
            (Duration::from_secs(10), Duration::from_secs(90))
        );
    }

    #[test]
    fn default_curve() {
        assert_eq!(
            secs(&delays(INITIAL, MAX, 10)),
            vec![
                0.0, 10.0, 20.0, 40.0, 80.0, 160.0, 300.0, 300.0, 300.0, 300.0
            ]
        );
    }

    fn crash(r: f64) -> TimelineEvent {
        TimelineEvent {
            event: "crash".into(),
            ran_seconds: Some(r),
        }
    }

    #[test]
    fn reset_after_long_run() {
        let tl = vec![crash(0.0), crash(0.0), crash(0.0), crash(601.0), crash(0.0)];
        let steps = simulate(INITIAL, MAX, &tl).unwrap();
        assert_eq!(
            steps
                .iter()
                .map(|s| s.delay.as_secs_f64())
                .collect::<Vec<_>>(),
            vec![0.0, 10.0, 20.0, 0.0, 10.0]
        );
        assert_eq!(steps[3].why, StepReason::Expired);
        // Exactly 600 s does not expire (strictly greater).
        let steps = simulate(INITIAL, MAX, &[crash(0.0), crash(600.0)]).unwrap();
        assert_eq!(steps[1].why, StepReason::GarbageCollected);
    }

    #[test]
    fn gc_during_wait() {
        // Ran 500 s, then would wait 160 s: GC drops the entry at 600 s after the decision.
        let tl = vec![
            crash(0.0),
            crash(0.0),
            crash(0.0),
            crash(0.0),
            crash(0.0),
            crash(500.0),
        ];
        let steps = simulate(INITIAL, MAX, &tl).unwrap();
        assert_eq!(steps[5].why, StepReason::GarbageCollected);
        assert_eq!(steps[5].delay, Duration::from_secs(100));
        assert_eq!(steps[5].backoff_after, INITIAL);
    }

    #[test]
    fn forgetting_state() {
        let tl = vec![
            crash(0.0),
            crash(0.0),
            TimelineEvent {
                event: "kubeletRestart".into(),
                ran_seconds: None,
            },
            crash(0.0),
        ];
        let steps = simulate(INITIAL, MAX, &tl).unwrap();
        assert_eq!(steps[2].why, StepReason::NoEntry);
        assert_eq!(steps[2].delay, Duration::ZERO);
        assert!(
            simulate(
                INITIAL,
                MAX,
                &[TimelineEvent {
                    event: "nap".into(),
                    ran_seconds: None
                }]
            )
            .is_err()
        );
        assert!(simulate(INITIAL, MAX, &[crash(-1.0)]).is_err());
    }

    #[test]
    fn op_rejects_invalid_config() {
        let cfg: KubeletConfiguration = serde_json::from_value(
            serde_json::json!({"crashLoopBackOff": {"maxContainerRestartPeriod": "0s"}}),
        )
        .unwrap();
        let mut fg = BTreeMap::new();
        fg.insert(GATE_MAX.to_owned(), true);
        let err = run(KubeletBackoffInput {
            kubernetes_version: None,
            feature_gates: Some(fg),
            kubelet_config: Some(Box::new(cfg)),
            restarts: Some(3),
            timeline: None,
        })
        .unwrap_err();
        assert!(err.message.contains("must be set between 1s and 300s"));
    }

    #[test]
    fn contract_accepts_vector_fields_and_rejects_others() {
        let ok = crate::handle_json(
            r#"{"op":"backoff","input":{"component":"kubelet","featureGates":{"KubeletCrashLoopBackOffMax":true},
                "kubeletConfig":{"kind":"KubeletConfiguration","crashLoopBackOff":{"maxContainerRestartPeriod":"2s"}},"restarts":3}}"#,
        );
        let v: serde_json::Value = serde_json::from_str(&ok).unwrap();
        assert_eq!(v["status"], "ok", "{ok}");
        assert_eq!(
            v["result"]["delaysSeconds"],
            serde_json::json!([0.0, 2.0, 2.0])
        );
        let bad =
            crate::handle_json(r#"{"op":"backoff","input":{"component":"kubelet","restartz":3}}"#);
        let v: serde_json::Value = serde_json::from_str(&bad).unwrap();
        assert_eq!(v["status"], "error", "{bad}");
    }

    proptest! {
        #[test]
        fn curve_is_monotone_and_capped(
            reduced in any::<bool>(), max_gate in any::<bool>(),
            period_ms in prop::option::of(1000u64..=300_000), n in 1usize..40,
        ) {
            let (initial, max) = crash_loop_params_for(&gates(reduced, max_gate), period_ms.map(Duration::from_millis));
            prop_assert!(initial <= max);
            let d = delays(initial, max, n);
            prop_assert_eq!(d.len(), n);
            prop_assert_eq!(d[0], Duration::ZERO);
            for w in d.windows(2) {
                prop_assert!(w[0] <= w[1]);
            }
            for x in &d {
                prop_assert!(*x <= max);
            }
            if n > 1 {
                prop_assert_eq!(d[1], initial);
            }
            if n > 12 {
                prop_assert_eq!(d[n - 1], max);
            }
        }

        #[test]
        fn timeline_delays_never_exceed_max(runs in prop::collection::vec(0u32..900, 1..30)) {
            let tl: Vec<TimelineEvent> = runs.iter().map(|r| crash(f64::from(*r))).collect();
            let steps = simulate(INITIAL, MAX, &tl).unwrap();
            for s in &steps {
                prop_assert!(s.delay <= MAX);
                prop_assert!(s.backoff_after <= MAX && s.backoff_after >= INITIAL);
            }
        }
    }
}
