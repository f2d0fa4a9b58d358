#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

use crate::validate::{ValidateInput, ValidateOutput, run, unknown_fields::FieldValidation};
use serde_json::{Value, json};

/// A CRD of kind Widget (group example.com, version v1) with `spec` as given.
fn crd(spec: Value) -> String {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": "Widget", "plural": "widgets"},
            "scope": "Namespaced",
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "properties": {"spec": spec}
                }}
            }]
        }
    })
    .to_string()
}

fn widget(spec: Value) -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": spec})
}

fn check_at(schema: Value, spec: Value, minor: &str, fv: FieldValidation) -> ValidateOutput {
    run(ValidateInput {
        object: Some(widget(spec)),
        kubernetes_version: Some(minor.to_owned()),
        field_validation: fv,
        crds: vec![super::CrdInput {
            source: crd(schema),
            file_name: Some("widget-crd.yaml".to_owned()),
        }],
        ..Default::default()
    })
    .unwrap()
}

fn check(schema: Value, spec: Value) -> ValidateOutput {
    check_at(schema, spec, "1.37", FieldValidation::Strict)
}

fn messages(out: &ValidateOutput) -> Vec<String> {
    out.errors.iter().map(|d| d.message.clone()).collect()
}

fn obj(props: Value) -> Value {
    json!({"type": "object", "properties": props})
}

#[test]
fn a_valid_object_passes_and_the_kind_is_not_passed_over() {
    let out = check(
        obj(json!({"size": {"type": "integer"}})),
        json!({"size": 3}),
    );
    assert!(out.valid, "{:?}", out.errors);
    assert!(
        out.infos
            .iter()
            .all(|d| d.code.as_deref() != Some("kind-not-modelled"))
    );
}

#[test]
fn types_are_checked_with_the_api_servers_words() {
    let out = check(
        obj(json!({"size": {"type": "integer"}})),
        json!({"size": "3"}),
    );
    assert_eq!(
        messages(&out),
        [
            r#"spec.size: Invalid value: "string": spec.size in body must be of type integer: "string""#
        ]
    );
    assert_eq!(
        out.errors[0].error_type,
        Some(crate::diag::ErrorType::FieldValueTypeInvalid)
    );
}

#[test]
fn int_or_string_takes_either() {
    let s = obj(json!({"port": {"x-kubernetes-int-or-string": true}}));
    assert!(check(s.clone(), json!({"port": 8080})).valid);
    assert!(check(s.clone(), json!({"port": "http"})).valid);
    assert_eq!(
        messages(&check(s, json!({"port": true}))),
        [
            r#"spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean""#
        ]
    );
}

#[test]
fn nullable_allows_null_and_a_non_nullable_null_is_dropped() {
    let s = obj(json!({"a": {"type": "string", "nullable": true}, "b": {"type": "string"}}));
    assert!(check(s.clone(), json!({"a": null, "b": null})).valid);
    // Required and not nullable: the null is dropped before validation, so it is missing.
    let s = json!({"type": "object", "required": ["b"], "properties": {"b": {"type": "string"}}});
    assert_eq!(
        messages(&check(s, json!({"b": null}))),
        ["spec.b: Required value"]
    );
}

