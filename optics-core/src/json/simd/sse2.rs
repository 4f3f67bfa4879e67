//! SSE2 versions. Every function needs SSE2 (`#[target_feature]`), so calling one
//! from outside is `unsafe`; inside, only the loads are.
//!
//! SSE2 is part of the x86_64 baseline, so these need no run-time detection.

use super::{Masks, StrictMasks, BLOCK};
use core::arch::x86_64::{
    __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128,
    _mm_set1_epi8,
};

/// Width of one SSE2 register in bytes.
const LANES: usize = 16;

/// What [`find`] looks for.
#[derive(Clone, Copy)]
pub(super) enum Needle {
    /// `"` or `\`.
    QuoteOrBackslash,
    /// `"`, `\`, a byte below 0x20 or a byte from 0x80 up.
    StringSpecial,
}

/// Loads 16 bytes into a register.
#[inline]
#[target_feature(enable = "sse2")]
fn load(chunk: &[u8; LANES]) -> __m128i {
    // SAFETY: `chunk` is a reference to 16 initialized bytes, so the 16-byte
    // read is in bounds; `_mm_loadu_si128` has no alignment requirement.
    unsafe { _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>()) }
}

/// All ones in the lanes whose byte equals `byte`.
#[inline]
#[target_feature(enable = "sse2")]
fn eq(v: __m128i, byte: u8) -> __m128i {
    _mm_cmpeq_epi8(v, _mm_set1_epi8(byte as i8))
}

/// The top bit of each lane, as 16 bits.
#[inline]
#[target_feature(enable = "sse2")]
fn bits(v: __m128i) -> u64 {
    // movemask yields a non-negative i32 below 2^16
    u64::from(_mm_movemask_epi8(v) as u16)
}

#[inline]
#[target_feature(enable = "sse2")]
pub(super) fn classify(block: &[u8; BLOCK]) -> Masks {
    // `{` 0x7B / `[` 0x5B and `}` 0x7D / `]` 0x5D differ only in bit 0x20,
    // and no other bytes map onto 0x7B or 0x7D when that bit is set.
    let case = _mm_set1_epi8(0x20);
    let (chunks, _) = block.as_chunks::<LANES>();
    let mut masks = Masks::default();
    for (i, chunk) in chunks.iter().enumerate() {
        let v = load(chunk);
        let folded = _mm_or_si128(v, case);
        let shift = i * LANES;
        masks.quote |= bits(eq(v, b'"')) << shift;
        masks.backslash |= bits(eq(v, b'\\')) << shift;
        masks.open |= bits(eq(folded, b'{')) << shift;
        masks.close |= bits(eq(folded, b'}')) << shift;
        masks.colon |= bits(eq(v, b':')) << shift;
    }
    masks
}

/// The bytes equal to `a`, and those equal to `b`.
#[inline]
#[target_feature(enable = "sse2")]
pub(super) fn eq_pair(block: &[u8; BLOCK], a: u8, b: u8) -> (u64, u64) {
    let (chunks, _) = block.as_chunks::<LANES>();
    let mut masks = (0, 0);
    for (i, chunk) in chunks.iter().enumerate() {
        let v = load(chunk);
        let shift = i * LANES;
        masks.0 |= bits(eq(v, a)) << shift;
        masks.1 |= bits(eq(v, b)) << shift;
    }
    masks
}

