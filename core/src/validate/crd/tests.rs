//! The CRD create checks on hand-made CRDs; each expectation is what
//! ValidateCustomResourceDefinition says of it (the oracle leg `validate(CustomResourceDefinition)`
//! compares random ones with apiextensions-apiserver itself).
// Building test CRDs by JSON index: a missing member is a test bug, not a case to handle.
#![allow(clippy::indexing_slicing)]

use super::*;
use crate::features::{FeatureGates, KubeVersion};
use serde_json::json;

fn run_at(crd: &Value, minor: u32) -> Vec<(String, String)> {
    let ctx = Ctx {
        gates: FeatureGates::for_version(KubeVersion { minor }),
        ..Ctx::default()
    };
    let mut out = Findings::default();
    validate(crd, &ctx, &mut out);
    out.errors
        .iter()
        .map(|d| (d.field.clone(), d.message.clone()))
        .collect()
}

fn fields(crd: &Value) -> Vec<String> {
    let mut f: Vec<String> = run_at(crd, 37).into_iter().map(|(f, _)| f).collect();
    f.sort();
    f
}

fn schema() -> Value {
    json!({"type": "object", "properties": {
        "spec": {"type": "object", "properties": {
            "color": {"type": "string"}, "size": {"type": "integer"}, "ratio": {"type": "number"}}},
        "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}})
}

fn crd(versions: Value) -> Value {
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"plural": "widgets", "kind": "Widget"}, "versions": versions}})
}

fn version(name: &str, storage: bool) -> Value {
    json!({"name": name, "served": true, "storage": storage, "schema": {"openAPIV3Schema": schema()}})
}

#[test]
fn a_well_formed_crd_passes() {
    assert_eq!(
        fields(&crd(json!([version("v1", true)]))),
        Vec::<String>::new()
    );
    // Two versions, one stored, with their own subresources.
    let mut v2 = version("v2", false);
    v2["subresources"] = json!({"status": {}});
    assert_eq!(
        fields(&crd(json!([version("v1", true), v2]))),
        Vec::<String>::new()
    );
}

#[test]
fn identical_schemas_are_reported_at_the_top_level() {
    let mut c = crd(json!([version("v1", true), version("v2", false)]));
    for i in 0..2 {
        c["spec"]["versions"][i]["schema"]["openAPIV3Schema"]["properties"]["spec"]["uniqueItems"] =
            json!(true);
    }
    assert_eq!(
        fields(&c),
        ["spec.validation.openAPIV3Schema.properties[spec].uniqueItems"]
    );
    // Differing schemas stay per version.
    c["spec"]["versions"][1]["schema"]["openAPIV3Schema"]["properties"]["spec"]["uniqueItems"] =
        json!(false);
    assert_eq!(
        fields(&c),
        ["spec.versions[0].schema.openAPIV3Schema.properties[spec].uniqueItems"]
    );
}

#[test]
fn storage_versions_names_and_the_stored_version() {
    let c = crd(json!([version("v1", true), version("v2", true)]));
    assert_eq!(fields(&c), ["spec.versions", "status.storedVersions"]);
    let none = crd(json!([version("v1", false)]));
    let got = run_at(&none, 37);
    assert!(got.iter().any(|(f, m)| f == "status.storedVersions"
        && m.ends_with("must have at least one stored version")));
    let mut bad = crd(json!([version("v1", true)]));
    bad["metadata"]["name"] = json!("widget.example.com");
    bad["spec"]["names"]["kind"] = json!("Widget");
    bad["spec"]["names"]["listKind"] = json!("Widget");
    bad["spec"]["group"] = json!("example");
    assert_eq!(
        fields(&bad),
        ["metadata.name", "spec.group", "spec.names.listKind"]
    );
}

#[test]
fn a_version_without_a_schema_is_worded_per_minor() {
    let c = crd(json!([{"name": "v1", "served": true, "storage": true}]));
    let path = "spec.versions[0].schema.openAPIV3Schema";
    assert_eq!(
        run_at(&c, 33),
        [(
            path.to_owned(),
            format!("{path}: Required value: schemas are required")
        )]
    );
    assert_eq!(
        run_at(&c, 34),
        [(path.to_owned(), format!("{path}: Required value"))]
    );
}

