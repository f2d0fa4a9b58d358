//! The upstream functions on the API types (pkg/api/v1/pod/util.go): the rule matcher,
//! ContainerShouldRestart with what decided it, IsContainerRestartable, AllContainersCouldRestart,
//! and the helpers the ops share (finding a container, the stored spec, the words of a rule).

use crate::api::core::{ACTION_RESTART, ACTION_RESTART_ALL, OP_IN, OP_NOT_IN, is_sidecar};
use crate::api::{Container, ContainerRestartRule, Pod, PodSpec};
use crate::diag::Diagnostic;
use crate::features::FeatureGates;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Whether `rule` matches `exit_code`: `None` when the matcher skips the rule (no `exitCodes`, or
/// an operator other than In / NotIn), else whether it matches.
pub fn rule_matches(rule: &ContainerRestartRule, exit_code: i32) -> Option<bool> {
    let ec = rule.exit_codes.as_ref()?;
    let listed = ec.values.contains(&exit_code);
    match ec.operator.as_str() {
        OP_IN => Some(listed),
        OP_NOT_IN => Some(!listed),
        _ => None,
    }
}

/// The first rule of `c` that matches `exit_code` (upstream's findMatchingContainerRestartRule),
/// with its index.
pub fn find_matching_rule(c: &Container, exit_code: i32) -> Option<(usize, &ContainerRestartRule)> {
    c.rules()
        .iter()
        .enumerate()
        .find(|(_, r)| rule_matches(r, exit_code) == Some(true))
}

/// Which setting decided a ContainerShouldRestart answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum DecidedBy {
    /// A `Restart` rule matched.
    Rule,
    /// The container's own restartPolicy.
    ContainerRestartPolicy,
    /// The Pod's restartPolicy (the container has none, or an unknown one).
    PodRestartPolicy,
    /// The kubelet without `ContainerRestartRules`: the Pod's restartPolicy (sidecars always restart).
    Legacy,
    /// Ephemeral containers are never restarted.
    Ephemeral,
    /// An init container (not a sidecar) that exited 0 has completed: the kubelet's sync starts
    /// the next one and never runs it again, whatever ContainerShouldRestart says
    /// (`init_container_completed`). Given by `evaluate` and `explain`, not by `containerRestart`.
    InitContainerCompleted,
}

/// Whether an exit of a container of this kind completes it, in the kubelet's sync: an init
/// container that is not a sidecar has completed when it exited 0 and was not OOM-killed
/// (isInitContainerFailed, pkg/kubelet/kuberuntime/helpers.go); computeInitContainerActions then
/// starts the next init container, or the Pod's containers after the last one, and never restarts
/// it (kuberuntime_container.go, v1.37.2 lines 1205-1230; the same at v1.31.13). The restart
/// policies decide only a failed init container.
pub fn init_container_completed(kind: ContainerKind, exit_code: i32, reason: Option<&str>) -> bool {
    kind == ContainerKind::InitContainer && exit_code == 0 && reason != Some("OOMKilled")
}

/// The words `evaluate` and `explain` give for a completed init container.
pub fn init_container_completed_reason(name: &str) -> String {
    format!(
        "init container {name:?} exited 0: it has completed, so the kubelet does not run it again; it starts the next init container, or the Pod's containers after the last one"
    )
}

/// The pod-level fallback: Always (and anything unknown, including unset) restarts; OnFailure
/// restarts a failed container; Never does not.
pub(super) fn pod_policy_restarts(spec: &PodSpec, exit_code: i32) -> bool {
    match spec.restart_policy.as_deref() {
        Some("OnFailure") => exit_code != 0,
        Some("Never") => false,
        _ => true,
    }
}

/// ContainerShouldRestart, with the setting that decided and the matched rule.
pub fn container_should_restart_explained(
    c: &Container,
    spec: &PodSpec,
    exit_code: i32,
) -> (bool, DecidedBy, Option<usize>) {
    if let Some(policy) = c.restart_policy.as_deref() {
        let matched = find_matching_rule(c, exit_code);
        if let Some((i, r)) = matched
            && r.action == ACTION_RESTART
        {
            return (true, DecidedBy::Rule, Some(i));
        }
        let idx = matched.map(|(i, _)| i);
        match policy {
            "Always" => return (true, DecidedBy::ContainerRestartPolicy, idx),
            "OnFailure" => return (exit_code != 0, DecidedBy::ContainerRestartPolicy, idx),
            "Never" => return (false, DecidedBy::ContainerRestartPolicy, idx),
            _ => {
                return (
                    pod_policy_restarts(spec, exit_code),
                    DecidedBy::PodRestartPolicy,
                    idx,
                );
            }
        }
    }
    (
        pod_policy_restarts(spec, exit_code),
        DecidedBy::PodRestartPolicy,
        None,
    )
}

