//! `at(i)`: the optional on one element of a list.

use core::marker::PhantomData;

use super::{composable, Optic, Preview, PreviewMut};

/// A collection whose elements are reached by position: `Vec<T>`, `[T]`,
/// `[T; N]` and `VecDeque<T>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a list, so `at(i)` cannot step into it",
    label = "`at(i)` needs a `Vec`, slice, array or `VecDeque` here",
    note = "step into a map with `key(&k)`, into an `Option` with `some()`, and into every element with `each()`"
)]
pub trait Indexed {
    /// The element type.
    type Element;
    /// Element `i`, if there is one.
    fn element(&self, i: usize) -> Option<&Self::Element>;
    /// Element `i`, mutably, if there is one.
    fn element_mut(&mut self, i: usize) -> Option<&mut Self::Element>;
}

/// `Indexed` through the collection's own bounds-checked `get` and `get_mut`.
macro_rules! indexed_by_get {
    ($(impl[$($gen:tt)*] $ty:ty;)*) => {$(
        impl<$($gen)*> Indexed for $ty {
            type Element = T;
            #[inline]
            fn element(&self, i: usize) -> Option<&T> {
                self.get(i)
            }
            #[inline]
            fn element_mut(&mut self, i: usize) -> Option<&mut T> {
                self.get_mut(i)
            }
        }
    )*};
}

indexed_by_get! {
    impl[T] [T];
    impl[T] Vec<T>;
    impl[T, const N: usize] [T; N];
    impl[T] std::collections::VecDeque<T>;
}

/// The optional on element `index` of a `C` (see [`at`]). One word.
pub struct At<C: ?Sized> {
    index: usize,
    collection: PhantomData<fn() -> PhantomData<C>>,
}

/// The optional on element `i` of a list: misses past the end. The list type is
/// inferred from what it is composed with (`Trace::frames.then(at(0))`).
///
/// On values: a bounds-checked index. On bytes: skips `i` elements, decoding none.
pub const fn at<C: ?Sized>(index: usize) -> At<C> {
    At {
        index,
        collection: PhantomData,
    }
}

impl<C: ?Sized> At<C> {
    /// The position this optic focuses.
    pub const fn index(&self) -> usize {
        self.index
    }
}

composable!(impl[C: ?Sized] At<C>);

impl<C: ?Sized> Clone for At<C> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<C: ?Sized> Copy for At<C> {}
impl<C: ?Sized> core::fmt::Debug for At<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "at({})", self.index)
    }
}

impl<C: ?Sized + Indexed> Optic for At<C> {
    type Source = C;
    type Focus = C::Element;
}

impl<C: ?Sized + Indexed> Preview for At<C> {
    #[inline]
    fn preview<'s>(&self, s: &'s C) -> Option<&'s C::Element>
    where
        Self: 's,
    {
        s.element(self.index)
    }
}

impl<C: ?Sized + Indexed> PreviewMut for At<C> {
    #[inline]
    fn preview_mut<'s>(&self, s: &'s mut C) -> Option<&'s mut C::Element>
    where
        Self: 's,
    {
        s.element_mut(self.index)
    }
}
