//! Custom resources checked against their CustomResourceDefinition's schema, as
//! apiextensions-apiserver admits them on create: the object is pruned (unknown fields, which the
//! request's `fieldValidation` makes errors, warnings or nothing), non-nullable nulls without a
//! default are dropped, the schema's defaults are applied, a mutating webhook restartkit models
//! runs (the JobSet, LeaderWorkerSet and Kruise ContainerRecreateRequest webhooks' defaulting),
//! and then the schema validates
//! (kube-openapi's validator with the API server's wording) and the list types are checked.
//!
//! Why a walker over the structural schema and not a JSON Schema library: the API server's
//! semantics are not plain JSON Schema's. `nullable`, `x-kubernetes-int-or-string`,
//! `x-kubernetes-preserve-unknown-fields` and embedded resources change what a type allows and
//! what is pruned; defaults are applied before validation; list types add uniqueness rules; and
//! the messages (and which alternative anyOf/oneOf blame) come from kube-openapi's own
//! bookkeeping. A generic validator would agree on most valid objects and word every error
//! differently.
//!
//! CEL rules (`x-kubernetes-validations`) are evaluated after those checks (cel_eval.rs, with the
//! `cel` feature); a build without it (the wasm package) says once per kind that they were not.

pub mod bundled;
pub mod cel;
#[cfg(feature = "cel")]
mod cel_eval;
mod formats;
pub mod go;
pub mod openapi;
pub mod schema;
pub mod structural;

use crate::diag::{Diagnostic, FieldPath, Findings, Origin, Severity};
use schema::Schema;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// CRD texts given with a `validate` request (besides the CRDs of the validated stream itself).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CrdInput {
    /// YAML or JSON, one or more documents; every CustomResourceDefinition among them counts.
    pub source: String,
    /// Where `source` came from: diagnostics about it name it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_name: Option<String>,
}

/// One served version of a CRD, with its schema as the targeted minor reads it.
#[derive(Debug, Clone)]
pub struct CrdVersion {
    pub name: String,
    pub schema: Schema,
    /// The version has the status subresource: a create cannot set status (the strategy's
    /// PrepareForCreate drops it after decoding, before validation).
    pub status_subresource: bool,
}

/// A CustomResourceDefinition, read.
#[derive(Debug, Clone)]
pub struct Crd {
    pub group: String,
    pub kind: String,
    pub namespaced: bool,
    pub versions: Vec<CrdVersion>,
}

/// The CRDs one request knows.
#[derive(Debug, Clone, Default)]
pub struct CrdSet {
    pub crds: Vec<Crd>,
}

impl CrdSet {
    pub fn is_empty(&self) -> bool {
        self.crds.is_empty()
    }

    /// The schema for objects of `apiVersion` and `kind`, when a CRD defines that version.
    pub fn find(&self, api_version: &str, kind: &str) -> Option<(&Crd, &CrdVersion)> {
        let (group, version) = api_version.rsplit_once('/')?;
        self.crds
            .iter()
            .filter(|c| c.group == group && c.kind == kind)
            .find_map(|c| {
                c.versions
                    .iter()
                    .find(|v| v.name == version)
                    .map(|v| (c, v))
            })
    }

    /// Adds the CRDs of `text` (YAML or JSON, one or more documents); the findings are about
    /// CRDs that cannot be used, each naming `file` when given.
    pub fn add_text(&mut self, text: &str, file: Option<&str>, minor: u32) -> Vec<Diagnostic> {
        let mut problems = Vec::new();
        for entry in crate::source::read_stream_at(text, minor) {
            match entry {
                Ok(doc) => {
                    if let Err(mut d) = self.add_value(&doc.value, minor) {
                        d.line = Some(doc.line);
                        d.file = file.map(str::to_owned);
                        if file.is_none() {
                            d.document = Some(doc.index);
                        }
                        problems.push(d);
                    }
                }
                Err(broken) => {
                    let mut d = broken.error;
                    d.file = file.map(str::to_owned);
                    problems.push(d);
                }
            }
        }
        problems
    }

    /// Adds `v` if it is a CustomResourceDefinition; anything else is passed over. `Err`: a CRD
    /// that cannot be used (the diagnostic names the field).
    pub fn add_value(&mut self, v: &Value, minor: u32) -> Result<(), Diagnostic> {
        if let Some(crd) = read_crd(v, minor)? {
            self.crds.push(crd);
        }
        Ok(())
    }
}

