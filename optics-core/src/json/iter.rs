//! Traversals over JSON bytes: every focus of a path, in document order, as a
//! view ([`Json::iter`]) or decoded ([`Json::read_each`]).
//!
//! ```text
//! Issue::detail.then(Detail::bug).then(Bug::frames).then(each()).then(Frame::module)
//!
//! {..,"detail":{"type":"Bug","frames":[{"module":"auth",..},{"module":"http",..}]},..}
//!               '-- detail, bug: located once ----------'  '------'             '------'
//!                                 each(): one element at a time,  module   then   module
//!                                 each skipped to its `,` or `]`
//! ```
//!
//! Each step before a traversal finds its one focus as [`Json::view`] does;
//! `each()` then walks its array (or object) one element at a time, and the
//! steps after it run inside each element. Nothing is decoded on the way and
//! nothing is allocated: the iterators hold positions in the bytes.
//!
//! A map's members are visited as the bytes hold them: in their order (a
//! `BTreeMap`'s value iterates by key; serde_json writes it so), and every
//! member of a key the object repeats, where serde keeps the last (see
//! `SERDE_ATTRIBUTES.md`; `key(k)` takes the last, as serde does). A strict
//! traversal visits the members serde keeps, keys told apart as the map's
//! key type reads them ([`JsonElements`], [`JsonKey`]).

use core::hash::Hash;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, VecDeque};

use serde::de::Deserialize;

use super::locate::buffered::decode_at;
use super::locate::spot::{Form, Hidden};
use super::scan::{self, skip_ws};
use super::{Duplicates, Found, Json, JsonDecode, JsonOptic, JsonThrough, Located, Spot, Strict};
use crate::optic::{
    At, Discriminant, Each, Elements, Field, FieldOf, Indexed, JsonKey, Key, Keyed, Optic, Some_,
    StartsAt, Tagged, Then, Through, Variant, VariantField, VariantFieldOf, VariantOf,
};

/// An optic that finds every one of its foci in the JSON bytes of its source,
/// in document order: the byte side of [`Traverse`](crate::optic::Traverse).
/// Every optic that reads bytes has it (with at most one focus); `each()` and
/// compositions with it have many.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot find its foci in JSON bytes",
    note = "optics derived with #[derive(Optics)], at(i), key(k), some(), each(), optic! names and their compositions read bytes"
)]
pub trait JsonTraverse: Optic {
    /// The iterator over the foci.
    type Foci<'a>: Iterator<Item = Located<'a>> + PassedAbsent;

    /// Every focus in `bytes`, the JSON of a `Source`, in document order: each
    /// is [`Located::At`] (where it lies, and how serde reads it there) or
    /// [`Located::Absent`] (a struct field the object does not have, which
    /// serde fills in). Malformed bytes end the iteration where the walk
    /// meets them. Nothing is decoded or allocated.
    #[inline]
    fn foci<'a>(&self, bytes: &'a [u8]) -> Self::Foci<'a> {
        self.foci_at(Spot::document(bytes))
    }

    /// Every focus from `at`, where the source lies, reading on as serde
    /// reads there (see [`Spot`]), as [`JsonOptic::locate_at`] finds one.
    fn foci_at<'a>(&self, at: Spot<'a>) -> Self::Foci<'a>;

    /// [`foci_at`](Self::foci_at) for a traversal a path goes on past (the
    /// first optic of a [`Then`]): a single focus is found as
    /// [`JsonOptic::locate_entered_at`] finds it, entered, its end not
    /// looked for, so that a path's foci are where its reads find them. The
    /// default is `foci_at`.
    #[doc(hidden)]
    #[inline]
    fn foci_entered_at<'a>(&self, at: Spot<'a>) -> Self::Foci<'a> {
        self.foci_at(at)
    }

    /// Whether a byte write may go on past this optic's foci, splicing a
    /// leaf inside them: not past a field or variant serde writes with a
    /// function (`serialize_with`), whose bytes a splice of one leaf cannot
    /// write as serde would. `JsonWrite` of a [`Then`] refuses there.
    #[doc(hidden)]
    const WRITES_THROUGH: bool = true;

    /// Whether a focus this optic finds [`Located::Absent`] is a field serde
    /// fills in with a value that may hold foci further on (see
    /// `FieldOf::FILLED_IN`): a path that goes on past it cannot tell them
    /// from the bytes.
    #[doc(hidden)]
    const FILLED_IN: bool = false;
}

/// Whether a walk of foci went on past a field its document leaves out and
/// serde fills in with a value that may hold foci further on
/// ([`JsonTraverse::FILLED_IN`]), or, strictly, a map whose members serde
/// does not read (a key it does not read as the map's key type): the foci
/// it gave are then not all the path's, and a fold over them cannot answer.
#[doc(hidden)]
pub trait PassedAbsent {
    /// Whether the walk so far went on past such a field or map.
    fn passed_absent(&self) -> bool;

    /// Whether the walk so far met a focus that holds more flatten and
    /// internal-tag levels on one object than a spot does (see
    /// `SERDE_ATTRIBUTES.md`): every read past it misses, so the foci it
    /// gave need not be all the path's, and a write of every focus refuses.
    #[inline]
    fn past_capacity(&self) -> bool {
        false
    }
}

impl PassedAbsent for EachFoci<'_> {
    #[inline]
    fn passed_absent(&self) -> bool {
        self.unread
    }
}

impl PassedAbsent for core::option::IntoIter<Located<'_>> {
    #[inline]
    fn passed_absent(&self) -> bool {
        false
    }
}

