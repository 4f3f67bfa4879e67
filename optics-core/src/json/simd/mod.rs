//! Byte classification for the JSON scanner: the crate's only `unsafe` code.
//!
//! Everything here is a safe function over byte slices. On x86_64 the work is
//! done with SSE2, which is part of the x86_64 baseline, so it needs no runtime
//! detection; the only `unsafe` operations are the unaligned loads, each from an
//! array reference that the type system proves readable. On other architectures
//! the naive scalar versions are used directly.
//!
//! Block scans (skipping a container 64 bytes at a time) are written once, generic
//! over a [`Kernel`], and [`dispatch`] runs them with the best kernel the CPU
//! has: on x86_64 CPUs with AVX2, BMI1/2, POPCNT and PCLMULQDQ (checked once at run time)
//! the whole scan is compiled for those features, which halves the cost of
//! classifying a block and makes popcounts and prefix xors single instructions
//! (measured: a 3.9 KB object skips in ~215 ns instead of ~440 ns). On CPUs
//! with AVX-512 (F and BW) and BMI1/2 a block is one register and each mask
//! one compare: measured in `benches/triage.rs` beside the AVX2 kernel in
//! the same run, it validates a 4.2 KB message 1.10× and confirms a missing
//! key 1.12× as fast (the classification floor of the bytes in front of
//! the demo's `detail`: 133 ns, against 200 ns with AVX2 in a run before).
//!
//! ```text
//!  block (64 bytes):  {"a":"x\"}",[1]}
//!  quote              .1.1.1..1.1.....   (escaped ones included: the caller
//!  backslash          .......1........    resolves escapes and strings)
//!  open  ({ or [)     1...........1...
//!  close (} or ])     .........1....11
//! ```
//!
//! One file per instruction set:
//!
//! | file        | what it holds                                                                         |
//! |-------------|---------------------------------------------------------------------------------------|
//! | `mod.rs`    | [`Masks`], [`StrictMasks`], the [`Kernel`] and [`BlockScan`] traits, [`dispatch`]       |
//! | `scalar.rs` | one byte at a time: the oracle every kernel is tested against, and the fallback       |
//! | `sse2.rs`   | x86_64's baseline: 16-byte compares, no detection needed                              |
//! | `avx2.rs`   | x86_64 with AVX2, BMI1/2, POPCNT and PCLMULQDQ, detected once: whole scans compiled for them |
//! | `avx512.rs` | x86_64 with AVX-512 F/BW and BMI1/2 as well: a block is one register, a mask one compare |
//!
//! A kernel classifies a block two ways: [`Kernel::classify`] for the scans
//! (quotes, backslashes, brackets, colons) and [`Kernel::classify_strict`] for
//! strict mode (also commas, whitespace by one table lookup, control bytes).
//! [`dispatch_as`] runs a scan with a kernel of the caller's choice (the
//! scalar one included), so that tests check every kernel the machine has
//! against the scalar oracle on whole scans, not only on single blocks.
//!
//! # Adding a kernel (NEON, say)
//!
//! 1. A file `neon.rs`, declared here under `#[cfg(target_arch = "aarch64")]`,
//!    with a zero-sized type that implements [`Kernel`] (`classify` and
//!    `classify_strict` with 16-byte compares, `prefix_xor` with a carry-less
//!    multiply) and a `run` compiled
//!    with `#[target_feature(enable = "...")]` that calls `scan.run(kernel)`, as
//!    `avx2.rs` does. Every `unsafe` block gets its `// SAFETY:` comment (denied
//!    otherwise) and every `unsafe fn` its `# Safety` section.
//! 2. A branch in [`dispatch`] that calls that `run` once the CPU is known to
//!    have the features (NEON is part of the aarch64 baseline; anything else is
//!    detected once, as `avx2::available` does).
//! 3. If it also serves single calls, a `cfg` arm in [`classify`],
//!    [`find_quote_or_backslash`] and [`find_string_special`].
//! 4. A property test that checks it against `scalar.rs`, as `avx2.rs` has, and
//!    a [`KernelChoice`] for it, so that `tests/block_walk_oracle.rs` and
//!    `tests/validate_oracle.rs` run their whole scans with it.
#![deny(clippy::undocumented_unsafe_blocks)]
#![deny(unsafe_op_in_unsafe_fn)]

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
mod scalar;
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod sse2;

pub use scalar::{
    classify_scalar, classify_strict_scalar, eq_pair_scalar, find_quote_or_backslash_scalar,
    find_string_special_scalar, key_colons_scalar,
};

/// A CPU feature check made once and remembered, for the kernels that are
/// detected at run time.
#[cfg(target_arch = "x86_64")]
struct FeatureCheck(std::sync::atomic::AtomicU8);

#[cfg(target_arch = "x86_64")]
impl FeatureCheck {
    /// Not checked yet.
    const fn new() -> Self {
        FeatureCheck(std::sync::atomic::AtomicU8::new(FeatureCheck::UNKNOWN))
    }

