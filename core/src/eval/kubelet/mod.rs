//! The kubelet's per-container restart decision (KEP-5307 rules, KEP-5532 RestartAllContainers,
//! pod restartPolicy), and the status-update check the API server makes with the same logic.
//!
//! Upstream: `pkg/api/v1/pod/util.go` (ContainerShouldRestart, IsContainerRestartable, the
//! unexported rule matcher, AllContainersCouldRestart) and `pkg/apis/core/validation/validation.go`
//! (ValidateContainerStateTransition, ValidateInitContainerStateTransition). The kubelet only takes
//! the rule-aware path with the `ContainerRestartRules` gate on; without it the legacy rule
//! applies (the pod's restartPolicy, sidecars always restart).
//!
//! The files follow what they model: `rules.rs` (upstream's functions on the API types),
//! `compiled.rs` (a container's decision compiled once), `ops.rs` (containerRestart,
//! containerRestartable, matchRestartRule), `status_transition.rs` (statusTransition).

mod compiled;
mod ops;
mod rules;
mod status_transition;

// The vocabulary these rules share with validation, at its old place.
pub use crate::api::core::{ACTION_RESTART, ACTION_RESTART_ALL, OP_IN, OP_NOT_IN, is_sidecar};
pub use crate::gate_names::{GATE_RESTART_ALL, GATE_RULES};

pub use compiled::{CompiledContainerPolicy, KubeletDecision, compile_pod};
pub use ops::{
    ContainerRestartInput, ContainerRestartOutput, ContainerRestartableInput,
    ContainerRestartableOutput, MatchRestartRuleInput, MatchRestartRuleOutput, container_restart,
    container_restartable, match_restart_rule,
};
pub use rules::{
    ContainerKind, DecidedBy, all_containers_could_restart, container_restart_rules_in_use,
    container_should_restart, container_should_restart_explained, find_container,
    find_matching_rule, init_container_completed, init_container_completed_reason,
    is_container_restartable, restart_all_containers_in_use, rule_matches,
};
pub use status_transition::{StatusTransitionInput, StatusTransitionOutput, status_transition};

#[cfg(test)]
mod tests;
