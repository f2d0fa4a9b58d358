//! The fast path: a container's decision compiled once, for the simulator and the compiled
//! policies' loops.

use crate::api::core::{ACTION_RESTART, ACTION_RESTART_ALL, OP_IN, OP_NOT_IN, is_sidecar};
use crate::api::{Container, PodSpec};
use crate::features::FeatureGates;
use crate::gate_names::{GATE_RESTART_ALL, GATE_RULES};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::rules::{container_should_restart_explained, pod_policy_restarts};

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

pub(super) fn decision(b: bool) -> KubeletDecision {
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
