//! The one list of what happens when a container exits ([`Action`]): the code every front end,
//! the plugin ABI and its hosts share (docs/contract.md). The prepared policy
//! ([`crate::prepared`]) answers with it; the front ends' lists are generated from [`Action::ALL`].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What happens when a container exits, as one code (stable across every front end and the
/// plugin ABI; see docs/contract.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[repr(u8)]
pub enum Action {
    /// The kubelet leaves the container terminated (and, for a Pod of a Job, the Pod does not
    /// fail because of it: the exit code was 0).
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
    /// Every action, in code order (`ALL[a.code()] == a`): the list the front ends' own lists
    /// are made from.
    pub const ALL: [Action; 7] = [
        Action::DoNotRestart,
        Action::Restart,
        Action::RestartAllContainers,
        Action::FailJob,
        Action::FailIndex,
        Action::Ignore,
        Action::Count,
    ];
    /// The action for a code, or None for a code no action has.
    pub fn from_code(code: u8) -> Option<Action> {
        Action::ALL.get(usize::from(code)).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::Action;

    #[test]
    fn all_is_in_code_order() {
        for (i, a) in Action::ALL.iter().enumerate() {
            assert_eq!(usize::from(a.code()), i, "{}", a.name());
            assert_eq!(Action::from_code(a.code()), Some(*a));
        }
        assert_eq!(Action::from_code(7), None);
    }
}
