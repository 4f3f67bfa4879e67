//! One test per serde attribute the derive reads: the byte reader must find what
//! serde_json finds. The oracle is serde_json's decode of the whole document,
//! previewed with the same optic ([`agree`]); each document is also read with
//! whitespace around every token ([`airy`]), and keys are written with escapes
//! (`"det\u0061il"`) where it matters.
//!
//! Where the byte reader knowingly differs from serde_json, the test asserts
//! the difference, and says why: duplicate struct keys (the reader takes the
//! first, serde_json rejects the document), and paths that go on *through* a
//! missing defaulted field (the reader misses; there are no bytes to go on in).

mod model;
mod support;

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;

use model::{as_string, Borrowed, BorrowedFrame, Detail, Incident, Issue, Origin};
use optics_core::prelude::*;
use serde::{Deserialize, Serialize};
use support::oracle::{agree, both_reject};

// ---------------------------------------------------------------------------
// rename

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Renamed {
    #[serde(rename = "detail")]
    inner: u32,
    #[serde(rename = "with space & ünïcödé")]
    odd: String,
    #[serde(rename(serialize = "out", deserialize = "in"))]
    split: bool,
    #[serde(rename = "r#type")]
    raw: u8,
    kind: RenamedKind,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
enum RenamedKind {
    #[serde(rename = "first-one")]
    First,
    #[serde(rename(deserialize = "second!"))]
    Second(u8),
}

#[test]
fn attr_rename() {
    let doc = r#"{"det\u0061il":7,"with space & \u00fcn\u00efc\u00f6d\u00e9":"x","in":true,"r#type":2,"kind":"first-one"}"#;
    assert_eq!(agree(doc, Renamed::inner), Some(7));
    assert_eq!(agree(doc, Renamed::odd), Some("x".to_owned()));
    assert_eq!(agree(doc, Renamed::split), Some(true));
    assert_eq!(agree(doc, Renamed::raw), Some(2));
    assert_eq!(agree(doc, Renamed::kind.then(RenamedKind::first)), Some(()));
    assert_eq!(agree(doc, Renamed::kind.then(RenamedKind::second)), None);
    let doc =
        r#"{"detail":7,"with space & ünïcödé":"x","in":true,"r#type":2,"kind":{"second!":9}}"#;
    assert_eq!(agree(doc, Renamed::kind.then(RenamedKind::second)), Some(9));
    assert_eq!(
        agree(doc, Renamed::kind.then(RenamedKind::kind)),
        Some(RenamedKindKind::Second)
    );
    // The Rust name, or the serialize-only name, is not what serde reads.
    both_reject(
        r#"{"inner":7,"with space & ünïcödé":"x","in":true,"r#type":2,"kind":"first-one"}"#,
        Renamed::inner,
    );
    both_reject(
        r#"{"detail":7,"with space & ünïcödé":"x","out":true,"r#type":2,"kind":"first-one"}"#,
        Renamed::split,
    );
    both_reject(
        r#"{"detail":7,"with space & ünïcödé":"x","in":true,"r#type":2,"kind":"First"}"#,
        Renamed::kind.then(RenamedKind::first),
    );
}

// ---------------------------------------------------------------------------
// rename_all, in every case style serde knows

macro_rules! rename_all_case {
    ($module:ident, $rule:literal) => {
        mod $module {
            use optics_core::prelude::*;
            use serde::Deserialize;

            #[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
            #[serde(rename_all = $rule)]
            pub struct Fields {
                pub very_tasty: u32,
                pub id: u8,
                pub http_code2: u16,
            }

            #[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
            #[serde(rename_all = $rule)]
            pub enum Variants {
                VeryTasty,
                Id(u8),
                HttpCode2 { n: u32 },
            }

            #[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
            #[serde(tag = "kind", rename_all = $rule)]
            pub enum Tagged {
                VeryTasty(Fields),
                Id,
            }
        }
    };
}

rename_all_case!(lower, "lowercase");
rename_all_case!(upper, "UPPERCASE");
rename_all_case!(pascal, "PascalCase");
rename_all_case!(camel, "camelCase");
rename_all_case!(snake, "snake_case");
rename_all_case!(screaming_snake, "SCREAMING_SNAKE_CASE");
rename_all_case!(kebab, "kebab-case");
rename_all_case!(screaming_kebab, "SCREAMING-KEBAB-CASE");

/// Reads a struct, a unit, a newtype and a struct variant, and an internally
/// tagged variant, under the names one rule gives; and checks that the names
/// another rule gives are not read.
macro_rules! check_rename_all {
    ($module:ident, [$f1:literal, $f2:literal, $f3:literal], [$v1:literal, $v2:literal, $v3:literal]) => {{
        use $module::{Fields, Tagged, Variants};
        let fields = format!(r#"{{"{}":1,"{}":2,"{}":3}}"#, $f1, $f2, $f3);
        assert_eq!(
            agree(&fields, Fields::very_tasty),
            Some(1),
            "{}",
            stringify!($module)
        );
        assert_eq!(agree(&fields, Fields::id), Some(2));
        assert_eq!(agree(&fields, Fields::http_code2), Some(3));
        assert_eq!(
            agree(&format!(r#""{}""#, $v1), Variants::very_tasty),
            Some(())
        );
        assert_eq!(agree(&format!(r#"{{"{}":4}}"#, $v2), Variants::id), Some(4));
        assert_eq!(
            agree(
                &format!(r#"{{"{}":{{"n":5}}}}"#, $v3),
                Variants::http_code2_n
            ),
            Some(5)
        );
        let tagged = format!(
            r#"{{"{}":1,"kind":"{}","{}":2,"{}":3}}"#,
            $f1, $v1, $f2, $f3
        );
        assert_eq!(agree(&tagged, Tagged::very_tasty.then(Fields::id)), Some(2));
        assert_eq!(
            agree(&format!(r#"{{"kind":"{}"}}"#, $v2), Tagged::id),
            Some(())
        );
        // The Rust names are read only where the rule keeps them.
        let rust = r#"{"very_tasty":1,"id":2,"http_code2":3}"#;
        if $f1 != "very_tasty" {
            both_reject(rust, Fields::very_tasty);
        }
        if $v1 != "VeryTasty" {
            both_reject(r#""VeryTasty""#, Variants::very_tasty);
        }
    }};
}

/// Renamed for writing alone, skipped for reading, and an alias: a kind's
/// `tag()` (and its `Display`) is the tag serde writes.
#[derive(Optics, serde::Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "snake_case")]
enum WrittenTags {
    #[serde(rename(serialize = "out", deserialize = "in"))]
    Renamed,
    #[serde(skip_deserializing)]
    NotRead,
    #[serde(alias = "other")]
    Plain,
}

#[test]
fn a_kind_s_tag_is_the_tag_serde_writes() {
    for (value, kind) in [
        (WrittenTags::Renamed, WrittenTagsKind::Renamed),
        (WrittenTags::NotRead, WrittenTagsKind::NotRead),
        (WrittenTags::Plain, WrittenTagsKind::Plain),
    ] {
        let written = serde_json::to_string(&value).unwrap();
        assert_eq!(format!("\"{}\"", kind.tag()), written, "{kind:?}");
        assert_eq!(kind.to_string(), kind.tag());
    }
    // Reading goes by the tags serde reads.
    assert_eq!(
        agree(r#""in""#, WrittenTags::kind),
        Some(WrittenTagsKind::Renamed)
    );
    assert_eq!(
        agree(r#""other""#, WrittenTags::kind),
        Some(WrittenTagsKind::Plain)
    );
}

#[test]
fn attr_rename_all() {
    check_rename_all!(
        lower,
        ["very_tasty", "id", "http_code2"],
        ["verytasty", "id", "httpcode2"]
    );
    check_rename_all!(
        upper,
        ["VERY_TASTY", "ID", "HTTP_CODE2"],
        ["VERYTASTY", "ID", "HTTPCODE2"]
    );
    check_rename_all!(
        pascal,
        ["VeryTasty", "Id", "HttpCode2"],
        ["VeryTasty", "Id", "HttpCode2"]
    );
    check_rename_all!(
        camel,
        ["veryTasty", "id", "httpCode2"],
        ["veryTasty", "id", "httpCode2"]
    );
    check_rename_all!(
        snake,
        ["very_tasty", "id", "http_code2"],
        ["very_tasty", "id", "http_code2"]
    );
    check_rename_all!(
        screaming_snake,
        ["VERY_TASTY", "ID", "HTTP_CODE2"],
        ["VERY_TASTY", "ID", "HTTP_CODE2"]
    );
    check_rename_all!(
        kebab,
        ["very-tasty", "id", "http-code2"],
        ["very-tasty", "id", "http-code2"]
    );
    check_rename_all!(
        screaming_kebab,
        ["VERY-TASTY", "ID", "HTTP-CODE2"],
        ["VERY-TASTY", "ID", "HTTP-CODE2"]
    );
    // The shared model uses several styles at once.
    let issue = serde_json::to_string(&sample_issue()).unwrap();
    assert!(issue.contains(r#""issueId""#) && issue.contains(r#""created-at""#));
    assert_eq!(agree(&issue, Issue::issue_id), Some(41));
    assert_eq!(
        agree(
            &issue,
            Issue::detail
                .then(Detail::incident)
                .then(Incident::started_at)
        ),
        Some(1700)
    );
}

// ---------------------------------------------------------------------------
// alias

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Aliased {
    #[serde(alias = "colour", alias = "couleur")]
    color: String,
    #[serde(rename = "n", alias = "number", alias = "num")]
    count: u32,
    shade: Shade,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Shade {
    #[serde(alias = "bright", alias = "pale")]
    Light,
    #[serde(alias = "deep")]
    Dark(u8),
}

#[test]
fn attr_alias() {
    for color in ["color", "colour", "couleur", r"c\u006flour"] {
        for count in ["n", "number", "num"] {
            for shade in [r#""light""#, r#""bright""#, r#""pale""#, r#""p\u0061le""#] {
                let doc = format!(r#"{{"shade":{shade},"{count}":3,"{color}":"red"}}"#);
                assert_eq!(agree(&doc, Aliased::color), Some("red".to_owned()));
                assert_eq!(agree(&doc, Aliased::count), Some(3));
                assert_eq!(agree(&doc, Aliased::shade.then(Shade::light)), Some(()));
                assert_eq!(
                    agree(&doc, Aliased::shade.then(Shade::kind)),
                    Some(ShadeKind::Light)
                );
            }
        }
    }
    for dark in ["dark", "deep"] {
        let doc = format!(r#"{{"color":"x","n":1,"shade":{{"{dark}":9}}}}"#);
        assert_eq!(agree(&doc, Aliased::shade.then(Shade::dark)), Some(9));
        assert_eq!(agree(&doc, Aliased::shade.then(Shade::light)), None);
    }
    // The Rust name of a renamed field is not an alias.
    both_reject(r#"{"color":"x","count":1,"shade":"light"}"#, Aliased::count);
    // The model: a field and a tag under their aliases.
    let doc = r#"{"issueId":1,"summary":"t","detail":{"type":"bug","module":"m","line_no":null,"frames":[],"build":"7"},
        "shape":"dot","event":{"t":"PING"},"counters":{},"created-at":0,"big-number":"1","votes":0,"span":[0,0],"type":"perf"}"#;
    assert_eq!(agree(doc, Issue::title_text), Some("t".to_owned()));
    assert_eq!(
        agree(doc, Issue::detail.then(Detail::bug).then(model::Bug::build)),
        Some(7)
    );
    assert_eq!(
        agree(doc, Issue::r#type),
        Some(model::Category::Performance)
    );
}

// ---------------------------------------------------------------------------
// default

fn forty_two() -> u32 {
    42
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Defaults {
    #[serde(default)]
    plain: u32,
    #[serde(default = "forty_two")]
    answer: u32,
    #[serde(default)]
    list: Vec<String>,
    #[serde(default)]
    inner: Settings,
    required: u8,
}

/// Container-level `#[serde(default)]`: a missing member takes the value
/// `Settings::default()` has for it, not its type's default.
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(default)]
struct Settings {
    retries: u32,
    name: String,
    verbose: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            retries: 3,
            name: "default".to_owned(),
            verbose: true,
        }
    }
}

/// Container-level `#[serde(default = "path")]`.
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(default = "Limits::standard")]
struct Limits {
    low: i32,
    high: i32,
    #[serde(default = "forty_two")]
    own: u32,
}

impl Limits {
    fn standard() -> Self {
        Limits {
            low: -5,
            high: 5,
            own: 0,
        }
    }
}

#[test]
fn attr_default() {
    let doc = r#"{"required":1}"#;
    assert_eq!(agree(doc, Defaults::plain), Some(0));
    assert_eq!(agree(doc, Defaults::answer), Some(42));
    assert_eq!(agree(doc, Defaults::list), Some(Vec::new()));
    assert_eq!(agree(doc, Defaults::inner), Some(Settings::default()));
    assert_eq!(agree(doc, Defaults::list.then(at(0))), None);
    // Present members are read as they are.
    let doc = r#"{"required":1,"plain":5,"answer":6,"list":["a"],"inner":{"name":"n"}}"#;
    assert_eq!(agree(doc, Defaults::plain), Some(5));
    assert_eq!(agree(doc, Defaults::answer), Some(6));
    assert_eq!(agree(doc, Defaults::list.then(at(0))), Some("a".to_owned()));
    assert_eq!(
        agree(doc, Defaults::inner.then(Settings::name)),
        Some("n".to_owned())
    );
    assert_eq!(agree(doc, Defaults::inner.then(Settings::retries)), Some(3));
    assert_eq!(
        agree(doc, Defaults::inner.then(Settings::verbose)),
        Some(true)
    );
    // Container defaults, both forms.
    assert_eq!(agree("{}", Settings::retries), Some(3));
    assert_eq!(agree("{}", Settings::name), Some("default".to_owned()));
    assert_eq!(
        agree(r#"{"verbose":false}"#, Settings::verbose),
        Some(false)
    );
    assert_eq!(agree(r#"{"high":9}"#, Limits::low), Some(-5));
    assert_eq!(agree(r#"{"high":9}"#, Limits::high), Some(9));
    // A field default wins over the container's.
    assert_eq!(agree("{}", Limits::own), Some(42));
    // No default: serde rejects the document, the reader misses.
    both_reject("{}", Defaults::required);

    // Documented divergence: a path that goes on *through* a missing defaulted
    // field. serde fills `inner` in and the value has a `retries`; the bytes have
    // no `inner` to go on in, so the reader misses.
    let doc = br#"{"required":1}"#;
    let whole: Defaults = serde_json::from_slice(doc).unwrap();
    let through = Defaults::inner.then(Settings::retries);
    assert_eq!(through.preview(&whole), Some(&3));
    assert_eq!(Json::<Defaults>::new(doc).read(through), None);
}

/// Defaults of a type parameter: serde infers `T: Default` for `w`, `s` and
/// `b`, and `Self: Default` for the container's; so do the byte reads.
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct GenericDefaults<T> {
    v: T,
    #[serde(default)]
    w: T,
    #[serde(skip)]
    s: T,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq, Default)]
#[serde(default)]
struct GenericContainerDefault<T> {
    a: T,
    b: Vec<T>,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
enum GenericVariants<T> {
    Pair {
        a: T,
        #[serde(skip)]
        b: T,
    },
    None,
}

#[test]
fn attr_default_of_a_type_parameter() {
    let doc = r#"{"v":5,"s":6}"#;
    assert_eq!(agree(doc, GenericDefaults::<u8>::v), Some(5));
    assert_eq!(agree(doc, GenericDefaults::<u8>::w), Some(0));
    assert_eq!(agree(doc, GenericDefaults::<u8>::s), Some(0));
    assert_eq!(
        agree(r#"{"v":"x","w":"y"}"#, GenericDefaults::<String>::w),
        Some("y".to_owned())
    );
    assert_eq!(agree("{}", GenericContainerDefault::<u8>::a), Some(0));
    assert_eq!(
        agree(r#"{"a":1}"#, GenericContainerDefault::<u8>::b),
        Some(Vec::new())
    );
    let doc = r#"{"Pair":{"a":1,"b":2}}"#;
    assert_eq!(agree(doc, GenericVariants::<u8>::pair_a), Some(1));
    assert_eq!(agree(doc, GenericVariants::<u8>::pair_b), Some(0));
}

// ---------------------------------------------------------------------------
// deserialize_with and with

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Numbers {
    #[serde(deserialize_with = "as_string::deserialize")]
    id: u64,
    #[serde(deserialize_with = "as_string::deserialize", default)]
    optional_id: u64,
    #[serde(deserialize_with = "parse_list")]
    list: Vec<u32>,
}

/// A comma-separated list in a string.
fn parse_list<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<u32>, D::Error> {
    let text = <&str>::deserialize(d)?;
    text.split(',')
        .filter(|part| !part.is_empty())
        .map(|part| part.trim().parse().map_err(serde::de::Error::custom))
        .collect()
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct WithModule {
    #[serde(with = "as_string")]
    big: u64,
    #[serde(with = "as_string", default)]
    small: u64,
    #[serde(with = "as_string", rename = "Other", alias = "other")]
    other: u64,
}

#[test]
fn attr_deserialize_with() {
    let doc = r#"{"list":"1, 2,3","id":"18446744073709551615"}"#;
    assert_eq!(agree(doc, Numbers::id), Some(u64::MAX));
    assert_eq!(agree(doc, Numbers::optional_id), Some(0));
    assert_eq!(agree(doc, Numbers::list), Some(vec![1, 2, 3]));
    // A path that goes on past a field read with a function: serde's value is
    // the function's result, which the bytes (here a string) do not hold. It
    // reads values; on bytes it does not compile (`tests/ui/read-through-with.rs`).
    let whole: Numbers = serde_json::from_slice(doc.as_bytes()).unwrap();
    assert_eq!(Numbers::list.then(at(1)).preview(&whole), Some(&2));
    assert_eq!(
        agree(
            r#"{"list":"","id":"1","optional_id":"2"}"#,
            Numbers::optional_id
        ),
        Some(2)
    );
    // The function decides what is accepted: a bare number is not.
    both_reject(r#"{"list":"","id":1}"#, Numbers::id);
    both_reject(r#"{"list":"x","id":"1"}"#, Numbers::list);
    // Missing without a default: serde does not call the function.
    both_reject(r#"{"list":""}"#, Numbers::id);
    // The model: `Bug::build`, through an internally tagged variant.
    let doc = r#"{"type":"bug_report","module":"m","line_no":1,"frames":[],"build":"99"}"#;
    assert_eq!(agree(doc, Detail::bug.then(model::Bug::build)), Some(99));
}

#[test]
fn attr_with() {
    let doc = r#"{"big":"12345678901234","other":"1"}"#;
    assert_eq!(agree(doc, WithModule::big), Some(12_345_678_901_234));
    assert_eq!(agree(doc, WithModule::small), Some(0));
    assert_eq!(agree(doc, WithModule::other), Some(1));
    assert_eq!(
        agree(r#"{"big":"1","small":"2","Other":"3"}"#, WithModule::small),
        Some(2)
    );
    assert_eq!(
        agree(r#"{"big":"1","small":"2","Other":"3"}"#, WithModule::other),
        Some(3)
    );
    both_reject(r#"{"big":1,"other":"1"}"#, WithModule::big);
    both_reject(r#"{"big":"-1","other":"1"}"#, WithModule::big);
    both_reject(r#"{"other":"1"}"#, WithModule::big);
    // The model: a flattened field read `with` a module.
    let issue = serde_json::to_string(&sample_issue()).unwrap();
    assert_eq!(
        agree(&issue, Issue::meta.then(model::Meta::big_number)),
        Some(1 << 60)
    );
}

/// What the derive advises for a function on a newtype variant's field (or
/// on the variant), which it refuses (`tests/ui/serde-with-in-newtype-variant.rs`):
/// a newtype struct whose field is read with the function. Its JSON is the
/// same, and the path reads as serde does.
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct PlusOne(#[serde(deserialize_with = "plus_one")] u32);

fn plus_one<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    Ok(u32::deserialize(d)? + 1)
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
enum Reading {
    Level(PlusOne),
    Off,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t", content = "c")]
enum AdjacentReading {
    Level(PlusOne),
    Off,
}

/// `{"y": n}` read as `XOnly { x: n }`.
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct FromY(#[serde(deserialize_with = "from_y")] XOnly);

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct XOnly {
    x: u32,
}

fn from_y<'de, D: serde::Deserializer<'de>>(d: D) -> Result<XOnly, D::Error> {
    #[derive(Deserialize)]
    struct Y {
        y: u32,
    }
    Ok(XOnly {
        x: Y::deserialize(d)?.y,
    })
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t")]
enum InternalPoint {
    A(FromY),
    B,
}

#[test]
fn attr_deserialize_with_on_a_newtype_payload() {
    assert_eq!(
        agree(r#"{"Level":5}"#, Reading::level.then(PlusOne::_0)),
        Some(6)
    );
    assert_eq!(agree(r#"{"Level":5}"#, Reading::level), Some(PlusOne(6)));
    assert_eq!(agree(r#""Off""#, Reading::level), None);
    for doc in [r#"{"t":"Level","c":5}"#, r#"{"c":5,"t":"Level"}"#] {
        assert_eq!(
            agree(doc, AdjacentReading::level.then(PlusOne::_0)),
            Some(6)
        );
    }
    let doc = r#"{"t":"A","y":1,"x":2}"#;
    assert_eq!(
        agree(doc, InternalPoint::a.then(FromY::_0)),
        Some(XOnly { x: 1 })
    );
}

// ---------------------------------------------------------------------------
// transparent

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(transparent)]
struct UserId(u64);

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(transparent)]
struct Labels {
    list: Vec<UserId>,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(transparent)]
struct Cached {
    #[serde(skip)]
    hits: u32,
    value: Holder,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Holder {
    user: UserId,
    labels: Labels,
}

#[test]
fn attr_transparent() {
    assert_eq!(agree(" 7 ", UserId::_0), Some(7));
    assert_eq!(
        agree("[1, 2]", Labels::list.then(at(1)).then(UserId::_0)),
        Some(2)
    );
    let doc = r#"{"labels":[3,4,5],"user":9}"#;
    assert_eq!(agree(doc, Holder::user.then(UserId::_0)), Some(9));
    assert_eq!(
        agree(doc, Holder::labels.then(Labels::list).then(at(2))),
        Some(UserId(5))
    );
    assert_eq!(
        agree(doc, Cached::value.then(Holder::user)),
        Some(UserId(9))
    );
    assert_eq!(agree(doc, Cached::hits), Some(0));
    assert_eq!(
        agree(
            doc,
            Cached::value
                .then(Holder::labels)
                .then(Labels::list)
                .then(at(0))
        ),
        Some(UserId(3))
    );
    both_reject(r#"{"labels":[],"user":"9"}"#, Holder::user.then(UserId::_0));
    // The model: a transparent struct and a transparent tuple newtype.
    let issue = serde_json::to_string(&sample_issue()).unwrap();
    assert_eq!(
        agree(&issue, Issue::votes.then(model::Votes::count)),
        Some(12)
    );
}

// ---------------------------------------------------------------------------
// flatten

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Envelope {
    message_id: u32,
    #[serde(flatten)]
    header: Header,
    #[serde(flatten)]
    detail: Detail,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Header {
    #[serde(alias = "src")]
    source: String,
    #[serde(flatten)]
    trace: Trace,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Trace {
    #[serde(rename = "trace-id")]
    id: u64,
    #[serde(default)]
    sampled: bool,
}

#[test]
fn attr_flatten() {
    let doc = r#"{"type":"Incident","trace-id":5,"SEVERITY":"HIGH","messageId":1,"src":"api",
        "STARTED_AT":9,"IMPACT":{"Service":{"NAME":"db","TIER":"critical","TYPE":"sql","OWNER-IDS":[]},"Users":3,"Regions":[]}}"#;
    assert_eq!(agree(doc, Envelope::message_id), Some(1));
    assert_eq!(
        agree(doc, Envelope::header.then(Header::source)),
        Some("api".to_owned())
    );
    assert_eq!(
        agree(doc, Envelope::header.then(Header::trace).then(Trace::id)),
        Some(5)
    );
    assert_eq!(
        agree(
            doc,
            Envelope::header.then(Header::trace).then(Trace::sampled)
        ),
        Some(false)
    );
    assert_eq!(
        agree(doc, Envelope::header.then(Header::trace)),
        Some(Trace {
            id: 5,
            sampled: false
        })
    );
    // An internally tagged enum, flattened: its tag is among the outer members.
    assert_eq!(
        agree(
            doc,
            Envelope::detail
                .then(Detail::incident)
                .then(Incident::severity)
        ),
        Some(model::Severity::High)
    );
    assert_eq!(
        agree(doc, Envelope::detail.then(Detail::kind)),
        Some(model::DetailKind::Incident)
    );
    assert_eq!(agree(doc, Envelope::detail.then(Detail::bug)), None);
    both_reject(
        r#"{"messageId":1,"src":"api","type":"Unknown"}"#,
        Envelope::header.then(Header::trace),
    );
}

/// A catch-all map under `flatten`: serde gives it the members no other
/// field takes, which stand among the others in the bytes, so it has no
/// optic (`#[optics(skip)]`, which the derive asks for); the other fields
/// keep theirs, and read as serde reads them.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct CatchAll {
    id: u32,
    #[serde(flatten)]
    #[optics(skip)]
    extra: HashMap<String, serde_json::Value>,
    #[serde(rename = "Name", alias = "n")]
    name: String,
    #[serde(flatten)]
    trace: Trace,
}

/// A struct with its own catch-all, flattened into another.
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct AroundCatchAll {
    first: u8,
    #[serde(flatten)]
    inner: CatchAllCounts,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct CatchAllCounts {
    #[serde(flatten)]
    #[optics(skip)]
    counts: BTreeMap<String, u32>,
    total: u32,
}

#[test]
fn attr_flatten_catch_all_map() {
    let doc = r#"{"x":{"id":9,"Name":"inner"},"id":1,"Name":"a","trace-id":7,"y":[{"n":"z"}]}"#;
    assert_eq!(agree(doc, CatchAll::id), Some(1));
    assert_eq!(agree(doc, CatchAll::name), Some("a".to_owned()));
    assert_eq!(agree(doc, CatchAll::trace.then(Trace::id)), Some(7));
    assert_eq!(
        agree(doc, CatchAll::trace.then(Trace::sampled)),
        Some(false)
    );
    // The members in another order, the name by its alias and escaped.
    let doc = r#"{"trace-id":3,"\u006e":"b","extra":{"id":5},"sampled":true,"id":2}"#;
    assert_eq!(agree(doc, CatchAll::id), Some(2));
    assert_eq!(agree(doc, CatchAll::name), Some("b".to_owned()));
    assert_eq!(agree(doc, CatchAll::trace.then(Trace::sampled)), Some(true));
    // A struct serde reads as a map is not read from an array.
    both_reject(r#"[1,{},"a",{"trace-id":1}]"#, CatchAll::id);
    both_reject(r#"[{"a":1},9]"#, CatchAllCounts::total);
    both_reject(r#"[9]"#, CatchAllCounts::total);
    assert_eq!(
        agree(r#"{"a":1,"total":9}"#, CatchAllCounts::total),
        Some(9)
    );
    // Nested: the inner catch-all takes nothing the outer's fields read.
    let doc = r#"{"a":1,"first":4,"total":9,"b":2}"#;
    assert_eq!(agree(doc, AroundCatchAll::first), Some(4));
    assert_eq!(
        agree(doc, AroundCatchAll::inner.then(CatchAllCounts::total)),
        Some(9)
    );
}

#[test]
fn attr_flatten_catch_all_map_writes_as_serde_does() {
    // What serde decodes after the same write on the value: the map, before
    // the flattened `trace`, also sees its members, as serde hands them.
    fn decoded(value: &CatchAll) -> CatchAll {
        serde_json::from_slice(&serde_json::to_vec(value).unwrap()).unwrap()
    }
    let value = CatchAll {
        id: 1,
        extra: HashMap::from([
            ("id2".to_owned(), serde_json::json!({"id": 3})),
            ("Name2".to_owned(), serde_json::json!("x")),
        ]),
        name: "a".to_owned(),
        trace: Trace {
            id: 7,
            sampled: true,
        },
    };
    let bytes = serde_json::to_vec(&value).unwrap();
    let json = Json::<CatchAll>::new(&bytes);
    let written = json.set(CatchAll::id, &8).expect("id is written in place");
    let mut expected = value.clone();
    CatchAll::id.set(&mut expected, 8);
    assert_eq!(
        serde_json::from_slice::<CatchAll>(&written).unwrap(),
        decoded(&expected)
    );
    let name = "b\"c".to_owned();
    let written = json
        .set(CatchAll::name, &name)
        .expect("the name is written in place");
    let mut expected = value;
    CatchAll::name.set(&mut expected, name);
    assert_eq!(
        serde_json::from_slice::<CatchAll>(&written).unwrap(),
        decoded(&expected)
    );
}

// ---------------------------------------------------------------------------
// skip and skip_deserializing

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Skips {
    #[serde(skip)]
    cache: Vec<u8>,
    #[serde(skip, default = "forty_two")]
    answer: u32,
    kept: u8,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct SkipTuple(u32, #[serde(skip)] u8, i32);

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct SkipPair(u32, #[serde(skip)] u8);

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(default = "Skipped::standard")]
struct Skipped {
    #[serde(skip)]
    from_container: u32,
    seen: u32,
}

impl Skipped {
    fn standard() -> Self {
        Skipped {
            from_container: 77,
            seen: 1,
        }
    }
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
enum SkipVariants {
    Line(i32, #[serde(skip)] u8, i32),
    Pair(#[serde(skip)] u8, u32),
    #[serde(skip)]
    Hidden(u32),
    Shown(u32),
}

/// serde reads the only field of a newtype struct whatever its `skip`,
/// `skip_deserializing` or `default` say: `5` is `SkipNewtype(5)`.
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct SkipNewtype(#[serde(skip)] u8);

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct SkipDeNewtype(#[serde(skip_deserializing, default = "forty_two")] u32);

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct DefaultNewtype(#[serde(default)] u8);

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Newtypes {
    skip: SkipNewtype,
    skip_de: SkipDeNewtype,
    default: DefaultNewtype,
}

#[test]
fn attr_skip() {
    // A skipped member in the document is ignored.
    let doc = r#"{"cache":[1,2],"answer":1,"kept":3}"#;
    assert_eq!(agree(doc, Skips::cache), Some(Vec::new()));
    assert_eq!(agree(doc, Skips::answer), Some(42));
    assert_eq!(agree(doc, Skips::kept), Some(3));
    assert_eq!(agree(doc, Skips::cache.then(at(0))), None);
    assert_eq!(agree(r#"{"seen":2}"#, Skipped::from_container), Some(77));
    assert_eq!(agree(r#"{"seen":2}"#, Skipped::seen), Some(2));
    // In a tuple struct a skipped field takes no element.
    assert_eq!(agree("[1, -2]", SkipTuple::_0), Some(1));
    assert_eq!(agree("[1, -2]", SkipTuple::_1), Some(0));
    assert_eq!(agree("[1, -2]", SkipTuple::_2), Some(-2));
    assert_eq!(agree("[5]", SkipPair::_0), Some(5));
    assert_eq!(agree("[5]", SkipPair::_1), Some(0));
    // And in a tuple variant.
    assert_eq!(agree(r#"{"Line":[1,-2]}"#, SkipVariants::line_0), Some(1));
    assert_eq!(agree(r#"{"Line":[1,-2]}"#, SkipVariants::line_1), Some(0));
    assert_eq!(agree(r#"{"Line":[1,-2]}"#, SkipVariants::line_2), Some(-2));
    assert_eq!(agree(r#"{"Pair":[6]}"#, SkipVariants::pair_0), Some(0));
    assert_eq!(agree(r#"{"Pair":[6]}"#, SkipVariants::pair_1), Some(6));
    // A newtype struct's only field is read, skipped or not.
    assert_eq!(agree("5", SkipNewtype::_0), Some(5));
    assert_eq!(agree("5", SkipDeNewtype::_0), Some(5));
    assert_eq!(agree("5", DefaultNewtype::_0), Some(5));
    both_reject("null", SkipNewtype::_0);
    both_reject("[5]", SkipNewtype::_0);
    let doc = r#"{"skip":1,"skip_de":2,"default":3}"#;
    assert_eq!(agree(doc, Newtypes::skip.then(SkipNewtype::_0)), Some(1));
    assert_eq!(
        agree(doc, Newtypes::skip_de.then(SkipDeNewtype::_0)),
        Some(2)
    );
    assert_eq!(
        agree(doc, Newtypes::default.then(DefaultNewtype::_0)),
        Some(3)
    );
    // A skipped variant is never read.
    both_reject(r#"{"Hidden":1}"#, SkipVariants::hidden);
    assert_eq!(agree(r#"{"Shown":1}"#, SkipVariants::shown), Some(1));
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "UPPERCASE")]
struct SkipDe {
    #[serde(skip_deserializing)]
    computed: String,
    #[serde(skip_deserializing, default = "forty_two")]
    answer: u32,
    value: u32,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "kind")]
enum SkipDeVariants {
    #[serde(skip_deserializing)]
    Legacy,
    Current,
    #[serde(other)]
    Unknown,
}

#[test]
fn attr_skip_deserializing() {
    let doc = r#"{"COMPUTED":"x","ANSWER":1,"VALUE":2}"#;
    assert_eq!(agree(doc, SkipDe::computed), Some(String::new()));
    assert_eq!(agree(doc, SkipDe::answer), Some(42));
    assert_eq!(agree(doc, SkipDe::value), Some(2));
    // A variant serde does not read is an unknown tag: the `other` variant.
    assert_eq!(agree(r#"{"kind":"Legacy"}"#, SkipDeVariants::legacy), None);
    assert_eq!(
        agree(r#"{"kind":"Legacy"}"#, SkipDeVariants::unknown),
        Some(())
    );
    assert_eq!(
        agree(r#"{"kind":"Legacy"}"#, SkipDeVariants::kind),
        Some(SkipDeVariantsKind::Unknown)
    );
    assert_eq!(
        agree(r#"{"kind":"Current"}"#, SkipDeVariants::current),
        Some(())
    );
}

// ---------------------------------------------------------------------------
// Option fields missing or null

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Optionals {
    plain: Option<u32>,
    nested: Option<Option<u32>>,
    #[serde(default)]
    defaulted: Option<String>,
    #[serde(deserialize_with = "some_string")]
    custom: Option<String>,
    list: Option<Vec<Option<u8>>>,
}

fn some_string<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Option::<String>::deserialize(d)
}

#[test]
fn attr_option_missing_or_null() {
    for doc in [
        r#"{"custom":null}"#,
        r#"{"plain":null,"nested":null,"defaulted":null,"custom":null,"list":null}"#,
    ] {
        assert_eq!(agree(doc, Optionals::plain), Some(None));
        assert_eq!(agree(doc, Optionals::plain.then(some())), None);
        assert_eq!(agree(doc, Optionals::nested), Some(None));
        assert_eq!(agree(doc, Optionals::nested.then(some())), None);
        assert_eq!(agree(doc, Optionals::defaulted), Some(None));
        assert_eq!(agree(doc, Optionals::custom), Some(None));
        assert_eq!(agree(doc, Optionals::list), Some(None));
        assert_eq!(agree(doc, Optionals::list.then(some()).then(at(0))), None);
    }
    let doc = r#"{"plain":1,"nested":2,"defaulted":"d","custom":"c","list":[null,4]}"#;
    assert_eq!(agree(doc, Optionals::plain.then(some())), Some(1));
    assert_eq!(agree(doc, Optionals::nested), Some(Some(Some(2))));
    assert_eq!(
        agree(doc, Optionals::nested.then(some()).then(some())),
        Some(2)
    );
    assert_eq!(
        agree(doc, Optionals::defaulted.then(some())),
        Some("d".to_owned())
    );
    // (A path that goes on past a field read `with` a function reads values
    // only: `tests/ui/read-through-with.rs`.)
    assert_eq!(agree(doc, Optionals::custom), Some(Some("c".to_owned())));
    assert_eq!(
        agree(doc, Optionals::list.then(some()).then(at(0))),
        Some(None)
    );
    assert_eq!(
        agree(doc, Optionals::list.then(some()).then(at(0)).then(some())),
        None
    );
    assert_eq!(
        agree(doc, Optionals::list.then(some()).then(at(1)).then(some())),
        Some(4)
    );
    // A `deserialize_with` field is not optional when missing, even an Option.
    both_reject("{}", Optionals::custom);
    // The model: `Incident::note`, missing, null and present.
    for (note, want) in [
        ("", None),
        (r#","NOTE":null"#, None),
        (r#","NOTE":"n""#, Some("n")),
    ] {
        let doc = format!(
            r#"{{"type":"Incident","SEVERITY":"LOW","STARTED_AT":1{note},"IMPACT":{{"Service":{{"NAME":"a","TIER":"standard","TYPE":"t","OWNER-IDS":[]}},"Users":0,"Regions":[]}}}}"#
        );
        assert_eq!(
            agree(&doc, Detail::incident.then(Incident::note)),
            Some(want.map(str::to_owned))
        );
    }
}

// ---------------------------------------------------------------------------
// Enum encodings

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "type")]
enum Internal {
    Point(Point),
    Named {
        x: i32,
        #[serde(default)]
        y: i32,
    },
    Empty,
    Wrapped(Box<Point>),
    Strict(StrictPoint),
    Map(BTreeMap<String, i32>),
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
struct StrictPoint {
    x: i32,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Point {
    x: i32,
    y: i32,
}

#[test]
fn attr_tag_internal() {
    // The tag may stand anywhere among the payload's members, escaped or not.
    for doc in [
        r#"{"type":"Point","x":1,"y":2}"#,
        r#"{"x":1,"type":"Point","y":2}"#,
        r#"{"x":1,"y":2,"type":"Point"}"#,
        r#"{"x":1,"y":2,"t\u0079pe":"P\u006fint"}"#,
    ] {
        assert_eq!(agree(doc, Internal::point.then(Point::x)), Some(1));
        assert_eq!(agree(doc, Internal::point.then(Point::y)), Some(2));
        assert_eq!(agree(doc, Internal::point), Some(Point { x: 1, y: 2 }));
        assert_eq!(agree(doc, Internal::named_x), None);
        assert_eq!(agree(doc, Internal::empty), None);
        assert_eq!(agree(doc, Internal::kind), Some(InternalKind::Point));
    }
    let doc = r#"{"x":-4,"type":"Named"}"#;
    assert_eq!(agree(doc, Internal::named_x), Some(-4));
    assert_eq!(agree(doc, Internal::named_y), Some(0));
    assert_eq!(agree(doc, Internal::point), None);
    assert_eq!(
        agree(r#"{"type":"Empty","extra":1}"#, Internal::empty),
        Some(())
    );
    assert_eq!(
        agree(r#"{"y":3,"type":"Wrapped","x":5}"#, Internal::wrapped),
        Some(Box::new(Point { x: 5, y: 3 }))
    );
    // serde hands the payload the members besides the tag: a strict struct
    // accepts them, a map does not get the tag as an entry.
    let doc = r#"{"x":5,"t\u0079pe":"Strict"}"#;
    assert_eq!(agree(doc, Internal::strict), Some(StrictPoint { x: 5 }));
    assert_eq!(agree(doc, Internal::strict.then(StrictPoint::x)), Some(5));
    let doc = r#"{"a":1,"type":"Map","b":2}"#;
    let map = agree(doc, Internal::map).unwrap();
    assert_eq!(map.keys().collect::<Vec<_>>(), ["a", "b"]);
    assert_eq!(agree(doc, Internal::map.then(key("b"))), Some(2));
    // `key(k)` in such a map payload does not find the tag either.
    let doc = r#"{"type":"Map","a":1}"#;
    let tag = Internal::map.then(key::<BTreeMap<String, i32>, str>("type"));
    assert_eq!(agree(doc, tag), None);
    assert!(Json::<Internal>::new(doc.as_bytes()).view(tag).is_none());
    // An unknown tag, a missing tag, a tag that is not a string.
    both_reject(r#"{"type":"Line","x":1,"y":2}"#, Internal::point);
    both_reject(r#"{"x":1,"y":2}"#, Internal::point);
    both_reject(r#"{"x":1,"y":2}"#, Internal::kind);
    both_reject(r#"{"type":7,"x":1,"y":2}"#, Internal::kind);
    both_reject(r#""Point""#, Internal::point);
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t", content = "c")]
enum Adjacent {
    Ping,
    Text(String),
    Pair(u8, u8),
    Move { from: u32, to: u32 },
}

#[test]
fn attr_tag_adjacent() {
    // Tag before or after the content.
    for doc in [
        r#"{"t":"Text","c":"hi"}"#,
        r#"{"c":"hi","t":"Text"}"#,
        r#"{"\u0063":"hi","\u0074":"T\u0065xt"}"#,
    ] {
        assert_eq!(agree(doc, Adjacent::text), Some("hi".to_owned()));
        assert_eq!(agree(doc, Adjacent::ping), None);
        assert_eq!(agree(doc, Adjacent::kind), Some(AdjacentKind::Text));
    }
    // A unit variant: content missing or null.
    for doc in [
        r#"{"t":"Ping"}"#,
        r#"{"t":"Ping","c":null}"#,
        r#"{"c":null,"t":"Ping"}"#,
    ] {
        assert_eq!(agree(doc, Adjacent::ping), Some(()));
        assert_eq!(agree(doc, Adjacent::text), None);
    }
    let doc = r#"{"c":[1,2],"t":"Pair"}"#;
    assert_eq!(agree(doc, Adjacent::pair_0), Some(1));
    assert_eq!(agree(doc, Adjacent::pair_1), Some(2));
    let doc = r#"{"t":"Move","c":{"to":9,"from":8}}"#;
    assert_eq!(agree(doc, Adjacent::move_from), Some(8));
    assert_eq!(agree(doc, Adjacent::move_to), Some(9));
    assert_eq!(agree(doc, Adjacent::pair_0), None);
    // Unknown tag; a unit variant with content; a newtype without.
    both_reject(r#"{"t":"Pong"}"#, Adjacent::ping);
    both_reject(r#"{"t":"Ping","c":{"a":1}}"#, Adjacent::ping);
    both_reject(r#"{"t":"Text"}"#, Adjacent::text);
    both_reject(r#"{"t":"Move","c":{"from":8}}"#, Adjacent::move_to);
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
enum External {
    Unit,
    Newtype(Point),
    Tuple(i8, String),
    Struct {
        a: bool,
        #[serde(rename = "B")]
        b: Option<u8>,
    },
}

#[test]
fn attr_external() {
    for doc in [
        r#""Unit""#,
        r#"{"Unit":null}"#,
        r#" { "U\u006eit" : null } "#,
        r#""\u0055nit""#,
    ] {
        assert_eq!(agree(doc, External::unit), Some(()));
        assert_eq!(agree(doc, External::newtype), None);
        assert_eq!(agree(doc, External::kind), Some(ExternalKind::Unit));
    }
    let doc = r#"{"Newtype":{"y":2,"x":1}}"#;
    assert_eq!(agree(doc, External::newtype.then(Point::y)), Some(2));
    assert_eq!(agree(doc, External::unit), None);
    assert_eq!(agree(doc, External::kind), Some(ExternalKind::Newtype));
    let doc = r#"{"Tuple":[-1,"s"]}"#;
    assert_eq!(agree(doc, External::tuple_0), Some(-1));
    assert_eq!(agree(doc, External::tuple_1), Some("s".to_owned()));
    let doc = r#"{"Struct":{"B":null,"a":true}}"#;
    assert_eq!(agree(doc, External::struct_a), Some(true));
    assert_eq!(agree(doc, External::struct_b), Some(None));
    assert_eq!(
        agree(r#"{"Struct":{"a":true}}"#, External::struct_b),
        Some(None)
    );
    // Two keys, a unit variant with a payload, a newtype as a bare string.
    both_reject(r#"{"Unit":null,"Newtype":{"x":1,"y":2}}"#, External::unit);
    both_reject(r#"{"Unit":{}}"#, External::unit);
    both_reject(r#""Newtype""#, External::newtype);
    both_reject(r#"{"Other":1}"#, External::kind);
}

// ---------------------------------------------------------------------------
// other

#[derive(Optics, Deserialize, Debug, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Plan {
    Free,
    Pro,
    #[serde(other)]
    Unrecognized,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "op", content = "arg")]
enum Op {
    Add(i32),
    #[serde(other)]
    Unsupported,
}

#[test]
fn attr_other() {
    for (doc, kind) in [
        (r#""free""#, PlanKind::Free),
        (r#""enterprise""#, PlanKind::Unrecognized),
        (r#""Free""#, PlanKind::Unrecognized),
        (r#""unrecognized""#, PlanKind::Unrecognized),
        (r#""""#, PlanKind::Unrecognized),
        (r#"{"gold":null}"#, PlanKind::Unrecognized),
    ] {
        assert_eq!(agree(doc, Plan::kind), Some(kind), "{doc}");
        assert_eq!(
            agree(doc, Plan::unrecognized).is_some(),
            kind == PlanKind::Unrecognized
        );
        assert_eq!(agree(doc, Plan::free).is_some(), kind == PlanKind::Free);
    }
    // `other` is a unit variant: an unknown tag with content is rejected.
    both_reject(r#"{"op":"Mul","arg":[1]}"#, Op::unsupported);
    assert_eq!(
        agree(r#"{"op":"Mul","arg":null}"#, Op::unsupported),
        Some(())
    );
    assert_eq!(agree(r#"{"op":"Mul"}"#, Op::unsupported), Some(()));
    assert_eq!(
        agree(r#"{"op":"Mul"}"#, Op::kind),
        Some(OpKind::Unsupported)
    );
    assert_eq!(agree(r#"{"arg":3,"op":"Add"}"#, Op::add), Some(3));
    // The model: internally tagged and unit-only enums with `other`.
    assert_eq!(
        agree(r#"{"type":"Feature","title":"x"}"#, Detail::unknown),
        Some(())
    );
    assert_eq!(
        agree(r#"{"type":"Feature"}"#, Detail::kind),
        Some(model::DetailKind::Unknown)
    );
    assert_eq!(agree(r#""new-kind""#, model::Category::other), Some(()));
}

// ---------------------------------------------------------------------------
// borrow

/// Whether `inner` lies inside `outer`.
fn points_into(outer: &[u8], inner: &str) -> bool {
    let outer = outer.as_ptr_range();
    let inner = inner.as_bytes().as_ptr_range();
    outer.start <= inner.start && inner.end <= outer.end
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct RawBytes<'a> {
    #[serde(borrow)]
    raw: Cow<'a, [u8]>,
    #[serde(borrow)]
    change: Change2<'a>,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
enum Change2<'a> {
    Renamed {
        #[serde(borrow)]
        to: Cow<'a, str>,
        times: u8,
    },
}

#[test]
fn attr_borrow() {
    let message = br#"{"origin":{"Remote":"eu-1"},"frames":[{"line":3,"file":"a.rs"},{"file":"b.rs","line":4}],"name":"svc","module":"auth"}"#;
    let whole: Borrowed<'_> = serde_json::from_slice(message).unwrap();
    let json = Json::<Borrowed<'_>>::new(message);

    let module: &str = json.read(Borrowed::module).unwrap();
    assert_eq!(module, whole.module);
    assert!(points_into(message, module));

    let file = json
        .read(Borrowed::frames.then(at(1)).then(BorrowedFrame::file))
        .unwrap();
    assert_eq!(file, "b.rs");
    assert!(points_into(message, file));

    let remote = json.read(Borrowed::origin.then(Origin::remote)).unwrap();
    assert_eq!(Some(&remote), Origin::remote.preview(&whole.origin));
    assert!(points_into(message, remote));

    // A `#[serde(borrow)]` Cow borrows as serde's does.
    let name = json.read(Borrowed::name).unwrap();
    assert_eq!(name, whole.name);
    assert!(matches!(whole.name, Cow::Borrowed(_)));
    assert!(
        matches!(name, Cow::Borrowed(_)),
        "serde borrows, the reader copies: {name:?}"
    );
    assert!(points_into(message, &name));

    // With an escape nothing can be borrowed: the Cow owns, a &str misses,
    // and serde_json rejects the whole.
    let escaped = br#"{"origin":"Local","frames":[],"name":"s\u0076c","module":"a\"b"}"#;
    assert!(serde_json::from_slice::<Borrowed<'_>>(escaped).is_err());
    let json = Json::<Borrowed<'_>>::new(escaped);
    assert_eq!(json.read(Borrowed::module), None);
    assert_eq!(
        json.read(Borrowed::name),
        Some(Cow::Owned("svc".to_owned()))
    );
    assert_eq!(json.read(Borrowed::origin.then(Origin::local)), Some(()));

    // Borrowed Cows of bytes, and in a struct variant.
    let message = br#"{"raw":"abc","change":{"Renamed":{"times":2,"to":"new"}}}"#;
    let whole: RawBytes<'_> = serde_json::from_slice(message).unwrap();
    let json = Json::<RawBytes<'_>>::new(message);
    let raw = json.read(RawBytes::raw).unwrap();
    assert_eq!(raw, whole.raw);
    assert!(matches!(whole.raw, Cow::Borrowed(_)));
    assert!(matches!(raw, Cow::Borrowed(_)), "{raw:?}");
    let to = json
        .read(RawBytes::change.then(Change2::renamed_to))
        .unwrap();
    assert_eq!(Some(&to), Change2::renamed_to.preview(&whole.change));
    assert!(points_into(message, &to));
    // serde reads borrowed bytes from a string only, not from an array.
    let array = br#"{"raw":[97],"change":{"Renamed":{"times":2,"to":"new"}}}"#;
    assert!(serde_json::from_slice::<RawBytes<'_>>(array).is_err());
    assert_eq!(Json::<RawBytes<'_>>::new(array).read(RawBytes::raw), None);

    // A view of a String field reads as a borrowed &str.
    let issue = serde_json::to_vec(&sample_issue()).unwrap();
    let title: &str = Json::<Issue>::new(&issue)
        .view(Issue::title_text)
        .and_then(|view| view.read_as())
        .unwrap();
    assert_eq!(title, "title");
    assert!(points_into(&issue, title));
}

// ---------------------------------------------------------------------------
// rename_all_fields

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
enum Change {
    FieldAdded {
        field_name: String,
        is_required: bool,
    },
    #[serde(rename_all = "SCREAMING-KEBAB-CASE")]
    FieldRemoved {
        field_name: String,
        #[serde(rename = "why")]
        removal_reason: Option<String>,
    },
    Noop,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all_fields = "PascalCase")]
enum ExternalChange {
    Moved { from_path: String, to_path: String },
    Tuple(u8, u8),
}

#[test]
fn attr_rename_all_fields() {
    let doc = r#"{"isRequired":true,"kind":"field_added","fieldName":"f"}"#;
    assert_eq!(
        agree(doc, Change::field_added_field_name),
        Some("f".to_owned())
    );
    assert_eq!(agree(doc, Change::field_added_is_required), Some(true));
    assert_eq!(agree(doc, Change::field_removed_field_name), None);
    // The variant's own rename_all wins over the enum's rename_all_fields, and a
    // field's rename over both.
    let doc = r#"{"kind":"field_removed","FIELD-NAME":"g","why":"old"}"#;
    assert_eq!(
        agree(doc, Change::field_removed_field_name),
        Some("g".to_owned())
    );
    assert_eq!(
        agree(doc, Change::field_removed_removal_reason),
        Some(Some("old".to_owned()))
    );
    assert_eq!(agree(r#"{"kind":"noop"}"#, Change::noop), Some(()));
    both_reject(
        r#"{"kind":"field_added","field_name":"f","is_required":true}"#,
        Change::field_added_field_name,
    );
    let doc = r#"{"Moved":{"ToPath":"b","FromPath":"a"}}"#;
    assert_eq!(
        agree(doc, ExternalChange::moved_from_path),
        Some("a".to_owned())
    );
    assert_eq!(
        agree(doc, ExternalChange::moved_to_path),
        Some("b".to_owned())
    );
    assert_eq!(
        agree(r#"{"Tuple":[1,2]}"#, ExternalChange::tuple_1),
        Some(2)
    );
}

// ---------------------------------------------------------------------------
// Duplicate keys

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Dup {
    id: u32,
    #[serde(alias = "labels")]
    tags: HashMap<String, String>,
    sorted: BTreeMap<String, u8>,
}

#[test]
fn attr_duplicate_keys() {
    // A struct field given twice: serde_json rejects the document, the byte
    // reader takes the first (it stops at the first match, for speed).
    for doc in [
        r#"{"id":1,"tags":{},"sorted":{},"id":2}"#,
        r#"{"id":1,"tags":{},"sorted":{},"\u0069d":2}"#,
    ] {
        let error = serde_json::from_slice::<Dup>(doc.as_bytes()).unwrap_err();
        assert!(
            error.to_string().contains("duplicate field `id`"),
            "{error}"
        );
        assert_eq!(Json::<Dup>::new(doc.as_bytes()).read(Dup::id), Some(1));
    }
    // A name and its alias both present: the same.
    let doc = br#"{"id":1,"labels":{"a":"x"},"sorted":{},"tags":{"a":"y"}}"#;
    assert!(serde_json::from_slice::<Dup>(doc).is_err());
    assert_eq!(
        Json::<Dup>::new(doc).read(Dup::tags.then(key("a"))),
        Some("x".to_owned())
    );
    // An internally tagged enum's tag given twice.
    let doc = br#"{"type":"Unknown","type":"Incident"}"#;
    assert!(serde_json::from_slice::<Detail>(doc).is_err());
    assert_eq!(
        Json::<Detail>::new(doc).read(Detail::kind),
        Some(model::DetailKind::Unknown)
    );

    // A map key given twice: serde_json's maps keep the last, and so does key(k).
    let doc = r#"{"id":1,"tags":{"a":"first","b":"x","\u0061":"last"},"sorted":{"k":1,"k":2}}"#;
    assert_eq!(
        agree(doc, Dup::tags.then(key("a"))),
        Some("last".to_owned())
    );
    assert_eq!(agree(doc, Dup::tags.then(key("b"))), Some("x".to_owned()));
    assert_eq!(agree(doc, Dup::sorted.then(key("k"))), Some(2));
    assert_eq!(agree(doc, Dup::tags).map(|tags| tags.len()), Some(2));
}

// ---------------------------------------------------------------------------

fn sample_issue() -> Issue {
    use model::*;
    Issue {
        issue_id: 41,
        title_text: "title".to_owned(),
        detail: Detail::Incident(Incident {
            severity: Severity::High,
            started_at: 1700,
            impact: Impact {
                service: Service {
                    name: Module("db".to_owned()),
                    tier: Tier::Critical,
                    r#type: "sql".to_owned(),
                    owner_ids: vec![1, 2],
                },
                users: 10,
                regions: vec![Region::default()],
            },
            resolved: false,
            note: None,
        }),
        shape: Shape::Rect {
            width: 1,
            height: 2,
        },
        event: Event::Moved {
            from_pos: 1,
            to_pos: 2,
        },
        labels: vec!["a".to_owned()],
        tags: HashMap::from([("team".to_owned(), "core".to_owned())]),
        counters: BTreeMap::new(),
        meta: Meta {
            created_at: 5,
            big_number: 1 << 60,
            priority: 3,
        },
        cache: Vec::new(),
        votes: Votes { count: 12 },
        span: Span(1, 2),
        r#type: Category::Crash,
    }
}
