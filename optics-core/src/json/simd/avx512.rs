//! The AVX-512 kernel: whole block scans compiled with AVX-512 (F and BW),
//! BMI1/BMI2, POPCNT and PCLMULQDQ. A 64-byte block is one register, and a
//! compare writes its 64-bit mask straight into a mask register: a class of
//! bytes costs two instructions (compare, move to a general register)
//! instead of AVX2's six. BMI gives the scans' bit tricks single
//! instructions (`blsr`, `tzcnt`, `shlx`).

use super::{
    block_end_by_table, clmul_prefix_xor, BlockScan, FeatureCheck, Kernel, Masks, StrictMasks,
    BLOCK,
};
use core::arch::x86_64::{
    __m512i, _mm512_cmpeq_epi8_mask, _mm512_cmple_epu8_mask, _mm512_loadu_si512,
    _mm512_mask_cmpeq_epi8_mask, _mm512_mask_cmpneq_epi8_mask, _mm512_movepi8_mask,
    _mm512_or_si512, _mm512_set1_epi8, _mm512_shuffle_epi8,
};

/// Proof that the CPU has the features: only [`run`] makes one, and only
/// [`available`] lets it be called.
#[derive(Clone, Copy)]
pub(super) struct Avx512 {
    _detected: (),
}

/// Whether the CPU has the features, detected once.
#[inline]
pub(super) fn available() -> bool {
    static CHECK: FeatureCheck = FeatureCheck::new();
    CHECK.get(|| {
        is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("bmi1")
            && is_x86_feature_detected!("bmi2")
            && is_x86_feature_detected!("popcnt")
            && is_x86_feature_detected!("pclmulqdq")
    })
}

/// Runs `scan` compiled with the features (its `run` is inlined here).
/// Calling it is `unsafe`; the caller must have checked [`available`].
#[target_feature(enable = "avx512f,avx512bw,bmi1,bmi2,popcnt,pclmulqdq")]
pub(super) fn run<S: BlockScan>(scan: &mut S) -> S::Output {
    scan.run(Avx512 { _detected: () })
}

impl Kernel for Avx512 {
    #[inline(always)]
    fn classify(self, block: &[u8; BLOCK]) -> Masks {
        // SAFETY: an `Avx512` exists only inside `run`, which is only called
        // once `available` has found AVX-512 F and BW on this CPU.
        unsafe { classify(block) }
    }

    #[inline(always)]
    fn prefix_xor(self, x: u64) -> u64 {
        // SAFETY: as above, for PCLMULQDQ (and SSE2, which x86_64 always has).
        unsafe { clmul_prefix_xor(x) }
    }

    #[inline(always)]
    fn classify_strict(self, block: &[u8; BLOCK]) -> StrictMasks {
        // SAFETY: as in `classify`.
        unsafe { classify_strict(block) }
    }

    #[inline(always)]
    fn eq_pair(self, block: &[u8; BLOCK], a: u8, b: u8) -> (u64, u64) {
        // SAFETY: as in `classify`.
        unsafe { eq_pair(block, a, b) }
    }

    #[inline(always)]
    fn key_colons(self, pair: &[u8; 2 * BLOCK], len: usize, first: u8, last: u8) -> u64 {
        // SAFETY: as in `classify`.
        unsafe { key_colons(pair, len, first, last) }
    }

    /// The table search for a block with more than one closer (at a depth
    /// of at least 1); the loop, one turn, for one closer. Only here:
    /// `pext` and `pdep` are slow on some CPUs with AVX2 and not AVX-512.
    #[inline(always)]
    fn block_end(self, open: u64, close: u64, depth: usize) -> u32 {
        if depth == 0 || close & close.wrapping_sub(1) == 0 {
            return super::block_end(open, close, depth);
        }
        // SAFETY: as in `classify`, for BMI2 and POPCNT.
        unsafe { block_end_by_table(open, close, depth) }
    }
}

/// [`Kernel::key_colons`]: five 64-byte windows of `pair`, the compares
/// after the colons' own masked by the ones before, so that one mask
/// leaves the mask registers.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn key_colons(pair: &[u8; 2 * BLOCK], len: usize, first: u8, last: u8) -> u64 {
    assert!((1..=62).contains(&len), "a key of 1 to 62 bytes");
    let from = BLOCK - len - 2;
    let at = |offset: usize| {
        load(
            pair[from + offset..]
                .first_chunk()
                .expect("a window within the pair"),
        )
    };
    let set = |byte: u8| _mm512_set1_epi8(byte as i8);
    let colon = _mm512_cmpeq_epi8_mask(at(len + 2), set(b':'));
    let plain_colon = _mm512_mask_cmpneq_epi8_mask(colon, at(len + 1), set(b'"'));
    let key = _mm512_mask_cmpeq_epi8_mask(colon, at(len), set(last));
    let key = _mm512_mask_cmpeq_epi8_mask(key, at(1), set(first));
    let key = _mm512_mask_cmpeq_epi8_mask(key, at(0), set(b'"'));
    plain_colon | key
}

