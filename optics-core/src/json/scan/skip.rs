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
/// passed eight at a time, the rest a byte at a time.
#[inline(always)]
fn number_end(bytes: &[u8], mut end: usize) -> usize {
    const ONES: u64 = u64::from_le_bytes([0x01; 8]);
    const TOPS: u64 = u64::from_le_bytes([0x80; 8]);
    loop {
        while let Some(word) = bytes.get(end..).and_then(|rest| rest.first_chunk::<8>()) {
            // A byte is a digit exactly when it xor `0` is below 10. The top
            // bit marks the others: set in `v` itself from 0x80 up, set by
            // adding 0x76 from 10 up. A carry out of a byte goes only into
            // the bytes above one already marked, so the lowest mark is exact.
            let v = u64::from_le_bytes(*word) ^ (ONES * u64::from(b'0'));
            let others = (v | v.wrapping_add(ONES * 0x76)) & TOPS;
            if others != 0 {
                end += (others.trailing_zeros() / 8) as usize;
                break;
            }
            end += 8;
        }
        if !bytes.get(end).is_some_and(|&b| NUMBER[b as usize]) {
            return end;
        }
        end += 1;
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
        #![proptest_config(ProptestConfig::with_cases(2000))]

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
    fn every_byte_ends_a_digit_run_where_the_byte_walk_does() {
        for byte in 0..=255u8 {
            for at in 0..12 {
                let mut bytes = vec![b'7'; 12];
                bytes[at] = byte;
                assert_eq!(
                    number_end(&bytes, 0),
                    number_end_bytewise(&bytes, 0),
                    "{byte:#x} at {at}"
                );
            }
        }
    }
}
