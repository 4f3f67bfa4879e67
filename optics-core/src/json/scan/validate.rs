//! Strict mode: one JSON document checked against RFC 8259 in full. The
//! verdict comes from the block validator (`validate_blocks.rs`, 64 bytes at
//! a time); the error of a document it rejects from the byte-by-byte
//! validator here, with an explicit stack of containers instead of
//! recursion, which is also the oracle the block validator is tested against.

use std::fmt;

use super::escapes::hex4;
use super::simd;
use super::skip::skip_literal;
use super::whitespace::skip_ws;

/// Strict mode: checks that `bytes` hold exactly one JSON document (RFC 8259),
/// whitespace around it allowed, and reports the first error.
///
/// Strings must be valid UTF-8 without control characters and with valid
/// escapes, a surrogate escape only as half of a pair (`\ud83d\ude00`):
/// RFC 8259's grammar allows a lone one (`"\ud800"`), but serde_json refuses
/// it in any string it reads as text (a `String`, a key, a `Value`), so
/// strict mode does too; numbers
/// must follow the grammar (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`); a
/// byte-order mark is rejected. Nesting is tracked on an explicit bit stack,
/// without recursion, and may go [`MAX_DEPTH`] (127) levels deep, as deep as
/// serde_json reads: a container one level deeper is refused ("nesting too
/// deep"), as serde_json refuses it (its recursion limit).
///
/// Numbers must also be in an `f64`'s range, as serde_json requires of any
/// number it reads as a value: `1e400` is refused ("number out of range"),
/// though RFC 8259's grammar allows it, so that a document strict mode
/// accepts is one `serde_json::Value` accepts. (`1e-400` is in range: it
/// reads as 0.) A number past `u64` reads as a float. The range is
/// serde_json's own verdict, which at the very top is not the correctly
/// rounded value's: `1.7976931348623158e308` rounds to `f64::MAX`, but
/// serde_json (without its `float_roundtrip` feature, as this workspace
/// builds it) computes it as infinite and refuses it, and so does strict
/// mode; with the feature, both accept it.
///
/// Cost: O(n), 64 bytes at a time (SIMD classification and UTF-8 checking);
/// a rejected document is walked again byte by byte to name its first error.
/// Allocates nothing.
///
/// ```
/// use optics_core::json::scan::validate;
///
/// assert_eq!(validate(br#" {"a":[1,2.5e3,"x"]} "#), Ok(()));
/// let deepest = format!("{}{}", "[".repeat(127), "]".repeat(127));
/// assert_eq!(validate(deepest.as_bytes()), Ok(()));
/// let deeper = format!("{}{}", "[".repeat(128), "]".repeat(128));
/// assert_eq!(validate(deeper.as_bytes()).unwrap_err().to_string(), "nesting too deep at byte 127");
/// let error = validate(br#"{"a":"\x"}"#).unwrap_err();
/// assert_eq!(error.to_string(), "invalid escape at byte 6");
/// assert_eq!(validate(b"[1e400]").unwrap_err().to_string(), "number out of range at byte 1");
/// assert_eq!(validate(b"[1e-400, 1e300]"), Ok(()));
/// assert!(validate(b"[1.7976931348623158e308]").is_err());
/// assert_eq!(validate(br#"["\ud83d\ude00"]"#), Ok(()));
/// let lone = validate(br#"["\ud800"]"#).unwrap_err();
/// assert_eq!(lone.to_string(), "lone surrogate at byte 2");
/// ```
pub fn validate(bytes: &[u8]) -> Result<(), SyntaxError> {
    if super::validate_blocks::is_valid(bytes) {
        return Ok(());
    }
    validate_scalar(bytes)
}

