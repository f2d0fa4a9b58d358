//! Proposal mode: designs from the KEPs restartkit models that upstream has not adopted, as
//! opt-in experimental semantics (docs/proposals.md).
//!
//! A request names proposals in its input's `proposals` list. Without one, nothing here runs
//! and every answer is upstream's; with one, the result carries the same list so that no
//! answer made under a proposal can pass for an upstream one.

pub mod rules;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A proposal by name. An unknown name is a request error that lists the known ones.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
pub enum Proposal {
    /// KEP-4603 "Alternatives": every curve below at once.
    #[serde(rename = "KEP4603Alternatives")]
    Kep4603Alternatives,
    /// KEP-4603 `restartPolicy: Rapid` (1.31 version): 250 ms initial, 1 min cap.
    Rapid,
    /// KEP-4603 flat-rate restarts after a successful exit (`restartPolicy: FastOnSuccess`).
    FastOnSuccess,
    /// KEP-4603 "Front loaded decay with interval": 1 s initial, 2x, then a catch-up delay
    /// (569 s on the 6th retry) so the restarts in the first 10 minutes match today's.
    FrontLoadedCatchUp,
    /// KEP-4603 "Per exit code configuration": separate curves per exit reason.
    ExitReasonOverrides,
    /// KEP-4603 "Design Details": the modelled initial values 25 ms / 250 ms / 1 s / 10 s
    /// against caps 30 s / 60 s / 300 s.
    InitialValueGrid,
    /// KEP-5307 "Future Improvements": rule actions `Complete`, `TerminatePod`, `RestartPod`,
    /// conditions `restartTimes` and `oomKill`, and the `when:` shape of the KEP's example.
    RestartRulesFuture,
    /// The 2018 KEP "New pod restartPolicy to restart the whole pod": Pod `restartPolicy:
    /// AlwaysPod` restarts the whole Pod, init containers included, whenever `Always` would
    /// restart one container.
    AlwaysPod,
}

/// Names in the order the docs list them.
pub const KNOWN: &[&str] = &[
    "KEP4603Alternatives",
    "Rapid",
    "FastOnSuccess",
    "FrontLoadedCatchUp",
    "ExitReasonOverrides",
    "InitialValueGrid",
    "RestartRulesFuture",
    "AlwaysPod",
];

impl Proposal {
    pub fn name(self) -> &'static str {
        match self {
            Proposal::Kep4603Alternatives => "KEP4603Alternatives",
            Proposal::Rapid => "Rapid",
            Proposal::FastOnSuccess => "FastOnSuccess",
            Proposal::FrontLoadedCatchUp => "FrontLoadedCatchUp",
            Proposal::ExitReasonOverrides => "ExitReasonOverrides",
            Proposal::InitialValueGrid => "InitialValueGrid",
            Proposal::RestartRulesFuture => "RestartRulesFuture",
            Proposal::AlwaysPod => "AlwaysPod",
        }
    }
}

/// The named proposals, sorted and without duplicates: the marker a result carries.
pub fn marker(named: &[Proposal]) -> Vec<Proposal> {
    let mut v = named.to_vec();
    v.sort();
    v.dedup();
    v
}

/// Whether `p` is active: named itself, or through the KEP-4603 umbrella name.
pub fn active(named: &[Proposal], p: Proposal) -> bool {
    let kep4603 = !matches!(
        p,
        Proposal::Kep4603Alternatives | Proposal::RestartRulesFuture | Proposal::AlwaysPod
    );
    named.contains(&p) || (kep4603 && named.contains(&Proposal::Kep4603Alternatives))
}

/// One proposed CrashLoopBackOff curve as restart times (seconds from the first start) for a
/// container that exits as soon as it starts. The first entry is t = 0 (the first start counts,
/// as the upstream curves in `backoffCompare` count it).
#[derive(Debug, Clone, PartialEq)]
pub struct ProposedCurve {
    pub proposal: Proposal,
    pub label: String,
    pub initial_seconds: f64,
    pub max_seconds: f64,
    pub restart_times_seconds: Vec<f64>,
}

/// Delays of a 2x exponential curve (what flowcontrol.Backoff does): initial, doubling, capped.
fn exponential(initial: f64, max: f64, horizon: f64) -> Vec<f64> {
    let mut times = vec![0.0];
    let mut t = 0.0;
    let mut d = initial;
    // Bounded: the delay is at least `initial` (> 0), so the loop ends past the horizon.
    while d > 0.0 {
        t += d;
        if t > horizon {
            break;
        }
        times.push(t);
        d = (d * 2.0).min(max);
    }
    times
}

