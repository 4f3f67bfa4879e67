//! The scans that walk 64-byte blocks, written once over a [`Kernel`] and run
//! with the best one the CPU has ([`simd::dispatch`]): skipping a container,
//! and finding a key by the structure of its object.

use core::cell::Cell;

use super::duplicates;
use super::escapes::raw_eq;
use super::member_walk::same_bytes;
use super::navigate::{Lookup, Span};
use super::simd::{self, BlockScan, Kernel, Masks, BLOCK};
use super::skip::skip_value_at;
use super::whitespace::{is_ws, skip_ws};

/// One block with its strings resolved: the raw masks, and the structure
/// outside strings.
#[derive(Clone, Copy, Debug)]
pub(super) struct Block {
    /// Where the block starts in the bytes.
    pub(super) start: usize,
    /// The raw classification (escaped quotes included).
    pub(super) raw: Masks,
    /// Quotes that are not escaped: each opens or closes a string.
    pub(super) quotes: u64,
    /// Bytes inside strings (opening quotes included, closing ones not).
    pub(super) inside: u64,
    /// `{` and `[` outside strings.
    pub(super) open: u64,
    /// `}` and `]` outside strings.
    pub(super) close: u64,
    /// `:` outside strings.
    pub(super) colon: u64,
}

/// Reads `bytes` 64 bytes at a time from a starting index, carrying "escaped"
/// and "inside a string" across block edges (simdjson's stage 1 without its
/// index output). Every block scan here is built on it; the carries live in
/// the caller's registers.
pub(super) struct Blocks<'a> {
    bytes: &'a [u8],
    /// Where the next block starts.
    next: usize,
    /// All ones if `next` is inside a string.
    inside_carry: u64,
    /// 1 if the byte at `next` is escaped.
    escape_carry: u64,
}

impl<'a> Blocks<'a> {
    /// Blocks from `from`, which must not be inside a string.
    #[inline(always)]
    pub(super) fn new(bytes: &'a [u8], from: usize) -> Self {
        Blocks {
            bytes,
            next: from,
            inside_carry: 0,
            escape_carry: 0,
        }
    }

    /// The next block, or `None` past the end. A block cut short by the end
    /// is padded with spaces, which are neutral.
    #[inline(always)]
    pub(super) fn next<K: Kernel>(&mut self, kernel: K) -> Option<Block> {
        let start = self.next;
        let raw = match self.bytes.get(start..)?.first_chunk::<BLOCK>() {
            Some(block) => kernel.classify(block),
            None => classify_tail(kernel, self.bytes, start)?,
        };
        Some(self.resolve(kernel, start, raw))
    }

    /// The block at `start` from its raw masks: escapes and strings
    /// resolved, the carries moved on to the next block.
    #[inline(always)]
    fn resolve<K: Kernel>(&mut self, kernel: K, start: usize, raw: Masks) -> Block {
        self.next = start + BLOCK;
        let quotes = raw.quote & !escaped_bytes(raw.backslash, &mut self.escape_carry);
        let inside = kernel.prefix_xor(quotes) ^ self.inside_carry;
        self.inside_carry = ((inside as i64) >> 63) as u64;
        Block {
            start,
            raw,
            quotes,
            inside,
            open: raw.open & !inside,
            close: raw.close & !inside,
            colon: raw.colon & !inside,
        }
    }
}

/// The masks of the last, short block (from `start` to the end of `bytes`),
/// as if padded with spaces (no bit past the end); `None` if it is empty.
/// Where the bytes hold a whole block, their last 64 bytes are classified and
/// the masks shifted down onto the tail: no copy, and inlined with the
/// kernel (a scan of a container inside a larger slice ends here often).
/// Shorter bytes are copied into a padded block, out of line.
#[inline(always)]
fn classify_tail<K: Kernel>(kernel: K, bytes: &[u8], start: usize) -> Option<Masks> {
    let tail = bytes.get(start..).filter(|tail| !tail.is_empty())?;
    match bytes.last_chunk::<BLOCK>() {
        Some(last) => {
            // `tail` is shorter than a block, so the shift is 1 to 63.
            let shift = BLOCK - tail.len();
            let m = kernel.classify(last);
            Some(Masks {
                quote: m.quote >> shift,
                backslash: m.backslash >> shift,
                open: m.open >> shift,
                close: m.close >> shift,
                colon: m.colon >> shift,
            })
        }
        None => Some(classify_padded(kernel, tail)),
    }
}

/// The masks of `tail` (shorter than a block, and all the bytes there are),
/// padded with spaces.
#[cold]
#[inline(never)]
fn classify_padded<K: Kernel>(kernel: K, tail: &[u8]) -> Masks {
    let mut padded = [b' '; BLOCK];
    padded[..tail.len()].copy_from_slice(tail);
    kernel.classify(&padded)
}

/// The block scan behind [`skip_container`](super::skip::skip_container).
///
/// Per block: the escaped bytes are resolved from the backslash mask (carrying an
/// escape across the block edge), the unescaped quotes give the in-string mask by
/// prefix xor (carrying "inside a string" across the edge), and openers and
/// closers outside strings are counted. Only a block with at least as many
/// closers as the current depth can hold the end, and only there are its
/// closers looked at ([`Kernel::block_end`]: a loop over them, or with
/// AVX-512 a table search of its brackets in order). Each block asks for
/// the bytes 512 ahead ([`simd::prefetch_ahead`]), as the other walks do:
/// in the profiling loop (AVX-512, paired rounds) a skip of a whole
/// message took 0.93x the time over 256 messages and 0.94x over 1,024,
/// the judges the same.
pub(super) struct ContainerSkip<'a> {
    bytes: &'a [u8],
    /// Where the `{` or `[` is.
    open: usize,
}

impl<'a> ContainerSkip<'a> {
    /// A scan of the container whose `{` or `[` is at `open`.
    #[inline(always)]
    pub(super) fn new(bytes: &'a [u8], open: usize) -> Self {
        ContainerSkip { bytes, open }
    }
}

impl BlockScan for ContainerSkip<'_> {
    type Output = Option<usize>;

    #[inline(always)]
    fn run<K: Kernel>(&mut self, kernel: K) -> Option<usize> {
        let mut blocks = Blocks::new(self.bytes, self.open);
        // Brackets open before the block; the first block (depth 0) holds the opener.
        let mut depth = 0usize;
        loop {
            let block = blocks.next(kernel)?;
            simd::prefetch_ahead(self.bytes, block.start);
            let closes = block.close.count_ones() as usize;
            if closes >= depth {
                let end = kernel.block_end(block.open, block.close, depth);
                if end < BLOCK as u32 {
                    return Some(block.start + end as usize + 1);
                }
            }
            depth = depth + block.open.count_ones() as usize - closes;
        }
    }
}

/// The classification floor: every block of `bytes` classified, its escapes
/// and strings resolved, and nothing else (no key compared, no depth kept).
/// What any structural scan of these bytes costs at least; the benches report
/// the scans against it. It asks for the bytes ahead as the one-key walk
/// does ([`simd::prefetch_ahead`]), so that no scan beats it by that alone.
/// Returns a fold of the masks, so that none is optimized away.
pub(super) struct ClassifyOnly<'a> {
    pub(super) bytes: &'a [u8],
}

impl BlockScan for ClassifyOnly<'_> {
    type Output = u64;

    #[inline(always)]
    fn run<K: Kernel>(&mut self, kernel: K) -> u64 {
        let mut blocks = Blocks::new(self.bytes, 0);
        let mut fold = 0u64;
        while let Some(block) = blocks.next(kernel) {
            simd::prefetch_ahead(self.bytes, block.start);
            fold ^= block.open ^ block.close ^ block.colon ^ block.inside;
        }
        fold
    }
}

