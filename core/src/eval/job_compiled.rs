//! A Job's podFailurePolicy compiled once for fast decisions on many failed Pods: the same
//! first-match semantics as [`crate::eval::job::match_policy`], with every rule folded into
//! bitmasks (bit `i` = rule `i`).
//!
//! - exit codes 0..=255 look up a 256-entry table of "rules this code satisfies"; other codes
//!   (negative Windows codes, large values) are looked up in a hash map of the codes any rule
//!   lists (a legal policy lists up to 20 × 255 of them, too many for a binary search on the hot
//!   path), and any code listed nowhere satisfies exactly the NotIn rules;
//! - each template container has the mask of exit-code rules whose `containerName` is unset or
//!   names it;
//! - each (condition type, status) pair some pattern names has the mask of the condition rules
//!   holding it.
//!
//! A failed Pod's rule set is the OR over its terminated statuses of `code & container` plus the
//! OR over its conditions; the first matching rule is the lowest set bit. Rules whose action the
//! matcher would skip (unknown actions, FailIndex with its gate off) get no bit.

// Diagnostic is the crate's one error type (as in contract.rs); boxing it here alone would not help.
#![allow(clippy::result_large_err)]

use super::job::PolicyAction;
use crate::api::{Job, JobSpec, Pod};
use crate::diag::Diagnostic;
use crate::features::FeatureGates;
use rustc_hash::FxHashMap;

/// Most rules a compiled policy holds (upstream validation allows 20).
pub const MAX_COMPILED_RULES: usize = 64;

/// A container index no template container has (a status whose name is not in the template).
pub const UNKNOWN_CONTAINER: usize = usize::MAX;

/// The outcome for one failed Pod.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    /// The first matching rule, if any.
    pub rule_index: Option<usize>,
    /// Its action; None: no rule matched (the failure counts).
    pub action: Option<PolicyAction>,
    /// Whether the failure counts against backoffLimit.
    pub count_failed: bool,
    /// Position, in the `statuses` slice, of the first status that matched the rule (exit-code rules).
    pub status_position: Option<usize>,
    /// Position, in the `conditions` slice, of the first condition that matched the rule.
    pub condition_position: Option<usize>,
}

impl Decision {
    const NO_MATCH: Decision = Decision {
        rule_index: None,
        action: None,
        count_failed: true,
        status_position: None,
        condition_position: None,
    };
}

/// A podFailurePolicy compiled for [`CompiledPodFailurePolicy::decide`].
#[derive(Debug, Clone)]
pub struct CompiledPodFailurePolicy {
    /// Template containers, then init containers, then names only rules mention: the indices
    /// `decide` takes.
    containers: Vec<String>,
    /// Interned (type, status) pairs named by some onPodConditions pattern.
    conditions: Vec<(String, String)>,
    actions: Vec<Option<PolicyAction>>,
    /// Rules that match on exit codes (bit set) rather than conditions.
    exit_rules: u64,
    /// None when the policy lists at most FEW_CODES distinct codes (then `few_codes` holds them):
    /// a 2 KiB table per policy is a cache miss per decision when many policies are asked in
    /// turn (the oracle's inputs each have their own), while a handful of codes fit a line.
    code_table: Option<Box<[u64; 256]>>,
    few_len: usize,
    few_codes: [i32; FEW_CODES],
    few_masks: [u64; FEW_CODES],
    /// Codes outside 0..=255 listed by some rule, with the rules they satisfy.
    other_codes: FxHashMap<i32, u64>,
    /// The rules a non-zero code listed by no rule satisfies (the NotIn rules).
    unlisted_code_mask: u64,
    container_masks: Vec<u64>,
    /// Exit-code rules with no containerName.
    any_container_mask: u64,
    condition_masks: Vec<u64>,
    /// The rules that match on conditions (the OR of `condition_masks`).
    condition_rules: u64,
    has_policy: bool,
}

/// Most distinct listed exit codes kept in the inline list instead of the 256-entry table.
const FEW_CODES: usize = 16;

