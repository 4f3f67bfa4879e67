//! The byte interpretation of every optic kind: how each finds its focus in
//! the JSON of its source ([`JsonOptic`]) and decodes it ([`JsonDecode`]).
//!
//! Each step reads on from where the step before it left off, a [`Spot`]:
//! serde reads some values straight from serde_json and others from its own
//! buffer, and some foci are not one JSON value (an internally tagged
//! variant's payload is its object without the tag, a flattened field's value
//! the members its struct leaves it). See `spot.rs` for the picture.

pub(crate) mod buffered;
pub(crate) mod spot;

use serde::de::Deserialize;

pub use self::spot::{Located, Spot};

use self::buffered::decode_at;
use self::spot::{Form, MemberIter};
use super::enum_tag::{kind_of_tag, leading_variant_of, locate_tag, locate_variant};
use super::field_decode::{
    decode_absent, FieldDecode, FieldThrough, VariantFieldDecode, VariantFieldThrough,
};
use super::scan::{self, Lookup};
use super::{FieldJson, Found, VariantJson};
use crate::optic::{
    At, Discriminant, Field, FieldOf, Indexed, JsonKey, Key, Keyed, Optic, Some_, Tagged, Then,
    Through, Variant, VariantField, VariantFieldOf, VariantOf,
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

    /// The names (the key serde reads, then its aliases) under which the
    /// focus stands in its source's object, for the lens on a struct's field
    /// written as a member; `None` for every other optic (the default). Lets
    /// a strict view validate a document and find such a member in one pass
    /// ([`Strict::validated_view`](super::Strict::validated_view)).
    #[doc(hidden)]
    #[inline]
    fn member_names(&self) -> Option<&'static [&'static str]> {
        None
    }

    /// Finds the focus from `at`, where its source lies, reading on as serde
    /// reads there (see [`Spot`]). The optics of this crate implement it; the
    /// default reads a source that is one JSON value with [`locate`](Self::locate)
    /// and misses on any other.
    #[inline]
    fn locate_at<'a>(&self, at: Spot<'a>) -> Located<'a> {
        match at.form() {
            Form::Value { buffered, .. } => match self.locate(at.bytes()) {
                Found::At(bytes) => Located::At(Spot::value(bytes, buffered)),
                Found::Absent => Located::Absent,
                Found::Miss => Located::Miss,
            },
            Form::Members { .. } | Form::Rest { .. } | Form::Opaque { .. } => Located::Miss,
        }
    }

    /// [`locate_at`](Self::locate_at) for a path that goes on inside the
    /// focus (the first optic of a [`Then`]): a trusting read may hand the
    /// focus out as an open spot, its end not looked for (see [`Spot`]).
    /// The default is `locate_at`.
    #[doc(hidden)]
    #[inline]
    fn locate_entered_at<'a>(&self, at: Spot<'a>) -> Located<'a> {
        self.locate_at(at)
    }

    /// Where the path from `at` goes on past a step the byte reader does
    /// not follow serde through, by design (see `SERDE_ATTRIBUTES.md`):
    /// a struct field the bytes leave out, which serde fills in
    /// ([`ReadError::PastAbsent`](super::ReadError::PastAbsent)), or more
    /// flatten and internal-tag levels on one object than a spot holds
    /// ([`ReadError::TooManyLevels`](super::ReadError::TooManyLevels)).
    /// Only a composition goes on past a step; the default is `None`. Used
    /// to explain a miss, never by a read.
    #[doc(hidden)]
    #[inline]
    fn unfollowed<'a>(&self, at: Spot<'a>) -> Option<super::ReadError> {
        let _ = at;
        None
    }
}

