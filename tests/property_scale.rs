//! `PROPTEST_SCALE` deepens every property suite of the workspace (README,
//! Commands; `optics-core/tests/support/scale.rs`): each suite's case count
//! goes through `scaled`, so that a campaign never runs a suite at its CI
//! depth without saying so. Read from the sources: a case count written as
//! a bare number is a suite the campaign would pass over.

use std::fs;
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, recursively.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// Whether `line` sets a property suite's case count without `scaled`:
/// `with_cases(N)`, or `cases: N` in a config.
fn unscaled(line: &str) -> bool {
    if line.contains("scaled(") {
        return false;
    }
    if line.contains("with_cases(") {
        return true;
    }
    line.split("cases:").skip(1).any(|rest| {
        rest.trim_start()
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit())
    })
}

#[test]
fn every_property_suite_scales_with_proptest_scale() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["src", "tests", "optics-core/src", "optics-core/tests"] {
        sources(&root.join(dir), &mut files);
    }
    assert!(files.len() > 50, "the sources were found");
    let mut found = Vec::new();
    for file in &files {
        let text = fs::read_to_string(file).unwrap();
        for (at, line) in text.lines().enumerate() {
            if unscaled(line) && !file.ends_with("tests/property_scale.rs") {
                let name = file.strip_prefix(root).unwrap().display();
                found.push(format!("{name}:{}: {}", at + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "case counts that PROPTEST_SCALE does not multiply:\n{}",
        found.join("\n")
    );
}
