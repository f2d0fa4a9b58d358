//! PodDisruptionBudget (policy/v1) on create: `ValidatePodDisruptionBudget`
//! (pkg/apis/policy/validation), the same text in every minor 1.31..1.37, after the create path's
//! steps before it. policy/v1 has no defaulting; the strategy's PrepareForCreate clears `status`
//! and the `pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match` requirements are stripped
//! from a selector that is not exactly the v1 match-none one ([`strip_v1beta1_label`]): by the v1
//! conversion in 1.31, by it and the strategy's `dropDisabledFields` in 1.34, by the strategy
//! alone in 1.37 (read in v1.31.13, v1.34.4, v1.37.2); the same step on create either way.
//!
//! What differs between minors is how the one struct value prints (versions.rs
//! FieldErrorJsonValues): the whole spec of "minAvailable and maxUnavailable cannot be both set",
//! and an IntOrString.
//!
//! ValidatePodDisruptionBudget checks no ObjectMeta: the API server's generic check
//! (rest.BeforeCreate's ValidateObjectMetaAccessor, path-segment names) runs only once the spec
//! passes, and so here ([`super::meta::check_generic`]; meta.rs has no PodDisruptionBudget row).

use super::Ctx;
use super::controllers::{not_over_100_percent, positive_int_or_percent, print_int_or_string};
use super::crd_schema::go;
use super::json_read::opt;
use crate::diag::{Diagnostic, FieldPath, Findings};
use crate::versions::Change;
use serde_json::{Map, Value};

/// policy.PDBV1beta1Label.
const V1BETA1_LABEL: &str = "pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match";

/// supportedUnhealthyPodEvictionPolicies, as sets.List prints them (sorted).
const EVICTION_POLICIES: [&str; 2] = ["AlwaysAllow", "IfHealthyBudget"];

/// Whether `selector` is policy.NonV1beta1MatchNoneSelector under Semantic.DeepEqual (nil and
/// empty lists and maps equal): no matchLabels and the one `Exists` requirement on the label.
fn is_match_none(selector: &Map<String, Value>) -> bool {
    let labels_empty = selector
        .get("matchLabels")
        .and_then(Value::as_object)
        .is_none_or(Map::is_empty);
    let Some([req]) = selector
        .get("matchExpressions")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
    else {
        return false;
    };
    labels_empty
        && req.get("key").and_then(Value::as_str) == Some(V1BETA1_LABEL)
        && req.get("operator").and_then(Value::as_str) == Some("Exists")
        && req
            .get("values")
            .and_then(Value::as_array)
            .is_none_or(Vec::is_empty)
}

/// policy.StripPDBV1beta1Label unless the selector is the match-none one (the match-all one has
/// no requirement to strip): the label is the v1beta1 conversion's own and never combines with a
/// user's requirements. Later requirements move up, and their errors' indexes with them.
fn strip_v1beta1_label(selector: &mut Map<String, Value>) {
    if is_match_none(selector) {
        return;
    }
    if let Some(Value::Array(reqs)) = selector.get_mut("matchExpressions") {
        reqs.retain(|r| r.get("key").and_then(Value::as_str) != Some(V1BETA1_LABEL));
    }
}

/// The internal PodDisruptionBudgetSpec as a field error prints it: from 1.34 json.Marshal of the
/// internal struct, which has no json tags (Go's field names; the selector is metav1's, tagged);
/// before, `%#v`, whose pointers the oracle writes `0x…`.
fn print_spec(spec: &Value, minor: u32) -> String {
    let min = opt(spec, "minAvailable");
    let max = opt(spec, "maxUnavailable");
    let selector = opt(spec, "selector").and_then(Value::as_object);
    let policy = opt(spec, "unhealthyPodEvictionPolicy");
    if Change::FieldErrorJsonValues.at(minor) {
        let ios = |v: Option<&Value>| v.map_or_else(|| "null".to_owned(), go::json);
        let sel = selector.map_or_else(
            || "null".to_owned(),
            |s| super::selector::print_selector(s, minor),
        );
        return format!(
            "{{\"MinAvailable\":{},\"Selector\":{sel},\"MaxUnavailable\":{},\"UnhealthyPodEvictionPolicy\":{}}}",
            ios(min),
            ios(max),
            ios(policy)
        );
    }
    let ptr = |set: bool, t: &str| {
        if set {
            format!("(*{t})(0x…)")
        } else {
            format!("(*{t})(nil)")
        }
    };
    format!(
        "policy.PodDisruptionBudgetSpec{{MinAvailable:{}, Selector:{}, MaxUnavailable:{}, UnhealthyPodEvictionPolicy:{}}}",
        ptr(min.is_some(), "intstr.IntOrString"),
        ptr(selector.is_some(), "v1.LabelSelector"),
        ptr(max.is_some(), "intstr.IntOrString"),
        ptr(policy.is_some(), "policy.UnhealthyPodEvictionPolicyType"),
    )
}

