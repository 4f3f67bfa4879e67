//! Reading optics over JSON bytes, in place.
//!
//! [`Json<'a, T>`](Json) is a borrowed byte range that claims to encode a `T`.
//! Every optic that starts at `T` reads it: [`Json::view`] finds the focus and
//! hands out its bytes where they lie, [`Json::read`] also decodes the focus with
//! its own `serde::Deserialize` (or the field's `deserialize_with`), over the
//! focus's bytes only.
//!
//! The same optics write ([`Json::set`], [`Json::set_into`], [`Json::modify`],
//! [`Json::modify_into`];
//! see [`write`](mod@write)) and traverse ([`Json::iter`], [`Json::read_each`],
//! [`Json::set_all`] for paths through `each()`).
//!
//! Each step of a path has a byte interpretation:
//!
//! | step                      | in the bytes                                                         |
//! |---------------------------|----------------------------------------------------------------------|
//! | struct field              | finds the key (or an alias) in the object, skipping the other values |
//! | flattened / transparent   | the same bytes                                                       |
//! | tuple-struct field `i`    | element `i` of the array                                             |
//! | variant                   | checks the tag where serde writes it; the payload's bytes             |
//! | `at(i)`                   | skips `i` elements                                                   |
//! | `key(k)`                  | the last member serde reads as `k` (serde_json keeps the last)       |
//! | `some()`                  | misses on `null`                                                     |
//! | `each()`                  | every element of the array (or value of the object), in order       |
//!
//! Nothing is decoded on the way and nothing is copied: a path costs one scan of
//! the bytes in front of its focus. A step that the path goes on inside (a
//! struct's field, a list's element, an internally tagged enum's payload
//! whose tag leads it) does not look for the end of what it found: the next
//! step reads on from its start, so such a path reads no byte after its
//! focus's own member (or element). Other steps (a map's `key(k)`, a
//! flattened field, an enum written another way) find the end of what they
//! read. A field serde writes in the second half of its struct is nearer
//! its object's end: a trusting read of it in an object of 1 KiB or more
//! reads the object from both ends in turns, the end first, and stops where
//! either meets the key ([`scan::object_field_late`]), so a late field of a
//! large object costs a scan of the bytes behind it, not of those in front.
//! Bytes are never trusted: a read never panics, never reads out of bounds
//! and always ends; where the structure it walks through is broken, or a
//! value it returns is cut short, it misses (`None`). What it skips is not
//! validated in full, so a malformed member elsewhere in an object, or after
//! the focus in a container on the path, does not stop it finding a
//! well-formed one; use [`Json::validated`] to check a whole document first
//! (strict mode).
//!
//! A walk from the end reads only what lies behind the key: a break in
//! front of it, or a document cut right after a nested `}`, can go unseen
//! there, and a key of a nested object can then be taken for the field
//! (the end's walk needs the last byte to be the object's `}`). A key is
//! called missing where the two walks meet and agree on the structure
//! there, or, where neither meets it in its first turn, where no string
//! between them could spell it (a search of their text, blind to the
//! structure there, so a document broken or cut in those bytes can then
//! have a late field called missing).
//!
//! **Duplicate keys.** For a struct field the byte reader takes the first member
//! with the key (a late field of a large object: the member whichever end of
//! the walk meets first); serde_json rejects such a document ("duplicate field"). For a
//! map (`key(k)`) both take the last. A [`Strict`] view rejects them instead:
//! a read through it that meets a key given twice on its path returns nothing
//! and records it in the caller's [`Duplicates`].
//!
//! **What is read is what serde reads.** A step reads on as serde reads where
//! it stands: from serde_json, or from serde's own buffer (inside an
//! internally tagged variant, a flattened field, an adjacently tagged content
//! written before its tag), which accepts other forms. On any document
//! serde_json decodes, a byte read equals serde_json's decode previewed with
//! the same path; what the derive cannot read in place it refuses at compile
//! time. The crate's docs have the table of serde's attributes, and of the
//! few cases where the reader and serde_json still differ (documents
//! serde_json rejects, a path through a missing defaulted field, views read
//! on by themselves).

