//! Where a focus lies in a document, and how serde reads it there.
//!
//! serde_json reads most values itself, straight from the bytes. Some it
//! reads from serde's own buffer (its `Content`), which accepts more: the
//! payload of an internally tagged variant, a flattened field's value, the
//! content of an adjacently tagged enum written before its tag, and
//! everything inside those. And two kinds of focus are not one JSON value at
//! all: the payload of an internally tagged variant is the enum's object
//! without its tag (or the array after its tag), a flattened field's value is
//! the members of its struct's object that no other field takes. A [`Spot`]
//! says which of these a focus is, so that each step reads on as serde does.
//!
//! ```text
//! {"id":7,"type":"Incident","severity":"High"}     Outer { id, #[serde(flatten)] detail: Detail }
//!         '----------------------------------'     detail: Members { hidden: [id], flat }
//!                         '-----------------'      Detail::incident: Members { hidden: [id, type] }
//!                                    '------'      Incident::severity: Value { buffered }
//! ```
//!
//! A trusting read whose path goes on inside a value it found does not walk
//! to that value's end: the spot is *open*, its bytes start with the value
//! and run on to the end of what held it. The next step reads from the
//! start (a member, an element, an internally tagged enum's leading tag),
//! and the spot's bytes are found only if something asks for them
//! ([`Spot::bytes`] walks to the value's end then). So a path reads the
//! bytes up to its focus and no further. Strict reads (which compare spots
//! by their spans) never make one.

use super::super::layout::KeySet;
use super::super::scan::{self, skip_ws, Lookup, Reach};
use super::super::Found;

/// Where a focus lies, and how serde reads it there. Made by the byte
/// optics as they walk a path (see [`JsonOptic::locate_at`](super::JsonOptic::locate_at));
/// nothing is copied.
#[derive(Clone, Copy, Debug)]
pub struct Spot<'a> {
    /// The focus's bytes, or for an open spot the bytes from its start to
    /// the end of what held it.
    raw: &'a [u8],
    form: Form,
}

/// What a step found: a spot, a struct field the object does not have (serde
/// fills it in), or nothing.
#[derive(Clone, Copy, Debug)]
pub enum Located<'a> {
    /// The focus lies here.
    At(Spot<'a>),
    /// A struct field that the object does not have: serde fills it in (a
    /// default, or `None` for an `Option`), so a decode may still give a value.
    Absent,
    /// No focus: another variant, an index past the end, malformed bytes.
    Miss,
}

/// How serde reads a spot's bytes.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Form {
    /// The JSON value the bytes are, read by serde_json itself
    /// (`buffered: false`) or from serde's buffer. With `open`, the bytes
    /// start with the value and run on past it (see the module docs); only
    /// the spot's own methods see such bytes, [`Spot::bytes`] settles them.
    Value { buffered: bool, open: bool },
    /// The members of the object the bytes are, without those `hidden`
    /// names, as a map in serde's buffer: an internally tagged variant's
    /// payload (`flat: false`), or a flattened field's value (`flat: true`,
    /// read the way serde reads a flattened field).
    ///
    /// `resume`, when not 0, is where the `,` or `}` after the object's first
    /// member is, that member being a hidden tag already read: a lookup of
    /// the members may start there. The member's own checks were made by the
    /// read that found it (0 also where the offset does not fit in 32 bits:
    /// kept small, the spot is copied in registers, not by `memcpy`). With
    /// `open`, the bytes run on past the object (see the module docs).
    Members {
        hidden: Hidden,
        flat: bool,
        resume: u32,
        open: bool,
    },
    /// The elements of the array the bytes are, from element `skip` on, as a
    /// sequence in serde's buffer: an internally tagged variant's payload
    /// when the enum is written as an array (`["Variant", ...fields]`).
    Rest { skip: usize },
    /// The bytes of a field read `with` a function: they are what the
    /// function reads, not necessarily the JSON of the field's type, so only
    /// the field's own decoding reads them and no step finds anything in them.
    Opaque { buffered: bool },
}

