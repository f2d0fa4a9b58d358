//! Evaluating an object the API server would refuse: the decision functions answer as upstream's
//! code would for that object, but such an object can never exist in a cluster, so every
//! evaluation result also carries the object's validation errors, as warnings with the code
//! [`INVALID_OBJECT`] (docs/contract.md, "Evaluation warnings").
//!
//! The check runs once per object — when a request is answered through the contract, or when a
//! policy is compiled — and never inside a decision: the typed functions the simulator calls
//! and the compiled policies' `decide` loops do not run it.

use crate::diag::{Diagnostic, Severity};
use crate::features::FeatureGates;
use crate::proposals::Proposal;
use crate::validate;
use serde::Serialize;
use serde_json::Value;
use std::borrow::Cow;

/// The stable code of an evaluation warning that is one of the object's validation errors.
pub use crate::diag::INVALID_OBJECT;

/// The kind an evaluation takes its object as (the typed ops accept an object without `kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject {
    Pod,
    Job,
    JobSet,
}

impl Subject {
    fn kind(self) -> &'static str {
        match self {
            Subject::Pod => "Pod",
            Subject::Job => "Job",
            Subject::JobSet => "JobSet",
        }
    }
    fn api_version(self) -> &'static str {
        match self {
            Subject::Pod => "v1",
            Subject::Job => "batch/v1",
            Subject::JobSet => "jobset.x-k8s.io/v1alpha2",
        }
    }
    /// The subject an object names by its `kind`, if it is one evaluations take.
    pub fn of(object: &Value) -> Option<Subject> {
        match object.get("kind").and_then(Value::as_str)? {
            "Pod" => Some(Subject::Pod),
            "Job" => Some(Subject::Job),
            "JobSet" => Some(Subject::JobSet),
            _ => None,
        }
    }
}

/// The validation errors of `object` (validated as a `subject` when it names no kind), as the
/// API server (or the JobSet webhook) reports them on create, each turned into a warning with
/// the code [`INVALID_OBJECT`]; field paths are relative to the object. Upstream defaulting runs
/// first, as the API server's does. Empty for a valid object.
pub fn object_warnings(
    object: &Value,
    subject: Subject,
    gates: &FeatureGates,
    proposals: &[Proposal],
) -> Vec<Diagnostic> {
    // An object without kind (or apiVersion) is what the typed ops accept; the API server would
    // be told the kind by the URL, so it is validated as that kind rather than passed over.
    let object: Cow<'_, Value> = match object.as_object() {
        Some(map) if !map.contains_key("kind") || !map.contains_key("apiVersion") => {
            let mut map = map.clone();
            map.entry("kind")
                .or_insert_with(|| Value::from(subject.kind()));
            map.entry("apiVersion")
                .or_insert_with(|| Value::from(subject.api_version()));
            Cow::Owned(Value::Object(map))
        }
        _ => Cow::Borrowed(object),
    };
    let ctx = validate::Ctx {
        gates: gates.clone(),
        skip_defaulting: false,
        future_rules: proposals.contains(&Proposal::RestartRulesFuture),
        always_pod: proposals.contains(&Proposal::AlwaysPod),
        field_validation: Default::default(),
    };
    let (findings, _) = validate::validate_value(&object, &ctx);
    findings
        .errors
        .into_iter()
        .map(|d| d.with_severity(Severity::Warning).with_code(INVALID_OBJECT))
        .collect()
}

/// An evaluation op's result: the op's own fields, and `warnings`, the validation errors of the
/// object whose policy was evaluated (docs/contract.md, "Evaluation warnings").
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Evaluated<T> {
    #[serde(flatten)]
    pub result: T,
    /// The evaluated object's validation errors (code `invalid-object`, severity `warning`), in
    /// the one diagnostic shape: the API server would refuse the object, so the answer is what
    /// upstream's decision code gives for an object that cannot exist. Empty for a valid object.
    pub warnings: Vec<Diagnostic>,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use super::*;
    use crate::diag::ErrorType;
    use serde_json::json;

    fn job(action: &str) -> Value {
        json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": {
            "podFailurePolicy": {"rules": [{"action": action, "onExitCodes": {"operator": "In", "values": [3]}}]},
            "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "m", "image": "i"}]}}}})
    }

    #[test]
    fn an_unsupported_rule_action_is_a_warning_in_the_diagnostic_shape() {
        let w = object_warnings(&job("Bogus"), Subject::Job, &FeatureGates::default(), &[]);
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].severity, Severity::Warning);
        assert_eq!(w[0].code.as_deref(), Some(INVALID_OBJECT));
        assert_eq!(w[0].field, "spec.podFailurePolicy.rules[0].action");
        assert_eq!(w[0].error_type, Some(ErrorType::FieldValueNotSupported));
        assert!(w[0].message.contains("\"Bogus\""), "{}", w[0].message);
    }

    #[test]
    fn a_valid_object_has_no_warnings() {
        assert!(
            object_warnings(&job("Count"), Subject::Job, &FeatureGates::default(), &[]).is_empty()
        );
    }

    #[test]
    fn an_object_without_kind_is_validated_as_the_subject() {
        let mut j = job("Bogus");
        let m = j.as_object_mut().unwrap();
        m.remove("kind");
        m.remove("apiVersion");
        let w = object_warnings(&j, Subject::Job, &FeatureGates::default(), &[]);
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].field, "spec.podFailurePolicy.rules[0].action");
    }

    #[test]
    fn the_result_carries_the_warnings_beside_its_own_fields() {
        let v = serde_json::to_value(Evaluated {
            result: json!({"action": "Count"}),
            warnings: vec![],
        })
        .unwrap();
        assert_eq!(v, json!({"action": "Count", "warnings": []}));
    }
}
