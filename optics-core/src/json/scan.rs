//! Reading JSON bytes in place: find an object's member or an array's element,
//! skip a value, compare a raw string; and, in strict mode, validate a document.
//!
//! ```text
//! object_field(bytes, &["detail"]) walks the members, skipping every value:
//!
//! {"id":7,"user":{"name":"ann","tags":["a","b"]},"detail":"late"}
//!  '--' | '----' '-----------------------------' '------' '----'
//!  key  | key    object: skipped 64 bytes at a   key     Found(br#""late""#)
//!       |        time, brackets counted outside  (plain byte compare when
//!       |        strings with popcounts           it holds no backslash)
//!       number: scanned to its delimiter
//! ```
//!
//! Two modes:
//!
//! - **Non-strict** (everything but [`validate`]): values that are not wanted
//!   are skipped without being checked in full (a skipped number is scanned to its
//!   delimiter, a skipped container only has its brackets and strings tracked).
//!   These functions never panic, never recurse, run in time linear in the bytes
//!   they look at, allocate nothing and borrow their results from the input. On
//!   everything serde_json accepts they find exactly what serde_json finds; on
//!   truncated input a value that was cut is never returned, because every
//!   returned value must be followed by its container's `,` or closing bracket.
//! - **Strict**: [`validate`] checks one document against RFC 8259 in full, with
//!   an explicit stack instead of recursion.

use super::simd::{self, BlockScan, Kernel, Masks, BLOCK};
use std::fmt;
use std::ops::ControlFlow;

