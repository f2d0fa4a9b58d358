//! Admission: what kube-apiserver (and the JobSet and OpenKruise webhooks) say about an object
//! on create, for the restart and failure scope. Upstream defaulting runs first unless the
//! request asks for `skipDefaulting`, as the API server does.

mod admission_policy;
mod configmap;
mod container;
mod controllers;
mod crd;
mod endpoints;
pub mod crd_schema;
mod cron;
mod csi_driver;
pub mod crr;
mod ctx;
pub mod decoding;
mod go_url;
mod hpa;
pub mod job;
pub mod job_lint;
pub mod jobset;
pub mod kubelet_config;
mod lease;
mod limit_range;
pub mod meta;
pub mod names;
mod namespace;
mod ingress;
mod json_read;
mod netaddr;
mod network_policy;
mod pdb;
pub mod pod;
mod pod_claims;
mod pod_dns;
mod pod_env;
mod pod_level;
mod pod_probes;
mod pod_resources;
mod pod_scheduling;
mod pod_security;
mod pod_volumes;
mod priority_class;
mod pv;
mod pvc;
mod rbac;
mod runtime_class;
mod resource_quota;
mod selector;
mod service;
mod service_account;
mod storage_class;
pub mod streaming;
mod template;
pub mod unknown_fields;
mod webhook_config;
mod workloads;

pub use ctx::{Ctx, attach_position, attach_text_edits, decode_at};

use crate::diag::{Diagnostic, FieldPath, Findings};
use crate::features::FeatureGates;
use crate::source::{self, Document};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// `validate` op input: either one `object` (API JSON) or `source` text (YAML or JSON, one or
/// more documents), with the target version and gate overrides.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ValidateInput {
    #[serde(default)]
    pub object: Option<Value>,
    #[serde(default)]
    pub source: Option<String>,
    /// Shown in diagnostics; not read.
    #[serde(default)]
    pub file_name: Option<String>,
    #[serde(default)]
    pub kubernetes_version: Option<String>,
    #[serde(default)]
    pub feature_gates: Option<BTreeMap<String, bool>>,
    #[serde(default)]
    pub skip_defaulting: bool,
    /// The API's `fieldValidation` for unknown fields: `Strict` (kubectl's default: an error),
    /// `Warn` (the API server's default when a client sends none: a warning, the field dropped)
    /// or `Ignore`. Default `Warn`.
    #[serde(default)]
    pub field_validation: unknown_fields::FieldValidation,
    /// Proposals to judge under (docs/proposals.md); the result lists them.
    #[serde(default)]
    pub proposals: Vec<crate::proposals::Proposal>,
    /// TrainingRuntimes and ClusterTrainingRuntimes a TrainJob may name, beside those of the
    /// input itself (another file, a runtime installed in the cluster).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runtimes: Vec<crate::trainer::op::RuntimeInput>,
    /// CustomResourceDefinitions (apiextensions.k8s.io/v1, YAML or JSON texts) whose schemas
    /// custom resources of their kinds are checked against, as kube-apiserver checks them; the
    /// CRDs in `source` itself count too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub crds: Vec<crd_schema::CrdInput>,
}

/// One document of a validated stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DocumentSummary {
    pub index: usize,
    pub api_version: Option<String>,
    pub kind: Option<String>,
    pub name: Option<String>,
    /// 1-based line where the document starts.
    pub line: u32,
    /// Whether restartkit models this kind (false: passed over with an info note).
    pub modelled: bool,
    pub valid: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ValidateOutput {
    /// No error in any document.
    pub valid: bool,
    pub errors: Vec<Diagnostic>,
    pub warnings: Vec<Diagnostic>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub infos: Vec<Diagnostic>,
    pub kubernetes_version: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub documents: Vec<DocumentSummary>,
    /// The proposals this result was made under (absent: upstream semantics only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub proposals: Vec<crate::proposals::Proposal>,
}

