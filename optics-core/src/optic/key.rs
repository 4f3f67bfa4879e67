//! `key(k)`: the optional on one entry of a map.

use core::borrow::Borrow;
use core::fmt;
use core::hash::{BuildHasher, Hash};
use core::marker::PhantomData;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;

use serde::de::{DeserializeOwned, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};

use super::{composable, Optic, Preview, PreviewMut};

/// A map whose values are reached by a key borrowed as `Q`: `HashMap`,
/// `BTreeMap` and serde_json's `Map` (a `Value` object's members).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a map with keys looked up as `{Q}`, so `key(k)` cannot step into it",
    label = "`key(k)` needs a `HashMap`, `BTreeMap` or `serde_json::Map` here, whose key borrows as `{Q}`",
    note = "step into a list with `at(i)`, into an `Option` with `some()`, and into every value with `each()`"
)]
pub trait Keyed<Q: ?Sized> {
    /// The value type.
    type Value;
    /// The value under `key`, if any.
    fn value(&self, key: &Q) -> Option<&Self::Value>;
    /// The value under `key`, mutably, if any.
    fn value_mut(&mut self, key: &Q) -> Option<&mut Self::Value>;
}

/// `Keyed` through the map's own `get` and `get_mut`.
macro_rules! keyed_by_get {
    ($(impl[$($gen:tt)*] $ty:ty where [$($bounds:tt)*];)*) => {$(
        impl<$($gen)*> Keyed<Q> for $ty
        where
            $($bounds)*
        {
            type Value = V;
            #[inline]
            fn value(&self, key: &Q) -> Option<&V> {
                self.get(key)
            }
            #[inline]
            fn value_mut(&mut self, key: &Q) -> Option<&mut V> {
                self.get_mut(key)
            }
        }
    )*};
}

keyed_by_get! {
    impl[K, V, S, Q] HashMap<K, V, S> where [
        K: Borrow<Q> + Hash + Eq,
        Q: ?Sized + Hash + Eq,
        S: BuildHasher,
    ];
    impl[K, V, Q] BTreeMap<K, V> where [K: Borrow<Q> + Ord, Q: ?Sized + Ord];
}

/// A `Value` object's members, through the map's own `get` and `get_mut`.
impl<Q> Keyed<Q> for serde_json::Map<String, serde_json::Value>
where
    String: Borrow<Q>,
    Q: ?Sized + Ord + Eq + Hash,
{
    type Value = serde_json::Value;
    #[inline]
    fn value(&self, key: &Q) -> Option<&serde_json::Value> {
        self.get(key)
    }
    #[inline]
    fn value_mut(&mut self, key: &Q) -> Option<&mut serde_json::Value> {
        self.get_mut(key)
    }
}

/// The optional on the entry under a borrowed key of an `M` (see [`key`]).
pub struct Key<'k, M, Q: ?Sized> {
    key: &'k Q,
    map: PhantomData<fn() -> M>,
}

/// The optional on the value under `k` in a map: misses where there is none.
/// The map type is inferred from what it is composed with
/// (`Issue::tags.then(key("team"))`).
///
/// On values: the map's own lookup. On bytes: scans the object to its end,
/// because serde_json keeps the last of duplicate keys; decodes nothing else.
/// Keys that serde_json writes as strings but are not strings (integers,
/// `bool`, `char`, addresses: see [`JsonKey`]) are found as serde_json reads
/// them back: the last member serde reads as the key, however it is spelled.
///
/// ```
/// use std::collections::BTreeMap;
/// use optics_core::prelude::*;
///
/// #[derive(Optics, serde::Deserialize)]
/// struct Scores { by_id: BTreeMap<i64, u8> }
///
/// let scores = Scores { by_id: BTreeMap::from([(-7, 3)]) };
/// assert_eq!(Scores::by_id.then(key(&-7)).preview(&scores), Some(&3));
/// let bytes = br#"{"by_id":{"-7":3,"12":4}}"#;
/// assert_eq!(Json::<Scores>::new(bytes).read(Scores::by_id.then(key(&12))), Some(4));
/// ```
pub const fn key<M, Q: ?Sized>(k: &Q) -> Key<'_, M, Q> {
    Key {
        key: k,
        map: PhantomData,
    }
}

