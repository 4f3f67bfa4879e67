//! Traversals: optics with any number of foci, in order.
//!
//! [`Traverse`] reads every focus ([`iter`](Traverse::iter),
//! [`fold`](Traverse::fold)); [`TraverseMut`] writes every focus
//! ([`iter_mut`](TraverseMut::iter_mut), [`set_all`](TraverseMut::set_all),
//! [`modify_all`](TraverseMut::modify_all)). [`each`](super::each) is the
//! traversal on every element of a collection. Every lens, prism and optional is
//! a traversal too, of at most one focus, so a composition with a traversal
//! on either side is a traversal: lens∘each, each∘prism, each∘each.
//!
//! Iterating a composition is the outer optic's iterator with the inner
//! one's run on each outer focus; nothing is allocated, nothing is boxed.

use super::{
    At, Discriminant, Field, FieldOf, Indexed, Key, Keyed, Optic, Preview, PreviewMut, Some_,
    Tagged, Then, Through, ThroughMut, Variant, VariantField, VariantFieldOf, VariantOf,
};

/// Read access to every focus, in order (traversals, and every other optic,
/// which has at most one focus).
pub trait Traverse: Optic {
    /// The iterator over the foci.
    type Iter<'s>: Iterator<Item = &'s Self::Focus>
    where
        Self: 's;

    /// Every focus in `s`, in order: a list's elements first to last, a map's
    /// values in the map's order. Borrows, copies nothing; for derived optics
    /// and `each()`, each step of the iterator is a step of the collection's.
    fn iter<'s>(&self, s: &'s Self::Source) -> Self::Iter<'s>
    where
        Self: 's;

    /// `f` folded over every focus, from `init`.
    #[inline]
    fn fold<'s, R, F>(&self, s: &'s Self::Source, init: R, f: F) -> R
    where
        Self: 's,
        F: FnMut(R, &'s Self::Focus) -> R,
    {
        self.iter(s).fold(init, f)
    }
}

/// Write access to every focus, in order.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot write its foci",
    label = "read-only",
    note = "a getter (`Type::kind`, or a getter from `optic!`) and a path through an `Rc` or an `Arc` are read-only, on values and on JSON bytes, and so is any path that goes on past them",
    note = "write through a path of lenses, prisms, optionals and `each()`, or through a `Box`"
)]
pub trait TraverseMut: Traverse {
    /// The iterator over the foci, mutably.
    type IterMut<'s>: Iterator<Item = &'s mut Self::Focus>
    where
        Self: 's;

    /// Every focus in `s`, mutably, in the order of [`Traverse::iter`].
    fn iter_mut<'s>(&self, s: &'s mut Self::Source) -> Self::IterMut<'s>
    where
        Self: 's;

    /// Sets every focus to a clone of `a`; returns how many there were.
    fn set_all(&self, s: &mut Self::Source, a: Self::Focus) -> usize
    where
        Self::Focus: Clone,
    {
        self.modify_all(s, |focus| *focus = a.clone())
    }

    /// Changes every focus in place; returns how many there were.
    fn modify_all<F: FnMut(&mut Self::Focus)>(&self, s: &mut Self::Source, mut f: F) -> usize {
        let mut count = 0;
        for focus in self.iter_mut(s) {
            f(focus);
            count += 1;
        }
        count
    }
}

/// A traversal: any number of foci, readable and writable. Implemented by
/// every optic that has [`TraverseMut`]: `each()`, its compositions, and
/// every lens, prism and optional.
pub trait Traversal: TraverseMut {}
impl<O: TraverseMut> Traversal for O {}

/// The foci of `first.then(second)`: `second`'s foci in each of `first`'s
/// (through a `Box`, `Rc` or `Arc` between the two: see [`Through`]).
pub struct ThenIter<'s, A, B>
where
    A: Traverse + 's,
    B: Traverse + 's,
    A::Focus: Through<B::Source>,
{
    outer: A::Iter<'s>,
    inner: Option<B::Iter<'s>>,
    second: B,
}

impl<'s, A, B> Iterator for ThenIter<'s, A, B>
where
    A: Traverse + 's,
    B: Traverse + 's,
    A::Focus: Through<B::Source>,
{
    type Item = &'s B::Focus;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(focus) = self.inner.as_mut().and_then(Iterator::next) {
                return Some(focus);
            }
            let outer = self.outer.next()?;
            self.inner = Some(self.second.iter(outer.through()));
        }
    }
}

/// The foci of `first.then(second)`, mutably (through a `Box` between the
/// two: see [`ThroughMut`]).
pub struct ThenIterMut<'s, A, B>
where
    A: TraverseMut + 's,
    B: TraverseMut + 's,
    A::Focus: ThroughMut<B::Source>,
{
    outer: A::IterMut<'s>,
    inner: Option<B::IterMut<'s>>,
    second: B,
}

