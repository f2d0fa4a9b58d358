//! What a YAML scalar becomes in the JSON that the API server decodes.
//!
//! kube-apiserver (the `application/yaml` serializer) and kubectl (`YAMLOrJSONDecoder`) turn YAML
//! into JSON with `sigs.k8s.io/yaml`, which reads it with go-yaml v2 (`go.yaml.in/yaml/v2`, YAML
//! 1.1 rules, `resolve.go`) and writes it with Go's `encoding/json`. So a plain `yes` is `true`,
//! `010` is 8, `1_000` is 1000, `6.0` arrives as the integer `6`, and a key `1.50` is the string
//! `"1.5"`. This module reproduces those rules; every case in its tests was checked against
//! `sigs.k8s.io/yaml` v1.6.0's `YAMLToJSON`.

use serde_json::{Number, Value};

/// A scalar as go-yaml v2 resolves it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Resolved {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    /// Includes integers beyond 64 bits written in decimal (go-yaml makes those floats too).
    Float(f64),
    /// An integer beyond 64 bits written with a base prefix: go-yaml keeps it as a big integer,
    /// which `serde_json::Value` cannot hold; it is carried as the nearest float.
    BigInt(f64),
    /// NaN or an infinity (`.nan`, `-.inf`): go-yaml reads them, `encoding/json` refuses them.
    NonFinite,
    /// The merge key `<<`.
    Merge,
    Str,
}

/// The standard tags go-yaml resolves by content (`resolvableTag`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CoreTag {
    Str,
    Bool,
    Int,
    Float,
    Null,
    Timestamp,
}

impl CoreTag {
    pub(super) fn from_suffix(suffix: &str) -> Option<CoreTag> {
        Some(match suffix {
            "str" => CoreTag::Str,
            "bool" => CoreTag::Bool,
            "int" => CoreTag::Int,
            "float" => CoreTag::Float,
            "null" => CoreTag::Null,
            "timestamp" => CoreTag::Timestamp,
            _ => return None,
        })
    }
}

/// The value of a plain scalar (go-yaml v2 `resolve` with no tag).
pub(super) fn resolve(s: &str) -> Resolved {
    // go-yaml's hint: only these first bytes can start anything but a string. Most keys and
    // values of a manifest (`apiVersion`, `spec`, `restartPolicy`, `Never`) stop here.
    if let Some(first) = s.as_bytes().first()
        && !matches!(
            first,
            b'y' | b'Y'
                | b'n'
                | b'N'
                | b't'
                | b'T'
                | b'f'
                | b'F'
                | b'o'
                | b'O'
                | b'~'
                | b'.'
                | b'+'
                | b'-'
                | b'0'..=b'9' | b'<'
        )
    {
        return Resolved::Str;
    }
    // The words below are at most 6 bytes long.
    if s.len() > 6 && !matches!(s.as_bytes().first(), Some(b'.' | b'+' | b'-' | b'0'..=b'9')) {
        return Resolved::Str;
    }
    match s {
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            return Resolved::Bool(true);
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            return Resolved::Bool(false);
        }
        "" | "~" | "null" | "Null" | "NULL" => return Resolved::Null,
        ".nan" | ".NaN" | ".NAN" | ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF"
        | "-.inf" | "-.Inf" | "-.INF" => return Resolved::NonFinite,
        "<<" => return Resolved::Merge,
        _ => {}
    }
    match s.as_bytes().first() {
        // go-yaml only tries a float here, with Go's float syntax.
        Some(b'.') => match go_float(s) {
            Some(f) => Resolved::Float(f),
            None => Resolved::Str,
        },
        Some(b'0'..=b'9' | b'+' | b'-') => resolve_number(s),
        _ => Resolved::Str,
    }
}

