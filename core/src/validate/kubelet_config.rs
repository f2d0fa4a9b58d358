//! KubeletConfiguration (kubelet.config.k8s.io/v1beta1): the crashLoopBackOff part.
//!
//! Upstream: `pkg/kubelet/apis/config/v1beta1/defaults.go` (SetDefaults_KubeletConfiguration) and
//! `pkg/kubelet/apis/config/validation/validation.go` (ValidateKubeletConfiguration). Both build a
//! local feature gate: the process-wide gate (command line) with the configuration's own
//! `featureGates` applied on top. restartkit models the process-wide gate as the version defaults
//! plus the request's `featureGates`, so the order is: version defaults, then the request's
//! `featureGates`, then the configuration's `featureGates` — the configuration wins, as it does
//! in upstream's defaulting and validation. (Command-line `--feature-gates` are not modelled.)
//!
//! The errors are plain `fmt.Errorf` texts in an aggregate (no field.ErrorType, no field path);
//! the `field` restartkit reports is only a pointer for editors.

use super::Ctx;
use crate::api::{CrashLoopBackOffConfig, KubeletConfiguration};
use crate::diag::{Diagnostic, FieldPath, Findings, Origin};
use crate::features::{CONTROLLER_GATES, FeatureGates, Stage, stage_at};

pub const GATE_MAX: &str = "KubeletCrashLoopBackOffMax";
pub const GATE_REDUCED: &str = "ReduceDefaultCrashLoopBackOffDecay";

const NANOS_PER_SECOND: i64 = 1_000_000_000;
/// v1beta1.MaxContainerBackOff: 300 s.
pub const MAX_CONTAINER_BACKOFF_NANOS: i64 = 300 * NANOS_PER_SECOND;

/// The kubelet's effective gates: `base` (version defaults and request overrides) with the
/// configuration's own `featureGates` applied on top.
pub fn kubelet_gates(base: &FeatureGates, cfg: &KubeletConfiguration) -> FeatureGates {
    let mut g = base.clone();
    if let Some(fg) = &cfg.feature_gates {
        for (k, v) in fg {
            g.set(k, *v);
        }
    }
    g
}

/// The kubelet applies its configuration's `featureGates` as it applies `--feature-gates`
/// (cmd/kubelet/app/server.go, after loading the file: `SetFromMap`, every minor 1.31 to 1.37):
/// a name it does not know (the kubelet registers every Kubernetes gate of its minor, and no
/// JobSet or OpenKruise one), a locked gate set against its lock, or (from 1.35) a gate on whose
/// dependencies are off stops it with component-base's message. The map it checks is the
/// request's gates (the process's) with the file's on top.
fn feature_gate_refusal(cfg: &KubeletConfiguration, ctx: &Ctx) -> Option<Diagnostic> {
    let own = cfg.feature_gates.as_ref().filter(|fg| !fg.is_empty())?;
    let minor = ctx.gates.version.minor;
    let mut set: std::collections::BTreeMap<String, bool> = ctx
        .gates
        .iter()
        .filter(|(k, v)| {
            // What the request set on the process: a Kubernetes gate of the minor, off its
            // default (a value at its default changes nothing SetFromMap checks).
            !CONTROLLER_GATES.iter().any(|(n, _, _)| n == k)
                && stage_at(k, minor).is_some_and(|(s, d)| s != Stage::Removed && d != *v)
        })
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
    for (k, v) in own {
        set.insert(k.clone(), *v);
    }
    let refusals = crate::features::set_from_map_refusals(minor, &set);
    let first = refusals.first()?;
    let messages: Vec<String> = refusals.iter().map(|r| r.message.clone()).collect();
    // Name the file's own gate where the refusal is about one it sets.
    let gate = refusals
        .iter()
        .find_map(|r| match &r.kind {
            _ if own.contains_key(&r.gate) => Some(r.gate.as_str()),
            crate::features::RefusalKind::Dependencies(off) => {
                off.iter().copied().find(|d| own.contains_key(*d))
            }
            _ => None,
        })
        .unwrap_or(first.gate.as_str());
    Some(Diagnostic::plain(
        Origin::Kubelet,
        &FieldPath::new("featureGates").key(gate),
        format!(
            "failed to set feature gates from initial flags-based config: {}",
            crate::features::go_aggregate(&messages)
        ),
    ))
}