/// An optic a byte read may go on past: the bytes it finds are the JSON of
/// its focus's type, in which the next step can look. Every optic of this
/// crate but the lens on a field read `with` (or `deserialize_with`) a
/// function: serde's value there is what the function makes of the bytes,
/// which need not be the JSON of the field's type (a function may parse a
/// string, or reverse a list), so a path that goes on in those bytes could
/// find something serde's value does not hold. Such a path reads values, but
/// does not compile for bytes.
#[diagnostic::on_unimplemented(
    message = "a byte read cannot go on past `{Self}`",
    label = "a traversal, a field read `with` a function, or an optic that does not say its bytes are its focus's JSON",
    note = "a traversal (a path through `each()`) has many foci, so no one focus to `view`, `read`, `set` or `modify`: use `iter`, `read_each`, `set_all` or `modify_all`",
    note = "a field read `with` (or `deserialize_with`) a function is what the function makes of its bytes, which need not be the JSON of the field's type; read the field itself from the bytes (`json.read(Type::field)`), then go on on the value it decodes to"
)]
pub trait JsonThrough: JsonOptic {}

/// An optic that can decode its focus from the bytes [`JsonOptic::locate`]
/// found, borrowing from them for `'de`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot decode its focus from JSON bytes borrowed for `'de`",
    note = "a traversal (a path through `each()`) has many foci, so no one focus to `read` or `modify`: use `read_each` or `modify_all`, or `iter` for their bytes",
    note = "otherwise the focus type must implement serde::Deserialize<'de>; use `view` to get its bytes instead"
)]
pub trait JsonDecode<'de>: JsonOptic {
    /// The focus, decoded from what `locate` found, as serde would decode it
    /// as part of the whole.
    fn decode(&self, found: Found<'de>) -> Option<Self::Focus>;

    /// The focus, decoded from what [`JsonOptic::locate_at`] found, as serde
    /// decodes it there. The optics of this crate implement it; the default
    /// decodes a focus that is one JSON value with [`decode`](Self::decode).
    #[inline]
    fn decode_at(&self, found: Located<'de>) -> Option<Self::Focus> {
        match found {
            Located::At(spot) => match spot.form() {
                Form::Value { .. } | Form::Opaque { .. } => self.decode(Found::At(spot.bytes())),
                Form::Members { .. } | Form::Rest { .. } => None,
            },
            Located::Absent => self.decode(Found::Absent),
            Located::Miss => None,
        }
    }

    /// The focus found from `at` and decoded: `decode_at(locate_at(at))`,
    /// what a trusting read does (the default). An optic that can decode
    /// from what it reads on its way may skip the spot between the two (an
    /// enum's kind, read from its leading tag).
    #[doc(hidden)]
    #[inline]
    fn read_at(&self, at: Spot<'de>) -> Option<Self::Focus> {
        self.decode_at(self.locate_at(at))
    }
}

/// Reads `optic`'s focus from the document `bytes`: what [`Json::read`](super::Json::read) does.
#[inline]
pub(crate) fn read<'de, O: JsonDecode<'de>>(optic: &O, bytes: &'de [u8]) -> Option<O::Focus> {
    optic.read_at(Spot::document(bytes))
}

/// `locate`, for an optic that implements `locate_at`.
macro_rules! locate_from_document {
    () => {
        #[inline]
        fn locate<'a>(&self, bytes: &'a [u8]) -> Found<'a> {
            self.locate_at(Spot::document(bytes)).found()
        }
    };
}

/// `decode`, for an optic that implements `decode_at`.
macro_rules! decode_directly {
    () => {
        #[inline]
        fn decode(&self, found: Found<'de>) -> Option<Self::Focus> {
            self.decode_at(Located::direct(found))
        }
    };
}

/// The focus decoded with its own `Deserialize` from where it was found;
/// `None` where there is none. How the generic optics (`at`, `key`, `some`)
/// decode.
#[inline]
fn decode_found<'de, T: Deserialize<'de>>(found: Located<'de>) -> Option<T> {
    match found {
        Located::At(spot) => decode_at(spot),
        Located::Absent | Located::Miss => None,
    }
}

