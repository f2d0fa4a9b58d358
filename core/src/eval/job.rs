//! The Job controller's pod failure policy matching (`matchPodFailurePolicy` in
//! kubernetes/kubernetes pkg/controller/job/pod_failure_policy.go): which rule a failed Pod
//! matches, what the controller then does, and the Job failure message of a FailJob match.

// Diagnostic is the crate's one error type (as in contract.rs); boxing it here alone would not help.
#![allow(clippy::result_large_err)]

use crate::api::{
    Condition, ContainerStatus, Job, Pod, PodFailurePolicy, PodFailurePolicyOnExitCodesRequirement,
};
use crate::diag::Diagnostic;
use crate::features::FeatureGates;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The feature gate that FailIndex depends on (the matcher drops a FailIndex match when it is off).
/// Removed in 1.37, where pod_failure_policy.go takes FailIndex unconditionally; the gate then
/// reads as on (see `features::GATES`).
pub const FAIL_INDEX_GATE: &str = "JobBackoffLimitPerIndex";

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PodFailurePolicyInput {
    pub job: Job,
    /// The failed Pod, with its status.
    pub pod: Pod,
    #[serde(default)]
    pub kubernetes_version: Option<String>,
    #[serde(default)]
    pub feature_gates: Option<BTreeMap<String, bool>>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PodFailurePolicyOutput {
    /// A rule matched (and its action applied).
    pub matched: bool,
    /// `FailJob`, `FailIndex`, `Ignore`, `Count`, or null when no rule matched.
    pub action: Option<String>,
    /// Whether the failure counts against backoffLimit (and backoffLimitPerIndex).
    pub count_failed: bool,
    /// The Job failure message (FailJob only), exactly as the controller writes it.
    pub message: Option<String>,
    /// Index of the matched rule.
    pub rule_index: Option<usize>,
    /// What happened, in words.
    pub reason: String,
    /// The container status that matched an onExitCodes rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matched_container: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The Pod condition type that matched an onPodConditions rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matched_condition: Option<String>,
}

/// A rule action the matcher acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PolicyAction {
    FailJob,
    FailIndex,
    Ignore,
    Count,
}

impl PolicyAction {
    pub fn name(self) -> &'static str {
        match self {
            PolicyAction::FailJob => "FailJob",
            PolicyAction::FailIndex => "FailIndex",
            PolicyAction::Ignore => "Ignore",
            PolicyAction::Count => "Count",
        }
    }
    /// The action a rule's `action` string stands for, when the matcher acts on it: unknown
    /// actions, and FailIndex with its gate off, make the matcher move on to the next rule.
    pub fn effective(action: &str, fail_index_gate: bool) -> Option<PolicyAction> {
        match action {
            "FailJob" => Some(PolicyAction::FailJob),
            "FailIndex" if fail_index_gate => Some(PolicyAction::FailIndex),
            "Ignore" => Some(PolicyAction::Ignore),
            "Count" => Some(PolicyAction::Count),
            _ => None,
        }
    }
    /// Whether a Pod failure matched by this action counts against the backoff limits.
    pub fn counts(self) -> bool {
        self != PolicyAction::Ignore
    }
}

/// What in the Pod matched a rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Evidence<'a> {
    Container(&'a ContainerStatus, i32),
    Condition(&'a Condition),
}

/// The result of matching one failed Pod.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyMatch<'a> {
    pub rule_index: usize,
    pub action: PolicyAction,
    pub evidence: Evidence<'a>,
}

/// Whether `code` satisfies the requirement's operator; exit code 0 is skipped before this.
pub fn operator_matches(req: &PodFailurePolicyOnExitCodesRequirement, code: i32) -> bool {
    match req.operator.as_str() {
        "In" => req.values.contains(&code),
        "NotIn" => !req.values.contains(&code),
        _ => false,
    }
}

fn first_matching_status<'a>(
    statuses: &'a [ContainerStatus],
    req: &PodFailurePolicyOnExitCodesRequirement,
) -> Option<(&'a ContainerStatus, i32)> {
    statuses.iter().find_map(|cs| {
        let t = cs.state.as_ref()?.terminated.as_ref()?;
        let name_ok = req.container_name.as_deref().is_none_or(|n| n == cs.name);
        (name_ok && t.exit_code != 0 && operator_matches(req, t.exit_code))
            .then_some((cs, t.exit_code))
    })
}

