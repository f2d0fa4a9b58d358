//! The upgrade check (`compareVersions`): the same manifests judged by two Kubernetes minors, and
//! what changes between them, document by document: admitted by one and refused by the other,
//! errors and warnings that appear or go, and the decisions (the kubelet's, the Job's, the
//! JobSet's) that differ for the same container exit. Each change says, where it is known, the
//! upstream change that explains it: a field a minor adds, a feature gate whose stage or default
//! moves between the two, or a change in upstream's code this module names.

use crate::diag::{Diagnostic, Severity};
use crate::features::{GATES, KubeVersion, Stage, stage_at};
use crate::validate::unknown_fields::FieldValidation;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CompareVersionsInput {
    /// YAML or JSON text, one or more documents (as `validate`'s `source`).
    #[serde(default)]
    pub source: Option<String>,
    /// One object (API JSON), instead of `source`.
    #[serde(default)]
    pub object: Option<Value>,
    /// Shown in diagnostics; not read.
    #[serde(default)]
    pub file_name: Option<String>,
    /// The minor the manifests run on today (`1.34`, or a full version).
    pub from_version: String,
    /// The minor to compare with (the upgrade's target).
    pub to_version: String,
    /// Gate overrides for both minors.
    #[serde(default)]
    pub feature_gates: Option<BTreeMap<String, bool>>,
    /// Gate overrides for `fromVersion` only (over `featureGates`).
    #[serde(default)]
    pub from_feature_gates: Option<BTreeMap<String, bool>>,
    /// Gate overrides for `toVersion` only (over `featureGates`).
    #[serde(default)]
    pub to_feature_gates: Option<BTreeMap<String, bool>>,
    /// As `validate`'s (default `Warn`; kubectl's is `Strict`).
    #[serde(default)]
    pub field_validation: FieldValidation,
    /// Exit codes to compare decisions for; default: 0, 1, 137 and every code the object's
    /// rules name (at most 16).
    #[serde(default)]
    pub exit_codes: Option<Vec<i32>>,
}

/// One side of a document's comparison.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Side {
    pub valid: bool,
    pub errors: usize,
    pub warnings: usize,
}

/// What changes between the two minors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ChangeKind {
    /// Admitted by `fromVersion`, refused by `toVersion`.
    Refused,
    /// Refused by `fromVersion`, admitted by `toVersion`.
    Admitted,
    ErrorAdded,
    ErrorRemoved,
    WarningAdded,
    WarningRemoved,
    /// A container exit is decided differently.
    Decision,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Change {
    pub kind: ChangeKind,
    /// The field the change is about (a diagnostic's), if any.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub field: String,
    /// What is said, on the side where it is said (for a decision: both sides).
    pub message: String,
    /// The upstream change that explains it, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explanation: Option<String>,
    /// For a decision: the exit, and each side's outcome.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// 1-based line of the field in the source, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DocumentComparison {
    pub index: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub line: u32,
    pub from: Side,
    pub to: Side,
    pub changes: Vec<Change>,
}

/// A modelled gate whose stage or default differs between the two minors.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GateChange {
    pub name: String,
    pub from: String,
    pub to: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CompareVersionsOutput {
    pub from_version: String,
    pub to_version: String,
    pub documents: Vec<DocumentComparison>,
    /// Modelled gates whose stage or default moves between the two minors.
    pub gate_changes: Vec<GateChange>,
    /// Documents `toVersion` refuses that `fromVersion` admits.
    pub newly_refused: usize,
    /// Container exits decided differently, over every document.
    pub decisions_changed: usize,
}

fn stage_words(name: &str, minor: u32) -> String {
    match stage_at(name, minor) {
        None => format!("absent in 1.{minor}"),
        Some((Stage::Removed, on)) => {
            format!(
                "removed in 1.{minor} (always {})",
                if on { "on" } else { "off" }
            )
        }
        Some((stage, on)) => format!(
            "{} and {} by default in 1.{minor}",
            match stage {
                Stage::Alpha => "alpha",
                Stage::Beta => "beta",
                Stage::Ga => "GA",
                Stage::Deprecated => "deprecated",
                Stage::Removed => "removed",
            },
            if on { "on" } else { "off" }
        ),
    }
}

