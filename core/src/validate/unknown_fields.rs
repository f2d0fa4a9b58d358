//! Fields the targeted Kubernetes minor does not know, found as kube-apiserver's decoder finds
//! them and reported as its field validation reports them (`fieldValidation`: `Strict` refuses
//! the request with a strict decoding error, `Warn` answers with a warning, `Ignore` says
//! nothing; the field is dropped in the last two). The fields of every API type the workload
//! kinds reach, per minor, come from each release's OpenAPI (`crate::generated::k8s_schema`), so
//! a field a minor does not have yet (`restartPolicyRules` before 1.34) is unknown there, as it
//! is to that minor's API server, and a misspelt one is unknown everywhere.

use crate::diag::{Diagnostic, FieldPath, Findings, Origin, Severity};
use crate::generated::k8s_schema::{KINDS, TYPES};
use crate::generated::schema_types::{Field, Type, Value as Shape};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::cmp::Ordering;

/// The API's `fieldValidation`: what the API server does with an unknown or duplicate field.
/// kubectl sends `Strict` by default (`--validate=strict`); a client that sends nothing gets the
/// server's default, `Warn`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum FieldValidation {
    /// The request fails: `strict decoding error: unknown field "…"`.
    Strict,
    /// The field is dropped, with a warning.
    #[default]
    Warn,
    /// The field is dropped silently.
    Ignore,
}

/// The type with this Go name (`Pod`, `JobTemplateSpec`, `Container`, …).
pub fn type_named(name: &str) -> Option<u16> {
    TYPES
        .iter()
        .position(|t| t.name == name)
        .and_then(|i| u16::try_from(i).ok())
}

/// The root type of a kind Kubernetes 1.`minor` creates, by its `apiVersion` (`apps/v1`, `v1`)
/// and kind.
pub fn kind_type(api_version: &str, kind: &str, minor: u32) -> Option<u16> {
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    KINDS
        .iter()
        .find(|k| {
            k.group == group
                && k.version == version
                && k.kind == kind
                && k.since <= minor
                && minor <= k.until
        })
        .map(|k| k.type_)
}

fn type_at(id: u16) -> Option<&'static Type> {
    TYPES.get(usize::from(id))
}

/// The order the generated field lists are sorted in: by length, then by bytes. Field names of
/// one type mostly differ in length, so most probes compare two integers and no bytes; this
/// runs for every key of every object of every validation.
fn by_length_then_bytes(name: &str, key: &str) -> Ordering {
    name.len()
        .cmp(&key.len())
        .then_with(|| name.as_bytes().cmp(key.as_bytes()))
}

pub(super) fn field_of(t: &'static Type, key: &str) -> Option<&'static Field> {
    t.fields
        .binary_search_by(|f| by_length_then_bytes(f.name, key))
        .ok()
        .and_then(|i| t.fields.get(i))
}

/// The field names Kubernetes 1.`minor` knows at `path` (field names; `None` for a list's or a
/// map's item) below an object of the Go type `type_` (`Pod`, `Job`, ...): what an editor offers
/// to complete. None where the path leaves the typed schema (a free-form value, an unknown field).
pub fn names_at(type_: &str, path: &[Option<&str>], minor: u32) -> Option<Vec<&'static str>> {
    let mut known = type_at(type_named(type_)?)?;
    let mut value: Option<Shape> = None;
    for step in path {
        match (step, value) {
            (None, Some(Shape::List(item) | Shape::Map(item))) => value = Some(*item),
            (Some(name), None | Some(Shape::Object(_))) => {
                if let Some(Shape::Object(id)) = value {
                    known = type_at(id)?;
                }
                let field =
                    field_of(known, name).filter(|f| f.since <= minor && minor <= f.until)?;
                value = Some(field.value);
            }
            _ => return None,
        }
    }
    if let Some(v) = value {
        let Shape::Object(id) = v else { return None };
        known = type_at(id)?;
    }
    Some(
        known
            .fields
            .iter()
            .filter(|f| f.since <= minor && minor <= f.until)
            .map(|f| f.name)
            .collect(),
    )
}

/// One field the minor does not know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unknown {
    pub path: FieldPath,
    pub key: String,
    /// The Go type it was found in.
    pub type_name: &'static str,
    /// The minors that do have it (since, until), if any supported minor does.
    pub elsewhere: Option<(u32, u32)>,
    /// A field of that type the minor knows whose name is close (a likely misspelling).
    pub did_you_mean: Option<&'static str>,
}