impl<'s, A, B> Iterator for ThenIterMut<'s, A, B>
where
    A: TraverseMut + 's,
    B: TraverseMut + 's,
    A::Focus: ThroughMut<B::Source>,
{
    type Item = &'s mut B::Focus;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(focus) = self.inner.as_mut().and_then(Iterator::next) {
                return Some(focus);
            }
            let outer = self.outer.next()?;
            self.inner = Some(self.second.iter_mut(outer.through_mut()));
        }
    }
}

impl<A, B> Traverse for Then<A, B>
where
    A: Traverse,
    B: Traverse + Clone,
    A::Focus: Through<B::Source>,
{
    type Iter<'s>
        = ThenIter<'s, A, B>
    where
        Self: 's;

    #[inline]
    fn iter<'s>(&self, s: &'s Self::Source) -> Self::Iter<'s>
    where
        Self: 's,
    {
        ThenIter {
            outer: self.first().iter(s),
            inner: None,
            second: self.second().clone(),
        }
    }
}

impl<A, B> TraverseMut for Then<A, B>
where
    A: TraverseMut,
    B: TraverseMut + Clone,
    A::Focus: ThroughMut<B::Source>,
{
    type IterMut<'s>
        = ThenIterMut<'s, A, B>
    where
        Self: 's;

    #[inline]
    fn iter_mut<'s>(&self, s: &'s mut Self::Source) -> Self::IterMut<'s>
    where
        Self: 's,
    {
        ThenIterMut {
            outer: self.first().iter_mut(s),
            inner: None,
            second: self.second().clone(),
        }
    }
}

/// [`Traverse`] for optics of at most one focus, through their `preview`.
macro_rules! at_most_one {
    ($(impl[$($gen:tt)*] $ty:ty;)*) => {$(
        impl<$($gen)*> Traverse for $ty {
            type Iter<'s> = core::option::IntoIter<&'s Self::Focus> where Self: 's;
            #[inline]
            fn iter<'s>(&self, s: &'s Self::Source) -> Self::Iter<'s>
            where
                Self: 's,
            {
                self.preview(s).into_iter()
            }
        }
    )*};
}

/// [`TraverseMut`] for optics of at most one focus, through their `preview_mut`.
macro_rules! at_most_one_mut {
    ($(impl[$($gen:tt)*] $ty:ty;)*) => {$(
        impl<$($gen)*> TraverseMut for $ty {
            type IterMut<'s> = core::option::IntoIter<&'s mut Self::Focus> where Self: 's;
            #[inline]
            fn iter_mut<'s>(&self, s: &'s mut Self::Source) -> Self::IterMut<'s>
            where
                Self: 's,
            {
                self.preview_mut(s).into_iter()
            }
        }
    )*};
}

at_most_one! {
    impl[S: ?Sized + FieldOf<I>, const I: usize] Field<S, I>;
    impl[S: VariantOf<I>, const I: usize] Variant<S, I>;
    impl[S: VariantFieldOf<I>, const I: usize] VariantField<S, I>;
    impl[C: ?Sized + Indexed] At<C>;
    impl[M: Keyed<Q>, Q: ?Sized] Key<'_, M, Q>;
    impl[T] Some_<T>;
    impl[S: Tagged] Discriminant<S>;
}

at_most_one_mut! {
    impl[S: ?Sized + FieldOf<I>, const I: usize] Field<S, I>;
    impl[S: VariantOf<I>, const I: usize] Variant<S, I>;
    impl[S: VariantFieldOf<I>, const I: usize] VariantField<S, I>;
    impl[C: ?Sized + Indexed] At<C>;
    impl[M: Keyed<Q>, Q: ?Sized] Key<'_, M, Q>;
    impl[T] Some_<T>;
}

/// Implements [`Traverse`] (and, for the writable kinds, [`TraverseMut`]) for
/// a type named by `optic!`, through its `preview` (and `preview_mut`).
#[doc(hidden)]
#[macro_export]
macro_rules! __traverse_at_most_one {
    ($name:ident : $source:ty => $focus:ty) => {
        impl $crate::optic::Traverse for $name {
            type Iter<'s>
                = ::core::option::IntoIter<&'s $focus>
            where
                Self: 's;
            #[inline]
            fn iter<'s>(&self, s: &'s $source) -> Self::Iter<'s>
            where
                Self: 's,
            {
                $crate::optic::Preview::preview(self, s).into_iter()
            }
        }
    };
    (mut $name:ident : $source:ty => $focus:ty) => {
        impl $crate::optic::TraverseMut for $name {
            type IterMut<'s>
                = ::core::option::IntoIter<&'s mut $focus>
            where
                Self: 's;
            #[inline]
            fn iter_mut<'s>(&self, s: &'s mut $source) -> Self::IterMut<'s>
            where
                Self: 's,
            {
                $crate::optic::PreviewMut::preview_mut(self, s).into_iter()
            }
        }
    };
}
