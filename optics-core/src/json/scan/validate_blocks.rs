//! Strict mode on the block masks: one document checked against RFC 8259,
//! 64 bytes at a time, with the same stage-1 masks as the scans, UTF-8 by
//! simdutf8 (over the blocks from the first with a non-ASCII byte to the
//! last). Whether it is valid is all this says; where a document is not,
//! the byte-by-byte validator ([`validate_scalar`](super::validate::validate_scalar))
//! finds and names the first error, so both always agree on the verdict and
//! the error is the one the grammar meets first.
//!
//! The grammar is checked as a relation between each token and the one
//! before it, over whole blocks at once. A *token* is a bracket, `:` or `,`
//! outside strings, a string's opening quote, or the first byte of a scalar
//! (a run of bytes outside strings that are neither whitespace, structure nor
//! quotes). Everything between two tokens (whitespace, a string's contents and
//! closing quote, a scalar's other bytes) is a *gap*. For a class of tokens
//! `A`, the tokens that follow them are `((A << 1) + gaps) & !gaps`: the
//! addition carries from each token through the gap after it and lands on the
//! next token, for every token at once, carrying across block edges
//! ([`Follow`]). Three classes are followed (a `:`, a key, a value's end);
//! every other token follows an opener or a `,`, or is the document's first.
//! The first needs no rule of its own: outside every container a `,` or `:`
//! is refused by the container check below and a closer by the bracket
//! stack, so any other token is a value; a document of whitespace alone is
//! refused before the blocks are read.
//!
//! ```text
//!  {"a" : [1,true] }        tokens  { " : [ 1 , t ] }
//!  after `:`        a value           after a key        `:`, and every `:` after a key
//!  after a value    `,` or a closer   after `{`, or `,` in an object: a key (`}` right after `{`)
//!                                     after `[`, or `,` in an array: a value (`]` right after `[`)
//! ```
//!
//! Which container a `,`, `:` or string is in comes from a walk over the
//! brackets (rare: a few per block), which also matches each closer with its
//! opener on a bit stack; a string in an object not after a `:` is a key. A
//! scalar's bytes are checked from its first byte (a number's grammar, or
//! `true`, `false`, `null`, then a delimiter); a string's control characters
//! by mask, its escapes one by one where the block has any.
//!
//! Validation alone reads the blocks in chunks (4 KB), each in two passes:
//! the first classifies them and checks their strings, the second walks
//! their brackets and checks the grammar and the scalars on the tokens the
//! first kept. A [`KeyWatch`] (the strict judge's lookup of a root member)
//! sees the keys of the root object on the way: the first pass marks the
//! strings whose first bytes could start a watched key, the second hands
//! over those that are keys of the root object (a few a document).

use super::block_walk::escaped_bytes;
use super::byte_table;
use super::escapes::hex4;
use super::simd::{self, BlockScan, Kernel, BLOCK};
use super::skip::digits_end;
use super::validate::{strict_number, unit_ok, Container, Nesting, MAX_DEPTH, MAX_FINITE_DIGITS};
use super::whitespace::skip_ws;

/// Whether `bytes` are exactly one JSON document (RFC 8259), whitespace
/// around it allowed: the verdict of [`validate`](super::validate), fast.
///
/// Cost: O(n), 64 bytes at a time; nothing is allocated, at any depth (the
/// container stack is two words).
#[inline]
pub(super) fn is_valid(bytes: &[u8]) -> bool {
    is_valid_with(bytes, simd::KernelChoice::Best)
}

/// [`is_valid`] with the kernel `choice` names (tests check each).
pub(super) fn is_valid_with(bytes: &[u8], choice: simd::KernelChoice) -> bool {
    is_valid_watching(bytes, choice, &mut NoWatch)
}

