//! Issue 10, class by class: every model serde accepts is read as serde reads
//! it. Each test writes the forms serde accepts for one class (many of which
//! serde never writes itself) and checks every path's byte read against
//! serde_json's decode of the whole document ([`agree`]); where serde
//! rejects a document, the read misses too ([`both_reject`]). The models the
//! derive refuses instead have their cases in `tests/ui/` (named in each
//! section).

mod support;

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;
use std::sync::Arc;

use optics_core::prelude::*;
use serde::Deserialize;
use support::oracle::{agree, both_reject};

// ---------------------------------------------------------------------------
// Class 1: `#[serde(flatten)]` on an `Option<Struct>` is refused
// (`tests/ui/serde-flatten-option.rs`; behind an alias, or any type that does
// not derive Optics: `tests/ui/serde-flatten-foreign-type.rs`). What to write
// instead, a flattened struct of `Option`s, reads as serde reads it:

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct WithMaybe {
    id: u32,
    #[serde(flatten)]
    maybe: Maybe,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Maybe {
    lat: Option<f64>,
    lon: Option<f64>,
}

#[test]
fn class_1_the_written_instead_form_reads_as_serde() {
    for doc in [
        r#"{"id":1}"#,
        r#"{"id":1,"lat":2.5}"#,
        r#"{"lat":2.5,"lon":-1,"id":1}"#,
    ] {
        agree(doc, WithMaybe::maybe);
        agree(doc, WithMaybe::maybe.then(Maybe::lat));
        agree(doc, WithMaybe::maybe.then(Maybe::lon).then(some()));
        agree(doc, WithMaybe::id);
    }
}

// ---------------------------------------------------------------------------
// Class 2: flattened fields sharing a key. Where serde gives the key to one
// field only, the derive refuses the model (`serde-flatten-shared-key.rs`,
// `serde-flatten-outer-key.rs`); where serde lends the key to both, both read it.

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Lends {
    #[serde(flatten)]
    first: Outer1,
    #[serde(flatten)]
    second: Inner2,
    #[serde(flatten)]
    tagged: Tagged1,
    #[serde(flatten)]
    also_tagged: Tagged2,
}

/// Flattens in turn, so serde reads it as a map: it takes no member.
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Outer1 {
    #[serde(flatten)]
    shared: Inner2,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Inner2 {
    id: u32,
}

/// Two internally tagged enums with one tag key: serde lends both the tag.
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "kind")]
enum Tagged1 {
    A,
    B { b: u8 },
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "kind")]
enum Tagged2 {
    A { a: u8 },
    B,
}

#[test]
fn class_2_keys_serde_lends_are_read_by_every_field() {
    for doc in [
        r#"{"id":7,"kind":"A","a":1}"#,
        r#"{"kind":"B","b":2,"id":8}"#,
    ] {
        agree(doc, Lends::first.then(Outer1::shared).then(Inner2::id));
        agree(doc, Lends::second.then(Inner2::id));
        agree(doc, Lends::tagged.then(Tagged1::kind));
        agree(doc, Lends::tagged.then(Tagged1::b_b));
        agree(doc, Lends::also_tagged.then(Tagged2::a_a));
        agree(doc, Lends::also_tagged);
        agree(doc, Lends::first);
    }
}