/// ContainerShouldRestart (pkg/api/v1/pod/util.go), the yes/no alone. The explained form answers
/// "the first matching rule is a Restart rule, or else the policy restarts"; as a yes/no that is
/// "policy restarts OR first matching rule is Restart", so the rule search (the costly part:
/// each rule's operator, values and action) only runs when the policy alone says no.
pub fn container_should_restart(c: &Container, spec: &PodSpec, exit_code: i32) -> bool {
    let Some(policy) = c.restart_policy.as_deref() else {
        return pod_policy_restarts(spec, exit_code);
    };
    let by_policy = match policy {
        "Always" => true,
        "OnFailure" => exit_code != 0,
        "Never" => false,
        _ => pod_policy_restarts(spec, exit_code),
    };
    by_policy || find_matching_rule(c, exit_code).is_some_and(|(_, r)| r.action == ACTION_RESTART)
}

/// IsContainerRestartable (pkg/api/v1/pod/util.go): can this container ever be restarted.
pub fn is_container_restartable(spec: &PodSpec, c: &Container) -> bool {
    match c.restart_policy.as_deref() {
        Some(policy) => c.rules().iter().any(|r| r.action == ACTION_RESTART) || policy != "Never",
        None => spec.restart_policy.as_deref() != Some("Never"),
    }
}

/// AllContainersCouldRestart: some init or regular container has a RestartAllContainers rule.
pub fn all_containers_could_restart(spec: &PodSpec) -> bool {
    spec.init_containers
        .iter()
        .chain(spec.containers.iter())
        .any(|c| c.rules().iter().any(|r| r.action == ACTION_RESTART_ALL))
}

/// containerRestartRulesInUse (pkg/api/pod/util.go): the spec already uses KEP-5307 fields.
pub fn container_restart_rules_in_use(spec: &PodSpec) -> bool {
    spec.init_containers
        .iter()
        .any(|c| (c.restart_policy.is_some() && !is_sidecar(c)) || !c.rules().is_empty())
        || spec.containers.iter().any(|c| c.restart_policy.is_some())
}

/// restartAllContainersActionInUse (pkg/api/pod/util.go): the spec already uses KEP-5532 (a
/// RestartAllContainers rule, or rules on a sidecar).
pub fn restart_all_containers_in_use(spec: &PodSpec) -> bool {
    let has_all = |c: &Container| c.rules().iter().any(|r| r.action == ACTION_RESTART_ALL);
    spec.containers.iter().any(has_all)
        || spec
            .init_containers
            .iter()
            .any(|c| has_all(c) || (is_sidecar(c) && !c.rules().is_empty()))
}

/// Where a named container sits in the Pod.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ContainerKind {
    Container,
    InitContainer,
    Sidecar,
    EphemeralContainer,
}

/// Finds a container by name: regular containers first, then init, then ephemeral containers.
pub fn find_container<'a>(spec: &'a PodSpec, name: &str) -> Option<(&'a Container, ContainerKind)> {
    if let Some(c) = spec.containers.iter().find(|c| c.name == name) {
        return Some((c, ContainerKind::Container));
    }
    if let Some(c) = spec.init_containers.iter().find(|c| c.name == name) {
        let kind = if is_sidecar(c) {
            ContainerKind::Sidecar
        } else {
            ContainerKind::InitContainer
        };
        return Some((c, kind));
    }
    spec.ephemeral_containers
        .iter()
        .find(|c| c.name == name)
        .map(|c| (c, ContainerKind::EphemeralContainer))
}

pub(super) fn unknown_container(spec: &PodSpec, name: &str) -> Diagnostic {
    let known: Vec<String> = spec
        .containers
        .iter()
        .chain(spec.init_containers.iter())
        .chain(spec.ephemeral_containers.iter())
        .map(|c| format!("{:?}", c.name))
        .collect();
    let list = if known.is_empty() {
        "the Pod has no containers".to_owned()
    } else {
        format!("known containers: {}", known.join(", "))
    };
    Diagnostic::request(
        "unknown-container",
        "input.container",
        format!("input.container: no container named {name:?} in the Pod; {list}"),
    )
}

/// Gates for an eval request; the Pod's spec is treated as stored (defaulted).
pub(super) fn resolve(
    version: Option<&str>,
    gates: Option<&BTreeMap<String, bool>>,
) -> Result<FeatureGates, Diagnostic> {
    FeatureGates::resolve(version, gates).map(|(g, _)| g)
}

pub(super) fn stored_spec(pod: &Pod) -> PodSpec {
    let mut spec = pod.spec.clone();
    crate::validate::pod::default_pod_spec(&mut spec);
    spec
}

pub(super) fn describe_rule(i: usize, r: &ContainerRestartRule) -> String {
    match &r.exit_codes {
        Some(ec) => {
            let vals: Vec<String> = ec.values.iter().map(|v| v.to_string()).collect();
            format!(
                "rule {i} ({}, {} [{}])",
                r.action,
                ec.operator,
                vals.join(", ")
            )
        }
        None => format!("rule {i} ({}, no exitCodes)", r.action),
    }
}

pub(super) fn policy_words(p: Option<&str>) -> String {
    match p {
        Some(s) => format!("{s:?}"),
        None => "unset".to_owned(),
    }
}