/// [`is_valid_with`], handing `watch` the keys of the root object it may
/// watch (see [`KeyWatch`]). What the watch makes of them means something
/// only when the verdict is `true`.
pub(super) fn is_valid_watching<W: KeyWatch>(
    bytes: &[u8],
    choice: simd::KernelChoice,
    watch: &mut W,
) -> bool {
    // There must be a value (whitespace alone is no document).
    if skip_ws(bytes, 0) == bytes.len() {
        return false;
    }
    let mut scan = BlockValidate { bytes, watch };
    match choice {
        simd::KernelChoice::Best => simd::dispatch(&mut scan),
        other => simd::dispatch_as(&mut scan, other),
    }
}

/// What watches the keys of the root object as the validator goes: the
/// first pass marks, in each block, the bytes where a watched key could
/// start ([`KeyStarts`]); the grammar pass hands it each key of the root
/// object that starts at a marked byte ([`KeyWatch::root_key`]). A
/// validator without one ([`NoWatch`]) compiles it all out.
pub(super) trait KeyWatch {
    /// Whether keys are watched at all.
    const ON: bool;
    /// How the watched keys start, as written.
    fn starts(&self) -> KeyStarts;
    /// A key of the root object whose first byte (after its opening quote)
    /// is at `at` and was marked by [`KeyWatch::starts`].
    fn root_key(&mut self, at: usize);
}

/// How the keys a [`KeyWatch`] watches start, as written. One key (or
/// several with the same first two bytes): its first two bytes, a one-byte
/// key's second being its closing quote. More: their first bytes, at most
/// two. A key that may spell a watched one (after its escapes are read)
/// starts so, or has a backslash as its first byte, or as its second after
/// a watched first; the first pass marks those, with two compares a block.
#[derive(Clone, Copy)]
pub(super) struct KeyStarts {
    /// The pair's two bytes, or the two first bytes (one repeated if only
    /// one).
    bytes: [u8; 2],
    /// The marks a first byte keeps whatever the byte after it: with a
    /// pair, the block's last (whose next byte is in the next block); all
    /// without.
    edge: u64,
    /// All ones when `bytes` are two first bytes, 0 for a pair.
    two_firsts: u64,
}

impl KeyStarts {
    /// The starts of `keys` (written plainly); `None` for none, for an empty
    /// one, or for keys of more than two distinct first bytes.
    pub(super) fn of<'k>(keys: impl IntoIterator<Item = &'k [u8]>) -> Option<KeyStarts> {
        // The first key's pair, and whether every key has it.
        let mut pair: Option<[u8; 2]> = None;
        let mut one_pair = true;
        let mut firsts = [0u8; 2];
        let mut count = 0;
        for key in keys {
            let &first = key.first()?;
            let start = [first, key.get(1).copied().unwrap_or(b'"')];
            match pair {
                None => pair = Some(start),
                Some(seen) => one_pair &= seen == start,
            }
            if !firsts[..count].contains(&first) {
                if count == firsts.len() {
                    return None;
                }
                firsts[count] = first;
                count += 1;
            }
        }
        let starts = if one_pair {
            KeyStarts {
                bytes: pair?,
                edge: 1 << 63,
                two_firsts: 0,
            }
        } else {
            KeyStarts {
                bytes: [firsts[0], firsts[count - 1]],
                edge: u64::MAX,
                two_firsts: u64::MAX,
            }
        };
        Some(starts)
    }

    /// The bytes of `block` where a watched key could start (`backslash`:
    /// the block's backslashes): two compares, no branch. A pair whose
    /// second byte lies in the next block is marked on its first byte
    /// alone.
    #[inline(always)]
    fn marks<K: Kernel>(&self, kernel: K, block: &[u8; BLOCK], backslash: u64) -> u64 {
        let (a, b) = kernel.eq_pair(block, self.bytes[0], self.bytes[1]);
        (a & (((b | backslash) >> 1) | self.edge)) | (b & self.two_firsts) | backslash
    }
}

/// No watch: plain validation.
pub(super) struct NoWatch;

