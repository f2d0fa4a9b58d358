//! A CRD version's `openAPIV3Schema`, read into the node tree the walkers use. Reading refuses what
//! apiextensions-apiserver's CRD validation refuses in the shapes the walkers rely on (a keyword
//! of the wrong JSON type; a node that is not structural in the ways that matter here), with the
//! field path inside the CRD, so a bad CRD is one clear diagnostic rather than a wrong answer.

use serde_json::{Map, Value};
use std::collections::BTreeMap;
use crate::versions::Change;

/// One node of a structural schema (apiextensions.k8s.io/v1 JSONSchemaProps), with the keywords
/// the API server acts on. `type` is a single name, or two (`integer`, `string`) for
/// `x-kubernetes-int-or-string`, as apiextensions-apiserver's conversion to the OpenAPI schema
/// makes it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Schema {
    pub types: Vec<String>,
    pub int_or_string: bool,
    pub nullable: bool,
    /// The format after the API server strips the ones it does not support for the type and minor.
    pub format: String,
    pub maximum: Option<f64>,
    pub exclusive_maximum: bool,
    pub minimum: Option<f64>,
    pub exclusive_minimum: bool,
    pub max_length: Option<i64>,
    pub min_length: Option<i64>,
    pub pattern: Option<String>,
    pub max_items: Option<i64>,
    pub min_items: Option<i64>,
    pub unique_items: bool,
    pub multiple_of: Option<f64>,
    pub max_properties: Option<i64>,
    pub min_properties: Option<i64>,
    pub required: Vec<String>,
    pub enumeration: Option<Vec<Value>>,
    pub default: Option<Value>,
    pub all_of: Vec<Schema>,
    pub any_of: Vec<Schema>,
    pub one_of: Vec<Schema>,
    pub not: Option<Box<Schema>>,
    pub properties: BTreeMap<String, Schema>,
    pub additional_properties: Option<Additional>,
    pub items: Option<Box<Schema>>,
    pub preserve_unknown_fields: bool,
    pub embedded_resource: bool,
    pub list_type: Option<String>,
    pub list_map_keys: Vec<String>,
    /// This node's own `x-kubernetes-validations` rules.
    pub validations: Vec<super::cel::Rule>,
    /// `x-kubernetes-validations` rules somewhere at or below this node.
    pub cel_rules: usize,
}

/// `additionalProperties`: a schema for every other key, or a boolean.
#[derive(Debug, Clone, PartialEq)]
pub enum Additional {
    Schema(Box<Schema>),
    Bool(bool),
}

impl Schema {
    /// The schema of the value under `key` of an object of this schema (structural: properties,
    /// else additionalProperties).
    pub fn child(&self, key: &str) -> Option<&Schema> {
        self.properties
            .get(key)
            .or(match &self.additional_properties {
                Some(Additional::Schema(s)) => Some(s),
                _ => None,
            })
    }

    pub fn has_type(&self, t: &str) -> bool {
        self.types.iter().any(|x| x == t)
    }
}

/// Why a schema cannot be read: the path inside the CRD and what is wrong there.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaError {
    pub field: String,
    pub message: String,
}

fn err(field: &str, message: impl Into<String>) -> SchemaError {
    SchemaError {
        field: field.to_owned(),
        message: message.into(),
    }
}

/// The formats kube-openapi's registry knows that the API server keeps in a CRD schema of a
/// string (apiextensions-apiserver validation/formats.go; `k8s-short-name` and `k8s-long-name`
/// from 1.34). Others are dropped from the schema, as the API server drops them.
fn supported_string_format(normalized: &str, minor: u32) -> bool {
    matches!(
        normalized,
        "bsonobjectid"
            | "uri"
            | "email"
            | "hostname"
            | "ipv4"
            | "ipv6"
            | "cidr"
            | "mac"
            | "uuid"
            | "uuid3"
            | "uuid4"
            | "uuid5"
            | "isbn"
            | "isbn10"
            | "isbn13"
            | "creditcard"
            | "ssn"
            | "hexcolor"
            | "rgbcolor"
            | "byte"
            | "password"
            | "date"
            | "duration"
            | "datetime"
    ) || (Change::K8sNameFormats.at(minor) && matches!(normalized, "k8sshortname" | "k8slongname"))
}

fn int_at(m: &Map<String, Value>, key: &str, path: &str) -> Result<Option<i64>, SchemaError> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_i64()
            .map(Some)
            .ok_or_else(|| err(&format!("{path}.{key}"), "must be an integer")),
    }
}

