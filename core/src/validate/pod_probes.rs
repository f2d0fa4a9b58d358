//! Probes and lifecycle handlers of a Pod's containers, as kube-apiserver checks them on create.
//!
//! Upstream: `pkg/apis/core/validation/validation.go` (validateContainers and
//! validateInitContainers call validateLifecycle and validateLivenessProbe /
//! validateReadinessProbe / validateStartupProbe; validateProbe, validateHandler,
//! validateExecAction, validateHTTPGetAction, ValidatePortNumOrName, validateTCPSocketAction,
//! validateGRPCAction, validateSleepAction, validateStopSignal), `pkg/apis/core/v1/defaults.go`
//! (SetDefaults_Probe, SetDefaults_HTTPGetAction) and `pkg/api/pod/util.go`
//! (dropPodLifecycleSleepAction, dropContainerStopSignals, dropHTTPProbeProtocol,
//! dropDisabledGRPCContainerProbeTLS; GetValidationOptionsFromPodSpecAndMeta's
//! AllowPodLifecycleSleepActionZeroValue).
//!
//! Per minor: `lifecycle.stopSignal` exists from 1.33 (ContainerStopSignals), `httpGet.protocol`
//! (H2CContainerProbe) and `grpc.mode` (GRPCContainerProbeTLS) from 1.37; before, they are
//! unknown fields the decoder drops, so they are not read. A sleep of 0 seconds is refused in
//! 1.31, allowed from 1.32 with PodLifecycleSleepActionAllowZero, always from 1.37.

use super::Ctx;
use super::container::port_name;
use crate::api::{Container, PodSpec};
use crate::diag::{Diagnostic, FieldPath, Findings};
use crate::features::known_at;
use serde_json::{Map, Value};
use crate::versions::Change;

const GATE_SLEEP: &str = "PodLifecycleSleepAction";
const GATE_SLEEP_ZERO: &str = "PodLifecycleSleepActionAllowZero";
const GATE_STOP_SIGNALS: &str = "ContainerStopSignals";
const GATE_H2C: &str = "H2CContainerProbe";
const GATE_GRPC_TLS: &str = "GRPCContainerProbeTLS";

/// sets.List order (sorted).
const HTTP_SCHEMES: [&str; 2] = ["HTTP", "HTTPS"];
const HTTP_PROTOCOLS: [&str; 2] = ["HTTP1", "HTTP2"];
const GRPC_MODES: [&str; 2] = ["Plaintext", "TLS"];
const STOP_SIGNALS_WINDOWS: [&str; 2] = ["SIGKILL", "SIGTERM"];
/// supportedStopSignalsLinux in sets.List (byte) order.
const STOP_SIGNALS_LINUX: [&str; 65] = [
    "SIGABRT", "SIGALRM", "SIGBUS", "SIGCHLD", "SIGCLD", "SIGCONT", "SIGFPE", "SIGHUP", "SIGILL",
    "SIGINT", "SIGIO", "SIGIOT", "SIGKILL", "SIGPIPE", "SIGPOLL", "SIGPROF", "SIGPWR", "SIGQUIT",
    "SIGRTMAX", "SIGRTMAX-1", "SIGRTMAX-10", "SIGRTMAX-11", "SIGRTMAX-12", "SIGRTMAX-13",
    "SIGRTMAX-14", "SIGRTMAX-2", "SIGRTMAX-3", "SIGRTMAX-4", "SIGRTMAX-5", "SIGRTMAX-6",
    "SIGRTMAX-7", "SIGRTMAX-8", "SIGRTMAX-9", "SIGRTMIN", "SIGRTMIN+1", "SIGRTMIN+10",
    "SIGRTMIN+11", "SIGRTMIN+12", "SIGRTMIN+13", "SIGRTMIN+14", "SIGRTMIN+15", "SIGRTMIN+2",
    "SIGRTMIN+3", "SIGRTMIN+4", "SIGRTMIN+5", "SIGRTMIN+6", "SIGRTMIN+7", "SIGRTMIN+8",
    "SIGRTMIN+9", "SIGSEGV", "SIGSTKFLT", "SIGSTOP", "SIGSYS", "SIGTERM", "SIGTRAP", "SIGTSTP",
    "SIGTTIN", "SIGTTOU", "SIGURG", "SIGUSR1", "SIGUSR2", "SIGVTALRM", "SIGWINCH", "SIGXCPU",
    "SIGXFSZ",
];
const NONNEGATIVE: &str = "must be greater than or equal to 0";
const PORT_RANGE: &str = "must be between 1 and 65535, inclusive";
const MORE_THAN_ONE: &str = "may not specify more than 1 handler type";

