//! Completion: field names and values for the place the cursor is at in a manifest, from the
//! JSON Schemas of the core's types (their doc comments and `examples`) and the field names the
//! API server knows (k8s.io/api, the table the unknown-field check reads).
//!
//! The `complete` op; the language server and the playground both call it, so both offer the
//! same: after `operator: ` (nothing typed yet) `In` and `NotIn`, after `  ` in a container its
//! fields not yet written, after `kind: ` the kinds restartkit reads.

use super::text::{At, Context, Step, context_at};
#[cfg(feature = "schemas")]
use crate::diag::Diagnostic;
use crate::diag::Range;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// `complete` op input: a text and a place in it.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CompleteInput {
    /// The whole text (YAML, one or more documents).
    pub source: String,
    /// 1-based line of the cursor.
    pub line: u32,
    /// 1-based column of the cursor, in characters (the cursor is before this character).
    pub column: u32,
    #[serde(default)]
    pub kubernetes_version: Option<String>,
    #[serde(default)]
    pub feature_gates: Option<BTreeMap<String, bool>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CompleteOutput {
    /// What fits at the cursor (empty when nothing does, or the place is not in a known kind).
    pub items: Vec<CompletionItem>,
    /// The text an item replaces: the word typed so far (empty at an empty value).
    pub range: Option<Range>,
    /// The kind whose schema was used (absent for a document without `kind`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CompletionItem {
    pub label: String,
    /// `field` (a key of the mapping) or `value`.
    pub kind: ItemKind,
    /// The text to insert in place of `range` (a field's name with its colon).
    pub insert_text: String,
    /// The field's type (`string`, `integer`, `array`, `object`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The field's description (Markdown), from the core's types.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub documentation: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ItemKind {
    Field,
    Value,
}

/// The kinds restartkit reads, each with its apiVersion (the `kind:` and `apiVersion:` values it
/// offers).
pub const KINDS: &[(&str, &str)] = &[
    ("Pod", "v1"),
    ("Job", "batch/v1"),
    ("CronJob", "batch/v1"),
    ("JobSet", "jobset.x-k8s.io/v1alpha2"),
    ("Deployment", "apps/v1"),
    ("StatefulSet", "apps/v1"),
    ("DaemonSet", "apps/v1"),
    ("ReplicaSet", "apps/v1"),
    ("ReplicationController", "v1"),
    ("PodTemplate", "v1"),
    ("LeaderWorkerSet", "leaderworkerset.x-k8s.io/v1"),
    ("TrainingRuntime", "trainer.kubeflow.org/v1alpha1"),
    ("ClusterTrainingRuntime", "trainer.kubeflow.org/v1alpha1"),
    ("KubeletConfiguration", "kubelet.config.k8s.io/v1beta1"),
    ("ContainerRecreateRequest", "apps.kruise.io/v1alpha1"),
];

/// Where the completer finds the JSON Schema of a core type by its name (`Pod`, `Job`, `JobSet`,
/// `KubeletConfiguration`, `ContainerRecreateRequest`): [`schema_of`], or schemas given as JSON.
pub type SchemaSource<'a> = &'a dyn Fn(&str) -> Option<Value>;

/// The type names the completer asks a [`SchemaSource`] for.
pub const SCHEMA_NAMES: &[&str] = &[
    "Pod",
    "Job",
    "JobSet",
    "KubeletConfiguration",
    "ContainerRecreateRequest",
];

/// The JSON Schema of one of the core's types, by the kind it describes.
#[cfg(feature = "schemas")]
pub fn schema_of(name: &str) -> Option<Value> {
    use schemars::schema_for;
    let s = match name {
        "Pod" => schema_for!(crate::api::Pod),
        "Job" => schema_for!(crate::api::Job),
        "JobSet" => schema_for!(crate::api::JobSet),
        "KubeletConfiguration" => schema_for!(crate::api::KubeletConfiguration),
        "ContainerRecreateRequest" => schema_for!(crate::api::ContainerRecreateRequest),
        _ => return None,
    };
    Some(s.to_value())
}