/// The pattern status as the stored (defaulted) Job has it.
fn defaulted(status: &str) -> &str {
    if status.is_empty() { "True" } else { status }
}

/// matchPodFailurePolicy: the first rule, in order, that the failed Pod matches and whose action
/// the controller acts on. None: no rule matched and the failure counts.
pub fn match_policy<'a>(
    policy: &PodFailurePolicy,
    pod: &'a Pod,
    fail_index_gate: bool,
) -> Option<PolicyMatch<'a>> {
    let status = pod.status.as_ref()?;
    for (i, rule) in policy.rules.iter().enumerate() {
        // A rule whose action the matcher skips cannot match whatever the Pod holds, so its
        // action is read first and the Pod is not searched for it.
        let Some(action) = PolicyAction::effective(&rule.action, fail_index_gate) else {
            continue;
        };
        let evidence = if let Some(req) = &rule.on_exit_codes {
            first_matching_status(&status.container_statuses, req)
                .or_else(|| first_matching_status(&status.init_container_statuses, req))
                .map(|(cs, code)| Evidence::Container(cs, code))
        } else if let Some(patterns) = &rule.on_pod_conditions {
            status
                .conditions
                .iter()
                .find(|c| {
                    patterns
                        .iter()
                        .any(|p| p.type_ == c.type_ && defaulted(&p.status) == c.status)
                })
                .map(Evidence::Condition)
        } else {
            None
        };
        let Some(evidence) = evidence else {
            continue;
        };
        return Some(PolicyMatch {
            rule_index: i,
            action,
            evidence,
        });
    }
    None
}

/// The Job failure message of a FailJob match, exactly as the controller formats it.
pub fn fail_job_message(pod: &Pod, m: &PolicyMatch<'_>) -> String {
    let ns = pod.metadata.namespace_or_empty();
    let name = pod.metadata.name_or_empty();
    match m.evidence {
        Evidence::Container(cs, code) => format!(
            "Container {} for pod {ns}/{name} failed with exit code {code} matching FailJob rule at index {}",
            cs.name, m.rule_index
        ),
        Evidence::Condition(c) => {
            format!(
                "Pod {ns}/{name} has condition {} matching FailJob rule at index {}",
                c.type_, m.rule_index
            )
        }
    }
}

/// The `podFailurePolicy` op.
pub fn pod_failure_policy(
    input: PodFailurePolicyInput,
) -> Result<PodFailurePolicyOutput, Diagnostic> {
    let (gates, _) = FeatureGates::resolve(
        input.kubernetes_version.as_deref(),
        input.feature_gates.as_ref(),
    )?;
    Ok(evaluate(&input.job, &input.pod, &gates))
}

