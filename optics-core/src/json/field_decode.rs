//! Decoding a derived field as serde's derive decodes it: with its
//! `deserialize_with`, missing from its object, or borrowed as a `Cow`. Named
//! only by the derive's output (through `optics_core::__private`).

use std::borrow::Cow;

use serde::de::{Deserialize, Deserializer, Visitor};

use super::locate::Located;
use crate::optic::{FieldOf, VariantFieldOf};

pub use super::locate::buffered::{decode_with_at, ContentDe};

/// How one field is decoded, missing or present: implemented by
/// `#[derive(Optics)]` so that `deserialize_with` and `default` apply.
pub trait FieldDecode<'de, const I: usize>: FieldOf<I> {
    /// The field's value from what was found for it, decoded as serde
    /// decodes it there (see [`decode_at`]).
    fn decode_field(found: Located<'de>) -> Option<Self::Type>;
}

/// Field `I` is read by its own `Deserialize` (no `with` or
/// `deserialize_with`): its bytes are its type's JSON, so a byte read may go
/// on past it. Implemented by `#[derive(Optics)]`.
#[diagnostic::on_unimplemented(
    message = "a byte read cannot go on past field number {I} of `{Self}`: it is read `with` a function",
    label = "this struct's field is read `with` a function",
    note = "serde's value is what the function makes of the field's bytes, which need not be the JSON of the field's type (a function may parse a string, or reverse a list), so a path that went on in the bytes could find what serde's value does not hold",
    note = "read the field itself from the bytes (`json.read(Type::field)`), then go on on the value it decodes to; on values the whole path works"
)]
pub trait FieldThrough<const I: usize> {}

/// [`FieldThrough`] for a field of a struct-like variant.
#[diagnostic::on_unimplemented(
    message = "a byte read cannot go on past field number {I} of `{Self}`'s variants: it is read `with` a function",
    label = "this enum's variant field is read `with` a function",
    note = "serde's value is what the function makes of the field's bytes, which need not be the JSON of the field's type, so a path that went on in the bytes could find what serde's value does not hold",
    note = "read the field itself from the bytes, then go on on the value it decodes to; on values the whole path works"
)]
pub trait VariantFieldThrough<const I: usize> {}

/// How one field of a struct-like variant is decoded.
pub trait VariantFieldDecode<'de, const I: usize>: VariantFieldOf<I> {
    /// The field's value from what was found for it.
    fn decode_field(found: Located<'de>) -> Option<Self::Type>;
}

/// Decodes a focus found at `spot` with its own `Deserialize`, as serde
/// decodes it there: straight from the bytes, or as from serde's buffer.
#[inline]
pub fn decode_at<'de, T: serde::Deserialize<'de>>(spot: super::locate::Spot<'de>) -> Option<T> {
    super::locate::buffered::decode_at(spot)
}

/// Decodes one value from exactly these bytes with a `deserialize_with`
/// function, as serde's derive calls it for that field.
#[inline]
pub fn decode_with<'de, T>(
    bytes: &'de [u8],
    with: impl FnOnce(
        &mut serde_json::Deserializer<serde_json::de::SliceRead<'de>>,
    ) -> Result<T, serde_json::Error>,
) -> Option<T> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = with(&mut de).ok()?;
    de.end().ok()?;
    Some(value)
}

/// Decodes a `Cow<str>` borrowed from the input where the string has no
/// escapes, owned where it has: what serde's derive does for a
/// `#[serde(borrow)]` field of that type (a plain `Cow` always owns).
pub fn borrow_cow_str<'de: 'a, 'a, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Cow<'a, str>, D::Error> {
    struct Text;

    impl<'a> Visitor<'a> for Text {
        type Value = Cow<'a, str>;

        fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            f.write_str("a string")
        }

        fn visit_borrowed_str<E: serde::de::Error>(self, text: &'a str) -> Result<Self::Value, E> {
            Ok(Cow::Borrowed(text))
        }

        fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Self::Value, E> {
            Ok(Cow::Owned(text.to_owned()))
        }

        fn visit_string<E: serde::de::Error>(self, text: String) -> Result<Self::Value, E> {
            Ok(Cow::Owned(text))
        }

        fn visit_borrowed_bytes<E: serde::de::Error>(
            self,
            bytes: &'a [u8],
        ) -> Result<Self::Value, E> {
            core::str::from_utf8(bytes)
                .map(Cow::Borrowed)
                .map_err(|_| E::invalid_value(serde::de::Unexpected::Bytes(bytes), &self))
        }

        fn visit_bytes<E: serde::de::Error>(self, bytes: &[u8]) -> Result<Self::Value, E> {
            self.visit_borrowed_bytes::<E>(bytes)
                .map(|text| Cow::Owned(text.into_owned()))
        }
    }

    deserializer.deserialize_str(Text)
}

/// Decodes a `Cow<[u8]>` borrowed from the input where it can be, as serde's
/// derive does for a `#[serde(borrow)]` field of that type.
pub fn borrow_cow_bytes<'de: 'a, 'a, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Cow<'a, [u8]>, D::Error> {
    struct Bytes;

    impl<'a> Visitor<'a> for Bytes {
        type Value = Cow<'a, [u8]>;

        fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            f.write_str("a byte array")
        }

        fn visit_borrowed_str<E: serde::de::Error>(self, text: &'a str) -> Result<Self::Value, E> {
            Ok(Cow::Borrowed(text.as_bytes()))
        }

        fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Self::Value, E> {
            Ok(Cow::Owned(text.as_bytes().to_vec()))
        }

        fn visit_string<E: serde::de::Error>(self, text: String) -> Result<Self::Value, E> {
            Ok(Cow::Owned(text.into_bytes()))
        }

        fn visit_borrowed_bytes<E: serde::de::Error>(
            self,
            bytes: &'a [u8],
        ) -> Result<Self::Value, E> {
            Ok(Cow::Borrowed(bytes))
        }

        fn visit_bytes<E: serde::de::Error>(self, bytes: &[u8]) -> Result<Self::Value, E> {
            Ok(Cow::Owned(bytes.to_vec()))
        }

        fn visit_byte_buf<E: serde::de::Error>(self, bytes: Vec<u8>) -> Result<Self::Value, E> {
            Ok(Cow::Owned(bytes))
        }
    }

    deserializer.deserialize_bytes(Bytes)
}

/// What serde makes of a field missing from its object, for a field without a
/// default: `None` for an `Option`, nothing (a miss) otherwise. Mirrors serde's
/// own rule: the type is asked to deserialize from a deserializer that only
/// knows "none".
#[inline]
pub fn decode_absent<'de, T: Deserialize<'de>>() -> Option<T> {
    T::deserialize(MissingField).ok()
}

struct MissingField;

impl<'de> Deserializer<'de> for MissingField {
    type Error = serde::de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(serde::de::Error::custom("missing field"))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_none()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}