#[test]
fn defaults_are_applied_before_validation() {
    let s = json!({"type": "object", "required": ["mode"],
        "properties": {"mode": {"type": "string", "default": "Fast", "enum": ["Fast", "Slow"]}}});
    assert!(check(s.clone(), json!({})).valid);
    assert_eq!(
        messages(&check(s, json!({"mode": "Medium"}))),
        [r#"spec.mode: Unsupported value: "Medium": supported values: "Fast", "Slow""#]
    );
    // A bad default is the CRD author's: it is validated like any value.
    let bad = obj(json!({"n": {"type": "integer", "minimum": 2, "default": 1}}));
    assert_eq!(
        messages(&check(bad, json!({}))),
        ["spec.n: Invalid value: 1: spec.n in body should be greater than or equal to 2"]
    );
}

#[test]
fn every_value_keyword() {
    let s = obj(json!({
        "s": {"type": "string", "maxLength": 3, "minLength": 2, "pattern": "^[a-z]+$"},
        "n": {"type": "number", "maximum": 10, "exclusiveMaximum": true, "multipleOf": 0.5},
        "i": {"type": "integer", "minimum": 0, "format": "int32"},
        "l": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 2, "uniqueItems": true},
        "m": {"type": "object", "additionalProperties": {"type": "string"}, "minProperties": 1, "maxProperties": 1},
        "d": {"type": "string", "format": "date"},
    }));
    assert!(
        check(
            s.clone(),
            json!({"s": "ab", "n": 9.5, "i": 3, "l": ["a"], "m": {"k": "v"}, "d": "2024-02-29"})
        )
        .valid
    );
    let out = check(
        s.clone(),
        json!({"s": "abcd", "n": 10, "i": -1, "l": ["a", "b", "c"], "m": {}, "d": "2023-02-29"}),
    );
    let mut got = messages(&out);
    got.sort();
    assert_eq!(
        got,
        [
            r#"spec.d: Invalid value: "2023-02-29": spec.d in body must be of type date: "2023-02-29""#,
            "spec.i: Invalid value: -1: spec.i in body should be greater than or equal to 0",
            "spec.l: Too many: 3: must have at most 2 items",
            "spec.m: Invalid value: 0: spec.m in body should have at least 1 properties",
            // kube-openapi checks an integer value against multipleOf as an integer: 0.5
            // truncates to 0, which it calls not positive.
            "spec.n: Invalid value: 0: factor MultipleOf declared for spec.n must be positive: 0",
            "spec.n: Invalid value: 10: spec.n in body should be less than 10",
            "spec.s: Too long: may not be more than 3 bytes",
        ]
    );
    let mut got = messages(&check(
        s,
        json!({"s": "A", "n": 0.3, "l": ["a", "a"], "m": {"a": "1", "b": "2"}}),
    ));
    got.sort();
    assert_eq!(
        got,
        [
            "spec.l: Invalid value: \"\": spec.l in body shouldn't contain duplicates",
            "spec.m: Too many: 2: must have at most 1 item",
            "spec.n: Invalid value: 0.3: spec.n in body should be a multiple of 0.5",
            r#"spec.s: Invalid value: "A": spec.s in body should be at least 2 chars long"#,
        ]
    );
}

#[test]
fn messages_follow_the_minor() {
    let s = obj(
        json!({"s": {"type": "string", "maxLength": 1}, "l": {"type": "array", "items": {"type": "integer"}, "maxItems": 1}}),
    );
    let spec = json!({"s": "ab", "l": [1, 2]});
    let mut old = messages(&check_at(
        s.clone(),
        spec.clone(),
        "1.31",
        FieldValidation::Strict,
    ));
    old.sort();
    assert_eq!(
        old,
        [
            "spec.l: Too many: 2: must have at most 1 items",
            "spec.s: Too long: may not be longer than 1"
        ]
    );
    let mut new = messages(&check_at(s, spec, "1.37", FieldValidation::Strict));
    new.sort();
    assert_eq!(
        new,
        [
            "spec.l: Too many: 2: must have at most 1 item",
            "spec.s: Too long: may not be more than 1 byte"
        ]
    );
}