/// Outcome of looking a key up in an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup<'a> {
    /// The member's value, trimmed of surrounding whitespace (starts at its first
    /// byte, ends after its last).
    Found(&'a [u8]),
    /// The bytes are an object that was scanned to its closing brace without
    /// meeting the key.
    Missing,
    /// Not an object, or malformed where the scan looked: for `Missing`, any
    /// member; for a key found, the key's member itself (an object of 1 KiB and
    /// more is walked by its structure, whose skipped members are not checked).
    Malformed,
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
pub fn object_field<'a>(obj: &'a [u8], keys: &[&str]) -> Lookup<'a> {
    if obj.len() < SMALL_OBJECT {
        return members_find(obj, keys, false);
    }
    match FieldScan::run_on(obj, keys) {
        // The structural walk reached the end without the key; the member walk
        // confirms that every member was well formed, so that a malformed
        // object is never mistaken for one without the key. It also finds any
        // key the structural walk's filter let pass (one written with escapes
        // far from where the filter looks): a key missed there costs time, never
        // a wrong answer.
        Lookup::Missing => members_find(obj, keys, true),
        found => found,
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
const SMALL_OBJECT: usize = 1024;

/// The first (or, with `last`, the last) member whose key is any of `keys`,
/// walking member by member and skipping each value: every member before it
/// (every member, for `last` or a missing key) is checked to be well formed.
fn members_find<'a>(obj: &'a [u8], keys: &[&str], last: bool) -> Lookup<'a> {
    let Some(mut members) = Members::open(obj) else {
        return Lookup::Malformed;
    };
    let mut found = None;
    loop {
        match members.next_member() {
            Step::Member(member) => {
                if keys.iter().any(|key| key_eq(member.key(), key)) {
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

/// Escape-aware equality of a raw key with a key sought. A raw key holding a
/// backslash is always longer than the text it stands for (an escape takes
/// more bytes than the UTF-8 of the character it stands for), so the lengths
/// decide which comparison can succeed.
#[inline(always)]
fn key_eq(raw: &[u8], key: &str) -> bool {
    let key = key.as_bytes();
    if raw.len() == key.len() {
        same_bytes(raw, key) && !raw.contains(&b'\\')
    } else {
        raw.len() > key.len() && raw.contains(&b'\\') && raw_eq(raw, key)
    }
}

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

/// Escape-aware equality of raw string contents (as returned by [`string_raw`] or
/// [`first_member`]) with an unescaped `expected` text.
///
/// `\uXXXX` escapes, surrogate pairs included, are decoded on the fly and compared
/// as UTF-8; an invalid escape or a lone surrogate equals nothing.
///
/// Cost: O(n) in `raw`; nothing is allocated.
///
/// ```
/// use optics_core::json::scan::raw_eq;
///
/// assert!(raw_eq(br"det\u0061il", b"detail"));
/// assert!(raw_eq(br"\ud83d\ude00!", "😀!".as_bytes()));
/// assert!(!raw_eq(br"a\qb", b"aqb"));
/// ```
pub fn raw_eq(raw: &[u8], expected: &[u8]) -> bool {
    let mut r = 0;
    let mut e = 0;
    loop {
        // Compare the plain run up to the next backslash in one go.
        let plain_end = next_backslash(raw, r).unwrap_or(raw.len());
        let run = plain_end - r;
        if raw.get(r..plain_end) != expected.get(e..e + run) {
            return false;
        }
        r = plain_end;
        e += run;
        if r == raw.len() {
            return e == expected.len();
        }
        let Some((ch, next)) = decode_escape(raw, r) else {
            return false;
        };
        let mut utf8 = [0u8; 4];
        let encoded = ch.encode_utf8(&mut utf8).as_bytes();
        if expected.get(e..e + encoded.len()) != Some(encoded) {
            return false;
        }
        r = next;
        e += encoded.len();
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

/// Skips one value: `start` is the index of the value's first byte (whitespace
/// before it is allowed); returns the index just past the value, or `None` if the
/// value is malformed or truncated.
///
/// Strings are searched 16 bytes at a time for their closing quote; objects and
/// arrays are scanned 64 bytes at a time, tracking strings and counting brackets,
/// without recursion; numbers are scanned to their delimiter; literals are
/// compared. Nesting is not validated (`[}` is skipped like `[]`).
///
/// Cost: O(n) in the value; nothing is allocated.
///
/// ```
/// use optics_core::json::scan::skip_value;
///
/// let bytes = br#"  {"a":["}",{"b":"\""}]} ,1"#;
/// assert_eq!(skip_value(bytes, 0), Some(24));
/// assert_eq!(skip_value(bytes, 26), Some(27));
/// assert_eq!(skip_value(b"[[1]", 0), None);
/// ```
pub fn skip_value(bytes: &[u8], start: usize) -> Option<usize> {
    skip_value_at(bytes, skip_ws(bytes, start))
}

/// `bytes` without leading and trailing JSON whitespace (space, `\t`, `\n`, `\r`).
///
/// Cost: O(n) in the whitespace; nothing is copied.
///
/// ```
/// use optics_core::json::scan::trim;
///
/// assert_eq!(trim(b"\t [1] \r\n"), b"[1]");
/// ```
pub fn trim(bytes: &[u8]) -> &[u8] {
    let start = skip_ws(bytes, 0);
    let end = bytes
        .iter()
        .rposition(|&b| !is_ws(b))
        .map_or(start, |last| last + 1);
    bytes.get(start..end).unwrap_or_default()
}

/// Strict mode: checks that `bytes` hold exactly one JSON document (RFC 8259),
/// whitespace around it allowed, and reports the first error.
///
/// Strings must be valid UTF-8 without control characters and with valid escapes
/// (lone surrogate escapes are accepted, as the grammar allows them); numbers
/// must follow the grammar (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`); a
/// byte-order mark is rejected. Nesting is tracked on an explicit bit stack, so
/// any depth is fine.
///
/// Cost: O(n); allocates only past 64 levels of nesting (one bit per level).
///
/// ```
/// use optics_core::json::scan::validate;
///
/// assert_eq!(validate(br#" {"a":[1,2.5e3,"x"]} "#), Ok(()));
/// let error = validate(br#"{"a":"\x"}"#).unwrap_err();
/// assert_eq!(error.to_string(), "invalid escape at byte 6");
/// ```
pub fn validate(bytes: &[u8]) -> Result<(), SyntaxError> {
    let mut nesting = Nesting::default();
    let mut pos = 0;
    'value: loop {
        pos = skip_ws(bytes, pos);
        let Some(&first) = bytes.get(pos) else {
            return Err(SyntaxError::end(bytes));
        };
        pos = match first {
            b'{' => {
                pos = skip_ws(bytes, pos + 1);
                if bytes.get(pos) == Some(&b'}') {
                    pos + 1
                } else {
                    nesting.push(Container::Object);
                    pos = strict_member_key(bytes, pos)?;
                    continue 'value;
                }
            }
            b'[' => {
                pos = skip_ws(bytes, pos + 1);
                if bytes.get(pos) == Some(&b']') {
                    pos + 1
                } else {
                    nesting.push(Container::Array);
                    continue 'value;
                }
            }
            b'"' => strict_string(bytes, pos)?,
            b'-' | b'0'..=b'9' => strict_number(bytes, pos)?,
            b't' => strict_literal(bytes, pos, b"true")?,
            b'f' => strict_literal(bytes, pos, b"false")?,
            b'n' => strict_literal(bytes, pos, b"null")?,
            _ => return Err(SyntaxError::new(pos, "expected a value")),
        };
        // After a value: close containers until one wants another value.
        loop {
            pos = skip_ws(bytes, pos);
            let Some(container) = nesting.top() else {
                return match pos == bytes.len() {
                    true => Ok(()),
                    false => Err(SyntaxError::new(pos, "trailing characters")),
                };
            };
            let (close, expected) = match container {
                Container::Object => (b'}', "expected ',' or '}'"),
                Container::Array => (b']', "expected ',' or ']'"),
            };
            match bytes.get(pos) {
                Some(b',') => {
                    pos += 1;
                    if container == Container::Object {
                        pos = strict_member_key(bytes, skip_ws(bytes, pos))?;
                    }
                    continue 'value;
                }
                Some(&b) if b == close => {
                    nesting.pop();
                    pos += 1;
                }
                Some(_) => return Err(SyntaxError::new(pos, expected)),
                None => return Err(SyntaxError::end(bytes)),
            }
        }
    }
}

/// Where and why [`validate`] rejected a document.
///
/// Displays in lowercase as `<what> at byte <offset>`, e.g.
/// `invalid escape at byte 17`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    /// Index of the offending byte (the input's length when it ended too early).
    pub offset: usize,
    /// What was wrong, in lowercase.
    pub what: &'static str,
}

impl SyntaxError {
    fn new(offset: usize, what: &'static str) -> Self {
        SyntaxError { offset, what }
    }

    fn end(bytes: &[u8]) -> Self {
        SyntaxError::new(bytes.len(), "unexpected end of input")
    }
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.what, self.offset)
    }
}

impl std::error::Error for SyntaxError {}

/// Kernels the benches compare; not part of the public API.
#[doc(hidden)]
pub mod kernels {
    pub use super::super::simd::{
        classify, classify_scalar, find_quote_or_backslash, find_quote_or_backslash_scalar,
        find_string_special, find_string_special_scalar, Masks, BLOCK,
    };
    use super::{simd, BlockScan, ContainerSkip};

    /// `skip_value` of a container, forced onto the baseline (SSE2) kernel: what
    /// the AVX2 kernel is measured against.
    pub fn skip_container_baseline(bytes: &[u8], open: usize) -> Option<usize> {
        ContainerSkip::new(bytes, open).run(simd::Baseline)
    }
}

// ---------------------------------------------------------------------------
// Byte classes

/// A 256-entry membership table for `members`, built at compile time.
const fn byte_table(members: &[u8]) -> [bool; 256] {
    let mut table = [false; 256];
    let mut i = 0;
    while i < members.len() {
        table[members[i] as usize] = true;
        i += 1;
    }
    table
}

static WHITESPACE: [bool; 256] = byte_table(b" \t\n\r");
/// Bytes that may continue a number once it has started (non-strict).
static NUMBER: [bool; 256] = byte_table(b"0123456789+-.eE");

#[inline(always)]
fn is_ws(byte: u8) -> bool {
    WHITESPACE[byte as usize]
}

/// Index of the first non-whitespace byte at or after `pos` (or the length).
#[inline(always)]
fn skip_ws(bytes: &[u8], pos: usize) -> usize {
    // Compact JSON has no whitespace: one compare decides (every whitespace byte
    // is at most b' ').
    match bytes.get(pos) {
        Some(&b) if b > b' ' => pos,
        _ => skip_ws_loop(bytes, pos),
    }
}

#[inline]
fn skip_ws_loop(bytes: &[u8], mut pos: usize) -> usize {
    while let Some(&b) = bytes.get(pos) {
        if !is_ws(b) {
            break;
        }
        pos += 1;
    }
    pos
}

// ---------------------------------------------------------------------------
// Non-strict skipping

/// [`skip_value`] with `pos` already at the value's first byte.
#[inline(always)]
fn skip_value_at(bytes: &[u8], pos: usize) -> Option<usize> {
    match *bytes.get(pos)? {
        b'"' => Some(string_close(bytes, pos + 1)?.0 + 1),
        b'{' | b'[' => match bytes.get(pos + 1) {
            // `{}` and `[]` are common enough to skip the block scan
            Some(b'}' | b']') => Some(pos + 2),
            _ => skip_container(bytes, pos),
        },
        b't' => skip_literal(bytes, pos, b"true"),
        b'f' => skip_literal(bytes, pos, b"false"),
        b'n' => skip_literal(bytes, pos, b"null"),
        b'-' | b'0'..=b'9' => {
            let mut end = pos + 1;
            while bytes.get(end).is_some_and(|&b| NUMBER[b as usize]) {
                end += 1;
            }
            Some(end)
        }
        _ => None,
    }
}

#[inline]
fn skip_literal(bytes: &[u8], pos: usize, literal: &[u8]) -> Option<usize> {
    let end = pos + literal.len();
    (bytes.get(pos..end)? == literal).then_some(end)
}

/// Index of the quote closing a string whose contents start at `from`, and
/// whether the contents hold a backslash. A backslash escapes exactly the byte
/// after it (the hex digits of `\uXXXX` are neither `"` nor `\`).
#[inline(always)]
fn string_close(bytes: &[u8], from: usize) -> Option<(usize, bool)> {
    let mut hit = simd::find_quote_or_backslash(bytes, from)?;
    let mut escaped = false;
    while bytes[hit] == b'\\' {
        escaped = true;
        hit = simd::find_quote_or_backslash(bytes, hit + 2)?;
    }
    Some((hit, escaped))
}

/// The masks of the block of `bytes` that starts at `start`, or `None` past the
/// end. A block cut short by the end is padded with spaces, which are neutral.
#[inline(always)]
fn classify_at<K: Kernel>(kernel: K, bytes: &[u8], start: usize) -> Option<Masks> {
    match bytes.get(start..)?.first_chunk::<BLOCK>() {
        Some(block) => Some(kernel.classify(block)),
        None if start < bytes.len() => {
            let mut padded = [b' '; BLOCK];
            let tail = &bytes[start..];
            padded[..tail.len()].copy_from_slice(tail);
            Some(kernel.classify(&padded))
        }
        None => None,
    }
}

/// Skips an object or array starting at `open`, 64 bytes at a time, with the
/// best block kernel the CPU has.
#[inline]
fn skip_container(bytes: &[u8], open: usize) -> Option<usize> {
    simd::dispatch(&mut ContainerSkip::new(bytes, open))
}

/// The block scan behind [`skip_container`].
///
/// Per block: the escaped bytes are resolved from the backslash mask (carrying an
/// escape across the block edge), the unescaped quotes give the in-string mask by
/// prefix xor (carrying "inside a string" across the edge), and openers and
/// closers outside strings are counted. Only a block with at least as many
/// closers as the current depth can hold the end, and only there are the
/// brackets walked one by one.
struct ContainerSkip<'a> {
    bytes: &'a [u8],
    /// Where the next block starts; the first one starts at the `{` or `[`.
    block_start: usize,
    /// Brackets open before `block_start`.
    depth: usize,
    /// All ones if `block_start` is inside a string.
    inside_carry: u64,
    /// Whether the byte at `block_start` is escaped.
    escape_carry: bool,
}

impl<'a> ContainerSkip<'a> {
    /// A scan of the container whose `{` or `[` is at `open`.
    #[inline(always)]
    fn new(bytes: &'a [u8], open: usize) -> Self {
        ContainerSkip {
            bytes,
            block_start: open,
            depth: 0,
            inside_carry: 0,
            escape_carry: false,
        }
    }

    /// Scans one block: breaks with the index after the closing bracket, or with
    /// `None` at the end of the input.
    #[inline(always)]
    fn block<K: Kernel>(&mut self, kernel: K) -> ControlFlow<Option<usize>> {
        let bytes = self.bytes;
        let start = self.block_start;
        let Some(masks) = classify_at(kernel, bytes, start) else {
            return ControlFlow::Break(None);
        };
        let Masks {
            quote,
            backslash,
            open: openers,
            close: closers,
            ..
        } = masks;
        let quotes = quote & !escaped_bytes(backslash, &mut self.escape_carry);
        let inside = kernel.prefix_xor(quotes) ^ self.inside_carry;
        self.inside_carry = ((inside as i64) >> 63) as u64;
        let openers = openers & !inside;
        let closers = closers & !inside;
        // Only a block with at least `depth` closers can hold the end; the first
        // block (depth 0) always can.
        let closes = closers.count_ones() as usize;
        if closes < self.depth {
            self.depth = self.depth + openers.count_ones() as usize - closes;
        } else {
            let mut depth = self.depth;
            let mut brackets = openers | closers;
            while brackets != 0 {
                let at = brackets.trailing_zeros();
                // +1 for an opener, -1 for a closer, without a branch; depth >= 1
                // before every closer, since the very first bracket is the opener
                // the scan started at.
                let step = 2 * ((openers >> at) & 1) as usize;
                depth = (depth + step).wrapping_sub(1);
                if depth == 0 {
                    return ControlFlow::Break(Some(start + at as usize + 1));
                }
                brackets &= brackets - 1;
            }
            self.depth = depth;
        }
        self.block_start = start + BLOCK;
        ControlFlow::Continue(())
    }
}

impl BlockScan for ContainerSkip<'_> {
    type Output = Option<usize>;

    #[inline(always)]
    fn run<K: Kernel>(&mut self, kernel: K) -> Option<usize> {
        loop {
            if let ControlFlow::Break(end) = self.block(kernel) {
                return end;
            }
        }
    }
}

