//! Reading optics over JSON bytes, in place.
//!
//! [`Json<'a, T>`](Json) is a borrowed byte range that claims to encode a `T`.
//! Every optic that starts at `T` reads it: [`Json::view`] finds the focus and
//! hands out its bytes where they lie, [`Json::read`] also decodes the focus with
//! its own `serde::Deserialize` (or the field's `deserialize_with`), over the
//! focus's bytes only.
//!
//! Each step of a path has a byte interpretation:
//!
//! | step                      | in the bytes                                                         |
//! |---------------------------|----------------------------------------------------------------------|
//! | struct field              | finds the key (or an alias) in the object, skipping the other values |
//! | flattened / transparent   | the same bytes                                                       |
//! | tuple-struct field `i`    | element `i` of the array                                             |
//! | variant                   | checks the tag where serde writes it; the payload's bytes             |
//! | `at(i)`                   | skips `i` elements                                                   |
//! | `key(k)`                  | the last member named `k` (serde_json keeps the last duplicate)      |
//! | `some()`                  | misses on `null`                                                     |
//!
//! Nothing is decoded on the way and nothing is copied: a step costs one scan of
//! the bytes in front of its focus. Bytes are never trusted: a read never
//! panics, never reads out of bounds and always ends; where the structure it
//! walks through is broken, or a value it returns is cut short, it misses
//! (`None`). What it skips is not validated in full, so a malformed member
//! elsewhere in the object does not stop it finding a well-formed one; use
//! [`Json::validated`] to check a whole document first (strict mode).
//!
//! **Duplicate keys.** For a struct field the byte reader takes the first member
//! with the key; serde_json rejects such a document ("duplicate field"). For a
//! map (`key(k)`) both take the last.
//!
//! **A defaulted field that is missing.** Reading it decodes the default, as
//! serde does. Reading *through* it (a path that goes on into a missing
//! defaulted struct) misses: there are no bytes to go on in.
//!
//! **A field read with a function** (`deserialize_with`, `with`). Reading it
//! calls the function on the field's bytes, as serde does. A path that goes on
//! *through* it reads the bytes as they are written, which need not be the
//! JSON of the field's type: it misses where serde's value has a focus.
//!
//! **An internally tagged newtype variant.** Its payload is decoded from the
//! enum's object without the tag member, as serde does. Its view is the whole
//! object, tag included (nothing is copied), so `key(k)` in a map payload can
//! find the tag where serde's map has no such entry.
//!
//! **Flatten.** A flattened struct reads its own keys in the outer object,
//! which is what serde gives it unless it shares a key with the struct around
//! it (serde gives such a key to the outer field). A flattened map would be
//! read from the whole object, members of the other fields included, so the
//! derive rejects `#[serde(flatten)]` on a field spelled as a map
//! (`HashMap`, `BTreeMap`, `IndexMap`, `Map`, `Value`); a map behind a type
//! alias is not recognized and would read the whole object.

mod enum_tag;
mod leaf;
pub(crate) mod locate;
pub mod scan;
// The crate's only `unsafe` code: SIMD byte classification (see its docs).
#[allow(unsafe_code)]
mod simd;
mod without_internal_tag;

use core::marker::PhantomData;
use std::borrow::Cow;

use serde::de::{Deserialize, Deserializer, Visitor};

use crate::optic::StartsAt;

pub use locate::{JsonDecode, JsonOptic};

/// What one step of a path found in the bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found<'a> {
    /// The focus's bytes, trimmed.
    At(&'a [u8]),
    /// A struct field that the object does not have: serde fills it in (a
    /// default, or `None` for an `Option`), so `read` may still give a value.
    Absent,
    /// No focus: another variant, an index past the end, malformed bytes.
    Miss,
}

/// Where a field's value stands in its struct's JSON, as serde reads it.
/// Written by `#[derive(Optics)]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldJson {
    /// A member of the object, under any of these keys (the name serde reads,
    /// then its aliases).
    Key(&'static [&'static str]),
    /// The struct's own bytes: a `flatten`ed field, the field of a
    /// `transparent` struct, or of a newtype struct.
    Inline,
    /// Element `i` of the array a tuple struct is written as.
    Element(usize),
    /// Never in the JSON (`skip`, `skip_deserializing`): always its default.
    Skipped,
}

/// How serde writes an enum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// `"Unit"` or `{"Variant": payload}` (serde's default).
    External,
    /// `{"tag": "Variant", ...payload's fields}` (`#[serde(tag = "...")]`).
    Internal {
        /// The tag's key.
        tag: &'static str,
    },
    /// `{"tag": "Variant", "content": payload}` (`tag` + `content`).
    Adjacent {
        /// The tag's key.
        tag: &'static str,
        /// The payload's key.
        content: &'static str,
    },
}

/// The names under which serde recognizes one variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VariantTags {
    /// The name serde reads, then its aliases. Empty for a variant serde never
    /// reads (`skip`, `skip_deserializing`).
    pub names: &'static [&'static str],
    /// `#[serde(other)]`: the variant any unknown tag decodes as.
    pub other: bool,
}

