//! The reads a byte optic makes: an object's member, an array's element, the
//! text of a string, `null`. Each skips what it does not want (see
//! [`skip`](super::skip)) and borrows its result from the input.

use super::block_walk::FieldScan;
use super::duplicates;
use super::member_walk::{
    members_find, members_find_from, members_find_reaching, Members, Reach, Step,
};
use super::simd;
use super::skip::skip_value_at;
use super::validate::strict_string;
use super::whitespace::{skip_ws, trim};

/// Outcome of looking a key up in an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup<'a> {
    /// The member's value, trimmed of surrounding whitespace (starts at its first
    /// byte, ends after its last).
    Found(&'a [u8]),
    /// The bytes are an object that was scanned to its closing brace without
    /// meeting the key.
    Missing,
    /// Not an object, or malformed where the scan looked. An object under
    /// 1 KiB is walked member by member, so for `Missing` any malformed member
    /// is seen; a larger one is walked by its structure (strings and brackets,
    /// 64 bytes at a time), whose skipped members are not checked: it is
    /// `Missing` once its brackets close with nothing but whitespace after,
    /// and the key's own member is checked when it is found. Strict mode
    /// ([`validate`](super::validate)) checks everything.
    Malformed,
}

/// A [`Lookup`] as two words, so that a walk hands it back in registers:
/// the found value's start and end in the object, or `from > to` for the
/// other outcomes. A `Lookup` of 24 bytes goes back through memory, and its
/// reader's wide load of the slice then waits for the two stores that wrote
/// it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Span {
    from: usize,
    to: usize,
}

impl Span {
    pub(super) const MISSING: Span = Span { from: 1, to: 0 };
    pub(super) const MALFORMED: Span = Span { from: 2, to: 0 };
    /// No outcome at all (a strict record that could not be made, see
    /// `walked.rs`); [`Span::lookup`] would read it as malformed.
    pub(super) const NONE: Span = Span { from: 3, to: 0 };

    /// The value at `from..to` (`from <= to`).
    #[inline(always)]
    pub(super) const fn found(from: usize, to: usize) -> Span {
        Span { from, to }
    }

    /// The lookup it stands for in `obj`, the object it was found in.
    #[inline(always)]
    pub(super) fn lookup(self, obj: &[u8]) -> Lookup<'_> {
        if self.from <= self.to {
            // A span always lies in its object; were it not, nothing is read.
            obj.get(self.from..self.to)
                .map_or(Lookup::Malformed, Lookup::Found)
        } else if self == Span::MISSING {
            Lookup::Missing
        } else {
            Lookup::Malformed
        }
    }
}

/// Finds the first member whose key equals any of `keys`, and returns its value.
///
/// Keys are compared escape-aware (`"det\u0061il"` equals `detail`), with a plain
/// byte comparison for keys without a backslash. Whitespace around `obj` is
/// allowed; bytes after the found member's `,` or `}` are not looked at.
///
/// Cost: O(n) in the bytes up to the end of the found value (the whole object for
/// `Missing`); every other value is skipped, nothing is allocated.
///
/// ```
/// use optics_core::json::scan::{object_field, Lookup};
///
/// let obj = br#"{"id":7,"tags":["a"],"det\u0061il":{"code":3}}"#;
/// assert_eq!(object_field(obj, &["detail"]), Lookup::Found(br#"{"code":3}"#));
/// assert_eq!(object_field(obj, &["name", "id"]), Lookup::Found(b"7"));
/// assert_eq!(object_field(obj, &["name"]), Lookup::Missing);
/// assert_eq!(object_field(b"[1]", &["id"]), Lookup::Malformed);
/// ```
#[inline]
pub fn object_field<'a>(obj: &'a [u8], keys: &[&str]) -> Lookup<'a> {
    if duplicates::watching() {
        return duplicates::object_field_once(obj, keys);
    }
    if obj.len() < SMALL_OBJECT {
        return members_find(obj, keys, false);
    }
    // Absence is confirmed by the same structural walk, to the object's
    // closing brace: a missing key costs what a present key at the
    // object's end does from the front.
    FieldScan::run_on(obj, keys)
}