pub fn run(input: ValidateInput) -> Result<ValidateOutput, Diagnostic> {
    let (ctx, request_findings) = match prepare(&input, input.source.as_deref())? {
        Ok(prepared) => prepared,
        Err(refused) => return Ok(refused),
    };
    let mut all = request_findings;
    let mut documents = Vec::new();
    let (mut crds, crd_problems) = request_crds(&input, ctx.gates.version.minor);
    all.extend(crd_problems);
    let proposals = crate::proposals::marker(&input.proposals);
    match (input.object, input.source) {
        (Some(obj), None) => {
            if crate::trainer::op::is_train_job(&obj) {
                let runtimes = crate::trainer::op::Runtimes::new(&[], &input.runtimes);
                all.extend(runtimes.reading_errors.clone());
                all.merge(crate::trainer::op::validate_train_job(
                    &obj,
                    None,
                    &[],
                    &runtimes,
                    &ctx,
                ));
                all.merge(meta::findings(&obj, &ctx));
            } else {
                let (f, _) = validate_value_with(&obj, &ctx, &crds);
                all.merge(f);
            }
        }
        (None, Some(text)) => {
            let lines = source::LineIndex::new(&text);
            // Document by document, as kubectl decodes and applies them: one that cannot be
            // read is an error of its own (naming it), and the others are still validated.
            let entries = source::read_stream_at(&text, ctx.gates.version.minor);
            // A TrainJob is read with the runtimes of the stream and those given apart. Only then
            // are the documents copied: a stream without one (most, and the largest) is not.
            let has_train_job = entries.iter().any(|e| {
                e.as_ref()
                    .is_ok_and(|d| crate::trainer::op::is_train_job(&d.value))
            });
            let read: Vec<Document> = if has_train_job {
                entries
                    .iter()
                    .filter_map(|e| e.as_ref().ok())
                    .cloned()
                    .collect()
            } else {
                Vec::new()
            };
            // The CRDs of the stream count for every document of it (kubectl creates them
            // first when they come in one apply; after them when they come later is the
            // cluster's business, not the schema's).
            if entries
                .iter()
                .any(|e| e.as_ref().is_ok_and(|d| crd_schema::is_crd(&d.value)))
            {
                for d in entries.iter().filter_map(|e| e.as_ref().ok()) {
                    if let Err(problem) = crds.add_value(&d.value, ctx.gates.version.minor) {
                        let mut problem = crd_schema::unusable_in_stream(problem);
                        problem.document = Some(d.index);
                        source::attach_range(&mut problem, Some(d), &lines, false);
                        attach_position(&mut problem, d);
                        all.push(problem);
                    }
                }
            }
            let runtimes =
                has_train_job.then(|| crate::trainer::op::Runtimes::new(&read, &input.runtimes));
            if let Some(r) = &runtimes {
                all.extend(r.reading_errors.clone());
            }
            for entry in entries {
                let (f, summary) = check_entry(
                    entry,
                    &ctx,
                    &crds,
                    &lines,
                    runtimes.as_ref().map(|r| (r, &read[..])),
                );
                documents.push(summary);
                all.merge(f);
            }
            once_per_kind(&mut all.infos);
        }
        (Some(_), Some(_)) => {
            return Err(Diagnostic::request(
                "invalid-input",
                "input",
                "give either `object` or `source`, not both",
            ));
        }
        (None, None) => {
            return Err(Diagnostic::request(
                "invalid-input",
                "input",
                "`object` or `source` is required",
            ));
        }
    }
    Ok(ValidateOutput {
        valid: all.errors.is_empty(),
        errors: all.errors,
        warnings: all.warnings,
        infos: all.infos,
        kubernetes_version: ctx.gates.version.as_string(),
        documents,
        proposals,
    })
}

