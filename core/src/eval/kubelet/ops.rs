//! The container ops: containerRestart (the decision, with what decided it, as upstream and
//! under a proposal), containerRestartable and matchRestartRule.

use crate::api::Pod;
use crate::api::core::{ACTION_RESTART, ACTION_RESTART_ALL};
use crate::diag::Diagnostic;
use crate::gate_names::{GATE_RESTART_ALL, GATE_RULES};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use super::rules::{
    ContainerKind, DecidedBy, container_should_restart_explained, describe_rule, find_container,
    is_container_restartable, pod_policy_restarts, policy_words, resolve, rule_matches,
    stored_spec, unknown_container,
};

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
