//! Decoding a borrowed JSON value while recording the path of the innermost failure.
//!
//! Replaces `serde_path_to_error` over `&serde_json::Value`: that crate wraps the deserializer
//! *and* every visitor, map and sequence access, so each type's decoding code is compiled with a
//! second layer of wrappers around it (about a third of the wasm module's decoding code). This
//! deserializer walks the `Value` itself, so there is one layer, and keys are borrowed from the
//! value instead of copied into a `String` per field.
//!
//! The results and error texts are those of `serde_json`'s own `&Value` deserializer (the visitor
//! gets the same calls), and the path is the one `serde_path_to_error` reports: set by the deepest call
//! that fails (a value, a map key, a sequence element, or the visitor of a map or sequence),
//! printed as keys joined with `.`, indexes as `[i]`, `.` for the root.

use std::cell::RefCell;
use std::fmt::Write as _;

use serde::Deserialize;
use serde::de::value::BorrowedStrDeserializer;
use serde::de::{self, DeserializeSeed, Unexpected, Visitor};
use serde_json::{Error, Map, Value};

#[derive(Clone, Copy)]
enum Chain<'a> {
    Root,
    Key(&'a Chain<'a>, &'a str),
    Index(&'a Chain<'a>, usize),
}

impl Chain<'_> {
    fn write(&self, out: &mut String) {
        match *self {
            Chain::Root => {}
            Chain::Key(parent, key) => {
                parent.write(out);
                if !matches!(parent, Chain::Root) {
                    out.push('.');
                }
                out.push_str(key);
            }
            Chain::Index(parent, index) => {
                parent.write(out);
                let _ = write!(out, "[{index}]");
            }
        }
    }
}

/// The first (innermost) failure's path.
struct Track(RefCell<Option<String>>);

impl Track {
    fn trigger(&self, chain: &Chain<'_>, err: Error) -> Error {
        let mut slot = self.0.borrow_mut();
        if slot.is_none() {
            let mut path = String::new();
            chain.write(&mut path);
            if path.is_empty() {
                path.push('.');
            }
            *slot = Some(path);
        }
        err
    }
}

/// Decodes `value` as `T`; on failure, the path of the failing field (`.` for the value itself,
/// `a.b[2].c` below it) and `serde_json`'s message.
pub fn from_value_ref<'de, T: Deserialize<'de>>(value: &'de Value) -> Result<T, (String, Error)> {
    let track = Track(RefCell::new(None));
    T::deserialize(PathDe {
        value,
        chain: &Chain::Root,
        track: &track,
    })
    .map_err(|e| (track.0.into_inner().unwrap_or_else(|| ".".to_owned()), e))
}

struct PathDe<'de, 'c> {
    value: &'de Value,
    chain: &'c Chain<'c>,
    track: &'c Track,
}

impl<'de, 'c> PathDe<'de, 'c> {
    fn map<V: Visitor<'de>>(self, m: &'de Map<String, Value>, v: V) -> Result<V::Value, Error> {
        let len = m.len();
        let mut access = MapDe {
            iter: m.iter(),
            pending: None,
            chain: self.chain,
            track: self.track,
        };
        let out = v.visit_map(&mut access)?;
        if access.iter.len() == 0 {
            Ok(out)
        } else {
            Err(de::Error::invalid_length(len, &"fewer elements in map"))
        }
    }

    fn seq<V: Visitor<'de>>(self, a: &'de [Value], v: V) -> Result<V::Value, Error> {
        let len = a.len();
        let mut access = SeqDe {
            iter: a.iter(),
            index: 0,
            chain: self.chain,
            track: self.track,
        };
        let out = v.visit_seq(&mut access)?;
        if access.iter.len() == 0 {
            Ok(out)
        } else {
            Err(de::Error::invalid_length(len, &"fewer elements in array"))
        }
    }

    fn fail(&self, e: Error) -> Error {
        self.track.trigger(self.chain, e)
    }
}

