//! JSON string escapes: comparing a string's raw contents, escapes as written,
//! with a text, and decoding one escape.

use super::simd;

/// Escape-aware equality of raw string contents (as returned by
/// [`string_raw`](super::string_raw) or [`first_member`](super::first_member))
/// with an unescaped `expected` text.
///
/// `\uXXXX` escapes, surrogate pairs included, are decoded on the fly and compared
/// as UTF-8; an invalid escape or a lone surrogate equals nothing.
///
/// Cost: O(n) in `raw`; nothing is allocated.
///
/// ```
/// use optics_core::json::scan::raw_eq;
///
/// assert!(raw_eq(br"det\u0061il", b"detail"));
/// assert!(raw_eq(br"\ud83d\ude00!", "😀!".as_bytes()));
/// assert!(!raw_eq(br"a\qb", b"aqb"));
/// ```
pub fn raw_eq(raw: &[u8], expected: &[u8]) -> bool {
    let mut r = 0;
    let mut e = 0;
    loop {
        // Compare the plain run up to the next backslash in one go.
        let plain_end = next_backslash(raw, r).unwrap_or(raw.len());
        let run = plain_end - r;
        if raw.get(r..plain_end) != expected.get(e..e + run) {
            return false;
        }
        r = plain_end;
        e += run;
        if r == raw.len() {
            return e == expected.len();
        }
        let Some((ch, next)) = decode_escape(raw, r) else {
            return false;
        };
        let mut utf8 = [0u8; 4];
        let encoded = ch.encode_utf8(&mut utf8).as_bytes();
        if expected.get(e..e + encoded.len()) != Some(encoded) {
            return false;
        }
        r = next;
        e += encoded.len();
    }
}

/// Index of the first backslash at or after `from`.
fn next_backslash(raw: &[u8], mut from: usize) -> Option<usize> {
    loop {
        let hit = simd::find_quote_or_backslash(raw, from)?;
        if raw[hit] == b'\\' {
            return Some(hit);
        }
        from = hit + 1;
    }
}

/// Value of four hex digits.
pub(super) fn hex4(digits: &[u8]) -> Option<u16> {
    let digits: &[u8; 4] = digits.try_into().ok()?;
    digits.iter().try_fold(0u16, |acc, &d| {
        let nibble = match d {
            b'0'..=b'9' => d - b'0',
            b'a'..=b'f' => d - b'a' + 10,
            b'A'..=b'F' => d - b'A' + 10,
            _ => return None,
        };
        Some(acc << 4 | u16::from(nibble))
    })
}

/// Decodes the escape whose backslash is at `at`: the character and the index
/// after the escape. A surrogate pair spans two `\u` escapes; a lone surrogate
/// or an unknown escape gives `None`.
fn decode_escape(raw: &[u8], at: usize) -> Option<(char, usize)> {
    let simple = match *raw.get(at + 1)? {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => {
            let unit = hex4(raw.get(at + 2..at + 6)?)?;
            return match unit {
                0xD800..=0xDBFF => {
                    if raw.get(at + 6..at + 8)? != b"\\u" {
                        return None;
                    }
                    let low = hex4(raw.get(at + 8..at + 12)?)?;
                    if !(0xDC00..=0xDFFF).contains(&low) {
                        return None;
                    }
                    let code =
                        0x10000 + ((u32::from(unit) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
                    Some((char::from_u32(code)?, at + 12))
                }
                _ => Some((char::from_u32(u32::from(unit))?, at + 6)),
            };
        }
        _ => return None,
    };
    Some((simple, at + 2))
}