impl Unknown {
    /// Why the field is unknown, for messages.
    fn reason(&self, minor: u32) -> String {
        let mut s = match self.elsewhere {
            Some((since, _)) if since > minor => format!(
                "Kubernetes 1.{minor}'s {} has no field {:?}; it was added in 1.{since}",
                self.type_name, self.key
            ),
            Some((since, until)) => format!(
                "Kubernetes 1.{minor}'s {} has no field {:?}; only {} had it",
                self.type_name,
                self.key,
                if since == until {
                    format!("1.{since}")
                } else {
                    format!("1.{since} to 1.{until}")
                }
            ),
            None => format!("{} has no field {:?}", self.type_name, self.key),
        };
        if let Some(d) = self.did_you_mean {
            s.push_str(&format!("; did you mean {d:?}?"));
        }
        s
    }

    /// The diagnostic the API server's field validation gives for it (none under `Ignore`).
    pub fn diagnostic(&self, minor: u32, mode: FieldValidation) -> Option<Diagnostic> {
        let p = self.path.as_str();
        let (severity, message) = match mode {
            FieldValidation::Ignore => return None,
            FieldValidation::Strict => (
                Severity::Error,
                format!(
                    "strict decoding error: unknown field {p:?} ({}); kubectl's default --validate=strict refuses the request",
                    self.reason(minor)
                ),
            ),
            FieldValidation::Warn => (
                Severity::Warning,
                format!(
                    "unknown field {p:?} ({}); the API server drops it (under kubectl's default --validate=strict it refuses the request)",
                    self.reason(minor)
                ),
            ),
        };
        Some(
            Diagnostic::lint("unknown-field", &self.path, message)
                .with_severity(severity)
                .with_origin(Origin::KubeApiserver),
        )
    }
}

impl Unknown {
    /// The warning for a field of a KubeletConfiguration the kubelet does not know. The kubelet
    /// reads its file itself, never through kubectl or kube-apiserver (so `--validate` and
    /// `fieldValidation` have no say): its strict decoding fails, and it decodes the file again
    /// leniently, which ignores the field, and starts (k8s.io/kubernetes
    /// pkg/kubelet/kubeletconfig/util/codec DecodeKubeletConfiguration, every minor 1.31 to
    /// 1.37).
    pub fn kubelet_diagnostic(&self, minor: u32) -> Diagnostic {
        let p = self.path.as_str();
        Diagnostic::lint(
            "unknown-field",
            &self.path,
            format!(
                "unknown field {p:?} ({}): the kubelet's strict decoding fails (strict decoding error: unknown field {p:?}), so it falls back to lenient decoding, which ignores {p:?}, and starts (it logs \"Using lenient decoding as strict decoding failed\"); kubectl and kube-apiserver never read this file",
                self.reason(minor)
            ),
        )
        .with_origin(Origin::Kubelet)
    }
}

/// The closest field name of `t` at `minor` to `key`, when close enough to be a misspelling.
fn closest(t: &'static Type, key: &str, minor: u32) -> Option<&'static str> {
    let lower = key.to_ascii_lowercase();
    t.fields
        .iter()
        .filter(|f| f.since <= minor && minor <= f.until)
        .map(|f| (edit_distance(&f.name.to_ascii_lowercase(), &lower), f.name))
        .filter(|(d, name)| *d <= 2.max(name.len() / 5))
        .min()
        .map(|(_, n)| n)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev.get(j).copied().unwrap_or(0) + usize::from(ca != *cb);
            let del = prev.get(j + 1).copied().unwrap_or(0) + 1;
            let ins = cur.get(j).copied().unwrap_or(0) + 1;
            cur.push(sub.min(del).min(ins));
        }
        prev = cur;
    }
    prev.last().copied().unwrap_or(0)
}

/// What the walk passes over: the contents of `restartPolicyRules` items when restartkit's
/// RestartRulesFuture proposal reads its own `when` there.
#[derive(Debug, Clone, Copy, Default)]
pub struct Allow {
    pub future_rules: bool,
}

/// Every field of `value` (an object of type `type_`, at `at`) that Kubernetes 1.`minor` does
/// not know, at any depth.
pub fn find(type_: u16, value: &Value, at: &FieldPath, minor: u32, allow: Allow) -> Vec<Unknown> {
    let mut out = Vec::new();
    if let Some(t) = type_at(type_) {
        walk_object(t, value, at, minor, allow, &mut out);
    }
    out
}