/// Bits `0..to` of a block (`to <= 64`).
#[inline(always)]
fn below(to: u32) -> u64 {
    if to >= 64 {
        !0
    } else {
        (1u64 << to) - 1
    }
}

/// Bits `from..to` of a block (`from <= to <= 64`).
#[inline(always)]
fn bit_range(from: u32, to: u32) -> u64 {
    below(to) & !below(from)
}

/// The block scan behind [`object_field`](super::object_field): a walk over the
/// object's structure, 64 bytes at a time, that looks only at the keys of the
/// object itself.
///
/// Per block: strings are masked out as in [`ContainerSkip`]; the colons
/// outside strings that stand at depth 1 each follow a key of the object. A
/// colon's depth is the depth at the block's start plus the openers before it
/// less the closers before it: two popcounts, for the few colons that the
/// quote masks leave ([`FieldScan::candidates`]). No bracket is followed one by
/// one; a block that cannot return to depth 1 is passed with two popcounts,
/// and only a block that may hold the object's end has its closers looked at.
/// For one key sought (the common lookup, [`FieldScan::walk_one`]) most
/// blocks pass with one branch, the candidates also filtered by the key's
/// first and last byte; the others take the exact step
/// ([`FieldScan::step`]).
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
    /// How far back from a colon a matching key can start, if written with
    /// escapes (an escape takes at most 6 bytes per byte of text), plus its quotes.
    escape_reach: usize,
    /// Whether the quote-mask filter can be used: no key sought is too long
    /// for it, and they have at most [`DISTANCES`] lengths.
    filter: bool,
    /// For each length of a key sought, how far before a colon the key's
    /// opening quote stands (written compactly, without escapes); unused
    /// entries repeat the first.
    distances: [u32; DISTANCES],
    /// Whether the keys have one length (every entry of `distances` the same).
    single: bool,
    /// The first and last byte of each key watched (sought, or the first
    /// key in strict mode) and its length: a colon right after a quote, with
    /// no escape near, can follow one of them only if the bytes at those
    /// places match ([`FieldScan::edges_match`]). `edge_count` is 0 when a
    /// key is empty or there are more than [`DISTANCES`] of them (no filter).
    edges: [Edges; DISTANCES],
    edge_count: usize,
    /// In strict mode (duplicate keys rejected), where the object's tag was
    /// read as its first member (see `duplicates.rs`), the object's first
    /// key, if written plainly, and where its opening quote is: it must not
    /// repeat either. `None` otherwise.
    first: Option<(&'k str, usize)>,
    /// In strict mode, whether every match is looked for, and the first one
    /// found so far (the value's span).
    unique: bool,
    found: Cell<Option<(usize, usize)>>,
    /// Whether the value found is entered (a trusting read whose path goes
    /// on inside it): handed out from its start to the end of the bytes, its
    /// own end not looked for.
    enter: bool,
    /// Whether the key is looked for from both ends of the object
    /// ([`FieldScan::walk_late`]): a field serde writes late in its struct.
    late: bool,
}

/// What a key check needs of the block its colon is in.
#[derive(Clone, Copy)]
struct Near {
    /// Where the block starts.
    start: usize,
    /// Its unescaped quotes.
    quotes: u64,
    /// Its backslashes.
    backslash: u64,
}

/// How many distinct key lengths the quote-mask filter handles (and how
/// many keys the edge filter does).
const DISTANCES: usize = 4;

/// A watched key's first and last byte, and its length.
#[derive(Clone, Copy, Default)]
struct Edges {
    len: usize,
    first: u8,
    last: u8,
}

impl<'a, 'k> FieldScan<'a, 'k> {
    #[inline]
    pub(super) fn run_on(obj: &'a [u8], keys: &'k [&'k str]) -> Lookup<'a> {
        Self::run_with(obj, keys, simd::KernelChoice::Best, None)
    }

    /// [`FieldScan::run_on`] for a trusting read whose path goes on inside
    /// the value found: the value is handed out from its start to the end of
    /// `obj`, not skipped (nor the `,` or `}` after it looked for).
    #[inline]
    pub(super) fn run_entering(obj: &'a [u8], keys: &'k [&'k str]) -> Lookup<'a> {
        Self::run_entering_with(obj, keys, simd::KernelChoice::Best)
    }

    /// [`FieldScan::run_entering`] with the kernel `choice` names.
    #[inline]
    pub(super) fn run_entering_with(
        obj: &'a [u8],
        keys: &'k [&'k str],
        choice: simd::KernelChoice,
    ) -> Lookup<'a> {
        let Some(mut scan) = Self::new(obj, keys, None) else {
            return Lookup::Malformed;
        };
        scan.enter = true;
        match choice {
            simd::KernelChoice::Best => simd::dispatch(&mut scan),
            other => simd::dispatch_as(&mut scan, other),
        }
    }

    /// A trusting lookup of a key serde writes late in its struct, from both
    /// ends of the object ([`FieldScan::walk_late`]); with `enter` the value
    /// is handed out as [`FieldScan::run_entering`] hands it.
    #[inline]
    pub(super) fn run_late_with(
        obj: &'a [u8],
        keys: &'k [&'k str],
        choice: simd::KernelChoice,
        enter: bool,
    ) -> Lookup<'a> {
        let Some(mut scan) = Self::new(obj, keys, None) else {
            return Lookup::Malformed;
        };
        scan.enter = enter;
        scan.late = true;
        match choice {
            simd::KernelChoice::Best => simd::dispatch(&mut scan),
            other => simd::dispatch_as(&mut scan, other),
        }
    }

    /// Whether one key is watched and the quote filter is on: the walk of
    /// [`FieldScan::walk_one`] applies.
    #[inline(always)]
    fn one_key(&self) -> bool {
        self.filter && self.single && self.edge_count == 1
    }

