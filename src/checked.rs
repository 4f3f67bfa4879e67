//! A typed decode that reads every value the way serde_json reads JSON, also
//! the values the type ignores.
//!
//! serde_json's typed decode skips the value of a field the type does not
//! know without the checks it makes on the values it reads: a string there
//! may hold bytes that are not UTF-8 or a lone surrogate escape
//! (`"\ud800"`), a number may be out of an `f64`'s range, and containers
//! may nest past serde_json's recursion limit. `serde_json::Value` refuses
//! them all, and so does strict mode
//! (`optics_core::json::scan::validate`), so a full decode that skipped them
//! would keep messages that strict mode refuses as malformed, and the two
//! readers would disagree.
//!
//! [`from_slice`] decodes through a thin wrapper of serde_json's
//! deserializer that hands every call straight through, except that a value
//! to be ignored is read as any value (`deserialize_any`) into nothing:
//! serde_json then parses its numbers, checks its strings' UTF-8 and
//! surrogates and counts its nesting on from where it stands, and builds
//! nothing (strings are borrowed or pass through serde_json's scratch
//! buffer). A message without
//! an unknown field costs about what it cost before: the demo's messages
//! take 0.4 % more instructions to decode (callgrind), the wrapper's calls.

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor,
};
use serde::Deserialize;

/// `serde_json::from_slice`, with the values the type ignores read and
/// checked as serde_json reads JSON (see the module docs): UTF-8, numbers in
/// an `f64`'s range, nesting within serde_json's limit.
///
/// Cost: that of `serde_json::from_slice`, plus a parse (with no allocation)
/// of each ignored value.
///
/// ```
/// #[derive(serde::Deserialize)]
/// struct Id {
///     id: u64,
/// }
///
/// let plain = br#"{"id":1,"extra":{"n":2.5}}"#;
/// assert_eq!(triage::checked::from_slice::<Id>(plain).unwrap().id, 1);
///
/// // serde_json's typed decode skips these unchecked; this one refuses them.
/// for bad in [&br#"{"id":1,"extra":1e400}"#[..], b"{\"id\":1,\"extra\":\"caf\xe9\"}"] {
///     assert!(serde_json::from_slice::<Id>(bad).is_ok());
///     assert!(triage::checked::from_slice::<Id>(bad).is_err());
/// }
/// ```
pub fn from_slice<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> serde_json::Result<T> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = T::deserialize(Checked(&mut de))?;
    de.end()?;
    Ok(value)
}

/// The wrapper: a deserializer, or one of the accesses it hands to
/// visitors, whose ignored values are read in full.
struct Checked<X>(X);

/// A visitor handed on through [`Checked`], so that what it is given is
/// wrapped too.
struct Wrap<V>(V);

