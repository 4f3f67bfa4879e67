//! The AVX2 kernel: whole block scans compiled with AVX2, BMI1/BMI2, POPCNT and
//! PCLMULQDQ (BMI gives the scans' bit tricks single instructions: `blsr`,
//! `tzcnt`, `shlx`; callgrind: 3 to 6 % fewer instructions a message).

use super::{clmul_prefix_xor, BlockScan, FeatureCheck, Kernel, Masks, StrictMasks, BLOCK};
use core::arch::x86_64::{
    __m256i, _mm256_and_si256, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_max_epu8,
    _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8, _mm256_setr_epi8, _mm256_shuffle_epi8,
};

/// Proof that the CPU has AVX2, BMI1/2, POPCNT and PCLMULQDQ: only [`run`] makes one,
/// and only [`available`] lets it be called.
#[derive(Clone, Copy)]
pub(super) struct Avx2 {
    _detected: (),
}

/// Whether the CPU has the features, detected once.
#[inline]
pub(super) fn available() -> bool {
    static CHECK: FeatureCheck = FeatureCheck::new();
    CHECK.get(|| {
        is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("bmi1")
            && is_x86_feature_detected!("bmi2")
            && is_x86_feature_detected!("popcnt")
            && is_x86_feature_detected!("pclmulqdq")
    })
}

/// Runs `scan` compiled with the features (its `run` is inlined here).
/// Calling it is `unsafe`; the caller must have checked [`available`].
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,pclmulqdq")]
pub(super) fn run<S: BlockScan>(scan: &mut S) -> S::Output {
    scan.run(Avx2 { _detected: () })
}

impl Kernel for Avx2 {
    #[inline(always)]
    fn classify(self, block: &[u8; BLOCK]) -> Masks {
        // SAFETY: an `Avx2` exists only inside `run`, which is only called
        // once `available` has found AVX2 on this CPU.
        unsafe { classify(block) }
    }

    #[inline(always)]
    fn prefix_xor(self, x: u64) -> u64 {
        // SAFETY: as above, for PCLMULQDQ (and SSE2, which x86_64 always has).
        unsafe { clmul_prefix_xor(x) }
    }

    #[inline(always)]
    fn classify_strict(self, block: &[u8; BLOCK]) -> StrictMasks {
        // SAFETY: as in `classify`: an `Avx2` proves the CPU has AVX2.
        unsafe { classify_strict(block) }
    }

    #[inline(always)]
    fn eq_pair(self, block: &[u8; BLOCK], a: u8, b: u8) -> (u64, u64) {
        // SAFETY: as in `classify`: an `Avx2` proves the CPU has AVX2.
        unsafe { eq_pair(block, a, b) }
    }

    #[inline(always)]
    fn key_colons(self, pair: &[u8; 2 * BLOCK], len: usize, first: u8, last: u8) -> u64 {
        assert!((1..=62).contains(&len), "a key of 1 to 62 bytes");
        // The colons and quotes are the block's own masks (the walk has
        // them already: the compiler shares the compares); only the key's
        // three bytes are compared where they stand.
        let masks = self.classify(pair[BLOCK..].first_chunk().expect("a block"));
        let after_quote = (masks.quote << 1) | u64::from(pair[BLOCK - 1] == b'"');
        // SAFETY: as in `classify`.
        let key = unsafe { key_ends(pair, len, first, last) };
        masks.colon & (!after_quote | key)
    }
}

/// For [`Kernel::key_colons`]: bit `i` set where the bytes `len + 2` to 2
/// before byte `i` of `pair`'s second block could open a key of `len` bytes
/// (1 to 62) from `first` to `last` (a `"`, `first`, ..., `last`), 32 lanes
/// at a time, the three compares combined as vectors.
#[inline]
#[target_feature(enable = "avx2")]
fn key_ends(pair: &[u8; 2 * BLOCK], len: usize, first: u8, last: u8) -> u64 {
    const LANES: usize = 32;
    let from = BLOCK - len - 2;
    let eq = |offset: usize, byte: u8| {
        let window: &[u8; LANES] = pair[from + offset..]
            .first_chunk()
            .expect("a window within the pair");
        // SAFETY: `window` is a reference to 32 initialized bytes, so the
        // read is in bounds; `_mm256_loadu_si256` has no alignment
        // requirement.
        let v = unsafe { _mm256_loadu_si256(window.as_ptr().cast::<__m256i>()) };
        _mm256_cmpeq_epi8(v, _mm256_set1_epi8(byte as i8))
    };
    let mut mask = 0;
    for half in 0..2 {
        let o = half * LANES;
        let key = _mm256_and_si256(
            _mm256_and_si256(eq(o, b'"'), eq(o + 1, first)),
            eq(o + len, last),
        );
        mask |= u64::from(_mm256_movemask_epi8(key) as u32) << o;
    }
    mask
}