    const UNKNOWN: u8 = 0;
    const ABSENT: u8 = 1;
    const PRESENT: u8 = 2;

    /// Whether `detect` finds the features: runs it the first time only.
    #[inline]
    fn get(&self, detect: fn() -> bool) -> bool {
        use std::sync::atomic::Ordering;
        match self.0.load(Ordering::Relaxed) {
            FeatureCheck::UNKNOWN => {
                let present = detect();
                let state = match present {
                    true => FeatureCheck::PRESENT,
                    false => FeatureCheck::ABSENT,
                };
                self.0.store(state, Ordering::Relaxed);
                present
            }
            known => known == FeatureCheck::PRESENT,
        }
    }
}

/// Carry-less multiplication by all ones is the prefix xor (the x86_64
/// kernels' [`Kernel::prefix_xor`]).
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "pclmulqdq")]
fn clmul_prefix_xor(x: u64) -> u64 {
    use core::arch::x86_64::{
        _mm_clmulepi64_si128, _mm_cvtsi128_si64, _mm_cvtsi64_si128, _mm_set1_epi8,
    };
    let product = _mm_clmulepi64_si128(_mm_cvtsi64_si128(x as i64), _mm_set1_epi8(-1), 0);
    _mm_cvtsi128_si64(product) as u64
}

/// The number of bytes [`classify`] looks at.
pub const BLOCK: usize = 64;

/// Bitmasks over one 64-byte block: bit `i` describes byte `i`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Masks {
    /// Bytes equal to `"`.
    pub quote: u64,
    /// Bytes equal to `\`.
    pub backslash: u64,
    /// Bytes equal to `{` or `[`.
    pub open: u64,
    /// Bytes equal to `}` or `]`.
    pub close: u64,
    /// Bytes equal to `:`.
    pub colon: u64,
}

/// Bitmasks over one 64-byte block for strict validation: [`Masks`] and the
/// bytes the grammar also needs to see.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StrictMasks {
    /// The masks the scans use.
    pub masks: Masks,
    /// Bytes equal to `,`.
    pub comma: u64,
    /// JSON whitespace: space, `\t`, `\n`, `\r`.
    pub ws: u64,
    /// Bytes below 0x20 (control characters; the whitespace among them too).
    pub control: u64,
    /// Bytes from 0x80 up (not ASCII: part of a multi-byte UTF-8 character,
    /// if the input is UTF-8 there).
    pub high: u64,
}

/// Classifies a 64-byte block into quote, backslash, opener, closer and colon
/// masks.
///
/// O(1): four 16-byte SSE2 compares on x86_64, a 64-byte loop elsewhere; nothing
/// allocated. Strings and escapes are not interpreted here.
#[inline]
pub fn classify(block: &[u8; BLOCK]) -> Masks {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        // SAFETY: this is compiled only where SSE2 is enabled for the target
        // (every x86_64 target), so the CPU running it has SSE2.
        unsafe { sse2::classify(block) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        classify_scalar(block)
    }
}

/// Index of the first `"` or `\` at or after `from`, or `None` if there is none
/// (or `from` is past the end).
///
/// O(distance to the hit), 16 bytes at a time on x86_64; nothing allocated.
#[inline]
pub fn find_quote_or_backslash(bytes: &[u8], from: usize) -> Option<usize> {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        sse2::find_near(bytes, from, sse2::Needle::QuoteOrBackslash)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        find_quote_or_backslash_scalar(bytes, from)
    }
}

/// Index of the first byte at or after `from` that a strict string scan must
/// look at: `"`, `\`, a control character (below 0x20) or a non-ASCII byte.
///
/// O(distance to the hit), 16 bytes at a time on x86_64; nothing allocated.
#[inline]
pub fn find_string_special(bytes: &[u8], from: usize) -> Option<usize> {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        // SAFETY: as in `classify`, SSE2 is enabled for the target.
        unsafe { sse2::find(bytes, from, sse2::Needle::StringSpecial) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        find_string_special_scalar(bytes, from)
    }
}

/// How far ahead of the block it reads the one-key walk asks for the bytes
/// ([`prefetch_ahead`]): 8 blocks. 256 bytes paid less, 1 KiB less again,
/// and 2 KiB made the walk slower than none.
pub(crate) const PREFETCH_AHEAD: usize = 512;

/// Asks the CPU to bring the cache line [`PREFETCH_AHEAD`] bytes after
/// `start` into its nearest cache, if that byte is in `bytes`
/// ([`prefetch_at`]).
///
/// The one-key walk calls it for each block: it reads the bytes at about
/// 12 GB/s, faster than the hardware's own prefetch brings them in from
/// beyond the L2 (a message another core has just written, in the filter).
/// The classification floor does too, so that it stays a floor. So does
/// the validator: over a message in its own core's cache it runs about 5 %
/// slower with it, but the filter's judges read messages another core has
/// just written, and there the strict judge gains more (the in-memory pipe
/// and end to end: see "What is fast" in `docs/performance-log.md`).
#[inline(always)]
pub(crate) fn prefetch_ahead(bytes: &[u8], start: usize) {
    prefetch_at(bytes, start + PREFETCH_AHEAD);
}

