//! The optic algebra over Rust values: kinds, composition and the generic optics.
//!
//! An optic focuses one part (`Focus`) of a whole (`Source`). What an optic can do
//! is said by the traits it implements, so the kind of a composed optic is part of
//! its type and the compiler refuses an operation the kind does not support:
//!
//! | kind        | traits                                   | built by                                  |
//! |-------------|------------------------------------------|-------------------------------------------|
//! | **Lens**     | [`Get`], [`GetMut`], [`Preview`], [`PreviewMut`] | a struct field (`Incident::impact`)       |
//! | **Prism**    | [`Preview`], [`PreviewMut`], [`Review`]   | an enum variant (`Detail::incident`), [`some`] |
//! | **Optional** | [`Preview`], [`PreviewMut`]               | lens∘prism, prism∘lens, [`at`], [`key`]   |
//! | getter      | [`Get`], [`Preview`]                      | an enum's discriminant (`Detail::kind`)   |
//! | **Traversal** | [`Traverse`], [`TraverseMut`]           | [`each`], anything∘each, each∘anything    |
//!
//! [`Then`] implements a trait exactly when both of its halves do, so composition
//! yields the weakest kind that fits: lens∘lens is a lens, prism∘prism a prism,
//! and anything composed with an optional is an optional. Every optic is also
//! a [`Traverse`] of at most one focus, so anything composed with a traversal
//! is a traversal, which has no `get` and no `preview`.
//!
//! Every optic here is a small `Copy` value (derived ones are zero-sized); every
//! operation is a direct field access or `match` after inlining: no allocation, no
//! `dyn`, no cloning on the read path.
//!
//! ```
//! use optics_core::prelude::*;
//!
//! #[derive(Optics, Debug, PartialEq)]
//! struct Trace { frames: Vec<Frame> }
//! #[derive(Optics, Debug, PartialEq)]
//! struct Frame { module: String, line: Option<u32> }
//!
//! let mut trace = Trace { frames: vec![Frame { module: "auth".into(), line: Some(7) }] };
//! let top_line = Trace::frames.then(at(0)).then(Frame::line).then(some());
//! assert_eq!(top_line.preview(&trace), Some(&7));
//! top_line.set(&mut trace, 8);
//! assert_eq!(trace.frames[0].line, Some(8));
//! assert_eq!(Frame::module.get(&trace.frames[0]), "auth");
//! assert_eq!(some::<u32>().review(3), Some(3));
//! ```

mod at;
mod each;
pub(crate) mod field;
mod key;
mod named;
mod some;
mod then;
mod traversal;
pub(crate) mod variant;

pub use at::{at, At, Indexed};
pub use each::{each, Each, Elements};
pub use field::Field;
pub use key::{key, read_map_key, JsonKey, Key, Keyed};
pub use some::{some, Some_};
pub use then::{GetBoth, Then, Through, ThroughMut};
pub use traversal::{ThenIter, ThenIterMut, Traversal, Traverse, TraverseMut};
pub use variant::{Discriminant, Variant, VariantField};

// Implemented by the derive's output only (re-exported in `__private`).
pub(crate) use field::FieldOf;
pub(crate) use variant::{Tagged, VariantFieldOf, VariantOf};

/// An optic from a whole of type `Source` to a part of type `Focus`.
///
/// This trait only names the two types; what the optic can do is said by
/// [`Preview`], [`PreviewMut`], [`Get`], [`GetMut`] and [`Review`].
pub trait Optic {
    /// The whole the optic is pointed at.
    type Source: ?Sized;
    /// The part it focuses.
    type Focus;
}

/// Read access to a focus that may be absent. Every kind of optic has it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot read its focus",
    label = "this is not an optic that can be previewed"
)]
pub trait Preview: Optic {
    /// The focus, or `None` where the whole has none (another variant, an index
    /// past the end). O(1) for derived optics; a borrow, nothing copied.
    fn preview<'s>(&self, s: &'s Self::Source) -> Option<&'s Self::Focus>
    where
        Self: 's;

    /// `k` applied to the focus, or `None` where there is none. Composition
    /// reads through this, so that a path compiles to the `match` a hand-written
    /// access would be, with no intermediate `Option` to test twice.
    #[inline]
    fn preview_then<'s, R, K>(&self, s: &'s Self::Source, k: K) -> Option<R>
    where
        Self: 's,
        K: FnOnce(&'s Self::Focus) -> Option<R>,
    {
        match self.preview(s) {
            Some(focus) => k(focus),
            None => None,
        }
    }
}

/// Write access to a focus that may be absent.
pub trait PreviewMut: Preview {
    /// The focus, mutably, or `None` where the whole has none.
    fn preview_mut<'s>(&self, s: &'s mut Self::Source) -> Option<&'s mut Self::Focus>
    where
        Self: 's;

    /// Replaces the focus where there is one; a whole without one is left as it is.
    fn set(&self, s: &mut Self::Source, a: Self::Focus) {
        if let Some(focus) = self.preview_mut(s) {
            *focus = a;
        }
    }

    /// Changes the focus in place where there is one; returns whether `f` ran.
    fn modify<F: FnOnce(&mut Self::Focus)>(&self, s: &mut Self::Source, f: F) -> bool {
        match self.preview_mut(s) {
            Some(focus) => {
                f(focus);
                true
            }
            None => false,
        }
    }
}

