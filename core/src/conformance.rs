//! Conformance vectors (conformance/FORMAT.md): run one through a dispatcher (the crate's is
//! [`crate::handle`]) and compare the result with its `expect` the way the format says.
//!
//! The dispatcher is an argument: the contract's op table runs `checkVector` and `vectorExpect`
//! here, so this file names only the envelope (`contract/envelope.rs`), not the table.

use crate::contract::{Request, Response};
use serde_json::Value;

/// Compares a response's result with a vector's `expect`; `Err` says what differed.
pub fn compare(expect: &Value, result: &Value) -> Result<(), String> {
    let (Some(exp), Some(res)) = (expect.as_object(), result.as_object()) else {
        return Err("expect and result must be objects".to_owned());
    };
    let complete = exp
        .get("errorsComplete")
        .and_then(Value::as_bool)
        .unwrap_or(true);
    for (k, ev) in exp {
        match k.as_str() {
            "errorsComplete" => {}
            "errors" => compare_errors(ev, res.get("errors"), complete)?,
            "errorMessages" => {
                let msgs = messages(res.get("errors"));
                for m in ev.as_array().into_iter().flatten() {
                    let m = m.as_str().unwrap_or("");
                    if !msgs.iter().any(|x| x.contains(m)) {
                        return Err(format!(
                            "no error message contains {m:?}; messages: {msgs:?}"
                        ));
                    }
                }
            }
            _ => match res.get(k) {
                None => return Err(format!("result has no {k:?} (expected {ev})")),
                Some(rv) => partial_eq(ev, rv).map_err(|e| format!("{k}{e}"))?,
            },
        }
    }
    Ok(())
}

fn messages(errors: Option<&Value>) -> Vec<String> {
    errors
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|e| e.get("message").and_then(Value::as_str))
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

fn compare_errors(expected: &Value, got: Option<&Value>, complete: bool) -> Result<(), String> {
    let exp = expected.as_array().cloned().unwrap_or_default();
    let got = got.and_then(Value::as_array).cloned().unwrap_or_default();
    let key = |e: &Value| {
        (
            e.get("field")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
            e.get("type").and_then(Value::as_str).map(str::to_owned),
        )
    };
    let got_keys: Vec<_> = got.iter().map(key).collect();
    let msgs = messages(Some(&Value::Array(got.clone())));
    let mut typed_exp = Vec::new();
    for e in &exp {
        let (field, ty) = key(e);
        match ty {
            Some(t) => {
                if !got_keys
                    .iter()
                    .any(|(f, gt)| *f == field && gt.as_deref() == Some(t.as_str()))
                {
                    return Err(format!(
                        "missing error {{{field}, {t}}}; got {}",
                        render(&got_keys)
                    ));
                }
                typed_exp.push((field, Some(t)));
            }
            None => {
                let m = e.get("message").and_then(Value::as_str).unwrap_or("");
                if !msgs.iter().any(|x| x.contains(m)) {
                    return Err(format!(
                        "no error message contains {m:?}; messages: {msgs:?}"
                    ));
                }
            }
        }
    }
    if complete {
        // Sets must be equal: every error of the result must be one the vector expects.
        let untyped: Vec<&str> = exp
            .iter()
            .filter(|e| e.get("type").is_none_or(Value::is_null))
            .map(|e| e.get("message").and_then(Value::as_str).unwrap_or(""))
            .collect();
        for (g, (f, t)) in got.iter().zip(&got_keys) {
            // An error is expected when it matches a typed expectation by {field, type}, or an
            // untyped one (whose field is not compared) by message.
            let m = g.get("message").and_then(Value::as_str).unwrap_or("");
            let ok = t.is_some() && typed_exp.iter().any(|(ef, et)| ef == f && et == t)
                || untyped.iter().any(|u| m.contains(u));
            if !ok {
                let m = g.get("message").and_then(Value::as_str).unwrap_or("");
                return Err(format!(
                    "unexpected error {{{f}, {}}}: {m}",
                    t.as_deref().unwrap_or("null")
                ));
            }
        }
    }
    Ok(())
}

fn render(keys: &[(String, Option<String>)]) -> String {
    let parts: Vec<String> = keys
        .iter()
        .map(|(f, t)| format!("{{{f}, {}}}", t.as_deref().unwrap_or("null")))
        .collect();
    format!("[{}]", parts.join(", "))
}