pub(crate) mod empty_default;
mod enum_tag;
pub(crate) mod field_decode;
pub(crate) mod field_write;
mod iter;
pub(crate) mod layout;
mod leaf;
mod locate;
mod read_error;
pub mod scan;
mod strict_write;
// The crate's only `unsafe` code: SIMD byte classification (see its docs).
#[allow(unsafe_code)]
mod simd;
mod without_internal_tag;
pub mod write;

use core::cell::Cell;
use core::marker::PhantomData;
use serde::de::Deserialize;

use crate::optic::{Preview, StartsAt};
use crate::Reader;

#[doc(hidden)]
pub use iter::{at_most_one, filled_in, writes_through, NamedFoci, PassedAbsent};
pub use iter::{
    EachFoci, JsonElements, JsonTraverse, JsonTraverseDecode, JsonTraverseThrough, MemberKeys,
    ReadEach, StrictReadEach, StrictViews, ThenFoci, Views,
};
pub(crate) use layout::{Encoding, FieldJson, VariantJson};
pub use locate::{JsonDecode, JsonOptic, JsonThrough, Located, Spot};
pub use read_error::ReadError;
pub use write::{JsonWrite, Slot, Splice};

/// What one step of a path found in the bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found<'a> {
    /// The focus's bytes, trimmed.
    At(&'a [u8]),
    /// A struct field that the object does not have, or a field past the
    /// end of a well-formed array that a tuple struct (or a struct written
    /// as a sequence) is read from: serde fills it in (a default, or `None`
    /// for an `Option`), so `read` may still give a value.
    Absent,
    /// No focus: another variant, an index past the end, malformed bytes.
    Miss,
}

/// A borrowed byte range that claims to encode a `T`: two words, `Copy`, and
/// typed, so an optic from `T` can only be pointed at a `Json<T>`.
///
/// Making one costs nothing and checks nothing; a read that meets malformed
/// bytes misses. [`Json::validated`] checks the whole document first.
///
/// ```
/// use optics_core::prelude::*;
/// use serde::Deserialize;
///
/// #[derive(Optics, Deserialize)]
/// struct Service { name: String, tier: Tier }
/// #[derive(Optics, Deserialize, Debug, PartialEq, Clone, Copy)]
/// enum Tier { Critical, Standard }
///
/// let bytes = br#"{"name": "checkout", "tier": "Critical"}"#;
/// let service = Json::<Service>::new(bytes);
/// assert_eq!(service.read(Service::tier), Some(Tier::Critical));
/// assert_eq!(service.view(Service::name).unwrap().bytes(), br#""checkout""#);
/// // A borrowed leaf points into the message.
/// let name: Option<&str> = Json::<Service>::new(br#"{"name":"db"}"#).view(Service::name)
///     .and_then(|name| name.read_as());
/// assert_eq!(name, Some("db"));
/// ```
pub struct Json<'a, T: ?Sized> {
    bytes: &'a [u8],
    ty: PhantomData<fn() -> PhantomData<T>>,
}

impl<T: ?Sized> Clone for Json<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: ?Sized> Copy for Json<'_, T> {}

impl<T: ?Sized> core::fmt::Debug for Json<'_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "Json<{}>({})",
            core::any::type_name::<T>(),
            String::from_utf8_lossy(self.bytes)
        )
    }
}

impl<'a, T: ?Sized> Json<'a, T> {
    /// Views `bytes` as the JSON of a `T`. O(1), nothing checked or copied.
    #[inline]
    pub const fn new(bytes: &'a [u8]) -> Self {
        Json {
            bytes,
            ty: PhantomData,
        }
    }

    /// Views `bytes` as the JSON of a `T` after checking that they are one
    /// well-formed JSON document (strict mode). O(n), nothing allocated.
    pub fn validated(bytes: &'a [u8]) -> Result<Self, scan::SyntaxError> {
        scan::validate(bytes)?;
        Ok(Json::new(bytes))
    }