/// How the sleep action's seconds are judged (validateSleepAction of the minor).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SleepRule {
    /// 1.31: `seconds <= 0 || seconds > grace`.
    Positive131,
    /// 1.32-1.36 with PodLifecycleSleepActionAllowZero off.
    PositiveGated,
    /// 1.32+ with the gate on, and 1.37: `seconds < 0 || seconds > grace`.
    NonNegative,
}

/// What the checks of one Pod need to know: the minor's rules, the gates and the Pod's own
/// fields the handlers are judged against.
#[derive(Debug, Clone)]
pub(super) struct Env {
    /// Apply the v1 defaulting of probes and HTTP actions (a request without skipDefaulting).
    defaulted: bool,
    /// PrepareForCreate clears the sleep action (PodLifecycleSleepAction off, up to 1.36).
    drop_sleep: bool,
    /// `lifecycle.stopSignal` is a field of this minor (1.33+).
    stop_signal_field: bool,
    /// ... and kept on create (ContainerStopSignals on).
    stop_signals: bool,
    /// `httpGet.protocol` is kept (1.37+, H2CContainerProbe on).
    http_protocol: bool,
    /// `grpc.mode` is kept (1.37+, GRPCContainerProbeTLS on).
    grpc_mode: bool,
    sleep: SleepRule,
    /// spec.terminationGracePeriodSeconds (defaulted to 30).
    grace: Option<i64>,
    /// spec.os: None when unset, else its name ("" when the name is missing).
    os: Option<String>,
}

impl Env {
    pub(super) fn new(spec: &PodSpec, ctx: &Ctx) -> Env {
        let minor = ctx.gates.version.minor;
        let on = |g: &str| ctx.gates.enabled(g);
        let defaulted = !ctx.skip_defaulting;
        let sleep = if !Change::SleepZeroGate.at(minor) {
            SleepRule::Positive131
        } else if ctx.gates.active(GATE_SLEEP_ZERO) {
            SleepRule::NonNegative
        } else {
            SleepRule::PositiveGated
        };
        let os = match spec.other.get("os") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                v.get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
            ),
        };
        Env {
            defaulted,
            drop_sleep: defaulted && !ctx.gates.active(GATE_SLEEP),
            // Each field came with its gate: a minor that knows the gate has the field, and
            // validates it as given when no create dropped it (skipDefaulting).
            stop_signal_field: known_at(GATE_STOP_SIGNALS, minor),
            stop_signals: known_at(GATE_STOP_SIGNALS, minor)
                && (!defaulted || on(GATE_STOP_SIGNALS)),
            http_protocol: known_at(GATE_H2C, minor) && (!defaulted || on(GATE_H2C)),
            grpc_mode: known_at(GATE_GRPC_TLS, minor) && (!defaulted || on(GATE_GRPC_TLS)),
            sleep,
            grace: spec.termination_grace_period_seconds,
            os,
        }
    }
}

fn set(v: Option<&Value>) -> Option<&Value> {
    v.filter(|x| !x.is_null())
}

fn int(m: &Map<String, Value>, key: &str) -> i64 {
    m.get(key).and_then(Value::as_i64).unwrap_or(0)
}