fn float_at(m: &Map<String, Value>, key: &str, path: &str) -> Result<Option<f64>, SchemaError> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_f64()
            .map(Some)
            .ok_or_else(|| err(&format!("{path}.{key}"), "must be a number")),
    }
}

fn bool_at(m: &Map<String, Value>, key: &str, path: &str) -> Result<bool, SchemaError> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(err(&format!("{path}.{key}"), "must be a boolean")),
    }
}

fn str_at<'a>(
    m: &'a Map<String, Value>,
    key: &str,
    path: &str,
) -> Result<Option<&'a str>, SchemaError> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(err(&format!("{path}.{key}"), "must be a string")),
    }
}

fn strings_at(m: &Map<String, Value>, key: &str, path: &str) -> Result<Vec<String>, SchemaError> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(a)) => a
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| err(&format!("{path}.{key}[{i}]"), "must be a string"))
            })
            .collect(),
        Some(_) => Err(err(&format!("{path}.{key}"), "must be a list of strings")),
    }
}

fn schemas_at(
    m: &Map<String, Value>,
    key: &str,
    path: &str,
    minor: u32,
    depth: usize,
) -> Result<Vec<Schema>, SchemaError> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(a)) => a
            .iter()
            .enumerate()
            .map(|(i, v)| read_at(v, &format!("{path}.{key}[{i}]"), minor, depth + 1, true))
            .collect(),
        Some(_) => Err(err(&format!("{path}.{key}"), "must be a list of schemas")),
    }
}

/// Reads a CRD version's `openAPIV3Schema` (`path`: where it is in the CRD, for messages) as the
/// API server of Kubernetes 1.`minor` uses it.
pub fn read(v: &Value, path: &str, minor: u32) -> Result<Schema, SchemaError> {
    read_at(v, path, minor, 0, false)
}

/// Deeper schemas than this are refused (the API server's own limits on a CRD's size keep real
/// ones far shallower); it bounds the recursion of every walker.
const MAX_DEPTH: usize = 200;

