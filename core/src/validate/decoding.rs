//! Type errors as kube-apiserver's decoder meets them: a value of the wrong JSON type, an integer
//! out of its Go type's range, a quantity, an int-or-string, a time or base64 text its own
//! decoder refuses. The API server refuses such a request whole (400 Bad Request) before strict
//! field validation and before validation, with one message:
//! `<Kind> in version "<v>" cannot be handled as a <Kind>: <what encoding/json said>`.
//!
//! The walk follows encoding/json as sigs.k8s.io/json (the API server's decoder) runs it on the
//! body kubectl sends: kubectl marshals the object from a map, so every object's keys come in
//! sorted order, and a field the type does not have is passed over here (strict decoding's
//! business). A plain type mismatch is remembered and decoding goes on (the first one is the
//! error); a value with its own decoder (Quantity, IntOrString, Time, MicroTime) that fails
//! stops the decoding at once, and its error is the one reported even after a remembered one.
//! The Go type names in the messages come from the release's own Go types (`Field::go`).

use crate::diag::{Diagnostic, ErrorType, FieldPath, Origin};
use crate::generated::k8s_schema::TYPES;
use crate::generated::schema_types::{Field, Scalar, Type, Value as Shape};
use serde_json::{Map, Number, Value};

/// The decoding error of an object of type `type_` (an index in the generated TYPES) at
/// Kubernetes 1.`minor`, if any: the field it is at and encoding/json's message (without the
/// API server's prefix; see `refusal`).
pub fn first_error(type_: u16, value: &Value, minor: u32) -> Option<(FieldPath, String)> {
    let t = TYPES.get(usize::from(type_))?;
    let mut walk = Walk { minor, saved: None };
    let map = value.as_object()?;
    match walk.object(t, map, &FieldPath::root(), &mut Vec::new()) {
        Err(stop) => Some(stop),
        Ok(()) => walk.saved,
    }
}

/// The API server's answer to a request whose body fails to decode (apiserver's
/// transformDecodeError): names the kind and version the body gives.
pub fn refusal(kind: &str, version: &str, field: &FieldPath, message: &str) -> Diagnostic {
    let mut d = Diagnostic::request(
        "decode",
        field.as_str(),
        format!("{kind} in version {version:?} cannot be handled as a {kind}: {message}"),
    )
    .with_origin(Origin::KubeApiserver);
    d.error_type = Some(ErrorType::FieldValueTypeInvalid);
    d
}

/// From 1.35 (sigs.k8s.io/json of 2025-07-30, Go 1.24's encoding/json) a field promoted from
/// an embedded struct has that struct's Go name in the error's path
/// (`spec.PersistentVolumeSource.gcePersistentDisk.readOnly`); before, only JSON names.
const EMBEDDED_NAMES_SINCE: u32 = 35;

struct Walk {
    minor: u32,
    /// The first plain type mismatch: decoding goes on after it.
    saved: Option<(FieldPath, String)>,
}

/// A decoder's own error: decoding stops there.
type Stop = (FieldPath, String);

/// Where encoding/json is (its error context): the innermost struct, and the JSON names from
/// the root to the field (list indexes and map keys are not part of it).
struct Context<'a> {
    strukt: &'static str,
    names: &'a mut Vec<&'static str>,
}

impl Walk {
    fn object(
        &mut self,
        t: &'static Type,
        map: &Map<String, Value>,
        at: &FieldPath,
        names: &mut Vec<&'static str>,
    ) -> Result<(), Stop> {
        let mut keys: Vec<&String> = map.keys().collect();
        keys.sort_unstable();
        for key in keys {
            let Some(field) = field_of(t, key, self.minor) else {
                continue;
            };
            let Some(v) = map.get(key) else { continue };
            let depth = names.len();
            if !field.via().is_empty() && self.minor >= EMBEDDED_NAMES_SINCE {
                names.extend(field.via().split('.'));
            }
            names.push(field.name);
            let mut cx = Context {
                strukt: t.name,
                names,
            };
            let result = self.value(&field.value, field.go(), v, &at.child(key), &mut cx);
            names.truncate(depth);
            result?;
        }
        Ok(())
    }

