//! How Go prints the values that appear in the API server's messages about a custom resource:
//! `%q`, `%v` and `%#v` of the unstructured JSON values (int64, float64, string, bool, maps,
//! slices), and encoding/json's rendering, which apimachinery uses for compound bad values from
//! v0.34.

use crate::versions::Change;
use serde_json::Value;
use std::fmt::Write as _;

/// strconv.Quote.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if is_go_printable(c) => out.push(c),
            c if (c as u32) < 0x10000 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\U{:08x}", c as u32);
            }
        }
    }
    out.push('"');
    out
}

/// strconv.Quote of a byte string that may not be UTF-8 (an invalid byte printed `\xNN`).
pub fn quote_bytes(b: &[u8]) -> String {
    let mut out = String::from("\"");
    for chunk in b.utf8_chunks() {
        let q = quote(chunk.valid());
        out.push_str(q.get(1..q.len() - 1).unwrap_or(""));
        for x in chunk.invalid() {
            let _ = write!(out, "\\x{x:02x}");
        }
    }
    out.push('"');
    out
}

/// An approximation of Go's unicode.IsPrint for what the generated and real messages carry:
/// letters, marks, numbers, punctuation, symbols and the ASCII space are printable; other
/// spaces, controls, format characters and unassigned code points are not.
pub fn is_go_printable(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    !matches!(c as u32,
        0xAD | 0x600..=0x605 | 0x61C | 0x6DD | 0x70F | 0x180E | 0x200B..=0x200F | 0x202A..=0x202E
        | 0x2060..=0x2064 | 0x2066..=0x206F | 0xFEFF | 0xFFF9..=0xFFFB | 0xFFFE | 0xFFFF
        | 0xD800..=0xDFFF | 0xE000..=0xF8FF | 0xF0000..=0x10FFFF)
}

/// Go's conversion of a float64 to int64 (truncation; out of range gives the minimum, as on amd64).
pub fn f64_to_i64(f: f64) -> i64 {
    if f.is_nan() || !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&f) {
        i64::MIN
    } else {
        f.trunc() as i64
    }
}

/// The shortest decimal digits and exponent of `f` (f = 0.d1d2... × 10^exp), as strconv finds them.
fn digits(f: f64) -> (String, i32) {
    // `{:e}` gives the shortest round-trip digits: "1.2345e-7".
    let e = format!("{:e}", f.abs());
    let (mant, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mant.chars().filter(char::is_ascii_digit).collect();
    (digits, exp + 1)
}

/// strconv.FormatFloat(f, 'f', -1, 64).
pub fn format_f(f: f64) -> String {
    if !f.is_finite() {
        return format_v(f);
    }
    let (d, exp) = digits(f);
    let sign = if f.is_sign_negative() && f != 0.0 {
        "-"
    } else {
        ""
    };
    if f == 0.0 {
        return "0".to_owned();
    }
    let body = if exp <= 0 {
        format!("0.{}{}", "0".repeat(usize::try_from(-exp).unwrap_or(0)), d)
    } else {
        let e = usize::try_from(exp).unwrap_or(0);
        if d.len() <= e {
            format!("{d}{}", "0".repeat(e - d.len()))
        } else {
            let (a, b) = d.split_at(e);
            format!("{a}.{b}")
        }
    };
    format!("{sign}{body}")
}

fn exp_form(f: f64, min_exp_digits: usize) -> String {
    let (d, exp) = digits(f);
    let sign = if f.is_sign_negative() { "-" } else { "" };
    let mut m = String::new();
    let mut chars = d.chars();
    if let Some(first) = chars.next() {
        m.push(first);
    }
    let rest: String = chars.collect();
    if !rest.is_empty() {
        m.push('.');
        m.push_str(&rest);
    }
    let e = exp - 1;
    let esign = if e < 0 { '-' } else { '+' };
    let mut es = e.unsigned_abs().to_string();
    while es.len() < min_exp_digits {
        es.insert(0, '0');
    }
    format!("{sign}{m}e{esign}{es}")
}

/// fmt's `%v` of a float64 (`%g` with the shortest digits): exponent form when the decimal
/// exponent is below -4 or at least the precision strconv picks for shortest output (6, or the
/// digit count when that is smaller and covers the integer part).
pub fn format_v(f: f64) -> String {
    if f.is_nan() {
        return "NaN".to_owned();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.to_owned();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.to_owned();
    }
    let (d, dp) = digits(f);
    let nd = i32::try_from(d.len()).unwrap_or(i32::MAX);
    let mut eprec = 6;
    if eprec > nd && nd >= dp {
        eprec = nd;
    }
    let x = dp - 1;
    if x < -4 || x >= eprec {
        exp_form(f, 2)
    } else {
        format_f(f)
    }
}

/// encoding/json's rendering of a float64.
fn json_float(f: f64) -> String {
    let a = f.abs();
    if a != 0.0 && !(1e-6..1e21).contains(&a) {
        // 'e' format with the exponent's leading zero dropped.
        exp_form(f, 1)
    } else {
        format_f(f)
    }
}

/// encoding/json.Marshal of an unstructured value (map keys sorted; `<`, `>`, `&` escaped).
pub fn json(v: &Value) -> String {
    let mut out = String::new();
    write_json(v, &mut out);
    out
}

fn json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn write_json(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) if n.is_i64() || n.is_u64() => out.push_str(&n.to_string()),
        Value::Number(n) => out.push_str(&json_float(n.as_f64().unwrap_or(0.0))),
        Value::String(s) => json_string(s, out),
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(x, out);
            }
            out.push(']');
        }
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json_string(k, out);
                out.push(':');
                if let Some(x) = m.get(*k) {
                    write_json(x, out);
                }
            }
            out.push('}');
        }
    }
}

