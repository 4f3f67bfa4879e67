//! Strict reads: each key on the path a read takes must stand once in its
//! object. serde_json rejects a struct whose field is given twice ("duplicate
//! field"); other parsers take the last, so a message with a repeated key
//! could be read one way by the filter and another by the service behind it.
//!
//! A strict read ([`Strict`](crate::json::Strict)) runs the optic's own
//! locate under a *watch* (a per-thread flag, so that the optics' code is
//! the same in both modes), and while it is on:
//!
//! - every object lookup walks its object to the end, and a key sought (or
//!   any of its aliases) met twice is a duplicate;
//! - an object whose first member an internally tagged enum's quick tag
//!   check read as its tag, without a lookup, is marked; the next lookup in
//!   it also counts that first key met again as a duplicate, and an object
//!   still marked when the read ends (the read went on in its payload
//!   without a lookup: a map's members, an externally tagged enum, a unit
//!   variant, the payload itself as the focus) has its first key checked
//!   then;
//! - after the focus is found, a focus that no lookup handed out and that is
//!   the value of its object's first member (a tag read by the quick check)
//!   has that key checked.
//!
//! An object's first key met again where no tag was read from it is off the
//! path like any other key: `{"junk":"a","id":1,"junk":"b"}` reads `id`
//! (serde_json reads it too, ignoring `junk`).
//!
//! A duplicate makes the lookup malformed, so the read returns nothing, and
//! the watch records it for the caller. Code of the user's that a lookup
//! or a traversal calls (a map key type's `is_key` and `read_key`) runs
//! with the watch off
//! ([`unwatched`]): a read it makes is its own. Keys off the path are not looked at,
//! and a map (`key(k)`) keeps serde_json's last-wins reading.
//!
//! Cost, while watching: each object on the path is walked to its end
//! (instead of to its key), plus one walk of the focus's object for its first
//! key. A small object read through a view made by validating is walked
//! once: later lookups in it compare the keys the walk recorded
//! (`walked.rs`). Trusting reads pay one thread-local load per object lookup.

use core::cell::Cell;

use super::block_walk::FieldScan;
use super::member_walk::{members_find_once, Members, Step};
use super::navigate::{Lookup, SMALL_OBJECT};
use super::simd::KernelChoice;
use super::skip::skip_value_at;
use super::validate::{validate_scalar, SyntaxError};
use super::validate_blocks::{is_valid_watching, KeyStarts, KeyWatch};
use super::walked;
use super::whitespace::{skip_ws, trim};

/// The watch of the strict read running on this thread, if any: one cell
/// a field, so that each read or write touches its field alone (a whole
/// struct stored and soon read back as one makes the CPU wait for the
/// stores).
struct Watch {
    /// A strict read is running.
    on: Cell<bool>,
    /// Where it met a duplicate key: the address of the repeated key's
    /// opening quote; 0 before it met one.
    met: Cell<usize>,
    /// The last value an object lookup handed out: its address and length;
    /// [`NONE_HANDED_OUT`] before any (no slice starts at address 0).
    last: Cell<(usize, usize)>,
    /// The validation the read's view comes from (0 for none): its small
    /// objects are walked once (see `walked.rs`).
    validation: Cell<u64>,
    /// An object whose first member an internally tagged enum's quick check
    /// read as its tag, with no lookup in it since: its address (that of its
    /// `{`) and length; [`NO_OBJECT`] for none. Objects are told apart by
    /// their address alone: an open spot's bytes run past the object's end.
    tag_read: Cell<(usize, usize)>,
    /// A strict traversal over a map visits every member, not only those
    /// serde keeps: set while a strict write checks the paths it writes
    /// through (see [`every_member`]). Not touched by [`watch`].
    every_member: Cell<bool>,
}

/// [`Watch::last`] before a lookup has handed a value out.
const NONE_HANDED_OUT: (usize, usize) = (0, 0);

/// [`Watch::tag_read`] where no object waits for its first key's check.
const NO_OBJECT: (usize, usize) = (0, 0);

thread_local! {
    static WATCH: Watch = const {
        Watch {
            on: Cell::new(false),
            met: Cell::new(0),
            last: Cell::new(NONE_HANDED_OUT),
            validation: Cell::new(0),
            tag_read: Cell::new(NO_OBJECT),
            every_member: Cell::new(false),
        }
    };
}

