//! `Duplicates::offset_in` names the opening quote of the key where it
//! stands the second time, in objects small and large, with the key early
//! and late, at the root and nested.

use optics_core::json::{Duplicates, Strict};
use optics_core::prelude::*;
use serde::Deserialize;

#[derive(Optics, Deserialize, Debug)]
struct Outer {
    a: u32,
    pad: String,
    inner: Inner,
    z: u32,
}

#[derive(Optics, Deserialize, Debug)]
struct Inner {
    k: u32,
    #[serde(rename = "q")]
    pad: String,
    y: u32,
}

/// The offset of the `n`th (from 0) `"name"` in `doc`.
fn nth(doc: &str, name: &str, n: usize) -> usize {
    let quoted = format!("\"{name}\"");
    doc.match_indices(&quoted).nth(n).expect("the key stands").0
}

/// A strict read of `o` meets the duplicate, and `offset_in` says where the
/// second `"name"` stands.
#[track_caller]
fn second_named<O>(doc: &str, o: O, name: &str)
where
    O: for<'de> optics_core::json::JsonDecode<'de> + optics_core::optic::StartsAt<Outer> + Copy,
{
    let duplicates = Duplicates::new();
    let view = Strict::<Outer>::validated(doc.as_bytes(), &duplicates).expect("valid JSON");
    assert!(view.read(o).is_none(), "{doc}");
    assert!(duplicates.met(), "{doc}");
    assert_eq!(
        duplicates.offset_in(doc.as_bytes()),
        Some(nth(doc, name, 1)),
        "{doc}"
    );
}

/// A strict read of `o` reads `want`, and meets no duplicate.
#[track_caller]
fn not_met<O>(doc: &str, o: O, want: u32)
where
    O: for<'de> optics_core::json::JsonDecode<'de, Focus = u32>
        + optics_core::optic::StartsAt<Outer>
        + Copy,
{
    let duplicates = Duplicates::new();
    let view = Strict::<Outer>::validated(doc.as_bytes(), &duplicates).expect("valid JSON");
    assert_eq!(view.read(o), Some(want), "{doc}");
    assert!(!duplicates.met(), "{doc}");
}

/// As [`second_named`], the second standing spelled `spelled` (quotes
/// included), which stands once in `doc`.
#[track_caller]
fn escaped_second<O>(doc: &str, o: O, spelled: &str)
where
    O: for<'de> optics_core::json::JsonDecode<'de> + optics_core::optic::StartsAt<Outer> + Copy,
{
    let duplicates = Duplicates::new();
    let view = Strict::<Outer>::validated(doc.as_bytes(), &duplicates).expect("valid JSON");
    assert!(view.read(o).is_none(), "{doc}");
    assert_eq!(
        duplicates.offset_in(doc.as_bytes()),
        doc.find(spelled),
        "{doc}"
    );
}

#[test]
fn the_second_standing_is_named_in_small_and_large_objects() {
    for pad in [0, 10, 200, 1500, 5000] {
        let p = "x".repeat(pad);
        // The root's late key given twice, apart and together.
        let doc = format!(r#"{{"a":1,"z":2,"pad":"{p}","inner":{{"k":1,"q":"","y":2}},"z":3}}"#);
        second_named(&doc, Outer::z, "z");
        let doc = format!(r#"{{"a":1,"pad":"{p}","inner":{{"k":1,"q":"","y":2}},"z":2,"z":3}}"#);
        second_named(&doc, Outer::z, "z");
        // The root's early key.
        let doc = format!(r#"{{"a":1,"pad":"{p}","a":4,"inner":{{"k":1,"q":"","y":2}},"z":2}}"#);
        second_named(&doc, Outer::a, "a");
        // Nested, late and early.
        let doc = format!(r#"{{"a":1,"inner":{{"y":5,"k":1,"pad":"{p}","y":2}},"z":2,"pad":""}}"#);
        second_named(&doc, Outer::inner.then(Inner::y), "y");
        let doc = format!(r#"{{"a":1,"inner":{{"k":1,"pad":"{p}","y":2,"k":2}},"z":2,"pad":""}}"#);
        second_named(&doc, Outer::inner.then(Inner::k), "k");
        // The object's first key, string-valued (a tag's place), again,
        // another key sought: off the path, where no tag was read.
        let doc = format!(r#"{{"pad":"{p}","a":1,"inner":{{"k":1,"q":"","y":2}},"pad":"","z":2}}"#);
        not_met(&doc, Outer::z, 2);
        not_met(&doc, Outer::a, 1);
        let doc =
            format!(r#"{{"a":1,"inner":{{"pad":"{p}","k":1,"y":2,"pad":""}},"z":2,"pad":""}}"#);
        not_met(&doc, Outer::inner.then(Inner::y), 2);
        // The second standing spelled with an escape, then the first.
        let doc =
            format!(r#"{{"a":1,"z":2,"pad":"{p}","inner":{{"k":1,"q":"","y":2}},"\u007a":3}}"#);
        escaped_second(&doc, Outer::z, r#""\u007a""#);
        let doc =
            format!(r#"{{"a":1,"\u007a":2,"pad":"{p}","inner":{{"k":1,"q":"","y":2}},"z":3}}"#);
        escaped_second(&doc, Outer::z, r#""z""#);
    }
}
