//! What the CRD schema checks share: reading a JSONSchemaProps member as Go's type holds it,
//! which subschemas SchemaHas visits, whether NewStructural converts a schema, a `*string`
//! value as each minor prints it, and cel.ValidFieldPath.

use super::super::crd_schema::go::json;
use super::super::json_read::{list, opt, str_of};
use crate::versions::Change;
use serde_json::{Map, Value};

/// openapiV3Types, sorted.
pub(super) const OPENAPI_TYPES: [&str; 6] =
    ["array", "boolean", "integer", "number", "object", "string"];
/// supportedValidationReason, sorted.
pub(super) const REASONS: [&str; 4] = [
    "FieldValueDuplicate",
    "FieldValueForbidden",
    "FieldValueInvalid",
    "FieldValueRequired",
];
pub(super) const META_FIELDS: [&str; 3] = ["apiVersion", "kind", "metadata"];
/// Deeper schemas are not walked (the decoder's own depth limit keeps real ones far shallower).
pub(super) const MAX_DEPTH: usize = 100;

pub(super) fn obj(v: &Value) -> Option<&Map<String, Value>> {
    v.as_object()
}

pub(super) fn flag(s: &Value, key: &str) -> bool {
    s.get(key).and_then(Value::as_bool).unwrap_or(false)
}

pub(super) fn ty(s: &Value) -> &str {
    str_of(s, "type")
}

/// Whether a member holds a value Go's type would not leave at its zero value.
pub(super) fn is_set(key: &str, v: &Value) -> bool {
    match v {
        Value::Null => false,
        // The pointer members (*bool, *string) are set even at false or "".
        Value::Bool(b) => *b || key == "x-kubernetes-preserve-unknown-fields",
        Value::String(s) => {
            !s.is_empty()
                || matches!(
                    key,
                    "$ref" | "x-kubernetes-list-type" | "x-kubernetes-map-type"
                )
        }
        _ => true,
    }
}

pub(super) fn properties(s: &Value) -> Option<&Map<String, Value>> {
    s.get("properties").and_then(Value::as_object)
}

pub(super) fn has_properties(s: &Value) -> bool {
    properties(s).is_some_and(|p| !p.is_empty())
}

/// Every subschema SchemaHas visits.
fn children(s: &Value) -> Vec<&Value> {
    let mut out = Vec::new();
    match s.get("items") {
        Some(Value::Array(a)) => out.extend(a.iter()),
        Some(v @ Value::Object(_)) => out.push(v),
        _ => {}
    }
    for key in ["allOf", "oneOf", "anyOf"] {
        out.extend(list(s, key).iter());
    }
    for key in ["not", "additionalProperties", "additionalItems"] {
        if let Some(v @ Value::Object(_)) = s.get(key) {
            out.push(v);
        }
    }
    for key in [
        "properties",
        "patternProperties",
        "definitions",
        "dependencies",
    ] {
        if let Some(m) = s.get(key).and_then(Value::as_object) {
            out.extend(m.values().filter(|v| v.is_object()));
        }
    }
    out
}

fn schema_has(s: &Value, depth: usize, pred: &dyn Fn(&Value) -> bool) -> bool {
    depth < MAX_DEPTH
        && (pred(s)
            || children(s)
                .into_iter()
                .any(|c| schema_has(c, depth + 1, pred)))
}

/// Whether a schema sets a `default` anywhere (specHasDefaults).
pub(super) fn has_default(s: &Value) -> bool {
    schema_has(s, 0, &|x| opt(x, "default").is_some())
}

/// Whether `NewStructural` converts the schema: none of the members it refuses anywhere, no
/// array of item schemas, no `x-kubernetes-preserve-unknown-fields: false`.
pub(super) fn convertible(s: &Value) -> bool {
    // validateUnsupportedFields: strings and maps count when non-empty, additionalItems once set.
    let non_empty = |x: &Value, key: &str| match x.get(key) {
        Some(Value::String(v)) => !v.is_empty(),
        Some(Value::Object(m)) => !m.is_empty(),
        _ => false,
    };
    !schema_has(s, 0, &|x| {
        [
            "id",
            "$schema",
            "$ref",
            "patternProperties",
            "dependencies",
            "definitions",
        ]
        .iter()
        .any(|k| non_empty(x, k))
            || opt(x, "additionalItems").is_some()
            || x.get("items").is_some_and(Value::is_array)
            || x.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(false))
    })
}