/// A PodDisruptionBudget on create (ObjectMeta aside, see the module's note).
// Kept out of its caller: see `validate::workloads::validate_kind`.
#[inline(never)]
pub(super) fn validate(obj: &Value, ctx: &Ctx, out: &mut Findings) {
    let minor = ctx.gates.version.minor;
    let mut spec = obj
        .get("spec")
        .filter(|s| s.is_object())
        .cloned()
        .unwrap_or_else(|| Value::Object(Map::new()));
    // The strip is idempotent: an object already admitted (skipDefaulting) is left as it is.
    if let Some(Value::Object(s)) = spec.get_mut("selector") {
        strip_v1beta1_label(s);
    }
    let sp = FieldPath::new("spec");
    let min = opt(&spec, "minAvailable");
    let max = opt(&spec, "maxUnavailable");
    if min.is_some() && max.is_some() {
        out.push(
            Diagnostic::invalid(
                &sp,
                spec.clone(),
                "minAvailable and maxUnavailable cannot be both set",
            )
            .with_printed_value(&print_spec(&spec, minor)),
        );
    }
    for (key, v) in [("minAvailable", min), ("maxUnavailable", max)] {
        if let Some(v) = v {
            let p = sp.child(key);
            let before = out.errors.len();
            positive_int_or_percent(v, &p, minor, out);
            not_over_100_percent(v, &p, minor, out);
            if let Some(added) = out.errors.get_mut(before..) {
                reprint_strings(v, minor, added);
            }
        }
    }
    if let Some(s) = opt(&spec, "selector").and_then(Value::as_object) {
        super::selector::validate(s, &sp.child("selector"), minor, out);
    }
    if let Some(policy) = opt(&spec, "unhealthyPodEvictionPolicy") {
        let policy = policy.as_str().unwrap_or("");
        if !EVICTION_POLICIES.contains(&policy) {
            out.push(Diagnostic::not_supported(
                &sp.child("unhealthyPodEvictionPolicy"),
                policy,
                &EVICTION_POLICIES,
            ));
        }
    }
    // `out` holds only this object's validation (the caller's fresh findings).
    if out.errors.is_empty() {
        super::meta::check_generic("policy", "PodDisruptionBudget", true, obj, ctx, out);
    }
}