/// [`prefetch_ahead`] for a walk that reads its blocks backward (a late
/// field looked for from its object's end): the line [`PREFETCH_AHEAD`]
/// bytes before `start`, or, nearer the start, the first line of `bytes`
/// again (one more request for a line already asked for, and no branch).
#[inline(always)]
pub(crate) fn prefetch_behind(bytes: &[u8], start: usize) {
    prefetch_at(bytes, start.saturating_sub(PREFETCH_AHEAD));
}

/// Asks for every cache line that holds a byte of `bytes[from..to]`
/// ([`prefetch_at`] a 64-byte step apart, and the last byte's line).
#[inline(always)]
pub(crate) fn prefetch_span(bytes: &[u8], from: usize, to: usize) {
    for at in (from..to).step_by(BLOCK) {
        prefetch_at(bytes, at);
    }
    if to > from {
        prefetch_at(bytes, to - 1);
    }
}

/// Asks the CPU to bring the cache line that holds byte `at` of `bytes` into
/// its nearest cache, if there is such a byte. A hint: it cannot fault and
/// changes nothing that is read. A bounds check and one instruction on
/// x86_64 (nothing elsewhere).
#[inline(always)]
pub(crate) fn prefetch_at(bytes: &[u8], at: usize) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if let Some(byte) = bytes.get(at) {
        // SAFETY: a prefetch reads nothing and cannot fault (the address is
        // in `bytes` all the same); SSE is part of the x86_64 baseline.
        unsafe {
            core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
                core::ptr::from_ref(byte).cast::<i8>(),
            );
        }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    let _ = (bytes, at);
}

/// `bytes` as text if every byte is ASCII, `None` otherwise. ASCII is valid
/// UTF-8, so a short string the leaf decoder has already seen to be ASCII is
/// text without a call to `core::str::from_utf8` (whose set-up costs more
/// than reading `"Sev1"`).
///
/// O(n), a word at a time; nothing allocated.
#[inline]
pub(crate) fn ascii_str(bytes: &[u8]) -> Option<&str> {
    if !bytes.is_ascii() {
        return None;
    }
    // SAFETY: every byte is below 0x80, and a sequence of such bytes is valid
    // UTF-8 (each one a whole character).
    Some(unsafe { core::str::from_utf8_unchecked(bytes) })
}

/// The text of `bytes` when they are exactly one JSON string written
/// plainly in printable ASCII: `"`, then bytes from 0x20 to 0x7F but `"` and
/// `\`, then `"`. `None` for anything else (escapes, control characters,
/// non-ASCII text, bytes after the string), where the caller reads the
/// string its general way.
///
/// For a leaf such as `"Sev1"`: the text is checked in one to a few
/// overlapping word loads, not byte by byte, and ASCII is valid UTF-8 as it
/// stands.
#[inline(always)]
pub(crate) fn plain_ascii_string(bytes: &[u8]) -> Option<&str> {
    let [b'"', text @ .., b'"'] = bytes else {
        return None;
    };
    if !plain_ascii(text) {
        return None;
    }
    // SAFETY: every byte of `text` is below 0x80 (checked just above), and
    // a sequence of such bytes is valid UTF-8 (each one a whole character).
    Some(unsafe { core::str::from_utf8_unchecked(text) })
}

/// Whether every byte of `text` is printable ASCII but `"` and `\` (from
/// 0x20 to 0x7F): overlapping loads cover any length, each word tested at
/// once for the bytes that are not.
#[inline(always)]
fn plain_ascii(text: &[u8]) -> bool {
    const ONES: u64 = u64::from_le_bytes([0x01; 8]);
    const TOPS: u64 = u64::from_le_bytes([0x80; 8]);
    // `a` in every byte: the filler of the bytes a short text leaves.
    const FILLER: u64 = u64::from_le_bytes([b'a'; 8]);
    // The top bit of a byte set where the byte is `"`, `\`, below 0x20
    // or not ASCII (a borrow only crosses from a byte that is one of them,
    // so the word has none exactly where this is 0).
    let enders = |word: u64| {
        let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x;
        let quote = zero_byte(word ^ (ONES * u64::from(b'"')));
        let backslash = zero_byte(word ^ (ONES * u64::from(b'\\')));
        let control = word.wrapping_sub(ONES * 0x20) & !word;
        (quote | backslash | control | word) & TOPS
    };
    let word = |at: usize| {
        text.get(at..at + 8)
            .map_or(0, |w| u64::from_le_bytes(w.try_into().unwrap_or([0x80; 8])))
    };
    let half = |at: usize| {
        text.get(at..at + 4).map_or(0x80, |w| {
            u32::from_le_bytes(w.try_into().unwrap_or([0x80; 4]))
        })
    };
    let len = text.len();
    match len {
        0 => true,
        1..4 => {
            let byte = |at: usize| text.get(at).map_or(0x80, |&b| u64::from(b));
            let word = (FILLER & !0xFF_FFFF) | byte(0) | byte(len / 2) << 8 | byte(len - 1) << 16;
            enders(word) == 0
        }
        4..8 => enders(u64::from(half(0)) | u64::from(half(len - 4)) << 32) == 0,
        8..=16 => (enders(word(0)) | enders(word(len - 8))) == 0,
        _ => plain_ascii_long(text),
    }
}