    /// The bytes this view covers, as given (a view made by [`Json::view`] is
    /// trimmed of whitespace). O(1).
    #[inline]
    pub const fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The focus's own bytes where they lie in these: nothing decoded, nothing
    /// copied. Costs one scan of the bytes in front of the focus, per step.
    /// `None` where the focus is absent or the bytes are malformed.
    #[inline]
    pub fn view<O>(self, optic: O) -> Option<Json<'a, O::Focus>>
    where
        O: JsonOptic + StartsAt<T>,
    {
        match optic.locate(self.bytes) {
            Found::At(bytes) => Some(Json::new(bytes)),
            Found::Absent | Found::Miss => None,
        }
    }

    /// The focus entered: found as [`Json::view`] finds it, but not walked
    /// to its end, so that reads under it go on from its start as the steps
    /// of one path do (see the module docs). Several reads under one field
    /// then cost no walk over the rest of that field's value, and no byte
    /// after what they read is looked at. Costs one scan of the bytes in
    /// front of the focus; `None` where the focus is absent or what is in
    /// front of it is malformed. A focus that runs on for 1 KiB or more
    /// (to the end of the bytes the lookup found it in) is walked to its
    /// end once here (the reads under it walk an object open only below
    /// that size), and is then `None` where that walk finds no end
    /// (brackets that never close), as [`Entered::json`] is; the walk
    /// counts brackets and does not validate, so a focus malformed inside
    /// may still be entered where [`Json::view`] misses.
    ///
    /// ```
    /// use optics_core::prelude::*;
    /// use serde::Deserialize;
    ///
    /// #[derive(Optics, Deserialize)]
    /// struct Issue { id: u64, detail: Detail }
    /// #[derive(Optics, Deserialize)]
    /// struct Detail { code: u8, note: String }
    ///
    /// // Cut short after the code: the read under `detail` does not see it.
    /// let message = br#"{"id":1,"detail":{"code":7,"note":"#;
    /// let detail = Json::<Issue>::new(message).enter(Issue::detail).unwrap();
    /// assert_eq!(detail.read(Detail::code), Some(7));
    /// assert_eq!(detail.read(Detail::note), None);
    /// assert!(detail.json().is_none());
    /// ```
    #[inline]
    pub fn enter<O>(self, optic: O) -> Option<Entered<'a, O::Focus>>
    where
        O: JsonOptic + StartsAt<T>,
    {
        match optic.locate_entered_at(Spot::document(self.bytes)) {
            Located::At(spot) => Some(Entered {
                spot: spot.for_reads()?,
                focus: PhantomData,
            }),
            Located::Absent | Located::Miss => None,
        }
    }

    /// The focus, decoded from its own bytes only, exactly as a full decode
    /// would decode it (a missing defaulted or `Option` field included).
    /// Costs one scan of the bytes in front of the focus, as
    /// [`Json::view`], and the decode of the focus's bytes. Allocates only
    /// what the leaf's own `Deserialize` allocates: nothing for numbers
    /// (128-bit integers included), bools, borrowed strings, and
    /// enums and `char`s written without escapes. A unit variant's name or a
    /// `char` written with an escape (`"\u00e9"`) is unescaped by serde_json
    /// into its scratch buffer: one allocation.
    #[inline]
    pub fn read<O>(self, optic: O) -> Option<O::Focus>
    where
        O: JsonDecode<'a> + StartsAt<T>,
    {
        locate::read(&optic, self.bytes)
    }

    /// Decodes the bytes as a `T` with its `Deserialize`: the whole value,
    /// as [`decode`](fn@decode) reads it; `None` where they do not decode
    /// as a `T`. O(n), allocating what `T`'s `Deserialize` allocates.
    pub fn decode(self) -> Option<T>
    where
        T: Deserialize<'a> + Sized,
    {
        decode(self.bytes)
    }

    /// Decodes the bytes as some other type `A`, for a view whose type differs
    /// from how it is read (`Json<String>` read as `&str`), as
    /// [`decode`](fn@decode) reads it; `None` where they do not decode as an
    /// `A`. O(n), allocating what `A`'s `Deserialize` allocates.
    pub fn read_as<A: Deserialize<'a>>(self) -> Option<A> {
        decode(self.bytes)
    }
}