/// Keys a [`Form::Members`] spot does not see: the tags and the flattened
/// structs' own keys on the way to it. A few levels at most; past
/// [`Hidden::CAPACITY`] the spot reads nothing (a miss, never a wrong member).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Hidden {
    entries: [HiddenKeys; Hidden::CAPACITY],
    /// How many entries are in use; more than `CAPACITY` once it overflowed.
    /// One byte, like `resume`'s four: a spot small enough to be copied in
    /// registers rather than by `memcpy` (see `Form::Members`).
    len: u8,
}

#[derive(Clone, Copy, Debug)]
enum HiddenKeys {
    Tag(&'static str),
    Set(&'static KeySet),
}

impl Hidden {
    /// Flatten and internal-tag levels one object can nest before reads miss.
    pub(crate) const CAPACITY: usize = 6;

    pub(crate) const NONE: Hidden = Hidden {
        entries: [HiddenKeys::Tag(""); Hidden::CAPACITY],
        len: 0,
    };

    /// `self` with one more level. Every entry is indexed by a constant
    /// here and in [`hides_any`](Self::hides_any), the loops unrolled: a
    /// lookup in a variant's payload (one level, its tag) then checks one
    /// entry in line instead of looping over a slice of them.
    #[inline(always)]
    fn with(mut self, keys: HiddenKeys) -> Self {
        let len = usize::from(self.len);
        for (i, entry) in self.entries.iter_mut().enumerate() {
            if i == len {
                *entry = keys;
            }
        }
        self.len = self.len.saturating_add(1);
        self
    }

    #[inline(always)]
    pub(crate) fn with_tag(self, tag: &'static str) -> Self {
        self.with(HiddenKeys::Tag(tag))
    }

    fn entries(&self) -> Option<&[HiddenKeys]> {
        self.entries.get(..usize::from(self.len))
    }

    /// Whether more levels were hidden than [`Hidden::CAPACITY`] holds.
    #[inline(always)]
    fn overflowed(&self) -> bool {
        usize::from(self.len) > Self::CAPACITY
    }

    /// Whether a key named `name` (unescaped) is hidden; `None` past capacity.
    pub(crate) fn hides(&self, name: &str) -> Option<bool> {
        self.hides_any(&[name])
    }

    /// Whether any of `names` is hidden; `None` past capacity. The common
    /// answer, no, lets a lookup use the names as they are.
    #[inline(always)]
    pub(crate) fn hides_any(&self, names: &[&str]) -> Option<bool> {
        if self.overflowed() {
            return None;
        }
        let len = usize::from(self.len);
        let mut hides = false;
        for (i, keys) in self.entries.iter().enumerate() {
            hides |= i < len
                && names.iter().any(|name| match keys {
                    HiddenKeys::Tag(tag) => tag == name,
                    HiddenKeys::Set(set) => set.contains(name),
                });
        }
        Some(hides)
    }

    /// Whether the key written `raw` (between its quotes) is hidden; `None`
    /// past capacity.
    pub(crate) fn hides_raw(&self, raw: &[u8]) -> Option<bool> {
        Some(self.entries()?.iter().any(|keys| match keys {
            HiddenKeys::Tag(tag) => {
                if raw.contains(&b'\\') {
                    scan::raw_eq(raw, tag.as_bytes())
                } else {
                    raw == tag.as_bytes()
                }
            }
            HiddenKeys::Set(set) => set.contains_raw(raw),
        }))
    }
}

/// The unit value's JSON, for the payload of a unit variant.
const NULL: &[u8] = b"null";

impl<'a> Spot<'a> {
    /// A whole document (whitespace around it allowed), read by serde_json
    /// itself.
    #[inline]
    pub fn document(bytes: &'a [u8]) -> Self {
        Spot::value(scan::trim(bytes), false)
    }

    /// The bytes the spot covers: the focus's own, or for a focus that is not
    /// one JSON value (see the module docs) the object or array it is read
    /// from.
    ///
    /// Cost: nothing, but for an open spot (see the module docs), whose value
    /// is skipped to find its end: O(n) in the value (none if it is not
    /// well formed).
    #[inline]
    pub fn bytes(&self) -> &'a [u8] {
        if self.is_open() {
            settle(self.raw)
        } else {
            self.raw
        }
    }

    /// Whether the spot is open (see the module docs).
    #[inline(always)]
    pub(crate) const fn is_open(&self) -> bool {
        matches!(
            self.form,
            Form::Value { open: true, .. } | Form::Members { open: true, .. }
        )
    }

    /// The bytes from the spot's start: its own, or an open spot's, which
    /// run on past it. For a read that looks at the start of the value
    /// alone (an internally tagged enum's leading tag). O(1).
    #[inline(always)]
    pub(crate) const fn start_bytes(&self) -> &'a [u8] {
        self.raw
    }

