//! Feature-gate names more than one layer checks (the per-minor defaults are in
//! [`crate::generated::k8s_gates`], read through [`crate::features`]).

/// KEP-5307: container restart rules.
pub const GATE_RULES: &str = "ContainerRestartRules";
/// KEP-5532: a rule may restart every container of the Pod.
pub const GATE_RESTART_ALL: &str = "RestartAllContainersOnContainerExits";
