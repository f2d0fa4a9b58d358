//! The specs of the built-in controllers as their registry strategies validate them on create,
//! after the v1 defaulting: Deployment, ReplicaSet, StatefulSet and DaemonSet
//! (pkg/apis/apps/validation), ReplicationController (pkg/apis/core/validation), and a Job's
//! selector rules (pkg/apis/batch/validation). A CronJob's spec is cron.rs's, on the spec as
//! [`set_defaults`] here leaves it. The Pod template itself is checked by
//! [`super::workloads::controller_template_value`], at the place upstream checks it, so errors
//! come out in upstream's order.
//!
//! The spec is read from the JSON the decoding pass accepted (every member has its declared
//! type); what is absent is Go's zero value. A StatefulSet's volumeClaimTemplates are pvc.rs's.
//!
//! Values printed in messages follow each minor's apimachinery: JSON from 1.34, Go's `%#v`
//! before (an internal type's pointers written `0x…`, as the oracle masks them).

use super::selector::{self, Converted};
use super::{Ctx, meta};
use crate::diag::{Diagnostic, FieldPath, Findings};
use serde_json::{Map, Value, json};
use crate::versions::Change;

pub(super) fn int(v: &Value, key: &str) -> Option<i64> {
    v.get(key).and_then(Value::as_i64)
}

pub(super) fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

pub(super) fn object<'a>(v: &'a Value, key: &str) -> Option<&'a Map<String, Value>> {
    v.get(key).and_then(Value::as_object)
}

/// ValidateNonnegativeField.
pub(super) fn nonnegative(v: i64, p: &FieldPath, out: &mut Findings) {
    if v < 0 {
        out.push(Diagnostic::invalid(
            p,
            v,
            "must be greater than or equal to 0",
        ));
    }
}

/// Sets `key` of `v` to `value` when it is absent or null.
fn default(v: &mut Value, key: &str, value: Value) {
    if let Some(m) = v.as_object_mut()
        && m.get(key).is_none_or(Value::is_null)
    {
        m.insert(key.to_owned(), value);
    }
}

/// The member `key` of `v` as an object (made one when absent or null).
fn member<'a>(v: &'a mut Value, key: &str) -> Option<&'a mut Value> {
    default(v, key, json!({}));
    v.get_mut(key).filter(|m| m.is_object())
}

// ---------------------------------------------------------------------------------------------
// intstr.IntOrString
// ---------------------------------------------------------------------------------------------

/// An IntOrString as the internal types hold it (a zero value when absent).
fn int_or_string(v: Option<&Value>) -> Value {
    v.filter(|x| !x.is_null()).cloned().unwrap_or(json!(0))
}

/// IsValidPercent: `^[0-9]+%$`.
fn is_percent(s: &str) -> bool {
    s.strip_suffix('%')
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit()))
}

/// strconv.Atoi with its error ignored, as the callers upstream do: a syntax error gives 0, a
/// number out of range the int64 bound on its side (Atoi returns it with ErrRange).
fn atoi_or_zero(s: &str) -> i64 {
    crate::go_strconv::atoi(s).unwrap_or_else(|e| e.value())
}

/// getIntOrPercentValue: a valid percent's number, else IntValue (a string through Atoi, 0 when
/// it does not parse).
fn int_or_percent_value(v: &Value) -> i64 {
    match v {
        Value::String(s) if is_percent(s) => atoi_or_zero(s.trim_end_matches('%')),
        Value::String(s) => atoi_or_zero(s),
        other => other.as_i64().unwrap_or(0),
    }
}

/// An IntOrString (held by value) as a field error prints it: JSON from 1.34 (its MarshalJSON);
/// before, `%#v` of the struct (its String method has a pointer receiver).
pub(super) fn print_int_or_string(v: &Value, minor: u32) -> String {
    if Change::FieldErrorJsonValues.at(minor) {
        return v.to_string();
    }
    match v {
        Value::String(s) => format!("intstr.IntOrString{{Type:1, IntVal:0, StrVal:{s:?}}}"),
        other => format!(
            "intstr.IntOrString{{Type:0, IntVal:{}, StrVal:\"\"}}",
            other.as_i64().unwrap_or(0)
        ),
    }
}

/// `field.Invalid` on an IntOrString.
fn invalid_int_or_string(p: &FieldPath, v: &Value, detail: &str, minor: u32) -> Diagnostic {
    Diagnostic::invalid(p, v.clone(), detail).with_printed_value(&print_int_or_string(v, minor))
}

