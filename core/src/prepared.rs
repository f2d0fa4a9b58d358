//! A policy compiled once and asked many times: the fast path behind `compile(...).decide(...)`
//! in every front end and `prepare`/`decide_exit` in the plugin ABI. It chains the same compiled
//! tables the ops are checked against: the kubelet's per-container decision, then — for a Pod of
//! a Job that fails — the Job's pod failure policy.

use crate::api::{Job, Pod, PodSpec};
use crate::diag::Diagnostic;
use crate::eval::job::PolicyAction;
use crate::eval::job_compiled::{CompiledPodFailurePolicy, UNKNOWN_CONTAINER};
use crate::eval::kubelet::{CompiledContainerPolicy, KubeletDecision};
use crate::eval::object_warnings::{Subject, object_warnings};
use crate::features::FeatureGates;
use crate::validate;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;

pub use crate::action::Action;

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
    /// Regular containers, then init containers.
    containers: Vec<String>,
    kubelet: Vec<CompiledContainerPolicy>,
    job: Option<CompiledPodFailurePolicy>,
    /// Each container's index in the pod failure policy's own container list.
    job_index: Vec<usize>,
    /// The object's validation errors as warnings, found once when it was compiled.
    warnings: Vec<Diagnostic>,
}

impl PreparedPolicy {
    /// Compiles a Pod or Job object (API JSON), defaulted as the API server would.
    pub fn new(object: &Value, options: &PrepareOptions) -> Result<Self, Diagnostic> {
        let (gates, _) = FeatureGates::resolve(
            options.kubernetes_version.as_deref(),
            options.feature_gates.as_ref(),
        )?;
        let root = crate::FieldPath::root();
        let mut policy = match object.get("kind").and_then(Value::as_str).unwrap_or("") {
            "Pod" => {
                let mut pod: Pod = validate::decode_at(object, &root)?;
                validate::pod::default_pod_spec(&mut pod.spec);
                Self::from_parts(&pod.spec, None, &gates)
            }
            "Job" => {
                let mut job: Job = validate::decode_at(object, &root)?;
                validate::job::default_job_spec(&mut job.spec);
                let pfp = CompiledPodFailurePolicy::from_job(&job, &gates)?;
                Self::from_parts(&job.spec.template.spec, Some(pfp), &gates)
            }
            other => {
                return Err(Diagnostic::request(
                    "unsupported-kind",
                    "kind",
                    format!("compile takes a Pod or a Job, not {other:?}"),
                ));
            }
        };
        // Once, here: `decide_exit` never validates.
        if let Some(subject) = Subject::of(object) {
            policy.warnings = object_warnings(object, subject, &gates, &[]);
        }
        Ok(policy)
    }

    fn from_parts(
        spec: &PodSpec,
        job: Option<CompiledPodFailurePolicy>,
        gates: &FeatureGates,
    ) -> Self {
        let compiled = crate::eval::kubelet::compile_pod(spec, gates);
        let containers: Vec<String> = compiled.iter().map(|(n, _)| n.clone()).collect();
        let job_index = containers
            .iter()
            .map(|n| {
                job.as_ref()
                    .and_then(|j| j.container_index(n))
                    .unwrap_or(UNKNOWN_CONTAINER)
            })
            .collect();
        PreparedPolicy {
            containers,
            kubelet: compiled.into_iter().map(|(_, p)| p).collect(),
            job,
            job_index,
            warnings: Vec::new(),
        }
    }