/// Forwards `deserialize_*` methods to the inner deserializer, wrapping the
/// visitor.
macro_rules! forward_deserialize {
    ($($method:ident ( $($arg:ident : $ty:ty),* );)*) => {$(
        #[inline]
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, D::Error> {
            self.0.$method($($arg,)* Wrap(visitor))
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Checked<D> {
    type Error = D::Error;

    forward_deserialize! {
        deserialize_any();
        deserialize_bool();
        deserialize_i8();
        deserialize_i16();
        deserialize_i32();
        deserialize_i64();
        deserialize_i128();
        deserialize_u8();
        deserialize_u16();
        deserialize_u32();
        deserialize_u64();
        deserialize_u128();
        deserialize_f32();
        deserialize_f64();
        deserialize_char();
        deserialize_str();
        deserialize_string();
        deserialize_bytes();
        deserialize_byte_buf();
        deserialize_option();
        deserialize_unit();
        deserialize_unit_struct(name: &'static str);
        deserialize_newtype_struct(name: &'static str);
        deserialize_seq();
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_map();
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
        deserialize_identifier();
    }

    /// The one change: an ignored value is read as any value, so that
    /// serde_json checks it as it checks what it reads.
    #[inline]
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_any(Wrap(visitor))
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

/// Forwards `visit_*` methods that take a plain value to the inner visitor.
macro_rules! forward_visit {
    ($($method:ident ( $ty:ty );)*) => {$(
        #[inline]
        fn $method<E: de::Error>(self, value: $ty) -> Result<Self::Value, E> {
            self.0.$method(value)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Wrap<V> {
    type Value = V::Value;

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.expecting(formatter)
    }

    forward_visit! {
        visit_bool(bool);
        visit_i8(i8);
        visit_i16(i16);
        visit_i32(i32);
        visit_i64(i64);
        visit_i128(i128);
        visit_u8(u8);
        visit_u16(u16);
        visit_u32(u32);
        visit_u64(u64);
        visit_u128(u128);
        visit_f32(f32);
        visit_f64(f64);
        visit_char(char);
        visit_str(&str);
        visit_borrowed_str(&'de str);
        visit_string(String);
        visit_bytes(&[u8]);
        visit_borrowed_bytes(&'de [u8]);
        visit_byte_buf(Vec<u8>);
    }

    #[inline]
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        self.0.visit_none()
    }

    #[inline]
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        self.0.visit_unit()
    }

    #[inline]
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        self.0.visit_some(Checked(deserializer))
    }

    #[inline]
    fn visit_newtype_struct<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        self.0.visit_newtype_struct(Checked(deserializer))
    }

    #[inline]
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        self.0.visit_seq(Checked(seq))
    }

    #[inline]
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        self.0.visit_map(Checked(map))
    }

    #[inline]
    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Self::Value, A::Error> {
        self.0.visit_enum(Checked(data))
    }
}

/// A seed whose deserializer is wrapped.
struct Seed<S>(S);

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Seed<S> {
    type Value = S::Value;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<S::Value, D::Error> {
        self.0.deserialize(Checked(deserializer))
    }
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Checked<A> {
    type Error = A::Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        self.0.next_element_seed(Seed(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Checked<A> {
    type Error = A::Error;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.0.next_key_seed(Seed(seed))
    }

    #[inline]
    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        self.0.next_value_seed(Seed(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<'de, A: EnumAccess<'de>> EnumAccess<'de> for Checked<A> {
    type Error = A::Error;
    type Variant = Checked<A::Variant>;

    #[inline]
    fn variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<(T::Value, Self::Variant), A::Error> {
        let (value, variant) = self.0.variant_seed(Seed(seed))?;
        Ok((value, Checked(variant)))
    }
}

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for Checked<A> {
    type Error = A::Error;

    #[inline]
    fn unit_variant(self) -> Result<(), A::Error> {
        self.0.unit_variant()
    }

    #[inline]
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        self.0.newtype_variant_seed(Seed(seed))
    }

    #[inline]
    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        self.0.tuple_variant(len, Wrap(visitor))
    }

    #[inline]
    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        self.0.struct_variant(fields, Wrap(visitor))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::IgnoredAny;

    #[derive(Deserialize, Debug, PartialEq)]
    struct Known {
        id: u64,
        tags: Vec<String>,
    }

    fn both(json: &[u8]) -> (bool, bool) {
        (
            serde_json::from_slice::<Known>(json).is_ok(),
            from_slice::<Known>(json).is_ok(),
        )
    }

    #[test]
    fn what_serde_json_reads_it_reads_alike() {
        let json = br#"{"id":7,"tags":["a","b\u00e9"],"x":{"y":[1,2.5,-3e5,null,true,"z"]}}"#;
        assert_eq!(
            from_slice::<Known>(json).unwrap(),
            serde_json::from_slice::<Known>(json).unwrap()
        );
        // errors in what the type reads are serde_json's own
        for bad in [
            &br#"{"id":"7","tags":[]}"#[..],
            br#"{"id":7}"#,
            br#"{"id":7,"tags":[],"id":8}"#,
            br#"{"id":7,"tags":[]} x"#,
            br#"{"id":7,"tags":[1e400]}"#,
        ] {
            let theirs = serde_json::from_slice::<Known>(bad).unwrap_err();
            let ours = from_slice::<Known>(bad).unwrap_err();
            assert_eq!(ours.to_string(), theirs.to_string());
            assert_eq!(ours.classify(), theirs.classify());
        }
    }

    #[test]
    fn ignored_values_are_checked_as_serde_json_checks_json() {
        // Refused as `serde_json::Value` refuses them, where the typed
        // decode alone skips them.
        for bad in [
            &br#"{"id":1,"tags":[],"x":1e400}"#[..],
            br#"{"id":1,"tags":[],"x":[-1e400]}"#,
            b"{\"id\":1,\"tags\":[],\"x\":{\"s\":\"\xff\"}}",
            b"{\"id\":1,\"tags\":[],\"x\":[\"caf\xc3\"]}",
        ] {
            assert!(serde_json::from_slice::<serde_json::Value>(bad).is_err());
            assert_eq!(both(bad), (true, false), "{}", String::from_utf8_lossy(bad));
            let error = from_slice::<Known>(bad).unwrap_err();
            assert_eq!(error.classify(), serde_json::error::Category::Syntax);
        }
        // 1e-400 reads as 0 and long integers as floats: accepted.
        assert_eq!(
            both(br#"{"id":1,"tags":[],"x":[1e-400,123456789012345678901234567890]}"#),
            (true, true)
        );
    }

    #[test]
    fn nesting_in_an_ignored_value_counts_from_where_it_stands() {
        // serde_json reads 127 levels: the root is one, the ignored array
        // the rest.
        for (levels, ok) in [(126, true), (127, false), (500, false)] {
            let json = format!(
                r#"{{"id":1,"tags":[],"x":{}{}}}"#,
                "[".repeat(levels),
                "]".repeat(levels)
            );
            let value = serde_json::from_str::<serde_json::Value>(&json).is_ok();
            assert_eq!(value, ok, "{levels}");
            assert_eq!(both(json.as_bytes()), (true, ok), "{levels}");
        }
    }

    #[test]
    fn an_ignored_any_reads_the_whole_document() {
        assert!(from_slice::<IgnoredAny>(br#"[{"a":[1,{"b":null}]},"c"]"#).is_ok());
        assert!(from_slice::<IgnoredAny>(b"[1e999]").is_err());
        assert!(serde_json::from_slice::<IgnoredAny>(b"[1e999]").is_ok());
    }
}