/// The bytes equal to `a`, and those equal to `b`.
#[inline]
#[target_feature(enable = "avx2")]
fn eq_pair(block: &[u8; BLOCK], a: u8, b: u8) -> (u64, u64) {
    const LANES: usize = 32;
    let (chunks, _) = block.as_chunks::<LANES>();
    let mut masks = (0, 0);
    for (i, chunk) in chunks.iter().enumerate() {
        // SAFETY: `chunk` is a reference to 32 initialized bytes, so the read
        // is in bounds; `_mm256_loadu_si256` has no alignment requirement.
        let v = unsafe { _mm256_loadu_si256(chunk.as_ptr().cast::<__m256i>()) };
        let bits = |byte: u8| {
            let m = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(byte as i8));
            u64::from(_mm256_movemask_epi8(m) as u32) << (i * LANES)
        };
        masks.0 |= bits(a);
        masks.1 |= bits(b);
    }
    masks
}

#[inline]
#[target_feature(enable = "avx2")]
fn classify(block: &[u8; BLOCK]) -> Masks {
    const LANES: usize = 32;
    let case = _mm256_set1_epi8(0x20);
    let eq = |v: __m256i, byte: u8| _mm256_cmpeq_epi8(v, _mm256_set1_epi8(byte as i8));
    let (chunks, _) = block.as_chunks::<LANES>();
    let mut masks = Masks::default();
    for (i, chunk) in chunks.iter().enumerate() {
        // SAFETY: `chunk` is a reference to 32 initialized bytes, so the read
        // is in bounds; `_mm256_loadu_si256` has no alignment requirement.
        let v = unsafe { _mm256_loadu_si256(chunk.as_ptr().cast::<__m256i>()) };
        // see `sse2::classify` for the case fold of brackets
        let folded = _mm256_or_si256(v, case);
        let bits = |m: __m256i| u64::from(_mm256_movemask_epi8(m) as u32) << (i * LANES);
        masks.quote |= bits(eq(v, b'"'));
        masks.backslash |= bits(eq(v, b'\\'));
        masks.open |= bits(eq(folded, b'{'));
        masks.close |= bits(eq(folded, b'}'));
        masks.colon |= bits(eq(v, b':'));
    }
    masks
}

/// [`classify`]'s masks, and commas, whitespace and control characters.
/// Whitespace by one table lookup: the byte whose low nibble indexes the
/// table equals the table's entry only for ` `, `\t`, `\n` and `\r` (bytes
/// from 0x80 look up 0, which no such byte equals).
#[inline]
#[target_feature(enable = "avx2")]
fn classify_strict(block: &[u8; BLOCK]) -> StrictMasks {
    const LANES: usize = 32;
    let case = _mm256_set1_epi8(0x20);
    let low = _mm256_set1_epi8(0x1F);
    #[rustfmt::skip]
    let ws_table = _mm256_setr_epi8(
        0x20, -1, -1, -1, -1, -1, -1, -1, -1, 0x09, 0x0A, -1, -1, 0x0D, -1, 0,
        0x20, -1, -1, -1, -1, -1, -1, -1, -1, 0x09, 0x0A, -1, -1, 0x0D, -1, 0,
    );
    let eq = |v: __m256i, byte: u8| _mm256_cmpeq_epi8(v, _mm256_set1_epi8(byte as i8));
    let (chunks, _) = block.as_chunks::<LANES>();
    let mut strict = StrictMasks::default();
    for (i, chunk) in chunks.iter().enumerate() {
        // SAFETY: `chunk` is a reference to 32 initialized bytes, so the read
        // is in bounds; `_mm256_loadu_si256` has no alignment requirement.
        let v = unsafe { _mm256_loadu_si256(chunk.as_ptr().cast::<__m256i>()) };
        let folded = _mm256_or_si256(v, case);
        let bits = |m: __m256i| u64::from(_mm256_movemask_epi8(m) as u32) << (i * LANES);
        let masks = &mut strict.masks;
        masks.quote |= bits(eq(v, b'"'));
        masks.backslash |= bits(eq(v, b'\\'));
        masks.open |= bits(eq(folded, b'{'));
        masks.close |= bits(eq(folded, b'}'));
        masks.colon |= bits(eq(v, b':'));
        strict.comma |= bits(eq(v, b','));
        strict.ws |= bits(_mm256_cmpeq_epi8(_mm256_shuffle_epi8(ws_table, v), v));
        strict.control |= bits(_mm256_cmpeq_epi8(_mm256_max_epu8(v, low), low));
        // a byte's top bit is what `movemask` gathers
        strict.high |= bits(v);
    }
    strict
}

#[cfg(test)]
mod tests {
    use super::super::tests::{agrees_with_scalar, json_byte, Classify};
    use super::super::BLOCK;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::scale::scaled(2000)))]

        #[test]
        fn avx2_kernel_agrees_with_scalar(
            bytes in prop::collection::vec(json_byte(), BLOCK),
            x: u64,
        ) {
            if !super::available() {
                eprintln!("no AVX2 on this CPU: skipped");
                return Ok(());
            }
            let block: [u8; BLOCK] = bytes.try_into().unwrap();
            // SAFETY: `available` found the features on this CPU.
            let answers = unsafe { super::run(&mut Classify(&block, x)) };
            agrees_with_scalar(&block, x, answers)?;
        }
    }
}
