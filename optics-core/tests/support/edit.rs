//! One edit of a test input, for checks that broken bytes are read safely.
//! Also compiled into the crate's own unit tests (`json/enum_tag.rs`).

/// Edits `bytes` at `at` (at most `bytes.len()`): `edit` 0 replaces the byte
/// there with `byte`, 1 inserts `byte`, anything else deletes the byte there;
/// at the end, where there is no byte, every edit but an insert appends.
pub fn edit_one_byte(bytes: &mut Vec<u8>, at: usize, edit: u8, byte: u8) {
    match edit {
        0 if at < bytes.len() => bytes[at] = byte,
        1 => bytes.insert(at, byte),
        _ if at < bytes.len() => {
            bytes.remove(at);
        }
        _ => bytes.push(byte),
    }
}