    fn value(
        &mut self,
        shape: &Shape,
        go: &'static [&'static str],
        v: &Value,
        at: &FieldPath,
        cx: &mut Context<'_>,
    ) -> Result<(), Stop> {
        if v.is_null() {
            return Ok(());
        }
        let go_name = go.first().copied().unwrap_or("");
        match shape {
            Shape::Object(id) => match (v, TYPES.get(usize::from(*id))) {
                (Value::Object(m), Some(t)) => self.object(t, m, at, cx.names),
                _ => {
                    self.mismatch(v, go_name, at, cx);
                    Ok(())
                }
            },
            Shape::List(inner) => match v {
                Value::Array(items) => {
                    let rest = go.get(1..).unwrap_or(&[]);
                    for (i, item) in items.iter().enumerate() {
                        self.value(inner, rest, item, &at.index(i), cx)?;
                    }
                    Ok(())
                }
                _ => {
                    self.mismatch(v, go_name, at, cx);
                    Ok(())
                }
            },
            Shape::Map(inner) => match v {
                Value::Object(m) => {
                    let rest = go.get(1..).unwrap_or(&[]);
                    let mut keys: Vec<&String> = m.keys().collect();
                    keys.sort_unstable();
                    for k in keys {
                        if let Some(item) = m.get(k) {
                            self.value(inner, rest, item, &at.key(k), cx)?;
                        }
                    }
                    Ok(())
                }
                _ => {
                    self.mismatch(v, go_name, at, cx);
                    Ok(())
                }
            },
            Shape::Scalar(s) => self.scalar(*s, go_name, v, at, cx),
        }
    }

    fn scalar(
        &mut self,
        s: Scalar,
        go_name: &str,
        v: &Value,
        at: &FieldPath,
        cx: &mut Context<'_>,
    ) -> Result<(), Stop> {
        match (s, v) {
            (Scalar::Any, _)
            | (Scalar::String, Value::String(_))
            | (Scalar::Boolean, Value::Bool(_))
            | (Scalar::Number, Value::Number(_)) => Ok(()),
            (Scalar::Int32, Value::Number(n)) => {
                if !fits(n, i64::from(i32::MIN), i64::from(i32::MAX)) {
                    self.save(at, cx, &format!("number {}", json_number(n)), go_name);
                }
                Ok(())
            }
            (Scalar::Int64, Value::Number(n)) => {
                if !fits(n, i64::MIN, i64::MAX) {
                    self.save(at, cx, &format!("number {}", json_number(n)), go_name);
                }
                Ok(())
            }
            (Scalar::Bytes, Value::String(text)) => {
                if let Err(offset) = go_base64_check(text.as_bytes()) {
                    self.save_raw(at, format!("illegal base64 data at input byte {offset}"));
                }
                Ok(())
            }
            (Scalar::Bytes, Value::Array(items)) => {
                // encoding/json fills a []byte from a JSON array too, one uint8 per item.
                for item in items {
                    match item {
                        Value::Null => {}
                        Value::Number(n) if fits(n, 0, 255) => {}
                        other => {
                            let what = json_kind(other, true);
                            self.save(at, cx, &what, "uint8");
                        }
                    }
                }
                Ok(())
            }
            (Scalar::Quantity, v) => {
                let text = match v {
                    Value::String(s) => s.trim().to_owned(),
                    other => raw_json(other),
                };
                match parse_quantity(&text) {
                    Ok(()) => Ok(()),
                    Err(e) => Err((at.clone(), e.to_owned())),
                }
            }
            (Scalar::IntOrString, Value::String(_)) => Ok(()),
            (Scalar::IntOrString, v) => {
                // IntOrString decodes anything but a string as an int32, with encoding/json
                // again: its type error stops the decoding and gets the field's context.
                if matches!(v, Value::Number(n) if fits(n, i64::from(i32::MIN), i64::from(i32::MAX)))
                {
                    return Ok(());
                }
                Err((at.clone(), type_error(cx, &json_kind(v, true), "int32")))
            }
            (Scalar::Time | Scalar::MicroTime, Value::String(text)) => {
                match go_parse_time(text, s == Scalar::MicroTime) {
                    Ok(()) => Ok(()),
                    Err(e) => Err((at.clone(), e)),
                }
            }
            // metav1.Time reads a string first, with encoding/json.
            (Scalar::Time | Scalar::MicroTime, v) => {
                Err((at.clone(), type_error(cx, &json_kind(v, false), "string")))
            }
            (_, v) => {
                self.mismatch(v, go_name, at, cx);
                Ok(())
            }
        }
    }

    fn mismatch(&mut self, v: &Value, go_name: &str, at: &FieldPath, cx: &mut Context<'_>) {
        let what = json_kind(v, false);
        self.save(at, cx, &what, go_name);
    }

    fn save(&mut self, at: &FieldPath, cx: &mut Context<'_>, what: &str, go_name: &str) {
        self.save_raw(at, type_error(cx, what, go_name));
    }

    fn save_raw(&mut self, at: &FieldPath, message: String) {
        if self.saved.is_none() {
            self.saved = Some((at.clone(), message));
        }
    }
}

