//! `ValidateCustomResourceDefinitionOpenAPISchema`'s walk of a CRD schema: the OpenAPI
//! members Kubernetes does not support (specStandardValidatorV3), uniqueItems,
//! additionalProperties beside properties, defaults where they cannot be pruned, list and map
//! types and list-map keys, and the static checks of `x-kubernetes-validations`; after them, where
//! the schema is structural with valid defaults, what follows the rules' compilation that
//! restartkit can say without cel-go.

use super::super::crd_schema::go::{json, quote};
use super::super::json_read::{list, opt, str_of, strings};
use super::props::{
    MAX_DEPTH, META_FIELDS, OPENAPI_TYPES, REASONS, convertible, field_path, flag, has_properties,
    pointer_str, properties, ty,
};
use crate::diag::{Diagnostic, FieldPath};
use crate::versions::Change;
use serde_json::Value;

/// specStandardValidatorV3's state.
#[derive(Clone)]
pub(super) struct Ssv {
    allow_defaults: bool,
    disallow_reason: String,
    inside_meta: bool,
    /// The first ancestor that cannot be correlated between revisions (for `oldSelf`).
    uncorrelatable: Option<String>,
}

impl Ssv {
    pub(super) fn root() -> Ssv {
        Ssv {
            allow_defaults: true,
            disallow_reason: String::new(),
            inside_meta: false,
            uncorrelatable: None,
        }
    }
    fn forbid_defaults(&self, reason: &str) -> Ssv {
        Ssv {
            allow_defaults: false,
            disallow_reason: reason.to_owned(),
            ..self.clone()
        }
    }
    fn forbid_old_self(&self, p: &FieldPath) -> Ssv {
        let mut s = self.clone();
        if s.uncorrelatable.is_none() {
            s.uncorrelatable = Some(p.as_str().to_owned());
        }
        s
    }
}

#[derive(Default)]
pub(super) struct Walk {
    pub(super) schema: Vec<Diagnostic>,
    pub(super) cel: Vec<Diagnostic>,
}

pub(super) struct Walker {
    pub(super) ratcheting: bool,
    pub(super) minor: u32,
}

impl Walker {
    fn invalid_str(&self, p: &FieldPath, v: &str, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::invalid_printed(p, Value::from(v), &quote(v), msg)
    }