/// A CRD of the input stream that cannot check its custom resources: the CRD document is
/// validated as the API server validates it (validate/crd), which says what is refused, so
/// here it is an info that its custom resources go unchecked, not a second error.
pub fn unusable_in_stream(mut d: Diagnostic) -> Diagnostic {
    d.severity = crate::diag::Severity::Info;
    d.code = Some("crd-not-used".to_owned());
    d.message = format!(
        "{}; custom resources of this CRD are not checked against its schema",
        d.message
    );
    d
}

/// Whether `v` is a CustomResourceDefinition document.
pub fn is_crd(v: &Value) -> bool {
    v.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition")
        && v.get("apiVersion")
            .and_then(Value::as_str)
            .is_some_and(|a| a.starts_with("apiextensions.k8s.io/"))
}

fn bad_crd(field: &str, message: impl Into<String>) -> Diagnostic {
    Diagnostic::lint(
        "invalid-crd",
        &FieldPath::new(field),
        format!("{field}: {}", message.into()),
    )
    .with_severity(Severity::Error)
}

/// Reads a CRD: `Ok(None)` for a document that is not one.
pub fn read_crd(v: &Value, minor: u32) -> Result<Option<Crd>, Diagnostic> {
    if !is_crd(v) {
        return Ok(None);
    }
    let api_version = v.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    if api_version != "apiextensions.k8s.io/v1" {
        return Err(bad_crd(
            "apiVersion",
            format!(
                "{api_version} CustomResourceDefinitions are not served since Kubernetes 1.22; write apiextensions.k8s.io/v1"
            ),
        ));
    }
    let spec = v.get("spec").and_then(Value::as_object);
    let Some(spec) = spec else {
        return Err(bad_crd("spec", "Required value: a CRD has a spec"));
    };
    let group = spec.get("group").and_then(Value::as_str).unwrap_or("");
    if group.is_empty() {
        return Err(bad_crd("spec.group", "Required value"));
    }
    let kind = spec
        .get("names")
        .and_then(|n| n.get("kind"))
        .and_then(Value::as_str)
        .unwrap_or("");
    if kind.is_empty() {
        return Err(bad_crd("spec.names.kind", "Required value"));
    }
    let namespaced = spec.get("scope").and_then(Value::as_str) != Some("Cluster");
    let Some(versions) = spec.get("versions").and_then(Value::as_array) else {
        return Err(bad_crd(
            "spec.versions",
            "Required value: must have exactly one version marked as storage version",
        ));
    };
    let mut out = Vec::new();
    for (i, ver) in versions.iter().enumerate() {
        let p = format!("spec.versions[{i}]");
        let name = ver.get("name").and_then(Value::as_str).unwrap_or("");
        if name.is_empty() {
            return Err(bad_crd(&format!("{p}.name"), "Required value"));
        }
        if ver.get("served").and_then(Value::as_bool) == Some(false) {
            continue;
        }
        let Some(s) = ver.get("schema").and_then(|s| s.get("openAPIV3Schema")) else {
            return Err(bad_crd(
                &format!("{p}.schema.openAPIV3Schema"),
                "Required value: schemas are required",
            ));
        };
        let schema = schema::read(s, &format!("{p}.schema.openAPIV3Schema"), minor)
            .map_err(|e| bad_crd(&e.field, e.message))?;
        if schema.types.first().map(String::as_str) != Some("object") {
            return Err(bad_crd(
                &format!("{p}.schema.openAPIV3Schema.type"),
                "Unsupported value: must be object at the root",
            ));
        }
        let status_subresource = ver
            .get("subresources")
            .and_then(|s| s.get("status"))
            .is_some_and(|s| !s.is_null());
        out.push(CrdVersion {
            name: name.to_owned(),
            schema,
            status_subresource,
        });
    }
    Ok(Some(Crd {
        group: group.to_owned(),
        kind: kind.to_owned(),
        namespaced,
        versions: out,
    }))
}

