//! HorizontalPodAutoscaler (autoscaling/v1 and autoscaling/v2) on create: the version's
//! defaulting (`minReplicas` 1; v2: the CPU-80 % metric when there are none, a `behavior`'s
//! scaling rules filled in; v1: `targetCPUUtilizationPercentage` becomes that Resource metric,
//! the default one when unset), PrepareForCreate (from 1.33 a scaling rule's `tolerance` dropped
//! unless HPAConfigurableTolerance is on), then `ValidateHorizontalPodAutoscaler`
//! (pkg/apis/autoscaling/validation) with the strategy's options: `minReplicas` at least 1, or 0
//! with HPAScaleToZero. ObjectMeta (a DNS-subdomain name) is meta.rs's. The v1 round-trip
//! annotations (`autoscaling.alpha.kubernetes.io/metrics`, `…/behavior`) are not read.
//!
//! Per minor: from 1.34 the apiVersions of `scaleTargetRef` and of an Object metric's
//! `describedObject` are checked ([`Change::HpaApiVersion`]), and non-scalar bad values print as
//! JSON (before: Go's `%#v`, a quantity's struct); from 1.36 `maxReplicas` reads differently
//! ([`Change::HpaMaxReplicasMessages`]); from 1.37, with DeclarativeValidationBeta on, the beta
//! declarative minReplicas and maxReplicas rules take over the handwritten errors and come after
//! the other errors ([`Change::HpaDeclarativeBeta`]).

use super::Ctx;
use super::json_read::{opt, str_of};
use super::meta::{path_segment, qualified_name};
use super::names::dns1123_label;
use super::pod_resources::{self, is_extended, is_hugepages, is_native, resource_name_error};
use crate::diag::{Diagnostic, FieldPath, Findings};
use crate::quantity::Quantity;
use crate::versions::Change;
use serde_json::{Map, Value, json};

const GATE_SCALE_TO_ZERO: &str = "HPAScaleToZero";
const GATE_TOLERANCE: &str = "HPAConfigurableTolerance";
const GATE_DV_BETA: &str = "DeclarativeValidationBeta";
/// validMetricSourceTypesList (sorted).
const SOURCES: [&str; 5] = [
    "ContainerResource",
    "External",
    "Object",
    "Pods",
    "Resource",
];
/// The member each source type reads, in the order validateMetricSpec looks at them.
const MEMBERS: [(&str, &str); 5] = [
    ("Object", "object"),
    ("External", "external"),
    ("Pods", "pods"),
    ("Resource", "resource"),
    ("ContainerResource", "containerResource"),
];
const SELECT_POLICIES: [&str; 3] = ["Disabled", "Max", "Min"];
const POLICY_TYPES: [&str; 2] = ["Percent", "Pods"];
const GREATER_THAN_ZERO: &str = "must be greater than zero";

fn int(v: &Value, key: &str) -> Option<i64> {
    opt(v, key).and_then(Value::as_i64)
}

/// What one create's checks share.
struct Check<'a> {
    minor: u32,
    out: &'a mut Findings,
    /// 1.37's beta declarative rules are enforced.
    dv_beta: bool,
    /// The declarative errors that come after the handwritten ones.
    declarative: Vec<Diagnostic>,
}

impl Check<'_> {
    fn push(&mut self, d: Diagnostic) {
        self.out.push(d);
    }
    /// A handwritten error a beta declarative rule covers: `dv` is the declarative one.
    fn covered(&mut self, hand: Diagnostic, dv: Diagnostic) {
        if self.dv_beta {
            self.declarative.push(dv);
        } else {
            self.out.push(hand);
        }
    }
}

/// A HorizontalPodAutoscaler on create (after ObjectMeta, which meta.rs checks).
// Kept out of its caller: see `validate::workloads::validate_kind`.
#[inline(never)]
pub(super) fn validate(v1: bool, obj: &Value, ctx: &Ctx, out: &mut Findings) {
    let minor = ctx.gates.version.minor;
    let mut spec = opt(obj, "spec")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    default_spec(&mut spec, v1, ctx);
    let spec = Value::Object(spec);
    let mut c = Check {
        minor,
        out,
        dv_beta: Change::HpaDeclarativeBeta.at(minor) && ctx.gates.enabled(GATE_DV_BETA),
        declarative: Vec::new(),
    };
    spec_checks(&spec, ctx.gates.enabled(GATE_SCALE_TO_ZERO), &mut c);
    let Check {
        out, declarative, ..
    } = c;
    out.errors.extend(declarative);
}

