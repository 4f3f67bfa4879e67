//! Decoding a value the way serde decodes it from its buffer.
//!
//! Where serde cannot read a value straight from serde_json (the payload of
//! an internally tagged variant, a flattened field, an adjacently tagged
//! content written before its tag), it first buffers the value in its
//! private `Content` tree, then decodes the type from that tree. Decoding
//! from the tree accepts more than serde_json does (`{}` and `[]` for a unit
//! struct, a variant's number for its name) and a little less (no 128-bit
//! integers), so a byte optic there must decode the same way.
//!
//! [`Buffered`] does, without building the tree: it asks serde_json for the
//! value as it is (`deserialize_any`), then makes the visitor call serde's
//! buffer would make for the type's request, the rules of serde's
//! `ContentDeserializer` one for one. Sequences and maps stay streamed, their
//! elements buffered too. A plain scalar that every rule reads alike (a
//! string asked for as a string, an integer as an integer) takes the leaf
//! fast path instead (see [`decode_at`]).

use core::cell::Cell;
use core::marker::PhantomData;

use serde::de::{
    self, Deserialize, DeserializeSeed, Deserializer, EnumAccess, Error as _, IgnoredAny,
    MapAccess, SeqAccess, Unexpected, VariantAccess, Visitor,
};
use serde_json::de::SliceRead;

use super::super::without_internal_tag::MembersDe;
use super::spot::{Form, Spot};

/// serde_json's deserializer over one slice.
pub(crate) type JsonDe<'de> = serde_json::Deserializer<SliceRead<'de>>;

/// What a type asked its deserializer for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Want {
    Any,
    Bool,
    Integer,
    Float,
    Char,
    Str,
    ByteBuf,
    Option,
    Unit,
    UnitStruct,
    Seq,
    Map,
    Struct,
    Enum,
    Identifier,
}

/// serde's buffered decoding of the one value `D` reads.
pub(crate) struct Buffered<D>(pub(crate) D);

/// A scalar as serde_json handed it over.
#[derive(Debug)]
enum Scalar<'s, 'de> {
    Bool(bool),
    U64(u64),
    I64(i64),
    F64(f64),
    Borrowed(&'de str),
    Transient(&'s str),
    Owned(String),
    Unit,
}

impl Scalar<'_, '_> {
    fn unexpected(&self) -> Unexpected<'_> {
        match self {
            Scalar::Bool(b) => Unexpected::Bool(*b),
            Scalar::U64(n) => Unexpected::Unsigned(*n),
            Scalar::I64(n) => Unexpected::Signed(*n),
            Scalar::F64(n) => Unexpected::Float(*n),
            Scalar::Borrowed(s) | Scalar::Transient(s) => Unexpected::Str(s),
            Scalar::Owned(s) => Unexpected::Str(s),
            Scalar::Unit => Unexpected::Unit,
        }
    }

    fn is_string(&self) -> bool {
        matches!(
            self,
            Scalar::Borrowed(_) | Scalar::Transient(_) | Scalar::Owned(_)
        )
    }
}

/// The visitor call serde's buffer makes for `want` on a scalar.
fn replay_scalar<'de, V: Visitor<'de>, E: de::Error>(
    want: Want,
    scalar: Scalar<'_, 'de>,
    visitor: V,
) -> Result<V::Value, E> {
    match (want, scalar) {
        (Want::Any | Want::UnitStruct, scalar) => visit_scalar(scalar, visitor),
        (Want::Bool, Scalar::Bool(b)) => visitor.visit_bool(b),
        (Want::Integer | Want::Float | Want::Identifier, Scalar::U64(n)) => visitor.visit_u64(n),
        (Want::Integer | Want::Float, Scalar::I64(n)) => visitor.visit_i64(n),
        (Want::Float, Scalar::F64(n)) => visitor.visit_f64(n),
        (Want::Char | Want::Str | Want::ByteBuf | Want::Identifier, scalar)
            if scalar.is_string() =>
        {
            visit_scalar(scalar, visitor)
        }
        (Want::Option, Scalar::Unit) | (Want::Unit, Scalar::Unit) => visitor.visit_unit(),
        (Want::Option, scalar) => visitor.visit_some(ScalarDe::<E>(scalar, PhantomData)),
        (Want::Enum, scalar) if scalar.is_string() => {
            visitor.visit_enum(StrEnum::<E>(scalar, PhantomData))
        }
        (Want::Enum, scalar) => Err(E::invalid_type(scalar.unexpected(), &"string or map")),
        (_, scalar) => Err(E::invalid_type(scalar.unexpected(), &visitor)),
    }
}

fn visit_scalar<'de, V: Visitor<'de>, E: de::Error>(
    scalar: Scalar<'_, 'de>,
    visitor: V,
) -> Result<V::Value, E> {
    match scalar {
        Scalar::Bool(b) => visitor.visit_bool(b),
        Scalar::U64(n) => visitor.visit_u64(n),
        Scalar::I64(n) => visitor.visit_i64(n),
        Scalar::F64(n) => visitor.visit_f64(n),
        Scalar::Borrowed(s) => visitor.visit_borrowed_str(s),
        Scalar::Transient(s) => visitor.visit_str(s),
        Scalar::Owned(s) => visitor.visit_string(s),
        Scalar::Unit => visitor.visit_unit(),
    }
}

/// The visitor call serde's buffer makes for `want` on a sequence.
fn replay_seq<'de, A: SeqAccess<'de>, V: Visitor<'de>>(
    want: Want,
    mut seq: A,
    visitor: V,
) -> Result<V::Value, A::Error> {
    match want {
        Want::Any | Want::Seq | Want::Struct | Want::ByteBuf => visitor.visit_seq(BufferedSeq(seq)),
        Want::Option => visitor.visit_some(SeqDe(seq)),
        // An empty sequence is a unit struct; a derived unit struct accepts
        // nothing else from a sequence.
        Want::UnitStruct => match seq.next_element::<IgnoredAny>()? {
            None => visitor.visit_unit(),
            Some(_) => Err(A::Error::invalid_type(Unexpected::Seq, &visitor)),
        },
        Want::Enum => Err(A::Error::invalid_type(Unexpected::Seq, &"string or map")),
        _ => Err(A::Error::invalid_type(Unexpected::Seq, &visitor)),
    }
}

