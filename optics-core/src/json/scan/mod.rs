//! Reading JSON bytes in place: find an object's member or an array's element,
//! skip a value, compare a raw string; and, in strict mode, validate a document.
//!
//! ```text
//! object_field(bytes, &["detail"]) on an object of 1 KiB and more walks its
//! structure 64 bytes at a time (a smaller one member by member):
//!
//! {"id":7,"user":{"name":"ann","tags":["a","b"]},"detail":"late"}
//!  1   :  1      :2     :      :                1        :
//!      |         '-- depth 2 (openers less closers before it, popcounts): not a key
//!      '-- depth 1, but the quote masks say its key is not 6 bytes long
//!                                                        '-- depth 1, 6 bytes:
//!                                                            compared, Found(br#""late""#)
//! ```
//!
//! A field serde writes late in its struct is looked for from both ends
//! ([`object_field_late`]): the blocks from the object's end are read
//! backward with the same masks, in turns with the walk from the front.
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
//! - **Strict**: [`validate`] checks one document against RFC 8259 in full, on
//!   the same block masks (the byte-by-byte oracle names the first error).
//!   Strict reads ([`Strict`](crate::json::Strict)) also confirm that each key
//!   on the path they read stands once in its object.
//!
//! One file per concern:
//!
//! | file             | what it does                                                        |
//! |------------------|---------------------------------------------------------------------|
//! | `navigate.rs`    | the reads: an object's member, an array's element, a string, `null` |
//! | `member_walk.rs` | an object walked member by member (small objects, missing keys)     |
//! | `block_walk.rs`  | 64-byte block scans: skip a container, find a key (front or end)    |
//! | `duplicates.rs`  | strict reads: each key on the path read once (duplicate keys)       |
//! | `walked.rs`      | strict reads: small objects walked once, their keys recorded        |
//! | `skip.rs`        | skipping one value unchecked                                        |
//! | `escapes.rs`     | comparing a string's raw contents, escapes as written, with text    |
//! | `whitespace.rs`  | JSON whitespace: `skip_ws`, [`trim`]                                |
//! | `validate.rs`    | strict mode: [`validate`], its byte-by-byte oracle and errors       |
//! | `validate_blocks.rs` | strict mode's verdict on the block masks, UTF-8 by simdutf8     |
//!
//! The byte classification under the block scans is in `json/simd/`.

mod block_walk;
pub(crate) mod duplicates;
mod escapes;
mod member_walk;
mod navigate;
mod skip;
mod validate;
mod validate_blocks;
pub(crate) mod walked;
mod whitespace;

use super::simd;

pub use escapes::raw_eq;
pub(crate) use member_walk::same_bytes;
pub(crate) use member_walk::Reach;
pub use navigate::{
    array_element, first_member, is_null, object_field, object_field_late, object_last,
    prefetch_late, string_raw, Lookup,
};
pub(crate) use navigate::{
    array_element_reaching, object_field_from, object_field_reaching, SMALL_OBJECT,
};
pub use skip::skip_value;
pub use validate::{validate, SyntaxError, MAX_DEPTH};
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
        find_string_special, find_string_special_scalar, KernelChoice, Masks, BLOCK,
    };
    use super::block_walk::{ClassifyOnly, ContainerSkip, FieldScan};
    use super::navigate::Lookup;
    use super::simd::{self, BlockScan};

    /// The structural walk behind `object_field` (whatever the object's
    /// size), run with the kernel `choice` names.
    pub fn object_field_with<'a>(choice: KernelChoice, obj: &'a [u8], keys: &[&str]) -> Lookup<'a> {
        FieldScan::run_with(obj, keys, choice, None)
    }

    /// [`object_field_with`] for a trusting read whose path goes on inside
    /// the value found: the value from its start to the end of `obj`, its
    /// own end not looked for.
    pub fn object_field_entering_with<'a>(
        choice: KernelChoice,
        obj: &'a [u8],
        keys: &[&str],
    ) -> Lookup<'a> {
        FieldScan::run_entering_with(obj, keys, choice)
    }

    /// The lookup of a key serde writes late in its struct, from both ends
    /// of the object (whatever its size), with the kernel `choice` names;
    /// with `enter`, the value found from its start to the end of `obj`.
    pub fn object_field_late_with<'a>(
        choice: KernelChoice,
        obj: &'a [u8],
        keys: &[&str],
        enter: bool,
    ) -> Lookup<'a> {
        FieldScan::run_late_with(obj, keys, choice, enter)
    }

    /// The strict verdict of the block validator, with the kernel `choice` names.
    pub fn is_valid_with(choice: KernelChoice, bytes: &[u8]) -> bool {
        super::validate_blocks::is_valid_with(bytes, choice)
    }

    /// Strict mode's validation and lookup of `keys` in the root object in
    /// one pass, with the kernel `choice` names: `Err` if the document is
    /// not valid, `Ok(None)` if it is not an object (nothing checked), else
    /// the lookup (a duplicate is `Malformed`).
    pub fn validate_and_find_with<'a>(
        choice: KernelChoice,
        bytes: &'a [u8],
        keys: &[&str],
    ) -> Result<Option<Lookup<'a>>, super::SyntaxError> {
        super::duplicates::validate_and_find_with(bytes, keys, choice)
    }

    /// Strict mode byte by byte: the oracle of the block validator.
    pub use super::validate::validate_scalar;

    /// `skip_value` of the container at `open`, with the kernel `choice` names.
    pub fn skip_container_with(choice: KernelChoice, bytes: &[u8], open: usize) -> Option<usize> {
        simd::dispatch_as(&mut ContainerSkip::new(bytes, open), choice)
    }

    /// The classification floor over `bytes`: every 64-byte block classified
    /// with the best kernel, escapes and strings resolved, brackets and colons
    /// outside strings masked, nothing else. What a structural scan of these
    /// bytes costs at least (simdjson's stage 1 without its index output).
    pub fn classify_floor(bytes: &[u8]) -> u64 {
        simd::dispatch(&mut ClassifyOnly { bytes })
    }

    /// `skip_value` of a container, forced onto the baseline (SSE2) kernel: what
    /// the AVX2 kernel is measured against.
    pub fn skip_container_baseline(bytes: &[u8], open: usize) -> Option<usize> {
        ContainerSkip::new(bytes, open).run(simd::Baseline)
    }
}
