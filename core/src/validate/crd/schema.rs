//! A CRD's `openAPIV3Schema` as `validateCustomResourceDefinitionValidation` checks it on
//! create: the root's limits with the status subresource, the structural-schema rules
//! (`structuralschema.ValidateStructural`: invariants, then the completeness of the root's
//! value validations), the defaults (`structuraldefaulting.ValidateDefaults`: pruned, and valid
//! against their own schema), and `ValidateCustomResourceDefinitionOpenAPISchema`'s walk (the
//! OpenAPI members Kubernetes does not support, list and map types, the static checks of
//! `x-kubernetes-validations`). The structural checks run only on a schema `NewStructural`
//! can convert, and `x-kubernetes-validations`' compile-stage checks only where the schema is
//! structural with valid defaults, as upstream's.

use super::super::crd_schema::{go::json, openapi, schema as crd_schema, structural};
use super::super::json_read::{list, opt, str_of};
use super::super::webhook_config::Check;
use super::props::{
    MAX_DEPTH, META_FIELDS, OPENAPI_TYPES, convertible, flag, has_properties, is_set, obj,
    properties, ty,
};
use super::walk::{Ssv, Walk, Walker};
use crate::diag::{Diagnostic, FieldPath};
use serde_json::{Map, Value};

/// The Go names of the members allowed at the root with the status subresource
/// (allowedFieldsAtRootSchema), as the message lists them.
const ROOT_ALLOWED_GO: &str = "[Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations]";
/// JSONSchemaProps' members by their JSON names, in the Go struct's order (which decides which
/// one the root check names first), each with whether allowedFieldsAtRootSchema has it.
const MEMBERS: [(&str, bool); 44] = [
    ("id", false),
    ("$schema", false),
    ("$ref", false),
    ("description", true),
    ("type", true),
    ("nullable", false),
    ("format", true),
    ("title", true),
    ("default", false),
    ("maximum", true),
    ("exclusiveMaximum", true),
    ("minimum", true),
    ("exclusiveMinimum", true),
    ("maxLength", true),
    ("minLength", true),
    ("pattern", true),
    ("maxItems", true),
    ("minItems", true),
    ("uniqueItems", true),
    ("multipleOf", true),
    ("enum", false),
    ("maxProperties", false),
    ("minProperties", false),
    ("required", true),
    ("items", true),
    ("allOf", false),
    ("oneOf", false),
    ("anyOf", false),
    ("not", false),
    ("properties", true),
    ("additionalProperties", false),
    ("patternProperties", false),
    ("dependencies", false),
    ("additionalItems", false),
    ("definitions", false),
    ("externalDocs", true),
    ("example", true),
    ("x-kubernetes-preserve-unknown-fields", true),
    ("x-kubernetes-embedded-resource", false),
    ("x-kubernetes-int-or-string", false),
    ("x-kubernetes-list-map-keys", false),
    ("x-kubernetes-list-type", false),
    ("x-kubernetes-map-type", false),
    ("x-kubernetes-validations", true),
];
/// validateCustomResourceDefinitionValidation for one CustomResourceValidation at `p`.
pub(super) fn validate_validation(
    validation: &Value,
    status_enabled: bool,
    ratcheting: bool,
    p: &FieldPath,
    c: &mut Check,
) {
    let Some(s) = opt(validation, "openAPIV3Schema") else {
        return;
    };
    let sp = p.child("openAPIV3Schema");
    let mut errs = Vec::new();
    if status_enabled && let Some(m) = obj(s) {
        for (key, allowed_at_root) in MEMBERS {
            // A member at its Go zero value does not count (the check skips zero fields).
            if !m.get(key).is_some_and(|v| is_set(key, v)) {
                continue;
            }
            if key == "type" {
                if ty(s) != "object" {
                    errs.push(Diagnostic::invalid(
                        &sp.child("type"),
                        ty(s),
                        "only \"object\" is allowed as the type at the root of the schema if the status subresource is enabled",
                    ));
                    break;
                }
                continue;
            }
            if !allowed_at_root {
                errs.push(Diagnostic::invalid_printed(
                    &sp,
                    s.clone(),
                    "apiextensions.JSONSchemaProps{...}",
                    format!("only {ROOT_ALLOWED_GO} fields are allowed at the root of the schema if the status subresource is enabled"),
                ));
                break;
            }
        }
    }
    if flag(s, "nullable") {
        errs.push(Diagnostic::forbidden(
            &sp.child("nullable"),
            "nullable cannot be true at the root",
        ));
    }
    let mut cel_ready = false;
    if convertible(s) {
        let mut structural_errs = Vec::new();
        invariants(s, Level::Root, &sp, 0, &mut structural_errs);
        completeness_root(s, &sp, &mut structural_errs);
        if structural_errs.is_empty() {
            let mut default_errs = Vec::new();
            defaults(s, &sp, true, 0, c.minor, &mut default_errs);
            cel_ready = default_errs.is_empty();
            errs.extend(default_errs);
        } else {
            errs.extend(structural_errs);
        }
    }
    let walker = Walker {
        ratcheting,
        minor: c.minor,
    };
    let mut walk = Walk::default();
    walker.walk(s, &sp, &Ssv::root(), true, cel_ready, 0, &mut walk);
    errs.extend(walk.schema);
    errs.extend(walk.cel);
    for e in errs {
        c.push(e);
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    Root,
    Item,
    Field,
}

/// validateStructuralInvariants.
fn invariants(s: &Value, lvl: Level, p: &FieldPath, depth: usize, out: &mut Vec<Diagnostic>) {
    if depth > MAX_DEPTH || !s.is_object() {
        return;
    }
    let t = ty(s);
    if t == "array" && opt(s, "items").is_none() {
        out.push(Diagnostic::required(&p.child("items"), "must be specified"));
    }
    if let Some(items) = opt(s, "items") {
        invariants(items, Level::Item, &p.child("items"), depth + 1, out);
    }
    if let Some(props) = properties(s) {
        for (k, v) in props {
            invariants(
                v,
                Level::Field,
                &p.child("properties").key(k),
                depth + 1,
                out,
            );
        }
    }
    if let Some(ap) = opt(s, "additionalProperties") {
        if lvl == Level::Root {
            out.push(Diagnostic::forbidden(
                &p.child("additionalProperties"),
                "must not be used at the root",
            ));
        }
        if ap.is_object() {
            invariants(
                ap,
                Level::Field,
                &p.child("additionalProperties"),
                depth + 1,
                out,
            );
        }
    }
    let int_or_string = flag(s, "x-kubernetes-int-or-string");
    let preserve = flag(s, "x-kubernetes-preserve-unknown-fields");
    let embedded = flag(s, "x-kubernetes-embedded-resource");
    if int_or_string && preserve {
        out.push(Diagnostic::invalid(
            &p.child("x-kubernetes-preserve-unknown-fields"),
            true,
            "must be false if x-kubernetes-int-or-string is true",
        ));
    }
    if int_or_string && embedded {
        out.push(Diagnostic::invalid(
            &p.child("x-kubernetes-embedded-resource"),
            true,
            "must be false if x-kubernetes-int-or-string is true",
        ));
    }
    let skip_any_of = is_int_or_string_any_of(list(s, "anyOf"));
    let skip_first = list(s, "allOf")
        .first()
        .is_some_and(|a| is_int_or_string_any_of(list(a, "anyOf")));
    value_validation(s, skip_any_of, skip_first, p, depth, out);

    let check_metadata = lvl == Level::Root || embedded;
    if embedded && t != "object" {
        let msg = "must be object if x-kubernetes-embedded-resource is true";
        out.push(if t.is_empty() {
            Diagnostic::required(&p.child("type"), msg)
        } else {
            Diagnostic::invalid(&p.child("type"), t, msg)
        });
    } else if t.is_empty() && !int_or_string && !preserve {
        let msg = match lvl {
            Level::Root => "must not be empty at the root",
            Level::Item => "must not be empty for specified array items",
            Level::Field => "must not be empty for specified object fields",
        };
        out.push(Diagnostic::required(&p.child("type"), msg));
    }
    if embedded && opt(s, "additionalProperties").is_some() {
        out.push(Diagnostic::forbidden(
            &p.child("additionalProperties"),
            "must not be used if x-kubernetes-embedded-resource is set",
        ));
    }
    if lvl == Level::Root && !t.is_empty() && t != "object" {
        out.push(Diagnostic::invalid(
            &p.child("type"),
            t,
            "must be object at the root",
        ));
    }
    if let Some(props) = properties(s) {
        for key in ["kind", "apiVersion"] {
            if let Some(k) = props.get(key)
                && check_metadata
                && ty(k) != "string"
            {
                out.push(Diagnostic::invalid(
                    &p.child("properties").key(key).child("type"),
                    ty(k),
                    "must be string",
                ));
            }
        }
        if let Some(m) = props.get("metadata") {
            metadata_invariants(
                m,
                check_metadata,
                lvl,
                &p.child("properties").key("metadata"),
                out,
            );
        }
    }
    if embedded && !preserve && !has_properties(s) {
        out.push(Diagnostic::required(
            &p.child("properties"),
            "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
        ));
    }
}

/// The anyOf of an int-or-string field as kubebuilder writes it: exactly
/// `[{type: integer}, {type: string}]`.
fn is_int_or_string_any_of(any_of: &[Value]) -> bool {
    let only_type = |v: &Value, t: &str| {
        obj(v).is_some_and(|m| m.len() == 1 && m.get("type") == Some(&Value::from(t)))
    };
    matches!(any_of, [a, b] if only_type(a, "integer") && only_type(b, "string"))
}

/// validateStructuralMetadataInvariants.
fn metadata_invariants(
    m: &Value,
    check_metadata: bool,
    lvl: Level,
    p: &FieldPath,
    out: &mut Vec<Diagnostic>,
) {
    if check_metadata && ty(m) != "object" {
        out.push(Diagnostic::invalid(
            &p.child("type"),
            ty(m),
            "must be object",
        ));
    }
    if lvl != Level::Root {
        return;
    }
    let Some(members) = obj(m) else {
        return;
    };
    let only_names = |props: &Map<String, Value>| {
        let name = props.contains_key("name");
        let generate = props.contains_key("generateName");
        (name && generate && props.len() == 2) || ((name || generate) && props.len() == 1)
    };
    let other = members.iter().any(|(k, v)| match k.as_str() {
        "type" | "default" => false,
        "properties" => match v.as_object() {
            Some(props) => !only_names(props),
            None => !v.is_null(),
        },
        _ => MEMBERS.iter().any(|(m, _)| m == k) && is_set(k, v),
    });
    if other {
        out.push(Diagnostic::forbidden(
            p,
            "must not specify anything other than name and generateName, but metadata is implicitly specified",
        ));
    }
}

/// validateValueValidation on the value-validation members of `s`.
fn value_validation(
    s: &Value,
    skip_any_of: bool,
    skip_first_all_of_any_of: bool,
    p: &FieldPath,
    depth: usize,
    out: &mut Vec<Diagnostic>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    if !skip_any_of {
        for (i, v) in list(s, "anyOf").iter().enumerate() {
            nested(v, false, &p.child("anyOf").index(i), depth + 1, out);
        }
    }
    for (i, v) in list(s, "allOf").iter().enumerate() {
        nested(
            v,
            skip_first_all_of_any_of && i == 0,
            &p.child("allOf").index(i),
            depth + 1,
            out,
        );
    }
    for (i, v) in list(s, "oneOf").iter().enumerate() {
        nested(v, false, &p.child("oneOf").index(i), depth + 1, out);
    }
    if let Some(not) = opt(s, "not") {
        nested(not, false, &p.child("not"), depth + 1, out);
    }
    let pattern = str_of(s, "pattern");
    if !pattern.is_empty()
        && let Err(why) = crate::go_regexp::translate(pattern)
    {
        out.push(Diagnostic::invalid(
            &p.child("pattern"),
            pattern,
            format!("must be a valid regular expression, but isn't: error parsing regexp: {why}"),
        ));
    }
}

/// validateNestedValueValidation: a schema inside allOf, anyOf, oneOf or not carries value
/// validations only.
fn nested(v: &Value, skip_any_of: bool, p: &FieldPath, depth: usize, out: &mut Vec<Diagnostic>) {
    if depth > MAX_DEPTH || !v.is_object() {
        return;
    }
    value_validation(v, skip_any_of, false, p, depth, out);
    if let Some(items) = opt(v, "items") {
        nested(items, false, &p.child("items"), depth + 1, out);
    }
    if let Some(props) = properties(v) {
        for (k, f) in props {
            nested(f, false, &p.child("properties").key(k), depth + 1, out);
        }
    }
    let forbid = |key: &str, msg: &str, out: &mut Vec<Diagnostic>| {
        out.push(Diagnostic::forbidden(&p.child(key), msg));
    };
    if !ty(v).is_empty() {
        forbid("type", "must be empty to be structural", out);
    }
    if opt(v, "additionalProperties").is_some() {
        forbid(
            "additionalProperties",
            "must be undefined to be structural",
            out,
        );
    }
    if opt(v, "default").is_some() {
        forbid("default", "must be undefined to be structural", out);
    }
    for key in ["title", "description"] {
        if !str_of(v, key).is_empty() {
            forbid(key, "must be empty to be structural", out);
        }
    }
    for key in [
        "nullable",
        "x-kubernetes-preserve-unknown-fields",
        "x-kubernetes-embedded-resource",
        "x-kubernetes-int-or-string",
    ] {
        if flag(v, key) {
            forbid(key, "must be false to be structural", out);
        }
    }
    for key in ["x-kubernetes-list-type", "x-kubernetes-map-type"] {
        if opt(v, key).is_some() {
            forbid(key, "must be undefined to be structural", out);
        }
    }
    for key in ["x-kubernetes-list-map-keys", "x-kubernetes-validations"] {
        if !list(v, key).is_empty() {
            forbid(key, "must be empty to be structural", out);
        }
    }
    if properties(v).is_some_and(|m| m.contains_key("metadata")) {
        out.push(Diagnostic::forbidden(
            &p.child("properties").key("metadata"),
            "must not be specified in a nested context",
        ));
    }
}

/// validateStructuralCompleteness: what the root's value validations name must be specified in
/// the structural part.
fn completeness_root(s: &Value, p: &FieldPath, out: &mut Vec<Diagnostic>) {
    completeness_of(s, Some(s), p, p, 0, out);
}

fn completeness_of(
    v: &Value,
    s: Option<&Value>,
    sp: &FieldPath,
    vp: &FieldPath,
    depth: usize,
    out: &mut Vec<Diagnostic>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    if let Some(not) = opt(v, "not") {
        completeness_nested(not, s, sp, &vp.child("not"), depth + 1, out);
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        for (i, x) in list(v, key).iter().enumerate() {
            completeness_nested(x, s, sp, &vp.child(key).index(i), depth + 1, out);
        }
    }
}

fn completeness_nested(
    v: &Value,
    s: Option<&Value>,
    sp: &FieldPath,
    vp: &FieldPath,
    depth: usize,
    out: &mut Vec<Diagnostic>,
) {
    let Some(s) = s else {
        out.push(Diagnostic::required(
            sp,
            format!("because it is defined in {}", vp.as_str()),
        ));
        return;
    };
    completeness_of(v, Some(s), sp, vp, depth, out);
    if let Some(items) = opt(v, "items") {
        completeness_nested(
            items,
            opt(s, "items"),
            &sp.child("items"),
            &vp.child("items"),
            depth + 1,
            out,
        );
    }
    if let Some(props) = properties(v) {
        for (k, f) in props {
            let spk = sp.child("properties").key(k);
            let vpk = vp.child("properties").key(k);
            match properties(s).and_then(|m| m.get(k)) {
                None => out.push(Diagnostic::required(
                    &spk,
                    format!("because it is defined in {}", vpk.as_str()),
                )),
                Some(sf) => completeness_nested(f, Some(sf), &spk, &vpk, depth + 1, out),
            }
        }
    }
}

/// ValidateDefaults, outside metadata: each default must survive pruning unchanged and pass its
/// own schema's OpenAPI validation. (A default's own CEL rules and defaults inside an embedded
/// resource's metadata are left to the cluster.)
fn defaults(
    s: &Value,
    p: &FieldPath,
    root: bool,
    depth: usize,
    minor: u32,
    out: &mut Vec<Diagnostic>,
) {
    if depth > MAX_DEPTH || !s.is_object() {
        return;
    }
    let embedded = root || flag(s, "x-kubernetes-embedded-resource");
    if let Some(d) = opt(s, "default")
        && let Ok(schema) = read_for_default(s, p, minor)
    {
        let dp = p.child("default");
        let mut pruned = d.clone();
        let dropped = if embedded {
            structural::prune(&mut pruned, &schema)
        } else {
            let mut wrapper = serde_json::json!({ "x": d.clone() });
            let ws = crd_schema::read(
                &serde_json::json!({"type": "object", "properties": {"x": s}}),
                p.as_str(),
                minor,
            );
            match ws {
                Ok(ws) => structural::prune(&mut wrapper, &ws),
                Err(_) => Vec::new(),
            }
        };
        if !dropped.is_empty() {
            out.push(Diagnostic::invalid_printed(
                &dp,
                d.clone(),
                &json(d),
                "must not have unknown fields",
            ));
        }
        // schemaobjectmeta.Validate on an embedded resource's default (the root is one), then,
        // only if it passes, the OpenAPI validation.
        let mut as_resource = schema;
        as_resource.embedded_resource |= embedded;
        let meta_errs = structural::embedded_errors(&as_resource, d, minor);
        if meta_errs.is_empty() {
            for e in openapi::field_errors(&as_resource, d, minor) {
                out.push(rebase(e, &dp));
            }
        } else {
            out.extend(meta_errs.into_iter().map(|e| rebase(e, &dp)));
        }
    }
    if let Some(items) = opt(s, "items") {
        defaults(items, &p.child("items"), false, depth + 1, minor, out);
    }
    if let Some(props) = properties(s) {
        for (k, v) in props {
            // Defaults inside an embedded resource's apiVersion, kind and metadata are checked
            // as metadata upstream: not here.
            if embedded && META_FIELDS.contains(&k.as_str()) {
                continue;
            }
            defaults(
                v,
                &p.child("properties").key(k),
                false,
                depth + 1,
                minor,
                out,
            );
        }
    }
    if let Some(ap) = opt(s, "additionalProperties").filter(|v| v.is_object()) {
        defaults(
            ap,
            &p.child("additionalProperties"),
            false,
            depth + 1,
            minor,
            out,
        );
    }
}

/// The schema a default is validated with: built from the schema as written
/// (NewSchemaValidatorFromOpenAPI), so the node's format is not stripped as it is for custom
/// resources. The CRD reader refuses a type OpenAPI does not have (`null`, `foo`: a CRD the API
/// server refuses anyway, see `standard`), but upstream still validates a default against it:
/// such types are read as strings, and the node's own given back. (Below the node, formats and
/// such types are as the reader takes them.)
fn read_for_default(
    s: &Value,
    p: &FieldPath,
    minor: u32,
) -> Result<crd_schema::Schema, crd_schema::SchemaError> {
    let mut readable = s.clone();
    retype_unknown(&mut readable, 0);
    let mut schema = crd_schema::read(&readable, p.as_str(), minor)?;
    let t = ty(s);
    if !t.is_empty() && !OPENAPI_TYPES.contains(&t) {
        schema.types = vec![t.to_owned()];
    }
    schema.format = str_of(s, "format").to_owned();
    Ok(schema)
}

/// Every type OpenAPI does not have, in `s` and below, made `string`.
fn retype_unknown(s: &mut Value, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let Some(m) = s.as_object_mut() else {
        return;
    };
    if let Some(Value::String(t)) = m.get("type")
        && !t.is_empty()
        && !OPENAPI_TYPES.contains(&t.as_str())
    {
        m.insert("type".to_owned(), Value::from("string"));
    }
    for (key, v) in m.iter_mut() {
        match (key.as_str(), v) {
            (
                "properties" | "patternProperties" | "definitions" | "dependencies",
                Value::Object(c),
            ) => {
                for x in c.values_mut() {
                    retype_unknown(x, depth + 1);
                }
            }
            ("allOf" | "anyOf" | "oneOf" | "items", Value::Array(a)) => {
                for x in a {
                    retype_unknown(x, depth + 1);
                }
            }
            ("items" | "not" | "additionalProperties" | "additionalItems", x) => {
                retype_unknown(x, depth + 1);
            }
            _ => {}
        }
    }
}

/// A field error of a value validated at the root moved under `base` (kubeOpenAPIResultToFieldErrors
/// with `base` as the path).
fn rebase(mut e: Diagnostic, base: &FieldPath) -> Diagnostic {
    let old = e.field.clone();
    let new = if old == "<nil>" || old.is_empty() {
        base.as_str().to_owned()
    } else {
        format!("{}.{old}", base.as_str())
    };
    if let Some(rest) = e.message.strip_prefix(old.as_str()) {
        e.message = format!("{new}{rest}");
    }
    e.field = new;
    e
}
