//! Composition of two optics, and the smart pointers composition sees
//! through.

use std::rc::Rc;
use std::sync::Arc;

use super::{composable, Get, GetMut, Optic, Preview, PreviewMut, Review};

/// `first` then `second`: the optic that focuses `second`'s focus inside
/// `first`'s. Built by the `then` method every optic has.
///
/// It implements each of [`Preview`], [`PreviewMut`], [`Get`], [`GetMut`] and
/// [`Review`] exactly when both halves do, so its kind is the weakest of the two.
/// Zero-sized when both halves are; every operation is the two halves' inlined.
///
/// The second half may start at the first's focus itself or at what a `Box`,
/// `Rc` or `Arc` focus points to (see [`Through`]): serde reads those
/// pointers as the value they hold, and so do paths.
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

/// A focus the next optic of a path reads through: the type itself, or a
/// `Box`, `Rc` or `Arc` of it, which serde reads and writes as the value it
/// holds. So `Tree::left.then(Tree::value)` composes when `left` is a
/// `Box<Tree>`, and recursive models are walked with the optics of the type
/// itself.
///
/// Reading goes through every pointer. Writing ([`ThroughMut`]) goes through
/// a `Box` only: a write through an `Rc` or an `Arc` would have to clone the
/// shared value or fail when it is shared, so a path through one has no
/// `set` (it is read-only: `preview`, `get`, `review`). Traversals
/// (`iter`, `set_all`) and byte reads and writes (`Json::read_each`,
/// `Json::set`) go through the same pointers as `preview` and `set` do.
///
/// ```
/// use optics_core::prelude::*;
///
/// #[derive(Optics, serde::Deserialize)]
/// struct List { value: u32, next: Option<Box<List>> }
///
/// let second = List::next.then(some()).then(List::value);
/// let mut list = List { value: 1, next: Some(Box::new(List { value: 2, next: None })) };
/// assert_eq!(second.preview(&list), Some(&2));
/// second.set(&mut list, 3);
/// assert_eq!(list.next.as_ref().map(|next| next.value), Some(3));
/// let bytes = br#"{"value":1,"next":{"value":2,"next":null}}"#;
/// assert_eq!(Json::<List>::new(bytes).read(second), Some(2));
/// ```
pub trait Through<T: ?Sized> {
    /// What the next optic reads.
    fn through(&self) -> &T;
}

/// A [`Through`] the next optic can also write through: the type itself and
/// `Box`.
pub trait ThroughMut<T: ?Sized>: Through<T> {
    /// What the next optic writes.
    fn through_mut(&mut self) -> &mut T;
}

impl<T: ?Sized> Through<T> for T {
    #[inline]
    fn through(&self) -> &T {
        self
    }
}

impl<T: ?Sized> ThroughMut<T> for T {
    #[inline]
    fn through_mut(&mut self) -> &mut T {
        self
    }
}

impl<T: ?Sized> ThroughMut<T> for Box<T> {
    #[inline]
    fn through_mut(&mut self) -> &mut T {
        self
    }
}

macro_rules! through_pointers {
    ($($pointer:ident)*) => {$(
        impl<T: ?Sized> Through<T> for $pointer<T> {
            #[inline]
            fn through(&self) -> &T {
                self
            }
        }
    )*};
}

through_pointers!(Box Rc Arc);

impl<A, B> Optic for Then<A, B>
where
    A: Optic,
    B: Optic,
    A::Focus: Through<B::Source>,
{
    type Source = A::Source;
    type Focus = B::Focus;
}

impl<A, B> Preview for Then<A, B>
where
    A: Preview,
    B: Preview,
    A::Focus: Through<B::Source>,
{
    #[inline]
    fn preview<'s>(&self, s: &'s Self::Source) -> Option<&'s Self::Focus>
    where
        Self: 's,
    {
        self.first
            .preview_then(s, |a| self.second.preview(a.through()))
    }

    #[inline]
    fn preview_then<'s, R, K>(&self, s: &'s Self::Source, k: K) -> Option<R>
    where
        Self: 's,
        K: FnOnce(&'s Self::Focus) -> Option<R>,
    {
        self.first
            .preview_then(s, |a| self.second.preview_then(a.through(), k))
    }
}

impl<A, B> PreviewMut for Then<A, B>
where
    A: PreviewMut,
    B: PreviewMut,
    A::Focus: ThroughMut<B::Source>,
{
    #[inline]
    fn preview_mut<'s>(&self, s: &'s mut Self::Source) -> Option<&'s mut Self::Focus>
    where
        Self: 's,
    {
        self.second
            .preview_mut(self.first.preview_mut(s)?.through_mut())
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
    B: Get,
    A::Focus: Through<B::Source>,
{
    #[inline]
    fn get_both<'s>(&self, s: &'s Self::Source) -> &'s Self::Focus
    where
        Self: 's,
    {
        self.second.get(self.first.get(s).through())
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
    B: GetMut,
    A::Focus: ThroughMut<B::Source>,
{
    #[inline]
    fn get_mut<'s>(&self, s: &'s mut Self::Source) -> &'s mut Self::Focus
    where
        Self: 's,
    {
        self.second.get_mut(self.first.get_mut(s).through_mut())
    }
}

impl<A, B> Review for Then<A, B>
where
    A: Review,
    A::Source: Sized,
    B: Review,
    B::Source: Sized,
    A::Focus: Through<B::Source> + From<B::Source>,
{
    #[inline]
    fn review(&self, a: Self::Focus) -> Self::Source {
        self.first.review(From::from(self.second.review(a)))
    }
}
