//! Every committed fuzz corpus file, replayed through the very function its
//! cargo-fuzz target runs (`triage::fuzzing`), on stable, in every CI run:
//! the targets cannot rot, and an input the fuzzer once found stays tested.

use std::fs;
use std::path::Path;

/// Runs `harness` on every file of `fuzz/corpus/<target>`; returns how many.
fn replay(target: &str, harness: fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut files = 0;
    for entry in fs::read_dir(&dir).unwrap_or_else(|err| panic!("{}: {err}", dir.display())) {
        let path = entry.unwrap().path();
        let data = fs::read(&path).unwrap();
        let outcome = std::panic::catch_unwind(|| harness(&data));
        assert!(outcome.is_ok(), "{target}: {} fails", path.display());
        files += 1;
    }
    files
}

#[test]
fn the_scan_corpus_passes() {
    assert!(replay("scan", triage::fuzzing::scan) >= 10);
}

#[test]
fn the_frames_corpus_passes() {
    assert!(replay("frames", triage::fuzzing::frames) >= 5);
}

#[test]
fn the_judge_corpus_passes() {
    assert!(replay("judge", triage::fuzzing::judge) >= 10);
}

#[test]
fn the_strict_corpus_passes() {
    assert!(replay("strict", triage::fuzzing::strict) >= 10);
}

#[test]
fn the_proxy_frames_corpus_passes() {
    assert!(replay("proxy_frames", triage::fuzzing::proxy_frames) >= 5);
}

#[test]
fn the_write_corpus_passes() {
    assert!(replay("write", triage::fuzzing::write) >= 10);
}

#[path = "../optics-core/tests/support/fidelity_model.rs"]
#[allow(dead_code)]
mod fidelity_model;

#[test]
fn the_fidelity_corpus_passes() {
    fn fidelity(data: &[u8]) {
        if let Err(failure) = fidelity_model::fuzz(data) {
            panic!("{failure}");
        }
    }
    assert!(replay("fidelity", fidelity) >= 10);
}

#[test]
fn the_layout_corpus_passes() {
    assert!(replay("layout", triage::fuzzing::layout) >= 10);
}