/// The visitor call serde's buffer makes for `want` on a map.
fn replay_map<'de, A: MapAccess<'de>, V: Visitor<'de>>(
    want: Want,
    mut map: A,
    visitor: V,
) -> Result<V::Value, A::Error> {
    match want {
        Want::Any | Want::Map | Want::Struct => visitor.visit_map(BufferedMap(map)),
        Want::Option => visitor.visit_some(MapDe(map)),
        // An empty map is `()` and a unit struct (serde's own special cases,
        // for internally tagged newtype variants).
        Want::Unit | Want::UnitStruct => match map.next_key::<IgnoredAny>()? {
            None => visitor.visit_unit(),
            Some(_) => Err(A::Error::invalid_type(Unexpected::Map, &visitor)),
        },
        Want::Enum => single_entry_enum(&mut map, visitor),
        _ => Err(A::Error::invalid_type(Unexpected::Map, &visitor)),
    }
}

/// An enum read from a map of exactly one entry, `{"Variant": payload}`.
pub(crate) fn single_entry_enum<'de, A: MapAccess<'de>, V: Visitor<'de>>(
    map: &mut A,
    visitor: V,
) -> Result<V::Value, A::Error> {
    let value = visitor.visit_enum(MapEnum { map: &mut *map })?;
    match map.next_key::<IgnoredAny>()? {
        None => Ok(value),
        Some(_) => Err(A::Error::invalid_value(
            Unexpected::Map,
            &"map with a single key",
        )),
    }
}