/// `expect` ⊆ `result`: objects by named keys, lists element by element with equal length,
/// numbers by value (10 equals 10.0).
pub fn partial_eq(exp: &Value, got: &Value) -> Result<(), String> {
    match (exp, got) {
        (Value::Object(e), Value::Object(g)) => {
            for (k, ev) in e {
                match g.get(k) {
                    None if ev.is_null() => {}
                    None => return Err(format!(".{k}: missing (expected {ev})")),
                    Some(gv) => partial_eq(ev, gv).map_err(|m| format!(".{k}{m}"))?,
                }
            }
            Ok(())
        }
        (Value::Array(e), Value::Array(g)) => {
            if e.len() != g.len() {
                return Err(format!(
                    ": expected {} items, got {} ({got})",
                    e.len(),
                    g.len()
                ));
            }
            for (i, (ev, gv)) in e.iter().zip(g).enumerate() {
                partial_eq(ev, gv).map_err(|m| format!("[{i}]{m}"))?;
            }
            Ok(())
        }
        (Value::Number(a), Value::Number(b)) => {
            if a.as_f64() == b.as_f64() {
                Ok(())
            } else {
                Err(format!(": expected {a}, got {b}"))
            }
        }
        (e, g) if e == g => Ok(()),
        (e, g) => Err(format!(": expected {e}, got {g}")),
    }
}

/// Places where a public vector contradicts the upstream code it cites
/// (conformance/divergences.json): the engine keeps upstream's answer, and runners compare those
/// vectors with upstream's value in place of the vector's, saying so in a NOTE line.
// Read through core/divergences.json, a symlink to that file inside the crate: `cargo package`
// (and so the Python sdist, which maturin makes from it) only takes files inside the crate.
pub const DIVERGENCES_JSON: &str = include_str!("../divergences.json");

#[derive(Debug, Clone, serde::Deserialize)]
struct Divergence {
    op: String,
    /// Only these vectors (all vectors of the op when empty).
    #[serde(default)]
    ids: Vec<String>,
    path: String,
    /// Replace this value at `path` by `upstream`…
    #[serde(default)]
    vector: Value,
    #[serde(default)]
    upstream: Value,
    /// …or append this to the list at `path` (an error the vector's list leaves out).
    #[serde(default)]
    append: Option<Value>,
    source: String,
}

fn divergences() -> Vec<Divergence> {
    serde_json::from_str(DIVERGENCES_JSON).unwrap_or_default()
}

/// Replaces `from` by `to` at every place `path` (a JSON pointer where `*` is any list index or
/// key) reaches in `v`; returns how many it replaced.
fn patch(v: &mut Value, path: &[&str], from: &Value, to: &Value) -> usize {
    let Some((head, rest)) = path.split_first() else {
        if v == from {
            *v = to.clone();
            return 1;
        }
        return 0;
    };
    match (v, *head) {
        (Value::Array(a), "*") => a.iter_mut().map(|x| patch(x, rest, from, to)).sum(),
        (Value::Object(o), "*") => o.values_mut().map(|x| patch(x, rest, from, to)).sum(),
        (Value::Array(a), k) => k
            .parse::<usize>()
            .ok()
            .and_then(|i| a.get_mut(i))
            .map(|x| patch(x, rest, from, to))
            .unwrap_or(0),
        (Value::Object(o), k) => o.get_mut(k).map(|x| patch(x, rest, from, to)).unwrap_or(0),
        _ => 0,
    }
}

/// The vector's `expect` with the known upstream divergences applied, and a note for each.
pub fn corrected_expect(vector: &Value) -> (Value, Vec<String>) {
    corrected_expect_with(vector, &divergences())
}

fn corrected_expect_with(vector: &Value, divergences: &[Divergence]) -> (Value, Vec<String>) {
    let op = vector.get("op").and_then(Value::as_str).unwrap_or("");
    let mut expect = vector.get("expect").cloned().unwrap_or(Value::Null);
    let mut notes = Vec::new();
    let id = vector.get("id").and_then(Value::as_str).unwrap_or("");
    for d in divergences
        .iter()
        .filter(|d| d.op == op && (d.ids.is_empty() || d.ids.iter().any(|i| i == id)))
    {
        if let Some(extra) = &d.append {
            if let Some(list) = expect.pointer_mut(&d.path).and_then(Value::as_array_mut) {
                list.push(extra.clone());
                notes.push(format!(
                    "vector's {} leaves out {extra}, which upstream also returns ({})",
                    d.path, d.source
                ));
            }
            continue;
        }
        let path: Vec<&str> = d.path.trim_start_matches('/').split('/').collect();
        if patch(&mut expect, &path, &d.vector, &d.upstream) > 0 {
            notes.push(format!(
                "vector expects {} at {}; upstream says {} ({})",
                d.vector, d.path, d.upstream, d.source
            ));
        }
    }
    (expect, notes)
}