impl<A: JsonTraverse, B: JsonTraverse> PassedAbsent for ThenFoci<'_, A, B> {
    #[inline]
    fn passed_absent(&self) -> bool {
        self.passed_absent
            || self.outer.passed_absent()
            || self.inner.as_ref().is_some_and(PassedAbsent::passed_absent)
    }

    #[inline]
    fn past_capacity(&self) -> bool {
        self.past_capacity
            || self.outer.past_capacity()
            || self.inner.as_ref().is_some_and(PassedAbsent::past_capacity)
    }
}

/// [`JsonTraverse::FILLED_IN`] of `optic`, for the `optic!` names.
#[doc(hidden)]
pub const fn filled_in<O: JsonTraverse>(optic: &O) -> bool {
    let _ = optic;
    O::FILLED_IN
}

/// [`JsonTraverse::WRITES_THROUGH`] of `optic`, for the `optic!` names.
#[doc(hidden)]
pub const fn writes_through<O: JsonTraverse>(optic: &O) -> bool {
    let _ = optic;
    O::WRITES_THROUGH
}

/// A traversal a byte walk may go on past, as [`JsonThrough`] is for a
/// single-focus optic: every one but the lens on a field read `with` a
/// function (whose bytes need not be the JSON of the field's type).
#[diagnostic::on_unimplemented(
    message = "a byte traversal cannot go on past `{Self}`",
    label = "a field read `with` a function, or an optic that does not say its bytes are its focus's JSON",
    note = "a field read `with` (or `deserialize_with`) a function is what the function makes of its bytes, which need not be the JSON of the field's type; read the field itself, then go on on the value it decodes to"
)]
pub trait JsonTraverseThrough: JsonTraverse {}

/// An optic that decodes each focus [`JsonTraverse::foci`] found, as
/// [`JsonDecode`] decodes the one focus of a single-focus optic.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot decode its foci from JSON bytes borrowed for `'de`",
    note = "the focus type must implement serde::Deserialize<'de>; use `iter` to get views of the bytes instead"
)]
pub trait JsonTraverseDecode<'de>: JsonTraverse {
    /// One focus, decoded from the bytes `found` gives, read by serde_json
    /// directly (as a document of their own).
    #[inline]
    fn decode_focus(&self, found: Found<'de>) -> Option<Self::Focus> {
        self.decode_focus_at(Located::direct(found))
    }

    /// One focus, decoded from what `foci` found, as serde decodes it as part
    /// of the whole.
    fn decode_focus_at(&self, found: Located<'de>) -> Option<Self::Focus>;
}

/// The elements of a JSON array, or the values of a JSON object's members, in
/// order: the foci of `each()`. Holds a position; allocates nothing.
#[derive(Clone, Debug)]
pub struct EachFoci<'a> {
    bytes: &'a [u8],
    /// Whether serde reads the elements from its buffer.
    buffered: bool,
    /// The keys an object's members are read without (a flattened map's).
    hidden: Option<Hidden>,
    /// Elements to pass over first (an array read from its `skip`th on).
    skip: usize,
    /// Where the next element (or key) starts, whitespace allowed before it.
    pos: usize,
    /// Object members (`"key": value`) rather than array elements.
    object: bool,
    /// The container is done, or broken.
    done: bool,
    /// Where the container's first element (or key) may start.
    start: usize,
    /// How the map's key type tells the members serde keeps
    /// ([`JsonElements::kept_members`]).
    kept_by: KeptBy,
    /// In a strict traversal of an object, where the keys of the members
    /// serde keeps start, in order. Built at the first member, only while
    /// a strict read runs.
    kept: Option<Vec<usize>>,
    /// A strict traversal of an object could not tell the members serde
    /// keeps (a key serde does not read as the map's key type, so it reads
    /// no map there): it ended with no focus, and a fold cannot answer.
    unread: bool,
}