fn explain(
    message: &str,
    field: &str,
    code: Option<&str>,
    from: u32,
    to: u32,
    gates: &[GateChange],
) -> Option<String> {
    let (lo, hi) = (from.min(to), from.max(to));
    if code == Some("unknown-field") {
        // The diagnostic names the minor that added or dropped the field.
        return Some(
            "the field's presence differs between the two minors' API types (from their OpenAPI)"
                .to_owned(),
        );
    }
    if let Some(g) = gates.iter().find(|g| message.contains(&g.name)) {
        return Some(format!("feature gate {}: {} → {}", g.name, g.from, g.to));
    }
    // The upstream changes the version table (crate::versions) names for the upgrade check.
    crate::versions::FACTS
        .iter()
        .filter_map(|f| f.key.map(|key| (f.since, key, f.what)))
        .find(|(since, key, _)| {
            lo < *since
                && *since <= hi
                && (field.contains(key) || message.contains(key) || code == Some(*key))
        })
        .map(|(_, _, text)| text.to_owned())
}

fn merged(
    both: &Option<BTreeMap<String, bool>>,
    side: &Option<BTreeMap<String, bool>>,
) -> Option<BTreeMap<String, bool>> {
    match (both, side) {
        (None, None) => None,
        _ => {
            let mut m = both.clone().unwrap_or_default();
            m.extend(side.clone().unwrap_or_default());
            Some(m)
        }
    }
}

/// An op's failure, named by the side (`fromVersion`, `toVersion`, `whatIf`) it came from.
fn named(which: &str) -> impl Fn(Diagnostic) -> Diagnostic + '_ {
    move |mut d| {
        d.message = format!("{which}: {}", d.message);
        d
    }
}

/// A diagnostic as it is matched across the two minors: its field and its type or code (the
/// wording may differ between releases and still be the same finding).
fn key(d: &Diagnostic) -> (String, String) {
    (
        d.field.clone(),
        d.error_type
            .map(|t| format!("{t:?}"))
            .or_else(|| d.code.clone())
            .unwrap_or_default(),
    )
}

