//! Replays the committed fuzz seed corpus (fuzz/corpus/<target>/) and every past finding
//! (fuzz/regressions/<target>/) through the same harness the libFuzzer targets use
//! (fuzz/src/core_harness.rs), on the stable toolchain: `make test` guards them without nightly.
//! The plugin_abi target is replayed by host/tests/bad_input.rs.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

#[path = "../../fuzz/src/core_harness.rs"]
mod core_harness;

use std::path::Path;

type Target = fn(&[u8]) -> Result<(), String>;

fn replay(target: &str, run: Target) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    let mut files = Vec::new();
    for dir in ["corpus", "regressions"] {
        if let Ok(rd) = std::fs::read_dir(root.join(dir).join(target)) {
            files.extend(rd.map(|e| e.unwrap().path()));
        }
    }
    files.sort();
    assert!(!files.is_empty(), "no seeds for {target}");
    let failures: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let data = std::fs::read(f).unwrap();
            let outcome = std::panic::catch_unwind(|| run(&data))
                .unwrap_or_else(|_| Err("panicked".to_owned()));
            outcome.err().map(|e| {
                format!(
                    "{}: {}",
                    f.display(),
                    e.chars().take(600).collect::<String>()
                )
            })
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{target}: {} of {} inputs fail:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

#[test]
fn source_reader_corpus() {
    replay("source_reader", core_harness::source_reader);
}

#[test]
fn validate_object_corpus() {
    replay("validate_object", core_harness::validate_object);
}

#[test]
fn eval_ops_corpus() {
    replay("eval_ops", core_harness::eval_ops);
}

/// The harness itself must be able to fail: a response without status is refused.
#[test]
fn the_response_check_refuses_a_malformed_answer() {
    assert!(core_harness::check_response(r#"{"result": {}}"#, false).is_err());
    assert!(core_harness::check_response(r#"{"status": "error", "errors": []}"#, false).is_err());
    assert!(
        core_harness::check_response(
            r#"{"status": "ok", "result": {"valid": false, "errors": []}}"#,
            false
        )
        .is_err()
    );
    let no_line = r#"{"status": "error", "errors": [{"message": "m", "field": ""}]}"#;
    assert!(core_harness::check_response(no_line, false).is_ok());
    assert!(core_harness::check_response(no_line, true).is_err());
}