#[test]
fn junctors_report_as_kube_openapi_does() {
    let s = obj(json!({"v": {"type": "integer", "anyOf": [{"minimum": 5}, {"maximum": 1}]}}));
    assert!(check(s.clone(), json!({"v": 7})).valid);
    let mut got = messages(&check(s, json!({"v": 3})));
    got.sort();
    assert_eq!(
        got,
        [
            r#"<nil>: Invalid value: "": "spec.v" must validate at least one schema (anyOf)"#,
            "spec.v: Invalid value: 3: spec.v in body should be greater than or equal to 5",
        ]
    );
    let s = obj(json!({"v": {"type": "string", "not": {"enum": ["x"]}}}));
    assert_eq!(
        messages(&check(s, json!({"v": "x"}))),
        [r#"<nil>: Invalid value: "": "spec.v" must not validate the schema (not)"#]
    );
}

#[test]
fn unknown_fields_follow_the_field_validation() {
    let s = obj(json!({"a": {"type": "string"}}));
    let spec = json!({"a": "x", "b": 1, "nested": {"c": 2}});
    let strict = check_at(s.clone(), spec.clone(), "1.37", FieldValidation::Strict);
    let fields: Vec<&str> = strict.errors.iter().map(|d| d.field.as_str()).collect();
    assert_eq!(fields, ["spec.b", "spec.nested"]);
    assert!(
        strict.errors[0]
            .message
            .starts_with(r#"strict decoding error: unknown field "spec.b""#)
    );
    let warn = check_at(s.clone(), spec.clone(), "1.37", FieldValidation::Warn);
    assert!(warn.valid);
    assert_eq!(warn.warnings.len(), 2);
    assert!(
        warn.warnings[0]
            .message
            .starts_with(r#"unknown field "spec.b""#)
    );
    let ignore = check_at(s, spec, "1.37", FieldValidation::Ignore);
    assert!(ignore.valid && ignore.warnings.is_empty());
}

#[test]
fn strict_refusal_tells_the_schema_errors_as_warnings() {
    let s = obj(json!({"a": {"type": "string"}}));
    let out = check(s, json!({"a": 1, "b": 1}));
    assert_eq!(out.errors.len(), 1);
    assert!(
        out.warnings
            .iter()
            .any(|w| w.code.as_deref() == Some("refused-after-unknown-fields"))
    );
}

#[test]
fn preserve_unknown_fields_and_embedded_resources_keep_what_they_should() {
    let s = obj(json!({
        "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
        "embedded": {"type": "object", "x-kubernetes-embedded-resource": true, "properties": {"spec": {"type": "object"}}},
    }));
    let out = check(
        s,
        json!({"free": {"anything": [1]}, "embedded": {"apiVersion": "v1", "kind": "Pod", "metadata": {}, "spec": {}, "extra": 1}}),
    );
    let fields: Vec<&str> = out.errors.iter().map(|d| d.field.as_str()).collect();
    assert_eq!(fields, ["spec.embedded.extra"]);
}

#[test]
fn list_types_refuse_duplicates() {
    let s = obj(json!({
        "set": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
        "map": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                 "items": {"type": "object", "properties": {"name": {"type": "string"}, "v": {"type": "integer"}}}},
    }));
    assert!(
        check(
            s.clone(),
            json!({"set": ["a", "b"], "map": [{"name": "a"}, {"name": "b"}]})
        )
        .valid
    );
    let mut got = messages(&check(
        s,
        json!({"set": ["a", "b", "a"], "map": [{"name": "a", "v": 1}, {"name": "a", "v": 2}]}),
    ));
    got.sort();
    assert_eq!(
        got,
        [
            r#"spec.map[1]: Duplicate value: {"name":"a"}"#,
            r#"spec.set[2]: Duplicate value: "a""#
        ]
    );
}

#[test]
#[cfg(not(feature = "cel"))]
fn cel_rules_are_said_to_be_unchecked() {
    let s = json!({"type": "object", "x-kubernetes-validations": [{"rule": "self.a == 1"}],
        "properties": {"a": {"type": "integer"}}});
    let out = check(s, json!({"a": 2}));
    assert!(out.valid);
    assert!(
        out.infos
            .iter()
            .any(|d| d.code.as_deref() == Some("cel-not-evaluated"))
    );
}

#[test]
fn a_bad_crd_is_one_diagnostic_naming_file_and_field() {
    for (schema, field) in [
        (
            json!({"properties": {"a": {"type": "string"}}}),
            "spec.versions[0].schema.openAPIV3Schema.properties[spec].type",
        ),
        (
            json!({"type": "array"}),
            "spec.versions[0].schema.openAPIV3Schema.properties[spec].items",
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "string", "maxLength": "x"}}}),
            "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[a].maxLength",
        ),
    ] {
        let out = check(schema, json!({}));
        let bad: Vec<_> = out
            .errors
            .iter()
            .filter(|d| d.code.as_deref() == Some("invalid-crd"))
            .collect();
        assert_eq!(bad.len(), 1, "{:?}", out.errors);
        assert_eq!(bad[0].field, field);
        assert_eq!(bad[0].file.as_deref(), Some("widget-crd.yaml"));
        // Without a usable schema the kind is passed over as before.
        assert!(
            out.infos
                .iter()
                .any(|d| d.code.as_deref() == Some("kind-not-modelled"))
        );
    }
    let out = run(ValidateInput {
        object: Some(widget(json!({}))),
        crds: vec![super::CrdInput {
            source: "kind: [".to_owned(),
            file_name: Some("x.yaml".to_owned()),
        }],
        ..Default::default()
    })
    .unwrap();
    assert_eq!(out.errors[0].file.as_deref(), Some("x.yaml"));
}