/// [`plain_ascii`] of a text longer than 16 bytes, a call of its own: the
/// leaves it reads are mostly shorter, and their checks then keep their
/// masks in the caller's scratch registers.
#[inline(never)]
fn plain_ascii_long(text: &[u8]) -> bool {
    text.chunks(16).all(plain_ascii)
}

/// A block scan written once and compiled for each [`Kernel`]: [`dispatch`] calls
/// `run` with the best kernel available.
///
/// `run` should be `#[inline(always)]`: it is then compiled inside the kernel's
/// `#[target_feature]` function, with the kernel's instructions.
pub trait BlockScan {
    /// What the scan returns.
    type Output;
    /// Runs the scan, classifying blocks with `kernel`. (By reference: copying
    /// the scan's state into the call would stall on store forwarding.)
    fn run<K: Kernel>(&mut self, kernel: K) -> Self::Output;
}

/// Block-level operations a [`BlockScan`] uses.
pub trait Kernel: Copy {
    /// Same as [`classify`].
    fn classify(self, block: &[u8; BLOCK]) -> Masks;
    /// Bit `i` of the result is the parity of bits `0..=i` of `x`: with the bits
    /// of unescaped quotes, the bytes inside strings (opening quote included).
    fn prefix_xor(self, x: u64) -> u64;
    /// Same as [`classify_strict_scalar`], with this kernel's instructions.
    fn classify_strict(self, block: &[u8; BLOCK]) -> StrictMasks;
    /// Same as [`eq_pair_scalar`]: the bytes equal to `a`, and those equal to
    /// `b` (a key's first and last byte, for the key search's filter).
    fn eq_pair(self, block: &[u8; BLOCK], a: u8, b: u8) -> (u64, u64);
    /// The bytes equal to `byte`: one compare ([`Kernel::eq_pair`] with the
    /// same byte twice, whose second compare the compiler folds away).
    #[inline(always)]
    fn eq(self, block: &[u8; BLOCK], byte: u8) -> u64 {
        self.eq_pair(block, byte, byte).0
    }
    /// Same as [`key_colons_scalar`] on the second of the two blocks in
    /// `pair`: its colons that may end a plainly written key of `len` bytes
    /// from `first` to `last` (or that stand after no quote), the bytes
    /// before them compared where they stand, in it or in the block below.
    /// This default takes the colons and quotes from the block's masks
    /// (a walk that has classified the block shares the compares) and
    /// compares the key's three bytes in three unaligned windows; the AVX2
    /// kernel combines those as vectors, the AVX-512 kernel compares all
    /// five windows under masks (each what measured fastest for it).
    ///
    /// # Panics
    ///
    /// If `len` is 0 or over 62.
    #[inline(always)]
    fn key_colons(self, pair: &[u8; 2 * BLOCK], len: usize, first: u8, last: u8) -> u64 {
        assert!((1..=62).contains(&len), "a key of 1 to 62 bytes");
        let masks = self.classify(pair[BLOCK..].first_chunk().expect("a block"));
        let after_quote = (masks.quote << 1) | u64::from(pair[BLOCK - 1] == b'"');
        let from = BLOCK - len - 2;
        let window = |offset: usize| {
            pair[from + offset..]
                .first_chunk::<BLOCK>()
                .expect("within the pair")
        };
        let key = self.eq(window(0), b'"') & self.eq(window(1), first) & self.eq(window(len), last);
        masks.colon & (!after_quote | key)
    }

    /// Same as [`block_end`]: the closer at which the depth, `depth` before
    /// the block, first comes back to 0, or 64. This default is that loop
    /// over the closers; the AVX-512 kernel searches a block with more than
    /// one closer in a table instead ([`block_end_by_table`]).
    #[inline(always)]
    fn block_end(self, open: u64, close: u64, depth: usize) -> u32 {
        block_end(open, close, depth)
    }
}

