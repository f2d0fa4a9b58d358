//! KEP-5307's future rule shapes (proposal `RestartRulesFuture`): the actions `Complete`,
//! `TerminatePod` and `RestartPod`, the conditions `restartTimes` and `oomKill`, and the
//! `when: {…}` wrapper the KEP's four-container example uses. Upstream (1.34+) has the action
//! `Restart` (and KEP-5532's `RestartAllContainers`) with `exitCodes` at the rule's top level;
//! both shapes are read here.

use crate::api::{Container, ContainerRestartRule};
use crate::diag::{Diagnostic, FieldPath, Findings};
use serde_json::Value;

pub const ACTION_RESTART: &str = "Restart";
pub const ACTION_RESTART_ALL: &str = "RestartAllContainers";
pub const ACTION_COMPLETE: &str = "Complete";
pub const ACTION_TERMINATE_POD: &str = "TerminatePod";
pub const ACTION_RESTART_POD: &str = "RestartPod";

const CONDITIONS: [&str; 3] = ["exitCodes", "restartTimes", "oomKill"];
const OPERATORS: [&str; 2] = ["In", "NotIn"];
const POLICIES: [&str; 3] = ["Always", "Never", "OnFailure"];
const MAX_RULES: usize = 20;
const MAX_VALUES: usize = 255;

/// A rule's condition, from either shape.
#[derive(Debug, Clone, PartialEq)]
pub enum Condition {
    ExitCodes { operator: String, values: Vec<i32> },
    RestartTimes(i64),
    OomKill,
}

/// How a container ended, as far as the conditions ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exit {
    pub code: i32,
    /// Times the kubelet has restarted the container so far (its status' restartCount).
    pub restart_count: i64,
    pub oom_killed: bool,
}

fn when(r: &ContainerRestartRule) -> Option<&serde_json::Map<String, Value>> {
    r.other.get("when").and_then(Value::as_object)
}

fn exit_codes_of(v: &Value) -> Condition {
    Condition::ExitCodes {
        operator: v
            .get("operator")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
        values: v
            .get("values")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_i64)
            .filter_map(|x| i32::try_from(x).ok())
            .collect(),
    }
}

/// Every condition the rule states (one, when valid), with the field path it sits at.
pub fn conditions(r: &ContainerRestartRule, rp: &FieldPath) -> Vec<(FieldPath, Condition)> {
    let mut out = Vec::new();
    if let Some(ec) = &r.exit_codes {
        out.push((
            rp.child("exitCodes"),
            Condition::ExitCodes {
                operator: ec.operator.clone(),
                values: ec.values.clone(),
            },
        ));
    }
    if let Some(w) = when(r) {
        let wp = rp.child("when");
        if let Some(v) = w.get("exitCodes") {
            out.push((wp.child("exitCodes"), exit_codes_of(v)));
        }
        if let Some(v) = w.get("restartTimes") {
            out.push((
                wp.child("restartTimes"),
                Condition::RestartTimes(v.as_i64().unwrap_or(0)),
            ));
        }
        if w.get("oomKill")
            .is_some_and(|v| !v.is_null() && v != &Value::Bool(false))
        {
            out.push((wp.child("oomKill"), Condition::OomKill));
        }
    }
    out
}

fn matches(c: &Condition, e: Exit) -> bool {
    match c {
        Condition::ExitCodes { operator, values } => match operator.as_str() {
            "In" => values.contains(&e.code),
            "NotIn" => !values.contains(&e.code),
            _ => false,
        },
        Condition::RestartTimes(n) => e.restart_count >= *n,
        Condition::OomKill => e.oom_killed,
    }
}

/// The first rule whose condition matches the exit: its index and action.
pub fn first_match(c: &Container, e: Exit) -> Option<(usize, &str)> {
    let root = FieldPath::root();
    c.rules()
        .iter()
        .enumerate()
        .find(|(_, r)| {
            conditions(r, &root)
                .first()
                .is_some_and(|(_, cond)| matches(cond, e))
        })
        .map(|(k, r)| (k, r.action.as_str()))
}