    /// [`FieldScan::run_on`] with the kernel `choice` names. With `unique`
    /// (strict mode: `Some` of the object's first key where it is checked
    /// too, if written plainly),
    /// the walk goes on to the object's end: a key sought that repeats, or
    /// the first key repeating, is a duplicate (reported, and malformed).
    #[inline]
    pub(super) fn run_with(
        obj: &'a [u8],
        keys: &'k [&'k str],
        choice: simd::KernelChoice,
        unique: Option<Option<(&'k str, usize)>>,
    ) -> Lookup<'a> {
        let Some(mut scan) = Self::new(obj, keys, unique) else {
            return Lookup::Malformed;
        };
        match choice {
            simd::KernelChoice::Best => simd::dispatch(&mut scan),
            other => simd::dispatch_as(&mut scan, other),
        }
    }

    /// The scan of the object `obj` (whitespace around it allowed) for
    /// `keys`, with `unique` as in [`FieldScan::run_with`]; `None` if `obj`
    /// does not start with `{`.
    #[inline(always)]
    fn new(
        obj: &'a [u8],
        keys: &'k [&'k str],
        unique: Option<Option<(&'k str, usize)>>,
    ) -> Option<Self> {
        let open = skip_ws(obj, 0);
        if obj.get(open) != Some(&b'{') {
            return None;
        }
        let first = unique.flatten();
        let watched = || keys.iter().copied().chain(first.map(|(key, _)| key));
        let longest = watched().map(str::len).max().unwrap_or(0);
        let mut distances = [0u32; DISTANCES];
        let mut count = 0;
        let mut filter = longest + 2 < BLOCK;
        for key in watched() {
            let distance = key.len() as u32 + 2;
            if !distances[..count].contains(&distance) {
                if count == DISTANCES {
                    filter = false;
                    break;
                }
                distances[count] = distance;
                count += 1;
            }
        }
        for i in count..DISTANCES {
            distances[i] = distances[0];
        }
        let mut edges = [Edges::default(); DISTANCES];
        let mut edge_count = 0;
        for key in watched() {
            let (Some(&first), Some(&last)) = (key.as_bytes().first(), key.as_bytes().last())
            else {
                edge_count = 0;
                break;
            };
            if edge_count == DISTANCES {
                edge_count = 0;
                break;
            }
            edges[edge_count] = Edges {
                len: key.len(),
                first,
                last,
            };
            edge_count += 1;
        }
        Some(FieldScan {
            bytes: obj,
            keys,
            open,
            escape_reach: 6 * longest + 2,
            filter: filter && count > 0,
            single: count <= 1,
            distances,
            edges,
            edge_count,
            first,
            unique: unique.is_some(),
            found: Cell::new(None),
            enter: false,
            late: false,
        })
    }

    /// Where the key before the depth-1 colon at `colon` starts and ends (the
    /// indices of its two quotes), using the block's unescaped quotes when the
    /// key lies in it.
    #[inline(always)]
    fn key_before(&self, block: Near, colon: usize) -> Option<(usize, usize)> {
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
        let start = block.start;
        if close > start {
            let before = block.quotes & below((close - start) as u32);
            if before != 0 {
                return Some((start + 63 - before.leading_zeros() as usize, close));
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
    /// keys sought. Most keys are told apart by their length alone.
    #[inline(always)]
    fn key_matches(&self, block: Near, from: usize, to: usize) -> bool {
        match self.keys {
            // One key sought (a field without aliases): compared in line.
            [key] => self.key_is(block, from, to, key.as_bytes()),
            keys => keys
                .iter()
                .any(|key| self.key_is(block, from, to, key.as_bytes())),
        }
    }

    /// Whether the raw key between the quotes at `from` and `to` is `key`.
    #[inline(always)]
    fn key_is(&self, block: Near, from: usize, to: usize, key: &[u8]) -> bool {
        let len = to - from - 1;
        let start = block.start;
        let backslash = block.backslash;
        let escaped = || {
            if from >= start {
                backslash != 0
                    && backslash & bit_range((from - start) as u32, (to - start) as u32) != 0
            } else {
                self.bytes[from + 1..to].contains(&b'\\')
            }
        };
        // As in `key_eq`: a raw key with a backslash is longer than its text.
        if len == key.len() {
            same_bytes(&self.bytes[from + 1..to], key) && !escaped()
        } else {
            len > key.len() && escaped() && raw_eq(&self.bytes[from + 1..to], key)
        }
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

    /// The outcome at the depth-1 colon at `colon` of `block` if its key is
    /// one sought (or if it follows no key at all: malformed), [`Span::NONE`]
    /// if not.
    ///
    /// With `in_place` (the colon is right after a quote, and no escape or
    /// long key sought is near), the key has no backslash, so it is a key
    /// sought only if the bytes before the quote are one: a word compare
    /// rejects most. Only a match is checked in full. Out of line: the block
    /// loop stays small. The outcome comes back as a [`Span`], two words in
    /// registers: an `Option<Lookup>` goes through memory, and the caller's
    /// copy of it, a wide load, waits for the two stores that wrote it.
    #[inline(never)]
    fn try_key(&self, near: Near, colon: usize, in_place: bool) -> Span {
        if self.unique {
            return match self.try_key_unique(near, colon, in_place) {
                None => Span::NONE,
                Some(Lookup::Found(value)) => {
                    let from = value.as_ptr() as usize - self.bytes.as_ptr() as usize;
                    Span::found(from, from + value.len())
                }
                Some(Lookup::Missing) => Span::MISSING,
                Some(Lookup::Malformed) => Span::MALFORMED,
            };
        }
        if in_place && !self.key_in_place(colon) {
            return Span::NONE;
        }
        let Some((key_open, key_close)) = self.key_before(near, colon) else {
            return Span::MALFORMED;
        };
        if !self.key_matches(near, key_open, key_close) {
            return Span::NONE;
        }
        if self.enter {
            let from = skip_ws(self.bytes, colon + 1);
            return Span::found(from, self.bytes.len());
        }
        match self.value_after(colon) {
            Some((from, to)) => Span::found(from, to),
            None => Span::MALFORMED,
        }
    }

    /// [`FieldScan::try_key`] in strict mode: a match is kept and the walk
    /// goes on; a second match of a key sought, or the first key met again,
    /// is a duplicate.
    fn try_key_unique(&self, near: Near, colon: usize, in_place: bool) -> Option<Lookup<'a>> {
        let first_in_place = |(key, _): (&str, usize)| {
            let key = key.as_bytes();
            colon
                .checked_sub(key.len() + 1)
                .and_then(|from| self.bytes.get(from..colon - 1))
                .is_some_and(|raw| same_bytes(raw, key))
        };
        if in_place && !self.key_in_place(colon) && !self.first.is_some_and(first_in_place) {
            return None;
        }
        let Some((key_open, key_close)) = self.key_before(near, colon) else {
            return Some(Lookup::Malformed);
        };
        if self.key_matches(near, key_open, key_close) {
            if self.found.get().is_some() {
                return Some(duplicates::met(self.bytes.as_ptr().wrapping_add(key_open)));
            }
            match self.value_after(colon) {
                Some(value) => self.found.set(Some(value)),
                None => return Some(Lookup::Malformed),
            }
            return None;
        }
        match self.first {
            Some((key, first_open))
                if key_open != first_open
                    && self.key_is(near, key_open, key_close, key.as_bytes()) =>
            {
                Some(duplicates::met(self.bytes.as_ptr().wrapping_add(key_open)))
            }
            _ => None,
        }
    }

    /// The outcome once the object's closing bracket is at `end`: only
    /// whitespace may follow it.
    #[cold]
    #[inline(never)]
    fn at_end(&self, end: usize) -> Lookup<'a> {
        if skip_ws(self.bytes, end + 1) != self.bytes.len() {
            return Lookup::Malformed;
        }
        match self.found.get() {
            Some((from, to)) => Lookup::Found(&self.bytes[from..to]),
            None => Lookup::Missing,
        }
    }

    /// Whether the bytes right before the quote before `colon` are one of the
    /// keys sought, byte for byte.
    #[inline(always)]
    fn key_in_place(&self, colon: usize) -> bool {
        self.keys.iter().any(|key| {
            let key = key.as_bytes();
            colon
                .checked_sub(key.len() + 1)
                .and_then(|from| self.bytes.get(from..colon - 1))
                .is_some_and(|raw| same_bytes(raw, key))
        })
    }

    /// Whether the bytes where a watched key's first and last byte would
    /// stand, were it written plainly right before the quote before `colon`,
    /// are that key's: if not, neither [`FieldScan::key_in_place`] nor the
    /// strict first key's check can hold there. Two byte compares, no call.
    #[inline(always)]
    fn edges_match(&self, colon: usize) -> bool {
        let bytes = self.bytes;
        if self.edge_count == 0 {
            return true;
        }
        let last = bytes.get(colon.wrapping_sub(2));
        self.edges[..self.edge_count].iter().any(|edges| {
            last == Some(&edges.last)
                && bytes.get(colon.wrapping_sub(edges.len + 1)) == Some(&edges.first)
        })
    }

    /// Of the colons `here` (`after_quote` of them right after a quote), those
    /// whose key may be one sought: by the quote masks alone, a colon right after a quote whose key has the length of a
    /// key sought, written without escapes. Every other colon is kept for the
    /// full check: one after whitespace, and all of them where a key with
    /// escapes (whose length tells nothing) may stand or a key sought is long.
    #[inline(always)]
    fn candidates(
        &self,
        here: u64,
        quotes: u64,
        prev_quotes: u64,
        after_quote: u64,
        compact: bool,
    ) -> u64 {
        if !compact {
            return here;
        }
        let mut check = here & !after_quote;
        if self.single {
            // One length (the common case: a key without aliases).
            let distance = self.distances[0];
            let opening = (quotes << distance) | (prev_quotes >> (64 - distance));
            return check | (after_quote & opening);
        }
        for distance in self.distances {
            // the opening quote, `len + 2` bytes before the colon
            let opening = (quotes << distance) | (prev_quotes >> (64 - distance));
            check |= after_quote & opening;
        }
        check
    }
}

impl<'a> BlockScan for FieldScan<'a, '_> {
    type Output = Lookup<'a>;

    #[inline(always)]
    fn run<K: Kernel>(&mut self, kernel: K) -> Lookup<'a> {
        let mut blocks = Blocks::new(self.bytes, self.open);
        let mut walk = Walk {
            depth: 0,
            prev_quotes: 0,
            plain_from: 0,
        };
        if self.one_key() {
            let found = if self.late {
                self.walk_late(kernel, &mut blocks, &mut walk)
            } else {
                self.walk_one(kernel, &mut blocks, &mut walk, self.bytes.len())
            };
            if let Some(found) = found {
                return found;
            }
        }
        loop {
            let Some(block) = blocks.next(kernel) else {
                return Lookup::Malformed;
            };
            if let Some(found) = self.step(&block, block.colon, &mut walk) {
                return found;
            }
        }
    }
}