fn interned(list: &mut Vec<(String, String)>, t: &str, s: &str) -> usize {
    match list.iter().position(|(a, b)| a == t && b == s) {
        Some(i) => i,
        None => {
            list.push((t.to_owned(), s.to_owned()));
            list.len() - 1
        }
    }
}

fn set_bit(masks: &mut [u64], i: usize, bit: u64) {
    if let Some(m) = masks.get_mut(i) {
        *m |= bit;
    }
}

impl CompiledPodFailurePolicy {
    /// Compiles the podFailurePolicy of `job` for the given gates.
    pub fn from_job(job: &Job, gates: &FeatureGates) -> Result<Self, Diagnostic> {
        Self::from_spec(&job.spec, gates)
    }

    /// Compiles the podFailurePolicy of a JobSpec (a Job, or a JobSet's replicatedJob template).
    pub fn from_spec(spec: &JobSpec, gates: &FeatureGates) -> Result<Self, Diagnostic> {
        Self::from_spec_keeping(spec, gates, FEW_CODES)
    }

    /// `from_spec`, keeping the listed codes inline when there are at most `few` of them (0:
    /// always the table; the
    /// tests compile both forms to check they agree).
    fn from_spec_keeping(
        spec: &JobSpec,
        gates: &FeatureGates,
        few: usize,
    ) -> Result<Self, Diagnostic> {
        let t = &spec.template.spec;
        let mut containers: Vec<String> = t
            .containers
            .iter()
            .chain(&t.init_containers)
            .map(|c| c.name.clone())
            .collect();
        // A containerName the template lacks (invalid, but the matcher compares names) gets an
        // index too, so a status of that name still matches.
        for rule in spec.pod_failure_policy.iter().flat_map(|p| &p.rules) {
            if let Some(n) = rule
                .on_exit_codes
                .as_ref()
                .and_then(|e| e.container_name.as_ref())
                && !containers.contains(n)
            {
                containers.push(n.clone());
            }
        }
        let mut c = CompiledPodFailurePolicy {
            container_masks: vec![0; containers.len()],
            containers,
            conditions: Vec::new(),
            actions: Vec::new(),
            exit_rules: 0,
            code_table: Some(Box::new([0; 256])),
            few_len: 0,
            few_codes: [0; FEW_CODES],
            few_masks: [0; FEW_CODES],
            other_codes: FxHashMap::default(),
            unlisted_code_mask: 0,
            any_container_mask: 0,
            condition_masks: Vec::new(),
            condition_rules: 0,
            has_policy: spec.pod_failure_policy.is_some(),
        };
        let Some(policy) = &spec.pod_failure_policy else {
            return Ok(c);
        };
        if policy.rules.len() > MAX_COMPILED_RULES {
            return Err(Diagnostic::request(
                "too-many-rules",
                "spec.podFailurePolicy.rules",
                format!(
                    "a podFailurePolicy with {} rules cannot be compiled (at most {MAX_COMPILED_RULES}; upstream allows 20)",
                    policy.rules.len()
                ),
            ));
        }
        let gate = gates.enabled(super::job::FAIL_INDEX_GATE);
        let mut other: Vec<i32> = Vec::new();
        for (i, rule) in policy.rules.iter().enumerate() {
            let action = PolicyAction::effective(&rule.action, gate);
            c.actions.push(action);
            if action.is_none() {
                continue;
            }
            let bit = 1u64 << i;
            if let Some(req) = &rule.on_exit_codes {
                let listed = |x: i32| req.values.contains(&x);
                let matches: Option<fn(bool) -> bool> = match req.operator.as_str() {
                    "In" => Some(|l| l),
                    "NotIn" => Some(|l| !l),
                    _ => None,
                };
                let Some(matches) = matches else { continue };
                c.exit_rules |= bit;
                for (x, m) in (0i32..).zip(c.code_table.iter_mut().flat_map(|t| t.iter_mut())) {
                    if x != 0 && matches(listed(x)) {
                        *m |= bit;
                    }
                }
                if req.operator == "NotIn" {
                    c.unlisted_code_mask |= bit;
                }
                other.extend(
                    req.values
                        .iter()
                        .copied()
                        .filter(|v| !(0..=255).contains(v)),
                );
                match &req.container_name {
                    None => {
                        c.any_container_mask |= bit;
                        for m in &mut c.container_masks {
                            *m |= bit;
                        }
                    }
                    Some(name) => {
                        for (j, n) in c.containers.iter().enumerate() {
                            if n == name {
                                set_bit(&mut c.container_masks, j, bit);
                            }
                        }
                    }
                }
            } else if let Some(patterns) = &rule.on_pod_conditions {
                for p in patterns {
                    let status = if p.status.is_empty() {
                        "True"
                    } else {
                        p.status.as_str()
                    };
                    let k = interned(&mut c.conditions, &p.type_, status);
                    if c.condition_masks.len() <= k {
                        c.condition_masks.resize(k + 1, 0);
                    }
                    set_bit(&mut c.condition_masks, k, bit);
                    c.condition_rules |= bit;
                }
            }
        }
        other.sort_unstable();
        other.dedup();
        for x in other {
            let mut mask = 0u64;
            for (i, rule) in policy.rules.iter().enumerate() {
                let Some(req) = &rule.on_exit_codes else {
                    continue;
                };
                if c.exit_rules & (1u64 << i) != 0 && super::job::operator_matches(req, x) {
                    mask |= 1u64 << i;
                }
            }
            c.other_codes.insert(x, mask);
        }
        // Few distinct listed codes: keep each with its mask (read from the table or the map
        // just built, so the masks are the same) and drop the table; any other non-zero code is
        // listed by no rule and satisfies exactly the NotIn rules, as the table says for it.
        let mut listed: Vec<i32> = policy
            .rules
            .iter()
            .enumerate()
            .filter(|(i, _)| c.exit_rules & (1u64 << i) != 0)
            .filter_map(|(_, r)| r.on_exit_codes.as_ref())
            .flat_map(|req| req.values.iter().copied())
            .filter(|&x| x != 0)
            .collect();
        listed.sort_unstable();
        listed.dedup();
        if few > 0 && listed.len() <= few.min(FEW_CODES) {
            for (i, x) in listed.into_iter().enumerate() {
                let mask = c.code_mask(x);
                if let (Some(k), Some(m)) = (c.few_codes.get_mut(i), c.few_masks.get_mut(i)) {
                    *k = x;
                    *m = mask;
                    c.few_len = i + 1;
                }
            }
            c.code_table = None;
        }
        Ok(c)
    }

