//! The schema validation apiextensions-apiserver runs on a custom resource (kube-openapi's
//! `validate.SchemaValidator` over the CRD's schema, and `kubeOpenAPIResultToFieldErrors` turning
//! its results into field errors). The walker follows the upstream validator's own order and
//! bookkeeping (each node's validators in turn, results merged with their match counts, so that
//! anyOf/oneOf report the same best-failing alternative), because the API server's answer
//! depends on them: which errors appear, at which path, in which words.
//!
//! Values are taken as the API server's unstructured JSON holds them: an integer that fits is an
//! int64, any other number a float64 (serde_json's i64 and f64).

use super::go;
use super::schema::{Additional, Schema};
use crate::diag::{Diagnostic, ErrorType};
use serde_json::Value;
use crate::versions::Change;

/// kube-openapi's error codes that kubeOpenAPIResultToFieldErrors tells apart, and `Plain` for
/// the errors that are not `*errors.Validation` (the composite anyOf/oneOf/allOf/not errors, the
/// number range checks), which it reports as `field.Invalid` at no path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Code {
    InvalidType,
    Required,
    TooLong,
    Enum,
    MaxItems,
    TooManyProperties,
    Other,
    Plain,
}

#[derive(Debug, Clone)]
struct OErr {
    code: Code,
    name: String,
    /// The error's `Value` (None: Go's nil).
    value: Option<Value>,
    /// The error's `Valid` (the limit), for the codes that read it.
    valid: i64,
    values: Vec<Value>,
    message: String,
}

/// kube-openapi's `Result`: errors (deduplicated by message) and the match count anyOf and
/// oneOf pick the best failure by.
#[derive(Debug, Default)]
struct Res {
    errors: Vec<OErr>,
    match_count: usize,
}

impl Res {
    fn add(&mut self, e: OErr) {
        if !self.errors.iter().any(|x| x.message == e.message) {
            self.errors.push(e);
        }
    }
    fn merge(&mut self, o: Res) {
        for e in o.errors {
            self.add(e);
        }
        self.match_count += o.match_count;
    }
    fn inc(&mut self) {
        self.match_count += 1;
    }
    fn is_valid(&self) -> bool {
        self.errors.is_empty()
    }
    fn only(e: OErr) -> Res {
        Res {
            errors: vec![e],
            match_count: 0,
        }
    }
}

const IN: &str = "body";

fn verr(code: Code, name: &str, value: Option<Value>, message: String) -> OErr {
    OErr {
        code,
        name: name.to_owned(),
        value,
        valid: -1,
        values: Vec::new(),
        message,
    }
}

fn plain(message: String) -> OErr {
    verr(Code::Plain, "", None, message)
}

/// What Go type the unstructured value has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Null,
    Bool,
    Int,
    Float,
    Str,
    Slice,
    Map,
}

fn kind(v: &Value) -> Kind {
    match v {
        Value::Null => Kind::Null,
        Value::Bool(_) => Kind::Bool,
        Value::Number(n) if n.is_i64() => Kind::Int,
        Value::Number(_) => Kind::Float,
        Value::String(_) => Kind::Str,
        Value::Array(_) => Kind::Slice,
        Value::Object(_) => Kind::Map,
    }
}

fn as_f64(v: &Value) -> f64 {
    v.as_f64().unwrap_or(0.0)
}

fn invalid_type(name: &str, type_name: &str, value: &str) -> OErr {
    verr(
        Code::InvalidType,
        name,
        Some(Value::String(value.to_owned())),
        format!(
            "{name} in {IN} must be of type {type_name}: {}",
            go::quote(value)
        ),
    )
}