/// The bit of the closer in a block at which the depth, `depth` before the
/// block, first comes back to 0 (its container's end), or 64 if none does;
/// `open` and `close` are the block's brackets outside strings. Brackets move
/// the depth one at a time, so the first closer that brings it to 0 is found
/// by comparing popcounts at each closer: a loop with one branch a closer.
/// The oracle of [`Kernel::block_end`].
#[inline(always)]
pub(crate) fn block_end(open: u64, close: u64, depth: usize) -> u32 {
    let mut rest = close;
    while rest != 0 {
        let at = rest.trailing_zeros();
        let through = u64::MAX >> (63 - at);
        if depth + (open & through).count_ones() as usize == (close & through).count_ones() as usize
        {
            return at;
        }
        rest &= rest - 1;
    }
    BLOCK as u32
}

/// For each byte of a sequence of brackets (bit set: an opener, +1; clear: a
/// closer, -1; bit 0 first): the lowest sum over its prefixes (0 to -8), the
/// sum of all eight, and for `j` in 1..=8 the bit at which the sum first
/// reaches `-j` (8 if it never does).
#[cfg(target_arch = "x86_64")]
struct Excess {
    lowest: [i8; 256],
    total: [i8; 256],
    first: [[u8; 8]; 256],
}

/// [`Excess`] for every byte, built at compile time (2.5 KB).
#[cfg(target_arch = "x86_64")]
static EXCESS: Excess = {
    let mut table = Excess {
        lowest: [0; 256],
        total: [0; 256],
        first: [[8; 8]; 256],
    };
    let mut byte = 0;
    while byte < 256 {
        let (mut sum, mut lowest) = (0i8, 0i8);
        let mut bit = 0;
        while bit < 8 {
            sum += if (byte >> bit) & 1 == 1 { 1 } else { -1 };
            if sum < lowest {
                // Each new low is one below the last: `-sum` is reached here
                // first.
                lowest = sum;
                table.first[byte][(-sum - 1) as usize] = bit as u8;
            }
            bit += 1;
        }
        table.lowest[byte] = lowest;
        table.total[byte] = sum;
        byte += 1;
    }
    table
};

/// [`block_end`] (for `depth` of at least 1) without a branch a closer: the
/// block's brackets gathered in order into one word (`pext` of the openers
/// among them) and searched eight at a time in [`EXCESS`], the closer found
/// put back in its place by `pdep`. A block's brackets take one or two
/// lookups. In the profiling loop (AVX-512, paired rounds) a skip of a
/// whole message, whose blocks at depth 1 and 2 often hold closers, took
/// 0.58x the time of the loop, the judges the same time; the walks that
/// look for a key keep the loop (with it there a missing key and the
/// validated view took 1.01x to 1.02x the time).
///
/// # Panics
///
/// In debug builds, if `depth` is 0.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "bmi2,popcnt")]
fn block_end_by_table(open: u64, close: u64, depth: usize) -> u32 {
    use core::arch::x86_64::{_pdep_u64, _pext_u64};
    debug_assert!(depth >= 1, "the table finds a fall below the block's start");
    let brackets = open | close;
    let order = _pext_u64(open, brackets);
    let count = brackets.count_ones();
    // The sum of the brackets read so far; the end is where it first
    // reaches `-depth`.
    let mut sum = 0isize;
    let mut from = 0;
    while from < count {
        // Past the last bracket, openers: they never bring the sum down.
        let pad = if count - from < 8 {
            0xFF << (count - from)
        } else {
            0
        };
        let byte = ((order >> from) as usize | pad) & 0xFF;
        if sum + EXCESS.lowest[byte] as isize <= -(depth as isize) {
            let reach = (depth as isize + sum) as usize;
            let nth = from + u32::from(EXCESS.first[byte][reach - 1]);
            return _pdep_u64(1 << nth, brackets).trailing_zeros();
        }
        sum += EXCESS.total[byte] as isize;
        from += 8;
    }
    BLOCK as u32
}

/// The kernel every CPU has: SSE2 on x86_64, scalar elsewhere.
#[derive(Clone, Copy, Debug)]
pub struct Baseline;

impl Kernel for Baseline {
    #[inline(always)]
    fn classify(self, block: &[u8; BLOCK]) -> Masks {
        classify(block)
    }

    #[inline(always)]
    fn prefix_xor(self, x: u64) -> u64 {
        scalar::prefix_xor(x)
    }

