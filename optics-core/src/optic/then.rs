//! Composition of two optics.

use super::{composable, Get, GetMut, Optic, Preview, PreviewMut, Review};

/// `first` then `second`: the optic that focuses `second`'s focus inside
/// `first`'s. Built by the `then` method every optic has.
///
/// It implements each of [`Preview`], [`PreviewMut`], [`Get`], [`GetMut`] and
/// [`Review`] exactly when both halves do, so its kind is the weakest of the two.
/// Zero-sized when both halves are; every operation is the two halves' inlined.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Then<A, B> {
    first: A,
    second: B,
}

impl<A, B> Then<A, B> {
    /// `first` then `second`. Prefer `first.then(second)`, which checks that the
    /// two meet.
    pub const fn new(first: A, second: B) -> Self {
        Then { first, second }
    }

    /// The outer optic.
    pub const fn first(&self) -> &A {
        &self.first
    }

    /// The inner optic.
    pub const fn second(&self) -> &B {
        &self.second
    }
}

composable!(impl[A, B] Then<A, B>);

impl<A: core::fmt::Debug, B: core::fmt::Debug> core::fmt::Debug for Then<A, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{:?}.then({:?})", self.first, self.second)
    }
}

impl<A, B> Optic for Then<A, B>
where
    A: Optic,
    B: Optic<Source = A::Focus>,
{
    type Source = A::Source;
    type Focus = B::Focus;
}

impl<A, B> Preview for Then<A, B>
where
    A: Preview,
    B: Preview<Source = A::Focus>,
{
    #[inline]
    fn preview<'s>(&self, s: &'s Self::Source) -> Option<&'s Self::Focus>
    where
        Self: 's,
    {
        self.first.preview_then(s, |a| self.second.preview(a))
    }

    #[inline]
    fn preview_then<'s, R, K>(&self, s: &'s Self::Source, k: K) -> Option<R>
    where
        Self: 's,
        K: FnOnce(&'s Self::Focus) -> Option<R>,
    {
        self.first
            .preview_then(s, |a| self.second.preview_then(a, k))
    }
}

impl<A, B> PreviewMut for Then<A, B>
where
    A: PreviewMut,
    B: PreviewMut<Source = A::Focus>,
{
    #[inline]
    fn preview_mut<'s>(&self, s: &'s mut Self::Source) -> Option<&'s mut Self::Focus>
    where
        Self: 's,
    {
        self.second.preview_mut(self.first.preview_mut(s)?)
    }
}

/// A composition whose two halves always have a focus: what makes a [`Then`]
/// a [`Get`]. Name `Get` in bounds; this trait only carries the message.
// A bound on `Then` itself, because the compiler shows a trait's
// `on_unimplemented` for `.get()` only when the unmet bound is on the
// receiver's own type; a bound on one half gets "trait bounds were not
// satisfied" and no hint.
#[diagnostic::on_unimplemented(
    message = "`{Self}` may miss its focus, or have many, so it has no `get`",
    label = "not a lens",
    note = "only a lens, or a composition of lenses, always has exactly one focus",
    note = "an optional or a prism has `preview`, which returns an `Option`; a traversal (a path through `each()`) has `iter`, `fold` and `set_all`"
)]
pub trait GetBoth: Preview {
    /// `second.get(first.get(s))`.
    fn get_both<'s>(&self, s: &'s Self::Source) -> &'s Self::Focus
    where
        Self: 's;
}

impl<A, B> GetBoth for Then<A, B>
where
    A: Get,
    B: Get<Source = A::Focus>,
{
    #[inline]
    fn get_both<'s>(&self, s: &'s Self::Source) -> &'s Self::Focus
    where
        Self: 's,
    {
        self.second.get(self.first.get(s))
    }
}

impl<A, B> Get for Then<A, B>
where
    Self: GetBoth,
{
    #[inline]
    fn get<'s>(&self, s: &'s Self::Source) -> &'s Self::Focus
    where
        Self: 's,
    {
        self.get_both(s)
    }
}

impl<A, B> GetMut for Then<A, B>
where
    A: GetMut,
    B: GetMut<Source = A::Focus>,
{
    #[inline]
    fn get_mut<'s>(&self, s: &'s mut Self::Source) -> &'s mut Self::Focus
    where
        Self: 's,
    {
        self.second.get_mut(self.first.get_mut(s))
    }
}

impl<A, B> Review for Then<A, B>
where
    A: Review,
    A::Source: Sized,
    B: Review<Source = A::Focus>,
{
    #[inline]
    fn review(&self, a: Self::Focus) -> Self::Source {
        self.first.review(self.second.review(a))
    }
}
