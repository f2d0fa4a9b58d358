//! Backoff analysis: several CrashLoopBackOff configurations side by side, as KEP-4603 reasons
//! about them — restarts within time windows for a container that crashes at once, excess
//! restarts against the legacy 10 s / 300 s curve, and the API load of N crashing Pods.

use crate::api::KubeletConfiguration;
use crate::backoff::kubelet;
use crate::diag::{Diagnostic, FieldPath};
use crate::features::FeatureGates;
use crate::proposals::{self, Proposal};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The windows KEP-4603 compares curves over, in seconds: 10 s, 30 s, 70 s, 5 min, 30 min.
pub const WINDOWS: [u64; 5] = [10, 30, 70, 300, 1800];

#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CurveConfig {
    /// A label for tables and charts.
    pub label: String,
    #[serde(default)]
    pub kubernetes_version: Option<String>,
    #[serde(default)]
    pub feature_gates: Option<BTreeMap<String, bool>>,
    /// A KubeletConfiguration (crashLoopBackOff, featureGates).
    #[serde(default)]
    pub kubelet_config: Option<Value>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CompareInput {
    pub curves: Vec<CurveConfig>,
    /// Crashing Pods on one node (KEP-4603 uses the default maximum, 110).
    #[serde(default = "default_pods")]
    pub pods: u32,
    /// API requests each restart costs (status updates; KEP-4603's estimate is 5).
    #[serde(default = "default_requests")]
    pub requests_per_restart: u32,
    /// Horizon of the curves in seconds (default 30 min).
    #[serde(default = "default_horizon")]
    pub horizon_seconds: u64,
    /// Proposals whose curves to show beside these (KEP4603Alternatives, Rapid, …); with any,
    /// the result adds the load model and the KEP-4603 figures (docs/proposals.md).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub proposals: Vec<Proposal>,
    /// Curves per exit reason for the ExitReasonOverrides proposal (defaults: docs/proposals.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_reason_overrides: Option<proposals::ExitReasonOverrides>,
}