/// Checks a result (what a front end produced for the vector's input) against the vector:
/// `Ok(notes)` (NOTE lines for known upstream divergences) or `Err(what differed)`.
pub fn check_result(vector: &Value, result: &Value) -> Result<Vec<String>, String> {
    let (expect, notes) = corrected_expect(vector);
    compare(&expect, result).map(|()| notes)
}

/// Runs one vector through `handle` (a dispatcher: [`crate::handle`], or a front end's); `Ok`
/// carries NOTE lines, `Err` the `FAIL` line's text after the id.
pub fn run_vector(
    vector: &Value,
    handle: impl FnOnce(Request) -> Response,
) -> Result<Vec<String>, String> {
    let op = vector
        .get("op")
        .and_then(Value::as_str)
        .ok_or("vector has no op")?;
    let input = vector.get("input").cloned().unwrap_or(Value::Null);
    let resp = handle(Request {
        op: op.to_owned(),
        input,
    });
    match &resp {
        Response::Ok { result, .. } => check_result(vector, result),
        Response::Error { .. } => {
            check_response(vector.get("expect").unwrap_or(&Value::Null), &resp).map(|()| Vec::new())
        }
    }
}

/// `checkVector` op: compares a result with a conformance vector by FORMAT.md's rules (and the
/// known upstream divergences), so every front end's runner shares one comparator.
#[derive(Debug, Clone, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CheckVectorInput {
    pub vector: Value,
    /// The `result` of the response the front end got for the vector's input; null when the
    /// request failed (then `errors` says why).
    #[serde(default)]
    pub result: Value,
    #[serde(default)]
    pub errors: Vec<crate::diag::Diagnostic>,
}

#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CheckVectorOutput {
    pub id: String,
    pub passed: bool,
    /// What differed (the text after `FAIL <id>: `).
    pub failure: Option<String>,
    /// Known upstream divergences applied (each printed as `NOTE <id>: …`).
    pub notes: Vec<String>,
}

/// `vectorExpect` op: a vector's `expect` with the known upstream divergences applied, for
/// runners that compare with a comparator of their own.
#[derive(Debug, Clone, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VectorExpectInput {
    pub vector: Value,
}

#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct VectorExpectOutput {
    pub expect: Value,
    pub notes: Vec<String>,
}

pub fn vector_expect(i: VectorExpectInput) -> Result<VectorExpectOutput, crate::diag::Diagnostic> {
    let (expect, notes) = corrected_expect(&i.vector);
    Ok(VectorExpectOutput { expect, notes })
}

pub fn check_vector(i: CheckVectorInput) -> Result<CheckVectorOutput, crate::diag::Diagnostic> {
    let id = i
        .vector
        .get("id")
        .and_then(Value::as_str)
        .unwrap_or("?")
        .to_owned();
    let outcome = if i.result.is_null() && !i.errors.is_empty() {
        let msgs: Vec<&str> = i.errors.iter().map(|e| e.message.as_str()).collect();
        Err(format!("request failed: {}", msgs.join("; ")))
    } else {
        check_result(&i.vector, &i.result)
    };
    Ok(match outcome {
        Ok(notes) => CheckVectorOutput {
            id,
            passed: true,
            failure: None,
            notes,
        },
        Err(f) => CheckVectorOutput {
            id,
            passed: false,
            failure: Some(f),
            notes: Vec::new(),
        },
    })
}

/// Compares a contract response with a vector's `expect`.
pub fn check_response(expect: &Value, resp: &Response) -> Result<(), String> {
    match resp {
        Response::Ok { result, .. } => compare(expect, result),
        Response::Error { errors, .. } => {
            let msgs: Vec<&str> = errors.iter().map(|e| e.message.as_str()).collect();
            Err(format!("request failed: {}", msgs.join("; ")))
        }
    }
}