/// [`object_field`] for a key serde writes late in its struct (in the
/// second half of its fields), where it is nearer the object's end: an
/// object of 1 KiB or more is read from both ends in turns (its first
/// block, then 16 blocks of 64 bytes from its end, 8 from its front, each
/// turn after twice as long), until one end meets the key (the walk from
/// the end reads the blocks backward, with the same masks and checks).
/// Where neither meets it in its first turn, the bytes between are searched
/// for the key's text first: where no string there could spell it (a
/// quote, then the key as written or a backslash before the text differs
/// from it), it is missing, and nothing more is read. Where a key
/// stands once, as serde writes a struct, the same value as
/// [`object_field`]; a key given twice is read at whichever end meets one
/// first. The walk from the end needs the object's last byte to be its `}`
/// and its brackets to balance on the way, and leaves the rest to the
/// front's walk otherwise; a break in the bytes it does not read is not
/// seen (as for [`object_field`], what is skipped is not checked). A
/// smaller object, or a strict read, is looked up as [`object_field`] does.
///
/// Cost: O(n) in the bytes from the key to the nearer end, a few times
/// that at most (the turns overshoot, and the end's are twice the
/// front's); a key missing, the first turns and a search of the bytes
/// between (three compares a block, about a third of the walk's cost)
/// where no string there spells it, and every byte walked once where one
/// does; nothing is allocated.
///
/// ```
/// use optics_core::json::scan::{object_field_late, Lookup};
///
/// let filler = "x".repeat(2000);
/// let obj = format!(r#"{{"a":"{filler}","b":[1,{{"c":2}}],"late":{{"c":3}},"z":"{filler}"}}"#);
/// assert_eq!(object_field_late(obj.as_bytes(), &["late"]), Lookup::Found(br#"{"c":3}"#));
/// assert!(matches!(object_field_late(obj.as_bytes(), &["a"]), Lookup::Found(v) if v.len() == 2002));
/// // `c` is a nested key: its text is met between the turns, and walked past
/// assert_eq!(object_field_late(obj.as_bytes(), &["c"]), Lookup::Missing);
/// // `d` is spelled nowhere: the search of the text says so
/// assert_eq!(object_field_late(obj.as_bytes(), &["d"]), Lookup::Missing);
/// ```
#[inline]
pub fn object_field_late<'a>(obj: &'a [u8], keys: &[&str]) -> Lookup<'a> {
    if duplicates::watching() || obj.len() < SMALL_OBJECT {
        return object_field(obj, keys);
    }
    FieldScan::run_late_with(obj, keys, simd::KernelChoice::Best, false)
}

/// Asks the CPU for the bytes [`object_field_late`] reads first in `obj`:
/// the cache line of its first byte and its last 512 bytes, nine or ten
/// lines. A hint: it
/// reads nothing, changes nothing and cannot fail.
///
/// For a caller that looks up a late field in one message after another,
/// each written by another core just before (the filter's judges): asked
/// for the next message while one is judged, those bytes come in while the
/// core works, where the lookup would otherwise wait for them (in
/// `benches/cross_core.rs`, the trusting judge from another core's cache
/// took 0.86× the time). A lookup asks for the same bytes itself as it
/// starts, which is too late to hide the wait.
///
/// Cost: about ten prefetch instructions; nothing on CPUs other than x86_64.
///
/// ```
/// use optics_core::json::scan::{object_field_late, prefetch_late, Lookup};
///
/// let messages: [&[u8]; 3] = [br#"{"id":1,"late":2}"#, br#"{"late":3}"#, b""];
/// let mut found = Vec::new();
/// for (i, message) in messages.iter().enumerate() {
///     if let Some(next) = messages.get(i + 1) {
///         prefetch_late(next); // an empty one asks for nothing
///     }
///     found.push(object_field_late(message, &["late"]));
/// }
/// assert_eq!(found, [Lookup::Found(b"2"), Lookup::Found(b"3"), Lookup::Malformed]);
/// ```
#[inline]
pub fn prefetch_late(obj: &[u8]) {
    simd::prefetch_at(obj, 0);
    simd::prefetch_span(
        obj,
        obj.len().saturating_sub(simd::PREFETCH_AHEAD),
        obj.len(),
    );
}

