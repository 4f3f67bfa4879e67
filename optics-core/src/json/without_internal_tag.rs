//! Decoding what serde reads from an object's members without some of its
//! keys: the payload of an internally tagged variant (the enum's object
//! without its tag), and a flattened field's value (its struct's object
//! without the struct's own keys and those the flattened fields before it
//! take). Both come from serde's buffer; [`MembersDe`] streams them from the
//! bytes with the same rules, so that a map payload does not get the tag as
//! an entry, `()` and unit structs read an object with nothing else in it,
//! and a `deny_unknown_fields` struct sees only its members.

use serde::de::value::StringDeserializer;
use serde::de::{
    Deserialize, DeserializeSeed, Deserializer, Error as _, IgnoredAny, MapAccess, Unexpected,
    Visitor,
};

use super::locate::buffered::{single_entry_enum, BufferedSeed, JsonDe, MapEnum};
use super::locate::spot::Hidden;

/// serde's buffered reading of the members of the object under `de` that
/// `hidden` does not name: as a map (`flat: false`, an internally tagged
/// payload) or as a flattened field's value (`flat: true`).
pub(crate) struct MembersDe<'a, 'de> {
    de: &'a mut JsonDe<'de>,
    hidden: Hidden,
    flat: bool,
}

impl<'a, 'de> MembersDe<'a, 'de> {
    pub(crate) fn new(de: &'a mut JsonDe<'de>, hidden: Hidden, flat: bool) -> Self {
        MembersDe { de, hidden, flat }
    }
}

/// A key as written: borrowed from the input unless it had escapes.
enum Key<'de> {
    Borrowed(&'de str),
    Owned(String),
}

impl Key<'_> {
    fn text(&self) -> &str {
        match self {
            Key::Borrowed(key) => key,
            Key::Owned(key) => key,
        }
    }
}

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, key: &'de str) -> Result<Key<'de>, E> {
                Ok(Key::Borrowed(key))
            }
            fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<Key<'de>, E> {
                Ok(Key::Owned(key.to_owned()))
            }
            fn visit_string<E: serde::de::Error>(self, key: String) -> Result<Key<'de>, E> {
                Ok(Key::Owned(key))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

/// Which members a [`Visible`] map hands on.
#[derive(Clone, Copy)]
struct Filter {
    hidden: Hidden,
    /// A flattened struct's fields: serde hands it only these.
    fields: Option<&'static [&'static str]>,
}

impl Filter {
    fn passes<E: serde::de::Error>(&self, key: &str) -> Result<bool, E> {
        let hidden = self
            .hidden
            .hides(key)
            .ok_or_else(|| E::custom("too many flattened levels"))?;
        Ok(!hidden && self.fields.is_none_or(|fields| fields.contains(&key)))
    }
}

/// The members of a map that `filter` passes, values buffered.
struct Visible<A> {
    map: A,
    filter: Filter,
}

impl<'de, A: MapAccess<'de>> Visible<A> {
    /// The next key that passes, skipping the values of those that do not.
    fn next_visible(&mut self) -> Result<Option<Key<'de>>, A::Error> {
        while let Some(key) = self.map.next_key::<Key<'de>>()? {
            if self.filter.passes::<A::Error>(key.text())? {
                return Ok(Some(key));
            }
            self.map.next_value::<IgnoredAny>()?;
        }
        Ok(None)
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Visible<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        // A key in serde's buffer is a string, whatever it is read as.
        match self.next_visible()? {
            None => Ok(None),
            Some(Key::Borrowed(key)) => seed
                .deserialize(super::locate::buffered::Buffered(
                    serde::de::value::BorrowedStrDeserializer::<A::Error>::new(key),
                ))
                .map(Some),
            Some(Key::Owned(key)) => seed
                .deserialize(super::locate::buffered::Buffered(StringDeserializer::<
                    A::Error,
                >::new(
                    key
                )))
                .map(Some),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(BufferedSeed(seed))
    }
}

/// What is done with the object once serde_json opens it.
#[derive(Clone, Copy)]
enum Then {
    /// Hand the visible members to the visitor as a map.
    Map,
    /// `()` or a unit struct: no visible member.
    Unit,
    /// An enum written `{"Variant": payload}`: exactly one visible member.
    SingleEntry,
    /// A flattened externally tagged enum: the first visible member named
    /// like a variant; the others are left.
    FlatEnum(&'static [&'static str]),
}

struct Open<V> {
    visitor: V,
    filter: Filter,
    then: Then,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Open<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.visitor.expecting(f)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        let mut visible = Visible {
            map,
            filter: self.filter,
        };
        match self.then {
            Then::Map => self.visitor.visit_map(visible),
            Then::Unit => match visible.next_visible()? {
                None => self.visitor.visit_unit(),
                Some(_) => Err(A::Error::invalid_type(Unexpected::Map, &self.visitor)),
            },
            Then::SingleEntry => single_entry_enum(&mut visible, self.visitor),
            Then::FlatEnum(variants) => {
                visible.filter.fields = Some(variants);
                let value = self.visitor.visit_enum(MapEnum { map: &mut visible })?;
                // The other members stay in serde's buffer, unread.
                visible.filter = Filter {
                    hidden: visible.filter.hidden,
                    fields: None,
                };
                while visible
                    .map
                    .next_entry::<IgnoredAny, IgnoredAny>()?
                    .is_some()
                {}
                Ok(value)
            }
        }
    }
}

impl<'de> MembersDe<'_, 'de> {
    fn open<V: Visitor<'de>>(
        self,
        visitor: V,
        fields: Option<&'static [&'static str]>,
        then: Then,
    ) -> Result<V::Value, serde_json::Error> {
        self.de.deserialize_map(Open {
            visitor,
            filter: Filter {
                hidden: self.hidden,
                fields,
            },
            then,
        })
    }

    /// Reads past the object and makes the unit call: what serde's
    /// flattened reading does for `()`, a unit struct and an ignored value.
    fn unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
        self.de.deserialize_ignored_any(IgnoredAny)?;
        visitor.visit_unit()
    }

    fn refuse<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
        if self.flat {
            Err(serde_json::Error::custom(
                "can only flatten structs and maps",
            ))
        } else {
            Err(serde_json::Error::invalid_type(Unexpected::Map, &visitor))
        }
    }
}

macro_rules! refused {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        fn $method<V: Visitor<'de>>(self, $(_: $ty,)* visitor: V) -> Result<V::Value, Self::Error> {
            self.refuse(visitor)
        }
    )*};
}

impl<'de> Deserializer<'de> for MembersDe<'_, 'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        self.open(visitor, None, Then::Map)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        self.open(visitor, None, Then::Map)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        let fields = self.flat.then_some(fields);
        self.open(visitor, fields, Then::Map)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        let _ = name;
        if self.flat {
            self.open(visitor, None, Then::FlatEnum(variants))
        } else {
            self.open(visitor, None, Then::SingleEntry)
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        if self.flat {
            self.unit(visitor)
        } else {
            self.open(visitor, None, Then::Unit)
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        if self.flat {
            // A flattened `Option` is refused by the derive: serde decides
            // `Some` or `None` by trying to decode it.
            self.refuse(visitor)
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        self.unit(visitor)
    }

    refused! {
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
        deserialize_seq();
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_identifier();
    }
}