/// The version's defaulting and conversion to the internal shape, and PrepareForCreate's
/// dropping of a disabled `tolerance`.
fn default_spec(spec: &mut Map<String, Value>, v1: bool, ctx: &Ctx) {
    let cpu = |target: Value| {
        json!([{"type": "Resource", "resource": {"name": "cpu",
            "target": {"type": "Utilization", "averageUtilization": target}}}])
    };
    let defaulting = !ctx.skip_defaulting;
    if defaulting && opt_in(spec, "minReplicas").is_none() {
        spec.insert("minReplicas".into(), json!(1));
    }
    if v1 {
        // Convert_v1_HorizontalPodAutoscalerSpec_To_autoscaling_HorizontalPodAutoscalerSpec and
        // the HPA conversion's default: one CPU Utilization metric. v1 has no behavior.
        let target = opt_in(spec, "targetCPUUtilizationPercentage").cloned();
        spec.insert("metrics".into(), cpu(target.unwrap_or_else(|| json!(80))));
        spec.remove("behavior");
        return;
    }
    let none = opt_in(spec, "metrics")
        .and_then(Value::as_array)
        .is_none_or(Vec::is_empty);
    if defaulting && none {
        spec.insert("metrics".into(), cpu(json!(80)));
    }
    let tolerance = ctx.gates.active(GATE_TOLERANCE);
    let Some(b) = spec.get_mut("behavior").and_then(Value::as_object_mut) else {
        return;
    };
    for dir in ["scaleUp", "scaleDown"] {
        // SetDefaults_HorizontalPodAutoscalerBehavior: each unset member from the defaults.
        let mut rules = if !defaulting {
            Map::new()
        } else if dir == "scaleUp" {
            json_map(
                json!({"stabilizationWindowSeconds": 0, "selectPolicy": "Max", "policies": [
                {"type": "Pods", "value": 4, "periodSeconds": 15},
                {"type": "Percent", "value": 100, "periodSeconds": 15}]}),
            )
        } else {
            json_map(json!({"selectPolicy": "Max", "policies": [
                {"type": "Percent", "value": 100, "periodSeconds": 15}]}))
        };
        let given = b.get(dir).and_then(Value::as_object);
        if given.is_none() && !defaulting {
            continue;
        }
        for (k, val) in given.into_iter().flatten() {
            if !val.is_null() {
                rules.insert(k.clone(), val.clone());
            }
        }
        if !tolerance {
            rules.remove("tolerance");
        }
        b.insert(dir.into(), Value::Object(rules));
    }
}

fn json_map(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

fn opt_in<'a>(m: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    m.get(key).filter(|x| !x.is_null())
}

fn spec_checks(spec: &Value, scale_to_zero: bool, c: &mut Check) {
    let sp = FieldPath::new("spec");
    let min = int(spec, "minReplicas");
    let max = int(spec, "maxReplicas").unwrap_or(0);
    let lower = i64::from(!scale_to_zero);
    let minp = sp.child("minReplicas");
    if let Some(m) = min.filter(|m| *m < lower) {
        // The declarative Minimum reads the same.
        let d = Diagnostic::invalid(
            &minp,
            m,
            format!("must be greater than or equal to {lower}"),
        );
        c.covered(d.clone(), d);
    }
    let maxp = sp.child("maxReplicas");
    if Change::HpaMaxReplicasMessages.at(c.minor) {
        if max == 0 {
            c.covered(
                Diagnostic::required(&maxp, "must be set and greater than 0"),
                Diagnostic::required(&maxp, ""),
            );
        } else if max < 0 {
            let d = Diagnostic::invalid(&maxp, max, "must be greater than or equal to 1");
            c.covered(d.clone(), d);
        }
    } else if max < 1 {
        c.push(Diagnostic::invalid(&maxp, max, "must be greater than 0"));
    }
    if min.is_some_and(|m| max < m) {
        c.push(Diagnostic::invalid(
            &maxp,
            max,
            "must be greater than or equal to `minReplicas`",
        ));
    }
    let empty = json!({});
    let target = opt(spec, "scaleTargetRef").unwrap_or(&empty);
    // The empty API group is allowed for the only scalable kind of the core API.
    let rc = str_of(target, "kind") == "ReplicationController";
    object_reference(target, &sp.child("scaleTargetRef"), rc, c);
    metrics(spec, &sp.child("metrics"), min, c);
    if let Some(b) = opt(spec, "behavior") {
        let bp = sp.child("behavior");
        for dir in ["scaleUp", "scaleDown"] {
            if let Some(rules) = opt(b, dir) {
                scaling_rules(rules, &bp.child(dir), c);
            }
        }
    }
}