    /// This spot, to be read from again and again (an entered focus, see
    /// [`Json::enter`](crate::json::Json::enter)): an open spot whose bytes
    /// run on for [`SMALL_OBJECT`](scan::SMALL_OBJECT) bytes or more is
    /// settled once here, as its reads could not walk it open and would each
    /// settle it. `None` where such a spot is not well formed.
    #[inline]
    pub(crate) fn for_reads(self) -> Option<Self> {
        if !self.is_open() || self.raw.len() < scan::SMALL_OBJECT {
            return Some(self);
        }
        let settled = self.settled();
        (!settled.raw.is_empty()).then_some(settled)
    }

    /// The same spot, closed: an open one's bytes found (see
    /// [`bytes`](Self::bytes)).
    #[inline]
    pub(crate) fn settled(self) -> Self {
        match self.form {
            Form::Value {
                buffered,
                open: true,
            } => Spot::value(settle(self.raw), buffered),
            Form::Members {
                hidden,
                flat,
                resume,
                open: true,
            } => Spot {
                raw: settle(self.raw),
                form: Form::Members {
                    hidden,
                    flat,
                    resume,
                    open: false,
                },
            },
            _ => self,
        }
    }

    /// Whether this spot hides more flatten and internal-tag levels than
    /// it holds: every read in it misses (`SERDE_ATTRIBUTES.md`).
    pub(crate) fn hides_past_capacity(&self) -> bool {
        matches!(self.form, Form::Members { hidden, .. } if hidden.overflowed())
    }

    #[inline]
    pub(crate) const fn form(&self) -> Form {
        self.form
    }

    /// The value `bytes`, read directly or from serde's buffer.
    #[inline]
    pub(crate) const fn value(bytes: &'a [u8], buffered: bool) -> Self {
        Spot {
            raw: bytes,
            form: Form::Value {
                buffered,
                open: false,
            },
        }
    }

    /// An open spot (see the module docs): a value starting at `bytes`'s
    /// start, which run on past its end.
    #[inline]
    pub(crate) const fn open_value(bytes: &'a [u8], buffered: bool) -> Self {
        Spot {
            raw: bytes,
            form: Form::Value {
                buffered,
                open: true,
            },
        }
    }

    /// `null`, as the payload of a unit variant, read as the enum is.
    #[inline]
    pub(crate) const fn null(buffered: bool) -> Self {
        Spot::value(NULL, buffered)
    }

    /// The members of the object `bytes` without those `hidden` names.
    #[inline]
    pub(crate) const fn members(bytes: &'a [u8], hidden: Hidden, flat: bool) -> Self {
        Spot {
            raw: bytes,
            form: Form::Members {
                hidden,
                flat,
                resume: 0,
                open: false,
            },
        }
    }

    /// The members of the object `bytes`, an internally tagged variant's
    /// payload, whose first member is the tag (hidden), well formed and
    /// followed by the `,` or `}` at `delimiter`: lookups start there.
    /// `open`: the bytes run on past the object (see the module docs).
    #[inline]
    pub(crate) const fn members_after(
        bytes: &'a [u8],
        hidden: Hidden,
        delimiter: usize,
        open: bool,
    ) -> Self {
        Spot {
            raw: bytes,
            form: Form::Members {
                hidden,
                flat: false,
                resume: if delimiter <= u32::MAX as usize {
                    delimiter as u32
                } else {
                    0
                },
                open,
            },
        }
    }

    /// The elements of the array `bytes` from `skip` on.
    #[inline]
    pub(crate) const fn rest(bytes: &'a [u8], skip: usize) -> Self {
        Spot {
            raw: bytes,
            form: Form::Rest { skip },
        }
    }

    /// Whether serde reads this spot from its buffer.
    #[inline]
    pub(crate) const fn is_buffered(&self) -> bool {
        !matches!(
            self.form,
            Form::Value {
                buffered: false,
                ..
            } | Form::Opaque { buffered: false }
        )
    }