/// ValidatePositiveIntOrPercent (a PodDisruptionBudget's minAvailable and maxUnavailable too).
pub(super) fn positive_int_or_percent(v: &Value, p: &FieldPath, minor: u32, out: &mut Findings) {
    match v {
        Value::String(s) => {
            if !is_percent(s) {
                out.push(invalid_int_or_string(
                    p,
                    v,
                    &meta::regex_error(
                        "a valid percent string must be a numeric string followed by an ending '%'",
                        "[0-9]+%",
                        &["1%", "93%"],
                    ),
                    minor,
                ));
            }
        }
        other => nonnegative(other.as_i64().unwrap_or(0), p, out),
    }
}

/// IsNotMoreThan100Percent.
pub(super) fn not_over_100_percent(v: &Value, p: &FieldPath, minor: u32, out: &mut Findings) {
    if let Value::String(s) = v
        && is_percent(s)
        && atoi_or_zero(s.trim_end_matches('%')) > 100
    {
        out.push(invalid_int_or_string(
            p,
            v,
            "must not be greater than 100%",
            minor,
        ));
    }
}

/// `field.NotSupported` on a Deployment's or DaemonSet's whole strategy, an internal struct
/// (`Type`, and a `RollingUpdate` pointer to maxUnavailable and maxSurge) printed as the minor
/// prints it. `go_type` names the struct (`DeploymentStrategy`), `rolling_type` its pointee.
fn unsupported_strategy(
    strategy: &Value,
    p: &FieldPath,
    (go_type, rolling_type): (&str, &str),
    supported: &[&str],
    minor: u32,
) -> Diagnostic {
    let type_ = str_of(strategy, "type");
    let rolling = strategy.get("rollingUpdate").filter(|r| !r.is_null());
    let shown = if Change::FieldErrorJsonValues.at(minor) {
        let mut m = Map::new();
        m.insert("Type".into(), json!(type_));
        m.insert(
            "RollingUpdate".into(),
            rolling.map_or(Value::Null, |r| {
                json!({"MaxUnavailable": int_or_string(r.get("maxUnavailable")),
                       "MaxSurge": int_or_string(r.get("maxSurge"))})
            }),
        );
        Value::Object(m).to_string()
    } else {
        let ptr = if rolling.is_some() { "0x…" } else { "nil" };
        format!("apps.{go_type}{{Type:{type_:?}, RollingUpdate:(*apps.{rolling_type})({ptr})}}")
    };
    Diagnostic::not_supported(p, type_, supported).with_printed_value(&shown)
}

// ---------------------------------------------------------------------------------------------
// Selectors and templates
// ---------------------------------------------------------------------------------------------

/// The template's labels (for matching) and their printed form.
fn template_labels(template: Option<&Value>) -> Option<&Value> {
    template
        .and_then(|t| t.get("metadata"))
        .and_then(|m| m.get("labels"))
        .filter(|l| !l.is_null())
}

/// "`selector` does not match template `labels`", with the template's labels (as the strategy
/// leaves them).
fn mismatch(labels: Option<&Value>, tp: &FieldPath, minor: u32) -> Diagnostic {
    Diagnostic::invalid(
        &tp.child("metadata").child("labels"),
        labels.cloned().unwrap_or(Value::Null),
        "`selector` does not match template `labels`",
    )
    .with_printed_value(&selector::print_string_map(labels, minor))
}

/// `field.Invalid` on a whole selector (a `*metav1.LabelSelector`), printed as the minor prints
/// it.
pub(super) fn invalid_selector(
    p: &FieldPath,
    s: &Map<String, Value>,
    detail: &str,
    minor: u32,
) -> Diagnostic {
    Diagnostic::invalid(p, Value::Object(s.clone()), detail)
        .with_printed_value(&selector::print_selector(s, minor))
}

/// A LabelSelector spec's `selector` as Deployment, ReplicaSet and StatefulSet check it:
/// Required, ValidateLabelSelector, not empty; returns LabelSelectorAsSelector's outcome.
fn required_selector(
    spec: &Value,
    sp: &FieldPath,
    empty_for: &str,
    minor: u32,
    out: &mut Findings,
) -> Converted {
    let p = sp.child("selector");
    let sel = object(spec, "selector");
    match sel {
        None => out.push(Diagnostic::required(&p, "")),
        Some(s) => {
            selector::validate(s, &p, minor, out);
            if selector::convert(Some(s)) == Converted::Everything {
                out.push(invalid_selector(
                    &p,
                    s,
                    &format!("empty selector is invalid for {empty_for}"),
                    minor,
                ));
            }
        }
    }
    selector::convert(sel)
}

/// The template check every controller but DaemonSet makes: when the selector is not empty, it
/// must match the template's labels.
fn template_matches(
    spec: &Value,
    converted: Converted,
    tp: &FieldPath,
    minor: u32,
    out: &mut Findings,
) {
    let template = spec.get("template").filter(|t| !t.is_null());
    if converted == Converted::Everything {
        return;
    }
    let labels = selector::string_map(template_labels(template));
    if !selector::matches(object(spec, "selector"), converted, &labels) {
        out.push(mismatch(template_labels(template), tp, minor));
    }
}