fn period_path() -> FieldPath {
    FieldPath::new("crashLoopBackOff").child("maxContainerRestartPeriod")
}

/// SetDefaults_KubeletConfiguration, crashLoopBackOff part: `maxContainerRestartPeriod` is set to
/// 300 s (Go prints it `5m0s`) when KubeletCrashLoopBackOffMax is on and the field is unset.
pub fn default_kubelet_config(cfg: &mut KubeletConfiguration, ctx: &Ctx) {
    let gates = kubelet_gates(&ctx.gates, cfg);
    if gates.enabled(GATE_MAX) {
        let clb = cfg
            .crash_loop_back_off
            .get_or_insert_with(CrashLoopBackOffConfig::default);
        if clb.max_container_restart_period.is_none() {
            clb.max_container_restart_period =
                Some(format_go_duration(MAX_CONTAINER_BACKOFF_NANOS));
        }
    }
}

/// The configured period, parsed; Err is the decoder's message for an unreadable value.
pub fn max_container_restart_period(cfg: &KubeletConfiguration) -> Result<Option<i64>, String> {
    match cfg
        .crash_loop_back_off
        .as_ref()
        .and_then(|c| c.max_container_restart_period.as_deref())
    {
        None => Ok(None),
        Some(s) => parse_go_duration(s).map(Some),
    }
}

/// ValidateKubeletConfiguration, crashLoopBackOff part, with upstream's messages.
pub fn validate_kubelet_config(cfg: &KubeletConfiguration, ctx: &Ctx, out: &mut Findings) {
    if let Some(d) = feature_gate_refusal(cfg, ctx) {
        out.push(d);
        return;
    }
    let gates = kubelet_gates(&ctx.gates, cfg);
    let path = period_path();
    let period = match max_container_restart_period(cfg) {
        Ok(p) => p,
        Err(msg) => {
            // metav1.Duration's JSON decoding fails before validation runs.
            out.push(Diagnostic::plain(Origin::Kubelet, &path, msg));
            return;
        }
    };
    if gates.enabled(GATE_MAX) {
        match period {
            None => out.push(Diagnostic::plain(
                Origin::Kubelet,
                &path,
                "invalid configuration: FeatureGate KubeletCrashLoopBackOffMax is enabled, CrashLoopBackOff.MaxContainerRestartPeriod must be set",
            )),
            Some(d) => {
                let ms = d / 1_000_000;
                if !(1000..=300_000).contains(&ms) {
                    out.push(Diagnostic::plain(
                        Origin::Kubelet,
                        &path,
                        format!(
                            "invalid configuration: CrashLoopBackOff.MaxContainerRestartPeriod (got: {} seconds) must be set between 1s and 300s",
                            go_float(duration_seconds(d))
                        ),
                    ));
                }
            }
        }
    } else if period.is_some() {
        out.push(Diagnostic::plain(
            Origin::Kubelet,
            &path,
            "invalid configuration: FeatureGate KubeletCrashLoopBackOffMax not enabled, CrashLoopBackOff.MaxContainerRestartPeriod must not be set",
        ));
    }
    lint_kubelet_config(&gates, period, out);
}

fn lint_kubelet_config(gates: &FeatureGates, period: Option<i64>, out: &mut Findings) {
    let path = period_path();
    if gates.enabled(GATE_REDUCED)
        && gates.enabled(GATE_MAX)
        && period.is_none_or(|d| d == MAX_CONTAINER_BACKOFF_NANOS)
    {
        out.push(Diagnostic::lint(
            "reduced-decay-max-300s",
            &path,
            "ReduceDefaultCrashLoopBackOffDecay lowers the initial delay to 1s, but KubeletCrashLoopBackOffMax is on and the max is 300s (the default of maxContainerRestartPeriod), so the curve is 1s → 300s, not 1s → 60s; set maxContainerRestartPeriod: 60s for the KEP-4603 curve",
        ));
    }
    if gates.enabled(GATE_MAX)
        && !gates.enabled(GATE_REDUCED)
        && let Some(d) = period
        && (NANOS_PER_SECOND..10 * NANOS_PER_SECOND).contains(&d)
    {
        out.push(Diagnostic::lint(
            "flat-crashloop-backoff",
            &path,
            format!(
                "maxContainerRestartPeriod {} is below the 10s initial delay: the kubelet lowers the initial delay to it, so every restart waits {}s (a flat curve)",
                format_go_duration(d),
                go_float(duration_seconds(d))
            ),
        ));
    }
}

