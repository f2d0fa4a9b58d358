//! The plugin ABI under bad input, through wasmtime:
//! - the shared bad-input corpus (conformance/bad-input/manifest.json): every case as a contract
//!   request in linear memory must come back as an error response (or `valid: false`) naming the
//!   expected line or field, never a trap, an ABI breach or a hang;
//! - the plugin_abi fuzz target's seed corpus and past findings (fuzz/corpus/plugin_abi,
//!   fuzz/regressions/plugin_abi), replayed through the target's own harness on stable.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

#[path = "../../fuzz/src/core_harness.rs"]
#[allow(dead_code)]
mod core_harness;
#[path = "../../conformance/bad-input/corpus.rs"]
mod corpus;
#[path = "../../fuzz/src/plugin_harness.rs"]
mod plugin_harness;

use restartkit_host::{Host, Limits, Status};
use serde_json::Value;
use std::time::Duration;

/// Generous limits: the 100,000-rule manifests need about 100 MB of linear memory (the reader
/// keeps a position per node), above the recommended 64 MiB cap, where the host answers with a
/// MemoryLimit error instead; the deadline only turns a hang into a failure.
fn host() -> Host {
    let limits = Limits {
        memory_bytes: 512 << 20,
        timeout: Duration::from_secs(60),
        ..Limits::default()
    };
    Host::load(common::plugin_path(), limits).unwrap()
}

/// `{"op":"validate","input":{"source":"…"}}` around raw bytes: JSON escapes for the ASCII
/// that needs them, every other byte as it is (so bytes that are not UTF-8 reach the guest).
fn validate_request(source: &[u8]) -> Vec<u8> {
    let mut out = br#"{"op":"validate","input":{"source":""#.to_vec();
    for &b in source {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0..=0x1f => out.extend_from_slice(format!("\\u{b:04x}").as_bytes()),
            _ => out.push(b),
        }
    }
    out.extend_from_slice(br#""}}"#);
    out
}

#[test]
fn every_bad_input_case_gives_a_clear_error_through_the_plugin() {
    let mut h = host();
    let cases = corpus::cases("plugin");
    let mut failures = Vec::new();
    for c in &cases {
        let request = if c.input == "source" {
            validate_request(&c.bytes)
        } else {
            c.bytes.clone()
        };
        let outcome = match h.evaluate(&request) {
            Err(e) => Err(format!("{} ({e})", e.kind())),
            Ok(e) if matches!(e.status, Status::Other(_)) => {
                Err(format!("undocumented status {:?}", e.status))
            }
            Ok(e) => serde_json::from_str::<Value>(&e.body)
                .map_err(|err| format!("status {:?}, body not JSON ({err}): {}", e.status, e.body))
                .and_then(|resp| corpus::check(&corpus::response_errors(&resp), &c.expect)),
        };
        if let Err(why) = outcome {
            failures.push(format!("{}: {why}", c.name));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn plugin_abi_fuzz_corpus_replays_clean() {
    let mut h = host();
    let root = common::repo_root().join("fuzz");
    let mut files = Vec::new();
    for dir in ["corpus", "regressions"] {
        if let Ok(rd) = std::fs::read_dir(root.join(dir).join("plugin_abi")) {
            files.extend(rd.map(|e| e.unwrap().path()));
        }
    }
    files.sort();
    assert!(files.len() >= 10, "seed corpus missing: {files:?}");
    let failures: Vec<String> = files
        .iter()
        .filter_map(|f| {
            plugin_harness::plugin_abi(&mut h, &std::fs::read(f).unwrap())
                .err()
                .map(|e| format!("{}: {e}", f.display()))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} inputs fail:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}
