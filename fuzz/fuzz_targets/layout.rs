//! See `triage::fuzzing` for what it checks; the body lives there so that a
//! stable test replays the corpus through it.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| triage::fuzzing::layout(data));
