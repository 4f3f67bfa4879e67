//! Byte writes along paths of four steps and more, through every writable
//! kind of step: a `Box`, an `Option` with `some()`, `at(i)`, `key(k)`,
//! prisms, a named lens first. Each write gives the bytes serde_json writes
//! after the same `set` on the decoded value.

use std::collections::BTreeMap;

use optics_core::json::{JsonOptic, JsonWrite};
use optics_core::optic::{PreviewMut, StartsAt};
use optics_core::prelude::*;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Root {
    boxed: Box<Mid>,
    maybe: Option<Box<Mid>>,
    list: Vec<Mid>,
    map: BTreeMap<String, Mid>,
    kind: Kind,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Mid {
    leaf: Leaf,
    opt: Option<Leaf>,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Leaf {
    n: u32,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t")]
enum Kind {
    A(Box<Mid>),
    B { inner: Option<Mid> },
}

optic! {
    lens MAYBE: Root => Option<Box<Mid>> = Root::maybe;
}

/// `set` on bytes gives what serde_json writes after `set` on the value.
#[track_caller]
fn set_agrees<S, O>(doc: &str, o: O, value: u32)
where
    S: Serialize + DeserializeOwned,
    O: PreviewMut<Source = S, Focus = u32> + JsonWrite + JsonOptic + StartsAt<S> + Copy,
{
    let mut whole: S = serde_json::from_str(doc).expect("serde_json reads the document");
    o.set(&mut whole, value);
    let bytes = Json::<S>::new(doc.as_bytes())
        .set(o, &value)
        .expect("the path writes bytes");
    let expected: serde_json::Value = serde_json::to_value(&whole).unwrap();
    let written: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(written, expected, "{}", String::from_utf8_lossy(&bytes));
}

const DOC: &str = r#"{"boxed":{"leaf":{"n":1},"opt":{"n":2}},"maybe":{"leaf":{"n":3},"opt":null},"list":[{"leaf":{"n":4},"opt":{"n":5}}],"map":{"k":{"leaf":{"n":6},"opt":{"n":7}}},"kind":{"t":"B","inner":{"leaf":{"n":8},"opt":{"n":9}}}}"#;

#[test]
fn deep_paths_through_every_writable_step_write_bytes() {
    set_agrees(
        DOC,
        Root::boxed.then(Mid::opt).then(some()).then(Leaf::n),
        10,
    );
    set_agrees(
        DOC,
        Root::maybe.then(some()).then(Mid::leaf).then(Leaf::n),
        11,
    );
    set_agrees(
        DOC,
        Root::list
            .then(at(0))
            .then(Mid::opt)
            .then(some())
            .then(Leaf::n),
        12,
    );
    set_agrees(
        DOC,
        Root::map
            .then(key("k"))
            .then(Mid::opt)
            .then(some())
            .then(Leaf::n),
        13,
    );
    set_agrees(
        DOC,
        Root::kind
            .then(Kind::b_inner)
            .then(some())
            .then(Mid::leaf)
            .then(Leaf::n),
        14,
    );
    set_agrees(DOC, MAYBE.then(some()).then(Mid::leaf).then(Leaf::n), 15);
    let doc = DOC.replace(
        r#"{"t":"B","inner":{"leaf":{"n":8},"opt":{"n":9}}}"#,
        r#"{"t":"A","leaf":{"n":8},"opt":{"n":9}}"#,
    );
    set_agrees(
        &doc,
        Root::kind.then(Kind::a).then(Mid::leaf).then(Leaf::n),
        16,
    );
}

#[test]
fn into_forms_give_what_the_allocating_forms_give_into_a_used_buffer() {
    let doc = DOC.as_bytes();
    let json = Json::<Root>::new(doc);
    let mut out = b"left over from an earlier message, longer than some".to_vec();
    let path = Root::list
        .then(at(0))
        .then(Mid::opt)
        .then(some())
        .then(Leaf::n);
    assert!(json.modify_into(path, |n| n * 10, &mut out));
    assert_eq!(Some(out.clone()), json.modify(path, |n| n * 10));
    // A focus that is not there: nothing written, `out` left empty.
    let missing = Root::maybe
        .then(some())
        .then(Mid::opt)
        .then(some())
        .then(Leaf::n);
    assert!(!json.modify_into(missing, |n| n + 1, &mut out));
    assert!(out.is_empty());
    assert_eq!(json.modify(missing, |n| n + 1), None);
    // Every element, then none (the document copied), then one that does
    // not decode.
    out.extend_from_slice(b"dirty");
    let all = Root::list.then(each()).then(Mid::leaf).then(Leaf::n);
    assert!(json.modify_all_into(all, |n| n + 1, &mut out));
    assert_eq!(Some(out.clone()), json.modify_all(all, |n| n + 1));
    let none = Root::maybe
        .then(some())
        .then(Mid::opt)
        .then(some())
        .then(Leaf::n);
    out.extend_from_slice(b"dirty");
    assert!(json.modify_all_into(none, |n| n + 1, &mut out));
    assert_eq!(out, doc);
    let bad = br#"{"boxed":{"leaf":{"n":1},"opt":null},"maybe":null,"list":[{"leaf":{"n":4},"opt":null},{"leaf":{"n":"x"},"opt":null}],"map":{},"kind":{"t":"A","leaf":{"n":8},"opt":null}}"#;
    let json = Json::<Root>::new(bad);
    out.extend_from_slice(b"dirty");
    assert!(!json.modify_all_into(all, |n| n + 1, &mut out));
    assert!(out.is_empty());
    assert_eq!(json.modify_all(all, |n| n + 1), None);
}