impl KeyWatch for NoWatch {
    const ON: bool = false;
    #[inline(always)]
    fn starts(&self) -> KeyStarts {
        KeyStarts {
            bytes: [0; 2],
            edge: 0,
            two_firsts: 0,
        }
    }
    #[inline(always)]
    fn root_key(&mut self, _: usize) {}
}

/// The tokens that follow one class of tokens, block after block. `carry` is
/// 1 when the next block's first gap starts right after one of the class: a
/// gap that ran on past the block's end, or a token of the class on its last
/// byte (both add one at bit 0 of the next block's sum).
#[derive(Clone, Copy, Default)]
struct Follow {
    carry: u64,
}

impl Follow {
    /// The tokens of this block whose previous token is in `class`.
    #[inline(always)]
    fn next(&mut self, class: u64, gaps: u64) -> u64 {
        // One 128-bit add (an add and an add-with-carry): the high half is
        // the carry out of the block.
        let sum = u128::from(class << 1) + u128::from(gaps) + u128::from(self.carry);
        self.carry = (class >> 63) | (sum >> 64) as u64;
        sum as u64 & !gaps
    }

    /// Whether a token of the class has no token after it (at the end).
    #[cfg(test)]
    fn pending(&self) -> bool {
        self.carry != 0
    }
}

/// The last, short block, copied over the start of `padded` (all spaces
/// until then): the spaces after it are neutral.
#[cold]
#[inline(never)]
fn pad_tail<'p>(padded: &'p mut [u8; BLOCK], tail: &[u8]) -> &'p [u8; BLOCK] {
    padded[..tail.len()].copy_from_slice(tail);
    padded
}

/// Bytes that end a scalar: whitespace, structure, a quote.
static DELIMITER: [bool; 256] = byte_table(b" \t\n\r{}[]:,\"");

/// Whether the scalar starting at `at` is a valid number or literal, ended by
/// a delimiter or the end.
#[inline(always)]
fn scalar_ok(bytes: &[u8], at: usize) -> bool {
    let end = match bytes.get(at) {
        Some(b't') => (bytes.get(at..at + 4) == Some(b"true")).then_some(at + 4),
        Some(b'f') => (bytes.get(at..at + 5) == Some(b"false")).then_some(at + 5),
        Some(b'n') => (bytes.get(at..at + 4) == Some(b"null")).then_some(at + 4),
        // Most numbers are plain integers or decimals: their digits found 8
        // at a time. An exponent (which may take a number out of an f64's
        // range) or a very long number goes through the full check.
        Some(b'1'..=b'9') => {
            let mut end = digits_end(bytes, at + 1);
            if bytes.get(end) == Some(&b'.') {
                let fraction = digits_end(bytes, end + 1);
                if fraction == end + 1 {
                    return false;
                }
                end = fraction;
            }
            if matches!(bytes.get(end), Some(b'e' | b'E')) || end - at > MAX_FINITE_DIGITS {
                strict_number(bytes, at).ok()
            } else {
                Some(end)
            }
        }
        Some(b'-' | b'0') => strict_number(bytes, at).ok(),
        _ => None,
    };
    end.is_some_and(|end| bytes.get(end).is_none_or(|&b| DELIMITER[b as usize]))
}

/// Whether the escape whose escaped byte is at `at` (the byte after the
/// backslash) is one strict mode reads: `\"`, `\\`, `\/`, `\b`, `\f`, `\n`,
/// `\r`, `\t`, or `\u` and four hex digits, a surrogate only as half of a
/// pair ([`unit_ok`]).
#[cold]
fn escape_ok(bytes: &[u8], at: usize) -> bool {
    match bytes.get(at) {
        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => true,
        Some(b'u') => bytes
            .get(at + 1..at + 5)
            .and_then(hex4)
            .is_some_and(|unit| unit_ok(bytes, at - 1, unit)),
        _ => false,
    }
}

/// The containers a block's bytes are in, from a walk over its brackets.
struct Context {
    /// Bits in an object (the innermost open container is an object).
    object: u64,
    /// Bits in an array.
    array: u64,
}