    /// The object's validation errors, as warnings (code `invalid-object`; empty for a valid
    /// object): the API server would refuse it, so the decisions are those upstream's code makes
    /// for an object that cannot exist.
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }

    /// Names of the containers, in the order `decide_exit` indexes them (containers, then init containers).
    pub fn container_names(&self) -> &[String] {
        &self.containers
    }

    pub fn container_index(&self, name: &str) -> Option<usize> {
        self.containers.iter().position(|c| c == name)
    }

    /// The index `decide_exit` takes for a container named by the caller, or the one error every
    /// front end gives (code `unknown-container` on field `container`, naming the containers).
    pub fn resolve_container(&self, container: ContainerRef<'_>) -> Result<usize, Diagnostic> {
        let n = self.containers.len();
        match container {
            ContainerRef::Name(name) => self.container_index(name).ok_or_else(|| {
                unknown_container(format!(
                    "no container named {name:?}; containers: {}",
                    self.containers.join(", ")
                ))
            }),
            ContainerRef::Index(i) => usize::try_from(i)
                .ok()
                .filter(|&u| u < n)
                .ok_or_else(|| unknown_container(out_of_range(i, n))),
        }
    }

    /// `decide_exit` with an index out of range as the diagnostic `resolve_container` gives.
    pub fn decide_checked(&self, index: usize, exit_code: i32) -> Result<Action, Diagnostic> {
        self.decide_exit(index, exit_code)
            .ok_or_else(|| self.index_error(index))
    }

    /// The action code of each exit code of `codes` for one container.
    pub fn decide_codes(&self, index: usize, codes: &[i32]) -> Result<Vec<u8>, Diagnostic> {
        let mut out = Vec::new();
        self.decide_many(index, codes, &mut out)
            .ok_or_else(|| self.index_error(index))?;
        Ok(out)
    }

    fn index_error(&self, index: usize) -> Diagnostic {
        unknown_container(out_of_range(index, self.containers.len()))
    }

    /// Whether a Job's pod failure policy takes over when the Pod fails.
    pub fn is_job(&self) -> bool {
        self.job.is_some()
    }

    /// The decision for container `index` exiting with `exit_code`; None for an index out of
    /// range. For a Pod of a Job, a non-zero exit the kubelet does not restart fails the Pod
    /// (assuming its other containers have finished), and the pod failure policy decides.
    #[inline]
    pub fn decide_exit(&self, index: usize, exit_code: i32) -> Option<Action> {
        let kubelet = self.kubelet.get(index)?.decide(exit_code);
        Some(match kubelet {
            KubeletDecision::Restart => Action::Restart,
            KubeletDecision::RestartAllContainers => Action::RestartAllContainers,
            KubeletDecision::DoNotRestart => match &self.job {
                Some(job) if exit_code != 0 => {
                    let status = [(
                        self.job_index
                            .get(index)
                            .copied()
                            .unwrap_or(UNKNOWN_CONTAINER),
                        Some(exit_code),
                    )];
                    match job.decide(&status, &[]).action {
                        Some(PolicyAction::FailJob) => Action::FailJob,
                        Some(PolicyAction::FailIndex) => Action::FailIndex,
                        Some(PolicyAction::Ignore) => Action::Ignore,
                        Some(PolicyAction::Count) | None => Action::Count,
                    }
                }
                _ => Action::DoNotRestart,
            },
        })
    }

    /// Decides every exit code of `codes` for one container into `out` (cleared first).
    pub fn decide_many(&self, index: usize, codes: &[i32], out: &mut Vec<u8>) -> Option<()> {
        self.kubelet.get(index)?;
        out.clear();
        out.reserve(codes.len());
        for &c in codes {
            out.push(self.decide_exit(index, c).map_or(u8::MAX, Action::code));
        }
        Some(())
    }
}

/// How a caller names a container of a prepared policy: by name, or by its index in
/// [`PreparedPolicy::container_names`].
#[derive(Debug, Clone, Copy)]
pub enum ContainerRef<'a> {
    Name(&'a str),
    Index(i64),
}

fn out_of_range(index: impl std::fmt::Display, len: usize) -> String {
    format!("container index {index} is out of range (0..{len})")
}