/// Receives the value from serde_json and replays it for `want`.
struct Capture<V> {
    want: Want,
    visitor: V,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Capture<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.visitor.expecting(f)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<V::Value, E> {
        replay_scalar(self.want, Scalar::Bool(v), self.visitor)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<V::Value, E> {
        replay_scalar(self.want, Scalar::I64(v), self.visitor)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<V::Value, E> {
        replay_scalar(self.want, Scalar::U64(v), self.visitor)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<V::Value, E> {
        replay_scalar(self.want, Scalar::F64(v), self.visitor)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        replay_scalar(self.want, Scalar::Transient(v), self.visitor)
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        replay_scalar(self.want, Scalar::Borrowed(v), self.visitor)
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        replay_scalar(self.want, Scalar::Owned(v), self.visitor)
    }
    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        replay_scalar(self.want, Scalar::Unit, self.visitor)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        replay_seq(self.want, seq, self.visitor)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        replay_map(self.want, map, self.visitor)
    }
}

/// The deserializer methods, each the request it makes (`Want`).
macro_rules! wants {
    ($($method:ident => $want:ident;)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
            self.replay(Want::$want, visitor)
        }
    )*};
}

/// The methods every buffered deserializer answers alike, given `replay`.
macro_rules! buffered_deserializer {
    () => {
        wants! {
            deserialize_any => Any;
            deserialize_bool => Bool;
            deserialize_i8 => Integer;
            deserialize_i16 => Integer;
            deserialize_i32 => Integer;
            deserialize_i64 => Integer;
            deserialize_u8 => Integer;
            deserialize_u16 => Integer;
            deserialize_u32 => Integer;
            deserialize_u64 => Integer;
            deserialize_f32 => Float;
            deserialize_f64 => Float;
            deserialize_char => Char;
            deserialize_str => Str;
            deserialize_string => Str;
            deserialize_bytes => ByteBuf;
            deserialize_byte_buf => ByteBuf;
            deserialize_option => Option;
            deserialize_unit => Unit;
            deserialize_seq => Seq;
            deserialize_map => Map;
            deserialize_identifier => Identifier;
        }

        fn deserialize_i128<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(Self::Error::custom("i128 is not supported"))
        }

        fn deserialize_u128<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(Self::Error::custom("u128 is not supported"))
        }

        fn deserialize_unit_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            visitor: V,
        ) -> Result<V::Value, Self::Error> {
            self.replay(Want::UnitStruct, visitor)
        }

        fn deserialize_newtype_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            visitor: V,
        ) -> Result<V::Value, Self::Error> {
            visitor.visit_newtype_struct(self)
        }

        fn deserialize_tuple<V: Visitor<'de>>(
            self,
            _: usize,
            visitor: V,
        ) -> Result<V::Value, Self::Error> {
            self.replay(Want::Seq, visitor)
        }

        fn deserialize_tuple_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            _: usize,
            visitor: V,
        ) -> Result<V::Value, Self::Error> {
            self.replay(Want::Seq, visitor)
        }

        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            _: &'static [&'static str],
            visitor: V,
        ) -> Result<V::Value, Self::Error> {
            self.replay(Want::Struct, visitor)
        }

        fn deserialize_enum<V: Visitor<'de>>(
            self,
            _: &'static str,
            _: &'static [&'static str],
            visitor: V,
        ) -> Result<V::Value, Self::Error> {
            self.replay(Want::Enum, visitor)
        }
    };
}

impl<'de, D: Deserializer<'de>> Buffered<D> {
    fn replay<V: Visitor<'de>>(self, want: Want, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_any(Capture { want, visitor })
    }
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Buffered<D> {
    type Error = D::Error;

    buffered_deserializer!();

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_ignored_any(visitor)
    }
}

/// A scalar already read, as a deserializer (what `visit_some` hands on).
struct ScalarDe<'s, 'de, E>(Scalar<'s, 'de>, PhantomData<E>);

impl<'de, E: de::Error> ScalarDe<'_, 'de, E> {
    fn replay<V: Visitor<'de>>(self, want: Want, visitor: V) -> Result<V::Value, E> {
        replay_scalar(want, self.0, visitor)
    }
}

impl<'de, E: de::Error> Deserializer<'de> for ScalarDe<'_, 'de, E> {
    type Error = E;

    buffered_deserializer!();

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        visitor.visit_unit()
    }
}

/// A sequence already opened, as a deserializer.
struct SeqDe<A>(A);

impl<'de, A: SeqAccess<'de>> SeqDe<A> {
    fn replay<V: Visitor<'de>>(self, want: Want, visitor: V) -> Result<V::Value, A::Error> {
        replay_seq(want, self.0, visitor)
    }
}

