//! Conformance vectors (conformance/FORMAT.md) through the plugin: the request goes through
//! [`Host::handle_json`], the comparison is the core's own (`restartkit::conformance`).

use crate::Host;
use restartkit::contract::Response;
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;

/// Runs one vector through the plugin, exactly as `restartkit::conformance::run_vector` runs it
/// natively: `Ok` carries the notes of the known upstream divergences that applied
/// (conformance/divergences.json), `Err` is the text of its `FAIL` line after the id.
pub fn run_vector(host: &mut Host, vector: &Value) -> Result<Vec<String>, String> {
    let op = vector
        .get("op")
        .and_then(Value::as_str)
        .ok_or("vector has no op")?;
    let request = json!({"op": op, "input": vector.get("input").cloned().unwrap_or(Value::Null)});
    let body = host
        .handle_json(&request.to_string())
        .map_err(|e| format!("plugin error: {e}"))?;
    let resp: Response = serde_json::from_str(&body)
        .map_err(|e| format!("the plugin's response is not a contract response: {e}"))?;
    match &resp {
        Response::Ok { result, .. } => restartkit::conformance::check_result(vector, result),
        Response::Error { .. } => restartkit::conformance::check_response(
            vector.get("expect").unwrap_or(&Value::Null),
            &resp,
        )
        .map(|()| Vec::new()),
    }
}

/// The vectors of one file (a JSON array).
pub fn read_vectors(path: &Path) -> Result<Vec<Value>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Array(v)) => Ok(v),
        Ok(_) => Err(format!("{}: not a JSON array of vectors", path.display())),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// Runs every vector of `files`, writing a `FAIL id: …` line per failure and the closing
/// `N passed, M failed` line; returns (passed, failed). An unreadable file counts as one failure.
pub fn run_files(
    host: &mut Host,
    files: &[impl AsRef<Path>],
    out: &mut impl Write,
) -> (usize, usize) {
    let (mut passed, mut failed) = (0, 0);
    for f in files {
        let f = f.as_ref();
        let vectors = match read_vectors(f) {
            Ok(v) => v,
            Err(e) => {
                let _ = writeln!(out, "FAIL {}: {e}", f.display());
                failed += 1;
                continue;
            }
        };
        for v in &vectors {
            let id = v.get("id").and_then(Value::as_str).unwrap_or("<no id>");
            match run_vector(host, v) {
                Ok(notes) => {
                    passed += 1;
                    for n in notes {
                        let _ = writeln!(out, "NOTE {id}: {n}");
                    }
                }
                Err(e) => {
                    let _ = writeln!(out, "FAIL {id}: {e}");
                    failed += 1;
                }
            }
        }
    }
    let _ = writeln!(out, "{passed} passed, {failed} failed");
    (passed, failed)
}