/// [`object_field`] in an object whose members before `resume` (the `,` or
/// `}` after a member already read and checked, which is not sought; 0 for
/// none) need not be walked again. Only the member walk of a small object
/// uses it; the other walks start at the object's start.
///
/// Cost: O(n) in the bytes from `resume` to the end of the found value.
#[inline]
pub(crate) fn object_field_from<'a>(obj: &'a [u8], keys: &[&str], resume: usize) -> Lookup<'a> {
    if resume == 0 || duplicates::watching() || obj.len() >= SMALL_OBJECT {
        return object_field(obj, keys);
    }
    members_find_from(obj, keys, resume)
}

/// [`object_field_from`] as far as `reach` says, for a trusting read whose
/// path goes on inside the value it finds: with `reach.enter` the value is
/// handed out from its start to the end of `obj`, not walked; with
/// `reach.open` `obj` may run on past the object's closing brace. `None`
/// where that does not apply, and the caller looks up as usual: for open
/// bytes of [`SMALL_OBJECT`] or more (a larger object's members are found
/// by the block walk, which wants the object's end). Never called while a
/// strict read watches: its spans must be exact (see `duplicates.rs`), so
/// it makes no open spot.
///
/// Cost: the members before the one found are walked, each value skipped
/// (a large object's by the block walk); nothing after the key found (or
/// the closing brace) is read.
#[inline(always)]
pub(crate) fn object_field_reaching<'a>(
    obj: &'a [u8],
    keys: &[&str],
    resume: usize,
    reach: Reach,
    late: bool,
) -> Option<Lookup<'a>> {
    if obj.len() < SMALL_OBJECT {
        return Some(members_find_reaching(obj, keys, resume, reach));
    }
    object_field_reaching_any(obj, keys, resume, reach, late)
}

/// [`object_field_reaching`] as a call of its own, taken for an object of
/// [`SMALL_OBJECT`] bytes or more (its small-object arm kept, so that the
/// large lookups compile as they did): a small object's lookup is then the
/// member walk's call alone where it is inlined.
#[inline]
fn object_field_reaching_any<'a>(
    obj: &'a [u8],
    keys: &[&str],
    resume: usize,
    reach: Reach,
    late: bool,
) -> Option<Lookup<'a>> {
    if obj.len() < SMALL_OBJECT {
        return Some(members_find_reaching(obj, keys, resume, reach));
    }
    match reach {
        Reach {
            open: false,
            enter: true,
        } if late => Some(FieldScan::run_late_with(
            obj,
            keys,
            simd::KernelChoice::Best,
            true,
        )),
        Reach {
            open: false,
            enter: true,
        } => Some(FieldScan::run_entering(obj, keys)),
        _ => None,
    }
}

/// Finds the last member with key `key`: serde_json's map semantics, where a
/// repeated key overwrites the earlier one.
///
/// Cost: O(n) in the whole object, which must be scanned to its closing brace
/// (only whitespace may follow it); nothing is allocated.
///
/// ```
/// use optics_core::json::scan::{object_last, Lookup};
///
/// assert_eq!(object_last(br#"{"a":1,"b":2,"a":3}"#, "a"), Lookup::Found(b"3"));
/// assert_eq!(object_last(br#"{"a":1,"b":2,"a":3"#, "a"), Lookup::Malformed);
/// ```
pub fn object_last<'a>(obj: &'a [u8], key: &str) -> Lookup<'a> {
    members_find(obj, &[key], true)
}

/// Below this many bytes an object is walked member by member: the block
/// walk's fixed cost does not pay for itself on a few members (measured with
/// callgrind on the demo's details, about 500 bytes each).
pub(crate) const SMALL_OBJECT: usize = 1024;