impl<'de, A: SeqAccess<'de>> Deserializer<'de> for SeqDe<A> {
    type Error = A::Error;

    buffered_deserializer!();

    fn deserialize_ignored_any<V: Visitor<'de>>(
        mut self,
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        while self.0.next_element::<IgnoredAny>()?.is_some() {}
        visitor.visit_unit()
    }
}

/// A map already opened, as a deserializer.
struct MapDe<A>(A);

impl<'de, A: MapAccess<'de>> MapDe<A> {
    fn replay<V: Visitor<'de>>(self, want: Want, visitor: V) -> Result<V::Value, A::Error> {
        replay_map(want, self.0, visitor)
    }
}

impl<'de, A: MapAccess<'de>> Deserializer<'de> for MapDe<A> {
    type Error = A::Error;

    buffered_deserializer!();

    fn deserialize_ignored_any<V: Visitor<'de>>(
        mut self,
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        while self.0.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        visitor.visit_unit()
    }
}

/// A sequence whose elements are decoded buffered.
pub(crate) struct BufferedSeq<A>(pub(crate) A);

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for BufferedSeq<A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        self.0.next_element_seed(BufferedSeed(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

/// A map whose keys and values are decoded buffered.
struct BufferedMap<A>(A);

impl<'de, A: MapAccess<'de>> MapAccess<'de> for BufferedMap<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.0.next_key_seed(BufferedSeed(seed))
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        self.0.next_value_seed(BufferedSeed(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

/// A seed whose value is decoded buffered.
pub(crate) struct BufferedSeed<S>(pub(crate) S);

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for BufferedSeed<S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<S::Value, D::Error> {
        self.0.deserialize(Buffered(deserializer))
    }
}

/// A seed that makes request `want` of its value, buffered.
struct WantSeed<V> {
    want: Want,
    visitor: V,
}

impl<'de, V: Visitor<'de>> DeserializeSeed<'de> for WantSeed<V> {
    type Value = V::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<V::Value, D::Error> {
        Buffered(deserializer).replay(self.want, self.visitor)
    }
}

/// An enum whose variant is the next key of a map and its payload that
/// key's value, both buffered: `{"Variant": payload}` in serde's buffer, and
/// a flattened externally tagged enum's entry.
pub(crate) struct MapEnum<'m, A> {
    pub(crate) map: &'m mut A,
}

impl<'de, 'm, A: MapAccess<'de>> EnumAccess<'de> for MapEnum<'m, A> {
    type Error = A::Error;
    type Variant = Self;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self), A::Error> {
        match self.map.next_key_seed(BufferedSeed(seed))? {
            Some(variant) => Ok((variant, self)),
            None => Err(A::Error::invalid_value(
                Unexpected::Map,
                &"map with a single key",
            )),
        }
    }
}

impl<'de, A: MapAccess<'de>> VariantAccess<'de> for MapEnum<'_, A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.map.next_value_seed(BufferedSeed(PhantomData::<()>))
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        self.map.next_value_seed(BufferedSeed(seed))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _: usize, visitor: V) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(WantSeed {
            want: Want::Seq,
            visitor,
        })
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(WantSeed {
            want: Want::Struct,
            visitor,
        })
    }
}

/// A unit variant written as its name alone, in serde's buffer.
struct StrEnum<'s, 'de, E>(Scalar<'s, 'de>, PhantomData<E>);

impl<'s, 'de, E: de::Error> EnumAccess<'de> for StrEnum<'s, 'de, E> {
    type Error = E;
    type Variant = UnitOnly<E>;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, UnitOnly<E>), E> {
        let variant = seed.deserialize(ScalarDe::<E>(self.0, PhantomData))?;
        Ok((variant, UnitOnly(PhantomData)))
    }
}

/// The payload of a variant written as its name alone: none.
pub(crate) struct UnitOnly<E>(pub(crate) PhantomData<E>);

impl<'de, E: de::Error> VariantAccess<'de> for UnitOnly<E> {
    type Error = E;