/// swag's IsFloat64AJSONInteger: go-openapi/swag v0.27 (Kubernetes 1.37) compares with the
/// rounded value; v0.22 and v0.23 (1.31 to 1.36) with the truncated one, by relative error.
fn is_json_integer(f: f64, minor: u32) -> bool {
    const MAX: f64 = 9_007_199_254_740_991.0;
    if !f.is_finite() || !(-MAX..=MAX).contains(&f) {
        return false;
    }
    if !Change::SwagIntegerRounded.at(minor) {
        // float64(uint64(f)) as amd64 computes it: a negative f goes through int64.
        let g = if f < 0.0 {
            (go::f64_to_i64(f) as u64) as f64
        } else {
            f.trunc()
        };
        let diff = (f - g).abs();
        if f == g || f == go::f64_to_i64(f) as f64 {
            return true;
        }
        if f == 0.0 || g == 0.0 || diff < f64::from_bits(1) {
            return diff < 1e-9 * f64::from_bits(1);
        }
        return diff / (f.abs() + g.abs()).min(f64::MAX) < 1e-9;
    }
    let rounded = f.round();
    if f == rounded {
        return true;
    }
    if rounded == 0.0 {
        return false;
    }
    let diff = (f - rounded).abs();
    diff < 1e-9 * rounded.abs()
}

/// Validates `data` at `path` (kube-openapi's SchemaValidator.Validate).
fn validate(s: &Schema, path: &str, data: &Value, minor: u32) -> Res {
    let mut r = Res::default();
    let k = kind(data);
    let type_applies = !s.types.is_empty() || !s.format.is_empty();
    if k == Kind::Null {
        if type_applies {
            r.merge(type_check(s, path, data, k, minor));
        }
        r.merge(enum_check(s, path, data));
        return r;
    }
    if type_applies {
        r.merge(type_check(s, path, data, k, minor));
        r.inc();
    }
    r.merge(junctors(s, path, data, minor));
    r.inc();
    if k == Kind::Str {
        r.merge(string_check(s, path, data));
        r.inc();
        if format_known(&s.format) {
            r.merge(format_check(s, path, data));
            r.inc();
        }
    }
    if matches!(k, Kind::Int | Kind::Float) {
        r.merge(number_check(s, path, data, minor));
        r.inc();
    }
    if let Value::Array(items) = data {
        r.merge(slice_check(s, path, items, minor));
        r.inc();
    }
    r.merge(enum_check(s, path, data));
    r.inc();
    if let Value::Object(m) = data {
        r.merge(object_check(s, path, m, minor));
        r.inc();
    }
    r.inc();
    r
}

fn type_check(s: &Schema, path: &str, data: &Value, k: Kind, minor: u32) -> Res {
    let mut r = Res::default();
    r.inc();
    if k == Kind::Null {
        if !s.types.is_empty() && !s.has_type("null") && !s.nullable {
            return Res::only(invalid_type(path, &s.types.join(","), "null"));
        }
        return r;
    }
    let (sch_type, format) = match k {
        Kind::Bool => ("boolean", ""),
        Kind::Str => ("string", ""),
        Kind::Int => ("integer", "int64"),
        Kind::Float => ("number", "float64"),
        Kind::Slice => ("array", ""),
        Kind::Map | Kind::Null => ("object", ""),
    };
    let is_float_int =
        sch_type == "number" && is_json_integer(as_f64(data), minor) && s.has_type("integer");
    let is_int_float = sch_type == "integer" && s.has_type("number");
    if k != Kind::Str
        && k != Kind::Slice
        && !s.format.is_empty()
        && !(s.has_type(sch_type) || format == s.format || is_float_int || is_int_float)
    {
        return Res::only(invalid_type(path, &s.format, format));
    }
    let numeric = s.has_type("number") || s.has_type("integer");
    if !numeric && !s.format.is_empty() && matches!(k, Kind::Str | Kind::Slice) {
        return r;
    }
    if !(s.has_type(sch_type) || is_float_int || is_int_float) {
        return Res::only(invalid_type(path, &s.types.join(","), sch_type));
    }
    r
}

/// What validating a value against each schema of an anyOf or oneOf gives, as kube-openapi's
/// validator keeps it: how many validated, the first that did, and, while none has, the result
/// that matched the most (its errors are told with the junctor's).
#[derive(Default)]
struct Alternatives {
    validated: usize,
    best: Option<Res>,
    first_success: Option<Res>,
}