/// ValidateCrossVersionObjectReference (with ValidateAPIVersion from 1.34).
fn object_reference(r: &Value, p: &FieldPath, empty_group: bool, c: &mut Check) {
    for key in ["kind", "name"] {
        let v = str_of(r, key);
        let kp = p.child(key);
        if v.is_empty() {
            c.push(Diagnostic::required(&kp, ""));
        }
        for msg in path_segment(v).into_iter().filter(|_| !v.is_empty()) {
            c.push(Diagnostic::invalid(&kp, v, msg));
        }
    }
    if !Change::HpaApiVersion.at(c.minor) {
        return;
    }
    let av = str_of(r, "apiVersion");
    let group = match av.matches('/').count() {
        _ if av.is_empty() || av == "/" => Some(""),
        0 => Some(""),
        1 => av.split('/').next(),
        _ => None,
    };
    let msg = match group {
        None => format!("unexpected GroupVersion string: {av}"),
        Some("") if !empty_group => "apiVersion must specify API group".to_owned(),
        Some(_) => return,
    };
    c.push(Diagnostic::invalid(&p.child("apiVersion"), av, msg));
}

/// validateMetrics.
fn metrics(spec: &Value, p: &FieldPath, min: Option<i64>, c: &mut Check) {
    let list = opt(spec, "metrics")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let mut object_or_external = false;
    for (i, m) in list.iter().enumerate() {
        metric_spec(m, &p.index(i), c);
        object_or_external |= matches!(str_of(m, "type"), "Object" | "External");
    }
    if min == Some(0) && !object_or_external {
        c.push(Diagnostic::forbidden(
            p,
            "must specify at least one Object or External metric to support scaling to zero replicas",
        ));
    }
}

/// validateMetricSpec.
fn metric_spec(m: &Value, p: &FieldPath, c: &mut Check) {
    let t = str_of(m, "type");
    let tp = p.child("type");
    if t.is_empty() {
        c.push(Diagnostic::required(
            &tp,
            "must specify a metric source type",
        ));
    }
    let known = SOURCES.contains(&t);
    if !known {
        c.push(Diagnostic::not_supported(&tp, t, &SOURCES));
    }
    let present: Vec<&str> = MEMBERS
        .iter()
        .map(|(_, member)| *member)
        .filter(|member| opt(m, member).is_some())
        .collect();
    if let Some(first) = present.first() {
        let src = opt(m, first).unwrap_or(&Value::Null);
        let sp = p.child(first);
        match *first {
            "object" => object_source(src, &sp, c),
            "external" => external_source(src, &sp, c),
            "pods" => pods_source(src, &sp, c),
            "resource" => resource_source(src, &sp, false, c),
            _ => resource_source(src, &sp, true, c),
        }
    }
    let expected = MEMBERS.iter().find(|(ty, _)| *ty == t).map(|(_, m)| *m);
    match expected {
        Some(member) if opt(m, member).is_none() => c.push(Diagnostic::required(
            &p.child(member),
            "must populate information for the given metric source",
        )),
        Some(_) => {}
        None => c.push(Diagnostic::not_supported(&tp, t, &SOURCES)),
    }
    if present.len() != 1 {
        for member in present.into_iter().filter(|x| Some(*x) != expected) {
            c.push(Diagnostic::forbidden(
                &p.child(member),
                "must populate the given metric source only",
            ));
        }
    }
}

fn target_of(src: &Value) -> Value {
    opt(src, "target").cloned().unwrap_or_else(|| json!({}))
}