/// What [`FieldScan`]'s walk carries from block to block.
struct Walk {
    /// Brackets open before the block; the first block (depth 0) holds the `{`.
    depth: usize,
    /// The previous block's unescaped quotes.
    prev_quotes: u64,
    /// From where on no backslash of the blocks before is near enough
    /// before a colon for a key written with escapes to end there.
    plain_from: usize,
}

impl<'a> FieldScan<'a, '_> {
    /// One block of the walk: the outcome if it is decided in `block`,
    /// `None` to go on (with `walk` moved past the block). Only the colons
    /// `colons` (the block's, or those of them a filter kept) may end a key
    /// sought.
    #[inline(always)]
    fn step(&self, block: &Block, colons: u64, walk: &mut Walk) -> Option<Lookup<'a>> {
        let depth = walk.depth;
        let opens = block.open.count_ones() as usize;
        let closes = block.close.count_ones() as usize;
        if closes >= depth {
            // The object may end here (the first block always may).
            let end = simd::block_end(block.open, block.close, depth);
            let here = colons & below(end);
            if here != 0 {
                if let Some(found) =
                    self.block_keys(block, here, depth, walk.prev_quotes, walk.plain_from)
                {
                    return Some(found);
                }
            }
            if end < BLOCK as u32 {
                return Some(self.at_end(block.start + end as usize));
            }
        } else if depth <= closes + 1 && colons != 0 {
            // The block may climb back to depth 1: its colons may be keys.
            if let Some(found) =
                self.block_keys(block, colons, depth, walk.prev_quotes, walk.plain_from)
            {
                return Some(found);
            }
        }
        walk.depth = depth + opens - closes;
        walk.prev_quotes = block.quotes;
        if block.raw.backslash != 0 {
            let after_last = block.start + BLOCK - block.raw.backslash.leading_zeros() as usize;
            walk.plain_from = after_last + self.escape_reach;
        }
        None
    }

    /// The walk over whole blocks when one key is watched and the quote
    /// filter is used (the common trusting lookup): the outcome if it is
    /// decided before the last, short block (or before the first block that
    /// does not end by `limit`), `None` to go on from there (`blocks` and
    /// `walk` then stand at it).
    ///
    /// A block is passed here, with one branch, when it has no backslash and
    /// none near before it, cannot hold the object's end, and has no colon
    /// that may follow the key: no colon after whitespace, and no colon right
    /// after a quote whose key, written plainly, has the key's length, first
    /// byte and last byte (the bytes compared where they stand, in the block
    /// or the one below, by the kernel's [`key_colons`](Kernel::key_colons):
    /// in the profiling loop, AVX-512, a missing key 0.80x the time of
    /// masks shifted onto the colons and carried from block to block), or it
    /// cannot come back to depth 1. The object's first block, which may
    /// have no block below it, goes to the step with all its colons. Every
    /// other block goes through [`FieldScan::step`], which decides exactly;
    /// a plain block (no backslash in or near it) takes only the colons the
    /// filter kept: in it a key is written plainly, and one whose bytes the
    /// filter finds out of place is not the key sought. A passed block has no
    /// escape carried into it (a backslash at the end of a block puts
    /// `plain_from` past the next one), so its quotes are its raw quotes.
    /// Each block asks for the bytes 512 ahead ([`simd::prefetch_ahead`]).
    #[inline(always)]
    fn walk_one<K: Kernel>(
        &self,
        kernel: K,
        blocks: &mut Blocks<'a>,
        walk: &mut Walk,
        limit: usize,
    ) -> Option<Lookup<'a>> {
        // Blocks are read while they end by `limit`; the steps and key
        // checks see all of the bytes.
        let bytes = &self.bytes[..limit.min(self.bytes.len())];
        let Edges { len, first, last } = self.edges[0];
        // The object's first block, which may have no block below it to
        // compare a key's bytes in: every colon is left to the step (as the
        // block itself is, at depth 0).
        if blocks.next < BLOCK && blocks.next + BLOCK <= bytes.len() {
            let block = blocks.next(kernel)?;
            if let Some(found) = self.step(&block, block.colon, walk) {
                return Some(found);
            }
        }
        let mut depth = walk.depth;
        let mut prev_quotes = walk.prev_quotes;
        let mut plain_from = walk.plain_from;
        let mut start = blocks.next;
        let mut inside_carry = blocks.inside_carry;
        // Each block with the one below it: the key's bytes before each
        // colon are compared where they stand ([`Kernel::key_colons`]).
        while let Some(pair) = bytes
            .get(start.wrapping_sub(BLOCK)..)
            .and_then(<[u8]>::first_chunk::<{ 2 * BLOCK }>)
        {
            let chunk = pair[BLOCK..].first_chunk::<BLOCK>().expect("a block");
            let raw = kernel.classify(chunk);
            let colons = kernel.key_colons(pair, len, first, last);
            simd::prefetch_ahead(bytes, start);
            let quotes = raw.quote;
            let inside = kernel.prefix_xor(quotes) ^ inside_carry;
            let close = raw.close & !inside;
            let closes = close.count_ones() as usize;
            let check = colons & !inside;
            let plain = raw.backslash == 0 && start >= plain_from;
            if plain && closes < depth && (check == 0 || closes + 1 < depth) {
                depth = depth + (raw.open & !inside).count_ones() as usize - closes;
                inside_carry = ((inside as i64) >> 63) as u64;
                prev_quotes = quotes;
                start += BLOCK;
                continue;
            }
            // The block the checks must see: resolved as `Blocks` does (an
            // escape may be carried into it).
            blocks.next = start;
            blocks.inside_carry = inside_carry;
            let block = blocks.resolve(kernel, start, raw);
            *walk = Walk {
                depth,
                prev_quotes,
                plain_from,
            };
            // In a plain block the colons the filter dropped cannot follow
            // the key sought.
            let colons = if plain { check } else { block.colon };
            if let Some(found) = self.step(&block, colons, walk) {
                return Some(found);
            }
            depth = walk.depth;
            prev_quotes = walk.prev_quotes;
            plain_from = walk.plain_from;
            start = blocks.next;
            inside_carry = blocks.inside_carry;
        }
        blocks.next = start;
        blocks.inside_carry = inside_carry;
        *walk = Walk {
            depth,
            prev_quotes,
            plain_from,
        };
        None
    }
}

