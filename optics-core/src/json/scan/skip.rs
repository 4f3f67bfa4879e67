//! Skipping one value without checking it in full (non-strict): a string to
//! its closing quote, a container by its brackets (see
//! [`block_walk`](super::block_walk)), a number to its delimiter, a literal
//! by comparison.

use super::block_walk::ContainerSkip;
use super::byte_table;
use super::simd;
use super::whitespace::skip_ws;

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

/// Bytes that may continue a number once it has started (non-strict).
static NUMBER: [bool; 256] = byte_table(b"0123456789+-.eE");

/// [`skip_value`] with `pos` already at the value's first byte.
#[inline(always)]
pub(super) fn skip_value_at(bytes: &[u8], pos: usize) -> Option<usize> {
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
pub(super) fn skip_literal(bytes: &[u8], pos: usize, literal: &[u8]) -> Option<usize> {
    let end = pos + literal.len();
    (bytes.get(pos..end)? == literal).then_some(end)
}

/// Index of the quote closing a string whose contents start at `from`, and
/// whether the contents hold a backslash. A backslash escapes exactly the byte
/// after it (the hex digits of `\uXXXX` are neither `"` nor `\`).
#[inline(always)]
pub(super) fn string_close(bytes: &[u8], from: usize) -> Option<(usize, bool)> {
    let mut hit = simd::find_quote_or_backslash(bytes, from)?;
    let mut escaped = false;
    while bytes[hit] == b'\\' {
        escaped = true;
        hit = simd::find_quote_or_backslash(bytes, hit + 2)?;
    }
    Some((hit, escaped))
}

/// Skips an object or array starting at `open`, 64 bytes at a time, with the
/// best block kernel the CPU has.
#[inline]
pub(super) fn skip_container(bytes: &[u8], open: usize) -> Option<usize> {
    simd::dispatch(&mut ContainerSkip::new(bytes, open))
}