/// time.Duration.Seconds().
pub fn duration_seconds(nanos: i64) -> f64 {
    let sec = nanos / NANOS_PER_SECOND;
    let nsec = nanos % NANOS_PER_SECOND;
    sec as f64 + nsec as f64 / 1e9
}

// ---------------------------------------------------------------------------------------------
// Go's time.ParseDuration / Duration.String and fmt's %v for float64.
// ---------------------------------------------------------------------------------------------

const LIMIT: u64 = 1 << 63;

fn unit_nanos(u: &str) -> Option<u64> {
    Some(match u {
        "ns" => 1,
        "us" | "\u{00b5}s" | "\u{03bc}s" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "m" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        _ => return None,
    })
}

use super::decoding::time_quote as go_quote;

/// time.ParseDuration: a signed sequence of decimal numbers with optional fraction and a unit
/// (`ns`, `us`/`µs`, `ms`, `s`, `m`, `h`), e.g. `"300ms"`, `"-1.5h"`, `"2h45m"`. Nanoseconds;
/// the error text is Go's.
pub fn parse_go_duration(orig: &str) -> Result<i64, String> {
    let invalid = || format!("time: invalid duration {}", go_quote(orig));
    let mut s = orig.as_bytes();
    let mut neg = false;
    if let Some((&c, rest)) = s.split_first()
        && (c == b'-' || c == b'+')
    {
        neg = c == b'-';
        s = rest;
    }
    if s == b"0" {
        return Ok(0);
    }
    if s.is_empty() {
        return Err(invalid());
    }
    let mut d: u64 = 0;
    while let Some(&c0) = s.first() {
        if !(c0 == b'.' || c0.is_ascii_digit()) {
            return Err(invalid());
        }
        // Integer part.
        let start = s.len();
        let mut v: u64 = 0;
        while let Some(&c) = s.first() {
            if !c.is_ascii_digit() {
                break;
            }
            if v > LIMIT / 10 {
                return Err(invalid());
            }
            v = v * 10 + u64::from(c - b'0');
            if v > LIMIT {
                return Err(invalid());
            }
            s = s.get(1..).unwrap_or_default();
        }
        let pre = start != s.len();
        // Fraction.
        let mut f: u64 = 0;
        let mut scale: f64 = 1.0;
        let mut post = false;
        if s.first() == Some(&b'.') {
            s = s.get(1..).unwrap_or_default();
            let start = s.len();
            let mut overflow = false;
            while let Some(&c) = s.first() {
                if !c.is_ascii_digit() {
                    break;
                }
                s = s.get(1..).unwrap_or_default();
                if overflow {
                    continue;
                }
                if f > (LIMIT - 1) / 10 {
                    overflow = true;
                    continue;
                }
                let y = f * 10 + u64::from(c - b'0');
                if y > LIMIT {
                    overflow = true;
                    continue;
                }
                f = y;
                scale *= 10.0;
            }
            post = start != s.len();
        }
        if !pre && !post {
            return Err(invalid());
        }
        // Unit.
        let i = s
            .iter()
            .position(|c| *c == b'.' || c.is_ascii_digit())
            .unwrap_or(s.len());
        if i == 0 {
            return Err(format!("time: missing unit in duration {}", go_quote(orig)));
        }
        let (u, rest) = s.split_at(i);
        s = rest;
        let u = String::from_utf8_lossy(u);
        let unit = unit_nanos(&u).ok_or_else(|| {
            format!(
                "time: unknown unit {} in duration {}",
                go_quote(&u),
                go_quote(orig)
            )
        })?;
        if v > LIMIT / unit {
            return Err(invalid());
        }
        v *= unit;
        if f > 0 {
            v += (f as f64 * (unit as f64 / scale)) as u64;
            if v > LIMIT {
                return Err(invalid());
            }
        }
        d += v;
        if d > LIMIT {
            return Err(invalid());
        }
    }
    if neg {
        return Ok((d as i128).wrapping_neg() as i64);
    }
    if d > LIMIT - 1 {
        return Err(invalid());
    }
    Ok(d as i64)
}

