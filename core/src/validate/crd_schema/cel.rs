//! A schema node's `x-kubernetes-validations` (CEL) rules, as read from the CRD
//! (apiextensions.k8s.io/v1 ValidationRule). Reading is plain data and always built; evaluating
//! them (cel_eval.rs) needs the `cel` feature, so the wasm package's first load does not carry the
//! CEL engine.

use serde_json::{Map, Value};

/// One `x-kubernetes-validations` entry.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rule {
    pub rule: String,
    pub message: String,
    pub message_expression: String,
    /// `FieldValueInvalid` (the default), `FieldValueForbidden`, `FieldValueRequired` or
    /// `FieldValueDuplicate`.
    pub reason: Option<String>,
    pub field_path: Option<String>,
    pub optional_old_self: bool,
}

/// Reads a node's `x-kubernetes-validations` (`path`: the node's place in the CRD, for messages).
pub fn read_rules(m: &Map<String, Value>, path: &str) -> Result<Vec<Rule>, (String, String)> {
    let Some(v) = m.get("x-kubernetes-validations") else {
        return Ok(Vec::new());
    };
    let key = format!("{path}.x-kubernetes-validations");
    let list = match v {
        Value::Null => return Ok(Vec::new()),
        Value::Array(a) => a,
        _ => return Err((key, "must be a list of rules".to_owned())),
    };
    let mut out = Vec::with_capacity(list.len());
    for (i, r) in list.iter().enumerate() {
        let at = format!("{key}[{i}]");
        let Some(r) = r.as_object() else {
            return Err((at, "must be a rule (a mapping)".to_owned()));
        };
        let s = |k: &str| -> Result<Option<String>, (String, String)> {
            match r.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err((format!("{at}.{k}"), "must be a string".to_owned())),
            }
        };
        let optional_old_self = match r.get("optionalOldSelf") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err((format!("{at}.optionalOldSelf"), "must be a boolean".to_owned())),
        };
        out.push(Rule {
            rule: s("rule")?.unwrap_or_default(),
            message: s("message")?.unwrap_or_default(),
            message_expression: s("messageExpression")?.unwrap_or_default(),
            reason: s("reason")?,
            field_path: s("fieldPath")?,
            optional_old_self,
        });
    }
    Ok(out)
}

/// `fieldPath`'s steps (ValidFieldPath: `.a.b` or `['a.b']`, relative to the rule's node): each
/// name and whether it was written in brackets (a key of a map there). `None` for a path the API
/// server refuses when the CRD is created.
pub fn field_path_steps(p: &str) -> Option<Vec<(String, bool)>> {
    let mut out = Vec::new();
    let mut rest = p;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("['") {
            let end = r.find("']")?;
            out.push((r.get(..end)?.to_owned(), true));
            rest = r.get(end + 2..)?;
        } else if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            let name = r.get(..end)?;
            if name.is_empty() {
                return None;
            }
            out.push((name.to_owned(), false));
            rest = r.get(end..)?;
        } else {
            return None;
        }
    }
    (!out.is_empty()).then_some(out)
}