/// [`JsonElements::kept_members`] of one collection type.
type KeptBy = fn(MemberKeys<'_>) -> Option<Vec<usize>>;

impl<'a> EachFoci<'a> {
    /// The elements of the array (or object, with `object`) `bytes`; none if
    /// `bytes` is not one.
    fn new(bytes: &'a [u8], object: bool, kept_by: KeptBy) -> Self {
        let open = skip_ws(bytes, 0);
        let (opener, closer) = if object { (b'{', b'}') } else { (b'[', b']') };
        let mut elements = EachFoci {
            bytes,
            buffered: false,
            hidden: None,
            skip: 0,
            pos: open + 1,
            object,
            done: bytes.get(open) != Some(&opener),
            start: open + 1,
            kept_by,
            kept: None,
            unread: false,
        };
        if !elements.done && bytes.get(skip_ws(bytes, open + 1)) == Some(&closer) {
            elements.done = true;
        }
        elements
    }

    /// The elements of the container at `at`, as serde reads them there: the
    /// members a flattened map is handed (those `hidden` does not name), the
    /// elements of an array from its `skip`th; none in a field read `with` a
    /// function. `kept_by` tells a map's kept members apart.
    fn at(at: Spot<'a>, object: bool, kept_by: KeptBy) -> Self {
        let (buffered, hidden, skip) = match at.form() {
            Form::Value { buffered, .. } => (buffered, None, 0),
            Form::Members { hidden, .. } if object => (true, Some(hidden), 0),
            Form::Rest { skip } if !object => (true, None, skip),
            Form::Members { .. } | Form::Rest { .. } | Form::Opaque { .. } => {
                return EachFoci::empty();
            }
        };
        let mut elements = EachFoci::new(at.bytes(), object, kept_by);
        elements.buffered = buffered;
        elements.hidden = hidden;
        elements.skip = skip;
        elements
    }

    fn empty() -> Self {
        EachFoci {
            bytes: &[],
            buffered: false,
            hidden: None,
            skip: 0,
            pos: 0,
            object: false,
            done: true,
            start: 0,
            kept_by: <[()] as JsonElements>::kept_members,
            kept: None,
            unread: false,
        }
    }

    /// The next element's bytes, whether serde hides it, and where its key
    /// starts (an object's member; for an array's element, where the
    /// element starts), or `None` at the end or where the bytes break.
    fn step(&mut self) -> Option<(&'a [u8], bool, usize)> {
        let bytes = self.bytes;
        let mut at = skip_ws(bytes, self.pos);
        let mut hidden = false;
        let key_at = at;
        if self.object {
            if bytes.get(at) != Some(&b'"') {
                return None;
            }
            let key_end = scan::skip_value(bytes, at)?;
            if let Some(keys) = &self.hidden {
                // Past the hidden keys' capacity nothing can be told: stop.
                hidden = keys.hides_raw(scan::string_raw(&bytes[at..key_end])?)?;
            }
            at = skip_ws(bytes, key_end);
            if bytes.get(at) != Some(&b':') {
                return None;
            }
            at = skip_ws(bytes, at + 1);
        }
        let end = scan::skip_value(bytes, at)?;
        let delimiter = skip_ws(bytes, end);
        match (bytes.get(delimiter), self.object) {
            (Some(b','), _) => self.pos = delimiter + 1,
            (Some(b']'), false) | (Some(b'}'), true) => self.done = true,
            _ => return None,
        }
        Some((bytes.get(at..end)?, hidden, key_at))
    }

    /// Whether serde keeps the member whose key starts at `key_at`: a map
    /// keeps the last member of each key (an earlier one is overwritten),
    /// keys told apart as the key type reads them (see
    /// [`JsonElements::kept_members`]). `None` where the object breaks or a
    /// key does not read.
    ///
    /// Cost: at the first member, one walk of the object's keys (see
    /// [`JsonElements::kept_members`] for what each costs); then one binary
    /// search a member.
    fn kept_by_serde(&mut self, key_at: usize) -> Option<bool> {
        if self.kept.is_none() {
            self.kept = Some(self.members_kept()?);
        }
        Some(self.kept.as_ref()?.binary_search(&key_at).is_ok())
    }

    /// Where the keys of the members serde keeps start (see
    /// [`EachFoci::kept_by_serde`]); once a traversal, so out of line.
    #[cold]
    #[inline(never)]
    fn members_kept(&self) -> Option<Vec<usize>> {
        // The same walk from the object's first member.
        let walk = EachFoci {
            skip: 0,
            pos: self.start,
            done: self.bytes.get(skip_ws(self.bytes, self.start)) == Some(&b'}'),
            kept: None,
            ..self.clone()
        };
        // The key type's `read_key` is the user's code: a read it makes is
        // its own (as `is_key`'s in a lookup).
        scan::duplicates::unwatched(|| (self.kept_by)(MemberKeys { walk }))
    }
}

/// The keys of an object's members that serde hands its map, in order:
/// where each starts (its opening quote) and its bytes, quotes included;
/// `None` once, where the object breaks. Members serde does not hand the
/// map (the fields and tags around a flattened map) are passed over. Holds
/// a position; allocates nothing.
#[doc(hidden)]
#[derive(Debug)]
pub struct MemberKeys<'a> {
    /// The object's members, walked as a traversal walks them.
    walk: EachFoci<'a>,
}

impl MemberKeys<'_> {
    /// Whether serde reads the keys from its buffer (see
    /// [`JsonKey::read_key`]).
    pub fn buffered(&self) -> bool {
        self.walk.buffered
    }
}

impl<'a> Iterator for MemberKeys<'a> {
    type Item = Option<(usize, &'a [u8])>;

    fn next(&mut self) -> Option<Self::Item> {
        let bytes = self.walk.bytes;
        while !self.walk.done {
            let member = self.walk.step().and_then(|(_, hidden, at)| {
                let key = bytes.get(at..scan::skip_value(bytes, at)?)?;
                Some((!hidden).then_some((at, key)))
            });
            match member {
                Some(Some(key)) => return Some(Some(key)),
                Some(None) => continue,
                None => {
                    self.walk.done = true;
                    return Some(None);
                }
            }
        }
        None
    }
}

/// A collection whose elements `each()` finds in JSON bytes: a list, or a
/// map whose key type ([`JsonKey`]) tells which of its object's members
/// serde keeps, those a strict traversal visits.
#[diagnostic::on_unimplemented(
    message = "`each()` cannot walk `{Self}` in JSON bytes",
    label = "a map's key type must implement `JsonKey`, with `Hash + Eq` for a `HashMap`, `Ord` for a `BTreeMap`",
    note = "implement `optics_core::optic::JsonKey` for a key type of your own (see its docs)"
)]
pub trait JsonElements: Elements {
    /// For a map: where the keys of the members serde keeps start, in
    /// order, among the members `keys` walks: the last of each key, keys
    /// told apart as the key type says ([`JsonKey::ONE_SPELLING`]): by
    /// their text, escapes decoded (one table of the keys, and one string
    /// for each key written with an escape), or each read with
    /// [`JsonKey::read_key`] into a table of the map's own kind. `None`
    /// where the object breaks or a key does not read. Lists have no keys.
    #[doc(hidden)]
    fn kept_members(keys: MemberKeys<'_>) -> Option<Vec<usize>> {
        let _ = keys;
        None
    }
}

