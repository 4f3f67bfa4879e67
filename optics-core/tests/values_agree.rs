//! The same optic on a Rust value and on the bytes serde_json writes for it:
//! reads agree, and a write on the value then encoded decodes to what the
//! same write on the bytes decodes to.
//!
//! First the cases an audit of that promise found wanting: paths through a
//! `Box` (which wrote and traversed values but not bytes), an internally
//! tagged variant's payload set to a unit variant of another enum (which
//! serde writes and the byte write refused), and writes of every focus that
//! handed back the document unchanged where one focus could not be written.
//! Then the documented differences, pinned. Last, property tests over a
//! model that mixes every encoding the derive supports, and `optic!` names
//! over it.

use optics_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct List {
    value: u32,
    next: Option<Box<List>>,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Holder {
    // A list of boxes is what is tested: each element is read through its box.
    #[allow(clippy::vec_box)]
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

/// Shared items: read through, never written.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Shared {
    items: Vec<std::rc::Rc<Item>>,
    one: Option<std::sync::Arc<Item>>,
}

#[test]
fn a_path_through_an_rc_or_arc_is_a_traversal_that_reads() {
    let shared = Shared {
        items: vec![
            std::rc::Rc::new(Item { n: 1 }),
            std::rc::Rc::new(Item { n: 2 }),
        ],
        one: Some(std::sync::Arc::new(Item { n: 3 })),
    };
    let bytes = serde_json::to_vec(&shared).unwrap();
    let json = Json::<Shared>::new(&bytes);
    let ns = Shared::items.then(each()).then(Item::n);
    assert_eq!(ns.iter(&shared).collect::<Vec<_>>(), [&1, &2]);
    assert_eq!(ns.fold(&shared, 0, |sum, n| sum + n), 3);
    assert_eq!(json.read_each(ns).collect::<Vec<_>>(), [Some(1), Some(2)]);
    let one = Shared::one.then(some()).then(Item::n);
    assert_eq!(one.iter(&shared).collect::<Vec<_>>(), [&3]);
    assert_eq!(json.read_each(one).collect::<Vec<_>>(), [Some(3)]);
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
/// serde writes `Wrap::Inner(External::Unit)` as `{"t":"Inner","Unit":null}`.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t")]
enum Wrap {
    Inner(External),
    Empty,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
enum External {
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
struct Framed {
    first: u8,
    wrap: Wrap,
    last: u8,
}

#[test]
fn an_internally_tagged_payload_is_written_as_serde_writes_a_unit_variant() {
    let payloads = [
        External::Unit,
        External::Quoted,
        External::Number(3),
        External::Pair(1, 2),
        External::Named { n: 4 },
    ];
    for old in &payloads {
        for new in &payloads {
            let mut outer = Framed {
                first: 1,
                wrap: Wrap::Inner(old.clone()),
                last: 2,
            };
            let bytes = serde_json::to_vec(&outer).unwrap();
            let path = Framed::wrap.then(Wrap::inner);
            let written = Json::<Framed>::new(&bytes).set(path, new);
            path.set(&mut outer, new.clone());
            let expected = serde_json::to_vec(&outer).unwrap();
            assert_eq!(
                written.as_deref().map(String::from_utf8_lossy),
                Some(String::from_utf8_lossy(&expected)),
                "{old:?} set to {new:?}"
            );
            assert_eq!(Json::<Framed>::new(&expected).read(path), Some(new.clone()));
        }
    }
    // On the enum's own bytes too, and a miss on another variant.
    let bytes = serde_json::to_vec(&Wrap::Inner(External::Number(3))).unwrap();
    let written = Json::<Wrap>::new(&bytes).set(Wrap::inner, &External::Unit);
    assert_eq!(
        written.as_deref(),
        Some(&br#"{"t":"Inner","Unit":null}"#[..])
    );
    assert_eq!(
        Json::<Wrap>::new(br#"{"t":"Empty"}"#).set(Wrap::inner, &External::Unit),
        None
    );
}

/// Documented refusal: an internally tagged enum held by an internally
/// tagged variant shares the outer enum's object, so a write of its own
/// payload as a whole (which rewrites that object) refuses, where serde
/// writes both tags and the payload's members. Reads agree, and so do writes
/// of the outer payload as a whole and of the members inside.
#[test]
fn an_internally_tagged_payload_inside_another_refuses_a_whole_write() {
    use model::{Inner, Outer, Pt};

    let value = Outer::A(Inner::X(Pt { a: 1, b: None }));
    let bytes = serde_json::to_vec(&value).unwrap();
    assert_eq!(bytes, br#"{"t":"A","k":"X","a":1}"#);
    let json = Json::<Outer>::new(&bytes);
    let x = Outer::a.then(Inner::x);
    assert_eq!(json.read(x), Some(Pt { a: 1, b: None }));
    let new = Pt {
        a: 2,
        b: Some("b".into()),
    };
    assert_eq!(json.set(x, &new), None);
    assert_eq!(json.modify(x, |_| new.clone()), None);
    // What is written instead, as serde writes it.
    let written = json.set(Outer::a, &Inner::X(new.clone())).unwrap();
    assert_eq!(written, br#"{"t":"A","k":"X","a":2,"b":"b"}"#);
    let written = json.set(x.then(Pt::b), &Some("b".into())).unwrap();
    assert_eq!(written, br#"{"t":"A","k":"X","a":1,"b":"b"}"#);
}

/// An internally tagged variant holding a newtype struct: serde writes the
/// newtype's inner struct's members beside the tag.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t")]
enum Holds {
    Wrapped(Box<Newtype>),
    Empty,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Newtype(model::Pt);

/// Documented refusal: a newtype struct that is an internally tagged
/// variant's payload stands as the payload's members, so a write of its
/// field as a whole refuses (as does a write of every focus); the payload
/// itself, and the members inside, are written as serde writes them.
#[test]
fn a_newtype_that_is_an_internally_tagged_payload_refuses_a_whole_write() {
    use model::Pt;

    let value = Holds::Wrapped(Box::new(Newtype(Pt { a: 1, b: None })));
    let bytes = serde_json::to_vec(&value).unwrap();
    assert_eq!(bytes, br#"{"t":"Wrapped","a":1}"#);
    let json = Json::<Holds>::new(&bytes);
    let inner = Holds::wrapped.then(Newtype::_0);
    assert_eq!(json.read(inner), Some(Pt { a: 1, b: None }));
    let new = Pt {
        a: 2,
        b: Some("b".into()),
    };
    assert_eq!(json.set(inner, &new), None);
    assert_eq!(json.set_all(inner, &new), None);
    // What is written instead, as serde writes it.
    let written = json
        .set(Holds::wrapped, &Box::new(Newtype(new.clone())))
        .unwrap();
    assert_eq!(written, br#"{"t":"Wrapped","a":2,"b":"b"}"#);
    let written = json.set(inner.then(Pt::b), &Some("b".into())).unwrap();
    assert_eq!(written, br#"{"t":"Wrapped","a":1,"b":"b"}"#);
    // Another variant: no focus.
    let json = Json::<Holds>::new(br#"{"t":"Empty"}"#);
    assert_eq!(json.set(inner, &new), None);
    assert_eq!(
        json.set_all(inner, &new).as_deref(),
        Some(&br#"{"t":"Empty"}"#[..])
    );
}

/// A struct serde writes with a function that changes it.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Bumped {
    x: u32,
}

fn bump<S: serde::Serializer>(value: &Bumped, serializer: S) -> Result<S::Ok, S::Error> {
    Bumped { x: value.x + 100 }.serialize(serializer)
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct HoldsBumped {
    #[serde(serialize_with = "bump")]
    bumped: Bumped,
    list: Vec<model::Outer>,
}

/// Where a byte write refuses a focus it cannot write as serde does, a
/// write of every focus refuses too: `set_all` on the value changes that
/// focus, so `Json::set_all` (and `set_all_into`, `modify_all`) must not
/// hand back the document unchanged as if there were none.
#[test]
fn a_write_of_every_focus_refuses_where_one_focus_refuses() {
    use model::{Inner, Outer, Pt};

    let new = Pt { a: 7, b: None };
    let x = Outer::a.then(Inner::x);
    let bytes = serde_json::to_vec(&Outer::A(Inner::X(Pt { a: 1, b: None }))).unwrap();
    let json = Json::<Outer>::new(&bytes);
    assert_eq!(json.set(x, &new), None);
    assert_eq!(json.set_all(x, &new), None);
    assert_eq!(json.modify_all(x, |_| new.clone()), None);
    let mut out = b"left over".to_vec();
    assert!(!json.set_all_into(x, &new, &mut out));
    assert!(out.is_empty());
    // Another variant: no focus on either side, the document as it was.
    let bytes = serde_json::to_vec(&Outer::A(Inner::Z)).unwrap();
    let json = Json::<Outer>::new(&bytes);
    assert_eq!(json.set(x, &new), None);
    assert_eq!(json.set_all(x, &new), Some(bytes.clone()));

    // In a traversal: one refused focus among written ones refuses all.
    let holder = HoldsBumped {
        bumped: Bumped { x: 1 },
        list: vec![
            Outer::E(Box::new(Pt { a: 1, b: None })),
            Outer::A(Inner::X(Pt { a: 2, b: None })),
        ],
    };
    let bytes = serde_json::to_vec(&holder).unwrap();
    let json = Json::<HoldsBumped>::new(&bytes);
    let xs = HoldsBumped::list.then(each()).then(Outer::a).then(Inner::x);
    let mut value = holder.clone();
    assert_eq!(xs.set_all(&mut value, new.clone()), 1);
    assert_eq!(json.set_all(xs, &new), None);
    assert_eq!(json.modify_all(xs, |_| new.clone()), None);
    // Without the refused one, the write goes through.
    let plain = HoldsBumped::list.then(each()).then(Outer::e).then(Pt::a);
    let written = json.set_all(plain, &9).unwrap();
    let mut value = holder.clone();
    assert_eq!(plain.set_all(&mut value, 9), 1);
    assert_eq!(written, serde_json::to_vec(&value).unwrap());

    // Past a field serde writes with a function.
    let past = HoldsBumped::bumped.then(Bumped::x);
    assert_eq!(json.set(past, &5), None);
    assert_eq!(json.set_all(past, &5), None);
    assert_eq!(json.modify_all(past, |x| x + 1), None);

    // A prism whose payload serde writes with a function.
    let bytes = serde_json::to_vec(&WithFunction::Bumped(Bumped { x: 1 })).unwrap();
    assert_eq!(bytes, br#"{"Bumped":{"x":101}}"#);
    let json = Json::<WithFunction>::new(&bytes);
    assert_eq!(json.set(WithFunction::bumped, &Bumped { x: 2 }), None);
    assert_eq!(json.set_all(WithFunction::bumped, &Bumped { x: 2 }), None);
    assert_eq!(json.set_all(WithFunction::bumped.then(Bumped::x), &2), None);
    assert_eq!(
        json.set_all(WithFunction::plain, &Bumped { x: 2 }),
        Some(bytes.clone())
    );
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
enum WithFunction {
    #[serde(serialize_with = "bump")]
    Bumped(Bumped),
    Plain(Bumped),
}

/// A struct serde leaves out where it is its default.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Settings {
    #[serde(default, skip_serializing_if = "Limits::is_default")]
    limits: Limits,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    names: Vec<String>,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Limits {
    low: i32,
    levels: Vec<u8>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            low: -5,
            levels: vec![1, 2],
        }
    }
}

impl Limits {
    fn is_default(&self) -> bool {
        *self == Limits::default()
    }
}

/// Documented difference: a path that goes on through a field serde left
/// out (and reads as its default) has no bytes to go on in. On the value the
/// default has the focus; on the bytes the path misses: `read` and `set`
/// give `None`, and a write of every focus refuses (`None`), since the
/// value-side write writes the default's foci. The field itself is read and
/// written as serde does.
#[test]
fn a_path_through_a_field_serde_left_out_misses_on_bytes() {
    let value = Settings {
        limits: Limits::default(),
        names: Vec::new(),
    };
    let bytes = serde_json::to_vec(&value).unwrap();
    assert_eq!(bytes, b"{}");
    let json = Json::<Settings>::new(&bytes);

    let low = Settings::limits.then(Limits::low);
    assert_eq!(low.preview(&value), Some(&-5));
    assert_eq!(json.read(low), None);
    assert_eq!(json.set(low, &3), None);
    let levels = Settings::limits.then(Limits::levels).then(each());
    assert_eq!(levels.iter(&value).count(), 2);
    assert_eq!(json.read_each(levels).count(), 0);
    assert_eq!(json.set_all(levels, &9), None);
    assert_eq!(json.modify_all(levels, |level| level + 1), None);

    // The field itself: read as its default, written as serde writes it.
    assert_eq!(json.read(Settings::limits), Some(Limits::default()));
    let mut changed = value.clone();
    changed.limits.low = 3;
    let written = json.set(Settings::limits, &changed.limits).unwrap();
    assert_eq!(written, serde_json::to_vec(&changed).unwrap());
    // An empty list serde leaves out: no focus on either side.
    let names = Settings::names.then(each());
    assert_eq!(names.iter(&value).count(), 0);
    assert_eq!(json.set_all(names, &String::new()), Some(bytes.clone()));
}

// ---------------------------------------------------------------------------
// A property test over a model that mixes the encodings: every optic reads
// on the bytes what it previews on the value, and writes and traverses them
// as it does the value (the laws of `support/write_laws.rs`).

mod model {
    use std::collections::{BTreeMap, HashMap};

    use optics_core::prelude::*;
    use proptest::prelude::*;
    use serde::{Deserialize, Serialize};

    #[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
    pub struct Doc {
        pub outer: Outer,
        pub boxed: Box<Outer>,
        pub list: Vec<Outer>,
        pub adj: Adj,
        pub adjs: [Adj; 2],
        pub ren: Ren,
        pub opt: Option<Pt>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub opt2: Option<u8>,
        pub imap: HashMap<i32, Pt>,
        pub bmap: BTreeMap<u8, Vec<String>>,
        pub smap: BTreeMap<String, Option<u8>>,
        #[serde(flatten)]
        pub fl: Flat,
        #[serde(rename = "renamed", alias = "old")]
        pub named: String,
        pub tup: (u8, String),
    }

    #[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
    pub struct Flat {
        pub fa: u8,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub fb: Option<u8>,
        pub fe: Outer,
    }

    #[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(tag = "t")]
    pub enum Outer {
        A(Inner),
        B {
            x: u8,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            y: Option<String>,
        },
        C,
        D(Ext),
        E(Box<Pt>),
    }

    #[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(tag = "k")]
    pub enum Inner {
        X(Pt),
        Y { y: u8, z: Option<u8> },
        Z,
    }

    #[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
    pub struct Pt {
        pub a: i32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub b: Option<String>,
    }

    #[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
    pub enum Ext {
        U,
        N(String),
        T(u8, #[serde(skip)] u8, u8),
        S { s: Vec<u8> },
        M(BTreeMap<String, u8>),
    }

    #[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(tag = "t", content = "c")]
    pub enum Adj {
        U,
        N(Option<u8>),
        T(u8, u8),
        S {
            s: u8,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            o: Option<u8>,
        },
    }

    #[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "snake_case", rename_all_fields = "camelCase")]
    pub enum Ren {
        SomeVar { long_name: u8 },
        Other(u8),
    }

    /// Text with quotes, backslashes, control characters and non-ASCII.
    pub fn text() -> impl Strategy<Value = String> {
        "[a-c\"\\\\\u{1}\u{1f}é😀/]{0,4}"
    }

    pub fn pt() -> BoxedStrategy<Pt> {
        (-3i32..3, proptest::option::of(text()))
            .prop_map(|(a, b)| Pt { a, b })
            .boxed()
    }

    pub fn ext() -> BoxedStrategy<Ext> {
        prop_oneof![
            Just(Ext::U),
            text().prop_map(Ext::N),
            (any::<u8>(), any::<u8>()).prop_map(|(a, c)| Ext::T(a, 0, c)),
            proptest::collection::vec(any::<u8>(), 0..3).prop_map(|s| Ext::S { s }),
            proptest::collection::btree_map(text(), any::<u8>(), 0..3).prop_map(Ext::M),
        ]
        .boxed()
    }

    pub fn inner() -> BoxedStrategy<Inner> {
        prop_oneof![
            pt().prop_map(Inner::X),
            (any::<u8>(), proptest::option::of(any::<u8>())).prop_map(|(y, z)| Inner::Y { y, z }),
            Just(Inner::Z),
        ]
        .boxed()
    }

    pub fn outer() -> BoxedStrategy<Outer> {
        prop_oneof![
            inner().prop_map(Outer::A),
            (any::<u8>(), proptest::option::of(text())).prop_map(|(x, y)| Outer::B { x, y }),
            Just(Outer::C),
            ext().prop_map(Outer::D),
            pt().prop_map(|p| Outer::E(Box::new(p))),
        ]
        .boxed()
    }

    pub fn adj() -> BoxedStrategy<Adj> {
        prop_oneof![
            Just(Adj::U),
            proptest::option::of(any::<u8>()).prop_map(Adj::N),
            (any::<u8>(), any::<u8>()).prop_map(|(a, b)| Adj::T(a, b)),
            (any::<u8>(), proptest::option::of(any::<u8>())).prop_map(|(s, o)| Adj::S { s, o }),
        ]
        .boxed()
    }

    pub fn ren() -> BoxedStrategy<Ren> {
        prop_oneof![
            any::<u8>().prop_map(|long_name| Ren::SomeVar { long_name }),
            any::<u8>().prop_map(Ren::Other),
        ]
        .boxed()
    }

    pub fn doc() -> BoxedStrategy<Doc> {
        let first = (
            outer(),
            outer(),
            proptest::collection::vec(outer(), 0..3),
            adj(),
            (adj(), adj()),
            ren(),
            proptest::option::of(pt()),
            proptest::option::of(any::<u8>()),
        );
        let second = (
            proptest::collection::hash_map(-2i32..2, pt(), 0..3),
            proptest::collection::btree_map(0u8..3, proptest::collection::vec(text(), 0..3), 0..3),
            proptest::collection::btree_map(text(), proptest::option::of(any::<u8>()), 0..3),
            (any::<u8>(), proptest::option::of(any::<u8>()), outer()),
            text(),
            (any::<u8>(), text()),
        );
        (first, second)
            .prop_map(
                |(
                    (outer, boxed, list, adj, (a0, a1), ren, opt, opt2),
                    (imap, bmap, smap, (fa, fb, fe), named, tup),
                )| Doc {
                    outer,
                    boxed: Box::new(boxed),
                    list,
                    adj,
                    adjs: [a0, a1],
                    ren,
                    opt,
                    opt2,
                    imap,
                    bmap,
                    smap,
                    fl: Flat { fa, fb, fe },
                    named,
                    tup,
                },
            )
            .boxed()
    }
}

mod support;

use std::fmt::Debug;

use model::*;
use optics_core::json::{JsonDecode, JsonOptic, JsonTraverseDecode, JsonWrite};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde::de::DeserializeOwned;
use support::write_laws::{set_laws, traversal_laws, Writes};

/// The byte read of `o` on the JSON of `s` is what `o` previews on the
/// value serde_json reads back from it, and on `s` itself.
fn reads_agree<O>(o: O, s: &O::Source) -> Result<(), TestCaseError>
where
    O: Preview + JsonOptic + for<'de> JsonDecode<'de> + Copy,
    O::Source: Sized + Serialize + DeserializeOwned + PartialEq + Debug,
    O::Focus: Clone + PartialEq + Debug,
{
    let doc = serde_json::to_vec(s).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let decoded: O::Source =
        serde_json::from_slice(&doc).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(&decoded, s, "the model survives serde_json");
    let json = Json::<O::Source>::new(&doc);
    prop_assert_eq!(
        json.read(o),
        o.preview(s).cloned(),
        "read == preview on {}",
        String::from_utf8_lossy(&doc)
    );
    // A view needs bytes: a missing field (serde's default) has none.
    if json.view(o).is_some() {
        prop_assert!(
            o.preview(s).is_some(),
            "a view where the value has no focus"
        );
    }
    Ok(())
}

/// `modify` with `f`, which reads the old focus, on the bytes and on the
/// value; and `modify_all` of the traversal `each` likewise.
fn modify_agrees<O, F>(o: O, s: &O::Source, f: F) -> Result<(), TestCaseError>
where
    O: Optional + JsonOptic + JsonWrite + for<'de> JsonDecode<'de> + Copy,
    O::Source: Sized + Serialize + DeserializeOwned + Clone + PartialEq + Debug,
    O::Focus: Clone + PartialEq + Debug,
    F: Fn(O::Focus) -> O::Focus,
{
    let doc = serde_json::to_vec(s).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let mut value = s.clone();
    let ran = o.modify(&mut value, |focus| *focus = f(focus.clone()));
    let written = Json::<O::Source>::new(&doc).modify(o, &f);
    prop_assert_eq!(
        written.is_some(),
        ran,
        "modify writes where the value has a focus"
    );
    if let Some(written) = written {
        let got: O::Source =
            serde_json::from_slice(&written).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(got, value, "modify on {}", String::from_utf8_lossy(&doc));
    }
    Ok(())
}

/// `modify_all` with `f`, which reads each old focus, on the bytes and on
/// the value.
fn modify_all_agrees<O, F>(o: O, s: &O::Source, f: F) -> Result<(), TestCaseError>
where
    O: Traversal + JsonWrite + for<'de> JsonTraverseDecode<'de> + Copy,
    O::Source: Sized + Serialize + DeserializeOwned + Clone + PartialEq + Debug,
    O::Focus: Clone + PartialEq + Debug,
    F: Fn(O::Focus) -> O::Focus,
{
    let doc = serde_json::to_vec(s).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let mut value = s.clone();
    o.modify_all(&mut value, |focus| *focus = f(focus.clone()));
    let written = Json::<O::Source>::new(&doc).modify_all(o, &f);
    let written = written.ok_or_else(|| TestCaseError::fail("modify_all refused"))?;
    let got: O::Source =
        serde_json::from_slice(&written).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(
        got,
        value,
        "modify_all on {}",
        String::from_utf8_lossy(&doc)
    );
    Ok(())
}

/// [`reads_agree`] and [`set_laws`] for each optic, the new foci taken
/// from the other wholes where they have one, else the given ones.
macro_rules! agree {
    ($s:expr, $t:expr, $u:expr; $($o:expr => $a:expr, $b:expr);+ $(;)?) => {
        $(
            reads_agree($o, &$s)?;
            let a = $o.preview(&$t).cloned().unwrap_or_else(|| $a);
            let b = $o.preview(&$u).cloned().unwrap_or_else(|| $b);
            set_laws($o, &$s, a, b, Writes::Canonical)?;
        )+
    };
}

fn cases() -> ProptestConfig {
    ProptestConfig {
        cases: support::scaled(256),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn pt_of(a: i32) -> Pt {
    Pt { a, b: None }
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn fields_of_every_kind(s in doc(), t in doc(), u in doc()) {
        agree!(s, t, u;
            Doc::outer => Outer::C, Outer::C;
            Doc::boxed => Box::new(Outer::C), Box::new(Outer::C);
            Doc::list => Vec::new(), vec![Outer::C];
            Doc::adj => Adj::U, Adj::U;
            Doc::adjs => [Adj::U, Adj::U], [Adj::U, Adj::U];
            Doc::ren => Ren::Other(1), Ren::Other(2);
            Doc::opt => None, Some(pt_of(1));
            Doc::opt2 => None, Some(1);
            Doc::bmap => Default::default(), Default::default();
            Doc::smap => Default::default(), Default::default();
            Doc::fl.then(Flat::fa) => 0, 1;
            Doc::fl.then(Flat::fb) => None, Some(1);
            Doc::fl.then(Flat::fe) => Outer::C, Outer::C;
            Doc::named => String::new(), "x".into();
            Doc::tup => (0, String::new()), (1, "x".into());
        );
        // A HashMap's members may be written in another order: read only.
        reads_agree(Doc::imap, &s)?;
    }

    #[test]
    fn variants_of_every_encoding(s in doc(), t in doc(), u in doc()) {
        let outer = Doc::outer;
        agree!(s, t, u;
            outer.then(Outer::a) => Inner::Z, Inner::Z;
            outer.then(Outer::a).then(Inner::y_y) => 0, 1;
            outer.then(Outer::a).then(Inner::y_z) => None, Some(1);
            outer.then(Outer::a).then(Inner::z) => (), ();
            outer.then(Outer::a).then(Inner::x).then(Pt::a) => 0, 1;
            outer.then(Outer::a).then(Inner::x).then(Pt::b) => None, Some("b".into());
            outer.then(Outer::b_x) => 0, 1;
            outer.then(Outer::b_y) => None, Some("y".into());
            outer.then(Outer::c) => (), ();
            outer.then(Outer::d) => Ext::U, Ext::N("n".into());
            outer.then(Outer::d).then(Ext::u) => (), ();
            outer.then(Outer::d).then(Ext::n) => String::new(), "n".into();
            outer.then(Outer::d).then(Ext::t_0) => 0, 1;
            outer.then(Outer::d).then(Ext::t_2) => 0, 1;
            outer.then(Outer::d).then(Ext::s_s) => Vec::new(), vec![1];
            outer.then(Outer::d).then(Ext::s_s).then(at(0)) => 0, 1;
            outer.then(Outer::d).then(Ext::m) => Default::default(), Default::default();
            outer.then(Outer::d).then(Ext::m).then(key("a")) => 0, 1;
            outer.then(Outer::e) => Box::new(pt_of(0)), Box::new(pt_of(1));
            outer.then(Outer::e).then(Pt::a) => 0, 1;
            outer.then(Outer::e).then(Pt::b) => None, Some("b".into());
            Doc::boxed.then(Outer::a).then(Inner::x).then(Pt::b) => None, Some("b".into());
            Doc::boxed.then(Outer::d).then(Ext::t_2) => 0, 1;
            Doc::fl.then(Flat::fe).then(Outer::b_y) => None, Some("y".into());
            Doc::fl.then(Flat::fe).then(Outer::a).then(Inner::y_z) => None, Some(1);
            Doc::fl.then(Flat::fe).then(Outer::d) => Ext::U, Ext::T(1, 0, 2);
            Doc::adj.then(Adj::u) => (), ();
            Doc::adj.then(Adj::n) => None, Some(1);
            Doc::adj.then(Adj::n).then(some()) => 0, 1;
            Doc::adj.then(Adj::t_0) => 0, 1;
            Doc::adj.then(Adj::t_1) => 0, 1;
            Doc::adj.then(Adj::s_s) => 0, 1;
            Doc::adj.then(Adj::s_o) => None, Some(1);
            Doc::adjs.then(at(1)).then(Adj::s_o) => None, Some(1);
            Doc::ren.then(Ren::some_var_long_name) => 0, 1;
            Doc::ren.then(Ren::other) => 0, 1;
        );
        // Written as one: the variant's kind on the value and in the bytes.
        reads_agree(outer.then(Outer::kind), &s)?;
        reads_agree(outer.then(Outer::a).then(Inner::kind), &s)?;
        reads_agree(Doc::adj.then(Adj::kind), &s)?;
        reads_agree(outer.then(Outer::d).then(Ext::kind), &s)?;
    }

    #[test]
    fn lists_maps_and_options(s in doc(), t in doc(), u in doc(), i in 0usize..3, k in -2i32..2) {
        let keys: Vec<String> = s.smap.keys().cloned().chain(["a".to_owned()]).collect();
        for text in &keys {
            agree!(s, t, u;
                Doc::smap.then(key(text.as_str())) => None, Some(1);
                Doc::smap.then(key(text.as_str())).then(some()) => 0, 1;
                Doc::smap.then(key(text)) => None, Some(1);
            );
        }
        agree!(s, t, u;
            Doc::list.then(at(i)) => Outer::C, Outer::C;
            Doc::list.then(at(i)).then(Outer::a).then(Inner::y_z) => None, Some(1);
            Doc::list.then(at(i)).then(Outer::e).then(Pt::b) => None, Some("b".into());
            Doc::adjs.then(at(i)) => Adj::U, Adj::N(None);
            Doc::opt.then(some()) => pt_of(0), pt_of(1);
            Doc::opt.then(some()).then(Pt::b) => None, Some("b".into());
            Doc::opt2.then(some()) => 0, 1;
            Doc::imap.then(key(&k)) => pt_of(0), pt_of(1);
            Doc::imap.then(key(&k)).then(Pt::b) => None, Some("b".into());
            Doc::bmap.then(key(&(i as u8))) => Vec::new(), vec!["x".into()];
            Doc::bmap.then(key(&(i as u8))).then(at(0)) => String::new(), "x".into();
            Doc::tup => (0, String::new()), (1, "x".into());
        );
    }

    #[test]
    fn traversals(s in doc(), text in model::text(), n in any::<u8>(), a in -3i32..3) {
        traversal_laws(Doc::list.then(each()), &s, Outer::C)?;
        traversal_laws(Doc::list.then(each()).then(Outer::b_y), &s, Some(text.clone()))?;
        traversal_laws(Doc::list.then(each()).then(Outer::e).then(Pt::a), &s, a)?;
        traversal_laws(Doc::list.then(each()).then(Outer::d).then(Ext::s_s).then(each()), &s, n)?;
        traversal_laws(Doc::list.then(each()).then(Outer::a).then(Inner::x).then(Pt::b), &s, None)?;
        traversal_laws(Doc::adjs.then(each()).then(Adj::n).then(some()), &s, n)?;
        traversal_laws(Doc::adjs.then(each()).then(Adj::s_o), &s, Some(n))?;
        traversal_laws(Doc::imap.then(each()).then(Pt::b), &s, Some(text.clone()))?;
        traversal_laws(Doc::bmap.then(each()).then(each()), &s, text.clone())?;
        traversal_laws(Doc::smap.then(each()).then(some()), &s, n)?;
        traversal_laws(Doc::outer.then(Outer::d).then(Ext::m).then(each()), &s, n)?;
    }
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn modify_reads_the_old_focus(s in doc()) {
        let bump = |n: u8| n.wrapping_add(1);
        let flip = |o: Option<u8>| match o {
            Some(n) if n % 2 == 0 => None,
            Some(n) => Some(n / 2),
            None => Some(7),
        };
        let longer = |text: String| text + "\"é";
        modify_agrees(Doc::fl.then(Flat::fa), &s, bump)?;
        modify_agrees(Doc::fl.then(Flat::fb), &s, flip)?;
        modify_agrees(Doc::opt2, &s, flip)?;
        modify_agrees(Doc::outer.then(Outer::b_x), &s, bump)?;
        modify_agrees(Doc::outer.then(Outer::a).then(Inner::y_z), &s, flip)?;
        modify_agrees(Doc::adj.then(Adj::s_o), &s, flip)?;
        modify_agrees(Doc::adj.then(Adj::n), &s, flip)?;
        modify_agrees(Doc::named, &s, longer)?;
        modify_agrees(Doc::outer.then(Outer::d).then(Ext::n), &s, longer)?;
        modify_agrees(Doc::outer.then(Outer::e).then(Pt::b), &s, |b| b.map(longer))?;
        modify_agrees(Doc::outer.then(Outer::a), &s, |inner| match inner {
            Inner::Z => Inner::X(Pt { a: 1, b: None }),
            Inner::X(_) => Inner::Y { y: 1, z: None },
            Inner::Y { .. } => Inner::Z,
        })?;
        modify_agrees(Doc::outer.then(Outer::d), &s, |ext| match ext {
            Ext::U => Ext::N("u".into()),
            _ => Ext::U,
        })?;
        modify_all_agrees(Doc::bmap.then(each()).then(each()), &s, longer)?;
        modify_all_agrees(Doc::smap.then(each()), &s, flip)?;
        modify_all_agrees(Doc::list.then(each()).then(Outer::b_y), &s, |y| y.map(longer))?;
        modify_all_agrees(Doc::adjs.then(each()).then(Adj::s_o), &s, flip)?;
        modify_all_agrees(Doc::imap.then(each()).then(Pt::a), &s, |a| -a)?;
    }
}

// ---------------------------------------------------------------------------
// `optic!` names over the same model: each reads, writes (as the first step
// of a path) and obeys its kind's laws as the path it names.

optic! {
    /// A lens through a flattened field.
    lens FLAT_OUTER: Doc => Outer = Doc::fl.then(Flat::fe);
}
optic! {
    /// A prism of two internally tagged enums, one inside the other.
    prism A_X: Outer => Pt = Outer::a.then(Inner::x);
}
optic! {
    /// An optional through a `Box`.
    optional E_A: Doc => i32 = Doc::outer.then(Outer::e).then(Pt::a);
}
optic! {
    /// The kind of the boxed enum.
    getter BOXED_KIND: Doc => OuterKind = Doc::boxed.then(Outer::kind);
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn named_optics_are_their_paths(s in doc(), t in doc(), u in doc(), p in model::pt()) {
        reads_agree(FLAT_OUTER, &s)?;
        reads_agree(E_A, &s)?;
        reads_agree(BOXED_KIND, &s)?;
        reads_agree(Doc::outer.then(A_X), &s)?;
        reads_agree(Doc::outer.then(A_X).then(Pt::b), &s)?;
        prop_assert_eq!(BOXED_KIND.get(&s), Doc::boxed.then(Outer::kind).get(&s));

        // Written as the first step of a path, on values and bytes alike.
        agree!(s, t, u;
            FLAT_OUTER.then(Outer::b_x) => 0, 1;
            FLAT_OUTER.then(Outer::e).then(Pt::b) => None, Some("b".into());
            Doc::outer.then(A_X).then(Pt::b) => None, Some("b".into());
            Doc::list.then(at(0)).then(A_X).then(Pt::a) => 0, 1;
        );

        // The laws of each kind, and the name's writes are the path's.
        let mut by_name = s.clone();
        let mut by_path = s.clone();
        FLAT_OUTER.set(&mut by_name, Outer::C);
        Doc::fl.then(Flat::fe).set(&mut by_path, Outer::C);
        prop_assert_eq!(&by_name, &by_path);
        let mut got = s.clone();
        FLAT_OUTER.set(&mut got, FLAT_OUTER.get(&s).clone());
        prop_assert_eq!(&got, &s, "get-set");
        FLAT_OUTER.set(&mut got, t.fl.fe.clone());
        prop_assert_eq!(FLAT_OUTER.get(&got), &t.fl.fe, "set-get");
        FLAT_OUTER.set(&mut got, u.fl.fe.clone());
        FLAT_OUTER.set(&mut got, t.fl.fe.clone());
        prop_assert_eq!(FLAT_OUTER.get(&got), &t.fl.fe, "set-set");

        let built = A_X.review(p.clone());
        prop_assert_eq!(A_X.preview(&built), Some(&p), "preview-review");
        if let Some(focus) = A_X.preview(&s.outer) {
            prop_assert_eq!(&A_X.review(focus.clone()), &s.outer, "review-preview");
        }
        let bytes = serde_json::to_vec(&built).unwrap();
        prop_assert_eq!(Json::<Outer>::new(&bytes).read(A_X), Some(p.clone()));

        let mut by_name = s.clone();
        let mut by_path = s.clone();
        prop_assert_eq!(
            E_A.modify(&mut by_name, |a| *a += 1),
            Doc::outer.then(Outer::e).then(Pt::a).modify(&mut by_path, |a| *a += 1)
        );
        prop_assert_eq!(by_name, by_path);
    }
}

/// A focus entered (`Json::enter`) reads on as the path's own reads do.
mod entered {
    use super::*;
    use optics_core::json::JsonThrough;

    /// `rest` read in `first`'s focus entered, against the value.
    fn entered<A, B>(first: A, rest: B, s: &A::Source) -> Result<(), TestCaseError>
    where
        A: Preview + JsonOptic + JsonThrough + Copy,
        B: Preview<Source = A::Focus> + for<'de> JsonDecode<'de> + Copy,
        A::Source: Sized + Serialize + Debug,
        B::Focus: Clone + PartialEq + Debug,
        A::Focus: Sized,
    {
        let doc = serde_json::to_vec(s).unwrap();
        let json = Json::<A::Source>::new(&doc);
        let on_value = first.preview(s).and_then(|f| rest.preview(f)).cloned();
        let on_bytes = json.enter(first).and_then(|e| e.read(rest));
        prop_assert_eq!(
            on_bytes,
            on_value,
            "entered on {}",
            String::from_utf8_lossy(&doc)
        );
        Ok(())
    }

    proptest! {
        #![proptest_config(cases())]
        #[test]
        fn entered_reads(s in doc()) {
            entered(Doc::outer, Outer::b_y, &s)?;
            entered(Doc::outer, Outer::a.then(Inner::x).then(Pt::b), &s)?;
            entered(Doc::outer.then(Outer::a), Inner::x.then(Pt::b), &s)?;
            entered(Doc::outer.then(Outer::a), Inner::y_z, &s)?;
            entered(Doc::outer.then(Outer::a), Inner::kind, &s)?;
            entered(Doc::outer.then(Outer::d), Ext::t_2, &s)?;
            entered(Doc::outer.then(Outer::d), Ext::kind, &s)?;
            entered(Doc::fl, Flat::fb, &s)?;
            entered(Doc::fl, Flat::fe.then(Outer::b_y), &s)?;
            entered(Doc::fl.then(Flat::fe), Outer::a.then(Inner::y_z), &s)?;
            entered(Doc::adj, Adj::s_o, &s)?;
            entered(Doc::adj.then(Adj::n), some(), &s)?;
            entered(Doc::adjs.then(at(1)), Adj::t_1, &s)?;
            entered(Doc::ren, Ren::some_var_long_name, &s)?;
            entered(Doc::opt2, some(), &s)?;
        }
    }
}
