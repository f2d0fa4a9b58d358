//! PriorityClass (scheduling.k8s.io/v1) on create: SetDefaults_PriorityClass (preemptionPolicy
//! `PreemptLowerPriority`), then `ValidatePriorityClass` (pkg/apis/scheduling/validation), the
//! same text for this kind in every minor 1.31..1.37: a name with the reserved `system-` prefix
//! must be one of the two system classes with its value and globalDefault
//! (IsKnownSystemPriorityClass, pkg/apis/scheduling/v1/helpers.go), any other class's value at
//! most HighestUserDefinablePriority, and preemptionPolicy one of the two policies
//! (ValidatePreemptionPolicy). The strategy's PrepareForCreate only sets the generation. Its
//! ObjectMeta (cluster-scoped, a DNS-subdomain name) is meta.rs's.

use super::{Ctx, meta};
use crate::diag::{Diagnostic, FieldPath, Findings};
use serde_json::Value;

/// scheduling.HighestUserDefinablePriority.
const HIGHEST_USER_DEFINABLE: i64 = 1_000_000_000;
/// scheduling.SystemCriticalPriority.
const SYSTEM_CRITICAL: i64 = 2 * HIGHEST_USER_DEFINABLE;
const SYSTEM_PREFIX: &str = "system-";
/// systemPriorityClasses: name, value, globalDefault.
const SYSTEM_CLASSES: [(&str, i64, bool); 2] = [
    ("system-node-critical", SYSTEM_CRITICAL + 1000, false),
    ("system-cluster-critical", SYSTEM_CRITICAL, false),
];

/// IsKnownSystemPriorityClass's error, if any.
fn system_class_error(name: &str, value: i64, global_default: bool) -> Option<String> {
    match SYSTEM_CLASSES.iter().find(|(n, _, _)| *n == name) {
        None => Some(format!("{name} is not a known system priority class")),
        Some((n, v, _)) if *v != value => Some(format!("value of {n} PriorityClass must be {v}")),
        Some((n, _, g)) if *g != global_default => {
            Some(format!("globalDefault of {n} PriorityClass must be {g}"))
        }
        Some(_) => None,
    }
}

/// ValidatePreemptionPolicy on a set policy (a Pod's `spec.preemptionPolicy` is checked the same
/// way by pod_scheduling.rs).
fn preemption_policy(policy: &str, p: &FieldPath, out: &mut Findings) {
    match policy {
        "PreemptLowerPriority" | "Never" => {}
        "" => out.push(Diagnostic::required(p, "")),
        other => out.push(Diagnostic::not_supported(
            p,
            other,
            &["PreemptLowerPriority", "Never"],
        )),
    }
}

/// A PriorityClass on create (after ObjectMeta, which meta.rs checks).
// Kept out of its caller: see `validate::workloads::validate_kind`.
#[inline(never)]
pub(super) fn validate(obj: &Value, ctx: &Ctx, out: &mut Findings) {
    let m = obj.get("metadata");
    let get = |k: &str| m.and_then(|m| m.get(k)).and_then(Value::as_str);
    // The name validated is the one the API server generated from generateName, if any.
    let (name, generated) = meta::name_on_create(get("name"), get("generateName"));
    let value = obj.get("value").and_then(Value::as_i64).unwrap_or(0);
    let global_default = obj
        .get("globalDefault")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if name.starts_with(SYSTEM_PREFIX) {
        if let Some(e) = system_class_error(&name, value, global_default) {
            out.push(Diagnostic::forbidden(
                &FieldPath::new("metadata").child("name"),
                format!(
                    "priority class names with '{SYSTEM_PREFIX}' prefix are reserved for system use only. error: {e}{}",
                    meta::generated_note(generated)
                ),
            ));
        }
    } else if value > HIGHEST_USER_DEFINABLE {
        out.push(Diagnostic::forbidden(
            &FieldPath::new("value"),
            format!("maximum allowed value of a user defined priority is {HIGHEST_USER_DEFINABLE}"),
        ));
    }
    let policy = match obj.get("preemptionPolicy").filter(|v| !v.is_null()) {
        Some(v) => Some(v.as_str().unwrap_or("")),
        // SetDefaults_PriorityClass.
        None if !ctx.skip_defaulting => Some("PreemptLowerPriority"),
        None => None,
    };
    if let Some(policy) = policy {
        preemption_policy(policy, &FieldPath::new("preemptionPolicy"), out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(obj: Value) -> Vec<String> {
        let mut out = Findings::default();
        validate(&obj, &Ctx::default(), &mut out);
        out.errors.iter().map(|d| d.message.clone()).collect()
    }

    fn pc(name: &str, extra: Value) -> Value {
        let mut o = json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": name}, "value": 1000});
        if let (Some(o), Some(e)) = (o.as_object_mut(), extra.as_object()) {
            o.extend(e.clone());
        }
        o
    }

    #[test]
    fn user_classes() {
        assert!(run(pc("high", json!({"globalDefault": true}))).is_empty());
        assert!(run(pc("max", json!({"value": 1_000_000_000}))).is_empty());
        assert!(run(pc("low", json!({"value": -2_147_483_648_i64}))).is_empty());
        assert_eq!(
            run(pc("too-high", json!({"value": 1_000_000_001}))),
            vec![
                "value: Forbidden: maximum allowed value of a user defined priority is 1000000000"
            ]
        );
        assert_eq!(
            run(pc("p", json!({"preemptionPolicy": "Always"}))),
            vec![
                r#"preemptionPolicy: Unsupported value: "Always": supported values: "PreemptLowerPriority", "Never""#
            ]
        );
        assert_eq!(
            run(pc("p", json!({"preemptionPolicy": ""}))),
            vec!["preemptionPolicy: Required value"]
        );
    }

    #[test]
    fn system_classes() {
        assert!(run(pc("system-node-critical", json!({"value": 2_000_001_000}))).is_empty());
        assert!(
            run(pc(
                "system-cluster-critical",
                json!({"value": 2_000_000_000})
            ))
            .is_empty()
        );
        assert_eq!(
            run(pc(
                "system-cluster-critical",
                json!({"value": 2_000_000_000, "globalDefault": true})
            )),
            vec![
                "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: globalDefault of system-cluster-critical PriorityClass must be false"
            ]
        );
        assert_eq!(
            run(pc("system-node-critical", json!({}))),
            vec![
                "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: value of system-node-critical PriorityClass must be 2000001000"
            ]
        );
        // A system name is not also held to the user maximum.
        assert_eq!(
            run(pc("system-mine", json!({"value": 2_000_000_000}))),
            vec![
                "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class"
            ]
        );
    }
}