fn read_at(
    v: &Value,
    path: &str,
    minor: u32,
    depth: usize,
    in_junctor: bool,
) -> Result<Schema, SchemaError> {
    if depth > MAX_DEPTH {
        return Err(err(path, "the schema nests too deeply"));
    }
    let Some(m) = v.as_object() else {
        return Err(err(path, "must be a schema (a mapping)"));
    };
    for unsupported in [
        "$ref",
        "patternProperties",
        "dependencies",
        "additionalItems",
    ] {
        if m.get(unsupported).is_some_and(|v| !v.is_null()) {
            return Err(err(
                &format!("{path}.{unsupported}"),
                "Forbidden: must not be used in a structural schema",
            ));
        }
    }
    let mut s = Schema {
        int_or_string: bool_at(m, "x-kubernetes-int-or-string", path)?,
        nullable: bool_at(m, "nullable", path)?,
        maximum: float_at(m, "maximum", path)?,
        exclusive_maximum: bool_at(m, "exclusiveMaximum", path)?,
        minimum: float_at(m, "minimum", path)?,
        exclusive_minimum: bool_at(m, "exclusiveMinimum", path)?,
        max_length: int_at(m, "maxLength", path)?,
        min_length: int_at(m, "minLength", path)?,
        pattern: str_at(m, "pattern", path)?.map(str::to_owned),
        max_items: int_at(m, "maxItems", path)?,
        min_items: int_at(m, "minItems", path)?,
        unique_items: bool_at(m, "uniqueItems", path)?,
        multiple_of: float_at(m, "multipleOf", path)?,
        max_properties: int_at(m, "maxProperties", path)?,
        min_properties: int_at(m, "minProperties", path)?,
        required: strings_at(m, "required", path)?,
        preserve_unknown_fields: bool_at(m, "x-kubernetes-preserve-unknown-fields", path)?,
        embedded_resource: bool_at(m, "x-kubernetes-embedded-resource", path)?,
        list_type: str_at(m, "x-kubernetes-list-type", path)?.map(str::to_owned),
        list_map_keys: strings_at(m, "x-kubernetes-list-map-keys", path)?,
        ..Schema::default()
    };
    let t = str_at(m, "type", path)?.unwrap_or("");
    if !matches!(
        t,
        "" | "object" | "array" | "string" | "integer" | "number" | "boolean"
    ) {
        return Err(err(
            &format!("{path}.type"),
            format!(
                "Unsupported value: {t:?}: supported values: \"array\", \"boolean\", \"integer\", \"number\", \"object\", \"string\""
            ),
        ));
    }
    if !t.is_empty() {
        s.types.push(t.to_owned());
    }
    if s.int_or_string {
        s.types = vec!["integer".to_owned(), "string".to_owned()];
    }
    // Structural: every node outside allOf/anyOf/oneOf/not has a type, unless it is
    // int-or-string or keeps unknown fields.
    if !in_junctor && t.is_empty() && !s.int_or_string && !s.preserve_unknown_fields {
        return Err(err(
            &format!("{path}.type"),
            "Required value: must not be empty for specified object fields (the schema is not structural)",
        ));
    }
    if let Some(f) = str_at(m, "format", path)? {
        // The API server drops the formats it does not support (StripUnsupportedFormats...):
        // up to 1.35 by the list of string formats whatever the type (int32 is dropped, byte on
        // an integer kept); from 1.36 by type (int32/int64 for integers, float/double for
        // numbers, the string formats for strings and for nodes without a single type, such as
        // int-or-string).
        let normalized = f.replace('-', "");
        let single = if s.types.len() == 1 { t } else { "" };
        let keep = if !Change::FormatsStrippedByType.at(minor) {
            supported_string_format(&normalized, minor)
        } else {
            match single {
                "" | "string" => supported_string_format(&normalized, minor),
                "integer" => matches!(f, "int32" | "int64"),
                "number" => matches!(f, "float" | "double"),
                _ => false,
            }
        };
        if keep {
            s.format = f.to_owned();
        }
    }
    match m.get("enum") {
        None | Some(Value::Null) => {}
        Some(Value::Array(a)) => s.enumeration = Some(a.clone()),
        Some(_) => return Err(err(&format!("{path}.enum"), "must be a list")),
    }
    s.default = m.get("default").filter(|d| !d.is_null()).cloned();
    s.all_of = schemas_at(m, "allOf", path, minor, depth)?;
    s.any_of = schemas_at(m, "anyOf", path, minor, depth)?;
    s.one_of = schemas_at(m, "oneOf", path, minor, depth)?;
    if let Some(n) = m.get("not").filter(|n| !n.is_null()) {
        s.not = Some(Box::new(read_at(
            n,
            &format!("{path}.not"),
            minor,
            depth + 1,
            true,
        )?));
    }
    match m.get("properties") {
        None | Some(Value::Null) => {}
        Some(Value::Object(props)) => {
            for (k, p) in props {
                let child = read_at(
                    p,
                    &format!("{path}.properties[{k}]"),
                    minor,
                    depth + 1,
                    in_junctor,
                )?;
                s.properties.insert(k.clone(), child);
            }
        }
        Some(_) => return Err(err(&format!("{path}.properties"), "must be a mapping")),
    }
    match m.get("additionalProperties") {
        None | Some(Value::Null) => {}
        Some(Value::Bool(b)) => s.additional_properties = Some(Additional::Bool(*b)),
        Some(a @ Value::Object(_)) => {
            s.additional_properties = Some(Additional::Schema(Box::new(read_at(
                a,
                &format!("{path}.additionalProperties"),
                minor,
                depth + 1,
                in_junctor,
            )?)));
        }
        Some(_) => {
            return Err(err(
                &format!("{path}.additionalProperties"),
                "must be a schema or a boolean",
            ));
        }
    }
    match m.get("items") {
        None | Some(Value::Null) => {}
        Some(i @ Value::Object(_)) => {
            s.items = Some(Box::new(read_at(
                i,
                &format!("{path}.items"),
                minor,
                depth + 1,
                in_junctor,
            )?));
        }
        Some(_) => {
            return Err(err(
                &format!("{path}.items"),
                "must be a single schema (a list of schemas is not structural)",
            ));
        }
    }
    if !in_junctor && t == "array" && s.items.is_none() {
        return Err(err(
            &format!("{path}.items"),
            "Required value: must be specified (the schema is not structural)",
        ));
    }
    if !s.properties.is_empty() && matches!(s.additional_properties, Some(Additional::Schema(_))) {
        return Err(err(
            &format!("{path}.additionalProperties"),
            "Forbidden: additionalProperties and properties are mutual exclusive",
        ));
    }
    s.validations = super::cel::read_rules(m, path).map_err(|(f, e)| err(&f, e))?;
    s.cel_rules = s.validations.len()
        + s.properties.values().map(|p| p.cel_rules).sum::<usize>()
        + s.items.as_ref().map_or(0, |i| i.cel_rules)
        + match &s.additional_properties {
            Some(Additional::Schema(a)) => a.cel_rules,
            _ => 0,
        };
    Ok(s)
}