impl<'k, M, Q: ?Sized> Key<'k, M, Q> {
    /// The key this optic looks up.
    pub const fn key(&self) -> &'k Q {
        self.key
    }
}

composable!(impl['k, M, Q: ?Sized] Key<'k, M, Q>);

impl<M, Q: ?Sized> Clone for Key<'_, M, Q> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<M, Q: ?Sized> Copy for Key<'_, M, Q> {}
impl<M, Q: ?Sized + core::fmt::Debug> core::fmt::Debug for Key<'_, M, Q> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "key({:?})", self.key)
    }
}

impl<M: Keyed<Q>, Q: ?Sized> Optic for Key<'_, M, Q> {
    type Source = M;
    type Focus = M::Value;
}

impl<M: Keyed<Q>, Q: ?Sized> Preview for Key<'_, M, Q> {
    #[inline]
    fn preview<'s>(&self, s: &'s M) -> Option<&'s M::Value>
    where
        Self: 's,
    {
        s.value(self.key)
    }
}

impl<M: Keyed<Q>, Q: ?Sized> PreviewMut for Key<'_, M, Q> {
    #[inline]
    fn preview_mut<'s>(&self, s: &'s mut M) -> Option<&'s mut M::Value>
    where
        Self: 's,
    {
        s.value_mut(self.key)
    }
}

/// A map key type whose entry a byte optic can find, and that tells a byte
/// traversal over its map which members serde keeps. serde_json writes every
/// map key as a JSON string: a string key as itself, an integer or a `bool`
/// as its decimal or literal text (`"-7"`, `"true"`), a `char` as itself.
///
/// Implemented for `str` and the other string types, `char`, `bool`, the
/// integer types, the address types of `std::net` and `PathBuf`. A key type
/// of your own implements it to be looked up with `key(k)` or walked with
/// `each()` on bytes; where its `Deserialize` reads several texts as one key
/// (an enum with aliases, a newtype over `i128`), with
/// [`ONE_SPELLING`](Self::ONE_SPELLING) false and [`read_key`](Self::read_key)
/// reading through [`read_map_key`]:
///
/// ```
/// use optics_core::json::{Duplicates, Strict};
/// use optics_core::optic::{read_map_key, JsonKey};
/// use optics_core::prelude::*;
/// use std::collections::BTreeMap;
///
/// #[derive(serde::Deserialize, PartialEq, Eq, PartialOrd, Ord)]
/// enum Shade {
///     #[serde(alias = "dark")]
///     Dark,
///     Light,
/// }
///
/// impl JsonKey for Shade {
///     const ONE_SPELLING: bool = false;
///     fn read_key(raw: &[u8], buffered: bool) -> Option<Self> {
///         read_map_key(raw, buffered)
///     }
///     fn is_key(&self, raw: &[u8], buffered: bool) -> bool {
///         Self::read_key(raw, buffered).as_ref() == Some(self)
///     }
/// }
///
/// #[derive(Optics, serde::Deserialize)]
/// struct Palette { by: BTreeMap<Shade, u8> }
///
/// let duplicates = Duplicates::new();
/// let bytes = br#"{"by":{"Dark":1,"dark":2,"Light":3}}"#;
/// let palette = Strict::<Palette>::validated(bytes, &duplicates).unwrap();
/// // serde_json reads "dark" as `Dark` and keeps it: so does the traversal.
/// let kept: Vec<Option<u8>> = palette.read_each(Palette::by.then(each())).collect();
/// assert_eq!(kept, [Some(2), Some(3)]);
/// assert_eq!(palette.read(Palette::by.then(key(&Shade::Dark))), Some(2));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a map key type that byte optics can read",
    label = "a map walked with `each()` or read with `key(k)` on bytes needs a key type implementing `JsonKey`",
    note = "implement `optics_core::optic::JsonKey` for it; where its `Deserialize` reads several texts as one key (aliases, several spellings), with `ONE_SPELLING` false and `read_key` reading through `read_map_key` (see the trait's docs)"
)]
pub trait JsonKey {
    /// Whether two member keys are one key of this type exactly where their
    /// texts are the same once escapes are decoded: true (the default) for
    /// the string types, `char`, `bool` and the integers but `i128`, which
    /// serde_json reads from one spelling only (`"-0"` and `"01"` are no
    /// `i64`, `"-0"` no `u128`). False for a type that reads several texts as one key (an
    /// `i128` reads `"-0"` as 0, an address has several spellings): a byte
    /// traversal over its map then reads every key with
    /// [`read_key`](Self::read_key) to tell the members serde keeps.
    const ONE_SPELLING: bool = true;