pub fn compare_versions(i: CompareVersionsInput) -> Result<CompareVersionsOutput, Diagnostic> {
    let from = KubeVersion::parse(&i.from_version).map_err(|mut d| {
        d.field = "fromVersion".into();
        d
    })?;
    let to = KubeVersion::parse(&i.to_version).map_err(|mut d| {
        d.field = "toVersion".into();
        d
    })?;
    let gate_changes: Vec<GateChange> = GATES
        .iter()
        .filter(|g| stage_at(g.name, from.minor) != stage_at(g.name, to.minor))
        .map(|g| GateChange {
            name: g.name.to_owned(),
            from: stage_words(g.name, from.minor),
            to: stage_words(g.name, to.minor),
        })
        .collect();
    let from_gates = merged(&i.feature_gates, &i.from_feature_gates);
    let to_gates = merged(&i.feature_gates, &i.to_feature_gates);
    let validate = |v: &KubeVersion, gates: &Option<BTreeMap<String, bool>>, which: &str| {
        crate::validate::run(crate::validate::ValidateInput {
            source: i.source.clone(),
            object: i.object.clone(),
            file_name: i.file_name.clone(),
            kubernetes_version: Some(v.as_string()),
            feature_gates: gates.clone(),
            field_validation: i.field_validation,
            ..Default::default()
        })
        .map_err(named(which))
    };
    let a = validate(&from, &from_gates, "fromVersion")?;
    let b = validate(&to, &to_gates, "toVersion")?;
    let objects = objects_of(&i);
    let summaries = if a.documents.is_empty() {
        vec![None]
    } else {
        a.documents.iter().map(Some).collect()
    };
    let mut documents = Vec::new();
    for (n, summary) in summaries.into_iter().enumerate() {
        let index = summary.map_or(0, |s| s.index);
        let of = |ds: &[Diagnostic]| -> Vec<Diagnostic> {
            ds.iter()
                .filter(|d| summary.is_none() || d.document == Some(index))
                .cloned()
                .collect()
        };
        let (ae, aw, be, bw) = (
            of(&a.errors),
            of(&a.warnings),
            of(&b.errors),
            of(&b.warnings),
        );
        let mut changes = Vec::new();
        let (a_valid, b_valid) = (ae.is_empty(), be.is_empty());
        if a_valid && !b_valid {
            changes.push(Change::plain(
                ChangeKind::Refused,
                "",
                format!("1.{} refuses what 1.{} admits", to.minor, from.minor),
            ));
        } else if !a_valid && b_valid {
            changes.push(Change::plain(
                ChangeKind::Admitted,
                "",
                format!("1.{} admits what 1.{} refuses", to.minor, from.minor),
            ));
        }
        // A finding one minor reports as an error and the other only as a warning at the same
        // field (a StatefulSet's template before 1.34) is explained by that warning's code.
        let all_warnings: Vec<&Diagnostic> = aw.iter().chain(bw.iter()).collect();
        let mut diff = |left: &[Diagnostic], right: &[Diagnostic], kind: ChangeKind| {
            for d in right {
                if !left.iter().any(|l| key(l) == key(d)) {
                    let mut c = Change::plain(kind.clone(), &d.field, d.message.clone());
                    c.line = d.line;
                    let code = all_warnings
                        .iter()
                        .find(|w| {
                            w.field == d.field
                                && w.code.as_deref() == Some("pod-template-refused-later")
                        })
                        .and_then(|w| w.code.as_deref())
                        .or(d.code.as_deref());
                    c.explanation = explain(
                        &d.message,
                        &d.field,
                        code,
                        from.minor,
                        to.minor,
                        &gate_changes,
                    );
                    changes.push(c);
                }
            }
        };
        diff(&ae, &be, ChangeKind::ErrorAdded);
        diff(&be, &ae, ChangeKind::ErrorRemoved);
        let lint = |ds: &[Diagnostic]| -> Vec<Diagnostic> {
            ds.iter()
                .filter(|d| d.severity == Severity::Warning)
                .cloned()
                .collect()
        };
        diff(&lint(&aw), &lint(&bw), ChangeKind::WarningAdded);
        diff(&lint(&bw), &lint(&aw), ChangeKind::WarningRemoved);
        if let Some(obj) = objects.get(n) {
            changes.extend(decisions(
                obj,
                &i,
                &from,
                &to,
                &from_gates,
                &to_gates,
                &gate_changes,
            ));
        }
        documents.push(DocumentComparison {
            index,
            kind: summary.and_then(|s| s.kind.clone()),
            name: summary.and_then(|s| s.name.clone()),
            line: summary.map_or(1, |s| s.line),
            from: Side {
                valid: a_valid,
                errors: ae.len(),
                warnings: aw.len(),
            },
            to: Side {
                valid: b_valid,
                errors: be.len(),
                warnings: of(&b.warnings).len(),
            },
            changes,
        });
    }
    let newly_refused = documents
        .iter()
        .filter(|d| d.changes.iter().any(|c| c.kind == ChangeKind::Refused))
        .count();
    let decisions_changed = documents
        .iter()
        .flat_map(|d| &d.changes)
        .filter(|c| c.kind == ChangeKind::Decision)
        .count();
    Ok(CompareVersionsOutput {
        from_version: from.as_string(),
        to_version: to.as_string(),
        documents,
        gate_changes,
        newly_refused,
        decisions_changed,
    })
}

impl Change {
    fn plain(kind: ChangeKind, field: &str, message: String) -> Self {
        Change {
            kind,
            field: field.to_owned(),
            message,
            explanation: None,
            container: None,
            exit_code: None,
            from: None,
            to: None,
            line: None,
        }
    }
}

/// The documents' objects, in stream order (None for one that cannot be read), to evaluate.
fn objects_of(i: &CompareVersionsInput) -> Vec<Option<Value>> {
    match (&i.object, &i.source) {
        (Some(o), _) => vec![Some(o.clone())],
        (None, Some(s)) => crate::source::read_stream(s)
            .into_iter()
            .map(|e| e.ok().map(|d| d.value))
            .collect(),
        _ => Vec::new(),
    }
}

/// The exit codes worth comparing for an object: 0, 1, 137 and every code its rules name.
fn exit_codes(obj: &Value) -> Vec<i32> {
    fn walk(v: &Value, out: &mut Vec<i32>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    if k == "values"
                        && let Some(a) = x.as_array()
                    {
                        out.extend(
                            a.iter()
                                .filter_map(Value::as_i64)
                                .filter_map(|n| i32::try_from(n).ok()),
                        );
                    }
                    walk(x, out);
                }
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut codes = vec![0, 1, 137];
    walk(obj, &mut codes);
    codes.sort_unstable();
    codes.dedup();
    codes.truncate(16);
    codes
}

