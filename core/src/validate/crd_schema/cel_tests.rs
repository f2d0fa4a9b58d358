#![cfg(feature = "cel")]
#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
//! x-kubernetes-validations evaluated on create (cel_eval.rs), against the API server's messages
//! (apiextensions-apiserver pkg/apiserver/schema/cel validation.go).

use crate::validate::{ValidateInput, ValidateOutput, run};
use serde_json::{Value, json};

fn crd_with_root(root_rules: Value, spec: Value) -> String {
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
                    "x-kubernetes-validations": root_rules,
                    "properties": {"spec": spec}
                }}
            }]
        }
    })
    .to_string()
}

fn check_with(crd: String, spec: Value) -> ValidateOutput {
    check_at(crd, spec, "1.37")
}

fn check_at(crd: String, spec: Value, minor: &str) -> ValidateOutput {
    run(ValidateInput {
        object: Some(
            json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": spec}),
        ),
        kubernetes_version: Some(minor.to_owned()),
        crds: vec![super::CrdInput {
            source: crd,
            file_name: None,
        }],
        ..Default::default()
    })
    .unwrap()
}

fn check(spec_schema: Value, spec: Value) -> ValidateOutput {
    check_with(crd_with_root(json!([]), spec_schema), spec)
}

fn messages(out: &ValidateOutput) -> Vec<String> {
    let mut m: Vec<String> = out.errors.iter().map(|d| d.message.clone()).collect();
    m.sort();
    m
}

fn spec_with(rules: Value) -> Value {
    json!({"type": "object", "x-kubernetes-validations": rules, "properties": {
        "replicas": {"type": "integer"},
        "name": {"type": "string"},
        "ratio": {"type": "number"},
        "items": {"type": "array", "items": {"type": "object", "properties": {
            "name": {"type": "string"}, "port": {"type": "integer"}}}},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}}
    }})
}

#[test]
fn a_failed_rule_without_message_names_the_rule() {
    let out = check(spec_with(json!([{"rule": "self.replicas <= 3"}])), json!({"replicas": 5}));
    assert_eq!(
        messages(&out),
        ["spec: Invalid value: failed rule: self.replicas <= 3"]
    );
    let ok = check(spec_with(json!([{"rule": "self.replicas <= 3"}])), json!({"replicas": 2}));
    assert!(ok.valid, "{:?}", ok.errors);
    assert!(!ok.infos.iter().any(|d| d.code.as_deref() == Some("cel-not-evaluated")));
}

#[test]
fn message_message_expression_reason_and_field_path() {
    let s = spec_with(json!([
        {"rule": "self.replicas <= 3", "message": " too many "},
        {"rule": "self.name.size() < 3", "messageExpression": "'name ' + self.name + ' is long'",
         "reason": "FieldValueForbidden", "fieldPath": ".name"},
        {"rule": "self.ratio < 1.0", "messageExpression": "'x' + self.nope", "message": "fallback",
         "reason": "FieldValueRequired", "fieldPath": ".labels['x']"}
    ]));
    let out = check(s, json!({"replicas": 5, "name": "abcd", "ratio": 2.0}));
    assert_eq!(
        messages(&out),
        [
            "spec.labels[x]: Required value: fallback",
            "spec.name: Forbidden: name abcd is long",
            "spec: Invalid value: too many",
        ]
    );
}

#[test]
fn runtime_errors_are_worded_as_cel_go_words_them() {
    let s = spec_with(json!([
        {"rule": "self.replicas > 0"},
        {"rule": "self.items[2].port > 0"},
        {"rule": "self.ratio > 0.0 || self.items.size() / (self.items.size() - 1) > 0"},
        {"rule": "self.items.size() + 9223372036854775807 > 0"}
    ]));
    let out = check(s, json!({"items": [{"name": "a"}]}));
    let ok = check(
        spec_with(json!([{"rule": "self.ratio > 0.0 || self.items.size() == 1"}])),
        json!({"items": [{"name": "a"}]}),
    );
    assert!(ok.valid, "an error on one side of || is absorbed by true on the other: {:?}", ok.errors);
    assert_eq!(
        messages(&out),
        [
            "spec: Invalid value: \"object\": index out of bounds: 2 evaluating rule: self.items[2].port > 0",
            "spec: Invalid value: \"object\": integer overflow evaluating rule: self.items.size() + 9223372036854775807 > 0",
            // Both sides of || fail: the left side's error (cel-go), not the right's.
            "spec: Invalid value: \"object\": no such key: ratio evaluating rule: self.ratio > 0.0 || self.items.size() / (self.items.size() - 1) > 0",
            "spec: Invalid value: \"object\": no such key: replicas evaluating rule: self.replicas > 0",
        ]
    );
}

#[test]
fn scalar_rules_print_the_value_and_run_per_item_and_key() {
    let s = json!({"type": "object", "properties": {
        "items": {"type": "array", "items": {"type": "string",
            "x-kubernetes-validations": [{"rule": "self.matches('^[a-z]+$')"}]}},
        "labels": {"type": "object", "additionalProperties": {"type": "integer",
            "x-kubernetes-validations": [{"rule": "self < 10", "message": "small"}]}}
    }});
    let out = check(s, json!({"items": ["ok", "Not"], "labels": {"a": 1, "b": 12}}));
    assert_eq!(
        messages(&out),
        [
            "spec.items[1]: Invalid value: \"Not\": failed rule: self.matches('^[a-z]+$')",
            "spec.labels[b]: Invalid value: 12: small",
        ]
    );
}