/// Where a kind's fields are described: the schema of a core type and the path in it that
/// corresponds to the document's path (a CronJob's `spec.jobTemplate.spec` is a Job's `spec`).
/// The known-fields table's type name (k8s.io/api) is the other source.
fn schema_path(kind: &str, path: &[Step]) -> Option<(&'static str, Vec<Step>)> {
    let key = |k: &str| Step::Key(k.to_owned());
    let strip = |prefix: &[&str]| -> Option<Vec<Step>> {
        let n = prefix.len();
        (path.len() >= n && prefix.iter().zip(path).all(|(p, s)| *s == key(p)))
            .then(|| path.get(n..).unwrap_or(&[]).to_vec())
    };
    match kind {
        "Pod" | "Job" | "JobSet" | "KubeletConfiguration" | "ContainerRecreateRequest" => {
            let name = KINDS
                .iter()
                .find(|(k, _)| *k == kind)
                .map(|(k, _)| *k)
                .unwrap_or("Pod");
            Some((name, path.to_vec()))
        }
        "CronJob" => {
            if let Some(rest) = strip(&["spec", "jobTemplate", "spec"]) {
                let mut p = vec![key("spec")];
                p.extend(rest);
                Some(("Job", p))
            } else if let Some(rest) = strip(&["spec", "jobTemplate", "metadata"]) {
                let mut p = vec![key("metadata")];
                p.extend(rest);
                Some(("Job", p))
            } else {
                path.is_empty().then(|| ("Job", Vec::new()))
            }
        }
        "Deployment" | "StatefulSet" | "DaemonSet" | "ReplicaSet" | "ReplicationController" => {
            let rest = strip(&["spec", "template"])?;
            let mut p = vec![key("spec"), key("template")];
            p.extend(rest);
            Some(("Job", p))
        }
        "PodTemplate" => {
            let rest = strip(&["template"])?;
            let mut p = vec![key("spec"), key("template")];
            p.extend(rest);
            Some(("Job", p))
        }
        "TrainingRuntime" | "ClusterTrainingRuntime" => {
            let rest = strip(&["spec", "template", "spec"])?;
            let mut p = vec![key("spec")];
            p.extend(rest);
            Some(("JobSet", p))
        }
        _ => None,
    }
}

/// Follows `$ref` (to the root's `$defs`) and a nullable `anyOf` (`[X, {type: null}]`) to X.
fn resolve<'a>(root: &'a Value, mut node: &'a Value) -> &'a Value {
    for _ in 0..32 {
        if let Some(r) = node.get("$ref").and_then(Value::as_str) {
            match r
                .strip_prefix("#/$defs/")
                .and_then(|n| root.get("$defs")?.get(n))
            {
                Some(target) => {
                    node = target;
                    continue;
                }
                None => return node,
            }
        }
        if let Some(Value::Array(alts)) = node.get("anyOf").or_else(|| node.get("allOf")) {
            let real: Vec<&Value> = alts
                .iter()
                .filter(|a| a.get("type").and_then(Value::as_str) != Some("null"))
                .collect();
            if let [one] = real.as_slice() {
                node = one;
                continue;
            }
        }
        return node;
    }
    node
}

/// The schema node at `path` below `root`.
fn node_at<'a>(root: &'a Value, path: &[Step]) -> Option<&'a Value> {
    let mut node = resolve(root, root);
    for step in path {
        node = match step {
            Step::Key(k) => node.get("properties")?.get(k)?,
            Step::Item => node.get("items")?,
        };
        node = resolve(root, node);
    }
    Some(node)
}

/// A schema's type, without `null` (`["string", "null"]` is `string`).
fn type_name(node: &Value) -> Option<String> {
    match node.get("type")? {
        Value::String(s) => Some(s.clone()),
        Value::Array(ts) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .map(str::to_owned),
        _ => None,
    }
}

fn description(node: &Value) -> Option<String> {
    node.get("description")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// The values a schema node offers: its `enum`, its `examples`, `true`/`false` for a boolean.
fn values_of(node: &Value) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for key in ["enum", "examples"] {
        for v in node
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let text = match v {
                Value::String(s) => s.clone(),
                Value::Null => continue,
                other => other.to_string(),
            };
            if !out.contains(&text) {
                out.push(text);
            }
        }
    }
    if out.is_empty() && type_name(node).as_deref() == Some("boolean") {
        out = vec!["true".to_owned(), "false".to_owned()];
    }
    out
}

fn field_item(name: &str, node: Option<&Value>) -> CompletionItem {
    let detail = node.and_then(type_name);
    // A mapping or list goes on the next lines; a scalar after the colon.
    let block = matches!(detail.as_deref(), Some("object" | "array"));
    CompletionItem {
        label: name.to_owned(),
        kind: ItemKind::Field,
        insert_text: if block {
            format!("{name}:")
        } else {
            format!("{name}: ")
        },
        detail,
        documentation: node.and_then(description),
    }
}

fn value_item(value: String, documentation: Option<String>) -> CompletionItem {
    CompletionItem {
        label: value.clone(),
        kind: ItemKind::Value,
        insert_text: value,
        detail: None,
        documentation,
    }
}

/// The mapping keys Kubernetes 1.`minor` has at `path` of a kind.
fn known_names(kind: &str, path: &[Step], minor: u32) -> Vec<&'static str> {
    let steps: Vec<Option<&str>> = path
        .iter()
        .map(|s| match s {
            Step::Key(k) => Some(k.as_str()),
            Step::Item => None,
        })
        .collect();
    crate::validate::unknown_fields::names_at(kind, &steps, minor).unwrap_or_default()
}

