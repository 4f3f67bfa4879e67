//! Struct field lenses, as `#[derive(Optics)]` generates them.

use core::marker::PhantomData;

use super::{composable, zero_sized, Get, GetMut, Optic, Preview, PreviewMut};
use crate::json::layout::FieldJson;

/// The lens on field number `I` of `S`: what `#[derive(Optics)]` exposes as an
/// associated const named after the field (`Incident::impact`).
///
/// Zero-sized; `get` is the field access itself once inlined.
pub struct Field<S: ?Sized, const I: usize>(PhantomData<fn() -> PhantomData<S>>);

/// Field number `I` of a struct: implemented by `#[derive(Optics)]`, one impl per
/// field, read through [`Field`]. Not meant to be implemented by hand.
pub trait FieldOf<const I: usize> {
    /// The field's type.
    type Type;
    /// `Type::field`, for messages and `Debug`.
    const NAME: &'static str;
    /// Where the field's value stands in the struct's JSON, as serde reads it.
    const JSON: FieldJson;
    /// Whether serde writes the field as its type's own `Serialize` does
    /// (not with `serialize_with`, not in a type with `#[serde(into)]`): a
    /// byte write that goes on past the field refuses otherwise.
    const WRITTEN_PLAIN: bool = true;
    /// Whether serde fills the field in, where its member is missing, with
    /// a value that may hold foci a path goes on to: a `default` other than
    /// an empty collection's, `None` or an empty string. A traversal that
    /// goes on past such a missing field cannot tell its foci from the bytes.
    #[doc(hidden)]
    const FILLED_IN: bool = false;
    /// The field.
    fn field(&self) -> &Self::Type;
    /// The field, mutably.
    fn field_mut(&mut self) -> &mut Self::Type;
}

impl<S: ?Sized, const I: usize> Field<S, I> {
    /// The lens. Derived code calls this; users name the associated const.
    pub const fn new() -> Self {
        Field(PhantomData)
    }
}

composable!(impl[S: ?Sized, const I: usize] Field<S, I>);

zero_sized!(impl[S: ?Sized, const I: usize] Field<S, I> = Self::new());

impl<S: ?Sized + FieldOf<I>, const I: usize> core::fmt::Debug for Field<S, I> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(S::NAME)
    }
}

impl<S: ?Sized + FieldOf<I>, const I: usize> Optic for Field<S, I> {
    type Source = S;
    type Focus = S::Type;
}

impl<S: ?Sized + FieldOf<I>, const I: usize> Preview for Field<S, I> {
    #[inline]
    fn preview<'s>(&self, s: &'s S) -> Option<&'s S::Type>
    where
        Self: 's,
    {
        Some(s.field())
    }
}

impl<S: ?Sized + FieldOf<I>, const I: usize> PreviewMut for Field<S, I> {
    #[inline]
    fn preview_mut<'s>(&self, s: &'s mut S) -> Option<&'s mut S::Type>
    where
        Self: 's,
    {
        Some(s.field_mut())
    }
}

impl<S: ?Sized + FieldOf<I>, const I: usize> Get for Field<S, I> {
    #[inline]
    fn get<'s>(&self, s: &'s S) -> &'s S::Type
    where
        Self: 's,
    {
        s.field()
    }
}

impl<S: ?Sized + FieldOf<I>, const I: usize> GetMut for Field<S, I> {
    #[inline]
    fn get_mut<'s>(&self, s: &'s mut S) -> &'s mut S::Type
    where
        Self: 's,
    {
        s.field_mut()
    }
}