fn default_pods() -> u32 {
    110
}
fn default_requests() -> u32 {
    5
}
fn default_horizon() -> u64 {
    1800
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WindowCount {
    pub window_seconds: u64,
    /// Restarts at times t ≤ window, first restart at t = 0.
    pub restarts: u64,
    /// Restarts minus the legacy 10 s / 300 s curve's in the same window.
    pub excess_over_legacy: i64,
    /// API requests in the window for `pods` crashing Pods.
    pub api_requests: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CurveResult {
    pub label: String,
    pub initial_seconds: f64,
    pub max_seconds: f64,
    /// Restart times within the horizon.
    pub restart_times_seconds: Vec<f64>,
    pub windows: Vec<WindowCount>,
    /// Steady state once the cap is reached: restarts per 5 minutes, and its excess over legacy.
    pub steady_restarts_per_5min: f64,
    pub steady_excess_per_5min: f64,
    /// Peak API request rate on the node (requests per 10 s) at the fastest point of the curve.
    pub peak_requests_per_10s: f64,
    /// The proposal this curve models (absent: an upstream curve).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposal: Option<Proposal>,
    /// Under a proposal: API requests and kubelet restarts over time, per 10 s bucket.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load: Option<Vec<LoadPoint>>,
}

/// One 10 s bucket of the load model: N crashing Pods restarting in lockstep.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoadPoint {
    pub start_seconds: u64,
    /// Restarts of one Pod's container in [start, start + 10 s).
    pub restarts: u64,
    /// API requests on the node in the bucket (`restarts × pods × requestsPerRestart`).
    pub requests: u64,
    pub requests_per_second: f64,
    /// Container restarts the kubelet performs per second on the node.
    pub kubelet_restarts_per_second: f64,
}

/// KEP-4603's load figures ("Risks and Mitigations"), recomputed from the curves.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KepLoadFigures {
    /// Today's (10 s / 300 s) busiest 10 s: the KEP's "~550 requests/10s".
    pub today_requests_per_10s: f64,
    /// The KEP's figure for the 1 s initial value, "a new restart for each pod every second":
    /// `pods × requestsPerRestart × 10 s / 1 s` (the KEP's "~5500 requests/10s").
    pub kep_rate_bound_requests_per_10s: f64,
    /// The busiest 10 s of the 1 s / 60 s curve itself (the 2x decay never sustains 1/s).
    pub recomputed_peak_requests_per_10s: f64,
    /// Excess restarts per Pod in the first 5 minutes, 1 s / 60 s against 10 s / 300 s (KEP: 5).
    pub excess_restarts_first_5min: i64,
    /// Their API requests on the node (KEP: "2750 excess API requests").
    pub excess_requests_first_5min: i64,
    /// Excess restarts per Pod per 5 minutes once both curves sit at their caps (300/60 − 1).
    pub steady_excess_restarts_per_5min: f64,
    pub steady_excess_requests_per_5min: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CompareOutput {
    pub pods: u32,
    pub requests_per_restart: u32,
    pub curves: Vec<CurveResult>,
    /// The proposals this result was made under (absent: upstream only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub proposals: Vec<Proposal>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kep_load_figures: Option<KepLoadFigures>,
}

/// The curve `cfg` (the input's member `at`) names, up to `horizon` seconds: (initial, max,
/// restart times), from the same kubelet set-up and curve as the `backoff` op.
fn curve(
    cfg: &CurveConfig,
    at: &FieldPath,
    horizon: u64,
) -> Result<(f64, f64, Vec<f64>), Diagnostic> {
    let config_at = at.child("kubeletConfig");
    let kubelet_config = match &cfg.kubelet_config {
        Some(v) => Some(crate::decode::input_at::<KubeletConfiguration>(
            v, &config_at,
        )?),
        None => None,
    };
    let (gates, _) = FeatureGates::resolve(
        cfg.kubernetes_version.as_deref(),
        cfg.feature_gates.as_ref(),
    )?;
    // kubelet_setup names a refused configuration's fields below the backoff op's
    // `input.kubeletConfig`; here the configuration is a curve's.
    let setup = kubelet::kubelet_setup(&gates, kubelet_config).map_err(|mut e| {
        if let Some(rest) = e.field.strip_prefix("input.kubeletConfig") {
            e.field = format!("{}{rest}", config_at.as_str());
        }
        e
    })?;
    let (initial, max) = (setup.initial.as_secs_f64(), setup.max.as_secs_f64());
    // Enough restarts to pass the horizon at the fastest (capped) rate.
    let n = if max > 0.0 {
        ((horizon as f64 / max).ceil() as u64 + 64).min(u64::from(kubelet::MAX_RESTARTS))
    } else {
        64
    };
    let steps = kubelet::simulate(
        setup.initial,
        setup.max,
        &kubelet::crashes(usize::try_from(n).unwrap_or(0)),
    )?;
    let times: Vec<f64> = steps
        .iter()
        .map(|s| s.restart_at.as_secs_f64())
        .filter(|t| *t <= horizon as f64)
        .collect();
    Ok((initial, max, times))
}

fn count_within(times: &[f64], w: f64) -> u64 {
    times.iter().filter(|t| **t <= w).count() as u64
}

fn peak_in_10s(times: &[f64]) -> u64 {
    // The fastest 10 s of the curve: most restarts in any 10 s window.
    let mut peak = 0u64;
    for (i, t) in times.iter().enumerate() {
        let in_window = times.iter().skip(i).take_while(|u| **u < t + 10.0).count() as u64;
        peak = peak.max(in_window);
    }
    peak
}

fn result(
    label: String,
    initial: f64,
    max: f64,
    times: Vec<f64>,
    legacy_times: &[f64],
    per_restart: u64,
) -> CurveResult {
    let windows = WINDOWS
        .iter()
        .map(|w| {
            let n = count_within(&times, *w as f64);
            WindowCount {
                window_seconds: *w,
                restarts: n,
                excess_over_legacy: n as i64 - count_within(legacy_times, *w as f64) as i64,
                api_requests: n * per_restart,
            }
        })
        .collect();
    let steady = if max > 0.0 { 300.0 / max } else { 0.0 };
    // The legacy curve restarts once per its 300 s cap.
    let legacy_steady = 1.0;
    let peak = peak_in_10s(&times);
    CurveResult {
        label,
        initial_seconds: initial,
        max_seconds: max,
        restart_times_seconds: times,
        windows,
        steady_restarts_per_5min: steady,
        steady_excess_per_5min: steady - legacy_steady,
        peak_requests_per_10s: (peak * per_restart) as f64,
        proposal: None,
        load: None,
    }
}

/// Restarts per 10 s bucket over the horizon, and what they cost the node.
fn load_series(times: &[f64], horizon: u64, pods: u64, per_restart: u64) -> Vec<LoadPoint> {
    let buckets = horizon.div_ceil(10);
    (0..buckets)
        .map(|b| {
            let (lo, hi) = ((b * 10) as f64, (b * 10 + 10) as f64);
            // Buckets are [lo, hi); the last one also holds a restart at the horizon itself.
            let last = b + 1 == buckets;
            let restarts = times
                .iter()
                .filter(|t| **t >= lo && (**t < hi || (last && **t <= hi)))
                .count() as u64;
            let requests = restarts * per_restart;
            LoadPoint {
                start_seconds: b * 10,
                restarts,
                requests,
                requests_per_second: requests as f64 / 10.0,
                kubelet_restarts_per_second: (restarts * pods) as f64 / 10.0,
            }
        })
        .collect()
}

pub fn compare(input: CompareInput) -> Result<CompareOutput, Diagnostic> {
    if input.curves.is_empty() {
        return Err(Diagnostic::request(
            "invalid-input",
            "input.curves",
            "give at least one curve",
        ));
    }
    let horizon = input.horizon_seconds.max(*WINDOWS.last().unwrap_or(&1800));
    let gates = |reduce: bool| {
        Some(BTreeMap::from([
            ("KubeletCrashLoopBackOffMax".to_owned(), false),
            ("ReduceDefaultCrashLoopBackOffDecay".to_owned(), reduce),
        ]))
    };
    let legacy = CurveConfig {
        label: "legacy".into(),
        feature_gates: gates(false),
        ..Default::default()
    };
    let (_, _, legacy_times) = curve(&legacy, &FieldPath::new("input"), horizon)?;
    let per_restart = u64::from(input.pods) * u64::from(input.requests_per_restart);
    let mut out = Vec::new();
    let curves_at = FieldPath::new("input").child("curves");
    for (i, cfg) in input.curves.iter().enumerate() {
        let (initial, max, times) = curve(cfg, &curves_at.index(i), horizon)?;
        out.push(result(
            cfg.label.clone(),
            initial,
            max,
            times,
            &legacy_times,
            per_restart,
        ));
    }
    let named = proposals::marker(&input.proposals);
    if named.is_empty() {
        return Ok(CompareOutput {
            pods: input.pods,
            requests_per_restart: input.requests_per_restart,
            curves: out,
            proposals: named,
            kep_load_figures: None,
        });
    }
    let overrides = input.exit_reason_overrides.unwrap_or_default();
    for p in proposals::curves(&named, horizon as f64, &overrides) {
        let mut r = result(
            p.label,
            p.initial_seconds,
            p.max_seconds,
            p.restart_times_seconds,
            &legacy_times,
            per_restart,
        );
        r.proposal = Some(p.proposal);
        out.push(r);
    }
    for r in &mut out {
        r.load = Some(load_series(
            &r.restart_times_seconds,
            horizon,
            u64::from(input.pods),
            per_restart,
        ));
    }
    // The KEP's figures are about its adopted curve, 1 s / 60 s (ReduceDefaultCrashLoopBackOffDecay).
    let adopted = CurveConfig {
        label: "adopted".into(),
        feature_gates: gates(true),
        ..Default::default()
    };
    let (adopted_initial, adopted_max, adopted_times) =
        curve(&adopted, &FieldPath::new("input"), horizon)?;
    let in_5min = |t: &[f64]| count_within(t, 300.0) as i64;
    let excess_5min = in_5min(&adopted_times) - in_5min(&legacy_times);
    let steady_excess = if adopted_max > 0.0 {
        300.0 / adopted_max - 1.0
    } else {
        0.0
    };
    let figures = KepLoadFigures {
        today_requests_per_10s: (peak_in_10s(&legacy_times) * per_restart) as f64,
        kep_rate_bound_requests_per_10s: if adopted_initial > 0.0 {
            per_restart as f64 * 10.0 / adopted_initial
        } else {
            0.0
        },
        recomputed_peak_requests_per_10s: (peak_in_10s(&adopted_times) * per_restart) as f64,
        excess_restarts_first_5min: excess_5min,
        excess_requests_first_5min: excess_5min * per_restart as i64,
        steady_excess_restarts_per_5min: steady_excess,
        steady_excess_requests_per_5min: steady_excess * per_restart as f64,
    };
    Ok(CompareOutput {
        pods: input.pods,
        requests_per_restart: input.requests_per_restart,
        curves: out,
        proposals: named,
        kep_load_figures: Some(figures),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::panic, clippy::indexing_slicing)]
    use crate::{Request, Response, handle};
    use serde_json::{Value, json};

    /// The first error's field and code.
    fn refusal(curves: Value) -> (String, Option<String>) {
        match handle(Request {
            op: "backoffCompare".into(),
            input: json!({"curves": curves}),
        }) {
            Response::Error { errors, .. } => (errors[0].field.clone(), errors[0].code.clone()),
            Response::Ok { .. } => panic!("an invalid kubelet configuration was compared"),
        }
    }

    /// A curve's kubelet configuration that does not decode, or that the kubelet refuses, is
    /// named at that curve, down to the field.
    #[test]
    fn a_bad_kubelet_configuration_is_named_at_its_curve() {
        let fine = json!({"label": "default"});
        assert_eq!(
            refusal(
                json!([fine, {"label": "x", "kubeletConfig": {"crashLoopBackOff": {"maxContainerRestartPeriod": 5}}}])
            ),
            (
                "input.curves[1].kubeletConfig.crashLoopBackOff.maxContainerRestartPeriod".into(),
                // The `backoff` op's request error for a configuration that does not decode.
                Some("invalid-input".into())
            )
        );
        let (refused, _) = refusal(json!([{"label": "x", "kubernetesVersion": "1.35",
            "featureGates": {"KubeletCrashLoopBackOffMax": true},
            "kubeletConfig": {"crashLoopBackOff": {"maxContainerRestartPeriod": "0.5s"}}}]));
        assert!(
            refused.starts_with("input.curves[0].kubeletConfig."),
            "{refused}"
        );
    }
}
