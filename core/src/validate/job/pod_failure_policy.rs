//! validatePodFailurePolicy (pkg/apis/batch/validation/validation.go): the rules, their
//! actions, onExitCodes and onPodConditions.

use crate::api::batch::{
    MAX_ON_EXIT_CODES_VALUES, MAX_ON_POD_CONDITIONS_PATTERNS, MAX_POD_FAILURE_POLICY_RULES,
};
use crate::api::{
    JobSpec, PodFailurePolicyOnExitCodesRequirement, PodFailurePolicyOnPodConditionsPattern,
    PodFailurePolicyRule,
};
use crate::diag::{Diagnostic, FieldPath, Findings};
use crate::validate::names::qualified_name;
use serde_json::Value;
use std::collections::BTreeSet;

/// The actions upstream accepts, sorted as `sets.List` prints them.
pub const POD_FAILURE_POLICY_ACTIONS: [&str; 4] = ["Count", "FailIndex", "FailJob", "Ignore"];
const ON_EXIT_CODES_OPERATORS: [&str; 2] = ["In", "NotIn"];
const CONDITION_STATUSES: [&str; 3] = ["False", "True", "Unknown"];

pub(super) fn validate_pod_failure_policy(
    spec: &JobSpec,
    path: &FieldPath,
    minor: u32,
    out: &mut Findings,
) {
    let Some(pfp) = &spec.pod_failure_policy else {
        return;
    };
    let rules_path = path.child("rules");
    if pfp.rules.len() > MAX_POD_FAILURE_POLICY_RULES {
        out.push(Diagnostic::too_many(
            &rules_path,
            pfp.rules.len(),
            MAX_POD_FAILURE_POLICY_RULES,
        ));
    }
    let t = &spec.template.spec;
    let names: BTreeSet<&str> = t
        .containers
        .iter()
        .chain(&t.init_containers)
        .map(|c| c.name.as_str())
        .collect();
    for (i, rule) in pfp.rules.iter().enumerate() {
        validate_rule(spec, rule, &rules_path.index(i), &names, minor, out);
    }
}

fn quoted_list(items: &[&str]) -> String {
    let q: Vec<String> = items.iter().map(|s| format!("{s:?}")).collect();
    format!("[{}]", q.join(" "))
}

fn validate_rule(
    spec: &JobSpec,
    rule: &PodFailurePolicyRule,
    path: &FieldPath,
    names: &BTreeSet<&str>,
    minor: u32,
    out: &mut Findings,
) {
    let action_path = path.child("action");
    if rule.action.is_empty() {
        out.push(Diagnostic::required(
            &action_path,
            format!("valid values: {}", quoted_list(&POD_FAILURE_POLICY_ACTIONS)),
        ));
    } else if rule.action == "FailIndex" {
        if spec.backoff_limit_per_index.is_none() {
            // `path` is spec.podFailurePolicy.rules[i]: the Job's spec is two levels up.
            let spec_path = action_path
                .as_str()
                .split(".podFailurePolicy.")
                .next()
                .unwrap_or("spec");
            out.push(
                Diagnostic::invalid(
                    &action_path,
                    rule.action.as_str(),
                    "requires the backoffLimitPerIndex to be set",
                )
                .with_fix(
                    "set backoffLimitPerIndex: 1 (FailIndex fails one index after its own retries)",
                    vec![(format!("{spec_path}.backoffLimitPerIndex"), Value::from(1))],
                ),
            );
        }
    } else if !POD_FAILURE_POLICY_ACTIONS.contains(&rule.action.as_str()) {
        out.push(Diagnostic::not_supported(
            &action_path,
            rule.action.as_str(),
            &POD_FAILURE_POLICY_ACTIONS,
        ));
    }
    let patterns = rule.on_pod_conditions.as_deref().unwrap_or(&[]);
    if let Some(oec) = &rule.on_exit_codes {
        validate_on_exit_codes(oec, &path.child("onExitCodes"), names, out);
    }
    if !patterns.is_empty() {
        validate_on_pod_conditions(patterns, &path.child("onPodConditions"), minor, out);
    }
    if rule.on_exit_codes.is_some() && !patterns.is_empty() {
        out.push(Diagnostic::invalid_omit_value(
            path,
            "specifying both OnExitCodes and OnPodConditions is not supported",
        ));
    }
    if rule.on_exit_codes.is_none() && patterns.is_empty() {
        out.push(Diagnostic::invalid_omit_value(
            path,
            "specifying one of OnExitCodes and OnPodConditions is required",
        ));
    }
}

