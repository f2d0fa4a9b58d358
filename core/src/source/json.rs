//! JSON read as the API server's strict decoder reads it: duplicate keys and non-finite numbers
//! are errors.

use crate::diag::Diagnostic;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::fmt;

/// Text from bytes, or an `invalid-utf8` error naming the line and column (1-based, counted in
/// characters as the YAML reader counts them) of the first byte that is not UTF-8. For the front
/// ends that receive bytes (the CLI's files, the plugin's linear memory).
pub fn text_from_bytes(bytes: &[u8]) -> Result<&str, Diagnostic> {
    std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to();
        let good = String::from_utf8_lossy(bytes.get(..at).unwrap_or_default());
        let line = good.matches('\n').count() + 1;
        let col = good.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        let (line, col) = (
            u32::try_from(line).unwrap_or(u32::MAX),
            u32::try_from(col).unwrap_or(u32::MAX),
        );
        Diagnostic::request(
            "invalid-utf8",
            "",
            format!("line {line} column {col}: not UTF-8 text (byte {at})"),
        )
        .at(line, col)
    })
}

/// Parses one JSON value (a request), rejecting duplicate keys, which serde_json would otherwise
/// resolve silently by keeping the last.
pub fn parse_json_strict(text: &str) -> Result<Value, Diagnostic> {
    let mut de = serde_json::Deserializer::from_str(text);
    let v = StrictValue::deserialize_from(&mut de).map_err(json_error)?;
    de.end().map_err(json_error)?;
    Ok(v)
}

pub(super) fn json_error(e: serde_json::Error) -> Diagnostic {
    let (line, col) = (e.line() as u32, e.column() as u32);
    Diagnostic::request("invalid-json", "", format!("invalid JSON: {e}")).at(line, col)
}

pub(super) struct StrictValue;

impl StrictValue {
    pub(super) fn deserialize_from<'de, D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        d.deserialize_any(StrictVisitor)
    }
}

pub(super) struct StrictVisitor;

pub(super) struct Strict(Value);

impl<'de> de::Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("not a finite number"))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(k) = m.next_key::<String>()? {
            let Strict(v) = m.next_value()?;
            if out.contains_key(&k) {
                return Err(de::Error::custom(format!("duplicate key {k:?}")));
            }
            out.insert(k, v);
        }
        Ok(Value::Object(out))
    }
}