// ---------------------------------------------------------------------------------------------
// The kinds
// ---------------------------------------------------------------------------------------------

/// Validates the spec of a Deployment, ReplicaSet, StatefulSet, DaemonSet or
/// ReplicationController, with its Pod template (a CronJob: [`super::cron::validate_cron_job`]).
// Kept out of its caller: see `validate::workloads::validate_kind`.
#[inline(never)]
pub(super) fn validate(kind: &str, obj: &Value, ctx: &Ctx, out: &mut Findings) {
    let spec = defaulted_spec(kind, obj, ctx);
    let sp = FieldPath::new("spec");
    let minor = ctx.gates.version.minor;
    match kind {
        "Deployment" => deployment(&spec, &sp, ctx, out),
        "ReplicaSet" => {
            nonnegative(
                int(&spec, "replicas").unwrap_or(0),
                &sp.child("replicas"),
                out,
            );
            nonnegative(
                int(&spec, "minReadySeconds").unwrap_or(0),
                &sp.child("minReadySeconds"),
                out,
            );
            let c = required_selector(&spec, &sp, "deployment", minor, out);
            replica_set_template(&spec, c, &sp, ctx, out);
        }
        "StatefulSet" => stateful_set(&spec, &sp, ctx, out),
        "DaemonSet" => daemon_set(&spec, &sp, ctx, out),
        "ReplicationController" => replication_controller(&spec, &sp, ctx, out),
        _ => {}
    }
}

/// The object's spec (an empty one when absent) as the v1 defaulting leaves it.
pub(super) fn defaulted_spec(kind: &str, obj: &Value, ctx: &Ctx) -> Value {
    let mut spec = obj
        .get("spec")
        .filter(|s| s.is_object())
        .cloned()
        .unwrap_or_else(|| json!({}));
    if !ctx.skip_defaulting {
        set_defaults(kind, &mut spec, ctx);
    }
    spec
}

/// The v1 defaulting of each kind's spec (SetDefaults_<Kind>).
fn set_defaults(kind: &str, spec: &mut Value, ctx: &Ctx) {
    match kind {
        "Deployment" => {
            default(spec, "replicas", json!(1));
            if let Some(s) = member(spec, "strategy") {
                default(s, "type", json!("RollingUpdate"));
                if str_of(s, "type") == "RollingUpdate"
                    && let Some(r) = member(s, "rollingUpdate")
                {
                    default(r, "maxUnavailable", json!("25%"));
                    default(r, "maxSurge", json!("25%"));
                }
            }
            default(spec, "revisionHistoryLimit", json!(10));
            default(spec, "progressDeadlineSeconds", json!(600));
        }
        "ReplicaSet" => default(spec, "replicas", json!(1)),
        "DaemonSet" => {
            if let Some(s) = member(spec, "updateStrategy") {
                default(s, "type", json!("RollingUpdate"));
                if str_of(s, "type") == "RollingUpdate"
                    && let Some(r) = member(s, "rollingUpdate")
                {
                    default(r, "maxUnavailable", json!(1));
                    default(r, "maxSurge", json!(0));
                }
            }
            default(spec, "revisionHistoryLimit", json!(10));
        }
        "StatefulSet" => {
            default(spec, "podManagementPolicy", json!("OrderedReady"));
            let max_unavailable = ctx.gates.enabled("MaxUnavailableStatefulSet");
            if let Some(s) = member(spec, "updateStrategy") {
                if s.get("type")
                    .and_then(Value::as_str)
                    .is_none_or(str::is_empty)
                {
                    s["type"] = json!("RollingUpdate");
                    default(s, "rollingUpdate", json!({}));
                }
                if str_of(s, "type") == "RollingUpdate"
                    && let Some(r) = s.get_mut("rollingUpdate").filter(|r| r.is_object())
                {
                    default(r, "partition", json!(0));
                    if max_unavailable {
                        default(r, "maxUnavailable", json!(1));
                    }
                }
                // dropStatefulSetDisabledFields: without the gate, maxUnavailable is dropped.
                if !max_unavailable
                    && let Some(r) = s.get_mut("rollingUpdate").and_then(Value::as_object_mut)
                {
                    r.remove("maxUnavailable");
                }
            }
            // StatefulSetAutoDeletePVC (GA in 1.32): without it the policy is dropped.
            if ctx.gates.active("StatefulSetAutoDeletePVC") {
                if let Some(p) = member(spec, "persistentVolumeClaimRetentionPolicy") {
                    for k in ["whenDeleted", "whenScaled"] {
                        if p.get(k).and_then(Value::as_str).is_none_or(str::is_empty) {
                            p[k] = json!("Retain");
                        }
                    }
                }
            } else if let Some(m) = spec.as_object_mut() {
                m.remove("persistentVolumeClaimRetentionPolicy");
            }
            if !ctx.gates.active("StatefulSetStartOrdinal")
                && let Some(m) = spec.as_object_mut()
            {
                m.remove("ordinals");
            }
            default(spec, "replicas", json!(1));
            default(spec, "revisionHistoryLimit", json!(10));
            super::pvc::default_claim_templates(spec);
        }
        "ReplicationController" => {
            let labels = spec
                .get("template")
                .and_then(|t| t.get("metadata"))
                .and_then(|m| m.get("labels"))
                .filter(|l| l.is_object())
                .cloned();
            if let Some(l) = labels
                && object(spec, "selector").is_none_or(Map::is_empty)
                && let Some(m) = spec.as_object_mut()
            {
                m.insert("selector".into(), l);
            }
            default(spec, "replicas", json!(1));
        }
        "CronJob" => {
            if str_of(spec, "concurrencyPolicy").is_empty()
                && let Some(m) = spec.as_object_mut()
            {
                m.insert("concurrencyPolicy".into(), json!("Allow"));
            }
            default(spec, "suspend", json!(false));
            default(spec, "successfulJobsHistoryLimit", json!(3));
            default(spec, "failedJobsHistoryLimit", json!(1));
        }
        _ => {}
    }
}