/// encoding/json's UnmarshalTypeError with the decoder's context.
fn type_error(cx: &Context<'_>, what: &str, go_name: &str) -> String {
    format!(
        "json: cannot unmarshal {what} into Go struct field {}.{} of type {go_name}",
        cx.strukt,
        cx.names.join(".")
    )
}

/// The field of `t` named `key` that Kubernetes 1.`minor` has (the same lookup as strict
/// decoding's).
fn field_of(t: &'static Type, key: &str, minor: u32) -> Option<&'static Field> {
    super::unknown_fields::field_of(t, key).filter(|f| f.since <= minor && minor <= f.until)
}

/// How encoding/json names a JSON value in a type error. A number is "number"; an integer
/// target names its text too (`with_number_text`).
fn json_kind(v: &Value, with_number_text: bool) -> String {
    match v {
        Value::String(_) => "string".to_owned(),
        Value::Bool(_) => "bool".to_owned(),
        Value::Array(_) => "array".to_owned(),
        Value::Object(_) => "object".to_owned(),
        Value::Number(n) if with_number_text => format!("number {}", json_number(n)),
        Value::Number(_) => "number".to_owned(),
        Value::Null => "null".to_owned(),
    }
}

/// Whether a number's JSON text (as kubectl writes it) is an integer in [lo, hi], as
/// strconv.ParseInt and reflect's OverflowInt judge it.
fn fits(n: &Number, lo: i64, hi: i64) -> bool {
    if let Some(i) = n.as_i64() {
        return lo <= i && i <= hi;
    }
    if n.as_u64().is_some() {
        return false; // above i64's range
    }
    // A float: its text is an integer only when Go writes it without a point or exponent.
    let text = json_number(n);
    text.parse::<i64>().is_ok_and(|i| lo <= i && i <= hi)
}

/// A number as Go's encoding/json writes it (kubectl marshals the object it read): integers as
/// they are, floats in the shortest form, with an exponent below 1e-6 and from 1e21.
pub fn json_number(n: &Number) -> String {
    if n.is_i64() || n.is_u64() {
        return n.to_string();
    }
    let Some(f) = n.as_f64() else {
        return n.to_string();
    };
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let s = format!("{f:e}");
        let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        if exp < 0 {
            format!("{mantissa}e-{}", -exp)
        } else {
            format!("{mantissa}e+{exp:02}")
        }
    } else {
        format!("{f}")
    }
}

/// A non-string JSON value's text as kubectl sends it (what a decoder of its own receives).
fn raw_json(v: &Value) -> String {
    match v {
        Value::Number(n) => json_number(n),
        other => serde_json::to_string(other).unwrap_or_default(),
    }
}

const QUANTITY_FORMAT: &str =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const QUANTITY_NUMERIC: &str = "unable to parse numeric part of quantity";
const QUANTITY_SUFFIX: &str = "unable to parse quantity's suffix";

/// resource.ParseQuantity's verdict on `s` (already trimmed and unquoted): which of its three
/// errors, if any.
fn parse_quantity(s: &str) -> Result<(), &'static str> {
    if s.is_empty() {
        return Err(QUANTITY_FORMAT);
    }
    if s == "0" {
        return Ok(());
    }
    let b = s.as_bytes();
    let end = b.len();
    let mut pos = 0;
    if matches!(b.first(), Some(b'-' | b'+')) {
        pos += 1;
    }
    // Leading zeros; nothing after them is zero.
    while pos < end && byte(b, pos) == b'0' {
        pos += 1;
    }
    if pos >= end {
        return Ok(());
    }
    let num_start = pos;
    while pos < end && byte(b, pos).is_ascii_digit() {
        pos += 1;
    }
    if pos >= end {
        return precision_ok(pos - num_start, 0, "", s);
    }
    let num_len = (pos - num_start).max(1);
    let mut denom_len = 0;
    if byte(b, pos) == b'.' {
        pos += 1;
        let denom_start = pos;
        while pos < end && byte(b, pos).is_ascii_digit() {
            pos += 1;
        }
        denom_len = pos - denom_start;
        if pos >= end {
            return precision_ok(num_len, denom_len, "", s);
        }
    }
    let value_end = pos;
    let suffix_start = pos;
    while pos < end && b"eEinumkKMGTP".contains(&byte(b, pos)) {
        pos += 1;
    }
    if pos < end && matches!(byte(b, pos), b'-' | b'+') {
        pos += 1;
    }
    while pos < end {
        if !byte(b, pos).is_ascii_digit() {
            return Err(QUANTITY_FORMAT);
        }
        pos += 1;
    }
    let suffix = s.get(suffix_start..).unwrap_or("");
    precision_ok(num_len, denom_len, suffix, s.get(..value_end).unwrap_or(""))
}

