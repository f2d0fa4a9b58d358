//! What apiextensions-apiserver does to a custom resource with its structural schema besides
//! kube-openapi's validation: pruning (the unknown fields, which `fieldValidation` turns into
//! errors or warnings), dropping non-nullable nulls that have no default, applying the schema's
//! defaults (at decode, before validation), and the `x-kubernetes-list-type` checks of the
//! strategy's Validate.

use super::openapi::apimachinery_error;
use super::schema::{Additional, Schema};
use crate::diag::{Diagnostic, ErrorType};
use serde_json::{Map, Value};
use crate::versions::Change;

const META: [&str; 3] = ["apiVersion", "kind", "metadata"];

fn join_key(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_owned()
    } else {
        format!("{parent}.{key}")
    }
}

/// Prunes `x` in place (structural pruning's `prune` from the resource root) and returns the
/// paths of the fields it dropped, sorted, as the API server reports them.
pub fn prune(x: &mut Value, s: &Schema) -> Vec<String> {
    let mut paths = Vec::new();
    // The root is an embedded resource: apiVersion, kind and metadata are kept.
    prune_at(x, Some(s), true, true, "", &mut paths);
    paths.sort();
    paths
}

fn prune_at(
    x: &mut Value,
    s: Option<&Schema>,
    embedded: bool,
    root: bool,
    path: &str,
    out: &mut Vec<String>,
) {
    if let Some(s) = s
        && s.preserve_unknown_fields
    {
        skip_prune(x, s, embedded, path, out);
        return;
    }
    match x {
        Value::Object(m) => {
            let Some(s) = s else {
                for k in m.keys() {
                    out.push(join_key(path, k));
                }
                m.clear();
                return;
            };
            let embedded = embedded || s.embedded_resource;
            let mut drop = Vec::new();
            for (k, v) in m.iter_mut() {
                if embedded && META.contains(&k.as_str()) {
                    continue;
                }
                if let Some(member) = member_schema(s, k) {
                    prune_at(v, member, false, false, &join_key(path, k), out);
                } else {
                    if !META.contains(&k.as_str()) || !root {
                        out.push(join_key(path, k));
                    }
                    drop.push(k.clone());
                }
            }
            for k in drop {
                m.shift_remove(&k);
            }
        }
        Value::Array(a) => {
            let items = s.and_then(|s| s.items.as_deref());
            for (i, v) in a.iter_mut().enumerate() {
                prune_at(v, items, false, false, &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

/// The schema member `k` of an object of schema `s` is pruned with: `Some(Some(_))` its
/// property's or additionalProperties' schema, `Some(None)` additionalProperties without one
/// (pruned as if untyped), `None` when `s` does not define it (an unknown field).
fn member_schema<'a>(s: &'a Schema, k: &str) -> Option<Option<&'a Schema>> {
    if let Some(p) = s.properties.get(k) {
        return Some(Some(p));
    }
    s.additional_properties.as_ref().map(|a| match a {
        Additional::Schema(a) => Some(&**a),
        Additional::Bool(_) => None,
    })
}

fn skip_prune(x: &mut Value, s: &Schema, embedded: bool, path: &str, out: &mut Vec<String>) {
    match x {
        Value::Object(m) => {
            let embedded = embedded || s.embedded_resource;
            for (k, v) in m.iter_mut() {
                if embedded && META.contains(&k.as_str()) {
                    continue;
                }
                if let Some(member) = member_schema(s, k) {
                    prune_at(v, member, false, false, &join_key(path, k), out);
                }
            }
        }
        Value::Array(a) => {
            if let Some(items) = s.items.as_deref() {
                for (i, v) in a.iter_mut().enumerate() {
                    skip_prune(v, items, false, &format!("{path}[{i}]"), out);
                }
            }
        }
        _ => {}
    }
}

/// PruneNonNullableNullsWithoutDefaults: a null where the schema allows none and has no default
/// to put there is dropped.
pub fn prune_nulls(x: &mut Value, s: Option<&Schema>) {
    match x {
        Value::Object(m) => {
            let mut drop = Vec::new();
            for (k, v) in m.iter_mut() {
                let child = s.and_then(|s| s.child(k));
                if v.is_null() && child.is_some_and(|c| !c.nullable && c.default.is_none()) {
                    drop.push(k.clone());
                } else {
                    prune_nulls(v, child);
                }
            }
            for k in drop {
                m.shift_remove(&k);
            }
        }
        Value::Array(a) => {
            let items = s.and_then(|s| s.items.as_deref());
            for v in a {
                prune_nulls(v, items);
            }
        }
        _ => {}
    }
}

fn non_nullable_null(x: &Value, s: &Schema) -> bool {
    x.is_null() && !s.nullable
}

/// The schema's defaults, as the API server applies them at decode (structural defaulting's
/// `Default`): a missing field, or a null where null is not allowed, gets its default.
pub fn default(x: &mut Value, s: &Schema) {
    match x {
        Value::Object(m) => default_object(m, s),
        Value::Array(a) => {
            if let Some(items) = s.items.as_deref() {
                for v in a {
                    if non_nullable_null(v, items) {
                        *v = items.default.clone().unwrap_or(Value::Null);
                    }
                    default(v, items);
                }
            }
        }
        _ => {}
    }
}

fn default_object(m: &mut Map<String, Value>, s: &Schema) {
    for (k, p) in &s.properties {
        let Some(d) = &p.default else { continue };
        match m.get(k) {
            Some(v) if !non_nullable_null(v, p) => {}
            _ => {
                m.insert(k.clone(), d.clone());
            }
        }
    }
    for (k, v) in m.iter_mut() {
        if let Some(p) = s.properties.get(k) {
            default(v, p);
        } else if let Some(Additional::Schema(a)) = &s.additional_properties {
            if non_nullable_null(v, a) {
                *v = a.default.clone().unwrap_or(Value::Null);
            }
            default(v, a);
        }
    }
}

/// ValidateListSetsAndMaps: the items of a `set` list are unique, and so are the keys of a `map`
/// list's items.
pub fn list_errors(s: &Schema, obj: &Value, minor: u32) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if let Value::Object(m) = obj {
        object_lists(s, m, "", minor, &mut out);
    }
    out
}

fn object_lists(
    s: &Schema,
    m: &Map<String, Value>,
    path: &str,
    minor: u32,
    out: &mut Vec<Diagnostic>,
) {
    if let Some(Additional::Schema(a)) = &s.additional_properties {
        for (k, v) in m {
            value_lists(a, v, &format!("{path}[{k}]"), minor, out);
        }
    }
    for (k, v) in m {
        if let Some(p) = s.properties.get(k) {
            value_lists(p, v, &join_key(path, k), minor, out);
        }
    }
}

fn value_lists(s: &Schema, v: &Value, path: &str, minor: u32, out: &mut Vec<Diagnostic>) {
    match v {
        Value::Array(a) => array_lists(s, a, path, minor, out),
        Value::Object(m) => object_lists(s, m, path, minor, out),
        _ => {}
    }
}

/// The indices of the second occurrence of each value seen more than once (validateListSet).
/// Numbers are equal only with the same Go type, as map keys of interface{} are.
fn second_occurrences(items: &[Value]) -> Vec<usize> {
    let mut seen: Vec<(String, usize)> = Vec::new();
    let mut out = Vec::new();
    for (i, x) in items.iter().enumerate() {
        let key = match x {
            Value::Number(n) if n.is_i64() => format!("i{n}"),
            Value::Number(n) => format!("f{}", n.as_f64().unwrap_or(0.0)),
            other => format!("j{}", super::go::json(other)),
        };
        match seen.iter_mut().find(|(k, _)| *k == key) {
            Some((_, times)) => {
                *times += 1;
                if *times == 2 {
                    out.push(i);
                }
            }
            None => seen.push((key, 1)),
        }
    }
    out
}

fn array_lists(s: &Schema, a: &[Value], path: &str, minor: u32, out: &mut Vec<Diagnostic>) {
    match s.list_type.as_deref() {
        Some("set") if a.len() > 1 => {
            for i in second_occurrences(a) {
                let v = a.get(i).cloned().unwrap_or(Value::Null);
                out.push(apimachinery_error(
                    &format!("{path}[{i}]"),
                    ErrorType::FieldValueDuplicate,
                    Some(v),
                    "",
                    minor,
                ));
            }
        }
        Some("map") => {
            if let Some((i, x)) = a
                .iter()
                .enumerate()
                .find(|(_, x)| !x.is_null() && !x.is_object())
            {
                out.push(apimachinery_error(
                    &format!("{path}[{i}]"),
                    ErrorType::FieldValueInvalid,
                    Some(x.clone()),
                    "must be an object for an array of list-type map",
                    minor,
                ));
            } else if a.len() > 1 {
                map_list(s, a, path, minor, out);
            }
        }
        _ => {}
    }
    if let Some(items) = s.items.as_deref() {
        for (i, v) in a.iter().enumerate() {
            value_lists(items, v, &format!("{path}[{i}]"), minor, out);
        }
    }
}

fn map_list(s: &Schema, a: &[Value], path: &str, minor: u32, out: &mut Vec<Diagnostic>) {
    // Each item's key: the values of its key fields (a missing one is left out; a single key
    // field that is missing is "unspecified", equal only to another unspecified one).
    let keys: Vec<Value> = a
        .iter()
        .map(|x| {
            let mut key = Map::new();
            for f in &s.list_map_keys {
                if let Some(v) = x.get(f) {
                    key.insert(f.clone(), v.clone());
                }
            }
            Value::Object(key)
        })
        .collect();
    for i in second_occurrences(&keys) {
        let key = keys.get(i).cloned().unwrap_or(Value::Null);
        out.push(apimachinery_error(
            &format!("{path}[{i}]"),
            ErrorType::FieldValueDuplicate,
            Some(key),
            "",
            minor,
        ));
    }
}

/// The strategy's check of embedded resources (schemaobjectmeta.Validate, not at the resource
/// root): an object whose schema says `x-kubernetes-embedded-resource` needs a string
/// `apiVersion` that parses as a group/version and a `kind` that is a DNS-1035 label in any case.
/// (Its `metadata` is not checked here.) Paths are apimachinery's: `.key` for properties,
/// `[key]` for additionalProperties, `[i]` for items.
pub fn embedded_errors(s: &Schema, obj: &Value, minor: u32) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    embedded_at(Some(s), obj, "", minor, &mut out);
    out
}

fn embedded_at(s: Option<&Schema>, x: &Value, path: &str, minor: u32, out: &mut Vec<Diagnostic>) {
    let Some(s) = s else { return };
    match x {
        Value::Object(m) => {
            if s.embedded_resource {
                embedded_resource(m, path, minor, out);
            }
            for (k, v) in m {
                if let Some(p) = s.properties.get(k) {
                    embedded_at(Some(p), v, &join_key(path, k), minor, out);
                } else if let Some(Additional::Schema(a)) = &s.additional_properties {
                    embedded_at(Some(a), v, &format!("{path}[{k}]"), minor, out);
                }
            }
        }
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                embedded_at(s.items.as_deref(), v, &format!("{path}[{i}]"), minor, out);
            }
        }
        _ => {}
    }
}

