//! A hunt for models the derive accepts whose byte reads or writes disagree
//! with serde_json on documents it accepts: combinations the other fidelity
//! suites leave out. Raw identifiers; tags and keys written with escapes
//! (quotes, backslashes, `\/`, surrogate pairs, an empty key); a container's
//! `default` filling a skipped field; `Option<Option<T>>`; leaves at the edges
//! of their types, also in serde's buffer; `other` variants under
//! `rename_all`, plain and flattened; an alias that shadows a later variant;
//! what a flattened struct leaves to the next (skipped and serialize-only
//! renamed fields); tuple structs and variants with skipped and defaulted
//! fields; byte writes on writings serde reads but does not write (aliases,
//! escaped keys, content before its tag, a missing member). None of them
//! disagreed when this suite was written: it pins them down.
//!
//! Each check reads the path from the document as written and with
//! whitespace around every token, trusting and strict; where serde_json
//! accepts the document, both must equal its decode previewed with the path.
//! A document serde_json rejects is passed over (the reader may read a
//! well-formed member of it: see `SERDE_ATTRIBUTES.md`), but each test
//! checks that most of its documents were accepted. A write through a path
//! must decode as `decode -> set -> encode` does, or refuse.
//!
//! The property at the end rewrites serde_json's writing of a random value
//! of a model of such combinations (escapes, key order, decoy members, a
//! repeated map key, whitespace) and checks every path on it.

mod support;

use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;

use optics_core::json::{Duplicates, JsonDecode, JsonOptic, JsonWrite, Strict};
use optics_core::optic::StartsAt;
use optics_core::prelude::*;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde::{Deserialize, Serialize};
use support::probe::{probe, probe_set, Checks};
use support::rewrite::Rewrite;

// ---------------------------------------------------------------------------
// Raw identifiers: serde reads them without `r#`.
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Raw {
    r#type: u8,
    r#match: u8,
}
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
struct RawCamel {
    r#type_name: u8,
}
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
enum RawEnum {
    r#Match(u8),
}

// Tags of every encoding, written with escapes and in every form serde accepts.
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
enum Ext {
    Ab(u8),
    Unit,
    Tup(u8, u8),
    St { x: u8, y: Option<u8> },
}
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t")]
enum Int {
    Ab { x: u8 },
    Unit,
    New(Inner),
}
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Inner {
    x: u8,
    #[serde(default)]
    y: Option<u8>,
}
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t", content = "c")]
enum Adj {
    Ab(u8),
    Unit,
    Opt(Option<u8>),
    Tup(u8, u8),
    St { x: u8 },
}

// A container's `default` fills a skipped field and a missing `Option`.
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(default)]
struct CDef {
    #[serde(skip)]
    a: u8,
    b: Option<u8>,
    c: u8,
}
impl Default for CDef {
    fn default() -> Self {
        CDef {
            a: 7,
            b: Some(8),
            c: 9,
        }
    }
}

// `Option<Option<T>>`: missing, `null`, a value.
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct OO {
    a: Option<Option<u8>>,
    #[serde(default)]
    b: Option<Option<u8>>,
}

// A transparent struct beside a skipped field.
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(transparent)]
struct Tr {
    #[serde(skip)]
    a: u8,
    b: Vec<u8>,
}

// Leaves at the edges of their types, straight and in serde's buffer.
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Leaves {
    c: Option<char>,
    u: Option<u128>,
    i: Option<i128>,
    f: Option<f32>,
    d: Option<f64>,
    s: Option<String>,
    n: Option<i8>,
}
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t")]
enum IntLeaves {
    L(Leaves),
}

// Map keys spelled in several ways.
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Maps {
    #[serde(default)]
    u: HashMap<u32, u8>,
    #[serde(default)]
    i: BTreeMap<i64, u8>,
    #[serde(default)]
    b: HashMap<bool, u8>,
    #[serde(default)]
    c: HashMap<char, u8>,
    #[serde(default)]
    s: HashMap<String, u8>,
}

// `other` under `rename_all`.
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "snake_case")]
enum WithOther {
    FirstOne,
    #[serde(other)]
    Unknown,
}
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t", rename_all = "kebab-case")]
enum IntOther {
    FirstOne {
        x: u8,
    },
    #[serde(other)]
    Unknown,
}

// A variant's `rename_all` before the enum's `rename_all_fields`.
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "UPPERCASE", rename_all_fields = "camelCase")]
enum Prec {
    #[serde(rename_all = "kebab-case")]
    OneA {
        some_field: u8,
    },
    TwoB {
        some_field: u8,
    },
}

// Unit and empty structs, and `()`, as fields.
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct UnitS;
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct EmptyS {}
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct HoldsUnits {
    u: UnitS,
    e: EmptyS,
    t: (),
}

// Flattened fields beside skipped outer ones; keys and tags that need
// escapes; flattened enums; internally tagged newtype payloads.
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct OuterSkip {
    #[serde(skip)]
    a: u8,
    #[serde(flatten)]
    inner: FlatA,
}
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct FlatA {
    a: u8,
    #[serde(alias = "bb", rename = "b2")]
    b: Option<u8>,
}
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct OuterRenamedSer {
    #[serde(rename(serialize = "a"))]
    x: u8,
    #[serde(flatten)]
    inner: FlatA,
}
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct OddKeys {
    #[serde(rename = "")]
    empty: Option<u8>,
    #[serde(rename = "a\"b")]
    quote: Option<u8>,
    #[serde(rename = "a\\b")]
    backslash: Option<u8>,
    #[serde(rename = "a/b")]
    slash: Option<u8>,
    #[serde(rename = "\n\t")]
    control: Option<u8>,
    #[serde(rename = "\u{1F600}")]
    emoji: Option<u8>,
    #[serde(rename = "\u{0}")]
    nul: Option<u8>,
    #[serde(rename = "é")]
    e_acute: Option<u8>,
}
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "ty\"pe")]
enum OddTag {
    #[serde(rename = "a\\b")]
    A { x: u8 },
    #[serde(rename = "\u{1F600}")]
    B,
}
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t", content = "\u{e9}")]
enum OddAdj {
    #[serde(rename = "é")]
    A(u8),
}
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct FlatEnumHolder {
    z: u8,
    #[serde(flatten)]
    e: Int,
}
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct FlatExtHolder {
    z: u8,
    #[serde(flatten)]
    e: Ext,
}
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct FlatAdjHolder {
    z: u8,
    #[serde(flatten)]
    e: Adj,
}
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t")]
enum IntNewtypes {
    Map(HashMap<String, u8>),
    Wrap(WrapInner),
    Ext(Ext),
    Opt(Option<Inner>),
    Unit(()),
    US(UnitS),
    Boxed(Box<Inner>),
}
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct WrapInner(Inner);

