//! The kubelet's per-container restart decision (KEP-5307 rules, KEP-5532 RestartAllContainers,
//! pod restartPolicy), and the status-update check the API server makes with the same logic.
//!
//! Upstream: `pkg/api/v1/pod/util.go` (ContainerShouldRestart, IsContainerRestartable, the
//! unexported rule matcher, AllContainersCouldRestart) and `pkg/apis/core/validation/validation.go`
//! (ValidateContainerStateTransition, ValidateInitContainerStateTransition). The kubelet only takes
//! the rule-aware path with the `ContainerRestartRules` gate on; without it the legacy rule
//! applies (the pod's restartPolicy, sidecars always restart).

use crate::api::{Container, ContainerRestartRule, ContainerStatus, Pod, PodSpec};
use crate::diag::{Diagnostic, FieldPath};
use crate::features::FeatureGates;
use crate::versions::Change;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

// The vocabulary these rules share with validation, at its old place.
pub use crate::api::core::{ACTION_RESTART, ACTION_RESTART_ALL, OP_IN, OP_NOT_IN, is_sidecar};
pub use crate::gate_names::{GATE_RESTART_ALL, GATE_RULES};

// ---------------------------------------------------------------------------------------------
// The upstream functions, on the API types.
// ---------------------------------------------------------------------------------------------

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
}

