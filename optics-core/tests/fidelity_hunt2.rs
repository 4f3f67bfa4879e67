//! A second hunt for models the derive accepts whose byte reads or writes
//! disagree with serde_json: borrowed leaves (`&str`, `&[u8]`, `Cow` with
//! and without `#[serde(borrow)]`) in nested, flattened and internally or
//! adjacently tagged places; generic models (`bound`, type parameters that
//! are flattened or are enum payloads, const parameters, `PhantomData`);
//! std types serde reads specially (`Cell`, `RefCell`, `Mutex`, `Wrapping`,
//! `Reverse`, `NonZeroU32`, `Duration`, `SystemTime`, addresses, `PathBuf`,
//! `char`, `()`), also in serde's buffer; `serde_json::Value`, `RawValue`
//! and `Map` fields; renames that need escapes; map keys of every kind
//! spelled as serde_json does and does not accept them.
//!
//! Each check reads the path from the document as written and with
//! whitespace around every token, trusting and strict; where serde_json
//! accepts the document, both must equal its decode previewed with the
//! path. A document serde_json rejects is passed over, but each test checks
//! that most of its documents were accepted.

mod support;

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;
use std::marker::PhantomData;
use std::net::{IpAddr, SocketAddr};
use std::num::{NonZeroU32, Wrapping};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use optics_core::json::{Duplicates, Strict};
use optics_core::prelude::*;
use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use support::probe::{forms, probe, probe_in, probe_set, Checks};
use support::rewrite::Rewrite;