/// [`Alternatives`] of `schemas`; `first_only`: stop at the first that validates (anyOf).
fn alternatives(
    schemas: &[Schema],
    path: &str,
    data: &Value,
    minor: u32,
    first_only: bool,
) -> Alternatives {
    let mut a = Alternatives::default();
    for schema in schemas {
        let result = validate(schema, path, data, minor);
        if result.is_valid() {
            a.validated += 1;
            a.best = None;
            if a.first_success.is_none() {
                a.first_success = Some(result);
            }
            if first_only {
                break;
            }
            continue;
        }
        if a.validated == 0
            && a.best
                .as_ref()
                .is_none_or(|b| result.match_count > b.match_count)
        {
            a.best = Some(result);
        }
    }
    a
}

fn junctors(s: &Schema, path: &str, data: &Value, minor: u32) -> Res {
    let mut main = Res::default();
    let q = go::quote(path);
    if !s.any_of.is_empty() {
        let Alternatives {
            validated,
            best,
            first_success,
        } = alternatives(&s.any_of, path, data, minor, true);
        if validated == 0 {
            main.add(plain(format!(
                "{q} must validate at least one schema (anyOf)"
            )));
        }
        if let Some(b) = best {
            main.merge(b);
        } else if let Some(f) = first_success {
            main.merge(f);
        }
    }
    if !s.one_of.is_empty() {
        let Alternatives {
            validated,
            best,
            first_success,
        } = alternatives(&s.one_of, path, data, minor, false);
        if validated != 1 {
            let more = if validated == 0 {
                "Found none valid".to_owned()
            } else {
                format!("Found {validated} valid alternatives")
            };
            main.add(plain(format!(
                "{q} must validate one and only one schema (oneOf). {more}"
            )));
            if let Some(b) = best {
                main.merge(b);
            }
        } else if let Some(f) = first_success {
            main.merge(f);
        }
    }
    if !s.all_of.is_empty() {
        let mut validated = 0usize;
        for a in &s.all_of {
            let result = validate(a, path, data, minor);
            if result.is_valid() {
                validated += 1;
            }
            main.merge(result);
        }
        if validated != s.all_of.len() {
            let more = if validated == 0 {
                ". None validated"
            } else {
                ""
            };
            main.add(plain(format!(
                "{q} must validate all the schemas (allOf){more}"
            )));
        }
    }
    if let Some(n) = &s.not
        && validate(n, path, data, minor).is_valid()
    {
        main.add(plain(format!("{q} must not validate the schema (not)")));
    }
    main.inc();
    main
}

fn string_check(s: &Schema, path: &str, data: &Value) -> Res {
    let Value::String(text) = data else {
        return Res::default();
    };
    let len = i64::try_from(text.chars().count()).unwrap_or(i64::MAX);
    let value = Some(data.clone());
    if let Some(max) = s.max_length
        && len > max
    {
        let mut e = verr(
            Code::TooLong,
            path,
            value,
            format!("{path} in {IN} should be at most {max} chars long"),
        );
        e.valid = max;
        return Res::only(e);
    }
    if let Some(min) = s.min_length
        && len < min
    {
        return Res::only(verr(
            Code::Other,
            path,
            value,
            format!("{path} in {IN} should be at least {min} chars long"),
        ));
    }
    if let Some(p) = &s.pattern {
        match crate::go_regexp::compile(p) {
            Err(why) => {
                return Res::only(verr(
                    Code::Other,
                    path,
                    value,
                    format!("{path} in {IN} should match '{p}, but pattern is invalid: {why}'"),
                ));
            }
            Ok(re) if !re.is_match(text) => {
                return Res::only(verr(
                    Code::Other,
                    path,
                    value,
                    format!("{path} in {IN} should match '{p}'"),
                ));
            }
            Ok(_) => {}
        }
    }
    Res::default()
}