    /// ValidateCustomResourceDefinitionOpenAPISchema.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn walk(
        &self,
        s: &Value,
        p: &FieldPath,
        ssv: &Ssv,
        is_root: bool,
        cel: bool,
        depth: usize,
        w: &mut Walk,
    ) {
        if depth > MAX_DEPTH || !s.is_object() {
            return;
        }
        let before = w.schema.len();
        self.standard(s, p, ssv, &mut w.schema);
        if flag(s, "uniqueItems") {
            w.schema.push(Diagnostic::forbidden(
                &p.child("uniqueItems"),
                "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
            ));
        }
        if let Some(ap) = opt(s, "additionalProperties") {
            if has_properties(s) && (ap == &Value::Bool(false) || ap.is_object()) {
                w.schema.push(Diagnostic::forbidden(
                    &p.child("additionalProperties"),
                    "additionalProperties and properties are mutual exclusive",
                ));
            }
            let sub = if ssv.inside_meta {
                ssv.forbid_defaults("inside additionalProperties applying to object metadata")
            } else {
                ssv.clone()
            };
            self.walk(
                ap,
                &p.child("additionalProperties"),
                &sub,
                false,
                cel,
                depth + 1,
                w,
            );
        }
        if let Some(props) = properties(s) {
            let map_type = opt(s, "x-kubernetes-map-type").map(|v| v.as_str().unwrap_or(""));
            let correlatable = matches!(map_type, None | Some("granular" | "atomic"));
            for (k, v) in props {
                let mut sub = ssv.clone();
                if !correlatable {
                    sub = sub.forbid_old_self(p);
                }
                if (is_root || flag(s, "x-kubernetes-embedded-resource"))
                    && META_FIELDS.contains(&k.as_str())
                {
                    sub.inside_meta = true;
                    if is_root {
                        sub = sub.forbid_defaults(&format!("in top-level {k}"));
                    }
                }
                self.walk(
                    v,
                    &p.child("properties").key(k),
                    &sub,
                    false,
                    cel,
                    depth + 1,
                    w,
                );
            }
        }
        if let Some(not) = opt(s, "not") {
            self.walk(not, &p.child("not"), ssv, false, false, depth + 1, w);
        }
        for key in ["allOf", "oneOf", "anyOf"] {
            for (i, x) in list(s, key).iter().enumerate() {
                self.walk(x, &p.child(key).index(i), ssv, false, false, depth + 1, w);
            }
        }
        if let Some(defs) = s.get("definitions").and_then(Value::as_object) {
            for (k, v) in defs {
                self.walk(
                    v,
                    &p.child("definitions").key(k),
                    ssv,
                    false,
                    false,
                    depth + 1,
                    w,
                );
            }
        }
        if let Some(items) = opt(s, "items") {
            let sub = if str_of(s, "x-kubernetes-list-type") == "map" {
                ssv.clone()
            } else {
                ssv.forbid_old_self(p)
            };
            match items {
                Value::Array(a) => {
                    for (i, x) in a.iter().enumerate() {
                        self.walk(
                            x,
                            &p.child("items").index(i),
                            &sub,
                            false,
                            cel,
                            depth + 1,
                            w,
                        );
                    }
                }
                x => self.walk(x, &p.child("items"), &sub, false, cel, depth + 1, w),
            }
        }
        if let Some(deps) = s.get("dependencies").and_then(Value::as_object) {
            for (k, v) in deps {
                self.walk(
                    v,
                    &p.child("dependencies").key(k),
                    ssv,
                    false,
                    false,
                    depth + 1,
                    w,
                );
            }
        }
        self.extensions(s, p, &mut w.schema);
        self.rules(s, p, &mut w.schema);
        if w.schema.len() == before && cel {
            self.compiled_rules(s, p, ssv, &mut w.cel);
        }
    }

    /// specStandardValidatorV3.validate.
    fn standard(&self, s: &Value, p: &FieldPath, ssv: &Ssv, out: &mut Vec<Diagnostic>) {
        let t = ty(s);
        if !t.is_empty() && !OPENAPI_TYPES.contains(&t) {
            out.push(Diagnostic::not_supported(
                &p.child("type"),
                t,
                &OPENAPI_TYPES,
            ));
        }
        if opt(s, "default").is_some() && !ssv.allow_defaults {
            let mut detail = "must not be set".to_owned();
            if !ssv.disallow_reason.is_empty() {
                detail.push(' ');
                detail.push_str(&ssv.disallow_reason);
            }
            out.push(Diagnostic::forbidden(&p.child("default"), detail));
        }
        // A pointer or map member counts once it is there, even empty; `id` once non-empty.
        let present = |key: &str| opt(s, key).is_some();
        if !str_of(s, "id").is_empty() {
            out.push(Diagnostic::forbidden(&p.child("id"), "id is not supported"));
        }
        if present("additionalItems") {
            out.push(Diagnostic::forbidden(
                &p.child("additionalItems"),
                "additionalItems is not supported",
            ));
        }
        if s.get("patternProperties")
            .and_then(Value::as_object)
            .is_some_and(|m| !m.is_empty())
        {
            out.push(Diagnostic::forbidden(
                &p.child("patternProperties"),
                "patternProperties is not supported",
            ));
        }
        if s.get("definitions")
            .and_then(Value::as_object)
            .is_some_and(|m| !m.is_empty())
        {
            out.push(Diagnostic::forbidden(
                &p.child("definitions"),
                "definitions is not supported",
            ));
        }
        if present("dependencies") {
            out.push(Diagnostic::forbidden(
                &p.child("dependencies"),
                "dependencies is not supported",
            ));
        }
        if present("$ref") {
            out.push(Diagnostic::forbidden(
                &p.child("$ref"),
                "$ref is not supported",
            ));
        }
        if t == "null" {
            out.push(Diagnostic::forbidden(
                &p.child("type"),
                "type cannot be set to null, use nullable as an alternative",
            ));
        }
        if s.get("items")
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty())
        {
            out.push(Diagnostic::forbidden(
                &p.child("items"),
                "items must be a schema object and not an array",
            ));
        }
        if ssv.inside_meta && flag(s, "x-kubernetes-embedded-resource") {
            out.push(Diagnostic::forbidden(
                &p.child("x-kubernetes-embedded-resource"),
                "must not be used inside of resource meta",
            ));
        }
    }

    /// The x-kubernetes-* member checks of the walk.
    fn extensions(&self, s: &Value, p: &FieldPath, out: &mut Vec<Diagnostic>) {
        let t = ty(s);
        if s.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(false)) {
            out.push(Diagnostic::invalid(
                &p.child("x-kubernetes-preserve-unknown-fields"),
                false,
                "must be true or undefined",
            ));
        }
        let map_type = opt(s, "x-kubernetes-map-type").map(|v| v.as_str().unwrap_or(""));
        if map_type.is_some() && t != "object" {
            let msg = "must be object if x-kubernetes-map-type is specified";
            out.push(if t.is_empty() {
                Diagnostic::required(&p.child("type"), msg)
            } else {
                self.invalid_str(&p.child("type"), t, msg)
            });
        }
        if let Some(m) = map_type
            && m != "atomic"
            && m != "granular"
        {
            out.push(Diagnostic::not_supported(
                &p.child("x-kubernetes-map-type"),
                m,
                &["atomic", "granular"],
            ));
        }
        let list_type = opt(s, "x-kubernetes-list-type").map(|v| v.as_str().unwrap_or(""));
        let item = opt(s, "items").filter(|i| i.is_object());
        if list_type.is_some() && t != "array" {
            let msg = "must be array if x-kubernetes-list-type is specified";
            out.push(if t.is_empty() {
                Diagnostic::required(&p.child("type"), msg)
            } else {
                self.invalid_str(&p.child("type"), t, msg)
            });
        } else if list_type == Some("set")
            && let Some(is) = item
        {
            let msg = "must be atomic as item of a list with x-kubernetes-list-type=set";
            let list_type_of_item = opt(is, "x-kubernetes-list-type");
            match ty(is) {
                "array" if list_type_of_item.is_some_and(|l| l.as_str() != Some("atomic")) => {
                    let v = list_type_of_item.and_then(Value::as_str);
                    out.push(Diagnostic::invalid_printed(
                        &p.child("items").child("x-kubernetes-list-type"),
                        v.map_or(Value::Null, Value::from),
                        &pointer_str(v, self.minor),
                        msg,
                    ));
                }
                // Upstream's value here is the item's list type, not its map type.
                "object" if str_of(is, "x-kubernetes-map-type") != "atomic" => {
                    let v = list_type_of_item.and_then(Value::as_str);
                    out.push(Diagnostic::invalid_printed(
                        &p.child("items").child("x-kubernetes-map-type"),
                        v.map_or(Value::Null, Value::from),
                        &pointer_str(v, self.minor),
                        msg,
                    ));
                }
                _ => {}
            }
        }
        if let Some(l) = list_type
            && !matches!(l, "atomic" | "set" | "map")
        {
            out.push(Diagnostic::not_supported(
                &p.child("x-kubernetes-list-type"),
                l,
                &["atomic", "set", "map"],
            ));
        }
        let keys = strings(s, "x-kubernetes-list-map-keys");
        if !keys.is_empty() {
            let msg = "must be map if x-kubernetes-list-map-keys is non-empty";
            match list_type {
                None => out.push(Diagnostic::required(
                    &p.child("x-kubernetes-list-type"),
                    msg,
                )),
                Some(l) if l != "map" => {
                    out.push(self.invalid_str(&p.child("x-kubernetes-list-type"), l, msg))
                }
                _ => {}
            }
        }
        let keys_value = || Value::from(keys.clone());
        let keys_printed = || json(&keys_value());
        if list_type == Some("map") {
            if keys.is_empty() {
                out.push(Diagnostic::required(
                    &p.child("x-kubernetes-list-map-keys"),
                    "must not be empty if x-kubernetes-list-type is map",
                ));
            }
            match opt(s, "items") {
                None => out.push(Diagnostic::required(
                    &p.child("items"),
                    "must have a schema if x-kubernetes-list-type is map",
                )),
                Some(i) if !i.is_object() => out.push(Diagnostic::invalid_printed(
                    &p.child("items"),
                    i.clone(),
                    &json(i),
                    "must only have a single schema if x-kubernetes-list-type is map",
                )),
                Some(_) => {}
            }
            if let Some(is) = item {
                let it = ty(is);
                if it != "object" {
                    out.push(self.invalid_str(
                        &p.child("items").child("type"),
                        it,
                        "must be object if parent array's x-kubernetes-list-type is map",
                    ));
                } else {
                    let props = properties(is);
                    let mut seen = std::collections::BTreeSet::new();
                    for k in &keys {
                        match props.and_then(|m| m.get(*k)) {
                            Some(kp) => {
                                if matches!(ty(kp), "array" | "object") {
                                    // Upstream prints the item's type, not the key's.
                                    out.push(self.invalid_str(
                                        &p.child("items").child("properties").key(k).child("type"),
                                        it,
                                        "must be a scalar type if parent array's x-kubernetes-list-type is map",
                                    ));
                                }
                            }
                            None => out.push(Diagnostic::invalid_printed(
                                &p.child("x-kubernetes-list-map-keys"),
                                keys_value(),
                                &keys_printed(),
                                "entries must all be names of item properties",
                            )),
                        }
                        if !seen.insert(*k) {
                            out.push(Diagnostic::invalid_printed(
                                &p.child("x-kubernetes-list-map-keys"),
                                keys_value(),
                                &keys_printed(),
                                "must not contain duplicate entries",
                            ));
                        }
                    }
                }
            }
        }
        // validateMapListKeysMapSet.
        if let (Some(is), Some(l @ ("set" | "map"))) = (item, list_type) {
            if flag(is, "nullable") {
                out.push(Diagnostic::forbidden(
                    &p.child("items").child("nullable"),
                    format!("cannot be nullable when x-kubernetes-list-type is {l}"),
                ));
            }
            if l == "map" {
                let required = strings(is, "required");
                for k in &keys {
                    let Some(kp) = properties(is).and_then(|m| m.get(*k)) else {
                        continue;
                    };
                    let kpath = p.child("items").child("properties").key(k);
                    if !required.contains(k) && opt(kp, "default").is_none() {
                        out.push(Diagnostic::required(
                            &kpath.child("default"),
                            "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
                        ));
                    }
                    if flag(kp, "nullable") {
                        out.push(Diagnostic::forbidden(
                            &kpath.child("nullable"),
                            "this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
                        ));
                    }
                }
            }
        }
    }

    /// The static checks of each `x-kubernetes-validations` rule.
    fn rules(&self, s: &Value, p: &FieldPath, out: &mut Vec<Diagnostic>) {
        let short = Change::CrdMessagesShortened.at(self.minor);
        let worded = |what: &str, msg: &str| {
            if short {
                msg.to_owned()
            } else {
                format!("{what} {msg}")
            }
        };
        let newlines = |x: &str| x.contains(['\n', '\r']);
        for (i, rule) in list(s, "x-kubernetes-validations").iter().enumerate() {
            let rp = p.child("x-kubernetes-validations").index(i);
            let text = str_of(rule, "rule");
            let message = str_of(rule, "message");
            let (t_rule, t_msg) = (text.trim(), message.trim());
            if t_rule.is_empty() {
                out.push(Diagnostic::required(
                    &rp.child("rule"),
                    "rule is not specified",
                ));
            } else if !message.is_empty() && t_msg.is_empty() {
                out.push(self.invalid_str(
                    &rp.child("message"),
                    message,
                    worded("message", "must be non-empty if specified"),
                ));
            } else if newlines(t_msg) {
                out.push(self.invalid_str(
                    &rp.child("message"),
                    message,
                    worded("message", "must not contain line breaks"),
                ));
            } else if newlines(t_rule) && t_msg.is_empty() {
                out.push(Diagnostic::required(
                    &rp.child("message"),
                    "message must be specified if rule contains line breaks",
                ));
            }
            let expr = str_of(rule, "messageExpression");
            if !expr.is_empty() && expr.trim().is_empty() {
                out.push(Diagnostic::required(
                    &rp.child("messageExpression"),
                    "messageExpression must be non-empty if specified",
                ));
            }
            if let Some(reason) = opt(rule, "reason").map(|r| r.as_str().unwrap_or(""))
                && !REASONS.contains(&reason)
            {
                out.push(Diagnostic::not_supported(
                    &rp.child("reason"),
                    reason,
                    &REASONS,
                ));
            }
            let fp = str_of(rule, "fieldPath");
            if !fp.is_empty() && fp.trim().is_empty() {
                out.push(self.invalid_str(
                    &rp.child("fieldPath"),
                    fp,
                    worded("fieldPath", "must be non-empty if specified"),
                ));
            }
            if newlines(fp) {
                out.push(self.invalid_str(
                    &rp.child("fieldPath"),
                    fp,
                    worded("fieldPath", "must not contain line breaks"),
                ));
            }
            if !fp.is_empty() && convertible(s) && field_path(s, fp, true).is_err() {
                out.push(self.invalid_str(
                    &rp.child("fieldPath"),
                    fp,
                    worded("fieldPath", "must be a valid path"),
                ));
            }
        }
    }

    /// What follows the rules' compilation that restartkit can say without cel-go: a rule that
    /// does not use `oldSelf` may not set `optionalOldSelf`, and one that does may not sit below
    /// an uncorrelatable list or map. (Whether a rule uses `oldSelf` is read from its text.)
    fn compiled_rules(&self, s: &Value, p: &FieldPath, ssv: &Ssv, out: &mut Vec<Diagnostic>) {
        for (i, rule) in list(s, "x-kubernetes-validations").iter().enumerate() {
            let rp = p.child("x-kubernetes-validations").index(i);
            let text = str_of(rule, "rule");
            if uses_old_self(text) {
                if let Some(u) = &ssv.uncorrelatable {
                    out.push(self.invalid_str(
                        &rp.child("rule"),
                        text,
                        format!("oldSelf cannot be used on the uncorrelatable portion of the schema within {u}"),
                    ));
                }
            } else if self.ratcheting
                && let Some(o) = rule.get("optionalOldSelf").and_then(Value::as_bool)
            {
                out.push(Diagnostic::invalid(
                    &rp.child("optionalOldSelf"),
                    o,
                    "may not be set if oldSelf is not used in rule",
                ));
            }
        }
    }
}

/// Whether a rule names the `oldSelf` variable outside string literals.
fn uses_old_self(rule: &str) -> bool {
    let mut quote: Option<char> = None;
    let bytes: Vec<char> = rule.chars().collect();
    let mut i = 0;
    while let Some(&ch) = bytes.get(i) {
        match quote {
            Some(_) if ch == '\\' => i += 1,
            Some(q) if ch == q => quote = None,
            Some(_) => {}
            None if ch == '"' || ch == '\'' => quote = Some(ch),
            None => {
                let rest: String = bytes
                    .get(i..i + 7)
                    .map(|s| s.iter().collect())
                    .unwrap_or_default();
                let before = i.checked_sub(1).and_then(|j| bytes.get(j)).copied();
                let after = bytes.get(i + 7).copied();
                let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
                if rest == "oldSelf" && !ident(before) && !ident(after) {
                    return true;
                }
            }
        }
        i += 1;
    }
    false
}
