//! The byte interpretation of every optic kind: how each finds its focus in
//! the JSON of its source ([`JsonOptic`]) and decodes it ([`JsonDecode`]).

use serde::de::Deserialize;

use super::enum_tag::{
    leading_variant, locate_variant, tag_of, variant_of_tag, variant_quoted_at, widen_by_quotes,
    PlainTags,
};
use super::field_decode::{FieldDecode, VariantFieldDecode};
use super::scan::{self, Lookup};
use super::{decode, without_internal_tag, Encoding, FieldJson, Found, VariantJson};
use crate::optic::{
    At, Discriminant, Field, FieldOf, Indexed, Key, Keyed, Optic, Some_, Tagged, Then, Variant,
    VariantField, VariantFieldOf, VariantOf,
};

/// An optic that can find its focus in the JSON bytes of its source.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot read JSON bytes",
    note = "optics derived with #[derive(Optics)], at(i), key(k), some() and their compositions read bytes",
    note = "a traversal (a path through `each()`) has many foci, so no one focus to `view`, `read` or `set`: use `iter`, `read_each` or `set_all`"
)]
pub trait JsonOptic: Optic {
    /// Finds the focus in `bytes`, the JSON of a `Source`: one scan of the
    /// bytes in front of it, nothing decoded, nothing copied.
    fn locate<'a>(&self, bytes: &'a [u8]) -> Found<'a>;
}

/// An optic that can decode its focus from the bytes [`JsonOptic::locate`]
/// found, borrowing from them for `'de`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot decode its focus from JSON bytes borrowed for `'de`",
    note = "the focus type must implement serde::Deserialize<'de>; use `view` to get its bytes instead"
)]
pub trait JsonDecode<'de>: JsonOptic {
    /// The focus, decoded from what `locate` found, as serde would decode it
    /// as part of the whole.
    fn decode(&self, found: Found<'de>) -> Option<Self::Focus>;
}

#[inline]
fn lookup(found: Lookup<'_>) -> Found<'_> {
    match found {
        Lookup::Found(bytes) => Found::At(bytes),
        Lookup::Missing => Found::Absent,
        Lookup::Malformed => Found::Miss,
    }
}

/// The focus decoded with its own `Deserialize` from the bytes found; `None`
/// where there are none. How the generic optics (`at`, `key`, `some`) decode.
#[inline]
fn decode_found<'de, T: Deserialize<'de>>(found: Found<'de>) -> Option<T> {
    match found {
        Found::At(bytes) => decode(bytes),
        Found::Absent | Found::Miss => None,
    }
}

#[inline]
fn locate_field(bytes: &[u8], json: FieldJson) -> Found<'_> {
    match json {
        FieldJson::Key(keys) => lookup(scan::object_field(bytes, keys)),
        FieldJson::Inline => Found::At(scan::trim(bytes)),
        FieldJson::Element(i) => match scan::array_element(bytes, i) {
            Some(element) => Found::At(element),
            None => Found::Miss,
        },
        FieldJson::Skipped => Found::Absent,
    }
}

impl<A, B> JsonOptic for Then<A, B>
where
    A: JsonOptic,
    B: JsonOptic<Source = A::Focus>,
{
    #[inline]
    fn locate<'a>(&self, bytes: &'a [u8]) -> Found<'a> {
        match self.first().locate(bytes) {
            Found::At(inner) => self.second().locate(inner),
            Found::Absent | Found::Miss => Found::Miss,
        }
    }
}

impl<'de, A, B> JsonDecode<'de> for Then<A, B>
where
    A: JsonOptic,
    B: JsonDecode<'de, Source = A::Focus>,
{
    #[inline]
    fn decode(&self, found: Found<'de>) -> Option<Self::Focus> {
        self.second().decode(found)
    }
}

impl<S: FieldOf<I>, const I: usize> JsonOptic for Field<S, I> {
    #[inline]
    fn locate<'a>(&self, bytes: &'a [u8]) -> Found<'a> {
        locate_field(bytes, S::JSON)
    }
}

impl<'de, S: FieldDecode<'de, I>, const I: usize> JsonDecode<'de> for Field<S, I> {
    #[inline]
    fn decode(&self, found: Found<'de>) -> Option<S::Type> {
        S::decode_field(found)
    }
}

impl<S: VariantOf<I>, const I: usize> JsonOptic for Variant<S, I> {
    #[inline]
    fn locate<'a>(&self, bytes: &'a [u8]) -> Found<'a> {
        locate_variant::<S>(bytes, I, S::JSON)
    }
}

