//! A catch-all map under `#[serde(flatten)]` with `#[optics(skip)]`, in the
//! places serde allows it: every byte read of the other fields agrees with
//! serde_json's decode of the whole document ([`agree`]), or both refuse.

mod support;

use std::collections::{BTreeMap, HashMap};

use optics_core::json::{JsonOptic, JsonWrite};
use optics_core::optic::{PreviewMut, StartsAt};
use optics_core::prelude::*;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use support::oracle::{agree, both_reject};

/// A struct that takes its members when flattened.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Takes {
    a: u8,
    #[serde(default)]
    b: u8,
}

/// A catch-all with one field of its own, defaulted.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Open {
    #[serde(default)]
    a: u8,
    #[serde(flatten)]
    #[optics(skip)]
    rest: serde_json::Map<String, serde_json::Value>,
}

/// The map before a struct that takes `a` and `b`.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct MapFirst {
    #[serde(flatten)]
    #[optics(skip)]
    rest: HashMap<String, serde_json::Value>,
    #[serde(flatten)]
    takes: Takes,
    z: u8,
}

/// The map after the struct that takes `a` and `b`.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct MapLast {
    z: u8,
    #[serde(flatten)]
    takes: Takes,
    #[serde(flatten)]
    #[optics(skip)]
    rest: serde_json::Value,
}

/// The same, flattened before it: it takes nothing, so `Takes` sees `a`.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct OpenBefore {
    #[serde(flatten)]
    open: Open,
    #[serde(flatten)]
    takes: Takes,
}

/// The catch-all struct defaulted as a whole.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(default)]
struct Defaulted {
    n: u8,
    #[serde(flatten)]
    #[optics(skip)]
    rest: HashMap<String, u8>,
}

impl Default for Defaulted {
    fn default() -> Self {
        Defaulted {
            n: 42,
            rest: HashMap::new(),
        }
    }
}

/// Generic, with the catch-all of the parameter's type.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Generic<T> {
    id: T,
    #[serde(flatten)]
    takes: Takes,
    #[serde(flatten)]
    #[optics(skip)]
    rest: BTreeMap<String, T>,
}

/// Generic, with a catch-all struct flattened before one that takes: the
/// checks run where the optics are read.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct GenericOuter<T> {
    id: T,
    #[serde(flatten)]
    open: Open,
    #[serde(flatten)]
    takes: Takes,
}

