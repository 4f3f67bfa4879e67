//! Enum variant prisms, fields of struct-like variants, and the discriminant
//! getter, as `#[derive(Optics)]` generates them.

use core::marker::PhantomData;

use super::{composable, zero_sized, Get, Optic, Preview, PreviewMut, Review};
use crate::json::layout::{Encoding, FieldJson, VariantJson, VariantTags};

/// An enum whose variants `#[derive(Optics)]` has numbered: its discriminant
/// and how serde encodes it. Not meant to be implemented by hand.
pub trait Tagged: Sized {
    /// The fieldless enum naming the variants (`DetailKind` for `Detail`).
    type Kind: Copy + 'static;
    /// How serde writes the enum (externally, internally or adjacently tagged).
    const ENCODING: Encoding;
    /// Per variant, in declaration order, the tag names serde accepts.
    const VARIANTS: &'static [VariantTags];
    /// Per variant, in declaration order, its kind.
    const KINDS: &'static [Self::Kind];
    /// The number of the variant `self` is, in declaration order.
    fn variant_index(&self) -> usize;
}

/// Variant number `I` of an enum: implemented by `#[derive(Optics)]` for
/// every variant with a single payload (newtype variants focus their payload,
/// unit variants focus `()`). Not meant to be implemented by hand.
pub trait VariantOf<const I: usize>: Tagged {
    /// What the variant holds.
    type Payload;
    /// `Type::variant`, for messages and `Debug`.
    const NAME: &'static str;
    /// How the payload is laid out in JSON.
    const JSON: VariantJson;
    /// Whether serde writes the payload as the payload's own `Serialize`
    /// writes it. Not so for a newtype variant whose field has
    /// `serialize_with` or `skip_serializing`, a variant with
    /// `serialize_with`, or an enum with `#[serde(into)]`: a byte write
    /// through the prism, or on past it, refuses there.
    const WRITTEN_PLAIN: bool = true;
    /// The payload if `self` is this variant.
    fn payload(&self) -> Option<&Self::Payload>;
    /// `k` applied to the payload if `self` is this variant: one `match`.
    #[inline]
    fn payload_then<'s, R, K>(&'s self, k: K) -> Option<R>
    where
        K: FnOnce(&'s Self::Payload) -> Option<R>,
    {
        match self.payload() {
            Some(payload) => k(payload),
            None => None,
        }
    }
    /// The payload, mutably, if `self` is this variant.
    fn payload_mut(&mut self) -> Option<&mut Self::Payload>;
    /// The variant holding `payload`.
    fn from_payload(payload: Self::Payload) -> Self;
}

/// Field number `I` (counted over the fields of every variant without a
/// prism) of a variant without a prism (a struct variant, or a tuple variant
/// with several fields): implemented by `#[derive(Optics)]`.
pub trait VariantFieldOf<const I: usize>: Tagged {
    /// The field's type.
    type Type;
    /// `Type::variant_field`, for messages and `Debug`.
    const NAME: &'static str;
    /// The number of the variant the field belongs to.
    const VARIANT: usize;
    /// Where the field stands in the variant's JSON payload.
    const JSON: FieldJson;
    /// Whether serde writes the field as its type's own `Serialize` does:
    /// [`FieldOf::WRITTEN_PLAIN`](crate::optic::FieldOf::WRITTEN_PLAIN).
    const WRITTEN_PLAIN: bool = true;
    /// As `FieldOf::FILLED_IN`: serde fills the missing field in with a value
    /// that may hold foci a path goes on to.
    #[doc(hidden)]
    const FILLED_IN: bool = false;
    /// The field, if `self` is its variant.
    fn field(&self) -> Option<&Self::Type>;
    /// The field, mutably, if `self` is its variant.
    fn field_mut(&mut self) -> Option<&mut Self::Type>;
}

macro_rules! zero_sized_optic {
    ($(#[$doc:meta])* $name:ident, $trait_:ident, $describe:expr) => {
        $(#[$doc])*
        pub struct $name<S, const I: usize>(PhantomData<fn() -> S>);

        impl<S, const I: usize> $name<S, I> {
            /// The optic. Derived code calls this; users name the associated const.
            pub const fn new() -> Self {
                $name(PhantomData)
            }
        }
        composable!(impl[S, const I: usize] $name<S, I>);
        zero_sized!(impl[S, const I: usize] $name<S, I> = Self::new());
        impl<S: $trait_<I>, const I: usize> core::fmt::Debug for $name<S, I> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str($describe(self))
            }
        }
    };
}