// ---------------------------------------------------------------------------
// Class 3: a flattened enum, in every encoding.

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct FlatEnums {
    id: u32,
    #[serde(flatten)]
    external: Ext,
    #[serde(flatten)]
    internal: Int,
    #[serde(flatten)]
    adjacent: Adj,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
enum Ext {
    Ping,
    #[serde(alias = "Txt")]
    Text(String),
    Point {
        x: i8,
        y: i8,
    },
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "type")]
enum Int {
    Login(Login),
    Logout,
    Idle { secs: u32 },
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Login {
    user: String,
    #[serde(default)]
    admin: bool,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t", content = "c")]
enum Adj {
    Num(i64),
    Flag,
}

#[test]
fn class_3_flattened_enums_read_their_variant_as_serde_does() {
    let docs = [
        r#"{"id":1,"Ping":null,"type":"Logout","t":"Flag"}"#,
        r#"{"type":"Login","user":"ann","id":2,"Text":"hi","c":-4,"t":"Num"}"#,
        r#"{"Txt":"alias","type":"Login","user":"bob","admin":true,"id":3,"t":"Num","c":5}"#,
        // Flattened, serde reads from its buffer: a unit variant's `{}`, a
        // variant's number for its tag, the adjacent tag as an enum.
        r#"{"id":4,"Ping":{},"type":2,"secs":9,"t":{"Flag":null}}"#,
        r#"{"id":5,"Point":{"y":2,"x":1},"type":0,"user":"cy","t":"Flag"}"#,
        r#"{"id":6,"Point":[3,4],"type":"Idle","secs":1,"c":7,"t":{"Num":{}}}"#,
    ];
    for doc in docs {
        agree(doc, FlatEnums::id);
        agree(doc, FlatEnums::external);
        agree(doc, FlatEnums::external.then(Ext::kind));
        agree(doc, FlatEnums::external.then(Ext::ping));
        agree(doc, FlatEnums::external.then(Ext::text));
        agree(doc, FlatEnums::external.then(Ext::point_x));
        agree(doc, FlatEnums::internal);
        agree(doc, FlatEnums::internal.then(Int::kind));
        agree(doc, FlatEnums::internal.then(Int::login));
        agree(doc, FlatEnums::internal.then(Int::login).then(Login::user));
        agree(doc, FlatEnums::internal.then(Int::login).then(Login::admin));
        agree(doc, FlatEnums::internal.then(Int::idle_secs));
        agree(doc, FlatEnums::internal.then(Int::logout));
        agree(doc, FlatEnums::adjacent);
        agree(doc, FlatEnums::adjacent.then(Adj::kind));
        agree(doc, FlatEnums::adjacent.then(Adj::num));
        agree(doc, FlatEnums::adjacent.then(Adj::flag));
    }
    // No variant among the members, or one the enum does not have.
    both_reject(
        r#"{"id":1,"type":"Logout","t":"Flag"}"#,
        FlatEnums::external.then(Ext::kind),
    );
    both_reject(
        r#"{"id":1,"Ping":null,"type":"Gone","t":"Flag"}"#,
        FlatEnums::internal.then(Int::kind),
    );
    // The adjacent tag is read as an enum: its variant's number is no tag.
    both_reject(
        r#"{"id":1,"Ping":null,"type":"Logout","t":1}"#,
        FlatEnums::adjacent.then(Adj::kind),
    );
    // A flattened enum whose payload is a map would take every member left
    // over: refused (`serde-flatten-enum-map-payload.rs`).
}

// ---------------------------------------------------------------------------
// Class 4: container attributes on flattened types: `deny_unknown_fields`,
// `default`, a struct that flattens in turn, `rename_all`.

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Envelope {
    id: u32,
    #[serde(flatten)]
    strict: Strict,
    #[serde(flatten)]
    defaults: Defaulted,
    #[serde(flatten)]
    event: StrictEvent,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Strict {
    user_name: String,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(default)]
struct Defaulted {
    retries: u8,
    label: String,
}

impl Default for Defaulted {
    fn default() -> Self {
        Defaulted {
            retries: 3,
            label: "none".to_owned(),
        }
    }
}

/// Its payload denies unknown fields: serde hands it the members that are
/// neither the envelope's own nor taken before it, nor the tag.
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "ev")]
enum StrictEvent {
    Click(Click),
    Blank(()),
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
struct Click {
    x: i32,
}

#[test]
fn class_4_container_attributes_of_flattened_types_apply() {
    for doc in [
        r#"{"id":1,"userName":"ann","ev":"Click","x":3}"#,
        r#"{"x":-3,"ev":"Click","retries":9,"userName":"b","id":2,"label":"l"}"#,
        r#"{"id":3,"userName":"c","ev":"Blank","retries":0}"#,
    ] {
        agree(doc, Envelope::strict);
        agree(doc, Envelope::strict.then(Strict::user_name));
        agree(doc, Envelope::defaults);
        agree(doc, Envelope::defaults.then(Defaulted::retries));
        agree(doc, Envelope::defaults.then(Defaulted::label));
        agree(doc, Envelope::event);
        agree(doc, Envelope::event.then(StrictEvent::click));
        agree(doc, Envelope::event.then(StrictEvent::click).then(Click::x));
        agree(doc, Envelope::event.then(StrictEvent::blank));
    }
    // A member nobody takes reaches the strict payload: serde rejects it.
    both_reject(
        r#"{"id":1,"userName":"a","ev":"Click","x":3,"zz":0}"#,
        Envelope::event.then(StrictEvent::click),
    );
    both_reject(
        r#"{"id":1,"userName":"a","ev":"Blank","zz":0}"#,
        Envelope::event.then(StrictEvent::blank),
    );
}

/// A flattened type parameter: the checks run where the lens reads bytes.
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Generic<T> {
    name: String,
    #[serde(flatten)]
    body: T,
}

#[test]
fn class_4_a_flattened_type_parameter() {
    let doc = r#"{"user":"ann","name":"n","admin":true}"#;
    agree(doc, Generic::<Login>::body.then(Login::admin));
    agree(doc, Generic::<Login>::body);
    let doc = r#"{"type":"Idle","secs":2,"name":"n"}"#;
    agree(doc, Generic::<Int>::body.then(Int::idle_secs));
    let value = Generic {
        name: "x".to_owned(),
        body: Inner2 { id: 1 },
    };
    assert_eq!(Generic::body.then(Inner2::id).get(&value), &1);
}

// ---------------------------------------------------------------------------
// Class 5: internally tagged newtype variants whose payload is `()`, a unit
// struct, an `Option`, a map or another enum.

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "result")]
enum Response<T> {
    Success(T),
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Nothing;

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "kind")]
enum Payloads {
    Unit(()),
    UnitStruct(Nothing),
    Maybe(Option<Inner2>),
    Map(HashMap<String, u8>),
    External(Ext),
    Internal(Int),
    Adjacent(Adj),
}