    /// Whether the Job has a podFailurePolicy at all.
    pub fn has_policy(&self) -> bool {
        self.has_policy
    }

    /// Template containers, then init containers (then any containerName only a rule mentions),
    /// in the order `decide` indexes them.
    pub fn container_names(&self) -> &[String] {
        &self.containers
    }

    pub fn container_index(&self, name: &str) -> Option<usize> {
        self.containers.iter().position(|c| c == name)
    }

    /// The index of a Pod condition (type, status) for `decide`; None when no pattern names it
    /// (such a condition can never match and may be left out).
    pub fn condition_index(&self, type_: &str, status: &str) -> Option<usize> {
        self.conditions
            .iter()
            .position(|(t, s)| t == type_ && s == status)
    }

    #[inline]
    fn code_mask(&self, code: i32) -> u64 {
        if code == 0 {
            return 0;
        }
        let Some(table) = &self.code_table else {
            let keys = self.few_codes.get(..self.few_len).unwrap_or(&[]);
            return match keys.iter().position(|&k| k == code) {
                Some(i) => self.few_masks.get(i).copied().unwrap_or(0),
                None => self.unlisted_code_mask,
            };
        };
        match usize::try_from(code) {
            Ok(i) => table
                .get(i)
                .copied()
                .unwrap_or_else(|| self.other_code_mask(code)),
            Err(_) => self.other_code_mask(code),
        }
    }