/// The rest of ParseQuantity once the string is split: the suffix must be one it knows, and the
/// number must parse where it takes its slow path (inf.Dec's SetString).
fn precision_ok(
    num_len: usize,
    denom_len: usize,
    suffix: &str,
    value: &str,
) -> Result<(), &'static str> {
    // quantitySuffixer.interpret: (base 10 exponent or binary exponent, binary?)
    let (exponent, binary): (i64, bool) = match suffix {
        "" => (0, false),
        "n" => (-9, false),
        "u" => (-6, false),
        "m" => (-3, false),
        "k" => (3, false),
        "M" => (6, false),
        "G" => (9, false),
        "T" => (12, false),
        "P" => (15, false),
        "E" => (18, false),
        "Ki" => (10, true),
        "Mi" => (20, true),
        "Gi" => (30, true),
        "Ti" => (40, true),
        "Pi" => (50, true),
        "Ei" => (60, true),
        _ => {
            let rest = suffix
                .strip_prefix(['e', 'E'])
                .filter(|r| !r.is_empty())
                .ok_or(QUANTITY_SUFFIX)?;
            // strconv.ParseInt(rest, 10, 64), then the exponent must fit an int32.
            let e: i64 = rest.parse().map_err(|_| QUANTITY_SUFFIX)?;
            if i32::try_from(e).is_err() {
                return Err(QUANTITY_SUFFIX);
            }
            (e, false)
        }
    };
    let digits = i64::try_from(num_len + denom_len).unwrap_or(i64::MAX);
    let precision = if binary {
        if denom_len == 0 {
            15 - i64::try_from(num_len).unwrap_or(i64::MAX) - (exponent * 3 / 10) - 1
        } else {
            -1
        }
    } else {
        18 - digits
    };
    let scale = if binary { 0 } else { exponent } - i64::try_from(denom_len).unwrap_or(0);
    if precision >= 0 && scale >= -9 {
        return Ok(()); // the fast path: at most 18 digits always parse
    }
    // inf.Dec's SetString: a sign, digits with at most one point, at least one digit.
    let unsigned = value.trim_start_matches(['+', '-']);
    if unsigned.bytes().any(|c| c.is_ascii_digit()) {
        Ok(())
    } else {
        Err(QUANTITY_NUMERIC)
    }
}

/// base64.StdEncoding.Decode's first error offset, if any (newlines are skipped, padding is
/// required), as encoding/json decodes a []byte field.
fn go_base64_check(src: &[u8]) -> Result<(), usize> {
    fn sextet(c: u8) -> bool {
        c.is_ascii_alphanumeric() || c == b'+' || c == b'/'
    }
    let mut si = 0;
    while si < src.len() {
        // decodeQuantum
        let mut j = 0;
        while j < 4 {
            if si == src.len() {
                if j == 0 {
                    return Ok(());
                }
                return Err(si - j);
            }
            let c = byte(src, si);
            si += 1;
            if sextet(c) {
                j += 1;
                continue;
            }
            if c == b'\n' || c == b'\r' {
                continue;
            }
            if c != b'=' {
                return Err(si - 1);
            }
            match j {
                0 | 1 => return Err(si - 1),
                2 => {
                    while si < src.len() && (byte(src, si) == b'\n' || byte(src, si) == b'\r') {
                        si += 1;
                    }
                    if si == src.len() {
                        return Err(src.len());
                    }
                    if byte(src, si) != b'=' {
                        return Err(si - 1);
                    }
                    si += 1;
                }
                _ => {}
            }
            while si < src.len() && (byte(src, si) == b'\n' || byte(src, si) == b'\r') {
                si += 1;
            }
            if si < src.len() {
                return Err(si);
            }
            return Ok(());
        }
    }
    Ok(())
}

