//! An object walked member by member: each key is compared, each value skipped
//! (not parsed), and every member passed is checked to be well formed. What
//! small objects and a missing key's confirmation use.

use super::duplicates;
use super::escapes::raw_eq;
use super::navigate::{Lookup, Span};
use super::simd;
use super::skip::{skip_value_at, string_close};
use super::whitespace::skip_ws;

/// The first (or, with `last`, the last) member whose key is any of `keys`,
/// walking member by member and skipping each value: every member before it
/// (every member, for `last` or a missing key) is checked to be well formed.
///
/// What [`Members`] does, as one loop over positions: no walk state is kept
/// between members (a `,` leads to a key, a `}` to the end), and a key is
/// sliced and compared only once its member is known to be well formed. The
/// unit test `members_find_walks_as_members_do` holds it to [`Members`].
#[inline]
pub(super) fn members_find<'a>(obj: &'a [u8], keys: &[&str], last: bool) -> Lookup<'a> {
    members_find_span(obj, keys, last, 0, Reach::EXACT).lookup(obj)
}

/// [`members_find`] of the first member, from `resume`: where the `,` or `}`
/// after the object's first member is, when that member was read and checked
/// already and is not sought (0: from the object's start).
#[inline]
pub(super) fn members_find_from<'a>(obj: &'a [u8], keys: &[&str], resume: usize) -> Lookup<'a> {
    members_find_span(obj, keys, false, resume, Reach::EXACT).lookup(obj)
}

/// How far a trusting member walk looks, for a path that goes on inside
/// the value it finds (see `Spot`'s open spots): the bytes after what it
/// needs are left unread.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Reach {
    /// The object may run on past its closing brace (the bytes are an open
    /// spot's): a walk that reaches the brace does not look past it.
    pub(crate) open: bool,
    /// The member found is entered, not skipped: its value is handed out
    /// from where it starts to the end of the object's bytes.
    pub(crate) enter: bool,
}

impl Reach {
    /// The object is exactly the bytes, and the value found is skipped to
    /// its end: every lookup but a trusting path's inner steps.
    pub(crate) const EXACT: Reach = Reach {
        open: false,
        enter: false,
    };
}

/// [`members_find_from`] as far as `reach` says: the first member under
/// `keys`, from `resume`.
///
/// Cost: the members before the one found are walked; with `reach.enter`
/// the one found is not, and with `reach.open` nothing after the closing
/// brace is looked at.
#[inline(always)]
pub(crate) fn members_find_reaching<'a>(
    obj: &'a [u8],
    keys: &[&str],
    resume: usize,
    reach: Reach,
) -> Lookup<'a> {
    members_find_span(obj, keys, false, resume, reach).lookup(obj)
}

/// The walk behind [`members_find`] and [`members_find_from`], its outcome
/// as two words (handed back in registers, made a [`Lookup`] by the caller).
/// Inlined: where the caller's `keys`, `last` and `reach` are known, only
/// the call of one walk is left.
#[inline(always)]
fn members_find_span(obj: &[u8], keys: &[&str], last: bool, resume: usize, reach: Reach) -> Span {
    match (keys, last) {
        // One key sought, its first member: nearly every lookup of a field
        // (a field without aliases). A walk of its own keeps fewer values
        // live than the general one; it is compiled twice, entering the
        // member found or not, so that neither tests which as it walks.
        ([key], false) if reach.enter => {
            members_find_key::<true>(obj, key.as_bytes(), resume, reach.open)
        }
        ([key], false) => members_find_key::<false>(obj, key.as_bytes(), resume, reach.open),
        _ => members_find_any(obj, keys, last, resume, reach),
    }
}

/// [`members_find_span`] of one key's first member, entering it or not
/// (`ENTER`); all its arguments in registers.
#[inline(never)]
fn members_find_key<const ENTER: bool>(obj: &[u8], key: &[u8], resume: usize, open: bool) -> Span {
    let reach = Reach { open, enter: ENTER };
    members_find_with(obj, OneKey(key), false, resume, reach)
}

/// [`members_find_span`] of any of `keys` (a key and its aliases), or of a
/// key's last member.
#[inline(never)]
fn members_find_any(obj: &[u8], keys: &[&str], last: bool, resume: usize, reach: Reach) -> Span {
    members_find_with(obj, AnyKey(keys), last, resume, reach)
}

