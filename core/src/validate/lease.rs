//! Lease (coordination.k8s.io/v1) on create: the strategy's PrepareForCreate (with
//! CoordinatedLeaderElection off, `strategy` and `preferredHolder` dropped), then
//! `ValidateLeaseSpec` (pkg/apis/coordination/validation), the same text in every minor
//! 1.31..1.37. coordination/v1 has no defaulting. Its ObjectMeta (namespaced, a DNS-subdomain
//! name, apimachinery's ValidateObjectMeta) is meta.rs's.

use super::Ctx;
use super::json_read::opt;
use super::names::qualified_name;
use crate::diag::{Diagnostic, FieldPath, Findings};
use serde_json::Value;

const GATE: &str = "CoordinatedLeaderElection";
/// validLeaseStrategies.
const STRATEGIES: [&str; 1] = ["OldestEmulationVersion"];

/// A Lease on create (after ObjectMeta, which meta.rs checks).
// Kept out of its caller: see `validate::workloads::validate_kind`.
#[inline(never)]
pub(super) fn validate(obj: &Value, ctx: &Ctx, out: &mut Findings) {
    let Some(spec) = opt(obj, "spec") else {
        return;
    };
    let sp = FieldPath::new("spec");
    if let Some(d) = opt(spec, "leaseDurationSeconds").and_then(Value::as_i64)
        && d <= 0
    {
        out.push(Diagnostic::invalid(
            &sp.child("leaseDurationSeconds"),
            d,
            "must be greater than 0",
        ));
    }
    if let Some(t) = opt(spec, "leaseTransitions").and_then(Value::as_i64)
        && t < 0
    {
        out.push(Diagnostic::invalid(
            &sp.child("leaseTransitions"),
            t,
            "must be greater than or equal to 0",
        ));
    }
    // PrepareForCreate drops both fields with the gate off: nothing is said of them then.
    if !ctx.skip_defaulting && !ctx.gates.enabled(GATE) {
        return;
    }
    let strategy = opt(spec, "strategy").map(|s| s.as_str().unwrap_or(""));
    if let Some(s) = strategy {
        // ValidateCoordinatedLeaseStrategy names the field as its caller's path's child
        // `strategy` again: `spec.strategy.strategy`, as upstream reports it.
        let p = sp.child("strategy").child("strategy");
        if !s.contains('/') {
            if !STRATEGIES.contains(&s) {
                out.push(Diagnostic::not_supported(&p, s, &STRATEGIES));
            }
        } else {
            for msg in qualified_name(s, ctx.gates.version.minor) {
                out.push(Diagnostic::invalid(&p, s, msg));
            }
        }
    }
    let holder = opt(spec, "preferredHolder").and_then(Value::as_str);
    if holder.is_some_and(|h| !h.is_empty()) && strategy.is_none_or(str::is_empty) {
        out.push(Diagnostic::forbidden(
            &sp.child("preferredHolder"),
            "may only be specified if `strategy` is defined",
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::{FeatureGates, KubeVersion};
    use serde_json::json;

    fn run(spec: Value, gate: bool) -> Vec<String> {
        let mut gates = FeatureGates::for_version(KubeVersion { minor: 37 });
        gates.set(GATE, gate);
        let ctx = Ctx {
            gates,
            ..Ctx::default()
        };
        let obj = json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": "l", "namespace": "default"}, "spec": spec});
        let mut out = Findings::default();
        validate(&obj, &ctx, &mut out);
        out.errors.iter().map(|d| d.message.clone()).collect()
    }

    #[test]
    fn durations_and_transitions() {
        assert!(
            run(
                json!({"holderIdentity": "a", "leaseDurationSeconds": 15, "leaseTransitions": 0}),
                false
            )
            .is_empty()
        );
        assert_eq!(
            run(
                json!({"leaseDurationSeconds": 0, "leaseTransitions": -1}),
                false
            ),
            vec![
                "spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0",
                "spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0",
            ]
        );
    }

    #[test]
    fn strategy_under_the_gate() {
        let spec = json!({"strategy": "Newest", "preferredHolder": "x"});
        assert!(run(spec.clone(), false).is_empty());
        assert_eq!(
            run(spec, true),
            vec![
                r#"spec.strategy.strategy: Unsupported value: "Newest": supported values: "OldestEmulationVersion""#
            ]
        );
        assert_eq!(
            run(json!({"preferredHolder": "x"}), true),
            vec!["spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined"]
        );
        assert!(
            run(
                json!({"strategy": "example.com/mine", "preferredHolder": "x"}),
                true
            )
            .is_empty()
        );
        assert_eq!(run(json!({"strategy": "a/b/c"}), true).len(), 1);
    }
}
