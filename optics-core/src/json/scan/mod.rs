//! Reading JSON bytes in place: find an object's member or an array's element,
//! skip a value, compare a raw string; and, in strict mode, validate a document.
//!
//! ```text
//! object_field(bytes, &["detail"]) walks the members, skipping every value:
//!
//! {"id":7,"user":{"name":"ann","tags":["a","b"]},"detail":"late"}
//!  '--' | '----' '-----------------------------' '------' '----'
//!  key  | key    object: skipped 64 bytes at a   key     Found(br#""late""#)
//!       |        time, brackets counted outside  (plain byte compare when
//!       |        strings with popcounts           it holds no backslash)
//!       number: scanned to its delimiter
//! ```
//!
//! Two modes:
//!
//! - **Non-strict** (everything but [`validate`]): values that are not wanted
//!   are skipped without being checked in full (a skipped number is scanned to its
//!   delimiter, a skipped container only has its brackets and strings tracked).
//!   These functions never panic, never recurse, run in time linear in the bytes
//!   they look at, allocate nothing and borrow their results from the input. On
//!   everything serde_json accepts they find exactly what serde_json finds; on
//!   truncated input a value that was cut is never returned, because every
//!   returned value must be followed by its container's `,` or closing bracket.
//! - **Strict**: [`validate`] checks one document against RFC 8259 in full, with
//!   an explicit stack instead of recursion.
//!
//! One file per concern:
//!
//! | file             | what it does                                                        |
//! |------------------|---------------------------------------------------------------------|
//! | `navigate.rs`    | the reads: an object's member, an array's element, a string, `null` |
//! | `member_walk.rs` | an object walked member by member (small objects, missing keys)     |
//! | `block_walk.rs`  | 64-byte block scans: skip a container, find a key by structure      |
//! | `skip.rs`        | skipping one value unchecked                                        |
//! | `escapes.rs`     | comparing a string's raw contents, escapes as written, with text    |
//! | `whitespace.rs`  | JSON whitespace: `skip_ws`, [`trim`]                                |
//! | `validate.rs`    | strict mode: [`validate`]                                           |
//!
//! The byte classification under the block scans is in `json/simd/`.

mod block_walk;
mod escapes;
mod member_walk;
mod navigate;
mod skip;
mod validate;
mod whitespace;

use super::simd;

pub use escapes::raw_eq;
pub use navigate::{
    array_element, first_member, is_null, object_field, object_last, string_raw, Lookup,
};
pub use skip::skip_value;
pub use validate::{validate, SyntaxError};
pub(crate) use whitespace::skip_ws;
pub use whitespace::trim;

/// A 256-entry membership table for `members`, built at compile time.
pub(super) const fn byte_table(members: &[u8]) -> [bool; 256] {
    let mut table = [false; 256];
    let mut i = 0;
    while i < members.len() {
        table[members[i] as usize] = true;
        i += 1;
    }
    table
}

/// Kernels the benches compare; not part of the public API.
#[doc(hidden)]
pub mod kernels {
    pub use super::super::simd::{
        classify, classify_scalar, find_quote_or_backslash, find_quote_or_backslash_scalar,
        find_string_special, find_string_special_scalar, Masks, BLOCK,
    };
    use super::block_walk::ContainerSkip;
    use super::simd::{self, BlockScan};

    /// `skip_value` of a container, forced onto the baseline (SSE2) kernel: what
    /// the AVX2 kernel is measured against.
    pub fn skip_container_baseline(bytes: &[u8], open: usize) -> Option<usize> {
        ContainerSkip::new(bytes, open).run(simd::Baseline)
    }
}
