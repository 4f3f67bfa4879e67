//! The byte reader against serde_json on any bytes, over the fidelity model
//! of `optics-core`'s tests: no read panics, and wherever serde_json decodes
//! the bytes as the model's root, every path read from them equals the
//! decoded value previewed with that path. The body is shared with
//! `tests/fuzz_corpus.rs`, which replays the corpus on stable.
#![no_main]

#[path = "../../optics-core/tests/support/fidelity_model.rs"]
#[allow(dead_code)]
mod fidelity_model;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(failure) = fidelity_model::fuzz(data) {
        panic!("{failure}");
    }
});