/// time.Duration.String(): `"5m0s"`, `"1.5s"`, `"500ms"`, `"0s"`.
pub fn format_go_duration(nanos: i64) -> String {
    if nanos == 0 {
        return "0s".to_owned();
    }
    let neg = nanos < 0;
    let u = nanos.unsigned_abs();
    let mut out = String::new();
    if u < 1_000_000_000 {
        let (div, unit) = if u < 1_000 {
            (1u64, "ns")
        } else if u < 1_000_000 {
            (1_000, "µs")
        } else {
            (1_000_000, "ms")
        };
        out.push_str(&frac(u, div));
        out.push_str(unit);
    } else {
        let secs_total = u / 1_000_000_000;
        let rem = u % 1_000_000_000;
        let h = secs_total / 3600;
        let m = (secs_total / 60) % 60;
        let sec = secs_total % 60;
        if h > 0 {
            out.push_str(&format!("{h}h"));
        }
        if h > 0 || m > 0 {
            out.push_str(&format!("{m}m"));
        }
        out.push_str(&frac(sec * 1_000_000_000 + rem, 1_000_000_000));
        out.push('s');
    }
    if neg { format!("-{out}") } else { out }
}

fn frac(v: u64, div: u64) -> String {
    let whole = v / div;
    let rest = v % div;
    if rest == 0 {
        return whole.to_string();
    }
    let width = div.to_string().len() - 1;
    let digits = format!("{rest:0width$}");
    format!("{whole}.{}", digits.trim_end_matches('0'))
}