/// The context a `validate` request is judged in, and its request-level findings (the
/// settings comment's errors, gate warnings), from the input and its `source` (`text`; a
/// stream read in bounded memory gives its head). `Err`: the file's own settings cannot be
/// met, and this is the whole answer.
pub fn prepare(
    input: &ValidateInput,
    text: Option<&str>,
) -> Result<Result<(Ctx, Findings), ValidateOutput>, Diagnostic> {
    // A text may name its own version and gates (crate::source::settings): they win over the
    // request's, and what is wrong with them is an error at the comment line.
    let (file, settings_errors) = text.map(crate::source::settings::read).unwrap_or_default();
    let (version, overrides) = file.over(
        input.kubernetes_version.as_deref(),
        input.feature_gates.as_ref(),
    );
    let (gates, gate_warnings) = match FeatureGates::resolve(version.as_deref(), overrides.as_ref())
    {
        Ok(resolved) => resolved,
        Err(e) if file.names(&e.field) => {
            // The file's own settings cannot be met: nothing can be judged under them.
            let mut errors = settings_errors;
            errors.push(file.locate(e));
            return Ok(Err(ValidateOutput {
                valid: false,
                errors,
                warnings: Vec::new(),
                infos: Vec::new(),
                kubernetes_version: version.unwrap_or_default(),
                documents: Vec::new(),
                proposals: crate::proposals::marker(&input.proposals),
            }));
        }
        Err(e) => return Err(e),
    };
    // A warning about a gate the file names is the file's (an unknown gate in the comment).
    let gate_warnings = gate_warnings.into_iter().map(|w| {
        if file.names(&w.field) {
            file.locate(w)
        } else {
            w
        }
    });
    let future_rules = input
        .proposals
        .contains(&crate::proposals::Proposal::RestartRulesFuture);
    let always_pod = input
        .proposals
        .contains(&crate::proposals::Proposal::AlwaysPod);
    let mut all = Findings::default();
    let ctx = Ctx {
        gates,
        skip_defaulting: input.skip_defaulting,
        future_rules,
        always_pod,
        field_validation: input.field_validation,
    };
    all.extend(settings_errors);
    all.extend(gate_warnings);
    Ok(Ok((ctx, all)))
}

/// The CRDs given with a request (`crds`), read for Kubernetes 1.`minor`, and what makes any of
/// them unusable. (Apart from [`Ctx`]: the CRDs belong to one request's documents, and Ctx is
/// built in many places that have none.)
pub fn request_crds(input: &ValidateInput, minor: u32) -> (crd_schema::CrdSet, Vec<Diagnostic>) {
    let mut crds = crd_schema::CrdSet::default();
    let mut problems = Vec::new();
    for c in &input.crds {
        problems.extend(crds.add_text(&c.source, c.file_name.as_deref(), minor));
    }
    (crds, problems)
}

/// The note that a kind's CEL rules are not evaluated, once per kind (the first document's):
/// it says the same of every object of the kind.
pub(crate) fn once_per_kind(infos: &mut Vec<Diagnostic>) {
    let mut seen: Vec<String> = Vec::new();
    infos.retain(|d| {
        if d.code.as_deref() != Some("cel-not-evaluated") {
            return true;
        }
        if seen.contains(&d.message) {
            return false;
        }
        seen.push(d.message.clone());
        true
    });
}