    fn unit_variant(self) -> Result<(), E> {
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, _: T) -> Result<T::Value, E> {
        Err(E::invalid_type(Unexpected::UnitVariant, &"newtype variant"))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value, E> {
        Err(E::invalid_type(Unexpected::UnitVariant, &"tuple variant"))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, E> {
        Err(E::invalid_type(Unexpected::UnitVariant, &"struct variant"))
    }
}

/// The elements of an array from element `skip` on, as a sequence in
/// serde's buffer (an internally tagged enum written `["Variant", ...]`).
pub(crate) struct RestDe<'a, 'de> {
    de: &'a mut JsonDe<'de>,
    skip: usize,
}

/// Visits the array, skips `skip` elements and replays the rest for `want`,
/// then checks that the visitor took them all.
struct SkipThen<V> {
    skip: usize,
    want: Want,
    visitor: V,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for SkipThen<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.visitor.expecting(f)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<V::Value, A::Error> {
        for _ in 0..self.skip {
            if seq.next_element::<IgnoredAny>()?.is_none() {
                return Err(A::Error::invalid_length(0, &self.visitor));
            }
        }
        let value = replay_seq(self.want, &mut seq, self.visitor)?;
        match seq.next_element::<IgnoredAny>()? {
            None => Ok(value),
            Some(_) => Err(A::Error::custom("trailing elements")),
        }
    }
}

impl<'de> RestDe<'_, 'de> {
    fn replay<V: Visitor<'de>>(
        self,
        want: Want,
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        match want {
            Want::Any | Want::Seq | Want::Struct | Want::ByteBuf | Want::UnitStruct => {
                self.de.deserialize_seq(SkipThen {
                    skip: self.skip,
                    want,
                    visitor,
                })
            }
            Want::Option => visitor.visit_some(self),
            Want::Enum => Err(de::Error::invalid_type(Unexpected::Seq, &"string or map")),
            _ => Err(de::Error::invalid_type(Unexpected::Seq, &visitor)),
        }
    }
}

impl<'de> Deserializer<'de> for RestDe<'_, 'de> {
    type Error = serde_json::Error;

    buffered_deserializer!();

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        self.de.deserialize_ignored_any(visitor)
    }
}

/// The deserializer for a spot serde reads from its buffer: a value, an
/// object's members, an array's rest. What a `deserialize_with` function is
/// handed there.
pub struct ContentDe<'a, 'de>(Content<'a, 'de>);

enum Content<'a, 'de> {
    Value(Buffered<&'a mut JsonDe<'de>>),
    Members(MembersDe<'a, 'de>),
    Rest(RestDe<'a, 'de>),
}

impl<'a, 'de> ContentDe<'a, 'de> {
    fn new(de: &'a mut JsonDe<'de>, form: Form) -> Self {
        ContentDe(match form {
            Form::Value { .. } | Form::Opaque { .. } => Content::Value(Buffered(de)),
            Form::Members { hidden, flat, .. } => {
                Content::Members(MembersDe::new(de, hidden, flat))
            }
            Form::Rest { skip } => Content::Rest(RestDe { de, skip }),
        })
    }
}

/// Forwards each method to the deserializer the spot has.
macro_rules! dispatch {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, Self::Error> {
            match self.0 {
                Content::Value(de) => de.$method($($arg,)* visitor),
                Content::Members(de) => de.$method($($arg,)* visitor),
                Content::Rest(de) => de.$method($($arg,)* visitor),
            }
        }
    )*};
}

impl<'de> Deserializer<'de> for ContentDe<'_, 'de> {
    type Error = serde_json::Error;

    dispatch! {
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
        deserialize_ignored_any();
    }
}

/// Decodes the focus at `spot` as serde decodes it there: from the bytes
/// directly, or as from serde's buffer.
///
/// A buffered plain scalar goes the leaf fast path when the type's request
/// reads it alike both ways (see [`reads_alike`]); anything else streams
/// through [`ContentDe`]. Allocates only what the type's own `Deserialize`
/// allocates.
#[inline]
pub(crate) fn decode_at<'de, T: Deserialize<'de>>(spot: Spot<'de>) -> Option<T> {
    match spot.form() {
        Form::Value {
            buffered: false, ..
        }
        | Form::Opaque { buffered: false } => super::super::decode(spot.bytes()),
        Form::Value { buffered: true, .. } | Form::Opaque { buffered: true }
            if reads_alike::<T>(spot.bytes()) =>
        {
            super::super::decode(spot.bytes())
        }
        form => content(spot.bytes(), form, |de| T::deserialize(de)),
    }
}

