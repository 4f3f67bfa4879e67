//! JSON whitespace (space, tab, line feed, carriage return, the only
//! whitespace RFC 8259 and serde_json allow): one table, one `skip_ws` for the
//! whole crate.

use super::byte_table;

static WHITESPACE: [bool; 256] = byte_table(b" \t\n\r");

#[inline(always)]
pub(super) fn is_ws(byte: u8) -> bool {
    WHITESPACE[byte as usize]
}

/// Index of the first non-whitespace byte at or after `pos` (or the length).
#[inline(always)]
pub(crate) fn skip_ws(bytes: &[u8], pos: usize) -> usize {
    // Compact JSON has no whitespace: one compare decides (every whitespace byte
    // is at most b' ').
    match bytes.get(pos) {
        Some(&b) if b > b' ' => pos,
        _ => skip_ws_loop(bytes, pos),
    }
}

#[inline]
fn skip_ws_loop(bytes: &[u8], mut pos: usize) -> usize {
    while let Some(&b) = bytes.get(pos) {
        if !is_ws(b) {
            break;
        }
        pos += 1;
    }
    pos
}

/// `bytes` without leading and trailing JSON whitespace (space, `\t`, `\n`, `\r`).
///
/// Cost: O(n) in the whitespace; nothing is copied.
///
/// ```
/// use optics_core::json::scan::trim;
///
/// assert_eq!(trim(b"\t [1] \r\n"), b"[1]");
/// ```
pub fn trim(bytes: &[u8]) -> &[u8] {
    // Compact JSON has no whitespace around it: two compares decide.
    if let (Some(&first), Some(&last)) = (bytes.first(), bytes.last()) {
        if first > b' ' && last > b' ' {
            return bytes;
        }
    }
    let start = skip_ws(bytes, 0);
    let end = bytes
        .iter()
        .rposition(|&b| !is_ws(b))
        .map_or(start, |last| last + 1);
    bytes.get(start..end).unwrap_or_default()
}