fn validate_on_exit_codes(
    req: &PodFailurePolicyOnExitCodesRequirement,
    path: &FieldPath,
    names: &BTreeSet<&str>,
    out: &mut Findings,
) {
    let op_path = path.child("operator");
    if req.operator.is_empty() {
        out.push(Diagnostic::required(
            &op_path,
            format!("valid values: {}", quoted_list(&ON_EXIT_CODES_OPERATORS)),
        ));
    } else if !ON_EXIT_CODES_OPERATORS.contains(&req.operator.as_str()) {
        out.push(Diagnostic::not_supported(
            &op_path,
            req.operator.as_str(),
            &ON_EXIT_CODES_OPERATORS,
        ));
    }
    if let Some(name) = req.container_name.as_deref()
        && !names.contains(name)
    {
        out.push(Diagnostic::invalid(
            &path.child("containerName"),
            name,
            "must be one of the container or initContainer names in the pod template",
        ));
    }
    let values_path = path.child("values");
    if req.values.is_empty() {
        out.push(Diagnostic::invalid(
            &values_path,
            serde_json::json!([]),
            "at least one value is required",
        ));
    } else if req.values.len() > MAX_ON_EXIT_CODES_VALUES {
        out.push(Diagnostic::too_many(
            &values_path,
            req.values.len(),
            MAX_ON_EXIT_CODES_VALUES,
        ));
    }
    let mut ordered = true;
    let mut seen = BTreeSet::new();
    let mut prev: Option<i32> = None;
    for (j, &v) in req.values.iter().enumerate() {
        let vp = values_path.index(j);
        if req.operator == "In" && v == 0 {
            let mut d = Diagnostic::invalid(&vp, v, "must not be 0 for the In operator");
            // The obvious repair drops 0 (a succeeded container is never a failure); a list of
            // nothing but 0 has none (an empty list is an error of its own).
            let rest: Vec<i32> = req.values.iter().copied().filter(|&x| x != 0).collect();
            if !rest.is_empty() {
                d = d.with_fix(
                    "remove 0 from the In values (exit code 0 is a success, never a failure)",
                    vec![(values_path.as_str().to_owned(), Value::from(rest))],
                );
            }
            out.push(d);
        }
        if !seen.insert(v) {
            out.push(Diagnostic::duplicate(&vp, v));
        }
        if prev.is_some_and(|p| p > v) {
            ordered = false;
        }
        prev = Some(v);
    }
    if !ordered {
        out.push(Diagnostic::invalid(
            &values_path,
            serde_json::json!(req.values),
            "must be ordered",
        ));
    }
}

fn validate_on_pod_conditions(
    patterns: &[PodFailurePolicyOnPodConditionsPattern],
    path: &FieldPath,
    minor: u32,
    out: &mut Findings,
) {
    if patterns.len() > MAX_ON_POD_CONDITIONS_PATTERNS {
        out.push(Diagnostic::too_many(
            path,
            patterns.len(),
            MAX_ON_POD_CONDITIONS_PATTERNS,
        ));
    }
    for (j, p) in patterns.iter().enumerate() {
        let pp = path.index(j);
        let type_path = pp.child("type");
        // ValidateQualifiedName: IsQualifiedName, content.IsLabelKey's wording from 1.35.
        for msg in qualified_name(&p.type_, minor) {
            out.push(Diagnostic::invalid(&type_path, p.type_.as_str(), msg));
        }
        let status_path = pp.child("status");
        if p.status.is_empty() {
            out.push(Diagnostic::required(
                &status_path,
                format!("valid values: {}", quoted_list(&CONDITION_STATUSES)),
            ));
        } else if !CONDITION_STATUSES.contains(&p.status.as_str()) {
            out.push(Diagnostic::not_supported(
                &status_path,
                p.status.as_str(),
                &CONDITION_STATUSES,
            ));
        }
    }
}