/// time.Parse as metav1.Time (RFC 3339) and metav1.MicroTime (RFC 3339 with six fractional
/// digits) call it: Ok, or Go's error text. Go's parser walks the layout element by element; the
/// error names the rest of the value where an element failed and that element, or a value out of
/// range as soon as its element is read (the day once everything is read).
fn go_parse_time(s: &str, micro: bool) -> Result<(), String> {
    let layout = if micro {
        "2006-01-02T15:04:05.000000Z07:00"
    } else {
        "2006-01-02T15:04:05Z07:00"
    };
    let cannot = |rest: &[u8], elem: &str| {
        format!(
            "parsing time {} as {}: cannot parse {} as {}",
            time_quote(s),
            time_quote(layout),
            time_quote(&String::from_utf8_lossy(rest)),
            time_quote(elem)
        )
    };
    let out_of_range = |what: &str| format!("parsing time {}: {what} out of range", time_quote(s));
    let mut v = s.as_bytes();
    let digit = |v: &[u8], i: usize| v.get(i).is_some_and(u8::is_ascii_digit);
    // getnum: one or two digits; exactly two when `fixed`.
    let getnum = |v: &[u8], fixed: bool| -> Option<(u32, usize)> {
        if !digit(v, 0) {
            return None;
        }
        let d0 = u32::from(byte(v, 0) - b'0');
        if !digit(v, 1) {
            return if fixed { None } else { Some((d0, 1)) };
        }
        Some((d0 * 10 + u32::from(byte(v, 1) - b'0'), 2))
    };
    let literal = |v: &mut &[u8], c: u8| -> Result<(), String> {
        if v.first() == Some(&c) {
            *v = tail(v, 1);
            Ok(())
        } else {
            Err(cannot(v, &(c as char).to_string()))
        }
    };
    // 2006: four characters, an optional sign and digits (atoi).
    let year: i64 = {
        let p = v.get(..4).ok_or_else(|| cannot(v, "2006"))?;
        let text = std::str::from_utf8(p).unwrap_or("x");
        let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
        if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
            return Err(cannot(v, "2006"));
        }
        let n: i64 = digits.parse().map_err(|_| cannot(v, "2006"))?;
        v = tail(v, 4);
        if text.starts_with('-') { -n } else { n }
    };
    literal(&mut v, b'-')?;
    let (month, n) = getnum(v, true).ok_or_else(|| cannot(v, "01"))?;
    v = tail(v, n);
    if !(1..=12).contains(&month) {
        return Err(out_of_range("month"));
    }
    literal(&mut v, b'-')?;
    let (day, n) = getnum(v, true).ok_or_else(|| cannot(v, "02"))?;
    v = tail(v, n);
    literal(&mut v, b'T')?;
    let (hour, n) = getnum(v, false).ok_or_else(|| cannot(v, "15"))?;
    v = tail(v, n);
    if hour >= 24 {
        return Err(out_of_range("hour"));
    }
    literal(&mut v, b':')?;
    let (minute, n) = getnum(v, true).ok_or_else(|| cannot(v, "04"))?;
    v = tail(v, n);
    if minute >= 60 {
        return Err(out_of_range("minute"));
    }
    literal(&mut v, b':')?;
    let (second, n) = getnum(v, true).ok_or_else(|| cannot(v, "05"))?;
    v = tail(v, n);
    if second >= 60 {
        return Err(out_of_range("second"));
    }
    if micro {
        // .000000: a point or comma, then six characters atoi reads (a sign is allowed).
        let frac = v.get(1..7).and_then(|f| std::str::from_utf8(f).ok());
        let value = match (v.first(), frac) {
            (Some(b'.' | b','), Some(f)) => {
                let digits = f.strip_prefix(['-', '+']).unwrap_or(f);
                digits
                    .bytes()
                    .all(|c| c.is_ascii_digit())
                    .then(|| f.starts_with('-') && digits.bytes().any(|c| c != b'0'))
            }
            _ => None,
        };
        match value {
            None => return Err(cannot(v, ".000000")),
            Some(true) => return Err(out_of_range("fractional second")),
            Some(false) => v = tail(v, 7),
        }
    } else if v.len() >= 2 && matches!(byte(v, 0), b'.' | b',') && digit(v, 1) {
        // A fraction the layout does not have is read anyway (digits past nine are ignored).
        let mut n = 2;
        while digit(v, n) {
            n += 1;
        }
        v = tail(v, n);
    }
    // Z07:00
    if v.first() == Some(&b'Z') {
        v = tail(v, 1);
    } else {
        let bad = || cannot(v, "Z07:00");
        if v.len() < 6 || byte(v, 3) != b':' {
            return Err(bad());
        }
        // Both offsets are read before the range checks, which win over a bad sign.
        let hr = getnum(span(v, 1, 3), true).map(|(n, _)| n);
        let mm = hr.and_then(|_| getnum(span(v, 4, 6), true)).map(|(n, _)| n);
        if hr.unwrap_or(0) > 24 {
            return Err(out_of_range("time zone offset hour"));
        }
        if mm.unwrap_or(0) > 60 {
            return Err(out_of_range("time zone offset minute"));
        }
        if mm.is_none() || !matches!(byte(v, 0), b'+' | b'-') {
            return Err(bad());
        }
        v = tail(v, 6);
    }
    if !v.is_empty() {
        return Err(format!(
            "parsing time {}: extra text: {}",
            time_quote(s),
            time_quote(&String::from_utf8_lossy(v))
        ));
    }
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days_in = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if day < 1
        || day
            > days_in
                .get((month as usize).wrapping_sub(1))
                .copied()
                .unwrap_or(0)
    {
        return Err(out_of_range("day"));
    }
    Ok(())
}