/// Flat-rate restarts every `delay` seconds.
fn flat(delay: f64, horizon: f64) -> Vec<f64> {
    if delay <= 0.0 {
        return vec![0.0];
    }
    let n = (horizon / delay).floor() as u64;
    (0..=n).map(|k| k as f64 * delay).collect()
}

/// The legacy horizon KEP-4603's catch-up aims at: the restarts today's 10 s / 300 s curve makes
/// within 10 minutes (the backoff counter's reset threshold).
pub const CATCH_UP_HORIZON_SECONDS: f64 = 600.0;

/// Front-loaded decay with a catch-up delay: 1 s initial, doubling, until the curve has made as
/// many starts as the legacy curve makes within 10 minutes; the next delay then waits until the
/// 10-minute mark (600 − 31 = 569 s on the 6th retry), and later delays are the legacy cap
/// (300 s), so that from there on the count matches today's. The KEP gives the 569 s and the
/// intent ("the same number of total restarts as experienced today in a 10 minute time
/// horizon"); what follows the catch-up is our assumption.
pub fn front_loaded_catch_up(initial: f64, horizon: f64) -> Vec<f64> {
    let legacy = exponential(10.0, 300.0, CATCH_UP_HORIZON_SECONDS);
    let target = legacy.len();
    let mut times = exponential(initial, f64::INFINITY, CATCH_UP_HORIZON_SECONDS);
    times.truncate(target);
    let mut t = CATCH_UP_HORIZON_SECONDS;
    while t <= horizon {
        times.push(t);
        t += 300.0;
    }
    times.retain(|x| *x <= horizon);
    times
}

/// The delay before the 6th retry of the front-loaded curve (the KEP's 569 s).
pub fn catch_up_delay(initial: f64) -> f64 {
    let times = front_loaded_catch_up(initial, CATCH_UP_HORIZON_SECONDS);
    match (
        times.len().checked_sub(2).and_then(|i| times.get(i)),
        times.last(),
    ) {
        (Some(a), Some(b)) => b - a,
        _ => 0.0,
    }
}

/// Per-exit-reason curve parameters (KEP-4603 "Per exit code configuration" names the reasons,
/// not the values: the defaults here are our assumption, documented in docs/proposals.md).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReasonCurve {
    pub initial_seconds: f64,
    pub max_seconds: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExitReasonOverrides {
    /// Image download failures (default: the kubelet's image pull backoff, 10 s / 300 s).
    #[serde(default = "image_pull")]
    pub image_pull: ReasonCurve,
    /// Any non-zero exit of the workload itself (default: KEP-4603's adopted 1 s / 60 s).
    #[serde(default = "workload_crash")]
    pub workload_crash: ReasonCurve,
    /// Terminated by the system: exec probe failures, OOM kill, runtime errors (default: the
    /// Rapid curve, 250 ms / 60 s: the workload did not fail by itself).
    #[serde(default = "infrastructure")]
    pub infrastructure: ReasonCurve,
    /// Exit code 0 (default: flat 10 s, the FastOnSuccess curve).
    #[serde(default = "success")]
    pub success: ReasonCurve,
}

fn image_pull() -> ReasonCurve {
    ReasonCurve {
        initial_seconds: 10.0,
        max_seconds: 300.0,
    }
}
fn workload_crash() -> ReasonCurve {
    ReasonCurve {
        initial_seconds: 1.0,
        max_seconds: 60.0,
    }
}
fn infrastructure() -> ReasonCurve {
    ReasonCurve {
        initial_seconds: 0.25,
        max_seconds: 60.0,
    }
}
fn success() -> ReasonCurve {
    ReasonCurve {
        initial_seconds: FAST_ON_SUCCESS_SECONDS,
        max_seconds: FAST_ON_SUCCESS_SECONDS,
    }
}

impl Default for ExitReasonOverrides {
    fn default() -> Self {
        ExitReasonOverrides {
            image_pull: image_pull(),
            workload_crash: workload_crash(),
            infrastructure: infrastructure(),
            success: success(),
        }
    }
}

/// FastOnSuccess's flat delay: the KEP targets "somewhere within 0-10s flat rate + jitter";
/// we take the top of that range (the conservative end for load) and no jitter.
pub const FAST_ON_SUCCESS_SECONDS: f64 = 10.0;

/// KEP-4603's modelled initial values and caps.
pub const GRID_INITIALS: [f64; 4] = [0.025, 0.25, 1.0, 10.0];
pub const GRID_CAPS: [f64; 3] = [30.0, 60.0, 300.0];