/// The strict scan: `true` if the bytes are one valid document.
struct BlockValidate<'a, 'w, W> {
    bytes: &'a [u8],
    watch: &'w mut W,
}

/// The open containers: a bit stack, and the innermost one's kind as masks
/// (all ones or none), kept beside it so that a block without brackets costs
/// no lookup.
#[derive(Default)]
struct Containers {
    nesting: Nesting,
    /// All ones if the innermost open container is an object.
    object: u64,
    /// All ones if it is an array.
    array: u64,
}

impl Containers {
    #[inline(always)]
    fn push(&mut self, kind: Container) {
        self.nesting.push(kind);
        self.object = u64::from(kind == Container::Object).wrapping_neg();
        self.array = !self.object;
    }

    /// Pops a container of `kind`; `false` if the innermost one is not that.
    #[inline(always)]
    fn pop(&mut self, kind: Container) -> bool {
        let top = match kind {
            Container::Object => self.object,
            Container::Array => self.array,
        };
        if top == 0 {
            return false;
        }
        self.nesting.pop();
        match self.nesting.top() {
            Some(kind) => {
                self.object = u64::from(kind == Container::Object).wrapping_neg();
                self.array = !self.object;
            }
            None => {
                self.object = 0;
                self.array = 0;
            }
        }
        true
    }
}

/// Walks the brackets of a block (`block`'s bytes, brackets at
/// `brackets`), pushing and popping the containers, and says which bytes are
/// in which kind of container. `None` if a closer does not match its opener,
/// or an opener would nest deeper than [`MAX_DEPTH`].
#[inline(always)]
fn walk_brackets(block: &[u8], brackets: u64, containers: &mut Containers) -> Option<Context> {
    let mut context = Context {
        object: 0,
        array: 0,
    };
    let mut from = 0;
    let mut rest = brackets;
    while rest != 0 {
        let at = rest.trailing_zeros();
        // The bracket itself is in the container around it: an opener in the
        // outer one, a closer in the one it closes. (`from <= at < 64`.)
        let span = (u64::MAX >> (63 - at)) & (u64::MAX << from);
        context.object |= span & containers.object;
        context.array |= span & containers.array;
        let ok = match block.get(at as usize) {
            Some(b'{') if containers.nesting.depth() < MAX_DEPTH => {
                containers.push(Container::Object);
                true
            }
            Some(b'[') if containers.nesting.depth() < MAX_DEPTH => {
                containers.push(Container::Array);
                true
            }
            // One level deeper than serde_json reads.
            Some(b'{' | b'[') => false,
            Some(b'}') => containers.pop(Container::Object),
            _ => containers.pop(Container::Array),
        };
        if !ok {
            return None;
        }
        from = at + 1;
        rest &= rest - 1;
    }
    let span = u64::MAX.checked_shl(from).unwrap_or(0);
    context.object |= span & containers.object;
    context.array |= span & containers.array;
    Some(context)
}

/// How many blocks validation alone classifies before it checks their
/// grammar: 4 KB, a whole message of the demo's (see
/// [`BlockValidate::run_in`]). Chunks of 16 blocks took 1.1x the time, of
/// 128 the same.
const CHUNK: usize = 64;

/// The chunk of a document of at most this many blocks: all of them.
const SHORT: usize = 8;

/// One block's tokens, as the classifying pass hands them to the grammar
/// pass: brackets, `:` and `,` outside strings, strings' opening quotes, and
/// scalars' first bytes; with a key watch, the first bytes of strings that
/// may start a watched key.
#[derive(Clone, Copy, Default)]
struct Tokens {
    open: u64,
    close: u64,
    colon: u64,
    comma: u64,
    string_open: u64,
    scalar_start: u64,
    watched: u64,
}

/// What the classifying pass carries from block to block.
struct Strings {
    /// 1 if the next block's first byte is escaped.
    escape_carry: u64,
    /// All ones if the next block starts inside a string.
    inside_carry: u64,
    /// 1 if the last block ended inside a scalar.
    scalar_high: u64,
    /// From the first block with non-ASCII bytes to the end of the last
    /// one (`usize::MAX`: none).
    high_from: usize,
    high_to: usize,
}