/// Which raw keys a member walk looks for.
trait Sought {
    /// Whether the raw key at `span` in `obj` (`escaped` if it holds a
    /// backslash) is one sought.
    fn is(&self, obj: &[u8], span: (usize, usize), escaped: bool) -> bool;
}

/// One key.
struct OneKey<'k>(&'k [u8]);

impl Sought for OneKey<'_> {
    /// [`key_eq`], the lengths compared before the key is sliced: most keys
    /// a walk passes differ in length.
    #[inline(always)]
    fn is(&self, obj: &[u8], (start, end): (usize, usize), escaped: bool) -> bool {
        let key = self.0;
        let len = end.wrapping_sub(start);
        if len == key.len() {
            !escaped && obj.get(start..end).is_some_and(|raw| same_bytes(raw, key))
        } else {
            escaped && len > key.len() && obj.get(start..end).is_some_and(|raw| raw_eq(raw, key))
        }
    }
}

/// Any of some keys (a key and its aliases).
struct AnyKey<'k>(&'k [&'k str]);

impl Sought for AnyKey<'_> {
    #[inline(always)]
    fn is(&self, obj: &[u8], (start, end): (usize, usize), escaped: bool) -> bool {
        let raw = obj.get(start..end).unwrap_or_default();
        self.0
            .iter()
            .any(|sought| key_eq(raw, escaped, sought.as_bytes()))
    }
}

/// [`members_find_span`] for keys that `sought` recognizes.
#[inline(always)]
fn members_find_with(
    obj: &[u8],
    sought: impl Sought,
    last: bool,
    resume: usize,
    reach: Reach,
) -> Span {
    let mut found = Span::MISSING;
    let walked = walk_members(
        obj,
        resume,
        reach.open,
        #[inline(always)]
        |key, escaped| reach.enter && sought.is(obj, key, escaped),
        #[inline(always)]
        |member| {
            // Entering, a key sought stopped the walk before its value: the
            // members handed over are none of them, and not compared again.
            if reach.enter {
                return true;
            }
            if sought.is(obj, member.key, member.key_escaped) {
                let (value_start, value_end) = member.value;
                found = Span::found(value_start, value_end);
                // The first match ends the walk; the last is looked for to
                // the end.
                return last;
            }
            true
        },
    );
    match walked {
        Walked::Ended | Walked::Stopped => found,
        Walked::Entered(value_start) => Span::found(value_start, obj.len()),
        Walked::Malformed => Span::MALFORMED,
    }
}

/// Hands every member of the object `obj` (whitespace around it allowed) to
/// `visit`, in order: what [`Members`] yields, as one loop over positions.
/// `false` if the object is not well formed (after the members before the
/// flaw were handed over), or if `visit` stopped the walk by returning
/// `false`.
///
/// Cost: O(n) in the object, each value skipped; nothing is allocated.
#[inline(always)]
pub(super) fn each_member<'a>(obj: &'a [u8], mut visit: impl FnMut(Member<'a>) -> bool) -> bool {
    let walked = walk_members(
        obj,
        0,
        false,
        |_, _| false,
        |parsed| {
            visit(Member {
                bytes: obj,
                key: parsed.key,
                value: parsed.value,
                key_escaped: parsed.key_escaped,
            })
        },
    );
    walked == Walked::Ended
}

/// How [`walk_members`] ended.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Walked {
    /// At the closing brace, with nothing but whitespace after it.
    Ended,
    /// Its visitor stopped it.
    Stopped,
    /// It stopped at a member to enter, whose value starts here.
    Entered(usize),
    Malformed,
}