/// Bits `from..to` of a block (`from <= to <= 64`).
#[inline(always)]
fn bit_range(from: u32, to: u32) -> u64 {
    let below_to = if to >= 64 { !0 } else { (1u64 << to) - 1 };
    let below_from = if from >= 64 { !0 } else { (1u64 << from) - 1 };
    below_to & !below_from
}

/// The block scan behind [`object_field`]: a walk over the
/// object's structure, 64 bytes at a time, that looks only at the keys of the
/// object itself.
///
/// Per block: strings are masked out as in [`ContainerSkip`]; the brackets
/// outside strings give the depth, and the colons outside strings that stand at
/// depth 1 each follow a key of the object. Only those keys are compared; no
/// value is skipped one by one, and a block that cannot return to depth 1 is
/// passed with two popcounts.
///
/// ```text
///  {"id":7,"who":{"n":"a:b"},"detail":{...}}
///  1   :        1  :       1         :        brackets (depth) and colons outside strings
///      ^                 ^           ^        depth-1 colons: the keys compared
/// ```
struct FieldScan<'a, 'k> {
    bytes: &'a [u8],
    keys: &'k [&'k str],
    /// Where the object's `{` is.
    open: usize,
    /// Where the next block starts.
    block_start: usize,
    /// Brackets open before `block_start`.
    depth: usize,
    /// All ones if `block_start` is inside a string.
    inside_carry: u64,
    /// Whether the byte at `block_start` is escaped.
    escape_carry: bool,
    /// The previous block's unescaped quotes.
    prev_quotes: u64,
    /// How far back from a colon a matching key can start, if written with
    /// escapes (an escape takes at most 6 bytes per byte of text), plus its quotes.
    escape_reach: usize,
    /// The end of the last block that held a backslash (0: none yet).
    backslash_seen: usize,
    /// Whether some key sought is too long for the quote-mask filter.
    long_key: bool,
}