/// A lifecycle handler as PrepareForCreate leaves it: None when absent, or when it held only a
/// sleep action that dropPodLifecycleSleepAction cleared.
fn lifecycle_handler<'a>(lc: &'a Map<String, Value>, key: &str, env: &Env) -> Option<&'a Value> {
    let h = set(lc.get(key))?;
    if env.drop_sleep
        && set(h.get("sleep")).is_some()
        && ["exec", "httpGet", "tcpSocket"]
            .iter()
            .all(|k| set(h.get(*k)).is_none())
    {
        return None;
    }
    Some(h)
}

/// Whether the container's lifecycle survives PrepareForCreate (dropPodLifecycleSleepAction
/// clears one left with no handler and no stop signal, dropContainerStopSignals one whose only
/// field was the stop signal it cleared).
pub(super) fn lifecycle_set(c: &Container, env: &Env) -> bool {
    let Some(lc) = c.lifecycle.as_ref().and_then(Value::as_object) else {
        return c.lifecycle.as_ref().is_some_and(|v| !v.is_null());
    };
    let handlers = lifecycle_handler(lc, "postStart", env).is_some()
        || lifecycle_handler(lc, "preStop", env).is_some();
    let signal = env.stop_signal_field && set(lc.get("stopSignal")).is_some();
    if handlers || (signal && env.stop_signals) {
        return true;
    }
    !(env.drop_sleep || signal)
}

/// validateContainers' and (for a sidecar) validateInitContainers' lifecycle and probe checks.
pub(super) fn validate_container(c: &Container, p: &FieldPath, env: &Env, out: &mut Findings) {
    if lifecycle_set(c, env)
        && let Some(lc) = c.lifecycle.as_ref().and_then(Value::as_object)
    {
        lifecycle(lc, &p.child("lifecycle"), env, out);
    }
    for (key, kind) in [
        ("livenessProbe", Kind::Liveness),
        ("readinessProbe", Kind::Readiness),
        ("startupProbe", Kind::Startup),
    ] {
        if let Some(pr) = set(c.other.get(key)) {
            probe(pr, &p.child(key), kind, env, out);
        }
    }
}