/// The bytes equal to `a`, and those equal to `b`: two compares.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn eq_pair(block: &[u8; BLOCK], a: u8, b: u8) -> (u64, u64) {
    let v = load(block);
    (eq(v, a), eq(v, b))
}

/// The block as one register.
#[inline]
#[target_feature(enable = "avx512f")]
fn load(block: &[u8; BLOCK]) -> __m512i {
    // SAFETY: `block` is a reference to 64 initialized bytes, so the read is
    // in bounds; `_mm512_loadu_si512` has no alignment requirement.
    unsafe { _mm512_loadu_si512(block.as_ptr().cast::<__m512i>()) }
}

/// The bytes of `v` equal to `byte`.
#[inline]
#[target_feature(enable = "avx512bw")]
fn eq(v: __m512i, byte: u8) -> u64 {
    _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(byte as i8))
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn classify(block: &[u8; BLOCK]) -> Masks {
    let v = load(block);
    // see `sse2::classify` for the case fold of brackets
    let folded = _mm512_or_si512(v, _mm512_set1_epi8(0x20));
    Masks {
        quote: eq(v, b'"'),
        backslash: eq(v, b'\\'),
        open: eq(folded, b'{'),
        close: eq(folded, b'}'),
        colon: eq(v, b':'),
    }
}

/// [`classify`]'s masks, and commas, whitespace and control characters;
/// whitespace by one table lookup, as in `avx2::classify_strict`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn classify_strict(block: &[u8; BLOCK]) -> StrictMasks {
    #[rustfmt::skip]
    const WS: [i8; 16] = [0x20, -1, -1, -1, -1, -1, -1, -1, -1, 0x09, 0x0A, -1, -1, 0x0D, -1, 0];
    // the 16-byte table in each of the four 128-bit lanes
    const TABLE: [i8; BLOCK] = {
        let mut table = [0; BLOCK];
        let mut i = 0;
        while i < BLOCK {
            table[i] = WS[i % 16];
            i += 1;
        }
        table
    };
    // SAFETY: `TABLE` is 64 initialized bytes, so the read is in bounds;
    // `_mm512_loadu_si512` has no alignment requirement.
    let ws_table = unsafe { _mm512_loadu_si512(TABLE.as_ptr().cast::<__m512i>()) };
    let v = load(block);
    StrictMasks {
        masks: classify(block),
        comma: eq(v, b','),
        ws: _mm512_cmpeq_epi8_mask(_mm512_shuffle_epi8(ws_table, v), v),
        control: _mm512_cmple_epu8_mask(v, _mm512_set1_epi8(0x1F)),
        high: _mm512_movepi8_mask(v),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{agrees_with_scalar, json_byte, Classify};
    use super::super::BLOCK;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::scale::scaled(2000)))]

        #[test]
        fn avx512_kernel_agrees_with_scalar(
            bytes in prop::collection::vec(json_byte(), BLOCK),
            x: u64,
        ) {
            if !super::available() {
                eprintln!("no AVX-512 on this CPU: skipped");
                return Ok(());
            }
            let block: [u8; BLOCK] = bytes.try_into().unwrap();
            // SAFETY: `available` found the features on this CPU.
            let answers = unsafe { super::run(&mut Classify(&block, x)) };
            agrees_with_scalar(&block, x, answers)?;
        }
    }

    #[test]
    fn every_byte_value_classifies_like_the_oracle() {
        if !super::available() {
            eprintln!("no AVX-512 on this CPU: skipped");
            return;
        }
        for byte in 0..=255u8 {
            let mut block = [b' '; BLOCK];
            for (i, slot) in block.iter_mut().enumerate() {
                if i % 3 == 0 {
                    *slot = byte;
                }
            }
            // SAFETY: `available` found the features on this CPU.
            let answers = unsafe { super::run(&mut Classify(&block, u64::from(byte))) };
            if let Err(err) = agrees_with_scalar(&block, u64::from(byte), answers) {
                panic!("byte {byte:#x}: {err}");
            }
        }
    }
}