impl<'a, 'k> FieldScan<'a, 'k> {
    #[inline]
    fn run_on(obj: &'a [u8], keys: &'k [&'k str]) -> Lookup<'a> {
        let open = skip_ws(obj, 0);
        if obj.get(open) != Some(&b'{') {
            return Lookup::Malformed;
        }
        let longest = keys.iter().map(|key| key.len()).max().unwrap_or(0);
        simd::dispatch(&mut FieldScan {
            bytes: obj,
            keys,
            open,
            block_start: open,
            depth: 0,
            inside_carry: 0,
            escape_carry: false,
            prev_quotes: 0,
            escape_reach: 6 * longest + 2,
            backslash_seen: 0,
            long_key: longest + 2 >= BLOCK,
        })
    }

    /// Where the key before the depth-1 colon at `colon` starts and ends (the
    /// indices of its two quotes), using this block's unescaped quotes when the
    /// key lies in it.
    #[inline(always)]
    fn key_before(&self, colon: usize, quotes: u64) -> Option<(usize, usize)> {
        let bytes = self.bytes;
        let mut close = colon.checked_sub(1)?;
        // Compact JSON has the key's quote right before the colon.
        while bytes[close] != b'"' {
            if !is_ws(bytes[close]) {
                return None;
            }
            close = close.checked_sub(1)?;
        }
        if close <= self.open {
            return None;
        }
        let start = self.block_start;
        if close > start {
            let below = quotes & bit_range(0, (close - start) as u32);
            if below != 0 {
                return Some((start + 63 - below.leading_zeros() as usize, close));
            }
        }
        // The key began in an earlier block: walk back to the quote that is
        // not escaped (an even run of backslashes before it).
        let mut at = close;
        loop {
            at -= 1;
            if at <= self.open {
                return None;
            }
            if bytes[at] == b'"' {
                let run = bytes[self.open + 1..at]
                    .iter()
                    .rev()
                    .take_while(|&&b| b == b'\\')
                    .count();
                if run % 2 == 0 {
                    return Some((at, close));
                }
            }
        }
    }

    /// Whether the raw key between the quotes at `from` and `to` is one of the
    /// keys sought. `backslash` is this block's raw backslash mask. Most keys
    /// are told apart by their length alone.
    #[inline(always)]
    fn key_matches(&self, from: usize, to: usize, backslash: u64) -> bool {
        let len = to - from - 1;
        let start = self.block_start;
        let escaped = || {
            if from >= start {
                backslash != 0
                    && backslash & bit_range((from - start) as u32, (to - start) as u32) != 0
            } else {
                self.bytes[from + 1..to].contains(&b'\\')
            }
        };
        for key in self.keys {
            let key = key.as_bytes();
            // As in `key_eq`: a raw key with a backslash is longer than its text.
            if len == key.len() {
                if same_bytes(&self.bytes[from + 1..to], key) && !escaped() {
                    return true;
                }
            } else if len > key.len() && escaped() && raw_eq(&self.bytes[from + 1..to], key) {
                return true;
            }
        }
        false
    }

    /// The member value after the depth-1 colon at `colon`: trimmed, and
    /// followed by the object's `,` or `}` (so a cut value is never returned).
    #[inline]
    fn value_after(&self, colon: usize) -> Option<(usize, usize)> {
        let bytes = self.bytes;
        let from = skip_ws(bytes, colon + 1);
        let to = skip_value_at(bytes, from)?;
        match bytes.get(skip_ws(bytes, to)) {
            Some(b',' | b'}') => Some((from, to)),
            _ => None,
        }
    }

    /// Scans one block: breaks with the lookup's outcome, or continues.
    #[inline(always)]
    fn block<K: Kernel>(&mut self, kernel: K) -> ControlFlow<Lookup<'a>> {
        let bytes = self.bytes;
        let start = self.block_start;
        let Some(masks) = classify_at(kernel, bytes, start) else {
            return ControlFlow::Break(Lookup::Malformed);
        };
        let quotes = masks.quote & !escaped_bytes(masks.backslash, &mut self.escape_carry);
        let inside = kernel.prefix_xor(quotes) ^ self.inside_carry;
        self.inside_carry = ((inside as i64) >> 63) as u64;
        let openers = masks.open & !inside;
        let closers = masks.close & !inside;
        let colons = masks.colon & !inside;
        if masks.backslash != 0 {
            self.backslash_seen = start + BLOCK;
        }
        // A key written with escapes may stand before a colon in this block.
        let escapes_near =
            self.backslash_seen > 0 && self.backslash_seen + self.escape_reach > start;

        let mut depth = self.depth;
        let closes = closers.count_ones() as usize;
        if depth >= 2 && closes + 1 < depth {
            // Deep inside a value, and this block cannot climb back to depth 1.
            self.depth = depth + openers.count_ones() as usize - closes;
            self.block_start = start + BLOCK;
            self.prev_quotes = quotes;
            return ControlFlow::Continue(());
        }
        let mut brackets = openers | closers;
        let mut from = 0u32;
        loop {
            let next = if brackets == 0 {
                64
            } else {
                brackets.trailing_zeros()
            };
            if depth == 1 {
                let here = colons & bit_range(from, next);
                let mut check = if here == 0 {
                    0
                } else {
                    self.candidates(here, quotes, escapes_near)
                };
                while check != 0 {
                    let colon = start + check.trailing_zeros() as usize;
                    let Some((key_open, key_close)) = self.key_before(colon, quotes) else {
                        return ControlFlow::Break(Lookup::Malformed);
                    };
                    if self.key_matches(key_open, key_close, masks.backslash) {
                        let Some((value_from, value_to)) = self.value_after(colon) else {
                            return ControlFlow::Break(Lookup::Malformed);
                        };
                        return ControlFlow::Break(Lookup::Found(&bytes[value_from..value_to]));
                    }
                    check &= check - 1;
                }
            }
            if next == 64 {
                break;
            }
            if (openers >> next) & 1 == 1 {
                depth += 1;
            } else {
                // The first bracket of all is the object's `{`, so a closer
                // always has an opener before it.
                depth -= 1;
                if depth == 0 {
                    let end = start + next as usize;
                    if skip_ws(bytes, end + 1) != bytes.len() {
                        return ControlFlow::Break(Lookup::Malformed);
                    }
                    return ControlFlow::Break(Lookup::Missing);
                }
            }
            from = next + 1;
            brackets &= brackets - 1;
        }
        self.depth = depth;
        self.block_start = start + BLOCK;
        self.prev_quotes = quotes;
        ControlFlow::Continue(())
    }

    /// Of the depth-1 colons `here`, those whose key may be one sought: by the
    /// quote masks alone, a colon right after a quote whose key has the length
    /// of a key sought, written without escapes. Every other colon is kept for
    /// the full check: one after whitespace, and all of them where a key with
    /// escapes (whose length tells nothing) may stand or a key sought is long.
    #[inline(always)]
    fn candidates(&self, here: u64, quotes: u64, escapes_near: bool) -> u64 {
        if escapes_near || self.long_key {
            return here;
        }
        let after_quote = here & ((quotes << 1) | (self.prev_quotes >> 63));
        let mut check = here & !after_quote;
        for key in self.keys {
            // the opening quote, `len + 2` bytes before the colon
            let distance = key.len() as u32 + 2;
            let opening = (quotes << distance) | (self.prev_quotes >> (64 - distance));
            check |= after_quote & opening;
        }
        check
    }
}

impl<'a> BlockScan for FieldScan<'a, '_> {
    type Output = Lookup<'a>;

