//! ConfigMap and Secret (v1) on create: `ValidateConfigMap` and `ValidateSecret`
//! (pkg/apis/core/validation/validation.go) after the v1 defaulting (SetDefaults_Secret: type
//! `Opaque`) and conversion (a Secret's `stringData` merged over `data`); the strategies'
//! PrepareForCreate drop no field on create. ObjectMeta is meta.rs's.

use super::Ctx;
use crate::diag::{Diagnostic, FieldPath, Findings};
use base64::Engine as _;
use serde_json::Value;

/// core.MaxSecretSize: 1 MiB, for a ConfigMap's data too.
const MAX_SIZE: usize = 1024 * 1024;

/// IsConfigMapKey's messages.
pub(crate) fn config_key_errors(key: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if key.len() > 253 {
        errs.push("must be no more than 253 characters".to_owned());
    }
    if key.is_empty()
        || !key
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_'))
    {
        errs.push(super::meta::regex_error(
            "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
            "[-._a-zA-Z0-9]+",
            &["key.name", "KEY_NAME", "key-name"],
        ));
    }
    if key == "." {
        errs.push("must not be '.'".to_owned());
    } else if key == ".." {
        errs.push("must not be '..'".to_owned());
    } else if key.starts_with("..") {
        errs.push("must not start with '..'".to_owned());
    }
    errs
}

fn entries(v: Option<&Value>) -> Vec<(&str, &Value)> {
    v.and_then(Value::as_object)
        .map(|m| m.iter().map(|(k, v)| (k.as_str(), v)).collect())
        .unwrap_or_default()
}

/// ValidateConfigMap (after ObjectMeta).
// Kept out of its caller: see `validate::workloads::validate_kind`.
#[inline(never)]
pub(super) fn validate_config_map(obj: &Value, _ctx: &Ctx, out: &mut Findings) {
    let data = entries(obj.get("data"));
    let binary = entries(obj.get("binaryData"));
    let dp = FieldPath::new("data");
    let mut total = 0usize;
    for (k, v) in &data {
        for m in config_key_errors(k) {
            out.push(Diagnostic::invalid(&dp.key(k), *k, m));
        }
        if binary.iter().any(|(b, _)| b == k) {
            out.push(Diagnostic::invalid(
                &dp.key(k),
                *k,
                "duplicate of key present in binaryData",
            ));
        }
        total += v.as_str().map_or(0, str::len);
    }
    let bp = FieldPath::new("binaryData");
    for (k, v) in &binary {
        for m in config_key_errors(k) {
            out.push(Diagnostic::invalid(&bp.key(k), *k, m));
        }
        total += decoded(v).map_or(0, |b| b.len());
    }
    if total > MAX_SIZE {
        // field.NewPath("") prints as `[]` (a root with no name).
        out.push(Diagnostic::too_long(&FieldPath::new("[]"), "", MAX_SIZE));
    }
}

/// The bytes of a `[]byte` member (base64 in JSON; the decoding pass refused bad base64).
fn decoded(v: &Value) -> Option<Vec<u8>> {
    base64::engine::general_purpose::STANDARD
        .decode(v.as_str()?)
        .ok()
}

