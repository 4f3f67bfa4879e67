//! An internally or adjacently tagged enum's tag given twice, in every shape
//! of model the enum can stand in: at the root, in a struct, in a list, in a
//! map, flattened into a struct, nested in another internally tagged enum's
//! payload. serde_json refuses each such document ("duplicate field"); every
//! strict read through the enum (a leaf of a variant, the variant's payload,
//! its kind; read, viewed, traversed, written) refuses too and records the
//! duplicate. The tag comes first as serde writes it (where the byte reader
//! reads it without a lookup), then again, early or last, written plainly,
//! with an escape, with another value or the same; objects small and over
//! 1 KiB; views from a validation and without one. A tag given twice in a
//! nested enum is off the path of a read of the outer enum's kind; a junk
//! first key given twice is off every path (serde_json reads those).

use std::collections::BTreeMap;

use optics_core::json::{Duplicates, Json, ReadError, Strict};
use optics_core::prelude::*;
use serde::Deserialize;

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "type")]
enum Ev {
    #[serde(alias = "open")]
    Open(Open),
    Close(Close),
    Ping,
    Nest(Inner),
    Moved {
        from: u32,
        to: u32,
    },
    #[serde(other)]
    Unknown,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Open {
    at: u32,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Close {
    at: u32,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "kind")]
enum Inner {
    X(Open),
    Y,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t", content = "c")]
enum Adj {
    A(u32),
    B(Open),
    U,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Root {
    ev: Ev,
    list: Vec<Ev>,
    map: BTreeMap<String, Ev>,
    adj: Adj,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Flat {
    id: u32,
    #[serde(flatten)]
    ev: Ev,
}

/// A strict view of `text` as a `T`: from a validation, or (`validated`
/// false) over bytes validated apart, with no walk records.
fn view<'a, 'd, T>(
    text: &'a str,
    duplicates: &'d Duplicates,
    validated: bool,
) -> Strict<'a, 'd, T> {
    if validated {
        Strict::<T>::validated(text.as_bytes(), duplicates).expect("valid JSON")
    } else {
        Json::<T>::validated(text.as_bytes())
            .expect("valid JSON")
            .strict(duplicates)
    }
}

/// Every strict way to read `$optic` (one focus) on `$text` as a `$ty`
/// refuses, and records the duplicate.
macro_rules! refused {
    ($ty:ty, $text:expr, $($optic:expr),+ $(,)?) => {{
        let text: &str = $text;
        $(
            for validated in [true, false] {
                let what = format!("{} of {text} (validated: {validated})", stringify!($optic));
                let d = Duplicates::new();
                assert_eq!(view::<$ty>(text, &d, validated).read($optic), None, "read {what}");
                assert!(d.met(), "read {what}");
                let d = Duplicates::new();
                assert!(view::<$ty>(text, &d, validated).view($optic).is_none(), "view {what}");
                assert!(d.met(), "view {what}");
                let d = Duplicates::new();
                let each: Vec<_> = view::<$ty>(text, &d, validated).read_each($optic).collect();
                assert!(each.is_empty() && d.met(), "read_each {what}: {each:?}");
                let d = Duplicates::new();
                let tried = view::<$ty>(text, &d, validated).try_read($optic);
                assert!(matches!(tried, Err(ReadError::Duplicate { .. })), "try_read {what}: {tried:?}");
            }
        )+
    }};
}

/// Every strict way to read `$optic` on `$text` as a `$ty` gives what it
/// gives on the value serde_json decodes, and meets no duplicate.
macro_rules! answers {
    ($ty:ty, $text:expr, $($optic:expr),+ $(,)?) => {{
        let text: &str = $text;
        let value: $ty = serde_json::from_str(text).expect("serde_json reads it");
        $(
            for validated in [true, false] {
                let what = format!("{} of {text} (validated: {validated})", stringify!($optic));
                let expected = $optic.preview(&value).cloned();
                let d = Duplicates::new();
                assert_eq!(view::<$ty>(text, &d, validated).read($optic), expected, "read {what}");
                assert_eq!(
                    view::<$ty>(text, &d, validated).try_read($optic).ok(),
                    expected,
                    "try_read {what}"
                );
                let each: Vec<_> = view::<$ty>(text, &d, validated).read_each($optic).collect();
                assert_eq!(each, expected.iter().map(|v| Some(v.clone())).collect::<Vec<_>>(), "read_each {what}");
                assert!(!d.met(), "{what}");
            }
        )+
    }};
}

/// The tag's member given again, as it may be written.
const AGAIN: &[&str] = &[
    r#""type":"Close""#,
    r#""type":"Open""#,
    r#""type" : "Close""#,
    r#""t\u0079pe":"Close""#,
    r#""\u0074ype":"Open""#,
    r#""type":"Cl\u006fse""#,
    r#""type":"Zzz""#,
    r#""type":1"#,
    r#""type":null"#,
    r#""type":{}"#,
];

/// The enum's objects, as serde writes them (the tag first), and two
/// written otherwise; `PAD` is a long string, for objects over 1 KiB.
const OBJECTS: &[&str] = &[
    r#"{"type":"Open","at":1}"#,
    r#"{"type":"open","at":1}"#,
    r#"{ "type" : "Open" , "at":1}"#,
    r#"{"type":"Open","pad":"PAD","at":1}"#,
    r#"{"type":"Ping"}"#,
    r#"{"type":"Moved","from":1,"to":2}"#,
    r#"{"type":"Moved","pad":"PAD","from":1,"to":2}"#,
    r#"{"type":"Nest","kind":"X","at":1}"#,
    r#"{"type":"Nest","kind":"X","pad":"PAD","at":1}"#,
    r#"{"type":"Nest","kind":"Y"}"#,
    r#"{"t\u0079pe":"Open","at":1}"#,
    r#"{"type":"Op\u0065n","at":1}"#,
];

/// Each object of [`OBJECTS`] with its tag given again, right after it or
/// last.
fn tag_twice() -> Vec<String> {
    let pad = "p".repeat(1100);
    let mut docs = Vec::new();
    for object in OBJECTS {
        let object = object.replace("PAD", &pad);
        let members = &object[1..object.len() - 1];
        for again in AGAIN {
            docs.push(format!("{{{members},{again}}}"));
            if let Some((tag, rest)) = members.split_once(',') {
                docs.push(format!("{{{tag},{again},{rest}}}"));
            }
        }
    }
    docs
}

#[test]
fn every_strict_read_through_an_enum_whose_tag_stands_twice_refuses() {
    for ev in tag_twice() {
        assert!(serde_json::from_str::<Ev>(&ev).is_err(), "{ev}");
        // The enum at the root.
        refused!(
            Ev,
            &ev,
            Ev::open.then(Open::at),
            Ev::open,
            Ev::close.then(Close::at),
            Ev::ping,
            Ev::kind,
            Ev::nest.then(Inner::x).then(Open::at),
            Ev::nest.then(Inner::y),
            Ev::nest,
            Ev::moved_from,
            Ev::moved_to,
            Ev::unknown,
        );
        // In a struct, a list (after a good element) and a map.
        let root = format!(
            r#"{{"ev":{ev},"list":[{{"type":"Ping"}},{ev}],"map":{{"a":{ev}}},"adj":{{"t":"U"}}}}"#
        );
        assert!(serde_json::from_str::<Root>(&root).is_err(), "{root}");
        refused!(
            Root,
            &root,
            Root::ev.then(Ev::open).then(Open::at),
            Root::ev.then(Ev::open),
            Root::ev.then(Ev::kind),
            Root::ev.then(Ev::ping),
            Root::ev.then(Ev::moved_to),
            Root::list.then(at(1)).then(Ev::open).then(Open::at),
            Root::list.then(at(1)).then(Ev::kind),
            Root::map.then(key("a")).then(Ev::open).then(Open::at),
            Root::map.then(key("a")).then(Ev::kind),
        );
        for validated in [true, false] {
            let d = Duplicates::new();
            let kinds: Vec<_> = view::<Root>(&root, &d, validated)
                .read_each(Root::list.then(each()).then(Ev::kind))
                .collect();
            assert_eq!(kinds, [Some(EvKind::Ping)], "{root}");
            assert!(d.met(), "{root}");
            let d = Duplicates::new();
            let kinds = view::<Root>(&root, &d, validated)
                .iter(Root::map.then(each()).then(Ev::kind))
                .count();
            assert!(kinds == 0 && d.met(), "{root}");
            let d = Duplicates::new();
            let payloads: Vec<_> = view::<Root>(&root, &d, validated)
                .read_each(Root::list.then(each()).then(Ev::open))
                .collect();
            assert!(payloads.is_empty() && d.met(), "{root}");
            let d = Duplicates::new();
            let strict = view::<Root>(&root, &d, validated);
            let at = Root::list.then(each()).then(Ev::open).then(Open::at);
            assert_eq!(strict.set_all(at, &5), None, "{root}");
            assert_eq!(strict.set(Root::ev.then(Ev::open).then(Open::at), &5), None);
            assert!(d.met(), "{root}");
        }
        // A view of the enum made in one pass with the validation.
        let d = Duplicates::new();
        let ev_view = Strict::<Root>::validated_view(root.as_bytes(), &d, Root::ev)
            .expect("valid JSON")
            .expect("the enum's object");
        assert_eq!(ev_view.read(Ev::kind), None, "{root}");
        assert_eq!(ev_view.read(Ev::open.then(Open::at)), None, "{root}");
        assert!(d.met(), "{root}");
        // Flattened into a struct, after its field and before it.
        let members = &ev[1..ev.len() - 1];
        for flat in [
            format!(r#"{{"id":1,{members}}}"#),
            format!(r#"{{{members},"id":1}}"#),
        ] {
            assert!(serde_json::from_str::<Flat>(&flat).is_err(), "{flat}");
            refused!(
                Flat,
                &flat,
                Flat::ev.then(Ev::open).then(Open::at),
                Flat::ev.then(Ev::kind),
                Flat::ev.then(Ev::ping),
                Flat::ev.then(Ev::moved_from),
            );
            let d = Duplicates::new();
            let strict = Strict::<Flat>::validated(flat.as_bytes(), &d).expect("valid JSON");
            let ev_view = strict.view(Flat::ev).expect("the struct's object");
            assert_eq!(ev_view.read(Ev::kind), None, "{flat}");
            assert!(d.met(), "{flat}");
        }
    }
}

#[test]
fn a_nested_enums_tag_twice_is_on_the_path_through_it_only() {
    for ev in [
        r#"{"type":"Nest","kind":"X","at":1,"kind":"Y"}"#,
        r#"{"type":"Nest","kind":"Y","kind":"X","at":1}"#,
        r#"{"type":"Nest","kind":"Y","kind":"Y"}"#,
        r#"{"type":"Nest","kind":"X","at":1,"k\u0069nd":"X"}"#,
    ] {
        assert!(serde_json::from_str::<Ev>(ev).is_err(), "{ev}");
        refused!(
            Ev,
            ev,
            Ev::nest.then(Inner::x).then(Open::at),
            Ev::nest.then(Inner::y),
            Ev::nest.then(Inner::kind),
        );
        // The outer tag is read and stands once: the read answers.
        for validated in [true, false] {
            let d = Duplicates::new();
            let kind = view::<Ev>(ev, &d, validated).read(Ev::kind);
            assert_eq!(kind, Some(EvKind::Nest), "{ev}");
            assert!(!d.met(), "{ev}");
        }
    }
}

#[test]
fn an_adjacently_tagged_enums_tag_twice_refuses() {
    for adj in [
        r#"{"t":"A","c":1,"t":"B"}"#,
        r#"{"t":"A","t":"A","c":1}"#,
        r#"{"t":"A","c":1,"\u0074":"B"}"#,
        r#"{"t":"U","t":"A"}"#,
        r#"{"t":"U","t":"U"}"#,
        r#"{"c":1,"t":"A","t":"A"}"#,
        r#"{"t":"B","c":{"at":1},"c":{"at":2}}"#,
        r#"{"t":"A","c":1,"c":2}"#,
    ] {
        let root = format!(r#"{{"ev":{{"type":"Ping"}},"list":[],"map":{{}},"adj":{adj}}}"#);
        assert!(serde_json::from_str::<Root>(&root).is_err(), "{root}");
        refused!(
            Root,
            &root,
            Root::adj.then(Adj::a),
            Root::adj.then(Adj::b).then(Open::at),
            Root::adj.then(Adj::u),
            Root::adj.then(Adj::kind),
        );
    }
}

#[test]
fn a_first_key_twice_where_no_tag_is_read_is_off_the_path() {
    answers!(
        Ev,
        r#"{"junk":"a","type":"Open","at":1,"junk":"b"}"#,
        Ev::open.then(Open::at),
        Ev::kind,
    );
    answers!(
        Ev,
        r#"{"type":"Open","junk":"a","at":1,"junk":"b"}"#,
        Ev::open.then(Open::at),
        Ev::kind,
    );
    // The tag's key inside a nested object, or in a string, is no repeat.
    let pad = "p".repeat(1100);
    for ev in [
        r#"{"type":"Open","x":{"type":"Close"},"at":1}"#.to_owned(),
        r#"{"type":"Open","x":[{"type":"Close"}],"at":1}"#.to_owned(),
        r#"{"type":"Open","s":"\",\"type\":\"Close","at":1}"#.to_owned(),
        format!(r#"{{"type":"Open","x":{{"type":"Close"}},"pad":"{pad}","at":1}}"#),
        format!(r#"{{"type":"Open","pad":"{pad}","s":"\"type\":","at":1}}"#),
    ] {
        answers!(Ev, &ev, Ev::open.then(Open::at), Ev::kind);
    }
    let root = r#"{"junk":"a","ev":{"type":"Open","at":1},"list":[{"type":"Ping"}],"map":{"k":{"type":"Ping"}},"adj":{"t":"U"},"junk":"b"}"#;
    answers!(
        Root,
        root,
        Root::ev.then(Ev::open).then(Open::at),
        Root::list.then(at(0)).then(Ev::kind),
        Root::map.then(key("k")).then(Ev::ping),
        Root::adj.then(Adj::kind),
    );
    let d = Duplicates::new();
    let view = Strict::<Root>::validated_view(root.as_bytes(), &d, Root::ev)
        .expect("valid JSON")
        .expect("the enum's object");
    assert_eq!(view.read(Ev::open.then(Open::at)), Some(1));
    assert!(!d.met());
    answers!(
        Flat,
        r#"{"junk":"a","id":1,"type":"Close","at":2,"junk":"b"}"#,
        Flat::id,
        Flat::ev.then(Ev::close).then(Close::at),
    );
}