/// [`validate`] byte by byte: the oracle the block validator is checked
/// against, and what names the first error of a rejected document.
///
/// Cost: O(n), one byte (a string 16 bytes) at a time.
pub fn validate_scalar(bytes: &[u8]) -> Result<(), SyntaxError> {
    let mut nesting = Nesting::default();
    let mut pos = 0;
    'value: loop {
        pos = skip_ws(bytes, pos);
        let Some(&first) = bytes.get(pos) else {
            return Err(SyntaxError::end(bytes));
        };
        // An empty container is a level too, as serde_json counts it.
        if matches!(first, b'{' | b'[') && nesting.depth() == MAX_DEPTH {
            return Err(SyntaxError::new(pos, "nesting too deep"));
        }
        pos = match first {
            b'{' => {
                pos = skip_ws(bytes, pos + 1);
                if bytes.get(pos) == Some(&b'}') {
                    pos + 1
                } else {
                    nesting.push(Container::Object);
                    pos = strict_member_key(bytes, pos)?;
                    continue 'value;
                }
            }
            b'[' => {
                pos = skip_ws(bytes, pos + 1);
                if bytes.get(pos) == Some(&b']') {
                    pos + 1
                } else {
                    nesting.push(Container::Array);
                    continue 'value;
                }
            }
            b'"' => strict_string(bytes, pos)?,
            b'-' | b'0'..=b'9' => {
                let end = strict_number(bytes, pos)?;
                // Only a leading zero leaves a digit right after a number:
                // the number's error, as serde_json says, not the container's.
                if bytes.get(end).is_some_and(u8::is_ascii_digit) {
                    return Err(SyntaxError::new(end, "invalid number"));
                }
                end
            }
            b't' => strict_literal(bytes, pos, b"true")?,
            b'f' => strict_literal(bytes, pos, b"false")?,
            b'n' => strict_literal(bytes, pos, b"null")?,
            _ => return Err(SyntaxError::new(pos, "expected a value")),
        };
        // After a value: close containers until one wants another value.
        loop {
            pos = skip_ws(bytes, pos);
            let Some(container) = nesting.top() else {
                return match pos == bytes.len() {
                    true => Ok(()),
                    false => Err(SyntaxError::new(pos, "trailing characters")),
                };
            };
            let (close, expected) = match container {
                Container::Object => (b'}', "expected ',' or '}'"),
                Container::Array => (b']', "expected ',' or ']'"),
            };
            match bytes.get(pos) {
                Some(b',') => {
                    pos += 1;
                    if container == Container::Object {
                        pos = strict_member_key(bytes, skip_ws(bytes, pos))?;
                    }
                    continue 'value;
                }
                Some(&b) if b == close => {
                    nesting.pop();
                    pos += 1;
                }
                Some(_) => return Err(SyntaxError::new(pos, expected)),
                None => return Err(SyntaxError::end(bytes)),
            }
        }
    }
}

/// How many levels deep [`validate`] lets containers nest: 127, as serde_json
/// reads them (its recursion limit refuses the 128th level, in a
/// `serde_json::Value` and in every value a typed decode reads).
pub const MAX_DEPTH: usize = 127;

/// Where and why [`validate`] rejected a document.
///
/// Displays in lowercase as `<what> at byte <offset>`, e.g.
/// `invalid escape at byte 17`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    /// Index of the offending byte (the input's length when it ended too early).
    pub offset: usize,
    /// What was wrong, in lowercase.
    pub what: &'static str,
}

impl SyntaxError {
    fn new(offset: usize, what: &'static str) -> Self {
        SyntaxError { offset, what }
    }

    fn end(bytes: &[u8]) -> Self {
        SyntaxError::new(bytes.len(), "unexpected end of input")
    }
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.what, self.offset)
    }
}

impl std::error::Error for SyntaxError {}

/// The kind of an open container in [`validate`].
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Container {
    Object,
    Array,
}

/// A stack of container kinds, one bit per level, [`MAX_DEPTH`] levels at
/// most (the validators refuse a deeper one before pushing it): two words,
/// nothing allocated.
#[derive(Default)]
pub(super) struct Nesting {
    depth: usize,
    /// Levels 0..64; bit set for an object.
    inline: u64,
    /// Levels 64..128.
    deep: u64,
}

impl Nesting {
    /// Opens a container (at most the [`MAX_DEPTH`]th): a bit set or cleared
    /// in the first word for the first 64 levels, out of line past them.
    #[inline(always)]
    pub(super) fn push(&mut self, container: Container) {
        let level = self.depth;
        if level < 64 {
            let bit = 1u64 << level;
            match container {
                Container::Object => self.inline |= bit,
                Container::Array => self.inline &= !bit,
            }
        } else {
            self.deep = push_deep(self.deep, level, container);
        }
        self.depth += 1;
    }