    fn other_code_mask(&self, code: i32) -> u64 {
        self.other_codes
            .get(&code)
            .copied()
            .unwrap_or(self.unlisted_code_mask)
    }

    #[inline]
    fn container_mask(&self, index: usize) -> u64 {
        self.container_masks
            .get(index)
            .copied()
            .unwrap_or(self.any_container_mask)
    }

    #[inline]
    fn status_mask(&self, (container, code): (usize, Option<i32>)) -> u64 {
        match code {
            Some(x) => self.code_mask(x) & self.container_mask(container),
            None => 0,
        }
    }

    /// The decision for a failed Pod given as its container statuses — (container index, exit
    /// code when the container is terminated, else None), container statuses first and then
    /// init container statuses, each in status order, as upstream searches them — and its
    /// conditions as [`condition_index`](Self::condition_index) values.
    #[inline]
    pub fn decide(&self, statuses: &[(usize, Option<i32>)], conditions: &[usize]) -> Decision {
        self.decide_masks(
            statuses.iter().map(|&s| self.status_mask(s)),
            conditions
                .iter()
                .map(|&k| self.condition_masks.get(k).copied().unwrap_or(0)),
        )
    }

    /// `decide` on the rule masks of each status and each condition, in order.
    #[inline]
    fn decide_masks(
        &self,
        status_masks: impl Iterator<Item = u64>,
        condition_masks: impl Iterator<Item = u64>,
    ) -> Decision {
        // One pass: the first matching rule is the lowest bit over all masks, and the first
        // status holding that bit is the first whose own lowest bit equals it (no status holds
        // a lower one), so keeping the strictly lowest bit seen and where it was seen gives both.
        // A rule matches on exit codes or on conditions, never both, so the two sides' lowest
        // bits differ unless neither matched.
        let (status_rule, status_position) = Self::lowest(status_masks);
        // The conditions can only win with a rule below the status side's: when the policy
        // has none there, their lookups are skipped (the answer is the status side's).
        let below = 1u64.checked_shl(status_rule).map_or(u64::MAX, |b| b - 1);
        let (condition_rule, condition_position) = if self.condition_rules & below == 0 {
            (u64::BITS, 0)
        } else {
            Self::lowest(condition_masks)
        };
        let (rule, status_position, condition_position) = if status_rule < condition_rule {
            (status_rule, Some(status_position), None)
        } else if condition_rule < status_rule {
            (condition_rule, None, Some(condition_position))
        } else {
            return Decision::NO_MATCH;
        };
        let rule = rule as usize;
        let Some(action) = self.actions.get(rule).copied().flatten() else {
            return Decision::NO_MATCH;
        };
        Decision {
            rule_index: Some(rule),
            action: Some(action),
            count_failed: action.counts(),
            status_position,
            condition_position,
        }
    }

    /// The lowest bit set in any of `masks` (64 when none) and the position of the first mask
    /// holding it.
    #[inline]
    fn lowest(masks: impl Iterator<Item = u64>) -> (u32, usize) {
        let mut best = u64::BITS;
        let mut at = 0;
        for (i, m) in masks.enumerate() {
            let low = m.trailing_zeros();
            if low < best {
                best = low;
                at = i;
            }
        }
        (best, at)
    }

