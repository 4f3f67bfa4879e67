//! Compile-fail tests: each file in `tests/ui/` makes one mistake a user of
//! `#[derive(Optics)]` could make, and its `.stderr` holds the message the
//! compiler gives, which must point at the mistake and say what to do.
//!
//! Compiler wording drifts between releases, so the files are checked only on
//! the toolchain pinned in `rust-toolchain.toml`. Regenerate them with
//! `TRYBUILD=overwrite cargo test -p optics-core --test compile_fail`, then read
//! every diff.

use std::process::Command;

/// The toolchain the `.stderr` files were written with.
const PINNED: &str = "1.95.0";

/// The version of the `rustc` that builds the UI tests, as `rustc --version`
/// prints it (`rustc 1.95.0 (59807616e 2026-04-14)`).
fn rustc_version() -> Option<String> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = Command::new(rustc).arg("--version").output().ok()?;
    if !output.status.success() {
        return None;
    }
    String::from_utf8(output.stdout).ok()
}

/// Whether `--version` output names exactly the pinned release.
fn is_pinned(version: &str) -> bool {
    version.split_whitespace().nth(1) == Some(PINNED)
}

#[test]
fn ui() {
    match rustc_version() {
        Some(version) if is_pinned(&version) => {}
        Some(version) => {
            eprintln!(
                "note: UI tests skipped: they run on rustc {PINNED} only, because compiler \
                 messages change between releases; this is {}",
                version.trim()
            );
            return;
        }
        None => {
            eprintln!("note: UI tests skipped: `rustc --version` could not be run");
            return;
        }
    }
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}

/// Mistakes rustc reports only when it generates code: a check a generic
/// struct's derive cannot make until it knows its type parameters is a
/// constant evaluated for each instance a byte optic is compiled through,
/// and `cargo check`, which trybuild runs for compile-fail cases alone,
/// never evaluates it. A case that must build and run (`pass`) makes
/// trybuild build every case of its set, so these have a set of their own.
#[test]
fn ui_when_built() {
    match rustc_version() {
        Some(version) if is_pinned(&version) => {}
        _ => {
            eprintln!("note: built UI tests skipped: they run on rustc {PINNED} only");
            return;
        }
    }
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui-build/flattened-type-parameter-without-shared-key.rs");
    cases.compile_fail("tests/ui-build/serde-flatten-type-parameter-shared-key.rs");
}

#[test]
fn pinned_version_is_recognized() {
    assert!(is_pinned("rustc 1.95.0 (59807616e 2026-04-14)"));
    assert!(!is_pinned("rustc 1.95.1 (aaaaaaaaa 2026-05-01)"));
    assert!(!is_pinned("rustc 1.96.0-nightly (bbbbbbbbb 2026-04-20)"));
    assert!(!is_pinned(""));
}