/// Validation of one container's restartPolicy and rules under the proposal (in place of
/// validateContainerRestartPolicy / validateInitContainerRestartPolicy).
///
/// Where the KEP is silent, docs/proposals.md states what is assumed: a container with rules
/// but no restartPolicy takes the Pod's (the KEP's own keystone container has none); a rule has
/// exactly one condition; `restartTimes` is at least 1.
pub fn validate_container(
    c: &Container,
    p: &FieldPath,
    init: bool,
    allow_restart_all: bool,
    out: &mut Findings,
) {
    let rules = c.rules();
    let policy_path = p.child("restartPolicy");
    if let Some(v) = c.restart_policy.as_deref()
        && !POLICIES.contains(&v)
    {
        out.push(Diagnostic::not_supported(&policy_path, v, &POLICIES));
    }
    let rules_path = p.child("restartPolicyRules");
    if init
        && c.restart_policy.as_deref() == Some("Always")
        && !rules.is_empty()
        && !allow_restart_all
    {
        out.push(Diagnostic::forbidden(
            &rules_path,
            "restartPolicyRules are not allowed for init containers with restart policy Always",
        ));
        return;
    }
    if rules.len() > MAX_RULES {
        out.push(Diagnostic::too_many(&rules_path, rules.len(), MAX_RULES));
    }
    let mut actions = vec![
        ACTION_RESTART,
        ACTION_COMPLETE,
        ACTION_TERMINATE_POD,
        ACTION_RESTART_POD,
    ];
    if allow_restart_all {
        actions.insert(1, ACTION_RESTART_ALL);
    }
    for (j, r) in rules.iter().enumerate() {
        let rp = rules_path.index(j);
        if !actions.contains(&r.action.as_str()) {
            out.push(Diagnostic::not_supported(
                &rp.child("action"),
                r.action.as_str(),
                &actions,
            ));
        }
        if let Some(w) = when(r) {
            for k in w.keys().filter(|k| !CONDITIONS.contains(&k.as_str())) {
                out.push(Diagnostic::not_supported(
                    &rp.child("when").child(k),
                    k.as_str(),
                    &CONDITIONS,
                ));
            }
        }
        let conds = conditions(r, &rp);
        match conds.len() {
            0 => out.push(Diagnostic::required(
                &rp.child("when"),
                "must specify one of exitCodes, restartTimes, oomKill",
            )),
            1 => {}
            _ => out.push(Diagnostic::invalid_omit_value(
                &rp.child("when"),
                "must specify only one of exitCodes, restartTimes, oomKill",
            )),
        }
        for (cp, cond) in &conds {
            match cond {
                Condition::ExitCodes { operator, values } => {
                    if !OPERATORS.contains(&operator.as_str()) {
                        out.push(Diagnostic::not_supported(
                            &cp.child("operator"),
                            operator.as_str(),
                            &OPERATORS,
                        ));
                    }
                    if values.len() > MAX_VALUES {
                        out.push(Diagnostic::too_many(
                            &cp.child("values"),
                            values.len(),
                            MAX_VALUES,
                        ));
                    }
                }
                Condition::RestartTimes(n) if *n < 1 => {
                    out.push(Diagnostic::invalid(cp, *n, "must be at least 1"));
                }
                Condition::RestartTimes(_) | Condition::OomKill => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use super::*;
    use serde_json::json;

    fn container(v: Value) -> Container {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn first_match_reads_both_shapes_in_order() {
        let c = container(
            json!({"name": "i", "restartPolicy": "Never", "restartPolicyRules": [
                {"action": "Complete", "when": {"restartTimes": 10}},
                {"action": "Restart", "when": {"exitCodes": {"operator": "NotIn", "values": [0]}}},
                {"action": "TerminatePod", "when": {"oomKill": {}}},
            ]}),
        );
        let e = |code, restart_count, oom_killed| Exit {
            code,
            restart_count,
            oom_killed,
        };
        assert_eq!(first_match(&c, e(1, 3, false)), Some((1, "Restart")));
        assert_eq!(first_match(&c, e(1, 10, false)), Some((0, "Complete")));
        assert_eq!(first_match(&c, e(0, 3, false)), None);
        assert_eq!(first_match(&c, e(0, 3, true)), Some((2, "TerminatePod")));
        let up = container(
            json!({"name": "r", "restartPolicy": "Never", "restartPolicyRules": [{"action": "Restart", "exitCodes": {"operator": "In", "values": [42]}}]}),
        );
        assert_eq!(first_match(&up, e(42, 0, false)), Some((0, "Restart")));
        assert_eq!(first_match(&up, e(1, 0, false)), None);
    }

    #[test]
    fn validation_names_the_field() {
        let c = container(
            json!({"name": "x", "restartPolicy": "Never", "restartPolicyRules": [
                {"action": "Explode", "when": {"restartTimes": 0, "exitCodes": {"operator": "In", "values": [1]}}},
                {"action": "Complete"},
                {"action": "Complete", "when": {"sometimes": true}},
            ]}),
        );
        let mut f = Findings::default();
        validate_container(
            &c,
            &FieldPath::root().child("spec").child("containers").index(0),
            false,
            false,
            &mut f,
        );
        let fields: Vec<&str> = f.errors.iter().map(|d| d.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "spec.containers[0].restartPolicyRules[0].action",
                "spec.containers[0].restartPolicyRules[0].when",
                "spec.containers[0].restartPolicyRules[0].when.restartTimes",
                "spec.containers[0].restartPolicyRules[1].when",
                "spec.containers[0].restartPolicyRules[2].when.sometimes",
                "spec.containers[0].restartPolicyRules[2].when",
            ]
        );
    }
}