    /// The key serde reads from the member key written `raw` (between its
    /// quotes, escapes as written): as serde_json reads a map's key
    /// (`buffered: false`), or from serde's buffer; `None` where serde reads
    /// no key of this type there (its map then fails to decode). Called
    /// where [`ONE_SPELLING`](Self::ONE_SPELLING) is false; the default
    /// gives `None`. [`read_map_key`] reads a key with its `Deserialize`.
    fn read_key(raw: &[u8], buffered: bool) -> Option<Self>
    where
        Self: Sized,
    {
        let _ = (raw, buffered);
        None
    }

    /// Whether serde reads a key of this type from the member key written
    /// `raw` (between its quotes, escapes as written), as
    /// [`read_key`](Self::read_key) says for a key type of several
    /// spellings: where a map's object has a key that is none, serde reads
    /// no map there, and a strict traversal over it ends with no focus
    /// (a strict fold over it gives `None`). The default, true, is right for
    /// the string types, which read any key; the integers, `bool` and
    /// `char` say which texts they read (an integer or `bool` key written
    /// with an escape is none: serde_json reads those unescaped only).
    fn reads_key(raw: &[u8], buffered: bool) -> bool
    where
        Self: Sized,
    {
        let _ = (raw, buffered);
        true
    }

    /// The key's text, for a key written as its own text (strings): the
    /// member is found by comparing the raw key, escape-aware.
    fn text(&self) -> Option<&str> {
        None
    }

    /// Whether the member key written `raw` (between its quotes, escapes as
    /// written) is this key, as serde reads a key of this type: by
    /// serde_json itself (`buffered: false`), or from serde's buffer, where a
    /// key stays a string (so an integer or `bool` key is never read there).
    fn is_key(&self, raw: &[u8], buffered: bool) -> bool;
}

/// The key of type `K` serde reads from a map member's key written `raw`
/// (between its quotes, escapes as written), through `K`'s `Deserialize`:
/// as serde_json reads a map's key (`buffered: false`), or as serde reads
/// it from its buffer (a flattened map's, an internally tagged payload's),
/// where a key stays a string. `None` where serde reads no `K` there.
///
/// Copies the key into a small document of its own (one allocation), then
/// decodes it with what `K`'s `Deserialize` allocates.
///
/// ```
/// use optics_core::optic::read_map_key;
///
/// assert_eq!(read_map_key::<i128>(b"-0", false), Some(0));
/// assert_eq!(read_map_key::<i64>(b"-0", false), None);
/// assert_eq!(read_map_key::<String>(br"\u0061", true), Some("a".to_owned()));
/// assert_eq!(read_map_key::<u8>(b"7", true), None);
/// ```
pub fn read_map_key<K: DeserializeOwned>(raw: &[u8], buffered: bool) -> Option<K> {
    let mut doc = Vec::with_capacity(raw.len() + 9);
    doc.extend_from_slice(b"{\"");
    doc.extend_from_slice(raw);
    doc.extend_from_slice(b"\":null}");
    if buffered {
        serde_json::from_slice::<Buffered<K>>(&doc).ok()?.key.0
    } else {
        serde_json::from_slice::<FirstKey<K>>(&doc).ok()?.0
    }
}

/// The first key of a JSON object, read as a map's key (its value skipped).
struct FirstKey<K>(Option<K>);

impl<'de, K: Deserialize<'de>> Deserialize<'de> for FirstKey<K> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        /// Reads the first key, skips the rest.
        struct First<K>(PhantomData<K>);
        impl<'de, K: Deserialize<'de>> Visitor<'de> for First<K> {
            type Value = FirstKey<K>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let key = map.next_key::<K>()?;
                if key.is_some() {
                    map.next_value::<IgnoredAny>()?;
                }
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(FirstKey(key))
            }
        }
        deserializer.deserialize_map(First(PhantomData))
    }
}

