#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
use super::status_transition::state_transition;
use super::*;
use crate::api::{Container, ContainerRestartRule, ContainerStatus, Pod, PodSpec};
use crate::diag::FieldPath;
use crate::features::FeatureGates;
use std::collections::BTreeMap;
use crate::api::{
    ContainerRestartRuleOnExitCodes, ContainerState, ContainerStateRunning,
    ContainerStateTerminated,
};
use proptest::prelude::*;

fn rule(action: &str, op: &str, values: &[i32]) -> ContainerRestartRule {
    ContainerRestartRule {
        action: action.to_owned(),
        exit_codes: Some(ContainerRestartRuleOnExitCodes {
            operator: op.to_owned(),
            values: values.to_vec(),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn ctr(name: &str, policy: Option<&str>, rules: Vec<ContainerRestartRule>) -> Container {
    Container {
        name: name.to_owned(),
        restart_policy: policy.map(str::to_owned),
        restart_policy_rules: if rules.is_empty() { None } else { Some(rules) },
        ..Default::default()
    }
}

fn spec(policy: Option<&str>, c: Container) -> PodSpec {
    PodSpec {
        restart_policy: policy.map(str::to_owned),
        containers: vec![c],
        ..Default::default()
    }
}

fn gates(rules: bool, all: bool) -> FeatureGates {
    let mut g = FeatureGates::default();
    g.set(GATE_RULES, rules);
    g.set(GATE_RESTART_ALL, all);
    g
}

/// The yes/no short cut (rules searched only when the policy says no) answers as the
/// explained form, over every policy pair, rule order and exit code that tells them apart.
#[test]
fn bool_matcher_agrees_with_the_explained_form() {
    let rule_sets = [
        vec![],
        vec![rule("Restart", "In", &[0, 42])],
        vec![
            rule("RestartAllContainers", "In", &[42]),
            rule("Restart", "In", &[42]),
        ],
        vec![
            rule("Restart", "NotIn", &[1]),
            rule("Restart", "Bogus", &[0]),
        ],
    ];
    let policies = [
        None,
        Some("Always"),
        Some("OnFailure"),
        Some("Never"),
        Some("Bogus"),
    ];
    let mut checked = 0;
    for rules in &rule_sets {
        for cp in policies {
            for pp in policies {
                let c = ctr("c", cp, rules.clone());
                let s = spec(pp, c.clone());
                for code in [0, 1, 2, 42, -1] {
                    assert_eq!(
                        container_should_restart(&c, &s, code),
                        container_should_restart_explained(&c, &s, code).0,
                        "{cp:?} {pp:?} {rules:?} {code}"
                    );
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, 4 * 5 * 5 * 5);
}

#[test]
fn pod_policy_branches() {
    let c = ctr("c", None, vec![]);
    assert!(container_should_restart(
        &c,
        &spec(Some("Always"), c.clone()),
        0
    ));
    assert!(container_should_restart(&c, &spec(None, c.clone()), 0));
    assert!(container_should_restart(
        &c,
        &spec(Some("Bogus"), c.clone()),
        0
    ));
    assert!(!container_should_restart(
        &c,
        &spec(Some("OnFailure"), c.clone()),
        0
    ));
    assert!(container_should_restart(
        &c,
        &spec(Some("OnFailure"), c.clone()),
        2
    ));
    assert!(!container_should_restart(
        &c,
        &spec(Some("Never"), c.clone()),
        2
    ));
}

#[test]
fn container_policy_branches() {
    let s = spec(Some("Never"), ctr("x", None, vec![]));
    assert!(container_should_restart(
        &ctr("c", Some("Always"), vec![]),
        &s,
        0
    ));
    assert!(!container_should_restart(
        &ctr("c", Some("OnFailure"), vec![]),
        &s,
        0
    ));
    assert!(container_should_restart(
        &ctr("c", Some("OnFailure"), vec![]),
        &s,
        1
    ));
    let s2 = spec(Some("Always"), ctr("x", None, vec![]));
    assert!(!container_should_restart(
        &ctr("c", Some("Never"), vec![]),
        &s2,
        1
    ));
    // Unknown container policy falls back to the pod's.
    assert!(container_should_restart(
        &ctr("c", Some("Sometimes"), vec![]),
        &s2,
        1
    ));
    assert!(!container_should_restart(
        &ctr("c", Some("Sometimes"), vec![]),
        &s,
        1
    ));
}

#[test]
fn rules_branches() {
    let s = spec(Some("Never"), ctr("x", None, vec![]));
    let c = ctr("c", Some("Never"), vec![rule("Restart", "In", &[42])]);
    assert!(container_should_restart(&c, &s, 42));
    assert!(!container_should_restart(&c, &s, 1));
    // Rules are ignored without a container restartPolicy.
    let c2 = ctr("c", None, vec![rule("Restart", "In", &[42])]);
    assert!(!container_should_restart(&c2, &s, 42));
    // A matched RestartAllContainers falls through to the container policy.
    let c3 = ctr(
        "c",
        Some("Never"),
        vec![
            rule("RestartAllContainers", "In", &[42]),
            rule("Restart", "In", &[42]),
        ],
    );
    assert!(!container_should_restart(&c3, &s, 42));
    // Unknown operator and missing exitCodes are skipped.
    let mut no_codes = rule("Restart", "In", &[]);
    no_codes.exit_codes = None;
    let c4 = ctr(
        "c",
        Some("Never"),
        vec![
            no_codes,
            rule("Restart", "Maybe", &[7]),
            rule("Restart", "NotIn", &[0]),
        ],
    );
    assert_eq!(find_matching_rule(&c4, 7).map(|(i, _)| i), Some(2));
    assert_eq!(find_matching_rule(&c4, 0).map(|(i, _)| i), None);
}

#[test]
fn restartable_branches() {
    let s = spec(Some("Never"), ctr("x", None, vec![]));
    assert!(is_container_restartable(
        &s,
        &ctr("c", Some("Never"), vec![rule("Restart", "In", &[])])
    ));
    assert!(!is_container_restartable(
        &s,
        &ctr(
            "c",
            Some("Never"),
            vec![rule("RestartAllContainers", "In", &[1])]
        )
    ));
    assert!(is_container_restartable(
        &s,
        &ctr("c", Some("OnFailure"), vec![])
    ));
    assert!(!is_container_restartable(&s, &ctr("c", None, vec![])));
    assert!(is_container_restartable(
        &spec(None, ctr("x", None, vec![])),
        &ctr("c", None, vec![])
    ));
}

fn pod(spec: PodSpec) -> Pod {
    Pod {
        spec,
        ..Default::default()
    }
}

fn run_restart(p: &Pod, name: &str, code: i32, g: (bool, bool)) -> ContainerRestartOutput {
    let mut fg = BTreeMap::new();
    fg.insert(GATE_RULES.to_owned(), g.0);
    fg.insert(GATE_RESTART_ALL.to_owned(), g.1);
    container_restart(ContainerRestartInput {
        pod: p.clone(),
        container: name.to_owned(),
        exit_code: code,
        kubernetes_version: None,
        feature_gates: Some(fg),
        proposals: vec![],
        restart_count: None,
        reason: None,
    })
    .unwrap()
}

#[test]
fn op_reports_rule_and_restart_all() {
    let c = ctr(
        "c",
        Some("Never"),
        vec![rule("RestartAllContainers", "In", &[42])],
    );
    let p = pod(spec(Some("Never"), c));
    // Upstream v1.37.2 ContainerShouldRestart: a matched RestartAllContainers rule restarts
    // the container when the gate is on; with it off, restartPolicy Never decides.
    let on = run_restart(&p, "c", 42, (true, true));
    assert_eq!(on.action, "Restart");
    assert!(on.restart_all_containers);
    assert_eq!(on.rule_index, Some(0));
    let off = run_restart(&p, "c", 42, (true, false));
    assert_eq!(off.action, "DoNotRestart");
    assert!(!off.restart_all_containers);
    assert!(off.reason.contains("has no effect"));
}

#[test]
fn op_legacy_without_gate() {
    let c = ctr("c", Some("Always"), vec![]);
    let p = pod(spec(Some("Never"), c));
    let out = run_restart(&p, "c", 0, (false, false));
    assert_eq!(out.action, "DoNotRestart");
    assert_eq!(out.decided_by, DecidedBy::Legacy);
    let mut s = spec(Some("Never"), ctr("main", None, vec![]));
    s.init_containers.push(ctr("side", Some("Always"), vec![]));
    let out = run_restart(&pod(s), "side", 0, (false, false));
    assert_eq!(out.action, "Restart");
    assert_eq!(out.container_kind, ContainerKind::Sidecar);
}

#[test]
fn op_ephemeral_and_unknown() {
    let mut s = spec(Some("Always"), ctr("main", None, vec![]));
    s.ephemeral_containers.push(ctr("dbg", None, vec![]));
    let out = run_restart(&pod(s.clone()), "dbg", 1, (true, false));
    assert_eq!(out.action, "DoNotRestart");
    assert_eq!(out.decided_by, DecidedBy::Ephemeral);
    let err = container_restart(ContainerRestartInput {
        pod: pod(s),
        container: "nope".to_owned(),
        exit_code: 1,
        kubernetes_version: None,
        feature_gates: None,
        proposals: vec![],
        restart_count: None,
        reason: None,
    })
    .unwrap_err();
    assert_eq!(err.field, "input.container");
    assert!(err.message.contains("\"main\""));
}

#[test]
fn reason_names_the_rule() {
    let c = ctr("c", Some("Never"), vec![rule("Restart", "In", &[42])]);
    let out = run_restart(&pod(spec(Some("Never"), c)), "c", 42, (true, false));
    assert_eq!(
        out.reason,
        "rule 0 (Restart, In [42]) matched exit code 42 → restart"
    );
}

fn status(name: &str, terminated: Option<i32>) -> ContainerStatus {
    let state = match terminated {
        Some(code) => ContainerState {
            terminated: Some(ContainerStateTerminated {
                exit_code: code,
                ..Default::default()
            }),
            ..Default::default()
        },
        None => ContainerState {
            running: Some(ContainerStateRunning::default()),
            ..Default::default()
        },
    };
    ContainerStatus {
        name: name.to_owned(),
        state: Some(state),
        ..Default::default()
    }
}

fn transition(s: PodSpec, code: i32, g: (bool, bool)) -> StatusTransitionOutput {
    let mut fg = BTreeMap::new();
    fg.insert(GATE_RULES.to_owned(), g.0);
    fg.insert(GATE_RESTART_ALL.to_owned(), g.1);
    status_transition(StatusTransitionInput {
        pod: pod(s),
        old_container_statuses: vec![status("c", Some(code))],
        new_container_statuses: vec![status("c", None)],
        old_init_container_statuses: vec![],
        new_init_container_statuses: vec![],
        kubernetes_version: None,
        feature_gates: Some(fg),
    })
    .unwrap()
}

#[test]
fn transition_branches() {
    // Legacy path: pod Always allows, OnFailure allows a failure, Never forbids.
    assert!(
        transition(
            spec(Some("Always"), ctr("c", None, vec![])),
            0,
            (false, false)
        )
        .valid
    );
    assert!(
        transition(
            spec(Some("OnFailure"), ctr("c", None, vec![])),
            1,
            (false, false)
        )
        .valid
    );
    let bad = transition(
        spec(Some("Never"), ctr("c", None, vec![])),
        1,
        (false, false),
    );
    assert!(!bad.valid);
    assert_eq!(bad.errors[0].field, "status.containerStatuses[0].state");
    // Rules path: a Restart rule allows; RestartAllContainers anywhere allows everything.
    assert!(
        transition(
            spec(
                Some("Never"),
                ctr("c", Some("Never"), vec![rule("Restart", "In", &[3])])
            ),
            3,
            (true, false)
        )
        .valid
    );
    assert!(
        !transition(
            spec(
                Some("Never"),
                ctr("c", Some("Never"), vec![rule("Restart", "In", &[3])])
            ),
            4,
            (true, false)
        )
        .valid
    );
    let all = spec(
        Some("Never"),
        ctr(
            "c",
            Some("Never"),
            vec![rule("RestartAllContainers", "In", &[9])],
        ),
    );
    assert!(transition(all.clone(), 4, (true, true)).valid);
    // A spec that already uses RestartAllContainers enables the option even with the gate off.
    assert!(transition(all, 4, (true, false)).valid);
    // A spec using container restartPolicy takes the rules path even with the gate off.
    assert!(
        !transition(
            spec(Some("Always"), ctr("c", Some("Never"), vec![])),
            0,
            (false, false)
        )
        .valid
    );
}

#[test]
fn init_transition_skips_sidecars_in_legacy_path() {
    let mut s = spec(Some("Never"), ctr("main", None, vec![]));
    s.init_containers.push(ctr("side", Some("Always"), vec![]));
    let errs = state_transition(
        &[status("side", None)],
        &[status("side", Some(0))],
        &FieldPath::new("status").child("initContainerStatuses"),
        &s,
        false,
        false,
        true,
    );
    assert!(errs.is_empty());
    s.init_containers.push(ctr("init", None, vec![]));
    let errs = state_transition(
        &[status("init", None)],
        &[status("init", Some(0))],
        &FieldPath::new("status").child("initContainerStatuses"),
        &s,
        false,
        false,
        true,
    );
    assert_eq!(errs.len(), 1);
}

#[test]
fn compiled_matches_reference_on_examples() {
    let c = ctr(
        "c",
        Some("OnFailure"),
        vec![
            rule("Restart", "In", &[0, 300, -5]),
            rule("RestartAllContainers", "NotIn", &[1, 2]),
        ],
    );
    let s = spec(Some("Never"), c.clone());
    let p = CompiledContainerPolicy::new(&c, &s, &gates(true, true));
    assert_eq!(p.decide(0), KubeletDecision::Restart);
    assert_eq!(p.decide(300), KubeletDecision::Restart);
    assert_eq!(p.decide(-5), KubeletDecision::Restart);
    assert_eq!(p.decide(1), KubeletDecision::Restart); // no rule matches: OnFailure
    assert_eq!(p.decide(3), KubeletDecision::RestartAllContainers);
    let p2 = CompiledContainerPolicy::new(&c, &s, &gates(true, false));
    assert_eq!(p2.decide(3), KubeletDecision::Restart); // falls through to OnFailure
    let p3 = CompiledContainerPolicy::new(&c, &s, &gates(false, false));
    assert_eq!(p3.decide(0), KubeletDecision::DoNotRestart); // legacy: pod Never
}

/// Naive reference: the first rule (in order) that matches decides.
fn naive(rules: &[(bool, bool, Vec<i32>)], policy: &str, code: i32) -> bool {
    for (restart, op_in, values) in rules {
        let listed = values.contains(&code);
        if listed == *op_in {
            if *restart {
                return true;
            }
            break;
        }
    }
    match policy {
        "Always" => true,
        "OnFailure" => code != 0,
        _ => false,
    }
}

proptest! {
    #[test]
    fn first_match_semantics(
        rules in prop::collection::vec((any::<bool>(), any::<bool>(), prop::collection::vec(-3i32..300, 0..6)), 0..6),
        policy in prop::sample::select(vec!["Always", "OnFailure", "Never"]),
        code in -3i32..300,
    ) {
        let api_rules: Vec<ContainerRestartRule> = rules
            .iter()
            .map(|(restart, op_in, v)| rule(if *restart { "Restart" } else { "RestartAllContainers" }, if *op_in { "In" } else { "NotIn" }, v))
            .collect();
        let c = ctr("c", Some(policy), api_rules);
        let s = spec(Some("Never"), c.clone());
        let expected = naive(&rules, policy, code);
        prop_assert_eq!(container_should_restart(&c, &s, code), expected);
        // The compiled table agrees (RestartAllContainers off: same as ContainerShouldRestart).
        let p = CompiledContainerPolicy::new(&c, &s, &gates(true, false));
        prop_assert_eq!(p.decide(code) == KubeletDecision::Restart, expected);
        // With the gate on, a first-matching RestartAllContainers rule is reported as such.
        let first = rules.iter().find(|(_, op_in, v)| v.contains(&code) == *op_in);
        let p2 = CompiledContainerPolicy::new(&c, &s, &gates(true, true));
        match first {
            Some((false, _, _)) => prop_assert_eq!(p2.decide(code), KubeletDecision::RestartAllContainers),
            _ => prop_assert_eq!(p2.decide(code) == KubeletDecision::Restart, expected),
        }
    }
}