/// How a variant's payload is laid out in JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VariantJson {
    /// No payload: the variant is its tag alone.
    Unit,
    /// One value.
    Newtype,
    /// Several values: an array (tuple variant) or an object (struct variant).
    Fields,
}

/// A borrowed byte range that claims to encode a `T`: two words, `Copy`, and
/// typed, so an optic from `T` can only be pointed at a `Json<T>`.
///
/// Making one costs nothing and checks nothing; a read that meets malformed
/// bytes misses. [`Json::validated`] checks the whole document first.
///
/// ```
/// use optics_core::{Json, Optics};
/// use serde::Deserialize;
///
/// #[derive(Optics, Deserialize)]
/// struct Service { name: String, tier: Tier }
/// #[derive(Optics, Deserialize, Debug, PartialEq, Clone, Copy)]
/// enum Tier { Critical, Standard }
///
/// let bytes = br#"{"name": "checkout", "tier": "Critical"}"#;
/// let service = Json::<Service>::new(bytes);
/// assert_eq!(service.read(Service::tier), Some(Tier::Critical));
/// assert_eq!(service.view(Service::name).unwrap().bytes(), br#""checkout""#);
/// // A borrowed leaf points into the message.
/// let name: Option<&str> = Json::<Service>::new(br#"{"name":"db"}"#).view(Service::name)
///     .and_then(|name| name.read_as());
/// assert_eq!(name, Some("db"));
/// ```
pub struct Json<'a, T: ?Sized> {
    bytes: &'a [u8],
    ty: PhantomData<fn() -> PhantomData<T>>,
}

impl<T: ?Sized> Clone for Json<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: ?Sized> Copy for Json<'_, T> {}

impl<T: ?Sized> core::fmt::Debug for Json<'_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "Json<{}>({})",
            core::any::type_name::<T>(),
            String::from_utf8_lossy(self.bytes)
        )
    }
}

impl<'a, T: ?Sized> Json<'a, T> {
    /// Views `bytes` as the JSON of a `T`. O(1), nothing checked or copied.
    #[inline]
    pub const fn new(bytes: &'a [u8]) -> Self {
        Json {
            bytes,
            ty: PhantomData,
        }
    }

    /// Views `bytes` as the JSON of a `T` after checking that they are one
    /// well-formed JSON document (strict mode). O(n), nothing allocated.
    pub fn validated(bytes: &'a [u8]) -> Result<Self, scan::SyntaxError> {
        scan::validate(bytes)?;
        Ok(Json::new(bytes))
    }

    /// The bytes this view covers, as given (a view made by [`Json::view`] is
    /// trimmed of whitespace).
    #[inline]
    pub const fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The focus's own bytes where they lie in these: nothing decoded, nothing
    /// copied. Costs one scan of the bytes in front of the focus, per step.
    /// `None` where the focus is absent or the bytes are malformed.
    #[inline]
    pub fn view<O>(self, optic: O) -> Option<Json<'a, O::Focus>>
    where
        O: JsonOptic + StartsAt<T>,
    {
        match optic.locate(self.bytes) {
            Found::At(bytes) => Some(Json::new(bytes)),
            Found::Absent | Found::Miss => None,
        }
    }

    /// The focus, decoded from its own bytes only, exactly as a full decode
    /// would decode it (a missing defaulted or `Option` field included).
    /// Allocates only what the leaf's own `Deserialize` allocates: nothing for
    /// numbers, enums, bools and borrowed strings.
    #[inline]
    pub fn read<O>(self, optic: O) -> Option<O::Focus>
    where
        O: JsonDecode<'a> + StartsAt<T>,
    {
        optic.decode(optic.locate(self.bytes))
    }

    /// Decodes the bytes as a `T` with its `Deserialize`: the whole value.
    pub fn decode(self) -> Option<T>
    where
        T: Deserialize<'a> + Sized,
    {
        decode(self.bytes)
    }

    /// Decodes the bytes as some other type `A`, for a view whose type differs
    /// from how it is read (`Json<String>` read as `&str`).
    pub fn read_as<A: Deserialize<'a>>(self) -> Option<A> {
        decode(self.bytes)
    }
}

impl<'a, T: ?Sized> From<&'a [u8]> for Json<'a, T> {
    fn from(bytes: &'a [u8]) -> Self {
        Json::new(bytes)
    }
}

impl<'a, T: ?Sized> From<&'a bytes::Bytes> for Json<'a, T> {
    fn from(bytes: &'a bytes::Bytes) -> Self {
        Json::new(bytes)
    }
}

/// Decodes one value from exactly these bytes, as `serde_json::from_slice`
/// does. Used for every leaf, so a leaf is read exactly as a full decode reads
/// it. A plain string, a small non-negative integer, a bool or `null` is read
/// without setting up serde_json (the visitor gets the call serde_json would
/// make); anything else goes to serde_json.
#[inline]
pub fn decode<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Option<T> {
    leaf::decode(bytes)
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
/// Named by `#[derive(Optics)]`'s output; not part of the public API.
#[doc(hidden)]
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
/// derive does for a `#[serde(borrow)]` field of that type. Named by
/// `#[derive(Optics)]`'s output; not part of the public API.
#[doc(hidden)]
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