fn walk_object(
    t: &'static Type,
    value: &Value,
    at: &FieldPath,
    minor: u32,
    allow: Allow,
    out: &mut Vec<Unknown>,
) {
    let Some(map) = value.as_object() else {
        return; // a type error, which decoding reports
    };
    for (key, v) in map {
        match field_of(t, key) {
            Some(f) if f.since <= minor && minor <= f.until => {
                if allow.future_rules && t.name == "ContainerRestartRule" && key == "when" {
                    continue;
                }
                walk_value(&f.value, v, &at.child(key), minor, allow, out);
            }
            found => {
                if allow.future_rules && t.name == "ContainerRestartRule" && key == "when" {
                    continue;
                }
                out.push(Unknown {
                    path: at.child(key),
                    key: key.clone(),
                    type_name: t.name,
                    elsewhere: found.map(|f| (f.since, f.until)),
                    did_you_mean: if found.is_none() {
                        closest(t, key, minor)
                    } else {
                        None
                    },
                });
            }
        }
    }
}

fn walk_value(
    shape: &Shape,
    v: &Value,
    at: &FieldPath,
    minor: u32,
    allow: Allow,
    out: &mut Vec<Unknown>,
) {
    match (shape, v) {
        (Shape::Object(id), Value::Object(_)) => {
            if let Some(t) = type_at(*id) {
                walk_object(t, v, at, minor, allow, out);
            }
        }
        (Shape::List(inner), Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                walk_value(inner, item, &at.index(i), minor, allow, out);
            }
        }
        (Shape::Map(inner), Value::Object(m)) => {
            for (k, item) in m {
                walk_value(inner, item, &at.key(k), minor, allow, out);
            }
        }
        _ => {}
    }
}

/// Removes what `find` reports: the object as the minor's API server decodes it (it drops
/// unknown fields under `Warn` and `Ignore`).
pub fn prune(type_: u16, value: &mut Value, minor: u32, allow: Allow) {
    if let Some(t) = type_at(type_) {
        prune_object(t, value, minor, allow);
    }
}

fn prune_object(t: &'static Type, value: &mut Value, minor: u32, allow: Allow) {
    let Some(map) = value.as_object_mut() else {
        return;
    };
    map.retain(|key, v| {
        if allow.future_rules && t.name == "ContainerRestartRule" && key == "when" {
            return true;
        }
        match field_of(t, key) {
            Some(f) if f.since <= minor && minor <= f.until => {
                prune_value(&f.value, v, minor, allow);
                true
            }
            _ => false,
        }
    });
}

fn prune_value(shape: &Shape, v: &mut Value, minor: u32, allow: Allow) {
    match (shape, v) {
        (Shape::Object(id), v @ Value::Object(_)) => {
            if let Some(t) = type_at(*id) {
                prune_object(t, v, minor, allow);
            }
        }
        (Shape::List(inner), Value::Array(items)) => {
            for item in items {
                prune_value(inner, item, minor, allow);
            }
        }
        (Shape::Map(inner), Value::Object(m)) => {
            for item in m.values_mut() {
                prune_value(inner, item, minor, allow);
            }
        }
        _ => {}
    }
}

/// Reports the unknown fields of `value` (of type `type_`) under `mode` into `out`, and returns
/// the object as the API server goes on with it: `None` when nothing is unknown (use `value`),
/// else a copy without them.
pub fn check(
    type_: u16,
    value: &Value,
    at: &FieldPath,
    minor: u32,
    mode: FieldValidation,
    allow: Allow,
    out: &mut Findings,
) -> Option<Value> {
    let unknown = find(type_, value, at, minor, allow);
    if unknown.is_empty() {
        return None;
    }
    for u in &unknown {
        if let Some(d) = u.diagnostic(minor, mode) {
            out.push(d);
        }
    }
    let mut pruned = value.clone();
    prune(type_, &mut pruned, minor, allow);
    Some(pruned)
}

/// The Kubernetes minor whose API types the JobSet CRD's schema embeds: sigs.k8s.io/jobset v0.12.0
/// generates it from k8s.io/api v0.36.0 (its go.mod), whatever minor the cluster runs.
pub const JOBSET_SCHEMA_MINOR: u32 = 36;