/// fmt's `%v` for a float64 (`%g` with the shortest precision: `0.999`, `301`, `1e+06`,
/// `1e-05`), which the CRD schema messages print too.
pub use super::crd_schema::go::format_v as go_float;

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn parses_go_durations() {
        assert_eq!(parse_go_duration("1m30s"), Ok(90 * NANOS_PER_SECOND));
        assert_eq!(parse_go_duration("500ms"), Ok(500_000_000));
        assert_eq!(parse_go_duration("300000999us"), Ok(300_000_999_000));
        assert_eq!(parse_go_duration("1.5h"), Ok(5400 * NANOS_PER_SECOND));
        assert_eq!(parse_go_duration("-1s"), Ok(-NANOS_PER_SECOND));
        assert_eq!(parse_go_duration("+2µs"), Ok(2_000));
        assert_eq!(parse_go_duration("2μs"), Ok(2_000));
        assert_eq!(parse_go_duration("0"), Ok(0));
        assert_eq!(parse_go_duration(".5s"), Ok(500_000_000));
        assert_eq!(parse_go_duration("1.s"), Ok(NANOS_PER_SECOND));
        assert_eq!(
            parse_go_duration("1h2m3s4ms"),
            Ok(3723 * NANOS_PER_SECOND + 4_000_000)
        );
        assert_eq!(
            parse_go_duration(""),
            Err("time: invalid duration \"\"".to_owned())
        );
        assert_eq!(
            parse_go_duration("30"),
            Err("time: missing unit in duration \"30\"".to_owned())
        );
        assert_eq!(
            parse_go_duration("3d"),
            Err("time: unknown unit \"d\" in duration \"3d\"".to_owned())
        );
        assert_eq!(
            parse_go_duration("."),
            Err("time: invalid duration \".\"".to_owned())
        );
        assert_eq!(
            parse_go_duration("s"),
            Err("time: invalid duration \"s\"".to_owned())
        );
        assert!(parse_go_duration("9999999999h").is_err());
        assert_eq!(parse_go_duration("-9223372036854775808ns"), Ok(i64::MIN));
        assert!(parse_go_duration("9223372036854775808ns").is_err());
    }

    #[test]
    fn formats_go_durations() {
        assert_eq!(format_go_duration(MAX_CONTAINER_BACKOFF_NANOS), "5m0s");
        assert_eq!(format_go_duration(1_500_000_000), "1.5s");
        assert_eq!(format_go_duration(500_000_000), "500ms");
        assert_eq!(format_go_duration(1_500), "1.5µs");
        assert_eq!(format_go_duration(0), "0s");
        assert_eq!(format_go_duration(-3_723 * NANOS_PER_SECOND), "-1h2m3s");
    }

    #[test]
    fn formats_go_floats() {
        assert_eq!(go_float(0.999), "0.999");
        assert_eq!(go_float(0.0), "0");
        assert_eq!(go_float(301.0), "301");
        assert_eq!(go_float(-1.0), "-1");
        assert_eq!(go_float(3600.0), "3600");
        assert_eq!(go_float(0.5), "0.5");
        assert_eq!(go_float(300.000999), "300.000999");
        assert_eq!(go_float(1e6), "1e+06");
        assert_eq!(go_float(1234567.0), "1.234567e+06");
        assert_eq!(go_float(0.0001), "0.0001");
        assert_eq!(go_float(0.00001), "1e-05");
    }

    fn ctx_with(max: Option<bool>) -> Ctx {
        let mut g = FeatureGates::default();
        if let Some(m) = max {
            g.set(GATE_MAX, m);
        }
        Ctx {
            gates: g,
            skip_defaulting: false,
            future_rules: false,
            always_pod: false,
            field_validation: Default::default(),
        }
    }

    fn cfg(period: Option<&str>, gates: &[(&str, bool)]) -> KubeletConfiguration {
        KubeletConfiguration {
            crash_loop_back_off: period.map(|p| CrashLoopBackOffConfig {
                max_container_restart_period: Some(p.to_owned()),
                ..Default::default()
            }),
            feature_gates: if gates.is_empty() {
                None
            } else {
                Some(
                    gates
                        .iter()
                        .map(|(k, v)| ((*k).to_owned(), *v))
                        .collect::<BTreeMap<_, _>>(),
                )
            },
            ..Default::default()
        }
    }

    fn messages(c: &KubeletConfiguration, ctx: &Ctx) -> Vec<String> {
        let mut out = Findings::default();
        validate_kubelet_config(c, ctx, &mut out);
        out.errors.into_iter().map(|d| d.message).collect()
    }

    #[test]
    fn range_and_truncation() {
        let on = ctx_with(Some(true));
        assert!(messages(&cfg(Some("1s"), &[]), &on).is_empty());
        assert!(messages(&cfg(Some("300000999us"), &[]), &on).is_empty());
        assert!(messages(&cfg(Some("1000500us"), &[]), &on).is_empty());
        assert_eq!(
            messages(&cfg(Some("999999us"), &[]), &on),
            vec![
                "invalid configuration: CrashLoopBackOff.MaxContainerRestartPeriod (got: 0.999999 seconds) must be set between 1s and 300s"
            ]
        );
        assert_eq!(
            messages(&cfg(Some("1h"), &[]), &on),
            vec![
                "invalid configuration: CrashLoopBackOff.MaxContainerRestartPeriod (got: 3600 seconds) must be set between 1s and 300s"
            ]
        );
    }

    #[test]
    fn gate_off_and_missing() {
        assert_eq!(
            messages(&cfg(Some("30s"), &[]), &ctx_with(Some(false))),
            vec![
                "invalid configuration: FeatureGate KubeletCrashLoopBackOffMax not enabled, CrashLoopBackOff.MaxContainerRestartPeriod must not be set"
            ]
        );
        assert_eq!(
            messages(&cfg(None, &[]), &ctx_with(Some(true))),
            vec![
                "invalid configuration: FeatureGate KubeletCrashLoopBackOffMax is enabled, CrashLoopBackOff.MaxContainerRestartPeriod must be set"
            ]
        );
        assert!(messages(&cfg(None, &[]), &ctx_with(Some(false))).is_empty());
        assert_eq!(
            messages(&cfg(Some("soon"), &[]), &ctx_with(Some(true))),
            vec!["time: invalid duration \"soon\""]
        );
    }

    #[test]
    fn config_gates_override_request_gates() {
        // Request says off, the config itself turns the gate on: the value is allowed and checked.
        let c = cfg(Some("30s"), &[(GATE_MAX, true)]);
        assert!(messages(&c, &ctx_with(Some(false))).is_empty());
        let c = cfg(Some("30s"), &[(GATE_MAX, false)]);
        assert_eq!(messages(&c, &ctx_with(Some(true))).len(), 1);
    }

    #[test]
    fn defaulting_follows_effective_gate() {
        let mut c = cfg(None, &[(GATE_MAX, true)]);
        default_kubelet_config(&mut c, &ctx_with(Some(false)));
        assert_eq!(
            c.crash_loop_back_off
                .and_then(|x| x.max_container_restart_period)
                .as_deref(),
            Some("5m0s")
        );
        let mut c = cfg(None, &[]);
        default_kubelet_config(&mut c, &ctx_with(Some(false)));
        assert!(c.crash_loop_back_off.is_none());
        let mut c = cfg(Some("30s"), &[]);
        default_kubelet_config(&mut c, &ctx_with(Some(true)));
        assert_eq!(
            c.crash_loop_back_off
                .and_then(|x| x.max_container_restart_period)
                .as_deref(),
            Some("30s")
        );
    }

    #[test]
    fn lints() {
        let mut out = Findings::default();
        validate_kubelet_config(
            &cfg(Some("300s"), &[(GATE_REDUCED, true)]),
            &ctx_with(Some(true)),
            &mut out,
        );
        assert_eq!(
            out.warnings
                .iter()
                .filter_map(|d| d.code.clone())
                .collect::<Vec<_>>(),
            vec!["reduced-decay-max-300s"]
        );
        let mut out = Findings::default();
        validate_kubelet_config(&cfg(Some("2s"), &[]), &ctx_with(Some(true)), &mut out);
        assert_eq!(
            out.warnings
                .iter()
                .filter_map(|d| d.code.clone())
                .collect::<Vec<_>>(),
            vec!["flat-crashloop-backoff"]
        );
    }

    #[test]
    fn a_gate_removed_in_the_version_stops_validation() {
        let mut ctx = ctx_with(Some(true));
        ctx.gates = FeatureGates::for_version(crate::features::KubeVersion { minor: 37 });
        let c = cfg(
            Some("30s"),
            &[
                ("SidecarContainers", true),
                ("KubeletCrashLoopBackOffMax", false),
            ],
        );
        assert_eq!(
            messages(&c, &ctx),
            vec![
                "failed to set feature gates from initial flags-based config: unrecognized feature gate: SidecarContainers"
            ]
        );
        ctx.gates = FeatureGates::for_version(crate::features::KubeVersion { minor: 36 });
        assert_eq!(
            messages(&c, &ctx),
            vec![
                "invalid configuration: FeatureGate KubeletCrashLoopBackOffMax not enabled, CrashLoopBackOff.MaxContainerRestartPeriod must not be set"
            ]
        );
    }

    fn refusal(c: &KubeletConfiguration, minor: u32) -> Vec<(String, String)> {
        let mut ctx = ctx_with(None);
        ctx.gates = FeatureGates::for_version(crate::features::KubeVersion { minor });
        let mut out = Findings::default();
        validate_kubelet_config(c, &ctx, &mut out);
        out.errors
            .into_iter()
            .filter(|d| d.field.starts_with("featureGates"))
            .map(|d| (d.field.to_string(), d.message))
            .collect()
    }

    #[test]
    fn the_configs_feature_gates_are_set_as_the_kubelet_sets_them() {
        const PREFIX: &str = "failed to set feature gates from initial flags-based config: ";
        // KEP-5593's spelling is no gate at any minor; the right one arrives in 1.32.
        let c = cfg(None, &[("KubeletCrashloopBackoffMax", true)]);
        assert_eq!(
            refusal(&c, 37),
            vec![(
                "featureGates[KubeletCrashloopBackoffMax]".to_owned(),
                format!("{PREFIX}unrecognized feature gate: KubeletCrashloopBackoffMax")
            )]
        );
        let c = cfg(Some("30s"), &[(GATE_MAX, true)]);
        assert_eq!(
            refusal(&c, 31),
            vec![(
                "featureGates[KubeletCrashLoopBackOffMax]".to_owned(),
                format!("{PREFIX}unrecognized feature gate: KubeletCrashLoopBackOffMax")
            )]
        );
        assert!(refusal(&c, 33).is_empty());
        // JobSet's and OpenKruise's gates are no kubelet gate.
        let c = cfg(None, &[("RestartJob", true)]);
        assert_eq!(refusal(&c, 37).len(), 1);
        // A locked gate against its lock.
        let c = cfg(None, &[("JobManagedBy", false)]);
        assert_eq!(
            refusal(&c, 36),
            vec![(
                "featureGates[JobManagedBy]".to_owned(),
                format!(
                    "{PREFIX}cannot set feature gate JobManagedBy to false, feature is locked to true"
                )
            )]
        );
        assert!(refusal(&c, 34).is_empty());
        // 1.36: RestartAllContainersOnContainerExits is on by default and needs
        // NodeDeclaredFeatures; turning that off in the file stops the kubelet.
        let c = cfg(None, &[("NodeDeclaredFeatures", false)]);
        let r = refusal(&c, 36);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].0, "featureGates[NodeDeclaredFeatures]");
        assert!(r[0].1.starts_with(&format!("{PREFIX}[")), "{}", r[0].1);
        assert!(r[0].1.contains(", RestartAllContainersOnContainerExits is enabled, but depends on features that are disabled: [NodeDeclaredFeatures]]"), "{}", r[0].1);
        assert!(refusal(&c, 35).is_empty(), "{:?}", refusal(&c, 35));
    }

    #[test]
    fn unknown_fields_are_a_kubelet_warning_whatever_the_field_validation() {
        use crate::validate::unknown_fields::FieldValidation;
        let doc = serde_json::json!({
            "apiVersion": "kubelet.config.k8s.io/v1beta1",
            "kind": "KubeletConfiguration",
            "featureGates": {GATE_MAX: true},
            "crashloopbackoff": {"maxContainerRestartPeriod": "5s"},
        });
        for mode in [FieldValidation::Strict, FieldValidation::Warn] {
            let mut ctx = ctx_with(None);
            ctx.field_validation = mode;
            let (f, modelled) = crate::validate::validate_value(&doc, &ctx);
            assert!(modelled);
            assert!(f.errors.is_empty(), "{:?}", f.errors);
            let w: Vec<_> = f
                .warnings
                .iter()
                .filter(|d| d.code.as_deref() == Some("unknown-field"))
                .collect();
            assert_eq!(w.len(), 1, "{:?}", f.warnings);
            assert_eq!(w[0].field, "crashloopbackoff");
            assert_eq!(w[0].origin, Origin::Kubelet);
            assert!(
                w[0].message
                    .contains("falls back to lenient decoding, which ignores \"crashloopbackoff\""),
                "{}",
                w[0].message
            );
            assert!(
                w[0].message.contains("did you mean \"crashLoopBackOff\""),
                "{}",
                w[0].message
            );
            assert!(!w[0].message.contains("--validate"), "{}", w[0].message);
        }
        // A Pod's unknown field stays the API server's error under Strict.
        let pod = serde_json::json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "a", "image": "i"}], "restartPolcy": "Never"}});
        let mut ctx = ctx_with(None);
        ctx.field_validation = FieldValidation::Strict;
        let (f, _) = crate::validate::validate_value(&pod, &ctx);
        assert!(f.errors.iter().any(
            |d| d.code.as_deref() == Some("unknown-field") && d.origin == Origin::KubeApiserver
        ));
    }
}