/// A focus a trusting read found and did not walk to its end
/// ([`Json::enter`]): reads through it go on from its start, as the steps of
/// one path do, and read what [`Json::read`] of the two optics composed
/// would. `Copy`; implements [`Reader`], so a judge written against
/// `impl Reader<T>` reads through one.
pub struct Entered<'a, T: ?Sized> {
    spot: Spot<'a>,
    focus: PhantomData<fn() -> T>,
}

impl<T: ?Sized> Clone for Entered<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: ?Sized> Copy for Entered<'_, T> {}

impl<T: ?Sized> core::fmt::Debug for Entered<'_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("Entered").field(&self.spot).finish()
    }
}

impl<'a, T: ?Sized> Entered<'a, T> {
    /// The focus of `optic`, read from the entered focus: what
    /// [`Json::read`] of the two optics composed gives, at the same cost.
    #[inline]
    pub fn read<O>(self, optic: O) -> Option<O::Focus>
    where
        O: JsonDecode<'a> + StartsAt<T>,
    {
        optic.read_at(self.spot)
    }

    /// The entered focus as a view of its own bytes, found by walking to
    /// its end: `None` where its brackets never close. O(n) in the focus.
    pub fn json(self) -> Option<Json<'a, T>> {
        match self.spot.bytes() {
            [] => None,
            bytes => Some(Json::new(bytes)),
        }
    }
}

impl<S> Reader<S> for Entered<'_, S> {
    #[inline]
    fn read<O>(&self, optic: O) -> Option<O::Focus>
    where
        O: Preview<Source = S> + for<'de> JsonDecode<'de>,
        O::Focus: Clone,
    {
        Entered::read(*self, optic)
    }

    #[inline]
    fn fold_while<O, B, F>(&self, optic: O, init: B, f: F) -> Option<B>
    where
        O: crate::optic::Traverse<Source = S> + for<'de> JsonTraverseDecode<'de>,
        F: FnMut(B, &O::Focus) -> core::ops::ControlFlow<B, B>,
    {
        crate::reader::fold_read(iter::ReadEach::at(optic, self.spot), init, f)
    }
}

/// Whether strict reads ([`Strict`]) met a key given twice on a path they
/// read, and where the first one met stands: one word, owned by the caller,
/// shared by every strict view made with it. Allocation-free; not `Sync`
/// (one per message, or per thread).
///
/// See [`Strict`] for an example.
#[derive(Debug, Default)]
pub struct Duplicates {
    /// The address of the repeated key's opening quote; 0 before one is met.
    met: Cell<usize>,
}

impl Duplicates {
    /// No duplicate met yet. O(1).
    pub const fn new() -> Self {
        Duplicates { met: Cell::new(0) }
    }

    /// Whether a strict read met a key given twice on its path (its read
    /// returned nothing). O(1).
    pub fn met(&self) -> bool {
        self.met.get() != 0
    }

    /// Where in `message` the first duplicate met stands: the offset of the
    /// opening quote of the key where it stands again. `message` is the
    /// whole document the strict views were made from (a view's offsets
    /// are in it too). `None` before a duplicate is met, or for bytes that
    /// do not hold it. O(1).
    ///
    /// ```
    /// use optics_core::json::{Duplicates, Strict};
    /// use optics_core::prelude::*;
    /// use serde::Deserialize;
    ///
    /// #[derive(Optics, Deserialize)]
    /// struct Order { id: u64, note: Note }
    /// #[derive(Optics, Deserialize)]
    /// struct Note { text: String }
    ///
    /// let message = br#"{"id":1,"note":{"text":"a","text":"b"}}"#;
    /// let duplicates = Duplicates::new();
    /// let order = Strict::<Order>::validated(message, &duplicates).unwrap();
    /// assert_eq!(order.read(Order::note.then(Note::text)), None);
    /// assert_eq!(duplicates.offset_in(message), Some(27));
    /// assert_eq!(&message[27..33], br#""text""#);
    /// ```
    pub fn offset_in(&self, message: &[u8]) -> Option<usize> {
        let offset = self.met.get().checked_sub(message.as_ptr() as usize)?;
        (self.met() && offset < message.len()).then_some(offset)
    }

    /// Records a duplicate met at `quote` (an address), unless one is
    /// recorded already.
    fn record(&self, quote: usize) {
        if self.met.get() == 0 {
            self.met.set(quote);
        }
    }