/// ValidateDeploymentSpec.
fn deployment(spec: &Value, sp: &FieldPath, ctx: &Ctx, out: &mut Findings) {
    let minor = ctx.gates.version.minor;
    nonnegative(
        int(spec, "replicas").unwrap_or(0),
        &sp.child("replicas"),
        out,
    );
    let c = required_selector(spec, sp, "deployment", minor, out);
    replica_set_template(spec, c, sp, ctx, out);

    let strategy = spec.get("strategy").cloned().unwrap_or_else(|| json!({}));
    let stp = sp.child("strategy");
    let rolling = strategy.get("rollingUpdate").filter(|r| !r.is_null());
    match str_of(&strategy, "type") {
        "Recreate" => {
            if rolling.is_some() {
                out.push(Diagnostic::forbidden(
                    &stp.child("rollingUpdate"),
                    "may not be specified when strategy `type` is 'Recreate'",
                ));
            }
        }
        "RollingUpdate" => match rolling {
            None => out.push(Diagnostic::required(
                &stp.child("rollingUpdate"),
                "this should be defaulted and never be nil",
            )),
            Some(r) => {
                let rp = stp.child("rollingUpdate");
                let unavailable = int_or_string(r.get("maxUnavailable"));
                let surge = int_or_string(r.get("maxSurge"));
                positive_int_or_percent(&unavailable, &rp.child("maxUnavailable"), minor, out);
                positive_int_or_percent(&surge, &rp.child("maxSurge"), minor, out);
                if int_or_percent_value(&unavailable) == 0 && int_or_percent_value(&surge) == 0 {
                    out.push(invalid_int_or_string(
                        &rp.child("maxUnavailable"),
                        &unavailable,
                        "may not be 0 when `maxSurge` is 0",
                        minor,
                    ));
                }
                not_over_100_percent(&unavailable, &rp.child("maxUnavailable"), minor, out);
            }
        },
        _ => out.push(unsupported_strategy(
            &strategy,
            &stp,
            ("DeploymentStrategy", "RollingUpdateDeployment"),
            &["Recreate", "RollingUpdate"],
            minor,
        )),
    }
    let min_ready = int(spec, "minReadySeconds").unwrap_or(0);
    nonnegative(min_ready, &sp.child("minReadySeconds"), out);
    if let Some(limit) = int(spec, "revisionHistoryLimit") {
        nonnegative(limit, &sp.child("revisionHistoryLimit"), out);
    }
    if let Some(deadline) = int(spec, "progressDeadlineSeconds") {
        let p = sp.child("progressDeadlineSeconds");
        nonnegative(deadline, &p, out);
        if deadline <= min_ready {
            out.push(Diagnostic::invalid(
                &p,
                deadline,
                "must be greater than minReadySeconds",
            ));
        }
    }
}

/// The selector conversion and ValidatePodTemplateSpecForReplicaSet (Deployment, ReplicaSet).
fn replica_set_template(spec: &Value, c: Converted, sp: &FieldPath, ctx: &Ctx, out: &mut Findings) {
    let tp = sp.child("template");
    if c == Converted::Error {
        let s = object(spec, "selector").cloned().unwrap_or_default();
        out.push(invalid_selector(
            &sp.child("selector"),
            &s,
            "invalid label selector",
            ctx.gates.version.minor,
        ));
        return;
    }
    template_matches(spec, c, &tp, ctx.gates.version.minor, out);
    super::workloads::controller_template_in(spec, &tp, Some("ReplicaSet"), ctx, out);
}