fn object_source(src: &Value, p: &FieldPath, c: &mut Check) {
    let empty = json!({});
    let described = opt(src, "describedObject").unwrap_or(&empty);
    object_reference(described, &p.child("describedObject"), true, c);
    metric_identifier(src, &p.child("metric"), c);
    let t = target_of(src);
    metric_target(&t, &p.child("target"), c);
    if opt(&t, "value").is_none() && opt(&t, "averageValue").is_none() {
        c.push(Diagnostic::required(
            &p.child("target").child("averageValue"),
            "must set either a target value or averageValue",
        ));
    }
}

fn external_source(src: &Value, p: &FieldPath, c: &mut Check) {
    metric_identifier(src, &p.child("metric"), c);
    let t = target_of(src);
    let tp = p.child("target");
    metric_target(&t, &tp, c);
    match (
        opt(&t, "value").is_some(),
        opt(&t, "averageValue").is_some(),
    ) {
        (false, false) => c.push(Diagnostic::required(
            &tp.child("averageValue"),
            "must set either a target value for metric or a per-pod target",
        )),
        (true, true) => c.push(Diagnostic::forbidden(
            &tp.child("value"),
            "may not set both a target value for metric and a per-pod target",
        )),
        _ => {}
    }
}

fn pods_source(src: &Value, p: &FieldPath, c: &mut Check) {
    metric_identifier(src, &p.child("metric"), c);
    let t = target_of(src);
    metric_target(&t, &p.child("target"), c);
    if opt(&t, "averageValue").is_none() {
        c.push(Diagnostic::required(
            &p.child("target").child("averageValue"),
            "must specify a positive target averageValue",
        ));
    }
}

/// validateResourceSource, or validateContainerResourceSource when `container`.
fn resource_source(src: &Value, p: &FieldPath, container: bool, c: &mut Check) {
    let name = str_of(src, "name");
    let np = p.child("name");
    if name.is_empty() {
        c.push(Diagnostic::required(&np, "must specify a resource name"));
    } else if container {
        container_resource_name(name, &np, c);
    }
    if container {
        let cn = str_of(src, "container");
        let cp = p.child("container");
        if cn.is_empty() {
            c.push(Diagnostic::required(&cp, "must specify a container"));
        }
        for msg in dns1123_label(cn).into_iter().filter(|_| !cn.is_empty()) {
            c.push(Diagnostic::invalid(&cp, cn, msg));
        }
    }
    let t = target_of(src);
    let tp = p.child("target");
    metric_target(&t, &tp, c);
    match (
        opt(&t, "averageUtilization").is_some(),
        opt(&t, "averageValue").is_some(),
    ) {
        (false, false) => c.push(Diagnostic::required(
            &tp.child("averageUtilization"),
            "must set either a target raw value or a target utilization",
        )),
        (true, true) => c.push(Diagnostic::forbidden(
            &tp.child("averageValue"),
            "may not set both a target raw value and a target utilization",
        )),
        _ => {}
    }
}

/// ValidateContainerResourceName. Up to 1.36 it is core/v1/validation's, whose qualified-name
/// errors carry the name as a plain string (quoted where a core.ResourceName prints bare).
fn container_resource_name(name: &str, p: &FieldPath, c: &mut Check) {
    let qualified = qualified_name(name, c.minor);
    if qualified.is_empty() {
        pod_resources::container_resource_name(name, p, c.minor, c.out);
        return;
    }
    for msg in qualified {
        c.push(Diagnostic::invalid(p, name, msg));
    }
    let bad = |msg: &str| resource_name_error(Diagnostic::invalid(p, name, msg), name, c.minor);
    let d = if !name.contains('/') {
        (!matches!(name, "cpu" | "memory" | "ephemeral-storage") && !is_hugepages(name))
            .then(|| bad("must be a standard resource for containers"))
    } else {
        (!is_native(name) && !is_extended(name, c.minor))
            .then(|| bad("doesn't follow extended resource name standard"))
    };
    if let Some(d) = d {
        c.push(d);
    }
}

/// validateMetricIdentifier.
fn metric_identifier(src: &Value, p: &FieldPath, c: &mut Check) {
    let empty = json!({});
    let id = opt(src, "metric").unwrap_or(&empty);
    let name = str_of(id, "name");
    let np = p.child("name");
    if name.is_empty() {
        c.push(Diagnostic::required(&np, "must specify a metric name"));
    }
    for msg in path_segment(name).into_iter().filter(|_| !name.is_empty()) {
        c.push(Diagnostic::invalid(&np, name, msg));
    }
}

