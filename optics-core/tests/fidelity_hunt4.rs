//! A fourth hunt, for byte writes that disagree with serde_json: `set`,
//! `modify`, `set_all` and `modify_all` (trusting and strict) of leaves and
//! values whose serde_json writing is special, against the same write on
//! serde_json's decode of the document, written and read back by serde_json
//! (see `support::probe`). Floats at their edges (`NaN` and the infinities,
//! which serde writes as `null`; `-0.0`, subnormals, `f32::MAX`, `f32`
//! values whose shortest text is not an `f64`'s), also in serde's buffer
//! (an internally tagged payload, a flattened field); integers at their
//! type's edges (`u64::MAX`, `i64::MIN`, `u128`, `i128`); strings and chars
//! needing every escape (quote, backslash, control bytes, `\u0000`,
//! U+2028/U+2029, beyond the BMP), written over leaves that were written
//! with escapes and `\/`, in members whose keys are escaped; whole values
//! set through a lens or prism: structs with `skip_serializing_if`,
//! `rename` and `default`, a container `default`, enums of every encoding
//! (unit variants, `other`), `Option`, maps, `serde_json::Value`, `Vec<u8>`,
//! `Box<str>`; writes through prisms whose focus is not there (another
//! variant, `at(i)` past the end, `key(k)` absent) or is a map key written
//! with escapes or repeated; `modify` that grows or empties strings inside
//! nested lists and objects with whitespace everywhere, and the bytes
//! outside a replaced focus, which must stay as they were.
//!
//! One disagreed when this suite was written: an internally tagged newtype
//! variant whose payload is an `Option`, set to `None` through its prism
//! (`Int::o`), was written as the tag alone (`{"t":"O"}`), which serde reads
//! as `Some` of the payload decoded from no members (or refuses, where the
//! payload has a field it cannot leave out), never as `None`: no writing
//! serde reads as `O(None)` exists, and serde refuses to write it. The write
//! now refuses, as serde does:
//! `an_internally_tagged_option_payload_set_to_none_refuses`.
//!
//! What the oracle cannot judge, and so is left out: a value serde_json
//! does not read back from its own writing. A float whose text serde_json
//! reads a unit in the last place away (its parsing is not always correctly
//! rounded), anywhere in the document: the value-side write rewrites it,
//! the byte write leaves its text as it was, and the two decode apart in a
//! member neither touched (the property draws only floats that read back).
//! An `i128` or `u128` in serde's buffer, which serde refuses whatever its
//! value (so `Int::W` holds none). A field renamed for writing only
//! (`rename(serialize = "..")`): serde's writing of any value reads that
//! field back as its default, where a byte write that keeps the member's key
//! reads it back as it is (`write_laws.rs` pins that).
//!
//! The property at the end rewrites serde_json's writing of a random value
//! (whitespace, escapes, member order, decoys) and writes random leaves of
//! those kinds into it.

mod support;

use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;

use optics_core::json::{Duplicates, JsonDecode, JsonOptic, JsonTraverse, JsonWrite, Strict};
use optics_core::optic::StartsAt;
use optics_core::prelude::*;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde::{Deserialize, Serialize};
use support::oracle::airy;
use support::probe::{probe, probe_modify, probe_modify_all, probe_set, probe_set_all, Checks};
use support::rewrite::Rewrite;

// ---------------------------------------------------------------------------
// The model.

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Leaves {
    f: f64,
    g: f32,
    #[serde(default)]
    of: Option<f64>,
    #[serde(default)]
    og: Option<f32>,
    u: u64,
    i: i64,
    #[serde(default)]
    big: u128,
    #[serde(default)]
    neg: i128,
    c: char,
    s: String,
    bs: Box<str>,
    by: Vec<u8>,
    #[serde(default)]
    v: serde_json::Value,
    #[serde(default)]
    m: BTreeMap<String, String>,
    #[serde(default)]
    l: Vec<f32>,
    #[serde(default)]
    pair: Pair,
    #[serde(default)]
    meters: Meters,
}

/// A tuple struct and a transparent one: their fields are an array's
/// elements and the whole value.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
struct Pair(f32, String);

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
#[serde(transparent)]
struct Meters {
    m: f64,
}