/// The pod-level fallback: Always (and anything unknown, including unset) restarts; OnFailure
/// restarts a failed container; Never does not.
fn pod_policy_restarts(spec: &PodSpec, exit_code: i32) -> bool {
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

fn unknown_container(spec: &PodSpec, name: &str) -> Diagnostic {
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
fn resolve(
    version: Option<&str>,
    gates: Option<&BTreeMap<String, bool>>,
) -> Result<FeatureGates, Diagnostic> {
    FeatureGates::resolve(version, gates).map(|(g, _)| g)
}

fn stored_spec(pod: &Pod) -> PodSpec {
    let mut spec = pod.spec.clone();
    crate::validate::pod::default_pod_spec(&mut spec);
    spec
}

fn describe_rule(i: usize, r: &ContainerRestartRule) -> String {
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

fn policy_words(p: Option<&str>) -> String {
    match p {
        Some(s) => format!("{s:?}"),
        None => "unset".to_owned(),
    }
}

// ---------------------------------------------------------------------------------------------
// The fast path: a container's decision compiled once.
// ---------------------------------------------------------------------------------------------

/// What the kubelet does when a container exits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[repr(u8)]
pub enum KubeletDecision {
    DoNotRestart = 0,
    Restart = 1,
    /// A matched RestartAllContainers rule (gate on): the whole Pod restarts in place.
    RestartAllContainers = 2,
}

impl From<KubeletDecision> for crate::action::Action {
    fn from(d: KubeletDecision) -> Self {
        match d {
            KubeletDecision::DoNotRestart => crate::action::Action::DoNotRestart,
            KubeletDecision::Restart => crate::action::Action::Restart,
            KubeletDecision::RestartAllContainers => crate::prepared::Action::RestartAllContainers,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RuleEffect {
    Restart,
    RestartAll,
    /// Matched, but the action changes nothing for this container (falls through).
    FallThrough,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct CompiledRule {
    op_in: bool,
    /// Membership of 0..=255 as a bitset.
    small: [u64; 4],
    /// Values outside 0..=255, sorted and deduplicated.
    others: Vec<i32>,
    effect: RuleEffect,
}

impl CompiledRule {
    fn listed(&self, code: i32) -> bool {
        match u8::try_from(code) {
            Ok(b) => self
                .small
                .get(usize::from(b >> 6))
                .is_some_and(|w| (w >> (b & 63)) & 1 == 1),
            Err(_) => self.others.binary_search(&code).is_ok(),
        }
    }
}

/// One container's restart decision, compiled for repeated use: a 256-entry table for exit codes
/// 0..=255 and the rules for any other code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompiledContainerPolicy {
    table: [KubeletDecision; 256],
    rules: Vec<CompiledRule>,
    fallback_zero: KubeletDecision,
    fallback_nonzero: KubeletDecision,
}

fn decision(b: bool) -> KubeletDecision {
    if b {
        KubeletDecision::Restart
    } else {
        KubeletDecision::DoNotRestart
    }
}

impl CompiledContainerPolicy {
    /// Compiles `c` (a regular or init container of `spec`) under `gates`.
    pub fn new(c: &Container, spec: &PodSpec, gates: &FeatureGates) -> Self {
        let rules_on = gates.enabled(GATE_RULES);
        let all_on = gates.enabled(GATE_RESTART_ALL);
        let mut rules = Vec::new();
        let (fallback_zero, fallback_nonzero);
        let legacy_sidecar = !rules_on && is_sidecar(c);
        if rules_on && c.restart_policy.is_some() {
            for r in c.rules() {
                let Some(ec) = &r.exit_codes else { continue };
                let op_in = match ec.operator.as_str() {
                    OP_IN => true,
                    OP_NOT_IN => false,
                    _ => continue,
                };
                let mut small = [0u64; 4];
                let mut others = Vec::new();
                for v in &ec.values {
                    match u8::try_from(*v) {
                        Ok(b) => {
                            if let Some(w) = small.get_mut(usize::from(b >> 6)) {
                                *w |= 1u64 << (b & 63);
                            }
                        }
                        Err(_) => others.push(*v),
                    }
                }
                others.sort_unstable();
                others.dedup();
                let effect = match r.action.as_str() {
                    ACTION_RESTART => RuleEffect::Restart,
                    ACTION_RESTART_ALL if all_on => RuleEffect::RestartAll,
                    _ => RuleEffect::FallThrough,
                };
                rules.push(CompiledRule {
                    op_in,
                    small,
                    others,
                    effect,
                });
            }
        }
        if legacy_sidecar {
            fallback_zero = KubeletDecision::Restart;
            fallback_nonzero = KubeletDecision::Restart;
        } else if rules_on {
            let (z, _, _) = container_should_restart_explained(&strip_rules(c), spec, 0);
            let (nz, _, _) = container_should_restart_explained(&strip_rules(c), spec, 1);
            fallback_zero = decision(z);
            fallback_nonzero = decision(nz);
        } else {
            fallback_zero = decision(pod_policy_restarts(spec, 0));
            fallback_nonzero = decision(pod_policy_restarts(spec, 1));
        }
        let mut p = CompiledContainerPolicy {
            table: [KubeletDecision::DoNotRestart; 256],
            rules,
            fallback_zero,
            fallback_nonzero,
        };
        let mut table = [KubeletDecision::DoNotRestart; 256];
        for (code, slot) in (0i32..).zip(table.iter_mut()) {
            *slot = p.decide_slow(code);
        }
        p.table = table;
        p
    }

    fn decide_slow(&self, exit_code: i32) -> KubeletDecision {
        for r in &self.rules {
            if r.listed(exit_code) == r.op_in {
                match r.effect {
                    RuleEffect::Restart => return KubeletDecision::Restart,
                    RuleEffect::RestartAll => return KubeletDecision::RestartAllContainers,
                    RuleEffect::FallThrough => break,
                }
            }
        }
        if exit_code == 0 {
            self.fallback_zero
        } else {
            self.fallback_nonzero
        }
    }

    /// The decision for an exit code.
    #[inline]
    pub fn decide(&self, exit_code: i32) -> KubeletDecision {
        match u8::try_from(exit_code) {
            Ok(b) => self
                .table
                .get(usize::from(b))
                .copied()
                .unwrap_or(self.fallback_nonzero),
            Err(_) => self.decide_slow(exit_code),
        }
    }
}

fn strip_rules(c: &Container) -> Container {
    Container {
        restart_policy: c.restart_policy.clone(),
        ..Container::default()
    }
}

/// Every regular container, then every init container of `spec`, compiled (the order
/// `PreparedPolicy::container_names` documents).
pub fn compile_pod(spec: &PodSpec, gates: &FeatureGates) -> Vec<(String, CompiledContainerPolicy)> {
    spec.containers
        .iter()
        .chain(spec.init_containers.iter())
        .map(|c| (c.name.clone(), CompiledContainerPolicy::new(c, spec, gates)))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Ops.
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContainerRestartInput {
    pub pod: Pod,
    pub container: String,
    pub exit_code: i32,
    #[serde(default)]
    pub kubernetes_version: Option<String>,
    #[serde(default)]
    pub feature_gates: Option<BTreeMap<String, bool>>,
    /// Proposals to decide under (docs/proposals.md); the result lists them.
    #[serde(default)]
    pub proposals: Vec<crate::proposals::Proposal>,
    /// Proposal RestartRulesFuture only: the container's restartCount before this exit (for
    /// `restartTimes` conditions; default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart_count: Option<i64>,
    /// Proposal RestartRulesFuture only: the terminated reason (`OOMKilled` matches `oomKill`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContainerRestartOutput {
    /// `Restart` or `DoNotRestart`: the kubelet's decision for this container alone
    /// (ContainerShouldRestart).
    pub action: String,
    /// A matched RestartAllContainers rule restarts every container of the Pod in place (gate on).
    pub restart_all_containers: bool,
    /// The first matching rule, if any.
    pub rule_index: Option<usize>,
    pub decided_by: DecidedBy,
    pub container_kind: ContainerKind,
    pub reason: String,
    /// Proposal RestartRulesFuture: the matched rule's `Complete`, `TerminatePod` or `RestartPod`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposed_action: Option<String>,
    /// The proposals this result was made under (absent: upstream semantics only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub proposals: Vec<crate::proposals::Proposal>,
}

pub fn container_restart(
    mut i: ContainerRestartInput,
) -> Result<ContainerRestartOutput, Diagnostic> {
    let proposals = crate::proposals::marker(&i.proposals);
    // Proposal AlwaysPod: decide as Always would, then widen a restart to the whole Pod.
    let always_pod = proposals.contains(&crate::proposals::Proposal::AlwaysPod)
        && i.pod.spec.restart_policy.as_deref() == Some("AlwaysPod");
    if always_pod {
        i.pod.spec.restart_policy = Some("Always".into());
    }
    let mut out = if proposals.contains(&crate::proposals::Proposal::RestartRulesFuture) {
        container_restart_future(i)?
    } else {
        container_restart_upstream(i)?
    };
    if always_pod
        && out.action == "Restart"
        && out.container_kind != ContainerKind::EphemeralContainer
        && !out.restart_all_containers
    {
        out.restart_all_containers = true;
        out.proposed_action = Some("RestartPod".into());
        out.reason.push_str("; Pod restartPolicy AlwaysPod (proposal AlwaysPod): the whole Pod restarts instead, init containers included");
    }
    out.proposals = proposals;
    Ok(out)
}

/// Proposal RestartRulesFuture: a container with rules is decided by its rules in the KEP's
/// future shapes; when none matches, by upstream's decision without the rules (its own
/// restartPolicy, or the Pod's when it has none).
fn container_restart_future(
    mut i: ContainerRestartInput,
) -> Result<ContainerRestartOutput, Diagnostic> {
    use crate::proposals::rules;
    let spec = stored_spec(&i.pod);
    let (c, kind) = find_container(&spec, &i.container)
        .ok_or_else(|| unknown_container(&spec, &i.container))?;
    if kind == ContainerKind::EphemeralContainer || c.rules().is_empty() {
        return container_restart_upstream(i);
    }
    let exit = rules::Exit {
        code: i.exit_code,
        restart_count: i.restart_count.unwrap_or(0),
        oom_killed: i.reason.as_deref() == Some("OOMKilled"),
    };
    let Some((k, action)) = rules::first_match(c, exit) else {
        let name = c.name.clone();
        for ct in i
            .pod
            .spec
            .init_containers
            .iter_mut()
            .chain(i.pod.spec.containers.iter_mut())
            .filter(|ct| ct.name == name)
        {
            ct.restart_policy_rules = None;
        }
        let mut out = container_restart_upstream(i)?;
        out.reason = format!(
            "no restartPolicyRules entry matched (proposal RestartRulesFuture); {}",
            out.reason
        );
        return Ok(out);
    };
    let code = i.exit_code;
    let (restart, restart_all, proposed, what) = match action {
        rules::ACTION_RESTART => (true, false, None, "restart the container".to_owned()),
        rules::ACTION_RESTART_POD | rules::ACTION_RESTART_ALL => (
            true,
            true,
            (action == rules::ACTION_RESTART_POD).then(|| action.to_owned()),
            "restart every container of the Pod in place, init containers first".to_owned(),
        ),
        rules::ACTION_COMPLETE => (
            false,
            false,
            Some(action.to_owned()),
            "the container counts as completed successfully and is not restarted".to_owned(),
        ),
        _ => (
            false,
            false,
            Some(action.to_owned()),
            "every container is killed and the Pod fails".to_owned(),
        ),
    };
    Ok(ContainerRestartOutput {
        action: decision_name(restart),
        restart_all_containers: restart_all,
        rule_index: Some(k),
        decided_by: DecidedBy::Rule,
        container_kind: kind,
        reason: format!(
            "restartPolicyRules[{k}] ({action}) matched exit code {code} (restartCount {}) → {what} (proposal RestartRulesFuture)",
            exit.restart_count
        ),
        proposed_action: proposed,
        proposals: Vec::new(),
    })
}

fn container_restart_upstream(
    mut i: ContainerRestartInput,
) -> Result<ContainerRestartOutput, Diagnostic> {
    let gates = resolve(i.kubernetes_version.as_deref(), i.feature_gates.as_ref())?;
    // The input is owned: default its spec in place rather than through stored_spec's copy
    // (the copy was half the op's time on the differential oracle's inputs).
    let mut spec = std::mem::take(&mut i.pod.spec);
    crate::validate::pod::default_pod_spec(&mut spec);
    let (c, kind) = find_container(&spec, &i.container)
        .ok_or_else(|| unknown_container(&spec, &i.container))?;
    let code = i.exit_code;
    let pod_policy = policy_words(spec.restart_policy.as_deref());
    if kind == ContainerKind::EphemeralContainer {
        return Ok(ContainerRestartOutput {
            action: "DoNotRestart".to_owned(),
            restart_all_containers: false,
            rule_index: None,
            decided_by: DecidedBy::Ephemeral,
            container_kind: kind,
            reason: format!(
                "{:?} is an ephemeral container; the kubelet never restarts ephemeral containers",
                c.name
            ),
            proposed_action: None,
            proposals: Vec::new(),
        });
    }
    if !gates.enabled(GATE_RULES) {
        let (restart, reason) = if kind == ContainerKind::Sidecar {
            (true, "without the ContainerRestartRules gate, a sidecar (init container with restartPolicy Always) is always restarted".to_owned())
        } else {
            let r = pod_policy_restarts(&spec, code);
            (
                r,
                format!(
                    "ContainerRestartRules is off: the kubelet uses the Pod's restartPolicy {pod_policy} only; exit code {code} → {}",
                    if r { "restart" } else { "no restart" }
                ),
            )
        };
        return Ok(ContainerRestartOutput {
            action: decision_name(restart),
            restart_all_containers: false,
            rule_index: None,
            decided_by: DecidedBy::Legacy,
            container_kind: kind,
            reason,
            proposed_action: None,
            proposals: Vec::new(),
        });
    }
    let (mut restart, mut by, idx) = container_should_restart_explained(c, &spec, code);
    let matched_rule = idx.and_then(|k| c.rules().get(k).map(|r| (k, r)));
    let restart_all = gates.enabled(GATE_RESTART_ALL)
        && matched_rule.is_some_and(|(_, r)| r.action == ACTION_RESTART_ALL);
    if restart_all {
        // ContainerShouldRestart (k8s.io/kubernetes v1.37.2 pkg/api/v1/pod/util.go, the oracle's pin) returns true
        // for a matched RestartAllContainers rule when RestartAllContainersOnContainerExits is
        // on; only with the gate off does it fall through to the restart policies.
        restart = true;
        by = DecidedBy::Rule;
    }
    let verdict = if restart { "restart" } else { "no restart" };
    let cpol = policy_words(c.restart_policy.as_deref());
    let mut reason = match (by, matched_rule) {
        (DecidedBy::Rule, Some((k, r))) => {
            format!("{} matched exit code {code} → restart", describe_rule(k, r))
        }
        (_, Some((k, r))) => format!(
            "{} matched exit code {code}; action {:?} does not restart the container itself, so container restartPolicy {cpol} decides → {verdict}",
            describe_rule(k, r),
            r.action
        ),
        (DecidedBy::ContainerRestartPolicy, None) if !c.rules().is_empty() => {
            format!(
                "no restartPolicyRules entry matched exit code {code}; container restartPolicy {cpol} decides → {verdict}"
            )
        }
        (DecidedBy::ContainerRestartPolicy, None) => {
            format!("container restartPolicy {cpol}, exit code {code} → {verdict}")
        }
        (_, None) if c.restart_policy.is_some() => {
            format!(
                "container restartPolicy {cpol} is not a known value; Pod restartPolicy {pod_policy} decides, exit code {code} → {verdict}"
            )
        }
        _ => format!(
            "container has no restartPolicy; Pod restartPolicy {pod_policy}, exit code {code} → {verdict}"
        ),
    };
    if restart_all {
        reason.push_str("; the RestartAllContainers action restarts every container of the Pod in place (init containers run again)");
    } else if matched_rule.is_some_and(|(_, r)| r.action == ACTION_RESTART_ALL) {
        reason.push_str("; RestartAllContainersOnContainerExits is off, so the RestartAllContainers action has no effect");
    }
    if kind == ContainerKind::Sidecar {
        reason.push_str("; note: this is a sidecar, which the kubelet restarts on every exit");
    }
    if i.pod.metadata.deletion_timestamp.is_some() {
        reason.push_str("; note: the Pod has a deletionTimestamp, and the kubelet does not restart containers of a terminating Pod");
    }
    Ok(ContainerRestartOutput {
        action: decision_name(restart),
        restart_all_containers: restart_all,
        rule_index: idx,
        decided_by: by,
        container_kind: kind,
        reason,
        proposed_action: None,
        proposals: Vec::new(),
    })
}

fn decision_name(restart: bool) -> String {
    if restart { "Restart" } else { "DoNotRestart" }.to_owned()
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContainerRestartableInput {
    pub pod: Pod,
    pub container: String,
    #[serde(default)]
    pub kubernetes_version: Option<String>,
    #[serde(default)]
    pub feature_gates: Option<BTreeMap<String, bool>>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContainerRestartableOutput {
    pub restartable: bool,
    pub container_kind: ContainerKind,
    pub reason: String,
}

pub fn container_restartable(
    i: ContainerRestartableInput,
) -> Result<ContainerRestartableOutput, Diagnostic> {
    let gates = resolve(i.kubernetes_version.as_deref(), i.feature_gates.as_ref())?;
    let spec = stored_spec(&i.pod);
    let (c, kind) = find_container(&spec, &i.container)
        .ok_or_else(|| unknown_container(&spec, &i.container))?;
    let pod_policy = policy_words(spec.restart_policy.as_deref());
    let (restartable, reason) = if kind == ContainerKind::EphemeralContainer {
        (false, "ephemeral containers are never restarted".to_owned())
    } else if !gates.enabled(GATE_RULES) {
        if kind == ContainerKind::Sidecar {
            (
                true,
                "a sidecar (init container with restartPolicy Always) is always restarted"
                    .to_owned(),
            )
        } else {
            let r = spec.restart_policy.as_deref() != Some("Never");
            (
                r,
                format!(
                    "ContainerRestartRules is off: the Pod's restartPolicy {pod_policy} decides"
                ),
            )
        }
    } else {
        let r = is_container_restartable(&spec, c);
        let why = match c.restart_policy.as_deref() {
            Some(p) => match c.rules().iter().position(|r| r.action == ACTION_RESTART) {
                Some(k) => format!("rule {k} has action Restart (whatever its exit codes)"),
                None => format!("container restartPolicy {p:?}, and no rule has action Restart"),
            },
            None => format!("container has no restartPolicy; Pod restartPolicy {pod_policy}"),
        };
        (r, why)
    };
    Ok(ContainerRestartableOutput {
        restartable,
        container_kind: kind,
        reason,
    })
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MatchRestartRuleInput {
    pub pod: Pod,
    pub container: String,
    pub exit_code: i32,
    #[serde(default)]
    pub kubernetes_version: Option<String>,
    #[serde(default)]
    pub feature_gates: Option<BTreeMap<String, bool>>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MatchRestartRuleOutput {
    pub matched: bool,
    pub rule_index: Option<usize>,
    /// The matched rule's action.
    pub action: Option<String>,
    /// Rules the matcher passed over (no exitCodes or an unknown operator).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped_rules: Vec<usize>,
    pub reason: String,
}

pub fn match_restart_rule(i: MatchRestartRuleInput) -> Result<MatchRestartRuleOutput, Diagnostic> {
    resolve(i.kubernetes_version.as_deref(), i.feature_gates.as_ref())?;
    let spec = &i.pod.spec;
    let (c, _) =
        find_container(spec, &i.container).ok_or_else(|| unknown_container(spec, &i.container))?;
    let code = i.exit_code;
    let mut skipped = Vec::new();
    let mut found = None;
    for (k, r) in c.rules().iter().enumerate() {
        match rule_matches(r, code) {
            None => skipped.push(k),
            Some(true) => {
                found = Some((k, r));
                break;
            }
            Some(false) => {}
        }
    }
    let reason = match found {
        Some((k, r)) => format!(
            "{} matched exit code {code} (first match wins)",
            describe_rule(k, r)
        ),
        None if c.rules().is_empty() => format!("container {:?} has no restartPolicyRules", c.name),
        None => format!(
            "none of the {} rules matched exit code {code}",
            c.rules().len()
        ),
    };
    Ok(MatchRestartRuleOutput {
        matched: found.is_some(),
        rule_index: found.map(|(k, _)| k),
        action: found.map(|(_, r)| r.action.clone()),
        skipped_rules: skipped,
        reason,
    })
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StatusTransitionInput {
    /// The stored (old) Pod; its spec decides.
    pub pod: Pod,
    pub old_container_statuses: Vec<ContainerStatus>,
    pub new_container_statuses: Vec<ContainerStatus>,
    #[serde(default)]
    pub old_init_container_statuses: Vec<ContainerStatus>,
    #[serde(default)]
    pub new_init_container_statuses: Vec<ContainerStatus>,
    #[serde(default)]
    pub kubernetes_version: Option<String>,
    #[serde(default)]
    pub feature_gates: Option<BTreeMap<String, bool>>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatusTransitionOutput {
    pub valid: bool,
    pub errors: Vec<Diagnostic>,
    pub reason: String,
}

fn is_terminated(s: &ContainerStatus) -> bool {
    s.state.as_ref().is_some_and(|st| st.terminated.is_some())
}

fn exit_code_of(s: &ContainerStatus) -> i32 {
    s.state
        .as_ref()
        .and_then(|st| st.terminated.as_ref())
        .map(|t| t.exit_code)
        .unwrap_or(0)
}

fn forbidden_transition(path: &FieldPath, i: usize) -> Diagnostic {
    Diagnostic::forbidden(
        &path.index(i).child("state"),
        "may not be transitioned to non-terminated state",
    )
}

/// ValidateContainerStateTransition (`init` false) or ValidateInitContainerStateTransition.
fn state_transition(
    new: &[ContainerStatus],
    old: &[ContainerStatus],
    path: &FieldPath,
    spec: &PodSpec,
    allow_rules: bool,
    allow_all: bool,
    init: bool,
) -> Vec<Diagnostic> {
    let mut errs = Vec::new();
    let list = if init {
        &spec.init_containers
    } else {
        &spec.containers
    };
    if allow_rules {
        if allow_all && all_containers_could_restart(spec) {
            return errs;
        }
        for (i, o) in old.iter().enumerate() {
            if !is_terminated(o) {
                continue;
            }
            if let Some(_n) = new.iter().find(|n| n.name == o.name && !is_terminated(n)) {
                let allowed = list
                    .iter()
                    .find(|c| c.name == o.name)
                    .is_some_and(|c| container_should_restart(c, spec, exit_code_of(o)));
                if !allowed {
                    errs.push(forbidden_transition(path, i));
                }
            }
        }
        return errs;
    }
    let policy = spec.restart_policy.as_deref().unwrap_or("");
    if policy == "Always" {
        return errs;
    }
    for (i, o) in old.iter().enumerate() {
        if !is_terminated(o) {
            continue;
        }
        if exit_code_of(o) != 0 && policy == "OnFailure" {
            continue;
        }
        if init
            && spec
                .init_containers
                .iter()
                .find(|c| c.name == o.name)
                .is_some_and(is_sidecar)
        {
            continue;
        }
        for n in new {
            if n.name == o.name && !is_terminated(n) {
                errs.push(forbidden_transition(path, i));
            }
        }
    }
    errs
}

pub fn status_transition(i: StatusTransitionInput) -> Result<StatusTransitionOutput, Diagnostic> {
    let gates = resolve(i.kubernetes_version.as_deref(), i.feature_gates.as_ref())?;
    let spec = stored_spec(&i.pod);
    // From 1.35, GetValidationOptionsFromPodSpecAndMeta on a status update: the gate, or the
    // old Pod already using the fields. In 1.34 ValidateContainerStateTransition reads the
    // ContainerRestartRules gate itself (and knows no RestartAllContainers); before 1.34 it reads
    // the Pod's restartPolicy alone.
    let minor = gates.version.minor;
    let allow_rules = Change::RestartRules.at(minor)
        && (gates.enabled(GATE_RULES)
            || (Change::RestartRulesInUse.at(minor) && container_restart_rules_in_use(&spec)));
    let allow_all = Change::RestartAllContainers.at(minor)
        && (gates.enabled(GATE_RESTART_ALL) || restart_all_containers_in_use(&spec));
    let status = FieldPath::new("status");
    let mut errors = state_transition(
        &i.new_container_statuses,
        &i.old_container_statuses,
        &status.child("containerStatuses"),
        &spec,
        allow_rules,
        allow_all,
        false,
    );
    errors.extend(state_transition(
        &i.new_init_container_statuses,
        &i.old_init_container_statuses,
        &status.child("initContainerStatuses"),
        &spec,
        allow_rules,
        allow_all,
        true,
    ));
    let reason = if allow_rules && allow_all && all_containers_could_restart(&spec) {
        "a container has a RestartAllContainers rule, so every container may leave the terminated state".to_owned()
    } else if errors.is_empty() {
        if allow_rules {
            "every terminated container that becomes non-terminated may restart (ContainerShouldRestart on its last exit code)".to_owned()
        } else {
            format!(
                "every transition is allowed by the Pod's restartPolicy {}",
                policy_words(spec.restart_policy.as_deref())
            )
        }
    } else if allow_rules {
        format!(
            "{} container(s) may not restart after their last exit code (ContainerShouldRestart is false) but are reported running",
            errors.len()
        )
    } else {
        format!(
            "{} container(s) may not restart under the Pod's restartPolicy {} but are reported running",
            errors.len(),
            policy_words(spec.restart_policy.as_deref())
        )
    };
    Ok(StatusTransitionOutput {
        valid: errors.is_empty(),
        errors,
        reason,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use super::*;
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
}
