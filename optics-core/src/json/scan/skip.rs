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
        b'-' | b'0'..=b'9' => Some(number_end(bytes, pos + 1)),
        _ => None,
    }
}

/// The end of the number whose bytes continue at `from`: the first byte
/// that cannot continue it (non-strict, see [`NUMBER`]). Runs of digits are
/// passed eight at a time ([`digits_end`]), the rest a byte at a time.
#[inline(always)]
fn number_end(bytes: &[u8], mut end: usize) -> usize {
    loop {
        end = digits_end(bytes, end);
        if !bytes.get(end).is_some_and(|&b| NUMBER[b as usize]) {
            return end;
        }
        end += 1;
    }
}

/// The index of the first byte at or after `from` that is not a digit (or
/// the length), eight bytes at a time: `byte ^ b'0'` is at most 9 for a
/// digit, and adding 0x76 sets the top bit of every other byte (a carry out
/// of a byte only reaches bytes after the first non-digit, which do not
/// count).
#[inline(always)]
pub(super) fn digits_end(bytes: &[u8], from: usize) -> usize {
    const ZEROS: u64 = u64::from_le_bytes([b'0'; 8]);
    const BIAS: u64 = u64::from_le_bytes([0x76; 8]);
    const TOPS: u64 = u64::from_le_bytes([0x80; 8]);
    let mut at = from;
    while let Some(word) = bytes.get(at..).and_then(|rest| rest.first_chunk::<8>()) {
        let t = u64::from_le_bytes(*word) ^ ZEROS;
        let other = (t.wrapping_add(BIAS) | t) & TOPS;
        if other != 0 {
            return at + (other.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while bytes.get(at).is_some_and(u8::is_ascii_digit) {
        at += 1;
    }
    at
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The byte-at-a-time walk [`number_end`] replaces.
    fn number_end_bytewise(bytes: &[u8], mut end: usize) -> usize {
        while bytes.get(end).is_some_and(|&b| NUMBER[b as usize]) {
            end += 1;
        }
        end
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::scale::scaled(2000)))]

        #[test]
        fn number_end_agrees_with_the_byte_walk(
            bytes in prop::collection::vec(
                prop_oneof![
                    6 => b'0'..=b'9',
                    1 => prop::sample::select(b"+-.eE,}] \"/:".to_vec()),
                    1 => any::<u8>(),
                ],
                0..40,
            ),
            from in 0usize..42,
        ) {
            prop_assert_eq!(number_end(&bytes, from), number_end_bytewise(&bytes, from));
        }
    }

    #[test]
    fn digits_end_stops_at_the_first_other_byte() {
        let bytes = b"0123456789012345678x9:/ \xff\x00";
        for from in 0..bytes.len() {
            for len in from..=bytes.len() {
                let slice = &bytes[..len];
                let want = from
                    + slice[from..]
                        .iter()
                        .take_while(|b| b.is_ascii_digit())
                        .count();
                assert_eq!(digits_end(slice, from), want, "{from} {len}");
            }
        }
        for byte in 0..=255u8 {
            let mut word = [b'7'; 12];
            word[5] = byte;
            let want = if byte.is_ascii_digit() { 12 } else { 5 };
            assert_eq!(digits_end(&word, 0), want, "{byte:#x}");
        }
    }
}
