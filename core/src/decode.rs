//! Decoding a borrowed JSON value while recording the path of the innermost failure.
//!
//! Replaces `serde_path_to_error` over `&serde_json::Value`: that crate wraps the deserializer
//! *and* every visitor, map and sequence access, so each type's decoding code is compiled with a
//! second layer of wrappers around it (about a third of the wasm module's decoding code). This
//! deserializer walks the `Value` itself, so there is one layer, and keys are borrowed from the
//! value instead of copied into a `String` per field.
//!
//! The results and error texts are those of `serde_json`'s own `&Value` deserializer (leaves are
//! handed to it), and the path is the one `serde_path_to_error` reports: set by the deepest call
//! that fails (a value, a map key, a sequence element, or the visitor of a map or sequence),
//! printed as keys joined with `.`, indexes as `[i]`, `.` for the root.

use std::cell::RefCell;
use std::fmt::Write as _;

use serde::Deserialize;
use serde::de::value::BorrowedStrDeserializer;
use serde::de::{self, DeserializeSeed, Visitor};
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

/// Leaves go to `serde_json`'s `&Value` deserializer (same results, same messages).
macro_rules! leaf {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            let r = self.value.$method(visitor);
            r.map_err(|e| self.fail(e))
        }
    )*};
}

impl<'de> de::Deserializer<'de> for PathDe<'de, '_> {
    type Error = Error;

    leaf! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char deserialize_str
        deserialize_string deserialize_bytes deserialize_byte_buf deserialize_unit
        deserialize_identifier deserialize_ignored_any
    }

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let (chain, track) = (self.chain, self.track);
        let r = match self.value {
            Value::Object(m) => self.map(m, visitor),
            Value::Array(a) => self.seq(a, visitor),
            leaf => leaf.deserialize_any(visitor),
        };
        r.map_err(|e| track.trigger(chain, e))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let (chain, track) = (self.chain, self.track);
        let r = match self.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        };
        r.map_err(|e| track.trigger(chain, e))
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        let r = self.value.deserialize_unit_struct(name, visitor);
        r.map_err(|e| self.fail(e))
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
        let r = match self.value {
            Value::Array(a) => self.seq(a, visitor),
            other => other.deserialize_seq(visitor),
        };
        r.map_err(|e| track.trigger(chain, e))
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
        let r = match self.value {
            Value::Object(m) => self.map(m, visitor),
            other => other.deserialize_map(visitor),
        };
        r.map_err(|e| track.trigger(chain, e))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let (chain, track) = (self.chain, self.track);
        let r = match self.value {
            Value::Object(m) => self.map(m, visitor),
            Value::Array(a) => self.seq(a, visitor),
            other => other.deserialize_struct(name, fields, visitor),
        };
        r.map_err(|e| track.trigger(chain, e))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        // The core's externally tagged enums are unit variants (strings): no inner path to track.
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
        seed.deserialize(BorrowedStrDeserializer::<Error>::new(key))
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
        match self.iter.size_hint() {
            (lo, Some(hi)) if lo == hi => Some(hi),
            _ => None,
        }
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
        match self.iter.size_hint() {
            (lo, Some(hi)) if lo == hi => Some(hi),
            _ => None,
        }
    }
}