/// One entry of a stream validated: its findings, placed in the text (`lines`: the stream's, or
/// the piece's), and its summary. `train`: the runtimes and read documents a TrainJob of the
/// stream is validated with.
pub(crate) fn check_entry(
    entry: Result<Document, source::BrokenDocument>,
    ctx: &Ctx,
    crds: &crd_schema::CrdSet,
    lines: &source::LineIndex,
    train: Option<(&crate::trainer::op::Runtimes, &[Document])>,
) -> (Findings, DocumentSummary) {
    let doc = match entry {
        Ok(doc) => doc,
        Err(broken) => {
            let mut error = broken.error;
            source::attach_range(&mut error, None, lines, true);
            let mut f = Findings::default();
            f.push(error);
            let summary = DocumentSummary {
                index: broken.index,
                api_version: None,
                kind: None,
                name: None,
                line: broken.line,
                modelled: false,
                valid: false,
            };
            return (f, summary);
        }
    };
    let train_job = train.filter(|_| crate::trainer::op::is_train_job(&doc.value));
    let (mut f, modelled) = match train_job {
        Some((r, read)) => {
            let model = |v: &Value, out: &mut Findings| {
                out.merge(crate::trainer::op::validate_train_job(
                    v,
                    Some(&doc),
                    read,
                    r,
                    ctx,
                ));
            };
            let api_version = doc.value.get("apiVersion").and_then(Value::as_str);
            let kind = doc.value.get("kind").and_then(Value::as_str);
            match schema_of(api_version.unwrap_or(""), kind.unwrap_or(""), crds, ctx) {
                // Admitted with its CRD's schema, then validated with the stream's runtimes.
                Some((crd, version)) => {
                    custom_resource(crd, version, &doc.value, ctx, Findings::default(), &model)
                }
                None => {
                    let mut f = Findings::default();
                    model(&doc.value, &mut f);
                    f.merge(meta::findings(&doc.value, ctx));
                    (f, true)
                }
            }
        }
        None => validate_value_with(&doc.value, ctx, crds),
    };
    if train.is_some() {
        // A runtime beside a TrainJob is checked with it; the note that reading it
        // alone leaves the TrainJob's part unchecked does not apply.
        f.infos
            .retain(|d| !(d.code.as_deref() == Some("waits-for-trainjob") && d.field == "spec"));
    }
    place_findings(&mut f, &doc, lines);
    let meta = doc.value.get("metadata");
    let summary = DocumentSummary {
        index: doc.index,
        api_version: doc
            .value
            .get("apiVersion")
            .and_then(Value::as_str)
            .map(str::to_owned),
        kind: doc
            .value
            .get("kind")
            .and_then(Value::as_str)
            .map(str::to_owned),
        name: meta
            .and_then(|m| m.get("name"))
            .and_then(Value::as_str)
            .map(str::to_owned),
        line: doc.line,
        modelled,
        valid: f.errors.is_empty(),
    };
    (f, summary)
}

/// Adds a document's reading notes to its findings and places them all in its text.
pub(crate) fn place_findings(f: &mut Findings, doc: &Document, lines: &source::LineIndex) {
    f.extend(doc.notes.iter().map(yaml_reading_warning));
    if let Some(line) = doc.unread_from {
        f.push(
            Diagnostic::lint(
                "unread-text",
                &FieldPath::new(""),
                format!(
                    "the text from line {line} up to the next --- line is never read: kubectl (go-yaml) reads one YAML document between two --- lines; start another document with a --- line"
                ),
            )
            .at(line, 1),
        );
    }
    for d in f.all_mut() {
        // A TrainJob's diagnostics may already sit in its runtime's document.
        if d.document.is_some_and(|i| i != doc.index) || d.file.is_some() {
            continue;
        }
        d.document = Some(doc.index);
        source::attach_range(d, Some(doc), lines, d.line.is_some());
        attach_position(d, doc);
        attach_text_edits(d, doc);
    }
}

/// Points a diagnostic at the nearest position the source knows for its field path.
/// A warning for a plain scalar the API server reads by YAML 1.1's rules where an editor or tool
/// following YAML 1.2 reads something else (`yes`, `on`, `010`, `0b11`, `1_000`, a key `on`).
fn yaml_reading_warning(n: &source::ReadNote) -> Diagnostic {
    let read = n.read_as.to_string();
    let message = if n.key {
        format!(
            "the key `{}` is read as {read} by kubectl and the API server (YAML 1.1, as sigs.k8s.io/yaml reads it); quote it if you mean \"{}\"",
            n.text, n.text
        )
    } else if n.read_as.is_number() {
        format!(
            "`{}` is read as {read} by kubectl and the API server (YAML 1.1, as sigs.k8s.io/yaml reads it); write {read}, or quote it if you mean the string",
            n.text
        )
    } else {
        format!(
            "`{}` is read as {read} by kubectl and the API server (YAML 1.1, as sigs.k8s.io/yaml reads it); quote it if you mean the string \"{}\"",
            n.text, n.text
        )
    };
    Diagnostic::lint("yaml-1.1-reading", &FieldPath::new(&n.field), message).at(n.line, n.column)
}