/// ValidateSecret (after ObjectMeta), on the Secret as converted: `stringData` over `data`.
// Kept out of its caller: see `validate::workloads::validate_kind`.
#[inline(never)]
pub(super) fn validate_secret(obj: &Value, ctx: &Ctx, out: &mut Findings) {
    let mut data: Vec<(String, Vec<u8>)> = entries(obj.get("data"))
        .into_iter()
        .map(|(k, v)| (k.to_owned(), decoded(v).unwrap_or_default()))
        .collect();
    for (k, v) in entries(obj.get("stringData")) {
        let bytes = v.as_str().unwrap_or("").as_bytes().to_vec();
        match data.iter_mut().find(|(d, _)| d == k) {
            Some(slot) => slot.1 = bytes,
            None => data.push((k.to_owned(), bytes)),
        }
    }
    let dp = FieldPath::new("data");
    let mut total = 0usize;
    for (k, v) in &data {
        for m in config_key_errors(k) {
            out.push(Diagnostic::invalid(&dp.key(k), k.as_str(), m));
        }
        total += v.len();
    }
    if total > MAX_SIZE {
        out.push(Diagnostic::too_long(&dp, "", MAX_SIZE));
    }
    let mut kind = obj.get("type").and_then(Value::as_str).unwrap_or("");
    if kind.is_empty() && !ctx.skip_defaulting {
        kind = "Opaque";
    }
    let get = |k: &str| data.iter().find(|(d, _)| d == k).map(|(_, v)| v.as_slice());
    match kind {
        "kubernetes.io/service-account-token" => {
            const KEY: &str = "kubernetes.io/service-account.name";
            let name = obj
                .get("metadata")
                .and_then(|m| m.get("annotations"))
                .and_then(|a| a.get(KEY))
                .and_then(Value::as_str)
                .unwrap_or("");
            if name.is_empty() {
                out.push(Diagnostic::required(
                    &FieldPath::new("metadata").child("annotations").key(KEY),
                    "",
                ));
            }
        }
        "kubernetes.io/dockercfg" | "kubernetes.io/dockerconfigjson" => {
            let key = if kind == "kubernetes.io/dockercfg" {
                ".dockercfg"
            } else {
                ".dockerconfigjson"
            };
            match get(key) {
                None => out.push(Diagnostic::required(&dp.key(key), "")),
                Some(bytes) => {
                    if let Some(e) = go_json_object_error(bytes) {
                        out.push(Diagnostic::invalid(
                            &dp.key(key),
                            "<secret contents redacted>",
                            e,
                        ));
                    }
                }
            }
        }
        "kubernetes.io/basic-auth" if get("username").is_none() && get("password").is_none() => {
            out.push(Diagnostic::required(&dp.key("username"), ""));
            out.push(Diagnostic::required(&dp.key("password"), ""));
        }
        "kubernetes.io/ssh-auth" if get("ssh-privatekey").is_none_or(<[u8]>::is_empty) => {
            out.push(Diagnostic::required(&dp.key("ssh-privatekey"), ""));
        }
        "kubernetes.io/tls" => {
            for key in ["tls.crt", "tls.key"] {
                if get(key).is_none() {
                    out.push(Diagnostic::required(&dp.key(key), ""));
                }
            }
        }
        _ => {}
    }
}

/// Go's json.Unmarshal of `bytes` into a `map[string]interface{}`: its error text, if any
/// (encoding/json's scanner for syntax errors, then the top-level type).
fn go_json_object_error(bytes: &[u8]) -> Option<String> {
    if let Err(e) = go_json_scan(bytes) {
        return Some(e);
    }
    let first = bytes
        .iter()
        .copied()
        .find(|c| !matches!(c, b' ' | b'\t' | b'\r' | b'\n'))?;
    let what = match first {
        b'{' | b'n' => return None,
        b'[' => "array",
        b'"' => "string",
        b't' | b'f' => "bool",
        _ => "number",
    };
    Some(format!(
        "json: cannot unmarshal {what} into Go value of type map[string]interface {{}}"
    ))
}

