//! Conformance vectors (conformance/FORMAT.md): run one through [`crate::handle`] and compare the
//! result with its `expect` the way the format says.

use crate::contract::{handle, Request, Response};
use serde_json::Value;

/// Compares a response's result with a vector's `expect`; `Err` says what differed.
pub fn compare(expect: &Value, result: &Value) -> Result<(), String> {
    let (Some(exp), Some(res)) = (expect.as_object(), result.as_object()) else {
        return Err("expect and result must be objects".to_owned());
    };
    let complete = exp.get("errorsComplete").and_then(Value::as_bool).unwrap_or(true);
    for (k, ev) in exp {
        match k.as_str() {
            "errorsComplete" => {}
            "errors" => compare_errors(ev, res.get("errors"), complete)?,
            "errorMessages" => {
                let msgs = messages(res.get("errors"));
                for m in ev.as_array().into_iter().flatten() {
                    let m = m.as_str().unwrap_or("");
                    if !msgs.iter().any(|x| x.contains(m)) {
                        return Err(format!("no error message contains {m:?}; messages: {msgs:?}"));
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
        .map(|a| a.iter().filter_map(|e| e.get("message").and_then(Value::as_str)).map(str::to_owned).collect())
        .unwrap_or_default()
}

fn compare_errors(expected: &Value, got: Option<&Value>, complete: bool) -> Result<(), String> {
    let exp = expected.as_array().cloned().unwrap_or_default();
    let got = got.and_then(Value::as_array).cloned().unwrap_or_default();
    let key = |e: &Value| {
        (
            e.get("field").and_then(Value::as_str).unwrap_or("").to_owned(),
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
                if !got_keys.iter().any(|(f, gt)| *f == field && gt.as_deref() == Some(t.as_str())) {
                    return Err(format!("missing error {{{field}, {t}}}; got {}", render(&got_keys)));
                }
                typed_exp.push((field, Some(t)));
            }
            None => {
                let m = e.get("message").and_then(Value::as_str).unwrap_or("");
                if !msgs.iter().any(|x| x.contains(m)) {
                    return Err(format!("no error message contains {m:?}; messages: {msgs:?}"));
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
            let ok = t.is_some() && typed_exp.iter().any(|(ef, et)| ef == f && et == t) || untyped.iter().any(|u| m.contains(u));
            if !ok {
                let m = g.get("message").and_then(Value::as_str).unwrap_or("");
                return Err(format!("unexpected error {{{f}, {}}}: {m}", t.as_deref().unwrap_or("null")));
            }
        }
    }
    Ok(())
}

fn render(keys: &[(String, Option<String>)]) -> String {
    let parts: Vec<String> = keys.iter().map(|(f, t)| format!("{{{f}, {}}}", t.as_deref().unwrap_or("null"))).collect();
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
                return Err(format!(": expected {} items, got {} ({got})", e.len(), g.len()));
            }
            for (i, (ev, gv)) in e.iter().zip(g).enumerate() {
                partial_eq(ev, gv).map_err(|m| format!("[{i}]{m}"))?;
            }
            Ok(())
        }
        (Value::Number(a), Value::Number(b)) => {
            if a.as_f64() == b.as_f64() { Ok(()) } else { Err(format!(": expected {a}, got {b}")) }
        }
        (e, g) if e == g => Ok(()),
        (e, g) => Err(format!(": expected {e}, got {g}")),
    }
}

/// Runs one vector; `Err` is the `FAIL` line's text after the id.
pub fn run_vector(vector: &Value) -> Result<(), String> {
    let op = vector.get("op").and_then(Value::as_str).ok_or("vector has no op")?;
    let input = vector.get("input").cloned().unwrap_or(Value::Null);
    let expect = vector.get("expect").ok_or("vector has no expect")?;
    let resp = handle(Request { op: op.to_owned(), input });
    check_response(expect, &resp)
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

/// The Kubernetes version and gates an entry of conformance/realworld/INDEX.json asks for:
/// `k8s_version` such as "1.34 (ContainerRestartRules gate)" names a version (None when it is
/// older than the oldest modelled one, meaning the newest) and gates to turn on; `featureGates`
/// adds more.
pub fn realworld_target(entry: &Value) -> (Option<String>, serde_json::Map<String, Value>) {
    let mut gates = entry.get("featureGates").and_then(Value::as_object).cloned().unwrap_or_default();
    let kv = entry.get("k8s_version").and_then(Value::as_str).unwrap_or("");
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
    (version, gates)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
        assert!(compare(&json!({"valid": false, "errors": [{"field": "a", "type": "FieldValueRequired"}]}), &got).is_ok());
        assert!(compare(&json!({"valid": false, "errors": []}), &got).is_err());
        assert!(compare(&json!({"valid": false, "errors": [], "errorsComplete": false}), &got).is_ok());
        assert!(compare(&json!({"errors": [{"field": "b", "type": null, "message": "Required"}]}), &got).is_ok());
        assert!(compare(&json!({"errorMessages": ["nope"]}), &got).is_err());
    }
}
