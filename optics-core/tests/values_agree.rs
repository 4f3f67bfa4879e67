//! The same optic on a Rust value and on the bytes serde_json writes for it:
//! reads agree, and a write on the value then encoded decodes to what the
//! same write on the bytes decodes to.
//!
//! The cases here are the ones an audit of that promise found wanting:
//! paths through a `Box` (which wrote and traversed values but not bytes),
//! and an internally tagged variant's payload set to a unit variant of
//! another enum (which serde writes and the byte write refused).

use optics_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct List {
    value: u32,
    next: Option<Box<List>>,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Holder {
    items: Vec<Box<Item>>,
    one: Box<Item>,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Item {
    n: u32,
}

fn list() -> List {
    List {
        value: 1,
        next: Some(Box::new(List {
            value: 2,
            next: None,
        })),
    }
}

fn holder() -> Holder {
    Holder {
        items: vec![Box::new(Item { n: 1 }), Box::new(Item { n: 2 })],
        one: Box::new(Item { n: 3 }),
    }
}

/// `bytes` decoded as a `T`.
fn decoded<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> T {
    serde_json::from_slice(bytes).expect("serde_json decodes what was written")
}

#[test]
fn a_path_through_a_box_is_a_traversal_on_values_and_bytes() {
    let list = list();
    let second = List::next.then(some()).then(List::value);
    assert_eq!(second.iter(&list).collect::<Vec<_>>(), [&2]);
    let bytes = serde_json::to_vec(&list).unwrap();
    let json = Json::<List>::new(&bytes);
    assert_eq!(json.read_each(second).collect::<Vec<_>>(), [Some(2)]);

    let mut holder = holder();
    let ns = Holder::items.then(each()).then(Item::n);
    assert_eq!(ns.iter(&holder).collect::<Vec<_>>(), [&1, &2]);
    let bytes = serde_json::to_vec(&holder).unwrap();
    let json = Json::<Holder>::new(&bytes);
    assert_eq!(json.read_each(ns).collect::<Vec<_>>(), [Some(1), Some(2)]);
    assert_eq!(
        json.iter(ns).map(|n| n.bytes()).collect::<Vec<_>>(),
        [b"1", b"2"]
    );

    let written = json.set_all(ns, &7).unwrap();
    assert_eq!(ns.set_all(&mut holder, 7), 2);
    assert_eq!(decoded::<Holder>(&written), holder);
    let written = Json::<Holder>::new(&written)
        .modify_all(ns, |n| n + 1)
        .unwrap();
    assert_eq!(ns.modify_all(&mut holder, |n| *n += 1), 2);
    assert_eq!(decoded::<Holder>(&written), holder);
}

#[test]
fn a_path_through_a_box_writes_bytes_as_it_writes_values() {
    let mut list = list();
    let second = List::next.then(some()).then(List::value);
    let bytes = serde_json::to_vec(&list).unwrap();
    let written = Json::<List>::new(&bytes).set(second, &5).unwrap();
    second.set(&mut list, 5);
    assert_eq!(decoded::<List>(&written), list);
    // The end of the list: no focus on either side.
    let third = List::next
        .then(some())
        .then(List::next)
        .then(some())
        .then(List::value);
    assert_eq!(Json::<List>::new(&bytes).set(third, &5), None);
    assert!(!third.modify(&mut list, |n| *n = 5));

    let mut holder = holder();
    let one = Holder::one.then(Item::n);
    let bytes = serde_json::to_vec(&holder).unwrap();
    let written = Json::<Holder>::new(&bytes).set(one, &9).unwrap();
    one.set(&mut holder, 9);
    assert_eq!(decoded::<Holder>(&written), holder);
    assert_eq!(written, br#"{"items":[{"n":1},{"n":2}],"one":{"n":9}}"#);
}

/// An internally tagged enum whose variant holds an externally tagged one:
/// serde writes `Wrap::Inner(Ext::Unit)` as `{"t":"Inner","Unit":null}`.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t")]
enum Wrap {
    Inner(Ext),
    Empty,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
enum Ext {
    Unit,
    #[serde(rename = "Renamed \"unit\"")]
    Quoted,
    Number(u8),
    Pair(u8, u8),
    Named {
        n: u8,
    },
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Outer {
    first: u8,
    wrap: Wrap,
    last: u8,
}

#[test]
fn an_internally_tagged_payload_is_written_as_serde_writes_a_unit_variant() {
    let payloads = [
        Ext::Unit,
        Ext::Quoted,
        Ext::Number(3),
        Ext::Pair(1, 2),
        Ext::Named { n: 4 },
    ];
    for old in &payloads {
        for new in &payloads {
            let mut outer = Outer {
                first: 1,
                wrap: Wrap::Inner(old.clone()),
                last: 2,
            };
            let bytes = serde_json::to_vec(&outer).unwrap();
            let path = Outer::wrap.then(Wrap::inner);
            let written = Json::<Outer>::new(&bytes).set(path, new);
            path.set(&mut outer, new.clone());
            let expected = serde_json::to_vec(&outer).unwrap();
            assert_eq!(
                written.as_deref().map(String::from_utf8_lossy),
                Some(String::from_utf8_lossy(&expected)),
                "{old:?} set to {new:?}"
            );
            assert_eq!(Json::<Outer>::new(&expected).read(path), Some(new.clone()));
        }
    }
    // On the enum's own bytes too, and a miss on another variant.
    let bytes = serde_json::to_vec(&Wrap::Inner(Ext::Number(3))).unwrap();
    let written = Json::<Wrap>::new(&bytes).set(Wrap::inner, &Ext::Unit);
    assert_eq!(
        written.as_deref(),
        Some(&br#"{"t":"Inner","Unit":null}"#[..])
    );
    assert_eq!(
        Json::<Wrap>::new(br#"{"t":"Empty"}"#).set(Wrap::inner, &Ext::Unit),
        None
    );
}