#[test]
fn class_5_internally_tagged_payloads_of_every_kind() {
    // serde's own example: `{"result":"Success"}` is `Success(())`.
    assert_eq!(
        agree(r#"{"result":"Success"}"#, Response::<()>::success),
        Some(())
    );
    both_reject(r#"{"result":"Success","x":1}"#, Response::<()>::success);
    assert_eq!(
        agree(r#"{"result":"Success"}"#, Response::<Nothing>::success),
        Some(Nothing)
    );
    let docs = [
        r#"{"kind":"Unit"}"#,
        r#"{"kind":"UnitStruct"}"#,
        r#"{"kind":"Maybe","id":4}"#,
        r#"{"id":4,"kind":"Maybe"}"#,
        r#"{"kind":"Map","a":1,"b":2}"#,
        r#"{"kind":"Map"}"#,
        r#"{"kind":"External","Ping":null}"#,
        r#"{"Ping":{},"kind":"External"}"#,
        r#"{"kind":"External","Text":"x"}"#,
        r#"{"kind":"External","Point":[1,2]}"#,
        r#"{"kind":"Internal","type":"Logout"}"#,
        r#"{"type":1,"kind":"Internal","secs":3}"#,
        r#"["Internal","Login","ann"]"#,
        r#"{"kind":"Adjacent","t":"Num","c":3}"#,
        r#"{"c":3,"kind":"Adjacent","t":{"Num":{}}}"#,
    ];
    for doc in docs {
        let whole = serde_json::from_str::<Payloads>(doc);
        assert!(whole.is_ok(), "{doc}: {whole:?}");
        agree(doc, Payloads::kind);
        agree(doc, Payloads::internal);
        agree(doc, Payloads::internal.then(Int::kind));
        agree(doc, Payloads::internal.then(Int::idle_secs));
        agree(doc, Payloads::internal.then(Int::login).then(Login::user));
        agree(doc, Payloads::unit);
        agree(doc, Payloads::unit_struct);
        agree(doc, Payloads::maybe);
        agree(doc, Payloads::maybe.then(some()).then(Inner2::id));
        agree(doc, Payloads::map);
        agree(doc, Payloads::map.then(key("a")));
        agree(doc, Payloads::map.then(key("type")));
        agree(doc, Payloads::external);
        agree(doc, Payloads::external.then(Ext::kind));
        agree(doc, Payloads::external.then(Ext::point_y));
        agree(doc, Payloads::adjacent.then(Adj::num));
    }
    // A map payload never sees the tag; a payload enum needs exactly one
    // member besides it.
    assert_eq!(
        agree(r#"{"kind":"Map","a":1}"#, Payloads::map.then(key("kind"))),
        None
    );
    both_reject(
        r#"{"kind":"External","Ping":null,"Text":"x"}"#,
        Payloads::external,
    );
    both_reject(r#"{"kind":"Unit","x":1}"#, Payloads::unit);
    both_reject(r#"{"kind":"Adjacent","t":0,"c":3}"#, Payloads::adjacent);
}

// ---------------------------------------------------------------------------
// Class 6: adjacently tagged variants without their content.

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t", content = "c")]
enum Sparse {
    Opt(Option<u8>),
    Unit(()),
    UnitStruct(Nothing),
    Bare,
    Pair(u8, u8),
}

#[test]
fn class_6_adjacent_content_missing() {
    // An `Option` payload without content is `None`, as serde reads a
    // missing field.
    assert_eq!(agree(r#"{"t":"Opt"}"#, Sparse::opt), Some(None));
    assert_eq!(agree(r#"{"t":"Opt"}"#, Sparse::opt.then(some())), None);
    assert_eq!(agree(r#"{"t":"Opt","c":null}"#, Sparse::opt), Some(None));
    assert_eq!(agree(r#"{"c":4,"t":"Opt"}"#, Sparse::opt), Some(Some(4)));
    assert_eq!(agree(r#"{"t":"Bare"}"#, Sparse::bare), Some(()));
    assert_eq!(agree(r#"{"t":"Opt"}"#, Sparse::kind), Some(SparseKind::Opt));
    // A unit-like payload is no missing field to serde: the content is needed.
    both_reject(r#"{"t":"Unit"}"#, Sparse::unit);
    both_reject(r#"{"t":"UnitStruct"}"#, Sparse::unit_struct);
    both_reject(r#"{"t":"Pair"}"#, Sparse::pair_0);
    assert_eq!(agree(r#"{"t":"Unit","c":null}"#, Sparse::unit), Some(()));
    assert_eq!(
        agree(r#"{"t":"UnitStruct","c":null}"#, Sparse::unit_struct),
        Some(Nothing)
    );
    // Content before the tag comes from serde's buffer: `{}` is a unit struct
    // there, not after the tag.
    assert_eq!(
        agree(r#"{"c":{},"t":"UnitStruct"}"#, Sparse::unit_struct),
        Some(Nothing)
    );
    both_reject(r#"{"t":"UnitStruct","c":{}}"#, Sparse::unit_struct);
}

// ---------------------------------------------------------------------------
// Class 7: forms serde accepts only from its buffer.

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "kind")]
enum Outer {
    Wrap(Wrapped),
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Wrapped {
    inner: Int,
    marker: Nothing,
    ratio: f64,
    small: i16,
    list: Vec<Nothing>,
    choice: Ext,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Direct {
    marker: Nothing,
}

#[test]
fn class_7_buffer_only_forms() {
    let docs = [
        // The payload's fields come from serde's buffer: a variant's number for
        // its tag, `{}` and `[]` for a unit struct, `{}` for a unit variant.
        r#"{"kind":"Wrap","inner":{"type":1},"marker":{},"ratio":2,"small":-3,"list":[[],{},null],"choice":{"Ping":{}}}"#,
        r#"{"kind":"Wrap","inner":{"type":"Idle","secs":4},"marker":[],"ratio":1.5,"small":7,"list":[],"choice":"Ping"}"#,
        r#"{"kind":"Wrap","inner":["Login","ann",true],"marker":null,"ratio":-0.0,"small":0,"list":[{}],"choice":{"Point":{"x":1,"y":2}}}"#,
    ];
    for doc in docs {
        let whole = serde_json::from_str::<Outer>(doc);
        assert!(whole.is_ok(), "{doc}: {whole:?}");
        agree(doc, Outer::wrap);
        agree(doc, Outer::kind);
        agree(doc, Outer::wrap.then(Wrapped::inner).then(Int::kind));
        agree(doc, Outer::wrap.then(Wrapped::inner).then(Int::idle_secs));
        agree(
            doc,
            Outer::wrap
                .then(Wrapped::inner)
                .then(Int::login)
                .then(Login::admin),
        );
        agree(doc, Outer::wrap.then(Wrapped::marker));
        agree(doc, Outer::wrap.then(Wrapped::ratio));
        agree(doc, Outer::wrap.then(Wrapped::small));
        agree(doc, Outer::wrap.then(Wrapped::list).then(at(0)));
        agree(doc, Outer::wrap.then(Wrapped::choice));
        agree(doc, Outer::wrap.then(Wrapped::choice).then(Ext::ping));
    }
    // The same forms outside the buffer: serde_json rejects them.
    both_reject(r#"{"type":1}"#, Int::kind);
    both_reject(r#"{"marker":{}}"#, Direct::marker);
    both_reject(r#"{"marker":[]}"#, Direct::marker);
    // (An internally tagged enum written as an array is read anywhere.)
    assert_eq!(
        agree(r#"["Login","ann"]"#, Int::login.then(Login::user)),
        Some("ann".to_owned())
    );
    assert_eq!(agree(r#"["Logout"]"#, Int::logout), Some(()));
    // An integer given as a float, or a float's integer: the buffer converts
    // as serde_json does (a float is no integer, an integer is a float).
    both_reject(
        r#"{"kind":"Wrap","inner":{"type":"Logout"},"marker":null,"ratio":1,"small":1.0,"list":[],"choice":"Ping"}"#,
        Outer::wrap.then(Wrapped::small),
    );
}

// ---------------------------------------------------------------------------
// Class 8: structs and struct variants written as arrays.

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct S {
    a: u8,
    #[serde(skip)]
    cache: u32,
    b: String,
    #[serde(default)]
    c: Option<bool>,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
enum Shapes {
    Rect { w: u8, h: u8 },
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "type")]
enum Tagged {
    Rect { w: u8, h: u8 },
    Holder(S),
    Empty,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t", content = "c")]
enum AdjShapes {
    Rect { w: u8, h: u8 },
    Pair(u8, u8),
}

#[test]
fn class_8_structs_written_as_arrays() {
    for doc in [r#"[1,"a"]"#, r#"[1,"a",true]"#, r#"{"b":"a","a":1}"#] {
        agree(doc, S::a);
        agree(doc, S::b);
        agree(doc, S::c);
        agree(doc, S::cache);
    }
    both_reject(r#"[1]"#, S::b);
    // (With more elements than fields serde rejects the document; the reader
    // looks no further than the element it reads.)
    assert_eq!(agree(r#"{"Rect":[3,4]}"#, Shapes::rect_h), Some(4));
    // An internally tagged enum written as an array: the tag, then the
    // payload's fields in order.
    for doc in [
        r#"["Rect",5,6]"#,
        r#"["Holder",1,"b",false]"#,
        r#"["Holder",1,"b"]"#,
        r#"["Empty"]"#,
    ] {
        agree(doc, Tagged::kind);
        agree(doc, Tagged::rect_w);
        agree(doc, Tagged::rect_h);
        agree(doc, Tagged::holder);
        agree(doc, Tagged::holder.then(S::b));
        agree(doc, Tagged::holder.then(S::c));
        agree(doc, Tagged::empty);
    }
    both_reject(r#"["Empty",1]"#, Tagged::empty);
    both_reject(r#"[0,5,6]"#, Tagged::rect_w);
    // An adjacently tagged enum as `[tag, content]`; its struct variant's
    // content is an object only.
    assert_eq!(agree(r#"["Pair",[1,2]]"#, AdjShapes::pair_1), Some(2));
    assert_eq!(
        agree(r#"["Rect",{"w":1,"h":2}]"#, AdjShapes::rect_w),
        Some(1)
    );
    both_reject(r#"{"t":"Rect","c":[1,2]}"#, AdjShapes::rect_w);
    both_reject(r#"["Rect"]"#, AdjShapes::rect_w);
}

// ---------------------------------------------------------------------------
// Class 9: an adjacent tag written as an enum.

#[test]
fn class_9_adjacent_tag_as_an_object() {
    for doc in [
        r#"{"t":{"Num":null},"c":5}"#,
        r#"{"c":5,"t":{"Num":null}}"#,
        r#"{"t":{"N\u0075m":null},"c":5}"#,
    ] {
        assert_eq!(agree(doc, Adj::num), Some(5));
        assert_eq!(agree(doc, Adj::kind), Some(AdjKind::Num));
    }
    assert_eq!(agree(r#"{"t":{"Flag":null}}"#, Adj::flag), Some(()));
    both_reject(r#"{"t":{"Num":{}},"c":5}"#, Adj::num);
    both_reject(r#"{"t":{"Num":1},"c":5}"#, Adj::num);
    both_reject(r#"{"t":{"Num":null,"Flag":null},"c":5}"#, Adj::num);
}

// ---------------------------------------------------------------------------
// Class 10: leaves whose decoding depends on serde_json's features. The leaf
// fast path reads only what every feature reads alike (plain strings,
// integers that fit a `u64`, bools, `null`, asked for as what they are); any
// float, and anything read from serde's buffer that the buffer could read
// otherwise, is decoded by serde_json itself, under whatever features the
// build enabled. These reads agree under the default features and under
// `arbitrary_precision` and `float_roundtrip` alike.

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Floats {
    single: f32,
    double: f64,
    any: serde_json::Value,
    number: serde_json::Number,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "k")]
enum BufferedFloats {
    F(Floats),
}

#[test]
fn class_10_feature_dependent_leaves_defer_to_serde_json() {
    for number in [
        "1.0000001788139343261718749",
        "2.638344616030823e-256",
        "0.1",
        "1e300",
        "18446744073709551616",
        "-0",
        "123456789012345678901234567890",
        "3",
    ] {
        let doc =
            format!(r#"{{"single":{number},"double":{number},"any":{number},"number":{number}}}"#);
        let buffered = format!(
            r#"{{"k":"F","single":{number},"double":{number},"any":{number},"number":{number}}}"#
        );
        if serde_json::from_str::<Floats>(&doc).is_ok() {
            agree(&doc, Floats::single);
            agree(&doc, Floats::double);
            agree(&doc, Floats::any);
            agree(&doc, Floats::number);
        }
        if serde_json::from_str::<BufferedFloats>(&buffered).is_ok() {
            agree(&buffered, BufferedFloats::f.then(Floats::single));
            agree(&buffered, BufferedFloats::f.then(Floats::double));
            agree(&buffered, BufferedFloats::f.then(Floats::any));
            agree(&buffered, BufferedFloats::f.then(Floats::number));
        }
    }
}

// ---------------------------------------------------------------------------
// Paths through smart pointers: `Box`, `Rc`, `Arc`, `Option<Box<T>>`, and
// recursive models.

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct List {
    value: u32,
    next: Option<Box<List>>,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Tree {
    label: String,
    left: Option<Box<Tree>>,
    right: Option<Rc<Tree>>,
    meta: Arc<Meta>,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Meta {
    depth: u8,
    #[serde(flatten)]
    extra: Box<Inner2>,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "op")]
enum Expr {
    Num { n: i64 },
    Neg(Box<Expr>),
    Add(Box<Pair>),
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Pair {
    left: Expr,
    right: Expr,
}

/// A model that leads back to itself through a newtype struct: `Node`'s
/// payload is an internally tagged enum, one of whose newtype variants holds
/// a `Node` again. serde's derive accepts it; so must ours.
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Node(Box<NodeKind>);

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "op")]
enum NodeKind {
    Lit { v: i64 },
    Neg(Node),
}

/// The same through a transparent struct.
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(transparent)]
struct Boxed {
    inner: Box<BoxedKind>,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "op")]
enum BoxedKind {
    Lit { v: i64 },
    Wrap(Boxed),
}

#[test]
fn models_recursive_through_a_newtype_compile_and_read() {
    let doc = r#"{"op":"Lit","v":7}"#;
    assert_eq!(agree(doc, Node::_0.then(NodeKind::lit_v)), Some(7));
    assert_eq!(agree(doc, Node::_0.then(NodeKind::neg)), None);
    assert_eq!(agree(doc, Boxed::inner.then(BoxedKind::lit_v)), Some(7));
    assert_eq!(agree(doc, Boxed::inner.then(BoxedKind::wrap)), None);
}

#[test]
fn smart_pointers_are_transparent_on_values_and_bytes() {
    let doc = r#"{"value":1,"next":{"value":2,"next":{"value":3,"next":null}}}"#;
    let third = List::next
        .then(some())
        .then(List::next)
        .then(some())
        .then(List::value);
    assert_eq!(agree(doc, third), Some(3));
    assert_eq!(
        agree(
            doc,
            List::next
                .then(some())
                .then(List::next)
                .then(some())
                .then(List::next)
        ),
        Some(None)
    );
    // Writes go through a `Box`.
    let mut list: List = serde_json::from_str(doc).unwrap();
    third.set(&mut list, 30);
    assert_eq!(third.preview(&list), Some(&30));
    // A recursive list walked with one optic, on values and on bytes.
    let step = List::next.then(some());
    let mut json = Json::<List>::new(doc.as_bytes());
    let mut seen = vec![json.read(List::value)];
    while let Some(next) = json.view(step) {
        json = Json::new(next.bytes());
        seen.push(json.read(List::value));
    }
    assert_eq!(seen, [Some(1), Some(2), Some(3)]);

    let doc = r#"{"label":"root","left":{"label":"l","left":null,"right":null,"meta":{"depth":1,"id":5}},
        "right":{"label":"r","left":null,"right":null,"meta":{"id":6,"depth":1}},"meta":{"depth":0,"id":4}}"#;
    assert_eq!(
        agree(doc, Tree::left.then(some()).then(Tree::label)),
        Some("l".to_owned())
    );
    assert_eq!(
        agree(
            doc,
            Tree::right.then(some()).then(Tree::meta).then(Meta::depth)
        ),
        Some(1)
    );
    assert_eq!(
        agree(doc, Tree::meta.then(Meta::extra).then(Inner2::id)),
        Some(4)
    );
    assert_eq!(
        agree(
            doc,
            Tree::right
                .then(some())
                .then(Tree::meta)
                .then(Meta::extra)
                .then(Inner2::id)
        ),
        Some(6)
    );
    // Through `Rc` and `Arc`, a path reads (and builds: `review`), and has no
    // `set` (`tests/ui/set-through-rc.rs`).
    let tree: Tree = serde_json::from_str(doc).unwrap();
    assert_eq!(
        Tree::meta.then(Meta::depth).get(&tree),
        &0,
        "a lens through an `Arc` is a getter"
    );

    // (A `Neg` written as an object would need a second `op`, a duplicate
    // serde rejects: as an array it nests.)
    for doc in [
        r#"{"op":"Num","n":4}"#,
        r#"["Neg","Num",4]"#,
        r#"["Neg","Neg","Num",4]"#,
        r#"{"op":"Add","left":{"op":"Num","n":1},"right":["Neg","Num",-2]}"#,
        r#"["Add",{"op":"Num","n":1},["Neg","Num",3]]"#,
    ] {
        let whole = serde_json::from_str::<Expr>(doc);
        assert!(whole.is_ok(), "{doc}: {whole:?}");
        agree(doc, Expr::kind);
        agree(doc, Expr::neg.then(Expr::neg).then(Expr::num_n));
        agree(doc, Expr::num_n);
        agree(doc, Expr::neg.then(Expr::num_n));
        agree(
            doc,
            Expr::add
                .then(Pair::right)
                .then(Expr::neg)
                .then(Expr::num_n),
        );
        agree(doc, Expr::add.then(Pair::left).then(Expr::kind));
    }
}

// ---------------------------------------------------------------------------
// Maps with keys serde_json writes as strings.

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Keys {
    by_id: HashMap<u32, String>,
    by_offset: BTreeMap<i64, u8>,
    flags: BTreeMap<bool, u8>,
    letters: HashMap<char, u8>,
    big: BTreeMap<u128, u8>,
}

#[test]
fn non_string_map_keys_on_values_and_bytes() {
    let doc = r#"{"by_id":{"1":"one","20":"twenty","1":"uno"},"by_offset":{"-5":1,"0":2},
        "flags":{"true":1,"false":0},"letters":{"a":1,"\u00e9":2,"\u0062":3},
        "big":{"340282366920938463463374607431768211455":9}}"#;
    assert_eq!(
        agree(doc, Keys::by_id.then(key(&1))),
        Some("uno".to_owned())
    );
    assert_eq!(
        agree(doc, Keys::by_id.then(key(&20))),
        Some("twenty".to_owned())
    );
    assert_eq!(agree(doc, Keys::by_id.then(key(&2))), None);
    assert_eq!(agree(doc, Keys::by_offset.then(key(&-5))), Some(1));
    assert_eq!(agree(doc, Keys::by_offset.then(key(&0))), Some(2));
    assert_eq!(agree(doc, Keys::flags.then(key(&true))), Some(1));
    assert_eq!(agree(doc, Keys::letters.then(key(&'é'))), Some(2));
    assert_eq!(agree(doc, Keys::letters.then(key(&'b'))), Some(3));
    assert_eq!(agree(doc, Keys::big.then(key(&u128::MAX))), Some(9));
    // Keys serde_json does not read as integers make the document invalid.
    for bad in [r#""01""#, r#"" 1""#, r#""1.0""#, r#""\u0031""#, r#""-0""#] {
        let doc = format!(
            r#"{{"by_id":{{{bad}:"x"}},"by_offset":{{}},"flags":{{}},"letters":{{}},"big":{{}}}}"#
        );
        both_reject(&doc, Keys::by_id.then(key(&1)));
    }
    // In serde's buffer a key stays a string: integer keys are refused there.
    #[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
    #[serde(tag = "t")]
    enum InBuffer {
        K(Keys),
    }
    both_reject(
        r#"{"t":"K","by_id":{"1":"x"},"by_offset":{},"flags":{},"letters":{},"big":{}}"#,
        InBuffer::k.then(Keys::by_id).then(key(&1)),
    );
    assert_eq!(
        agree(
            r#"{"t":"K","by_id":{},"by_offset":{},"flags":{},"letters":{"z":1},"big":{}}"#,
            InBuffer::k.then(Keys::letters).then(key(&'z'))
        ),
        Some(1)
    );
}

// ---------------------------------------------------------------------------
// The one documented difference of views: a view read on by itself is a
// document of its own, which serde_json reads directly.

#[test]
fn views_read_on_as_documents() {
    let doc = r#"{"kind":"Wrap","inner":{"type":"Logout"},"marker":{},"ratio":1,"small":2,"list":[],"choice":"Ping"}"#;
    // The whole path reads as serde does, from its buffer: `{}` is a unit struct.
    assert_eq!(agree(doc, Outer::wrap.then(Wrapped::marker)), Some(Nothing));
    // A view of the payload is the enum's object; read on by itself, its
    // `marker` is read as serde_json reads a document, where `{}` is no unit
    // struct.
    let payload = Json::<Outer>::new(doc.as_bytes())
        .view(Outer::wrap)
        .expect("the payload's view");
    assert_eq!(payload.bytes(), doc.as_bytes());
    assert_eq!(payload.read(Wrapped::marker), None);
    // Where the forms are the ones serde_json reads too, a view reads on alike.
    assert_eq!(payload.read(Wrapped::small), Some(2));
}