/// How many blocks the front of [`FieldScan::walk_late`] reads in its first
/// turn; the end reads twice as many in each turn, and each turn after
/// reads twice as many as the one before. The end's first turn, 16 blocks
/// (1 KiB), reaches the demo's detail in most of its messages: in the
/// profiling loop (AVX-512, the benches' 256 messages, whose detail lies
/// 5 to 20 blocks before the end) the detail view took 0.83x the time of
/// turns of 4 and 2 blocks, and the trusting judge 0.91x; over 1,024
/// distinct messages read fresh, 0.86x and 0.92x. Turns of 8 and 4 blocks
/// gained about a fifth as much; 32 and 16, what these gain.
const LATE_CHUNK: usize = 8;

/// Whether a string opening at a quote in `bytes[from..to]` may spell
/// `key` once its escapes are read: a search of the text, blind to the
/// structure, from `to` down (where a late key just past the end's first
/// turn stands). A string that spells `key` is `key` as written, or holds
/// a backslash (an escape's first byte) no later than where its bytes
/// first differ from `key`'s. So a quote followed by the key's first byte
/// or by a backslash is a candidate ([`spells`] decides it, byte by byte),
/// and `false` means no string there, key or value, at any depth, can be
/// `key`.
///
/// Cost: three compares a block, two blocks a step, the bytes 512 below
/// asked for ahead ([`simd::prefetch_behind`]); a few byte compares a
/// candidate (a quote on a block's last byte is one: its next byte is in
/// the block above). In the profiling loop (AVX-512, the demo's messages)
/// about 1.7 ns a block, where the walk from the end takes about 6.
#[inline(always)]
fn spelled_below<K: Kernel>(kernel: K, bytes: &[u8], from: usize, to: usize, key: &str) -> bool {
    let key = key.as_bytes();
    let first = key.first().copied().unwrap_or(b'"');
    let mut top = to;
    while top >= from + BLOCK {
        // Two blocks a step (the last step's may overlap).
        let base = top.saturating_sub(2 * BLOCK).max(from);
        simd::prefetch_behind(bytes, base);
        let low = spelling_quotes(kernel, bytes, base, first);
        let high = spelling_quotes(kernel, bytes, top - BLOCK, first);
        if low | high != 0
            && (any_spells(bytes, top - BLOCK, high, key) || any_spells(bytes, base, low, key))
        {
            return true;
        }
        top = base;
    }
    (from..top).any(|at| bytes[at] == b'"' && spells(bytes, at, key))
}

/// The quotes of the block at `start` that [`spelled_below`] takes as
/// candidates: followed by `first` or a backslash, or on the block's last
/// byte.
#[inline(always)]
fn spelling_quotes<K: Kernel>(kernel: K, bytes: &[u8], start: usize, first: u8) -> u64 {
    let block = bytes[start..start + BLOCK]
        .first_chunk::<BLOCK>()
        .expect("a whole block");
    let (quote, firsts) = kernel.eq_pair(block, b'"', first);
    let backslash = kernel.eq(block, b'\\');
    quote & (((firsts | backslash) >> 1) | (1 << 63))
}

/// Whether one of the quotes `candidates` of the block at `start` opens a
/// string that may spell `key` ([`spells`]).
#[inline(always)]
fn any_spells(bytes: &[u8], start: usize, mut candidates: u64, key: &[u8]) -> bool {
    while candidates != 0 {
        let at = start + candidates.trailing_zeros() as usize;
        candidates &= candidates - 1;
        if spells(bytes, at, key) {
            return true;
        }
    }
    false
}

/// Whether the string opening at the quote at `at` may spell `key`: it is
/// `key` as written (its closing quote after it), or it holds a backslash
/// no later than where it first differs from `key`.
#[inline(always)]
fn spells(bytes: &[u8], at: usize, key: &[u8]) -> bool {
    let text = &bytes[at + 1..];
    for (i, &want) in key.iter().chain(b"\"").enumerate() {
        match text.get(i) {
            // (Before the compare: a key may hold a backslash itself,
            // which its text escapes.)
            Some(b'\\') => return true,
            Some(&byte) if byte == want => {}
            _ => return false,
        }
    }
    true
}

/// Where the walk from an object's end stands: at the start of the lowest
/// block it has read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Backward {
    /// Where the lowest block read starts (the blocks are the forward
    /// walk's: 64 bytes from the `{` on).
    low: usize,
    /// The depth at `low`: the brackets closed from there to the object's
    /// end and not opened again (a forward walk's depth there).
    depth: usize,
    /// All ones if `low` is inside a string.
    inside: u64,
    /// Where the run of backslashes last counted below a block begins
    /// (`usize::MAX` before one is): the blocks below inside the same run
    /// read its length off it, so a long run is counted once, not once a
    /// block.
    run_from: usize,
}

