//! The crrValidate op: a ContainerRecreateRequest with the Pod and Node the webhook would read,
//! CREATE or UPDATE, answered as the webhook and then the API server's schema check do.

use crate::api::Pod;
use crate::diag::{Diagnostic, FieldPath, Origin};
use crate::features::FeatureGates;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

use super::go_json::GoSpec;
use super::webhook::{
    ANNOTATION_UNREADY_ACQUIRED, LABEL_ACTIVE, LABEL_NODE_NAME, LABEL_POD_UID, Rejection,
    create_checks_before_pod, create_checks_with_pod, reject, spec_path, v1beta1_schema_errors,
};

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CrrValidateInput {
    /// The ContainerRecreateRequest (API JSON).
    pub object: Value,
    /// `CREATE` (default) or `UPDATE`.
    #[serde(default)]
    pub operation: Option<String>,
    /// The stored object, for UPDATE.
    #[serde(default)]
    pub old_object: Option<Value>,
    /// The Pod named by `spec.podName`, as the webhook would read it (absent: not found).
    #[serde(default)]
    pub pod: Option<Value>,
    /// The Pod's Node (absent: not found).
    #[serde(default)]
    pub node: Option<Value>,
    /// The version of the requested resource, `v1alpha1` or `v1beta1` (the webhook routes on it);
    /// default: the version of `object.apiVersion`.
    #[serde(default)]
    pub resource_version: Option<String>,
    #[serde(default)]
    pub kubernetes_version: Option<String>,
    /// Kruise gates (`KruiseDaemon`) and any others.
    #[serde(default)]
    pub feature_gates: Option<BTreeMap<String, bool>>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CrrValidateOutput {
    pub valid: bool,
    pub errors: Vec<Diagnostic>,
    /// 200 when allowed; the webhook's code (400, 403, 500) or 422 for schema errors.
    pub http_code: u16,
    /// The object after the mutating webhook (only when the request is allowed).
    pub mutated_object: Option<Value>,
    /// The resource version the request was routed as.
    pub resource_version: String,
}

fn labels_of(obj: &Value) -> BTreeMap<String, String> {
    obj.get("metadata")
        .and_then(|m| m.get("labels"))
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_owned()))
                .collect()
        })
        .unwrap_or_default()
}

fn annotation(obj: &Value, key: &str) -> String {
    obj.get("metadata")
        .and_then(|m| m.get("annotations"))
        .and_then(|a| a.get(key))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned()
}

fn rejected(r: Rejection, version: String) -> CrrValidateOutput {
    CrrValidateOutput {
        valid: false,
        errors: vec![Diagnostic::plain(
            Origin::KruiseWebhook,
            &r.field,
            r.message,
        )],
        http_code: r.code,
        mutated_object: None,
        resource_version: version,
    }
}

fn decode_spec(obj: &Value) -> Result<GoSpec, Rejection> {
    if !obj.is_object() {
        return Err(reject(
            400,
            FieldPath::root(),
            "json: cannot unmarshal non-object into Go value of type ContainerRecreateRequest",
        ));
    }
    GoSpec::decode(obj.get("spec")).map_err(|e| reject(400, FieldPath::new(&e.field), e.message))
}

/// The UPDATE branch of the handler.
pub fn update_check(obj: &Value, old: &Value, version: &str) -> Result<(), Rejection> {
    let spec = decode_spec(obj)?;
    let old_spec = decode_spec(old)?;
    if spec != old_spec {
        return Err(reject(
            403,
            spec_path(),
            "spec of ContainerRecreateRequest is immutable",
        ));
    }
    let (nl, ol) = (labels_of(obj), labels_of(old));
    for key in [LABEL_POD_UID, LABEL_NODE_NAME] {
        if nl.get(key).map_or("", String::as_str) != ol.get(key).map_or("", String::as_str) {
            return Err(reject(
                403,
                FieldPath::new("metadata").child("labels").key(key),
                format!("not allowed to update immutable label {key}"),
            ));
        }
    }
    if version != "v1beta1" {
        let old_a = annotation(old, ANNOTATION_UNREADY_ACQUIRED);
        if !old_a.is_empty() && annotation(obj, ANNOTATION_UNREADY_ACQUIRED) != old_a {
            return Err(reject(
                403,
                FieldPath::new("metadata")
                    .child("annotations")
                    .key(ANNOTATION_UNREADY_ACQUIRED),
                format!("not allowed to update immutable annotation {ANNOTATION_UNREADY_ACQUIRED}"),
            ));
        }
    }
    Ok(())
}