/// ValidateStatefulSetSpec.
fn stateful_set(spec: &Value, sp: &FieldPath, ctx: &Ctx, out: &mut Findings) {
    let minor = ctx.gates.version.minor;
    let pmp = str_of(spec, "podManagementPolicy");
    match pmp {
        "" => out.push(Diagnostic::required(&sp.child("podManagementPolicy"), "")),
        "OrderedReady" | "Parallel" => {}
        other => out.push(Diagnostic::invalid(
            &sp.child("podManagementPolicy"),
            other,
            "must be 'OrderedReady' or 'Parallel'",
        )),
    }
    let strategy = spec
        .get("updateStrategy")
        .cloned()
        .unwrap_or_else(|| json!({}));
    let up = sp.child("updateStrategy");
    let rolling = strategy.get("rollingUpdate").filter(|r| !r.is_null());
    let recreate = ctx.gates.active("StatefulSetRecreateStrategy");
    let print_rolling = |r: &Value| -> String {
        let partition = r.get("partition").and_then(Value::as_i64).unwrap_or(0);
        let mu = r.get("maxUnavailable").filter(|m| !m.is_null());
        if Change::FieldErrorJsonValues.at(minor) {
            json!({"Partition": partition, "MaxUnavailable": mu.cloned()}).to_string()
        } else {
            format!(
                "apps.RollingUpdateStatefulSetStrategy{{Partition:{partition}, MaxUnavailable:(*intstr.IntOrString)({})}}",
                if mu.is_some() { "0x…" } else { "nil" }
            )
        }
    };
    let only_rolling = |r: &Value, out: &mut Findings| {
        out.push(
            Diagnostic::invalid(
                &up.child("rollingUpdate"),
                r.clone(),
                "only allowed for updateStrategy 'RollingUpdate'",
            )
            .with_printed_value(&print_rolling(r)),
        );
    };
    match str_of(&strategy, "type") {
        "" => out.push(Diagnostic::required(&up, "")),
        "OnDelete" => {
            if let Some(r) = rolling {
                only_rolling(r, out);
            }
        }
        "RollingUpdate" => {
            if let Some(r) = rolling {
                let rp = up.child("rollingUpdate");
                nonnegative(
                    int(r, "partition").unwrap_or(0),
                    &rp.child("partition"),
                    out,
                );
                if let Some(mu) = r.get("maxUnavailable").filter(|m| !m.is_null()) {
                    let mp = rp.child("maxUnavailable");
                    positive_int_or_percent(mu, &mp, minor, out);
                    if int_or_percent_value(mu) == 0 {
                        out.push(invalid_int_or_string(&mp, mu, "cannot be 0", minor));
                    }
                    not_over_100_percent(mu, &mp, minor, out);
                }
            }
        }
        "Recreate" if recreate => {
            if let Some(r) = rolling {
                only_rolling(r, out);
            }
        }
        _ => {
            let detail = if recreate {
                "must be 'RollingUpdate', 'OnDelete', or 'Recreate'"
            } else {
                "must be 'RollingUpdate' or 'OnDelete'"
            };
            let shown = if Change::FieldErrorJsonValues.at(minor) {
                json!({"Type": str_of(&strategy, "type"),
                       "RollingUpdate": rolling.map(|r| serde_json::from_str::<Value>(&print_rolling(r)).unwrap_or(Value::Null))})
                .to_string()
            } else {
                format!(
                    "apps.StatefulSetUpdateStrategy{{Type:{:?}, RollingUpdate:(*apps.RollingUpdateStatefulSetStrategy)({})}}",
                    str_of(&strategy, "type"),
                    if rolling.is_some() { "0x…" } else { "nil" }
                )
            };
            out.push(Diagnostic::invalid(&up, strategy.clone(), detail).with_printed_value(&shown));
        }
    }
    if let Some(policy) = spec
        .get("persistentVolumeClaimRetentionPolicy")
        .filter(|p| p.is_object())
    {
        let pp = sp.child("persistentVolumeClaimRetentionPolicy");
        for k in ["whenDeleted", "whenScaled"] {
            let v = str_of(policy, k);
            if v != "Retain" && v != "Delete" {
                out.push(Diagnostic::not_supported(
                    &pp.child(k),
                    v,
                    &["Retain", "Delete"],
                ));
            }
        }
    }
    super::pvc::stateful_set_claim_templates(spec, sp, ctx, out);
    nonnegative(
        int(spec, "replicas").unwrap_or(0),
        &sp.child("replicas"),
        out,
    );
    nonnegative(
        int(spec, "minReadySeconds").unwrap_or(0),
        &sp.child("minReadySeconds"),
        out,
    );
    if let Some(start) = spec
        .get("ordinals")
        .filter(|o| o.is_object())
        .map(|o| int(o, "start").unwrap_or(0))
    {
        nonnegative(start, &sp.child("ordinals.start"), out);
    }
    let service = str_of(spec, "serviceName");
    if Change::StatefulSetServiceNameLabel.at(minor) && !service.is_empty() {
        for msg in meta::dns1123_label(service) {
            out.push(Diagnostic::invalid(&sp.child("serviceName"), service, msg));
        }
    }
    let c = required_selector(spec, sp, "statefulset", minor, out);
    let tp = sp.child("template");
    if c == Converted::Error {
        let s = object(spec, "selector").cloned().unwrap_or_default();
        out.push(invalid_selector(&sp.child("selector"), &s, "", minor));
        return;
    }
    template_matches(spec, c, &tp, minor, out);
    // The Pod template as the controller fills it in: with its claims' volumes.
    let validated = super::pvc::template_as_validated(spec);
    let with_claims = validated.as_ref().unwrap_or(spec);
    super::workloads::controller_template_in(with_claims, &tp, Some("StatefulSet"), ctx, out);
}