/// The one member walk: each member of the object `obj` parsed and handed
/// to `visit` (which returns whether to go on), from the object's start, or
/// from `resume` when that is not 0: the `,` or `}` after the object's first
/// member, read and checked already and not to be visited.
///
/// A member whose raw key (and whether it holds a backslash) `enter`
/// accepts stops the walk before its value is skipped. With `open`, the
/// object may run on past its closing brace: the walk ends there.
#[inline(always)]
fn walk_members(
    obj: &[u8],
    resume: usize,
    open: bool,
    enter: impl Fn((usize, usize), bool) -> bool,
    mut visit: impl FnMut(&Parsed) -> bool,
) -> Walked {
    let mut pos = match obj.get(resume) {
        // After a member's `,`: a key follows (compact JSON: right there).
        Some(b',') if resume > 0 => {
            let pos = match obj.get(resume + 1) {
                Some(b'"') => resume + 1,
                _ => skip_ws(obj, resume + 1),
            };
            if obj.get(pos) == Some(&b'}') {
                // `,` then `}`: no member after a separator.
                return Walked::Malformed;
            }
            pos
        }
        // After the last member: the object ends.
        Some(b'}') if resume > 0 => resume,
        // Compact JSON: the first key's quote right after the `{`.
        Some(b'{') if resume == 0 && obj.get(1) == Some(&b'"') => 1,
        _ => {
            let open = skip_ws(obj, 0);
            if obj.get(open) != Some(&b'{') {
                return Walked::Malformed;
            }
            skip_ws(obj, open + 1)
        }
    };
    if obj.get(pos) != Some(&b'}') {
        loop {
            if obj.get(pos) != Some(&b'"') {
                return Walked::Malformed;
            }
            let Some(key) = parse_key(obj, pos) else {
                return Walked::Malformed;
            };
            if enter(key.key, key.key_escaped) {
                return Walked::Entered(key.value_start);
            }
            let Some(member) = parse_value(obj, key) else {
                return Walked::Malformed;
            };
            if !visit(&member) {
                return Walked::Stopped;
            }
            pos = member.delimiter;
            if member.closed {
                break;
            }
            // Compact JSON: the next key's quote right after the `,`.
            pos = match obj.get(pos + 1) {
                Some(b'"') => pos + 1,
                _ => skip_ws(obj, pos + 1),
            };
        }
    }
    // `pos` is at the closing brace: only whitespace may follow it, unless
    // the bytes run on past the object.
    if open || skip_ws(obj, pos + 1) == obj.len() {
        Walked::Ended
    } else {
        Walked::Malformed
    }
}

/// [`members_find`] in strict mode: every member is walked; a key sought met
/// twice is a duplicate (reported, and malformed), and so is the object's
/// first key met again if `first_too` (where an internally tagged enum's
/// quick check read it as the tag: see `duplicates.rs`). The first key
/// counts when written plainly (no backslash, its text UTF-8) with a string
/// value. It is taken from the walk's own first member, with no parse of its
/// own.
pub(super) fn members_find_once<'a>(obj: &'a [u8], keys: &[&str], first_too: bool) -> Lookup<'a> {
    let Some(mut members) = Members::open(obj) else {
        return Lookup::Malformed;
    };
    let mut found = None;
    // The first key's text, if it counts.
    let mut first: Option<&[u8]> = None;
    let mut at_first = true;
    loop {
        match members.next_member() {
            Step::Member(member) => {
                let key = member.key();
                if keys
                    .iter()
                    .any(|sought| key_eq(key, member.key_escaped, sought.as_bytes()))
                {
                    if found.is_some() {
                        return duplicates::met(key.as_ptr().wrapping_sub(1));
                    }
                    found = Some(member.value());
                } else if let Some(first_key) = first {
                    if key_eq(key, member.key_escaped, first_key) {
                        return duplicates::met(key.as_ptr().wrapping_sub(1));
                    }
                }
                if at_first {
                    at_first = false;
                    if first_too {
                        first = member.tag_like_key().map(str::as_bytes);
                    }
                }
            }
            Step::End => return found.map_or(Lookup::Missing, Lookup::Found),
            Step::Malformed => return Lookup::Malformed,
        }
    }
}

/// Escape-aware equality of a raw key (`escaped` if it holds a backslash)
/// with a key sought. A raw key holding a backslash is always longer than the
/// text it stands for (an escape takes more bytes than the UTF-8 of the
/// character it stands for), so the lengths decide which comparison can
/// succeed.
#[inline(always)]
pub(super) fn key_eq(raw: &[u8], escaped: bool, key: &[u8]) -> bool {
    if raw.len() == key.len() {
        !escaped && same_bytes(raw, key)
    } else {
        escaped && raw.len() > key.len() && raw_eq(raw, key)
    }
}

/// One `"key": value` of an object, as positions in the object's bytes (slicing
/// waits until a key's length matches or a value is wanted).
pub(super) struct Member<'a> {
    bytes: &'a [u8],
    /// The key lies between the quotes at `key.0 - 1` and `key.1`, escapes left
    /// as they are.
    key: (usize, usize),
    /// The trimmed value.
    value: (usize, usize),
    /// Whether the raw key holds a backslash.
    key_escaped: bool,
}

