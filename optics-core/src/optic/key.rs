//! `key(k)`: the optional on one entry of a map.

use core::borrow::Borrow;
use core::hash::{BuildHasher, Hash};
use core::marker::PhantomData;
use std::collections::{BTreeMap, HashMap};

use super::{composable, Optic, Preview, PreviewMut};

/// A map whose values are reached by a key borrowed as `Q`: `HashMap` and
/// `BTreeMap`.
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