/// The diagnostic for a field an op's input carries that the minor does not know: a warning,
/// whatever the field validation, as the op answers for the object its components see.
fn ignored(u: &Unknown, minor: u32) -> Diagnostic {
    Diagnostic::lint(
        "unknown-field",
        &u.path,
        format!(
            "{}: ignored ({}): the components of Kubernetes 1.{minor} never see it, as its API server drops it",
            u.path,
            u.reason(minor)
        ),
    )
}

/// Drops from `v` (of type `type_`, at `at`) what `minor` does not know, reporting it.
fn prune_reporting(
    type_: u16,
    v: &mut Value,
    at: &FieldPath,
    minor: u32,
    allow: Allow,
    out: &mut Vec<Diagnostic>,
) {
    let unknown = find(type_, v, at, minor, allow);
    if !unknown.is_empty() {
        out.extend(unknown.iter().map(|u| ignored(u, minor)));
        prune(type_, v, minor, allow);
    }
}

/// [`prune_reporting`] for an object of any kind: the built-in kinds by their type, a JobSet's
/// Job templates against the JobSet CRD's schema and then against `minor` (whose API server
/// drops the rest from the Jobs the JobSet controller creates).
pub fn prune_any_kind(
    v: &mut Value,
    at: &FieldPath,
    minor: u32,
    allow: Allow,
    out: &mut Vec<Diagnostic>,
) {
    let api_version = v
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let group = api_version
        .rsplit_once('/')
        .map_or("", |(g, _)| g)
        .to_owned();
    let kind = v
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    if let Some(t) = kind_type(&api_version, &kind, minor) {
        prune_reporting(t, v, at, minor, allow, out);
        return;
    }
    if (group.as_str(), kind.as_str()) != ("jobset.x-k8s.io", "JobSet") {
        return;
    }
    let Some(tmpl) = type_named("JobTemplateSpec") else {
        return;
    };
    let rjs = at.child("spec").child("replicatedJobs");
    let Some(list) = v
        .get_mut("spec")
        .and_then(|s| s.get_mut("replicatedJobs"))
        .and_then(Value::as_array_mut)
    else {
        return;
    };
    for (i, rj) in list.iter_mut().enumerate() {
        if let Some(t) = rj.get_mut("template") {
            let tp = rjs.index(i).child("template");
            prune_reporting(tmpl, t, &tp, JOBSET_SCHEMA_MINOR, allow, out);
            prune_reporting(tmpl, t, &tp, minor, allow, out);
        }
    }
}