/// go-yaml's "int, float, or timestamp" branch. Timestamps stay strings for an untyped target,
/// and no timestamp reads as a number, so they need no case here.
fn resolve_number(s: &str) -> Resolved {
    // The common case first: a plain decimal that fits (no leading 0, which would be octal).
    let b = s.as_bytes();
    if b.len() <= 18
        && b.iter().all(u8::is_ascii_digit)
        && (b.len() == 1 || b.first() != Some(&b'0'))
        && let Ok(n) = s.parse::<i64>()
    {
        return Resolved::Int(n);
    }
    // Underscores are dropped before any number parse (YAML 1.1 allows `1_000`).
    let plain: std::borrow::Cow<'_, str> = if s.contains('_') {
        s.chars().filter(|&c| c != '_').collect::<String>().into()
    } else {
        s.into()
    };
    if let Ok(n) = go_parse_int(&plain) {
        return Resolved::Int(n);
    }
    let uint_error = match go_parse_uint(&plain) {
        Ok(n) => return Resolved::Uint(n),
        Err(e) => e,
    };
    if yaml_style_float(&plain)
        && let Ok(f) = plain.parse::<f64>()
        && f.is_finite()
    {
        return Resolved::Float(f);
    }
    // `0b` followed by a signed binary number (go-yaml's own binary branch).
    if let Some(rest) = plain.strip_prefix("0b") {
        if let Some(n) = signed_binary(rest) {
            return Resolved::Int(n);
        }
        if let Ok(n) = u64::from_str_radix(rest, 2)
            && !rest.starts_with('+')
        {
            return Resolved::Uint(n);
        }
    } else if let Some(rest) = plain.strip_prefix("-0b")
        && let Some(n) = signed_binary(&format!("-{rest}"))
    {
        return Resolved::Int(n);
    }
    if uint_error == NumError::Range
        && let Some(f) = big_integer(&plain)
    {
        return Resolved::BigInt(f);
    }
    Resolved::Str
}

/// `strconv.ParseInt(s, 2, 64)`: an optional sign, then binary digits.
fn signed_binary(s: &str) -> Option<i64> {
    let (neg, digits) = split_sign(s);
    if digits.is_empty() || !digits.bytes().all(|b| b == b'0' || b == b'1') {
        return None;
    }
    let magnitude = u64::from_str_radix(digits, 2).ok()?;
    signed(neg, magnitude).ok()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NumError {
    Syntax,
    Range,
}

fn split_sign(s: &str) -> (bool, &str) {
    if let Some(rest) = s.strip_prefix('-') {
        (true, rest)
    } else {
        (false, s.strip_prefix('+').unwrap_or(s))
    }
}

/// `strconv.ParseUint(s, 0, 64)` on a string without underscores: no sign; `0x`, `0o`, `0b`
/// (either case) or a leading `0` (octal) choose the base.
fn go_parse_uint(s: &str) -> Result<u64, NumError> {
    let (radix, digits) = match s.as_bytes() {
        [b'0', b'x' | b'X', ..] => (16, s.get(2..).unwrap_or("")),
        [b'0', b'o' | b'O', ..] => (8, s.get(2..).unwrap_or("")),
        [b'0', b'b' | b'B', ..] => (2, s.get(2..).unwrap_or("")),
        [b'0', _, ..] => (8, s.get(1..).unwrap_or("")),
        _ => (10, s),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return Err(NumError::Syntax);
    }
    u64::from_str_radix(digits, radix).map_err(|_| NumError::Range)
}

/// `strconv.ParseInt(s, 0, 64)`: an optional sign, then [`go_parse_uint`].
fn go_parse_int(s: &str) -> Result<i64, NumError> {
    let (neg, rest) = split_sign(s);
    signed(neg, go_parse_uint(rest)?)
}

fn signed(neg: bool, magnitude: u64) -> Result<i64, NumError> {
    if neg {
        if magnitude == 1 << 63 {
            Ok(i64::MIN)
        } else {
            i64::try_from(magnitude)
                .map(|n| -n)
                .map_err(|_| NumError::Range)
        }
    } else {
        i64::try_from(magnitude).map_err(|_| NumError::Range)
    }
}

/// go-yaml's `yamlStyleFloat`: `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn yaml_style_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'-' | b'+')));
    let digits = |from: usize| {
        b.iter()
            .skip(from)
            .take_while(|c| c.is_ascii_digit())
            .count()
    };
    if b.get(i) == Some(&b'.') {
        let n = digits(i + 1);
        if n == 0 {
            return false;
        }
        i += 1 + n;
    } else {
        let n = digits(i);
        if n == 0 {
            return false;
        }
        i += n;
        if b.get(i) == Some(&b'.') {
            i += 1 + digits(i + 1);
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'-' | b'+')) {
            i += 1;
        }
        let n = digits(i);
        if n == 0 {
            return false;
        }
        i += n;
    }
    i == b.len()
}