    #[inline(always)]
    fn run<K: Kernel>(&mut self, kernel: K) -> Lookup<'a> {
        loop {
            if let ControlFlow::Break(found) = self.block(kernel) {
                return found;
            }
        }
    }
}

/// Bit `i` set when byte `i` is escaped by a backslash: the byte after each
/// backslash that is not itself escaped. `carry` says whether the previous block
/// ended in an escaping backslash, and is updated for the next block.
#[inline(always)]
fn escaped_bytes(backslash: u64, carry: &mut bool) -> u64 {
    let mut escaped = u64::from(*carry);
    *carry = false;
    let mut escapers = backslash & !escaped;
    while escapers != 0 {
        let at = escapers.trailing_zeros();
        if at == 63 {
            *carry = true;
            break;
        }
        let next = 1u64 << (at + 1);
        escaped |= next;
        // the escaped byte does not escape, even if it is a backslash
        escapers &= escapers - 1;
        escapers &= !next;
    }
    escaped
}

// ---------------------------------------------------------------------------
// Members

/// One `"key": value` of an object, as positions in the object's bytes (slicing
/// waits until a key's length matches or a value is wanted).
struct Member<'a> {
    bytes: &'a [u8],
    /// The key lies between the quotes at `key.0 - 1` and `key.1`, escapes left
    /// as they are.
    key: (usize, usize),
    /// The trimmed value.
    value: (usize, usize),
}