/// The outcome for one failed Pod of `job`.
pub fn evaluate(job: &Job, pod: &Pod, gates: &FeatureGates) -> PodFailurePolicyOutput {
    let not_failed_note = match pod.status.as_ref().and_then(|s| s.phase.as_deref()) {
        Some("Failed") => "",
        _ => {
            " (the Job controller applies its podFailurePolicy only once the Pod's phase is Failed)"
        }
    };
    let Some(policy) = &job.spec.pod_failure_policy else {
        return PodFailurePolicyOutput {
            matched: false,
            action: None,
            count_failed: true,
            message: None,
            rule_index: None,
            reason: [
                "the Job has no podFailurePolicy: the failure counts against backoffLimit",
                not_failed_note,
            ]
            .concat(),
            matched_container: None,
            exit_code: None,
            matched_condition: None,
        };
    };
    let gate = gates.enabled(FAIL_INDEX_GATE);
    let Some(m) = match_policy(policy, pod, gate) else {
        return PodFailurePolicyOutput {
            matched: false,
            action: None,
            count_failed: true,
            message: None,
            rule_index: None,
            reason: [
                "no podFailurePolicy rule matched: the failure counts against backoffLimit",
                not_failed_note,
            ]
            .concat(),
            matched_container: None,
            exit_code: None,
            matched_condition: None,
        };
    };
    // The reason is written into one buffer (writing to a String cannot fail).
    let mut reason = String::with_capacity(192);
    let (matched_container, exit_code, matched_condition) = match m.evidence {
        Evidence::Container(cs, code) => {
            let _ = write!(reason, "container {:?} exited with code {code}", cs.name);
            (Some(cs.name.clone()), Some(code), None)
        }
        Evidence::Condition(c) => {
            let _ = write!(reason, "the Pod has condition {}={}", c.type_, c.status);
            (None, None, Some(c.type_.clone()))
        }
    };
    let effect = match m.action {
        PolicyAction::FailJob => {
            "the Job fails (FailureTarget, then Failed, with reason PodFailurePolicy)"
        }
        PolicyAction::FailIndex => "the Pod's index fails at once, without further retries",
        PolicyAction::Ignore => {
            "the failure is not counted against backoffLimit and the Pod is replaced"
        }
        PolicyAction::Count => "the failure counts against backoffLimit, as without a policy",
    };
    let message = (m.action == PolicyAction::FailJob).then(|| fail_job_message(pod, &m));
    PodFailurePolicyOutput {
        matched: true,
        action: Some(m.action.name().to_owned()),
        count_failed: m.action.counts(),
        message,
        rule_index: Some(m.rule_index),
        reason: {
            let _ = write!(
                reason,
                ", matching rules[{}] ({}): ",
                m.rule_index,
                m.action.name()
            );
            reason.push_str(effect);
            reason.push_str(not_failed_note);
            reason
        },
        matched_container,
        exit_code,
        matched_condition,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use super::*;
    use serde_json::json;

    fn job(rules: serde_json::Value) -> Job {
        serde_json::from_value(json!({
            "metadata": {"name": "j", "namespace": "ns"},
            "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "main"}]}},
                     "podFailurePolicy": {"rules": rules}}
        }))
        .unwrap()
    }

    fn pod(status: serde_json::Value) -> Pod {
        serde_json::from_value(
            json!({"metadata": {"name": "p", "namespace": "ns"}, "status": status}),
        )
        .unwrap()
    }

    fn exited(code: i32) -> Pod {
        pod(
            json!({"phase": "Failed", "containerStatuses": [{"name": "main", "state": {"terminated": {"exitCode": code}}}]}),
        )
    }

    fn run(j: &Job, p: &Pod) -> PodFailurePolicyOutput {
        evaluate(j, p, &FeatureGates::default())
    }

    #[test]
    fn no_policy_counts() {
        let mut j = job(json!([]));
        j.spec.pod_failure_policy = None;
        let o = run(&j, &exited(1));
        assert!(!o.matched && o.count_failed && o.action.is_none() && o.message.is_none());
    }

    #[test]
    fn no_match_counts() {
        let o = run(
            &job(json!([{"action": "Ignore", "onExitCodes": {"operator": "In", "values": [2]}}])),
            &exited(1),
        );
        assert!(!o.matched && o.count_failed && o.rule_index.is_none());
    }

    #[test]
    fn ignore_does_not_count() {
        let o = run(
            &job(json!([{"action": "Ignore", "onExitCodes": {"operator": "In", "values": [1]}}])),
            &exited(1),
        );
        assert_eq!(
            (o.matched, o.action.as_deref(), o.count_failed, o.rule_index),
            (true, Some("Ignore"), false, Some(0))
        );
    }

    #[test]
    fn count_counts() {
        let o = run(
            &job(json!([{"action": "Count", "onExitCodes": {"operator": "NotIn", "values": [3]}}])),
            &exited(1),
        );
        assert_eq!((o.action.as_deref(), o.count_failed), (Some("Count"), true));
    }

    #[test]
    fn failjob_exit_message() {
        let o = run(
            &job(
                json!([{"action": "Count", "onExitCodes": {"operator": "In", "values": [9]}},
                         {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [1]}}]),
            ),
            &exited(1),
        );
        assert_eq!(
            o.message.as_deref(),
            Some(
                "Container main for pod ns/p failed with exit code 1 matching FailJob rule at index 1"
            )
        );
        assert!(o.count_failed);
    }

    #[test]
    fn failjob_condition_message_and_defaulted_status() {
        let j = job(json!([{"action": "FailJob", "onPodConditions": [{"type": "ConfigIssue"}]}]));
        let p = pod(
            json!({"phase": "Failed", "conditions": [{"type": "Ready", "status": "False"}, {"type": "ConfigIssue", "status": "True"}]}),
        );
        let o = run(&j, &p);
        assert_eq!(
            o.message.as_deref(),
            Some("Pod ns/p has condition ConfigIssue matching FailJob rule at index 0")
        );
        assert_eq!(o.matched_condition.as_deref(), Some("ConfigIssue"));
    }

    #[test]
    fn condition_status_must_match_exactly() {
        let j = job(
            json!([{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "False"}]}]),
        );
        let p = pod(
            json!({"phase": "Failed", "conditions": [{"type": "DisruptionTarget", "status": "True"}]}),
        );
        assert!(!run(&j, &p).matched);
    }

    #[test]
    fn exit_zero_never_matches_even_notin() {
        let o = run(
            &job(
                json!([{"action": "Ignore", "onExitCodes": {"operator": "NotIn", "values": [1]}}]),
            ),
            &exited(0),
        );
        assert!(!o.matched);
    }

    #[test]
    fn non_terminated_and_last_state_are_skipped() {
        let j =
            job(json!([{"action": "Ignore", "onExitCodes": {"operator": "In", "values": [1]}}]));
        let p = pod(json!({"phase": "Failed", "containerStatuses": [
            {"name": "main", "state": {"running": {}}, "lastState": {"terminated": {"exitCode": 1}}}]}));
        assert!(!run(&j, &p).matched);
    }

    #[test]
    fn exit_rule_ignores_conditions_when_both_set() {
        let j = job(
            json!([{"action": "Ignore", "onExitCodes": {"operator": "In", "values": [5]},
                            "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]}]),
        );
        let p = pod(
            json!({"phase": "Failed", "conditions": [{"type": "DisruptionTarget", "status": "True"}]}),
        );
        assert!(!run(&j, &p).matched);
    }

    #[test]
    fn init_statuses_searched_after_containers() {
        let j = job(
            json!([{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [3, 5]}}]),
        );
        let p = pod(json!({"phase": "Failed",
            "initContainerStatuses": [{"name": "init", "state": {"terminated": {"exitCode": 5}}}],
            "containerStatuses": [{"name": "main", "state": {"terminated": {"exitCode": 3}}}]}));
        assert_eq!(run(&j, &p).matched_container.as_deref(), Some("main"));
        let p = pod(json!({"phase": "Failed",
            "initContainerStatuses": [{"name": "init", "state": {"terminated": {"exitCode": 5}}}]}));
        assert_eq!(run(&j, &p).matched_container.as_deref(), Some("init"));
    }

    #[test]
    fn failindex_gate_off_falls_through() {
        let j = job(
            json!([{"action": "FailIndex", "onExitCodes": {"operator": "In", "values": [1]}},
                           {"action": "Ignore", "onExitCodes": {"operator": "In", "values": [1]}}]),
        );
        let mut g = FeatureGates::default();
        let o = evaluate(&j, &exited(1), &g);
        assert_eq!(
            (o.action.as_deref(), o.count_failed),
            (Some("FailIndex"), true)
        );
        g.set(FAIL_INDEX_GATE, false);
        let o = evaluate(&j, &exited(1), &g);
        assert_eq!(
            (o.action.as_deref(), o.rule_index),
            (Some("Ignore"), Some(1))
        );
    }

    #[test]
    fn unknown_action_or_operator_falls_through() {
        let j = job(
            json!([{"action": "Bogus", "onExitCodes": {"operator": "In", "values": [1]}},
                           {"action": "Ignore", "onExitCodes": {"operator": "Maybe", "values": [1]}},
                           {"action": "Count", "onExitCodes": {"operator": "In", "values": [1]}}]),
        );
        assert_eq!(run(&j, &exited(1)).rule_index, Some(2));
    }

    #[test]
    fn pending_phase_is_noted() {
        let j = job(json!([]));
        let p = pod(json!({"phase": "Running"}));
        assert!(
            run(&j, &p)
                .reason
                .contains("only once the Pod's phase is Failed")
        );
    }

    #[test]
    fn op_decodes_and_rejects_unknown_fields() {
        let ok = crate::handle_json(
            &json!({"op": "podFailurePolicy", "input": {"job": {}, "pod": {}}}).to_string(),
        );
        assert!(ok.contains("\"status\":\"ok\""), "{ok}");
        let bad = crate::handle_json(
            &json!({"op": "podFailurePolicy", "input": {"job": {}, "pod": {}, "nope": 1}})
                .to_string(),
        );
        assert!(bad.contains("\"status\":\"error\""), "{bad}");
    }
}