/// ValidateDaemonSetSpec: the selector is not Required, but a missing one matches no labels.
fn daemon_set(spec: &Value, sp: &FieldPath, ctx: &Ctx, out: &mut Findings) {
    let minor = ctx.gates.version.minor;
    let p = sp.child("selector");
    let sel = object(spec, "selector");
    if let Some(s) = sel {
        selector::validate(s, &p, minor, out);
    }
    let c = selector::convert(sel);
    let tp = sp.child("template");
    let t = spec.get("template").filter(|t| !t.is_null());
    if c != Converted::Error
        && !selector::matches(sel, c, &selector::string_map(template_labels(t)))
    {
        out.push(mismatch(template_labels(t), &tp, minor));
    }
    if let Some(s) = sel
        && c == Converted::Everything
    {
        out.push(invalid_selector(
            &p,
            s,
            "empty selector is invalid for daemonset",
            minor,
        ));
    }
    super::workloads::controller_template_in(spec, &tp, Some("DaemonSet"), ctx, out);
    nonnegative(
        int(spec, "minReadySeconds").unwrap_or(0),
        &sp.child("minReadySeconds"),
        out,
    );
    // templateGeneration: PrepareForCreate raises anything below 1 to 1.

    let strategy = spec
        .get("updateStrategy")
        .cloned()
        .unwrap_or_else(|| json!({}));
    let up = sp.child("updateStrategy");
    match str_of(&strategy, "type") {
        "OnDelete" => {}
        "RollingUpdate" => match strategy.get("rollingUpdate").filter(|r| !r.is_null()) {
            None => out.push(Diagnostic::required(&up.child("rollingUpdate"), "")),
            Some(r) => {
                let rp = up.child("rollingUpdate");
                let unavailable = int_or_string(r.get("maxUnavailable"));
                let surge = int_or_string(r.get("maxSurge"));
                positive_int_or_percent(&unavailable, &rp.child("maxUnavailable"), minor, out);
                positive_int_or_percent(&surge, &rp.child("maxSurge"), minor, out);
                not_over_100_percent(&unavailable, &rp.child("maxUnavailable"), minor, out);
                not_over_100_percent(&surge, &rp.child("maxSurge"), minor, out);
                let has_unavailable = int_or_percent_value(&unavailable) != 0;
                let has_surge = int_or_percent_value(&surge) != 0;
                if has_unavailable && has_surge {
                    out.push(invalid_int_or_string(
                        &rp.child("maxSurge"),
                        &surge,
                        "may not be set when maxUnavailable is non-zero",
                        minor,
                    ));
                } else if !has_unavailable && !has_surge {
                    out.push(Diagnostic::required(
                        &rp.child("maxUnavailable"),
                        "cannot be 0 when maxSurge is 0",
                    ));
                }
            }
        },
        _ => out.push(unsupported_strategy(
            &strategy,
            &up,
            ("DaemonSetUpdateStrategy", "RollingUpdateDaemonSet"),
            &["RollingUpdate", "OnDelete"],
            minor,
        )),
    }
    if let Some(limit) = int(spec, "revisionHistoryLimit") {
        nonnegative(limit, &sp.child("revisionHistoryLimit"), out);
    }
}

/// ValidateReplicationControllerSpec: a plain map selector, which must not be empty.
fn replication_controller(spec: &Value, sp: &FieldPath, ctx: &Ctx, out: &mut Findings) {
    let minor = ctx.gates.version.minor;
    nonnegative(
        int(spec, "minReadySeconds").unwrap_or(0),
        &sp.child("minReadySeconds"),
        out,
    );
    let sel = selector::string_map(spec.get("selector"));
    if sel.is_empty() {
        out.push(Diagnostic::required(&sp.child("selector"), ""));
    }
    match int(spec, "replicas") {
        None => out.push(Diagnostic::required(&sp.child("replicas"), "")),
        Some(r) => nonnegative(r, &sp.child("replicas"), out),
    }
    let tp = sp.child("template");
    let Some(t) = spec.get("template").filter(|t| !t.is_null()) else {
        out.push(Diagnostic::required(&tp, ""));
        return;
    };
    if !sel.is_empty() {
        let labels = selector::string_map(template_labels(Some(t)));
        if !sel.iter().all(|kv| labels.contains(kv)) {
            out.push(mismatch(template_labels(Some(t)), &tp, minor));
        }
    }
    super::workloads::controller_template_value(t, &tp, Some("ReplicationController"), ctx, out);
}

