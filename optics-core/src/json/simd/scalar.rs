//! The scalar kernel pieces, one byte (or one shift) at a time: the naive
//! oracle every SIMD kernel is tested against, and the fallback on targets
//! without one.

use super::{Masks, StrictMasks, BLOCK};

/// The naive oracle (and non-x86_64 fallback) for [`classify`](super::classify): one byte at a time.
pub fn classify_scalar(block: &[u8; BLOCK]) -> Masks {
    let mut masks = Masks::default();
    for (i, &byte) in block.iter().enumerate() {
        let bit = 1u64 << i;
        match byte {
            b'"' => masks.quote |= bit,
            b'\\' => masks.backslash |= bit,
            b'{' | b'[' => masks.open |= bit,
            b'}' | b']' => masks.close |= bit,
            b':' => masks.colon |= bit,
            _ => {}
        }
    }
    masks
}

/// The naive oracle (and non-x86_64 fallback) for the strict classification:
/// [`classify_scalar`]'s masks, commas, JSON whitespace and control characters.
pub fn classify_strict_scalar(block: &[u8; BLOCK]) -> StrictMasks {
    let mut strict = StrictMasks {
        masks: classify_scalar(block),
        ..StrictMasks::default()
    };
    for (i, &byte) in block.iter().enumerate() {
        let bit = 1u64 << i;
        if byte == b',' {
            strict.comma |= bit;
        }
        if matches!(byte, b' ' | b'\t' | b'\n' | b'\r') {
            strict.ws |= bit;
        }
        if byte < 0x20 {
            strict.control |= bit;
        }
        if byte >= 0x80 {
            strict.high |= bit;
        }
    }
    strict
}

/// The naive oracle (and non-x86_64 fallback) for [`Kernel::eq_pair`](super::Kernel::eq_pair):
/// the bytes of `block` equal to `a`, and those equal to `b`.
pub fn eq_pair_scalar(block: &[u8; BLOCK], a: u8, b: u8) -> (u64, u64) {
    let mut masks = (0, 0);
    for (i, &byte) in block.iter().enumerate() {
        masks.0 |= u64::from(byte == a) << i;
        masks.1 |= u64::from(byte == b) << i;
    }
    masks
}

/// The naive oracle for [`Kernel::key_colons`](super::Kernel::key_colons):
/// over the second block of `pair`, bit `i` set where its byte `i` is `:`
/// and either the byte before it is not `"`, or the bytes before it end a
/// key of `len` bytes written plainly whose first byte is `first` and last
/// byte `last` (`"`, `first`, ..., `last`, `"`). Raw bytes: strings and
/// escapes are not interpreted.
///
/// # Panics
///
/// If `len` is 0 or over 62.
pub fn key_colons_scalar(pair: &[u8; 2 * BLOCK], len: usize, first: u8, last: u8) -> u64 {
    assert!((1..=62).contains(&len), "a key of 1 to 62 bytes");
    let mut mask = 0;
    for i in 0..BLOCK {
        let colon = BLOCK + i;
        let opening = colon - len - 2;
        let key_end =
            pair[opening] == b'"' && pair[opening + 1] == first && pair[colon - 2] == last;
        let keep = pair[colon] == b':' && (pair[colon - 1] != b'"' || key_end);
        mask |= u64::from(keep) << i;
    }
    mask
}

/// The naive oracle (and non-x86_64 fallback) for [`find_quote_or_backslash`](super::find_quote_or_backslash).
pub fn find_quote_or_backslash_scalar(bytes: &[u8], from: usize) -> Option<usize> {
    let rest = bytes.get(from..)?;
    rest.iter()
        .position(|&b| b == b'"' || b == b'\\')
        .map(|i| from + i)
}

/// The naive oracle (and non-x86_64 fallback) for [`find_string_special`](super::find_string_special).
pub fn find_string_special_scalar(bytes: &[u8], from: usize) -> Option<usize> {
    let rest = bytes.get(from..)?;
    rest.iter()
        .position(|&b| b == b'"' || b == b'\\' || !(0x20..0x80).contains(&b))
        .map(|i| from + i)
}

/// Bit `i` of the result is the parity of bits `0..=i` of `x`, by six shifts:
/// [`Kernel::prefix_xor`](super::Kernel::prefix_xor) for CPUs without a
/// carry-less multiply.
#[inline(always)]
pub fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}