/// A `*string` bad value as apimachinery prints it: JSON from 1.34; before, the pointer
/// dereferenced and `%q`-quoted, a nil one as the string "null".
pub(super) fn pointer_str(v: Option<&str>, minor: u32) -> String {
    match v {
        Some(s) if Change::FieldErrorJsonValues.at(minor) => json(&Value::from(s)),
        None if Change::FieldErrorJsonValues.at(minor) => "null".to_owned(),
        Some(s) => super::super::crd_schema::go::quote(s),
        None => "\"null\"".to_owned(),
    }
}

/// A field found by [`field_path`]: its steps and its schema's type.
pub(super) struct Found {
    pub(super) steps: Vec<String>,
    pub(super) ty: String,
}

/// cel.ValidFieldPath on a structural schema: `.a.b` and (when `brackets`) `['a']`, each step a
/// property, or a key where the schema has additionalProperties; upstream's error text.
pub(super) fn field_path(root: &Value, path: &str, brackets: bool) -> Result<Found, String> {
    let tokens = tokenize(path);
    let mut s = root;
    let mut steps = Vec::new();
    let mut it = tokens.iter().map(String::as_str);
    let step = |s: &Value, name: &str| -> Result<Value, String> {
        if s.get("properties").is_some_and(Value::is_object) {
            properties(s)
                .and_then(|m| m.get(name))
                .cloned()
                .ok_or_else(|| "does not refer to a valid field".to_owned())
        } else if let Some(ap) = opt(s, "additionalProperties") {
            Ok(if ap.is_object() {
                ap.clone()
            } else {
                Value::Null
            })
        } else {
            Err("does not refer to a valid field".to_owned())
        }
    };
    let mut owned;
    while let Some(tok) = it.next() {
        match tok {
            "[" => {
                if !brackets {
                    return Err("array notation is not allowed".to_owned());
                }
                let t = it.next().ok_or("unexpected end of JSON path")?;
                let inner = t
                    .strip_prefix('\'')
                    .and_then(|x| x.strip_suffix('\''))
                    .filter(|_| t.len() >= 2)
                    .ok_or_else(|| format!("expected single quoted string but got {t}"))?;
                let name = inner.replace("\\'", "'");
                owned = step(s, &name)?;
                s = &owned;
                steps.push(name);
                let close = it.next().ok_or("unexpected end of JSON path")?;
                if close != "]" {
                    return Err(format!("expected ] but got {close}"));
                }
            }
            "." => {
                let t = it.next().ok_or("unexpected end of JSON path")?;
                owned = step(s, t)?;
                s = &owned;
                steps.push(t.to_owned());
            }
            other => return Err(format!("expected [ or . but got: {other}")),
        }
    }
    Ok(Found {
        steps,
        ty: ty(s).to_owned(),
    })
}

/// Whether upstream's selectable-field check panics on `path`: the schema does not convert
/// (NewStructural fails, leaving a nil schema), and the path gets as far as reading it (a `.`
/// and a name after it).
pub(super) fn panics_selecting(root: &Value, path: &str) -> bool {
    let tokens = tokenize(path);
    !convertible(root) && tokens.first().map(String::as_str) == Some(".") && tokens.len() > 1
}

/// The tokens of ValidFieldPath's scanner: `.`, `[`, `]` alone, a quoted string, or the text
/// between delimiters.
fn tokenize(path: &str) -> Vec<String> {
    let chars: Vec<char> = path.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let rest = chars.get(i..).unwrap_or_default();
        let len = if rest.first() == Some(&'\'') {
            let mut end = rest.len();
            for j in 1..rest.len() {
                if rest.get(j) == Some(&'\'') && rest.get(j - 1) != Some(&'\\') {
                    end = j + 1;
                    break;
                }
            }
            end
        } else if matches!(rest.first(), Some('.' | '[' | ']')) {
            1
        } else {
            rest.iter()
                .position(|c| matches!(c, '.' | '[' | ']'))
                .unwrap_or(rest.len())
        };
        out.push(rest.get(..len).unwrap_or_default().iter().collect());
        i += len.max(1);
    }
    out
}