fn secs(s: f64) -> String {
    if s < 1.0 {
        format!("{}ms", (s * 1000.0).round())
    } else {
        format!("{s}s")
    }
}

/// Every curve the named proposals add, in a fixed order.
pub fn curves(
    named: &[Proposal],
    horizon: f64,
    overrides: &ExitReasonOverrides,
) -> Vec<ProposedCurve> {
    let mut out = Vec::new();
    let exp = |p: Proposal, label: String, i: f64, m: f64| ProposedCurve {
        proposal: p,
        label,
        initial_seconds: i,
        max_seconds: m,
        restart_times_seconds: exponential(i, m, horizon),
    };
    if active(named, Proposal::Rapid) {
        out.push(exp(Proposal::Rapid, "Rapid (250ms/60s)".into(), 0.25, 60.0));
    }
    if active(named, Proposal::FastOnSuccess) {
        out.push(ProposedCurve {
            proposal: Proposal::FastOnSuccess,
            label: format!("FastOnSuccess (flat {})", secs(FAST_ON_SUCCESS_SECONDS)),
            initial_seconds: FAST_ON_SUCCESS_SECONDS,
            max_seconds: FAST_ON_SUCCESS_SECONDS,
            restart_times_seconds: flat(FAST_ON_SUCCESS_SECONDS, horizon),
        });
    }
    if active(named, Proposal::FrontLoadedCatchUp) {
        out.push(ProposedCurve {
            proposal: Proposal::FrontLoadedCatchUp,
            label: format!("front-loaded 1s + catch-up {}", secs(catch_up_delay(1.0))),
            initial_seconds: 1.0,
            max_seconds: 300.0,
            restart_times_seconds: front_loaded_catch_up(1.0, horizon),
        });
    }
    if active(named, Proposal::ExitReasonOverrides) {
        let o = overrides;
        for (name, c) in [
            ("image pull", o.image_pull),
            ("workload crash", o.workload_crash),
            ("infrastructure", o.infrastructure),
            ("success", o.success),
        ] {
            let label = format!(
                "exit reason {name} ({}/{})",
                secs(c.initial_seconds),
                secs(c.max_seconds)
            );
            if c.initial_seconds >= c.max_seconds {
                out.push(ProposedCurve {
                    proposal: Proposal::ExitReasonOverrides,
                    label,
                    initial_seconds: c.initial_seconds,
                    max_seconds: c.max_seconds,
                    restart_times_seconds: flat(c.max_seconds, horizon),
                });
            } else {
                out.push(exp(
                    Proposal::ExitReasonOverrides,
                    label,
                    c.initial_seconds,
                    c.max_seconds,
                ));
            }
        }
    }
    if active(named, Proposal::InitialValueGrid) {
        for m in GRID_CAPS {
            for i in GRID_INITIALS {
                out.push(exp(
                    Proposal::InitialValueGrid,
                    format!("model {}/{}", secs(i), secs(m)),
                    i,
                    m,
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use super::*;

    #[test]
    fn the_catch_up_delay_is_the_keps_569_seconds_on_the_sixth_retry() {
        let t = front_loaded_catch_up(1.0, 1800.0);
        assert_eq!(&t[..7], &[0.0, 1.0, 3.0, 7.0, 15.0, 31.0, 600.0]);
        assert_eq!(t[6] - t[5], 569.0);
        assert_eq!(catch_up_delay(1.0), 569.0);
        // From the 10-minute mark on, the count matches today's 10 s / 300 s curve.
        let legacy = exponential(10.0, 300.0, 1800.0);
        for w in [600.0, 900.0, 1200.0, 1500.0] {
            let n = |v: &[f64]| v.iter().filter(|x| **x <= w + 10.0).count();
            assert_eq!(n(&t), n(&legacy), "window {w}");
        }
    }

    #[test]
    fn curves_follow_their_formulas() {
        assert_eq!(
            exponential(0.25, 60.0, 10.0),
            vec![0.0, 0.25, 0.75, 1.75, 3.75, 7.75]
        );
        assert_eq!(flat(10.0, 30.0), vec![0.0, 10.0, 20.0, 30.0]);
        let all = curves(
            &[Proposal::Kep4603Alternatives],
            1800.0,
            &ExitReasonOverrides::default(),
        );
        assert_eq!(all.len(), 1 + 1 + 1 + 4 + 12);
        assert_eq!(all[0].label, "Rapid (250ms/60s)");
        assert!(curves(&[], 1800.0, &ExitReasonOverrides::default()).is_empty());
        assert_eq!(
            curves(&[Proposal::Rapid], 1800.0, &ExitReasonOverrides::default()).len(),
            1
        );
    }
}
