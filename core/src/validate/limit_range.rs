//! LimitRange (core/v1) on create: the v1 defaulting (SetDefaults_LimitRangeItem: a Container
//! item's `default` from its `max`, its `defaultRequest` from `default`, then from `min`; then
//! SetDefaults_ResourceList rounds every value up to a milli), the strategy's PrepareForCreate
//! (an unnamed LimitRange gets a UUID name: meta.rs knows it), then `ValidateLimitRange`
//! (pkg/apis/core/validation), the same text in every minor 1.31..1.37: each item's `type`
//! (validateLimitRangeTypeName, no duplicate), its resource names (a Pod or Container item's
//! by ValidateContainerResourceName, any other's by validateResourceName), no `default` or
//! `defaultRequest` on a Pod item, a PersistentVolumeClaim item's storage bound, and per
//! resource the order min ≤ defaultRequest ≤ default ≤ max, maxLimitRequestRatio at least 1
//! and at most max/min, default equal to defaultRequest for a resource that may not overcommit.
//! A bad quantity prints as JSON from 1.34, with Go's `%#v` before
//! ([`Change::FieldErrorJsonValues`]). Its ObjectMeta is meta.rs's.

use super::Ctx;
use super::pod_resources::{
    container_resource_name, overcommit_allowed, resource_list, resource_name,
};
use crate::diag::{Diagnostic, FieldPath, Findings};
use crate::quantity::Quantity;
use crate::versions::Change;
use serde_json::Value;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

/// resource.MaxMilliValue.
const MAX_MILLI_VALUE: i64 = i64::MAX / 1000;
/// helper.standardLimitRangeTypes.
const STANDARD_TYPES: [&str; 3] = ["Pod", "Container", "PersistentVolumeClaim"];

type List<'a> = BTreeMap<&'a str, Quantity>;

fn list<'a>(item: &'a Value, key: &str) -> List<'a> {
    resource_list(item.get(key))
        .unwrap_or_default()
        .into_iter()
        .collect()
}

/// validateLimitRangeTypeName.
fn type_name(t: &str, p: &FieldPath, minor: u32, out: &mut Findings) {
    let qualified = super::meta::qualified_name(t, minor);
    if !qualified.is_empty() {
        for m in qualified {
            out.push(Diagnostic::invalid(p, t, m));
        }
    } else if !t.contains('/') && !STANDARD_TYPES.contains(&t) {
        out.push(Diagnostic::invalid(
            p,
            t,
            "must be a standard limit type or fully qualified",
        ));
    }
}

/// A quantity as a field error's bad value: JSON from 1.34, `%#v` before (after the message's
/// own String() of it, which keeps its text).
fn bad_quantity(p: &FieldPath, q: &Quantity, minor: u32, detail: String) -> Diagnostic {
    let printed = if Change::FieldErrorJsonValues.at(minor) {
        format!("{:?}", q.canonical())
    } else {
        q.go_debug_stringed()
    };
    Diagnostic::invalid_printed(p, Value::String(q.canonical()), &printed, detail)
}

/// Go's `%f`.
fn go_f(x: f64) -> String {
    if x.is_infinite() {
        if x > 0.0 { "+Inf" } else { "-Inf" }.to_owned()
    } else if x.is_nan() {
        "NaN".to_owned()
    } else {
        format!("{x:.6}")
    }
}

/// SetDefaults_LimitRangeItem for a Container item.
fn default_container<'a>(
    max: &List<'a>,
    min: &List<'a>,
    default: &mut List<'a>,
    request: &mut List<'a>,
) {
    for (k, q) in max {
        default.entry(k).or_insert_with(|| q.clone());
    }
    for (k, q) in default.iter() {
        request.entry(k).or_insert_with(|| q.clone());
    }
    for (k, q) in min {
        request.entry(k).or_insert_with(|| q.clone());
    }
}