/// A quantity as a field error's bad value: JSON from 1.34, Go's `%#v` of the struct before.
fn bad_quantity(p: &FieldPath, q: &Quantity, minor: u32, detail: &str) -> Diagnostic {
    let printed = if Change::FieldErrorJsonValues.at(minor) {
        format!("{:?}", q.canonical())
    } else {
        q.go_debug()
    };
    Diagnostic::invalid_printed(p, Value::String(q.canonical()), &printed, detail)
}

/// validateMetricTarget.
fn metric_target(t: &Value, p: &FieldPath, c: &mut Check) {
    let ty = str_of(t, "type");
    let tp = p.child("type");
    if ty.is_empty() {
        c.push(Diagnostic::required(
            &tp,
            "must specify a metric target type",
        ));
    }
    if !matches!(ty, "Utilization" | "Value" | "AverageValue") {
        c.push(Diagnostic::invalid(
            &tp,
            ty,
            "must be either Utilization, Value, or AverageValue",
        ));
    }
    for key in ["value", "averageValue"] {
        if let Some(q) = opt(t, key).and_then(Quantity::from_json)
            && (q.is_zero() || q.is_negative())
        {
            let d = bad_quantity(&p.child(key), &q, c.minor, "must be positive");
            c.push(d);
        }
    }
    if let Some(u) = int(t, "averageUtilization").filter(|u| *u < 1) {
        c.push(Diagnostic::invalid(
            &p.child("averageUtilization"),
            u,
            "must be greater than 0",
        ));
    }
}