/// `decode_at` for a field read `with` a function: `direct` where serde_json
/// reads the bytes itself, `buffered` where serde reads them from its buffer.
pub fn decode_with_at<'de, T>(
    spot: Spot<'de>,
    direct: impl FnOnce(&mut JsonDe<'de>) -> Result<T, serde_json::Error>,
    buffered: impl for<'a> FnOnce(ContentDe<'a, 'de>) -> Result<T, serde_json::Error>,
) -> Option<T> {
    match spot.form() {
        Form::Value {
            buffered: false, ..
        }
        | Form::Opaque { buffered: false } => {
            super::super::field_decode::decode_with(spot.bytes(), direct)
        }
        form => content(spot.bytes(), form, buffered),
    }
}

fn content<'de, T>(
    bytes: &'de [u8],
    form: Form,
    decode: impl for<'a> FnOnce(ContentDe<'a, 'de>) -> Result<T, serde_json::Error>,
) -> Option<T> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = decode(ContentDe::new(&mut de, form)).ok()?;
    de.end().ok()?;
    Some(value)
}

/// Whether `T` reads the buffered scalar `bytes` exactly as it reads them
/// straight from serde_json, so that the leaf fast path may decode them.
///
/// `T` is asked once, of a probe, what it wants (following `Option` and
/// newtype wrappers). Strings, bools and integers asked for as what they are
/// read alike (serde's buffer makes the same visitor call serde_json makes);
/// so does `deserialize_any` of anything but a number, which under
/// serde_json's `arbitrary_precision` the buffer holds otherwise. Floats,
/// `null` inside an `Option` (the buffer says `visit_unit`, serde_json
/// `visit_none`), units, containers and 128-bit integers stream through the
/// buffered rules instead.
fn reads_alike<'de, T: Deserialize<'de>>(bytes: &[u8]) -> bool {
    let Some(&first) = bytes.first() else {
        return false;
    };
    let is_number = first == b'-' || first.is_ascii_digit();
    if !(is_number || matches!(first, b'"' | b't' | b'f' | b'n')) {
        return false;
    }
    let asked = Cell::new(Asked::Nothing);
    let through_option = Cell::new(false);
    let _ = T::deserialize(Probe {
        asked: &asked,
        through_option: &through_option,
        depth: 0,
    });
    if through_option.get() && first == b'n' {
        return false;
    }
    match asked.get() {
        Asked::Alike => true,
        Asked::Any => !is_number,
        Asked::Nothing | Asked::Other => false,
    }
}

/// What a type asked the probe for, after its wrappers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Asked {
    Nothing,
    /// A request serde's buffer answers as serde_json does, for scalars.
    Alike,
    /// `deserialize_any`.
    Any,
    Other,
}

/// A deserializer that answers every request with an error, noting it.
struct Probe<'r> {
    asked: &'r Cell<Asked>,
    through_option: &'r Cell<bool>,
    depth: u8,
}

/// The probe's error: nothing, so that probing allocates nothing.
#[derive(Debug)]
struct Probed;

impl core::fmt::Display for Probed {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("probed")
    }
}

impl std::error::Error for Probed {}

impl de::Error for Probed {
    fn custom<M: core::fmt::Display>(_: M) -> Self {
        Probed
    }
}

macro_rules! asks {
    ($asked:ident: $($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Probed> {
            self.asked.set(Asked::$asked);
            Err(Probed)
        }
    )*};
}

/// How many `Option`s and newtypes the probe follows.
const PROBE_DEPTH: u8 = 4;