/// From 1.34 an IntOrString string prints as encoding/json writes it (`<`, `>`, `&` escaped),
/// which the shared printer does not do.
fn reprint_strings(v: &Value, minor: u32, errors: &mut [Diagnostic]) {
    if !v.is_string() || !Change::FieldErrorJsonValues.at(minor) {
        return;
    }
    let go_text = go::json(v);
    if go_text == print_int_or_string(v, minor) {
        return;
    }
    for e in errors {
        if e.bad_value.as_ref() == Some(v) {
            *e = e.clone().with_printed_value(&go_text);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use crate::features::{FeatureGates, KubeVersion};
    use serde_json::json;

    fn run(obj: Value, minor: u32) -> Vec<String> {
        let ctx = Ctx {
            gates: FeatureGates::for_version(KubeVersion { minor }),
            ..Ctx::default()
        };
        let mut out = Findings::default();
        validate(&obj, &ctx, &mut out);
        out.errors.iter().map(|d| d.message.clone()).collect()
    }

    fn pdb(spec: Value) -> Value {
        json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": "p", "namespace": "default"}, "spec": spec})
    }

    #[test]
    fn valid_budgets_pass() {
        for spec in [
            json!({"minAvailable": 1, "selector": {"matchLabels": {"app": "w"}}}),
            json!({"maxUnavailable": "25%", "unhealthyPodEvictionPolicy": "AlwaysAllow"}),
            json!({"minAvailable": "100%", "selector": {}}),
            json!({}),
        ] {
            assert!(run(pdb(spec.clone()), 37).is_empty(), "{spec}");
        }
    }

    #[test]
    fn both_set_prints_the_spec_per_minor() {
        let obj = pdb(json!({"minAvailable": 1, "maxUnavailable": "10%",
            "selector": {"matchLabels": {"app": "w"}}}));
        assert_eq!(
            run(obj.clone(), 37),
            vec![
                r#"spec: Invalid value: {"MinAvailable":1,"Selector":{"matchLabels":{"app":"w"}},"MaxUnavailable":"10%","UnhealthyPodEvictionPolicy":null}: minAvailable and maxUnavailable cannot be both set"#
            ]
        );
        assert_eq!(
            run(obj, 31),
            vec![
                "spec: Invalid value: policy.PodDisruptionBudgetSpec{MinAvailable:(*intstr.IntOrString)(0x…), Selector:(*v1.LabelSelector)(0x…), MaxUnavailable:(*intstr.IntOrString)(0x…), UnhealthyPodEvictionPolicy:(*policy.UnhealthyPodEvictionPolicyType)(nil)}: minAvailable and maxUnavailable cannot be both set"
            ]
        );
    }

    #[test]
    fn int_or_percent_and_policy() {
        let obj = pdb(json!({"minAvailable": "150%"}));
        assert_eq!(
            run(obj.clone(), 37),
            vec![r#"spec.minAvailable: Invalid value: "150%": must not be greater than 100%"#]
        );
        assert_eq!(
            run(obj, 33),
            vec![
                r#"spec.minAvailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%"#
            ]
        );
        assert_eq!(
            run(pdb(json!({"maxUnavailable": -1})), 37),
            vec!["spec.maxUnavailable: Invalid value: -1: must be greater than or equal to 0"]
        );
        let msgs = run(pdb(json!({"maxUnavailable": "five"})), 37);
        assert_eq!(msgs.len(), 1);
        assert!(
            msgs[0].starts_with(
                r#"spec.maxUnavailable: Invalid value: "five": a valid percent string must be"#
            ),
            "{msgs:?}"
        );
        assert_eq!(
            run(pdb(json!({"unhealthyPodEvictionPolicy": "Never"})), 37),
            vec![
                r#"spec.unhealthyPodEvictionPolicy: Unsupported value: "Never": supported values: "AlwaysAllow", "IfHealthyBudget""#
            ]
        );
    }

    #[test]
    fn metadata_is_checked_only_once_the_spec_passes() {
        let named = |name: &str, spec: Value| {
            json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                "metadata": {"name": name, "namespace": "default"}, "spec": spec})
        };
        // Path-segment names: upper case and dots are fine, a slash is not.
        assert!(run(named("Budget.v1", json!({"minAvailable": 1})), 37).is_empty());
        assert_eq!(
            run(named("a/b", json!({"minAvailable": 1})), 37),
            vec![r#"metadata.name: Invalid value: "a/b": may not contain '/'"#]
        );
        assert_eq!(
            run(named("a/b", json!({"minAvailable": -1})), 37),
            vec!["spec.minAvailable: Invalid value: -1: must be greater than or equal to 0"]
        );
        let generated = json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"generateName": "..", "namespace": "default"}, "spec": {}});
        assert!(run(generated, 37).is_empty());
    }

    #[test]
    fn the_v1beta1_label_is_stripped_before_the_selector_is_checked() {
        let obj = pdb(json!({"selector": {"matchExpressions": [
            {"key": V1BETA1_LABEL, "operator": "Bogus"},
            {"key": "app", "operator": "In"}]}}));
        assert_eq!(
            run(obj, 37),
            vec![
                "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"
            ]
        );
        // The match-none selector is kept (and valid).
        let none = pdb(
            json!({"selector": {"matchExpressions": [{"key": V1BETA1_LABEL, "operator": "Exists"}]}}),
        );
        assert!(run(none, 37).is_empty());
    }
}
