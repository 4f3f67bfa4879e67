//! The reader capability: code written once against it reads values and bytes.

use crate::json::{Json, JsonDecode};
use crate::optic::Preview;

/// Something an optic from `S` can read an owned leaf from: a decoded value
/// (`&S`) or its JSON bytes ([`Json<S>`](Json)).
///
/// Code that decides from a few leaves takes `impl Reader<S>` and never names
/// the format it reads:
///
/// ```
/// use optics_core::prelude::*;
/// use serde::Deserialize;
///
/// #[derive(Optics, Deserialize)]
/// struct Service { tier: u8 }
///
/// fn critical(service: impl Reader<Service>) -> bool {
///     service.read(Service::tier) == Some(1)
/// }
/// assert!(critical(&Service { tier: 1 }));
/// assert!(critical(Json::<Service>::new(br#"{"tier":1}"#)));
/// ```
pub trait Reader<S> {
    /// The optic's focus, owned: cloned from a value, decoded from bytes.
    /// For bytes this is [`Json::read`]; for a value, `preview` and a clone.
    fn read<O>(&self, optic: O) -> Option<O::Focus>
    where
        O: Preview<Source = S> + for<'de> JsonDecode<'de>,
        O::Focus: Clone;
}

impl<S> Reader<S> for &S {
    #[inline]
    fn read<O>(&self, optic: O) -> Option<O::Focus>
    where
        O: Preview<Source = S> + for<'de> JsonDecode<'de>,
        O::Focus: Clone,
    {
        optic.preview(self).cloned()
    }
}

impl<S> Reader<S> for Json<'_, S> {
    #[inline]
    fn read<O>(&self, optic: O) -> Option<O::Focus>
    where
        O: Preview<Source = S> + for<'de> JsonDecode<'de>,
        O::Focus: Clone,
    {
        Json::read(*self, optic)
    }
}