fn unknown_container(message: String) -> Diagnostic {
    Diagnostic::request("unknown-container", "container", message)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use super::*;
    use serde_json::json;

    fn gates(rules: bool) -> PrepareOptions {
        PrepareOptions {
            kubernetes_version: Some("1.35".into()),
            feature_gates: Some(BTreeMap::from([(
                "ContainerRestartRules".to_owned(),
                rules,
            )])),
        }
    }

    #[test]
    fn pod_decisions_follow_the_kubelet() {
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"restartPolicy": "Never",
            "initContainers": [{"name": "side", "image": "i", "restartPolicy": "Always"}],
            "containers": [{"name": "main", "image": "i", "restartPolicy": "Never",
              "restartPolicyRules": [{"action": "Restart", "exitCodes": {"operator": "In", "values": [42]}}]}]}});
        let p = PreparedPolicy::new(&pod, &gates(true)).unwrap();
        assert_eq!(p.container_names(), ["main", "side"]);
        assert_eq!(p.decide_exit(0, 42), Some(Action::Restart));
        assert_eq!(p.decide_exit(0, 1), Some(Action::DoNotRestart));
        assert_eq!(
            p.decide_exit(1, 0),
            Some(Action::Restart),
            "sidecars always restart"
        );
        assert_eq!(p.decide_exit(2, 1), None);
    }

    /// Every front end names a container the same way and gets the same error for a wrong one.
    #[test]
    fn containers_resolve_by_name_or_index_with_one_error() {
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {
            "containers": [{"name": "main", "image": "i"}, {"name": "log", "image": "i"}]}});
        let p = PreparedPolicy::new(&pod, &gates(true)).unwrap();
        assert_eq!(p.resolve_container(ContainerRef::Name("log")).unwrap(), 1);
        assert_eq!(p.resolve_container(ContainerRef::Index(0)).unwrap(), 0);
        let e = p.resolve_container(ContainerRef::Name("db")).unwrap_err();
        assert_eq!(
            (e.code.as_deref(), e.field.as_str(), e.message.as_str()),
            (Some("unknown-container"), "container", "no container named \"db\"; containers: main, log")
        );
        for i in [2, -1, i64::MAX] {
            let e = p.resolve_container(ContainerRef::Index(i)).unwrap_err();
            assert_eq!(e.message, format!("container index {i} is out of range (0..2)"));
        }
        assert_eq!(p.decide_checked(1, 0).unwrap(), Action::Restart);
        assert_eq!(p.decide_checked(5, 0).unwrap_err().message, "container index 5 is out of range (0..2)");
        assert_eq!(p.decide_codes(0, &[0, 1]).unwrap(), vec![Action::Restart.code(); 2]);
        assert_eq!(p.decide_codes(2, &[0]).unwrap_err().code.as_deref(), Some("unknown-container"));
    }

    #[test]
    fn job_decisions_fall_through_to_the_pod_failure_policy() {
        let job = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": {
            "podFailurePolicy": {"rules": [
                {"action": "FailJob", "onExitCodes": {"containerName": "main", "operator": "In", "values": [2]}},
                {"action": "Ignore", "onExitCodes": {"operator": "In", "values": [3]}},
                {"action": "Count", "onExitCodes": {"operator": "NotIn", "values": [4]}}]},
            "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "i"}]}}}});
        let p = PreparedPolicy::new(&job, &gates(true)).unwrap();
        assert!(p.is_job());
        assert_eq!(p.decide_exit(0, 2), Some(Action::FailJob));
        assert_eq!(p.decide_exit(0, 3), Some(Action::Ignore));
        assert_eq!(p.decide_exit(0, 5), Some(Action::Count));
        assert_eq!(
            p.decide_exit(0, 4),
            Some(Action::Count),
            "no rule matched: the failure counts"
        );
        assert_eq!(p.decide_exit(0, 0), Some(Action::DoNotRestart));
        let mut out = Vec::new();
        p.decide_many(0, &[2, 3, 0], &mut out).unwrap();
        assert_eq!(out, vec![3, 5, 0]);
    }

    #[test]
    fn an_invalid_job_compiles_with_warnings_and_decides_as_upstream() {
        let job = |action: &str| {
            json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": {
                "podFailurePolicy": {"rules": [{"action": action, "onExitCodes": {"operator": "In", "values": [3]}}]},
                "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "m", "image": "i"}]}}}})
        };
        let bogus = PreparedPolicy::new(&job("Bogus"), &PrepareOptions::default()).unwrap();
        // The matcher skips a rule whose action it does not know: the failure counts.
        assert_eq!(bogus.decide_exit(0, 3), Some(Action::Count));
        let w = bogus.warnings();
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].code.as_deref(), Some("invalid-object"));
        assert_eq!(w[0].field, "spec.podFailurePolicy.rules[0].action");
        let valid = PreparedPolicy::new(&job("Ignore"), &PrepareOptions::default()).unwrap();
        assert_eq!(valid.decide_exit(0, 3), Some(Action::Ignore));
        assert!(valid.warnings().is_empty());
    }

    #[test]
    fn unsupported_kinds_and_bad_objects_are_errors() {
        assert!(
            PreparedPolicy::new(&json!({"kind": "Service"}), &PrepareOptions::default()).is_err()
        );
        assert!(
            PreparedPolicy::new(
                &json!({"kind": "Pod", "spec": {"containers": 3}}),
                &PrepareOptions::default()
            )
            .is_err()
        );
        assert_eq!(Action::from_code(6), Some(Action::Count));
        assert_eq!(Action::from_code(7), None);
    }
}