/// encoding/json's quoteChar.
fn quote_char(c: u8) -> String {
    match c {
        b'\'' => "'\\''".to_owned(),
        b'"' => "'\"'".to_owned(),
        _ => {
            let q = super::job::go_quote(&char::from(c).to_string());
            let inner = q
                .strip_prefix('"')
                .and_then(|r| r.strip_suffix('"'))
                .unwrap_or(&q);
            format!("'{inner}'")
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum St {
    BeginValue,
    BeginValueOrEmpty,
    BeginStringOrEmpty,
    BeginString,
    EndValue,
    EndTop,
    InString,
    InStringEsc,
    U(u8),
    Neg,
    One,
    Zero,
    Dot,
    Dot0,
    E,
    ESign,
    E0,
    Lit(&'static [u8], usize, &'static str),
}

#[derive(Clone, Copy, PartialEq)]
enum Frame {
    ObjectKey,
    ObjectValue,
    ArrayValue,
}

/// encoding/json's checkValid: Ok, or the SyntaxError's message.
fn go_json_scan(bytes: &[u8]) -> Result<(), String> {
    let mut st = St::BeginValue;
    let mut stack: Vec<Frame> = Vec::new();
    let err = |c: u8, ctx: &str| Err(format!("invalid character {} {ctx}", quote_char(c)));
    let space = |c: u8| matches!(c, b' ' | b'\t' | b'\r' | b'\n');
    let mut i = 0;
    // `eof`: one more space is stepped through at the end, as scanner.eof does.
    while i <= bytes.len() {
        let at_eof = i == bytes.len();
        let c = bytes.get(i).copied().unwrap_or(b' ');
        if at_eof && st == St::EndTop {
            return Ok(());
        }
        let mut redo = true;
        while redo {
            redo = false;
            st = match st {
                St::BeginValueOrEmpty if space(c) => st,
                St::BeginValueOrEmpty if c == b']' => {
                    redo = true;
                    St::EndValue
                }
                St::BeginValueOrEmpty => {
                    redo = true;
                    St::BeginValue
                }
                St::BeginValue => match c {
                    _ if space(c) => st,
                    b'{' => {
                        stack.push(Frame::ObjectKey);
                        St::BeginStringOrEmpty
                    }
                    b'[' => {
                        stack.push(Frame::ArrayValue);
                        St::BeginValueOrEmpty
                    }
                    b'"' => St::InString,
                    b'-' => St::Neg,
                    b'0' => St::Zero,
                    b't' => St::Lit(b"rue", 0, "true"),
                    b'f' => St::Lit(b"alse", 0, "false"),
                    b'n' => St::Lit(b"ull", 0, "null"),
                    b'1'..=b'9' => St::One,
                    _ => return err(c, "looking for beginning of value"),
                },
                St::BeginStringOrEmpty if space(c) => st,
                St::BeginStringOrEmpty if c == b'}' => {
                    if let Some(f) = stack.last_mut() {
                        *f = Frame::ObjectValue;
                    }
                    redo = true;
                    St::EndValue
                }
                St::BeginStringOrEmpty => {
                    redo = true;
                    St::BeginString
                }
                St::BeginString => match c {
                    _ if space(c) => st,
                    b'"' => St::InString,
                    _ => return err(c, "looking for beginning of object key string"),
                },
                St::EndValue => match stack.last().copied() {
                    None => {
                        redo = true;
                        St::EndTop
                    }
                    Some(_) if space(c) => st,
                    Some(Frame::ObjectKey) if c == b':' => {
                        if let Some(f) = stack.last_mut() {
                            *f = Frame::ObjectValue;
                        }
                        St::BeginValue
                    }
                    Some(Frame::ObjectKey) => return err(c, "after object key"),
                    Some(Frame::ObjectValue) => match c {
                        b',' => {
                            if let Some(f) = stack.last_mut() {
                                *f = Frame::ObjectKey;
                            }
                            St::BeginString
                        }
                        b'}' => {
                            stack.pop();
                            St::EndValue
                        }
                        _ => return err(c, "after object key:value pair"),
                    },
                    Some(Frame::ArrayValue) => match c {
                        b',' => St::BeginValue,
                        b']' => {
                            stack.pop();
                            St::EndValue
                        }
                        _ => return err(c, "after array element"),
                    },
                },
                St::EndTop => {
                    if !space(c) {
                        return err(c, "after top-level value");
                    }
                    st
                }
                St::InString => match c {
                    b'"' => St::EndValue,
                    b'\\' => St::InStringEsc,
                    c if c < 0x20 => return err(c, "in string literal"),
                    _ => st,
                },
                St::InStringEsc => match c {
                    b'b' | b'f' | b'n' | b'r' | b't' | b'\\' | b'/' | b'"' => St::InString,
                    b'u' => St::U(0),
                    _ => return err(c, "in string escape code"),
                },
                St::U(n) => {
                    if !c.is_ascii_hexdigit() {
                        return err(c, "in \\u hexadecimal character escape");
                    }
                    if n == 3 { St::InString } else { St::U(n + 1) }
                }
                St::Neg => match c {
                    b'0' => St::Zero,
                    b'1'..=b'9' => St::One,
                    _ => return err(c, "in numeric literal"),
                },
                St::One if c.is_ascii_digit() => st,
                St::One | St::Zero => match c {
                    b'.' => St::Dot,
                    b'e' | b'E' => St::E,
                    _ => {
                        redo = true;
                        St::EndValue
                    }
                },
                St::Dot => {
                    if c.is_ascii_digit() {
                        St::Dot0
                    } else {
                        return err(c, "after decimal point in numeric literal");
                    }
                }
                St::Dot0 => match c {
                    b'0'..=b'9' => st,
                    b'e' | b'E' => St::E,
                    _ => {
                        redo = true;
                        St::EndValue
                    }
                },
                St::E if c == b'+' || c == b'-' => St::ESign,
                St::E | St::ESign => {
                    if c.is_ascii_digit() {
                        St::E0
                    } else {
                        return err(c, "in exponent of numeric literal");
                    }
                }
                St::E0 if c.is_ascii_digit() => st,
                St::E0 => {
                    redo = true;
                    St::EndValue
                }
                St::Lit(rest, k, word) => {
                    let want = rest.get(k).copied().unwrap_or(b' ');
                    if c != want {
                        return err(
                            c,
                            &format!("in literal {word} (expecting {})", quote_char(want)),
                        );
                    }
                    if k + 1 == rest.len() {
                        St::EndValue
                    } else {
                        St::Lit(rest, k + 1, word)
                    }
                }
            };
        }
        if at_eof {
            return if st == St::EndTop {
                Ok(())
            } else {
                Err("unexpected end of JSON input".to_owned())
            };
        }
        i += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn msgs(f: impl Fn(&Value, &Ctx, &mut Findings), obj: Value) -> Vec<String> {
        let mut out = Findings::default();
        f(&obj, &Ctx::default(), &mut out);
        out.errors.iter().map(|d| d.message.clone()).collect()
    }

    #[test]
    fn config_keys() {
        assert!(config_key_errors("app.properties").is_empty());
        assert_eq!(config_key_errors(".."), ["must not be '..'"]);
        assert_eq!(config_key_errors("..data"), ["must not start with '..'"]);
        assert_eq!(config_key_errors("a/b").len(), 1);
        assert_eq!(config_key_errors("").len(), 1);
    }

    #[test]
    fn config_map() {
        assert_eq!(
            msgs(
                validate_config_map,
                json!({"data": {"a": "x", "b c": "y"}, "binaryData": {"a": "eA=="}})
            ),
            [
                "data[a]: Invalid value: \"a\": duplicate of key present in binaryData",
                "data[b c]: Invalid value: \"b c\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
            ]
        );
        let big = "x".repeat(MAX_SIZE);
        assert_eq!(
            msgs(validate_config_map, json!({"data": {"a": big, "b": "y"}})),
            ["[]: Too long: may not be more than 1048576 bytes"]
        );
    }

    #[test]
    fn secret_types() {
        assert_eq!(
            msgs(validate_secret, json!({"type": "kubernetes.io/tls", "data": {"tls.crt": ""}})),
            ["data[tls.key]: Required value"]
        );
        assert!(
            msgs(
                validate_secret,
                json!({"type": "kubernetes.io/tls", "data": {"tls.crt": ""}, "stringData": {"tls.key": "k"}})
            )
            .is_empty()
        );
        assert_eq!(
            msgs(validate_secret, json!({"type": "kubernetes.io/basic-auth"})),
            [
                "data[username]: Required value",
                "data[password]: Required value"
            ]
        );
        assert_eq!(
            msgs(
                validate_secret,
                json!({"type": "kubernetes.io/dockerconfigjson", "stringData": {".dockerconfigjson": "{\"auths\": }"}})
            ),
            [
                "data[.dockerconfigjson]: Invalid value: \"<secret contents redacted>\": invalid character '}' looking for beginning of value"
            ]
        );
        assert_eq!(
            msgs(validate_secret, json!({"type": "kubernetes.io/service-account-token"})),
            ["metadata.annotations[kubernetes.io/service-account.name]: Required value"]
        );
    }

    #[test]
    fn go_json_errors() {
        let e = |s: &str| go_json_object_error(s.as_bytes());
        assert_eq!(e("{\"a\": [1, 2.5e3, true, null, \"x\\u00e9\"]}"), None);
        assert_eq!(e("null"), None);
        assert_eq!(e("").unwrap(), "unexpected end of JSON input");
        assert_eq!(e("{\"a\":").unwrap(), "unexpected end of JSON input");
        assert_eq!(e("{\"a\" 1}").unwrap(), "invalid character '1' after object key");
        assert_eq!(
            e("{\"a\":1 \"b\"}").unwrap(),
            "invalid character '\"' after object key:value pair"
        );
        assert_eq!(
            e("{a:1}").unwrap(),
            "invalid character 'a' looking for beginning of object key string"
        );
        assert_eq!(e("{} x").unwrap(), "invalid character 'x' after top-level value");
        // At the end the scanner steps one space through: a literal or number cut short
        // names it (scanner.eof).
        assert_eq!(
            e("tru").unwrap(),
            "invalid character ' ' in literal true (expecting 'e')"
        );
        assert_eq!(e("\"ab").unwrap(), "unexpected end of JSON input");
        assert_eq!(
            e("trux").unwrap(),
            "invalid character 'x' in literal true (expecting 'e')"
        );
        assert_eq!(
            e("[1,2]").unwrap(),
            "json: cannot unmarshal array into Go value of type map[string]interface {}"
        );
        assert_eq!(
            e("12").unwrap(),
            "json: cannot unmarshal number into Go value of type map[string]interface {}"
        );
        assert_eq!(e("01").unwrap(), "invalid character '1' after top-level value");
        assert_eq!(
            e("1.").unwrap(),
            "invalid character ' ' after decimal point in numeric literal"
        );
        assert_eq!(
            e("\"a\tb\"").unwrap(),
            "invalid character '\\t' in string literal"
        );
    }
}