impl<'a> Member<'a> {
    fn key(&self) -> &'a [u8] {
        self.bytes.get(self.key.0..self.key.1).unwrap_or_default()
    }

    fn value(&self) -> &'a [u8] {
        self.bytes
            .get(self.value.0..self.value.1)
            .unwrap_or_default()
    }
}

/// `a == b`, inlined for short keys: most keys differ in length, and those that
/// do not are compared 8 bytes at a time instead of through a `memcmp` call.
#[inline(always)]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let word = |s: &[u8], at: usize| {
        s.get(at..at + 8)
            .map(|w| u64::from_le_bytes(w.try_into().unwrap_or_default()))
    };
    match a.len() {
        0..8 => a == b,
        len => {
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

/// What [`Members::next_member`] met.
enum Step<'a> {
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
struct Members<'a> {
    bytes: &'a [u8],
    pos: usize,
    state: MemberState,
}

impl<'a> Members<'a> {
    /// Starts after the `{` of `bytes`, which may have whitespace before it.
    fn open(bytes: &'a [u8]) -> Option<Self> {
        let pos = skip_ws(bytes, 0);
        (bytes.get(pos) == Some(&b'{')).then_some(Members {
            bytes,
            pos: pos + 1,
            state: MemberState::Opened,
        })
    }

    #[inline(always)]
    fn next_member(&mut self) -> Step<'a> {
        let bytes = self.bytes;
        let mut pos = skip_ws(bytes, self.pos);
        if bytes.get(pos) != Some(&b'"') || self.state == MemberState::Closed {
            return self.no_key(pos);
        }
        let key_start = pos + 1;
        let Some((key_end, _)) = string_close(bytes, key_start) else {
            return Step::Malformed;
        };
        pos = skip_ws(bytes, key_end + 1);
        if bytes.get(pos) != Some(&b':') {
            return Step::Malformed;
        }
        let value_start = skip_ws(bytes, pos + 1);
        let Some(value_end) = skip_value_at(bytes, value_start) else {
            return Step::Malformed;
        };
        pos = skip_ws(bytes, value_end);
        self.state = match bytes.get(pos) {
            Some(b',') => MemberState::Separated,
            Some(b'}') => MemberState::Closed,
            _ => return Step::Malformed,
        };
        self.pos = pos + 1;
        Step::Member(Member {
            bytes,
            key: (key_start, key_end),
            value: (value_start, value_end),
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

// ---------------------------------------------------------------------------
// Escapes

/// Index of the first backslash at or after `from`.
fn next_backslash(raw: &[u8], mut from: usize) -> Option<usize> {
    loop {
        let hit = simd::find_quote_or_backslash(raw, from)?;
        if raw[hit] == b'\\' {
            return Some(hit);
        }
        from = hit + 1;
    }
}

/// Value of four hex digits.
fn hex4(digits: &[u8]) -> Option<u16> {
    let digits: &[u8; 4] = digits.try_into().ok()?;
    digits.iter().try_fold(0u16, |acc, &d| {
        let nibble = match d {
            b'0'..=b'9' => d - b'0',
            b'a'..=b'f' => d - b'a' + 10,
            b'A'..=b'F' => d - b'A' + 10,
            _ => return None,
        };
        Some(acc << 4 | u16::from(nibble))
    })
}

/// Decodes the escape whose backslash is at `at`: the character and the index
/// after the escape. A surrogate pair spans two `\u` escapes; a lone surrogate
/// or an unknown escape gives `None`.
fn decode_escape(raw: &[u8], at: usize) -> Option<(char, usize)> {
    let simple = match *raw.get(at + 1)? {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => {
            let unit = hex4(raw.get(at + 2..at + 6)?)?;
            return match unit {
                0xD800..=0xDBFF => {
                    if raw.get(at + 6..at + 8)? != b"\\u" {
                        return None;
                    }
                    let low = hex4(raw.get(at + 8..at + 12)?)?;
                    if !(0xDC00..=0xDFFF).contains(&low) {
                        return None;
                    }
                    let code =
                        0x10000 + ((u32::from(unit) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
                    Some((char::from_u32(code)?, at + 12))
                }
                _ => Some((char::from_u32(u32::from(unit))?, at + 6)),
            };
        }
        _ => return None,
    };
    Some((simple, at + 2))
}

// ---------------------------------------------------------------------------
// Strict mode

/// The kind of an open container in [`validate`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Container {
    Object,
    Array,
}

/// A stack of container kinds, one bit per level; the first 64 levels live inline.
#[derive(Default)]
struct Nesting {
    depth: usize,
    /// Levels 0..64; bit set for an object.
    inline: u64,
    /// Levels 64.., 64 per word.
    spilled: Vec<u64>,
}

impl Nesting {
    fn push(&mut self, container: Container) {
        let level = self.depth;
        let bit = 1u64 << (level % 64);
        let word = match level / 64 {
            0 => &mut self.inline,
            n => {
                if self.spilled.len() < n {
                    self.spilled.push(0);
                }
                &mut self.spilled[n - 1]
            }
        };
        match container {
            Container::Object => *word |= bit,
            Container::Array => *word &= !bit,
        }
        self.depth += 1;
    }

    fn pop(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    fn top(&self) -> Option<Container> {
        let level = self.depth.checked_sub(1)?;
        let word = match level / 64 {
            0 => self.inline,
            n => self.spilled[n - 1],
        };
        Some(match word >> (level % 64) & 1 {
            1 => Container::Object,
            _ => Container::Array,
        })
    }
}

/// Checks `"key" :` at `pos` and returns the index after the colon.
fn strict_member_key(bytes: &[u8], pos: usize) -> Result<usize, SyntaxError> {
    match bytes.get(pos) {
        Some(b'"') => {}
        Some(_) => return Err(SyntaxError::new(pos, "expected a string key")),
        None => return Err(SyntaxError::end(bytes)),
    }
    let pos = skip_ws(bytes, strict_string(bytes, pos)?);
    match bytes.get(pos) {
        Some(b':') => Ok(pos + 1),
        Some(_) => Err(SyntaxError::new(pos, "expected ':'")),
        None => Err(SyntaxError::end(bytes)),
    }
}

/// Checks the string opening at `open` and returns the index after its close.
fn strict_string(bytes: &[u8], open: usize) -> Result<usize, SyntaxError> {
    let mut pos = open + 1;
    loop {
        let Some(hit) = simd::find_string_special(bytes, pos) else {
            return Err(SyntaxError::end(bytes));
        };
        pos = match bytes[hit] {
            b'"' => return Ok(hit + 1),
            b'\\' => match bytes.get(hit + 1) {
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => hit + 2,
                Some(b'u') if bytes.get(hit + 2..hit + 6).and_then(hex4).is_some() => hit + 6,
                Some(_) => return Err(SyntaxError::new(hit, "invalid escape")),
                None => return Err(SyntaxError::end(bytes)),
            },
            0x00..=0x1F => return Err(SyntaxError::new(hit, "control character in string")),
            _ => {
                // A run of non-ASCII bytes ends at an ASCII byte, which is never
                // inside a UTF-8 sequence: the run must be valid on its own.
                let run = bytes[hit..].iter().take_while(|&&b| b >= 0x80).count();
                if let Err(error) = std::str::from_utf8(&bytes[hit..hit + run]) {
                    return Err(SyntaxError::new(hit + error.valid_up_to(), "invalid utf-8"));
                }
                hit + run
            }
        };
    }
}

/// Checks the number starting at `start` and returns the index after it.
fn strict_number(bytes: &[u8], start: usize) -> Result<usize, SyntaxError> {
    let digits_from = |pos: usize| {
        pos + bytes
            .iter()
            .skip(pos)
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    let invalid = |pos: usize| SyntaxError::new(pos, "invalid number");
    let mut pos = start;
    if bytes.get(pos) == Some(&b'-') {
        pos += 1;
    }
    pos = match bytes.get(pos) {
        Some(b'0') => pos + 1,
        Some(b'1'..=b'9') => digits_from(pos + 1),
        _ => return Err(invalid(pos)),
    };
    if bytes.get(pos) == Some(&b'.') {
        let end = digits_from(pos + 1);
        if end == pos + 1 {
            return Err(invalid(end));
        }
        pos = end;
    }
    if matches!(bytes.get(pos), Some(b'e' | b'E')) {
        pos += 1;
        if matches!(bytes.get(pos), Some(b'+' | b'-')) {
            pos += 1;
        }
        let end = digits_from(pos);
        if end == pos {
            return Err(invalid(end));
        }
        pos = end;
    }
    Ok(pos)
}

fn strict_literal(bytes: &[u8], pos: usize, literal: &[u8]) -> Result<usize, SyntaxError> {
    skip_literal(bytes, pos, literal).ok_or(SyntaxError::new(pos, "invalid literal"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn escaped_naive(bytes: &[u8], carry_in: bool) -> (u64, bool) {
        let mut escaped = 0u64;
        let mut escape_next = carry_in;
        for (i, &b) in bytes.iter().enumerate() {
            if escape_next {
                escaped |= 1 << i;
                escape_next = false;
            } else if b == b'\\' {
                escape_next = true;
            }
        }
        (escaped, escape_next)
    }

    proptest! {
        #[test]
        fn escaped_bytes_matches_a_byte_walk(
            bytes in prop::collection::vec(prop::sample::select(b"\\\\\\a\"".to_vec()), 64),
            carry_in: bool,
        ) {
            let backslash = bytes
                .iter()
                .enumerate()
                .fold(0u64, |m, (i, &b)| m | (u64::from(b == b'\\') << i));
            let mut carry = carry_in;
            let escaped = escaped_bytes(backslash, &mut carry);
            prop_assert_eq!((escaped, carry), escaped_naive(&bytes, carry_in));
        }

        #[test]
        fn prefix_xor_is_running_parity(x: u64) {
            let mut parity = 0;
            for i in 0..64 {
                parity ^= x >> i & 1;
                prop_assert_eq!(simd::Baseline.prefix_xor(x) >> i & 1, parity);
            }
        }

        /// The baseline kernel is not what runs on a machine with AVX2: check
        /// that both skip the same containers.
        #[test]
        fn kernels_skip_alike(
            bytes in prop::collection::vec(prop::sample::select(b"{}[]\\\" a,:".to_vec()), 1..300),
        ) {
            let mut bytes = bytes;
            bytes[0] = b'[';
            prop_assert_eq!(kernels::skip_container_baseline(&bytes, 0), skip_container(&bytes, 0));
        }
    }

    #[test]
    fn nesting_spills_past_64_levels() {
        let mut nesting = Nesting::default();
        for level in 0..300 {
            let kind = if level % 3 == 0 {
                Container::Object
            } else {
                Container::Array
            };
            nesting.push(kind);
            assert!(nesting.top() == Some(kind));
        }
        for level in (0..300).rev() {
            let kind = if level % 3 == 0 {
                Container::Object
            } else {
                Container::Array
            };
            assert!(nesting.top() == Some(kind));
            nesting.pop();
        }
        assert!(nesting.top().is_none());
    }
}