/// Where an op's input carries Kubernetes objects (the `carries` column of the op table,
/// `contract::OPS`): what [`prune_op_input`] prunes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Carried {
    /// The member holds one object of the named type (`("pod", "Pod")`).
    One(&'static str, &'static str),
    /// The member holds a list of objects of the named type.
    List(&'static str, &'static str),
    /// The member holds an object of whatever kind it names (`whatIf`'s object, a JobSet).
    AnyKind(&'static str),
    /// `scenario.workload`, judged at the scenario's own minor (the sweeps).
    ScenarioWorkload,
    /// The member holds a KubeletConfiguration: the kubelet reads it itself, leniently where
    /// strictly it cannot, so an unknown field is a kubelet warning, never kube-apiserver's.
    KubeletConfig(&'static str),
}

/// Drops from an op's input, in place, the fields of the Kubernetes objects it carries (the op's
/// [`Carried`] members) that the requested minor does not know (its API server drops them, so
/// its kubelet and controllers never see them: `restartPolicyRules` is no rule at all in 1.33),
/// returning a warning for each. The `validate` op does this itself, under the request's field
/// validation.
pub fn prune_op_input(carried: &[Carried], input: &mut Value) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if carried.is_empty() {
        return out;
    }
    let minor = match input.get("kubernetesVersion").and_then(Value::as_str) {
        None => crate::features::NEWEST_MINOR,
        Some(v) => match crate::KubeVersion::parse(v) {
            Ok(k) => k.minor,
            Err(_) => return out, // the op refuses the request
        },
    };
    let allow = Allow {
        future_rules: input
            .get("proposals")
            .and_then(Value::as_array)
            .is_some_and(|p| p.iter().any(|x| x == "RestartRulesFuture")),
    };
    for c in carried {
        match *c {
            Carried::One(key, type_) | Carried::List(key, type_) => {
                let (Some(t), Some(v)) = (type_named(type_), input.get_mut(key)) else {
                    continue;
                };
                let at = FieldPath::new(key);
                match (matches!(c, Carried::List(..)), v) {
                    (true, Value::Array(items)) => {
                        for (i, item) in items.iter_mut().enumerate() {
                            prune_reporting(t, item, &at.index(i), minor, allow, &mut out);
                        }
                    }
                    (false, v) => prune_reporting(t, v, &at, minor, allow, &mut out),
                    _ => {}
                }
            }
            Carried::AnyKind(key) => {
                if let Some(o) = input.get_mut(key) {
                    prune_any_kind(o, &FieldPath::new(key), minor, allow, &mut out);
                }
            }
            Carried::KubeletConfig(key) => {
                if let (Some(t), Some(v)) = (type_named("KubeletConfiguration"), input.get_mut(key))
                {
                    let unknown = find(t, v, &FieldPath::new(key), minor, allow);
                    if !unknown.is_empty() {
                        out.extend(unknown.iter().map(|u| u.kubelet_diagnostic(minor)));
                        prune(t, v, minor, allow);
                    }
                }
            }
            Carried::ScenarioWorkload => {
                let sc_minor = input
                    .get("scenario")
                    .and_then(|s| s.get("kubernetesVersion"))
                    .and_then(Value::as_str)
                    .map_or(Some(crate::features::NEWEST_MINOR), |v| {
                        crate::KubeVersion::parse(v).ok().map(|k| k.minor)
                    });
                if let (Some(m), Some(o)) = (
                    sc_minor,
                    input
                        .get_mut("scenario")
                        .and_then(|s| s.get_mut("workload")),
                ) {
                    prune_any_kind(
                        o,
                        &FieldPath::new("scenario").child("workload"),
                        m,
                        allow,
                        &mut out,
                    );
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use super::*;
    use serde_json::json;

    fn fields(type_: &str, v: Value, minor: u32) -> Vec<String> {
        find(
            type_named(type_).unwrap(),
            &v,
            &FieldPath::root(),
            minor,
            Allow::default(),
        )
        .into_iter()
        .map(|u| u.path.as_str().to_owned())
        .collect()
    }

    #[test]
    fn the_tables_are_sorted_for_binary_search() {
        for t in TYPES {
            assert!(
                t.fields
                    .windows(2)
                    .all(|w| by_length_then_bytes(w[0].name, w[1].name) == Ordering::Less),
                "{}",
                t.name
            );
            for f in t.fields {
                let mut s = &f.value;
                while let Shape::List(i) | Shape::Map(i) = s {
                    s = i;
                }
                if let Shape::Object(id) = s {
                    assert!(type_at(*id).is_some(), "{}.{}", t.name, f.name);
                }
            }
        }
        for k in KINDS {
            assert_eq!(type_at(k.type_).map(|t| t.name), Some(k.kind));
        }
    }

    #[test]
    fn typos_are_found_at_every_depth() {
        let job = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "lables": {}},
            "spec": {"backofLimit": 3, "podFailurePolicy": {"rules": [{"action": "Ignore", "onPodCondition": [{"type": "DisruptionTarget"}]}]},
                     "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "a", "image": "i", "restartPolicyRule": []}],
                                           "volumes": [{"name": "v", "emptyDir": {"sizeLimt": "1Gi"}}]}}},
            "status": {"whatever": 1}});
        assert_eq!(
            fields("Job", job, 37),
            vec![
                "metadata.lables",
                "spec.backofLimit",
                "spec.podFailurePolicy.rules[0].onPodCondition",
                "spec.template.spec.containers[0].restartPolicyRule",
                "spec.template.spec.volumes[0].emptyDir.sizeLimt",
                "status.whatever",
            ]
        );
    }

    #[test]
    fn a_field_is_unknown_where_the_minor_does_not_have_it() {
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "c", "image": "i", "restartPolicy": "Never",
                "restartPolicyRules": [{"action": "Restart", "exitCodes": {"operator": "In", "values": [42]}}]}]}});
        assert!(fields("Pod", pod.clone(), 34).is_empty());
        assert!(fields("Pod", pod.clone(), 37).is_empty());
        let at_33 = find(
            type_named("Pod").unwrap(),
            &pod,
            &FieldPath::root(),
            33,
            Allow::default(),
        );
        assert_eq!(at_33.len(), 1);
        let u = &at_33[0];
        assert_eq!(u.path.as_str(), "spec.containers[0].restartPolicyRules");
        assert_eq!(u.elsewhere, Some((34, 37)));
        let d = u.diagnostic(33, FieldValidation::Strict).unwrap();
        assert_eq!(d.severity, Severity::Error);
        assert!(
            d.message.starts_with("strict decoding error: unknown field \"spec.containers[0].restartPolicyRules\" (Kubernetes 1.33's Container has no field \"restartPolicyRules\"; it was added in 1.34)"),
            "{}",
            d.message
        );
        assert_eq!(
            u.diagnostic(33, FieldValidation::Warn).unwrap().severity,
            Severity::Warning
        );
        assert!(u.diagnostic(33, FieldValidation::Ignore).is_none());
        // As the 1.33 API server decodes it: the field is gone, restartPolicy (which 1.33 has) stays.
        let mut pruned = pod.clone();
        prune(
            type_named("Pod").unwrap(),
            &mut pruned,
            33,
            Allow::default(),
        );
        assert_eq!(
            pruned["spec"]["containers"][0],
            json!({"name": "c", "image": "i", "restartPolicy": "Never"})
        );
    }

    #[test]
    fn misspellings_get_a_suggestion() {
        let pod = json!({"spec": {"containers": [{"name": "c", "restartPolicyRule": []}], "restartpolicy": "Never"}});
        let u = find(
            type_named("Pod").unwrap(),
            &pod,
            &FieldPath::root(),
            37,
            Allow::default(),
        );
        let names: Vec<_> = u.iter().map(|u| (u.key.as_str(), u.did_you_mean)).collect();
        assert!(
            names.contains(&("restartPolicyRule", Some("restartPolicyRules"))),
            "{names:?}"
        );
        assert!(
            names.contains(&("restartpolicy", Some("restartPolicy"))),
            "{names:?}"
        );
    }

    #[test]
    fn every_field_of_a_full_pod_is_known() {
        let pod = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "n", "labels": {"a": "b"}, "annotations": {}, "ownerReferences": [],
                         "managedFields": [{"manager": "m", "fieldsV1": {"f:spec": {}}}]},
            "spec": {"restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "nodeSelector": {}, "tolerations": [],
                     "initContainers": [{"name": "s", "image": "i", "restartPolicy": "Always", "startupProbe": {"exec": {"command": ["true"]}}}],
                     "containers": [{"name": "c", "image": "i", "command": [], "env": [{"name": "A", "valueFrom": {"fieldRef": {"fieldPath": "x"}}}],
                                     "resources": {"limits": {"cpu": "1"}}, "volumeMounts": [],
                                     "restartPolicy": "Never", "restartPolicyRules": [{"action": "Restart", "exitCodes": {"operator": "In", "values": [42]}}]}],
                     "ephemeralContainers": [{"name": "d", "image": "i", "targetContainerName": "c"}]}});
        assert!(fields("Pod", pod, 37).is_empty());
    }

    /// Fields new in Kubernetes 1.37 (the newest modelled release) are known there only.
    #[test]
    fn fields_new_in_1_37_are_known_there() {
        let job = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
            "spec": {"scheduling": {"schedulingPolicy": {"gang": {"minCount": 2}}}, "parallelism": 2,
                     "template": {"spec": {"restartPolicy": "Never", "evictionResponders": [], "containers": [{"name": "a", "image": "i"}]}}}});
        assert!(fields("Job", job.clone(), 37).is_empty());
        assert_eq!(
            fields("Job", job, 36),
            vec!["spec.scheduling", "spec.template.spec.evictionResponders"]
        );
    }

    #[test]
    fn the_future_rules_proposal_keeps_its_when() {
        let pod = json!({"spec": {"containers": [{"name": "c", "restartPolicy": "Never",
            "restartPolicyRules": [{"action": "Restart", "when": {"exitCodes": {"operator": "In", "values": [1]}}}]}]}});
        let t = type_named("Pod").unwrap();
        assert_eq!(
            find(t, &pod, &FieldPath::root(), 37, Allow::default()).len(),
            1
        );
        assert!(
            find(
                t,
                &pod,
                &FieldPath::root(),
                37,
                Allow { future_rules: true }
            )
            .is_empty()
        );
    }
}