    /// Forgets what was met, to judge the next message with the same flag.
    /// O(1).
    pub fn clear(&self) {
        self.met.set(0);
    }
}

/// A view of validated bytes read strictly: like [`Json`], and every read
/// through it also checks that each key on the path it takes stands once in
/// its object (serde_json rejects a struct with a field given twice; other
/// parsers take the last, so the writer of a message could choose how it is
/// read). A read that meets a duplicate returns `None` and sets the
/// [`Duplicates`] flag the view carries. Keys off the paths read are not
/// looked at.
///
/// Four words, `Copy`; implements [`Reader`], so code written against
/// `impl Reader<T>` reads strictly when handed one. Each object on a path is
/// walked to its end (a trusting read stops at its key); an object under
/// 1 KiB read through views of one validation ([`Strict::validated`]) is
/// walked once, and later reads in it compare the keys that walk recorded
/// (per thread, the last few objects). Nothing is allocated. [`Json`]
/// itself is unchanged: trusting reads cost what they did.
///
/// What counts as a key on the path: the field read in each struct (with its
/// aliases), and an enum's tag or content key (an internally tagged enum's
/// tag too where the byte reader reads it without a lookup, as the object's
/// first member). Other keys are off the path: `{"junk":"a","id":1,
/// "junk":"b"}` reads `id`, as serde_json does where `junk` is no field.
/// Maps (`key(k)`) keep serde_json's last-wins reading.
///
/// ```
/// use optics_core::json::{Duplicates, Strict};
/// use optics_core::prelude::*;
/// use serde::Deserialize;
///
/// #[derive(Optics, Deserialize)]
/// struct Issue { id: u64, detail: Detail }
/// #[derive(Optics, Deserialize)]
/// #[serde(tag = "type")]
/// enum Detail { Incident(Incident) }
/// #[derive(Optics, Deserialize)]
/// struct Incident { severity: u8 }
///
/// fn urgent(detail: impl Reader<Detail>) -> bool {
///     detail.read(Detail::incident.then(Incident::severity)) == Some(1)
/// }
///
/// let judge = |message: &[u8]| -> Result<bool, &str> {
///     let duplicates = Duplicates::new();
///     let issue = Strict::<Issue>::validated(message, &duplicates).map_err(|_| "malformed")?;
///     let keep = issue.view(Issue::detail).is_some_and(urgent);
///     if duplicates.met() { Err("duplicate key") } else { Ok(keep) }
/// };
/// assert_eq!(judge(br#"{"id":1,"detail":{"type":"Incident","severity":1}}"#), Ok(true));
/// assert_eq!(judge(br#"{"id":1,"detail":{"type":"Incident","severity":1,"severity":2}}"#), Err("duplicate key"));
/// assert_eq!(judge(br#"{"id":1,"detail":{"type":"Incident","severity":1},"detail":{}}"#), Err("duplicate key"));
/// // A duplicate off the path read is none of its business.
/// assert_eq!(judge(br#"{"id":1,"x":0,"x":0,"detail":{"type":"Incident","severity":1}}"#), Ok(true));
/// assert_eq!(judge(br#"{"id":1,"detail":{"type":"Incident","severity":1"#), Err("malformed"));
/// ```
pub struct Strict<'a, 'd, T: ?Sized> {
    json: Json<'a, T>,
    duplicates: &'d Duplicates,
    /// The validation the bytes come from (a number no other has), if this
    /// view was made by validating, or from such a view; 0 otherwise. Reads
    /// through views of one validation walk each small object once.
    validation: u64,
}

impl<T: ?Sized> Clone for Strict<'_, '_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: ?Sized> Copy for Strict<'_, '_, T> {}

impl<T: ?Sized> core::fmt::Debug for Strict<'_, '_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Strict({:?})", self.json)
    }
}

impl<'a, T: ?Sized> Json<'a, T> {
    /// This view read strictly, recording duplicate keys in `duplicates`.
    /// For bytes already validated ([`Json::validated`]); O(1).
    pub const fn strict<'d>(self, duplicates: &'d Duplicates) -> Strict<'a, 'd, T> {
        Strict {
            json: self,
            duplicates,
            validation: 0,
        }
    }
}

