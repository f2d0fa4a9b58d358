//! The shared bad-input corpus (conformance/bad-input/manifest.json) through the `restartkit`
//! binary: `validate --output json FILE` for manifests, `request FILE` for contract requests.
//! Every case must end with exit 1 (or 2 for a file that is not text) and an error naming the
//! expected line or field; a crash, a panic or a hang fails it. Manifests are validated twice:
//! read whole (as every file up to 8 MiB is) and piece by piece in bounded memory (as larger
//! files are; forced with `RESTARTKIT_STREAM_BYTES=0`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

#[path = "../../conformance/bad-input/corpus.rs"]
mod corpus;

use serde_json::{Value, json};
use std::process::Command;

fn run_case(c: &corpus::Case, dir: &std::path::Path, streamed: bool) -> Result<(), String> {
    let file = dir.join(format!("{}.in", c.name));
    std::fs::write(&file, &c.bytes).map_err(|e| e.to_string())?;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_restartkit"));
    if streamed {
        cmd.env("RESTARTKIT_STREAM_BYTES", "0");
    } else {
        cmd.env_remove("RESTARTKIT_STREAM_BYTES");
    }
    match c.input.as_str() {
        "source" => cmd.args(["validate", "--output", "json"]).arg(&file),
        _ => cmd.arg("request").arg(&file),
    };
    let out = corpus::output_within(cmd)?;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let code = out
        .status
        .code()
        .ok_or_else(|| format!("killed by a signal: {stderr}"))?;
    if stderr.contains("panicked") || !(code == 1 || code == 2) {
        return Err(format!("exit {code}: {stderr}"));
    }
    let diags: Vec<Value> = if code == 2 {
        // The file could not be read as text: one `error: FILE:LINE:COL: message [code]` line.
        let tail = stderr.trim().rsplit(": ").collect::<Vec<_>>();
        let (line, col) = stderr
            .split(':')
            .filter_map(|s| s.trim().parse::<u64>().ok())
            .fold((None, None), |(l, c), n| {
                if l.is_none() {
                    (Some(n), c)
                } else if c.is_none() {
                    (l, Some(n))
                } else {
                    (l, c)
                }
            });
        let code = stderr
            .rsplit('[')
            .next()
            .and_then(|s| s.split(']').next())
            .unwrap_or("");
        vec![
            json!({"message": tail.first().copied().unwrap_or(""), "line": line, "column": col, "code": code}),
        ]
    } else {
        let v: Value = serde_json::from_slice(&out.stdout)
            .map_err(|e| format!("stdout is not JSON ({e}): {stderr}"))?;
        match c.input.as_str() {
            "source" => v
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(corpus::response_errors_of_file)
                .collect(),
            _ => corpus::response_errors(&v),
        }
    };
    if streamed && c.bytes.len() > 3 * 1024 * 1024 {
        // Read piece by piece, a document over kube-apiserver's 3 MiB request limit is refused
        // as such (read whole, the bindings and small files validate it).
        let mut too_large = serde_json::Map::new();
        too_large.insert("code".into(), json!("too-large"));
        too_large.insert("line".into(), json!(1));
        return corpus::check(&diags, &too_large);
    }
    corpus::check(&diags, &c.expect)
}

#[test]
fn every_bad_input_case_gives_a_clear_error_through_the_cli() {
    let dir = std::env::temp_dir().join(format!("restartkit-bad-input-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = corpus::cases("cli");
    assert!(cases.len() >= 30, "the corpus has {} cases", cases.len());
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|c| {
            run_case(c, &dir, false)
                .err()
                .map(|e| format!("{}: {e}", c.name))
        })
        .chain(
            cases
                .iter()
                .filter(|c| c.input == "source")
                .filter_map(|c| {
                    run_case(c, &dir, true)
                        .err()
                        .map(|e| format!("{} (read piece by piece): {e}", c.name))
                }),
        )
        .collect();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