/// The items for a context.
fn items_for(c: &Context, schemas: SchemaSource, minor: u32) -> Vec<CompletionItem> {
    let kind = c.kind.as_deref().unwrap_or("");
    // The top level of a document: apiVersion and kind first, whatever the kind.
    if c.path.is_empty()
        && let At::Value(k) = &c.at
    {
        match k.as_str() {
            "kind" => {
                return KINDS
                    .iter()
                    .map(|(k, v)| value_item((*k).to_owned(), Some(format!("apiVersion: {v}"))))
                    .collect();
            }
            "apiVersion" => {
                let mut versions: Vec<&str> = KINDS
                    .iter()
                    .filter(|(k, _)| kind.is_empty() || *k == kind)
                    .map(|(_, v)| *v)
                    .collect();
                versions.dedup();
                return versions
                    .into_iter()
                    .map(|v| value_item(v.to_owned(), None))
                    .collect();
            }
            _ => {}
        }
    }
    let described =
        schema_path(kind, &c.path).and_then(|(name, path)| Some((schemas(name)?, path)));
    let node = described
        .as_ref()
        .and_then(|(root, path)| Some((root, node_at(root, path)?)));
    match &c.at {
        At::Value(k) => {
            let Some(field) =
                node.and_then(|(root, n)| Some(resolve(root, n.get("properties")?.get(k)?)))
            else {
                return Vec::new();
            };
            let doc = description(field);
            values_of(field)
                .into_iter()
                .map(|v| value_item(v, doc.clone()))
                .collect()
        }
        At::Key | At::Item => {
            let (root, mut object) = match node {
                Some((root, n)) => (Some(root), Some(n)),
                None => (None, None),
            };
            let mut path = c.path.clone();
            if matches!(c.at, At::Item) {
                // A new list item: its values if they are scalars, the item's keys if mappings.
                let items = match (root, object) {
                    (Some(root), Some(n)) => n.get("items").map(|i| resolve(root, i)),
                    _ => None,
                };
                if let Some(items) = items
                    && type_name(items).as_deref() != Some("object")
                {
                    let doc = description(items);
                    return values_of(items)
                        .into_iter()
                        .map(|v| value_item(v, doc.clone()))
                        .collect();
                }
                object = items;
                path.push(Step::Item);
            }
            let properties: Option<&Map<String, Value>> =
                object.and_then(|n| n.get("properties")?.as_object());
            let mut names: Vec<String> = properties
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default();
            for n in known_names(kind, &path, minor) {
                if !names.iter().any(|x| x == n) {
                    names.push(n.to_owned());
                }
            }
            if path.is_empty() && names.is_empty() {
                names = ["apiVersion", "kind", "metadata", "spec"]
                    .map(str::to_owned)
                    .to_vec();
            }
            names.retain(|n| n != "status" && !c.siblings.contains(n));
            names
                .iter()
                .map(|n| {
                    let field = match (root, properties.and_then(|p| p.get(n))) {
                        (Some(root), Some(f)) => Some(resolve(root, f)),
                        _ => None,
                    };
                    field_item(n, field)
                })
                .collect()
        }
    }
}

/// A field path (`spec.containers[0].restartPolicy`) as steps.
fn steps_of(field: &str) -> Vec<Step> {
    let mut steps = Vec::new();
    for part in field.split('.').filter(|p| !p.is_empty()) {
        let mut pieces = part.split('[');
        if let Some(name) = pieces.next().filter(|n| !n.is_empty()) {
            steps.push(Step::Key(name.to_owned()));
        }
        steps.extend(pieces.map(|_| Step::Item));
    }
    steps
}

/// The type and description the core's schema gives a field of a kind, for hover.
pub fn schema_field(
    kind: &str,
    field: &str,
    schemas: SchemaSource,
) -> Option<(Option<String>, Option<String>)> {
    let (name, path) = schema_path(kind, &steps_of(field))?;
    let root = schemas(name)?;
    let node = node_at(&root, &path)?;
    let described = (type_name(node), description(node));
    (described.0.is_some() || described.1.is_some()).then_some(described)
}

/// The `complete` op.
#[cfg(feature = "schemas")]
pub fn run(input: CompleteInput) -> Result<CompleteOutput, Diagnostic> {
    // The target is checked as every op checks it, though completion does not depend on it.
    crate::features::FeatureGates::resolve(
        input.kubernetes_version.as_deref(),
        input.feature_gates.as_ref(),
    )?;
    Ok(complete(&input.source, input.line, input.column))
}

/// What fits at 1-based `line`:`column` of `text`, from the core's own schemas.
#[cfg(feature = "schemas")]
pub fn complete(text: &str, line: u32, column: u32) -> CompleteOutput {
    complete_with(text, line, column, &schema_of)
}