/// Whether kube-openapi's registry knows the format (then its validator runs, and counts toward
/// anyOf's best match). Every string format the API server keeps is in it; the numeric ones are
/// not.
fn format_known(f: &str) -> bool {
    !f.is_empty() && !matches!(f, "int32" | "int64" | "float" | "double")
}

fn format_check(s: &Schema, path: &str, data: &Value) -> Res {
    let Value::String(text) = data else {
        return Res::default();
    };
    if super::formats::valid(&s.format, text) {
        return Res::default();
    }
    Res::only(invalid_type(path, &s.format, text))
}

/// IsValueValidAgainstRange: whether `v` is a value of the type and format; the error is a plain
/// one (no field path), as kube-openapi's is.
fn range_error(v: &Value, type_name: &str, format: &str, prefix: &str, path: &str) -> Option<OErr> {
    let rep = match v {
        Value::Number(n) if n.is_i64() => n.to_string(),
        other => go::format_f(as_f64(other)),
    };
    let ok = match type_name {
        "integer" => match format {
            "int32" => rep.parse::<i32>().is_ok(),
            _ => rep.parse::<i64>().is_ok(),
        },
        _ => match format {
            "float" => rep
                .parse::<f64>()
                .is_ok_and(|f| f.abs() <= f64::from(f32::MAX)),
            _ => true,
        },
    };
    if ok {
        return None;
    }
    Some(plain(if format.is_empty() {
        format!("{prefix} value must be of type {type_name} (default format) in {path}")
    } else {
        format!("{prefix} value must be of type {type_name} with format {format} in {path}")
    }))
}

fn number_check(s: &Schema, path: &str, data: &Value, minor: u32) -> Res {
    // kube-openapi checks values and bounds against the schema's type and format from the
    // release of Kubernetes 1.36; before, it knew neither.
    let (type_name, format) = match s.types.as_slice() {
        _ if !Change::OpenapiTypedBounds.at(minor) => ("", ""),
        [t] if t == "integer" => (
            "integer",
            if matches!(s.format.as_str(), "int32" | "int64") {
                s.format.as_str()
            } else {
                ""
            },
        ),
        [t] if t == "number" => (
            "number",
            if matches!(s.format.as_str(), "float" | "double") {
                s.format.as_str()
            } else {
                ""
            },
        ),
        _ => ("", ""),
    };
    let mut res = Res::default();
    let f = as_f64(data);
    let int = data.as_i64().filter(|_| kind(data) == Kind::Int);
    if let Some(e) = range_error(data, type_name, format, "Checked", path) {
        res.add(e);
    }
    let mut multiple = Res::default();
    let mut minimum = Res::default();
    let mut maximum = Res::default();
    if let Some(m) = s.multiple_of {
        let bad = range_error(&Value::from(m), type_name, format, "MultipleOf", path);
        let native = bad.is_none();
        if let Some(e) = bad {
            multiple.add(e);
        }
        let e = match (native, int) {
            (true, Some(i)) => {
                let factor = go::f64_to_i64(m);
                if factor <= 0 {
                    Some(verr(
                        Code::Other,
                        path,
                        Some(Value::from(factor)),
                        format!("factor MultipleOf declared for {path} must be positive: {factor}"),
                    ))
                } else if i.wrapping_div(factor).wrapping_mul(factor) != i {
                    Some(verr(
                        Code::Other,
                        path,
                        Some(data.clone()),
                        format!("{path} in {IN} should be a multiple of {factor}"),
                    ))
                } else {
                    None
                }
            }
            _ => multiple_of_float(path, f, m, &Value::from(f), minor),
        };
        if let Some(e) = e {
            multiple.add(e);
        }
    }
    let bounds = (type_name, format, path);
    if let Some(max) = s.maximum {
        maximum = bound_check(max, s.exclusive_maximum, true, (int, f, data), bounds);
    }
    if let Some(min) = s.minimum {
        minimum = bound_check(min, s.exclusive_minimum, false, (int, f, data), bounds);
    }
    res.merge(multiple);
    res.merge(minimum);
    res.merge(maximum);
    res.inc();
    res
}

