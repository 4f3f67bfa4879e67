//! Strict byte writes (`Strict::set` and its siblings) against the trusting
//! ones and serde_json: on a document serde_json decodes, a strict write
//! gives the trusting write's bytes; where a key on the path to a focus
//! stands twice, it refuses and records the duplicate, where the trusting
//! write changes one member and leaves the other.

#[path = "support/scale.rs"]
mod scale;

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
    #![proptest_config(ProptestConfig::with_cases(crate::scale::scaled(128)))]

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
enum Figure {
    #[serde(alias = "Round")]
    Circle(u32),
    Square(u32),
}

#[derive(Optics, serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
struct Drawn {
    #[serde(flatten)]
    shape: Figure,
    x: u32,
}

#[test]
fn a_flattened_enums_variant_key_repeated_is_met() {
    let radius = Drawn::shape.then(Figure::circle);
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

/// A JSON value read keeping the first member of each repeated key, as some
/// parsers do (serde_json's `Value` keeps the last).
struct FirstWins(serde_json::Value);

impl<'de> serde::Deserialize<'de> for FirstWins {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{MapAccess, SeqAccess, Visitor};
        use serde_json::Value;
        struct First;
        impl<'de> Visitor<'de> for First {
            type Value = FirstWins;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("JSON")
            }
            fn visit_bool<E>(self, v: bool) -> Result<FirstWins, E> {
                Ok(FirstWins(Value::Bool(v)))
            }
            fn visit_i64<E>(self, v: i64) -> Result<FirstWins, E> {
                Ok(FirstWins(v.into()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<FirstWins, E> {
                Ok(FirstWins(v.into()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<FirstWins, E> {
                Ok(FirstWins(v.into()))
            }
            fn visit_str<E>(self, v: &str) -> Result<FirstWins, E> {
                Ok(FirstWins(v.into()))
            }
            fn visit_unit<E>(self) -> Result<FirstWins, E> {
                Ok(FirstWins(Value::Null))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<FirstWins, A::Error> {
                let mut out = Vec::new();
                while let Some(FirstWins(v)) = seq.next_element()? {
                    out.push(v);
                }
                Ok(FirstWins(Value::Array(out)))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<FirstWins, A::Error> {
                let mut out = serde_json::Map::new();
                while let Some((k, FirstWins(v))) = map.next_entry::<String, FirstWins>()? {
                    out.entry(k).or_insert(v);
                }
                Ok(FirstWins(Value::Object(out)))
            }
        }
        d.deserialize_any(First)
    }
}

/// The issue as a reader that keeps the first, and one that keeps the last
/// member of a repeated key, read it (those that decode).
fn readings(bytes: &[u8]) -> Vec<Issue> {
    let first = serde_json::from_slice::<FirstWins>(bytes).map(|v| v.0);
    let last = serde_json::from_slice::<serde_json::Value>(bytes);
    [first, last]
        .into_iter()
        .filter_map(|value| serde_json::from_value::<Issue>(value.ok()?).ok())
        .collect()
}

/// `text` with the member whose key starts at the `pick`th key written
/// twice in a row (the copy after it, or before it).
fn doubled(text: &str, pick: usize, before: bool) -> Option<String> {
    let bytes = text.as_bytes();
    let keys: Vec<usize> = (1..bytes.len())
        .filter(|&i| bytes[i] == b'"' && matches!(bytes[i - 1], b'{' | b','))
        .collect();
    let start = *keys.get(pick % keys.len().max(1))?;
    let mut stream = serde_json::Deserializer::from_str(&text[start..]).into_iter::<String>();
    stream.next()?.ok()?;
    let colon = start + stream.byte_offset();
    if bytes.get(colon) != Some(&b':') {
        return None;
    }
    let mut stream =
        serde_json::Deserializer::from_str(&text[colon + 1..]).into_iter::<serde::de::IgnoredAny>();
    stream.next()?.ok()?;
    let end = colon + 1 + stream.byte_offset();
    let member = &text[start..end];
    Some(if before {
        format!("{}{member},{}", &text[..start], &text[start..])
    } else {
        format!("{},{member}{}", &text[..end], &text[end..])
    })
}

/// Where a strict write of `optic` writes, every reader of the result reads
/// `value` at every focus: no member on the path stood twice, one written
/// and one left.
macro_rules! every_reader_sees {
    ($bytes:expr, $write:ident, $optic:expr, $value:expr) => {{
        let bytes: &[u8] = $bytes;
        let optic = $optic;
        let value = $value;
        let duplicates = Duplicates::new();
        let strict = Strict::<Issue>::validated(bytes, &duplicates).unwrap();
        if let Some(out) = strict.$write(optic, &value) {
            for issue in readings(&out) {
                for focus in optics_core::optic::Traverse::iter(&optic, &issue) {
                    prop_assert_eq!(
                        focus,
                        &value,
                        "{} -> {}",
                        String::from_utf8_lossy(bytes),
                        String::from_utf8_lossy(&out)
                    );
                }
            }
        }
    }};
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::scale::scaled(512)))]

    #[test]
    fn what_a_strict_write_writes_every_reader_reads(
        issue in issue(),
        pick in any::<usize>(),
        before in any::<bool>(),
        again in proptest::option::of(any::<usize>()),
    ) {
        let text = serde_json::to_string(&issue).unwrap();
        let Some(mut twice) = doubled(&text, pick, before) else {
            return Ok(());
        };
        // A second member doubled: a repeated key inside a repeated one.
        if let Some(twice_again) = again.and_then(|pick| doubled(&twice, pick, before)) {
            twice = twice_again;
        }
        let bytes = twice.as_bytes();
        prop_assume!(Json::<Issue>::validated(bytes).is_ok());
        every_reader_sees!(bytes, set, Issue::issue_id, 7777u64);
        every_reader_sees!(bytes, set, Issue::title_text, "redacted".to_owned());
        every_reader_sees!(bytes, set, Issue::r#type, Category::Crash);
        every_reader_sees!(
            bytes,
            set,
            Issue::detail.then(Detail::incident).then(Incident::impact).then(Impact::service).then(Service::tier),
            Tier::BestEffort
        );
        every_reader_sees!(bytes, set, Issue::detail.then(Detail::incident).then(Incident::severity), Severity::Low);
        every_reader_sees!(bytes, set, Issue::detail.then(Detail::bug).then(Bug::line_no), Some(4242u32));
        every_reader_sees!(bytes, set, Issue::detail.then(Detail::question).then(Wrapper::value), "q".to_owned());
        every_reader_sees!(
            bytes,
            set,
            Issue::detail.then(Detail::question),
            Wrapper { value: "q".to_owned(), note: None }
        );
        every_reader_sees!(bytes, set, Issue::shape.then(Shape::circle), 4242u32);
        every_reader_sees!(bytes, set, Issue::shape.then(Shape::rect_width), 4242u32);
        every_reader_sees!(bytes, set, Issue::event.then(Event::note), "n".to_owned());
        every_reader_sees!(bytes, set, Issue::event.then(Event::moved_to_pos), 4242u32);
        every_reader_sees!(bytes, set, Issue::meta.then(Meta::created_at), 4242u64);
        every_reader_sees!(bytes, set, Issue::meta.then(Meta::big_number), 4242u64);
        every_reader_sees!(bytes, set, Issue::meta.then(Meta::priority), 9u8);
        every_reader_sees!(bytes, set, Issue::span.then(Span::_1), 4242u32);
        every_reader_sees!(bytes, set, Issue::votes.then(Votes::count), 4242u32);
        every_reader_sees!(bytes, set, Issue::labels.then(at(0)), "l".to_owned());
        every_reader_sees!(bytes, set_all, Issue::labels.then(each()), "l".to_owned());
        every_reader_sees!(bytes, set_all, Issue::tags.then(each()), "t".to_owned());
        every_reader_sees!(bytes, set_all, Issue::counters.then(each()).then(Wrapper::value), 1u32);
        every_reader_sees!(
            bytes,
            set_all,
            Issue::detail.then(Detail::bug).then(Bug::frames).then(each()).then(Frame::line),
            3u32
        );
        every_reader_sees!(
            bytes,
            set_all,
            Issue::detail.then(Detail::incident).then(Incident::impact).then(Impact::regions).then(each()).then(Region::code),
            "c".to_owned()
        );
    }
}