zero_sized_optic!(
    /// The prism on variant number `I` of `S`: what `#[derive(Optics)]` exposes
    /// as an associated const named after the variant in snake_case
    /// (`Detail::incident`). Zero-sized; `preview` is one `match`.
    Variant,
    VariantOf,
    |_: &Variant<S, I>| <S as VariantOf<I>>::NAME
);

zero_sized_optic!(
    /// The optional on one field of a struct-like (or multi-field tuple) variant:
    /// `#[derive(Optics)]` exposes it as `variant_field` (`Shape::rect_width`).
    /// Such a variant has no prism, since no single value holds its payload;
    /// these optionals reach each field instead. Zero-sized.
    VariantField,
    VariantFieldOf,
    |_: &VariantField<S, I>| <S as VariantFieldOf<I>>::NAME
);

impl<S: VariantOf<I>, const I: usize> Optic for Variant<S, I> {
    type Source = S;
    type Focus = S::Payload;
}

impl<S: VariantOf<I>, const I: usize> Preview for Variant<S, I> {
    #[inline]
    fn preview<'s>(&self, s: &'s S) -> Option<&'s S::Payload>
    where
        Self: 's,
    {
        s.payload()
    }

    #[inline]
    fn preview_then<'s, R, K>(&self, s: &'s S, k: K) -> Option<R>
    where
        Self: 's,
        K: FnOnce(&'s S::Payload) -> Option<R>,
    {
        s.payload_then(k)
    }
}

impl<S: VariantOf<I>, const I: usize> PreviewMut for Variant<S, I> {
    #[inline]
    fn preview_mut<'s>(&self, s: &'s mut S) -> Option<&'s mut S::Payload>
    where
        Self: 's,
    {
        s.payload_mut()
    }
}

impl<S: VariantOf<I>, const I: usize> Review for Variant<S, I> {
    #[inline]
    fn review(&self, a: S::Payload) -> S {
        S::from_payload(a)
    }
}

impl<S: VariantFieldOf<I>, const I: usize> Optic for VariantField<S, I> {
    type Source = S;
    type Focus = S::Type;
}

impl<S: VariantFieldOf<I>, const I: usize> Preview for VariantField<S, I> {
    #[inline]
    fn preview<'s>(&self, s: &'s S) -> Option<&'s S::Type>
    where
        Self: 's,
    {
        s.field()
    }
}

impl<S: VariantFieldOf<I>, const I: usize> PreviewMut for VariantField<S, I> {
    #[inline]
    fn preview_mut<'s>(&self, s: &'s mut S) -> Option<&'s mut S::Type>
    where
        Self: 's,
    {
        s.field_mut()
    }
}

/// The getter from an enum to its kind, which variant it is: what
/// `#[derive(Optics)]` exposes as `Type::kind` (or the name given with
/// `#[optics(kind = "...")]`). Read-only: a kind cannot be set without a payload.
///
/// On values `get` is one `match`; on bytes it reads the tag serde wrote and
/// decodes nothing else.
pub struct Discriminant<S>(PhantomData<fn() -> S>);

impl<S> Discriminant<S> {
    /// The getter. Derived code calls this; users name the associated const.
    pub const fn new() -> Self {
        Discriminant(PhantomData)
    }
}
composable!(impl[S] Discriminant<S>);
zero_sized!(impl[S] Discriminant<S> = Self::new());
impl<S> core::fmt::Debug for Discriminant<S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Discriminant<{}>", core::any::type_name::<S>())
    }
}

impl<S: Tagged> Optic for Discriminant<S> {
    type Source = S;
    type Focus = S::Kind;
}

impl<S: Tagged> Preview for Discriminant<S> {
    #[inline]
    fn preview<'s>(&self, s: &'s S) -> Option<&'s S::Kind>
    where
        Self: 's,
    {
        Some(self.get(s))
    }
}

impl<S: Tagged> Get for Discriminant<S> {
    #[inline]
    fn get<'s>(&self, s: &'s S) -> &'s S::Kind
    where
        Self: 's,
    {
        let kinds: &'static [S::Kind] = S::KINDS;
        &kinds[s.variant_index()]
    }
}