impl<'de> Deserializer<'de> for Probe<'_> {
    type Error = Probed;

    asks!(Alike: deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32
        deserialize_i64 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_char deserialize_str deserialize_string deserialize_ignored_any);
    asks!(Any: deserialize_any);
    asks!(Other: deserialize_i128 deserialize_u128 deserialize_f32 deserialize_f64
        deserialize_bytes deserialize_byte_buf deserialize_unit deserialize_seq
        deserialize_map deserialize_identifier);

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Probed> {
        if self.depth >= PROBE_DEPTH {
            self.asked.set(Asked::Other);
            return Err(Probed);
        }
        self.through_option.set(true);
        visitor.visit_some(Probe {
            depth: self.depth + 1,
            ..self
        })
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Probed> {
        // serde_json's own types (`RawValue`) are special to serde_json only.
        if self.depth >= PROBE_DEPTH || name.starts_with("$serde_json") {
            self.asked.set(Asked::Other);
            return Err(Probed);
        }
        visitor.visit_newtype_struct(Probe {
            depth: self.depth + 1,
            ..self
        })
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Probed> {
        // A unit variant's name: read alike both ways.
        self.asked.set(Asked::Alike);
        Err(Probed)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: V,
    ) -> Result<V::Value, Probed> {
        self.asked.set(Asked::Other);
        Err(Probed)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value, Probed> {
        self.asked.set(Asked::Other);
        Err(Probed)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: usize,
        _: V,
    ) -> Result<V::Value, Probed> {
        self.asked.set(Asked::Other);
        Err(Probed)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Probed> {
        self.asked.set(Asked::Other);
        Err(Probed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    fn buffered<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Option<T> {
        content(
            bytes,
            Form::Value {
                buffered: true,
                open: false,
            },
            |de| T::deserialize(de),
        )
    }

    #[derive(Deserialize, Debug, PartialEq)]
    struct Unit;

    #[derive(Deserialize, Debug, PartialEq)]
    enum External {
        A,
        B(u8),
        C { x: u8 },
    }

    #[test]
    fn the_buffer_accepts_what_serde_json_refuses() {
        assert_eq!(buffered::<Unit>(b"{}"), Some(Unit));
        assert_eq!(buffered::<Unit>(b"[]"), Some(Unit));
        assert_eq!(buffered::<Unit>(b"null"), Some(Unit));
        assert_eq!(buffered::<()>(b"{}"), Some(()));
        assert_eq!(buffered::<()>(b"[]"), None);
        assert_eq!(buffered::<External>(br#"{"A":{}}"#), Some(External::A));
        assert_eq!(
            buffered::<External>(br#"{"C":[7]}"#),
            Some(External::C { x: 7 })
        );
        assert_eq!(buffered::<External>(br#""A""#), Some(External::A));
        assert_eq!(buffered::<External>(br#"{"B":1,"A":null}"#), None);
        assert_eq!(buffered::<u128>(b"1"), None);
        assert_eq!(buffered::<Option<u8>>(b"null"), Some(None));
        assert_eq!(
            buffered::<Vec<Unit>>(b"[{},[],null]"),
            Some(vec![Unit, Unit, Unit])
        );
        assert_eq!(serde_json::from_slice::<Unit>(b"{}").ok(), None);
    }

    #[test]
    fn the_buffer_refuses_what_serde_json_accepts() {
        use std::collections::HashMap;
        assert_eq!(buffered::<HashMap<u8, u8>>(br#"{"1":2}"#), None);
        assert!(serde_json::from_slice::<HashMap<u8, u8>>(br#"{"1":2}"#).is_ok());
        assert_eq!(buffered::<u8>(b"1.0"), None);
        assert_eq!(buffered::<f64>(b"1"), Some(1.0));
    }

    #[test]
    fn plain_scalars_take_the_fast_path() {
        assert!(reads_alike::<u32>(b"12"));
        assert!(reads_alike::<String>(br#""a""#));
        assert!(reads_alike::<Option<u32>>(b"12"));
        assert!(!reads_alike::<Option<u32>>(b"null"));
        assert!(!reads_alike::<f64>(b"1.5"));
        assert!(!reads_alike::<Unit>(b"null"));
        assert!(!reads_alike::<serde_json::Value>(b"1"));
        assert!(reads_alike::<serde_json::Value>(br#""a""#));
        assert!(!reads_alike::<Vec<u8>>(b"[1]"));
        assert!(reads_alike::<External>(br#""A""#));
    }
}