/// Where a field's value stands, from where its struct lies. Inlined where
/// it is called: `json` is then the field's constant, so only its own arm is
/// left, and the spot is not copied through memory on the way in and out.
#[inline(always)]
pub(crate) fn locate_field(at: Spot<'_>, json: FieldJson) -> Located<'_> {
    match json {
        FieldJson::Key {
            names,
            position,
            late,
        } => at.member(names, position, late),
        // Past a field read `with` a function (an opaque spot, reached
        // through an `optic!` name) serde's value need not be in the bytes:
        // every step misses there, as `member` and the others do, a
        // newtype's field and a skipped one too.
        FieldJson::Inline | FieldJson::Skipped if matches!(at.form(), Form::Opaque { .. }) => {
            Located::Miss
        }
        FieldJson::Inline => Located::At(at),
        FieldJson::Flatten { hidden } => at.flattened(hidden),
        FieldJson::Element(i) => at.tuple_element(i),
        FieldJson::Skipped => Located::Absent,
        FieldJson::With(place) => locate_field_with(at, place),
    }
}

/// [`locate_field`] for a path that goes on inside the field's value: a
/// member is handed out open where a trusting read can (see [`Spot`]).
#[inline(always)]
fn locate_field_entered(at: Spot<'_>, json: FieldJson) -> Located<'_> {
    match json {
        FieldJson::Key {
            names,
            position,
            late,
        } => at.member_entered(names, position, late),
        _ => locate_field(at, json),
    }
}

/// [`locate_field`] for a field read `with` a function, placed as `place`
/// says: its spot is opaque.
#[inline(never)]
fn locate_field_with<'a>(at: Spot<'a>, place: &FieldJson) -> Located<'a> {
    match locate_field(at, *place) {
        Located::At(spot) => Located::At(spot.opaque()),
        other => other,
    }
}

impl<A, B> JsonOptic for Then<A, B>
where
    A: JsonThrough,
    B: JsonOptic,
    A::Focus: Through<B::Source>,
{
    locate_from_document!();

    /// The first optic's focus is entered (a trusting read does not walk
    /// to its end), the second's found as asked.
    #[inline]
    fn locate_at<'a>(&self, at: Spot<'a>) -> Located<'a> {
        // A smart pointer between the two is transparent in the bytes.
        match self.first().locate_entered_at(at) {
            Located::At(inner) => self.second().locate_at(inner),
            Located::Absent | Located::Miss => Located::Miss,
        }
    }

    #[inline]
    fn locate_entered_at<'a>(&self, at: Spot<'a>) -> Located<'a> {
        match self.first().locate_entered_at(at) {
            Located::At(inner) => self.second().locate_entered_at(inner),
            Located::Absent | Located::Miss => Located::Miss,
        }
    }

    fn unfollowed<'a>(&self, at: Spot<'a>) -> Option<super::ReadError> {
        match self.first().locate_entered_at(at) {
            Located::At(inner) if inner.hides_past_capacity() => {
                Some(super::ReadError::TooManyLevels)
            }
            Located::At(inner) => self.second().unfollowed(inner),
            Located::Absent => Some(super::ReadError::PastAbsent),
            // The first optic may itself go on past such a step.
            Located::Miss => self.first().unfollowed(at),
        }
    }
}

impl<A, B> JsonThrough for Then<A, B>
where
    A: JsonThrough,
    B: JsonThrough,
    A::Focus: Through<B::Source>,
{
}

impl<'de, A, B> JsonDecode<'de> for Then<A, B>
where
    A: JsonThrough,
    B: JsonDecode<'de>,
    A::Focus: Through<B::Source>,
{
    decode_directly!();

    #[inline]
    fn decode_at(&self, found: Located<'de>) -> Option<Self::Focus> {
        self.second().decode_at(found)
    }
}

impl<S: FieldOf<I>, const I: usize> JsonOptic for Field<S, I> {
    locate_from_document!();

    #[inline]
    fn member_names(&self) -> Option<&'static [&'static str]> {
        match S::JSON {
            FieldJson::Key { names, .. } => Some(names),
            _ => None,
        }
    }

    #[inline]
    fn locate_at<'a>(&self, at: Spot<'a>) -> Located<'a> {
        locate_field(at, S::JSON)
    }

    #[inline]
    fn locate_entered_at<'a>(&self, at: Spot<'a>) -> Located<'a> {
        locate_field_entered(at, S::JSON)
    }
}