    /// The same bytes, for a field read `with` a function (see
    /// [`Form::Opaque`]).
    #[inline]
    pub(crate) fn opaque(self) -> Self {
        Spot {
            raw: self.bytes(),
            form: Form::Opaque {
                buffered: self.is_buffered(),
            },
        }
    }

    /// The struct field under `names` (or element `position` of an array
    /// form): `Absent` where a well-formed object (or array) has none. A
    /// field serde writes `late` in its struct is looked for, by a trusting
    /// read in a large object, from both ends ([`scan::object_field_late`]).
    #[inline(always)]
    pub(crate) fn member(
        self,
        names: &'static [&'static str],
        position: Option<usize>,
        late: bool,
    ) -> Located<'a> {
        self.member_reaching(names, position, false, late)
    }

    /// [`member`](Self::member), for a path that goes on inside the value
    /// found: a trusting read hands it out open (see the module docs).
    #[inline(always)]
    pub(crate) fn member_entered(
        self,
        names: &'static [&'static str],
        position: Option<usize>,
        late: bool,
    ) -> Located<'a> {
        // A strict read's spans must be exact (see `duplicates.rs`).
        self.member_reaching(names, position, !scan::duplicates::watching(), late)
    }

    /// [`member`](Self::member) from an open spot or into an open one
    /// (`enter`) where a trusting read of a small object can; every other
    /// lookup as before, on the spot settled.
    #[inline(always)]
    fn member_reaching(
        self,
        names: &'static [&'static str],
        position: Option<usize>,
        enter: bool,
        late: bool,
    ) -> Located<'a> {
        let open = self.is_open();
        if open || enter {
            if let Some((found, buffered)) =
                self.lookup_reaching(names, Reach { open, enter }, late)
            {
                return match found {
                    Lookup::Found(bytes) if enter => Located::At(Spot::open_value(bytes, buffered)),
                    found => lookup(found, buffered),
                };
            }
        }
        // Every other lookup reads the whole value: an open one is settled.
        let raw = self.bytes();
        match &self.form {
            Form::Value { buffered, .. } => match raw.first() {
                Some(b'{') if late => lookup(scan::object_field_late(raw, names), *buffered),
                Some(b'{') => lookup(scan::object_field(raw, names), *buffered),
                Some(b'[') => match position {
                    Some(position) => element_or_absent(raw, position, *buffered),
                    None => Located::Miss,
                },
                _ => Located::Miss,
            },
            Form::Members { hidden, resume, .. } => match hidden.hides_any(names) {
                Some(false) => lookup(scan::object_field_from(raw, names, *resume as usize), true),
                Some(true) => member_partly_hidden(raw, names, hidden),
                None => Located::Miss,
            },
            Form::Rest { skip } => match position {
                Some(position) => element_or_absent(raw, skip + position, true),
                None => Located::Miss,
            },
            Form::Opaque { .. } => Located::Miss,
        }
    }

    /// The lookup of [`member_reaching`](Self::member_reaching) that reads
    /// as far as `reach` says, and whether serde buffers what it finds;
    /// `None` where it does not apply.
    #[inline(always)]
    fn lookup_reaching(
        &self,
        names: &'static [&'static str],
        reach: Reach,
        late: bool,
    ) -> Option<(Lookup<'a>, bool)> {
        match &self.form {
            Form::Value { buffered, .. } if self.raw.first() == Some(&b'{') => {
                scan::object_field_reaching(self.raw, names, 0, reach, late).map(|l| (l, *buffered))
            }
            Form::Members { hidden, resume, .. } if hidden.hides_any(names) == Some(false) => {
                scan::object_field_reaching(self.raw, names, *resume as usize, reach, late)
                    .map(|l| (l, true))
            }
            _ => None,
        }
    }

    /// Element `i` of a tuple struct: `Absent` where a well-formed array is
    /// shorter (serde then takes the field's default, if it has one).
    #[inline]
    pub(crate) fn tuple_element(self, i: usize) -> Located<'a> {
        let this = self.settled();
        match this.form {
            Form::Value { buffered, .. } if this.raw.first() == Some(&b'[') => {
                element_or_absent(this.raw, i, buffered)
            }
            Form::Rest { skip } => element_or_absent(this.raw, skip + i, true),
            Form::Value { .. } | Form::Members { .. } | Form::Opaque { .. } => Located::Miss,
        }
    }

    /// Element `i` of a list: a miss past the end.
    #[inline]
    pub(crate) fn list_element(self, i: usize) -> Located<'a> {
        self.list_element_reaching(i, false)
    }

    /// [`list_element`](Self::list_element), for a path that goes on inside
    /// the element: a trusting read hands it out open (see the module docs).
    #[inline]
    pub(crate) fn list_element_entered(self, i: usize) -> Located<'a> {
        self.list_element_reaching(i, !scan::duplicates::watching())
    }

    /// Element `i` of a list, open with `enter`. The elements are read from
    /// the array's start, and nothing after the element, so an open spot
    /// needs no settling.
    #[inline(always)]
    fn list_element_reaching(self, i: usize, enter: bool) -> Located<'a> {
        let (index, buffered) = match self.form {
            Form::Value { buffered, .. } => (i, buffered),
            Form::Rest { skip } => (skip + i, true),
            Form::Members { .. } | Form::Opaque { .. } => return Located::Miss,
        };
        match scan::array_element_reaching(self.raw, index, enter) {
            Some(element) if enter => Located::At(Spot::open_value(element, buffered)),
            Some(element) => Located::At(Spot::value(element, buffered)),
            None => Located::Miss,
        }
    }

    /// A flattened field's value: the members of this object that `hidden`
    /// (and whatever this spot already hides) does not name.
    #[inline]
    pub(crate) fn flattened(self, hidden: &'static KeySet) -> Located<'a> {
        let this = self.settled();
        match this.form {
            Form::Value { .. } if this.raw.first() == Some(&b'{') => Located::At(Spot::members(
                this.raw,
                Hidden::NONE.with(HiddenKeys::Set(hidden)),
                true,
            )),
            Form::Members { hidden: outer, .. } => Located::At(Spot::members(
                this.raw,
                outer.with(HiddenKeys::Set(hidden)),
                true,
            )),
            Form::Value { .. } | Form::Rest { .. } | Form::Opaque { .. } => Located::Miss,
        }
    }

    /// The value inside an `Option`: a miss on `null`. serde reads any other
    /// value (and a buffered map or sequence) as `Some`.
    #[inline]
    pub(crate) fn some(self) -> Located<'a> {
        // An open spot's value is `null` only if its bytes start so; it is
        // settled only then.
        let is_null = |spot: &Self| {
            let bytes = if spot.is_open() && !spot.raw.starts_with(b"null") {
                spot.raw
            } else {
                spot.bytes()
            };
            bytes.is_empty() || scan::is_null(bytes)
        };
        match self.form {
            Form::Value { .. } if is_null(&self) => Located::Miss,
            Form::Opaque { .. } => Located::Miss,
            _ => Located::At(self),
        }
    }
}

