//! `key(k)`: the optional on one entry of a map.

use core::borrow::Borrow;
use core::hash::{BuildHasher, Hash};
use core::marker::PhantomData;
use std::collections::{BTreeMap, HashMap};

use super::{composable, Optic, Preview, PreviewMut};

/// A map whose values are reached by a key borrowed as `Q`: `HashMap` and
/// `BTreeMap`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a map with keys looked up as `{Q}`, so `key(k)` cannot step into it",
    label = "`key(k)` needs a `HashMap` or `BTreeMap` here, whose key borrows as `{Q}`",
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
/// `bool`, `char`: see [`JsonKey`]) are found as serde_json reads them back.
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

/// A map key type whose entry a byte optic can find. serde_json writes every
/// map key as a JSON string: a string key as itself, an integer or a `bool`
/// as its decimal or literal text (`"-7"`, `"true"`), a `char` as itself.
///
/// Implemented for `str`, `String`, `char`, `bool` and the integer types.
pub trait JsonKey {
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

impl JsonKey for str {
    fn text(&self) -> Option<&str> {
        Some(self)
    }

    fn is_key(&self, raw: &[u8], _: bool) -> bool {
        crate::json::scan::raw_eq(raw, self.as_bytes())
    }
}

impl JsonKey for String {
    fn text(&self) -> Option<&str> {
        Some(self)
    }

    fn is_key(&self, raw: &[u8], buffered: bool) -> bool {
        self.as_str().is_key(raw, buffered)
    }
}

impl JsonKey for char {
    fn is_key(&self, raw: &[u8], _: bool) -> bool {
        crate::json::scan::raw_eq(raw, self.encode_utf8(&mut [0; 4]).as_bytes())
    }
}

impl JsonKey for bool {
    fn is_key(&self, raw: &[u8], buffered: bool) -> bool {
        // serde_json reads `"true"` and `"false"` exactly, no escapes.
        !buffered && raw == if *self { &b"true"[..] } else { &b"false"[..] }
    }
}

/// serde_json reads an integer key as the number written right inside the
/// quotes: no whitespace, no escapes, and the number must be one the type
/// reads from JSON (so `"01"`, `"1.0"` and `"-0"` are no integer keys).
macro_rules! integer_keys {
    ($($int:ty)*) => {$(
        impl JsonKey for $int {
            fn is_key(&self, raw: &[u8], buffered: bool) -> bool {
                !buffered
                    && matches!(raw.first(), Some(b'0'..=b'9' | b'-'))
                    && raw.last().is_some_and(u8::is_ascii_digit)
                    && serde_json::from_slice::<$int>(raw).is_ok_and(|key| key == *self)
            }
        }
    )*};
}

integer_keys!(u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize);