/// Lists: no keys.
macro_rules! list_elements {
    ($(impl[$($gen:tt)*] $ty:ty;)*) => {$(
        impl<$($gen)*> JsonElements for $ty {}
    )*};
}

list_elements! {
    impl[T] [T];
    impl[T] Vec<T>;
    impl[T, const N: usize] [T; N];
    impl[T] VecDeque<T>;
}

impl<K: JsonKey + Hash + Eq, V, S> JsonElements for HashMap<K, V, S> {
    fn kept_members(keys: MemberKeys<'_>) -> Option<Vec<usize>> {
        if K::ONE_SPELLING {
            kept_by_text::<K>(keys)
        } else {
            kept_by_key::<K, HashMap<K, usize>>(keys)
        }
    }
}

impl<K: JsonKey + Ord, V> JsonElements for BTreeMap<K, V> {
    fn kept_members(keys: MemberKeys<'_>) -> Option<Vec<usize>> {
        if K::ONE_SPELLING {
            kept_by_text::<K>(keys)
        } else {
            kept_by_key::<K, BTreeMap<K, usize>>(keys)
        }
    }
}

/// A `Value` object's members: string keys, the last of each kept.
impl JsonElements for serde_json::Map<String, serde_json::Value> {
    fn kept_members(keys: MemberKeys<'_>) -> Option<Vec<usize>> {
        kept_by_text::<String>(keys)
    }
}

/// The members serde keeps, keys told apart by their text (escapes
/// decoded), sorted by where their keys start; `None` where a key is none
/// that serde reads as a `K` ([`JsonKey::reads_key`]).
fn kept_by_text<K: JsonKey>(keys: MemberKeys<'_>) -> Option<Vec<usize>> {
    let buffered = keys.buffered();
    let mut last = HashMap::new();
    for key in keys {
        let (at, key) = key?;
        if !K::reads_key(scan::string_raw(key)?, buffered) {
            return None;
        }
        last.insert(member_key(key)?, at);
    }
    let mut kept: Vec<usize> = last.into_values().collect();
    kept.sort_unstable();
    Some(kept)
}

/// The members serde keeps, each key read as a `K` and inserted into a
/// `Table` (the map's own kind), as serde inserts them: the last wins.
fn kept_by_key<K, Table>(keys: MemberKeys<'_>) -> Option<Vec<usize>>
where
    K: JsonKey,
    Table: Default + Extend<(K, usize)> + IntoIterator<Item = (K, usize)>,
{
    let buffered = keys.buffered();
    let mut last = Table::default();
    for key in keys {
        let (at, key) = key?;
        last.extend([(K::read_key(scan::string_raw(key)?, buffered)?, at)]);
    }
    let mut kept: Vec<usize> = last.into_iter().map(|(_, at)| at).collect();
    kept.sort_unstable();
    Some(kept)
}

/// A member's key (`key`: its bytes, quotes included) as serde reads it:
/// its own text, or decoded where it holds an escape. `None` if it is not a
/// string.
fn member_key(key: &[u8]) -> Option<Cow<'_, str>> {
    let raw = scan::string_raw(key)?;
    if raw.contains(&b'\\') {
        serde_json::from_slice::<String>(key).ok().map(Cow::Owned)
    } else {
        core::str::from_utf8(raw).ok().map(Cow::Borrowed)
    }
}

impl<'a> Iterator for EachFoci<'a> {
    type Item = Located<'a>;

    #[inline]
    fn next(&mut self) -> Option<Located<'a>> {
        loop {
            if self.done {
                return None;
            }
            let Some((element, hidden, key_at)) = self.step() else {
                self.done = true;
                return None;
            };
            if hidden {
                continue;
            }
            if self.skip > 0 {
                self.skip -= 1;
                continue;
            }
            if scan::duplicates::watching() {
                // A strict traversal visits the members serde keeps (a
                // strict write's check, every member it writes), and hands
                // each focus out as a lookup does (so the watch does not
                // look for the object around it).
                if self.object && !scan::duplicates::visits_every_member() {
                    match self.kept_by_serde(key_at) {
                        Some(true) => {}
                        Some(false) => continue,
                        None => {
                            self.done = true;
                            self.unread = true;
                            return None;
                        }
                    }
                }
                scan::duplicates::hand_out(element);
            }
            return Some(Located::At(Spot::value(element, self.buffered)));
        }
    }
}

/// The foci of `first.then(second)` in bytes: `second`'s foci inside each of
/// `first`'s. A field `first` finds absent has no bytes to go on in, so it
/// contributes nothing (as [`Json::view`] misses there).
pub struct ThenFoci<'a, A: JsonTraverse, B: JsonTraverse> {
    outer: A::Foci<'a>,
    inner: Option<B::Foci<'a>>,
    second: B,
    /// Whether `second`'s foci are entered (a path goes on past them).
    enter: bool,
    /// Whether the walk went on past a field serde fills in (see
    /// [`PassedAbsent`]): `first` found one absent, or a walk of `second`
    /// done with went on past one.
    passed_absent: bool,
    /// Whether `first` found a focus past a spot's capacity, or a walk of
    /// `second` done with met one (see [`PassedAbsent::past_capacity`]).
    past_capacity: bool,
}