impl<'a> Member<'a> {
    /// Where the key's opening quote is.
    pub(super) fn key_open(&self) -> usize {
        self.key.0 - 1
    }

    /// Where the value starts and ends.
    pub(super) fn value_span(&self) -> (usize, usize) {
        self.value
    }

    /// Where the raw key starts and ends (between its quotes).
    pub(super) fn key_span(&self) -> (usize, usize) {
        self.key
    }

    /// Whether the raw key holds a backslash.
    pub(super) fn key_escaped(&self) -> bool {
        self.key_escaped
    }

    /// The key's text if the member looks like an internally tagged enum's
    /// tag as serde writes it: the key written plainly (no backslash, UTF-8)
    /// with a string value. Strict reads watch such a first key where a tag
    /// was read from it (see `duplicates.rs`).
    #[inline]
    pub(super) fn tag_like_key(&self) -> Option<&'a str> {
        let key = self.key();
        if self.key_escaped || self.value().first() != Some(&b'"') {
            return None;
        }
        simd::ascii_str(key).or_else(|| core::str::from_utf8(key).ok())
    }

    pub(super) fn key(&self) -> &'a [u8] {
        self.bytes.get(self.key.0..self.key.1).unwrap_or_default()
    }

    pub(super) fn value(&self) -> &'a [u8] {
        self.bytes
            .get(self.value.0..self.value.1)
            .unwrap_or_default()
    }
}

/// `a == b`, inlined for short keys: most keys differ in length, and those that
/// do not are compared a word at a time (two overlapping loads cover any
/// length) instead of through a `memcmp` call.
#[inline(always)]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let len = a.len();
    let word = |s: &[u8], at: usize| {
        s.get(at..at + 8)
            .map(|w| u64::from_le_bytes(w.try_into().unwrap_or_default()))
    };
    let half = |s: &[u8], at: usize| {
        s.get(at..at + 4)
            .map(|w| u32::from_le_bytes(w.try_into().unwrap_or_default()))
    };
    match len {
        0 => true,
        1..4 => a[0] == b[0] && a[len / 2] == b[len / 2] && a[len - 1] == b[len - 1],
        4..8 => half(a, 0) == half(b, 0) && half(a, len - 4) == half(b, len - 4),
        _ => {
            // overlapping words: 0, 8, ..., and the last 8 bytes
            let mut at = 0;
            while at + 8 < len {
                if word(a, at) != word(b, at) {
                    return false;
                }
                at += 8;
            }
            word(a, len - 8) == word(b, len - 8)
        }
    }
}

/// One member as [`parse_member`] found it: positions only.
struct Parsed {
    /// The raw key, between its quotes.
    key: (usize, usize),
    key_escaped: bool,
    /// The value, trimmed.
    value: (usize, usize),
    /// Where the `,` or `}` after the value is.
    delimiter: usize,
    /// Whether that is the `}`.
    closed: bool,
}

/// The member whose key's opening quote is at `quote`: `"key" : value`
/// followed by `,` or `}`, whitespace allowed between; the value skipped,
/// not parsed. `None` if it is not well formed. The one parse of a member,
/// shared by [`members_find`] and [`Members`].
#[inline(always)]
fn parse_member(bytes: &[u8], quote: usize) -> Option<Parsed> {
    parse_value(bytes, parse_key(bytes, quote)?)
}

/// A member's key and colon, read up to where its value starts.
#[derive(Clone, Copy)]
struct ParsedKey {
    /// The raw key, between its quotes.
    key: (usize, usize),
    key_escaped: bool,
    /// Where the value starts, after the colon and any whitespace.
    value_start: usize,
}

/// The first half of [`parse_member`]: `"key" :` from the opening quote at
/// `quote`.
#[inline(always)]
fn parse_key(bytes: &[u8], quote: usize) -> Option<ParsedKey> {
    let key_start = quote + 1;
    let (key_end, key_escaped) = string_close(bytes, key_start)?;
    // Compact JSON: the colon right after the key's closing quote.
    let after_colon = match bytes.get(key_end + 1) {
        Some(b':') => key_end + 2,
        _ => {
            let colon = skip_ws(bytes, key_end + 1);
            if bytes.get(colon) != Some(&b':') {
                return None;
            }
            colon + 1
        }
    };
    Some(ParsedKey {
        key: (key_start, key_end),
        key_escaped,
        value_start: skip_ws(bytes, after_colon),
    })
}