/// An op's input member at `at` (`input`, `input.curves[1].kubeletConfig`) decoded as `T`; a
/// failure is the request error `invalid-input` naming the field below `at`. The one decoding
/// step every op input goes through (`contract::decode` is this at `input`).
pub fn input_at<T: serde::de::DeserializeOwned>(
    value: &Value,
    at: &crate::FieldPath,
) -> Result<T, crate::Diagnostic> {
    // The fast, small path first; the path-tracking decoder only runs to explain a failure.
    // Off in the wasm package (`fast-decode`): the second decoder is a copy of every type's
    // Deserialize code; the path-tracking one alone gives the same values and errors.
    #[cfg(feature = "fast-decode")]
    if let Ok(t) = T::deserialize(value) {
        return Ok(t);
    }
    // Borrowed, like `validate::decode_at`: one decoder per type serves both (the owned one would
    // be a second copy of every type's decoding code in the wasm module).
    from_value_ref(value).map_err(|(path, e)| {
        let field = if path == "." {
            at.as_str().to_owned()
        } else {
            format!("{}.{path}", at.as_str())
        };
        crate::Diagnostic::request("invalid-input", &field, format!("{field}: {e}"))
    })
}

/// What a value is, for "invalid type" errors, as `serde_json` names it.
pub(crate) fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                Unexpected::Unsigned(u)
            } else if let Some(i) = n.as_i64() {
                Unexpected::Signed(i)
            } else {
                Unexpected::Float(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

/// Leaves are handed to the visitor here, the way `serde_json`'s `&Value` deserializer hands
/// them (same calls, so the same values and messages), rather than to that deserializer: calling
/// it would compile its code once more for every visitor, including its map and sequence paths.
impl<'de> PathDe<'de, '_> {
    /// Takes what was expected as a trait object (every visitor is one): generic, it was compiled
    /// once per visitor, about 90 copies of the same few instructions.
    fn invalid(&self, expected: &dyn de::Expected) -> Error {
        self.fail(de::Error::invalid_type(unexpected(self.value), expected))
    }

    fn number<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let Value::Number(n) = self.value else {
            return Err(self.invalid(&visitor));
        };
        let r = if let Some(u) = n.as_u64() {
            visitor.visit_u64(u)
        } else if let Some(i) = n.as_i64() {
            visitor.visit_i64(i)
        } else {
            visitor.visit_f64(n.as_f64().unwrap_or(f64::NAN))
        };
        r.map_err(|e| self.fail(e))
    }

    fn string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let Value::String(s) = self.value else {
            return Err(self.invalid(&visitor));
        };
        visitor.visit_borrowed_str(s).map_err(|e| self.fail(e))
    }
}

