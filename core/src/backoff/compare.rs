//! Backoff analysis: several CrashLoopBackOff configurations side by side, as KEP-4603 reasons
//! about them — restarts within time windows for a container that crashes at once, excess
//! restarts against the legacy 10 s / 300 s curve, and the API load of N crashing Pods.

use crate::diag::Diagnostic;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
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
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CompareOutput {
    pub pods: u32,
    pub requests_per_restart: u32,
    pub curves: Vec<CurveResult>,
}

fn curve(cfg: &CurveConfig, horizon: u64) -> Result<(f64, f64, Vec<f64>), Diagnostic> {
    let mut input = json!({"component": "kubelet", "restarts": 2});
    if let Some(m) = input.as_object_mut() {
        if let Some(v) = &cfg.kubernetes_version {
            m.insert("kubernetesVersion".into(), json!(v));
        }
        if let Some(g) = &cfg.feature_gates {
            m.insert("featureGates".into(), json!(g));
        }
        if let Some(k) = &cfg.kubelet_config {
            m.insert("kubeletConfig".into(), k.clone());
        }
    }
    let first = crate::contract::call_op("backoff", input.clone())?;
    let initial = first.get("initialSeconds").and_then(Value::as_f64).unwrap_or(0.0);
    let max = first.get("maxSeconds").and_then(Value::as_f64).unwrap_or(0.0);
    // Enough restarts to pass the horizon at the fastest (capped) rate.
    let n = if max > 0.0 { ((horizon as f64 / max).ceil() as u64 + 64).min(u64::from(crate::backoff::kubelet::MAX_RESTARTS)) } else { 64 };
    if let Some(m) = input.as_object_mut() {
        m.insert("restarts".into(), json!(n));
    }
    let r = crate::contract::call_op("backoff", input)?;
    let times: Vec<f64> = r
        .get("restartTimesSeconds")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_f64)
        .filter(|t| *t <= horizon as f64)
        .collect();
    Ok((initial, max, times))
}

fn count_within(times: &[f64], w: f64) -> u64 {
    times.iter().filter(|t| **t <= w).count() as u64
}

pub fn compare(input: CompareInput) -> Result<CompareOutput, Diagnostic> {
    if input.curves.is_empty() {
        return Err(Diagnostic::request("invalid-input", "input.curves", "give at least one curve"));
    }
    let horizon = input.horizon_seconds.max(*WINDOWS.last().unwrap_or(&1800));
    let legacy = CurveConfig {
        label: "legacy".into(),
        feature_gates: Some(BTreeMap::from([
            ("KubeletCrashLoopBackOffMax".to_owned(), false),
            ("ReduceDefaultCrashLoopBackOffDecay".to_owned(), false),
        ])),
        ..Default::default()
    };
    let (_, _, legacy_times) = curve(&legacy, horizon)?;
    let per_restart = u64::from(input.pods) * u64::from(input.requests_per_restart);
    let mut out = Vec::new();
    for cfg in &input.curves {
        let (initial, max, times) = curve(cfg, horizon)?;
        let windows = WINDOWS
            .iter()
            .map(|w| {
                let n = count_within(&times, *w as f64);
                WindowCount {
                    window_seconds: *w,
                    restarts: n,
                    excess_over_legacy: n as i64 - count_within(&legacy_times, *w as f64) as i64,
                    api_requests: n * per_restart,
                }
            })
            .collect();
        let steady = if max > 0.0 { 300.0 / max } else { 0.0 };
        // The legacy curve restarts once per its 300 s cap.
        let legacy_steady = 1.0;
        // The fastest 10 s of the curve: most restarts in any 10 s window.
        let mut peak = 0u64;
        for (i, t) in times.iter().enumerate() {
            let in_window = times.iter().skip(i).take_while(|u| **u < t + 10.0).count() as u64;
            peak = peak.max(in_window);
        }
        out.push(CurveResult {
            label: cfg.label.clone(),
            initial_seconds: initial,
            max_seconds: max,
            restart_times_seconds: times,
            windows,
            steady_restarts_per_5min: steady,
            steady_excess_per_5min: steady - legacy_steady,
            peak_requests_per_10s: (peak * per_restart) as f64,
        });
    }
    Ok(CompareOutput { pods: input.pods, requests_per_restart: input.requests_per_restart, curves: out })
}
