//! restartkit's own warnings on a JobSpec: things upstream accepts but that cannot do what the
//! author most likely meant. Each one follows from the upstream matcher
//! (pkg/controller/job/pod_failure_policy.go) or from a documented API rule that validation does
//! not enforce. Codes are stable:
//!
//! - `pfp-rule-shadowed`: a rule can never fire, because an earlier rule matches every failed Pod
//!   it would match (rules are tried in order and the first match wins).
//! - `pfp-no-effect`: every rule is `Count` (or there are none): failures count exactly as
//!   without a policy, yet the policy still forces restartPolicy Never and podReplacementPolicy
//!   Failed.
//! - `pfp-sidecar-exit-code`: an exit-code rule can match the exit code a sidecar (an init
//!   container with restartPolicy Always) gets when the kubelet stops it at the end of the Pod;
//!   the matcher searches initContainerStatuses too.
//! - `bolpi-restart-policy`: backoffLimitPerIndex with a template restartPolicy other than
//!   Never; the API documents Never as required but validation does not check it, and with
//!   OnFailure container failures restart in place instead of failing the index.

use crate::api::{JobSpec, PodFailurePolicyOnExitCodesRequirement, PodFailurePolicyRule};
use crate::diag::{Diagnostic, FieldPath};
use crate::features::FeatureGates;
use std::collections::BTreeSet;

/// Exit codes a container stopped by the kubelet usually reports (128 + SIGKILL, 128 + SIGTERM).
const STOP_EXIT_CODES: [i32; 2] = [137, 143];

/// What a rule matches on, as the matcher reads it: onExitCodes wins over onPodConditions.
enum Requirement<'a> {
    Exit(&'a PodFailurePolicyOnExitCodesRequirement),
    /// (type, status) pairs, with the defaulted status.
    Conditions(BTreeSet<(&'a str, &'a str)>),
    Nothing,
}

fn requirement(rule: &PodFailurePolicyRule) -> Requirement<'_> {
    if let Some(e) = &rule.on_exit_codes {
        Requirement::Exit(e)
    } else if let Some(p) = &rule.on_pod_conditions {
        Requirement::Conditions(
            p.iter()
                .map(|c| {
                    (
                        c.type_.as_str(),
                        if c.status.is_empty() {
                            "True"
                        } else {
                            c.status.as_str()
                        },
                    )
                })
                .collect(),
        )
    } else {
        Requirement::Nothing
    }
}

/// Whether a matched rule ends the search (an unknown action, or FailIndex with its gate off,
/// lets the matcher move on to the next rule).
fn ends_search(rule: &PodFailurePolicyRule, gates: &FeatureGates) -> bool {
    match rule.action.as_str() {
        "Count" | "FailJob" | "Ignore" => true,
        "FailIndex" => gates.enabled("JobBackoffLimitPerIndex"),
        _ => false,
    }
}

/// Whether every (container, non-zero exit code) that `later` matches is matched by `earlier`.
fn exit_covers(
    earlier: &PodFailurePolicyOnExitCodesRequirement,
    later: &PodFailurePolicyOnExitCodesRequirement,
) -> bool {
    let containers_ok = match (&earlier.container_name, &later.container_name) {
        (None, _) => true,
        (Some(a), Some(b)) => a == b,
        (Some(_), None) => false,
    };
    if !containers_ok {
        return false;
    }
    let ev: BTreeSet<i32> = earlier.values.iter().copied().filter(|v| *v != 0).collect();
    let lv: BTreeSet<i32> = later.values.iter().copied().filter(|v| *v != 0).collect();
    match (earlier.operator.as_str(), later.operator.as_str()) {
        ("In", "In") => lv.is_subset(&ev),
        ("NotIn", "In") => lv.is_disjoint(&ev),
        ("NotIn", "NotIn") => ev.is_subset(&lv),
        // NotIn matches all but finitely many codes; In lists at most 255.
        _ => false,
    }
}

fn covers(earlier: &Requirement<'_>, later: &Requirement<'_>) -> bool {
    match (earlier, later) {
        (Requirement::Exit(a), Requirement::Exit(b)) => exit_covers(a, b),
        (Requirement::Conditions(a), Requirement::Conditions(b)) => b.is_subset(a),
        _ => false,
    }
}

fn is_sidecar(spec: &JobSpec, name: &str) -> bool {
    spec.template
        .spec
        .init_containers
        .iter()
        .any(|c| c.name == name && c.restart_policy.as_deref() == Some("Always"))
}