#[test]
fn structural_rules() {
    let mut c = crd(json!([version("v1", true)]));
    let s = &mut c["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
    s["properties"]["spec"]["properties"]["untyped"] = json!({});
    s["properties"]["spec"]["properties"]["list"] = json!({"type": "array"});
    s["properties"]["metadata"] =
        json!({"type": "object", "properties": {"labels": {"type": "object"}}});
    s["anyOf"] = json!([{"properties": {"nothere": {"type": "string"}}}]);
    // One version: its schema is the top-level one.
    let p = "spec.validation.openAPIV3Schema";
    assert_eq!(
        fields(&c),
        [
            format!("{p}.anyOf[0].properties[nothere].type"),
            format!("{p}.properties[metadata]"),
            format!("{p}.properties[nothere]"),
            format!("{p}.properties[spec].properties[list].items"),
            format!("{p}.properties[spec].properties[untyped].type"),
        ]
    );
}

#[test]
fn defaults_are_checked_against_their_schema_and_need_pruning_off() {
    let mut c = crd(json!([version("v1", true)]));
    c["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["size"] =
        json!({"type": "integer", "minimum": 1, "default": 0});
    let p = "spec.validation.openAPIV3Schema.properties[spec].properties[size].default";
    assert_eq!(fields(&c), [p]);
    c["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["size"]
        ["default"] = json!(3);
    c["spec"]["preserveUnknownFields"] = json!(true);
    // Refused twice: defaults need pruning, and true is refused on create anyway.
    assert_eq!(
        fields(&c),
        ["spec.preserveUnknownFields", "spec.preserveUnknownFields"]
    );
}

#[test]
fn list_types_and_rules() {
    let mut c = crd(json!([version("v1", true)]));
    c["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["ports"] = json!({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name", "port"],
            "items": {"type": "object", "required": ["name"],
                "properties": {"name": {"type": "string"}, "port": {"type": "integer", "nullable": true}}}});
    c["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["x-kubernetes-validations"] = json!([{"rule": "self == self", "message": " "}, {"rule": "true", "reason": "Invalid"},
            {"rule": "true", "fieldPath": ".nothere"}, {"rule": "true", "fieldPath": ".color"}]);
    let p = "spec.validation.openAPIV3Schema.properties[spec]";
    assert_eq!(
        fields(&c),
        [
            format!("{p}.properties[ports].items.properties[port].default"),
            format!("{p}.properties[ports].items.properties[port].nullable"),
            format!("{p}.x-kubernetes-validations[0].message"),
            format!("{p}.x-kubernetes-validations[1].reason"),
            format!("{p}.x-kubernetes-validations[2].fieldPath"),
        ]
    );
    let at33 = run_at(&c, 33);
    assert!(
        at33.iter()
            .any(|(_, m)| m.ends_with("fieldPath must be a valid path"))
    );
}

#[test]
fn conversion_columns_and_selectable_fields() {
    let mut c = crd(json!([version("v1", true)]));
    c["spec"]["conversion"] = json!({"strategy": "Webhook",
        "webhook": {"clientConfig": {"service": {"name": "conv", "namespace": "ns", "port": 0}}}});
    c["spec"]["versions"][0]["additionalPrinterColumns"] =
        json!([{"name": "Color", "type": "string", "jsonPath": "spec.color"}]);
    c["spec"]["versions"][0]["selectableFields"] = json!([{"jsonPath": ".spec.color"}, {"jsonPath": ".spec.ratio"}, {"jsonPath": ".spec.gone"},
            {"jsonPath": ".spec.color"}]);
    assert_eq!(
        fields(&c),
        [
            "spec.additionalPrinterColumns[0].JSONPath",
            "spec.conversion.conversionReviewVersions",
            "spec.conversion.webhookClientConfig.service.port",
            "spec.selectableFields[1].jsonPath",
            "spec.selectableFields[2].jsonPath",
            "spec.selectableFields[3].jsonPath",
        ]
    );
}

#[test]
fn protected_groups_need_the_approval_annotation() {
    let mut c = crd(json!([version("v1", true)]));
    c["metadata"]["name"] = json!("widgets.x.k8s.io");
    c["spec"]["group"] = json!("x.k8s.io");
    let key = "metadata.annotations[api-approved.kubernetes.io]";
    assert_eq!(fields(&c), [key]);
    for (value, refused) in [
        ("https://github.com/kubernetes/kubernetes/pull/78458", false),
        ("unapproved, experimental-only", false),
        ("yes", true),
    ] {
        c["metadata"]["annotations"] = json!({"api-approved.kubernetes.io": value});
        assert_eq!(!fields(&c).is_empty(), refused, "{value}");
    }
}

#[test]
fn a_default_is_validated_even_against_a_type_openapi_lacks() {
    let mut c = crd(json!([version("v1", true)]));
    c["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["size"] =
        json!({"type": "int", "default": 1});
    let got = run_at(&c, 37);
    let p = "spec.validation.openAPIV3Schema.properties[spec].properties[size]";
    assert!(
        got.iter().any(|(f, m)| f == &format!("{p}.default")
            && m.ends_with("in body must be of type int: \"integer\"")),
        "{got:?}"
    );
}

#[test]
fn a_selectable_field_on_a_schema_that_is_not_structural_fails_the_request() {
    let mut c = crd(json!([version("v1", true)]));
    c["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["$ref"] =
        json!("#/x");
    c["spec"]["versions"][0]["selectableFields"] = json!([{"jsonPath": ".spec.color"}]);
    let ctx = Ctx {
        gates: FeatureGates::for_version(KubeVersion { minor: 37 }),
        ..Ctx::default()
    };
    let mut out = Findings::default();
    validate(&c, &ctx, &mut out);
    assert!(
        out.errors
            .iter()
            .any(|d| d.field == "spec.selectableFields[0].jsonPath"
                && d.error_type == Some(crate::diag::ErrorType::InternalError)),
        "{:?}",
        out.errors
    );
}