/// The API server's refusal of an object of a kind it creates whose body does not decode.
fn decoding_error(api_version: &str, kind: &str, obj: &Value, ctx: &Ctx) -> Option<Diagnostic> {
    let minor = ctx.gates.version.minor;
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    if group == "kubelet.config.k8s.io" {
        return None;
    }
    let t = unknown_fields::kind_type(api_version, kind, minor)?;
    let (field, message) = decoding::first_error(t, obj, minor)?;
    Some(decoding::refusal(kind, version, &field, &message))
}

/// Validates one object (any kind). Returns the findings and whether the kind is modelled.
pub fn validate_value(obj: &Value, ctx: &Ctx) -> (Findings, bool) {
    validate_value_with(obj, ctx, &crd_schema::CrdSet::default())
}

/// [`validate_value`] with the CRDs whose schemas custom resources are checked against.
pub fn validate_value_with(obj: &Value, ctx: &Ctx, crds: &crd_schema::CrdSet) -> (Findings, bool) {
    let mut out = Findings::default();
    let Some(map) = obj.as_object() else {
        out.push(Diagnostic::request(
            "not-an-object",
            "",
            "a Kubernetes object must be a mapping with apiVersion and kind",
        ));
        return (out, false);
    };
    // apiVersion and kind are strings in TypeMeta; the API server's decoder refuses any other
    // type, so a `kind: 42` is an error at that field rather than "a document without kind".
    for key in ["apiVersion", "kind"] {
        if let Some(v) = map.get(key).filter(|v| !v.is_string() && !v.is_null()) {
            let what = match v {
                Value::Bool(_) => "boolean",
                Value::Number(_) => "number",
                Value::Array(_) => "sequence",
                _ => "map",
            };
            let mut d = Diagnostic::request(
                "decode",
                key,
                format!("{key}: invalid type: {what}, expected a string"),
            );
            d.error_type = Some(crate::diag::ErrorType::FieldValueTypeInvalid);
            d.origin = crate::diag::Origin::KubeApiserver;
            out.push(d);
            return (out, false);
        }
    }
    let kind = map.get("kind").and_then(Value::as_str).unwrap_or("");
    if kind.is_empty() {
        // kubectl decodes every document as an unstructured object first, which refuses one
        // without a kind (apimachinery unstructured `Decode`: runtime.NewMissingKindErr). A
        // warning, not an error: such a file is as often not meant for kubectl at all (a Helm
        // values.yaml, a CI workflow in the same directory), and an error there would fail
        // every repository-wide run.
        out.push(Diagnostic::lint(
            "missing-kind",
            &FieldPath::new("kind"),
            "no kind: not a Kubernetes object, passed over (kubectl refuses such a document: Object 'Kind' is missing)",
        ));
        return (out, false);
    }
    // kubectl applies a list item by item: any object with a kind and an `items` sequence (`kind: List`,
    // `PodList`, what `kubectl get -o yaml` prints) is a list to it (unstructured `IsList`,
    // flattened by the resource builder). Each item is validated as its own object; fields are
    // named from the document (`items[0].spec…`) so that they point at the item's lines.
    if let Some(Value::Array(items)) = map.get("items") {
        let mut modelled = false;
        for (i, item) in items.iter().enumerate() {
            let (mut f, m) = validate_value_with(item, ctx, crds);
            modelled |= m;
            let prefix = format!("items[{i}]");
            for d in f.all_mut() {
                d.field = if d.field.is_empty() {
                    prefix.clone()
                } else {
                    format!("{prefix}.{}", d.field)
                };
            }
            out.merge(f);
        }
        return (out, modelled);
    }
    let api_version = map.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let group = api_version.rsplit_once('/').map(|(g, _)| g).unwrap_or("");
    // The API server decodes first: a value of the wrong type refuses the request before
    // anything else is looked at (the kubelet reads its configuration file its own way).
    if let Some(refused) = decoding_error(api_version, kind, obj, ctx) {
        out.push(refused);
        // Only whether the kind is modelled is wanted: the request never gets to validation.
        let modelled =
            workloads::validate_kind(group, api_version, kind, obj, ctx, &mut Findings::default());
        return (out, modelled);
    }
    // A custom resource whose CRD the request knows is admitted with its schema (pruning,
    // defaults, the schema's validation), then by restartkit's model of its kind if it has one.
    if let Some((crd, version)) = schema_of(api_version, kind, crds, ctx) {
        let model = |v: &Value, out: &mut Findings| {
            workloads::validate_kind(group, api_version, kind, v, ctx, out);
        };
        return custom_resource(crd, version, obj, ctx, out, &model);
    }
    // Then unknown fields are refused or dropped before validation.
    let pruned = workloads::unknown_fields(api_version, kind, obj, ctx, &mut out);
    let refused = ctx.field_validation == unknown_fields::FieldValidation::Strict
        && out
            .errors
            .iter()
            .any(|d| d.code.as_deref() == Some("unknown-field"));
    let obj = pruned.as_ref().unwrap_or(obj);
    let mut checked = Findings::default();
    let modelled = workloads::validate_kind(group, api_version, kind, obj, ctx, &mut checked);
    meta::check(group, kind, obj, ctx, &mut checked);
    (finish(out, checked, refused, ctx), modelled)
}

