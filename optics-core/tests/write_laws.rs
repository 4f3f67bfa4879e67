//! The laws of byte writes and traversals, checked against serde_json as the
//! oracle on random values of the test model, which uses every serde encoding
//! the derive supports (internally, externally and adjacently tagged enums,
//! unit, newtype, tuple and struct variants, `other`, `flatten`, `transparent`,
//! tuple structs, `rename`/`rename_all`/`alias`, `default`, `with`,
//! `serialize_with`, `skip_serializing_if`, `skip`, maps and generics).
//!
//! The laws themselves are in `support/write_laws.rs`, shared with the demo's
//! own law tests over `triage::model`.

mod model;
mod support;

use std::collections::{BTreeMap, VecDeque};

use model::*;
use optics_core::prelude::*;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use support::edit::edit_one_byte;
use support::write_laws::{set_laws, sets, traversal_laws, Writes};

fn cases(n: u32) -> ProptestConfig {
    ProptestConfig {
        cases: support::scaled(n),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Cases per property.
const CASES: u32 = 256;

proptest! {
    #![proptest_config(cases(CASES))]

    #[test]
    fn issue_fields(s in issue(), t in issue(), u in issue()) {
        sets!(s, t, u;
            Issue::issue_id => 0, 1;
            Issue::title_text => String::new(), "x".into();
            Issue::detail => Detail::Unknown, Detail::Unknown;
            Issue::shape => Shape::Dot, Shape::Dot;
            Issue::event => Event::Ping, Event::Ping;
            Issue::labels => Vec::new(), Vec::new();
            Issue::tags => Default::default(), Default::default(), Unordered;
            Issue::counters => Default::default(), Default::default();
            Issue::votes => Votes { count: 1 }, Votes { count: 2 };
            Issue::span => Span(1, 2), Span(3, 4);
            Issue::r#type => Category::Crash, Category::Other;
        );
    }

    #[test]
    fn flattened_transparent_and_tuple_fields(s in issue(), t in issue(), u in issue()) {
        sets!(s, t, u;
            Issue::meta.then(Meta::created_at) => 0, 1;
            Issue::meta.then(Meta::big_number) => 0, 1;
            Issue::meta.then(Meta::priority) => default_priority(), 0;
            Issue::votes.then(Votes::count) => 0, 1;
            Issue::span.then(Span::_0) => 0, 1;
            Issue::span.then(Span::_1) => 0, 1;
        );
    }

    #[test]
    fn internally_tagged(s in issue(), t in issue(), u in issue()) {
        sets!(s, t, u;
            Issue::detail.then(Detail::incident) => incident_of(1), incident_of(2);
            Issue::detail.then(Detail::bug) => bug_of(1), bug_of(2);
            Issue::detail.then(Detail::question) => Wrapper { value: "q".into(), note: None },
                Wrapper { value: "r".into(), note: Some("n".into()) };
            Issue::detail.then(Detail::unknown) => (), ();
            Issue::detail.then(Detail::incident).then(Incident::severity) => Severity::Low, Severity::High;
            Issue::detail.then(Detail::incident).then(Incident::started_at) => 0, 1;
            Issue::detail.then(Detail::incident).then(Incident::resolved) => false, true;
            Issue::detail.then(Detail::incident).then(Incident::note) => None, Some("n".into());
            Issue::detail.then(Detail::incident).then(Incident::note).then(some()) => "a".into(), "b".into();
            Issue::detail.then(Detail::incident).then(Incident::impact).then(Impact::users) => 0, 1;
            Issue::detail.then(Detail::incident).then(Incident::impact).then(Impact::service)
                .then(Service::name).then(Module::_0) => "m".into(), "n".into();
            Issue::detail.then(Detail::bug).then(Bug::build) => 0, u64::MAX;
            Issue::detail.then(Detail::bug).then(Bug::line_no) => None, Some(7);
            Issue::detail.then(Detail::bug).then(Bug::module) => Module("m".into()), Module("n".into());
            Issue::detail.then(Detail::question).then(Wrapper::value) => "v".into(), "w".into();
            Issue::detail.then(Detail::question).then(Wrapper::note) => None, Some("n".into());
        );
    }

    #[test]
    fn externally_and_adjacently_tagged(
        s in issue(), t in issue(), u in issue(),
        shapes in (shape(), shape(), shape()),
        events in (event(), event(), event()),
    ) {
        sets!(s, t, u;
            Issue::shape.then(Shape::dot) => (), ();
            Issue::shape.then(Shape::circle) => 0, 1;
            Issue::shape.then(Shape::line_0) => 0, -1;
            Issue::shape.then(Shape::line_1) => 0, -1;
            Issue::shape.then(Shape::rect_width) => 0, 1;
            Issue::shape.then(Shape::rect_height) => 0, 1;
            Issue::shape.then(Shape::maybe) => None, Some(1);
            Issue::shape.then(Shape::maybe).then(some()) => 0, 1;
            Issue::shape.then(Shape::nested) => Event::Ping, Event::Note("n".into());
            Issue::shape.then(Shape::nested).then(Event::moved_to_pos) => 0, 1;
            Issue::event.then(Event::ping) => (), ();
            Issue::event.then(Event::note) => String::new(), "n".into();
            Issue::event.then(Event::moved_from_pos) => 0, 1;
            Issue::event.then(Event::moved_to_pos) => 0, 1;
        );
        let (s, t, u) = shapes;
        sets!(s, t, u;
            Shape::circle => 0, 1;
            Shape::dot => (), ();
            Shape::rect_width => 0, 1;
        );
        let (s, t, u) = events;
        sets!(s, t, u;
            Event::note => String::new(), "n".into();
            Event::moved_from_pos => 0, 1;
        );
    }

    #[test]
    fn at_key_and_some(
        s in issue(), t in issue(), u in issue(),
        k in map_key(),
        index in 0usize..4,
    ) {
        let present: Option<String> = s.tags.keys().next().cloned();
        let counter: Option<String> = s.counters.keys().next().cloned();
        for k in [Some(k), present, counter].into_iter().flatten() {
            sets!(s, t, u;
                Issue::tags.then(key(k.as_str())) => "x".to_owned(), "y".to_owned();
                Issue::counters.then(key(k.as_str())) => Wrapper { value: 1, note: None },
                    Wrapper { value: 2, note: Some("n".into()) };
                Issue::counters.then(key(k.as_str())).then(Wrapper::value) => 0, 1;
                Issue::counters.then(key(k.as_str())).then(Wrapper::note) => None, Some("n".into());
            );
        }
        for i in [0, 1, index] {
            sets!(s, t, u;
                Issue::labels.then(at(i)) => "x".to_owned(), "y".to_owned();
                Issue::detail.then(Detail::bug).then(Bug::frames).then(at(i)).then(Frame::line) => 0, 1;
                Issue::detail.then(Detail::incident).then(Incident::impact).then(Impact::regions)
                    .then(at(i)) => Region::default(), Region::default();
                Issue::detail.then(Detail::incident).then(Incident::impact).then(Impact::regions)
                    .then(at(i)).then(Region::score) => 0.25, -1.5;
            );
        }
    }

    // -----------------------------------------------------------------------
    // Traversals

    #[test]
    fn lens_then_each(s in issue(), text in text(), n in any::<u32>(), score in -8i32..8) {
        traversal_laws(Issue::labels.then(each()), &s, text.clone())?;
        traversal_laws(Issue::tags.then(each()), &s, text.clone())?;
        traversal_laws(Issue::counters.then(each()), &s, Wrapper { value: n, note: None })?;
        traversal_laws(Issue::counters.then(each()).then(Wrapper::value), &s, n)?;
        traversal_laws(Issue::counters.then(each()).then(Wrapper::note), &s, None)?;
        traversal_laws(Issue::counters.then(each()).then(Wrapper::note), &s, Some(text.clone()))?;
        traversal_laws(
            Issue::detail.then(Detail::incident).then(Incident::impact).then(Impact::regions)
                .then(each()).then(Region::score),
            &s,
            f64::from(score) / 4.0,
        )?;
        traversal_laws(
            Issue::detail.then(Detail::incident).then(Incident::impact).then(Impact::service)
                .then(Service::owner_ids).then(each()),
            &s,
            u64::from(n),
        )?;
        traversal_laws(
            Issue::detail.then(Detail::bug).then(Bug::frames).then(each()).then(Frame::file_name),
            &s,
            text.clone(),
        )?;
        traversal_laws(
            Issue::detail.then(Detail::bug).then(Bug::frames).then(each()),
            &s,
            Frame { file_name: text, line: n, inlined: true },
        )?;
    }

    #[test]
    fn each_then_prism(
        details in prop::collection::vec(detail(), 0..5),
        shapes in prop::collection::vec(shape(), 0..5),
        events in prop::collection::vec(event(), 0..4),
        severity in severity(),
        n in any::<u32>(),
        text in text(),
    ) {
        traversal_laws(each::<Vec<Detail>>().then(Detail::incident).then(Incident::severity), &details, severity)?;
        traversal_laws(each::<Vec<Detail>>().then(Detail::bug).then(Bug::build), &details, u64::from(n))?;
        traversal_laws(each::<Vec<Detail>>().then(Detail::question), &details, Wrapper { value: text.clone(), note: None })?;
        traversal_laws(each::<Vec<Detail>>().then(Detail::unknown), &details, ())?;
        traversal_laws(each::<Vec<Shape>>().then(Shape::circle), &shapes, n)?;
        traversal_laws(each::<Vec<Shape>>().then(Shape::rect_height), &shapes, n)?;
        traversal_laws(each::<Vec<Shape>>().then(Shape::nested).then(Event::note), &shapes, text.clone())?;
        let deque: VecDeque<Event> = events.iter().cloned().collect();
        traversal_laws(each::<VecDeque<Event>>().then(Event::moved_from_pos), &deque, n)?;
        let array: [Event; 1] = [events.first().cloned().unwrap_or(Event::Ping)];
        traversal_laws(each::<[Event; 1]>().then(Event::note), &array, text)?;
    }

    #[test]
    fn each_then_each(
        grid in prop::collection::vec(prop::collection::vec(any::<u32>(), 0..4), 0..4),
        maps in prop::collection::vec(prop::collection::btree_map(map_key(), wrapper(any::<u32>()), 0..3), 0..3),
        n in any::<u32>(),
    ) {
        traversal_laws(each::<Vec<Vec<u32>>>().then(each()), &grid, n)?;
        traversal_laws(
            each::<Vec<BTreeMap<String, Wrapper<u32>>>>().then(each()).then(Wrapper::value),
            &maps,
            n,
        )?;
    }
}

/// Writes into broken bytes: edited serde documents. Nothing panics, and
/// where the edited bytes are still one JSON document, what is written is too.
fn writes_keep_documents_whole(bytes: &[u8]) -> Result<(), TestCaseError> {
    let json = Json::<Issue>::new(bytes);
    let valid = serde_json::from_slice::<serde_json::Value>(bytes).is_ok();
    let frames = Issue::detail
        .then(Detail::bug)
        .then(Bug::frames)
        .then(each());
    let outputs = [
        json.set(Issue::title_text, &"t\"\n".to_owned()),
        json.set(Issue::meta.then(Meta::priority), &default_priority()),
        json.set(Issue::meta.then(Meta::priority), &9),
        json.set(
            Issue::detail.then(Detail::incident).then(Incident::note),
            &None,
        ),
        json.set(
            Issue::detail.then(Detail::incident).then(Incident::note),
            &Some("n".into()),
        ),
        json.set(
            Issue::detail.then(Detail::question),
            &Wrapper {
                value: "q".into(),
                note: None,
            },
        ),
        json.set(Issue::event.then(Event::moved_to_pos), &1),
        json.set(Issue::span.then(Span::_1), &1),
        json.modify(Issue::votes.then(Votes::count), |n| n / 2),
        json.set_all(frames.then(Frame::line), &0),
        json.set_all(Issue::counters.then(each()).then(Wrapper::note), &None),
        json.modify_all(Issue::tags.then(each()), |t| t + "!"),
    ];
    for out in outputs.into_iter().flatten() {
        if valid {
            prop_assert!(
                serde_json::from_slice::<serde_json::Value>(&out).is_ok(),
                "{} became {}",
                String::from_utf8_lossy(bytes),
                String::from_utf8_lossy(&out)
            );
        }
    }
    let _ = json.iter(frames.then(Frame::file_name)).count();
    let _ = json.read_each(frames).count();
    Ok(())
}

proptest! {
    #![proptest_config(cases(CASES))]

    #[test]
    fn writes_into_edited_bytes_never_panic(
        s in issue(),
        at in any::<prop::sample::Index>(),
        edit in 0..3u8,
        byte in prop::sample::select(&b"\"\\ :,{}[]0-1enutlfra\x01\xc3"[..]),
    ) {
        let mut bytes = serde_json::to_vec(&s).unwrap_or_default();
        writes_keep_documents_whole(&bytes)?;
        let at = at.index(bytes.len() + 1);
        edit_one_byte(&mut bytes, at, edit, byte);
        writes_keep_documents_whole(&bytes)?;
    }
}

#[test]
fn the_laws_hold_on_documents_written_by_hand() {
    // Whitespace, a member out of serde's order, a tag that is not first.
    let doc = br#" { "value" : 1 ,  "note" : "x" } "#;
    let json = Json::<Wrapper<u32>>::new(doc);
    assert_eq!(
        json.set(Wrapper::value, &2).unwrap(),
        br#" { "value" : 2 ,  "note" : "x" } "#
    );
    // A skipped value removes its member and the comma after it ...
    assert_eq!(
        json.set(Wrapper::note, &None).unwrap(),
        br#" { "value" : 1  } "#
    );
    // ... or, for the first, the comma after it.
    let first = br#"{"note":"x", "value":1}"#;
    assert_eq!(
        Json::<Wrapper<u32>>::new(first)
            .set(Wrapper::note, &None)
            .unwrap(),
        br#"{"value":1}"#
    );
    // A missing member is appended before the closing brace.
    assert_eq!(
        Json::<Wrapper<u32>>::new(br#"{"value":1 }"#)
            .set(Wrapper::note, &Some("n".into()))
            .unwrap(),
        br#"{"value":1,"note":"n" }"#
    );
    let tagged = br#"{"a":1,"type":"Question","value":"q"}"#;
    let question = Detail::question.then(Wrapper::value);
    assert_eq!(
        Json::<Detail>::new(tagged)
            .set(question, &"r".into())
            .unwrap(),
        br#"{"a":1,"type":"Question","value":"r"}"#
    );
    // An internally tagged payload is written as serde writes it: the tag first.
    assert_eq!(
        Json::<Detail>::new(tagged)
            .set(
                Detail::question,
                &Wrapper {
                    value: "r".into(),
                    note: None
                }
            )
            .unwrap(),
        br#"{"type":"Question","value":"r"}"#
    );
}

#[test]
fn misses_write_nothing() {
    let bug = br#"{"type":"bug_report","module":"m","line_no":null,"frames":[],"build":"1"}"#;
    let json = Json::<Detail>::new(bug);
    assert_eq!(
        json.set(Detail::incident.then(Incident::started_at), &1),
        None
    );
    assert_eq!(
        json.set(
            Detail::bug.then(Bug::frames).then(at(0)).then(Frame::line),
            &1
        ),
        None
    );
    assert_eq!(
        json.set(Detail::bug.then(Bug::line_no).then(some()), &1),
        None
    );
    assert_eq!(
        json.modify(Detail::bug.then(Bug::line_no).then(some()), |n| n + 1),
        None
    );
    // Malformed bytes: no focus.
    let cut = &bug[..bug.len() - 1];
    assert_eq!(
        Json::<Detail>::new(cut).set(Detail::bug.then(Bug::build), &1),
        None
    );
    // A traversal with no focus copies the document.
    let empty = Detail::bug.then(Bug::frames).then(each()).then(Frame::line);
    assert_eq!(json.set_all(empty, &1).as_deref(), Some(&bug[..]));
    assert_eq!(json.iter(empty).count(), 0);
}

#[test]
fn a_function_written_field_is_written_with_its_function() {
    let bug = br#"{"type":"bug","module":"m","line_no":null,"frames":[],"build":"1"}"#;
    let json = Json::<Detail>::new(bug);
    // `serialize_with`: a number written as a string, as serde writes it.
    assert_eq!(
        json.set(Detail::bug.then(Bug::build), &42).unwrap(),
        br#"{"type":"bug","module":"m","line_no":null,"frames":[],"build":"42"}"#
    );
    // `with`, on a flattened struct's field, which stands in the outer object.
    let meta = br#"{"created-at":1,"big-number":"2"}"#;
    assert_eq!(
        Json::<Meta>::new(meta).set(Meta::big_number, &7).unwrap(),
        br#"{"created-at":1,"big-number":"7"}"#
    );
    // `skip_serializing_if` with a default: the default leaves the member out.
    assert_eq!(
        Json::<Meta>::new(meta)
            .set(Meta::priority, &default_priority())
            .unwrap(),
        meta
    );
    assert_eq!(
        Json::<Meta>::new(meta).set(Meta::priority, &9).unwrap(),
        br#"{"created-at":1,"big-number":"2","priority":9}"#
    );
}

fn incident_of(users: u32) -> Incident {
    Incident {
        severity: Severity::Medium,
        started_at: 0,
        impact: Impact {
            service: Service {
                name: Module("db".to_owned()),
                tier: Tier::Standard,
                r#type: String::new(),
                owner_ids: Vec::new(),
            },
            users,
            regions: vec![Region::default()],
        },
        resolved: false,
        note: None,
    }
}

fn bug_of(build: u64) -> Bug {
    Bug {
        module: Module("auth".into()),
        line_no: None,
        frames: vec![Frame {
            file_name: "a.rs".into(),
            line: 1,
            inlined: false,
        }],
        build,
    }
}

/// Serialize names that differ from the names serde reads.
#[derive(Optics, serde::Serialize, serde::Deserialize, Debug, PartialEq)]
#[serde(rename_all(serialize = "SCREAMING_SNAKE_CASE", deserialize = "camelCase"))]
struct TwoNames {
    #[serde(rename(serialize = "out", deserialize = "in"), default)]
    both_ways: Option<u32>,
    #[serde(default)]
    plain_field: Option<u32>,
}

/// Struct variants whose fields serde writes under other names.
#[derive(Optics, serde::Serialize, serde::Deserialize, Debug, PartialEq)]
#[serde(tag = "kind", rename_all_fields(serialize = "PascalCase"))]
enum Moves {
    Moved {
        #[serde(default)]
        from_pos: Option<u32>,
    },
}

#[test]
fn a_missing_member_is_written_under_the_key_serde_writes() {
    let empty = Json::<TwoNames>::new(b"{}");
    assert_eq!(
        empty.set(TwoNames::both_ways, &Some(1)).unwrap(),
        br#"{"out":1}"#
    );
    assert_eq!(
        empty.set(TwoNames::plain_field, &Some(2)).unwrap(),
        br#"{"PLAIN_FIELD":2}"#
    );
    // serde reads `both_ways` under "in", not "out": where "out" is already
    // there, a second member under it would make the key twice, so the
    // write refuses (it did write `{"out":1,"out":2}`).
    let once = Json::<TwoNames>::new(br#"{"out":1}"#);
    assert_eq!(once.set(TwoNames::both_ways, &Some(2)), None);
    assert_eq!(once.set(TwoNames::both_ways, &None), None);
    // The other fields are written as before.
    assert_eq!(
        once.set(TwoNames::plain_field, &Some(5)).unwrap(),
        br#"{"out":1,"PLAIN_FIELD":5}"#
    );
    // A member that is there keeps its key: only its value is replaced.
    let read_names = Json::<TwoNames>::new(br#"{"in":1,"plainField":2}"#);
    assert_eq!(
        read_names.set(TwoNames::both_ways, &Some(3)).unwrap(),
        br#"{"in":3,"plainField":2}"#
    );
    let moved = Json::<Moves>::new(br#"{"kind":"Moved"}"#);
    assert_eq!(
        moved.set(Moves::moved_from_pos, &Some(4)).unwrap(),
        br#"{"kind":"Moved","FromPos":4}"#
    );
}

/// Values serde writes as `null` although they are not `None`.
#[derive(Optics, serde::Serialize, serde::Deserialize, Debug, PartialEq)]
struct Nulls {
    x: f64,
    ox: Option<f64>,
    oo: Option<Option<u8>>,
}

#[test]
fn values_serde_writes_as_null_are_written_as_serde_writes_them() {
    let json = Json::<Nulls>::new(br#"{"x":1.5,"ox":2.5,"oo":3}"#);
    let decoded: Nulls = serde_json::from_slice(json.bytes()).unwrap();
    // The byte write gives the bytes serde writes for the value set: the
    // oracle is serde_json's own writing of `decode -> set`.
    let encoded_after = |set: &dyn Fn(&mut Nulls)| {
        let mut value = Nulls { ..decoded };
        set(&mut value);
        serde_json::to_vec(&value).unwrap()
    };
    for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let written = json.set(Nulls::x, &x).unwrap();
        assert_eq!(written, br#"{"x":null,"ox":2.5,"oo":3}"#);
        assert_eq!(written, encoded_after(&|v| v.x = x));
        // Neither decodes: an `f64` does not read `null`.
        assert!(serde_json::from_slice::<Nulls>(&written).is_err());
        let written = json.set(Nulls::ox.then(some()), &x).unwrap();
        assert_eq!(written, encoded_after(&|v| v.ox = Some(x)));
        assert_eq!(Json::<Nulls>::new(&written).read(Nulls::ox), Some(None));
    }
    let written = json.set(Nulls::oo, &Some(None)).unwrap();
    assert_eq!(written, encoded_after(&|v| v.oo = Some(None)));
    // serde reads its own `Some(None)` back as `None`, and so do bytes.
    let read = serde_json::from_slice::<Nulls>(&written).unwrap().oo;
    assert_eq!(read, None);
    assert_eq!(Json::<Nulls>::new(&written).read(Nulls::oo), Some(read));
}

/// Maps whose JSON may repeat a key, or hold keys out of order.
#[derive(Optics, serde::Serialize, serde::Deserialize, Debug, PartialEq)]
struct Maps {
    by_name: BTreeMap<String, u32>,
}

#[test]
fn each_over_a_map_visits_the_members_the_bytes_hold() {
    let bytes = br#"{"by_name":{"b":1,"a":2,"b":3}}"#;
    let json = Json::<Maps>::new(bytes);
    let decoded: Maps = serde_json::from_slice(bytes).unwrap();
    let path = Maps::by_name.then(each());
    // serde keeps the last of a repeated key, in key order: 2, 3.
    let values: Vec<u32> = path.iter(&decoded).copied().collect();
    assert_eq!(values, [2, 3]);
    // The bytes are read as they stand: every member, in their order.
    let read: Option<Vec<u32>> = json.read_each(path).collect();
    assert_eq!(read, Some(vec![1, 2, 3]));
    // `key(k)` takes the last of a repeated key, as serde does.
    let b = Maps::by_name.then(key("b"));
    assert_eq!(json.read(b), Some(3));
    // Writes through `each()` write every member, so the bytes decode as
    // the value after the same write does.
    let written = json.set_all(path, &7).unwrap();
    let mut expected = decoded;
    path.set_all(&mut expected, 7);
    assert_eq!(serde_json::from_slice::<Maps>(&written).unwrap(), expected);
    let doubled = json.modify_all(path, |n| n * 2).unwrap();
    let mut expected: Maps = serde_json::from_slice(bytes).unwrap();
    path.modify_all(&mut expected, |n| *n *= 2);
    assert_eq!(serde_json::from_slice::<Maps>(&doubled).unwrap(), expected);
}

fn plus_one<S: serde::Serializer>(value: &u32, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_u32(value + 1)
}

/// Payloads serde writes otherwise than their own `Serialize` does.
#[derive(Optics, serde::Serialize, serde::Deserialize, Debug, PartialEq)]
enum Written {
    Plus(#[serde(serialize_with = "plus_one")] u32),
    Plain(u32),
    #[serde(serialize_with = "plus_one")]
    Whole(u32),
}

#[test]
fn a_prism_whose_payload_serde_writes_with_a_function_refuses_to_write() {
    let json = Json::<Written>::new(br#"{"Plus":1}"#);
    // serde writes `{"Plus":6}` for `Plus(5)`; the prism would have written
    // `{"Plus":5}`, so it refuses.
    assert_eq!(
        serde_json::to_vec(&Written::Plus(5)).unwrap(),
        br#"{"Plus":6}"#
    );
    assert_eq!(json.set(Written::plus, &5), None);
    assert_eq!(json.read(Written::plus), Some(1));
    // A function for the whole variant: serde writes what it writes.
    let json = Json::<Written>::new(br#"{"Whole":1}"#);
    assert_eq!(
        serde_json::to_vec(&Written::Whole(5)).unwrap(),
        br#"{"Whole":6}"#
    );
    assert_eq!(json.set(Written::whole, &5), None);
    let json = Json::<Written>::new(br#"{"Plain":1}"#);
    assert_eq!(json.set(Written::plain, &5).unwrap(), br#"{"Plain":5}"#);
}

/// A struct serde writes with a function that changes it.
#[derive(Optics, serde::Serialize, serde::Deserialize, Debug, PartialEq)]
struct Bumped {
    x: u32,
}

fn bump<S: serde::Serializer>(value: &Bumped, serializer: S) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&Bumped { x: value.x + 100 }, serializer)
}

#[derive(Optics, serde::Serialize, serde::Deserialize, Debug, PartialEq)]
struct HoldsBumped {
    #[serde(serialize_with = "bump")]
    bumped: Bumped,
    plain: Bumped,
}

optic! {
    /// The field serde writes with `bump`, by name.
    lens BUMPED: HoldsBumped => Bumped = HoldsBumped::bumped;
}

#[test]
fn a_write_past_a_field_serde_writes_with_a_function_refuses() {
    let json = Json::<HoldsBumped>::new(br#"{"bumped":{"x":1},"plain":{"x":2}}"#);
    // serde writes the field through `bump`: a splice of `x` alone would
    // write 5 where serde writes 105, so the write refuses, by path or name.
    assert_eq!(
        serde_json::to_vec(&HoldsBumped {
            bumped: Bumped { x: 5 },
            plain: Bumped { x: 2 }
        })
        .unwrap(),
        br#"{"bumped":{"x":105},"plain":{"x":2}}"#
    );
    assert_eq!(json.set(HoldsBumped::bumped.then(Bumped::x), &5), None);
    assert_eq!(json.set(BUMPED.then(Bumped::x), &5), None);
    assert_eq!(
        json.modify(HoldsBumped::bumped.then(Bumped::x), |x| x + 1),
        None
    );
    // The field itself is written with the function, as serde writes it;
    // a plain field's leaf is spliced.
    assert_eq!(
        json.set(HoldsBumped::bumped, &Bumped { x: 5 }).unwrap(),
        br#"{"bumped":{"x":105},"plain":{"x":2}}"#
    );
    assert_eq!(
        json.set(HoldsBumped::plain.then(Bumped::x), &5).unwrap(),
        br#"{"bumped":{"x":1},"plain":{"x":5}}"#
    );
    // Reads past it are as they were.
    assert_eq!(json.read(HoldsBumped::bumped.then(Bumped::x)), Some(1));
}

#[path = "support/levels.rs"]
mod levels;

#[test]
fn a_write_past_more_flatten_levels_than_the_reader_follows_refuses() {
    use levels::*;
    let bytes = br#"{"z":5,"list":[1,2]}"#;
    let decoded = serde_json::from_slice::<L0>(bytes).unwrap();
    let json = Json::<L0>::new(bytes);
    // The paths, nested both ways.
    let to_l7 = L0::n
        .then(L1::n)
        .then(L2::n)
        .then(L3::n)
        .then(L4::n)
        .then(L5::n)
        .then(L6::n);
    let z = to_l7.then(L7::z);
    let z_right =
        L0::n.then(L1::n.then(L2::n.then(L3::n.then(L4::n.then(L5::n.then(L6::n.then(L7::z)))))));
    let list = to_l7.then(L7::list).then(each());
    let list_right =
        L0::n.then(L1::n.then(
            L2::n.then(L3::n.then(L4::n.then(L5::n.then(L6::n.then(L7::list.then(each())))))),
        ));
    assert_eq!(z.preview(&decoded), Some(&5));
    assert_eq!(list.iter(&decoded).count(), 2);
    // The reader misses there, as documented; a write of every focus does
    // not copy the document as if it had none: serde's value has foci, and
    // the document unchanged is not what `set_all` gives on it.
    assert_eq!(json.read(z), None);
    assert_eq!(json.read_each(list).count(), 0);
    assert_eq!(json.set(z, &9), None);
    assert_eq!(json.set(z_right, &9), None);
    assert_eq!(json.modify(z, |z| z + 1), None);
    assert_eq!(json.set_all(z, &9), None);
    assert_eq!(json.set_all(z_right, &9), None);
    assert_eq!(json.modify_all(z, |z| z + 1), None);
    assert_eq!(json.set_all(list, &9), None);
    assert_eq!(json.set_all(list_right, &9), None);
    assert_eq!(json.modify_all(list, |n| n + 1), None);
    assert_eq!(json.modify_all(list_right, |n| n + 1), None);
    let mut out = b"old".to_vec();
    assert!(!json.set_all_into(list, &9, &mut out));
    assert!(out.is_empty());
    let duplicates = optics_core::json::Duplicates::new();
    let strict = optics_core::json::Strict::<L0>::validated(bytes, &duplicates).unwrap();
    assert_eq!(strict.set_all(list, &9), None);
    assert_eq!(strict.set_all(z_right, &9), None);
    assert!(!duplicates.met());
    // One level fewer is written.
    let l1 = br#"{"z":5,"list":[1,2]}"#;
    let six = L1::n
        .then(L2::n)
        .then(L3::n)
        .then(L4::n)
        .then(L5::n)
        .then(L6::n)
        .then(L7::list)
        .then(each());
    assert_eq!(
        Json::<L1>::new(l1).set_all(six, &9).unwrap(),
        br#"{"z":5,"list":[9,9]}"#
    );
}

/// A byte write through an `optic!` name whose path goes past more flatten
/// levels than a read follows, against serde's value: the name's lookup
/// misses there, and the write copied the document as if the path had no
/// focus, where the value's write changes it.
#[test]
fn a_write_through_a_name_past_more_flatten_levels_than_the_reader_follows_refuses() {
    use levels::*;
    let bytes = br#"{"z":5,"list":[1,2]}"#;
    let json = Json::<L0>::new(bytes);
    // The oracle: the value serde decodes, written the same way. A byte
    // write gives its bytes, or refuses.
    let agrees = |written: Option<Vec<u8>>, write: &dyn Fn(&mut L0)| {
        let mut expected = serde_json::from_slice::<L0>(bytes).unwrap();
        write(&mut expected);
        assert_ne!(
            expected,
            serde_json::from_slice::<L0>(bytes).unwrap(),
            "the value's write changes it"
        );
        match written {
            None => true,
            Some(written) => serde_json::from_slice::<L0>(&written).unwrap() == expected,
        }
    };
    let elements = LIST.then(each());
    let first = LIST.then(at(0));
    let nested = L0::n.then(LIST_FROM_L1).then(each());
    let nested_right = L0::n.then(LIST_FROM_L1.then(each()));
    let through_name = LIST_THROUGH_NAME.then(each());
    let past_name = TO_L7.then(L7::list).then(each());
    assert_eq!(json.read_each(elements).count(), 0);
    assert!(agrees(json.set_all(elements, &9), &|v| {
        elements.set_all(v, 9);
    }));
    assert!(agrees(json.modify_all(elements, |n| n + 1), &|v| {
        elements.modify_all(v, |n| *n += 1);
    }));
    assert!(agrees(json.set_all(first, &9), &|v| {
        first.set_all(v, 9);
    }));
    assert!(agrees(json.set_all(nested, &9), &|v| {
        nested.set_all(v, 9);
    }));
    assert!(agrees(json.set_all(nested_right, &9), &|v| {
        nested_right.set_all(v, 9);
    }));
    assert!(agrees(json.modify_all(through_name, |n| n + 1), &|v| {
        through_name.modify_all(v, |n| *n += 1);
    }));
    assert!(agrees(json.set_all(past_name, &9), &|v| {
        past_name.set_all(v, 9);
    }));
    // As through the path itself: every one refuses.
    assert_eq!(json.set_all(elements, &9), None);
    assert_eq!(json.modify_all(elements, |n| n + 1), None);
    assert_eq!(json.set_all(first, &9), None);
    assert_eq!(json.set(first, &9), None);
    assert_eq!(json.set_all(nested, &9), None);
    assert_eq!(json.set_all(nested_right, &9), None);
    assert_eq!(json.set_all(through_name, &9), None);
    assert_eq!(json.modify_all(through_name, |n| n + 1), None);
    assert_eq!(json.set_all(past_name, &9), None);
    let mut out = b"old".to_vec();
    assert!(!json.set_all_into(elements, &9, &mut out));
    assert!(out.is_empty());
    let duplicates = optics_core::json::Duplicates::new();
    let strict = optics_core::json::Strict::<L0>::validated(bytes, &duplicates).unwrap();
    assert_eq!(strict.set_all(elements, &9), None);
    assert_eq!(strict.modify_all(elements, |n| n + 1), None);
    assert_eq!(strict.set_all(first, &9), None);
    assert_eq!(strict.set_all(nested, &9), None);
    assert_eq!(strict.set_all(through_name, &9), None);
    assert!(!duplicates.met());
    // One level fewer, the name's foci are written.
    let l1 = Json::<L1>::new(bytes);
    assert_eq!(
        l1.set_all(LIST_FROM_L1.then(each()), &9).unwrap(),
        br#"{"z":5,"list":[9,9]}"#
    );
    assert_eq!(
        l1.modify_all(LIST_FROM_L1.then(at(1)), |n| n + 1).unwrap(),
        br#"{"z":5,"list":[1,3]}"#
    );
}