impl<'a> FieldScan<'a, '_> {
    /// The walk for a key serde writes late in its struct (one key watched,
    /// trusting): the object is read from both ends in turns, its first
    /// block, then twice [`LATE_CHUNK`] blocks from its end
    /// ([`FieldScan::back_pass`], and [`FieldScan::back_block`] where it
    /// stops), then [`LATE_CHUNK`] from its front
    /// ([`FieldScan::walk_one`]), then twice as many from each, and so on,
    /// until one end meets a depth-1 key sought or the two meet. The end
    /// gets the larger share, as serde writes the field late. In a
    /// well-formed object with the key once,
    /// both ends find the same member. Where it is near the end, most bytes
    /// in front of it are never read (a key 700 bytes before the end of a
    /// 4.5 KB object: 12 blocks from the end and 1 from the front, against
    /// 60 from the front alone); where it is in the first block, nothing
    /// more is read, and where it is near the front, a few blocks at the
    /// end are read for nothing. Where neither end meets the key in its
    /// first turn, the bytes between are searched for the key's text
    /// ([`spelled_below`], about a third of a walk's cost a block): where no
    /// string there can spell it, it is missing, and nothing more is read
    /// (the demo's messages, in criterion: 200 ns against 415–454 for the
    /// walk to the two ends' meeting). Where some string may (a nested key
    /// of that name, a value that spells it), the turns go on, and a key
    /// missing costs what a walk from the front alone costs and the search
    /// up to that string.
    ///
    /// The end is read only when the object's last byte (whitespace after
    /// it allowed) is `}`, and given up for the front alone as soon as its
    /// brackets do not balance (a depth below 1 before the object's `{`),
    /// or a depth-1 colon there follows no key. A key given twice is found
    /// at whichever end meets one first; a break in the object's structure
    /// that the end's walk does not pass through is not seen, nor, for a
    /// key whose text is searched and not found, a break between the first
    /// turns (the trusting reads' rule: what is not walked is not checked).
    ///
    /// Before the first block is read, the walk asks for the bytes the end
    /// reads before its own requests reach them (its last 512 bytes) and
    /// the two blocks after the front's first; the end then asks for the
    /// bytes 512 below each block it reads ([`simd::prefetch_behind`]), as
    /// the front asks for those 512 above ([`simd::prefetch_ahead`]). In
    /// the filter a message is in the cache of the core that read it, and
    /// there a block not asked for ahead waits for the one read before it:
    /// judged from another core's cache (`benches/cross_core.rs`) the
    /// trusting judge took about 0.83x the time; from its own, about 1.0x
    /// (1.05x where the field is first, and the end's requests are wasted).
    ///
    /// `None` to go on from where `blocks` and `walk` stand (the front
    /// alone, at its last, short block).
    #[inline(always)]
    fn walk_late<K: Kernel>(
        &self,
        kernel: K,
        blocks: &mut Blocks<'a>,
        walk: &mut Walk,
    ) -> Option<Lookup<'a>> {
        let bytes = self.bytes;
        let open = self.open;
        let end = bytes.len() - bytes.iter().rev().take_while(|&&b| is_ws(b)).count();
        if end < open + 2 || bytes[end - 1] != b'}' {
            return self.walk_one(kernel, blocks, walk, bytes.len());
        }
        let mut back = Backward {
            low: open + (end - open).div_ceil(BLOCK) * BLOCK,
            depth: 0,
            inside: 0,
            run_from: usize::MAX,
        };
        // Asked for at once, these blocks come in together.
        let end_turn = back.low.saturating_sub(simd::PREFETCH_AHEAD).max(open);
        simd::prefetch_span(bytes, end_turn, end);
        // The two blocks after the first, not the front's whole first turn:
        // requests for lines already near hold the core's miss buffers.
        for at in (open + BLOCK..open + 3 * BLOCK).step_by(BLOCK) {
            simd::prefetch_at(bytes, at.min(end_turn));
        }
        // The object's first block before anything else: a late field
        // another writer put first is found there at once.
        let first = back.low.min(blocks.next + BLOCK);
        if let Some(found) = self.walk_one(kernel, blocks, walk, first) {
            return Some(found);
        }
        let mut chunk = LATE_CHUNK;
        loop {
            let mut left = 2 * chunk;
            while left > 0 {
                left -= self.back_pass(kernel, &mut back, left, blocks.next);
                if left == 0 {
                    break;
                }
                left -= 1;
                if back.low <= blocks.next {
                    // Every block read by one end or the other, no depth-1
                    // key sought met: missing, if the two ends agree on
                    // where they meet (the same depth, the same string
                    // state), as they do in a well-formed object.
                    let agree = walk.depth == back.depth && blocks.inside_carry == back.inside;
                    return Some(if agree {
                        Lookup::Missing
                    } else {
                        Lookup::Malformed
                    });
                }
                match self.back_block(kernel, &mut back) {
                    Ok(None) => {}
                    Ok(Some(found)) => return Some(found),
                    Err(()) => return self.walk_one(kernel, blocks, walk, bytes.len()),
                }
            }
            // Neither end has met the key in its first turn: the bytes
            // between are searched for its text, and where no string there
            // can spell it, it is missing.
            if chunk == LATE_CHUNK && !spelled_below(kernel, bytes, open, back.low, self.keys[0]) {
                return Some(Lookup::Missing);
            }
            let limit = back.low.min(blocks.next + chunk * BLOCK);
            if let Some(found) = self.walk_one(kernel, blocks, walk, limit) {
                return Some(found);
            }
            chunk *= 2;
        }
    }

    /// Passes up to `most` blocks below `back.low`, reading them backward,
    /// while each is one that [`FieldScan::back_block`] would pass finding
    /// nothing, and returns how many it passed (`back` moved to the lowest,
    /// as `back_block` would move it). The block it stops at is left to
    /// `back_block`, as is every block whose block below is not in `above`
    /// and on (the bytes the front has not read). The end's walk of a late
    /// field reads most of its blocks here, in one loop, where it took the
    /// whole step for each (in the profiling loop, AVX-512: the detail view
    /// 0.87x the time, a missing key looked for from both ends 0.75x).
    ///
    /// A block passes when it holds no backslash, no escape is carried into
    /// it (its first byte is not a quote right after a backslash), its
    /// brackets leave the depth at its start at 1 or more, and none of its
    /// colons needs the key check: the depth cannot come back to 1 in it,
    /// or the quote filter (as the forward walk's, the bits near the block's
    /// start kept) leaves no colon, or each colon it leaves stands at a
    /// depth other than 1 or after a key whose first and last bytes are no
    /// key sought's ([`FieldScan::back_colons_pass`]). Colons within
    /// `escape_reach` of its start may follow a key written with escapes
    /// that begins in the block below: the block passes with such colons
    /// only if the block below has no backslash in its last `escape_reach`
    /// bytes. A key sought longer than 10 bytes, whose escapes may reach
    /// further, leaves every block to `back_block` (handling a reach of two
    /// blocks in the loop made it 1.08x as slow for the others). Each block is
    /// classified once: the block below is classified before the block is
    /// judged, and becomes the next block.
    #[inline(always)]
    fn back_pass<K: Kernel>(
        &self,
        kernel: K,
        back: &mut Backward,
        most: usize,
        above: usize,
    ) -> usize {
        let reach = self.escape_reach;
        // A key sought of up to 10 bytes: its escapes reach into the block
        // below at most.
        if reach >= BLOCK || back.low < above + 2 * BLOCK {
            return 0;
        }
        let bytes = self.bytes;
        let Edges { len, first, last } = self.edges[0];
        let distance = self.distances[0];
        let first_shift = len as u32 + 1;
        let chunk_at = |at: usize| bytes[at..].first_chunk::<BLOCK>();
        let mut start = back.low - BLOCK;
        let Some(mut chunk) = chunk_at(start) else {
            return 0;
        };
        let mut raw = kernel.classify(chunk);
        let mut passed = 0;
        while passed < most && start >= above + BLOCK {
            simd::prefetch_behind(bytes, start);
            let Some(lower_chunk) = chunk_at(start - BLOCK) else {
                break;
            };
            let lower = kernel.classify(lower_chunk);
            let (firsts, lasts) = kernel.eq_pair(chunk, first, last);
            let quotes = raw.quote;
            let inside_start = back.inside ^ u64::from(quotes.count_ones() & 1).wrapping_neg();
            let inside = kernel.prefix_xor(quotes) ^ inside_start;
            let open = raw.open & !inside;
            let close = raw.close & !inside;
            let opens = open.count_ones() as usize;
            let closes = close.count_ones() as usize;
            let colon = raw.colon & !inside;
            let high = back.depth;
            let after_quote = (quotes << 1) | 1;
            let opening = (quotes << distance) | ((1 << distance) - 1);
            let first_at = (firsts << first_shift) | ((1 << first_shift) - 1);
            let last_at = (lasts << 2) | 0b11;
            let check = colon & (!after_quote | (opening & first_at & last_at));
            let near_start = colon & below(reach as u32);
            let plain_below = lower.backslash >> (BLOCK - reach) == 0;
            let pass = raw.backslash == 0
                && (raw.quote & 1 == 0 || lower.backslash >> 63 == 0)
                && opens < high + closes
                && (high >= opens + 2
                    || ((plain_below || near_start == 0)
                        && (check == 0 || self.back_colons_pass(start, check, high, open, close))));
            if !pass {
                break;
            }
            back.low = start;
            back.inside = inside_start;
            back.depth = high + closes - opens;
            passed += 1;
            start -= BLOCK;
            chunk = lower_chunk;
            raw = lower;
        }
        passed
    }

    /// Whether none of the colons `check` of the block at `start` (no
    /// backslash in it or near below it; `high` brackets open at its end,
    /// `open` and `close` its brackets outside strings) needs the exact
    /// step: each stands at a depth other than 1, or right after a quote
    /// with a key whose first and last bytes are no key sought's, as
    /// [`FieldScan::back_block`] passes them.
    #[inline(always)]
    fn back_colons_pass(
        &self,
        start: usize,
        check: u64,
        high: usize,
        open: u64,
        close: u64,
    ) -> bool {
        let mut rest = check;
        while rest != 0 {
            let at = 63 - rest.leading_zeros();
            rest &= !(1u64 << at);
            let depth = depth_from_end(high, open, close, at);
            let colon = start + at as usize;
            if depth == Some(1) && (self.bytes[colon - 1] != b'"' || self.edges_match(colon)) {
                return false;
            }
        }
        true
    }

    /// Reads the block below `back.low` backward and moves `back` to its
    /// start: `Ok(Some(found))` if a depth-1 key in it is one sought (the
    /// last such in the block), `Err` if the end's walk cannot go on (the
    /// brackets do not balance, or a depth-1 colon follows no key).
    ///
    /// A block read backward needs what follows it, which is known: the
    /// brackets closed after it and not opened again, and whether its end is
    /// inside a string. The string state at its start is then the one at its
    /// end flipped by the parity of its quotes, and an escape carried into it
    /// is read off the backslashes right before it (an odd run escapes). Its
    /// colons are filtered as the forward walk filters them (right after a
    /// quote, the key's length, first and last byte in their places, no
    /// backslash near); a colon near the block's start, whose key may begin
    /// in the block below, is kept for the exact check. A kept colon's depth
    /// is the depth at the block's end, plus the closers after it, less the
    /// openers after it: two popcounts.
    #[inline(always)]
    fn back_block<K: Kernel>(
        &self,
        kernel: K,
        back: &mut Backward,
    ) -> Result<Option<Lookup<'a>>, ()> {
        let bytes = self.bytes;
        let start = back.low - BLOCK;
        simd::prefetch_behind(bytes, start);
        let Edges { len, first, last } = self.edges[0];
        let (raw, firsts, lasts) = match bytes.get(start..).and_then(<[u8]>::first_chunk::<BLOCK>) {
            Some(chunk) => {
                let (firsts, lasts) = kernel.eq_pair(chunk, first, last);
                (kernel.classify(chunk), firsts, lasts)
            }
            // The last block, cut short by the end (whitespace is neutral):
            // its colons are all checked in full.
            None => (classify_tail(kernel, bytes, start).ok_or(())?, !0, !0),
        };
        let mut carry = 0;
        // An escape carried in reaches only the block's first byte: looked
        // for only where that byte is a quote or a backslash.
        if (raw.quote | raw.backslash) & 1 != 0 && start > 0 && bytes[start - 1] == b'\\' {
            // `back.low` only goes down: a run counted from above that
            // began below `start` covers every byte between.
            if back.run_from >= start {
                let run = bytes[..start]
                    .iter()
                    .rev()
                    .take_while(|&&b| b == b'\\')
                    .count();
                back.run_from = start - run;
            }
            carry = ((start - back.run_from) & 1) as u64;
        }
        let quotes = raw.quote & !escaped_bytes(raw.backslash, &mut carry);
        // The string state at the start: the one at the end, flipped by
        // each quote of the block.
        let inside_start = back.inside ^ u64::from(quotes.count_ones() & 1).wrapping_neg();
        let inside = kernel.prefix_xor(quotes) ^ inside_start;
        let open = raw.open & !inside;
        let close = raw.close & !inside;
        let colon = raw.colon & !inside;
        let high = back.depth;
        let depth = (high + close.count_ones() as usize).checked_sub(open.count_ones() as usize);
        back.low = start;
        back.inside = inside_start;
        back.depth = match depth {
            // Only the object's own `{` brings the depth to 0.
            Some(depth) if depth >= 1 || (depth == 0 && start == self.open) => depth,
            _ => return Err(()),
        };
        if colon == 0 {
            return Ok(None);
        }
        // A backslash in the block, or in the `escape_reach` bytes below
        // it, may stand in a key written with escapes: then every colon is
        // checked in full. The bytes below are one block's compare, or, for
        // a key sought so long that its escapes may reach further, looked
        // through.
        let below = start - start.saturating_sub(self.escape_reach).max(self.open);
        let plain = raw.backslash == 0
            && match bytes[..start].last_chunk::<BLOCK>() {
                _ if below == 0 => true,
                Some(chunk) if below <= BLOCK => {
                    let (backslash, _) = kernel.eq_pair(chunk, b'\\', b'\\');
                    backslash >> (BLOCK - below) == 0
                }
                _ => !bytes[start - below..start].contains(&b'\\'),
            };
        let check = if plain {
            // Shifts under 64: the filter is on for keys of at most 61 bytes.
            let distance = self.distances[0];
            let first_shift = len as u32 + 1;
            // Bits near the start stand for bytes of the block below: kept.
            let after_quote = (quotes << 1) | 1;
            let opening = (quotes << distance) | ((1 << distance) - 1);
            let first_at = (firsts << first_shift) | ((1 << first_shift) - 1);
            let last_at = (lasts << 2) | 0b11;
            colon & (!after_quote | (opening & first_at & last_at))
        } else {
            colon
        };
        let near = Near {
            start,
            quotes,
            backslash: raw.backslash,
        };
        let mut rest = check;
        while rest != 0 {
            let at = 63 - rest.leading_zeros();
            rest &= !(1u64 << at);
            if depth_from_end(high, open, close, at) != Some(1) {
                continue;
            }
            let colon = start + at as usize;
            let in_place = bytes[colon - 1] == b'"'
                && (plain || {
                    let from = colon.saturating_sub(self.escape_reach).max(self.open);
                    !bytes[from..colon].contains(&b'\\')
                });
            if in_place && !self.edges_match(colon) {
                continue;
            }
            let found = self.try_key(near, colon, in_place);
            if found == Span::NONE {
                continue;
            }
            return match found.lookup(bytes) {
                Lookup::Found(value) => Ok(Some(Lookup::Found(value))),
                _ => Err(()),
            };
        }
        Ok(None)
    }
}