pub fn run(i: CrrValidateInput) -> Result<CrrValidateOutput, Diagnostic> {
    let (gates, _) =
        FeatureGates::resolve(i.kubernetes_version.as_deref(), i.feature_gates.as_ref())?;
    let version = i.resource_version.clone().unwrap_or_else(|| {
        i.object
            .get("apiVersion")
            .and_then(Value::as_str)
            .and_then(|a| a.rsplit_once('/'))
            .map_or("v1alpha1", |(_, v)| v)
            .to_owned()
    });
    let operation = i.operation.clone().unwrap_or_else(|| "CREATE".to_owned());
    if !gates.enabled("KruiseDaemon") {
        return Ok(rejected(
            reject(
                403,
                FieldPath::root(),
                "feature-gate KruiseDaemon is not enabled",
            ),
            version,
        ));
    }
    match operation.as_str() {
        "UPDATE" => {
            let Some(old) = &i.old_object else {
                return Err(Diagnostic::request(
                    "invalid-input",
                    "input.oldObject",
                    "input.oldObject is required for UPDATE",
                ));
            };
            Ok(match update_check(&i.object, old, &version) {
                Err(r) => rejected(r, version),
                Ok(()) => CrrValidateOutput {
                    valid: true,
                    errors: vec![],
                    http_code: 200,
                    mutated_object: Some(i.object.clone()),
                    resource_version: version,
                },
            })
        }
        "CREATE" => {
            let pod = match &i.pod {
                None => None,
                Some(v) => Some(
                    crate::validate::decode_at::<Pod>(v, &FieldPath::new("pod")).map_err(
                        |mut d| {
                            d.field = format!("input.{}", d.field);
                            d.code = Some("invalid-input".to_owned());
                            d
                        },
                    )?,
                ),
            };
            // The webhook's client reads the Pod by namespace and name.
            let pod = pod.filter(|p| {
                let want = i
                    .object
                    .get("spec")
                    .and_then(|s| s.get("podName"))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let ns = i
                    .object
                    .get("metadata")
                    .and_then(|m| m.get("namespace"))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                p.metadata.name_or_empty() == want
                    && (ns.is_empty()
                        || p.metadata.namespace_or_empty().is_empty()
                        || p.metadata.namespace_or_empty() == ns)
            });
            let node = i.node.as_ref().filter(|n| {
                let want = pod
                    .as_ref()
                    .and_then(|p| p.spec.node_name.as_deref())
                    .unwrap_or("");
                n.get("metadata")
                    .and_then(|m| m.get("name"))
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    == want
            });
            Ok(create(&i.object, pod.as_ref(), node, version))
        }
        other => Err(Diagnostic::request(
            "invalid-input",
            "input.operation",
            format!(
                "input.operation {other:?}: the webhook is registered for CREATE and UPDATE only"
            ),
        )),
    }
}

fn create(
    obj: &Value,
    pod: Option<&Pod>,
    node: Option<&Value>,
    version: String,
) -> CrrValidateOutput {
    let mut spec = match decode_spec(obj) {
        Ok(s) => s,
        Err(r) => return rejected(r, version),
    };
    if let Err(r) = create_checks_before_pod(&mut spec) {
        return rejected(r, version);
    }
    let labels = match create_checks_with_pod(&mut spec, pod, node) {
        Ok(l) => l,
        Err(r) => return rejected(r, version),
    };
    let mut mutated = obj.clone();
    if let Some(m) = mutated.as_object_mut() {
        let meta = m
            .entry("metadata")
            .or_insert_with(|| Value::Object(Map::new()));
        if !meta.is_object() {
            *meta = Value::Object(Map::new());
        }
        if let Some(meta) = meta.as_object_mut() {
            let l = meta
                .entry("labels")
                .or_insert_with(|| Value::Object(Map::new()));
            if !l.is_object() {
                *l = Value::Object(Map::new());
            }
            if let Some(l) = l.as_object_mut() {
                l.insert(LABEL_ACTIVE.to_owned(), Value::from("true"));
                for (k, v) in labels {
                    l.insert(k, Value::from(v));
                }
            }
        }
        m.insert("spec".to_owned(), spec.to_json());
    }
    let schema = if version == "v1beta1" {
        v1beta1_schema_errors(&spec)
    } else {
        vec![]
    };
    if schema.is_empty() {
        CrrValidateOutput {
            valid: true,
            errors: vec![],
            http_code: 200,
            mutated_object: Some(mutated),
            resource_version: version,
        }
    } else {
        CrrValidateOutput {
            valid: false,
            errors: schema,
            http_code: 422,
            mutated_object: None,
            resource_version: version,
        }
    }
}