impl<'a, A, B> Iterator for ThenFoci<'a, A, B>
where
    A: JsonTraverse,
    B: JsonTraverse,
{
    type Item = Located<'a>;

    #[inline]
    fn next(&mut self) -> Option<Located<'a>> {
        loop {
            if let Some(found) = self.inner.as_mut().and_then(Iterator::next) {
                return Some(found);
            }
            if let Some(done) = &self.inner {
                self.passed_absent |= done.passed_absent();
                self.past_capacity |= done.past_capacity();
            }
            let found = self.outer.next()?;
            if let Located::At(spot) = &found {
                self.past_capacity |= spot.hides_past_capacity();
            }
            match found {
                Located::At(spot) if self.enter => {
                    self.inner = Some(self.second.foci_entered_at(spot))
                }
                Located::At(spot) => self.inner = Some(self.second.foci_at(spot)),
                Located::Absent => {
                    self.passed_absent |= A::FILLED_IN;
                    self.inner = None;
                }
                Located::Miss => self.inner = None,
            }
        }
    }
}

impl<A, B> JsonTraverse for Then<A, B>
where
    A: JsonTraverseThrough,
    B: JsonTraverse + Clone,
    A::Focus: Through<B::Source>,
{
    type Foci<'a> = ThenFoci<'a, A, B>;

    const WRITES_THROUGH: bool = A::WRITES_THROUGH && B::WRITES_THROUGH;

    /// A focus of the path is absent where its last step's is.
    const FILLED_IN: bool = B::FILLED_IN;

    /// The first optic's foci entered (as [`JsonOptic::locate_at`] of a
    /// [`Then`] enters its first), the second's found as asked.
    #[inline]
    fn foci_at<'a>(&self, at: Spot<'a>) -> Self::Foci<'a> {
        ThenFoci::new(self, at, false)
    }

    #[inline]
    fn foci_entered_at<'a>(&self, at: Spot<'a>) -> Self::Foci<'a> {
        ThenFoci::new(self, at, true)
    }
}

impl<'a, A, B> ThenFoci<'a, A, B>
where
    A: JsonTraverseThrough,
    B: JsonTraverse + Clone,
    A::Focus: Through<B::Source>,
{
    /// The foci of `then` from `at`: its first optic's entered, its
    /// second's entered too with `enter`.
    #[inline]
    fn new(then: &Then<A, B>, at: Spot<'a>, enter: bool) -> Self {
        ThenFoci {
            outer: then.first().foci_entered_at(at),
            inner: None,
            second: then.second().clone(),
            enter,
            passed_absent: false,
            past_capacity: false,
        }
    }
}

impl<A, B> JsonTraverseThrough for Then<A, B>
where
    A: JsonTraverseThrough,
    B: JsonTraverseThrough + Clone,
    A::Focus: Through<B::Source>,
{
}

impl<'de, A, B> JsonTraverseDecode<'de> for Then<A, B>
where
    A: JsonTraverseThrough,
    B: JsonTraverseDecode<'de> + Clone,
    A::Focus: Through<B::Source>,
{
    #[inline]
    fn decode_focus_at(&self, found: Located<'de>) -> Option<Self::Focus> {
        self.second().decode_focus_at(found)
    }
}

impl<C: ?Sized + JsonElements> JsonTraverse for Each<C> {
    type Foci<'a> = EachFoci<'a>;

    #[inline]
    fn foci_at<'a>(&self, at: Spot<'a>) -> EachFoci<'a> {
        EachFoci::at(at, C::OBJECT, C::kept_members)
    }
}

impl<C: ?Sized + JsonElements> JsonTraverseThrough for Each<C> {}

impl<'de, C: ?Sized + JsonElements> JsonTraverseDecode<'de> for Each<C>
where
    C::Element: Deserialize<'de>,
{
    #[inline]
    fn decode_focus_at(&self, found: Located<'de>) -> Option<C::Element> {
        match found {
            Located::At(spot) => decode_at(spot),
            Located::Absent | Located::Miss => None,
        }
    }
}

/// The one focus a single-focus optic finds, if any.
#[inline]
pub fn at_most_one(found: Located<'_>) -> core::option::IntoIter<Located<'_>> {
    match found {
        Located::Miss => None,
        found => Some(found),
    }
    .into_iter()
}

/// [`JsonTraverse`] and [`JsonTraverseDecode`] for optics of at most one focus,
/// through their [`JsonOptic::locate`] and [`JsonDecode::decode`].
macro_rules! at_most_one {
    ($(impl[$($gen:tt)*] $ty:ty $(=> $through:expr, $filled:expr)?;)*) => {$(
        impl<$($gen)*> JsonTraverse for $ty {
            type Foci<'a> = core::option::IntoIter<Located<'a>>;
            $(
                const WRITES_THROUGH: bool = $through;
                const FILLED_IN: bool = $filled;
            )?
            #[inline]
            fn foci_at<'a>(&self, at: Spot<'a>) -> Self::Foci<'a> {
                at_most_one(self.locate_at(at))
            }
            #[inline]
            fn foci_entered_at<'a>(&self, at: Spot<'a>) -> Self::Foci<'a> {
                at_most_one(self.locate_entered_at(at))
            }
        }
        impl<$($gen)*> JsonTraverseThrough for $ty where Self: JsonThrough {}
        impl<'de, $($gen)*> JsonTraverseDecode<'de> for $ty
        where
            Self: JsonDecode<'de>,
        {
            #[inline]
            fn decode_focus_at(&self, found: Located<'de>) -> Option<Self::Focus> {
                self.decode_at(found)
            }
        }
    )*};
}

at_most_one! {
    impl[S: FieldOf<I>, const I: usize] Field<S, I> => S::WRITTEN_PLAIN, S::FILLED_IN;
    impl[S: VariantOf<I>, const I: usize] Variant<S, I> => S::WRITTEN_PLAIN, false;
    impl[S: VariantFieldOf<I>, const I: usize] VariantField<S, I> => S::WRITTEN_PLAIN, S::FILLED_IN;
    impl[C: ?Sized + Indexed] At<C>;
    impl[M: Keyed<Q>, Q: ?Sized + JsonKey] Key<'_, M, Q>;
    impl[T] Some_<T>;
    impl[S: Tagged] Discriminant<S>;
}