impl<'a> FieldScan<'a, '_> {
    /// The keys before the colons `here` of `block` (`depth` brackets open
    /// before it): the lookup's outcome if a depth-1 one is a key sought
    /// (see [`FieldScan::try_key`]), `None` to go on.
    #[inline(always)]
    fn block_keys(
        &self,
        block: &Block,
        here: u64,
        depth: usize,
        prev_quotes: u64,
        plain_from: usize,
    ) -> Option<Lookup<'a>> {
        // The quote filter is exact where no backslash is near a colon.
        let compact = self.filter && block.start >= plain_from && block.raw.backslash == 0;
        let after_quote = here & ((block.quotes << 1) | (prev_quotes >> 63));
        let mut check = self.candidates(here, block.quotes, prev_quotes, after_quote, compact);
        while check != 0 {
            let at = check.trailing_zeros();
            check &= check - 1;
            let colon = block.start + at as usize;
            // A candidate written plainly whose edge bytes are no watched
            // key's is dropped before its depth is even counted. In a block
            // that is not compact, a colon with no backslash in the
            // `escape_reach` bytes before it is as plain as in a compact one.
            let reach = self.escape_reach.min(BLOCK) as u32;
            let in_place = after_quote & (1 << at) != 0
                && (compact
                    || (colon >= plain_from
                        && block.raw.backslash & bit_range(at.saturating_sub(reach), at) == 0));
            if in_place && !self.edges_match(colon) {
                continue;
            }
            let before = below(at);
            // More closers than open brackets before the colon: only in a
            // malformed document; no key of the object there.
            let colon_depth = (depth + (block.open & before).count_ones() as usize)
                .checked_sub((block.close & before).count_ones() as usize);
            if colon_depth == Some(1) {
                let near = Near {
                    start: block.start,
                    quotes: block.quotes,
                    backslash: block.raw.backslash,
                };
                let found = self.try_key(near, colon, in_place);
                if found != Span::NONE {
                    return Some(found.lookup(self.bytes));
                }
            }
        }
        None
    }
}