/// validateInitContainers' switch: a sidecar's lifecycle and probes are checked as a regular
/// container's; any other init container may not have them.
pub(super) fn validate_init_container(
    c: &Container,
    p: &FieldPath,
    sidecar: bool,
    env: &Env,
    out: &mut Findings,
) {
    if sidecar {
        return validate_container(c, p, env, out);
    }
    let detail = "may not be set for init containers without restartPolicy=Always";
    if lifecycle_set(c, env) {
        out.push(Diagnostic::forbidden(&p.child("lifecycle"), detail));
    }
    for probe in ["livenessProbe", "readinessProbe", "startupProbe"] {
        if set(c.other.get(probe)).is_some() {
            out.push(Diagnostic::forbidden(&p.child(probe), detail));
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Liveness,
    Readiness,
    Startup,
}

/// validateLivenessProbe / validateReadinessProbe / validateStartupProbe and validateProbe.
fn probe(v: &Value, p: &FieldPath, kind: Kind, env: &Env, out: &mut Findings) {
    let empty = Map::new();
    let m = v.as_object().unwrap_or(&empty);
    handler(m, false, p, env, out);
    // SetDefaults_Probe gives a zero timeout, period and thresholds their defaults.
    let defaulted = |key: &str, default: i64| match int(m, key) {
        0 if env.defaulted => default,
        n => n,
    };
    let success = defaulted("successThreshold", 1);
    for (key, value) in [
        ("initialDelaySeconds", int(m, "initialDelaySeconds")),
        ("timeoutSeconds", defaulted("timeoutSeconds", 1)),
        ("periodSeconds", defaulted("periodSeconds", 10)),
        ("successThreshold", success),
        ("failureThreshold", defaulted("failureThreshold", 3)),
    ] {
        if value < 0 {
            out.push(Diagnostic::invalid(&p.child(key), value, NONNEGATIVE));
        }
    }
    let tgps = m.get("terminationGracePeriodSeconds").and_then(Value::as_i64);
    if let Some(t) = tgps
        && t <= 0
    {
        out.push(Diagnostic::invalid(
            &p.child("terminationGracePeriodSeconds"),
            t,
            "must be greater than 0",
        ));
    }
    match kind {
        Kind::Liveness | Kind::Startup if success != 1 => out.push(Diagnostic::invalid(
            &p.child("successThreshold"),
            success,
            "must be 1",
        )),
        Kind::Readiness if tgps.is_some() => out.push(Diagnostic::invalid(
            &p.child("terminationGracePeriodSeconds"),
            tgps.unwrap_or_default(),
            "must not be set for readinessProbes",
        )),
        _ => {}
    }
}

/// validateLifecycle.
fn lifecycle(lc: &Map<String, Value>, p: &FieldPath, env: &Env, out: &mut Findings) {
    for key in ["postStart", "preStop"] {
        if let Some(h) = lifecycle_handler(lc, key, env) {
            let empty = Map::new();
            handler(h.as_object().unwrap_or(&empty), true, &p.child(key), env, out);
        }
    }
    if env.stop_signals
        && let Some(sig) = set(lc.get("stopSignal"))
    {
        stop_signal(sig.as_str().unwrap_or(""), &p.child("stopSignal"), env, out);
    }
}

/// validateStopSignal: only with spec.os set, from the OS's list.
fn stop_signal(sig: &str, p: &FieldPath, env: &Env, out: &mut Findings) {
    match env.os.as_deref() {
        None => out.push(Diagnostic::forbidden(
            p,
            "may not be set for containers with empty `spec.os.name`",
        )),
        Some("windows") if !STOP_SIGNALS_WINDOWS.contains(&sig) => {
            out.push(Diagnostic::not_supported(p, sig, &STOP_SIGNALS_WINDOWS))
        }
        Some("linux") if !STOP_SIGNALS_LINUX.contains(&sig) => {
            out.push(Diagnostic::not_supported(p, sig, &STOP_SIGNALS_LINUX))
        }
        _ => {}
    }
}

/// validateHandler: exactly one action, checked in upstream's order (exec, httpGet, tcpSocket,
/// grpc, sleep); each after the first is Forbidden. Probes have grpc, lifecycle handlers sleep.
fn handler(m: &Map<String, Value>, lifecycle: bool, p: &FieldPath, env: &Env, out: &mut Findings) {
    let keys: [&str; 4] = if lifecycle {
        ["exec", "httpGet", "tcpSocket", "sleep"]
    } else {
        ["exec", "httpGet", "tcpSocket", "grpc"]
    };
    let mut n = 0;
    for key in keys {
        // The sleep action PrepareForCreate dropped is no handler.
        if key == "sleep" && env.drop_sleep {
            continue;
        }
        let Some(a) = set(m.get(key)) else { continue };
        let ap = p.child(key);
        if n > 0 {
            out.push(Diagnostic::forbidden(&ap, MORE_THAN_ONE));
            continue;
        }
        n += 1;
        let empty = Map::new();
        let am = a.as_object().unwrap_or(&empty);
        match key {
            "exec" => {
                if am
                    .get("command")
                    .and_then(Value::as_array)
                    .is_none_or(Vec::is_empty)
                {
                    out.push(Diagnostic::required(&ap.child("command"), ""));
                }
            }
            "httpGet" => http_get(am, &ap, env, out),
            "tcpSocket" => port_num_or_name(am.get("port"), &ap.child("port"), out),
            "grpc" => {
                let port = int(am, "port");
                port_num_or_name(Some(&Value::from(port)), &ap.child("port"), out);
                if env.grpc_mode
                    && let Some(mode) = set(am.get("mode"))
                {
                    let mode = mode.as_str().unwrap_or("");
                    if !GRPC_MODES.contains(&mode) {
                        out.push(Diagnostic::not_supported(
                            &ap.child("mode"),
                            mode,
                            &GRPC_MODES,
                        ));
                    }
                }
            }
            _ => sleep(int(am, "seconds"), &ap, env, out),
        }
    }
    if n == 0 {
        out.push(Diagnostic::required(p, "must specify a handler type"));
    }
}

/// validateSleepAction of the minor.
fn sleep(seconds: i64, p: &FieldPath, env: &Env, out: &mut Findings) {
    // Upstream reads the grace period through a pointer; without one (only when defaulting is
    // skipped) 1.31 would fail the request and later minors skip the check. The missing grace
    // period is reported by ValidatePodSpec already.
    let Some(grace) = env.grace else { return };
    let (bad, msg) = match env.sleep {
        SleepRule::Positive131 => (
            seconds <= 0 || seconds > grace,
            format!("must be greater than 0 and less than terminationGracePeriodSeconds ({grace})"),
        ),
        SleepRule::PositiveGated => (
            seconds <= 0 || seconds > grace,
            format!(
                "must be greater than 0 and less than terminationGracePeriodSeconds ({grace}). Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep."
            ),
        ),
        SleepRule::NonNegative => (
            seconds < 0 || seconds > grace,
            format!("must be non-negative and less than terminationGracePeriodSeconds ({grace})"),
        ),
    };
    if bad {
        out.push(Diagnostic::invalid(p, seconds, msg));
    }
}

/// validateHTTPGetAction, after SetDefaults_HTTPGetAction (path `/`, scheme `HTTP`).
fn http_get(m: &Map<String, Value>, p: &FieldPath, env: &Env, out: &mut Findings) {
    let text = |key: &str| m.get(key).and_then(Value::as_str).unwrap_or("");
    let path = match text("path") {
        "" if env.defaulted => "/",
        s => s,
    };
    let scheme = match text("scheme") {
        "" if env.defaulted => "HTTP",
        s => s,
    };
    if path.is_empty() {
        out.push(Diagnostic::required(&p.child("path"), ""));
    }
    port_num_or_name(m.get("port"), &p.child("port"), out);
    if !HTTP_SCHEMES.contains(&scheme) {
        out.push(Diagnostic::not_supported(
            &p.child("scheme"),
            scheme,
            &HTTP_SCHEMES,
        ));
    }
    if let Some(headers) = m.get("httpHeaders").and_then(Value::as_array) {
        for h in headers {
            let name = h.get("name").and_then(Value::as_str).unwrap_or("");
            if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
                out.push(Diagnostic::invalid(
                    &p.child("httpHeaders"),
                    name,
                    super::meta::regex_error(
                        "a valid HTTP header must consist of alphanumeric characters or '-'",
                        "[-A-Za-z0-9]+",
                        &["X-Header-Name"],
                    ),
                ));
            }
        }
    }
    if env.http_protocol
        && let Some(proto) = set(m.get("protocol"))
    {
        let proto = proto.as_str().unwrap_or("");
        let host = text("host");
        if !HTTP_PROTOCOLS.contains(&proto) {
            out.push(Diagnostic::not_supported(
                &p.child("protocol"),
                proto,
                &HTTP_PROTOCOLS,
            ));
        } else if proto == "HTTP2" && scheme != "HTTP" {
            out.push(Diagnostic::invalid(
                &p.child("protocol"),
                proto,
                "is only supported with HTTP (H2C)",
            ));
        } else if proto == "HTTP2" && !host.is_empty() {
            out.push(Diagnostic::invalid(
                &p.child("host"),
                host,
                "must be empty when `protocol` is \"HTTP2\"",
            ));
        }
    }
}

/// ValidatePortNumOrName of an IntOrString: a number must be a port number, a string a port
/// name (IsValidPortName). Absent is the zero IntOrString, the number 0.
fn port_num_or_name(v: Option<&Value>, p: &FieldPath, out: &mut Findings) {
    match v {
        Some(Value::String(s)) => {
            for msg in port_name(s) {
                out.push(Diagnostic::invalid(p, s.as_str(), msg));
            }
        }
        other => {
            let n = other.and_then(Value::as_i64).unwrap_or(0);
            if !(1..=65535).contains(&n) {
                out.push(Diagnostic::invalid(p, n, PORT_RANGE));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use crate::features::{FeatureGates, KubeVersion};
    use serde_json::json;

    fn ctx(minor: u32, gates: &[(&str, bool)]) -> Ctx {
        let mut g = FeatureGates::for_version(KubeVersion::parse(&format!("1.{minor}")).unwrap());
        for (k, v) in gates {
            g.set(k, *v);
        }
        Ctx {
            gates: g,
            ..Default::default()
        }
    }

    /// Messages of a Pod spec with one regular container with `extra` fields (and the spec's
    /// own `spec_extra`), grace period defaulted to 30.
    fn msgs_at(minor: u32, gates: &[(&str, bool)], extra: Value, spec_extra: Value) -> Vec<String> {
        let mut c = json!({"name": "c", "image": "i"});
        for (k, v) in extra.as_object().unwrap() {
            c[k] = v.clone();
        }
        let mut s = json!({"containers": [c], "terminationGracePeriodSeconds": 30});
        for (k, v) in spec_extra.as_object().unwrap() {
            s[k] = v.clone();
        }
        let spec: PodSpec = serde_json::from_value(s).unwrap();
        let cx = ctx(minor, gates);
        let env = Env::new(&spec, &cx);
        let mut out = Findings::default();
        validate_container(
            &spec.containers[0],
            &FieldPath::new("spec").child("containers").index(0),
            &env,
            &mut out,
        );
        out.errors.into_iter().map(|d| d.message).collect()
    }

    fn msgs(extra: Value) -> Vec<String> {
        msgs_at(37, &[], extra, json!({}))
    }

    const P: &str = "spec.containers[0]";

    #[test]
    fn valid_probes_pass() {
        let m = msgs(json!({
            "livenessProbe": {"httpGet": {"port": 8080, "httpHeaders": [{"name": "X-Trace", "value": "1"}]}},
            "readinessProbe": {"tcpSocket": {"port": "http"}, "successThreshold": 3},
            "startupProbe": {"grpc": {"port": 9000}, "failureThreshold": 30},
            "lifecycle": {"preStop": {"sleep": {"seconds": 5}}, "postStart": {"exec": {"command": ["true"]}}},
        }));
        assert!(m.is_empty(), "{m:?}");
    }

    #[test]
    fn two_handlers_and_none() {
        assert_eq!(
            msgs(json!({"livenessProbe": {"exec": {"command": ["x"]}, "httpGet": {"port": 80}}})),
            [format!("{P}.livenessProbe.httpGet: Forbidden: may not specify more than 1 handler type")]
        );
        assert_eq!(
            msgs(json!({"lifecycle": {"preStop": {}}})),
            [format!("{P}.lifecycle.preStop: Required value: must specify a handler type")]
        );
        assert_eq!(
            msgs(json!({"readinessProbe": {"exec": {}}})),
            [format!("{P}.readinessProbe.exec.command: Required value")]
        );
    }

    #[test]
    fn thresholds() {
        assert_eq!(
            msgs(json!({"livenessProbe": {"tcpSocket": {"port": 80}, "successThreshold": 3}})),
            [format!("{P}.livenessProbe.successThreshold: Invalid value: 3: must be 1")]
        );
        let m = msgs(json!({"startupProbe": {"tcpSocket": {"port": 80}, "successThreshold": -1, "periodSeconds": -2}}));
        assert!(m.contains(&format!("{P}.startupProbe.successThreshold: Invalid value: -1: must be greater than or equal to 0")), "{m:?}");
        assert!(m.contains(&format!("{P}.startupProbe.successThreshold: Invalid value: -1: must be 1")), "{m:?}");
        assert!(m.contains(&format!("{P}.startupProbe.periodSeconds: Invalid value: -2: must be greater than or equal to 0")), "{m:?}");
        // Zero is defaulted to 1, so a liveness probe's successThreshold 0 passes.
        assert!(msgs(json!({"livenessProbe": {"tcpSocket": {"port": 80}, "successThreshold": 0}})).is_empty());
    }

    #[test]
    fn probe_termination_grace() {
        assert_eq!(
            msgs(json!({"readinessProbe": {"tcpSocket": {"port": 80}, "terminationGracePeriodSeconds": 5}})),
            [format!("{P}.readinessProbe.terminationGracePeriodSeconds: Invalid value: 5: must not be set for readinessProbes")]
        );
        assert_eq!(
            msgs(json!({"livenessProbe": {"tcpSocket": {"port": 80}, "terminationGracePeriodSeconds": 0}})),
            [format!("{P}.livenessProbe.terminationGracePeriodSeconds: Invalid value: 0: must be greater than 0")]
        );
    }

    #[test]
    fn http_get_fields() {
        let m = msgs(json!({"livenessProbe": {"httpGet": {"port": 0, "scheme": "FTP", "httpHeaders": [{"name": "Bad Header"}]}}}));
        assert_eq!(m.len(), 3, "{m:?}");
        assert!(m.contains(&format!("{P}.livenessProbe.httpGet.port: Invalid value: 0: must be between 1 and 65535, inclusive")));
        assert!(m.contains(&format!("{P}.livenessProbe.httpGet.scheme: Unsupported value: \"FTP\": supported values: \"HTTP\", \"HTTPS\"")));
        assert!(m.iter().any(|x| x.starts_with(&format!("{P}.livenessProbe.httpGet.httpHeaders: Invalid value: \"Bad Header\": a valid HTTP header"))));
        let m = msgs(json!({"readinessProbe": {"tcpSocket": {"port": "HTTP"}}}));
        assert!(m.iter().all(|x| x.starts_with(&format!("{P}.readinessProbe.tcpSocket.port: Invalid value: \"HTTP\""))) && !m.is_empty(), "{m:?}");
    }

    #[test]
    fn http_protocol_and_grpc_mode_from_1_37_with_gates() {
        let c = json!({"livenessProbe": {"httpGet": {"port": 80, "scheme": "HTTPS", "protocol": "HTTP2"}},
                       "readinessProbe": {"grpc": {"port": 80, "mode": "mTLS"}}});
        assert!(msgs(c.clone()).is_empty(), "gates off: dropped");
        assert!(msgs_at(36, &[], c.clone(), json!({})).is_empty(), "unknown fields before 1.37");
        let m = msgs_at(37, &[(GATE_H2C, true), (GATE_GRPC_TLS, true)], c, json!({}));
        assert_eq!(m, [
            format!("{P}.livenessProbe.httpGet.protocol: Invalid value: \"HTTP2\": is only supported with HTTP (H2C)"),
            format!("{P}.readinessProbe.grpc.mode: Unsupported value: \"mTLS\": supported values: \"Plaintext\", \"TLS\""),
        ]);
    }

    #[test]
    fn sleep_per_minor() {
        let zero = json!({"lifecycle": {"preStop": {"sleep": {"seconds": 0}}}});
        assert_eq!(msgs_at(31, &[], zero.clone(), json!({})), [format!(
            "{P}.lifecycle.preStop.sleep: Invalid value: 0: must be greater than 0 and less than terminationGracePeriodSeconds (30)")]);
        assert_eq!(msgs_at(32, &[], zero.clone(), json!({})), [format!(
            "{P}.lifecycle.preStop.sleep: Invalid value: 0: must be greater than 0 and less than terminationGracePeriodSeconds (30). Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep.")]);
        assert!(msgs_at(33, &[], zero.clone(), json!({})).is_empty());
        assert!(msgs_at(37, &[], zero, json!({})).is_empty());
        assert_eq!(msgs(json!({"lifecycle": {"postStart": {"sleep": {"seconds": 31}}}})), [format!(
            "{P}.lifecycle.postStart.sleep: Invalid value: 31: must be non-negative and less than terminationGracePeriodSeconds (30)")]);
        // PodLifecycleSleepAction off (1.33): the sleep is dropped, so a too-long one passes.
        assert!(msgs_at(33, &[(GATE_SLEEP, false)], json!({"lifecycle": {"preStop": {"sleep": {"seconds": 99}}}}), json!({})).is_empty());
    }

    #[test]
    fn stop_signal_needs_os() {
        let c = json!({"lifecycle": {"stopSignal": "SIGTERM"}});
        assert!(msgs_at(37, &[], c.clone(), json!({})).is_empty(), "gate off: dropped");
        let on = [(GATE_STOP_SIGNALS, true)];
        assert_eq!(msgs_at(37, &on, c.clone(), json!({})), [format!(
            "{P}.lifecycle.stopSignal: Forbidden: may not be set for containers with empty `spec.os.name`")]);
        assert!(msgs_at(37, &on, c, json!({"os": {"name": "linux"}})).is_empty());
        let m = msgs_at(33, &on, json!({"lifecycle": {"stopSignal": "SIGUSR1"}}), json!({"os": {"name": "windows"}}));
        assert_eq!(m, [format!("{P}.lifecycle.stopSignal: Unsupported value: \"SIGUSR1\": supported values: \"SIGKILL\", \"SIGTERM\"")]);
        assert!(msgs_at(32, &on, json!({"lifecycle": {"stopSignal": "BOGUS"}}), json!({})).is_empty(), "no field before 1.33");
    }

    #[test]
    fn lifecycle_survives_drops() {
        let cx = ctx(33, &[(GATE_SLEEP, false)]);
        let spec = PodSpec::default();
        let env = Env::new(&spec, &cx);
        let c = |lc: Value| -> Container { serde_json::from_value(json!({"name": "c", "lifecycle": lc})).unwrap() };
        assert!(!lifecycle_set(&c(json!({"preStop": {"sleep": {"seconds": 1}}})), &env));
        assert!(!lifecycle_set(&c(json!({})), &env));
        assert!(lifecycle_set(&c(json!({"preStop": {"exec": {"command": ["x"]}}})), &env));
        let env = Env::new(&spec, &ctx(33, &[]));
        assert!(lifecycle_set(&c(json!({})), &env));
        assert!(!lifecycle_set(&c(json!({"stopSignal": "SIGTERM"})), &env), "the stop signal dropped");
        assert!(lifecycle_set(&c(json!({"stopSignal": "SIGTERM"})), &Env::new(&spec, &ctx(32, &[]))), "unknown before 1.33: {{}} stays");
    }

    #[test]
    fn init_containers_without_always_may_not_have_them() {
        let cx = ctx(37, &[]);
        let spec = PodSpec::default();
        let env = Env::new(&spec, &cx);
        let c: Container = serde_json::from_value(json!({"name": "i", "lifecycle": {"preStop": {}}, "startupProbe": {}})).unwrap();
        let p = FieldPath::new("spec").child("initContainers").index(0);
        let mut out = Findings::default();
        validate_init_container(&c, &p, false, &env, &mut out);
        let m: Vec<_> = out.errors.iter().map(|d| d.message.clone()).collect();
        assert_eq!(m, [
            "spec.initContainers[0].lifecycle: Forbidden: may not be set for init containers without restartPolicy=Always",
            "spec.initContainers[0].startupProbe: Forbidden: may not be set for init containers without restartPolicy=Always",
        ]);
        let mut out = Findings::default();
        validate_init_container(&c, &p, true, &env, &mut out);
        let m: Vec<_> = out.errors.iter().map(|d| d.message.clone()).collect();
        assert_eq!(m, [
            "spec.initContainers[0].lifecycle.preStop: Required value: must specify a handler type",
            "spec.initContainers[0].startupProbe: Required value: must specify a handler type",
        ]);
    }
}