/// Whether a strict read is running on this thread: one thread-local load.
#[inline(always)]
pub(crate) fn watching() -> bool {
    WATCH.with(|watch| watch.on.get())
}

/// Runs `walk` with strict traversals over maps visiting every member,
/// those serde drops for a later one with the same key included: a byte
/// write writes each of them, so a strict write checks the path into each.
pub(crate) fn every_member<R>(walk: impl FnOnce() -> R) -> R {
    /// The flag as it was, put back however the walk ends.
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            WATCH.with(|watch| watch.every_member.set(self.0));
        }
    }
    let _restore = Restore(WATCH.with(|watch| watch.every_member.replace(true)));
    walk()
}

/// Runs `code` (the user's code, called from a lookup: a map key type's
/// `is_key`) with no watch on, as if no strict read were running: a read
/// it makes reads as it would on its own, trusting or strict, and leaves
/// the running watch (its flag, the values it noted, its "every member"
/// mode) as it was, however it ends. Trusting reads pay one thread-local
/// load.
#[inline]
pub(crate) fn unwatched<R>(code: impl FnOnce() -> R) -> R {
    if !watching() {
        return code();
    }
    /// The watch that was on, put back however `code` ends.
    struct Restore {
        met: usize,
        last: (usize, usize),
        validation: u64,
        tag_read: (usize, usize),
        every_member: bool,
    }
    impl Drop for Restore {
        fn drop(&mut self) {
            WATCH.with(|watch| {
                watch.on.set(true);
                watch.met.set(self.met);
                watch.last.set(self.last);
                watch.validation.set(self.validation);
                watch.tag_read.set(self.tag_read);
                watch.every_member.set(self.every_member);
            });
        }
    }
    let _restore = WATCH.with(|watch| {
        watch.on.set(false);
        Restore {
            met: watch.met.replace(0),
            last: watch.last.replace(NONE_HANDED_OUT),
            validation: watch.validation.replace(0),
            tag_read: watch.tag_read.replace(NO_OBJECT),
            every_member: watch.every_member.replace(false),
        }
    });
    code()
}

/// Whether strict traversals over maps visit every member (see
/// [`every_member`]).
pub(crate) fn visits_every_member() -> bool {
    WATCH.with(|watch| watch.every_member.get())
}

/// Records a duplicate key, the one whose opening quote is at `quote` (the
/// first one met is kept); the lookup that met it is malformed.
#[cold]
pub(crate) fn met<'a>(quote: *const u8) -> Lookup<'a> {
    WATCH.with(|watch| {
        if watch.met.get() == 0 {
            watch.met.set((quote as usize).max(1));
        }
    });
    Lookup::Malformed
}

/// The address and length of `bytes`, to compare views by position.
fn span(bytes: &[u8]) -> (usize, usize) {
    (bytes.as_ptr() as usize, bytes.len())
}

/// The first key of the object `obj` when it could be an internally tagged
/// enum's tag as the quick check reads it (written plainly, no backslash,
/// with a string value), and where its opening quote is.
fn first_plain_key(obj: &[u8]) -> Option<(&str, usize)> {
    let mut members = Members::open(obj)?;
    let Step::Member(first) = members.next_member() else {
        return None;
    };
    Some((first.tag_like_key()?, first.key_open()))
}

/// `object_field` while watching: the first member whose key is any of
/// `keys`, with the object walked to its end to confirm that no key sought
/// stands twice, nor its first key where the object's tag was read quickly
/// (see [`tag_read_quickly`]).
pub(super) fn object_field_once<'a>(obj: &'a [u8], keys: &[&str]) -> Lookup<'a> {
    let open = obj.as_ptr() as usize + skip_ws(obj, 0);
    let (validation, tag_read) = WATCH.with(|watch| {
        // This walk checks the object's first key: a tag read there
        // quickly needs no check of its own.
        let tag_read = watch.tag_read.get().0 == open;
        if tag_read {
            watch.tag_read.set(NO_OBJECT);
        }
        (watch.validation.get(), tag_read)
    });
    lookup_once(obj, keys, validation, tag_read)
}