/// The time package's quote: double quotes, `"` and `\` escaped, other bytes below 0x20 or
/// above 0x7e as \x escapes (of the UTF-8 bytes).
pub(crate) fn time_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            ' '..='\x7f' => out.push(c),
            _ => {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("\\x{b:02x}"));
                }
            }
        }
    }
    out.push('"');
    out
}

/// The byte at `i`, or 0 past the end (callers check the length first; 0 matches nothing).
fn byte(b: &[u8], i: usize) -> u8 {
    b.get(i).copied().unwrap_or(0)
}

/// `b[from..]`, or nothing past the end.
fn tail(b: &[u8], from: usize) -> &[u8] {
    b.get(from..).unwrap_or(&[])
}

/// `b[from..to]`, or nothing out of range.
fn span(b: &[u8], from: usize, to: usize) -> &[u8] {
    b.get(from..to).unwrap_or(&[])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_number_text() {
        let n = |v: Value| match v {
            Value::Number(n) => json_number(&n),
            other => other.to_string(),
        };
        assert_eq!(n(serde_json::json!(3)), "3");
        assert_eq!(n(serde_json::json!(1.5)), "1.5");
        assert_eq!(n(serde_json::json!(1000.0)), "1000");
        assert_eq!(n(serde_json::json!(1e21)), "1e+21");
        assert_eq!(n(serde_json::json!(1.5e-7)), "1.5e-7");
    }

    #[test]
    fn quantities_as_parse_quantity_judges_them() {
        for ok in [
            "1", "0", "100m", "1.5Gi", "1e3", "1E-3", "+1", "-1", ".", "1.", "0.5", "1Ki",
        ] {
            assert_eq!(parse_quantity(ok), Ok(()), "{ok}");
        }
        assert_eq!(parse_quantity("1x"), Err(QUANTITY_FORMAT));
        assert_eq!(parse_quantity("true"), Err(QUANTITY_FORMAT));
        assert_eq!(parse_quantity(""), Err(QUANTITY_FORMAT));
        assert_eq!(parse_quantity("1kk"), Err(QUANTITY_SUFFIX));
        assert_eq!(parse_quantity("1e"), Err(QUANTITY_SUFFIX));
    }

    #[test]
    fn base64_offsets_as_go_reports_them() {
        assert_eq!(go_base64_check(b"aGVsbG8="), Ok(()));
        assert_eq!(go_base64_check(b"aGVsbG8"), Err(4));
        assert_eq!(go_base64_check(b"not base64!"), Err(3));
        assert_eq!(go_base64_check(b"aGVs\nbG8="), Ok(()));
    }

    #[test]
    fn rfc3339_times() {
        assert_eq!(go_parse_time("2024-01-02T03:04:05Z", false), Ok(()));
        assert_eq!(
            go_parse_time("2024-01-02T03:04:05.123+02:00", false),
            Ok(())
        );
        assert_eq!(go_parse_time("2024-01-02T03:04:05.123456Z", true), Ok(()));
        assert!(
            go_parse_time("2024-01-02T03:04:05Z", true)
                .is_err_and(|e| e.ends_with(r#"cannot parse "Z" as ".000000""#))
        );
        assert_eq!(
            go_parse_time("yesterday", false),
            Err(r#"parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006""#.to_owned())
        );
        assert_eq!(
            go_parse_time("2024-13-02T03:04:05Z", false),
            Err(r#"parsing time "2024-13-02T03:04:05Z": month out of range"#.to_owned())
        );
    }
}
