//! Fields the API server does not know, reported as warnings the way kubectl's field validation
//! does (kube-apiserver drops them; under `--validate=strict`, kubectl's default, the request is
//! rejected). Checked in the objects restartkit validates and the parts their restart and
//! failure behaviour lives in (see `known_fields.rs`: Pod, PodSpec, containers, Job, JobSpec,
//! podFailurePolicy, successPolicy, workload templates, metadata); deeper types (volumes, probes,
//! affinity) are not looked into. Names come from the newest modelled Kubernetes release.

use super::known_fields::{KnownType, NOT_CHECKED, SOURCE, TYPES};
use crate::diag::{Diagnostic, FieldPath, Findings};
use serde_json::Value;
use std::cmp::Ordering;

fn type_named(name: &str) -> Option<&'static KnownType> {
    TYPES
        .binary_search_by(|t| t.name.cmp(name))
        .ok()
        .and_then(|i| TYPES.get(i))
}

/// The order the generated field lists are sorted in: by length, then by bytes. Field names of
/// one type mostly differ in length, so most probes compare two integers and no bytes; this
/// runs for every key of every checked object of every validation.
fn by_length_then_bytes(name: &str, key: &str) -> Ordering {
    name.len()
        .cmp(&key.len())
        .then_with(|| name.as_bytes().cmp(key.as_bytes()))
}

/// The field names the API server knows at `path` (field names; `None` for a list's item) below
/// an object of Kubernetes type `type_`, where the generated table reaches (for editors'
/// completion). None past what the table covers.
pub fn names_at(type_: &str, path: &[Option<&str>]) -> Option<Vec<&'static str>> {
    let mut known = type_named(type_)?;
    for step in path {
        let Some(name) = step else { continue };
        let (_, index) = known.fields.iter().find(|(f, _)| f == name)?;
        if *index == NOT_CHECKED {
            return None;
        }
        known = TYPES.get(usize::from(*index))?;
    }
    Some(known.fields.iter().map(|(f, _)| *f).collect())
}

/// One step below the path `check` started at: a field name or a list index.
#[derive(Clone, Copy)]
enum Step<'a> {
    Field(&'a str),
    Index(usize),
}

/// Reports every field of `value` (an object of Kubernetes type `type_`, at `at`) that the type
/// does not have, then looks into the fields whose types are checked.
pub fn check(type_: &str, value: &Value, at: &FieldPath, out: &mut Findings) {
    let Some(known) = type_named(type_) else {
        return;
    };
    // The walk keeps the steps below `at` on a stack and spells a path out only for an unknown
    // field: almost every manifest has none, and this runs on every validation.
    let mut steps: Vec<Step> = Vec::with_capacity(16);
    walk(known, value, at, &mut steps, out);
}

fn walk<'a>(
    known: &KnownType,
    value: &'a Value,
    at: &FieldPath,
    steps: &mut Vec<Step<'a>>,
    out: &mut Findings,
) {
    let Some(map) = value.as_object() else {
        return;
    };
    for (key, v) in map {
        match known
            .fields
            .binary_search_by(|(name, _)| by_length_then_bytes(name, key))
        {
            Err(_) => {
                let p = path_of(at, steps).child(key);
                out.push(Diagnostic::lint(
                    "unknown-field",
                    &p,
                    format!("{p}: unknown field {key:?} ({} has no such field in {SOURCE}); the API server drops it, and kubectl's strict field validation rejects the request", known.name),
                ));
            }
            Ok(i) => {
                let child = known.fields.get(i).map_or(NOT_CHECKED, |(_, t)| *t);
                let Some(child) = TYPES.get(usize::from(child)) else {
                    continue; // NOT_CHECKED
                };
                steps.push(Step::Field(key));
                match v {
                    Value::Array(items) => {
                        for (j, item) in items.iter().enumerate() {
                            steps.push(Step::Index(j));
                            walk(child, item, at, steps, out);
                            steps.pop();
                        }
                    }
                    other => walk(child, other, at, steps, out),
                }
                steps.pop();
            }
        }
    }
}

fn path_of(at: &FieldPath, steps: &[Step]) -> FieldPath {
    steps.iter().fold(at.clone(), |p, s| match s {
        Step::Field(name) => p.child(name),
        Step::Index(i) => p.index(*i),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use super::*;
    use serde_json::json;

    fn fields(type_: &str, v: Value) -> Vec<String> {
        let mut out = Findings::default();
        check(type_, &v, &FieldPath::root(), &mut out);
        assert!(out.errors.is_empty());
        out.warnings.into_iter().map(|d| d.field).collect()
    }

    #[test]
    fn the_tables_are_sorted_for_binary_search() {
        assert!(TYPES.windows(2).all(|w| w[0].name < w[1].name));
        assert!(TYPES.len() < usize::from(NOT_CHECKED));
        for t in TYPES {
            assert!(
                t.fields
                    .windows(2)
                    .all(|w| by_length_then_bytes(w[0].0, w[1].0) == Ordering::Less),
                "{}",
                t.name
            );
            for (f, child) in t.fields {
                assert!(*child == NOT_CHECKED || TYPES.get(usize::from(*child)).is_some(), "{}.{f}", t.name);
            }
        }
    }

    #[test]
    fn typos_are_found_where_restart_behaviour_lives() {
        let job = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "lables": {}},
            "spec": {"backofLimit": 3, "podFailurePolicy": {"rules": [{"action": "Ignore", "onPodCondition": [{"type": "DisruptionTarget"}]}]},
                     "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "a", "image": "i", "restartPolicyRule": []}],
                                           "volumes": [{"name": "v", "emptyDir": {"sizeLimt": "1Gi"}}]}}},
            "status": {"whatever": 1}});
        assert_eq!(
            fields("Job", job),
            vec![
                "metadata.lables",
                "spec.backofLimit",
                "spec.podFailurePolicy.rules[0].onPodCondition",
                "spec.template.spec.containers[0].restartPolicyRule",
            ],
            "volumes and status are not looked into"
        );
    }

    #[test]
    fn every_field_of_a_full_pod_is_known() {
        let pod = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "n", "labels": {"a": "b"}, "annotations": {}, "ownerReferences": []},
            "spec": {"restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "nodeSelector": {}, "tolerations": [],
                     "initContainers": [{"name": "s", "image": "i", "restartPolicy": "Always", "startupProbe": {}}],
                     "containers": [{"name": "c", "image": "i", "command": [], "env": [], "resources": {}, "volumeMounts": [],
                                     "restartPolicy": "Never", "restartPolicyRules": [{"action": "Restart", "exitCodes": {"operator": "In", "values": [42]}}]}],
                     "ephemeralContainers": [{"name": "d", "image": "i", "targetContainerName": "c"}]}});
        assert!(fields("Pod", pod).is_empty());
    }

    /// Fields new in k8s.io/api v0.37 (the newest modelled release) are known.
    #[test]
    fn fields_new_in_1_37_are_known() {
        let job = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
            "spec": {"scheduling": {"schedulingPolicy": {"gang": {"minCount": 2}}}, "parallelism": 2,
                     "template": {"spec": {"restartPolicy": "Never", "evictionResponders": [], "containers": [{"name": "a", "image": "i"}]}}}});
        assert!(fields("Job", job).is_empty());
        assert_eq!(SOURCE, "k8s.io/api@v0.37.2");
    }
}