/// The strict lookup of `keys` in `obj` for [`object_field_once`], with the
/// object's first key, where written plainly with a string value, checked
/// too if `first_too`. Inlined into both callers: an outcome returned
/// through a call is copied through memory.
#[inline(always)]
fn lookup_once<'a>(obj: &'a [u8], keys: &[&str], validation: u64, first_too: bool) -> Lookup<'a> {
    // Each way hands its outcome out itself: one outcome merged from three
    // would be copied through memory first.
    if obj.len() < SMALL_OBJECT {
        if validation != 0 {
            if let Some(found) = walked::find_once(validation, obj, keys, first_too) {
                return handed_out(found);
            }
        }
        return handed_out(members_find_once(obj, keys, first_too));
    }
    let first = if first_too {
        first_plain_key(obj)
    } else {
        None
    };
    handed_out(FieldScan::run_with(
        obj,
        keys,
        KernelChoice::Best,
        Some(first),
    ))
}

/// Notes, while watching, that an internally or adjacently tagged enum's
/// quick check read the first member of `object` (its bytes from its `{`)
/// as its tag, without a lookup: that key must
/// stand once. A later lookup in `object` checks it (it walks the object and
/// checks its first key); where the read makes none, [`watch`] checks it
/// after the read. One object waits at a time: another one met while it
/// waits is checked at once. Trusting reads pay one thread-local load.
#[inline(always)]
pub(crate) fn tag_read_quickly(object: &[u8]) {
    if watching() {
        note_tag_read(object);
    }
}

/// [`tag_read_quickly`] while watching.
fn note_tag_read(object: &[u8]) {
    let waiting = WATCH.with(|watch| {
        let waiting = watch.tag_read.get();
        if waiting == NO_OBJECT {
            watch.tag_read.set(span(object));
        }
        waiting
    });
    if waiting != NO_OBJECT && waiting.0 != object.as_ptr() as usize {
        check_first_key(object);
    }
}

/// Notes, while watching, `value` as the last one handed out, where a step
/// that makes no lookup hands it out itself: a traversal's element, which
/// is no tag that the watch should look for the object around.
pub(crate) fn hand_out(value: &[u8]) {
    WATCH.with(|watch| watch.last.set(span(value)));
}

/// Notes, while watching, the value a lookup found as the last one handed
/// out (see [`watch`]), and passes the outcome on.
fn handed_out(found: Lookup<'_>) -> Lookup<'_> {
    if let Lookup::Found(value) = found {
        WATCH.with(|watch| watch.last.set(span(value)));
    }
    found
}

/// Validates the document `bytes` and, in the same pass over its blocks,
/// looks `keys` up in its root object as [`object_field_once`] would (the
/// validator hands the root object's keys that could be one watched to a
/// [`RootKeys`]). `Ok(None)` if the document does not start with `{`, or if
/// the keys are not of the kind the pass watches (see [`RootKeys::new`]):
/// nothing was validated, the caller validates and looks up as usual. Run
/// while watching, like every strict lookup.
///
/// Cost: the validation, one or two more compares a 64-byte block, a few
/// key compares a document, and a skip of the value found; the object is
/// not classified or walked again (but where a key written with an escape
/// may be one watched: then it is looked up again by [`object_field_once`]).
pub(crate) fn validate_and_find<'a>(
    bytes: &'a [u8],
    keys: &[&str],
) -> Result<Option<Lookup<'a>>, SyntaxError> {
    validate_and_find_with(bytes, keys, KernelChoice::Best)
}

/// [`validate_and_find`] with the kernel `choice` names (tests check each).
pub(super) fn validate_and_find_with<'a>(
    bytes: &'a [u8],
    keys: &[&str],
    choice: KernelChoice,
) -> Result<Option<Lookup<'a>>, SyntaxError> {
    let Some(mut watch) = RootKeys::new(bytes, keys) else {
        return Ok(None);
    };
    if !is_valid_watching(bytes, choice, &mut watch) {
        // The byte walk names the error (the two agree on every verdict).
        validate_scalar(bytes)?;
        return Ok(None);
    }
    Ok(Some(handed_out(watch.outcome())))
}