fn embedded_resource(m: &Map<String, Value>, path: &str, minor: u32, out: &mut Vec<Diagnostic>) {
    // Up to 1.33 the Required errors carry a detail.
    let missing = if Change::EmbeddedResourceRequiredBare.at(minor) {
        ""
    } else {
        "must not be empty"
    };
    for key in ["apiVersion", "kind"] {
        if !m.contains_key(key) {
            out.push(apimachinery_error(
                &join_key(path, key),
                ErrorType::FieldValueRequired,
                None,
                missing,
                minor,
            ));
        }
    }
    let invalid = |key: &str, v: &Value, detail: &str| {
        apimachinery_error(
            &join_key(path, key),
            ErrorType::FieldValueInvalid,
            Some(v.clone()),
            detail,
            minor,
        )
    };
    if let Some(v) = m.get("apiVersion") {
        match v.as_str() {
            None => out.push(invalid("apiVersion", v, "must be a string")),
            Some("") => out.push(invalid("apiVersion", v, "must not be empty")),
            // schema.ParseGroupVersion: "/" and a single slash parse; more do not.
            Some(a) if a != "/" && a.matches('/').count() > 1 => out.push(invalid(
                "apiVersion",
                v,
                &format!("unexpected GroupVersion string: {a}"),
            )),
            Some(_) => {}
        }
    }
    if let Some(v) = m.get("kind") {
        match v.as_str() {
            None => out.push(invalid("kind", v, "must be a string")),
            Some("") => out.push(invalid("kind", v, "must not be empty")),
            Some(k) => {
                let errs = crate::validate::meta::dns1035_label(&k.to_lowercase());
                if !errs.is_empty() {
                    out.push(invalid(
                        "kind",
                        v,
                        &format!(
                            "may have mixed case, but should otherwise match: {}",
                            errs.join(",")
                        ),
                    ));
                }
            }
        }
    }
}