impl<S: FieldOf<I> + FieldThrough<I>, const I: usize> JsonThrough for Field<S, I> {}

impl<'de, S: FieldDecode<'de, I>, const I: usize> JsonDecode<'de> for Field<S, I> {
    decode_directly!();

    #[inline]
    fn decode_at(&self, found: Located<'de>) -> Option<S::Type> {
        S::decode_field(found)
    }
}

impl<S: VariantOf<I>, const I: usize> JsonOptic for Variant<S, I> {
    locate_from_document!();

    #[inline]
    fn locate_at<'a>(&self, at: Spot<'a>) -> Located<'a> {
        locate_variant::<S>(at, I, S::JSON)
    }
}

impl<S: VariantOf<I>, const I: usize> JsonThrough for Variant<S, I> {}

impl<'de, S: VariantOf<I>, const I: usize> JsonDecode<'de> for Variant<S, I>
where
    S::Payload: Deserialize<'de>,
{
    decode_directly!();

    #[inline]
    fn decode_at(&self, found: Located<'de>) -> Option<S::Payload> {
        match found {
            Located::At(spot) => decode_at(spot),
            // An adjacently tagged newtype variant without its content: serde
            // reads the payload as a missing field (`None` for an `Option`).
            Located::Absent => decode_absent(),
            Located::Miss => None,
        }
    }
}

impl<S: VariantFieldOf<I>, const I: usize> JsonOptic for VariantField<S, I> {
    locate_from_document!();

    #[inline]
    fn locate_at<'a>(&self, at: Spot<'a>) -> Located<'a> {
        match locate_variant::<S>(at, S::VARIANT, VariantJson::Fields) {
            Located::At(payload) => locate_field(payload, S::JSON),
            Located::Absent | Located::Miss => Located::Miss,
        }
    }

    #[inline]
    fn locate_entered_at<'a>(&self, at: Spot<'a>) -> Located<'a> {
        match locate_variant::<S>(at, S::VARIANT, VariantJson::Fields) {
            Located::At(payload) => locate_field_entered(payload, S::JSON),
            Located::Absent | Located::Miss => Located::Miss,
        }
    }
}

impl<S: VariantFieldOf<I> + VariantFieldThrough<I>, const I: usize> JsonThrough
    for VariantField<S, I>
{
}

impl<'de, S: VariantFieldDecode<'de, I>, const I: usize> JsonDecode<'de> for VariantField<S, I> {
    decode_directly!();

    #[inline]
    fn decode_at(&self, found: Located<'de>) -> Option<S::Type> {
        S::decode_field(found)
    }
}

impl<S: Tagged> JsonOptic for Discriminant<S> {
    locate_from_document!();

    /// The tag's own bytes: what serde reads the variant from (the string it
    /// wrote; for the externally tagged object form, the key, quotes
    /// included).
    #[inline]
    fn locate_at<'a>(&self, at: Spot<'a>) -> Located<'a> {
        locate_tag::<S>(at)
    }
}

impl<S: Tagged> JsonThrough for Discriminant<S> {}

impl<'de, S: Tagged> JsonDecode<'de> for Discriminant<S> {
    decode_directly!();

    #[inline]
    fn decode_at(&self, found: Located<'de>) -> Option<S::Kind> {
        let Located::At(tag) = found else {
            return None;
        };
        S::KINDS.get(kind_of_tag::<S>(tag.bytes())?).copied()
    }

    /// The kind of the variant the quick tag read names, where it reads
    /// the tag: what `decode_at` makes of the tag `locate_at` finds then
    /// (the test `kind_read_quickly_is_kind_decoded`), without the name
    /// compared again.
    #[inline]
    fn read_at(&self, at: Spot<'de>) -> Option<S::Kind> {
        match leading_variant_of::<S>(at) {
            Some(variant) => S::KINDS.get(variant).copied(),
            None => self.decode_at(self.locate_at(at)),
        }
    }
}