/// The unknown-field finding for a custom resource, worded as the API server words it for the
/// request's field validation (none under `Ignore`).
fn unknown_field(path: &str, kind: &str, ctx: &super::Ctx) -> Option<Diagnostic> {
    use super::unknown_fields::FieldValidation;
    let (severity, message) = match ctx.field_validation {
        FieldValidation::Ignore => return None,
        FieldValidation::Strict => (
            Severity::Error,
            format!(
                "strict decoding error: unknown field \"{path}\" (not in the {kind} CRD's schema); kubectl's default --validate=strict refuses the request"
            ),
        ),
        FieldValidation::Warn => (
            Severity::Warning,
            format!(
                "unknown field \"{path}\" (not in the {kind} CRD's schema); the API server drops it (under kubectl's default --validate=strict it refuses the request)"
            ),
        ),
    };
    Some(
        Diagnostic::lint("unknown-field", &FieldPath::new(path), message)
            .with_severity(severity)
            .with_origin(Origin::KubeApiserver),
    )
}

/// The mutating admission webhooks restartkit models, on the object as the schema sees it (after
/// its defaults; the API server prunes and defaults the webhook's answer again before the schema
/// validates, see [`admit`]):
/// - JobSet: each unnamed failurePolicy rule is named `failurePolicyRule<i>` (jobset.rs
///   default_jobset_spec does the same on the typed JobSet), so a rule without a name, which the
///   schema requires, is not an error;
/// - LeaderWorkerSet (sigs.k8s.io/lws pkg/webhooks `Default`, then its Go encoding): an empty
///   `leaderWorkerTemplate.restartPolicy` becomes `RecreateGroupOnPodRestart` and the deprecated
///   `Default` becomes `None`; an empty `rolloutStrategy.type` becomes `RollingUpdate`, which
///   then gets `rollingUpdateConfiguration` {maxUnavailable 1, maxSurge 0, partition 0} when it
///   has none; `networkConfig.subdomainPolicy` (required by the schema) becomes `Shared`; and
///   `leaderWorkerTemplate.workerTemplate`, a Go value and not a pointer, is written back empty
///   when absent (the schema requires it: the webhook's answer has one);
/// - ContainerRecreateRequest (Kruise pkg/webhook/containerrecreaterequest/mutating): an absent
///   `strategy` and an empty `strategy.failurePolicy` become `{failurePolicy: Fail}`. What else
///   it fills needs the Pod (the containers' statusContext, preStop and ports, the grace period)
///   or is metadata, and the webhook refuses a podName or containers left out before the schema
///   would: a webhook refusal drops the schema's errors (validate.rs `custom_resource`).
fn webhook_defaults(group: &str, kind: &str, v: &mut Value) {
    match (group, kind) {
        ("jobset.x-k8s.io", "JobSet") => jobset_defaults(v),
        ("leaderworkerset.x-k8s.io", "LeaderWorkerSet") => lws_defaults(v),
        ("apps.kruise.io", "ContainerRecreateRequest") => crr_defaults(v),
        _ => {}
    }
}

fn jobset_defaults(v: &mut Value) {
    let rules = v
        .get_mut("spec")
        .and_then(|s| s.get_mut("failurePolicy"))
        .and_then(|f| f.get_mut("rules"))
        .and_then(Value::as_array_mut);
    for (i, rule) in rules.into_iter().flatten().enumerate() {
        if let Some(m) = rule.as_object_mut()
            && m.get("name")
                .and_then(Value::as_str)
                .is_none_or(str::is_empty)
        {
            m.insert(
                "name".to_owned(),
                Value::String(format!("failurePolicyRule{i}")),
            );
        }
    }
}

/// The object member `key` of `m`, made an empty object when absent; None when it holds
/// something else (the webhook could not decode the object: restartkit leaves that to the schema).
fn member<'a>(
    m: &'a mut serde_json::Map<String, Value>,
    key: &str,
) -> Option<&'a mut serde_json::Map<String, Value>> {
    m.entry(key)
        .or_insert_with(|| Value::Object(serde_json::Map::new()))
        .as_object_mut()
}

/// Sets `key` to `value` when absent or an empty string.
fn default_str(m: &mut serde_json::Map<String, Value>, key: &str, value: &str) {
    if m.get(key).and_then(Value::as_str).is_none_or(str::is_empty)
        && m.get(key).is_none_or(Value::is_string)
    {
        m.insert(key.to_owned(), Value::String(value.to_owned()));
    }
}