// ---------------------------------------------------------------------------
// 1. Borrowing.

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Leaves<'a> {
    #[serde(borrow)]
    text: Cow<'a, str>,
    #[serde(borrow)]
    bytes: Cow<'a, [u8]>,
    plain: Cow<'a, str>,
    plain_bytes: Cow<'a, [u8]>,
    s: &'a str,
    b: &'a [u8],
    #[serde(borrow)]
    std_cow: std::borrow::Cow<'a, str>,
    #[serde(borrow = "'a")]
    named: Cow<'a, [u8]>,
    #[serde(borrow)]
    maybe: Option<Cow<'a, str>>,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct FlatLeaves<'a> {
    #[serde(borrow)]
    f_text: Cow<'a, str>,
    #[serde(borrow)]
    f_bytes: Cow<'a, [u8]>,
    f_s: &'a str,
    f_b: &'a [u8],
    f_plain_bytes: Cow<'a, [u8]>,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t")]
enum TaggedLeaves<'a> {
    Leaves {
        #[serde(borrow)]
        text: Cow<'a, str>,
        #[serde(borrow)]
        bytes: Cow<'a, [u8]>,
        s: &'a str,
        b: &'a [u8],
        plain_bytes: Cow<'a, [u8]>,
    },
    Inner(#[serde(borrow)] Leaves<'a>),
    Flat(#[serde(borrow)] WithFlat<'a>),
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t", content = "c")]
enum AdjacentLeaves<'a> {
    Pair(&'a str, #[serde(borrow)] Cow<'a, [u8]>),
    Fields {
        b: &'a [u8],
        #[serde(borrow)]
        text: Cow<'a, str>,
    },
    Bytes(&'a [u8]),
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
enum ExternalLeaves<'a> {
    Pair(&'a str, #[serde(borrow)] Cow<'a, [u8]>),
    Fields {
        b: &'a [u8],
        #[serde(borrow)]
        text: Cow<'a, str>,
    },
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct WithFlat<'a> {
    n: u8,
    #[serde(borrow, flatten)]
    flat: FlatLeaves<'a>,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct BorrowedNewtype<'a>(#[serde(borrow)] Cow<'a, [u8]>);

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Borrowing<'a> {
    #[serde(borrow)]
    leaves: Leaves<'a>,
    #[serde(borrow)]
    with_flat: WithFlat<'a>,
    #[serde(borrow)]
    tagged: TaggedLeaves<'a>,
    #[serde(borrow)]
    adjacent: AdjacentLeaves<'a>,
    #[serde(borrow)]
    external: ExternalLeaves<'a>,
    #[serde(borrow)]
    newtype: BorrowedNewtype<'a>,
}

const LEAVES: &str = r#"{"text":"t","bytes":"by","plain":"p","plain_bytes":[1,2],"s":"s","b":"b","std_cow":"c","named":"nm","maybe":"m"}"#;
const LEAVES_ESCAPED: &str = r#"{"text":"t\"","bytes":"b\u0079","plain":"p\n","plain_bytes":[],"s":"s","b":"b","std_cow":"\u00e9","named":"\\","maybe":"\/"}"#;
const FLAT: &str =
    r#"{"n":1,"f_text":"ft","f_bytes":"fb","f_s":"fs","f_b":"fbb","f_plain_bytes":[3]}"#;
const FLAT_ESCAPED: &str =
    r#"{"f_text":"f\"t","f_b":"x","n":1,"f_bytes":"f\u0062","f_s":"fs","f_plain_bytes":[]}"#;

fn borrowing_docs() -> Vec<String> {
    let mut docs = Vec::new();
    let tagged = [
        r#"{"t":"Leaves","text":"a","bytes":"bb","s":"ss","b":"b","plain_bytes":[9]}"#.to_owned(),
        r#"{"text":"a\"","bytes":"b\u0062","t":"Leaves","s":"ss","b":"b","plain_bytes":[]}"#
            .to_owned(),
        r#"{"text":"a","bytes":[1,2],"t":"Leaves","s":"ss","b":"b","plain_bytes":[]}"#.to_owned(),
        r#"{"text":"a","bytes":"x","t":"Leaves","s":"ss","b":[1],"plain_bytes":[]}"#.to_owned(),
        r#"{"text":"a","bytes":"x","t":"Leaves","s":"ss","b":"b","plain_bytes":"pb"}"#.to_owned(),
        r#"["Leaves","a","bb","ss","b",[1]]"#.to_owned(),
        LEAVES.replacen('{', r#"{"t":"Inner","#, 1),
        LEAVES_ESCAPED.replacen('{', r#"{"t":"Inner","#, 1),
        FLAT.replacen('{', r#"{"t":"Flat","#, 1),
        FLAT_ESCAPED.replacen('{', r#"{"t":"Flat","#, 1),
    ];
    let adjacent = [
        r#"{"t":"Pair","c":["p","q"]}"#,
        r#"{"c":["p","q"],"t":"Pair"}"#,
        r#"{"c":["p","q\n"],"t":"Pair"}"#,
        r#"{"c":["p",[1,2]],"t":"Pair"}"#,
        r#"{"t":"Fields","c":{"b":"bb","text":"tx"}}"#,
        r#"{"c":{"text":"t\"x","b":"bb"},"t":"Fields"}"#,
        r#"{"c":["bb","tx"],"t":"Fields"}"#,
        r#"{"c":"raw","t":"Bytes"}"#,
        r#"{"t":"Bytes","c":"raw"}"#,
        r#"{"t":"Bytes","c":[1,2]}"#,
    ];
    let external = [
        r#"{"Pair":["p","q"]}"#,
        r#"{"Pair":["p",[1]]}"#,
        r#"{"Fields":{"text":"a\"","b":"x"}}"#,
        r#"{"Fields":["x","t"]}"#,
    ];
    let newtype = [r#""nt""#, r#""n\u0074""#, r#"[1,2]"#];
    for (i, tagged) in tagged.iter().enumerate() {
        let adjacent = adjacent[i % adjacent.len()];
        let external = external[i % external.len()];
        let newtype = newtype[i % newtype.len()];
        let (leaves, flat) = if i.is_multiple_of(2) {
            (LEAVES, FLAT)
        } else {
            (LEAVES_ESCAPED, FLAT_ESCAPED)
        };
        docs.push(format!(
            r#"{{"leaves":{leaves},"with_flat":{flat},"tagged":{tagged},"adjacent":{adjacent},"external":{external},"newtype":{newtype}}}"#
        ));
        // The adjacent and external forms all once with the plain rest.
        docs.push(format!(
            r#"{{"newtype":"n","external":{{"Pair":["p","q"]}},"adjacent":{adjacent},"tagged":{{"t":"Inner","text":"t","bytes":"by","plain":"p","plain_bytes":[],"s":"s","b":"b","std_cow":"c","named":"nm"}},"with_flat":{FLAT},"leaves":{LEAVES}}}"#
        ));
        docs.push(format!(
            r#"{{"newtype":"n","external":{external},"adjacent":{{"t":"Bytes","c":"x"}},"tagged":{{"t":"Flat","n":2,"f_text":"ft","f_bytes":"fb","f_s":"fs","f_b":"fbb","f_plain_bytes":[3]}},"with_flat":{FLAT},"leaves":{LEAVES}}}"#
        ));
    }
    docs
}

#[test]
fn borrowed_leaves_nested_flattened_and_tagged() {
    let mut checks = Checks::default();
    for doc in borrowing_docs() {
        for bytes in forms(&doc) {
            let c = &mut checks;
            let bytes = &bytes[..];
            macro_rules! each {
                ($($o:expr),* $(,)?) => { $( probe_in::<Borrowing<'_>, _>("borrowing", bytes, $o, c); )* };
            }
            each!(
                Borrowing::leaves,
                Borrowing::leaves.then(Leaves::text),
                Borrowing::leaves.then(Leaves::bytes),
                Borrowing::leaves.then(Leaves::plain),
                Borrowing::leaves.then(Leaves::plain_bytes),
                Borrowing::leaves.then(Leaves::s),
                Borrowing::leaves.then(Leaves::b),
                Borrowing::leaves.then(Leaves::std_cow),
                Borrowing::leaves.then(Leaves::named),
                Borrowing::leaves.then(Leaves::maybe),
                Borrowing::with_flat,
                Borrowing::with_flat.then(WithFlat::n),
                Borrowing::with_flat.then(WithFlat::flat),
                Borrowing::with_flat
                    .then(WithFlat::flat)
                    .then(FlatLeaves::f_text),
                Borrowing::with_flat
                    .then(WithFlat::flat)
                    .then(FlatLeaves::f_bytes),
                Borrowing::with_flat
                    .then(WithFlat::flat)
                    .then(FlatLeaves::f_s),
                Borrowing::with_flat
                    .then(WithFlat::flat)
                    .then(FlatLeaves::f_b),
                Borrowing::with_flat
                    .then(WithFlat::flat)
                    .then(FlatLeaves::f_plain_bytes),
                Borrowing::tagged,
                Borrowing::tagged.then(TaggedLeaves::leaves_text),
                Borrowing::tagged.then(TaggedLeaves::leaves_bytes),
                Borrowing::tagged.then(TaggedLeaves::leaves_s),
                Borrowing::tagged.then(TaggedLeaves::leaves_b),
                Borrowing::tagged.then(TaggedLeaves::leaves_plain_bytes),
                Borrowing::tagged.then(TaggedLeaves::inner),
                Borrowing::tagged
                    .then(TaggedLeaves::inner)
                    .then(Leaves::text),
                Borrowing::tagged
                    .then(TaggedLeaves::inner)
                    .then(Leaves::bytes),
                Borrowing::tagged.then(TaggedLeaves::inner).then(Leaves::b),
                Borrowing::tagged.then(TaggedLeaves::inner).then(Leaves::s),
                Borrowing::tagged
                    .then(TaggedLeaves::inner)
                    .then(Leaves::named),
                Borrowing::tagged
                    .then(TaggedLeaves::inner)
                    .then(Leaves::plain_bytes),
                Borrowing::tagged
                    .then(TaggedLeaves::inner)
                    .then(Leaves::maybe),
                Borrowing::tagged.then(TaggedLeaves::flat),
                Borrowing::tagged
                    .then(TaggedLeaves::flat)
                    .then(WithFlat::flat)
                    .then(FlatLeaves::f_bytes),
                Borrowing::tagged
                    .then(TaggedLeaves::flat)
                    .then(WithFlat::flat)
                    .then(FlatLeaves::f_b),
                Borrowing::tagged
                    .then(TaggedLeaves::flat)
                    .then(WithFlat::flat)
                    .then(FlatLeaves::f_text),
                Borrowing::tagged
                    .then(TaggedLeaves::flat)
                    .then(WithFlat::flat)
                    .then(FlatLeaves::f_s),
                Borrowing::adjacent,
                Borrowing::adjacent.then(AdjacentLeaves::pair_0),
                Borrowing::adjacent.then(AdjacentLeaves::pair_1),
                Borrowing::adjacent.then(AdjacentLeaves::fields_b),
                Borrowing::adjacent.then(AdjacentLeaves::fields_text),
                Borrowing::adjacent.then(AdjacentLeaves::bytes),
                Borrowing::external,
                Borrowing::external.then(ExternalLeaves::pair_0),
                Borrowing::external.then(ExternalLeaves::pair_1),
                Borrowing::external.then(ExternalLeaves::fields_b),
                Borrowing::external.then(ExternalLeaves::fields_text),
                Borrowing::newtype,
            );
        }
    }
    checks.finish();
}

// ---------------------------------------------------------------------------
// 2. Generic models.

#[derive(Optics, Deserialize, Serialize, Debug, Clone, PartialEq)]
struct GenFlat<T> {
    a: u8,
    #[serde(flatten)]
    rest: T,
}

#[derive(Optics, Deserialize, Serialize, Debug, Clone, PartialEq)]
struct OtherKeys {
    b: u8,
    #[serde(default)]
    c: Option<String>,
}

#[derive(Optics, Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(tag = "k", bound(deserialize = "T: Deserialize<'de>"))]
enum GenTagged<T> {
    One(T),
    Two {
        x: T,
        #[serde(default = "Vec::new")]
        y: Vec<T>,
    },
    Unit,
}

#[derive(Optics, Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(bound = "T: Serialize + for<'x> Deserialize<'x> + Clone")]
struct Bounded<T, const N: usize> {
    head: [u8; 2],
    items: Vec<T>,
    #[serde(skip)]
    marker: PhantomData<[T; 0]>,
    ghost: PhantomData<T>,
    #[serde(flatten)]
    tagged: GenTagged<T>,
}

#[derive(Optics, Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(tag = "kind", content = "body")]
enum GenAdjacent<A, B> {
    First(A),
    Second(A, B),
    Third { b: B },
}

#[test]
fn generic_models_read_as_serde() {
    let mut checks = Checks::default();
    for doc in [
        r#"{"a":1,"b":2,"c":"x"}"#,
        r#"{"b":2,"a":1}"#,
        r#"{"c":null,"b":2,"a":1,"z":[]}"#,
        r#"{"c":"\u0041","a":1,"b":2}"#,
    ] {
        probe("gen_flat", doc, GenFlat::<OtherKeys>::a, &mut checks);
        probe("gen_flat", doc, GenFlat::<OtherKeys>::rest, &mut checks);
        probe(
            "gen_flat",
            doc,
            GenFlat::<OtherKeys>::rest.then(OtherKeys::b),
            &mut checks,
        );
        probe(
            "gen_flat",
            doc,
            GenFlat::<OtherKeys>::rest.then(OtherKeys::c),
            &mut checks,
        );
        probe_set("gen_flat", doc, GenFlat::<OtherKeys>::a, 7, &mut checks);
        probe_set(
            "gen_flat",
            doc,
            GenFlat::<OtherKeys>::rest.then(OtherKeys::c),
            Some("q".into()),
            &mut checks,
        );
    }
    for doc in [
        r#"{"a":1,"k":"One","b":2}"#,
        r#"{"k":"Two","a":1,"x":{"b":3},"y":[{"b":4,"c":"d"}]}"#,
        r#"{"k":"Two","a":1,"x":{"b":3}}"#,
        r#"{"a":1,"k":"Unit"}"#,
        r#"{"a":1,"k":"Unit","b":9}"#,
    ] {
        probe(
            "gen_flat_tagged",
            doc,
            GenFlat::<GenTagged<OtherKeys>>::rest,
            &mut checks,
        );
        probe(
            "gen_flat_tagged",
            doc,
            GenFlat::<GenTagged<OtherKeys>>::rest
                .then(GenTagged::one)
                .then(OtherKeys::b),
            &mut checks,
        );
        probe(
            "gen_flat_tagged",
            doc,
            GenFlat::<GenTagged<OtherKeys>>::rest
                .then(GenTagged::two_x)
                .then(OtherKeys::b),
            &mut checks,
        );
        probe(
            "gen_flat_tagged",
            doc,
            GenFlat::<GenTagged<OtherKeys>>::rest
                .then(GenTagged::two_y)
                .then(at(0))
                .then(OtherKeys::c),
            &mut checks,
        );
        probe(
            "gen_flat_tagged",
            doc,
            GenFlat::<GenTagged<OtherKeys>>::rest.then(GenTagged::unit),
            &mut checks,
        );
    }
    for doc in [
        r#"{"k":"One"}"#,
        r#"{"k":"Two","x":null}"#,
        r#"{"k":"Two","x":{},"y":[null,[]]}"#,
        r#"{"k":"Unit"}"#,
    ] {
        probe("gen_tagged_unit", doc, GenTagged::<()>::one, &mut checks);
        probe("gen_tagged_unit", doc, GenTagged::<()>::two_x, &mut checks);
        probe(
            "gen_tagged_unit",
            doc,
            GenTagged::<()>::two_y.then(at(1)),
            &mut checks,
        );
        probe("gen_tagged_unit", doc, GenTagged::<()>::unit, &mut checks);
    }
    for doc in [
        r#"{"k":"One","a":1,"b":2}"#,
        r#"{"a":1,"k":"One"}"#,
        r#"["One"]"#,
    ] {
        probe(
            "gen_tagged_map",
            doc,
            GenTagged::<BTreeMap<String, u8>>::one,
            &mut checks,
        );
        probe(
            "gen_tagged_map",
            doc,
            GenTagged::<BTreeMap<String, u8>>::one.then(key("a")),
            &mut checks,
        );
        probe(
            "gen_tagged_opt",
            doc,
            GenTagged::<Option<BTreeMap<String, u8>>>::one,
            &mut checks,
        );
    }
    for doc in [
        r#"{"head":[1,2],"items":[{"b":1}],"ghost":null,"k":"One","b":5}"#,
        r#"{"head":[1,2],"items":[],"ghost":null,"k":"Two","x":{"b":2,"c":"s"},"y":[{"b":3}]}"#,
        r#"{"k":"Two","x":{"c":"\"","b":0},"head":[3,4],"ghost":null,"items":[{"b":1},{"b":2,"c":null}]}"#,
        r#"{"k":"Unit","head":[3,4],"ghost":null,"items":[]}"#,
        r#"{"k":"One","head":[3,4],"ghost":null,"items":[],"c":"x","b":1}"#,
    ] {
        type B = Bounded<OtherKeys, 3>;
        probe("bounded", doc, B::head, &mut checks);
        probe("bounded", doc, B::head.then(at(1)), &mut checks);
        probe(
            "bounded",
            doc,
            B::items.then(at(1)).then(OtherKeys::c),
            &mut checks,
        );
        probe("bounded", doc, B::ghost, &mut checks);
        probe("bounded", doc, B::marker, &mut checks);
        probe("bounded", doc, B::tagged.then(GenTagged::one), &mut checks);
        probe(
            "bounded",
            doc,
            B::tagged.then(GenTagged::one).then(OtherKeys::c),
            &mut checks,
        );
        probe(
            "bounded",
            doc,
            B::tagged.then(GenTagged::two_x),
            &mut checks,
        );
        probe(
            "bounded",
            doc,
            B::tagged.then(GenTagged::two_y).then(at(0)),
            &mut checks,
        );
        probe("bounded", doc, B::tagged.then(GenTagged::unit), &mut checks);
        probe_set(
            "bounded",
            doc,
            B::items.then(at(0)).then(OtherKeys::b),
            8,
            &mut checks,
        );
        probe_set("bounded", doc, B::head.then(at(0)), 9, &mut checks);
    }
    for doc in [
        r#"{"kind":"First","body":[1]}"#,
        r#"{"body":[1,2],"kind":"First"}"#,
        r#"{"body":[[1],"x"],"kind":"Second"}"#,
        r#"{"kind":"Second","body":[[],"y"]}"#,
        r#"{"body":{"b":"z"},"kind":"Third"}"#,
        r#"{"kind":"Third","body":["z"]}"#,
    ] {
        type G = GenAdjacent<Vec<u8>, String>;
        probe("gen_adjacent", doc, G::first, &mut checks);
        probe("gen_adjacent", doc, G::first.then(at(1)), &mut checks);
        probe("gen_adjacent", doc, G::second_0.then(at(0)), &mut checks);
        probe("gen_adjacent", doc, G::second_1, &mut checks);
        probe("gen_adjacent", doc, G::third_b, &mut checks);
        probe_set(
            "gen_adjacent",
            doc,
            G::third_b,
            "w\\".to_owned(),
            &mut checks,
        );
        probe_set("gen_adjacent", doc, G::first.then(at(0)), 5, &mut checks);
    }
    checks.finish();
}

// ---------------------------------------------------------------------------
// 3. Types serde reads specially, direct, flattened and in an internally
// tagged payload (serde's buffer).

#[derive(Optics, Deserialize, Serialize, Debug, Clone, PartialEq)]
struct StdLeaves {
    rc: Rc<u8>,
    arc: Arc<str>,
    boxed: Box<[u8]>,
    cell: Cell<u8>,
    refcell: RefCell<String>,
    wrapping: Wrapping<u8>,
    reverse: Reverse<i8>,
    nonzero: NonZeroU32,
    duration: Duration,
    time: SystemTime,
    ip: IpAddr,
    socket: SocketAddr,
    path: PathBuf,
    letter: char,
    unit: (),
    #[serde(default)]
    maybe_unit: Option<()>,
}

#[derive(Optics, Deserialize, Serialize, Debug, Clone, PartialEq)]
struct StdOuter {
    direct: StdLeaves,
    flat: FlatStd,
    tagged: TaggedStd,
}

#[derive(Optics, Deserialize, Serialize, Debug, Clone, PartialEq)]
struct FlatStd {
    n: u8,
    #[serde(flatten)]
    leaves: StdLeaves,
}

#[derive(Optics, Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(tag = "type")]
enum TaggedStd {
    Leaves(StdLeaves),
    Fields {
        duration: Duration,
        letter: char,
        unit: (),
        nonzero: NonZeroU32,
    },
    Boxed(Box<StdLeaves>),
}

fn std_leaves() -> StdLeaves {
    StdLeaves {
        rc: Rc::new(3),
        arc: Arc::from("arc"),
        boxed: vec![1, 2].into_boxed_slice(),
        cell: Cell::new(4),
        refcell: RefCell::new("rc\"ell".to_owned()),
        wrapping: Wrapping(250),
        reverse: Reverse(-3),
        nonzero: NonZeroU32::new(7).unwrap(),
        duration: Duration::new(5, 6),
        time: SystemTime::UNIX_EPOCH + Duration::new(1_700_000_000, 12),
        ip: "::1".parse().unwrap(),
        socket: "127.0.0.1:80".parse().unwrap(),
        path: PathBuf::from("a/b"),
        letter: 'é',
        unit: (),
        maybe_unit: Some(()),
    }
}

/// serde_json's writing of the leaves, and hand-written variants of it that
/// serde reads or refuses.
fn std_leaves_docs() -> Vec<String> {
    let written = serde_json::to_string(&std_leaves()).unwrap();
    let edits: &[(&str, &str)] = &[
        ("", ""),
        (r#""nonzero":7"#, r#""nonzero":0"#),
        (r#""duration":{"secs":5,"nanos":6}"#, r#""duration":[5,6]"#),
        (
            r#""duration":{"secs":5,"nanos":6}"#,
            r#""duration":{"nanos":1500000000,"secs":5}"#,
        ),
        (
            r#""duration":{"secs":5,"nanos":6}"#,
            r#""duration":{"secs":18446744073709551615,"nanos":1000000000}"#,
        ),
        (
            r#""duration":{"secs":5,"nanos":6}"#,
            r#""duration":{"secs":18446744073709551615,"nanos":999999999}"#,
        ),
        (
            r#""duration":{"secs":5,"nanos":6}"#,
            r#""duration":{"secs":5}"#,
        ),
        (
            r#""duration":{"secs":5,"nanos":6}"#,
            r#""duration":{"secs":5,"nanos":6,"secs":7}"#,
        ),
        (
            r#""time":{"secs_since_epoch":1700000000,"nanos_since_epoch":12}"#,
            r#""time":[1700000000,2000000000]"#,
        ),
        (r#""letter":"é""#, r#""letter":"\u00e9""#),
        (r#""letter":"é""#, r#""letter":"ab""#),
        (r#""letter":"é""#, r#""letter":"\ud83d\ude00""#),
        (r#""unit":null"#, r#""unit":{}"#),
        (r#""unit":null"#, r#""unit":[]"#),
        (r#""maybe_unit":null"#, r#""maybe_unit":{}"#),
        (r#""ip":"::1""#, r#""ip":"0:0::1""#),
        (r#""ip":"::1""#, r#""ip":{"V4":[1,2,3,4]}"#),
        (r#""socket":"127.0.0.1:80""#, r#""socket":"[::1]:80""#),
        (r#""path":"a/b""#, r#""path":"a\/b\\c""#),
        (r#""wrapping":250"#, r#""wrapping":256"#),
        (r#""reverse":-3"#, r#""reverse":-3.0"#),
        (r#""rc":3"#, r#""rc":3e0"#),
        (r#""boxed":[1,2]"#, r#""boxed":"ab""#),
        (r#""arc":"arc""#, r#""arc":"a\u0000c""#),
        (r#""cell":4"#, r#""cell":-0"#),
        (
            r#""time":{"secs_since_epoch":1700000000,"nanos_since_epoch":12}"#,
            r#""time":{"nanos_since_epoch":12,"secs_since_epoch":1700000000}"#,
        ),
        (r#""letter":"é""#, r#""letter":"\"""#),
        (r#""path":"a/b""#, r#""path":"""#),
        (r#""arc":"arc""#, r#""arc":"""#),
        (r#""boxed":[1,2]"#, r#""boxed":[]"#),
        (r#""refcell":"rc\"ell""#, r#""refcell":"\u2028""#),
        (r#""reverse":-3"#, r#""reverse":-128"#),
        (r#""nonzero":7"#, r#""nonzero":4294967295"#),
        (r#""wrapping":250"#, r#""wrapping":0"#),
        (r#""ip":"::1""#, r#""ip":"1.2.3.4""#),
        (
            r#""duration":{"secs":5,"nanos":6}"#,
            r#""duration":{"secs":0,"nanos":999999999}"#,
        ),
        (r#","maybe_unit":null"#, ""),
        (r#""unit":null"#, r#""unit":null,"unknown":[{}]"#),
    ];
    edits
        .iter()
        .map(|(from, to)| {
            assert!(written.contains(from), "{from} not in {written}");
            written.replacen(from, to, 1)
        })
        .collect()
}

#[test]
fn std_types_read_as_serde_direct_flattened_and_buffered() {
    let mut checks = Checks::default();
    for leaves in std_leaves_docs() {
        let body = &leaves[1..leaves.len() - 1];
        let flat = [
            format!(r#"{{"n":1,{body}}}"#),
            format!(r#"{{{body},"n":1}}"#),
        ];
        let tagged = [
            format!(r#"{{"type":"Leaves",{body}}}"#),
            format!(r#"{{{body},"type":"Boxed"}}"#),
        ];
        macro_rules! leaf {
            ($($f:ident),*) => {$(
                probe(stringify!($f), &leaves, StdLeaves::$f, &mut checks);
                for doc in &flat {
                    probe(concat!("flat ", stringify!($f)), doc, FlatStd::leaves.then(StdLeaves::$f), &mut checks);
                }
                for doc in &tagged {
                    probe(concat!("tagged ", stringify!($f)), doc, TaggedStd::leaves.then(StdLeaves::$f), &mut checks);
                    probe(concat!("boxed ", stringify!($f)), doc, TaggedStd::boxed.then(StdLeaves::$f), &mut checks);
                }
            )*};
        }
        leaf!(
            rc, arc, boxed, cell, refcell, wrapping, reverse, nonzero, duration, time, ip, socket,
            path, letter, unit, maybe_unit
        );
        for doc in &flat {
            probe("flat n", doc, FlatStd::n, &mut checks);
        }
        let outer = format!(
            r#"{{"direct":{leaves},"flat":{},"tagged":{}}}"#,
            flat[0], tagged[0]
        );
        probe_set(
            "set direct",
            &outer,
            StdOuter::direct.then(StdLeaves::duration),
            Duration::new(1, 2),
            &mut checks,
        );
        probe_set(
            "set flat",
            &outer,
            StdOuter::flat.then(FlatStd::leaves).then(StdLeaves::letter),
            '"',
            &mut checks,
        );
        probe_set(
            "set tagged",
            &outer,
            StdOuter::tagged
                .then(TaggedStd::leaves)
                .then(StdLeaves::nonzero),
            NonZeroU32::new(9).unwrap(),
            &mut checks,
        );
        probe_set(
            "set unit",
            &outer,
            StdOuter::tagged
                .then(TaggedStd::leaves)
                .then(StdLeaves::maybe_unit),
            None,
            &mut checks,
        );
    }
    for doc in [
        r#"{"type":"Fields","duration":{"secs":1,"nanos":2},"letter":"x","unit":null,"nonzero":3}"#,
        r#"{"type":"Fields","duration":[1,2],"letter":"x","unit":{},"nonzero":3}"#,
        r#"{"duration":{"secs":1,"nanos":2000000000},"letter":"\"","type":"Fields","nonzero":0,"unit":null}"#,
        r#"{"duration":{"secs":1,"nanos":2000000000},"letter":"\"","type":"Fields","nonzero":1,"unit":null}"#,
        r#"["Fields",{"secs":1,"nanos":2},"x",null,3]"#,
        r#"["Fields",[1,2],"x",[],3]"#,
    ] {
        probe(
            "fields duration",
            doc,
            TaggedStd::fields_duration,
            &mut checks,
        );
        probe("fields letter", doc, TaggedStd::fields_letter, &mut checks);
        probe("fields unit", doc, TaggedStd::fields_unit, &mut checks);
        probe(
            "fields nonzero",
            doc,
            TaggedStd::fields_nonzero,
            &mut checks,
        );
    }
    checks.finish();
}

#[derive(Optics, Deserialize, Debug)]
struct Locked {
    mutex: Mutex<Vec<u8>>,
    #[serde(flatten)]
    flat: LockedFlat,
}

#[derive(Optics, Deserialize, Debug)]
struct LockedFlat {
    inner: Mutex<String>,
}

#[test]
fn a_mutex_reads_its_value_as_serde() {
    for doc in [
        r#"{"mutex":[1,2],"inner":"x"}"#,
        r#"{"inner":"\u0078","mutex":[]}"#,
    ] {
        for bytes in forms(doc) {
            let whole: Locked = serde_json::from_slice(&bytes).unwrap();
            let json = Json::<Locked>::new(&bytes);
            let mutex = json.read(Locked::mutex).unwrap();
            assert_eq!(*mutex.lock().unwrap(), *whole.mutex.lock().unwrap());
            let inner = json.read(Locked::flat.then(LockedFlat::inner)).unwrap();
            assert_eq!(*inner.lock().unwrap(), *whole.flat.inner.lock().unwrap());
        }
    }
}

// ---------------------------------------------------------------------------
// 4. Enum attributes that do not change what is read: `expecting`,
// `deny_unknown_fields` on tagged enums, tags renamed to an empty string or
// to text that needs escapes.

#[derive(Optics, Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(expecting = "a thing", deny_unknown_fields, tag = "t", content = "c")]
enum AdjacentStrict {
    #[serde(rename = "")]
    Empty(u8),
    #[serde(rename = "q\"\\é/")]
    Quoted { y: String },
    #[serde(rename = "\u{0}")]
    Nul,
}

#[derive(Optics, Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields, tag = "\"t\"")]
enum InternalStrict {
    #[serde(rename = "")]
    Empty { x: u8 },
    #[serde(rename = "\u{1F600}")]
    Emoji(Payload),
    #[serde(rename = "\\")]
    Unit,
}

#[derive(Optics, Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
struct Payload {
    z: i32,
}

#[test]
fn deny_unknown_fields_and_escaped_tags_on_tagged_enums() {
    let mut checks = Checks::default();
    for doc in [
        r#"{"t":"","c":5}"#,
        r#"{"c":5,"t":""}"#,
        r#"{"c":5,"t":"","x":1}"#,
        r#"{"t":"q\"\\é/","c":{"y":"w"}}"#,
        r#"{"t":"q\"\\\u00e9\/","c":{"y":"w"}}"#,
        r#"{"c":{"y":"w"},"t":"q\u0022\u005c\u00E9/"}"#,
        r#"{"c":["w"],"t":"q\"\\é/"}"#,
        r#"{"t":"\u0000"}"#,
        r#"{"t":"\u0000","c":null}"#,
        r#"["\u0000",null]"#,
        r#"["",7]"#,
    ] {
        probe("adjacent strict", doc, AdjacentStrict::empty, &mut checks);
        probe(
            "adjacent strict",
            doc,
            AdjacentStrict::quoted_y,
            &mut checks,
        );
        probe("adjacent strict", doc, AdjacentStrict::nul, &mut checks);
        probe("adjacent strict", doc, AdjacentStrict::kind, &mut checks);
        probe_set(
            "adjacent strict set",
            doc,
            AdjacentStrict::empty,
            9,
            &mut checks,
        );
        probe_set(
            "adjacent strict set",
            doc,
            AdjacentStrict::quoted_y,
            "\u{2028}".into(),
            &mut checks,
        );
    }
    for doc in [
        r#"{"\"t\"":"","x":1}"#,
        r#"{"x":1,"\u0022t\u0022":""}"#,
        r#"{"x":1,"\"t\"":"","y":2}"#,
        r#"{"z":-1,"\"t\"":"\ud83d\ude00"}"#,
        r#"{"\"t\"":"😀","z":-1}"#,
        r#"{"\"t\"":"😀","z":-1,"w":0}"#,
        r#"{"\"t\"":"\\"}"#,
        r#"{"\"t\"":"\u005c"}"#,
        r#"["",3]"#,
        r#"["😀",4]"#,
    ] {
        probe("internal strict", doc, InternalStrict::empty_x, &mut checks);
        probe("internal strict", doc, InternalStrict::emoji, &mut checks);
        probe(
            "internal strict",
            doc,
            InternalStrict::emoji.then(Payload::z),
            &mut checks,
        );
        probe("internal strict", doc, InternalStrict::unit, &mut checks);
        probe_set(
            "internal strict set",
            doc,
            InternalStrict::empty_x,
            2,
            &mut checks,
        );
        probe_set(
            "internal strict set",
            doc,
            InternalStrict::emoji.then(Payload::z),
            3,
            &mut checks,
        );
    }
    checks.finish();
}

// ---------------------------------------------------------------------------
// 5. `serde_json::Value`, `RawValue` and `Map` fields; a catch-all map
// beside flattened structs and a flattened internally tagged enum.

#[derive(Optics, Deserialize, Serialize, Debug, Clone, PartialEq)]
struct Dynamic {
    value: serde_json::Value,
    map: serde_json::Map<String, serde_json::Value>,
    #[serde(default)]
    maybe: Option<serde_json::Value>,
    #[serde(flatten)]
    first: FlatA,
    #[serde(flatten)]
    kind: FlatKind,
    #[serde(flatten)]
    #[optics(skip)]
    rest: HashMap<String, serde_json::Value>,
}

#[derive(Optics, Deserialize, Serialize, Debug, Clone, PartialEq)]
struct FlatA {
    a: serde_json::Value,
    #[serde(default)]
    b: Option<u8>,
}

#[derive(Optics, Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(tag = "kind")]
enum FlatKind {
    Number { n: serde_json::Value },
    Nothing,
}

#[test]
fn json_values_and_a_catch_all_beside_flattened_fields() {
    let mut checks = Checks::default();
    for doc in [
        r#"{"value":1,"map":{},"a":2,"kind":"Nothing"}"#,
        r#"{"kind":"Number","n":{"x":[1,2.5,"\u00e9"]},"value":{"k":null},"map":{"m":1,"m":2},"a":[true],"b":3,"other":4}"#,
        r#"{"other":{"a":1},"maybe":null,"value":18446744073709551615,"map":{"\"":-0},"a":-1e400,"kind":"Nothing"}"#,
        r#"{"maybe":{"n":1},"value":1.0,"map":{"z":1e2},"a":"\ud83d\ude00","kind":"Number","n":-0.0}"#,
        r#"{"maybe":[],"value":-0,"map":{"k":{}},"a":1,"kind":"Number","n":12345678901234567890123}"#,
        r#"{"value":"x","map":{},"a":{"b":1},"b":null,"kind":"Number","n":null}"#,
    ] {
        probe("dynamic value", doc, Dynamic::value, &mut checks);
        probe("dynamic map", doc, Dynamic::map, &mut checks);
        probe("dynamic maybe", doc, Dynamic::maybe, &mut checks);
        probe("dynamic a", doc, Dynamic::first.then(FlatA::a), &mut checks);
        probe("dynamic b", doc, Dynamic::first.then(FlatA::b), &mut checks);
        probe(
            "dynamic n",
            doc,
            Dynamic::kind.then(FlatKind::number_n),
            &mut checks,
        );
        probe(
            "dynamic nothing",
            doc,
            Dynamic::kind.then(FlatKind::nothing),
            &mut checks,
        );
        probe_set(
            "dynamic set",
            doc,
            Dynamic::value,
            serde_json::json!({"new": [1]}),
            &mut checks,
        );
        probe_set(
            "dynamic set",
            doc,
            Dynamic::first.then(FlatA::a),
            serde_json::json!("s"),
            &mut checks,
        );
        probe_set(
            "dynamic set",
            doc,
            Dynamic::first.then(FlatA::b),
            Some(1),
            &mut checks,
        );
        probe_set(
            "dynamic set",
            doc,
            Dynamic::map,
            serde_json::Map::new(),
            &mut checks,
        );
    }
    checks.finish();
}

#[derive(Optics, Deserialize, Debug)]
struct Raw<'a> {
    raw: Box<serde_json::value::RawValue>,
    #[serde(borrow)]
    borrowed: &'a serde_json::value::RawValue,
    list: Vec<Box<serde_json::value::RawValue>>,
}

#[test]
fn raw_values_read_the_bytes_serde_keeps() {
    for doc in [
        r#"{"raw":1,"borrowed":"x","list":[]}"#,
        r#"{"raw": [ 1 , {"a" : 2} ] ,"borrowed":{ "b":"\u00e9" },"list":[ 1e5 , "\"" ]}"#,
    ] {
        for bytes in forms(doc) {
            let text = String::from_utf8_lossy(&bytes);
            let whole: Raw<'_> = serde_json::from_slice(&bytes).unwrap();
            let json = Json::<Raw<'_>>::new(&bytes);
            let raw = json.read(Raw::raw).map(|raw| raw.get().to_owned());
            assert_eq!(raw.as_deref(), Some(whole.raw.get()), "{text}");
            let borrowed = json.read(Raw::borrowed).map(|raw| raw.get());
            assert_eq!(borrowed, Some(whole.borrowed.get()), "{text}");
            for (i, element) in whole.list.iter().enumerate() {
                let read = json
                    .read(Raw::list.then(at(i)))
                    .map(|raw| raw.get().to_owned());
                assert_eq!(read.as_deref(), Some(element.get()), "{text}");
            }
        }
    }
}

// ---------------------------------------------------------------------------
// 6. Map keys: integers out of range, negative, with a sign or leading
// zeros, as floats; `char`, `bool` and enum keys under `rename_all`; also
// in serde's buffer.

#[derive(Optics, Deserialize, Serialize, Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[serde(rename_all = "SCREAMING-KEBAB-CASE")]
enum Shade {
    DarkBlue,
    #[serde(alias = "pale")]
    LightGreen,
}

#[derive(Optics, Deserialize, Serialize, Debug, Clone, PartialEq)]
struct Keys {
    small: HashMap<u8, u8>,
    signed: BTreeMap<i16, u8>,
    letters: BTreeMap<char, u8>,
    flags: BTreeMap<bool, u8>,
    shades: BTreeMap<Shade, u8>,
}

#[derive(Optics, Deserialize, Serialize, Debug, Clone, PartialEq)]
struct FlatKeys {
    #[serde(flatten)]
    inner: BufferedKeys,
}

#[derive(Optics, Deserialize, Serialize, Debug, Clone, PartialEq)]
struct BufferedKeys {
    letters: BTreeMap<char, u8>,
    shades: BTreeMap<Shade, u8>,
}

#[test]
fn map_keys_of_every_kind_spelled_as_serde_reads_them_or_not() {
    let mut checks = Checks::default();
    let small = [
        r#"{"1":1}"#,
        r#"{"255":2}"#,
        r#"{"256":3}"#,
        r#"{"-1":4}"#,
        r#"{"+1":5}"#,
        r#"{"01":6}"#,
        r#"{"1.0":7}"#,
        r#"{"1e0":8}"#,
        r#"{" 1":9}"#,
        r#"{"1 ":10}"#,
        r#"{"-0":11}"#,
        r#"{"0":12,"-0":13}"#,
        r#"{"\u0031":14}"#,
        r#"{"":15}"#,
        r#"{"0":16,"1":17,"255":18}"#,
        r#"{"255":19,"0":20}"#,
        r#"{"2\u0035\u0035":21}"#,
        r#"{"1":22,"1":23}"#,
        r#"{"-0":24,"0":25}"#,
        r#"{"7":26}"#,
        r#"{"0":27}"#,
        r#"{"100":28,"1":29}"#,
        r#"{"1":30,"\u0031":31}"#,
        r#"{"254":32}"#,
        r#"{"9":33}"#,
        r#"{"1":34,"2":35}"#,
        r#"{"3":36}"#,
    ];
    let signed = [
        r#"{"-32768":1}"#,
        r#"{"32768":2}"#,
        r#"{"-0":3,"0":4}"#,
        r#"{"-01":5}"#,
        r#"{"7":6}"#,
        r#"{"-1":7,"-0":8}"#,
        r#"{"32767":9,"-32768":10}"#,
        r#"{"-\u0031":11}"#,
        r#"{"0":12,"-0":13,"0":14}"#,
    ];
    let letters = [
        r#"{"a":1}"#,
        r#"{"\u00e9":2,"é":3}"#,
        r#"{"ab":4}"#,
        r#"{"":5}"#,
        r#"{"\ud83d\ude00":6}"#,
        r#"{"\"":7}"#,
        r#"{"\u0022":8,"a":9}"#,
        r#"{"😀":10,"\ud83d\ude00":11}"#,
        r#"{"\u0061":12}"#,
    ];
    let flags = [
        r#"{"true":1}"#,
        r#"{"false":2,"true":3}"#,
        r#"{"True":4}"#,
        r#"{"tru\u0065":5}"#,
        r#"{"1":6}"#,
        r#"{"false":7}"#,
        r#"{"true":8,"true":9}"#,
        r#"{}"#,
    ];
    let shades = [
        r#"{"DARK-BLUE":1}"#,
        r#"{"pale":2}"#,
        r#"{"LIGHT-GREEN":3,"pale":4}"#,
        r#"{"DarkBlue":5}"#,
        r#"{"DARK\u002dBLUE":6}"#,
        r#"{"pale":7,"LIGHT-GREEN":8}"#,
        r#"{"DARK-BLUE":9,"pale":10}"#,
    ];
    let one = |field: &str, map: &str| {
        let mut doc = String::from("{");
        for name in ["small", "signed", "letters", "flags", "shades"] {
            let map = if name == field { map } else { "{}" };
            doc.push_str(&format!(r#""{name}":{map},"#));
        }
        doc.pop();
        doc + "}"
    };
    for map in small {
        let doc = one("small", map);
        for k in [0u8, 1, 255] {
            probe("small", &doc, Keys::small.then(key(&k)), &mut checks);
        }
        probe_set(
            "small set",
            &doc,
            Keys::small.then(key(&1u8)),
            99,
            &mut checks,
        );
    }
    for map in signed {
        let doc = one("signed", map);
        for k in [-32768i16, 0, -1, 7] {
            probe("signed", &doc, Keys::signed.then(key(&k)), &mut checks);
        }
    }
    for map in letters {
        let doc = one("letters", map);
        for k in ['a', 'é', '😀', '"'] {
            probe("letters", &doc, Keys::letters.then(key(&k)), &mut checks);
        }
        probe_set(
            "letters set",
            &doc,
            Keys::letters.then(key(&'é')),
            97,
            &mut checks,
        );
        let buffered = format!(r#"{{"letters":{map},"shades":{{}}}}"#);
        for k in ['a', 'é', '😀', '"'] {
            probe(
                "buffered letters",
                &buffered,
                FlatKeys::inner.then(BufferedKeys::letters).then(key(&k)),
                &mut checks,
            );
        }
    }
    for map in flags {
        let doc = one("flags", map);
        for k in [true, false] {
            probe("flags", &doc, Keys::flags.then(key(&k)), &mut checks);
        }
    }
    for map in shades {
        let doc = one("shades", map);
        probe("shades", &doc, Keys::shades, &mut checks);
        probe_set(
            "shades set",
            &doc,
            Keys::shades,
            BTreeMap::from([(Shade::LightGreen, 98)]),
            &mut checks,
        );
        let buffered = format!(r#"{{"letters":{{}},"shades":{map}}}"#);
        probe(
            "buffered shades",
            &buffered,
            FlatKeys::inner.then(BufferedKeys::shades),
            &mut checks,
        );
    }
    checks.finish();
}

// ---------------------------------------------------------------------------
// The property: serde_json's writing of a random value of a generic model
// with a flattened internally tagged type parameter and std leaves,
// rewritten with its members in a random order (the other hunt keeps
// serde_json's sorted order), `\u` escapes and whitespace; every path,
// fold and write agrees with serde_json.

#[derive(Optics, Deserialize, Serialize, Debug, Clone, PartialEq)]
struct Shuffled {
    outer: Bounded<OtherKeys, 2>,
    flat: GenFlat<GenTagged<OtherKeys>>,
    when: Duration,
    wrapped: Wrapping<i8>,
    letter: char,
    nonzero: NonZeroU32,
    value: serde_json::Value,
}

fn other_keys() -> impl Strategy<Value = OtherKeys> {
    (any::<u8>(), proptest::option::of("[a-c\"\\\\é😀/]{0,3}"))
        .prop_map(|(b, c)| OtherKeys { b, c })
}

fn gen_tagged() -> impl Strategy<Value = GenTagged<OtherKeys>> {
    prop_oneof![
        other_keys().prop_map(GenTagged::One),
        (other_keys(), proptest::collection::vec(other_keys(), 0..3))
            .prop_map(|(x, y)| GenTagged::Two { x, y }),
        Just(GenTagged::Unit),
    ]
}

fn shuffled() -> impl Strategy<Value = Shuffled> {
    (
        (
            any::<[u8; 2]>(),
            proptest::collection::vec(other_keys(), 0..3),
            gen_tagged(),
        ),
        (any::<u8>(), gen_tagged()),
        (
            any::<u64>(),
            0u32..1_000_000_000,
            any::<i8>(),
            any::<char>(),
            1u32..,
        ),
        prop_oneof![
            Just(serde_json::Value::Null),
            any::<i64>().prop_map(serde_json::Value::from),
            "[a\"é]{0,3}".prop_map(serde_json::Value::from),
        ],
    )
        .prop_map(
            |((head, items, tagged), (a, rest), (secs, nanos, wrapped, letter, nonzero), value)| {
                Shuffled {
                    outer: Bounded {
                        head,
                        items,
                        marker: PhantomData,
                        ghost: PhantomData,
                        tagged,
                    },
                    flat: GenFlat { a, rest },
                    when: Duration::new(secs, nanos),
                    wrapped: Wrapping(wrapped),
                    letter,
                    nonzero: NonZeroU32::new(nonzero).unwrap(),
                    value,
                }
            },
        )
}

fn shuffled_cases() -> ProptestConfig {
    ProptestConfig {
        cases: support::scaled(256),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(shuffled_cases())]

    #[test]
    fn shuffled_writings_read_fold_and_write_as_serde(
        model in shuffled(),
        choices in proptest::collection::vec(any::<u8>(), 1..48),
    ) {
        let mut text = String::new();
        Rewrite::new(choices, true).value(&serde_json::to_value(&model).unwrap(), &[], &mut text);
        let whole: Shuffled = serde_json::from_str(&text)
            .map_err(|error| TestCaseError::fail(format!("{error}: {text}")))?;
        prop_assert_eq!(&whole, &model);
        let mut checks = Checks::default();
        type B = Bounded<OtherKeys, 2>;
        type F = GenFlat<GenTagged<OtherKeys>>;
        let doc = text.as_str();
        probe("p", doc, Shuffled::outer.then(B::head).then(at(1)), &mut checks);
        probe("p", doc, Shuffled::outer.then(B::items).then(at(1)).then(OtherKeys::c), &mut checks);
        probe("p", doc, Shuffled::outer.then(B::ghost), &mut checks);
        probe("p", doc, Shuffled::outer.then(B::tagged).then(GenTagged::one).then(OtherKeys::c), &mut checks);
        probe("p", doc, Shuffled::outer.then(B::tagged).then(GenTagged::two_x).then(OtherKeys::b), &mut checks);
        probe("p", doc, Shuffled::outer.then(B::tagged).then(GenTagged::two_y).then(at(0)), &mut checks);
        probe("p", doc, Shuffled::outer.then(B::tagged).then(GenTagged::unit), &mut checks);
        probe("p", doc, Shuffled::flat.then(F::a), &mut checks);
        probe("p", doc, Shuffled::flat.then(F::rest).then(GenTagged::one).then(OtherKeys::b), &mut checks);
        probe("p", doc, Shuffled::flat.then(F::rest).then(GenTagged::two_y).then(at(1)).then(OtherKeys::c), &mut checks);
        probe("p", doc, Shuffled::when, &mut checks);
        probe("p", doc, Shuffled::wrapped, &mut checks);
        probe("p", doc, Shuffled::letter, &mut checks);
        probe("p", doc, Shuffled::nonzero, &mut checks);
        probe("p", doc, Shuffled::value, &mut checks);
        probe_set("s", doc, Shuffled::outer.then(B::tagged).then(GenTagged::two_x).then(OtherKeys::c), Some("n\"".into()), &mut checks);
        probe_set("s", doc, Shuffled::flat.then(F::a), 1, &mut checks);
        probe_set("s", doc, Shuffled::flat.then(F::rest).then(GenTagged::one).then(OtherKeys::b), 2, &mut checks);
        probe_set("s", doc, Shuffled::when, Duration::new(3, 4), &mut checks);
        probe_set("s", doc, Shuffled::letter, '\u{7f}', &mut checks);
        prop_assert!(checks.disagreements.is_empty(), "{}", checks.disagreements.join("\n"));
        prop_assert_eq!(checks.refused, 0);

        // Folds over the items and the flattened payload's list, on the value
        // and on the bytes, trusting and strict.
        let bytes = text.as_bytes();
        let cs = Shuffled::outer.then(B::items).then(each()).then(OtherKeys::c);
        let ys = Shuffled::flat.then(F::rest).then(GenTagged::two_y).then(each()).then(OtherKeys::b);
        let duplicates = Duplicates::new();
        let strict = Strict::<Shuffled>::validated(bytes, &duplicates).unwrap();
        let json = Json::<Shuffled>::new(bytes);
        let push_c = |mut all: Vec<Option<String>>, c: &Option<String>| { all.push(c.clone()); all };
        let on_value = (&whole).fold(cs, Vec::new(), push_c);
        prop_assert_eq!(json.fold(cs, Vec::new(), push_c), on_value.clone());
        prop_assert_eq!(strict.fold(cs, Vec::new(), push_c), on_value);
        let sum = |total: u32, b: &u8| total + u32::from(*b);
        let on_value = (&whole).fold(ys, 0, sum);
        prop_assert_eq!(json.fold(ys, 0, sum), on_value);
        prop_assert_eq!(strict.fold(ys, 0, sum), on_value);
        prop_assert_eq!(json.any(ys, |b| *b > 100), (&whole).any(ys, |b| *b > 100));
        prop_assert_eq!(strict.all(cs, Option::is_some), (&whole).all(cs, Option::is_some));
        let read: Vec<_> = strict.read_each(cs).collect();
        let expected: Vec<_> = cs.iter(&whole).cloned().map(Some).collect();
        prop_assert_eq!(read, expected);
    }
}