impl<C: ?Sized + Indexed> JsonOptic for At<C> {
    locate_from_document!();

    #[inline]
    fn locate_at<'a>(&self, at: Spot<'a>) -> Located<'a> {
        at.list_element(self.index())
    }

    #[inline]
    fn locate_entered_at<'a>(&self, at: Spot<'a>) -> Located<'a> {
        at.list_element_entered(self.index())
    }
}

impl<C: ?Sized + Indexed> JsonThrough for At<C> {}

impl<'de, C: ?Sized + Indexed> JsonDecode<'de> for At<C>
where
    C::Element: Deserialize<'de>,
{
    decode_directly!();

    #[inline]
    fn decode_at(&self, found: Located<'de>) -> Option<C::Element> {
        decode_found(found)
    }
}

impl<M: Keyed<Q>, Q: ?Sized + JsonKey> JsonOptic for Key<'_, M, Q> {
    locate_from_document!();

    #[inline]
    fn locate_at<'a>(&self, at: Spot<'a>) -> Located<'a> {
        locate_key(at, self.key())
    }
}

impl<M: Keyed<Q>, Q: ?Sized + JsonKey> JsonThrough for Key<'_, M, Q> {}

impl<'de, M: Keyed<Q>, Q: ?Sized + JsonKey> JsonDecode<'de> for Key<'_, M, Q>
where
    M::Value: Deserialize<'de>,
{
    decode_directly!();

    #[inline]
    fn decode_at(&self, found: Located<'de>) -> Option<M::Value> {
        decode_found(found)
    }
}

/// The entry under `key` in the map at `at`: the last member serde reads as
/// that key (a map keeps the last of duplicates).
fn locate_key<'a, Q: ?Sized + JsonKey>(at: Spot<'a>, key: &Q) -> Located<'a> {
    let (buffered, hidden) = match at.form() {
        Form::Value { buffered, .. } => (buffered, None),
        Form::Members { hidden, .. } => (true, Some(hidden)),
        Form::Rest { .. } | Form::Opaque { .. } => return Located::Miss,
    };
    let bytes = at.bytes();
    if let Some(text) = key.text() {
        // Keys written as themselves: compared raw, nothing decoded.
        if let Some(hidden) = hidden {
            if hidden.hides(text) != Some(false) {
                return Located::Miss;
            }
        }
        return match scan::object_last(bytes, text) {
            Lookup::Found(value) => Located::At(Spot::value(value, buffered)),
            Lookup::Missing | Lookup::Malformed => Located::Miss,
        };
    }
    // `is_key` is the key type's own code: a read it makes is none of a
    // strict read's business (nor is this walk, which checks no key).
    scan::duplicates::unwatched(|| {
        let mut members = MemberIter::new(bytes);
        let mut last = None;
        for member in members.by_ref() {
            let Ok((raw, value)) = member else {
                return Located::Miss;
            };
            if let Some(hidden) = hidden {
                match hidden.hides_raw(raw) {
                    Some(false) => {}
                    Some(true) => continue,
                    None => return Located::Miss,
                }
            }
            if key.is_key(raw, buffered) {
                last = Some(value);
            }
        }
        match last {
            Some(value) if members.ended_well() => Located::At(Spot::value(value, buffered)),
            _ => Located::Miss,
        }
    })
}

impl<T> JsonOptic for Some_<T> {
    locate_from_document!();

    #[inline]
    fn locate_at<'a>(&self, at: Spot<'a>) -> Located<'a> {
        at.some()
    }
}

impl<T> JsonThrough for Some_<T> {}

impl<'de, T: Deserialize<'de>> JsonDecode<'de> for Some_<T> {
    decode_directly!();

    #[inline]
    fn decode_at(&self, found: Located<'de>) -> Option<T> {
        decode_found(found)
    }
}
