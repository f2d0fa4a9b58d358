//! Quick fixes on diagnostics (`Diagnostic.fixes`): where a problem has one obvious repair, the
//! core offers it as field edits and, for text input, as text edits. Applying the text edits must
//! clear the diagnostic (and change nothing else).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use serde_json::{Value, json};

fn run(input: Value) -> Value {
    let resp = restartkit::handle(restartkit::Request {
        op: "validate".into(),
        input,
    });
    resp.result()
        .cloned()
        .unwrap_or_else(|| panic!("not answered: {resp:?}"))
}

fn validate(source: &str) -> Value {
    run(json!({"source": source}))
}

/// The text with the edits applied (1-based lines, character columns; edits on distinct spots).
fn apply(text: &str, edits: &[Value]) -> String {
    let mut lines: Vec<Vec<char>> = text.split('\n').map(|l| l.chars().collect()).collect();
    let mut edits = edits.to_vec();
    edits.sort_by_key(|e| std::cmp::Reverse((e["line"].as_u64(), e["column"].as_u64())));
    for e in edits {
        let (l, c) = (
            e["line"].as_u64().unwrap() as usize - 1,
            e["column"].as_u64().unwrap() as usize - 1,
        );
        let (el, ec) = (
            e["endLine"].as_u64().unwrap() as usize - 1,
            e["endColumn"].as_u64().unwrap() as usize - 1,
        );
        assert_eq!(l, el, "one-line edits only");
        let line = &mut lines[l];
        line.splice(c..ec, e["newText"].as_str().unwrap().chars());
    }
    lines
        .iter()
        .map(|l| l.iter().collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The only diagnostic on `field`, its one fix, and the text after the fix.
fn fixed(source: &str, field: &str) -> (Value, String) {
    let out = validate(source);
    let d: Vec<&Value> = out["errors"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["field"] == field)
        .collect();
    assert_eq!(d.len(), 1, "{out}");
    let fixes = d[0]["fixes"]
        .as_array()
        .unwrap_or_else(|| panic!("no fixes: {}", d[0]));
    assert_eq!(fixes.len(), 1);
    let text = apply(source, fixes[0]["textEdits"].as_array().unwrap());
    (fixes[0].clone(), text)
}

const JOB: &str = "apiVersion: batch/v1
kind: Job
metadata:
  name: j
spec:
  completionMode: Indexed
  completions: 2
  podFailurePolicy:
    rules:
    - action: ACTION
      onExitCodes:
        operator: In
        values: VALUES
  template:
    spec:
      restartPolicy: POLICY
      containers:
      - name: main
        image: busybox
";

fn job(action: &str, values: &str, policy: &str) -> String {
    JOB.replace("ACTION", action)
        .replace("VALUES", values)
        .replace("POLICY", policy)
}

#[test]
fn on_failure_with_pod_failure_policy_becomes_never() {
    let src = job("FailJob", "[3]", "OnFailure");
    let (fix, text) = fixed(&src, "spec.template.spec.restartPolicy");
    assert_eq!(
        fix["edits"],
        json!([{"field": "spec.template.spec.restartPolicy", "value": "Never"}])
    );
    assert_eq!(text, job("FailJob", "[3]", "Never"));
    assert_eq!(validate(&text)["valid"], true, "{}", validate(&text));
}

#[test]
fn zero_in_an_in_list_is_removed() {
    let src = job("FailJob", "[0, 3, 5]", "Never");
    let (fix, text) = fixed(&src, "spec.podFailurePolicy.rules[0].onExitCodes.values[0]");
    assert_eq!(
        fix["edits"],
        json!([{"field": "spec.podFailurePolicy.rules[0].onExitCodes.values", "value": [3, 5]}])
    );
    assert_eq!(text, job("FailJob", "[3, 5]", "Never"));
    assert_eq!(validate(&text)["valid"], true);
    // Nothing but 0: no obvious repair (an empty list is an error too), so no fix.
    let out = validate(&job("FailJob", "[0]", "Never"));
    let d = out["errors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["field"] == "spec.podFailurePolicy.rules[0].onExitCodes.values[0]")
        .unwrap();
    assert!(d.get("fixes").is_none(), "{d}");
}

#[test]
fn fail_index_without_backoff_limit_per_index_sets_it() {
    let src = job("FailIndex", "[3]", "Never");
    let (fix, text) = fixed(&src, "spec.podFailurePolicy.rules[0].action");
    assert_eq!(
        fix["edits"],
        json!([{"field": "spec.backoffLimitPerIndex", "value": 1}])
    );
    assert!(
        text.contains("\n  backoffLimitPerIndex: 1\n  completionMode: Indexed\n"),
        "{text}"
    );
    assert_eq!(validate(&text)["valid"], true, "{}", validate(&text));
}

#[test]
fn json_input_gets_json_edits() {
    let src = r#"{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": {"completionMode": "Indexed", "completions": 2,
 "podFailurePolicy": {"rules": [{"action": "FailIndex", "onExitCodes": {"operator": "In", "values": [0, 1]}}]},
 "template": {"spec": {"restartPolicy": "OnFailure", "containers": [{"name": "main", "image": "busybox"}]}}}}"#;
    let out = validate(src);
    let mut edits = Vec::new();
    for d in out["errors"].as_array().unwrap() {
        for f in d["fixes"].as_array().into_iter().flatten() {
            edits.extend(f["textEdits"].as_array().unwrap().iter().cloned());
        }
    }
    assert_eq!(edits.len(), 3, "{out}");
    let text = apply(src, &edits);
    let _: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(
        validate(&text)["valid"],
        true,
        "{text}\n{}",
        validate(&text)
    );
}

#[test]
fn an_object_gets_field_edits_only() {
    let obj: Value = serde_json::from_str(&serde_json::to_string(&json!({
        "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
        "spec": {"podFailurePolicy": {"rules": [{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [1]}}]},
                 "template": {"spec": {"restartPolicy": "OnFailure", "containers": [{"name": "m", "image": "i"}]}}}})).unwrap()).unwrap();
    let out = run(json!({"object": obj}));
    let d = &out["errors"][0];
    assert_eq!(d["fixes"][0]["edits"][0]["value"], "Never", "{out}");
    assert!(d["fixes"][0].get("textEdits").is_none());
}
