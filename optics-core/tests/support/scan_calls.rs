//! Every entry point of the scanner, called on the same bytes.

use optics_core::json::scan::{
    array_element, first_member, is_null, object_field, object_last, raw_eq, skip_value,
    string_raw, trim, validate,
};

/// Runs every scanner function on `bytes`, results ignored: the point is that
/// none of them panics or hangs, whatever the bytes.
pub fn run_every_scan_fn(bytes: &[u8]) {
    let _ = object_field(bytes, &["a", "b"]);
    let _ = object_last(bytes, "a");
    for index in [0, 1, 3] {
        let _ = array_element(bytes, index);
    }
    let _ = first_member(bytes);
    let _ = string_raw(bytes);
    let _ = raw_eq(bytes, b"a");
    let _ = raw_eq(trim(bytes), b"a");
    let _ = is_null(bytes);
    let _ = validate(bytes);
    for start in 0..=bytes.len().min(8) {
        let _ = skip_value(bytes, start);
    }
}
