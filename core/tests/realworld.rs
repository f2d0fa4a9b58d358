//! Manifests that upstream projects publish (conformance/realworld, listed in INDEX.json):
//! no error on the ones marked valid, an error on the ones marked invalid.

use restartkit::conformance::realworld_target as target_of;
use serde_json::{Value, json};
use std::path::PathBuf;

#[test]
fn published_manifests_are_judged_as_upstream_judges_them() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../conformance/realworld");
    let index: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(dir.join("INDEX.json")).unwrap_or_default())
            .unwrap_or_default();
    assert!(index.len() >= 40, "INDEX.json lists {} files", index.len());
    let mut wrong = Vec::new();
    for e in &index {
        let file = e.get("file").and_then(Value::as_str).unwrap_or("");
        let text = std::fs::read_to_string(dir.join(file)).unwrap_or_default();
        assert!(!text.is_empty(), "{file} is empty or missing");
        let (version, gates) = target_of(e);
        let mut input = json!({"source": text, "featureGates": gates});
        if let (Some(v), Some(m)) = (version, input.as_object_mut()) {
            m.insert("kubernetesVersion".into(), json!(v));
        }
        // A TrainJob's runtime published in another file of the corpus (validated on its own).
        let runtimes: Vec<Value> = e
            .get("runtimes")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(|f| {
                let text = std::fs::read_to_string(dir.join(f)).unwrap_or_default();
                json!({"source": text, "fileName": f, "validated": true})
            })
            .collect();
        if let (false, Some(m)) = (runtimes.is_empty(), input.as_object_mut()) {
            m.insert("runtimes".into(), json!(runtimes));
        }
        let resp = restartkit::handle(restartkit::Request {
            op: "validate".into(),
            input,
        });
        let result = resp.result().cloned().unwrap_or(Value::Null);
        let errors = result
            .get("errors")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let expect_valid = e.get("expect").and_then(Value::as_str) == Some("valid");
        if result.is_null() {
            wrong.push(format!("{file}: request failed: {resp:?}"));
        } else if expect_valid && !errors.is_empty() {
            let msgs: Vec<&str> = errors
                .iter()
                .filter_map(|d| d.get("message").and_then(Value::as_str))
                .collect();
            wrong.push(format!("{file}: false positive(s): {msgs:?}"));
        } else if !expect_valid && errors.is_empty() {
            wrong.push(format!(
                "{file}: upstream rejects it, restartkit reported no error"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
