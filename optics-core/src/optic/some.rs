//! `some()`: the prism on the value inside an `Option`.

use core::marker::PhantomData;

use super::{composable, zero_sized, Optic, Preview, PreviewMut, Review};

/// The prism from `Option<T>` to `T` (see [`some`]). Zero-sized.
pub struct Some_<T>(PhantomData<fn() -> T>);

/// The prism on the value inside an `Option`: misses on `None`, and
/// `review(a)` is `Some(a)`. On bytes, `null` (or a missing field) is `None`.
pub const fn some<T>() -> Some_<T> {
    Some_(PhantomData)
}

composable!(impl[T] Some_<T>);

zero_sized!(impl[T] Some_<T> = some());
impl<T> core::fmt::Debug for Some_<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("some()")
    }
}

impl<T> Optic for Some_<T> {
    type Source = Option<T>;
    type Focus = T;
}

impl<T> Preview for Some_<T> {
    #[inline]
    fn preview<'s>(&self, s: &'s Option<T>) -> Option<&'s T>
    where
        Self: 's,
    {
        s.as_ref()
    }
}

impl<T> PreviewMut for Some_<T> {
    #[inline]
    fn preview_mut<'s>(&self, s: &'s mut Option<T>) -> Option<&'s mut T>
    where
        Self: 's,
    {
        s.as_mut()
    }
}

impl<T> Review for Some_<T> {
    #[inline]
    fn review(&self, a: T) -> Option<T> {
        Some(a)
    }
}