/// An open spot's value, the bytes `raw` start with, found by skipping it;
/// empty where it is not well formed. Takes the bytes alone, so that a spot
/// need not stand in memory to be settled.
#[cold]
fn settle(raw: &[u8]) -> &[u8] {
    scan::skip_value(raw, 0)
        .and_then(|end| raw.get(..end))
        .unwrap_or_default()
}

/// [`Spot::member`] in members (`object`) of which `hidden` hides some of
/// `names`: looked up under the others.
#[cold]
fn member_partly_hidden<'a>(
    object: &'a [u8],
    names: &'static [&'static str],
    hidden: &Hidden,
) -> Located<'a> {
    let mut buffer = [""; VISIBLE];
    match visible(names, hidden, &mut buffer) {
        Some(names) => lookup(scan::object_field(object, names), true),
        None => Located::Miss,
    }
}

/// Element `index` of the array `array` (a closed spot's bytes): `Absent`
/// past the end of a well-formed one.
fn element_or_absent(array: &[u8], index: usize, buffered: bool) -> Located<'_> {
    match scan::array_element(array, index) {
        Some(element) => Located::At(Spot::value(element, buffered)),
        // Shorter, or malformed: only a well-formed array is short.
        None if scan::skip_value(array, 0) == Some(array.len()) => Located::Absent,
        None => Located::Miss,
    }
}