/// The containers an exit can come from: (replicatedJob, container) for a JobSet, else
/// (None, container), from the object's Pod template.
fn exits_of(obj: &Value) -> Vec<(Option<String>, String)> {
    let names = |spec: Option<&Value>| -> Vec<String> {
        ["initContainers", "containers"]
            .iter()
            .filter_map(|k| spec.and_then(|s| s.get(*k)).and_then(Value::as_array))
            .flatten()
            .filter_map(|c| c.get("name").and_then(Value::as_str).map(str::to_owned))
            .collect()
    };
    let at = |v: &Value, p: &[&str]| p.iter().try_fold(v, |cur, k| cur.get(*k)).cloned();
    match obj.get("kind").and_then(Value::as_str) {
        Some("Pod") => names(obj.get("spec"))
            .into_iter()
            .map(|c| (None, c))
            .collect(),
        Some("Job") => names(at(obj, &["spec", "template", "spec"]).as_ref())
            .into_iter()
            .map(|c| (None, c))
            .collect(),
        Some("JobSet") => obj
            .get("spec")
            .and_then(|s| s.get("replicatedJobs"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .flat_map(|rj| {
                let rjn = rj.get("name").and_then(Value::as_str).map(str::to_owned);
                names(at(rj, &["template", "spec", "template", "spec"]).as_ref())
                    .into_iter()
                    .map(move |c| (rjn.clone(), c))
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// What an exit leads to, in one line: the kubelet's action, the Pod's phase, the Job's and the
/// JobSet's outcome.
fn outcome(r: &Value) -> String {
    let s = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("").to_owned();
    let mut parts = vec![format!(
        "kubelet {}{}",
        s(r.pointer("/kubelet/action")),
        if r.pointer("/kubelet/restartAllContainers") == Some(&Value::Bool(true)) {
            " (all containers)"
        } else {
            ""
        }
    )];
    parts.push(format!("Pod {}", s(r.get("podPhase"))));
    if let Some(j) = r.get("job") {
        parts.push(format!("Job {}", s(j.get("outcome"))));
    }
    if let Some(js) = r.get("jobset") {
        parts.push(format!("JobSet {}", s(js.get("action"))));
    }
    parts.join(", ")
}

fn decisions(
    obj: &Option<Value>,
    i: &CompareVersionsInput,
    from: &KubeVersion,
    to: &KubeVersion,
    from_gates: &Option<BTreeMap<String, bool>>,
    to_gates: &Option<BTreeMap<String, bool>>,
    gate_changes: &[GateChange],
) -> Vec<Change> {
    let Some(obj) = obj else { return Vec::new() };
    let codes = i.exit_codes.clone().unwrap_or_else(|| exit_codes(obj));
    let mut out = Vec::new();
    for (rj, container) in exits_of(obj) {
        for code in &codes {
            let ask = |v: &KubeVersion, gates: &Option<BTreeMap<String, bool>>| {
                let input = crate::eval::whatif::WhatIfInput {
                    object: obj.clone(),
                    container: Some(container.clone()),
                    exit_code: *code,
                    replicated_job: rj.clone(),
                    pod_conditions: Vec::new(),
                    kubernetes_version: Some(v.as_string()),
                    feature_gates: gates.clone(),
                    proposals: Vec::new(),
                    runtimes: Vec::new(),
                };
                crate::eval::whatif::what_if_any(input)
                    .map_err(named("whatIf"))
                    .and_then(|(r, _)| {
                        serde_json::to_value(r)
                            .map_err(|e| Diagnostic::request("internal", "whatIf", e.to_string()))
                    })
                    .map(|r| outcome(&r))
            };
            let (Ok(a), Ok(b)) = (ask(from, from_gates), ask(to, to_gates)) else {
                continue;
            };
            if a != b {
                let who = match &rj {
                    Some(r) => format!("{r}/{container}"),
                    None => container.clone(),
                };
                let message = format!(
                    "container {who} exiting with {code}: 1.{}: {a}; 1.{}: {b}",
                    from.minor, to.minor
                );
                let mut c = Change::plain(ChangeKind::Decision, "", message.clone());
                c.explanation = explain(
                    &format!(
                        "{message} {}",
                        serde_json::to_string(obj).unwrap_or_default()
                    ),
                    "",
                    None,
                    from.minor,
                    to.minor,
                    gate_changes,
                );
                c.container = Some(container.clone());
                c.exit_code = Some(*code);
                c.from = Some(a);
                c.to = Some(b);
                out.push(c);
            }
        }
    }
    out
}