fn lws_defaults(v: &mut Value) {
    let Some(spec) = v.as_object_mut().and_then(|m| member(m, "spec")) else {
        return;
    };
    if let Some(lwt) = member(spec, "leaderWorkerTemplate") {
        default_str(lwt, "restartPolicy", "RecreateGroupOnPodRestart");
        if lwt.get("restartPolicy").and_then(Value::as_str) == Some("Default") {
            lwt.insert("restartPolicy".to_owned(), Value::String("None".to_owned()));
        }
        lwt.entry("workerTemplate")
            .or_insert_with(|| serde_json::json!({"metadata": {}, "spec": {}}));
    }
    if let Some(rollout) = member(spec, "rolloutStrategy") {
        default_str(rollout, "type", "RollingUpdate");
        if rollout.get("type").and_then(Value::as_str) == Some("RollingUpdate") {
            rollout.entry("rollingUpdateConfiguration").or_insert_with(
                || serde_json::json!({"maxUnavailable": 1, "maxSurge": 0, "partition": 0}),
            );
        }
    }
    if let Some(network) = member(spec, "networkConfig")
        && network.get("subdomainPolicy").is_none_or(Value::is_null)
    {
        network.insert(
            "subdomainPolicy".to_owned(),
            Value::String("Shared".to_owned()),
        );
    }
}

fn crr_defaults(v: &mut Value) {
    let strategy = v
        .as_object_mut()
        .and_then(|m| member(m, "spec"))
        .and_then(|spec| member(spec, "strategy"));
    if let Some(strategy) = strategy {
        default_str(strategy, "failurePolicy", "Fail");
    }
}

/// Admits a custom resource as the API server does with its CRD's `schema` (the version of its
/// apiVersion): returns the object as validation sees it (pruned, defaulted) and adds the
/// unknown-field findings, the schema's errors and the list-type errors to `out`.
pub fn admit(
    version: &CrdVersion,
    crd: &Crd,
    obj: &Value,
    ctx: &super::Ctx,
    out: &mut Findings,
) -> Value {
    let schema = &version.schema;
    let minor = ctx.gates.version.minor;
    let mut v = obj.clone();
    for path in structural::prune(&mut v, schema) {
        if let Some(d) = unknown_field(&path, &crd.kind, ctx) {
            out.push(d);
        }
    }
    structural::prune_nulls(&mut v, Some(schema));
    if !ctx.skip_defaulting {
        structural::default(&mut v, schema);
        webhook_defaults(&crd.group, &crd.kind, &mut v);
        // The API server defaults a mutating webhook's answer again (a member the webhook
        // created, such as a LeaderWorkerSet's leaderWorkerTemplate, gets the schema's defaults).
        structural::default(&mut v, schema);
    }
    if version.status_subresource
        && let Some(m) = v.as_object_mut()
    {
        m.shift_remove("status");
    }
    let mut errors = openapi::field_errors(schema, &v, minor);
    errors.extend(structural::embedded_errors(schema, &v, minor));
    errors.extend(structural::list_errors(schema, &v, minor));
    #[cfg(feature = "cel")]
    if schema.cel_rules > 0 {
        // strategy.go Validate: the CEL rules run after the schema's checks, unless one of their
        // errors is of a type that blocks them (hasBlockingErr).
        use crate::diag::ErrorType as T;
        let blocked = errors.iter().any(|e| {
            matches!(
                e.error_type,
                Some(
                    T::FieldValueNotSupported
                        | T::FieldValueRequired
                        | T::FieldValueTooLong
                        | T::FieldValueTooMany
                        | T::FieldValueTypeInvalid
                )
            )
        });
        let mut cel = cel_eval::errors(schema, &v, blocked, minor);
        for d in &mut cel {
            d.code = Some("crd-schema".to_owned());
        }
        errors.extend(cel);
    }
    out.extend(errors);
    #[cfg(not(feature = "cel"))]
    if schema.cel_rules > 0 {
        out.push(
            Diagnostic::request(
                "cel-not-evaluated",
                "",
                format!(
                    "{}/{}: the CRD's schema has {} x-kubernetes-validations rule{} (CEL), which this build of restartkit does not evaluate; the rest of the schema was checked",
                    crd.group,
                    crd.kind,
                    schema.cel_rules,
                    if schema.cel_rules == 1 { "" } else { "s" }
                ),
            )
            .with_severity(Severity::Info),
        );
    }
    v
}

#[cfg(test)]
mod tests;
// Needs the evaluator (feature `cel`): the file gates itself, so that this is a plain test module.
#[cfg(test)]
mod cel_tests;