/// How many names (a key and its aliases) a hidden-aware lookup handles.
const VISIBLE: usize = 8;

/// `names` without those `hidden` hides; `None` if that cannot be told (too
/// many names, or too many hidden levels).
fn visible<'n>(
    names: &'static [&'static str],
    hidden: &Hidden,
    buffer: &'n mut [&'static str; VISIBLE],
) -> Option<&'n [&'static str]> {
    let mut len = 0;
    for name in names {
        if !hidden.hides(name)? {
            *buffer.get_mut(len)? = name;
            len += 1;
        }
    }
    buffer.get(..len)
}

#[inline]
fn lookup(found: Lookup<'_>, buffered: bool) -> Located<'_> {
    match found {
        Lookup::Found(bytes) => Located::At(Spot::value(bytes, buffered)),
        Lookup::Missing => Located::Absent,
        Lookup::Malformed => Located::Miss,
    }
}

impl<'a> Located<'a> {
    /// What the public [`Found`] says of it: the spot's bytes.
    #[inline]
    pub fn found(self) -> Found<'a> {
        match self {
            Located::At(spot) => Found::At(spot.bytes()),
            Located::Absent => Found::Absent,
            Located::Miss => Found::Miss,
        }
    }

    /// A spot for what `found` says, read by serde_json directly.
    #[inline]
    pub fn direct(found: Found<'a>) -> Self {
        match found {
            Found::At(bytes) => Located::At(Spot::value(bytes, false)),
            Found::Absent => Located::Absent,
            Found::Miss => Located::Miss,
        }
    }
}

/// The members of an object in order, keys raw (between their quotes,
/// escapes as written) and values trimmed; an `Err` where the object is
/// malformed, after which it yields nothing. Walks with the scanner's
/// non-strict skips; nothing is allocated.
pub(crate) struct MemberIter<'a> {
    bytes: &'a [u8],
    pos: usize,
    state: Walk,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Walk {
    First,
    Next,
    Done,
}

/// One member: its raw key and its value; `Err` where the object is malformed.
pub(crate) type Member<'a> = Result<(&'a [u8], &'a [u8]), ()>;

impl<'a> MemberIter<'a> {
    /// The members of the object `bytes` (whitespace around it allowed).
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        let open = skip_ws(bytes, 0);
        let state = if bytes.get(open) == Some(&b'{') {
            Walk::First
        } else {
            Walk::Done
        };
        MemberIter {
            bytes,
            pos: open + 1,
            state,
        }
    }

    /// Whether the object was walked to its closing brace and nothing but
    /// whitespace follows: call after the iterator is exhausted.
    pub(crate) fn ended_well(&self) -> bool {
        self.state == Walk::Done && self.pos == usize::MAX
    }

    fn fail(&mut self) -> Option<Member<'a>> {
        self.state = Walk::Done;
        self.pos = 0;
        Some(Err(()))
    }

    fn close(&mut self, at: usize) -> Option<Member<'a>> {
        self.state = Walk::Done;
        if skip_ws(self.bytes, at + 1) == self.bytes.len() {
            self.pos = usize::MAX;
            None
        } else {
            self.fail()
        }
    }
}

impl<'a> Iterator for MemberIter<'a> {
    type Item = Member<'a>;