impl Strings {
    /// Classifies up to `tokens.len()` blocks from `from` into `tokens`,
    /// checks their strings (no control character, only valid escapes), and
    /// marks where a key `watch` watches could start. How many blocks it
    /// classified, `None` if a string is not valid.
    #[inline(always)]
    fn chunk<K: Kernel, W: KeyWatch>(
        &mut self,
        kernel: K,
        bytes: &[u8],
        from: usize,
        tokens: &mut [Tokens],
        watch: &W,
    ) -> Option<usize> {
        let mut padded = [b' '; BLOCK];
        let starts = watch.starts();
        let mut start = from;
        let mut n = 0;
        while n < tokens.len() && start < bytes.len() {
            // For bytes another core has just written (the filter's): see
            // `prefetch_ahead`.
            simd::prefetch_ahead(bytes, start);
            // Every block (the short last one padded first) is classified
            // in line, so that its masks stay in registers.
            let block = match bytes[start..].first_chunk::<BLOCK>() {
                Some(block) => block,
                None => pad_tail(&mut padded, &bytes[start..]),
            };
            let m = &kernel.classify_strict(block);
            // The whole input must be UTF-8 (outside strings only ASCII is
            // valid): checked at the end from the first block with
            // non-ASCII bytes to the end of the last, which start and end
            // between characters, as an ASCII byte (or the input's edge)
            // stands on either side. Most blocks of most documents have
            // none, and a document without any is not read again.
            if m.high != 0 {
                self.high_from = self.high_from.min(start);
                self.high_to = start + BLOCK;
            }
            let escaped = escaped_bytes(m.masks.backslash, &mut self.escape_carry);
            let quotes = m.masks.quote & !escaped;
            let inside = kernel.prefix_xor(quotes) ^ self.inside_carry;
            self.inside_carry = ((inside as i64) >> 63) as u64;
            let outside = !inside;

            // Strings: no control character, only valid escapes.
            if m.control & inside != 0 {
                return None;
            }
            let mut escapes = escaped & inside;
            while escapes != 0 {
                if !escape_ok(bytes, start + escapes.trailing_zeros() as usize) {
                    return None;
                }
                escapes &= escapes - 1;
            }

            let open = m.masks.open & outside;
            let close = m.masks.close & outside;
            let colon = m.masks.colon & outside;
            let scalar = outside
                & !(m.ws | m.masks.open | m.masks.close | m.masks.colon | m.comma | m.masks.quote);
            let scalar_start = scalar & !((scalar << 1) | self.scalar_high);
            self.scalar_high = scalar >> 63;
            let string_open = quotes & inside;
            // Where a watched key could start.
            let watched = if W::ON {
                starts.marks(kernel, block, m.masks.backslash)
            } else {
                0
            };
            tokens[n] = Tokens {
                open,
                close,
                colon,
                comma: m.comma & outside,
                string_open,
                scalar_start,
                watched,
            };
            n += 1;
            start += BLOCK;
        }
        Some(n)
    }
}

/// What the grammar pass carries from block to block.
#[derive(Default)]
struct Grammar {
    containers: Containers,
    /// The tokens after: a `:`; a key; a value.
    after_colon: Follow,
    after_key: Follow,
    after_value: Follow,
    /// Whether the last token so far is `{` or `[`.
    last_token_opens: bool,
    /// 1 if the last block's last byte opened a key.
    key_high: u64,
}