/// The strict lookup of a root member, from the keys of the root object
/// the validator hands over ([`KeyWatch`]). In valid JSON a key is written
/// as its own bytes between quotes, or with an escape in it; so a key that
/// may be one watched starts as that key does (its first two bytes, or
/// its first alone where several keys are watched: see [`KeyStarts`]), or
/// with a backslash in their place, and those are the keys the validator
/// marks and hands over (a few a document). Each is compared as written: a
/// key sought met twice is a duplicate; a key holding an escape that is not
/// one watched as written leaves the lookup unsure, and the object is then
/// looked up again the usual way. The lookup runs as a watch starts, before
/// any tag is read in the root: its first key is off the path like the
/// others (see [`tag_read_quickly`]).
///
/// ```text
/// {"id":7,"detal":1,"x":{"detail":0},"d\u0065tail":{},"detail":{"code":1}}
///          ^              ^           ^                ^
///          compared       nested:     an escape:       the member
///          (not it)       passed      unsure           (if not unsure)
/// ```
struct RootKeys<'a, 'k> {
    bytes: &'a [u8],
    keys: &'k [&'k str],
    /// How the keys watched start.
    starts: KeyStarts,
    /// Where the key sought that was met ends (after its closing quote).
    found: Option<usize>,
    /// A watched key met twice (recorded).
    duplicate: bool,
    /// A key written with an escape was met: it may be one watched.
    unsure: bool,
}

impl<'a, 'k> RootKeys<'a, 'k> {
    /// The lookup of `keys` in the root object of `bytes`; `None` if the
    /// document does not start with `{`, or if a key watched is empty,
    /// holds a byte that JSON writes escaped (a quote, a backslash, a
    /// control character), or the keys watched start with more than two
    /// distinct bytes.
    fn new(bytes: &'a [u8], keys: &'k [&'k str]) -> Option<Self> {
        if bytes.get(skip_ws(bytes, 0)) != Some(&b'{') {
            return None;
        }
        if keys
            .iter()
            .any(|key| key.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20))
        {
            return None;
        }
        // `None` too for an empty key.
        let starts = KeyStarts::of(keys.iter().map(|key| key.as_bytes()))?;
        Some(RootKeys {
            bytes,
            keys,
            starts,
            found: None,
            duplicate: false,
            unsure: false,
        })
    }

    /// The outcome, once the validator has accepted the document.
    fn outcome(self) -> Lookup<'a> {
        if self.duplicate {
            return Lookup::Malformed;
        }
        if self.unsure {
            return object_field_once(self.bytes, self.keys);
        }
        let Some(after) = self.found else {
            return Lookup::Missing;
        };
        // A valid document: the key's `:`, then its value.
        let bytes = self.bytes;
        let from = skip_ws(bytes, skip_ws(bytes, after) + 1);
        match skip_value_at(bytes, from) {
            Some(to) => Lookup::Found(&bytes[from..to]),
            None => Lookup::Malformed,
        }
    }
}

/// Whether `rest` starts with `key`, then a quote.
#[inline(always)]
fn plain_at(rest: &[u8], key: &str) -> bool {
    let key = key.as_bytes();
    rest.get(..key.len()) == Some(key) && rest.get(key.len()) == Some(&b'"')
}

impl KeyWatch for RootKeys<'_, '_> {
    const ON: bool = true;

    #[inline(always)]
    fn starts(&self) -> KeyStarts {
        self.starts
    }

    fn root_key(&mut self, at: usize) {
        if self.duplicate {
            return;
        }
        let rest = &self.bytes[at..];
        if let Some(key) = self.keys.iter().find(|key| plain_at(rest, key)) {
            if self.found.is_some() {
                self.duplicate = true;
                met(rest.as_ptr().wrapping_sub(1));
            } else {
                self.found = Some(at + key.len() + 1);
            }
            return;
        }
        // A backslash before the closing quote: an escape, which may spell
        // a key watched.
        if rest.iter().find(|&&b| b == b'"' || b == b'\\') != Some(&b'"') {
            self.unsure = true;
        }
    }
}

/// Checks, while watching, that the first key of the object `obj` stands
/// once (records a duplicate if not): where an internally tagged enum's
/// tag leads its object, the quick check reads it without a lookup.
fn check_first_key(obj: &[u8]) {
    let open = obj.as_ptr() as usize + skip_ws(obj, 0);
    let validation = WATCH.with(|watch| {
        // Checked here: the object waits no more.
        if watch.tag_read.get().0 == open {
            watch.tag_read.set(NO_OBJECT);
        }
        watch.validation.get()
    });
    let _ = lookup_once(obj, &[], validation, true);
}