    /// The decision for a Pod object: `decide` over its statuses (container statuses, then init
    /// container statuses) and conditions, without collecting them. A status's container name
    /// is only looked up when its exit code satisfies some rule (a running container, exit code
    /// 0 or a code no rule accepts has an empty mask whatever its container), and a condition
    /// is only looked up when the policy has condition rules, so the answer is that of `decide`
    /// on the collected lists.
    pub fn decide_pod(&self, pod: &Pod) -> Decision {
        let Some(status) = &pod.status else {
            return Decision::NO_MATCH;
        };
        let status_masks = status
            .container_statuses
            .iter()
            .chain(&status.init_container_statuses)
            .map(|cs| {
                let Some(code) = cs
                    .state
                    .as_ref()
                    .and_then(|s| s.terminated.as_ref())
                    .map(|t| t.exit_code)
                else {
                    return 0;
                };
                let codes = self.code_mask(code);
                if codes == 0 {
                    return 0;
                }
                codes
                    & self
                        .container_mask(self.container_index(&cs.name).unwrap_or(UNKNOWN_CONTAINER))
            });
        let no_conditions = self.conditions.is_empty();
        let condition_masks = status.conditions.iter().map(|c| {
            if no_conditions {
                return 0;
            }
            self.condition_index(&c.type_, &c.status)
                .and_then(|k| self.condition_masks.get(k).copied())
                .unwrap_or(0)
        });
        self.decide_masks(status_masks, condition_masks)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use super::*;
    use crate::api::PodFailurePolicy;
    use crate::eval::job::match_policy;
    use proptest::prelude::*;
    use serde_json::json;

    fn spec(rules: serde_json::Value) -> JobSpec {
        serde_json::from_value(json!({
            "template": {"spec": {"restartPolicy": "Never",
                "containers": [{"name": "a"}, {"name": "b"}], "initContainers": [{"name": "i"}]}},
            "podFailurePolicy": {"rules": rules}
        }))
        .unwrap()
    }

    fn compile(rules: serde_json::Value) -> CompiledPodFailurePolicy {
        CompiledPodFailurePolicy::from_spec(&spec(rules), &FeatureGates::default()).unwrap()
    }

    #[test]
    fn first_rule_wins_and_positions_are_reported() {
        let c = compile(json!([
            {"action": "Ignore", "onExitCodes": {"containerName": "b", "operator": "In", "values": [7]}},
            {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [7, 9]}}
        ]));
        let d = c.decide(&[(0, Some(9)), (1, Some(7))], &[]);
        assert_eq!(
            (d.rule_index, d.action, d.count_failed, d.status_position),
            (Some(0), Some(PolicyAction::Ignore), false, Some(1))
        );
        let d = c.decide(&[(0, Some(7)), (1, Some(3))], &[]);
        assert_eq!((d.rule_index, d.status_position), (Some(1), Some(0)));
    }

    #[test]
    fn zero_and_running_never_match() {
        let c = compile(
            json!([{"action": "Ignore", "onExitCodes": {"operator": "NotIn", "values": [1]}}]),
        );
        assert_eq!(
            c.decide(&[(0, Some(0)), (1, None)], &[]),
            Decision::NO_MATCH
        );
        assert_eq!(c.decide(&[(0, Some(2))], &[]).rule_index, Some(0));
    }

    #[test]
    fn codes_outside_the_table() {
        let c = compile(json!([
            {"action": "Ignore", "onExitCodes": {"operator": "In", "values": [-1073741510, 300]}},
            {"action": "Count", "onExitCodes": {"operator": "NotIn", "values": [-5, 1]}}
        ]));
        assert_eq!(c.decide(&[(0, Some(-1073741510))], &[]).rule_index, Some(0));
        assert_eq!(c.decide(&[(0, Some(300))], &[]).rule_index, Some(0));
        assert_eq!(c.decide(&[(0, Some(-5))], &[]), Decision::NO_MATCH);
        assert_eq!(c.decide(&[(0, Some(-6))], &[]).rule_index, Some(1));
        assert_eq!(c.decide(&[(0, Some(1))], &[]), Decision::NO_MATCH);
    }

    #[test]
    fn unknown_containers_only_match_unnamed_rules() {
        let c = compile(json!([
            {"action": "Ignore", "onExitCodes": {"containerName": "a", "operator": "In", "values": [1]}},
            {"action": "Count", "onExitCodes": {"operator": "In", "values": [1]}}
        ]));
        assert_eq!(
            c.decide(&[(UNKNOWN_CONTAINER, Some(1))], &[]).rule_index,
            Some(1)
        );
    }