/// The second half of [`parse_member`]: the value skipped, and the `,` or
/// `}` after it.
#[inline(always)]
fn parse_value(bytes: &[u8], key: ParsedKey) -> Option<Parsed> {
    let ParsedKey {
        key: (key_start, key_end),
        key_escaped,
        value_start,
    } = key;
    let value_end = skip_value_at(bytes, value_start)?;
    // Compact JSON: the `,` or `}` right after the value.
    let (delimiter, closed) = match bytes.get(value_end) {
        Some(b',') => (value_end, false),
        Some(b'}') => (value_end, true),
        _ => {
            let delimiter = skip_ws(bytes, value_end);
            match bytes.get(delimiter) {
                Some(b',') => (delimiter, false),
                Some(b'}') => (delimiter, true),
                _ => return None,
            }
        }
    };
    Some(Parsed {
        key: (key_start, key_end),
        key_escaped,
        value: (value_start, value_end),
        delimiter,
        closed,
    })
}

/// What [`Members::next_member`] met.
pub(super) enum Step<'a> {
    /// A member, followed by its `,` or `}`.
    Member(Member<'a>),
    /// The closing brace, followed by nothing but whitespace.
    End,
    Malformed,
}

/// Where the member walk stands.
#[derive(Clone, Copy, PartialEq, Eq)]
enum MemberState {
    /// Just after `{`: a key or `}` comes next.
    Opened,
    /// Just after `,`: a key comes next.
    Separated,
    /// Just after `}`: only whitespace may follow.
    Closed,
}

/// Walks an object member by member; each value is skipped, not parsed.
pub(super) struct Members<'a> {
    bytes: &'a [u8],
    pos: usize,
    state: MemberState,
}

impl<'a> Members<'a> {
    /// Starts after the `{` of `bytes`, which may have whitespace before it.
    pub(super) fn open(bytes: &'a [u8]) -> Option<Self> {
        let pos = skip_ws(bytes, 0);
        (bytes.get(pos) == Some(&b'{')).then_some(Members {
            bytes,
            pos: pos + 1,
            state: MemberState::Opened,
        })
    }

