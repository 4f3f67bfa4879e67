//! `each()`: the traversal on every element of a list and every value of a map.

use core::marker::PhantomData;
use std::collections::{btree_map, hash_map, vec_deque, BTreeMap, HashMap, VecDeque};

use super::traversal::{Traverse, TraverseMut};
use super::{composable, zero_sized, Optic};

/// A collection whose elements [`each`] visits, in the collection's own
/// order, which is the order serde writes them: `Vec<T>`, `[T]`, `[T; N]`
/// and `VecDeque<T>` (a JSON array), and the values of `HashMap`,
/// `BTreeMap` and serde_json's `Map` (the members of a JSON object, which a
/// `BTreeMap` holds in key order, and a `Map` too unless serde_json's
/// `preserve_order` is on; on bytes, in the bytes' order,
/// every member of a repeated key included: see [`Json::iter`](crate::json::Json::iter)).
/// On bytes a map's key type implements [`JsonKey`](crate::optic::JsonKey),
/// which tells a strict traversal the members serde keeps.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a list or a map, so `each()` has no elements to visit in it",
    label = "`each()` needs a `Vec`, slice, array, `VecDeque`, `HashMap`, `BTreeMap` or `serde_json::Map` here",
    note = "step into an `Option` with `some()`; a struct's fields are reached by their own optics (`Type::field`)"
)]
pub trait Elements {
    /// The element type (a map's value type).
    type Element;
    /// The elements, in order.
    type Iter<'s>: Iterator<Item = &'s Self::Element>
    where
        Self: 's;
    /// The elements, mutably, in order.
    type IterMut<'s>: Iterator<Item = &'s mut Self::Element>
    where
        Self: 's;
    /// Whether serde writes the collection as an object (a map, whose elements
    /// are the members' values) rather than an array.
    const OBJECT: bool;
    /// The elements.
    fn elements(&self) -> Self::Iter<'_>;
    /// The elements, mutably.
    fn elements_mut(&mut self) -> Self::IterMut<'_>;
}

/// `Elements` through the collection's own `iter`/`iter_mut` (or
/// `values`/`values_mut`).
macro_rules! elements_by {
    ($(impl[$($gen:tt)*] $ty:ty => $elem:ty, $iter:ty, $iter_mut:ty, $by:ident, $by_mut:ident, $object:expr;)*) => {$(
        impl<$($gen)*> Elements for $ty {
            type Element = $elem;
            type Iter<'s> = $iter where Self: 's;
            type IterMut<'s> = $iter_mut where Self: 's;
            const OBJECT: bool = $object;
            #[inline]
            fn elements(&self) -> Self::Iter<'_> {
                self.$by()
            }
            #[inline]
            fn elements_mut(&mut self) -> Self::IterMut<'_> {
                self.$by_mut()
            }
        }
    )*};
}

elements_by! {
    impl[T] [T] => T, core::slice::Iter<'s, T>, core::slice::IterMut<'s, T>, iter, iter_mut, false;
    impl[T] Vec<T> => T, core::slice::Iter<'s, T>, core::slice::IterMut<'s, T>, iter, iter_mut, false;
    impl[T, const N: usize] [T; N] => T, core::slice::Iter<'s, T>, core::slice::IterMut<'s, T>, iter, iter_mut, false;
    impl[T] VecDeque<T> => T, vec_deque::Iter<'s, T>, vec_deque::IterMut<'s, T>, iter, iter_mut, false;
    impl[K, V, S] HashMap<K, V, S> => V, hash_map::Values<'s, K, V>, hash_map::ValuesMut<'s, K, V>, values, values_mut, true;
    impl[K, V] BTreeMap<K, V> => V, btree_map::Values<'s, K, V>, btree_map::ValuesMut<'s, K, V>, values, values_mut, true;
    impl[] serde_json::Map<String, serde_json::Value> => serde_json::Value, serde_json::map::Values<'s>, serde_json::map::ValuesMut<'s>, values, values_mut, true;
}

/// The traversal on every element of a `C` (see [`each`]). Zero-sized.
pub struct Each<C: ?Sized>(PhantomData<fn() -> PhantomData<C>>);

/// The traversal on every element of a list (`Vec`, slice, array,
/// `VecDeque`) or every value of a map (`HashMap`, `BTreeMap`, serde_json's `Map`). The
/// collection type is inferred from what it is composed with
/// (`Trace::frames.then(each())`).
///
/// A traversal has no `get` and no `preview`: it has
/// [`iter`](Traverse::iter), [`fold`](Traverse::fold),
/// [`iter_mut`](TraverseMut::iter_mut), [`set_all`](TraverseMut::set_all) and
/// [`modify_all`](TraverseMut::modify_all). Composed with anything, it gives
/// a traversal. On values each element costs one step of the collection's own
/// iterator; on bytes ([`Json::iter`](crate::Json::iter)), one skip of the
/// element before it, nothing decoded, nothing allocated.
///
/// ```
/// use optics_core::prelude::*;
///
/// #[derive(Optics, Debug, PartialEq)]
/// struct Trace { frames: Vec<Frame> }
/// #[derive(Optics, Debug, PartialEq)]
/// struct Frame { module: String, line: u32 }
///
/// let mut trace = Trace { frames: vec![
///     Frame { module: "auth".into(), line: 7 },
///     Frame { module: "http".into(), line: 9 },
/// ] };
/// let lines = Trace::frames.then(each()).then(Frame::line);
/// assert_eq!(lines.iter(&trace).copied().collect::<Vec<_>>(), [7, 9]);
/// assert_eq!(lines.fold(&trace, 0, |sum, line| sum + line), 16);
/// lines.modify_all(&mut trace, |line| *line += 1);
/// assert_eq!(lines.iter(&trace).copied().collect::<Vec<_>>(), [8, 10]);
/// ```
pub const fn each<C: ?Sized>() -> Each<C> {
    Each(PhantomData)
}

composable!(impl[C: ?Sized] Each<C>);

zero_sized!(impl[C: ?Sized] Each<C> = each());
impl<C: ?Sized> core::fmt::Debug for Each<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("each()")
    }
}

impl<C: ?Sized + Elements> Optic for Each<C> {
    type Source = C;
    type Focus = C::Element;
}

impl<C: ?Sized + Elements> Traverse for Each<C> {
    type Iter<'s>
        = C::Iter<'s>
    where
        Self: 's;

    #[inline]
    fn iter<'s>(&self, s: &'s C) -> C::Iter<'s>
    where
        Self: 's,
    {
        s.elements()
    }
}

impl<C: ?Sized + Elements> TraverseMut for Each<C> {
    type IterMut<'s>
        = C::IterMut<'s>
    where
        Self: 's;

    #[inline]
    fn iter_mut<'s>(&self, s: &'s mut C) -> C::IterMut<'s>
    where
        Self: 's,
    {
        s.elements_mut()
    }
}