impl Grammar {
    /// Whether the blocks from `from` whose tokens are `tokens` follow the
    /// grammar, their brackets match and their scalars are valid; each key
    /// of the root object at a first byte the first pass marked is handed
    /// to `watch`.
    #[inline(always)]
    fn chunk<W: KeyWatch>(
        &mut self,
        bytes: &[u8],
        from: usize,
        tokens: &[Tokens],
        watch: &mut W,
    ) -> bool {
        let mut start = from;
        for t in tokens {
            let Tokens {
                open,
                close,
                colon,
                comma,
                string_open,
                scalar_start,
                watched,
            } = *t;
            let tokens = open | close | colon | comma | string_open | scalar_start;
            let gaps = !tokens;
            // A block without brackets walks none.
            let context = if open | close == 0 {
                Context {
                    object: self.containers.object,
                    array: self.containers.array,
                }
            } else {
                match walk_brackets(&bytes[start..], open | close, &mut self.containers) {
                    Some(context) => context,
                    None => return false,
                }
            };
            let values = open | string_open | scalar_start;

            // Every token follows exactly one: a `:`, a key, a value's end,
            // or an opener or `,` (the rest, by elimination, with the
            // document's first token, which no rule below concerns: outside
            // containers).
            let after_colons = self.after_colon.next(colon, gaps);
            let keys = string_open & context.object & !after_colons;
            let after_keys = self.after_key.next(keys, gaps);
            let value_ends = close | (string_open & !keys) | scalar_start;
            let after_values = self.after_value.next(value_ends, gaps);
            let after_openers = tokens & !(after_colons | after_keys | after_values);
            let opened = after_openers & !close;
            // `,` only in a container, `:` only in an object.
            let wrong = (comma & !(context.object | context.array))
                | (colon & !context.object)
                | (after_colons & !values)
                | (after_keys ^ colon)
                | (after_values & !(comma | close))
                | (opened & context.object & !string_open)
                | (opened & context.array & !values);
            if wrong != 0 {
                return false;
            }
            // A closer right after an opener or `,`: only `{}` and `[]`.
            let mut empties = after_openers & close;
            while empties != 0 {
                let at = empties.trailing_zeros();
                let before = tokens & ((1u64 << at) - 1);
                let opener_before = match before {
                    0 => self.last_token_opens,
                    _ => open >> (63 - before.leading_zeros()) & 1 == 1,
                };
                if !opener_before {
                    return false;
                }
                empties &= empties - 1;
            }
            if tokens != 0 {
                self.last_token_opens = open >> (63 - tokens.leading_zeros()) & 1 == 1;
            }

            let mut scalars = scalar_start;
            while scalars != 0 {
                if !scalar_ok(bytes, start + scalars.trailing_zeros() as usize) {
                    return false;
                }
                scalars &= scalars - 1;
            }

            if W::ON {
                let key_starts = (keys << 1) | self.key_high;
                self.key_high = keys >> 63;
                let marked = watched & key_starts;
                if marked != 0 {
                    let depth = self.containers.nesting.depth();
                    root_keys(watch, start, marked, depth, open, close);
                }
            }
            start += BLOCK;
        }
        true
    }
}

/// Hands `watch` the keys of `marked` (first bytes of keys in the block at
/// `start`, `depth` containers open at its end) that stand in the root
/// object: those with exactly one container open where they stand.
#[cold]
#[inline(never)]
fn root_keys<W: KeyWatch>(
    watch: &mut W,
    start: usize,
    mut marked: u64,
    depth: usize,
    open: u64,
    close: u64,
) {
    while marked != 0 {
        let at = marked.trailing_zeros();
        marked &= marked - 1;
        // The brackets from the key's first byte to the block's end.
        let from = u64::MAX << at;
        let here = (depth + (close & from).count_ones() as usize)
            .checked_sub((open & from).count_ones() as usize);
        if here == Some(1) {
            watch.root_key(start + at as usize);
        }
    }
}

impl<W: KeyWatch> BlockScan for BlockValidate<'_, '_, W> {
    type Output = bool;

    #[inline(always)]
    fn run<K: Kernel>(&mut self, kernel: K) -> bool {
        // A short document zeroes only the few blocks' tokens it has.
        if self.bytes.len() <= SHORT * BLOCK {
            self.run_in::<K, SHORT>(kernel)
        } else {
            self.run_in::<K, CHUNK>(kernel)
        }
    }
}