/// fmt's `%#v` of an unstructured value held in an `interface{}`.
fn sharp_v(v: &Value, top: bool) -> String {
    match v {
        Value::Null => "interface {}(nil)".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) if n.is_i64() => n.to_string(),
        Value::Number(n) => format_v(n.as_f64().unwrap_or(0.0)),
        Value::String(s) => quote(s),
        Value::Array(a) => {
            let parts: Vec<String> = a.iter().map(|x| sharp_v(x, false)).collect();
            format!("[]interface {{}}{{{}}}", parts.join(", "))
        }
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let parts: Vec<String> = keys
                .iter()
                .map(|k| {
                    format!(
                        "{}:{}",
                        quote(k),
                        m.get(*k).map(|x| sharp_v(x, false)).unwrap_or_default()
                    )
                })
                .collect();
            let _ = top;
            format!("map[string]interface {{}}{{{}}}", parts.join(", "))
        }
    }
}

/// A bad value as apimachinery's `ErrorBody` of Kubernetes 1.`minor` prints it: a string quoted,
/// a number or boolean with `%v`, anything else as JSON from 1.34 and with `%#v` before; Go's
/// nil as `null` (a quoted "null" before 1.34).
pub fn bad_value(v: &Value, minor: u32) -> String {
    match v {
        Value::String(s) => quote(s),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) if n.is_i64() => n.to_string(),
        Value::Number(n) => format_v(n.as_f64().unwrap_or(0.0)),
        Value::Null if Change::FieldErrorJsonValues.at(minor) => "null".to_owned(),
        Value::Null => "\"null\"".to_owned(),
        other if Change::FieldErrorJsonValues.at(minor) => json(other),
        other => sharp_v(other, true),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn floats_print_as_go_prints_them() {
        assert_eq!(format_v(3.0), "3");
        assert_eq!(format_v(2.5), "2.5");
        assert_eq!(format_v(0.0001), "0.0001");
        assert_eq!(format_v(0.00001), "1e-05");
        assert_eq!(format_v(100000.0), "100000");
        assert_eq!(format_v(123456.0), "123456");
        assert_eq!(format_v(1e6), "1e+06");
        assert_eq!(format_v(2147483647.0), "2.147483647e+09");
        assert_eq!(format_v(1e21), "1e+21");
        assert_eq!(format_v(-1.5e-7), "-1.5e-07");
        assert_eq!(format_f(1e21), "1000000000000000000000");
        assert_eq!(format_f(0.125), "0.125");
        assert_eq!(
            json(&serde_json::json!({"b": 1e-7, "a": "<"})),
            r#"{"a":"\u003c","b":1e-7}"#
        );
    }

    #[test]
    fn compound_values_print_per_minor() {
        let v = serde_json::json!({"b": [1, "x"], "a": null});
        assert_eq!(bad_value(&v, 37), r#"{"a":null,"b":[1,"x"]}"#);
        assert_eq!(
            bad_value(&v, 31),
            r#"map[string]interface {}{"a":interface {}(nil), "b":[]interface {}{1, "x"}}"#
        );
        assert_eq!(quote("a\"\u{1}é"), "\"a\\\"\\x01é\"");
    }
}
