//! What each core fuzz target does with one input, and what every answer must satisfy. Shared,
//! word for word, by the libFuzzer targets (fuzz/fuzz_targets/*.rs, nightly) and the stable
//! regression test that replays the seed corpus and every past crash (core/tests/fuzz_corpus.rs),
//! so `make test` guards them without nightly.
//!
//! A function returns `Err(what is wrong)` when an answer breaks the contract; a panic inside the
//! core is a finding by itself (libFuzzer reports it, the stable test fails on it).

use serde_json::{Value, json};

/// Ops the `eval_ops` target picks from by its first byte (`describe` takes no input, so it is
/// left out). A byte past the end sends the rest of the input as a raw request instead.
pub const EVAL_OPS: &[&str] = &[
    "validate",
    "crrValidate",
    "containerRestart",
    "containerRestartable",
    "matchRestartRule",
    "statusTransition",
    "podFailurePolicy",
    "jobsetFailurePolicy",
    "backoff",
    "whatIf",
    "simulate",
    "backoffCompare",
    "checkVector",
    "vectorExpect",
];

/// Simulated time a fuzzed scenario may cover: the simulator is a loop over simulated events,
/// so an unbounded `runFor` measures patience, not robustness.
const SIM_RUN_FOR: &[&str] = &["90s", "10m", "1h", "6h"];

/// Checks one contract response: JSON, the documented shape, and diagnostics that say something.
/// `need_line`: every error diagnostic must carry a line (the request held source text).
pub fn check_response(resp: &str, need_line: bool) -> Result<Value, String> {
    let v: Value =
        serde_json::from_str(resp).map_err(|e| format!("response is not JSON ({e}): {resp}"))?;
    let diags: Vec<&Value> = match v.get("status").and_then(Value::as_str) {
        Some("ok") => {
            let r = v
                .get("result")
                .ok_or_else(|| format!("ok without result: {resp}"))?;
            match r.get("errors").and_then(Value::as_array) {
                Some(errs) => {
                    if r.get("valid") == Some(&Value::Bool(false)) && errs.is_empty() {
                        return Err(format!("valid:false with no error: {resp}"));
                    }
                    errs.iter().collect()
                }
                None => Vec::new(),
            }
        }
        Some("error") => {
            let errs = v
                .get("errors")
                .and_then(Value::as_array)
                .ok_or_else(|| format!("error without errors: {resp}"))?;
            if errs.is_empty() {
                return Err(format!("error response with no diagnostic: {resp}"));
            }
            errs.iter().collect()
        }
        _ => return Err(format!("no status: {resp}")),
    };
    for d in diags {
        let msg = d.get("message").and_then(Value::as_str).unwrap_or("");
        if msg.trim().is_empty() {
            return Err(format!("diagnostic without message: {d}"));
        }
        if need_line && d.get("line").and_then(Value::as_u64).is_none_or(|l| l == 0) {
            return Err(format!(
                "diagnostic without a line although the input was source text: {d}"
            ));
        }
    }
    Ok(v)
}

/// (a) The YAML/JSON reader: the input is manifest text, validated through the contract.
pub fn source_reader(data: &[u8]) -> Result<(), String> {
    // Front ends refuse non-UTF-8 before the core sees it; the core takes text. Lossy decoding
    // keeps every fuzzed byte string useful.
    let text = String::from_utf8_lossy(data);
    let _ = restartkit::source::parse_documents(&text);
    let req = json!({"op": "validate", "input": {"source": text}}).to_string();
    check_response(&restartkit::handle_json(&req), true).map(drop)
}

/// (b) Validation of structured objects: the input is a JSON value, validated as an object.
pub fn validate_object(data: &[u8]) -> Result<(), String> {
    let Ok(text) = std::str::from_utf8(data) else {
        return Ok(());
    };
    let Ok(object) = restartkit::source::parse_json_strict(text) else {
        return Ok(());
    };
    for version in ["1.33", "1.36"] {
        let req =
            json!({"op": "validate", "input": {"object": object, "kubernetesVersion": version}})
                .to_string();
        check_response(&restartkit::handle_json(&req), false)?;
    }
    let req = json!({"op": "crrValidate", "input": {"object": object}}).to_string();
    check_response(&restartkit::handle_json(&req), false).map(drop)
}

/// The request `eval_ops` sends for one input.
pub fn eval_request(data: &[u8]) -> Option<String> {
    let (&pick, rest) = data.split_first()?;
    let text = std::str::from_utf8(rest).ok()?;
    let Some(op) = EVAL_OPS.get(usize::from(pick)) else {
        // The raw contract: whatever text, as a whole request.
        return Some(text.to_owned());
    };
    let mut input = restartkit::source::parse_json_strict(text).ok()?;
    if *op == "simulate" {
        bound_simulation(&mut input, pick);
    }
    Some(json!({"op": op, "input": input}).to_string())
}

fn bound_simulation(input: &mut Value, pick: u8) {
    let run_for = SIM_RUN_FOR
        .get(usize::from(pick) % SIM_RUN_FOR.len())
        .copied()
        .unwrap_or("1h");
    for key in ["scenario", "compare"] {
        if let Some(Value::Object(sc)) = input.get_mut(key) {
            sc.insert("runFor".into(), json!(run_for));
        }
    }
}

/// (c) Evaluation ops through `handle_json`: first byte picks the op, the rest is its input.
pub fn eval_ops(data: &[u8]) -> Result<(), String> {
    let Some(req) = eval_request(data) else {
        return Ok(());
    };
    check_response(&restartkit::handle_json(&req), false).map(drop)
}