impl<'a, 'd, T: ?Sized> Strict<'a, 'd, T> {
    /// Validates `bytes` as one JSON document ([`Json::validated`]) and views
    /// them strictly. O(n), nothing allocated.
    pub fn validated(
        bytes: &'a [u8],
        duplicates: &'d Duplicates,
    ) -> Result<Self, scan::SyntaxError> {
        Ok(Strict {
            json: Json::validated(bytes)?,
            duplicates,
            validation: scan::walked::next_validation(),
        })
    }

    /// [`Strict::validated`], then [`Strict::view`] of `optic`, in one pass
    /// where `optic` is the lens on a field of the root object (as derived
    /// for a struct's field written as a member): the validator hands over
    /// the root object's keys that could be the member's, so the root object
    /// is not walked a second time. `Ok(None)` where the member is absent or
    /// stands twice (recorded in the `Duplicates`). Any other optic, a
    /// document that is not an object, or a member whose names start with
    /// more than two distinct bytes, is validated and viewed in two steps.
    ///
    /// Cost: O(n): validating, and about a quarter more on the demo's
    /// messages (two compares a 64-byte block, the few keys that start as
    /// the member's compared, a skip of its value); nothing allocated.
    ///
    /// ```
    /// use optics_core::json::{Duplicates, Strict};
    /// use optics_core::prelude::*;
    /// use serde::Deserialize;
    ///
    /// #[derive(Optics, Deserialize)]
    /// struct Issue { id: u64, detail: Detail }
    /// #[derive(Optics, Deserialize)]
    /// struct Detail { code: u8 }
    ///
    /// let duplicates = Duplicates::new();
    /// let message = br#"{"id":1,"detail":{"code":7}}"#;
    /// let detail = Strict::<Issue>::validated_view(message, &duplicates, Issue::detail);
    /// assert_eq!(detail.unwrap().map(|d| d.read(Detail::code)), Some(Some(7)));
    /// let twice = br#"{"id":1,"detail":{"code":7},"detail":{"code":8}}"#;
    /// assert!(Strict::<Issue>::validated_view(twice, &duplicates, Issue::detail).unwrap().is_none());
    /// assert!(duplicates.met());
    /// assert!(Strict::<Issue>::validated_view(br#"{"id":1,"#, &duplicates, Issue::detail).is_err());
    /// ```
    pub fn validated_view<O>(
        bytes: &'a [u8],
        duplicates: &'d Duplicates,
        optic: O,
    ) -> Result<Option<Strict<'a, 'd, O::Focus>>, scan::SyntaxError>
    where
        O: JsonOptic + StartsAt<T>,
    {
        if let Some(names) = optic.member_names() {
            let mut outcome = Ok(None);
            let (_, met) = scan::duplicates::watch(bytes, 0, || {
                outcome = scan::duplicates::validate_and_find(bytes, names);
                match outcome {
                    Ok(Some(scan::Lookup::Found(value))) => Some(value),
                    _ => None,
                }
            });
            if let Some(found) = outcome? {
                if met != 0 {
                    duplicates.record(met);
                    return Ok(None);
                }
                return Ok(match found {
                    scan::Lookup::Found(value) => Some(Strict {
                        json: Json::new(value),
                        duplicates,
                        validation: scan::walked::next_validation(),
                    }),
                    scan::Lookup::Missing | scan::Lookup::Malformed => None,
                });
            }
        }
        Ok(Strict::validated(bytes, duplicates)?.view(optic))
    }

