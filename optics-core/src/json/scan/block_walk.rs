//! The scans that walk 64-byte blocks, written once over a [`Kernel`] and run
//! with the best one the CPU has ([`simd::dispatch`]): skipping a container,
//! and finding a key by the structure of its object.

use std::ops::ControlFlow;

use super::escapes::raw_eq;
use super::member_walk::same_bytes;
use super::navigate::Lookup;
use super::simd::{self, BlockScan, Kernel, Masks, BLOCK};
use super::skip::skip_value_at;
use super::whitespace::{is_ws, skip_ws};

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

/// The block scan behind [`skip_container`](super::skip::skip_container).
///
/// Per block: the escaped bytes are resolved from the backslash mask (carrying an
/// escape across the block edge), the unescaped quotes give the in-string mask by
/// prefix xor (carrying "inside a string" across the edge), and openers and
/// closers outside strings are counted. Only a block with at least as many
/// closers as the current depth can hold the end, and only there are the
/// brackets walked one by one.
pub(super) struct ContainerSkip<'a> {
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
    pub(super) fn new(bytes: &'a [u8], open: usize) -> Self {
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

/// The block scan behind [`object_field`](super::object_field): a walk over the
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
pub(super) struct FieldScan<'a, 'k> {
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
    pub(super) fn run_on(obj: &'a [u8], keys: &'k [&'k str]) -> Lookup<'a> {
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

        /// The baseline kernel is not what runs on a machine with AVX2: check
        /// that both skip the same containers.
        #[test]
        fn kernels_skip_alike(
            bytes in prop::collection::vec(prop::sample::select(b"{}[]\\\" a,:".to_vec()), 1..300),
        ) {
            let mut bytes = bytes;
            bytes[0] = b'[';
            prop_assert_eq!(super::super::kernels::skip_container_baseline(&bytes, 0), super::super::skip::skip_container(&bytes, 0));
        }
    }
}