/// maximum (`upper`) or minimum, exclusive or not: the bound itself checked against the type and
/// format (kube-openapi's "Maximum boundary" or "Minimum boundary" range error), then the value
/// against it, as integers when both are native integers, else as floats.
fn bound_check(
    limit: f64,
    exclusive: bool,
    upper: bool,
    (int, f, data): (Option<i64>, f64, &Value),
    (type_name, format, path): (&str, &str, &str),
) -> Res {
    let mut r = Res::default();
    let prefix = if upper {
        "Maximum boundary"
    } else {
        "Minimum boundary"
    };
    let bad = range_error(&Value::from(limit), type_name, format, prefix, path);
    let native = bad.is_none();
    if let Some(e) = bad {
        r.add(e);
    }
    // Past the bound: above it (or at it, exclusive) for a maximum, below for a minimum.
    let past = |cmp: std::cmp::Ordering| {
        let beyond = if upper {
            std::cmp::Ordering::Greater
        } else {
            std::cmp::Ordering::Less
        };
        cmp == beyond || (exclusive && cmp == std::cmp::Ordering::Equal)
    };
    let e = match (native, int) {
        (true, Some(i)) => {
            let m = go::f64_to_i64(limit);
            past(i.cmp(&m)).then(|| bound_err(path, m.to_string(), exclusive, upper, data))
        }
        _ => f
            .partial_cmp(&limit)
            .is_some_and(past)
            .then(|| bound_err(path, go::format_v(limit), exclusive, upper, &Value::from(f))),
    };
    if let Some(e) = e {
        r.add(e);
    }
    r
}

fn multiple_of_float(
    path: &str,
    data: f64,
    factor: f64,
    value: &Value,
    minor: u32,
) -> Option<OErr> {
    if factor <= 0.0 {
        return Some(verr(
            Code::Other,
            path,
            Some(Value::from(factor)),
            format!(
                "factor MultipleOf declared for {path} must be positive: {}",
                go::format_v(factor)
            ),
        ));
    }
    let mult = if factor < 1.0 {
        1.0 / factor * data
    } else {
        data / factor
    };
    (!is_json_integer(mult, minor)).then(|| {
        verr(
            Code::Other,
            path,
            Some(value.clone()),
            format!(
                "{path} in {IN} should be a multiple of {}",
                go::format_v(factor)
            ),
        )
    })
}

fn bound_err(path: &str, bound: String, exclusive: bool, max: bool, data: &Value) -> OErr {
    let words = match (max, exclusive) {
        (true, false) => "less than or equal to",
        (true, true) => "less than",
        (false, false) => "greater than or equal to",
        (false, true) => "greater than",
    };
    verr(
        Code::Other,
        path,
        Some(data.clone()),
        format!("{path} in {IN} should be {words} {bound}"),
    )
}

/// minItems/maxItems or minProperties/maxProperties: the list's or object's size `len` against
/// the bounds, in kube-openapi's words for `noun`; `too_many` is the error code of the upper
/// bound (the lower one has none of its own).
fn count_bounds(
    r: &mut Res,
    path: &str,
    len: usize,
    (min, max): (Option<i64>, Option<i64>),
    (noun, too_many): (&str, Code),
) {
    let n = i64::try_from(len).unwrap_or(i64::MAX);
    let mut bound = |code: Code, limit: i64, which: &str| {
        let mut e = verr(
            code,
            path,
            Some(Value::from(n)),
            format!("{path} in {IN} should have {which} {limit} {noun}"),
        );
        e.valid = limit;
        r.add(e);
    };
    if let Some(min) = min
        && n < min
    {
        bound(Code::Other, min, "at least");
    }
    if let Some(max) = max
        && n > max
    {
        bound(too_many, max, "at most");
    }
}