fn seven() -> u8 {
    7
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Inner {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    maybe: Option<String>,
    #[serde(rename = "n\"a/me")]
    name: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    tags: Vec<String>,
    #[serde(default = "seven")]
    seven: u8,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
enum Ext {
    A(Inner),
    B(f32),
    C { x: f64, s: String },
    T(u8, char),
    U,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t")]
enum Int {
    A(Inner),
    C {
        x: f32,
        s: String,
    },
    U,
    M(BTreeMap<String, f64>),
    /// serde writes neither `Some` nor `None` here; it reads `Some` only.
    O(Option<Inner>),
    /// The same, of a payload serde decodes from no members.
    D(Option<Conf>),
    /// A unit variant of another enum, and a unit struct: serde writes the
    /// first as a member beside the tag, the second as the tag alone.
    E(Unit),
    S(Nothing),
    /// Leaves serde's buffer holds otherwise than they are written. (It
    /// holds no `u128` or `i128` at all: serde refuses those here.)
    W {
        v: serde_json::Value,
        c: char,
    },
    #[serde(other)]
    Other,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
enum Unit {
    Only,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Nothing;

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t", content = "c")]
enum Adj {
    A(Inner),
    B(f32),
    C {
        x: f64,
        s: String,
    },
    U,
    #[serde(other)]
    Other,
}

/// A struct whose missing fields serde takes from its own `Default`.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(default)]
struct Conf {
    a: u8,
    s: String,
    g: f32,
    #[serde(skip_serializing_if = "Option::is_none")]
    o: Option<u8>,
}

impl Default for Conf {
    fn default() -> Self {
        Conf {
            a: 7,
            s: "d\u{2028}".into(),
            g: 0.1,
            o: Some(3),
        }
    }
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Flat {
    fx: f32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    fo: Option<String>,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Doc {
    leaves: Leaves,
    inner: Inner,
    ext: Ext,
    int: Int,
    adj: Adj,
    #[serde(default)]
    opt: Option<Inner>,
    #[serde(default)]
    conf: Conf,
    list: Vec<Ext>,
    ints: Vec<Int>,
    map: BTreeMap<String, Adj>,
    hmap: HashMap<String, f32>,
    grid: Vec<Vec<f64>>,
    #[serde(flatten)]
    flat: Flat,
}

/// A document serde_json reads as a `Doc`, written as serde never writes
/// one: escapes in keys and leaves (`\/` among them), members out of
/// order, a map key given twice (once escaped), numbers at their edges.
const DOC: &str = r#"{"leaves":{"f":1.5,"g":0.1,"of":null,"og":3.4028235e38,
"u":18446744073709551615,"i":-9223372036854775808,
"big":340282366920938463463374607431768211455,"neg":-170141183460469231731687303715884105728,
"c":"\u2028","s":"a\"\\\/\b\f\n\r\t\u0000\ud83d\ude00\u2029","bs":"x\/y","by":[0,255],
"v":{"k":[1,2.5e-300,null,"\/"]},"m":{"a\u0062":"\/","ab":"last"},
"l":[1e-45,16777217,0.30000001192092896],"pair":[-0.0,"\u0022"],"meters":5e-324},
"inner":{"n\"a\/me":"\u00e9","tags":["\"\\"],"maybe":"m"},
"ext":{"A":{"n\u0022a/me":"x"}},
"int":{"x":0.5,"s":"\\","t":"C"},
"adj":{"c":{"x":-0.0,"s":"q"},"t":"C"},
"opt":{"n\"a/me":"o","seven":1},
"conf":{"s":"c"},
"list":[{"B":1e-40},"U",{"T":[3,"\ud83d\ude00"]},{"C":{"s":"","x":5e-324}}],
"ints":[{"t":"A","n\"a/me":"i"},{"t":"M","k":1.7976931348623157e308},{"t":"U"},{"\u0074":"C","s":"\/","x":1e-45},
{"c":"\ud83d\ude00","v":{"":[-0.0,18446744073709551615,"\/"]},"t":"W"}],
"map":{"a":{"t":"B","c":3.4028235e38},"b":{"t":"Zzz"},"a\u0062":{"t":"U"},"ab":{"t":"A","c":{"n\"a/me":"ab"}}},
"hmap":{"x":1.0,"y":-0.0},
"grid":[[],[1e308,-1e-308],[0.1]],
"fx":2.5}"#;

/// `DOC` as written, with more whitespace between its members (the probes
/// add whitespace around every token too), and with a container default's
/// only member and a flattened field that `skip_serializing_if` removes.
fn docs() -> [String; 3] {
    let conf = DOC.replace(r#""conf":{"s":"c"},"#, r#""conf":{ "o" : 5 },"fo":"\/","#);
    [DOC.to_owned(), DOC.replace(",\n", " ,\r\n\t "), conf]
}

fn grow(s: String) -> String {
    format!("{s}{}\"\\\u{0}\u{1f}\u{2028}\u{1F600}/", "long ".repeat(40))
}

fn shrink(_: String) -> String {
    String::new()
}

fn inner() -> Inner {
    Inner {
        maybe: None,
        name: "\"/\\\u{2029}".into(),
        tags: vec![],
        seven: 0,
    }
}

const F64S: [f64; 12] = [
    0.0,
    -0.0,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::MIN_POSITIVE,
    5e-324,
    f64::MAX,
    f64::MIN,
    0.1,
    1e21,
    1e-7,
];

const F32S: [f32; 12] = [
    0.1,
    -0.0,
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    1e-45,
    f32::MIN_POSITIVE,
    f32::MAX,
    f32::MIN,
    16_777_216.0,
    0.3,
    3.402_823_4e38,
];

// ---------------------------------------------------------------------------
// Leaves.

#[test]
fn float_leaves_at_their_edges_are_written_as_serde_writes_them() {
    let mut checks = Checks::default();
    let leaves = Doc::leaves;
    let meters = leaves.then(Leaves::meters);
    let cell = Doc::grid.then(at(1)).then(at(0));
    let grid = Doc::grid.then(each()).then(each());
    let ext_x = Doc::list.then(at(3)).then(Ext::c_x);
    let ext_xs = Doc::list.then(each()).then(Ext::c_x);
    // In serde's buffer: an internally tagged payload's map and fields.
    let int_m = Doc::ints.then(at(1)).then(Int::m);
    let int_xs = Doc::ints.then(each()).then(Int::c_x);
    let pair = leaves.then(Leaves::pair).then(Pair::_0);
    let list = leaves.then(Leaves::l);
    let ext_b = Doc::list.then(at(0)).then(Ext::b);
    let adj_b = Doc::map.then(key("a")).then(Adj::b);
    for doc in &docs() {
        for f in F64S {
            probe_set("f64", doc, leaves.then(Leaves::f), f, &mut checks);
            probe_set("f64", doc, leaves.then(Leaves::of), Some(f), &mut checks);
            probe_set("f64", doc, meters, Meters { m: f }, &mut checks);
            probe_set("f64", doc, meters.then(Meters::m), f, &mut checks);
            probe_set("f64 grid", doc, cell, f, &mut checks);
            probe_set_all("f64 grid", doc, grid, f, &mut checks);
            probe_set("f64 ext", doc, ext_x, f, &mut checks);
            probe_set_all("f64 ext", doc, ext_xs, f, &mut checks);
            probe_set("f64 adj", doc, Doc::adj.then(Adj::c_x), f, &mut checks);
            probe_set("f64 int", doc, int_m.then(key("k")), f, &mut checks);
            probe_set("f64 int", doc, int_m.then(key("new")), f, &mut checks);
        }
        for g in F32S {
            probe_set("f32", doc, leaves.then(Leaves::g), g, &mut checks);
            probe_set("f32", doc, leaves.then(Leaves::og), Some(g), &mut checks);
            probe_set("f32", doc, pair, g, &mut checks);
            probe_set("f32 list", doc, list.then(at(2)), g, &mut checks);
            probe_set_all("f32 list", doc, list.then(each()), g, &mut checks);
            probe_set("f32 int", doc, Doc::int.then(Int::c_x), g, &mut checks);
            probe_set_all("f32 int", doc, int_xs, g, &mut checks);
            probe_set("f32 ext", doc, ext_b, g, &mut checks);
            probe_set("f32 adj", doc, adj_b, g, &mut checks);
            probe_set("f32 map", doc, Doc::hmap.then(key("y")), g, &mut checks);
            probe_set_all("f32 map", doc, Doc::hmap.then(each()), g, &mut checks);
            // A flattened field, and a container `default`'s.
            probe_set("f32 flat", doc, Doc::flat.then(Flat::fx), g, &mut checks);
            probe_set("f32 conf", doc, Doc::conf.then(Conf::g), g, &mut checks);
        }
        let triple = |g: f32| g * 3.0;
        probe_modify(
            "f32 conf",
            doc,
            Doc::conf.then(Conf::g),
            triple,
            &mut checks,
        );
        probe_modify_all("f32 int", doc, int_xs, |g| g / 3.0, &mut checks);
        probe_modify_all("f32 list", doc, list.then(each()), triple, &mut checks);
        probe_modify_all("f64 grid", doc, grid, |f| f * 1e300, &mut checks);
        let nan = |_| Some(f64::NAN);
        probe_modify("f64", doc, leaves.then(Leaves::of), nan, &mut checks);
    }
    checks.finish();
}

#[test]
fn integers_at_their_type_edges_are_written_as_serde_writes_them() {
    let mut checks = Checks::default();
    let leaves = Doc::leaves;
    for doc in &docs() {
        for u in [0, 1, u64::MAX, u64::MAX - 1, 1 << 53, (1 << 53) + 1] {
            probe_set("u64", doc, leaves.then(Leaves::u), u, &mut checks);
        }
        for i in [i64::MIN, i64::MAX, -1, 0] {
            probe_set("i64", doc, leaves.then(Leaves::i), i, &mut checks);
        }
        for big in [0, u128::MAX, u128::from(u64::MAX) + 1] {
            probe_set("u128", doc, leaves.then(Leaves::big), big, &mut checks);
        }
        for neg in [i128::MIN, i128::MAX, i128::from(i64::MIN) - 1] {
            probe_set("i128", doc, leaves.then(Leaves::neg), neg, &mut checks);
        }
        // In serde's buffer.
        let w = Doc::ints.then(at(4));
        let value = serde_json::json!([u64::MAX, i64::MIN, -0.0, 1e-300]);
        probe_set("value int", doc, w.then(Int::w_v), value, &mut checks);
        let v = w.then(Int::w_v);
        probe_modify(
            "value int",
            doc,
            v,
            |v| serde_json::json!([v, v]),
            &mut checks,
        );
        let by = leaves.then(Leaves::by);
        probe_set("bytes", doc, by, vec![], &mut checks);
        probe_set("bytes", doc, by, vec![0, 34, 92, 255], &mut checks);
        probe_modify("u64", doc, leaves.then(Leaves::u), |u| u / 3, &mut checks);
        probe_modify(
            "i128",
            doc,
            leaves.then(Leaves::neg),
            |n| n / 7,
            &mut checks,
        );
        probe_modify(
            "u8 conf",
            doc,
            Doc::conf.then(Conf::a),
            |a| a * 30,
            &mut checks,
        );
        let seven = Doc::ext.then(Ext::a).then(Inner::seven);
        probe_modify("u8 default", doc, seven, |a| a + 200, &mut checks);
        // Missing from an internally tagged payload's members.
        let seven = Doc::ints.then(at(0)).then(Int::a).then(Inner::seven);
        probe_modify("u8 default", doc, seven, |a| a + 200, &mut checks);
    }
    checks.finish();
}

/// Every escape class serde_json writes, and the characters it writes as
/// they are though other writers escape them.
const TEXTS: [&str; 10] = [
    "",
    "\"",
    "\\",
    "/",
    "\u{0}",
    "\u{1f}\u{8}\u{c}\n\r\t",
    "\u{7f}",
    "\u{2028}\u{2029}",
    "\u{1F600}",
    "a\"\\/\u{0}\u{2028}\u{10FFFF}é",
];

#[test]
fn strings_and_chars_needing_every_escape_are_written_over_escaped_leaves() {
    let mut checks = Checks::default();
    let leaves = Doc::leaves;
    for doc in &docs() {
        for text in TEXTS {
            let s = || text.to_owned();
            probe_set("string", doc, leaves.then(Leaves::s), s(), &mut checks);
            probe_set(
                "string",
                doc,
                leaves.then(Leaves::bs),
                s().into(),
                &mut checks,
            );
            probe_set(
                "string",
                doc,
                leaves.then(Leaves::pair).then(Pair::_1),
                s(),
                &mut checks,
            );
            let m = leaves.then(Leaves::m);
            probe_set("string map", doc, m.then(key("ab")), s(), &mut checks);
            probe_set("string map", doc, m.then(key(text)), s(), &mut checks);
            probe_set_all("string map", doc, m.then(each()), s(), &mut checks);
            probe_set(
                "string key",
                doc,
                Doc::inner.then(Inner::name),
                s(),
                &mut checks,
            );
            let name = Doc::ext.then(Ext::a).then(Inner::name);
            probe_set("string key", doc, name, s(), &mut checks);
            let tags = Doc::inner.then(Inner::tags);
            probe_set("string list", doc, tags.then(at(0)), s(), &mut checks);
            probe_set_all("string list", doc, tags.then(each()), s(), &mut checks);
            probe_set("string int", doc, Doc::int.then(Int::c_s), s(), &mut checks);
            let ints = Doc::ints.then(each()).then(Int::c_s);
            probe_set_all("string int", doc, ints, s(), &mut checks);
            probe_set(
                "string conf",
                doc,
                Doc::conf.then(Conf::s),
                s(),
                &mut checks,
            );
            probe_set(
                "string flat",
                doc,
                Doc::flat.then(Flat::fo),
                Some(s()),
                &mut checks,
            );
            let value = serde_json::Value::String(s());
            probe_set(
                "string value",
                doc,
                leaves.then(Leaves::v),
                value,
                &mut checks,
            );
        }
        for c in [
            '"',
            '\\',
            '/',
            '\u{0}',
            '\u{1f}',
            '\u{7f}',
            '\u{2028}',
            '\u{1F600}',
        ] {
            probe_set("char", doc, leaves.then(Leaves::c), c, &mut checks);
            let w = Doc::ints.then(at(4)).then(Int::w_c);
            probe_set("char int", doc, w, c, &mut checks);
            probe_set(
                "char",
                doc,
                Doc::list.then(at(2)).then(Ext::t_1),
                c,
                &mut checks,
            );
        }
    }
    checks.finish();
}

// ---------------------------------------------------------------------------
// Composite values.

#[test]
fn whole_values_set_through_a_lens_or_prism_are_written_as_serde_writes_them() {
    let mut checks = Checks::default();
    let full = Inner {
        maybe: Some("\u{0}".into()),
        tags: vec!["\u{2028}".into(), String::new()],
        ..inner()
    };
    for doc in &docs() {
        for inner in [inner(), full.clone()] {
            probe_set("struct", doc, Doc::inner, inner.clone(), &mut checks);
            probe_set("option", doc, Doc::opt, Some(inner.clone()), &mut checks);
            probe_set(
                "option",
                doc,
                Doc::opt.then(some()),
                inner.clone(),
                &mut checks,
            );
            probe_set(
                "ext",
                doc,
                Doc::ext.then(Ext::a),
                inner.clone(),
                &mut checks,
            );
            probe_set(
                "int",
                doc,
                Doc::int.then(Int::a),
                inner.clone(),
                &mut checks,
            );
            let a = Doc::ints.then(at(0)).then(Int::a);
            probe_set("int", doc, a, inner.clone(), &mut checks);
            probe_set(
                "adj",
                doc,
                Doc::adj.then(Adj::a),
                inner.clone(),
                &mut checks,
            );
            let ab = Doc::map.then(key("ab")).then(Adj::a);
            probe_set("adj", doc, ab, inner.clone(), &mut checks);
            for value in [
                Ext::A(inner.clone()),
                Ext::B(f32::NAN),
                Ext::B(-0.0),
                Ext::C {
                    x: f64::INFINITY,
                    s: "\u{0}".into(),
                },
                Ext::T(0, '\u{2028}'),
                Ext::U,
            ] {
                probe_set("ext", doc, Doc::ext, value.clone(), &mut checks);
                probe_set_all("ext", doc, Doc::list.then(each()), value, &mut checks);
            }
            for value in [
                Int::A(inner.clone()),
                Int::C {
                    x: f32::MAX,
                    s: "\"".into(),
                },
                Int::U,
                Int::M(BTreeMap::from([("t\u{0}".into(), -0.0)])),
                Int::E(Unit::Only),
                Int::S(Nothing),
                Int::Other,
            ] {
                probe_set("int", doc, Doc::int, value.clone(), &mut checks);
                probe_set(
                    "int",
                    doc,
                    Doc::ints.then(at(2)),
                    value.clone(),
                    &mut checks,
                );
                probe_set_all("int", doc, Doc::ints.then(each()), value, &mut checks);
            }
            for value in [
                Adj::A(inner.clone()),
                Adj::B(1e-45),
                Adj::C {
                    x: 5e-324,
                    s: "\\".into(),
                },
                Adj::U,
                Adj::Other,
            ] {
                probe_set("adj", doc, Doc::adj, value.clone(), &mut checks);
                probe_set(
                    "adj",
                    doc,
                    Doc::map.then(key("b")),
                    value.clone(),
                    &mut checks,
                );
                probe_set_all("adj", doc, Doc::map.then(each()), value, &mut checks);
            }
        }
        probe_set("option", doc, Doc::opt, None, &mut checks);
        probe_set(
            "unit",
            doc,
            Doc::list.then(at(1)).then(Ext::u),
            (),
            &mut checks,
        );
        probe_set("unit", doc, Doc::adj.then(Adj::u), (), &mut checks);
        let other = Doc::map.then(key("b")).then(Adj::other);
        probe_set("unit", doc, other, (), &mut checks);
        let e = Doc::ints.then(at(2)).then(Int::e);
        probe_set("unit", doc, e, Unit::Only, &mut checks);
        probe_set(
            "unit",
            doc,
            Doc::ints.then(at(2)).then(Int::u),
            (),
            &mut checks,
        );
        let m = Doc::ints.then(at(1)).then(Int::m);
        probe_set("map", doc, m, BTreeMap::new(), &mut checks);
        probe_set(
            "map",
            doc,
            m,
            BTreeMap::from([("t".into(), 1.0)]),
            &mut checks,
        );
        let hmap = HashMap::from([("\u{2028}".to_owned(), f32::NAN)]);
        probe_set("map", doc, Doc::hmap, hmap, &mut checks);
        probe_set(
            "map",
            doc,
            Doc::leaves.then(Leaves::m),
            BTreeMap::new(),
            &mut checks,
        );
        let conf = Conf {
            o: None,
            ..Conf::default()
        };
        probe_set("conf", doc, Doc::conf, conf, &mut checks);
        probe_set("conf", doc, Doc::conf.then(Conf::o), None, &mut checks);
        probe_modify(
            "conf",
            doc,
            Doc::conf.then(Conf::o),
            |o| o.map(|o| o + 1),
            &mut checks,
        );
        let value = serde_json::json!({"\u{2028}": [1.5, "\"", null, u64::MAX, i64::MIN], "": {}});
        probe_set(
            "value",
            doc,
            Doc::leaves.then(Leaves::v),
            value,
            &mut checks,
        );
        let null = serde_json::Value::Null;
        probe_set("value", doc, Doc::leaves.then(Leaves::v), null, &mut checks);
        // `skip_serializing_if` members removed, whatever stands around them.
        probe_set(
            "removed",
            doc,
            Doc::inner.then(Inner::maybe),
            None,
            &mut checks,
        );
        probe_set(
            "removed",
            doc,
            Doc::inner.then(Inner::tags),
            vec![],
            &mut checks,
        );
        probe_set("removed", doc, Doc::flat.then(Flat::fo), None, &mut checks);
        let tags = Doc::inner.then(Inner::tags);
        probe_modify("removed", doc, tags, |_| vec![], &mut checks);
        // Missing, and appended, where serde writes them.
        let a = Doc::ints.then(at(0)).then(Int::a);
        let tags = a.then(Inner::tags);
        probe_modify("appended", doc, tags, |_| vec!["\u{0}".into()], &mut checks);
        let maybe = a.then(Inner::maybe);
        probe_modify("appended", doc, maybe, |_| Some("/".into()), &mut checks);
        probe_set(
            "appended",
            doc,
            Doc::conf.then(Conf::o),
            Some(0),
            &mut checks,
        );
    }
    checks.finish();
}

#[test]
fn writes_through_prisms_whose_focus_is_not_there_refuse() {
    let mut checks = Checks::default();
    for doc in &docs() {
        // Another variant.
        probe_set(
            "other variant",
            doc,
            Doc::ext.then(Ext::b),
            1.0,
            &mut checks,
        );
        probe_set("other variant", doc, Doc::int.then(Int::u), (), &mut checks);
        probe_set(
            "other variant",
            doc,
            Doc::adj.then(Adj::b),
            1.0,
            &mut checks,
        );
        let other = Doc::map.then(key("a")).then(Adj::other);
        probe_set("other variant", doc, other, (), &mut checks);
        probe_modify(
            "other variant",
            doc,
            Doc::ext.then(Ext::c_s),
            grow,
            &mut checks,
        );
        // Past the end, and a key the map does not have.
        probe_set(
            "past the end",
            doc,
            Doc::list.then(at(4)),
            Ext::U,
            &mut checks,
        );
        let deep = Doc::grid.then(at(0)).then(at(0));
        probe_set("past the end", doc, deep, 1.0, &mut checks);
        probe_modify("past the end", doc, deep, |f| f + 1.0, &mut checks);
        probe_set(
            "absent key",
            doc,
            Doc::map.then(key("zz")),
            Adj::U,
            &mut checks,
        );
        let absent = Doc::leaves.then(Leaves::m).then(key("a"));
        probe_modify("absent key", doc, absent, grow, &mut checks);
        // `None` under `some()`.
        let opt = Doc::leaves.then(Leaves::of).then(some());
        probe_set("none", doc, opt, 1.0, &mut checks);
        // A key given twice, the first time escaped: serde keeps the last.
        let ab = Doc::map.then(key("ab"));
        probe_set("repeated key", doc, ab, Adj::B(f32::MIN), &mut checks);
        let name = ab.then(Adj::a).then(Inner::name);
        probe_modify("repeated key", doc, name, grow, &mut checks);
        let m = Doc::leaves.then(Leaves::m).then(key("ab"));
        probe_modify("repeated key", doc, m, shrink, &mut checks);
    }
    checks.finish();
}

// ---------------------------------------------------------------------------
// Lengths that change a lot, and the bytes around the focus.

/// Where `part`, a slice of `whole`, starts and ends in it.
fn span_in(whole: &[u8], part: &[u8]) -> (usize, usize) {
    let start = part.as_ptr() as usize - whole.as_ptr() as usize;
    (start, start + part.len())
}

/// A byte write of `a` through `o` in `doc`, where the focus is a value in
/// the bytes, leaves every byte before and after it as it was, and reads
/// back as `a` does through serde_json (trusting and strict).
fn outside_unchanged<O>(doc: &[u8], o: O, a: O::Focus, checks: &mut Checks)
where
    O: Optional<Source = Doc>
        + JsonOptic
        + for<'a> JsonDecode<'a>
        + JsonWrite
        + JsonTraverse
        + StartsAt<Doc>
        + Copy
        + Debug,
    O::Focus: Serialize + serde::de::DeserializeOwned + Clone + PartialEq + Debug,
{
    let text = String::from_utf8_lossy(doc);
    let Some(view) = Json::<Doc>::new(doc).view(o) else {
        checks
            .disagreements
            .push(format!("{o:?}: no view in {text}"));
        return;
    };
    let (start, end) = span_in(doc, view.bytes());
    let duplicates = Duplicates::new();
    let strict = Strict::<Doc>::validated(doc, &duplicates).ok();
    let written = [
        Json::<Doc>::new(doc).set(o, &a),
        strict.and_then(|strict| strict.set(o, &a)),
    ];
    let read_back: Option<O::Focus> = serde_json::to_vec(&a)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok());
    for written in written {
        let Some(written) = written else {
            checks
                .disagreements
                .push(format!("{o:?} := {a:?}: refused in {text}"));
            continue;
        };
        let tail = doc.len() - end;
        let kept = written.len() >= start + tail
            && written[..start] == doc[..start]
            && written[written.len() - tail..] == doc[end..];
        let focus = &written[start..written.len().saturating_sub(tail).max(start)];
        let new = serde_json::to_vec(&a).ok();
        if !kept || new.as_deref() != Some(focus) {
            checks.disagreements.push(format!(
                "{o:?} := {a:?} in {text}: wrote {}",
                String::from_utf8_lossy(&written)
            ));
        }
        let read = Json::<Doc>::new(&written).read(o);
        if read_back.is_some() && read != read_back {
            checks.disagreements.push(format!(
                "{o:?} := {a:?} in {text}: reads back {read:?}, not {read_back:?}"
            ));
        }
    }
}

#[test]
fn modify_that_changes_a_length_a_lot_keeps_the_bytes_around_the_focus() {
    let mut checks = Checks::default();
    let long = grow("x".repeat(300));
    for doc in docs().iter().map(|doc| airy(doc.as_bytes())) {
        let doc = &doc[..];
        let s = Doc::leaves.then(Leaves::s);
        outside_unchanged(doc, s, long.clone(), &mut checks);
        outside_unchanged(doc, s, String::new(), &mut checks);
        let name = Doc::ext.then(Ext::a).then(Inner::name);
        outside_unchanged(doc, name, long.clone(), &mut checks);
        let m = Doc::leaves.then(Leaves::m).then(key("ab"));
        outside_unchanged(doc, m, long.clone(), &mut checks);
        let cell = Doc::grid.then(at(1)).then(at(1));
        outside_unchanged(doc, cell, f64::MIN_POSITIVE, &mut checks);
        outside_unchanged(doc, cell, f64::NAN, &mut checks);
        let ints = Doc::ints.then(at(3)).then(Int::c_s);
        outside_unchanged(doc, ints, long.clone(), &mut checks);
        let l = Doc::leaves.then(Leaves::l).then(at(0));
        outside_unchanged(doc, l, f32::MAX, &mut checks);
        let text = &String::from_utf8_lossy(doc).into_owned();
        let group = "airy";
        probe_modify(group, text, s, grow, &mut checks);
        probe_modify(group, text, s, shrink, &mut checks);
        probe_modify(group, text, name, grow, &mut checks);
        probe_modify(group, text, m, grow, &mut checks);
        probe_modify(group, text, ints, grow, &mut checks);
        let names = Doc::ints.then(each()).then(Int::a).then(Inner::name);
        probe_modify_all(group, text, names, grow, &mut checks);
        let strings = Doc::list.then(each()).then(Ext::c_s);
        probe_modify_all(group, text, strings, grow, &mut checks);
        let tags = Doc::inner.then(Inner::tags).then(each());
        probe_modify_all(group, text, tags, grow, &mut checks);
        probe_modify_all(group, text, tags, shrink, &mut checks);
        let values = Doc::leaves.then(Leaves::m).then(each());
        probe_modify_all(group, text, values, grow, &mut checks);
        probe("airy", text, s, &mut checks);
    }
    checks.finish();
}

// ---------------------------------------------------------------------------
// The disagreement.

/// The payload of `Int::D`: serde decodes it from no members at all.
const TAGGED_OPTIONS: &str = r#"{"ints":[{"t":"O","n\"a/me":"o"},{"s":"c","t":"D"},{"t":"D"}]}"#;

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Tagged {
    ints: Vec<Int>,
}

#[test]
fn an_internally_tagged_option_payload_set_to_none_refuses() {
    let bytes = TAGGED_OPTIONS.as_bytes();
    let json = Json::<Tagged>::new(bytes);
    let d = Tagged::ints.then(at(1)).then(Int::d);
    // serde reads the tag alone as `Some` of a default payload, and writes
    // neither `None` nor `Some` here.
    let alone: Tagged = serde_json::from_str(r#"{"ints":[{"t":"D"}]}"#).unwrap();
    assert_eq!(alone.ints, [Int::D(Some(Conf::default()))]);
    assert!(serde_json::to_vec(&Int::D(None)).is_err());
    // It was written as the tag alone, which reads back as `Some`.
    assert_eq!(json.set(d, &None), None);
    assert_eq!(json.modify(d, |_| None), None);
    let duplicates = Duplicates::new();
    let strict = Strict::<Tagged>::validated(bytes, &duplicates).unwrap();
    assert_eq!(strict.set(d, &None), None);
    let every = Tagged::ints.then(each()).then(Int::d);
    assert_eq!(json.set_all(every, &None), None);
    assert_eq!(json.modify_all(every, |_| None), None);
    // `Some` is written as its members beside the tag, which serde reads
    // back as it was set.
    let one = Conf {
        a: 1,
        ..Conf::default()
    };
    let written = json.set(d, &Some(one.clone())).unwrap();
    let read: Tagged = serde_json::from_slice(&written).unwrap();
    assert_eq!(read.ints[1], Int::D(Some(one)));
    // A unit variant of another enum and a unit struct are still written
    // as serde writes them.
    let e = Tagged::ints.then(at(2)).then(Int::e);
    assert_eq!(json.set(e, &Unit::Only), None, "another variant");
    let mut checks = Checks::default();
    for doc in [
        TAGGED_OPTIONS,
        r#"{"ints":[{"t":"E","Only":null},{"t":"S"}]}"#,
    ] {
        let o = Tagged::ints.then(at(0)).then(Int::o);
        probe_set("option", doc, o, None, &mut checks);
        probe_set("option", doc, o, Some(inner()), &mut checks);
        probe_set("option", doc, d, None, &mut checks);
        probe_set("option", doc, d, Some(Conf::default()), &mut checks);
        probe_modify("option", doc, d, |_| None, &mut checks);
        let all = Tagged::ints.then(each()).then(Int::d);
        probe_set_all("option", doc, all, None, &mut checks);
        probe_modify_all(
            "option",
            doc,
            all,
            |d| d.map(|d| Conf { a: 0, ..d }),
            &mut checks,
        );
        let e = Tagged::ints.then(at(0)).then(Int::e);
        probe_set("unit", doc, e, Unit::Only, &mut checks);
        let s = Tagged::ints.then(at(1)).then(Int::s);
        probe_set("unit", doc, s, Nothing, &mut checks);
        // Inside `Some`: a container default's fields, read from serde's
        // buffer, missing or there.
        let conf = Tagged::ints.then(at(1)).then(Int::d).then(some());
        probe_modify("some", doc, conf.then(Conf::a), |a| a * 2, &mut checks);
        probe_modify("some", doc, conf.then(Conf::s), grow, &mut checks);
        // (Not `o` set to `None`: serde skips it, and reads it back as the
        // default's `Some(3)`; but it writes no `Some` here, so the oracle
        // takes the value as it was set.)
        probe_set("some", doc, conf.then(Conf::o), Some(9), &mut checks);
        probe_set(
            "some",
            doc,
            conf.then(Conf::g),
            f32::MIN_POSITIVE,
            &mut checks,
        );
    }
    checks.finish();
}

// ---------------------------------------------------------------------------
// The property: random values, rewritten, written into.

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Small {
    g: f32,
    f: f64,
    s: String,
    c: char,
    l: Vec<f32>,
    m: BTreeMap<String, String>,
    ext: Vec<Ext>,
    int: Vec<Int>,
    adj: Vec<Adj>,
}

mod model {
    use super::*;

    pub fn text() -> impl Strategy<Value = String> {
        proptest::string::string_regex("[a\"\\\\/é\u{0}\u{1f}\u{7f}\u{2028}😀tcn]{0,5}").unwrap()
    }

    /// Whether serde_json reads its writing of `x` back as `x`. Its float
    /// parsing is not always correctly rounded, so a float may come back a
    /// unit in the last place away: then serde_json's writing of a value
    /// with any focus set reads that float otherwise than the document
    /// does, and the oracle would blame the byte write for bytes it did
    /// not touch.
    fn reads_back<T: Serialize + serde::de::DeserializeOwned + PartialEq>(x: &T) -> bool {
        let text = serde_json::to_string(x).unwrap();
        serde_json::from_str::<T>(&text).is_ok_and(|back| back == *x)
    }

    /// Finite floats that serde_json reads back (see [`reads_back`]):
    /// serde writes the others as `null`, which a document of the model
    /// cannot hold.
    pub fn f32s() -> impl Strategy<Value = f32> {
        use proptest::num::f32::*;
        (NORMAL | SUBNORMAL | ZERO | NEGATIVE | POSITIVE).prop_filter("read back", reads_back)
    }

    pub fn f64s() -> impl Strategy<Value = f64> {
        use proptest::num::f64::*;
        (NORMAL | SUBNORMAL | ZERO | NEGATIVE | POSITIVE).prop_filter("read back", reads_back)
    }

    /// Any float, `NaN` and the infinities included: the values written.
    pub fn any_f32() -> impl Strategy<Value = f32> {
        use proptest::num::f32::*;
        NORMAL | SUBNORMAL | ZERO | NEGATIVE | POSITIVE | INFINITE | QUIET_NAN
    }

    pub fn inner() -> impl Strategy<Value = Inner> {
        (
            proptest::option::of(text()),
            text(),
            proptest::collection::vec(text(), 0..2),
            any::<u8>(),
        )
            .prop_map(|(maybe, name, tags, seven)| Inner {
                maybe,
                name,
                tags,
                seven,
            })
    }

    pub fn ext() -> impl Strategy<Value = Ext> {
        prop_oneof![
            inner().prop_map(Ext::A),
            f32s().prop_map(Ext::B),
            (f64s(), text()).prop_map(|(x, s)| Ext::C { x, s }),
            (any::<u8>(), any::<char>()).prop_map(|(n, c)| Ext::T(n, c)),
            Just(Ext::U),
        ]
    }

    pub fn int() -> impl Strategy<Value = Int> {
        prop_oneof![
            inner().prop_map(Int::A),
            (f32s(), text()).prop_map(|(x, s)| Int::C { x, s }),
            Just(Int::U),
            proptest::collection::btree_map(text(), f64s(), 0..3)
                .prop_filter("no tag key", |m| !m.contains_key("t"))
                .prop_map(Int::M),
            Just(Int::E(Unit::Only)),
            Just(Int::S(Nothing)),
        ]
    }

    pub fn adj() -> impl Strategy<Value = Adj> {
        prop_oneof![
            inner().prop_map(Adj::A),
            f32s().prop_map(Adj::B),
            (f64s(), text()).prop_map(|(x, s)| Adj::C { x, s }),
            Just(Adj::U),
        ]
    }

    pub fn small() -> impl Strategy<Value = Small> {
        (
            (f32s(), f64s(), text(), any::<char>()),
            (
                proptest::collection::vec(f32s(), 0..3),
                proptest::collection::btree_map(text(), text(), 0..3),
            ),
            (
                proptest::collection::vec(ext(), 0..3),
                proptest::collection::vec(int(), 0..3),
                proptest::collection::vec(adj(), 0..3),
            ),
        )
            .prop_map(|((g, f, s, c), (l, m), (ext, int, adj))| Small {
                g,
                f,
                s,
                c,
                l,
                m,
                ext,
                int,
                adj,
            })
    }
}

/// Every write of the property, of `g`, `f` and `text` (and `text` grown),
/// into `doc`.
fn probe_small(group: &str, doc: &str, g: f32, f: f64, text: &str, checks: &mut Checks) {
    let s = || text.to_owned();
    probe_set(group, doc, Small::g, g, checks);
    probe_set(group, doc, Small::f, f, checks);
    probe_set(group, doc, Small::s, s(), checks);
    probe_modify(group, doc, Small::s, grow, checks);
    probe_set(group, doc, Small::l.then(at(1)), g, checks);
    probe_set_all(group, doc, Small::l.then(each()), g, checks);
    probe_set_all(group, doc, Small::m.then(each()), s(), checks);
    probe_modify_all(group, doc, Small::m.then(each()), grow, checks);
    probe_set(group, doc, Small::m.then(key(text)), s(), checks);
    let ext = Small::ext.then(each());
    probe_set_all(group, doc, ext.then(Ext::b), g, checks);
    probe_set_all(group, doc, ext.then(Ext::c_x), f, checks);
    probe_modify_all(group, doc, ext.then(Ext::c_s), grow, checks);
    probe_modify_all(group, doc, ext.then(Ext::a).then(Inner::name), grow, checks);
    probe_set_all(
        group,
        doc,
        ext.then(Ext::a).then(Inner::maybe),
        None,
        checks,
    );
    probe_set(group, doc, Small::ext.then(at(0)), Ext::B(g), checks);
    let int = Small::int.then(each());
    probe_set_all(group, doc, int.then(Int::c_x), g, checks);
    probe_modify_all(group, doc, int.then(Int::c_s), grow, checks);
    probe_set_all(group, doc, int.then(Int::m).then(each()), f, checks);
    probe_set_all(
        group,
        doc,
        int.then(Int::a).then(Inner::tags),
        vec![],
        checks,
    );
    probe_set(
        group,
        doc,
        Small::int.then(at(0)).then(Int::a),
        inner_with(text),
        checks,
    );
    let adj = Small::adj.then(each());
    probe_set_all(group, doc, adj.then(Adj::b), g, checks);
    probe_set_all(group, doc, adj.then(Adj::c_x), f, checks);
    probe_modify_all(group, doc, adj.then(Adj::a).then(Inner::name), grow, checks);
    probe_set(group, doc, Small::adj.then(at(0)), Adj::B(g), checks);
}

/// [`inner`] with `maybe` set to `text`.
fn inner_with(text: &str) -> Inner {
    Inner {
        maybe: Some(text.to_owned()),
        ..inner()
    }
}

fn hunt_cases() -> ProptestConfig {
    ProptestConfig {
        cases: support::scaled(32),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(hunt_cases())]

    #[test]
    fn rewritten_writings_take_special_leaves_as_serde_does(
        model in model::small(),
        choices in proptest::collection::vec(any::<u8>(), 1..48),
        g in model::any_f32(),
        f in proptest::num::f64::ANY,
        text in model::text(),
    ) {
        let value = serde_json::to_value(&model).unwrap();
        let mut checks = Checks::default();
        let mut doc = String::new();
        Rewrite::new(choices.clone(), true).value(&value, &[], &mut doc);
        let whole: Small = serde_json::from_str(&doc)
            .map_err(|error| TestCaseError::fail(format!("{error}: {doc}")))?;
        prop_assert_eq!(&whole, &model);
        probe_small("rewritten", &doc, g, f, &text, &mut checks);
        prop_assert_eq!(checks.refused, 0);
        // Decoys inside a map are members of it: serde may refuse those.
        let mut decoyed = String::new();
        let decoys = ["t", "c", "n\"a/me", "A"];
        Rewrite::new(choices, true).value(&value, &decoys, &mut decoyed);
        probe_small("decoyed", &decoyed, g, f, &text, &mut checks);
        prop_assert!(checks.disagreements.is_empty(), "{}", checks.disagreements.join("\n"));
    }
}