    /// How many containers are open.
    #[inline(always)]
    pub(super) fn depth(&self) -> usize {
        self.depth
    }

    #[inline(always)]
    pub(super) fn pop(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    #[inline(always)]
    pub(super) fn top(&self) -> Option<Container> {
        let level = self.depth.checked_sub(1)?;
        let word = if level < 64 { self.inline } else { self.deep };
        Some(match word >> (level % 64) & 1 {
            1 => Container::Object,
            _ => Container::Array,
        })
    }
}

/// [`Nesting::push`] past 64 levels: the word of levels 64..128 with the
/// bit of `level` set for an object or cleared for an array. Out of line
/// and by value: a method taking the nesting by reference made callers keep
/// it in memory, and the validator's bracket walk then loaded and stored its
/// depth and first word at every bracket.
#[cold]
#[inline(never)]
fn push_deep(deep: u64, level: usize, container: Container) -> u64 {
    debug_assert!(level < MAX_DEPTH, "nested past MAX_DEPTH");
    let bit = 1u64 << (level % 64);
    match container {
        Container::Object => deep | bit,
        Container::Array => deep & !bit,
    }
}

/// Checks `"key" :` at `pos` and returns the index after the colon.
fn strict_member_key(bytes: &[u8], pos: usize) -> Result<usize, SyntaxError> {
    match bytes.get(pos) {
        Some(b'"') => {}
        Some(_) => return Err(SyntaxError::new(pos, "expected a string key")),
        None => return Err(SyntaxError::end(bytes)),
    }
    let pos = skip_ws(bytes, strict_string(bytes, pos)?);
    match bytes.get(pos) {
        Some(b':') => Ok(pos + 1),
        Some(_) => Err(SyntaxError::new(pos, "expected ':'")),
        None => Err(SyntaxError::end(bytes)),
    }
}

/// Checks the string opening at `open` and returns the index after its close.
pub(super) fn strict_string(bytes: &[u8], open: usize) -> Result<usize, SyntaxError> {
    let mut pos = open + 1;
    loop {
        let Some(hit) = simd::find_string_special(bytes, pos) else {
            return Err(SyntaxError::end(bytes));
        };
        pos = match bytes[hit] {
            b'"' => return Ok(hit + 1),
            b'\\' => match bytes.get(hit + 1) {
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => hit + 2,
                Some(b'u') => match bytes.get(hit + 2..hit + 6).and_then(hex4) {
                    Some(unit) if unit_ok(bytes, hit, unit) => hit + 6,
                    Some(_) => return Err(SyntaxError::new(hit, "lone surrogate")),
                    None => return Err(SyntaxError::new(hit, "invalid escape")),
                },
                Some(_) => return Err(SyntaxError::new(hit, "invalid escape")),
                None => return Err(SyntaxError::end(bytes)),
            },
            0x00..=0x1F => return Err(SyntaxError::new(hit, "control character in string")),
            _ => {
                // A run of non-ASCII bytes ends at an ASCII byte, which is never
                // inside a UTF-8 sequence: the run must be valid on its own.
                let run = bytes[hit..].iter().take_while(|&&b| b >= 0x80).count();
                if let Err(error) = std::str::from_utf8(&bytes[hit..hit + run]) {
                    return Err(SyntaxError::new(hit + error.valid_up_to(), "invalid utf-8"));
                }
                hit + run
            }
        };
    }
}

/// Whether the `\u` escape whose backslash is at `at`, of UTF-16 code unit
/// `unit`, is text as serde_json reads a string into a `String`, a key or
/// a `Value`: not a surrogate, or the leading half of a pair whose trailing
/// half follows at once (`\ud83d\ude00`), or the trailing half of such a
/// pair. (serde_json takes a lone one only where it skips a value unchecked
/// or reads a string as bytes.)
///
/// Cost: a few compares; for a trailing half, a look back over the
/// backslashes before its pair.
pub(super) fn unit_ok(bytes: &[u8], at: usize, unit: u16) -> bool {
    let escape_at = |from: usize, units: core::ops::RangeInclusive<u16>| {
        bytes.get(from..from + 2) == Some(br"\u")
            && bytes
                .get(from + 2..from + 6)
                .and_then(hex4)
                .is_some_and(|unit| units.contains(&unit))
    };
    match unit {
        // A leading half: the trailing one right after it. The backslash
        // after four hex digits is an escape's.
        0xD800..=0xDBFF => escape_at(at + 6, 0xDC00..=0xDFFF),
        // A trailing half: a leading one right before it, whose backslash
        // escapes (an odd run of backslashes ends there).
        0xDC00..=0xDFFF => at.checked_sub(6).is_some_and(|from| {
            escape_at(from, 0xD800..=0xDBFF)
                && bytes[..=from]
                    .iter()
                    .rev()
                    .take_while(|&&b| b == b'\\')
                    .count()
                    % 2
                    == 1
        }),
        _ => true,
    }
}

/// Checks the number starting at `start` and returns the index after it.
pub(super) fn strict_number(bytes: &[u8], start: usize) -> Result<usize, SyntaxError> {
    let digits_from = |pos: usize| {
        pos + bytes
            .iter()
            .skip(pos)
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    let invalid = |pos: usize| SyntaxError::new(pos, "invalid number");
    let mut pos = start;
    if bytes.get(pos) == Some(&b'-') {
        pos += 1;
    }
    pos = match bytes.get(pos) {
        Some(b'0') => pos + 1,
        Some(b'1'..=b'9') => digits_from(pos + 1),
        _ => return Err(invalid(pos)),
    };
    if bytes.get(pos) == Some(&b'.') {
        let end = digits_from(pos + 1);
        if end == pos + 1 {
            return Err(invalid(end));
        }
        pos = end;
    }
    if matches!(bytes.get(pos), Some(b'e' | b'E')) {
        pos += 1;
        if matches!(bytes.get(pos), Some(b'+' | b'-')) {
            pos += 1;
        }
        let end = digits_from(pos);
        if end == pos {
            return Err(invalid(end));
        }
        pos = end;
        return in_f64_range(bytes, start, pos);
    }
    if pos - start > MAX_FINITE_DIGITS {
        return in_f64_range(bytes, start, pos);
    }
    Ok(pos)
}

/// The most digits a number without an exponent can have and still be a
/// finite `f64` for certain (`f64::MAX` has 309).
pub(super) const MAX_FINITE_DIGITS: usize = 300;

/// `Ok(end)` when serde_json reads the number `bytes[start..end]`
/// (grammatical) as a finite `f64`, as it requires of any number it reads
/// as a value; an error "number out of range" otherwise (`1e400`). Only
/// numbers with an exponent, or with more than [`MAX_FINITE_DIGITS`]
/// digits, are looked at, so the usual number costs nothing more.
#[cold]
fn in_f64_range(bytes: &[u8], start: usize, end: usize) -> Result<usize, SyntaxError> {
    let number = &bytes[start..end];
    let finite = if serde_json_rounds_correctly() {
        core::str::from_utf8(number)
            .ok()
            .and_then(|text| text.parse::<f64>().ok())
            .is_some_and(f64::is_finite)
    } else {
        serde_json_finite(number)
    };
    if finite {
        Ok(end)
    } else {
        Err(SyntaxError::new(start, "number out of range"))
    }
}

/// Whether serde_json reads floats correctly rounded, as it does with its
/// `float_roundtrip` feature (which any crate of a build may turn on):
/// then its range is the correctly rounded value's. Asked of serde_json
/// itself, once.
fn serde_json_rounds_correctly() -> bool {
    static ROUNDS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ROUNDS.get_or_init(|| serde_json::from_slice::<f64>(b"1.7976931348623158e308").is_ok())
}

/// Whether serde_json, without its `float_roundtrip` feature (as this
/// workspace builds it), reads the grammatical number `text` as a
/// finite `f64`. Its verdict is not always the correctly rounded one's
/// (`1.7976931348623158e308` rounds to `f64::MAX`, but serde_json refuses
/// it), so its steps are taken here as it takes them: up to 19 or 20
/// digits gathered into a `u64` (the rest, as long as the `u64` would
/// overflow, only move the exponent or are dropped), an exponent that
/// overflows an `i32` refused if positive for a significand that is not 0,
/// then the significand as an `f64` times `10^exponent` from a table of
/// `1e0` to `1e308`, and out of range if that product is infinite.
///
/// Cost: O(n) in the number, and one parse of a power of ten; nothing is
/// allocated.
fn serde_json_finite(text: &[u8]) -> bool {
    // serde_json's `overflow!`: whether `value * 10 + digit` passes `max`.
    fn overflows<T: Into<u64>>(value: T, digit: u64, max: u64) -> bool {
        let value = value.into();
        value >= max / 10 && (value > max / 10 || digit > max % 10)
    }
    let digit_at = |at: usize| {
        text.get(at)
            .filter(|b| b.is_ascii_digit())
            .map(|b| u64::from(b - b'0'))
    };
    let mut at = usize::from(text.first() == Some(&b'-'));
    let mut significand = 0u64;
    let mut exponent = 0i32;
    // The integer part; past a `u64`, each digit left moves the exponent.
    if text.get(at) == Some(&b'0') {
        at += 1;
    }
    while let Some(digit) = digit_at(at) {
        if overflows(significand, digit, u64::MAX) {
            while digit_at(at).is_some() {
                exponent = exponent.saturating_add(1);
                at += 1;
            }
            break;
        }
        significand = significand * 10 + digit;
        at += 1;
    }
    // The fraction; past a `u64`, the digits left are dropped.
    if text.get(at) == Some(&b'.') {
        at += 1;
        while let Some(digit) = digit_at(at) {
            if overflows(significand, digit, u64::MAX) {
                while digit_at(at).is_some() {
                    at += 1;
                }
                break;
            }
            significand = significand * 10 + digit;
            exponent = exponent.saturating_sub(1);
            at += 1;
        }
    }
    if matches!(text.get(at), Some(b'e' | b'E')) {
        at += 1;
        let positive = match text.get(at) {
            Some(b'-') => {
                at += 1;
                false
            }
            Some(b'+') => {
                at += 1;
                true
            }
            _ => true,
        };
        let mut exp = 0u32;
        while let Some(digit) = digit_at(at) {
            if overflows(exp, digit, i32::MAX as u64) {
                // Infinite, or zero.
                return significand == 0 || !positive;
            }
            exp = exp * 10 + digit as u32;
            at += 1;
        }
        let exp = exp as i32;
        exponent = if positive {
            exponent.saturating_add(exp)
        } else {
            exponent.saturating_sub(exp)
        };
    }
    // serde_json's `f64_from_parts`: only a positive power can overflow.
    let mut value = significand as f64;
    loop {
        match exponent {
            0..=308 => return (value * pow10(exponent as u32)).is_finite(),
            -308..=-1 => return true,
            _ if value == 0.0 => return true,
            309.. => return false,
            _ => {
                value /= 1e308;
                exponent += 308;
            }
        }
    }
}

/// `1e{power}` (`power` at most 308), correctly rounded, as the literal is:
/// the entry of serde_json's table of powers of ten. Parsed from its text,
/// written on the stack.
fn pow10(power: u32) -> f64 {
    let mut text = *b"1e000";
    text[2] = b'0' + (power / 100) as u8;
    text[3] = b'0' + (power / 10 % 10) as u8;
    text[4] = b'0' + (power % 10) as u8;
    core::str::from_utf8(&text)
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(f64::INFINITY)
}

fn strict_literal(bytes: &[u8], pos: usize, literal: &[u8]) -> Result<usize, SyntaxError> {
    skip_literal(bytes, pos, literal).ok_or(SyntaxError::new(pos, "invalid literal"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_holds_every_level_up_to_the_limit() {
        let mut nesting = Nesting::default();
        for level in 0..MAX_DEPTH {
            let kind = if level % 3 == 0 {
                Container::Object
            } else {
                Container::Array
            };
            nesting.push(kind);
            assert!(nesting.top() == Some(kind));
        }
        for level in (0..MAX_DEPTH).rev() {
            let kind = if level % 3 == 0 {
                Container::Object
            } else {
                Container::Array
            };
            assert!(nesting.top() == Some(kind));
            nesting.pop();
        }
        assert!(nesting.top().is_none());
    }
}
