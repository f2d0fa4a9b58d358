//! statusTransition: the check the API server makes on a Pod status update
//! (ValidateContainerStateTransition, ValidateInitContainerStateTransition), with the kubelet's
//! restart logic.

use crate::api::core::is_sidecar;
use crate::api::{ContainerStatus, Pod, PodSpec};
use crate::diag::{Diagnostic, FieldPath};
use crate::gate_names::{GATE_RESTART_ALL, GATE_RULES};
use crate::versions::Change;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use super::rules::{
    all_containers_could_restart, container_restart_rules_in_use, container_should_restart,
    policy_words, resolve, restart_all_containers_in_use, stored_spec,
};

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
pub(super) fn state_transition(
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
