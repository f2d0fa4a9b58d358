//! The bad-input corpus (manifest.json beside this file) for Rust runners: cases, their bytes
//! (read or generated), and the check that some error diagnostic names what the case expects.
//! Included with `#[path]` by cli/tests/bad_input.rs and host/tests/bad_input.rs; Python and
//! JavaScript runners implement the same few rules (README.md).
#![allow(dead_code)]

use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long one case may take before it counts as a hang. Generous: the 100,000-rule case takes
/// about 12 s of CPU in a debug build, over a minute of wall time on a loaded 2-core machine.
/// This bounds hangs (the quadratic lints it caught ran for hours); it does not measure speed.
pub const CASE_TIMEOUT: Duration = Duration::from_secs(300);

pub struct Case {
    pub name: String,
    /// "source" (manifest text for `validate`) or "request" (a whole contract request).
    pub input: String,
    pub bytes: Vec<u8>,
    pub expect: Map<String, Value>,
}

pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/bad-input")
}

fn generate(parts: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    for p in parts {
        match p {
            Value::String(s) => out.extend_from_slice(s.as_bytes()),
            Value::Object(o) if o.contains_key("bytes") => {
                let hex = o["bytes"].as_str().unwrap_or_default();
                for i in (0..hex.len()).step_by(2) {
                    out.push(u8::from_str_radix(&hex[i..i + 2], 16).expect("hex bytes"));
                }
            }
            Value::Object(o) => {
                let unit = o["repeat"].as_str().expect("repeat");
                let times = o["times"].as_u64().expect("times");
                let sep = o.get("separator").and_then(Value::as_str).unwrap_or("");
                for i in 0..times {
                    if i > 0 {
                        out.extend_from_slice(sep.as_bytes());
                    }
                    out.extend_from_slice(unit.replace("{i}", &i.to_string()).as_bytes());
                }
            }
            other => panic!("bad generator part {other}"),
        }
    }
    out
}

/// Every case, for front end `front_end` (its `frontEnds` override applied).
pub fn cases(front_end: &str) -> Vec<Case> {
    let text = std::fs::read_to_string(dir().join("manifest.json")).expect("manifest.json");
    let m: Value = serde_json::from_str(&text).expect("manifest is JSON");
    m["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| {
            let bytes = match (c.get("file"), c.get("generate")) {
                (Some(f), _) => {
                    std::fs::read(dir().join(f.as_str().expect("file"))).expect("case file")
                }
                (None, Some(Value::Array(parts))) => generate(parts),
                _ => panic!("case {} has neither file nor generate", c["name"]),
            };
            let mut expect = c["expect"].as_object().expect("expect").clone();
            if let Some(Value::Object(o)) = c.get("frontEnds").and_then(|f| f.get(front_end)) {
                expect = o.clone();
            }
            Case {
                name: c["name"].as_str().expect("name").to_owned(),
                input: c["input"].as_str().expect("input").to_owned(),
                bytes,
                expect,
            }
        })
        .collect()
}

/// Ok when some diagnostic in `diags` has every key of `expect` with the same value.
pub fn check(diags: &[Value], expect: &Map<String, Value>) -> Result<(), String> {
    for d in diags {
        if d.get("message")
            .and_then(Value::as_str)
            .is_none_or(|m| m.trim().is_empty())
        {
            return Err(format!("a diagnostic without a message: {d}"));
        }
    }
    if diags
        .iter()
        .any(|d| expect.iter().all(|(k, v)| d.get(k) == Some(v)))
    {
        Ok(())
    } else {
        Err(format!(
            "no diagnostic has {}; got {}",
            Value::Object(expect.clone()),
            Value::Array(diags.to_vec())
        ))
    }
}

/// Error diagnostics of a contract response: request-level errors, or a validate result's errors.
pub fn response_errors(resp: &Value) -> Vec<Value> {
    match resp.get("status").and_then(Value::as_str) {
        Some("error") => resp["errors"].as_array().cloned().unwrap_or_default(),
        _ => resp["result"]["errors"]
            .as_array()
            .cloned()
            .unwrap_or_default(),
    }
}

/// The validate request for a source case (UTF-8 text only; other bytes go as they are).
pub fn validate_request(text: &str) -> String {
    serde_json::json!({"op": "validate", "input": {"source": text}}).to_string()
}

/// Runs `f` on a thread and waits at most [`CASE_TIMEOUT`]: a hang fails the case instead of
/// stalling the suite; a panic fails it too.
pub fn bounded<T: Send + 'static>(
    name: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, String> {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name(format!("bad-input {name}"))
        .spawn(move || {
            let _ = tx.send(f());
        })
        .map_err(|e| e.to_string())?;
    match rx.recv_timeout(CASE_TIMEOUT) {
        Ok(v) => Ok(v),
        Err(mpsc::RecvTimeoutError::Timeout) => {
            Err(format!("no answer within {CASE_TIMEOUT:?} (a hang)"))
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => Err("panicked".to_owned()),
    }
}

/// Errors of one file's entry in `restartkit validate --output json` (`{file, result}` or
/// `{file, errors}`).
pub fn response_errors_of_file(entry: &Value) -> Vec<Value> {
    match entry.get("result") {
        Some(r) => r["errors"].as_array().cloned().unwrap_or_default(),
        None => entry["errors"].as_array().cloned().unwrap_or_default(),
    }
}

/// Runs a command with stdout/stderr captured, killing it after [`CASE_TIMEOUT`] (a hang).
pub fn output_within(mut cmd: std::process::Command) -> Result<std::process::Output, String> {
    use std::process::Stdio;
    let file = |tag: &str| tempfile_path(tag);
    let (out_path, err_path) = (file("out"), file("err"));
    let mut child = cmd
        .stdout(Stdio::from(
            std::fs::File::create(&out_path).map_err(|e| e.to_string())?,
        ))
        .stderr(Stdio::from(
            std::fs::File::create(&err_path).map_err(|e| e.to_string())?,
        ))
        .spawn()
        .map_err(|e| e.to_string())?;
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().map_err(|e| e.to_string())? {
            break s;
        }
        if start.elapsed() > CASE_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "no answer within {CASE_TIMEOUT:?} (a hang); killed"
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let read = |p: &Path| std::fs::read(p).unwrap_or_default();
    let out = std::process::Output {
        status,
        stdout: read(&out_path),
        stderr: read(&err_path),
    };
    let _ = std::fs::remove_file(out_path);
    let _ = std::fs::remove_file(err_path);
    Ok(out)
}

fn tempfile_path(tag: &str) -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    std::env::temp_dir().join(format!(
        "restartkit-bad-input-{}-{}.{tag}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ))
}