/// validateScalingRules.
fn scaling_rules(r: &Value, p: &FieldPath, c: &mut Check) {
    if let Some(w) = int(r, "stabilizationWindowSeconds") {
        let wp = p.child("stabilizationWindowSeconds");
        if w < 0 {
            c.push(Diagnostic::invalid(
                &wp,
                w,
                "must be greater than or equal to zero",
            ));
        }
        if w > 3600 {
            c.push(Diagnostic::invalid(
                &wp,
                w,
                "must be less than or equal to 3600",
            ));
        }
    }
    if let Some(s) = opt(r, "selectPolicy") {
        let s = s.as_str().unwrap_or("");
        if !SELECT_POLICIES.contains(&s) {
            c.push(Diagnostic::not_supported(
                &p.child("selectPolicy"),
                s,
                &SELECT_POLICIES,
            ));
        }
    }
    let pp = p.child("policies");
    let policies = opt(r, "policies")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    if policies.is_empty() {
        c.push(Diagnostic::required(
            &pp,
            "must specify at least one Policy",
        ));
    }
    for (i, policy) in policies.iter().enumerate() {
        let ip = pp.index(i);
        let t = str_of(policy, "type");
        if !POLICY_TYPES.contains(&t) {
            c.push(Diagnostic::not_supported(
                &ip.child("type"),
                t,
                &POLICY_TYPES,
            ));
        }
        let value = int(policy, "value").unwrap_or(0);
        if value <= 0 {
            c.push(Diagnostic::invalid(
                &ip.child("value"),
                value,
                GREATER_THAN_ZERO,
            ));
        }
        let period = int(policy, "periodSeconds").unwrap_or(0);
        let periodp = ip.child("periodSeconds");
        if period <= 0 {
            c.push(Diagnostic::invalid(&periodp, period, GREATER_THAN_ZERO));
        }
        if period > 1800 {
            c.push(Diagnostic::invalid(
                &periodp,
                period,
                "must be less than or equal to 1800",
            ));
        }
    }
    // ValidateNonnegativeQuantity (the field, and its drop without the gate, from 1.33).
    if let Some(q) = opt(r, "tolerance").and_then(Quantity::from_json)
        && q.is_negative()
        && !q.is_zero()
    {
        c.push(Diagnostic::invalid(
            &p.child("tolerance"),
            q.canonical(),
            "must be greater than or equal to 0",
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hpa(version: &str, spec: Value) -> Value {
        json!({"apiVersion": format!("autoscaling/{version}"), "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "web", "namespace": "default"}, "spec": spec})
    }

    fn run(version: &str, spec: Value, c: &Ctx) -> Vec<String> {
        let mut out = Findings::default();
        validate(version == "v1", &hpa(version, spec), c, &mut out);
        out.errors.iter().map(|d| d.message.clone()).collect()
    }

    fn target() -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"})
    }

    #[test]
    fn a_plain_autoscaler_passes_in_both_versions() {
        for minor in [31, 34, 37] {
            let c = Ctx::at(minor, &[]);
            let spec = json!({"scaleTargetRef": target(), "maxReplicas": 3});
            assert!(run("v2", spec.clone(), &c).is_empty());
            assert!(run("v1", spec, &c).is_empty());
        }
    }

    #[test]
    fn replicas_per_minor() {
        let spec = json!({"scaleTargetRef": target(), "minReplicas": 0, "maxReplicas": 0});
        assert_eq!(
            run(
                "v2",
                spec.clone(),
                &Ctx::at(31, &[(GATE_SCALE_TO_ZERO, false)])
            ),
            [
                "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1",
                "spec.maxReplicas: Invalid value: 0: must be greater than 0",
                "spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas",
            ]
        );
        assert_eq!(
            run(
                "v2",
                spec.clone(),
                &Ctx::at(36, &[(GATE_SCALE_TO_ZERO, true)])
            ),
            [
                "spec.maxReplicas: Required value: must be set and greater than 0",
                "spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas",
            ]
        );
        // 1.37, DeclarativeValidationBeta on: the declarative errors, after the others.
        assert_eq!(
            run("v1", spec, &Ctx::at(37, &[(GATE_SCALE_TO_ZERO, false)])),
            [
                "spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas",
                "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1",
                "spec.maxReplicas: Required value",
            ]
        );
        let spec = json!({"scaleTargetRef": target(), "minReplicas": 5, "maxReplicas": -2});
        assert_eq!(
            run("v2", spec, &Ctx::at(36, &[])),
            [
                "spec.maxReplicas: Invalid value: -2: must be greater than or equal to 1",
                "spec.maxReplicas: Invalid value: -2: must be greater than or equal to `minReplicas`",
            ]
        );
    }

    #[test]
    fn references_and_api_versions() {
        let spec = json!({"scaleTargetRef": {"apiVersion": "v1", "kind": "Deployment", "name": "a/b"},
            "maxReplicas": 2, "metrics": [{"type": "Object", "object": {
                "describedObject": {"apiVersion": "a/b/c", "kind": "", "name": "x"},
                "metric": {"name": "qps"}, "target": {"type": "Value", "value": "10"}}}]});
        assert_eq!(
            run("v2", spec.clone(), &Ctx::at(33, &[])),
            [
                "spec.scaleTargetRef.name: Invalid value: \"a/b\": may not contain '/'",
                "spec.metrics[0].object.describedObject.kind: Required value",
            ]
        );
        assert_eq!(
            run("v2", spec, &Ctx::at(34, &[])),
            [
                "spec.scaleTargetRef.name: Invalid value: \"a/b\": may not contain '/'",
                "spec.scaleTargetRef.apiVersion: Invalid value: \"v1\": apiVersion must specify API group",
                "spec.metrics[0].object.describedObject.kind: Required value",
                "spec.metrics[0].object.describedObject.apiVersion: Invalid value: \"a/b/c\": unexpected GroupVersion string: a/b/c",
            ]
        );
        let rc = json!({"scaleTargetRef": {"apiVersion": "v1", "kind": "ReplicationController", "name": "r"}, "maxReplicas": 2});
        assert!(run("v1", rc, &Ctx::at(35, &[])).is_empty());
    }

    #[test]
    fn metric_sources_and_targets() {
        let spec = json!({"scaleTargetRef": target(), "maxReplicas": 4, "metrics": [
            {"type": "Pods", "pods": {"metric": {"name": ""}, "target": {"type": "Average"}},
             "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}},
            {"type": "External", "external": {"metric": {"name": "q"}, "target": {"type": "Value", "value": "0", "averageValue": "-1"}}},
            {"type": "ContainerResource", "containerResource": {"name": "gpu", "container": "App", "target": {"type": "Utilization", "averageUtilization": 0}}},
            {"type": "Memory"}
        ]});
        let e = run("v2", spec.clone(), &Ctx::at(34, &[]));
        assert_eq!(
            e,
            [
                "spec.metrics[0].pods.metric.name: Required value: must specify a metric name",
                "spec.metrics[0].pods.target.type: Invalid value: \"Average\": must be either Utilization, Value, or AverageValue",
                "spec.metrics[0].pods.target.averageValue: Required value: must specify a positive target averageValue",
                "spec.metrics[0].resource: Forbidden: must populate the given metric source only",
                "spec.metrics[1].external.target.value: Invalid value: \"0\": must be positive",
                "spec.metrics[1].external.target.averageValue: Invalid value: \"-1\": must be positive",
                "spec.metrics[1].external.target.value: Forbidden: may not set both a target value for metric and a per-pod target",
                "spec.metrics[2].containerResource.name: Invalid value: \"gpu\": must be a standard resource type or fully qualified",
                "spec.metrics[2].containerResource.name: Invalid value: \"gpu\": must be a standard resource for containers",
                "spec.metrics[2].containerResource.container: Invalid value: \"App\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
                "spec.metrics[2].containerResource.target.averageUtilization: Invalid value: 0: must be greater than 0",
                "spec.metrics[3].type: Unsupported value: \"Memory\": supported values: \"ContainerResource\", \"External\", \"Object\", \"Pods\", \"Resource\"",
                "spec.metrics[3].type: Unsupported value: \"Memory\": supported values: \"ContainerResource\", \"External\", \"Object\", \"Pods\", \"Resource\"",
            ]
        );
        // Before 1.34 a quantity prints as Go's %#v of its struct, a resource name bare.
        let e = run("v2", spec, &Ctx::at(33, &[]));
        assert!(e.contains(&"spec.metrics[1].external.target.averageValue: Invalid value: resource.Quantity{i:resource.int64Amount{value:-1, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"-1\", Format:\"DecimalSI\"}: must be positive".to_owned()), "{e:?}");
        assert!(e.contains(&"spec.metrics[2].containerResource.name: Invalid value: gpu: must be a standard resource for containers".to_owned()), "{e:?}");
        // v1: targetCPUUtilizationPercentage is the internal metric.
        let v1 = json!({"scaleTargetRef": target(), "maxReplicas": 2, "targetCPUUtilizationPercentage": 0});
        assert_eq!(
            run("v1", v1, &Ctx::at(31, &[])),
            [
                "spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0"
            ]
        );
    }

    #[test]
    fn behavior_defaults_and_tolerance() {
        let spec = json!({"scaleTargetRef": target(), "maxReplicas": 4, "behavior": {
            "scaleUp": {"stabilizationWindowSeconds": 4000, "selectPolicy": "Fastest",
                "policies": [{"type": "Nodes", "value": 0, "periodSeconds": 1801}], "tolerance": "-0.1"},
            "scaleDown": {"policies": []}}});
        let e = run("v2", spec.clone(), &Ctx::at(33, &[(GATE_TOLERANCE, true)]));
        assert_eq!(
            e,
            [
                "spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: 4000: must be less than or equal to 3600",
                "spec.behavior.scaleUp.selectPolicy: Unsupported value: \"Fastest\": supported values: \"Disabled\", \"Max\", \"Min\"",
                "spec.behavior.scaleUp.policies[0].type: Unsupported value: \"Nodes\": supported values: \"Percent\", \"Pods\"",
                "spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero",
                "spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 1801: must be less than or equal to 1800",
                "spec.behavior.scaleUp.tolerance: Invalid value: \"-100m\": must be greater than or equal to 0",
                "spec.behavior.scaleDown.policies: Required value: must specify at least one Policy",
            ]
        );
        // Without the gate PrepareForCreate drops the tolerance.
        let e = run("v2", spec, &Ctx::at(34, &[(GATE_TOLERANCE, false)]));
        assert_eq!(e.len(), 6, "{e:?}");
        // An empty behavior gets both rules' defaults: nothing to say.
        let spec = json!({"scaleTargetRef": target(), "maxReplicas": 4, "behavior": {}});
        assert!(run("v2", spec, &Ctx::at(37, &[])).is_empty());
    }
}
