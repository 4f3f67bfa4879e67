//! Strict byte writes (`Strict::set` and its siblings) against the trusting
//! ones and serde_json: on a document serde_json decodes, a strict write
//! gives the trusting write's bytes; where a key on the path to a focus
//! stands twice, it refuses and records the duplicate, where the trusting
//! write changes one member and leaves the other.

mod model;

use model::*;
use optics_core::json::{Duplicates, Strict};
use optics_core::prelude::*;
use proptest::prelude::*;

/// Every strict write of `optic` on `bytes` against the trusting one: the
/// same bytes where `same`, else refused with the duplicate recorded.
macro_rules! agree {
    ($bytes:expr, $same:expr, $optic:expr, $value:expr) => {{
        let bytes: &[u8] = $bytes;
        let same: bool = $same;
        let optic = $optic;
        let value = $value;
        let json = Json::<Issue>::new(bytes);
        let duplicates = Duplicates::new();
        let strict = Strict::<Issue>::validated(bytes, &duplicates).unwrap();
        let text = String::from_utf8_lossy(bytes);
        let mut out = Vec::new();
        let expected = |trusting: Option<Vec<u8>>| if same { trusting } else { None };
        prop_assert_eq!(
            strict.set_all(optic, &value),
            expected(json.set_all(optic, &value)),
            "{}",
            text
        );
        prop_assert_eq!(
            strict.set_all_into(optic, &value, &mut out),
            same && json.set_all(optic, &value).is_some(),
            "{}",
            text
        );
        let mut calls = 0;
        prop_assert_eq!(
            strict.modify_all(optic, |v| {
                calls += 1;
                v
            }),
            expected(json.modify_all(optic, |v| v)),
            "{}",
            text
        );
        if !same {
            prop_assert_eq!(calls, 0);
        }
        prop_assert_eq!(
            strict.modify_all_into(optic, |v| v, &mut out),
            same && json.modify_all(optic, |v| v).is_some(),
            "{}",
            text
        );
        prop_assert_eq!(duplicates.met(), !same, "{}", text);
    }};
}

/// The single-focus writes too.
macro_rules! agree_one {
    ($bytes:expr, $same:expr, $optic:expr, $value:expr) => {{
        agree!($bytes, $same, $optic, $value);
        let bytes: &[u8] = $bytes;
        let same: bool = $same;
        let optic = $optic;
        let value = $value;
        let json = Json::<Issue>::new(bytes);
        let duplicates = Duplicates::new();
        let strict = Strict::<Issue>::validated(bytes, &duplicates).unwrap();
        let text = String::from_utf8_lossy(bytes);
        let mut out = Vec::new();
        let expected = |trusting: Option<Vec<u8>>| if same { trusting } else { None };
        prop_assert_eq!(
            strict.set(optic, &value),
            expected(json.set(optic, &value)),
            "{}",
            text
        );
        prop_assert_eq!(
            strict.set_into(optic, &value, &mut out),
            same && json.set(optic, &value).is_some(),
            "{}",
            text
        );
        prop_assert!(same || out.is_empty());
        prop_assert_eq!(
            strict.modify(optic, |v| v),
            expected(json.modify(optic, |v| v)),
            "{}",
            text
        );
        prop_assert_eq!(
            strict.modify_into(optic, |v| v, &mut out),
            same && json.modify(optic, |v| v).is_some(),
            "{}",
            text
        );
        prop_assert_eq!(duplicates.met(), !same, "{}", text);
    }};
}