/// A map read from serde's buffer, as a flattened map is.
#[derive(Deserialize)]
#[serde(bound = "K: Deserialize<'de>")]
struct Buffered<K> {
    #[serde(flatten)]
    key: FirstKey<K>,
}

impl JsonKey for str {
    fn text(&self) -> Option<&str> {
        Some(self)
    }

    fn is_key(&self, raw: &[u8], _: bool) -> bool {
        crate::json::scan::raw_eq(raw, self.as_bytes())
    }
}

impl JsonKey for char {
    fn reads_key(raw: &[u8], buffered: bool) -> bool {
        // One character, once escapes are decoded.
        if raw.contains(&b'\\') {
            return read_map_key::<char>(raw, buffered).is_some();
        }
        core::str::from_utf8(raw).is_ok_and(|text| text.chars().count() == 1)
    }

    fn is_key(&self, raw: &[u8], _: bool) -> bool {
        crate::json::scan::raw_eq(raw, self.encode_utf8(&mut [0; 4]).as_bytes())
    }
}

impl JsonKey for bool {
    fn reads_key(raw: &[u8], buffered: bool) -> bool {
        !buffered && matches!(raw, b"true" | b"false")
    }

    fn is_key(&self, raw: &[u8], buffered: bool) -> bool {
        // serde_json reads `"true"` and `"false"` exactly, no escapes.
        !buffered && raw == if *self { &b"true"[..] } else { &b"false"[..] }
    }
}

/// serde_json reads an integer key as the number written right inside the
/// quotes: no whitespace, no escapes, and the number must be one the type
/// reads from JSON (so `"01"` and `"1.0"` are no integer keys, nor is `"-0"`
/// up to 64 bits; an `i128` reads it as 0, so has two spellings of 0).
macro_rules! integer_keys {
    ($one_spelling:literal: $($int:ty)*) => {$(
        impl JsonKey for $int {
            const ONE_SPELLING: bool = $one_spelling;

            fn read_key(raw: &[u8], buffered: bool) -> Option<Self> {
                if buffered
                    || !matches!(raw.first(), Some(b'0'..=b'9' | b'-'))
                    || !raw.last().is_some_and(u8::is_ascii_digit)
                {
                    return None;
                }
                serde_json::from_slice(raw).ok()
            }

            fn reads_key(raw: &[u8], buffered: bool) -> bool {
                Self::read_key(raw, buffered).is_some()
            }

            fn is_key(&self, raw: &[u8], buffered: bool) -> bool {
                Self::read_key(raw, buffered) == Some(*self)
            }
        }
    )*};
}

integer_keys!(true: u8 u16 u32 u64 u128 usize i8 i16 i32 i64 isize);
integer_keys!(false: i128);

/// String types a map may be keyed by: found and told apart by their text.
macro_rules! text_keys {
    ($(impl[$($gen:tt)*] $ty:ty;)*) => {$(
        impl<$($gen)*> JsonKey for $ty {
            fn text(&self) -> Option<&str> {
                Some(&**self)
            }

            fn is_key(&self, raw: &[u8], buffered: bool) -> bool {
                str::is_key(self, raw, buffered)
            }
        }
    )*};
}

text_keys! {
    impl[] String;
    impl['a] &'a str;
    impl['a] Cow<'a, str>;
    impl[] Box<str>;
    impl[] Rc<str>;
    impl[] Arc<str>;
}

/// Key types whose `Deserialize` reads several texts as one key: read with
/// it, to find a key and to tell a map's members apart.
macro_rules! decoded_keys {
    ($($ty:ty)*) => {$(
        impl JsonKey for $ty {
            const ONE_SPELLING: bool = false;

            fn read_key(raw: &[u8], buffered: bool) -> Option<Self> {
                read_map_key(raw, buffered)
            }

            fn reads_key(raw: &[u8], buffered: bool) -> bool {
                Self::read_key(raw, buffered).is_some()
            }

            fn is_key(&self, raw: &[u8], buffered: bool) -> bool {
                Self::read_key(raw, buffered).as_ref() == Some(self)
            }
        }
    )*};
}

// An address has several spellings (`"::1"`, `"0::1"`); a path compares by
// its components (`"a/b"` is `"a//b"`).
decoded_keys!(IpAddr Ipv4Addr Ipv6Addr SocketAddr SocketAddrV4 SocketAddrV6 PathBuf);