/// The depth at bit `at` (`at < 64`) of a block read backward, `high`
/// brackets open at its end: `high` plus the closers above the bit, less
/// the openers above it (`open` and `close`, outside strings); `None` where
/// more open above it than the block's end holds (brackets that do not
/// balance).
#[inline(always)]
fn depth_from_end(high: usize, open: u64, close: u64, at: u32) -> Option<usize> {
    // The bits above `at`.
    let after = (u64::MAX << at) << 1;
    (high + (close & after).count_ones() as usize).checked_sub((open & after).count_ones() as usize)
}

/// Bit `i` set when byte `i` is escaped by a backslash: the byte after each
/// backslash that is not itself escaped. `carry` (0 or 1) says whether the
/// previous block ended in an escaping backslash, and is updated for the next
/// block.
///
/// Branch-free (simdjson's escape scanner): a run of backslashes escapes the
/// byte after it when the run is odd, which a subtraction over the run finds
/// for every run at once. A block without a backslash costs one test.
#[inline(always)]
pub(super) fn escaped_bytes(backslash: u64, carry: &mut u64) -> u64 {
    if backslash == 0 {
        return core::mem::take(carry);
    }
    const ODD_BITS: u64 = 0xAAAA_AAAA_AAAA_AAAA;
    let escaped_in = *carry;
    // A backslash escaped from the previous block escapes nothing.
    let potential = backslash & !escaped_in;
    // Bits set at the byte after each escaping backslash, and at escaping
    // backslashes themselves (the "terminal" codes), by series parity.
    let maybe_escaped = potential << 1;
    let escape_and_terminal = (maybe_escaped | ODD_BITS).wrapping_sub(potential) ^ ODD_BITS;
    let escaped = escape_and_terminal ^ (backslash | escaped_in);
    let escaping = escape_and_terminal & backslash;
    *carry = escaping >> 63;
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

    /// The walk from the end over `bytes` for `key`, run by the backward
    /// pass and by the exact step from the same state: each pass of `n`
    /// blocks must be `n` exact steps that find nothing and end where the
    /// pass does. Returns how many blocks the pass passed.
    struct BackAgree<'a> {
        bytes: &'a [u8],
        key: &'a str,
    }

    impl BlockScan for BackAgree<'_> {
        type Output = Result<usize, TestCaseError>;

        fn run<K: Kernel>(&mut self, kernel: K) -> Self::Output {
            let keys = [self.key];
            let scan = FieldScan::new(self.bytes, &keys, None).expect("an object");
            let above = scan.open + BLOCK;
            let mut back = Backward {
                low: scan.open + (self.bytes.len() - scan.open).div_ceil(BLOCK) * BLOCK,
                depth: 0,
                inside: 0,
                run_from: usize::MAX,
            };
            let mut passed_in_all = 0;
            while back.low > above {
                let mut passed = back;
                let n = scan.back_pass(kernel, &mut passed, usize::MAX, above);
                let mut exact = back;
                for step in 0..n {
                    let outcome = scan.back_block(kernel, &mut exact);
                    prop_assert!(
                        matches!(outcome, Ok(None)),
                        "step {} of a pass of {} from {:?}: {:?}",
                        step,
                        n,
                        back,
                        outcome.map(|found| found.is_some())
                    );
                }
                prop_assert_eq!(passed, exact);
                passed_in_all += n;
                // The block the pass stopped at, by the exact step.
                match scan.back_block(kernel, &mut exact) {
                    Ok(None) => back = exact,
                    _ => break,
                }
            }
            Ok(passed_in_all)
        }
    }

    /// Text for an object read from its end: strings holding escapes,
    /// brackets, colons and quotes escaped at any place, the key sought and
    /// keys like it (written plainly and with escapes), nested in objects
    /// and arrays, with colons and commas anywhere. Strings and brackets
    /// mostly balance, so that the walk from the end goes far; a stray
    /// bracket or quote now and then ends it early.
    fn back_text() -> impl Strategy<Value = Vec<u8>> {
        let inner = prop::sample::select(vec![
            &br#"\""#[..],
            br#"\\"#,
            br#"\u0061"#,
            b"{",
            b"}",
            b"[",
            b"]",
            b":",
            b"a",
            b"pppppppppppppppppppppppppppppppp",
        ]);
        let string = prop::collection::vec(inner, 0..12).prop_map(|pieces| {
            let mut text = b"\"".to_vec();
            pieces
                .iter()
                .for_each(|piece| text.extend_from_slice(piece));
            text.push(b'"');
            text
        });
        // The long key with every byte escaped: its first escape stands
        // more than a block before its colon.
        let escaped: String = "a_key_of_20_bytes_xx"
            .bytes()
            .map(|b| format!("\\u{b:04x}"))
            .collect();
        let escaped = format!("\"{escaped}\":").into_bytes();
        let mut tokens: Vec<Vec<u8>> = [
            &b":"[..],
            b",",
            b" ",
            b"1",
            br#""detail":"#,
            br#""detail" :"#,
            br#""dxxxxl":"#,
            br#""det\u0061il":"#,
            br#""p":"#,
            br#""a_key_of_20_bytes_xx":"#,
            br#""\u0061_key_of_20_bytes_xx":"#,
        ]
        .iter()
        .map(|token| token.to_vec())
        .collect();
        tokens.push(escaped);
        let token = prop::sample::select(tokens);
        // Now and then a bracket or quote that does not balance.
        let stray =
            prop::sample::select(vec![&b"{"[..], b"}", b"]", b"\""]).prop_map(<[u8]>::to_vec);
        let leaf = prop_oneof![8 => string, 8 => token, 1 => stray];
        let tree = leaf.prop_recursive(4, 400, 10, |inner| {
            (prop::collection::vec(inner, 0..10), 0..3u8).prop_map(|(items, wrap)| {
                let (open, close): (&[u8], &[u8]) = match wrap {
                    0 => (b"{", b"}"),
                    1 => (b"[", b"]"),
                    _ => (b"", b""),
                };
                let mut text = open.to_vec();
                items.iter().for_each(|item| text.extend_from_slice(item));
                text.extend_from_slice(close);
                text
            })
        });
        prop::collection::vec(tree, 1..12).prop_map(|items| {
            let mut text = b"{".to_vec();
            items.iter().for_each(|item| text.extend_from_slice(item));
            text.push(b'}');
            text
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::scale::scaled(1024)))]

        /// The backward pass over any bytes passes only blocks the exact
        /// step passes, and leaves the walk where the exact step does.
        #[test]
        fn the_backward_pass_is_the_exact_step_where_it_passes(text in back_text()) {
            for choice in [
                simd::KernelChoice::Best,
                simd::KernelChoice::Avx2,
                simd::KernelChoice::Baseline,
                simd::KernelChoice::Scalar,
            ] {
                for key in ["detail", "dxxxxl", "p", "a_key_of_20_bytes_xx"] {
                    simd::dispatch_as(&mut BackAgree { bytes: &text, key }, choice)?;
                }
            }
        }

        #[test]
        fn escaped_bytes_matches_a_byte_walk(
            bytes in prop::collection::vec(prop::sample::select(b"\\\\\\a\"".to_vec()), 64),
            carry_in: bool,
        ) {
            let backslash = bytes
                .iter()
                .enumerate()
                .fold(0u64, |m, (i, &b)| m | (u64::from(b == b'\\') << i));
            let mut carry = u64::from(carry_in);
            let escaped = escaped_bytes(backslash, &mut carry);
            prop_assert_eq!((escaped, carry == 1), escaped_naive(&bytes, carry_in));
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