    #[inline(always)]
    pub(super) fn next_member(&mut self) -> Step<'a> {
        let bytes = self.bytes;
        let pos = skip_ws(bytes, self.pos);
        if bytes.get(pos) != Some(&b'"') || self.state == MemberState::Closed {
            return self.no_key(pos);
        }
        let Some(parsed) = parse_member(bytes, pos) else {
            return Step::Malformed;
        };
        self.state = match parsed.closed {
            true => MemberState::Closed,
            false => MemberState::Separated,
        };
        self.pos = parsed.delimiter + 1;
        Step::Member(Member {
            bytes,
            key: parsed.key,
            value: parsed.value,
            key_escaped: parsed.key_escaped,
        })
    }

    /// The walk met something other than a key at `pos` (the first byte that is
    /// not whitespace): the end of the object, or a malformed one.
    #[cold]
    fn no_key(&mut self, pos: usize) -> Step<'a> {
        let bytes = self.bytes;
        match (self.state, bytes.get(pos)) {
            (MemberState::Closed, None) => Step::End,
            (MemberState::Opened, Some(b'}')) => {
                self.state = MemberState::Closed;
                self.pos = pos + 1;
                self.no_key(skip_ws(bytes, pos + 1))
            }
            _ => Step::Malformed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::enum_tag::edit::edit_one_byte;
    use proptest::prelude::*;

    /// [`members_find`] as it was written on [`Members`]: the plain walk.
    fn members_find_plain<'a>(obj: &'a [u8], keys: &[&str], last: bool) -> Lookup<'a> {
        let Some(mut members) = Members::open(obj) else {
            return Lookup::Malformed;
        };
        let mut found = None;
        loop {
            match members.next_member() {
                Step::Member(member) => {
                    if keys
                        .iter()
                        .any(|key| key_eq(member.key(), member.key_escaped, key.as_bytes()))
                    {
                        if !last {
                            return Lookup::Found(member.value());
                        }
                        found = Some(member.value());
                    }
                }
                Step::End => return found.map_or(Lookup::Missing, Lookup::Found),
                Step::Malformed => return Lookup::Malformed,
            }
        }
    }

    const DOCS: &[&str] = &[
        r#"{"type":"Bug","component":"a b","reproducible":true,"trace":{"frames":[{"module":"Auth"}]}}"#,
        r#" { "a" : 1 , "b\"" : [1,{}] ,"a":"x\\" , "c" : null } "#,
        r#"{"t\u0079pe":"Incident","type":2,"impact":{"service":{"tier":"Critical"}}}"#,
        "{}",
        " {\t}\n",
        r#"{"a":{"b":[1,2,{"c":"]}"}]},"b":-1.5e3,"c":false}"#,
    ];

    const KEYS: &[&[&str]] = &[
        &["type"],
        &["a"],
        &["b\""],
        &["b"],
        &["c", "trace"],
        &["impact", "zzz"],
        &[],
    ];

    fn agree(bytes: &[u8]) -> Result<(), TestCaseError> {
        let text = String::from_utf8_lossy(bytes);
        // From after the first member, as an internally tagged variant's
        // payload is read: the same as from the start wherever that member
        // is well formed and not sought.
        let mut members = Members::open(bytes);
        let first = match members.as_mut().map(Members::next_member) {
            Some(Step::Member(first)) => Some(first),
            _ => None,
        };
        let resume = members.map_or(0, |m| m.pos).saturating_sub(1);
        if first.is_some() {
            let delimiter = bytes[resume];
            prop_assert!(delimiter == b',' || delimiter == b'}', "{}", delimiter);
        }
        let sought_first = |keys: &[&str]| {
            first.as_ref().is_some_and(|first| {
                keys.iter()
                    .any(|key| key_eq(first.key(), first.key_escaped, key.as_bytes()))
            })
        };
        for keys in KEYS {
            let mut walks = vec![
                (members_find(bytes, keys, false), false, 0),
                (members_find(bytes, keys, true), true, 0),
            ];
            if first.is_some() && !sought_first(keys) {
                walks.push((members_find_from(bytes, keys, resume), false, resume));
            }
            for (found, last, from) in walks {
                prop_assert_eq!(
                    found,
                    members_find_plain(bytes, keys, last),
                    "{:?} {:?} last {} from {}",
                    text,
                    keys,
                    last,
                    from
                );
            }
        }
        Ok(())
    }

    /// [`each_member`] hands over what [`Members`] yields, and fails where
    /// it meets a flaw.
    fn each_agrees(bytes: &[u8]) -> Result<(), TestCaseError> {
        let spans = |m: &Member<'_>| (m.key_span(), m.value_span(), m.key_escaped());
        let mut walked = Vec::new();
        let ok = each_member(bytes, |member| {
            walked.push(spans(&member));
            true
        });
        let mut stepped = Vec::new();
        let mut ended = false;
        if let Some(mut members) = Members::open(bytes) {
            loop {
                match members.next_member() {
                    Step::Member(member) => stepped.push(spans(&member)),
                    Step::End => {
                        ended = true;
                        break;
                    }
                    Step::Malformed => break,
                }
            }
        }
        prop_assert_eq!(ok, ended, "{:?}", String::from_utf8_lossy(bytes));
        prop_assert_eq!(&walked, &stepped, "{:?}", String::from_utf8_lossy(bytes));
        // Stopped by its visitor, the walk ends there.
        let mut seen = 0;
        let stopped = each_member(bytes, |_| {
            seen += 1;
            false
        });
        prop_assert_eq!(stopped, ok && stepped.is_empty());
        prop_assert!(seen <= 1);
        Ok(())
    }

    #[test]
    fn members_find_walks_as_members_do() {
        for doc in DOCS {
            if let Err(error) = agree(doc.as_bytes()).and(each_agrees(doc.as_bytes())) {
                panic!("{error}");
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::scale::scaled(4000)))]

        #[test]
        fn members_find_walks_as_members_do_on_edited_bytes(
            doc in prop::sample::select(DOCS),
            edits in prop::collection::vec(
                (any::<prop::sample::Index>(), 0..3u8, prop::sample::select(&b"\"\\ :,{}[]\tabctype1"[..])),
                1..3,
            ),
        ) {
            let mut bytes = doc.as_bytes().to_vec();
            for (at, edit, byte) in edits {
                let at = at.index(bytes.len() + 1);
                edit_one_byte(&mut bytes, at, edit, byte);
            }
            agree(&bytes)?;
            each_agrees(&bytes)?;
        }
    }
}