/// The object whose member's value is exactly `focus`, searched from
/// `container` down through the values that hold `focus`, and whether that
/// member is the object's first; `None` if `focus` is an array's element or
/// not inside `container`.
fn object_around<'a>(container: &'a [u8], focus: &[u8]) -> Option<(&'a [u8], bool)> {
    let (at, len) = span(focus);
    let holds = |from: usize, to: usize, base: &[u8]| {
        let start = base.as_ptr() as usize;
        start + from <= at && at + len <= start + to
    };
    let mut current = trim(container);
    loop {
        match current.first()? {
            b'{' => {
                let mut members = Members::open(current)?;
                let mut first = true;
                let value = loop {
                    match members.next_member() {
                        Step::Member(member) => {
                            let (from, to) = member.value_span();
                            if holds(from, to, current) {
                                break &current[from..to];
                            }
                            first = false;
                        }
                        Step::End | Step::Malformed => return None,
                    }
                };
                if span(value) == span(focus) {
                    return Some((current, first));
                }
                current = value;
            }
            b'[' => {
                let mut pos = skip_ws(current, 1);
                let element = loop {
                    let end = skip_value_at(current, pos)?;
                    if holds(pos, end, current) {
                        break &current[pos..end];
                    }
                    pos = skip_ws(current, end);
                    if current.get(pos) != Some(&b',') {
                        return None;
                    }
                    pos = skip_ws(current, pos + 1);
                };
                if span(element) == span(focus) {
                    return None;
                }
                current = element;
            }
            _ => return None,
        }
    }
}

/// Runs `locate` (an optic's locate over `root`) as a strict read: object
/// lookups confirm their keys stand once, then the focus is checked (see the
/// module docs). `validation` is the number of the validation the view's
/// bytes come from (0 for none; see `walked.rs`). Returns what `locate` found and where a duplicate key was
/// met: the address of its opening quote, 0 for none. Nothing is allocated.
pub(crate) fn watch<'a, F>(root: &'a [u8], validation: u64, locate: F) -> (Option<&'a [u8]>, usize)
where
    F: FnOnce() -> Option<&'a [u8]>,
{
    /// The watch that was on, field by field, put back however the read
    /// ends.
    struct Restore {
        on: bool,
        met: usize,
        last: (usize, usize),
        validation: u64,
        tag_read: (usize, usize),
    }
    impl Drop for Restore {
        fn drop(&mut self) {
            WATCH.with(|watch| {
                watch.on.set(self.on);
                watch.met.set(self.met);
                watch.last.set(self.last);
                watch.validation.set(self.validation);
                watch.tag_read.set(self.tag_read);
            });
        }
    }
    let _restore = WATCH.with(|watch| Restore {
        on: watch.on.replace(true),
        met: watch.met.replace(0),
        last: watch.last.replace(NONE_HANDED_OUT),
        validation: watch.validation.replace(validation),
        tag_read: watch.tag_read.replace(NO_OBJECT),
    });
    let found = locate();
    if let Some(focus) = found {
        let last = WATCH.with(|watch| watch.last.get());
        if last != span(focus) {
            // The focus came from a step that makes no lookup: if it is the
            // value of its object's first member (a tag read by the quick
            // check), that key must stand once. The object is searched from
            // the last value a lookup handed out.
            let from = match last {
                NONE_HANDED_OUT => root,
                (at, len) => {
                    let start = at.wrapping_sub(root.as_ptr() as usize);
                    root.get(start..start.saturating_add(len)).unwrap_or(root)
                }
            };
            if let Some((object, true)) = object_around(from, focus) {
                check_first_key(object);
            }
        }
    }
    let (met, tag_read) = WATCH.with(|watch| (watch.met.get(), watch.tag_read.get()));
    if tag_read == NO_OBJECT {
        return (found, met);
    }
    // An object whose tag was read quickly and that no lookup walked since
    // (whether or not the read found its focus: the tag was read).
    let (at, len) = tag_read;
    let start = at.wrapping_sub(root.as_ptr() as usize);
    if let Some(object) = root.get(start..start.saturating_add(len)) {
        check_first_key(object);
    }
    (found, WATCH.with(|watch| watch.met.get()))
}