/// Element `index` of an array, trimmed; `None` if `arr` is not an array, is too
/// short, or is malformed before the element's end.
///
/// Cost: O(n) in the bytes up to the end of the element; the elements before it
/// are skipped, nothing is allocated.
///
/// ```
/// use optics_core::json::scan::array_element;
///
/// assert_eq!(array_element(b" [1, {\"a\":[2]} ,3] ", 1), Some(&b"{\"a\":[2]}"[..]));
/// assert_eq!(array_element(b"[1,2,3]", 3), None);
/// ```
pub fn array_element(arr: &[u8], index: usize) -> Option<&[u8]> {
    array_element_reaching(arr, index, false)
}

/// [`array_element`], or with `enter` the element from its start to the end
/// of `arr`, not walked: for a trusting read whose path goes on inside it.
/// Nothing after the element's end (with `enter`, its start) is read, so
/// `arr` may run on past the array.
#[inline]
pub(crate) fn array_element_reaching(arr: &[u8], index: usize, enter: bool) -> Option<&[u8]> {
    let mut pos = skip_ws(arr, 0);
    if arr.get(pos) != Some(&b'[') {
        return None;
    }
    pos = skip_ws(arr, pos + 1);
    if arr.get(pos) == Some(&b']') {
        return None;
    }
    for i in 0.. {
        let start = pos;
        if enter && i == index {
            return arr.get(start..);
        }
        let end = skip_value_at(arr, start)?;
        pos = skip_ws(arr, end);
        let delimiter = *arr.get(pos)?;
        if delimiter != b',' && delimiter != b']' {
            return None;
        }
        if i == index {
            return arr.get(start..end);
        }
        if delimiter == b']' {
            return None;
        }
        pos = skip_ws(arr, pos + 1);
    }
    None
}

/// The raw key (between the quotes, escapes left as they are) and the trimmed
/// value of an object's only member; `None` unless the object has exactly one
/// member (serde's externally tagged enum form, `{"Variant":{...}}`).
///
/// Cost: O(n) in the whole object; nothing is allocated.
///
/// ```
/// use optics_core::json::scan::first_member;
///
/// let (key, value) = first_member(br#"{"Bug": {"module":"auth"}}"#).unwrap();
/// assert_eq!((key, value), (&b"Bug"[..], &br#"{"module":"auth"}"#[..]));
/// assert_eq!(first_member(br#"{"a":1,"b":2}"#), None);
/// ```
pub fn first_member(obj: &[u8]) -> Option<(&[u8], &[u8])> {
    let mut members = Members::open(obj)?;
    let Step::Member(first) = members.next_member() else {
        return None;
    };
    matches!(members.next_member(), Step::End).then_some((first.key(), first.value()))
}

/// The raw contents between the quotes of a JSON string value (escapes left as
/// they are); `None` unless the trimmed `value` is exactly one well-formed string
/// (valid escapes, no control characters, valid UTF-8).
///
/// Cost: O(n) in the string, 16 bytes at a time; nothing is allocated.
///
/// ```
/// use optics_core::json::scan::string_raw;
///
/// assert_eq!(string_raw(br#" "a\"b" "#), Some(&br#"a\"b"#[..]));
/// assert_eq!(string_raw(br#""a" "b""#), None);
/// ```
pub fn string_raw(value: &[u8]) -> Option<&[u8]> {
    let value = trim(value);
    if value.first() != Some(&b'"') {
        return None;
    }
    match strict_string(value, 0) {
        Ok(end) if end == value.len() => value.get(1..end - 1),
        _ => None,
    }
}

/// Whether the trimmed value is exactly `null`.
///
/// Cost: O(n) in the surrounding whitespace; nothing is allocated.
///
/// ```
/// use optics_core::json::scan::is_null;
///
/// assert!(is_null(b" null\n"));
/// assert!(!is_null(b"nul"));
/// ```
pub fn is_null(value: &[u8]) -> bool {
    trim(value) == b"null"
}