/// All lints for one JobSpec at `path`.
pub fn lint_job_spec(spec: &JobSpec, path: &FieldPath, gates: &FeatureGates) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if let Some(pfp) = &spec.pod_failure_policy {
        let pfp_path = path.child("podFailurePolicy");
        let rules_path = pfp_path.child("rules");
        // Shadowing compares every rule with every earlier one. Upstream admits at most 20 rules
        // (more is a TooMany error already), so a longer list is not linted: 100,000 rules
        // made this pairwise pass run for hours (found by the bad-input corpus).
        let reqs: Vec<Requirement<'_>> =
            if pfp.rules.len() <= crate::api::batch::MAX_POD_FAILURE_POLICY_RULES {
                pfp.rules.iter().map(requirement).collect()
            } else {
                Vec::new()
            };
        for (j, later) in reqs.iter().enumerate() {
            let shadow = reqs
                .iter()
                .zip(&pfp.rules)
                .take(j)
                .enumerate()
                .find(|(_, (earlier, rule))| ends_search(rule, gates) && covers(earlier, later));
            if let Some((i, (_, rule))) = shadow {
                out.push(Diagnostic::lint(
                    "pfp-rule-shadowed",
                    &rules_path.index(j),
                    format!(
                        "this rule never fires: every failed Pod it matches is matched first by rules[{i}] (action {}), and the first matching rule wins",
                        rule.action
                    ),
                ));
            }
        }
        if pfp.rules.iter().all(|r| r.action == "Count") {
            out.push(Diagnostic::lint(
                "pfp-no-effect",
                &pfp_path,
                "every rule is Count (or there is none): each failure counts against backoffLimit exactly as without a podFailurePolicy, but the policy still requires restartPolicy Never and podReplacementPolicy Failed",
            ));
        }
        let has_sidecar = spec
            .template
            .spec
            .init_containers
            .iter()
            .any(|c| c.restart_policy.as_deref() == Some("Always"));
        for (j, rule) in pfp.rules.iter().enumerate() {
            let Some(e) = &rule.on_exit_codes else {
                continue;
            };
            let p = rules_path.index(j).child("onExitCodes");
            match e.container_name.as_deref() {
                Some(name) if is_sidecar(spec, name) => out.push(Diagnostic::lint(
                    "pfp-sidecar-exit-code",
                    &p.child("containerName"),
                    format!(
                        "{name:?} is a sidecar (init container with restartPolicy Always): the kubelet stops it when the Pod ends, so its exit code usually reflects that stop (137 or 143), not a failure of the workload"
                    ),
                )),
                None if has_sidecar && e.operator == "NotIn" && !STOP_EXIT_CODES.iter().all(|c| e.values.contains(c)) => {
                    out.push(Diagnostic::lint(
                        "pfp-sidecar-exit-code",
                        &p,
                        "NotIn without containerName also matches the sidecars' exit codes (initContainerStatuses are searched too), and a sidecar stopped at the end of the Pod usually exits 137 or 143; set containerName or list 137 and 143",
                    ))
                }
                _ => {}
            }
        }
    }
    if spec.backoff_limit_per_index.is_some() {
        let rp = spec.template.spec.restart_policy.as_deref().unwrap_or("");
        if rp == "OnFailure" {
            out.push(Diagnostic::lint(
                "bolpi-restart-policy",
                &path.child("template").child("spec").child("restartPolicy"),
                "backoffLimitPerIndex is documented to require restartPolicy Never: with OnFailure a failing container restarts in place, so its index does not fail on that failure",
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use super::*;
    use serde_json::json;

    fn spec(v: serde_json::Value) -> JobSpec {
        serde_json::from_value(v).unwrap()
    }

    fn codes(spec: &JobSpec) -> Vec<(String, String)> {
        lint_job_spec(spec, &FieldPath::new("spec"), &FeatureGates::default())
            .into_iter()
            .map(|d| (d.code.unwrap_or_default(), d.field))
            .collect()
    }

    fn base(rules: serde_json::Value) -> JobSpec {
        spec(json!({
            "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "main"}, {"name": "aux"}]}},
            "podFailurePolicy": {"rules": rules}
        }))
    }

    #[test]
    fn in_subset_is_shadowed() {
        let s = base(json!([
            {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [1, 2, 3]}},
            {"action": "Ignore", "onExitCodes": {"operator": "In", "values": [2, 3]}}
        ]));
        assert_eq!(
            codes(&s),
            vec![(
                "pfp-rule-shadowed".to_owned(),
                "spec.podFailurePolicy.rules[1]".to_owned()
            )]
        );
    }

    #[test]
    fn in_not_subset_is_not_shadowed() {
        let s = base(json!([
            {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [1, 2]}},
            {"action": "Ignore", "onExitCodes": {"operator": "In", "values": [2, 3]}}
        ]));
        assert!(codes(&s).is_empty());
    }

    #[test]
    fn notin_covers_disjoint_in() {
        let s = base(json!([
            {"action": "Ignore", "onExitCodes": {"operator": "NotIn", "values": [5]}},
            {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [1, 2]}}
        ]));
        assert_eq!(codes(&s).len(), 1);
        let s = base(json!([
            {"action": "Ignore", "onExitCodes": {"operator": "NotIn", "values": [1]}},
            {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [1, 2]}}
        ]));
        assert!(codes(&s).is_empty());
    }

    #[test]
    fn notin_covers_notin_with_more_values() {
        let s = base(json!([
            {"action": "Ignore", "onExitCodes": {"operator": "NotIn", "values": [1]}},
            {"action": "FailJob", "onExitCodes": {"operator": "NotIn", "values": [1, 2]}}
        ]));
        assert_eq!(codes(&s).len(), 1);
        let s = base(json!([
            {"action": "Ignore", "onExitCodes": {"operator": "NotIn", "values": [1, 2]}},
            {"action": "FailJob", "onExitCodes": {"operator": "NotIn", "values": [1]}}
        ]));
        assert!(codes(&s).is_empty());
    }

    #[test]
    fn container_name_limits_shadowing() {
        let s = base(json!([
            {"action": "FailJob", "onExitCodes": {"containerName": "main", "operator": "In", "values": [1]}},
            {"action": "Ignore", "onExitCodes": {"operator": "In", "values": [1]}}
        ]));
        assert!(
            codes(&s).is_empty(),
            "the later rule also matches container aux"
        );
        let s = base(json!([
            {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [1]}},
            {"action": "Ignore", "onExitCodes": {"containerName": "main", "operator": "In", "values": [1]}}
        ]));
        assert_eq!(codes(&s).len(), 1);
    }

    #[test]
    fn condition_subset_is_shadowed_with_defaulted_status() {
        let s = base(json!([
            {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}, {"type": "ConfigIssue"}]},
            {"action": "FailJob", "onPodConditions": [{"type": "ConfigIssue", "status": "True"}]}
        ]));
        assert_eq!(
            codes(&s),
            vec![(
                "pfp-rule-shadowed".to_owned(),
                "spec.podFailurePolicy.rules[1]".to_owned()
            )]
        );
        let s = base(json!([
            {"action": "Ignore", "onPodConditions": [{"type": "ConfigIssue", "status": "False"}]},
            {"action": "FailJob", "onPodConditions": [{"type": "ConfigIssue", "status": "True"}]}
        ]));
        assert!(codes(&s).is_empty());
    }

    #[test]
    fn failindex_with_gate_off_does_not_shadow() {
        let s = base(json!([
            {"action": "FailIndex", "onExitCodes": {"operator": "In", "values": [1]}},
            {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [1]}}
        ]));
        let mut gates = FeatureGates::default();
        assert_eq!(lint_job_spec(&s, &FieldPath::new("spec"), &gates).len(), 1);
        gates.set("JobBackoffLimitPerIndex", false);
        assert!(lint_job_spec(&s, &FieldPath::new("spec"), &gates).is_empty());
    }

    #[test]
    fn all_count_has_no_effect() {
        let s =
            base(json!([{"action": "Count", "onExitCodes": {"operator": "In", "values": [1]}}]));
        assert_eq!(
            codes(&s),
            vec![(
                "pfp-no-effect".to_owned(),
                "spec.podFailurePolicy".to_owned()
            )]
        );
        let s = base(json!([]));
        assert_eq!(codes(&s).len(), 1);
    }

    #[test]
    fn sidecar_exit_code_rules() {
        let s = spec(json!({
            "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "main"}],
                "initContainers": [{"name": "log", "restartPolicy": "Always"}, {"name": "setup"}]}},
            "podFailurePolicy": {"rules": [
                {"action": "FailJob", "onExitCodes": {"containerName": "log", "operator": "In", "values": [1]}},
                {"action": "FailJob", "onExitCodes": {"containerName": "setup", "operator": "In", "values": [1]}},
                {"action": "FailJob", "onExitCodes": {"operator": "NotIn", "values": [42]}},
                {"action": "Ignore", "onExitCodes": {"operator": "NotIn", "values": [137, 143]}}
            ]}
        }));
        let got = codes(&s);
        assert!(got.contains(&(
            "pfp-sidecar-exit-code".to_owned(),
            "spec.podFailurePolicy.rules[0].onExitCodes.containerName".to_owned()
        )));
        assert!(got.contains(&(
            "pfp-sidecar-exit-code".to_owned(),
            "spec.podFailurePolicy.rules[2].onExitCodes".to_owned()
        )));
        assert_eq!(
            got.iter()
                .filter(|(c, _)| c == "pfp-sidecar-exit-code")
                .count(),
            2
        );
    }

    #[test]
    fn bolpi_with_on_failure() {
        let s = spec(
            json!({"completionMode": "Indexed", "completions": 3, "backoffLimitPerIndex": 1,
            "template": {"spec": {"restartPolicy": "OnFailure", "containers": [{"name": "main"}]}}}),
        );
        assert_eq!(
            codes(&s),
            vec![(
                "bolpi-restart-policy".to_owned(),
                "spec.template.spec.restartPolicy".to_owned()
            )]
        );
        let s = spec(
            json!({"completionMode": "Indexed", "completions": 3, "backoffLimitPerIndex": 1,
            "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "main"}]}}}),
        );
        assert!(codes(&s).is_empty());
    }
}