/// Read access to a focus that is always there (lenses and getters).
#[diagnostic::on_unimplemented(
    message = "`{Self}` may miss its focus, or have many, so it has no `get`",
    label = "not a lens",
    note = "only a lens, or a composition of lenses, always has exactly one focus",
    note = "an optional or a prism has `preview`, which returns an `Option`; a traversal (a path through `each()`) has `iter`, `fold` and `set_all`"
)]
pub trait Get: Preview {
    /// The focus. O(1) for derived optics; a borrow, nothing copied.
    fn get<'s>(&self, s: &'s Self::Source) -> &'s Self::Focus
    where
        Self: 's;
}

/// Write access to a focus that is always there (lenses).
pub trait GetMut: Get + PreviewMut {
    /// The focus, mutably.
    fn get_mut<'s>(&self, s: &'s mut Self::Source) -> &'s mut Self::Focus
    where
        Self: 's;
}

/// Building the whole from the part (prisms).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot build a whole from its focus",
    label = "not a prism",
    note = "only a prism, or a composition of prisms, has `review`"
)]
pub trait Review: Preview
where
    Self::Source: Sized,
{
    /// The whole whose focus is `a`: for a variant prism, the variant holding `a`.
    fn review(&self, a: Self::Focus) -> Self::Source;
}

/// A lens: a focus that is always there, readable and writable.
/// Implemented by every optic that has [`GetMut`].
pub trait Lens: GetMut {}
impl<O: GetMut> Lens for O {}

/// A prism: a focus that may be absent, and a way to build the whole from it.
/// Implemented by every optic that has [`PreviewMut`] and [`Review`].
pub trait Prism: PreviewMut + Review
where
    Self::Source: Sized,
{
}
impl<O> Prism for O
where
    O: PreviewMut + Review,
    O::Source: Sized,
{
}

/// An optional: a focus that may be absent, readable and writable.
/// Every lens and prism is one too.
pub trait Optional: PreviewMut {}
impl<O: PreviewMut> Optional for O {}

/// An optic that starts at `S`: one whose [`Optic::Source`] is `S`.
/// Implemented for every optic. `then` asks it of the next optic, and
/// [`Json`](crate::Json) of the optic it reads with, rather than
/// `Optic<Source = S>`: a mismatch then gets [`TypeEq`]'s message, which says
/// what to do, instead of a bare type mismatch.
///
/// ```compile_fail
/// # use optics_core::prelude::*;
/// #[derive(Optics)]
/// struct Trace { frames: Vec<Frame> }
/// #[derive(Optics)]
/// struct Frame { module: String }
///
/// // error: expected an optic from `Vec<Frame>`, found an optic from `Frame`
/// let module = Trace::frames.then(Frame::module);
/// ```
pub trait StartsAt<S: ?Sized>: Optic {}
impl<O: Optic + ?Sized, S: ?Sized> StartsAt<S> for O where S: TypeEq<O::Source> {}

/// `Self` is `T`, or a `Box`, `Rc` or `Arc` of it, which paths read through
/// (see [`Through`]). Sealed.
#[diagnostic::on_unimplemented(
    message = "expected an optic from `{Self}`, found an optic from `{T}`",
    label = "this optic starts at `{T}`",
    note = "`a.then(b)` needs `b` to start where `a` ends; `Json::<T>` reads only with optics that start at `T`",
    note = "reach a type through the field or variant that holds it (`Outer::field.then(Inner::field)`); step into a list with `at(i)`, into an `Option` with `some()`, into a map with `key(&k)`"
)]
pub trait TypeEq<T: ?Sized>: sealed::Sealed<T> {}
impl<T: ?Sized> TypeEq<T> for T {}

mod sealed {
    use std::rc::Rc;
    use std::sync::Arc;

    pub trait Sealed<T: ?Sized> {}
    impl<T: ?Sized> Sealed<T> for T {}
    impl<T: ?Sized> Sealed<T> for Box<T> {}
    impl<T: ?Sized> Sealed<T> for Rc<T> {}
    impl<T: ?Sized> Sealed<T> for Arc<T> {}
}

/// A pointer serde reads as the value it holds starts where the value does.
#[diagnostic::do_not_recommend]
impl<T: ?Sized> TypeEq<T> for Box<T> {}
#[diagnostic::do_not_recommend]
impl<T: ?Sized> TypeEq<T> for std::rc::Rc<T> {}
#[diagnostic::do_not_recommend]
impl<T: ?Sized> TypeEq<T> for std::sync::Arc<T> {}

/// Adds the inherent `const fn then` that composes an optic type with the next.
/// Inherent rather than a trait method so that composed optics can be `const`s.
macro_rules! composable {
    (impl [$($gen:tt)*] $ty:ty) => {
        impl<$($gen)*> $ty {
            /// Composes this optic with `next`, which must start where this one
            /// ends. The result has the weakest kind of the two (see the module
            /// docs); composing costs nothing at run time.
            pub const fn then<Next>(self, next: Next) -> $crate::optic::Then<Self, Next>
            where
                Self: $crate::optic::Optic,
                Next: $crate::optic::StartsAt<<Self as $crate::optic::Optic>::Focus>,
            {
                $crate::optic::Then::new(self, next)
            }
        }
    };
}
pub(crate) use composable;

/// `Clone`, `Copy` and `Default` (which builds `$default`) for a zero-sized
/// optic type, without the bounds `#[derive]` would put on its parameters.
macro_rules! zero_sized {
    (impl [$($gen:tt)*] $ty:ty = $default:expr) => {
        impl<$($gen)*> Clone for $ty {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<$($gen)*> Copy for $ty {}
        impl<$($gen)*> Default for $ty {
            fn default() -> Self {
                $default
            }
        }
    };
}
pub(crate) use zero_sized;