    #[inline(always)]
    fn classify_strict(self, block: &[u8; BLOCK]) -> StrictMasks {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        {
            // SAFETY: as in `classify`, SSE2 is enabled for the target.
            unsafe { sse2::classify_strict(block) }
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
        {
            classify_strict_scalar(block)
        }
    }

    #[inline(always)]
    fn eq_pair(self, block: &[u8; BLOCK], a: u8, b: u8) -> (u64, u64) {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        {
            // SAFETY: as in `classify`, SSE2 is enabled for the target.
            unsafe { sse2::eq_pair(block, a, b) }
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
        {
            eq_pair_scalar(block, a, b)
        }
    }
}

/// The one-byte-at-a-time kernel: the oracle the others are tested against,
/// run as a whole scan (tests and benches only).
#[derive(Clone, Copy, Debug)]
pub struct Scalar;

impl Kernel for Scalar {
    #[inline(always)]
    fn classify(self, block: &[u8; BLOCK]) -> Masks {
        classify_scalar(block)
    }

    #[inline(always)]
    fn prefix_xor(self, x: u64) -> u64 {
        scalar::prefix_xor(x)
    }

    #[inline(always)]
    fn classify_strict(self, block: &[u8; BLOCK]) -> StrictMasks {
        classify_strict_scalar(block)
    }

    #[inline(always)]
    fn eq_pair(self, block: &[u8; BLOCK], a: u8, b: u8) -> (u64, u64) {
        eq_pair_scalar(block, a, b)
    }

    #[inline(always)]
    fn key_colons(self, pair: &[u8; 2 * BLOCK], len: usize, first: u8, last: u8) -> u64 {
        key_colons_scalar(pair, len, first, last)
    }
}

/// Which kernel a scan runs with, for tests that check every kernel the
/// machine has against the scalar one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelChoice {
    /// What the dispatch picks (AVX-512 where the CPU has it, else AVX2).
    Best,
    /// AVX2 on x86_64 CPUs that have it (the baseline elsewhere).
    Avx2,
    /// SSE2 on x86_64 (the scalar kernel elsewhere).
    Baseline,
    /// One byte at a time.
    Scalar,
}

/// Runs `scan` with the kernel `choice` names.
pub fn dispatch_as<S: BlockScan>(scan: &mut S, choice: KernelChoice) -> S::Output {
    match choice {
        KernelChoice::Best => dispatch(scan),
        #[cfg(target_arch = "x86_64")]
        KernelChoice::Avx2 if avx2::available() => {
            // SAFETY: `available` checked at run time that the CPU has AVX2,
            // BMI1/2, POPCNT and PCLMULQDQ, the features `avx2::run` is
            // compiled with.
            unsafe { avx2::run(scan) }
        }
        KernelChoice::Avx2 | KernelChoice::Baseline => scan.run(Baseline),
        KernelChoice::Scalar => scan.run(Scalar),
    }
}

/// Runs `scan` with the best kernel this CPU has.
///
/// O(1) beyond the scan itself: one cached feature check.
#[inline]
pub fn dispatch<S: BlockScan>(scan: &mut S) -> S::Output {
    #[cfg(target_arch = "x86_64")]
    if avx512::available() {
        // SAFETY: `available` checked at run time that the CPU has AVX-512 F
        // and BW, BMI1, BMI2, POPCNT and PCLMULQDQ, the features
        // `avx512::run` is compiled with.
        return unsafe { avx512::run(scan) };
    }
    #[cfg(target_arch = "x86_64")]
    if avx2::available() {
        // SAFETY: `available` checked at run time that the CPU has AVX2,
        // BMI1/2, POPCNT and PCLMULQDQ, the features `avx2::run` is compiled
        // with.
        return unsafe { avx2::run(scan) };
    }
    scan.run(Baseline)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Bytes biased towards what the classifiers look for.
    pub(super) fn json_byte() -> impl Strategy<Value = u8> {
        prop_oneof![
            3 => prop::sample::select(b"\"\\{}[]:, \n\x1fa0\x7f\x80\xff".to_vec()),
            1 => any::<u8>(),
        ]
    }

    /// A kernel's three answers on one block: what each kernel's own test
    /// runs under its `run`, and compares with [`agrees_with_scalar`].
    pub(super) struct Classify<'a>(pub(super) &'a [u8; BLOCK], pub(super) u64);

    /// The two bytes `eq_pair` is asked for on the block under test: bytes of
    /// the block itself where it has them, so that the masks are not empty.
    fn pair_for(block: &[u8; BLOCK], x: u64) -> (u8, u8) {
        (
            block[(x % 64) as usize],
            block[((x >> 6) % 64) as usize] ^ (x >> 12) as u8 & 1,
        )
    }