    /// The view, read trustingly from here on. O(1).
    #[inline]
    pub const fn json(self) -> Json<'a, T> {
        self.json
    }

    /// The bytes this view covers. O(1).
    #[inline]
    pub const fn bytes(self) -> &'a [u8] {
        self.json.bytes
    }

    /// The focus's bytes, as [`Json::view`] finds them, as a strict view;
    /// `None` also where a key on the path stands twice (recorded). Costs a
    /// walk of each object on the path to its end (one walk per object
    /// under 1 KiB for views of one validation: see [`Strict`]); nothing
    /// allocated.
    #[inline]
    pub fn view<O>(self, optic: O) -> Option<Strict<'a, 'd, O::Focus>>
    where
        O: JsonOptic + StartsAt<T>,
    {
        match self.locate_at(&optic).found() {
            Found::At(bytes) => Some(Strict {
                json: Json::new(bytes),
                duplicates: self.duplicates,
                validation: self.validation,
            }),
            Found::Absent | Found::Miss => None,
        }
    }

    /// The focus, decoded as [`Json::read`] decodes it; `None` also where a
    /// key on the path stands twice (recorded). Costs what [`Strict::view`]
    /// costs, and the decode allocates what [`Json::read`]'s does.
    #[inline]
    pub fn read<O>(self, optic: O) -> Option<O::Focus>
    where
        O: JsonDecode<'a> + StartsAt<T>,
    {
        // Decoded where it lies, as `Json::read` decodes it (inside an
        // internally tagged variant's payload, serde reads from its buffer),
        // not as a value of its own.
        optic.decode_at(self.locate_at(&optic))
    }

    /// `read` run on this view with a flag of its own, so that a duplicate
    /// met before by another read is not taken for this one's: what it
    /// gave, and where in this view's bytes the duplicate it met stands
    /// (recorded in this view's flag too).
    fn on_own_flag<R>(self, read: impl FnOnce(Strict<'a, '_, T>) -> R) -> (R, Option<usize>) {
        let mine = Duplicates::new();
        let given = read(Strict {
            json: self.json,
            duplicates: &mine,
            validation: self.validation,
        });
        if !mine.met() {
            return (given, None);
        }
        self.duplicates.record(mine.met.get());
        (given, Some(mine.offset_in(self.json.bytes).unwrap_or(0)))
    }

    /// Where the optic's focus lies, watched for duplicate keys.
    #[inline]
    fn locate_at<O: JsonOptic>(&self, optic: &O) -> Located<'a> {
        let bytes = self.json.bytes;
        let mut located = Located::Miss;
        let (_, met) = scan::duplicates::watch(bytes, self.validation, || {
            located = match optic.locate_at(Spot::document(bytes)) {
                // Settled once here, for the watch and the decode alike.
                Located::At(spot) => Located::At(spot.settled()),
                other => other,
            };
            match located {
                Located::At(spot) => Some(spot.bytes()),
                Located::Absent | Located::Miss => None,
            }
        });
        if met != 0 {
            self.duplicates.record(met);
            return Located::Miss;
        }
        located
    }
}

impl<S> Reader<S> for Strict<'_, '_, S> {
    #[inline]
    fn read<O>(&self, optic: O) -> Option<O::Focus>
    where
        O: Preview<Source = S> + for<'de> JsonDecode<'de>,
        O::Focus: Clone,
    {
        Strict::read(*self, optic)
    }

    #[inline]
    fn fold_while<O, B, F>(&self, optic: O, init: B, f: F) -> Option<B>
    where
        O: crate::optic::Traverse<Source = S> + for<'de> JsonTraverseDecode<'de>,
        F: FnMut(B, &O::Focus) -> core::ops::ControlFlow<B, B>,
    {
        match self.on_own_flag(|strict| crate::reader::fold_read(strict.read_each(optic), init, f))
        {
            (folded, None) => folded,
            (_, Some(_)) => None,
        }
    }
}

impl<'a, T: ?Sized> From<&'a [u8]> for Json<'a, T> {
    fn from(bytes: &'a [u8]) -> Self {
        Json::new(bytes)
    }
}

impl<'a, T: ?Sized> From<&'a bytes::Bytes> for Json<'a, T> {
    fn from(bytes: &'a bytes::Bytes) -> Self {
        Json::new(bytes)
    }
}

/// Decodes one value from exactly these bytes, as `serde_json::from_slice`
/// does. Used for every leaf, so a leaf is read exactly as a full decode reads
/// it. A plain string, a small non-negative integer, a bool or `null` is read
/// without setting up serde_json (the visitor gets the call serde_json would
/// make); anything else goes to serde_json. O(n), allocating what `T`'s
/// `Deserialize` allocates; `None` where the bytes do not decode as a `T`.
#[inline]
pub fn decode<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Option<T> {
    leaf::decode(bytes)
}
