//! The reader capability: code written once against it reads values and bytes.

use core::ops::ControlFlow;

use crate::json::{Json, JsonDecode, JsonTraverseDecode, PassedAbsent};
use crate::optic::{Preview, Traverse};

/// Something an optic from `S` can read an owned leaf from: a decoded value
/// (`&S`), its JSON bytes ([`Json<S>`](Json)), a focus entered in them
/// ([`Entered`](crate::json::Entered)) or a strict view of them
/// ([`Strict`](crate::json::Strict)). A read through it costs the reader's
/// own read: a `preview` and a clone on a value, [`Json::read`] on bytes.
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

    /// `f` folded over every focus of `optic` (a traversal, or any optic:
    /// at most one focus), in order, from `init`, until `f` breaks: what it
    /// broke with, or what the last call gave. `None` where a focus it
    /// reaches does not decode (bytes), where a key on the path stands
    /// twice (a strict reader, which records it), or where the path goes on
    /// past a field the bytes leave out and serde fills in (below).
    ///
    /// On a value, each focus is borrowed (nothing cloned); on bytes, each
    /// is decoded as [`Json::read_each`] decodes it, one at a time, and
    /// nothing after the break is read. A map's values come in the map's
    /// order on a value and in the bytes' order on bytes; a trusting reader
    /// visits every member of a key the object repeats, a strict one the
    /// last, as serde keeps it (see [`Strict::iter`](crate::json::Strict::iter)).
    ///
    /// On bytes, a path that goes on past a struct field the document
    /// leaves out has no bytes to read on in. Where serde fills the field in
    /// with `None`, an empty collection or an empty string (or a `Box` of
    /// one), there is nothing
    /// further to fold, and the fold goes on. Where it fills it in with any
    /// other default (`default = "path"`, a container's `default`, the
    /// `Default` of a type of the user's, one named `Vec` too), the
    /// default's foci are not in the bytes: the fold answers `None` if it
    /// passed one before its answer (`try_read` of such a path says
    /// `PastAbsent`). The field itself, as
    /// the focus, folds its default. It answers `None` too if it passed,
    /// before its answer, more flatten and internal-tag levels on one object
    /// than a byte read follows (six: reads miss there, and `try_read` says
    /// `TooManyLevels`). A path through an `optic!` name answers as the
    /// path it names: where the name's lookup misses, its path is walked
    /// once more to tell whether it passed such a step.
    fn fold_while<O, B, F>(&self, optic: O, init: B, f: F) -> Option<B>
    where
        O: Traverse<Source = S> + for<'de> JsonTraverseDecode<'de>,
        F: FnMut(B, &O::Focus) -> ControlFlow<B, B>;

    /// Whether some focus of `optic` satisfies `pred`, read up to the first
    /// that does: [`Reader::fold_while`]'s `None` where a focus before it
    /// does not decode or a key on the path stands twice.
    ///
    /// ```
    /// use optics_core::prelude::*;
    /// use serde::Deserialize;
    ///
    /// #[derive(Optics, Deserialize)]
    /// struct Trace { frames: Vec<Frame> }
    /// #[derive(Optics, Deserialize)]
    /// struct Frame { module: String }
    ///
    /// fn in_auth(trace: impl Reader<Trace>) -> Option<bool> {
    ///     trace.any(Trace::frames.then(each()).then(Frame::module), |m| m.starts_with("auth"))
    /// }
    /// let bytes = br#"{"frames":[{"module":"http"},{"module":"auth::login"}]}"#;
    /// assert_eq!(in_auth(Json::<Trace>::new(bytes)), Some(true));
    /// let trace: Trace = serde_json::from_slice(bytes).unwrap();
    /// assert_eq!(in_auth(&trace), Some(true));
    /// assert_eq!(in_auth(Json::<Trace>::new(br#"{"frames":[{"module":7}]}"#)), None);
    /// ```
    fn any<O, P>(&self, optic: O, mut pred: P) -> Option<bool>
    where
        O: Traverse<Source = S> + for<'de> JsonTraverseDecode<'de>,
        P: FnMut(&O::Focus) -> bool,
    {
        self.fold_while(optic, false, |_, focus| {
            if pred(focus) {
                ControlFlow::Break(true)
            } else {
                ControlFlow::Continue(false)
            }
        })
    }

    /// Whether every focus of `optic` satisfies `pred` (`true` for none),
    /// read up to the first that does not; `None` as for [`Reader::any`].
    fn all<O, P>(&self, optic: O, mut pred: P) -> Option<bool>
    where
        O: Traverse<Source = S> + for<'de> JsonTraverseDecode<'de>,
        P: FnMut(&O::Focus) -> bool,
    {
        self.any(optic, |focus| !pred(focus)).map(|any| !any)
    }

    /// `f` folded over every focus of `optic`, in order, from `init`; `None`
    /// as for [`Reader::fold_while`].
    fn fold<O, B, F>(&self, optic: O, init: B, mut f: F) -> Option<B>
    where
        O: Traverse<Source = S> + for<'de> JsonTraverseDecode<'de>,
        F: FnMut(B, &O::Focus) -> B,
    {
        self.fold_while(optic, init, |acc, focus| {
            ControlFlow::Continue(f(acc, focus))
        })
    }
}

/// [`Reader::fold_while`] over foci read one at a time: `None` at the first
/// that did not decode, or where the walk went on past a field serde fills
/// in, or past more flatten and internal-tag levels than a read follows
/// ([`PassedAbsent`]), before the answer.
pub(crate) fn fold_read<I, A, B, F>(mut foci: I, init: B, mut f: F) -> Option<B>
where
    I: Iterator<Item = Option<A>> + PassedAbsent,
    F: FnMut(B, &A) -> ControlFlow<B, B>,
{
    let answers = |foci: &I| !foci.passed_absent() && !foci.past_capacity();
    let mut acc = init;
    while let Some(focus) = foci.next() {
        match f(acc, &focus?) {
            ControlFlow::Continue(next) => acc = next,
            ControlFlow::Break(done) => return answers(&foci).then_some(done),
        }
    }
    answers(&foci).then_some(acc)
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

    #[inline]
    fn fold_while<O, B, F>(&self, optic: O, init: B, mut f: F) -> Option<B>
    where
        O: Traverse<Source = S> + for<'de> JsonTraverseDecode<'de>,
        F: FnMut(B, &O::Focus) -> ControlFlow<B, B>,
    {
        let mut acc = init;
        for focus in optic.iter(self) {
            match f(acc, focus) {
                ControlFlow::Continue(next) => acc = next,
                ControlFlow::Break(done) => return Some(done),
            }
        }
        Some(acc)
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

    #[inline]
    fn fold_while<O, B, F>(&self, optic: O, init: B, f: F) -> Option<B>
    where
        O: Traverse<Source = S> + for<'de> JsonTraverseDecode<'de>,
        F: FnMut(B, &O::Focus) -> ControlFlow<B, B>,
    {
        fold_read(self.read_each(optic), init, f)
    }
}