    impl BlockScan for Classify<'_> {
        type Output = (Masks, u64, StrictMasks, (u64, u64));
        #[inline(always)]
        fn run<K: Kernel>(&mut self, kernel: K) -> Self::Output {
            let (a, b) = pair_for(self.0, self.1);
            (
                kernel.classify(self.0),
                kernel.prefix_xor(self.1),
                kernel.classify_strict(self.0),
                kernel.eq_pair(self.0, a, b),
            )
        }
    }

    /// Checks a kernel's answers on `block` (and `x`) against the scalar
    /// kernel's.
    pub(super) fn agrees_with_scalar(
        block: &[u8; BLOCK],
        x: u64,
        (masks, parity, strict, pair): (Masks, u64, StrictMasks, (u64, u64)),
    ) -> Result<(), TestCaseError> {
        prop_assert_eq!(masks, classify_scalar(block));
        prop_assert_eq!(strict, classify_strict_scalar(block));
        prop_assert_eq!(parity, Scalar.prefix_xor(x));
        let (a, b) = pair_for(block, x);
        prop_assert_eq!(pair, eq_pair_scalar(block, a, b));
        Ok(())
    }

    fn block() -> impl Strategy<Value = [u8; BLOCK]> {
        prop::collection::vec(json_byte(), BLOCK).prop_map(|v| {
            let mut b = [0u8; BLOCK];
            b.copy_from_slice(&v);
            b
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::scale::scaled(2000)))]

        #[test]
        fn prefix_xor_is_running_parity(x: u64) {
            let mut parity = 0;
            for i in 0..64 {
                parity ^= x >> i & 1;
                prop_assert_eq!(Baseline.prefix_xor(x) >> i & 1, parity);
            }
        }

        #[test]
        fn ascii_str_is_from_utf8_on_ascii(bytes in prop::collection::vec(json_byte(), 0..40)) {
            let text = core::str::from_utf8(&bytes).ok().filter(|text| text.is_ascii());
            prop_assert_eq!(ascii_str(&bytes), text);
        }

        #[test]
        fn classify_agrees_with_scalar(b in block(), x: u64) {
            prop_assert_eq!(classify(&b), classify_scalar(&b));
            prop_assert_eq!(Baseline.classify_strict(&b), classify_strict_scalar(&b));
            let (a, c) = pair_for(&b, x);
            prop_assert_eq!(Baseline.eq_pair(&b, a, c), eq_pair_scalar(&b, a, c));
        }

        #[test]
        fn finds_agree_with_scalar(
            bytes in prop::collection::vec(json_byte(), 0..100),
            from in 0usize..110,
        ) {
            prop_assert_eq!(
                find_quote_or_backslash(&bytes, from),
                find_quote_or_backslash_scalar(&bytes, from)
            );
            prop_assert_eq!(
                find_string_special(&bytes, from),
                find_string_special_scalar(&bytes, from)
            );
        }
    }

    /// [`Kernel::key_colons`] as a scan of its own, for each kernel.
    struct KeyColons<'a> {
        pair: &'a [u8; 2 * BLOCK],
        len: usize,
        first: u8,
        last: u8,
    }

    impl BlockScan for KeyColons<'_> {
        type Output = u64;
        #[inline(always)]
        fn run<K: Kernel>(&mut self, kernel: K) -> u64 {
            kernel.key_colons(self.pair, self.len, self.first, self.last)
        }
    }

    /// [`Kernel::block_end`] as a scan of its own, for each kernel.
    struct BlockEnd {
        open: u64,
        close: u64,
        depth: usize,
    }

    impl BlockScan for BlockEnd {
        type Output = u32;
        #[inline(always)]
        fn run<K: Kernel>(&mut self, kernel: K) -> u32 {
            kernel.block_end(self.open, self.close, self.depth)
        }
    }

    /// Openers and closers on distinct bits (brackets dense or sparse), and a
    /// depth before the block, mostly small.
    fn brackets() -> impl Strategy<Value = (u64, u64, usize)> {
        (
            any::<u64>(),
            prop_oneof![any::<u64>(), any::<u64>().prop_map(sparse)],
            prop_oneof![4 => 0usize..4, 2 => 0usize..70, 1 => 0usize..2000],
        )
            .prop_map(|(kinds, places, depth)| (places & kinds, places & !kinds, depth))
    }

    /// About one bit in eight of `m` set (a block's brackets are usually
    /// few).
    fn sparse(m: u64) -> u64 {
        m & m.rotate_left(17) & m.rotate_left(41)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::scale::scaled(5000)))]

        #[test]
        fn block_end_agrees_with_the_loop((open, close, depth) in brackets()) {
            let want = block_end(open, close, depth);
            for choice in KERNELS {
                let mut scan = BlockEnd { open, close, depth };
                prop_assert_eq!(dispatch_as(&mut scan, choice), want, "{:?}", choice);
            }
        }
    }

    #[test]
    fn block_end_finds_the_first_closer_back_at_depth_zero() {
        // `{"a":[1,{}]}` and more: the end is found at its place, across
        // both bytes of the table's lookups.
        let cases: [(&[u8], usize, u32); 6] = [
            (b"}", 1, 0),
            (b"]]}", 3, 2),
            (b"{}[]}", 1, 4),
            (b"{[{[{[{[]}]}]}]}}", 1, 16),
            (b"]]]]]]]]]]", 9, 8),
            (b"{}{}{}{}{}", 1, 64),
        ];
        for (bytes, depth, want) in cases {
            let mut block = [b' '; BLOCK];
            block[..bytes.len()].copy_from_slice(bytes);
            let masks = classify_scalar(&block);
            assert_eq!(block_end(masks.open, masks.close, depth), want, "{bytes:?}");
            for choice in KERNELS {
                let mut scan = BlockEnd {
                    open: masks.open,
                    close: masks.close,
                    depth,
                };
                assert_eq!(dispatch_as(&mut scan, choice), want, "{choice:?} {bytes:?}");
            }
        }
    }

    /// Every kernel this machine has, and the scalar one.
    const KERNELS: [KernelChoice; 4] = [
        KernelChoice::Best,
        KernelChoice::Avx2,
        KernelChoice::Baseline,
        KernelChoice::Scalar,
    ];

    /// Each kernel's `key_colons` on `pair`, checked against the oracle's.
    fn key_colons_agree(
        pair: &[u8; 2 * BLOCK],
        len: usize,
        first: u8,
        last: u8,
    ) -> Result<u64, TestCaseError> {
        let want = key_colons_scalar(pair, len, first, last);
        for choice in KERNELS {
            let mut scan = KeyColons {
                pair,
                len,
                first,
                last,
            };
            prop_assert_eq!(dispatch_as(&mut scan, choice), want, "{:?}", choice);
        }
        Ok(want)
    }

    /// Two blocks of the bytes the filter looks at, with keys of the shape
    /// sought (`"`, the first byte, filler, the last byte, `"`, `:`)
    /// written over them at `plants`, across the block edge too; and the
    /// key's length, first and last byte.
    fn key_pair() -> impl Strategy<Value = ([u8; 2 * BLOCK], usize, u8, u8)> {
        let edge = || prop::sample::select(b"ab\"".to_vec());
        (
            prop_oneof![3 => 1usize..=8, 1 => 1usize..=62],
            edge(),
            edge(),
            prop::collection::vec(prop::sample::select(b"\":ab x\\{".to_vec()), 2 * BLOCK),
            prop::collection::vec(0usize..2 * BLOCK, 0..6),
        )
            .prop_map(|(len, first, last, bytes, plants)| {
                let mut pair = [0u8; 2 * BLOCK];
                pair.copy_from_slice(&bytes);
                for at in plants {
                    let Some(key) = pair.get_mut(at..at + len + 3) else {
                        continue;
                    };
                    key.fill(b'x');
                    key[0] = b'"';
                    key[1] = first;
                    key[len] = last;
                    key[len + 1] = b'"';
                    key[len + 2] = b':';
                }
                (pair, len, first, last)
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::scale::scaled(3000)))]

        #[test]
        fn key_colons_agree_with_scalar((pair, len, first, last) in key_pair()) {
            key_colons_agree(&pair, len, first, last)?;
        }
    }

    #[test]
    fn key_colons_keep_the_keys_sought_and_colons_after_no_quote() {
        // `"absent":` ending at every place in the second block, its
        // opening quote in either block; then in its place a look-alike of
        // the same length and edges ("abxxxt": kept, for the exact step to
        // tell apart), one with another first byte, one of another length,
        // and a colon after a space (kept).
        for colon in BLOCK..2 * BLOCK {
            let mut pair = [b' '; 2 * BLOCK];
            pair[colon - 8..=colon].copy_from_slice(b"\"absent\":");
            let got = key_colons_agree(&pair, 6, b'a', b't').unwrap();
            assert_eq!(got, 1 << (colon - BLOCK), "colon at {colon}");
            pair[colon - 8..=colon].copy_from_slice(b"\"abxxxt\":");
            assert_eq!(
                key_colons_agree(&pair, 6, b'a', b't').unwrap(),
                1 << (colon - BLOCK)
            );
            pair[colon - 8..=colon].copy_from_slice(b"\"bbsent\":");
            assert_eq!(key_colons_agree(&pair, 6, b'a', b't').unwrap(), 0);
            pair[colon - 8..=colon].copy_from_slice(b" \"absnt\":");
            assert_eq!(key_colons_agree(&pair, 6, b'a', b't').unwrap(), 0);
            pair[colon - 8..=colon].copy_from_slice(b"\"absent :");
            assert_eq!(
                key_colons_agree(&pair, 6, b'a', b't').unwrap(),
                1 << (colon - BLOCK)
            );
        }
    }

    #[test]
    fn every_byte_value_classifies_like_the_oracle() {
        for byte in 0..=255u8 {
            let mut b = [b' '; BLOCK];
            for (i, slot) in b.iter_mut().enumerate() {
                if i % 3 == 0 {
                    *slot = byte;
                }
            }
            assert_eq!(classify(&b), classify_scalar(&b), "byte {byte:#x}");
            assert_eq!(
                Baseline.classify_strict(&b),
                classify_strict_scalar(&b),
                "byte {byte:#x}"
            );
            for len in 0..40 {
                let bytes = &b[..len];
                for from in 0..=len + 1 {
                    assert_eq!(
                        find_string_special(bytes, from),
                        find_string_special_scalar(bytes, from)
                    );
                    assert_eq!(
                        find_quote_or_backslash(bytes, from),
                        find_quote_or_backslash_scalar(bytes, from)
                    );
                }
            }
        }
    }
}