/// Schemas given as a JSON object by name (`restartkit schema NAME` for each of
/// [`SCHEMA_NAMES`], or the contract's `json_schemas()`), as a [`SchemaSource`].
pub fn given_schemas(all: &Value) -> impl Fn(&str) -> Option<Value> + '_ {
    move |name| all.get(name).cloned()
}

/// What fits at 1-based `line`:`column` of `text`, with the schemas from `schemas`.
pub fn complete_with(text: &str, line: u32, column: u32, schemas: SchemaSource) -> CompleteOutput {
    let Some(c) = context_at(text, line, column) else {
        return CompleteOutput {
            items: Vec::new(),
            range: None,
            kind: None,
        };
    };
    // The fields of the minor the file's settings comment names (else the newest).
    let minor = crate::source::settings::read(text)
        .0
        .kubernetes_version
        .and_then(|v| crate::features::KubeVersion::parse(&v).ok())
        .map_or(crate::features::NEWEST_MINOR, |v| v.minor);
    let end = c
        .word_start
        .saturating_add(u32::try_from(c.typed.chars().count()).unwrap_or(0));
    CompleteOutput {
        items: items_for(&c, schemas, minor),
        range: Some(Range {
            line,
            column: c.word_start,
            end_line: line,
            end_column: end,
        }),
        kind: c.kind,
    }
}

#[cfg(all(test, feature = "schemas"))]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn given_schemas_answer_as_the_built_in_ones() {
        let text = "kind: Job\nspec:\n  completionMode: \n  \n";
        let all: serde_json::Map<String, Value> = SCHEMA_NAMES
            .iter()
            .map(|n| ((*n).to_owned(), schema_of(n).unwrap()))
            .collect();
        let all = Value::Object(all);
        for (line, column) in [(3, 19), (4, 3)] {
            assert_eq!(
                complete_with(text, line, column, &given_schemas(&all)),
                complete(text, line, column)
            );
        }
    }

    fn labels(text: &str, line: u32, column: u32) -> Vec<String> {
        complete(text, line, column)
            .items
            .into_iter()
            .map(|i| i.label)
            .collect()
    }

    #[test]
    fn an_empty_operator_offers_in_and_not_in() {
        let text = "apiVersion: batch/v1\nkind: Job\nspec:\n  podFailurePolicy:\n    rules:\n    - action: FailJob\n      onExitCodes:\n        operator: \n";
        assert_eq!(labels(text, 8, 19), vec!["In", "NotIn"]);
        let out = complete(text, 8, 19);
        assert_eq!(out.range.map(|r| (r.column, r.end_column)), Some((19, 19)));
        assert_eq!(
            labels(text, 6, 15),
            vec!["FailJob", "FailIndex", "Ignore", "Count"]
        );
    }

    #[test]
    fn fields_of_a_container_not_yet_written() {
        let text = "kind: Pod\nspec:\n  containers:\n  - name: main\n    re\n";
        let got = labels(text, 5, 7);
        assert!(got.contains(&"restartPolicy".to_owned()), "{got:?}");
        assert!(got.contains(&"restartPolicyRules".to_owned()));
        // From k8s.io/api's names too, which the core's types do not model.
        assert!(got.contains(&"command".to_owned()));
        assert!(!got.contains(&"name".to_owned()), "written already");
        let item = complete(text, 5, 7)
            .items
            .into_iter()
            .find(|i| i.label == "restartPolicyRules")
            .unwrap();
        assert_eq!(item.insert_text, "restartPolicyRules:");
        assert_eq!(item.detail.as_deref(), Some("array"));
        assert!(item.documentation.unwrap().contains("KEP-5307"));
    }

    #[test]
    fn kinds_versions_and_wrapped_templates() {
        assert!(labels("kind: \n", 1, 7).contains(&"JobSet".to_owned()));
        assert_eq!(
            labels("apiVersion: \nkind: JobSet\n", 1, 13),
            vec!["jobset.x-k8s.io/v1alpha2"]
        );
        let cron = "kind: CronJob\nspec:\n  jobTemplate:\n    spec:\n      podFailurePolicy:\n        rules:\n        - action: \n";
        assert_eq!(
            labels(cron, 7, 19),
            vec!["FailJob", "FailIndex", "Ignore", "Count"]
        );
        let cron_spec = "kind: CronJob\nspec:\n  \n";
        assert!(labels(cron_spec, 3, 3).contains(&"jobTemplate".to_owned()));
        let deploy = "kind: Deployment\nspec:\n  template:\n    spec:\n      restartPolicy: \n";
        assert_eq!(labels(deploy, 5, 22), vec!["Always", "OnFailure", "Never"]);
        // A kind restartkit does not read: nothing.
        assert!(labels("kind: ConfigMap\ndata:\n  \n", 3, 3).is_empty());
    }
}