/// The foci of an `optic!` name: the one focus its path's lookup finds
/// (as [`at_most_one`] gives it), and, where the lookup misses, what the
/// path's own walk of foci went on past ([`PassedAbsent`]): a field serde
/// fills in, or more flatten and internal-tag levels than a spot holds. A
/// lookup of the whole path says only that it missed; the path written out
/// in a composition says why, and a name must answer as its path does
/// (a fold past such a step cannot answer; a write refuses).
///
/// Cost: a hit costs the lookup alone (no more walk, nothing allocated).
/// A miss costs one more walk of the path's foci from where the lookup
/// started, step by step up to where it misses (another scan of the bytes
/// the lookup scanned), nothing allocated.
#[doc(hidden)]
#[derive(Clone, Debug)]
pub struct NamedFoci<'a> {
    found: core::option::IntoIter<Located<'a>>,
    /// What the path's walk went on past, where the lookup missed.
    passed_absent: bool,
    past_capacity: bool,
}

impl<'a> NamedFoci<'a> {
    /// The focus a name's lookup found: `At` or `Absent`, never `Miss`
    /// (see [`NamedFoci::missed`]).
    #[inline]
    pub fn found(found: Located<'a>) -> Self {
        NamedFoci {
            found: at_most_one(found),
            passed_absent: false,
            past_capacity: false,
        }
    }

    /// No focus: the lookup of `path` from `at` (entered with `entered`,
    /// as [`JsonTraverse::foci_entered_at`]) missed. The path's foci are
    /// walked from `at` to tell why, as a trusting read walks them (a
    /// strict read's watch is its lookup's, and a key the path meets twice
    /// has made the strict read refuse already).
    #[cold]
    #[inline(never)]
    pub fn missed<P: JsonTraverse>(path: &P, at: Spot<'a>, entered: bool) -> Self {
        let (passed_absent, past_capacity) = scan::duplicates::unwatched(|| {
            let mut foci = if entered {
                path.foci_entered_at(at)
            } else {
                path.foci_at(at)
            };
            foci.by_ref().for_each(drop);
            (foci.passed_absent(), foci.past_capacity())
        });
        NamedFoci {
            found: None.into_iter(),
            passed_absent,
            past_capacity,
        }
    }
}

impl<'a> Iterator for NamedFoci<'a> {
    type Item = Located<'a>;

    #[inline]
    fn next(&mut self) -> Option<Located<'a>> {
        self.found.next()
    }
}

impl PassedAbsent for NamedFoci<'_> {
    #[inline]
    fn passed_absent(&self) -> bool {
        self.passed_absent
    }

    #[inline]
    fn past_capacity(&self) -> bool {
        self.past_capacity
    }
}

/// Implements [`JsonTraverse`] and [`JsonTraverseDecode`] for a type named by
/// `optic!`, through its `locate` and `decode`; a miss is explained by its
/// path's own walk ([`NamedFoci`]).
#[doc(hidden)]
#[macro_export]
macro_rules! __json_traverse_at_most_one {
    ($name:ident : $source:ty => $focus:ty = $path:expr) => {
        impl $crate::json::JsonTraverse for $name {
            type Foci<'a> = $crate::json::NamedFoci<'a>;
            const WRITES_THROUGH: bool = $crate::json::writes_through(&$path);
            const FILLED_IN: bool = $crate::json::filled_in(&$path);
            #[inline]
            fn foci_at<'a>(&self, at: $crate::json::Spot<'a>) -> Self::Foci<'a> {
                match $crate::json::JsonOptic::locate_at(self, at) {
                    $crate::json::Located::Miss => {
                        $crate::json::NamedFoci::missed(&$path, at, false)
                    }
                    found => $crate::json::NamedFoci::found(found),
                }
            }
            #[inline]
            fn foci_entered_at<'a>(&self, at: $crate::json::Spot<'a>) -> Self::Foci<'a> {
                match $crate::json::JsonOptic::locate_entered_at(self, at) {
                    $crate::json::Located::Miss => {
                        $crate::json::NamedFoci::missed(&$path, at, true)
                    }
                    found => $crate::json::NamedFoci::found(found),
                }
            }
        }
        impl $crate::json::JsonTraverseThrough for $name {}
        impl<'de> $crate::json::JsonTraverseDecode<'de> for $name {
            #[inline]
            fn decode_focus_at(
                &self,
                found: $crate::json::Located<'de>,
            ) -> ::core::option::Option<$focus> {
                $crate::json::JsonDecode::decode_at(self, found)
            }
        }
    };
}

/// The views of every focus of a traversal, in document order (see
/// [`Json::iter`]).
pub struct Views<'a, O: JsonTraverse> {
    foci: O::Foci<'a>,
}

impl<'a, O: JsonTraverse> Iterator for Views<'a, O> {
    type Item = Json<'a, O::Focus>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        loop {
            match self.foci.next()? {
                Located::At(spot) => return Some(Json::new(spot.bytes())),
                Located::Absent | Located::Miss => continue,
            }
        }
    }
}

/// Every focus of a traversal, decoded, in document order (see
/// [`Json::read_each`]).
pub struct ReadEach<'a, O: JsonTraverse> {
    foci: O::Foci<'a>,
    optic: O,
}