// Writes on writings serde reads but does not write.
#[derive(Optics, Deserialize, Serialize, Debug, Clone, PartialEq)]
struct W {
    #[serde(alias = "aa")]
    a: u8,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    b: Option<u8>,
    c: Option<u8>,
    #[serde(default)]
    m: BTreeMap<String, u8>,
    #[serde(flatten)]
    f: WF,
    #[serde(default)]
    e: WE,
    #[serde(default)]
    oo: Option<Option<u8>>,
}
#[derive(Optics, Deserialize, Serialize, Debug, Clone, PartialEq)]
struct WF {
    #[serde(default)]
    x: Option<u8>,
    #[serde(rename = "why", default)]
    y: u8,
}
#[derive(Optics, Deserialize, Serialize, Debug, Clone, PartialEq, Default)]
#[serde(tag = "t", content = "c")]
enum WE {
    #[default]
    U,
    O(Option<u8>),
    N(u8),
    S {
        s: u8,
    },
}
#[derive(Optics, Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(tag = "t")]
enum WI {
    S {
        s: u8,
        #[serde(default)]
        o: Option<u8>,
    },
    N(WF),
    U,
}
#[derive(Optics, Deserialize, Serialize, Debug, Clone, PartialEq)]
enum WX {
    S {
        s: u8,
        #[serde(default)]
        o: Option<u8>,
    },
    N(WF),
    U,
    T(u8, u8),
}
#[derive(Optics, Deserialize, Serialize, Debug, Clone, PartialEq)]
struct WHolder {
    i: WI,
    x: WX,
}

// What a flattened struct takes, and leaves to the next; `other` and
// aliases of externally tagged variants.
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct TakeSkip {
    #[serde(flatten)]
    a: SkipsY,
    #[serde(flatten)]
    b: HasY,
}
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct SkipsY {
    #[serde(skip)]
    y: u8,
    x: u8,
}
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct HasY {
    #[serde(default)]
    y: Option<u8>,
}
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct TakeSer {
    #[serde(flatten)]
    a: SerOnlyY,
    #[serde(flatten)]
    b: HasY,
}
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct SerOnlyY {
    #[serde(rename(serialize = "y"))]
    x: u8,
}
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all(serialize = "UPPERCASE"))]
struct SerOnlyAll {
    y2: u8,
}
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct TakeSerAll {
    #[serde(flatten)]
    a: SerOnlyAll,
    #[serde(flatten)]
    b: HasY2,
}
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct HasY2 {
    #[serde(default, rename = "Y2")]
    y: Option<u8>,
}
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
enum ExtOther {
    Ab(u8),
    #[serde(other)]
    Other,
}
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct FlatExtOther {
    z: u8,
    #[serde(flatten)]
    e: ExtOther,
}
// serde's derive gives an alias's tag to the first variant that has it; the
// later variant's match arm is unreachable, which rustc says.
#[allow(unreachable_patterns)]
mod shadowed {
    use optics_core::prelude::*;
    use serde::Deserialize;

    #[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
    pub enum AliasFirst {
        #[serde(alias = "B")]
        A(u8),
        B(u8),
    }
    #[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
    #[serde(tag = "t")]
    pub enum AliasFirstInt {
        #[serde(alias = "B")]
        A {
            x: u8,
        },
        B {
            x: u8,
        },
    }
    #[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
    #[serde(tag = "t", content = "c")]
    pub enum AliasFirstAdj {
        #[serde(alias = "B")]
        A(u8),
        B(u8),
    }
}
use shadowed::{AliasFirst, AliasFirstAdj, AliasFirstInt};
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct FlatAliasFirst {
    #[serde(flatten)]
    e: AliasFirst,
}
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct SkippedOuter {
    #[serde(skip_deserializing)]
    t: u8,
    #[serde(flatten)]
    e: Int,
}