fn slice_check(s: &Schema, path: &str, items: &[Value], minor: u32) -> Res {
    let mut r = Res::default();
    if let Some(item) = &s.items {
        for (i, v) in items.iter().enumerate() {
            r.merge(validate(item, &format!("{path}[{i}]"), v, minor));
        }
    }
    count_bounds(
        &mut r,
        path,
        items.len(),
        (s.min_items, s.max_items),
        ("items", Code::MaxItems),
    );
    if s.unique_items
        && items
            .iter()
            .enumerate()
            .any(|(i, v)| items.iter().take(i).any(|u| u == v))
    {
        r.add(verr(
            Code::Other,
            path,
            None,
            format!("{path} in {IN} shouldn't contain duplicates"),
        ));
    }
    r.inc();
    r
}

/// Whether Go's reflect conversion of `data` to the type of `want` gives a value DeepEqual to it
/// (basicCommonValidator's enum check, with its conversions: an integer converts to a string as
/// a code point, a float to an integer by truncation).
fn enum_matches(data: &Value, want: &Value) -> bool {
    match (kind(data), kind(want)) {
        (_, Kind::Null) | (Kind::Null, _) => false,
        (Kind::Int, Kind::Str) => {
            let i = data.as_i64().unwrap_or(0);
            let c = u32::try_from(i)
                .ok()
                .and_then(char::from_u32)
                .unwrap_or('\u{FFFD}');
            want.as_str() == Some(c.encode_utf8(&mut [0; 4]))
        }
        (Kind::Int, Kind::Int) => data.as_i64() == want.as_i64(),
        (Kind::Float, Kind::Int) => Some(go::f64_to_i64(as_f64(data))) == want.as_i64(),
        (Kind::Int | Kind::Float, Kind::Float) => as_f64(data) == as_f64(want),
        (a, b) => a == b && data == want,
    }
}

fn enum_check(s: &Schema, path: &str, data: &Value) -> Res {
    let Some(values) = &s.enumeration else {
        return Res::default();
    };
    if values.is_empty() || values.iter().any(|v| enum_matches(data, v)) {
        return Res::default();
    }
    let mut e = verr(
        Code::Enum,
        path,
        (!data.is_null()).then(|| data.clone()),
        format!(
            "{path} in {IN} should be one of {}",
            values.iter().map(go::json).collect::<Vec<_>>().join(" ")
        ),
    );
    e.values = values.clone();
    Res::only(e)
}

fn object_check(s: &Schema, path: &str, m: &serde_json::Map<String, Value>, minor: u32) -> Res {
    let mut r = Res::default();
    count_bounds(
        &mut r,
        path,
        m.len(),
        (s.min_properties, s.max_properties),
        ("properties", Code::TooManyProperties),
    );
    match &s.additional_properties {
        Some(Additional::Bool(false)) => {
            for k in m.keys() {
                if !s.properties.contains_key(k) {
                    r.add(verr(
                        Code::Other,
                        path,
                        Some(Value::String(k.clone())),
                        format!("{path}.{k} in {IN} is a forbidden property"),
                    ));
                }
            }
        }
        Some(Additional::Schema(a)) => {
            for (k, v) in m {
                if !s.properties.contains_key(k) {
                    r.merge(validate(a, &format!("{path}.{k}"), v, minor));
                }
            }
        }
        _ => {}
    }
    for (name, p) in &s.properties {
        if let Some(v) = m.get(name) {
            let child = if path.is_empty() {
                name.clone()
            } else {
                format!("{path}.{name}")
            };
            r.merge(validate(p, &child, v, minor));
        }
    }
    for k in &s.required {
        if !m.contains_key(k) {
            r.add(verr(
                Code::Required,
                &format!("{path}.{k}"),
                None,
                format!("{path}.{k} in {IN} is required"),
            ));
        }
    }
    r
}

/// The field errors the API server reports for a value of the schema (ValidateCustomResource:
/// the validator's result through kubeOpenAPIResultToFieldErrors), worded as Kubernetes
/// 1.`minor` words them.
pub fn field_errors(s: &Schema, data: &Value, minor: u32) -> Vec<Diagnostic> {
    let r = validate(s, "", data, minor);
    r.errors
        .into_iter()
        .map(|e| to_field_error(e, minor))
        .collect()
}