/// `strconv.ParseFloat(s, 64)` for a scalar starting with `.`: Go's decimal float syntax, with
/// underscores allowed between digits; out of range is an error (and the scalar a string).
fn go_float(s: &str) -> Option<f64> {
    if !underscores_ok(s) {
        return None;
    }
    let plain: String = s.chars().filter(|&c| c != '_').collect();
    // Starting with '.', Go needs digits after it and digits in any exponent: the same shape
    // as yamlStyleFloat's first alternative.
    if !yaml_style_float(&plain) {
        return None;
    }
    plain.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// Go's `underscoreOK` for a number without a base prefix: each underscore sits between two
/// digits.
fn underscores_ok(s: &str) -> bool {
    let b = s.as_bytes();
    b.iter().enumerate().all(|(i, &c)| {
        c != b'_'
            || (i > 0
                && b.get(i - 1).is_some_and(u8::is_ascii_digit)
                && b.get(i + 1).is_some_and(u8::is_ascii_digit))
    })
}

/// `big.Int.SetString(s, 0)` for what overflowed 64 bits, as the nearest float.
fn big_integer(s: &str) -> Option<f64> {
    let (neg, digits) = split_sign(s);
    let (radix, body) = match digits.as_bytes() {
        [b'0', b'x' | b'X', ..] => (16u32, digits.get(2..)?),
        [b'0', b'o' | b'O', ..] => (8, digits.get(2..)?),
        [b'0', b'b' | b'B', ..] => (2, digits.get(2..)?),
        [b'0', _, ..] => (8, digits.get(1..)?),
        _ => (10, digits),
    };
    if body.is_empty() {
        return None;
    }
    let mut f = 0f64;
    for c in body.chars() {
        f = f * f64::from(radix) + f64::from(c.to_digit(radix)?);
    }
    Some(if neg { -f } else { f })
}

/// A resolved scalar as `encoding/json` writes it and the API server reads it back: an integral
/// float below 1e21 is written without a fraction, so it arrives as an integer (`6.0` fills an
/// int32 field).
pub(super) fn json_value(r: Resolved, text: &str) -> Value {
    match r {
        Resolved::Null => Value::Null,
        Resolved::Bool(b) => Value::Bool(b),
        Resolved::Int(n) => Value::from(n),
        Resolved::Uint(n) => Value::from(n),
        Resolved::Float(f) | Resolved::BigInt(f) => json_float(f),
        Resolved::NonFinite | Resolved::Merge | Resolved::Str => Value::String(text.to_owned()),
    }
}

fn json_float(f: f64) -> Value {
    if f.fract() == 0.0 && f.abs() < 1e21 {
        // Go writes the shortest digits that read back as f, padded with zeros ("-0",
        // "9223372036854776000"), and Rust's `Display` writes the same; the API server then
        // reads that text as an integer, or fails to fit it.
        let text = f.to_string();
        if let Ok(n) = text.parse::<i64>() {
            return Value::from(n);
        }
        if let Ok(n) = text.parse::<u64>() {
            return Value::from(n);
        }
    }
    Number::from_f64(f).map_or(Value::Null, Value::Number)
}

/// A non-string key as `sigs.k8s.io/yaml` names it in JSON: integers in decimal, booleans as
/// `true`/`false`, floats with Go's `FormatFloat(f, 'g', -1, 32)`. None for a null key, which
/// it refuses.
pub(super) fn key_string(r: Resolved, text: &str) -> Option<String> {
    Some(match r {
        Resolved::Null => return None,
        Resolved::Bool(b) => b.to_string(),
        Resolved::Int(n) => n.to_string(),
        Resolved::Uint(n) => n.to_string(),
        Resolved::Float(f) | Resolved::BigInt(f) => go_format_g32(f),
        Resolved::NonFinite => match text.trim_start_matches('+').to_ascii_lowercase().as_str() {
            ".nan" => ".nan".to_owned(),
            "-.inf" => "-.inf".to_owned(),
            _ => ".inf".to_owned(),
        },
        Resolved::Merge | Resolved::Str => text.to_owned(),
    })
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 32)`: the shortest digits that read back as the same
/// float32, in `%e` form when the exponent is below -4 or at least 6 (exponent with a sign and at
/// least two digits), else in `%f` form; infinities as go-yaml spells them.
#[allow(clippy::cast_possible_truncation)]
fn go_format_g32(f: f64) -> String {
    let x = f as f32;
    if x.is_infinite() {
        return if x > 0.0 { ".inf" } else { "-.inf" }.to_owned();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.to_owned();
    }
    // Rust's `{:e}` prints the shortest round-trip digits: "-1.2345679e8".
    let e = format!("{:e}", x.abs());
    let (mantissa, exp) = e.split_once('e').unwrap_or((e.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if x < 0.0 { "-" } else { "" };
    if !(-4..6).contains(&exp) {
        let (first, rest) = digits.split_at(1.min(digits.len()));
        let frac = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{first}{frac}e{esign}{:02}", exp.unsigned_abs());
    }
    // %f with exactly the digits there are.
    let point = exp + 1; // digits before the decimal point
    let body = if point <= 0 {
        format!("0.{}{digits}", "0".repeat(point.unsigned_abs() as usize))
    } else {
        let point = point as usize;
        if digits.len() <= point {
            format!("{digits}{}", "0".repeat(point - digits.len()))
        } else {
            let (int, frac) = digits.split_at(point);
            format!("{int}.{frac}")
        }
    };
    format!("{sign}{body}")
}

/// The result of an explicitly tagged scalar (`!!int '010'`), as go-yaml's `resolve(tag, text)`
/// gives it: `!!str` keeps the text; the other core tags resolve by content and must agree
/// (an integer may stand for a float). Err is go-yaml's message.
pub(super) fn resolve_tagged(tag: CoreTag, text: &str) -> Result<Resolved, String> {
    if tag == CoreTag::Str {
        return Ok(Resolved::Str);
    }
    let r = resolve(text);
    let got = match r {
        Resolved::Null => CoreTag::Null,
        Resolved::Bool(_) => CoreTag::Bool,
        Resolved::Int(_) | Resolved::Uint(_) | Resolved::BigInt(_) => CoreTag::Int,
        Resolved::Float(_) | Resolved::NonFinite => CoreTag::Float,
        // `<<` resolves to the merge tag, which no other tag accepts.
        Resolved::Merge => {
            return Err(format!(
                "cannot decode !!merge `{text}` as a !!{}",
                name(tag)
            ));
        }
        Resolved::Str => CoreTag::Str,
    };
    if got == tag || (tag == CoreTag::Timestamp && got == CoreTag::Str) {
        return Ok(r);
    }
    if tag == CoreTag::Float {
        match r {
            Resolved::Int(n) => return Ok(Resolved::Float(n as f64)),
            Resolved::Uint(n) => return Ok(Resolved::Float(n as f64)),
            _ => {}
        }
    }
    Err(format!(
        "cannot decode !!{} `{text}` as a !!{}",
        name(got),
        name(tag)
    ))
}

/// A cheap first look: whether a plain scalar could read differently under YAML 1.1 (go-yaml)
/// and YAML 1.2, before [`differs_from_yaml_1_2`] decides. Plain decimals and words that are
/// not booleans say no at once.
pub(super) fn may_differ_from_yaml_1_2(s: &str) -> bool {
    match s.as_bytes().first() {
        Some(b'y' | b'Y' | b'n' | b'N' | b'o' | b'O') => s.len() <= 3,
        Some(b'0') => s.len() > 1,
        Some(b'+' | b'-' | b'1'..=b'9' | b'.') => {
            s.contains(['_', 'b', 'x', 'o']) || s.starts_with(['+', '-'])
        }
        _ => false,
    }
}

/// Whether the API server's reading of a plain scalar (`read`) differs from the YAML 1.2 core
/// schema's: another type (`yes` is a string in YAML 1.2), or another number (`010` is 10 in
/// YAML 1.2, 8 in YAML 1.1). Numbers are compared by value, so `6.0` read as 6 is no difference.
pub(super) fn differs_from_yaml_1_2(text: &str, read: &Value) -> bool {
    match (yaml_1_2(text), read) {
        (Yaml12::Str, Value::String(_)) | (Yaml12::Null, Value::Null) => false,
        (Yaml12::Bool(a), Value::Bool(b)) => a != *b,
        (Yaml12::Number(a), Value::Number(n)) => n.as_f64() != Some(a),
        _ => true,
    }
}

enum Yaml12 {
    Null,
    Bool(bool),
    Number(f64),
    Str,
}

/// The YAML 1.2 core schema's reading (tag resolution of plain scalars, spec 10.3.2).
#[allow(clippy::cast_precision_loss)]
fn yaml_1_2(s: &str) -> Yaml12 {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Yaml12::Null,
        "true" | "True" | "TRUE" => return Yaml12::Bool(true),
        "false" | "False" | "FALSE" => return Yaml12::Bool(false),
        _ => {}
    }
    let radix = |prefix: &str, radix: u32| {
        s.strip_prefix(prefix)
            .filter(|d| !d.is_empty() && d.chars().all(|c| c.is_digit(radix)))
            .and_then(|d| u64::from_str_radix(d, radix).ok())
    };
    if let Some(n) = radix("0o", 8).or_else(|| radix("0x", 16)) {
        return Yaml12::Number(n as f64);
    }
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    if !body.is_empty() && body.bytes().all(|b| b.is_ascii_digit()) {
        return s.parse::<f64>().map_or(Yaml12::Str, Yaml12::Number);
    }
    if yaml_style_float(s)
        && let Ok(f) = s.parse::<f64>()
    {
        return Yaml12::Number(f);
    }
    Yaml12::Str
}

/// A `!!binary` scalar as go-yaml decodes it (Go's standard base64, line breaks ignored) and
/// Go's JSON encoder writes it (bytes that are not UTF-8 become U+FFFD).
pub(super) fn binary(text: &str) -> Result<String, String> {
    use base64::Engine as _;
    let compact: String = text.chars().filter(|&c| c != '\n' && c != '\r').collect();
    base64::engine::general_purpose::STANDARD
        .decode(compact.as_bytes())
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .map_err(|_| "!!binary value contains invalid base64 data".to_owned())
}

fn name(t: CoreTag) -> &'static str {
    match t {
        CoreTag::Str => "str",
        CoreTag::Bool => "bool",
        CoreTag::Int => "int",
        CoreTag::Float => "float",
        CoreTag::Null => "null",
        CoreTag::Timestamp => "timestamp",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn v(s: &str) -> Value {
        json_value(resolve(s), s)
    }

    /// Each pair was read off `sigs.k8s.io/yaml` v1.6.0 `YAMLToJSON` (go-yaml v2.4.4) on
    /// `a: <scalar>`.
    #[test]
    fn plain_values_resolve_as_go_yaml_v2_and_encoding_json_write_them() {
        let cases = [
            ("010", json!(8)),
            ("1_2", json!(12)),
            ("0b11", json!(3)),
            ("1e1", json!(10)),
            ("6.0", json!(6)),
            ("0o17", json!(15)),
            ("+5", json!(5)),
            (".5", json!(0.5)),
            ("1.", json!(1)),
            ("y", json!(true)),
            ("n", json!(false)),
            ("on", json!(true)),
            ("off", json!(false)),
            ("yes", json!(true)),
            ("No", json!(false)),
            ("Yes", json!(true)),
            ("yES", json!("yES")),
            ("TRUE", json!(true)),
            ("tRUE", json!("tRUE")),
            ("NULL", json!(null)),
            ("nULL", json!("nULL")),
            ("2024-01-01", json!("2024-01-01")),
            ("2024-01-01T10:00:00Z", json!("2024-01-01T10:00:00Z")),
            ("12:30", json!("12:30")),
            ("0x1F", json!(31)),
            ("-0b11", json!(-3)),
            ("~", json!(null)),
            ("-", json!("-")),
            ("1_000.5", json!(1000.5)),
            ("08", json!(8)),
            ("09", json!(9)),
            ("0b12", json!("0b12")),
            ("0x_1F", json!(31)),
            ("_1", json!("_1")),
            ("1_", json!(1)),
            (".5_0", json!(0.5)),
            ("1e400", json!("1e400")),
            (".", json!(".")),
            ("+0x10", json!(16)),
            ("0xFFFFFFFFFFFFFFFF", json!(18_446_744_073_709_551_615u64)),
            ("1e-7", json!(1e-7)),
            ("0.1e1", json!(1)),
            ("1E2", json!(100)),
            ("+.5", json!(0.5)),
            ("-.5e1", json!(-5)),
            ("0o8", json!("0o8")),
            ("00", json!(0)),
            ("-010", json!(-8)),
            ("1__0", json!(10)),
            ("9223372036854775808", json!(9_223_372_036_854_775_808u64)),
            ("1.5e300", json!(1.5e300)),
            ("1e21", json!(1e21)),
            ("123456789.0", json!(123_456_789)),
        ];
        for (text, want) in cases {
            assert_eq!(v(text), want, "{text}");
        }
        // Beyond 64 bits in decimal: a float, as go-yaml gives it.
        assert_eq!(
            v("-9223372036854775809"),
            json!(-9_223_372_036_854_776_000f64)
        );
        assert_eq!(
            v("18446744073709551616"),
            json!(18_446_744_073_709_552_000f64)
        );
        assert_eq!(
            v("9223372036854775807.0"),
            json!(9_223_372_036_854_776_000u64)
        );
        assert_eq!(v("-0.0"), json!(0));
        assert_eq!(resolve(".nan"), Resolved::NonFinite);
        assert_eq!(resolve("-.Inf"), Resolved::NonFinite);
        assert_eq!(resolve("<<"), Resolved::Merge);
    }

    #[test]
    fn keys_are_named_as_sigs_yaml_names_them() {
        let k = |s: &str| key_string(resolve(s), s);
        assert_eq!(k("1").as_deref(), Some("1"));
        assert_eq!(k("yes").as_deref(), Some("true"));
        assert_eq!(k("y").as_deref(), Some("true"));
        assert_eq!(k("010").as_deref(), Some("8"));
        assert_eq!(k("0x1F").as_deref(), Some("31"));
        assert_eq!(k("1.50").as_deref(), Some("1.5"));
        assert_eq!(k("-1").as_deref(), Some("-1"));
        assert_eq!(k("1e3").as_deref(), Some("1000"));
        assert_eq!(k("~"), None);
        assert_eq!(k("name").as_deref(), Some("name"));
        assert_eq!(go_format_g32(123_456_789.0), "1.2345679e+08");
        assert_eq!(go_format_g32(1e21), "1e+21");
        assert_eq!(go_format_g32(1e6), "1e+06");
        assert_eq!(go_format_g32(0.0001), "0.0001");
        assert_eq!(go_format_g32(0.00001), "1e-05");
        assert_eq!(go_format_g32(-2.5), "-2.5");
        assert_eq!(go_format_g32(0.1), "0.1");
        assert_eq!(go_format_g32(1e39), ".inf");
    }

    #[test]
    fn tags_resolve_or_refuse_as_go_yaml_does() {
        assert_eq!(resolve_tagged(CoreTag::Str, "010"), Ok(Resolved::Str));
        assert_eq!(resolve_tagged(CoreTag::Int, "010"), Ok(Resolved::Int(8)));
        assert_eq!(
            resolve_tagged(CoreTag::Float, "1"),
            Ok(Resolved::Float(1.0))
        );
        assert_eq!(
            resolve_tagged(CoreTag::Bool, "yes"),
            Ok(Resolved::Bool(true))
        );
        assert_eq!(
            resolve_tagged(CoreTag::Int, "abc"),
            Err("cannot decode !!str `abc` as a !!int".to_owned())
        );
    }
}