#[test]
fn a_crd_in_the_stream_checks_its_documents() {
    let text = format!(
        "{}\n---\n{}\n",
        crd(obj(json!({"a": {"type": "string"}}))),
        widget(json!({"a": 1}))
    );
    let out = run(ValidateInput {
        source: Some(text),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(out.errors.len(), 1, "{:?}", out.errors);
    assert_eq!(out.errors[0].field, "spec.a");
    assert_eq!(out.errors[0].document, Some(1));
}

#[test]
fn a_jobset_rule_without_a_name_is_named_by_the_webhook_first() {
    let rules = json!({"type": "object", "properties": {"failurePolicy": {"type": "object", "properties": {
        "rules": {"type": "array", "items": {"type": "object", "required": ["name"],
            "properties": {"name": {"type": "string"}, "action": {"type": "string"}}}}}}}});
    let crd_text = crd(rules)
        .replace("example.com", "jobset.x-k8s.io")
        .replace("Widget", "JobSet");
    let js = json!({"apiVersion": "jobset.x-k8s.io/v1", "kind": "JobSet", "metadata": {"name": "j"},
        "spec": {"failurePolicy": {"rules": [{"action": "FailJobSet"}]}}});
    let out = run(ValidateInput {
        object: Some(js),
        crds: vec![super::CrdInput {
            source: crd_text,
            file_name: None,
        }],
        ..Default::default()
    })
    .unwrap();
    assert!(
        out.errors
            .iter()
            .all(|d| d.code.as_deref() != Some("crd-schema")),
        "{:?}",
        out.errors
    );
}

#[test]
fn a_create_cannot_set_status_where_the_status_subresource_is_on() {
    let schema = json!({"type": "object", "properties": {
        "spec": {"type": "object"},
        "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}}}});
    let doc = |sub: bool| {
        let mut v = json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "names": {"kind": "Widget", "plural": "widgets"},
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": schema.clone()}}]}});
        if sub {
            v["spec"]["versions"][0]["subresources"] = json!({"status": {}});
        }
        v.to_string()
    };
    let obj = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
        "spec": {}, "status": {"ready": "yes"}});
    for (sub, errors) in [(false, 1), (true, 0)] {
        let out = run(ValidateInput {
            object: Some(obj.clone()),
            crds: vec![super::CrdInput {
                source: doc(sub),
                file_name: None,
            }],
            ..Default::default()
        })
        .unwrap();
        assert_eq!(out.errors.len(), errors, "{:?}", out.errors);
    }
}

#[cfg(feature = "bundled-crds")]
fn jobset(spec: Value, fv: FieldValidation) -> ValidateOutput {
    let mut spec = spec;
    if spec.get("replicatedJobs").is_none() {
        spec["replicatedJobs"] = json!([{"name": "w", "template": {"spec": {"template": {"spec": {
            "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}}]);
    }
    run(ValidateInput {
        object: Some(
            json!({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": "js", "namespace": "default"}, "spec": spec}),
        ),
        field_validation: fv,
        ..Default::default()
    })
    .unwrap()
}

#[cfg(feature = "bundled-crds")]
#[test]
fn the_bundled_jobset_schema_checks_its_own_fields() {
    // A rule without a name: the webhook names it before the schema (which requires one) sees it.
    let out = jobset(
        json!({"failurePolicy": {"rules": [{"action": "FailJobSet"}]}}),
        FieldValidation::Strict,
    );
    assert!(out.valid, "{:?}", out.errors);
    // A misspelt field of the JobSet itself is unknown to its CRD.
    let out = jobset(
        json!({"failurePolicy": {"maxRestart": 3}}),
        FieldValidation::Strict,
    );
    assert_eq!(out.errors.len(), 1, "{:?}", out.errors);
    assert_eq!(out.errors[0].field, "spec.failurePolicy.maxRestart");
    assert_eq!(out.errors[0].code.as_deref(), Some("unknown-field"));
    let out = jobset(
        json!({"failurePolicy": {"maxRestart": 3}}),
        FieldValidation::Warn,
    );
    assert!(
        out.valid
            && out
                .warnings
                .iter()
                .any(|w| w.field == "spec.failurePolicy.maxRestart")
    );
    // A constraint only the schema knows.
    let out = jobset(
        json!({"successPolicy": {"operator": "Most"}}),
        FieldValidation::Strict,
    );
    assert_eq!(
        out.errors
            .iter()
            .map(|e| e.message.as_str())
            .collect::<Vec<_>>(),
        [
            r#"spec.successPolicy.operator: Unsupported value: "Most": supported values: "All", "Any""#
        ]
    );
    // Repeated replicatedJob names: the list-map key.
    let rj = json!({"name": "w", "template": {"spec": {"template": {"spec": {"restartPolicy": "Never",
        "containers": [{"name": "c", "image": "busybox"}]}}}}});
    let out = jobset(
        json!({"replicatedJobs": [rj.clone(), rj]}),
        FieldValidation::Strict,
    );
    assert!(
        out.errors
            .iter()
            .any(|e| e.message == r#"spec.replicatedJobs[1]: Duplicate value: {"name":"w"}"#),
        "{:?}",
        out.errors
    );
}

#[cfg(feature = "bundled-crds")]
#[test]
fn a_constraint_the_hand_written_checks_report_is_told_once() {
    let out = jobset(
        json!({"failurePolicy": {"rules": [{"name": "r", "action": "Explode"}]}}),
        FieldValidation::Strict,
    );
    let at_action: Vec<_> = out
        .errors
        .iter()
        .filter(|e| e.field == "spec.failurePolicy.rules[0].action")
        .collect();
    assert_eq!(at_action.len(), 1, "{:?}", out.errors);
    assert!(at_action[0].code.as_deref() != Some("crd-schema"));
}

/// Bad input never panics: schemas and objects drawn from a small grammar of awkward values
/// (negative and huge limits, zero and fractional multipleOf, patterns Go refuses, keywords of
/// the wrong type, deep nesting), every field validation.
#[test]
fn awkward_schemas_and_objects_never_panic() {
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let scalars = [
        json!(null),
        json!(true),
        json!(-1),
        json!(0),
        json!(1.5),
        json!(9_223_372_036_854_775_807i64),
        json!(-9_223_372_036_854_775_808i64),
        json!(18_446_744_073_709_551_615u64),
        json!(1e300),
        json!(-1e-300),
        json!(""),
        json!("é\u{0}"),
        json!("("),
        json!([]),
        json!({}),
    ];
    let keywords = [
        "maxLength",
        "minLength",
        "pattern",
        "maximum",
        "minimum",
        "multipleOf",
        "enum",
        "format",
        "maxItems",
        "minItems",
        "maxProperties",
        "minProperties",
        "required",
        "nullable",
        "default",
        "x-kubernetes-list-type",
        "x-kubernetes-list-map-keys",
        "uniqueItems",
        "exclusiveMaximum",
    ];
    fn schema(
        depth: u32,
        next: &mut dyn FnMut(u64) -> u64,
        scalars: &[Value],
        keywords: &[&str],
    ) -> Value {
        let types = ["string", "integer", "number", "boolean", "object", "array"];
        let t = types[next(6) as usize];
        let mut s = json!({"type": t});
        for _ in 0..next(4) {
            let k = keywords[next(keywords.len() as u64) as usize];
            s[k] = match k {
                "pattern" => json!(["^a", "(", "[", "a{1001}", "\\pL+"][next(5) as usize]),
                "format" => json!(
                    ["uuid", "date", "byte", "int32", "float", "k8s-short-name"][next(6) as usize]
                ),
                "x-kubernetes-list-type" => json!(["set", "map", "atomic"][next(3) as usize]),
                "x-kubernetes-list-map-keys" => json!(["a"]),
                "required" => json!(["a", "b"]),
                "enum" => json!([scalars[next(scalars.len() as u64) as usize].clone(), 1]),
                _ => scalars[next(scalars.len() as u64) as usize].clone(),
            };
        }
        if depth < 4 {
            match t {
                "object" if next(3) == 0 => {
                    s["additionalProperties"] = schema(depth + 1, next, scalars, keywords)
                }
                "object" => {
                    s["properties"] = json!({"a": schema(depth + 1, next, scalars, keywords),
                        "b": schema(depth + 1, next, scalars, keywords)})
                }
                "array" => s["items"] = schema(depth + 1, next, scalars, keywords),
                _ => {}
            }
            if next(5) == 0 {
                s["anyOf"] = json!([schema(4, next, scalars, keywords), {"not": {"minimum": 1}}]);
            }
        } else if t == "array" {
            s["items"] = json!({"type": "string"});
        }
        s
    }
    fn value(depth: u32, next: &mut dyn FnMut(u64) -> u64, scalars: &[Value]) -> Value {
        match next(if depth < 4 { 4 } else { 2 }) {
            0 | 1 => scalars[next(scalars.len() as u64) as usize].clone(),
            2 => json!([
                value(depth + 1, next, scalars),
                value(depth + 1, next, scalars)
            ]),
            _ => {
                json!({"a": value(depth + 1, next, scalars), "b": value(depth + 1, next, scalars), "c": 1})
            }
        }
    }
    for i in 0..1500 {
        let s = schema(0, &mut next, &scalars, &keywords);
        let v = value(0, &mut next, &scalars);
        let fv = [
            FieldValidation::Strict,
            FieldValidation::Warn,
            FieldValidation::Ignore,
        ][i % 3];
        for minor in ["1.31", "1.37"] {
            let _ = check_at(s.clone(), v.clone(), minor, fv);
        }
    }
}

#[test]
fn a_custom_resource_gets_the_metadata_check_of_its_crd() {
    let out = run(ValidateInput {
        object: Some(json!({"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "Not_A_Name"}, "spec": {}})),
        crds: vec![super::CrdInput {
            source: crd(obj(json!({}))),
            file_name: None,
        }],
        ..Default::default()
    })
    .unwrap();
    assert_eq!(out.errors.len(), 1, "{:?}", out.errors);
    assert_eq!(out.errors[0].field, "metadata.name");
}

#[test]
#[cfg(not(feature = "cel"))]
fn the_cel_note_is_given_once_per_kind() {
    let s = json!({"type": "object", "x-kubernetes-validations": [{"rule": "true"}]});
    let text = format!(
        "{}\n---\n{}\n---\n{}\n",
        crd(s),
        widget(json!({})),
        widget(json!({}))
    );
    let out = run(ValidateInput {
        source: Some(text),
        ..Default::default()
    })
    .unwrap();
    let notes = out
        .infos
        .iter()
        .filter(|d| d.code.as_deref() == Some("cel-not-evaluated"))
        .count();
    assert_eq!(notes, 1, "{:?}", out.infos);
}

#[test]
fn an_embedded_resource_needs_an_api_version_and_a_kind() {
    let s = obj(
        json!({"inner": {"type": "object", "x-kubernetes-embedded-resource": true,
        "x-kubernetes-preserve-unknown-fields": true}}),
    );
    assert!(
        check(
            s.clone(),
            json!({"inner": {"apiVersion": "v1", "kind": "Pod"}})
        )
        .valid
    );
    let mut got = messages(&check(s.clone(), json!({"inner": {"apiVersion": "a/b/c"}})));
    got.sort();
    assert_eq!(
        got,
        [
            r#"spec.inner.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c"#,
            "spec.inner.kind: Required value",
        ]
    );
    let old = messages(&check_at(
        s.clone(),
        json!({"inner": {"apiVersion": "v1"}}),
        "1.33",
        FieldValidation::Strict,
    ));
    assert_eq!(old, ["spec.inner.kind: Required value: must not be empty"]);
    let out = check(s, json!({"inner": {"apiVersion": "v1", "kind": "My_Kind"}}));
    assert_eq!(out.errors.len(), 1);
    assert!(out.errors[0].message.starts_with(
        r#"spec.inner.kind: Invalid value: "My_Kind": may have mixed case, but should otherwise match: a DNS-1035 label"#
    ));
}

#[cfg(feature = "bundled-crds")]
fn bundled(obj: Value, fv: FieldValidation) -> ValidateOutput {
    run(ValidateInput {
        object: Some(obj),
        field_validation: fv,
        ..Default::default()
    })
    .unwrap()
}

#[cfg(feature = "bundled-crds")]
fn crr(spec: Value) -> Value {
    json!({"apiVersion": "apps.kruise.io/v1alpha1", "kind": "ContainerRecreateRequest",
        "metadata": {"name": "r", "namespace": "default"}, "spec": spec})
}

#[cfg(feature = "bundled-crds")]
#[test]
fn the_bundled_crr_schema_runs_after_the_kruise_webhook() {
    // The webhook fills strategy.failurePolicy; nothing else is asked of the manifest.
    let out = bundled(
        crr(json!({"podName": "p", "containers": [{"name": "c"}]})),
        FieldValidation::Strict,
    );
    assert!(out.valid, "{:?}", out.errors);
    // A misspelt field: the CRD's pruning, when the request is decoded.
    let out = bundled(
        crr(json!({"podName": "p", "containers": [{"name": "c"}],
            "strategy": {"orderedRecreat": true}})),
        FieldValidation::Strict,
    );
    assert_eq!(
        out.errors
            .iter()
            .map(|e| (e.field.as_str(), e.code.as_deref()))
            .collect::<Vec<_>>(),
        [("spec.strategy.orderedRecreat", Some("unknown-field"))]
    );
    assert!(
        out.errors[0]
            .message
            .starts_with(r#"strict decoding error: unknown field "spec.strategy.orderedRecreat""#)
    );
    // The webhook, a mutating one, refuses a CRR without podName before the schema (which
    // requires it) is looked at: its message alone.
    let out = bundled(
        crr(json!({"containers": [{"name": "c"}]})),
        FieldValidation::Strict,
    );
    assert_eq!(messages(&out), ["podName can not be empty"]);
    // A value of the wrong type is told once, at its field.
    let out = bundled(
        crr(json!({"podName": "p", "containers": [{"name": "c"}], "activeDeadlineSeconds": "x"})),
        FieldValidation::Strict,
    );
    assert_eq!(out.errors.len(), 1, "{:?}", out.errors);
    assert_eq!(out.errors[0].field, "spec.activeDeadlineSeconds");
}

#[cfg(feature = "bundled-crds")]
fn lws(spec: Value) -> Value {
    json!({"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
        "metadata": {"name": "l", "namespace": "default"}, "spec": spec})
}

#[cfg(feature = "bundled-crds")]
fn worker() -> Value {
    json!({"spec": {"containers": [{"name": "c", "image": "busybox"}]}})
}

#[cfg(feature = "bundled-crds")]
#[test]
fn the_bundled_lws_schema_runs_after_the_lws_webhook() {
    // Fields the schema requires or limits to an enum, which the webhook fills first: an empty
    // networkConfig (subdomainPolicy is required), empty rollout type and restart policy.
    for spec in [
        json!({"leaderWorkerTemplate": {"workerTemplate": worker(), "restartPolicy": ""},
            "networkConfig": {}, "rolloutStrategy": {"type": ""}}),
        json!({"leaderWorkerTemplate": {"workerTemplate": worker(), "restartPolicy": "Default"}}),
    ] {
        let out = bundled(lws(spec), FieldValidation::Strict);
        assert!(out.valid, "{:?}", out.errors);
    }
    let out = bundled(
        lws(
            json!({"leaderWorkerTemplate": {"workerTemplate": worker()}, "startupPolicy": "LeaderFirst"}),
        ),
        FieldValidation::Strict,
    );
    assert_eq!(
        messages(&out),
        [
            r#"spec.startupPolicy: Unsupported value: "LeaderFirst": supported values: "LeaderCreated", "LeaderReady""#
        ]
    );
    let out = bundled(
        lws(json!({"leaderWorkerTemplate": {"workerTemplate": worker(), "size": "two"}})),
        FieldValidation::Strict,
    );
    assert_eq!(
        messages(&out),
        [
            r#"spec.leaderWorkerTemplate.size: Invalid value: "string": spec.leaderWorkerTemplate.size in body must be of type integer: "string""#
        ]
    );
    let out = bundled(
        lws(json!({"leaderWorkerTemplate": {"workerTemplate": worker(), "sise": 2}})),
        FieldValidation::Strict,
    );
    assert_eq!(out.errors.len(), 1, "{:?}", out.errors);
    assert_eq!(out.errors[0].field, "spec.leaderWorkerTemplate.sise");
    assert_eq!(out.errors[0].code.as_deref(), Some("unknown-field"));
    // A worker template the StatefulSet would refuse: said while the LWS is admitted, not when
    // the schema refuses the LWS itself (no StatefulSet is ever made).
    let never = json!({"spec": {"restartPolicy": "Never",
        "containers": [{"name": "c", "image": "busybox"}]}});
    let out = bundled(
        lws(json!({"leaderWorkerTemplate": {"workerTemplate": never.clone()}})),
        FieldValidation::Strict,
    );
    assert_eq!(
        messages(&out),
        [
            r#"spec.leaderWorkerTemplate.workerTemplate.spec.restartPolicy: Unsupported value: "Never": supported values: "Always""#
        ]
    );
    let out = bundled(
        lws(json!({"leaderWorkerTemplate": {"workerTemplate": never}, "startupPolicy": "x"})),
        FieldValidation::Strict,
    );
    assert_eq!(out.errors.len(), 1, "{:?}", out.errors);
    assert_eq!(out.errors[0].field, "spec.startupPolicy");
    // Without a worker template the webhook writes back an empty one (a Go value): the schema
    // is satisfied, and the StatefulSet made from it is refused.
    let out = bundled(lws(json!({})), FieldValidation::Strict);
    assert_eq!(
        messages(&out),
        ["spec.leaderWorkerTemplate.workerTemplate.spec.containers: Required value"]
    );
}

#[cfg(feature = "bundled-crds")]
#[test]
fn the_bundled_trainer_runtime_schema_checks_its_own_fields() {
    let rt = |spec: Value| {
        json!({"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "ClusterTrainingRuntime",
            "metadata": {"name": "t"}, "spec": spec})
    };
    let out = bundled(
        rt(json!({"mlPolicy": {"numNode": 2}})),
        FieldValidation::Strict,
    );
    assert_eq!(out.errors.len(), 1, "{:?}", out.errors);
    assert_eq!(out.errors[0].field, "spec.mlPolicy.numNode");
    assert_eq!(out.errors[0].code.as_deref(), Some("unknown-field"));
    // A constraint the hand-written checks (core/src/trainer/crd.rs) report too: once.
    let out = bundled(
        rt(json!({"mlPolicy": {"mpi": {"mpiImplementation": "Intel"}}})),
        FieldValidation::Strict,
    );
    let at: Vec<_> = out
        .errors
        .iter()
        .filter(|e| e.field == "spec.mlPolicy.mpi.mpiImplementation")
        .collect();
    assert_eq!(at.len(), 1, "{:?}", out.errors);
    // One only the schema knows: the JobSet template's successPolicy operator.
    let out = bundled(
        rt(json!({"template": {"spec": {"successPolicy": {"operator": "Most"}}}})),
        FieldValidation::Strict,
    );
    assert_eq!(
        messages(&out),
        [
            r#"spec.template.spec.successPolicy.operator: Unsupported value: "Most": supported values: "All", "Any""#
        ]
    );
}

/// A TrainJob read with the runtimes of its stream is admitted with the TrainJob CRD's schema
/// first, as any custom resource.
#[cfg(feature = "bundled-crds")]
#[test]
fn a_train_job_in_a_stream_is_admitted_with_its_bundled_schema() {
    let source = |trainer: &str| {
        format!(
            "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: t\nspec:\n  runtimeRef:\n    name: torch-distributed\n  trainer:\n{trainer}"
        )
    };
    let validate = |text: String| {
        run(ValidateInput {
            source: Some(text),
            kubernetes_version: Some("1.37".to_owned()),
            field_validation: FieldValidation::Strict,
            ..Default::default()
        })
        .unwrap()
    };
    let out = validate(source("    numNodes: two\n    numNode: 2\n"));
    let found: Vec<(&str, Option<&str>)> = out
        .errors
        .iter()
        .map(|e| (e.field.as_str(), e.code.as_deref()))
        .collect();
    assert!(
        found.contains(&("spec.trainer.numNode", Some("unknown-field"))),
        "{found:?}"
    );
    // Told as a warning: the strict decoding error refuses the request first.
    assert!(
        out.warnings.iter().any(|e| e.field == "spec.trainer.numNodes"
            && e.message.starts_with(
                r#"spec.trainer.numNodes: Invalid value: "string": spec.trainer.numNodes in body must be of type integer: "string""#)),
        "{:?}",
        out.warnings
    );
    // Without the unknown field, it is the error, in the schema's words.
    let out = validate(source(
        "    numNodes: two
",
    ));
    assert_eq!(
        messages(&out),
        [
            r#"spec.trainer.numNodes: Invalid value: "string": spec.trainer.numNodes in body must be of type integer: "string""#
        ]
    );
    // The same TrainJob written right has neither.
    let out = validate(source("    numNodes: 2\n"));
    assert!(
        out.errors
            .iter()
            .all(|e| !e.field.starts_with("spec.trainer.numNode")),
        "{:?}",
        out.errors
    );
}

/// A training-operator job is checked against its bundled CRD; its replicas' Pod templates are
/// still the built-in tables' and the Pod rules'.
#[cfg(feature = "bundled-crds")]
#[test]
fn the_bundled_training_operator_schemas_check_their_own_fields() {
    let job = |worker: Value| {
        json!({"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
            "metadata": {"name": "p", "namespace": "default"},
            "spec": {"pytorchReplicaSpecs": {"Worker": worker}}})
    };
    let template = json!({"spec": {"containers": [{"name": "pytorch", "image": "i"}]}});
    let out = bundled(
        job(json!({"replica": 2, "restartPolicy": "OnFailure", "template": template})),
        FieldValidation::Strict,
    );
    let found: Vec<(&str, Option<&str>)> = out
        .errors
        .iter()
        .map(|e| (e.field.as_str(), e.code.as_deref()))
        .collect();
    assert_eq!(
        found,
        [(
            "spec.pytorchReplicaSpecs.Worker.replica",
            Some("unknown-field")
        )]
    );
    let out = bundled(
        job(json!({"replicas": "2", "template": template})),
        FieldValidation::Strict,
    );
    assert_eq!(
        messages(&out),
        [
            r#"spec.pytorchReplicaSpecs.Worker.replicas: Invalid value: "string": spec.pytorchReplicaSpecs.Worker.replicas in body must be of type integer: "string""#
        ]
    );
    // The template is still validated as the Pods the operator creates from it.
    let out = bundled(
        job(json!({"replicas": 1, "restartPolicy": "ExitCode",
            "template": {"spec": {"containers": [{"name": "pytorch"}]}}})),
        FieldValidation::Strict,
    );
    let found: Vec<&str> = out.errors.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(
        found,
        ["spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].image"]
    );
}