/// The UID a Job is given on create, where the object has none: the API server assigns one
/// before validation, and messages that print it say so.
const ASSIGNED_UID: &str = "<the uid the API server assigns>";
const STAND_IN_UID: &str = "00000000-0000-0000-0000-000000000000";

/// A Job's selector rules (`ValidateJobCreate`: validateGeneratedSelector, then ValidateJobSpec's
/// selector checks). With `manualSelector: true` the selector is the user's: Required, checked as a
/// label selector, and it must match the template's labels (a missing one matches none).
/// Otherwise the Job strategy generates it (generateSelector): the user's selector, if any, gets
/// `batch.kubernetes.io/controller-uid`, and the template the controller-uid and job-name labels
/// (meta.rs checks those); the result must select the labels the generated Pods get ("`selector`
/// not auto-generated") and the template's labels.
pub(super) fn job_selector(obj: &Value, ctx: &Ctx, out: &mut Findings) {
    let Some(spec) = obj.get("spec").filter(|s| s.is_object()) else {
        return;
    };
    let minor = ctx.gates.version.minor;
    let sp = FieldPath::new("spec");
    let t = spec.get("template").filter(|t| !t.is_null());
    if spec.get("manualSelector").and_then(Value::as_bool) == Some(true) {
        let sel = object(spec, "selector");
        match sel {
            None => out.push(Diagnostic::required(&sp.child("selector"), "")),
            Some(s) => selector::validate(s, &sp.child("selector"), minor, out),
        }
        let c = selector::convert(sel);
        if c != Converted::Error
            && !selector::matches(sel, c, &selector::string_map(template_labels(t)))
        {
            out.push(mismatch(template_labels(t), &sp.child("template"), minor));
        }
        return;
    }
    // Without a selector of the user's the generated one always holds.
    let Some(user) = object(spec, "selector") else {
        return;
    };
    let meta = obj.get("metadata");
    let str_at = |k: &str| meta.and_then(|m| m.get(k)).and_then(Value::as_str);
    let (name, _) = super::meta::name_on_create(str_at("name"), str_at("generateName"));
    // Matching needs a UID that is a valid label value, as the assigned one is; messages then
    // say which UID they mean.
    let given = str_at("uid").filter(|u| !u.is_empty());
    let uid = given.unwrap_or(STAND_IN_UID);
    let show = |mut d: Diagnostic| {
        if given.is_none() {
            d.message = d.message.replace(STAND_IN_UID, ASSIGNED_UID);
        }
        d
    };
    const UID: &str = "batch.kubernetes.io/controller-uid";
    const NAME: &str = "batch.kubernetes.io/job-name";
    let mut generated = user.clone();
    let mut match_labels = generated
        .get("matchLabels")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    match_labels.entry(UID).or_insert_with(|| json!(uid));
    generated.insert("matchLabels".into(), Value::Object(match_labels));
    // ValidateJobSpec checks the completed selector as a label selector (its errors are the
    // user's parts': the added label is valid).
    selector::validate(&generated, &sp.child("selector"), minor, out);
    let c = selector::convert(Some(&generated));
    if c == Converted::Error {
        return;
    }
    let expected = [
        (UID, uid),
        (NAME, name.as_str()),
        ("controller-uid", uid),
        ("job-name", name.as_str()),
    ];
    if !selector::matches(Some(&generated), c, &expected) {
        out.push(show(invalid_selector(
            &sp.child("selector"),
            &generated,
            "`selector` not auto-generated",
            minor,
        )));
    }
    // The template's labels as generateSelector leaves them.
    let mut labels = template_labels(t)
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    for (k, v) in expected {
        labels.entry(k).or_insert_with(|| json!(v));
    }
    let labels = Value::Object(labels);
    if !selector::matches(Some(&generated), c, &selector::string_map(Some(&labels))) {
        out.push(show(mismatch(Some(&labels), &sp.child("template"), minor)));
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use crate::KubeVersion;
    use crate::features::FeatureGates;

    fn ctx(minor: u32) -> Ctx {
        Ctx {
            gates: FeatureGates::for_version(KubeVersion::parse(&format!("1.{minor}")).unwrap()),
            ..Ctx::default()
        }
    }

    fn messages(kind: &str, av: &str, spec: Value, minor: u32) -> Vec<String> {
        let obj = json!({"apiVersion": av, "kind": kind, "metadata": {"name": "w"}, "spec": spec});
        let (f, _) = super::super::validate_value(&obj, &ctx(minor));
        f.errors.into_iter().map(|d| d.message).collect()
    }

    fn pod() -> Value {
        json!({"containers": [{"name": "c", "image": "i"}]})
    }

    /// The two refusals `kubeconform -strict` makes by schema, with the API server's words.
    #[test]
    fn deployment_without_selector() {
        let spec = json!({"template": {"metadata": {"labels": {"app": "w"}}, "spec": pod()}});
        assert_eq!(
            messages("Deployment", "apps/v1", spec.clone(), 37),
            vec![
                "spec.selector: Required value",
                "spec.template.metadata.labels: Invalid value: {\"app\":\"w\"}: `selector` does not match template `labels`",
            ]
        );
        assert_eq!(
            messages("Deployment", "apps/v1", spec, 31)[1],
            "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"w\"}: `selector` does not match template `labels`"
        );
    }

    #[test]
    fn job_with_a_manual_selector() {
        let t = json!({"metadata": {"labels": {"app": "w"}}, "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}});
        assert_eq!(
            messages(
                "Job",
                "batch/v1",
                json!({"manualSelector": true, "template": t}),
                37
            ),
            vec![
                "spec.selector: Required value",
                "spec.template.metadata.labels: Invalid value: {\"app\":\"w\"}: `selector` does not match template `labels`",
            ]
        );
        assert!(
            messages(
                "Job",
                "batch/v1",
                json!({"manualSelector": true, "template": t,
            "selector": {"matchLabels": {"app": "w"}}}),
                37
            )
            .is_empty()
        );
    }

    /// A selector of the user's without manualSelector: the generated one keeps it, and no
    /// generated Pod label satisfies it.
    #[test]
    fn job_with_a_selector_of_its_own() {
        let t = json!({"metadata": {"labels": {"app": "w"}}, "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}});
        assert_eq!(
            messages(
                "Job",
                "batch/v1",
                json!({"template": t, "selector": {"matchLabels": {"app": "w"}}}),
                37
            ),
            vec![
                "spec.selector: Invalid value: {\"matchLabels\":{\"app\":\"w\",\"batch.kubernetes.io/controller-uid\":\"<the uid the API server assigns>\"}}: `selector` not auto-generated",
            ]
        );
        assert!(messages("Job", "batch/v1", json!({"template": t}), 37).is_empty());
    }

    #[test]
    fn selectors_and_strategies() {
        let t = json!({"metadata": {"labels": {"app": "w"}}, "spec": pod()});
        let m = messages(
            "Deployment",
            "apps/v1",
            json!({"selector": {}, "template": t, "strategy": {"type": "Recreate", "rollingUpdate": {}},
                   "minReadySeconds": 700}),
            37,
        );
        assert_eq!(
            m,
            vec![
                "spec.selector: Invalid value: {}: empty selector is invalid for deployment",
                "spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'",
                "spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds",
            ]
        );
        let m = messages(
            "DaemonSet",
            "apps/v1",
            json!({"selector": {"matchLabels": {"app": "w"}}, "template": t,
                   "updateStrategy": {"rollingUpdate": {"maxUnavailable": "10%", "maxSurge": "120%"}}}),
            33,
        );
        assert_eq!(
            m,
            vec![
                "spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:\"120%\"}: must not be greater than 100%",
                "spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:\"120%\"}: may not be set when maxUnavailable is non-zero",
            ]
        );
        // A DaemonSet without a selector matches no labels; no Required.
        let m = messages("DaemonSet", "apps/v1", json!({"template": t}), 37);
        assert_eq!(
            m,
            vec![
                "spec.template.metadata.labels: Invalid value: {\"app\":\"w\"}: `selector` does not match template `labels`"
            ]
        );
        let m = messages(
            "StatefulSet",
            "apps/v1",
            json!({"selector": {"matchExpressions": [{"key": "app", "operator": "In"}]}, "template": t,
                   "podManagementPolicy": "Sometimes", "serviceName": "a.b"}),
            37,
        );
        assert_eq!(
            m,
            vec![
                "spec.podManagementPolicy: Invalid value: \"Sometimes\": must be 'OrderedReady' or 'Parallel'",
                "spec.serviceName: Invalid value: \"a.b\": must not contain dots",
                "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
                "spec.selector: Invalid value: {\"matchExpressions\":[{\"key\":\"app\",\"operator\":\"In\"}]}",
            ]
        );
        // A ReplicationController's selector defaults to its template's labels.
        assert!(messages("ReplicationController", "v1", json!({"template": t}), 37).is_empty());
    }
}
