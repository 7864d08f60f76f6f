//! JSON text into typed records, for every reader of stored and imported data: serde_json's
//! own parser, with one rule of ours, a struct is read from a JSON object only.
//!
//! serde_json also accepts a struct written as an array of its field values in declaration
//! order. Nothing of ours writes one that way (exports, IndexedDB records and the contract
//! are objects, `shared/spec/data-model.md`), and a positional array in a hostile file is
//! read by position, not by name. Accepting it costs a second reader per struct: serde's
//! derive generates `visit_seq` beside `visit_map` for every type, and serde_json calls it
//! when a struct's value starts with `[`. [`from_str`] asks serde_json for a map wherever a
//! struct is expected, so no `visit_seq` of a struct is ever compiled; in the web app that
//! is 10.9 KB of gzip (`docs/adr/0014-site-size.md`). Numbers, strings, escapes, enums,
//! sequences, unknown fields, error messages and their positions are serde_json's own.
//!
//! The adapter (`Objects`) wraps every deserializer, visitor, seed and access of the
//! parse, so nested records follow the same rule; it adds no state and no work.

use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor,
};
use std::fmt;

/// `T` from JSON text, as `serde_json::from_str` reads it except that a struct must be a
/// JSON object (an array in its place is refused: `invalid type: sequence, expected …`).
/// Trailing characters other than white space are refused, as serde_json does.
pub fn from_str<T: DeserializeOwned>(text: &str) -> serde_json::Result<T> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = T::deserialize(Objects(&mut de))?;
    de.end()?;
    Ok(value)
}

/// The adapter: a deserializer, visitor, seed or access that forwards everything to the one
/// it wraps, wrapping what it hands on, and reads a struct as a map.
struct Objects<T>(T);

macro_rules! forward_deserialize {
    ($($method:ident($($arg:ident: $ty:ty),*))*) => {$(
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, D::Error> {
            self.0.$method($($arg,)* Objects(visitor))
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Objects<D> {
    type Error = D::Error;

    forward_deserialize! {
        deserialize_any() deserialize_bool() deserialize_i8() deserialize_i16() deserialize_i32() deserialize_i64()
        deserialize_i128() deserialize_u8() deserialize_u16() deserialize_u32() deserialize_u64() deserialize_u128()
        deserialize_f32() deserialize_f64() deserialize_char() deserialize_str() deserialize_string()
        deserialize_bytes() deserialize_byte_buf() deserialize_option() deserialize_unit() deserialize_seq()
        deserialize_map() deserialize_identifier() deserialize_ignored_any()
        deserialize_unit_struct(name: &'static str) deserialize_newtype_struct(name: &'static str)
        deserialize_tuple(len: usize) deserialize_tuple_struct(name: &'static str, len: usize)
        deserialize_enum(name: &'static str, variants: &'static [&'static str])
    }

    /// The one change: a struct is a map, so its visitor's `visit_seq` is never called.
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_map(Objects(visitor))
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

macro_rules! forward_visit {
    ($($method:ident($ty:ty))*) => {$(
        fn $method<E: de::Error>(self, v: $ty) -> Result<Self::Value, E> {
            self.0.$method(v)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Objects<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.0.expecting(f)
    }

    forward_visit! {
        visit_bool(bool) visit_i8(i8) visit_i16(i16) visit_i32(i32) visit_i64(i64) visit_i128(i128)
        visit_u8(u8) visit_u16(u16) visit_u32(u32) visit_u64(u64) visit_u128(u128) visit_f32(f32)
        visit_f64(f64) visit_char(char) visit_str(&str) visit_borrowed_str(&'de str) visit_string(String)
        visit_bytes(&[u8]) visit_borrowed_bytes(&'de [u8]) visit_byte_buf(Vec<u8>)
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        self.0.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        self.0.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        self.0.visit_some(Objects(deserializer))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        self.0.visit_newtype_struct(Objects(deserializer))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        self.0.visit_seq(Objects(seq))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        self.0.visit_map(Objects(map))
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Self::Value, A::Error> {
        self.0.visit_enum(Objects(data))
    }
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Objects<S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        self.0.deserialize(Objects(deserializer))
    }
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Objects<A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, A::Error> {
        self.0.next_element_seed(Objects(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Objects<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        self.0.next_key_seed(Objects(seed))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.0.next_value_seed(Objects(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<'de, A: EnumAccess<'de>> EnumAccess<'de> for Objects<A> {
    type Error = A::Error;
    type Variant = Objects<A::Variant>;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self::Variant), A::Error> {
        self.0.variant_seed(Objects(seed)).map(|(value, variant)| (value, Objects(variant)))
    }
}

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for Objects<A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.0.unit_variant()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        self.0.newtype_variant_seed(Objects(seed))
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        self.0.tuple_variant(len, Objects(visitor))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        self.0.struct_variant(fields, Objects(visitor))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ExportEnvelope, Probe, ProbeStatus, Usage};
    use serde_json::Value;

    /// What serde_json reads, so that everything but the array form stays as it was.
    fn same_as_serde_json<T: DeserializeOwned + PartialEq + fmt::Debug>(text: &str) {
        match (from_str::<T>(text), serde_json::from_str::<T>(text)) {
            (Ok(ours), Ok(theirs)) => assert_eq!(ours, theirs, "{text}"),
            (Err(ours), Err(theirs)) => assert_eq!(ours.to_string(), theirs.to_string(), "{text}"),
            (ours, theirs) => panic!("{text}: ours {ours:?}, serde_json {theirs:?}"),
        }
    }

    #[test]
    fn records_read_as_serde_json_reads_them() {
        let demo = include_str!("../../../demo/demo-data.json");
        same_as_serde_json::<ExportEnvelope>(demo);
        let env: ExportEnvelope = from_str(demo).unwrap();
        assert!(!env.probes.is_empty());
        for probe in &env.probes {
            same_as_serde_json::<Probe>(&serde_json::to_string(probe).unwrap());
        }
        for text in [
            r#"{"inputTokens":1,"outputTokens":2,"unknown":[1,{"a":null}]}"#,
            r#"{"inputTokens":1,"outputTokens":2,"inputTokens":3}"#,
            r#"{"inputTokens":"1"}"#,
            r#"{"inputTokens":1} x"#,
            r#"{"inputTokens":1e400}"#,
            "{\"input\\u0054okens\":7}",
            "",
        ] {
            same_as_serde_json::<Usage>(text);
        }
        for text in [r#""success""#, r#""nope""#, "3", r#"{"success":null}"#] {
            same_as_serde_json::<ProbeStatus>(text);
        }
        same_as_serde_json::<Value>(r#"{"a":[1,2.5,"x",{"b":[]}],"c":null}"#);
        same_as_serde_json::<Option<Vec<Usage>>>(r#"[{"inputTokens":1},{}]"#);
        same_as_serde_json::<Option<Vec<Usage>>>("null");
    }

    #[test]
    fn a_struct_written_as_an_array_is_refused() {
        assert_eq!(serde_json::from_str::<Usage>("[1,2]").unwrap().input_tokens, 1);
        let err = from_str::<Usage>("[1,2]").unwrap_err().to_string();
        assert_eq!(err, "invalid type: sequence, expected struct Usage at line 1 column 0");
        assert!(from_str::<Usage>("[").is_err());
        let nested = r#"[{"inputTokens":1},[2,3]]"#;
        assert!(serde_json::from_str::<Vec<Usage>>(nested).is_ok());
        assert!(from_str::<Vec<Usage>>(nested).unwrap_err().to_string().contains("expected struct Usage"));
    }
}
