//! A policy compiled once and asked many times: the fast path behind `compile(...).decide(...)`
//! in every front end and `prepare`/`decide_exit` in the plugin ABI.
//! PLACEHOLDER: the decision tables are filled in from eval::kubelet and eval::job.

use crate::diag::Diagnostic;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// What happens when a container exits, as one code (stable across every front end and the
/// plugin ABI; see docs/contract.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[repr(u8)]
pub enum Action {
    /// The kubelet leaves the container terminated (and, for a Pod of a Job, the Pod does not
    /// fail because of it: another container or the pod phase decides).
    DoNotRestart = 0,
    /// The kubelet restarts the container in place.
    Restart = 1,
    /// The kubelet restarts every container of the Pod in place (KEP-5532).
    RestartAllContainers = 2,
    /// The Pod fails and the Job's podFailurePolicy fails the Job.
    FailJob = 3,
    /// The Pod fails and its index fails (backoffLimitPerIndex).
    FailIndex = 4,
    /// The Pod fails; the failure is not counted against backoffLimit.
    Ignore = 5,
    /// The Pod fails; the failure counts against backoffLimit (a Count rule or no rule).
    Count = 6,
}

impl Action {
    pub fn code(self) -> u8 {
        self as u8
    }
    pub fn name(self) -> &'static str {
        match self {
            Action::DoNotRestart => "DoNotRestart",
            Action::Restart => "Restart",
            Action::RestartAllContainers => "RestartAllContainers",
            Action::FailJob => "FailJob",
            Action::FailIndex => "FailIndex",
            Action::Ignore => "Ignore",
            Action::Count => "Count",
        }
    }
}

/// Options of a prepared policy (the same as every request's).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PrepareOptions {
    #[serde(default)]
    pub kubernetes_version: Option<String>,
    #[serde(default)]
    pub feature_gates: Option<BTreeMap<String, bool>>,
}

/// A Pod (or the Pod template of a Job, with its podFailurePolicy) compiled for fast decisions.
#[derive(Debug, Clone)]
pub struct PreparedPolicy {
    containers: Vec<String>,
}

impl PreparedPolicy {
    /// Compiles a Pod or Job object (API JSON).
    pub fn new(_object: &Value, _options: &PrepareOptions) -> Result<Self, Diagnostic> {
        Err(Diagnostic::request("not-implemented", "", "not implemented yet"))
    }
    /// Names of the containers, in the order `decide_exit` indexes them (containers, then init containers).
    pub fn container_names(&self) -> &[String] {
        &self.containers
    }
    pub fn container_index(&self, name: &str) -> Option<usize> {
        self.containers.iter().position(|c| c == name)
    }
    /// The decision for container `index` exiting with `exit_code`; None for an index out of range.
    pub fn decide_exit(&self, _index: usize, _exit_code: i32) -> Option<Action> {
        None
    }
}