/// `text` with a member `"key":value` written in front of the first member
/// `"key":` that stands after `after`, in the same object.
fn repeated(text: &str, after: &str, key: &str, value: &str) -> Option<String> {
    let from = text.find(after)?;
    let at = from + text[from..].find(&format!("\"{key}\":"))?;
    Some(format!("{}\"{key}\":{value},{}", &text[..at], &text[at..]))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn strict_writes_write_as_trusting_ones_where_no_key_repeats(issue in issue()) {
        let text = serde_json::to_string(&issue).unwrap();
        let bytes = text.as_bytes();
        agree_one!(bytes, true, Issue::issue_id, 7u64);
        agree_one!(bytes, true, Issue::title_text, "redacted".to_owned());
        agree_one!(
            bytes,
            true,
            Issue::detail.then(Detail::incident).then(Incident::impact).then(Impact::service).then(Service::tier),
            Tier::Critical
        );
        agree_one!(bytes, true, Issue::tags.then(key("team")), "t".to_owned());
        agree!(bytes, true, Issue::labels.then(each()), "l".to_owned());
        agree!(bytes, true, Issue::counters.then(each()).then(Wrapper::value), 1u32);
        agree!(
            bytes,
            true,
            Issue::detail.then(Detail::bug).then(Bug::frames).then(each()).then(Frame::line),
            3u32
        );
    }

    #[test]
    fn strict_writes_refuse_a_key_repeated_on_the_path(issue in issue()) {
        let text = serde_json::to_string(&issue).unwrap();
        // The root's key, repeated.
        let twice = repeated(&text, "{", "issueId", "1").unwrap();
        prop_assert!(serde_json::from_str::<Issue>(&twice).is_err());
        agree_one!(twice.as_bytes(), false, Issue::issue_id, 7u64);
        agree!(twice.as_bytes(), true, Issue::labels.then(each()), "l".to_owned());
        // A key inside the detail, where the issue has one.
        if let Some(twice) = repeated(&text, "\"service\":", "tier", "\"standard\"") {
            let tier = Issue::detail.then(Detail::incident).then(Incident::impact).then(Impact::service).then(Service::tier);
            agree_one!(twice.as_bytes(), false, tier, Tier::Critical);
        }
        // A key inside an element of a list the traversal writes.
        if let Some(twice) = repeated(&text, "\"frames\":[{", "line", "1") {
            let lines = Issue::detail.then(Detail::bug).then(Bug::frames).then(each()).then(Frame::line);
            agree!(twice.as_bytes(), false, lines, 3u32);
        }
    }
}