impl<'de, S: VariantOf<I>, const I: usize> JsonDecode<'de> for Variant<S, I>
where
    S::Payload: Deserialize<'de>,
{
    #[inline]
    fn decode(&self, found: Found<'de>) -> Option<S::Payload> {
        match (found, S::ENCODING, S::JSON) {
            // The payload's bytes are the enum's object, tag included; serde
            // hands the payload the other members only.
            (Found::At(bytes), Encoding::Internal { tag }, VariantJson::Newtype) => {
                without_internal_tag::decode(bytes, tag)
            }
            (Found::At(bytes), _, _) => decode(bytes),
            (Found::Absent | Found::Miss, _, _) => None,
        }
    }
}

impl<S: VariantFieldOf<I>, const I: usize> JsonOptic for VariantField<S, I> {
    #[inline]
    fn locate<'a>(&self, bytes: &'a [u8]) -> Found<'a> {
        match locate_variant::<S>(bytes, S::VARIANT, VariantJson::Fields) {
            Found::At(payload) => locate_field(payload, S::JSON),
            Found::Absent | Found::Miss => Found::Miss,
        }
    }
}

impl<'de, S: VariantFieldDecode<'de, I>, const I: usize> JsonDecode<'de> for VariantField<S, I> {
    #[inline]
    fn decode(&self, found: Found<'de>) -> Option<S::Type> {
        S::decode_field(found)
    }
}

impl<S: Tagged> JsonOptic for Discriminant<S> {
    /// The tag's own bytes: the string serde wrote (for the externally tagged
    /// object form, the key, quotes included).
    #[inline]
    fn locate<'a>(&self, bytes: &'a [u8]) -> Found<'a> {
        if let Some((_, quoted)) = leading_variant::<S>(bytes) {
            return Found::At(quoted);
        }
        let Some((raw, _)) = tag_of::<S>(bytes) else {
            return Found::Miss;
        };
        match widen_by_quotes(bytes, raw) {
            Some(quoted) => Found::At(quoted),
            None => Found::Miss,
        }
    }
}

impl<S: Tagged> JsonDecode<'_> for Discriminant<S> {
    #[inline]
    fn decode(&self, found: Found<'_>) -> Option<S::Kind> {
        let Found::At(quoted) = found else {
            return None;
        };
        // A variant's name as it stands, quotes and all, is that variant.
        let index = match PlainTags::<S>::NAMES.then(|| variant_quoted_at::<S>(quoted, 0)) {
            Some(Some((index, end))) if end == quoted.len() => index,
            _ => variant_of_tag::<S>(scan::string_raw(quoted)?)?,
        };
        S::KINDS.get(index).copied()
    }
}

impl<C: ?Sized + Indexed> JsonOptic for At<C> {
    #[inline]
    fn locate<'a>(&self, bytes: &'a [u8]) -> Found<'a> {
        match scan::array_element(bytes, self.index()) {
            Some(element) => Found::At(element),
            None => Found::Miss,
        }
    }
}

impl<'de, C: ?Sized + Indexed> JsonDecode<'de> for At<C>
where
    C::Element: Deserialize<'de>,
{
    #[inline]
    fn decode(&self, found: Found<'de>) -> Option<C::Element> {
        decode_found(found)
    }
}

impl<M: Keyed<Q>, Q: ?Sized + AsRef<str>> JsonOptic for Key<'_, M, Q> {
    #[inline]
    fn locate<'a>(&self, bytes: &'a [u8]) -> Found<'a> {
        match scan::object_last(bytes, self.key().as_ref()) {
            Lookup::Found(value) => Found::At(value),
            Lookup::Missing | Lookup::Malformed => Found::Miss,
        }
    }
}

impl<'de, M: Keyed<Q>, Q: ?Sized + AsRef<str>> JsonDecode<'de> for Key<'_, M, Q>
where
    M::Value: Deserialize<'de>,
{
    #[inline]
    fn decode(&self, found: Found<'de>) -> Option<M::Value> {
        decode_found(found)
    }
}

impl<T> JsonOptic for Some_<T> {
    #[inline]
    fn locate<'a>(&self, bytes: &'a [u8]) -> Found<'a> {
        let bytes = scan::trim(bytes);
        if bytes.is_empty() || scan::is_null(bytes) {
            Found::Miss
        } else {
            Found::At(bytes)
        }
    }
}

impl<'de, T: Deserialize<'de>> JsonDecode<'de> for Some_<T> {
    #[inline]
    fn decode(&self, found: Found<'de>) -> Option<T> {
        decode_found(found)
    }
}