#[test]
fn transition_rules_are_skipped_on_create() {
    let s = spec_with(json!([{"rule": "self == oldSelf"}, {"rule": "oldSelf.replicas <= self.replicas"}]));
    let out = check(s, json!({"replicas": 1}));
    assert!(out.valid, "{:?}", out.errors);
}

#[test]
fn the_root_sees_kind_and_metadata_name_only() {
    let crd = crd_with_root(
        json!([{"rule": "self.metadata.name.size() > 3"}, {"rule": "self.kind == 'Widget'"},
               {"rule": "has(self.metadata.namespace)"}]),
        spec_with(json!([])),
    );
    let out = check_with(crd, json!({}));
    let m = messages(&out);
    assert_eq!(m.len(), 2, "{m:?}");
    assert!(m[0].ends_with("failed rule: has(self.metadata.namespace)"), "{m:?}");
    assert!(m[1].ends_with("failed rule: self.metadata.name.size() > 3"), "{m:?}");
}

#[test]
fn a_blocking_schema_error_stops_the_rules() {
    let s = json!({"type": "object", "required": ["name"],
        "x-kubernetes-validations": [{"rule": "self.name == 'a'"}],
        "properties": {"name": {"type": "string"}}});
    let out = check(s, json!({}));
    let m = messages(&out);
    assert!(m.iter().any(|x| x.contains("some validation rules were not checked because the object was invalid")), "{m:?}");
    assert!(!m.iter().any(|x| x.contains("failed rule")), "{m:?}");
}

#[test]
fn regexes_are_go_regexps() {
    // RE2 has no lookahead: Go's error text, as cel-go's matches() returns it.
    let s = spec_with(json!([{"rule": "self.name.matches('a(?=b)')"}, {"rule": "self.name.matches('\\\\pL+')"}]));
    let out = check(s, json!({"name": "ab"}));
    let m = messages(&out);
    assert_eq!(m.len(), 1, "{m:?}");
    assert!(m[0].contains("error parsing regexp: invalid or unsupported Perl syntax: `(?=`"), "{m:?}");
}

#[test]
fn bad_rules_deep_objects_and_many_rules_are_bounded() {
    // A rule that does not parse: an error naming the node, no panic.
    let out = check(spec_with(json!([{"rule": "self.replicas >"}])), json!({"replicas": 1}));
    assert!(messages(&out)[0].starts_with("spec: Invalid value: \"object\": rule compile error: compilation failed"), "{:?}", out.errors);
    // A rule that is not a bool.
    let out = check(spec_with(json!([{"rule": "self.replicas"}])), json!({"replicas": 1}));
    assert!(messages(&out)[0].contains("must evaluate to a bool"), "{:?}", out.errors);
    // 10^4 rules on one node (10^5 in the release build's bench): every one evaluated.
    let rules: Vec<Value> = (0..10_000).map(|i| json!({"rule": format!("self.replicas != {i}")})).collect();
    let start = std::time::Instant::now();
    let out = check(spec_with(Value::Array(rules)), json!({"replicas": 7}));
    assert_eq!(out.errors.len(), 1, "{:?}", out.errors.first());
    assert!(start.elapsed().as_secs() < 120);
    // A deeply nested value under preserve-unknown-fields with a rule on top.
    let mut deep = json!(1);
    for _ in 0..300 {
        deep = json!({"a": deep});
    }
    let s = json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true,
        "x-kubernetes-validations": [{"rule": "has(self.a)"}]});
    let out = check(s, deep);
    assert!(out.errors.iter().all(|d| !d.message.contains("failed rule")), "{:?}", out.errors.first());
}

#[test]
fn before_1_35_the_bad_value_is_the_schema_type() {
    let s = json!({"type": "object", "x-kubernetes-validations": [{"rule": "self.a < 2"}],
        "properties": {"a": {"type": "integer",
            "x-kubernetes-validations": [{"rule": "self < 3", "message": "small"}]}}});
    let crd = crd_with_root(json!([]), s);
    assert_eq!(
        messages(&check_at(crd.clone(), json!({"a": 7}), "1.34")),
        [
            "spec.a: Invalid value: \"integer\": small",
            "spec: Invalid value: \"object\": failed rule: self.a < 2",
        ]
    );
    assert_eq!(
        messages(&check_at(crd, json!({"a": 7}), "1.35")),
        [
            "spec.a: Invalid value: 7: small",
            "spec: Invalid value: failed rule: self.a < 2",
        ]
    );
}

/// cel-go v0.20.1 (Kubernetes 1.31) checks indexOf's offset against the string before searching:
/// a non-empty needle in an empty string is an error there, -1 from v0.22 (1.32) on.
#[test]
fn index_of_in_an_empty_string_follows_the_minors_cel_go() {
    let s = spec_with(json!([{"rule": "self.name.indexOf('a') < 0"}]));
    let crd = crd_with_root(json!([]), s);
    let old = check_at(crd.clone(), json!({"name": ""}), "1.31");
    assert_eq!(
        messages(&old),
        ["spec: Invalid value: \"object\": index out of range: 0 evaluating rule: self.name.indexOf('a') < 0"]
    );
    for minor in ["1.32", "1.37"] {
        let out = check_at(crd.clone(), json!({"name": ""}), minor);
        assert!(out.valid, "{minor}: {:?}", out.errors);
    }
    // Found or not, a non-empty string answers alike at every minor.
    assert!(check_at(crd, json!({"name": "xyz"}), "1.31").valid);
}