#[inline]
#[target_feature(enable = "sse2")]
pub(super) fn classify_strict(block: &[u8; BLOCK]) -> StrictMasks {
    let case = _mm_set1_epi8(0x20);
    let low = _mm_set1_epi8(0x1F);
    let (chunks, _) = block.as_chunks::<LANES>();
    let mut strict = StrictMasks::default();
    for (i, chunk) in chunks.iter().enumerate() {
        let v = load(chunk);
        let folded = _mm_or_si128(v, case);
        let shift = i * LANES;
        let masks = &mut strict.masks;
        masks.quote |= bits(eq(v, b'"')) << shift;
        masks.backslash |= bits(eq(v, b'\\')) << shift;
        masks.open |= bits(eq(folded, b'{')) << shift;
        masks.close |= bits(eq(folded, b'}')) << shift;
        masks.colon |= bits(eq(v, b':')) << shift;
        strict.comma |= bits(eq(v, b',')) << shift;
        let ws = _mm_or_si128(
            _mm_or_si128(eq(v, b' '), eq(v, b'\t')),
            _mm_or_si128(eq(v, b'\n'), eq(v, b'\r')),
        );
        strict.ws |= bits(ws) << shift;
        // max(v, 0x1F) == 0x1F exactly when v <= 0x1F (unsigned)
        strict.control |= bits(_mm_cmpeq_epi8(_mm_max_epu8(v, low), low)) << shift;
        // a byte's top bit is what `movemask` gathers
        strict.high |= bits(v) << shift;
    }
    strict
}

/// The lanes of `chunk` holding a `needle` byte.
#[inline]
#[target_feature(enable = "sse2")]
fn mask(chunk: &[u8; LANES], needle: Needle) -> u64 {
    let v = load(chunk);
    let quote_or_backslash = _mm_or_si128(eq(v, b'"'), eq(v, b'\\'));
    match needle {
        Needle::QuoteOrBackslash => bits(quote_or_backslash),
        Needle::StringSpecial => {
            let low = _mm_set1_epi8(0x1F);
            // max(v, 0x1F) == 0x1F exactly when v <= 0x1F (unsigned)
            let control = _mm_cmpeq_epi8(_mm_max_epu8(v, low), low);
            // `v` itself carries the top bit of the non-ASCII bytes
            bits(_mm_or_si128(_mm_or_si128(quote_or_backslash, control), v))
        }
    }
}

/// [`find`], with the first 16 bytes looked at in the caller's own code: most
/// strings a member walk skips (keys, enum tags, short values) end there, and
/// the call and its tail handling cost more than the look.
#[inline(always)]
pub(super) fn find_near(bytes: &[u8], from: usize, needle: Needle) -> Option<usize> {
    if let Some(chunk) = bytes
        .get(from..)
        .and_then(|rest| rest.first_chunk::<LANES>())
    {
        // SAFETY: SSE2 is part of the target (this module is compiled only
        // then), so the target-feature functions may be called.
        let found = unsafe { mask(chunk, needle) };
        if found != 0 {
            return Some(from + found.trailing_zeros() as usize);
        }
        // SAFETY: as above.
        return unsafe { find(bytes, from + LANES, needle) };
    }
    // SAFETY: as above.
    unsafe { find(bytes, from, needle) }
}

/// First index at or after `from` holding a `needle` byte.
#[inline]
#[target_feature(enable = "sse2")]
pub(super) fn find(bytes: &[u8], from: usize, needle: Needle) -> Option<usize> {
    let mut at = from;
    while let Some(chunk) = bytes.get(at..).and_then(|rest| rest.first_chunk::<LANES>()) {
        let found = mask(chunk, needle);
        if found != 0 {
            return Some(at + found.trailing_zeros() as usize);
        }
        at += LANES;
    }
    let left = bytes.len().checked_sub(at).filter(|&n| n > 0)?;
    // Fewer than 16 bytes are left: look at the last 16 bytes of the input
    // again if there are that many, else at a zero-padded copy; either way
    // keep only the lanes of `at..len`.
    let found = match bytes.last_chunk::<LANES>() {
        Some(last) => mask(last, needle) >> (LANES - left),
        None => {
            let mut padded = [0u8; LANES];
            padded[..left].copy_from_slice(&bytes[at..]);
            mask(&padded, needle) & ((1u64 << left) - 1)
        }
    };
    (found != 0).then(|| at + found.trailing_zeros() as usize)
}