/// A LimitRange on create (after ObjectMeta, which meta.rs checks).
// Kept out of its caller: see `validate::workloads::validate_kind`.
#[inline(never)]
pub(super) fn validate(obj: &Value, ctx: &Ctx, out: &mut Findings) {
    let minor = ctx.gates.version.minor;
    let lp = FieldPath::new("spec").child("limits");
    let items = obj
        .get("spec")
        .and_then(|s| s.get("limits"))
        .and_then(Value::as_array);
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    for (i, item) in items.into_iter().flatten().enumerate() {
        let ip = lp.index(i);
        let t = item.get("type").and_then(Value::as_str).unwrap_or("");
        type_name(t, &ip.child("type"), minor, out);
        if !seen.insert(t) {
            out.push(Diagnostic::duplicate(&ip.child("type"), t));
        }
        let (mut max, mut min) = (list(item, "max"), list(item, "min"));
        let (mut default, mut request) = (list(item, "default"), list(item, "defaultRequest"));
        let mut ratio = list(item, "maxLimitRequestRatio");
        if !ctx.skip_defaulting {
            if t == "Container" {
                default_container(&max, &min, &mut default, &mut request);
            }
            for l in [&mut max, &mut min, &mut default, &mut request, &mut ratio] {
                for q in l.values_mut() {
                    *q = q.round_up_milli();
                }
            }
        }
        let name = |k: &str, p: &FieldPath, out: &mut Findings| {
            if matches!(t, "Pod" | "Container") {
                container_resource_name(k, p, minor, out);
            } else {
                resource_name(k, p, minor, out);
            }
        };
        let mut keys: BTreeSet<&str> = BTreeSet::new();
        for (field, l) in [("max", &max), ("min", &min)] {
            for k in l.keys() {
                name(k, &ip.child(field).key(k), out);
                keys.insert(k);
            }
        }
        if t == "Pod" {
            for (field, l) in [("default", &default), ("defaultRequest", &request)] {
                if !l.is_empty() {
                    out.push(Diagnostic::forbidden(
                        &ip.child(field),
                        "may not be specified when `type` is 'Pod'",
                    ));
                }
            }
            // Not read further: ValidateLimitRange looks at them only for other types.
            default.clear();
            request.clear();
        } else {
            for (field, l) in [("default", &default), ("defaultRequest", &request)] {
                for k in l.keys() {
                    name(k, &ip.child(field).key(k), out);
                    keys.insert(k);
                }
            }
        }
        if t == "PersistentVolumeClaim"
            && !min.contains_key("storage")
            && !max.contains_key("storage")
        {
            out.push(Diagnostic::required(
                &ip.child("limits"),
                "either minimum or maximum storage value is required, but neither was provided",
            ));
        }
        for k in ratio.keys() {
            name(k, &ip.child("maxLimitRequestRatio").key(k), out);
            keys.insert(k);
        }
        for k in keys {
            let (lo, hi, def, req, r) = (
                min.get(k),
                max.get(k),
                default.get(k),
                request.get(k),
                ratio.get(k),
            );
            let gt = |a: &Quantity, b: &Quantity| a.cmp_value(b) == Ordering::Greater;
            let s = Quantity::canonical;
            let at = |field: &str| ip.child(field).key(k);
            if let (Some(lo), Some(hi)) = (lo, hi)
                && gt(lo, hi)
            {
                let m = format!("min value {} is greater than max value {}", s(lo), s(hi));
                out.push(bad_quantity(&at("min"), lo, minor, m));
            }
            if let (Some(req), Some(lo)) = (req, lo)
                && gt(lo, req)
            {
                let m = format!(
                    "min value {} is greater than default request value {}",
                    s(lo),
                    s(req)
                );
                out.push(bad_quantity(&at("defaultRequest"), req, minor, m));
            }
            if let (Some(req), Some(hi)) = (req, hi)
                && gt(req, hi)
            {
                let m = format!(
                    "default request value {} is greater than max value {}",
                    s(req),
                    s(hi)
                );
                out.push(bad_quantity(&at("defaultRequest"), req, minor, m));
            }
            if let (Some(req), Some(def)) = (req, def)
                && gt(req, def)
            {
                let m = format!(
                    "default request value {} is greater than default limit value {}",
                    s(req),
                    s(def)
                );
                out.push(bad_quantity(&at("defaultRequest"), req, minor, m));
            }
            if let (Some(def), Some(lo)) = (def, lo)
                && gt(lo, def)
            {
                let m = format!(
                    "min value {} is greater than default value {}",
                    s(lo),
                    s(def)
                );
                out.push(bad_quantity(&at("default"), lo, minor, m));
            }
            if let (Some(def), Some(hi)) = (def, hi)
                && gt(def, hi)
            {
                let m = format!(
                    "default value {} is greater than max value {}",
                    s(def),
                    s(hi)
                );
                out.push(bad_quantity(&at("default"), hi, minor, m));
            }
            if let Some(r) = r
                && r.cmp_value(&Quantity::parse("1").unwrap_or_else(|| r.clone())) == Ordering::Less
            {
                let m = format!("ratio {} is less than 1", s(r));
                out.push(bad_quantity(&at("maxLimitRequestRatio"), r, minor, m));
            }
            if let (Some(r), Some(lo), Some(hi)) = (r, lo, hi) {
                let (mut rv, mut lv, mut hv) = (r.value() as f64, lo.value(), hi.value());
                if r.value() < MAX_MILLI_VALUE && lv < MAX_MILLI_VALUE && hv < MAX_MILLI_VALUE {
                    rv = r.milli_value() as f64 / 1000.0;
                    lv = lo.milli_value();
                    hv = hi.milli_value();
                }
                let limit = hv as f64 / lv as f64;
                if rv > limit {
                    let m = format!("ratio {} is greater than max/min = {}", s(r), go_f(limit));
                    out.push(bad_quantity(&at("maxLimitRequestRatio"), r, minor, m));
                }
            }
            if let (Some(def), Some(req)) = (def, req)
                && !overcommit_allowed(k)
                && def.cmp_value(req) != Ordering::Equal
            {
                let m = format!(
                    "default value {} must equal to defaultRequest value {} in {k}",
                    s(def),
                    s(req)
                );
                out.push(bad_quantity(&at("defaultRequest"), req, minor, m));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::{FeatureGates, KubeVersion};
    use serde_json::json;

    fn run_at(minor: u32, limits: Value) -> Vec<String> {
        let obj = json!({"apiVersion": "v1", "kind": "LimitRange",
            "metadata": {"name": "l", "namespace": "default"}, "spec": {"limits": limits}});
        let ctx = Ctx {
            gates: FeatureGates::for_version(KubeVersion { minor }),
            ..Ctx::default()
        };
        let mut out = Findings::default();
        validate(&obj, &ctx, &mut out);
        let mut m: Vec<String> = out.errors.iter().map(|d| d.message.clone()).collect();
        m.sort();
        m
    }
    fn run(limits: Value) -> Vec<String> {
        run_at(37, limits)
    }

    #[test]
    fn valid_items() {
        assert!(
            run(json!([
                {"type": "Container", "max": {"cpu": "2", "memory": "1Gi"}, "min": {"cpu": "100m"},
                 "default": {"cpu": "500m"}, "defaultRequest": {"cpu": "200m"},
                 "maxLimitRequestRatio": {"cpu": "10"}},
                {"type": "Pod", "max": {"cpu": "4"}},
                {"type": "PersistentVolumeClaim", "min": {"storage": "1Gi"}, "max": {"storage": "10Gi"}},
                {"type": "example.com/thing", "max": {"example.com/widgets": "3"}}
            ]))
            .is_empty()
        );
    }

    #[test]
    fn types_and_names() {
        assert_eq!(
            run(json!([{"type": "Container"}, {"type": "Container"}, {"type": "Node"}])),
            vec![
                r#"spec.limits[1].type: Duplicate value: "Container""#,
                r#"spec.limits[2].type: Invalid value: "Node": must be a standard limit type or fully qualified"#,
            ]
        );
        assert_eq!(
            run(json!([{"type": "Pod", "default": {"cpu": "1"}, "max": {"storage": "1Gi"}}])),
            vec![
                "spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'",
                r#"spec.limits[0].max[storage]: Invalid value: "storage": must be a standard resource for containers"#,
            ]
        );
        assert_eq!(
            run(json!([{"type": "PersistentVolumeClaim", "max": {"cpu": "1"}}])),
            vec![
                "spec.limits[0].limits: Required value: either minimum or maximum storage value is required, but neither was provided"
            ]
        );
    }

    #[test]
    fn relations() {
        // The defaulting copies max into default and default into defaultRequest, so a min
        // above max is said three times.
        assert_eq!(
            run(json!([{"type": "Container", "min": {"cpu": "2"}, "max": {"cpu": "1"}}])),
            vec![
                r#"spec.limits[0].defaultRequest[cpu]: Invalid value: "1": min value 2 is greater than default request value 1"#,
                r#"spec.limits[0].default[cpu]: Invalid value: "2": min value 2 is greater than default value 1"#,
                r#"spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1"#,
            ]
        );
        assert_eq!(
            run(
                json!([{"type": "Container", "default": {"memory": "1Gi"}, "max": {"memory": "512Mi"},
                "defaultRequest": {"memory": "2Gi"}}])
            ),
            vec![
                r#"spec.limits[0].defaultRequest[memory]: Invalid value: "2Gi": default request value 2Gi is greater than default limit value 1Gi"#,
                r#"spec.limits[0].defaultRequest[memory]: Invalid value: "2Gi": default request value 2Gi is greater than max value 512Mi"#,
                r#"spec.limits[0].default[memory]: Invalid value: "512Mi": default value 1Gi is greater than max value 512Mi"#,
            ]
        );
        assert_eq!(
            run(
                json!([{"type": "Pod", "min": {"cpu": "1"}, "max": {"cpu": "3"},
                "maxLimitRequestRatio": {"cpu": "4", "memory": "500m"}}])
            ),
            vec![
                r#"spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: "4": ratio 4 is greater than max/min = 3.000000"#,
                r#"spec.limits[0].maxLimitRequestRatio[memory]: Invalid value: "500m": ratio 500m is less than 1"#,
            ]
        );
        assert_eq!(
            run(
                json!([{"type": "Container", "default": {"example.com/gpu": "2"},
                "defaultRequest": {"example.com/gpu": "1"}}])
            ),
            vec![
                r#"spec.limits[0].defaultRequest[example.com/gpu]: Invalid value: "1": default value 2 must equal to defaultRequest value 1 in example.com/gpu"#
            ]
        );
        // Before 1.34 the quantity prints as Go's %#v.
        assert_eq!(
            run_at(
                31,
                json!([{"type": "Pod", "min": {"cpu": "2"}, "max": {"cpu": "1"}}])
            ),
            vec![
                r#"spec.limits[0].min[cpu]: Invalid value: resource.Quantity{i:resource.int64Amount{value:2, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"2", Format:"DecimalSI"}: min value 2 is greater than max value 1"#
            ]
        );
    }
}