    fn next(&mut self) -> Option<Self::Item> {
        let bytes = self.bytes;
        let mut pos = skip_ws(bytes, self.pos);
        match self.state {
            Walk::Done => return None,
            Walk::First if bytes.get(pos) == Some(&b'}') => return self.close(pos),
            Walk::First => {}
            Walk::Next => match bytes.get(pos) {
                Some(b',') => pos = skip_ws(bytes, pos + 1),
                Some(b'}') => return self.close(pos),
                _ => return self.fail(),
            },
        }
        if bytes.get(pos) != Some(&b'"') {
            return self.fail();
        }
        let Some(key_end) = scan::skip_value(bytes, pos) else {
            return self.fail();
        };
        let Some(raw) = scan::string_raw(&bytes[pos..key_end]) else {
            return self.fail();
        };
        let colon = skip_ws(bytes, key_end);
        if bytes.get(colon) != Some(&b':') {
            return self.fail();
        }
        let start = skip_ws(bytes, colon + 1);
        let Some(end) = scan::skip_value(bytes, start) else {
            return self.fail();
        };
        self.pos = end;
        self.state = Walk::Next;
        Some(Ok((raw, &bytes[start..end])))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn members(bytes: &[u8]) -> (Vec<(String, String)>, bool) {
        let mut iter = MemberIter::new(bytes);
        let mut out = Vec::new();
        for member in iter.by_ref() {
            match member {
                Ok((key, value)) => out.push((
                    String::from_utf8_lossy(key).into_owned(),
                    String::from_utf8_lossy(value).into_owned(),
                )),
                Err(()) => return (out, false),
            }
        }
        (out, iter.ended_well())
    }

    #[test]
    fn members_are_walked_in_order() {
        let pair = |k: &str, v: &str| (k.to_owned(), v.to_owned());
        assert_eq!(members(b" { } "), (vec![], true));
        assert_eq!(
            members(br#"{"a" : 1 ,"b\"":[1,{}], "c":"x"}"#),
            (
                vec![
                    pair("a", "1"),
                    pair(r#"b\""#, "[1,{}]"),
                    pair("c", r#""x""#)
                ],
                true
            )
        );
        assert!(!members(br#"{"a":1,}"#).1);
        assert!(!members(br#"{"a":1"#).1);
        assert!(!members(br#"{"a" 1}"#).1);
        assert!(!members(br#"{"a":1} x"#).1);
        assert!(!members(b"[1]").1);
    }

    #[test]
    fn hidden_keys_are_left_out_of_lookups() {
        const SET: KeySet = KeySet {
            keys: &["id"],
            nested: &[],
        };
        let doc = br#"{"id":1,"type":"A","x":2}"#;
        let flat = match Spot::document(doc).flattened(&SET) {
            Located::At(spot) => spot,
            other => panic!("{other:?}"),
        };
        assert!(matches!(flat.member(&["id"], None, false), Located::Absent));
        assert!(
            matches!(flat.member(&["x"], None, false), Located::At(spot) if spot.bytes() == b"2")
        );
        let Form::Members { hidden, .. } = flat.form() else {
            panic!()
        };
        let payload = Spot::members(doc, hidden.with_tag("type"), false);
        assert!(matches!(
            payload.member(&["type", "id"], None, false),
            Located::Absent
        ));
        assert_eq!(hidden.with_tag("type").hides_raw(br"t\u0079pe"), Some(true));
        let mut deep = Hidden::NONE;
        for _ in 0..=Hidden::CAPACITY {
            deep = deep.with_tag("t");
        }
        assert_eq!(deep.hides("t"), None);
        assert!(matches!(
            Spot::members(doc, deep, false).member(&["x"], None, false),
            Located::Miss
        ));
    }

    #[test]
    fn hides_any_checks_the_levels_in_use() {
        const TAGS: [&str; Hidden::CAPACITY + 2] = ["a", "b", "c", "d", "e", "f", "g", "h"];
        let mut hidden = Hidden::NONE;
        for levels in 0..=TAGS.len() {
            for names in [&["a"][..], &["x", "c"], &["f"], &["g"], &["h", "a"], &[]] {
                let naive = (levels <= Hidden::CAPACITY)
                    .then(|| names.iter().any(|name| TAGS[..levels].contains(name)));
                assert_eq!(hidden.hides_any(names), naive, "{levels} {names:?}");
            }
            if let Some(&tag) = TAGS.get(levels) {
                hidden = hidden.with_tag(tag);
            }
        }
    }

    #[test]
    fn array_forms_read_by_position() {
        let doc = Spot::document(b"[1, \"a\"]");
        assert!(
            matches!(doc.member(&["b"], Some(1), false), Located::At(spot) if spot.bytes() == b"\"a\"")
        );
        assert!(matches!(
            doc.member(&["c"], Some(2), false),
            Located::Absent
        ));
        assert!(matches!(doc.member(&["c"], None, false), Located::Miss));
        assert!(matches!(
            Spot::document(b"[1, \"a\"").member(&["c"], Some(2), false),
            Located::Miss
        ));
        let rest = Spot::rest(b"[\"T\",5]", 1);
        assert!(
            matches!(rest.member(&["a"], Some(0), false), Located::At(spot) if spot.bytes() == b"5")
        );
    }
}