fn to_field_error(e: OErr, minor: u32) -> Diagnostic {
    if e.code == Code::Plain {
        return field_error(
            "<nil>",
            ErrorType::FieldValueInvalid,
            Some(Value::from("")),
            &e.message,
            minor,
        );
    }
    let field = if e.name.is_empty() || e.name == "." {
        "<nil>".to_owned()
    } else {
        e.name.strip_prefix('.').unwrap_or(&e.name).to_owned()
    };
    let or_empty = |v: Option<Value>| Some(v.unwrap_or_else(|| Value::from("")));
    match e.code {
        Code::Required => field_error(&field, ErrorType::FieldValueRequired, None, "", minor),
        Code::Enum => {
            let list: Vec<String> = e
                .values
                .iter()
                .map(|v| match v {
                    Value::String(s) => go::quote(s),
                    other => go::quote(&go::json(other)),
                })
                .collect();
            let detail = if list.is_empty() {
                String::new()
            } else {
                format!("supported values: {}", list.join(", "))
            };
            // A nil value prints as null.
            field_error(
                &field,
                ErrorType::FieldValueNotSupported,
                Some(e.value.unwrap_or(Value::Null)),
                &detail,
                minor,
            )
        }
        Code::TooLong => {
            let max = e.valid;
            // 1.31's apiextensions-apiserver calls field.TooLongMaxLength; later ones TooLong.
            let detail = if !Change::TooLongMaxLengthGone.at(minor) {
                if max >= 0 {
                    format!("may not be longer than {max}")
                } else {
                    "value is too long".to_owned()
                }
            } else if !Change::TooLongByteWording.at(minor) || max != 1 {
                format!("may not be more than {max} bytes")
            } else {
                format!("may not be more than {max} byte")
            };
            field_error(&field, ErrorType::FieldValueTooLong, None, &detail, minor)
        }
        Code::MaxItems | Code::TooManyProperties => {
            let max = e.valid;
            let actual = e.value.unwrap_or(Value::from(-1));
            let detail = if Change::TooLongByteWording.at(minor) && max == 1 {
                "must have at most 1 item".to_owned()
            } else {
                format!("must have at most {max} items")
            };
            field_error(
                &field,
                ErrorType::FieldValueTooMany,
                Some(actual),
                &detail,
                minor,
            )
        }
        Code::InvalidType => field_error(
            &field,
            ErrorType::FieldValueTypeInvalid,
            or_empty(e.value),
            &e.message,
            minor,
        ),
        Code::Other | Code::Plain => field_error(
            &field,
            ErrorType::FieldValueInvalid,
            or_empty(e.value),
            &e.message,
            minor,
        ),
    }
}

/// A `field.Error` as apimachinery of Kubernetes 1.`minor` prints it (`Error()`: the field, then
/// `ErrorBody()`).
fn field_error(
    field: &str,
    t: ErrorType,
    bad: Option<Value>,
    detail: &str,
    minor: u32,
) -> Diagnostic {
    let printed = bad.as_ref().map(|v| go::bad_value(v, minor));
    let d = Diagnostic::field_error_at(
        field,
        t,
        bad,
        (!detail.is_empty()).then(|| detail.to_owned()),
    );
    // Callers give a value where ErrorBody prints one (none for Required or TooLong), so it is
    // printed whenever given, in the minor's rendering.
    match printed {
        Some(p) => d.with_printed_value(&p),
        None => d,
    }
    .with_code("crd-schema")
}

/// A field error of the list-type and embedded-resource checks, which use apimachinery's
/// constructors directly.
pub fn apimachinery_error(
    field: &str,
    t: ErrorType,
    bad: Option<Value>,
    detail: &str,
    minor: u32,
) -> Diagnostic {
    field_error(field, t, bad, detail, minor)
}
