//! Conformance with nst/JSONTestSuite's parsing tests.
//!
//! The folder (`test_parsing/`) comes from `JSON_TEST_SUITE_DIR`; CI always sets
//! it. File names say what a parser must do: `y_` accept, `n_` reject, `i_` either.
//!
//! - every `y_` document is skipped exactly: embedded as `{"a":<doc>,"b":7}`, member
//!   `a` is the document's trimmed bytes and member `b` is still found; `validate`
//!   accepts it;
//! - `validate` rejects every `n_` document;
//! - no file makes any function panic or take long, bare or embedded.

mod support;

use optics_core::json::scan::{object_field, skip_value, trim, validate, Lookup};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use support::scan_calls::run_every_scan_fn;

/// Generous enough for a debug build on a slow machine; a hang blows far past it.
const PER_FILE: Duration = Duration::from_secs(2);

fn embedded(doc: &[u8]) -> Vec<u8> {
    [&b"{\"a\":"[..], doc, b",\"b\":7}"].concat()
}

#[test]
fn json_test_suite() {
    let Some(dir) = std::env::var_os("JSON_TEST_SUITE_DIR") else {
        println!("JSON_TEST_SUITE_DIR is not set: skipping the JSONTestSuite conformance test");
        return;
    };
    let dir = PathBuf::from(dir);
    let entries = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("JSON_TEST_SUITE_DIR {}: {e}", dir.display()));
    let mut files: Vec<PathBuf> = entries
        .map(|entry| entry.expect("readable directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no .json files in {}", dir.display());

    let (mut accepted, mut rejected, mut either) = (0, 0, 0);
    let mut failures = Vec::new();
    for path in &files {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let doc = std::fs::read(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let wrapped = embedded(&doc);
        let started = Instant::now();

        run_every_scan_fn(&doc);
        run_every_scan_fn(&wrapped);
        match name.get(..2) {
            Some("y_") => {
                accepted += 1;
                if let Err(error) = validate(&doc) {
                    failures.push(format!("{name}: validate rejected it: {error}"));
                }
                if object_field(&wrapped, &["b"]) != Lookup::Found(b"7") {
                    failures.push(format!("{name}: member after it not found"));
                }
                if object_field(&wrapped, &["a"]) != Lookup::Found(trim(&doc)) {
                    failures.push(format!("{name}: not skipped exactly"));
                }
                if skip_value(&doc, 0) != Some(leading_ws(&doc) + trim(&doc).len()) {
                    failures.push(format!("{name}: skip_value did not stop at its end"));
                }
            }
            Some("n_") => {
                rejected += 1;
                if validate(&doc).is_ok() {
                    failures.push(format!("{name}: validate accepted it"));
                }
            }
            Some("i_") => either += 1,
            _ => {}
        }
        let took = started.elapsed();
        if took > PER_FILE {
            failures.push(format!("{name}: took {took:?}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(accepted > 90, "only {accepted} y_ files");
    assert!(rejected > 180, "only {rejected} n_ files");
    assert!(either > 30, "only {either} i_ files");
}

fn leading_ws(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .position(|b| !b" \t\n\r".contains(b))
        .unwrap_or(bytes.len())
}
