//! Decoding the payload of an internally tagged newtype variant as serde does:
//! from the enum's object without its tag member, so that a map payload does
//! not get the tag as an entry and a `deny_unknown_fields` struct accepts it.

use serde::de::value::{BorrowedStrDeserializer, StringDeserializer};
use serde::de::{
    Deserialize, DeserializeSeed, Deserializer, Error, IgnoredAny, MapAccess, Visitor,
};

type Inner<'a, 'de> = &'a mut serde_json::Deserializer<serde_json::de::SliceRead<'de>>;

/// `bytes`, an object, decoded as a `T` without its members named `tag`.
pub(crate) fn decode<'de, T: Deserialize<'de>>(bytes: &'de [u8], tag: &'static str) -> Option<T> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = T::deserialize(WithoutTag { de: &mut de, tag }).ok()?;
    de.end().ok()?;
    Some(value)
}

/// serde_json's deserializer over an object, hiding the tag member.
struct WithoutTag<'a, 'de> {
    de: Inner<'a, 'de>,
    tag: &'static str,
}

/// A visitor that sees the object's members without the tag.
struct Hide<V> {
    visitor: V,
    tag: &'static str,
}

/// The members of the object, without the tag.
struct Members<A> {
    map: A,
    tag: &'static str,
}

/// A key as written: borrowed from the input unless it had escapes.
enum Key<'de> {
    Borrowed(&'de str),
    Owned(String),
}

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E: Error>(self, key: &'de str) -> Result<Key<'de>, E> {
                Ok(Key::Borrowed(key))
            }
            fn visit_str<E: Error>(self, key: &str) -> Result<Key<'de>, E> {
                Ok(Key::Owned(key.to_owned()))
            }
            fn visit_string<E: Error>(self, key: String) -> Result<Key<'de>, E> {
                Ok(Key::Owned(key))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Members<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        loop {
            let key = match self.map.next_key::<Key<'de>>()? {
                None => return Ok(None),
                Some(key) => key,
            };
            let is_tag = match &key {
                Key::Borrowed(key) => *key == self.tag,
                Key::Owned(key) => key == self.tag,
            };
            if is_tag {
                self.map.next_value::<IgnoredAny>()?;
                continue;
            }
            return match key {
                Key::Borrowed(key) => seed.deserialize(BorrowedStrDeserializer::new(key)),
                Key::Owned(key) => seed.deserialize(StringDeserializer::new(key)),
            }
            .map(Some);
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(seed)
    }
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Hide<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.visitor.expecting(f)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_map(Members { map, tag: self.tag })
    }
}

impl<'de> Deserializer<'de> for WithoutTag<'_, 'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        self.deserialize_map(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        self.de.deserialize_map(Hide {
            visitor,
            tag: self.tag,
        })
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.deserialize_map(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        // The bytes are an object, never `null`.
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        self.de.deserialize_ignored_any(visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct enum identifier
    }
}