/// The Kubernetes version and gates an entry of conformance/realworld/INDEX.json asks for, as
/// its README says: the version it targets and "the feature gates that version needs turned
/// on". `k8s_version` such as "1.34 (ContainerRestartRules gate)" names a version (None when it
/// is older than the oldest modelled one, meaning the newest) and gates; `featureGates` adds
/// more (the JobSet controller's alpha gates RestartJob and InPlaceRestart that the JobSet site's
/// examples need are named there).
pub fn realworld_target(entry: &Value) -> (Option<String>, serde_json::Map<String, Value>) {
    let mut gates = entry
        .get("featureGates")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let kv = entry
        .get("k8s_version")
        .and_then(Value::as_str)
        .unwrap_or("");
    for g in crate::features::GATES {
        if kv.contains(g.name) {
            gates.entry(g.name.to_owned()).or_insert(Value::Bool(true));
        }
    }
    let version = kv
        .split_whitespace()
        .next()
        .map(|v| v.trim_end_matches('+'))
        .filter(|v| crate::KubeVersion::parse(v).is_ok())
        .map(str::to_owned);
    // A cluster that runs these gates on runs their dependencies on too (from 1.35 its
    // components refuse to start otherwise), though the index names only the gates themselves.
    let minor = version
        .as_deref()
        .and_then(|v| crate::KubeVersion::parse(v).ok())
        .unwrap_or_default()
        .minor;
    let on: Vec<String> = gates
        .iter()
        .filter(|(_, v)| v.as_bool() == Some(true))
        .map(|(k, _)| k.clone())
        .collect();
    for g in on {
        for d in crate::features::dependencies_at(&g, minor) {
            gates.entry(d.to_owned()).or_insert(Value::Bool(true));
        }
    }
    (version, gates)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn divergences_patch_only_the_named_value() {
        // The mechanism waits for the next real divergence (the file is empty today), so it is
        // tested on one of its own.
        let known: Vec<Divergence> = serde_json::from_value(json!([{
            "op": "jobsetFailurePolicy", "path": "/conditions/*/type",
            "vector": "Restarting", "upstream": "RestartingJobSet", "source": "test"
        }, {
            "op": "validate", "ids": ["only-this"], "path": "/errors",
            "append": {"field": "f", "type": "FieldValueRequired"}, "source": "test"
        }]))
        .unwrap();
        let corrected_expect = |v: &Value| corrected_expect_with(v, &known);
        let v = json!({"op": "jobsetFailurePolicy", "expect": {"conditions": [{"type": "Restarting"}, {"type": "Failed"}]}});
        let (e, notes) = corrected_expect(&v);
        assert_eq!(
            e,
            json!({"conditions": [{"type": "RestartingJobSet"}, {"type": "Failed"}]})
        );
        assert_eq!(notes.len(), 1);
        let other = json!({"op": "validate", "expect": {"conditions": [{"type": "Restarting"}]}});
        assert_eq!(Some(&corrected_expect(&other).0), other.get("expect"));
        let named = json!({"id": "only-this", "op": "validate", "expect": {"errors": []}});
        let (e, notes) = corrected_expect(&named);
        assert_eq!(
            e,
            json!({"errors": [{"field": "f", "type": "FieldValueRequired"}]})
        );
        assert_eq!(notes.len(), 1);
        let unnamed = json!({"id": "another", "op": "validate", "expect": {"errors": []}});
        assert_eq!(corrected_expect(&unnamed).0, json!({"errors": []}));
    }

    #[test]
    fn the_divergences_file_reads() {
        // A typo in conformance/divergences.json would otherwise read as "no divergence".
        let parsed: Result<Vec<Divergence>, _> = serde_json::from_str(DIVERGENCES_JSON);
        assert!(parsed.is_ok(), "{parsed:?}");
    }

    #[test]
    fn partial_comparison() {
        assert!(partial_eq(&json!({"a": 1}), &json!({"a": 1.0, "b": 2})).is_ok());
        assert!(partial_eq(&json!({"a": [1, 2]}), &json!({"a": [1]})).is_err());
        assert!(partial_eq(&json!({"a": null}), &json!({})).is_ok());
        assert!(partial_eq(&json!({"a": "x"}), &json!({"a": "y"})).is_err());
    }

    #[test]
    fn error_sets() {
        let got = json!({"valid": false, "errors": [{"field": "a", "type": "FieldValueRequired", "message": "a: Required value"}]});
        assert!(
            compare(
                &json!({"valid": false, "errors": [{"field": "a", "type": "FieldValueRequired"}]}),
                &got
            )
            .is_ok()
        );
        assert!(compare(&json!({"valid": false, "errors": []}), &got).is_err());
        assert!(
            compare(
                &json!({"valid": false, "errors": [], "errorsComplete": false}),
                &got
            )
            .is_ok()
        );
        assert!(
            compare(
                &json!({"errors": [{"field": "b", "type": null, "message": "Required"}]}),
                &got
            )
            .is_ok()
        );
        assert!(compare(&json!({"errorMessages": ["nope"]}), &got).is_err());
    }
}
