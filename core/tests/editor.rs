//! What editors get from the contract: ranges of diagnostics, the settings comment, the
//! `complete` and `hover` ops.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use serde_json::{Value, json};

fn call(op: &str, input: Value) -> Value {
    let out: Value = serde_json::from_str(&restartkit::handle_json(
        &json!({"op": op, "input": input}).to_string(),
    ))
    .unwrap();
    assert_eq!(out["status"], "ok", "{out}");
    out["result"].clone()
}

const JOB: &str = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\nspec:\n  completionMode: Within\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: c\n        image: i\n        bogus: 1\n";

#[test]
fn value_errors_cover_the_value_and_unknown_fields_the_key() {
    let r = call("validate", json!({"source": JOB}));
    let e = &r["errors"][0];
    assert_eq!(e["field"], "spec.completionMode");
    assert_eq!(
        (e["line"].clone(), e["column"].clone()),
        (json!(6), json!(3))
    );
    assert_eq!(
        e["range"],
        json!({"line": 6, "column": 19, "endLine": 6, "endColumn": 25})
    );
    let w = r["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["code"] == "unknown-field")
        .unwrap();
    assert_eq!(
        w["range"],
        json!({"line": 13, "column": 9, "endLine": 13, "endColumn": 14})
    );
}

#[test]
fn the_settings_comment_sets_the_version_and_gates() {
    let text = format!("# restartkit: kubernetes-version=1.34\n{JOB}");
    let r = call(
        "validate",
        json!({"source": text, "kubernetesVersion": "1.36"}),
    );
    assert_eq!(r["kubernetesVersion"], "1.34");
    let bad = call(
        "validate",
        json!({"source": format!("# restartkit: kubernetes-version=1.20\n{JOB}")}),
    );
    assert_eq!(bad["valid"], false);
    assert_eq!(bad["errors"][0]["code"], "unsupported-version");
    assert_eq!(bad["errors"][0]["line"], 1);
    let typo = call(
        "validate",
        json!({"source": format!("# restartkit: kubernetes-versoin=1.34\n{JOB}")}),
    );
    assert_eq!(typo["errors"][0]["code"], "invalid-settings-comment");
}

#[test]
fn complete_and_hover_through_the_contract() {
    let text = "kind: Pod\nspec:\n  containers:\n  - name: c\n    restartPolicyRules:\n    - action: Restart\n      exitCodes:\n        operator: \n";
    let c = call("complete", json!({"source": text, "line": 8, "column": 19}));
    let labels: Vec<&str> = c["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["In", "NotIn"]);
    let h = call("hover", json!({"source": JOB, "line": 6, "column": 4}));
    assert_eq!(h["field"], "spec.completionMode");
    assert_eq!(
        h["range"],
        json!({"line": 6, "column": 3, "endLine": 6, "endColumn": 17})
    );
}