impl<W: KeyWatch> BlockValidate<'_, '_, W> {
    /// The validation, in chunks of `N` blocks. Two passes over each chunk:
    /// the first classifies the blocks, resolves and checks their strings,
    /// and keeps their tokens; the second walks their brackets, checks the
    /// grammar and the scalars, and hands the watch its keys. Each loop
    /// keeps fewer values live than one loop doing both: in the profiling
    /// loop, validation alone took 0.91x to 0.93x the time of the one loop
    /// with AVX-512, 0.94x with AVX2. Moved to the first pass, the scalar
    /// checks made validation 1.2x as slow; the brackets walked in a pass
    /// of their own, 1.1x.
    #[inline(always)]
    fn run_in<K: Kernel, const N: usize>(&mut self, kernel: K) -> bool {
        let bytes = self.bytes;
        let mut tokens = [Tokens::default(); N];
        let mut strings = Strings {
            escape_carry: 0,
            inside_carry: 0,
            scalar_high: 0,
            high_from: usize::MAX,
            high_to: 0,
        };
        let mut grammar = Grammar::default();
        let mut start = 0;
        while start < bytes.len() {
            let Some(n) = strings.chunk::<K, W>(kernel, bytes, start, &mut tokens, self.watch)
            else {
                return false;
            };
            if !grammar.chunk(bytes, start, &tokens[..n], self.watch) {
                return false;
            }
            start += n * BLOCK;
        }
        // The end: one whole value, nothing left open (a `:`, `,` or key
        // with nothing after it is in an open container), UTF-8 throughout.
        strings.inside_carry == 0
            && grammar.containers.nesting.top().is_none()
            && bytes
                .get(strings.high_from..strings.high_to.min(bytes.len()))
                .is_none_or(|high| simdutf8::basic::from_utf8(high).is_ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_starts_are_a_pair_or_first_bytes() {
        let of = |keys: &[&str]| {
            KeyStarts::of(keys.iter().map(|k| k.as_bytes()))
                .map(|s| (s.bytes, s.edge, s.two_firsts))
        };
        // one key, or keys alike in their first two bytes: a pair
        assert_eq!(of(&["detail"]), Some((*b"de", 1 << 63, 0)));
        assert_eq!(of(&["detail", "detal"]), Some((*b"de", 1 << 63, 0)));
        // a one-byte key's second byte is its closing quote
        assert_eq!(of(&["d"]), Some((*b"d\"", 1 << 63, 0)));
        // keys of other starts: their first bytes
        assert_eq!(of(&["detail", "dueAt"]), Some((*b"dd", u64::MAX, u64::MAX)));
        assert_eq!(of(&["detail", "item"]), Some((*b"di", u64::MAX, u64::MAX)));
        assert_eq!(of(&["detail", "d"]), Some((*b"dd", u64::MAX, u64::MAX)));
        // none, an empty key, more than two first bytes: no watch
        assert_eq!(of(&[]), None);
        assert_eq!(of(&["detail", ""]), None);
        assert_eq!(of(&["detail", "item", "type"]), None);
    }

    #[test]
    fn follow_finds_the_next_token_across_blocks() {
        // a token at bit 62, gaps to the end and into the next block up to bit 3
        let mut follow = Follow::default();
        let gaps = !(1u64 << 62);
        assert_eq!(follow.next(1 << 62, gaps), 0);
        assert_eq!(follow.next(0, !(1u64 << 3)), 1 << 3);
        assert!(!follow.pending());
        // a token on the last bit, followed by one at bit 0 of the next block
        let mut follow = Follow::default();
        assert_eq!(follow.next(1 << 63, !(1u64 << 63)), 0);
        assert_eq!(follow.next(0, !1), 1);
        // a token with nothing after it
        let mut follow = Follow::default();
        follow.next(1 << 5, !(1u64 << 5));
        assert!(follow.pending());
    }
}