    #[test]
    fn conditions_with_default_status() {
        let c = compile(json!([
            {"action": "FailJob", "onPodConditions": [{"type": "ConfigIssue"}]},
            {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]}
        ]));
        let k = c.condition_index("DisruptionTarget", "True").unwrap();
        let d = c.decide(&[], &[usize::MAX, k]);
        assert_eq!((d.rule_index, d.condition_position), (Some(1), Some(1)));
        assert_eq!(c.condition_index("ConfigIssue", "True"), Some(0));
        assert_eq!(c.condition_index("ConfigIssue", "False"), None);
    }

    #[test]
    fn skipped_actions_get_no_bit() {
        let rules = json!([
            {"action": "FailIndex", "onExitCodes": {"operator": "In", "values": [1]}},
            {"action": "Nope", "onExitCodes": {"operator": "In", "values": [1]}},
            {"action": "Count", "onExitCodes": {"operator": "In", "values": [1]}}
        ]);
        let mut g = FeatureGates::default();
        g.set("JobBackoffLimitPerIndex", false);
        let c = CompiledPodFailurePolicy::from_spec(&spec(rules.clone()), &g).unwrap();
        assert_eq!(c.decide(&[(0, Some(1))], &[]).rule_index, Some(2));
        assert_eq!(
            compile(rules).decide(&[(0, Some(1))], &[]).action,
            Some(PolicyAction::FailIndex)
        );
    }

    #[test]
    fn too_many_rules_is_an_error() {
        let rules: Vec<_> = (0..65)
            .map(|_| json!({"action": "Count", "onExitCodes": {"operator": "In", "values": [1]}}))
            .collect();
        assert!(
            CompiledPodFailurePolicy::from_spec(&spec(json!(rules)), &FeatureGates::default())
                .is_err()
        );
    }

    // ---- property tests against a naive reference --------------------------------------------

    #[derive(Debug, Clone)]
    struct RRule {
        action: &'static str,
        exit: Option<(Option<&'static str>, &'static str, Vec<i32>)>,
        conds: Option<Vec<(&'static str, &'static str)>>,
    }

    /// The reference: walk the rules in order; the first one whose requirement holds and whose
    /// action is acted on wins; exit 0 and non-terminated containers never match.
    fn reference(
        rules: &[RRule],
        statuses: &[(&str, Option<i32>)],
        conds: &[(&str, &str)],
        gate: bool,
    ) -> Option<(usize, &'static str)> {
        for (i, r) in rules.iter().enumerate() {
            let hit = if let Some((name, op, values)) = &r.exit {
                statuses.iter().any(|(n, code)| match code {
                    Some(x) if *x != 0 && name.is_none_or(|w| w == *n) => match *op {
                        "In" => values.contains(x),
                        "NotIn" => !values.contains(x),
                        _ => false,
                    },
                    _ => false,
                })
            } else if let Some(ps) = &r.conds {
                conds.iter().any(|c| ps.contains(c))
            } else {
                false
            };
            let acted = matches!(r.action, "FailJob" | "Ignore" | "Count")
                || (r.action == "FailIndex" && gate);
            if hit && acted {
                return Some((i, r.action));
            }
        }
        None
    }

    const NAMES: [&str; 4] = ["a", "b", "i", "stranger"];
    const TYPES: [&str; 3] = ["DisruptionTarget", "ConfigIssue", "Ready"];
    const STATUSES: [&str; 3] = ["True", "False", "Unknown"];

    fn code() -> impl Strategy<Value = i32> {
        prop_oneof![0i32..8, Just(-1073741510), Just(300), Just(255)]
    }

    fn rule() -> impl Strategy<Value = RRule> {
        let action = prop::sample::select(vec!["FailJob", "FailIndex", "Ignore", "Count", "Bogus"]);
        let exit = (
            prop::option::of(prop::sample::select(NAMES.to_vec())),
            prop::sample::select(vec!["In", "NotIn", "Weird"]),
            prop::collection::vec(code(), 0..5),
        );
        let cond = (
            prop::sample::select(TYPES.to_vec()),
            prop::sample::select(STATUSES.to_vec()),
        );
        let conds = prop::collection::vec(cond, 0..3);
        (action, prop::option::of(exit), prop::option::of(conds)).prop_map(
            |(action, exit, conds)| RRule {
                action,
                exit,
                conds,
            },
        )
    }

    fn to_policy(rules: &[RRule]) -> PodFailurePolicy {
        let rules: Vec<serde_json::Value> = rules
            .iter()
            .map(|r| {
                let mut m = serde_json::Map::new();
                m.insert("action".into(), json!(r.action));
                if let Some((name, op, values)) = &r.exit {
                    let mut e = json!({"operator": op, "values": values});
                    if let Some(n) = name {
                        e["containerName"] = json!(n);
                    }
                    m.insert("onExitCodes".into(), e);
                }
                if let Some(cs) = &r.conds {
                    m.insert(
                        "onPodConditions".into(),
                        json!(
                            cs.iter()
                                .map(|(t, s)| json!({"type": t, "status": s}))
                                .collect::<Vec<_>>()
                        ),
                    );
                }
                serde_json::Value::Object(m)
            })
            .collect();
        serde_json::from_value(json!({"rules": rules})).unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn compiled_and_matcher_agree_with_reference(
            rules in prop::collection::vec(rule(), 0..8),
            statuses in prop::collection::vec((prop::sample::select(NAMES.to_vec()), prop::option::of(code())), 0..5),
            conds in prop::collection::vec((prop::sample::select(TYPES.to_vec()), prop::sample::select(STATUSES.to_vec())), 0..3),
            gate in any::<bool>(),
        ) {
            let expected = reference(&rules, &statuses, &conds, gate);
            let mut sp = spec(json!([]));
            sp.pod_failure_policy = Some(to_policy(&rules));
            let mut gates = FeatureGates::default();
            gates.set("JobBackoffLimitPerIndex", gate);
            let pod: Pod = serde_json::from_value(json!({"status": {
                "phase": "Failed",
                "containerStatuses": statuses.iter().map(|(n, c)| match c {
                    Some(x) => json!({"name": n, "state": {"terminated": {"exitCode": x}}}),
                    None => json!({"name": n, "state": {"running": {}}}),
                }).collect::<Vec<_>>(),
                "conditions": conds.iter().map(|(t, s)| json!({"type": t, "status": s})).collect::<Vec<_>>(),
            }})).unwrap();

            let slow = match_policy(sp.pod_failure_policy.as_ref().unwrap(), &pod, gate).map(|m| (m.rule_index, m.action.name()));
            prop_assert_eq!(slow, expected);

            // The inline list of listed codes (what these small policies get) and the 256-entry
            // table (what policies listing many codes get) must answer alike.
            for few in [FEW_CODES, 0] {
                let compiled = CompiledPodFailurePolicy::from_spec_keeping(&sp, &gates, few).unwrap();
                prop_assert_eq!(compiled.code_table.is_some(), few == 0);
                let d = compiled.decide_pod(&pod);
                prop_assert_eq!(d.rule_index.zip(d.action.map(PolicyAction::name)), expected);
                prop_assert_eq!(d.count_failed, expected.is_none_or(|(_, a)| a != "Ignore"));
            }
        }

        #[test]
        fn in_and_notin_never_match_exit_zero(
            values in prop::collection::vec(code(), 0..6),
            op in prop::sample::select(vec!["In", "NotIn"]),
            name in prop::option::of(prop::sample::select(NAMES.to_vec())),
        ) {
            let mut e = json!({"operator": op, "values": values});
            if let Some(n) = name { e["containerName"] = json!(n); }
            let c = compile(json!([{"action": "FailJob", "onExitCodes": e}]));
            for idx in [0usize, 1, 2, UNKNOWN_CONTAINER] {
                prop_assert_eq!(c.decide(&[(idx, Some(0))], &[]), Decision::NO_MATCH);
            }
        }
    }
}
