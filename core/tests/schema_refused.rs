//! conformance/schema-refused: manifests kube-apiserver 1.37 refuses for schema, decoding or
//! metadata reasons, each with the API server's message in its `# expect:` header (checked
//! against upstream code, see the corpus README), and valid controls. restartkit, under kubectl's
//! default `--validate=strict`, must refuse each with that message (a strict-decoding refusal
//! may add a hint after it),
//! accept the controls, and the few it leaves to the cluster are named here: the test fails when
//! one of them becomes caught too, so the list stays true.

#![allow(clippy::panic)]

use restartkit::validate::unknown_fields::FieldValidation;
use restartkit::validate::{ValidateInput, run};
use std::path::PathBuf;

/// What restartkit leaves to the cluster in this corpus (validation it does not model).
const LEFT_TO_THE_CLUSTER: &[&str] = &[
    // Duplicate YAML keys: reported, in restartkit's own words (the API server's come from
    // yaml.v2 on the body as sent).
    "deployment-duplicate-replicas.yaml",
];

fn corpus() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../conformance/schema-refused");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    files
}

/// The `# expect:` header: the messages (one, or a `[a, b]` list of field errors).
fn expected(text: &str) -> Vec<String> {
    let first = text.lines().next().unwrap_or("");
    let e = first
        .strip_prefix("# expect: ")
        .unwrap_or("")
        .replace("\\n", "\n");
    match e.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
        // Field errors start with `spec.` or `metadata.` in this corpus.
        Some(list) => {
            let mut out: Vec<String> = Vec::new();
            for part in list.split(", ") {
                match out.last_mut() {
                    Some(prev) if !part.starts_with("spec.") && !part.starts_with("metadata.") => {
                        prev.push_str(", ");
                        prev.push_str(part);
                    }
                    _ => out.push(part.to_owned()),
                }
            }
            out
        }
        None => vec![e],
    }
}

#[test]
fn every_refusal_with_the_api_servers_message() {
    let files = corpus();
    assert!(files.len() >= 50, "{} files", files.len());
    let mut caught = 0;
    for f in &files {
        let name = f.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let text = std::fs::read_to_string(f).unwrap_or_default();
        let out = run(ValidateInput {
            source: Some(text.clone()),
            kubernetes_version: Some("1.37".to_owned()),
            field_validation: FieldValidation::Strict,
            ..ValidateInput::default()
        })
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let messages: Vec<&str> = out.errors.iter().map(|d| d.message.as_str()).collect();
        let want = expected(&text);
        if want == ["accepted"] {
            assert!(
                messages.is_empty(),
                "{name}: a control refused: {messages:?}"
            );
            continue;
        }
        // The API server's whole message, which restartkit may follow with a hint.
        let found = want
            .iter()
            .all(|w| messages.iter().any(|m| m == w || m.starts_with(w.as_str())));
        if LEFT_TO_THE_CLUSTER.contains(&name) {
            assert!(
                !found,
                "{name} is caught now: take it off LEFT_TO_THE_CLUSTER"
            );
        } else {
            assert!(found, "{name}: want {want:?}, got {messages:?}");
            caught += 1;
        }
    }
    assert_eq!(caught + LEFT_TO_THE_CLUSTER.len() + 4, files.len());
}