/// The schema objects of `apiVersion` and `kind` are admitted with: the request's or the
/// stream's CRD, else the one restartkit bundles.
fn schema_of<'a>(
    api_version: &str,
    kind: &str,
    crds: &'a crd_schema::CrdSet,
    ctx: &Ctx,
) -> Option<(&'a crd_schema::Crd, &'a crd_schema::CrdVersion)> {
    crds.find(api_version, kind)
        .or_else(|| crd_schema::bundled::find(api_version, kind, ctx.gates.version.minor))
}

/// A custom resource admitted with its CRD's schema ([`crd_schema::admit`]), then checked by
/// restartkit's model of its kind, if any, on the object the schema let through. Where both say
/// something of one field (a user's copy of a CRD restartkit models, whose hand-written checks
/// report some of the schema's constraints in the webhook's or API server's own words), the
/// hand-written finding is kept and the schema's dropped, so that a mistake is told once.
///
/// `model` is restartkit's model of the kind ([`workloads::validate_kind`], or a TrainJob's
/// validation with the runtimes of its stream).
fn custom_resource(
    crd: &crd_schema::Crd,
    version: &crd_schema::CrdVersion,
    obj: &Value,
    ctx: &Ctx,
    mut out: Findings,
    model: &dyn Fn(&Value, &mut Findings),
) -> (Findings, bool) {
    let api_version = obj.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
    let kind = obj.get("kind").and_then(Value::as_str).unwrap_or("");
    // The unknown fields of the built-in types a custom resource embeds (a JobSet's Job
    // templates), against the targeted minor's tables: a bundled schema stops at them.
    let pruned = workloads::unknown_fields(api_version, kind, obj, ctx, &mut out);
    let obj = pruned.as_ref().unwrap_or(obj);
    let mut by_schema = Findings::default();
    let admitted = crd_schema::admit(version, crd, obj, ctx, &mut by_schema);
    let mut checked = Findings::default();
    model(&admitted, &mut checked);
    let schema_refused = by_schema
        .errors
        .iter()
        .any(|e| e.code.as_deref() == Some("crd-schema"));
    if (group, kind) == ("leaderworkerset.x-k8s.io", "LeaderWorkerSet") && schema_refused {
        // What restartkit says of a LeaderWorkerSet is about the StatefulSets its controller
        // creates from it: none are when the schema refuses it.
        checked.errors.clear();
    }
    if meta::kind_meta(group, kind).is_some() {
        meta::check(group, kind, &admitted, ctx, &mut checked);
    } else {
        meta::check_custom_resource(group, kind, crd.namespaced, &admitted, ctx, &mut checked);
    }
    // The schema checked the kind: it is not "passed over".
    checked
        .infos
        .retain(|d| d.code.as_deref() != Some("kind-not-modelled"));
    // The Kruise ContainerRecreateRequest webhook is a mutating one: it runs before the schema
    // validates, and where it refuses, the schema says nothing (its unknown fields, found when
    // the request is decoded, still count).
    if checked
        .errors
        .iter()
        .any(|e| e.origin == crate::diag::Origin::KruiseWebhook)
    {
        by_schema
            .errors
            .retain(|e| e.code.as_deref() != Some("crd-schema"));
    } else if schema_refused {
        // The schema is checked by the API server's validation, before any validating webhook
        // is called: where it refuses the object, the webhooks say nothing.
        checked.errors.retain(|e| {
            !matches!(
                e.origin,
                crate::diag::Origin::JobsetWebhook | crate::diag::Origin::TrainerWebhook
            )
        });
    }
    // A custom resource is decoded without its Go types: a value of the wrong type is the
    // schema's to report, in its words, not restartkit's typed reading of the kind.
    checked.errors.retain(|c| {
        c.code.as_deref() != Some("decode")
            || !by_schema
                .errors
                .iter()
                .any(|e| e.field == c.field && e.code.as_deref() == Some("crd-schema"))
    });
    by_schema.errors.retain(|e| {
        e.code.as_deref() != Some("crd-schema")
            || !checked.errors.iter().any(|c| c.field == e.field)
    });
    let refused = ctx.field_validation == unknown_fields::FieldValidation::Strict
        && by_schema
            .errors
            .iter()
            .chain(&out.errors)
            .any(|d| d.code.as_deref() == Some("unknown-field"));
    let (unknown, schema_errors): (Vec<_>, Vec<_>) = by_schema
        .errors
        .into_iter()
        .partition(|d| d.code.as_deref() == Some("unknown-field"));
    out.extend(unknown);
    out.extend(by_schema.warnings);
    out.extend(by_schema.infos);
    checked.extend(schema_errors);
    (finish(out, checked, refused, ctx), true)
}

/// Adds what validation says (`checked`) to the decoding findings (`out`): as warnings when a
/// strict decoding error has already refused the request, and worded for the targeted minor.
fn finish(mut out: Findings, mut checked: Findings, refused: bool, ctx: &Ctx) -> Findings {
    if refused {
        // A strict decoding error refuses the request before validation runs: what validation
        // would say next is told as warnings, so that one run shows both.
        for e in std::mem::take(&mut checked.errors) {
            let message = format!(
                "{} (the API server says this once the unknown fields are gone; their strict decoding error refuses the request first)",
                e.message
            );
            checked.push(
                Diagnostic { message, ..e }
                    .with_severity(crate::diag::Severity::Warning)
                    .with_code("refused-after-unknown-fields"),
            );
        }
    }
    out.merge(checked);
    let minor = ctx.gates.version.minor;
    for d in out.all_mut() {
        // The schema's messages are already worded for the minor (their TooLong among them).
        if d.code.as_deref() != Some("crd-schema") {
            d.reword_for(minor);
        }
    }
    out
}