impl<'a, O: JsonTraverse> ReadEach<'a, O> {
    /// The foci of `optic` from `at`, decoded (as [`Json::read_each`] reads
    /// them from a document).
    pub(crate) fn at(optic: O, at: Spot<'a>) -> Self {
        ReadEach {
            foci: optic.foci_at(at),
            optic,
        }
    }
}

impl<O: JsonTraverse> PassedAbsent for ReadEach<'_, O> {
    #[inline]
    fn passed_absent(&self) -> bool {
        self.foci.passed_absent()
    }

    #[inline]
    fn past_capacity(&self) -> bool {
        self.foci.past_capacity()
    }
}

impl<'a, O: JsonTraverseDecode<'a>> Iterator for ReadEach<'a, O> {
    type Item = Option<O::Focus>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let found = self.foci.next()?;
        Some(self.optic.decode_focus_at(found))
    }
}

impl<'a, T: ?Sized> Json<'a, T> {
    /// A view of every focus of `optic`, in document order: for a traversal
    /// (a path through [`each`](crate::optic::each)), one per element; for any
    /// other optic, at most one (what [`Json::view`] gives). A struct field
    /// missing from its object has no bytes, so no view. Over a map, every
    /// member the bytes hold, in their order: where the object repeats a
    /// key, serde keeps only the last, and this visits each (telling them
    /// apart would mean holding every key).
    ///
    /// Nothing is decoded, copied or allocated: the iterator holds positions
    /// in the bytes. Each step costs one scan of the bytes from the previous
    /// focus to the next. Malformed bytes end the iteration where it meets
    /// them.
    ///
    /// ```
    /// use optics_core::prelude::*;
    /// use serde::Deserialize;
    ///
    /// #[derive(Optics, Deserialize)]
    /// struct Trace { frames: Vec<Frame> }
    /// #[derive(Optics, Deserialize)]
    /// struct Frame { module: String, line: u32 }
    ///
    /// let bytes = br#"{"frames":[{"module":"auth","line":7},{"module":"http","line":9}]}"#;
    /// let modules = Trace::frames.then(each()).then(Frame::module);
    /// let views: Vec<&[u8]> = Json::<Trace>::new(bytes).iter(modules).map(|m| m.bytes()).collect();
    /// assert_eq!(views, [&br#""auth""#[..], br#""http""#]);
    /// ```
    #[inline]
    pub fn iter<O>(self, optic: O) -> Views<'a, O>
    where
        O: JsonTraverse + StartsAt<T>,
    {
        Views {
            foci: optic.foci(self.bytes()),
        }
    }

    /// Every focus of `optic`, decoded from its own bytes as
    /// [`Json::read`] decodes one, in document order: `None` for a focus whose
    /// bytes do not decode. A struct field missing from its object decodes as
    /// serde fills it in (its default, or `None`).
    ///
    /// Allocates only what each leaf's `Deserialize` allocates.
    ///
    /// ```
    /// use optics_core::prelude::*;
    /// use serde::Deserialize;
    ///
    /// #[derive(Optics, Deserialize)]
    /// struct Trace { frames: Vec<Frame> }
    /// #[derive(Optics, Deserialize)]
    /// struct Frame { module: String, line: u32 }
    ///
    /// let bytes = br#"{"frames":[{"module":"auth","line":7},{"module":"http","line":9}]}"#;
    /// let lines = Trace::frames.then(each()).then(Frame::line);
    /// let read: Option<Vec<u32>> = Json::<Trace>::new(bytes).read_each(lines).collect();
    /// assert_eq!(read, Some(vec![7, 9]));
    /// ```
    #[inline]
    pub fn read_each<O>(self, optic: O) -> ReadEach<'a, O>
    where
        O: JsonTraverseDecode<'a> + StartsAt<T>,
    {
        ReadEach {
            foci: optic.foci(self.bytes()),
            optic,
        }
    }
}

/// The foci of a traversal found as a strict read finds one: each step of
/// the walk runs watched for duplicate keys (see [`Strict`]), the first
/// with the lookups that start the walk. A duplicate met is recorded in the
/// view's [`Duplicates`] and ends the traversal.
struct Watched<'a, 'd, O: JsonTraverse> {
    optic: O,
    /// The walk, once started.
    foci: Option<O::Foci<'a>>,
    /// The bytes of the view the traversal started from.
    root: &'a [u8],
    duplicates: &'d Duplicates,
    validation: u64,
    done: bool,
}

impl<'a, 'd, O: JsonTraverse> Watched<'a, 'd, O> {
    fn new<T: ?Sized>(strict: Strict<'a, 'd, T>, optic: O) -> Self {
        Watched {
            optic,
            foci: None,
            root: strict.json.bytes,
            duplicates: strict.duplicates,
            validation: strict.validation,
            done: false,
        }
    }

    #[inline]
    fn next(&mut self) -> Option<Located<'a>> {
        if self.done {
            return None;
        }
        let (optic, root) = (&self.optic, self.root);
        let foci = &mut self.foci;
        let mut found = None;
        let (_, met) = scan::duplicates::watch(root, self.validation, || {
            found = match foci.get_or_insert_with(|| optic.foci(root)).next() {
                // Settled once here, for the watch and the caller alike.
                Some(Located::At(spot)) => Some(Located::At(spot.settled())),
                other => other,
            };
            match found {
                Some(Located::At(spot)) => Some(spot.bytes()),
                _ => None,
            }
        });
        if met != 0 {
            self.duplicates.record(met);
            self.done = true;
            return None;
        }
        if found.is_none() {
            self.done = true;
        }
        found
    }
}