#[test]
fn a_repeated_map_key_is_written_in_every_member() {
    // serde keeps the last member of a repeated map key: not a duplicate, and
    // every member is written, as the trusting write does.
    let bytes = br#"{"tags":{"team":"a","team":"b"}}"#;
    #[derive(Optics, serde::Serialize, serde::Deserialize)]
    struct Tagged {
        tags: std::collections::BTreeMap<String, String>,
    }
    let duplicates = Duplicates::new();
    let strict = Strict::<Tagged>::validated(bytes, &duplicates).unwrap();
    let all = strict
        .set_all(Tagged::tags.then(each()), &"x".to_owned())
        .unwrap();
    assert_eq!(all, br#"{"tags":{"team":"x","team":"x"}}"#);
    assert!(!duplicates.met());
}

#[derive(Optics, serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
struct Line {
    line: u32,
}

#[derive(Optics, serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
struct Lines {
    by_name: std::collections::BTreeMap<String, Line>,
}

#[test]
fn a_key_repeated_inside_a_map_member_serde_drops_is_refused_where_written() {
    // serde keeps the second "k"; the write writes both, and the first holds
    // "line" twice: written trustingly, its second "line" stays as it was.
    let bytes = br#"{"by_name":{"k":{"line":1,"line":2},"k":{"line":3}}}"#;
    let lines = Lines::by_name.then(each()).then(Line::line);
    assert!(serde_json::from_slice::<Lines>(bytes).is_err());
    let trusting = Json::<Lines>::new(bytes).set_all(lines, &9).unwrap();
    assert_eq!(
        trusting,
        br#"{"by_name":{"k":{"line":9,"line":2},"k":{"line":9}}}"#
    );
    let duplicates = Duplicates::new();
    let strict = Strict::<Lines>::validated(bytes, &duplicates).unwrap();
    assert_eq!(strict.set_all(lines, &9), None);
    assert!(duplicates.met());
    assert_eq!(duplicates.offset_in(bytes), Some(26));
    let mut out = b"old".to_vec();
    let mut calls = 0;
    assert!(!strict.modify_all_into(
        lines,
        |line| {
            calls += 1;
            line
        },
        &mut out
    ));
    assert!(out.is_empty());
    assert_eq!(calls, 0);
    // Reads still visit the members serde keeps, and find no duplicate.
    let duplicates = Duplicates::new();
    let strict = Strict::<Lines>::validated(bytes, &duplicates).unwrap();
    let read: Vec<Option<u32>> = strict.read_each(lines).collect();
    assert_eq!(read, [Some(3)]);
    assert!(!duplicates.met());
    // Where the dropped member holds no repeated key, the write goes on.
    let once = br#"{"by_name":{"k":{"line":1},"k":{"line":3}}}"#;
    let strict = Strict::<Lines>::validated(once, &duplicates).unwrap();
    assert_eq!(
        strict.set_all(lines, &9),
        Json::<Lines>::new(once).set_all(lines, &9)
    );
    assert!(!duplicates.met());
}

/// Internally tagged, with a unit variant.
#[derive(Optics, serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "type")]
enum Kind {
    Unit,
    Lined(Line),
}

/// Adjacently tagged, with a unit variant.
#[derive(Optics, serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t", content = "c")]
enum Pair {
    Unit,
    Number(u32),
}

#[derive(Optics, serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
struct Kinds {
    kind: Kind,
    pair: Pair,
}

#[test]
fn a_repeated_tag_is_met_where_the_variant_itself_is_the_focus() {
    use optics_core::json::ReadError;
    let payload = Kinds::kind.then(Kind::lined);
    let unit = Kinds::kind.then(Kind::unit);
    for (kind, leads) in [
        // The tag leads (read the quick way), and stands again.
        (r#"{"type":"Lined","line":1,"type":"Unit"}"#, "Lined"),
        (r#"{"type":"Lined","type":"Unit","line":1}"#, "Lined"),
        (r#"{"type":"Unit","line":1,"type":"Lined"}"#, "Unit"),
        (r#"{"type":"Unit","type":"Lined","line":1}"#, "Unit"),
        // The tag does not lead: looked up, and met twice.
        (r#"{"line":1,"type":"Lined","type":"Unit"}"#, "Lined"),
        (r#"{"line":1,"type":"Unit","type":"Lined"}"#, "Unit"),
        // The second written with an escape.
        (r#"{"type":"Lined","line":1,"t\u0079pe":"Unit"}"#, "Lined"),
        (r#"{"type":"Unit","line":1,"t\u0079pe":"Lined"}"#, "Unit"),
    ] {
        let text = format!(r#"{{"kind":{kind},"pair":{{"t":"Unit"}}}}"#);
        let bytes = text.as_bytes();
        assert!(serde_json::from_slice::<Kinds>(bytes).is_err(), "{text}");
        let duplicates = Duplicates::new();
        let strict = Strict::<Kinds>::validated(bytes, &duplicates).unwrap();
        let second = text.rfind(r#""type""#).max(text.rfind(r#""t\u0079pe""#));
        if leads == "Lined" {
            assert!(strict.view(payload).is_none(), "{text}");
            assert!(duplicates.met(), "{text}");
            assert_eq!(duplicates.offset_in(bytes), second, "{text}");
            duplicates.clear();
            assert_eq!(strict.set(payload, &Line { line: 9 }), None, "{text}");
            assert!(duplicates.met(), "{text}");
            let error = strict.try_read(payload).unwrap_err();
            assert!(matches!(error, ReadError::Duplicate { .. }), "{text}");
        } else {
            assert_eq!(strict.read(unit), None, "{text}");
            assert!(duplicates.met(), "{text}");
            assert_eq!(duplicates.offset_in(bytes), second, "{text}");
            let error = strict.try_read(unit).unwrap_err();
            assert!(matches!(error, ReadError::Duplicate { .. }), "{text}");
        }
        // The same object read as a view of its own.
        let duplicates = Duplicates::new();
        let alone = Strict::<Kind>::validated(kind.as_bytes(), &duplicates).unwrap();
        if leads == "Lined" {
            assert!(alone.view(Kind::lined).is_none(), "{kind}");
        } else {
            assert_eq!(alone.read(Kind::unit), None, "{kind}");
        }
        assert!(duplicates.met(), "{kind}");
    }
    // An adjacently tagged unit variant whose tag stands twice.
    for pair in [
        r#"{"t":"Unit","t":"Number","c":1}"#,
        r#"{"t":"Unit","c":1,"t":"Number"}"#,
    ] {
        let text = format!(r#"{{"kind":{{"type":"Unit"}},"pair":{pair}}}"#);
        let bytes = text.as_bytes();
        assert!(serde_json::from_slice::<Kinds>(bytes).is_err(), "{text}");
        let duplicates = Duplicates::new();
        let strict = Strict::<Kinds>::validated(bytes, &duplicates).unwrap();
        assert_eq!(strict.read(Kinds::pair.then(Pair::unit)), None, "{text}");
        assert!(duplicates.met(), "{text}");
    }
    // Where the tag stands once, all of these read and write.
    let text = r#"{"kind":{"type":"Lined","line":1},"pair":{"t":"Unit"}}"#;
    let duplicates = Duplicates::new();
    let strict = Strict::<Kinds>::validated(text.as_bytes(), &duplicates).unwrap();
    assert_eq!(
        strict.set(payload, &Line { line: 9 }),
        Json::<Kinds>::new(text.as_bytes()).set(payload, &Line { line: 9 })
    );
    assert_eq!(strict.read(Kinds::pair.then(Pair::unit)), Some(()));
    let text = r#"{"kind":{"type":"Unit","line":1},"pair":{"t":"Unit"}}"#;
    let strict = Strict::<Kinds>::validated(text.as_bytes(), &duplicates).unwrap();
    assert_eq!(strict.read(unit), Some(()));
    assert!(!duplicates.met());
}

/// Externally tagged, flattened below: serde takes the first member named
/// like a variant among the struct's others.
#[derive(Optics, serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
enum Shape {
    #[serde(alias = "Round")]
    Circle(u32),
    Square(u32),
}

#[derive(Optics, serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
struct Drawn {
    #[serde(flatten)]
    shape: Shape,
    x: u32,
}

#[test]
fn a_flattened_enums_variant_key_repeated_is_met() {
    let radius = Drawn::shape.then(Shape::circle);
    for text in [
        r#"{"Circle":1,"x":2,"Circle":3}"#,
        r#"{"Circle":1,"x":2,"Round":3}"#,
        r#"{"x":2,"Round":1,"Circle":3}"#,
        r#"{"Circle":1,"x":2,"Circl\u0065":3}"#,
    ] {
        let bytes = text.as_bytes();
        // serde_json takes the first; a reader that takes the last would
        // not see a write to it.
        let decoded = serde_json::from_slice::<Drawn>(bytes).unwrap();
        assert_eq!(radius.preview(&decoded), Some(&1), "{text}");
        let trusting = Json::<Drawn>::new(bytes).set(radius, &9).unwrap();
        assert!(
            String::from_utf8(trusting).unwrap().contains(":3"),
            "{text}"
        );
        let duplicates = Duplicates::new();
        let strict = Strict::<Drawn>::validated(bytes, &duplicates).unwrap();
        assert_eq!(strict.read(radius), None, "{text}");
        assert!(duplicates.met(), "{text}");
        assert_eq!(
            duplicates.offset_in(bytes),
            text.rfind(":3").map(|colon| text[..colon]
                .rfind('"')
                .and_then(|end| text[..end].rfind('"'))
                .unwrap()),
            "{text}"
        );
        duplicates.clear();
        assert_eq!(strict.set(radius, &9), None, "{text}");
        assert!(duplicates.met(), "{text}");
    }
    // Another variant's key after it is no repeat: serde takes the first.
    let text = r#"{"Circle":1,"x":2,"Square":3}"#;
    let duplicates = Duplicates::new();
    let strict = Strict::<Drawn>::validated(text.as_bytes(), &duplicates).unwrap();
    assert_eq!(strict.read(radius), Some(1));
    assert_eq!(
        strict.set(radius, &9),
        Json::<Drawn>::new(text.as_bytes()).set(radius, &9)
    );
    assert!(!duplicates.met());
}