/// An internally tagged enum flattened beside the catch-all.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "kind")]
enum Shape {
    Dot { a: u8 },
    Line { len: u8 },
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct WithTagged {
    #[serde(flatten)]
    #[optics(skip)]
    rest: HashMap<String, serde_json::Value>,
    #[serde(flatten)]
    shape: Shape,
    #[serde(flatten)]
    takes: Takes,
}

/// A catch-all in an enum's payload struct, each representation.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
enum External {
    P(Open),
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t")]
enum Internal {
    P(Open),
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t", content = "c")]
enum Adjacent {
    P(Open),
}

/// An internally tagged enum whose payload has a catch-all, flattened
/// before a struct that takes.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct TaggedPayloadBeside {
    #[serde(flatten)]
    e: Internal,
    #[serde(flatten)]
    takes: Takes,
}

#[test]
fn tagged_payload_with_a_catch_all_beside_a_struct_that_takes() {
    let doc = r#"{"x":1,"a":2,"t":"P","b":3}"#;
    let payload_a = TaggedPayloadBeside::e.then(Internal::p).then(Open::a);
    assert_eq!(agree(doc, payload_a), Some(2));
    assert_eq!(
        agree(doc, TaggedPayloadBeside::takes.then(Takes::a)),
        Some(2)
    );
    assert_eq!(
        agree(doc, TaggedPayloadBeside::takes.then(Takes::b)),
        Some(3)
    );
}

#[test]
fn map_before_or_after_a_struct_that_takes() {
    let doc = r#"{"x":1,"a":2,"z":3,"b":4}"#;
    assert_eq!(agree(doc, MapFirst::z), Some(3));
    assert_eq!(agree(doc, MapFirst::takes.then(Takes::a)), Some(2));
    assert_eq!(agree(doc, MapFirst::takes.then(Takes::b)), Some(4));
    assert_eq!(agree(doc, MapLast::z), Some(3));
    assert_eq!(agree(doc, MapLast::takes.then(Takes::a)), Some(2));
    assert_eq!(agree(doc, MapLast::takes.then(Takes::b)), Some(4));
    let doc = r#"{"a":2,"z":3}"#;
    assert_eq!(agree(doc, MapLast::takes.then(Takes::b)), Some(0));
    both_reject(r#"[{"x":1},{"a":1},3]"#, MapFirst::z);
    both_reject(r#"[3,{"a":1},{}]"#, MapLast::z);
}

#[test]
fn a_struct_with_a_catch_all_flattened_into_another() {
    // Flattened first, it takes nothing: both read `a`.
    let doc = r#"{"a":5,"q":1}"#;
    assert_eq!(agree(doc, OpenBefore::open.then(Open::a)), Some(5));
    assert_eq!(agree(doc, OpenBefore::takes.then(Takes::a)), Some(5));
    let doc = r#"{"q":1,"b":2,"a":7}"#;
    assert_eq!(agree(doc, OpenBefore::open.then(Open::a)), Some(7));
    assert_eq!(agree(doc, OpenBefore::takes.then(Takes::b)), Some(2));
}

#[test]
fn container_default() {
    assert_eq!(agree(r#"{"x":1}"#, Defaulted::n), Some(42));
    assert_eq!(agree(r#"{"x":1,"n":3}"#, Defaulted::n), Some(3));
    both_reject(r#"[3]"#, Defaulted::n);
}

#[test]
fn generic_catch_all() {
    let doc = r#"{"n":1,"a":2,"id":3,"m":4}"#;
    assert_eq!(agree(doc, Generic::<u32>::id), Some(3));
    assert_eq!(agree(doc, Generic::<u32>::takes.then(Takes::a)), Some(2));
    both_reject(r#"[3,{"a":1},{}]"#, Generic::<u32>::id);
    let doc = r#"{"n":1,"a":2,"id":"x","b":4}"#;
    assert_eq!(agree(doc, GenericOuter::<String>::id), Some("x".to_owned()));
    let open_a = GenericOuter::<String>::open.then(Open::a);
    assert_eq!(agree(doc, open_a), Some(2));
    let takes_b = GenericOuter::<String>::takes.then(Takes::b);
    assert_eq!(agree(doc, takes_b), Some(4));
}

#[test]
fn internally_tagged_enum_beside_the_catch_all() {
    // The tagged enum takes nothing: `Takes` reads `a` too.
    let doc = r#"{"x":0,"a":2,"kind":"Dot"}"#;
    assert_eq!(agree(doc, WithTagged::shape.then(Shape::dot_a)), Some(2));
    assert_eq!(agree(doc, WithTagged::takes.then(Takes::a)), Some(2));
    let doc = r#"{"len":9,"kind":"Line","a":1}"#;
    assert_eq!(agree(doc, WithTagged::shape.then(Shape::line_len)), Some(9));
    assert_eq!(agree(doc, WithTagged::shape.then(Shape::dot_a)), None);
}

#[test]
fn catch_all_in_an_enum_payload() {
    let doc = r#"{"P":{"x":1,"a":2}}"#;
    assert_eq!(agree(doc, External::p.then(Open::a)), Some(2));
    both_reject(r#"{"P":[2,{}]}"#, External::p.then(Open::a));
    let doc = r#"{"x":1,"a":2,"t":"P"}"#;
    assert_eq!(agree(doc, Internal::p.then(Open::a)), Some(2));
    let doc = r#"{"t":"P","c":{"x":1,"a":2}}"#;
    assert_eq!(agree(doc, Adjacent::p.then(Open::a)), Some(2));
    let doc = r#"{"c":{"x":1},"t":"P"}"#;
    assert_eq!(agree(doc, Adjacent::p.then(Open::a)), Some(0));
}

/// The catch-all as an `Option`: serde hands it every member left over, as
/// it does the map, and gives `None` only where one of them is not a value
/// of the map's; the other fields read the same either way.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct OptionalRest {
    z: u8,
    #[serde(flatten)]
    takes: Takes,
    #[serde(flatten)]
    #[optics(skip)]
    rest: Option<HashMap<String, u8>>,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct OptionalValue {
    #[serde(flatten)]
    #[optics(skip)]
    rest: Option<serde_json::Value>,
    #[serde(flatten)]
    takes: Takes,
    z: u8,
}

#[test]
fn an_option_of_a_catch_all_reads_as_the_map_does() {
    // `x` a `u8` (`rest` is `Some`), then not one (`rest` is `None`).
    for doc in [
        r#"{"x":1,"a":2,"z":3,"b":4}"#,
        r#"{"x":"one","a":2,"z":3,"b":4}"#,
    ] {
        let whole: OptionalRest = serde_json::from_str(doc).unwrap();
        assert_eq!(whole.rest.is_some(), doc.contains(r#""x":1"#), "{doc}");
        assert_eq!(agree(doc, OptionalRest::z), Some(3));
        assert_eq!(agree(doc, OptionalRest::takes.then(Takes::a)), Some(2));
        assert_eq!(agree(doc, OptionalRest::takes.then(Takes::b)), Some(4));
        assert_eq!(agree(doc, OptionalValue::z), Some(3));
        assert_eq!(agree(doc, OptionalValue::takes.then(Takes::a)), Some(2));
    }
    assert_eq!(
        agree(r#"{"a":2,"z":3}"#, OptionalRest::takes.then(Takes::b)),
        Some(0)
    );
    both_reject(r#"[3,{"a":1},{}]"#, OptionalRest::z);
    both_reject(r#"[{"a":1},3]"#, OptionalValue::z);
    both_reject(r#"{"a":2}"#, OptionalRest::z);
}

/// A byte write of `o` either refuses, or gives bytes serde_json decodes as
/// it decodes what it writes after the same `set` on the decoded value.
#[track_caller]
fn write_agrees<S, O>(doc: &str, o: O, value: u8) -> bool
where
    S: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
    O: PreviewMut<Source = S, Focus = u8> + JsonWrite + JsonOptic + StartsAt<S> + Copy,
{
    let mut whole: S = serde_json::from_str(doc).expect("serde_json reads the document");
    o.set(&mut whole, value);
    let expected: S = serde_json::from_slice(&serde_json::to_vec(&whole).unwrap()).unwrap();
    if let Some(bytes) = Json::<S>::new(doc.as_bytes()).set(o, &value) {
        let text = String::from_utf8_lossy(&bytes);
        let written: S = serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{e}: {text}"));
        assert_eq!(written, expected, "{text}");
        return true;
    }
    false
}

#[test]
fn writes_beside_a_catch_all_agree_or_refuse() {
    // A map before the struct that takes also holds the members the
    // struct takes, so serde writes those twice and cannot read its own
    // output: only the map placed last is checked so.
    let doc = r#"{"x":1,"a":2,"z":3,"b":4}"#;
    assert!(write_agrees(doc, MapLast::z, 9));
    assert!(write_agrees(doc, MapLast::takes.then(Takes::a), 9));
    assert!(write_agrees(doc, OptionalRest::z, 9));
    assert!(write_agrees(doc, OptionalRest::takes.then(Takes::b), 9));
    // Absent and defaulted: written in, or refused.
    let doc = r#"{"x":1,"a":2,"z":3}"#;
    write_agrees(doc, MapLast::takes.then(Takes::b), 9);
    write_agrees(r#"{"x":1}"#, Defaulted::n, 9);
    write_agrees(r#"{"t":"P","c":{"x":1}}"#, Adjacent::p.then(Open::a), 9);
    write_agrees(r#"{"x":1,"t":"P"}"#, Internal::p.then(Open::a), 9);
    assert!(write_agrees(
        r#"{"x":1,"a":3,"t":"P"}"#,
        Internal::p.then(Open::a),
        9
    ));
    assert!(write_agrees(
        r#"{"P":{"a":3,"x":1}}"#,
        External::p.then(Open::a),
        9
    ));
}