/// The strict views of every focus of a traversal, in document order (see
/// [`Strict::iter`]).
pub struct StrictViews<'a, 'd, O: JsonTraverse> {
    watched: Watched<'a, 'd, O>,
}

impl<'a, 'd, O: JsonTraverse> Iterator for StrictViews<'a, 'd, O> {
    type Item = Strict<'a, 'd, O::Focus>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        loop {
            match self.watched.next()? {
                Located::At(spot) => {
                    return Some(Strict {
                        json: Json::new(spot.bytes()),
                        duplicates: self.watched.duplicates,
                        validation: self.watched.validation,
                    })
                }
                Located::Absent | Located::Miss => continue,
            }
        }
    }
}

/// Every focus of a traversal, decoded, read strictly, in document order
/// (see [`Strict::read_each`]).
pub struct StrictReadEach<'a, 'd, O: JsonTraverse> {
    watched: Watched<'a, 'd, O>,
}

impl<O: JsonTraverse> PassedAbsent for StrictReadEach<'_, '_, O> {
    #[inline]
    fn passed_absent(&self) -> bool {
        self.watched
            .foci
            .as_ref()
            .is_some_and(PassedAbsent::passed_absent)
    }

    #[inline]
    fn past_capacity(&self) -> bool {
        self.watched
            .foci
            .as_ref()
            .is_some_and(PassedAbsent::past_capacity)
    }
}

impl<'a, O: JsonTraverseDecode<'a>> Iterator for StrictReadEach<'a, '_, O> {
    type Item = Option<O::Focus>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let found = self.watched.next()?;
        Some(self.watched.optic.decode_focus_at(found))
    }
}

impl<'a, 'd, T: ?Sized> Strict<'a, 'd, T> {
    /// A strict view of every focus of `optic`, in document order, as
    /// [`Json::iter`] finds them, each step read strictly: a key on the path
    /// to a focus that stands twice in its object is recorded in the
    /// [`Duplicates`] and ends the traversal (check the flag after it).
    /// Over a map (`each()` on a `HashMap`, `BTreeMap` or serde_json's `Map`), the members serde
    /// keeps: where the object repeats a key, its last member only, as
    /// serde_json reads it. Keys are told apart as the map's key type reads
    /// them ([`JsonKey`]): by the text they decode to (escapes decoded), as
    /// serde_json tells `String`, `char`, `bool` and integer keys up to 64
    /// bits apart, or, for a key type that reads two texts as one key (an
    /// `i128` key `"-0"` beside `"0"`, an address, an enum key and its
    /// alias), by reading each key ([`JsonKey::read_key`]). Where a key
    /// is none serde reads as the key type ([`JsonKey::reads_key`]: `"x"`
    /// or `"\u0031"` for an integer key), serde_json refuses the map: the
    /// traversal then gives no focus of it, and a strict fold over it
    /// ([`Reader::fold`](crate::reader::Reader::fold)) gives `None`.
    ///
    /// Nothing is allocated over arrays; over a map, one table of its keys
    /// (and one string for each key written with an escape, or what reading
    /// each key costs) and one list of the members kept. Each step
    /// costs what the strict read of its focus costs: each object on the
    /// path walked to its end.
    ///
    /// ```
    /// use optics_core::json::{Duplicates, Strict};
    /// use optics_core::prelude::*;
    /// use serde::Deserialize;
    /// use std::collections::HashMap;
    ///
    /// #[derive(Optics, Deserialize)]
    /// struct Trace { frames: Vec<Frame>, tags: HashMap<String, u8> }
    /// #[derive(Optics, Deserialize)]
    /// struct Frame { module: String }
    ///
    /// let duplicates = Duplicates::new();
    /// let bytes = br#"{"frames":[{"module":"auth"},{"module":"http"}],"tags":{"a":1,"b":2,"a":3}}"#;
    /// let trace = Strict::<Trace>::validated(bytes, &duplicates).unwrap();
    /// let modules: Vec<&[u8]> = trace.iter(Trace::frames.then(each()).then(Frame::module)).map(|m| m.bytes()).collect();
    /// assert_eq!(modules, [&br#""auth""#[..], br#""http""#]);
    /// // serde_json keeps the last "a": so does a strict traversal.
    /// let tags: Vec<Option<u8>> = trace.read_each(Trace::tags.then(each())).collect();
    /// assert_eq!(tags, [Some(2), Some(3)]);
    /// assert!(!duplicates.met());
    ///
    /// let twice = br#"{"frames":[{"module":"auth"},{"module":"http","module":"x"}],"tags":{}}"#;
    /// let trace = Strict::<Trace>::validated(twice, &duplicates).unwrap();
    /// assert_eq!(trace.iter(Trace::frames.then(each()).then(Frame::module)).count(), 1);
    /// assert!(duplicates.met());
    /// ```
    #[inline]
    pub fn iter<O>(self, optic: O) -> StrictViews<'a, 'd, O>
    where
        O: JsonTraverse + StartsAt<T>,
    {
        StrictViews {
            watched: Watched::new(self, optic),
        }
    }

    /// Every focus of `optic`, decoded as [`Json::read_each`] decodes them,
    /// found as [`Strict::iter`] finds them: a duplicate key on the path to
    /// a focus is recorded and ends the traversal. Allocates what each
    /// leaf's `Deserialize` allocates, and over a map what
    /// [`Strict::iter`] does.
    #[inline]
    pub fn read_each<O>(self, optic: O) -> StrictReadEach<'a, 'd, O>
    where
        O: JsonTraverseDecode<'a> + StartsAt<T>,
    {
        StrictReadEach {
            watched: Watched::new(self, optic),
        }
    }
}