// Tuple structs and variants with skipped and defaulted fields.
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
enum TupV {
    V(u8, #[serde(skip)] u8, u8),
    D(u8, #[serde(default)] u8),
    S(#[serde(skip)] u8, u8, u8),
}
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t", content = "c")]
enum TupAdj {
    V(u8, #[serde(skip)] u8, u8),
    D(u8, #[serde(default)] u8),
}
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct TupS(u8, #[serde(default)] u8, #[serde(skip)] u8);
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct TupS2(#[serde(skip)] u8, u8, #[serde(default = "seven")] u8);
fn seven() -> u8 {
    7
}
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t")]
enum IntTup {
    A(TupS),
    B(TupS2),
}

#[test]
fn raw_identifiers_are_read_under_serde_s_names() {
    let mut c = Checks::default();
    let b = &mut c;
    probe("A", r#"{"type":1,"match":2}"#, Raw::r#type, b);
    probe("A", r#"{"type":1,"match":2}"#, Raw::r#match, b);
    probe("A", r#"{"typeName":1}"#, RawCamel::r#type_name, b);
    probe("A", r#"{"Match":1}"#, RawEnum::r#match, b);
    c.finish();
}

#[test]
fn tags_written_with_escapes_and_in_every_form_serde_accepts() {
    let mut c = Checks::default();
    let b = &mut c;

    probe("B", r#"{"A\u0062":1}"#, Ext::ab, b);
    probe("B", r#""\u0055nit""#, Ext::unit, b);
    probe("B", r#"{"Unit":null}"#, Ext::unit, b);
    probe("B", r#"{"Tup":[1,2]}"#, Ext::tup_1, b);
    probe("B", r#"{"St":[1,2]}"#, Ext::st_y, b);
    probe("B", r#"{"St":[1]}"#, Ext::st_y, b);
    probe("B", r#"{"St":{"x":1}}"#, Ext::st_y, b);
    probe("B", r#"{"\u0074":"A\u0062","x":3}"#, Int::ab_x, b);
    probe("B", r#"{"x":3,"t":"Ab"}"#, Int::ab_x, b);
    probe("B", r#"{"t":"Unit","x":3}"#, Int::unit, b);
    probe("B", r#"{"t":"New","x":3}"#, Int::new.then(Inner::y), b);
    probe(
        "B",
        r#"{"t":"New","x":3,"y":null}"#,
        Int::new.then(Inner::y),
        b,
    );
    probe("B", r#"["New",3]"#, Int::new.then(Inner::x), b);
    probe("B", r#"["Ab",3]"#, Int::ab_x, b);
    probe("B", r#"{"\u0074":"A\u0062","\u0063":3}"#, Adj::ab, b);
    probe("B", r#"{"c":3,"t":"Ab"}"#, Adj::ab, b);
    probe("B", r#"{"t":"Unit","c":null}"#, Adj::unit, b);
    probe("B", r#"{"c":null,"t":"Unit"}"#, Adj::unit, b);
    probe("B", r#"{"t":"Unit"}"#, Adj::unit, b);
    probe("B", r#"{"t":"Opt"}"#, Adj::opt, b);
    probe("B", r#"{"t":"Opt","c":null}"#, Adj::opt, b);
    probe("B", r#"{"c":null,"t":"Opt"}"#, Adj::opt, b);
    probe("B", r#"{"c":7,"t":"Opt"}"#, Adj::opt, b);
    probe("B", r#"{"c":[1,2],"t":"Tup"}"#, Adj::tup_1, b);
    probe("B", r#"{"c":{"x":1},"t":"St"}"#, Adj::st_x, b);
    probe("B", r#"{"c":[1],"t":"St"}"#, Adj::st_x, b);
    probe("B", r#"{"t":"St","c":[1]}"#, Adj::st_x, b);
    probe("B", r#"["St",{"x":1}]"#, Adj::st_x, b);
    probe("B", r#"{"t":"Ab","c":1,"z":2}"#, Adj::ab, b);
    probe("B", r#"{"z":[{"t":1}],"c":1,"t":"Ab"}"#, Adj::ab, b);
    c.finish();
}

#[test]
fn a_container_default_fills_skipped_and_missing_fields() {
    let mut c = Checks::default();
    let b = &mut c;

    probe("C", r#"{}"#, CDef::a, b);
    probe("C", r#"{}"#, CDef::b, b);
    probe("C", r#"{"b":null}"#, CDef::b, b);
    probe("C", r#"{}"#, CDef::c, b);
    probe("C", r#"[]"#, CDef::b, b);
    probe("C", r#"[1]"#, CDef::c, b);
    probe("C", r#"[1,2]"#, CDef::c, b);
    c.finish();
}

#[test]
fn an_option_of_an_option_missing_null_or_set() {
    let mut c = Checks::default();
    let b = &mut c;

    for doc in [r#"{}"#, r#"{"a":null,"b":null}"#, r#"{"a":5,"b":6}"#] {
        probe("D", doc, OO::a, b);
        probe("D", doc, OO::b, b);
        probe("D", doc, OO::a.then(some()), b);
        probe("D", doc, OO::b.then(some()).then(some()), b);
    }
    c.finish();
}

#[test]
fn a_transparent_struct_with_a_skipped_field() {
    let mut c = Checks::default();
    let b = &mut c;

    probe("E", r#"[1,2]"#, Tr::a, b);
    probe("E", r#"[1,2]"#, Tr::b.then(at(1)), b);
    c.finish();
}

#[test]
fn leaves_at_the_edges_of_their_types_direct_and_buffered() {
    let mut c = Checks::default();
    let b = &mut c;

    for doc in [
        r#"{"c":"\u0041"}"#,
        r#"{"c":"\ud83d\ude00"}"#,
        r#"{"c":"ab"}"#,
        r#"{"u":340282366920938463463374607431768211455}"#,
        r#"{"u":1e3}"#,
        r#"{"u":-0}"#,
        r#"{"i":-170141183460469231731687303715884105728}"#,
        r#"{"i":-0}"#,
        r#"{"f":1e-400,"d":1e-400}"#,
        r#"{"f":-0.0,"d":-0}"#,
        r#"{"f":3.4028236e38,"d":18446744073709551616}"#,
        r#"{"f":16777217,"d":-9223372036854775809}"#,
        r#"{"f":1E+2,"d":1.7976931348623157e308}"#,
        r#"{"f":0.1,"d":123456789012345678901234567890e-10}"#,
        r#"{"s":"\ud83d\ude00\n\u0000"}"#,
        r#"{"n":-128}"#,
        r#"{"n":-129}"#,
        r#"{"n":-0}"#,
        r#"{"n":1.0}"#,
    ] {
        probe("F", doc, Leaves::c, b);
        probe("F", doc, Leaves::u, b);
        probe("F", doc, Leaves::i, b);
        probe("F", doc, Leaves::f, b);
        probe("F", doc, Leaves::d, b);
        probe("F", doc, Leaves::s, b);
        probe("F", doc, Leaves::n, b);
        let tagged = format!(r#"{{"t":"L",{}"#, &doc[1..]);
        probe("F", &tagged, IntLeaves::l.then(Leaves::c), b);
        probe("F", &tagged, IntLeaves::l.then(Leaves::f), b);
        probe("F", &tagged, IntLeaves::l.then(Leaves::d), b);
        probe("F", &tagged, IntLeaves::l.then(Leaves::s), b);
        probe("F", &tagged, IntLeaves::l.then(Leaves::n), b);
        probe("F", &tagged, IntLeaves::l.then(Leaves::u), b);
    }
    c.finish();
}

#[test]
fn map_keys_spelled_in_several_ways() {
    let mut c = Checks::default();
    let b = &mut c;

    for doc in [
        r#"{"u":{"1":1,"01":2}}"#,
        r#"{"u":{"1":1,"2":2,"1":3}}"#,
        r#"{"i":{"-1":1,"-0":2}}"#,
        r#"{"i":{"-1":1,"0":2}}"#,
        r#"{"b":{"true":1,"false":2}}"#,
        r#"{"c":{"a":1,"\u0061":2}}"#,
        r#"{"s":{"a":1,"\u0061":2}}"#,
        r#"{"s":{"\ud83d\ude00":1}}"#,
    ] {
        probe("H", doc, Maps::u.then(key(&1)), b);
        probe("H", doc, Maps::i.then(key(&0)), b);
        probe("H", doc, Maps::i.then(key(&-1)), b);
        probe("H", doc, Maps::b.then(key(&true)), b);
        probe("H", doc, Maps::c.then(key(&'a')), b);
        probe("H", doc, Maps::s.then(key("a")), b);
        probe("H", doc, Maps::s.then(key("😀")), b);
    }
    c.finish();
}

#[test]
fn other_variants_under_rename_all() {
    let mut c = Checks::default();
    let b = &mut c;

    probe("N", r#""first_one""#, WithOther::first_one, b);
    probe("N", r#""FirstOne""#, WithOther::unknown, b);
    probe("N", r#""FirstOne""#, WithOther::first_one, b);
    probe("N", r#"{"t":"first-one","x":1}"#, IntOther::first_one_x, b);
    probe("N", r#"{"t":"FirstOne","x":1}"#, IntOther::unknown, b);
    probe("N", r#"{"t":"zzz"}"#, IntOther::unknown, b);
    c.finish();
}

#[test]
fn a_variant_s_rename_all_overrides_rename_all_fields() {
    let mut c = Checks::default();
    let b = &mut c;

    probe(
        "O",
        r#"{"ONEA":{"some-field":1}}"#,
        Prec::one_a_some_field,
        b,
    );
    probe(
        "O",
        r#"{"TWOB":{"someField":1}}"#,
        Prec::two_b_some_field,
        b,
    );
    c.finish();
}

#[test]
fn unit_and_empty_structs_as_fields() {
    let mut c = Checks::default();
    let b = &mut c;

    probe("P", r#"{"u":null,"e":{},"t":null}"#, HoldsUnits::u, b);
    probe("P", r#"{"u":null,"e":[],"t":null}"#, HoldsUnits::e, b);
    probe("P", r#"{"u":null,"e":[],"t":null}"#, HoldsUnits::t, b);
    c.finish();
}

#[test]
fn a_flattened_field_sees_keys_of_skipped_or_serialize_renamed_outer_fields() {
    let mut c = Checks::default();
    let b = &mut c;

    probe("Q", r#"{"a":5,"b2":6}"#, OuterSkip::a, b);
    probe("Q", r#"{"a":5,"b2":6}"#, OuterSkip::inner.then(FlatA::a), b);
    probe("Q", r#"{"a":5,"bb":6}"#, OuterSkip::inner.then(FlatA::b), b);
    probe(
        "Q",
        r#"{"a":5,"x":1}"#,
        OuterRenamedSer::inner.then(FlatA::a),
        b,
    );
    probe("Q", r#"{"a":5,"x":1}"#, OuterRenamedSer::x, b);
    c.finish();
}

#[test]
fn keys_and_tags_that_need_escapes() {
    let mut c = Checks::default();
    let b = &mut c;
    for doc in [
        r#"{"":1,"a\"b":2,"a\\b":3,"a/b":4,"\n\t":5,"\ud83d\ude00":6,"\u0000":7,"\u00e9":8}"#,
        r#"{"\u0022":9,"a\u0022b":2,"a\u005cb":3,"a\/b":4,"\u000a\u0009":5,"😀":6,"\u0000":7,"é":8}"#,
        r#"{"e\u0301":1,"\u00E9":8,"a\u005Cb":3}"#,
    ] {
        probe("R", doc, OddKeys::empty, b);
        probe("R", doc, OddKeys::quote, b);
        probe("R", doc, OddKeys::backslash, b);
        probe("R", doc, OddKeys::slash, b);
        probe("R", doc, OddKeys::control, b);
        probe("R", doc, OddKeys::emoji, b);
        probe("R", doc, OddKeys::nul, b);
        probe("R", doc, OddKeys::e_acute, b);
    }
    probe("R", r#"{"ty\"pe":"a\\b","x":1}"#, OddTag::a_x, b);
    probe("R", r#"{"x":1,"ty\u0022pe":"a\u005cb"}"#, OddTag::a_x, b);
    probe("R", r#"{"ty\"pe":"\ud83d\ude00"}"#, OddTag::b, b);
    probe("R", r#"["\ud83d\ude00"]"#, OddTag::b, b);
    probe("R", r#"["a\\b",1]"#, OddTag::a_x, b);
    probe("R", r#"{"\u00e9":1,"t":"\u00e9"}"#, OddAdj::a, b);
    probe("R", r#"{"t":"é","é":1}"#, OddAdj::a, b);
    c.finish();
}

#[test]
fn flattened_enums_of_every_encoding() {
    let mut c = Checks::default();
    let b = &mut c;

    probe(
        "S",
        r#"{"z":1,"t":"Ab","x":2}"#,
        FlatEnumHolder::e.then(Int::ab_x),
        b,
    );
    probe(
        "S",
        r#"{"t":"New","z":1,"x":2}"#,
        FlatEnumHolder::e.then(Int::new).then(Inner::x),
        b,
    );
    probe(
        "S",
        r#"{"t":"Unit","z":1}"#,
        FlatEnumHolder::e.then(Int::unit),
        b,
    );
    probe("S", r#"{"z":1,"Ab":2}"#, FlatExtHolder::e.then(Ext::ab), b);
    probe(
        "S",
        r#"{"Q":0,"Ab":2,"z":1}"#,
        FlatExtHolder::e.then(Ext::ab),
        b,
    );
    probe(
        "S",
        r#"{"Unit":null,"z":1}"#,
        FlatExtHolder::e.then(Ext::unit),
        b,
    );
    probe(
        "S",
        r#"{"Unit":{},"z":1}"#,
        FlatExtHolder::e.then(Ext::unit),
        b,
    );
    probe(
        "S",
        r#"{"Unit":[],"z":1}"#,
        FlatExtHolder::e.then(Ext::unit),
        b,
    );
    probe(
        "S",
        r#"{"St":[1,2],"z":1}"#,
        FlatExtHolder::e.then(Ext::st_y),
        b,
    );
    probe(
        "S",
        r#"{"Tup":[1,2],"z":1}"#,
        FlatExtHolder::e.then(Ext::tup_0),
        b,
    );
    probe(
        "S",
        r#"{"z":1,"t":"Ab","c":2}"#,
        FlatAdjHolder::e.then(Adj::ab),
        b,
    );
    probe(
        "S",
        r#"{"c":2,"z":1,"t":"Ab"}"#,
        FlatAdjHolder::e.then(Adj::ab),
        b,
    );
    probe(
        "S",
        r#"{"z":1,"t":"Unit"}"#,
        FlatAdjHolder::e.then(Adj::unit),
        b,
    );
    probe(
        "S",
        r#"{"z":1,"t":"Opt"}"#,
        FlatAdjHolder::e.then(Adj::opt),
        b,
    );
    probe(
        "S",
        r#"{"z":1,"t":"Opt","c":null}"#,
        FlatAdjHolder::e.then(Adj::opt),
        b,
    );
    probe(
        "S",
        r#"{"t":"Unit","z":1,"c":{}}"#,
        FlatAdjHolder::e.then(Adj::unit),
        b,
    );
    c.finish();
}

#[test]
fn internally_tagged_newtype_payloads_of_every_kind() {
    let mut c = Checks::default();
    let b = &mut c;

    for doc in [
        r#"{"t":"Map","a":1,"t2":2}"#,
        r#"{"a":1,"t":"Map"}"#,
        r#"{"t":"Wrap","x":1}"#,
        r#"{"t":"Ext","Ab":1}"#,
        r#"{"t":"Ext","Unit":null}"#,
        r#"{"Tup":[1,2],"t":"Ext"}"#,
        r#"{"t":"Opt","x":1}"#,
        r#"{"t":"Opt"}"#,
        r#"{"t":"Unit"}"#,
        r#"{"t":"US"}"#,
        r#"{"t":"Boxed","x":3,"y":4}"#,
        r#"["Wrap",5]"#,
        r#"["Boxed",5,6]"#,
    ] {
        probe("T", doc, IntNewtypes::map.then(key("a")), b);
        probe("T", doc, IntNewtypes::map.then(key("t")), b);
        probe("T", doc, IntNewtypes::wrap, b);
        probe("T", doc, IntNewtypes::ext.then(Ext::ab), b);
        probe("T", doc, IntNewtypes::ext.then(Ext::unit), b);
        probe("T", doc, IntNewtypes::ext.then(Ext::tup_1), b);
        probe("T", doc, IntNewtypes::opt, b);
        probe("T", doc, IntNewtypes::opt.then(some()).then(Inner::x), b);
        probe("T", doc, IntNewtypes::unit, b);
        probe("T", doc, IntNewtypes::us, b);
        probe("T", doc, IntNewtypes::boxed.then(Inner::y), b);
    }
    c.finish();
}

#[test]
fn writes_on_writings_serde_accepts_but_does_not_write() {
    let mut c = Checks::default();
    let b = &mut c;

    for doc in [
        r#"{"aa":1,"c":null,"x":2,"why":3}"#,
        r#"{"\u0061":1,"c":2,"m":{"k":1,"\u006b":2},"e":{"c":5,"t":"N"}}"#,
        r#"{"a":1,"b":7,"c":2,"e":{"t":"O"},"oo":null}"#,
        r#"{"a":1,"c":2,"e":{"O":null}}"#,
        r#"{"a":1,"c":2,"e":{"t":"O","c":null},"oo":5}"#,
        r#"{"a":1,"c":2,"e":{"c":{"s":1},"t":"S"},"y":9}"#,
        r#"{"a":1,"c":2,"e":{"t":"S","c":[4]}}"#,
        r#"{"a":1,"c":2,"e":["S",[4]]}"#,
        r#"{"a":1,"c":2,"e":"U"}"#,
        r#"{"a":1,"c":2,"e":{"t":"U"}}"#,
        r#"{"c":2,"x":9,"a":1,"why":0}"#,
    ] {
        probe_set("W", doc, W::a, 9, b);
        probe_set("W", doc, W::b, Some(9), b);
        probe_set("W", doc, W::b, None, b);
        probe_set("W", doc, W::c, None, b);
        probe_set("W", doc, W::c, Some(3), b);
        probe_set("W", doc, W::m.then(key("k")), 9, b);
        probe_set("W", doc, W::f.then(WF::x), Some(4), b);
        probe_set("W", doc, W::f.then(WF::x), None, b);
        probe_set("W", doc, W::f.then(WF::y), 8, b);
        probe_set("W", doc, W::e, WE::N(3), b);
        probe_set("W", doc, W::e.then(WE::o), Some(4), b);
        probe_set("W", doc, W::e.then(WE::o), None, b);
        probe_set("W", doc, W::e.then(WE::n), 4, b);
        probe_set("W", doc, W::e.then(WE::s_s), 4, b);
        probe_set("W", doc, W::oo, Some(None), b);
        probe_set("W", doc, W::oo, Some(Some(3)), b);
        probe_set("W", doc, W::oo.then(some()), Some(3), b);
        probe_set("W", doc, W::oo.then(some()), None, b);
    }
    for doc in [
        r#"{"i":{"t":"S","s":1},"x":{"S":{"s":1}}}"#,
        r#"{"i":{"s":1,"t":"S"},"x":{"S":[1]}}"#,
        r#"{"i":{"s":1,"t":"S","o":2},"x":{"S":{"o":2,"s":1}}}"#,
        r#"{"i":["S",1],"x":{"T":[1,2]}}"#,
        r#"{"i":{"t":"N","y":4},"x":{"N":{"x":1}}}"#,
        r#"{"i":{"x":3,"t":"N"},"x":{"N":{}}}"#,
        r#"{"i":{"t":"U"},"x":"U"}"#,
        r#"{"i":{"t":"U","s":1},"x":{"U":null}}"#,
        r#"{"i":["U"],"x":{"U":null}}"#,
    ] {
        probe_set("WH", doc, WHolder::i.then(WI::s_s), 9, b);
        probe_set("WH", doc, WHolder::i.then(WI::s_o), Some(9), b);
        probe_set("WH", doc, WHolder::i.then(WI::s_o), None, b);
        probe_set("WH", doc, WHolder::i.then(WI::n).then(WF::x), Some(9), b);
        probe_set("WH", doc, WHolder::i.then(WI::n).then(WF::y), 9, b);
        probe_set("WH", doc, WHolder::i.then(WI::n), WF { x: None, y: 2 }, b);
        probe_set("WH", doc, WHolder::i.then(WI::u), (), b);
        probe_set("WH", doc, WHolder::i, WI::U, b);
        probe_set("WH", doc, WHolder::x.then(WX::s_s), 9, b);
        probe_set("WH", doc, WHolder::x.then(WX::s_o), Some(9), b);
        probe_set("WH", doc, WHolder::x.then(WX::s_o), None, b);
        probe_set("WH", doc, WHolder::x.then(WX::n).then(WF::x), Some(9), b);
        probe_set("WH", doc, WHolder::x.then(WX::n).then(WF::y), 9, b);
        probe_set("WH", doc, WHolder::x.then(WX::u), (), b);
        probe_set("WH", doc, WHolder::x.then(WX::t_1), 7, b);
        probe_set("WH", doc, WHolder::x, WX::U, b);
    }
    c.finish();
}

#[test]
fn what_a_flattened_struct_takes_leaves_the_next() {
    let mut c = Checks::default();
    let b = &mut c;

    probe("U", r#"{"x":1,"y":2}"#, TakeSkip::b.then(HasY::y), b);
    probe("U", r#"{"x":1,"y":2}"#, TakeSkip::a.then(SkipsY::y), b);
    probe("U", r#"{"x":1,"y":2}"#, TakeSer::b.then(HasY::y), b);
    probe("U", r#"{"x":1,"y":2}"#, TakeSer::a.then(SerOnlyY::x), b);
    probe("U", r#"{"y2":1,"Y2":2}"#, TakeSerAll::b.then(HasY2::y), b);
    probe(
        "U",
        r#"{"y2":1,"Y2":2}"#,
        TakeSerAll::a.then(SerOnlyAll::y2),
        b,
    );
    c.finish();
}

#[test]
fn an_other_variant_of_an_externally_tagged_enum_plain_and_flattened() {
    let mut c = Checks::default();
    let b = &mut c;
    probe("V", r#""zz""#, ExtOther::other, b);
    probe("V", r#"{"zz":null}"#, ExtOther::other, b);
    probe("V", r#"{"zz":null}"#, ExtOther::ab, b);
    probe(
        "V",
        r#"{"z":1,"zz":null,"Ab":2}"#,
        FlatExtOther::e.then(ExtOther::ab),
        b,
    );
    probe(
        "V",
        r#"{"z":1,"zz":null,"Ab":2}"#,
        FlatExtOther::e.then(ExtOther::other),
        b,
    );
    probe(
        "V",
        r#"{"z":1,"zz":null}"#,
        FlatExtOther::e.then(ExtOther::other),
        b,
    );
    probe(
        "V",
        r#"{"z":1,"Other":null}"#,
        FlatExtOther::e.then(ExtOther::other),
        b,
    );
    probe(
        "V",
        r#"{"Other":null,"z":1,"Ab":3}"#,
        FlatExtOther::e.then(ExtOther::ab),
        b,
    );
    c.finish();
}

#[test]
fn an_alias_that_shadows_a_later_variant() {
    let mut c = Checks::default();
    let b = &mut c;
    for doc in [r#"{"B":1}"#, r#"{"A":1}"#] {
        probe("X", doc, AliasFirst::a, b);
        probe("X", doc, AliasFirst::b, b);
        probe("X", doc, FlatAliasFirst::e.then(AliasFirst::a), b);
        probe("X", doc, FlatAliasFirst::e.then(AliasFirst::b), b);
    }
    for doc in [r#"{"t":"B","x":1}"#, r#"{"x":1,"t":"A"}"#, r#"["B",1]"#] {
        probe("X", doc, AliasFirstInt::a_x, b);
        probe("X", doc, AliasFirstInt::b_x, b);
    }
    for doc in [
        r#"{"t":"B","c":1}"#,
        r#"{"c":1,"t":"B"}"#,
        r#"{"t":{"B":null},"c":1}"#,
    ] {
        probe("X", doc, AliasFirstAdj::a, b);
        probe("X", doc, AliasFirstAdj::b, b);
    }
    c.finish();
}

#[test]
fn a_skipped_outer_field_named_like_a_flattened_tag() {
    let mut c = Checks::default();
    let b = &mut c;
    probe(
        "Y",
        r#"{"t":"Ab","x":1}"#,
        SkippedOuter::e.then(Int::ab_x),
        b,
    );
    probe("Y", r#"{"t":"Ab","x":1}"#, SkippedOuter::t, b);
    c.finish();
}

#[test]
fn tuple_structs_and_variants_with_skipped_and_defaulted_fields() {
    let mut c = Checks::default();
    let b = &mut c;

    for doc in [
        r#"{"V":[1,3]}"#,
        r#"{"V":[1,2,3]}"#,
        r#"{"D":[1]}"#,
        r#"{"D":[1,2]}"#,
        r#"{"S":[1,2]}"#,
        r#"{"S":[1]}"#,
    ] {
        probe("Z", doc, TupV::v_0, b);
        probe("Z", doc, TupV::v_1, b);
        probe("Z", doc, TupV::v_2, b);
        probe("Z", doc, TupV::d_0, b);
        probe("Z", doc, TupV::d_1, b);
        probe("Z", doc, TupV::s_0, b);
        probe("Z", doc, TupV::s_1, b);
        probe("Z", doc, TupV::s_2, b);
    }
    for doc in [
        r#"{"t":"V","c":[1,3]}"#,
        r#"{"c":[1,3],"t":"V"}"#,
        r#"{"t":"D","c":[1]}"#,
        r#"{"c":[1],"t":"D"}"#,
        r#"["D",[1]]"#,
    ] {
        probe("Z", doc, TupAdj::v_0, b);
        probe("Z", doc, TupAdj::v_1, b);
        probe("Z", doc, TupAdj::v_2, b);
        probe("Z", doc, TupAdj::d_0, b);
        probe("Z", doc, TupAdj::d_1, b);
    }
    for doc in [r#"[1]"#, r#"[1,2]"#, r#"[1,2,3]"#, r#"[]"#] {
        probe("Z", doc, TupS::_0, b);
        probe("Z", doc, TupS::_1, b);
        probe("Z", doc, TupS::_2, b);
        probe("Z", doc, TupS2::_0, b);
        probe("Z", doc, TupS2::_1, b);
        probe("Z", doc, TupS2::_2, b);
    }
    for doc in [
        r#"{"t":"A"}"#,
        r#"["A",1]"#,
        r#"["A",1,2]"#,
        r#"["B",1]"#,
        r#"["B",1,2]"#,
    ] {
        probe("Z", doc, IntTup::a.then(TupS::_1), b);
        probe("Z", doc, IntTup::a.then(TupS::_0), b);
        probe("Z", doc, IntTup::b.then(TupS2::_2), b);
        probe("Z", doc, IntTup::b.then(TupS2::_1), b);
    }

    c.finish();
}

// ---------------------------------------------------------------------------
// Strict mode validates the document as a `serde_json::Value`: what serde_json
// skips unchecked in a member the model ignores, strict mode refuses.

#[test]
fn strict_mode_refuses_what_serde_skips_unchecked() {
    let deep = format!(r#"{{"a":1,"z":{}{}}}"#, "[".repeat(200), "]".repeat(200));
    for doc in [
        r#"{"a":1,"z":"\ud800"}"#,
        r#"{"a":1,"z":[-1e400]}"#,
        deep.as_str(),
    ] {
        let bytes = doc.as_bytes();
        let a: OnlyA = serde_json::from_slice(bytes).unwrap();
        assert_eq!(Json::<OnlyA>::new(bytes).read(OnlyA::a), Some(a.a));
        assert!(serde_json::from_slice::<serde_json::Value>(bytes).is_err());
        assert!(Strict::<OnlyA>::validated(bytes, &Duplicates::new()).is_err());
    }
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct OnlyA {
    a: u8,
}

// ---------------------------------------------------------------------------
// Property: a model of combinations, written by serde_json and then rewritten
// by hand: every key and string escaped at random (`\uXXXX`, surrogate pairs,
// `\/`), members put in key order (an adjacently tagged content before its
// tag), unknown members carrying the model's own keys as decoys, a map's
// member repeated, whitespace everywhere. Every accepted writing is read
// along every path, trusting and strict, against serde_json's decode; and a
// few leaves are written, the bytes decoding as the value written.

mod hunt_model {
    use std::collections::BTreeMap;

    use optics_core::prelude::*;
    use proptest::prelude::*;
    use serde::{Deserialize, Serialize};

    #[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct Doc {
        #[serde(rename = "a\"b\\c/é😀")]
        pub odd: u8,
        pub r#type: Kind,
        #[serde(alias = "maybe_too", default)]
        pub maybe_twice: Option<Option<u16>>,
        #[serde(flatten)]
        pub flat: Flat,
        pub tagged: Vec<Tagged>,
        pub adj: Adj,
        pub map: BTreeMap<String, i32>,
        pub nums: Nums,
    }

    // The variants share a postfix on purpose: kebab-case splits it off.
    #[allow(clippy::enum_variant_names)]
    #[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "kebab-case")]
    pub enum Kind {
        FirstOne,
        SecondOne(i8),
        ThirdOne { deep_field: String },
    }

    #[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
    pub struct Flat {
        pub flat_a: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub flat_b: Option<String>,
    }

    #[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(
        tag = "kind",
        rename_all = "lowercase",
        rename_all_fields = "PascalCase"
    )]
    pub enum Tagged {
        Point { x_pos: i32, y_pos: i32 },
        Named(Named),
        Empty,
    }

    #[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
    pub struct Named {
        #[serde(rename = "näme")]
        pub name: String,
        #[serde(default)]
        pub tags: Vec<char>,
    }

    #[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(tag = "t", content = "c")]
    pub enum Adj {
        Num(f64),
        Pair(u8, u8),
        Unit,
        Opt(Option<u32>),
    }

    #[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
    pub struct Nums {
        pub small: f32,
        pub big: i128,
        pub huge: u64,
        pub letter: char,
    }

    pub fn text() -> impl Strategy<Value = String> {
        proptest::string::string_regex("[a-c\"\\\\/é😀\u{7f}\u{1}]{0,4}").unwrap()
    }

    pub fn kind() -> impl Strategy<Value = Kind> {
        prop_oneof![
            Just(Kind::FirstOne),
            any::<i8>().prop_map(Kind::SecondOne),
            text().prop_map(|deep_field| Kind::ThirdOne { deep_field }),
        ]
    }

    pub fn tagged() -> impl Strategy<Value = Tagged> {
        prop_oneof![
            (any::<i32>(), any::<i32>()).prop_map(|(x_pos, y_pos)| Tagged::Point { x_pos, y_pos }),
            (text(), proptest::collection::vec(any::<char>(), 0..3))
                .prop_map(|(name, tags)| Tagged::Named(Named { name, tags })),
            Just(Tagged::Empty),
        ]
    }

    pub fn adj() -> impl Strategy<Value = Adj> {
        prop_oneof![
            (-1e6f64..1e6).prop_map(Adj::Num),
            (any::<u8>(), any::<u8>()).prop_map(|(a, b)| Adj::Pair(a, b)),
            Just(Adj::Unit),
            proptest::option::of(any::<u32>()).prop_map(Adj::Opt),
        ]
    }

    pub fn doc() -> impl Strategy<Value = Doc> {
        (
            any::<u8>(),
            kind(),
            proptest::option::of(any::<u16>()).prop_map(|v| v.map(Some)),
            (any::<bool>(), proptest::option::of(text())),
            proptest::collection::vec(tagged(), 0..3),
            adj(),
            proptest::collection::btree_map(text(), any::<i32>(), 0..3),
            (
                any::<f32>().prop_filter("finite", |f| f.is_finite()),
                i64::MIN..i64::MAX,
                any::<u64>(),
                any::<char>(),
            ),
        )
            .prop_map(
                |(
                    odd,
                    r#type,
                    maybe_twice,
                    (flat_a, flat_b),
                    tagged,
                    adj,
                    map,
                    (small, big, huge, letter),
                )| Doc {
                    odd,
                    r#type,
                    maybe_twice,
                    flat: Flat { flat_a, flat_b },
                    tagged,
                    adj,
                    map,
                    nums: Nums {
                        small,
                        big: i128::from(big),
                        huge,
                        letter,
                    },
                },
            )
    }
}

fn hunt_cases() -> ProptestConfig {
    ProptestConfig {
        cases: support::scaled(256),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// The byte read of `o`, trusting and strict, equals serde_json's decode
/// previewed with `o`.
fn reads_as_serde<O>(bytes: &[u8], whole: &hunt_model::Doc, o: O) -> Result<(), TestCaseError>
where
    O: Preview<Source = hunt_model::Doc> + for<'de> JsonDecode<'de> + Copy + Debug,
    O::Focus: Clone + PartialEq + Debug,
{
    let expected = o.preview(whole).cloned();
    let text = String::from_utf8_lossy(bytes);
    prop_assert_eq!(
        Json::<hunt_model::Doc>::new(bytes).read(o),
        expected.clone(),
        "{:?} in {}",
        o,
        text
    );
    let duplicates = Duplicates::new();
    let strict = Strict::<hunt_model::Doc>::validated(bytes, &duplicates);
    prop_assert!(strict.is_ok(), "strict refuses {}", text);
    if let Ok(strict) = strict {
        prop_assert_eq!(strict.read(o), expected, "strict {:?} in {}", o, text);
    }
    Ok(())
}

/// A byte write of `a` through `o` decodes as the value written, or refuses.
fn writes_as_serde<O>(
    bytes: &[u8],
    whole: &hunt_model::Doc,
    o: O,
    a: O::Focus,
) -> Result<(), TestCaseError>
where
    O: Optional<Source = hunt_model::Doc>
        + JsonOptic
        + JsonWrite
        + StartsAt<hunt_model::Doc>
        + Copy
        + Debug,
    O::Focus: Clone + PartialEq + Debug,
{
    let mut expected = whole.clone();
    o.set(&mut expected, a.clone());
    let expected: hunt_model::Doc =
        serde_json::from_slice(&serde_json::to_vec(&expected).unwrap()).unwrap();
    if let Some(written) = Json::<hunt_model::Doc>::new(bytes).set(o, &a) {
        let text = String::from_utf8_lossy(&written);
        prop_assert!(
            o.preview(whole).is_some(),
            "{:?} wrote {} with no focus",
            o,
            text
        );
        let got = serde_json::from_slice::<hunt_model::Doc>(&written);
        prop_assert!(got.is_ok(), "{:?} wrote {}, which serde refuses", o, text);
        prop_assert_eq!(got.unwrap(), expected, "{:?} := {:?} wrote {}", o, a, text);
    }
    Ok(())
}

proptest! {
    #![proptest_config(hunt_cases())]

    #[test]
    fn rewritten_writings_read_and_write_as_serde(
        model in hunt_model::doc(),
        choices in proptest::collection::vec(any::<u8>(), 1..64),
        repeat_map in any::<bool>(),
    ) {
        use hunt_model::*;
        let value = serde_json::to_value(&model).unwrap();
        let mut rewrite = Rewrite::new(choices, false);
        let decoys = ["a\"b\\c/é😀", "type", "maybeTwice", "FLAT_A", "kind", "XPos", "näme", "t", "c", "small"];
        let mut text = String::new();
        rewrite.value(&value, &decoys, &mut text);
        if repeat_map {
            // The map's last member given twice: serde keeps the second.
            if let Some((key, _)) = model.map.iter().next_back() {
                let mut key_text = String::new();
                rewrite.string(key, &mut key_text);
                let member = format!("\"map\":{{{key_text}:-7,");
                text = text.replacen("\"map\":{", &member, 1);
            }
        }
        let bytes = text.into_bytes();
        // About three in four writings are accepted; a decoy in the map or
        // in the externally tagged object is refused.
        let Ok(whole) = serde_json::from_slice::<Doc>(&bytes) else {
            return Ok(());
        };
        reads_as_serde(&bytes, &whole, Doc::odd)?;
        reads_as_serde(&bytes, &whole, Doc::r#type)?;
        reads_as_serde(&bytes, &whole, Doc::r#type.then(Kind::first_one))?;
        reads_as_serde(&bytes, &whole, Doc::r#type.then(Kind::second_one))?;
        reads_as_serde(&bytes, &whole, Doc::r#type.then(Kind::third_one_deep_field))?;
        reads_as_serde(&bytes, &whole, Doc::maybe_twice)?;
        reads_as_serde(&bytes, &whole, Doc::maybe_twice.then(some()).then(some()))?;
        reads_as_serde(&bytes, &whole, Doc::flat.then(Flat::flat_a))?;
        reads_as_serde(&bytes, &whole, Doc::flat.then(Flat::flat_b))?;
        for i in 0..3 {
            reads_as_serde(&bytes, &whole, Doc::tagged.then(at(i)).then(Tagged::point_x_pos))?;
            reads_as_serde(&bytes, &whole, Doc::tagged.then(at(i)).then(Tagged::point_y_pos))?;
            reads_as_serde(&bytes, &whole, Doc::tagged.then(at(i)).then(Tagged::named).then(Named::name))?;
            reads_as_serde(&bytes, &whole, Doc::tagged.then(at(i)).then(Tagged::named).then(Named::tags).then(at(0)))?;
            reads_as_serde(&bytes, &whole, Doc::tagged.then(at(i)).then(Tagged::empty))?;
            reads_as_serde(&bytes, &whole, Doc::tagged.then(at(i)).then(Tagged::kind))?;
        }
        reads_as_serde(&bytes, &whole, Doc::adj.then(Adj::num))?;
        reads_as_serde(&bytes, &whole, Doc::adj.then(Adj::pair_1))?;
        reads_as_serde(&bytes, &whole, Doc::adj.then(Adj::unit))?;
        reads_as_serde(&bytes, &whole, Doc::adj.then(Adj::opt))?;
        for key_text in whole.map.keys() {
            reads_as_serde(&bytes, &whole, Doc::map.then(key(key_text.as_str())))?;
        }
        reads_as_serde(&bytes, &whole, Doc::nums.then(Nums::small))?;
        reads_as_serde(&bytes, &whole, Doc::nums.then(Nums::big))?;
        reads_as_serde(&bytes, &whole, Doc::nums.then(Nums::huge))?;
        reads_as_serde(&bytes, &whole, Doc::nums.then(Nums::letter))?;

        // Traversals: the names of every tagged element, strictly as the
        // value has them (no key repeats on their paths).
        let names = Doc::tagged.then(each()).then(Tagged::named).then(Named::name);
        let duplicates = Duplicates::new();
        let strict = Strict::<Doc>::validated(&bytes, &duplicates).unwrap();
        let read: Vec<_> = strict.read_each(names).collect();
        let expected: Vec<_> = names.iter(&whole).cloned().map(Some).collect();
        prop_assert_eq!(read, expected);
        let values: Vec<_> = strict.read_each(Doc::map.then(each())).collect();
        let expected: Vec<_> = whole.map.values().copied().map(Some).collect();
        prop_assert_eq!(values, expected);

        writes_as_serde(&bytes, &whole, Doc::odd, 200)?;
        writes_as_serde(&bytes, &whole, Doc::maybe_twice, Some(Some(9)))?;
        writes_as_serde(&bytes, &whole, Doc::maybe_twice, None)?;
        writes_as_serde(&bytes, &whole, Doc::flat.then(Flat::flat_b), Some("n\"e/w".to_owned()))?;
        writes_as_serde(&bytes, &whole, Doc::flat.then(Flat::flat_b), None)?;
        writes_as_serde(&bytes, &whole, Doc::r#type.then(Kind::third_one_deep_field), "😀\\".to_owned())?;
        writes_as_serde(&bytes, &whole, Doc::tagged.then(at(0)).then(Tagged::point_x_pos), -5)?;
        writes_as_serde(&bytes, &whole, Doc::tagged.then(at(0)).then(Tagged::named).then(Named::tags), vec!['"'])?;
        writes_as_serde(&bytes, &whole, Doc::adj.then(Adj::opt), Some(3))?;
        writes_as_serde(&bytes, &whole, Doc::adj.then(Adj::opt), None)?;
        writes_as_serde(&bytes, &whole, Doc::adj.then(Adj::num), -0.5)?;
        writes_as_serde(&bytes, &whole, Doc::adj.then(Adj::pair_0), 1)?;
        writes_as_serde(&bytes, &whole, Doc::nums.then(Nums::big), i128::MIN)?;
        writes_as_serde(&bytes, &whole, Doc::nums.then(Nums::letter), '\u{1}')?;
        if let Some(k) = whole.map.keys().next() {
            writes_as_serde(&bytes, &whole, Doc::map.then(key(k.as_str())), 42)?;
        }
    }
}
