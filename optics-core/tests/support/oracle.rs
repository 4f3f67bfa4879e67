//! The oracle the fidelity tests share: a byte read, trusting and strict,
//! agrees with serde_json's decode of the whole document, previewed with the
//! same optic, on the document as written and with whitespace around every
//! token.

use std::fmt::Debug;

use optics_core::json::{Duplicates, JsonDecode, Strict};
use optics_core::prelude::*;
use serde::de::DeserializeOwned;

/// `doc` with whitespace before and after every structural character outside
/// strings, and around the whole.
pub fn airy(doc: &[u8]) -> Vec<u8> {
    let mut out = b" \r\n".to_vec();
    let mut in_string = false;
    let mut escaped = false;
    for &byte in doc {
        if in_string {
            out.push(byte);
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => {
                in_string = true;
                out.push(byte);
            }
            b'{' | b'}' | b'[' | b']' | b':' | b',' => {
                out.extend_from_slice(b"\t ");
                out.push(byte);
                out.extend_from_slice(b"\n ");
            }
            _ => out.push(byte),
        }
    }
    out.extend_from_slice(b"\n\t");
    out
}

/// The byte read of `o` in `doc` agrees with serde_json's decode of the whole
/// document previewed with `o`, on `doc` as written and with whitespace added.
/// Returns what both found, for the test to pin down.
#[track_caller]
pub fn agree<S, O>(doc: &str, o: O) -> Option<O::Focus>
where
    S: DeserializeOwned,
    O: Preview<Source = S> + for<'de> JsonDecode<'de> + Copy + Debug,
    O::Focus: Clone + PartialEq + Debug,
{
    let mut found = None;
    for bytes in [doc.as_bytes().to_vec(), airy(doc.as_bytes())] {
        let text = String::from_utf8_lossy(&bytes);
        let whole: S = serde_json::from_slice(&bytes)
            .unwrap_or_else(|error| panic!("serde_json rejects {text}: {error}"));
        let expected = o.preview(&whole).cloned();
        let read = Json::<S>::new(&bytes).read(o);
        assert_eq!(read, expected, "{o:?} in {text}");
        // Read strictly, the same: serde_json took the document, so no key
        // on the path stands twice.
        let duplicates = Duplicates::new();
        let strict = Strict::<S>::validated(&bytes, &duplicates)
            .unwrap_or_else(|error| panic!("not valid ({error:?}): {text}"));
        assert_eq!(strict.read(o), expected, "strict {o:?} in {text}");
        assert!(!duplicates.met(), "strict {o:?} met a duplicate in {text}");
        found = read;
    }
    found
}

/// serde_json rejects `doc` as an `S`, and the byte read of `o` misses: a
/// focus that serde would not decode is not read either.
#[track_caller]
pub fn both_reject<S, O>(doc: &str, o: O)
where
    S: DeserializeOwned + Debug,
    O: Preview<Source = S> + for<'de> JsonDecode<'de> + Copy + Debug,
    O::Focus: Debug,
{
    for bytes in [doc.as_bytes().to_vec(), airy(doc.as_bytes())] {
        let text = String::from_utf8_lossy(&bytes);
        let whole = serde_json::from_slice::<S>(&bytes);
        assert!(whole.is_err(), "serde_json accepts {text}: {whole:?}");
        let read = Json::<S>::new(&bytes).read(o);
        assert!(read.is_none(), "{o:?} read {read:?} in {text}");
        if let Ok(strict) = Strict::<S>::validated(&bytes, &Duplicates::new()) {
            let read = strict.read(o);
            assert!(read.is_none(), "strict {o:?} read {read:?} in {text}");
        }
    }
}