macro_rules! numbers {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            self.number(visitor)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for PathDe<'de, '_> {
    type Error = Error;

    numbers! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64
    }

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let (chain, track) = (self.chain, self.track);
        let r = match self.value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(_) => return self.number(visitor),
            Value::String(s) => visitor.visit_borrowed_str(s),
            Value::Array(a) => self.seq(a, visitor),
            Value::Object(m) => self.map(m, visitor),
        };
        r.map_err(|e| track.trigger(chain, e))
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Bool(b) => visitor.visit_bool(*b).map_err(|e| self.fail(e)),
            _ => Err(self.invalid(&visitor)),
        }
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.string(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.string(visitor)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.string(visitor)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.string(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let (chain, track) = (self.chain, self.track);
        match self.value {
            Value::String(s) => visitor
                .visit_borrowed_str(s)
                .map_err(|e| track.trigger(chain, e)),
            Value::Array(a) => self.seq(a, visitor).map_err(|e| track.trigger(chain, e)),
            _ => Err(self.invalid(&visitor)),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Null => visitor.visit_unit().map_err(|e| self.fail(e)),
            _ => Err(self.invalid(&visitor)),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit().map_err(|e| self.fail(e))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let (chain, track) = (self.chain, self.track);
        let r = match self.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        };
        r.map_err(|e| track.trigger(chain, e))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        let (chain, track) = (self.chain, self.track);
        visitor
            .visit_newtype_struct(self)
            .map_err(|e| track.trigger(chain, e))
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let (chain, track) = (self.chain, self.track);
        match self.value {
            Value::Array(a) => self.seq(a, visitor).map_err(|e| track.trigger(chain, e)),
            _ => Err(self.invalid(&visitor)),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let (chain, track) = (self.chain, self.track);
        match self.value {
            Value::Object(m) => self.map(m, visitor).map_err(|e| track.trigger(chain, e)),
            _ => Err(self.invalid(&visitor)),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let (chain, track) = (self.chain, self.track);
        let r = match self.value {
            Value::Object(m) => self.map(m, visitor),
            Value::Array(a) => self.seq(a, visitor),
            _ => return Err(self.invalid(&visitor)),
        };
        r.map_err(|e| track.trigger(chain, e))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        // The core's externally tagged enums are unit variants (strings): no inner path to track,
        // so `serde_json` decodes them (only enum visitors reach its code).
        let r = self.value.deserialize_enum(name, variants, visitor);
        r.map_err(|e| self.fail(e))
    }
}

struct MapDe<'de, 'c> {
    iter: serde_json::map::Iter<'de>,
    pending: Option<(&'de str, &'de Value)>,
    chain: &'c Chain<'c>,
    track: &'c Track,
}

impl<'de> de::MapAccess<'de> for MapDe<'de, '_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let Some((key, value)) = self.iter.next() else {
            return Ok(None);
        };
        self.pending = Some((key.as_str(), value));
        seed.deserialize(KeyDe(key))
            .map(Some)
            .map_err(|e| self.track.trigger(&Chain::Key(self.chain, key), e))
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, Error> {
        let Some((key, value)) = self.pending.take() else {
            return Err(de::Error::custom("value is missing"));
        };
        let chain = Chain::Key(self.chain, key);
        seed.deserialize(PathDe {
            value,
            chain: &chain,
            track: self.track,
        })
        .map_err(|e| self.track.trigger(&chain, e))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

/// A map key: the key string, or for a map keyed by integers (`SweepPartial::variants`, written
/// `{"0": …}`) the integer it spells, as `serde_json`'s own `&Value` deserializer reads keys.
/// Everything else behaves as serde's `BorrowedStrDeserializer`.
struct KeyDe<'de>(&'de str);

macro_rules! integer_keys {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            integer_key(self.0, visitor)
        }
    )*};
}

/// A key that spells an integer in JSON's syntax (an optional `-`, no `+`, no leading zero) goes
/// to the visitor as that integer (so a negative key meets a `usize` visitor's own range error);
/// any other key is the "invalid type: string" error it always was.
fn integer_key<'de, V: Visitor<'de>>(key: &'de str, visitor: V) -> Result<V::Value, Error> {
    let digits = key.strip_prefix('-').unwrap_or(key);
    let json_integer = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'));
    if json_integer {
        if let Ok(u) = key.parse::<u64>() {
            return visitor.visit_u64(u);
        }
        if let Ok(i) = key.parse::<i64>() {
            return visitor.visit_i64(i);
        }
    }
    Err(de::Error::invalid_type(Unexpected::Str(key), &visitor))
}

impl<'de> de::Deserializer<'de> for KeyDe<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_borrowed_str(self.0)
    }

    integer_keys! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        BorrowedStrDeserializer::<Error>::new(self.0).deserialize_enum(name, variants, visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i128 u128 f32 f64 char str string bytes byte_buf option unit unit_struct
        newtype_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

struct SeqDe<'de, 'c> {
    iter: std::slice::Iter<'de, Value>,
    index: usize,
    chain: &'c Chain<'c>,
    track: &'c Track,
}

impl<'de> de::SeqAccess<'de> for SeqDe<'de, '_> {
    type Error = Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Error> {
        let Some(value) = self.iter.next() else {
            return Ok(None);
        };
        let chain = Chain::Index(self.chain, self.index);
        self.index += 1;
        seed.deserialize(PathDe {
            value,
            chain: &chain,
            track: self.track,
        })
        .map(Some)
        .map_err(|e| self.track.trigger(&chain, e))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}
