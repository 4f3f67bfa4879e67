//! `Json::try_read` and `Strict::try_read` against serde_json: a read that
//! finds its focus gives what `read` gives; a miss is explained, and each
//! explanation is what serde_json says of the same bytes: not JSON, not the
//! model, or no focus in the decoded value. `Unread` (serde_json reads a
//! focus the byte read missed) never happens.

#[path = "support/scale.rs"]
mod scale;

mod model;

use model::*;
use optics_core::json::{Duplicates, ReadError, Strict};
use optics_core::prelude::*;
use proptest::prelude::*;
use proptest::strategy::ValueTree;

/// Checks one optic's `try_read` on `bytes`, trusting and strict, against
/// `read` and serde_json.
macro_rules! explained {
    ($bytes:expr, $optic:expr) => {{
        let bytes: &[u8] = $bytes;
        let optic = $optic;
        let json = Json::<Issue>::new(bytes);
        let value = serde_json::from_slice::<serde_json::Value>(bytes);
        let decoded = serde_json::from_slice::<Issue>(bytes);
        let text = String::from_utf8_lossy(bytes);
        match json.try_read(optic) {
            Ok(focus) => prop_assert_eq!(Some(focus), json.read(optic), "{}", text),
            Err(error) => {
                prop_assert_eq!(json.read(optic), None, "{}", text);
                match &error {
                    ReadError::Malformed(_) => prop_assert!(value.is_err(), "{}: {}", error, text),
                    ReadError::Model { .. } => {
                        prop_assert!(value.is_ok() && decoded.is_err(), "{}: {}", error, text)
                    }
                    ReadError::NoFocus => {
                        let decoded = decoded.as_ref().expect("NoFocus only for a decoded model");
                        prop_assert!(optic.preview(decoded).is_none(), "{}", text)
                    }
                    other => prop_assert!(false, "{}: {}", other, text),
                }
            }
        }
        let duplicates = Duplicates::new();
        if let Ok(strict) = Strict::<Issue>::validated(bytes, &duplicates) {
            let mine = Duplicates::new();
            let read = strict.json().strict(&mine).read(optic);
            match strict.try_read(optic) {
                Ok(focus) => prop_assert_eq!(Some(focus), read, "{}", text),
                Err(error) => {
                    prop_assert_eq!(read, None, "{}", text);
                    match &error {
                        ReadError::Duplicate { offset } => {
                            prop_assert!(mine.met() && duplicates.met(), "{}", text);
                            prop_assert_eq!(mine.offset_in(bytes), Some(*offset));
                            prop_assert!(decoded.is_err(), "{}", text);
                        }
                        ReadError::Model { .. } => prop_assert!(decoded.is_err(), "{}", text),
                        ReadError::NoFocus => {
                            let decoded =
                                decoded.as_ref().expect("NoFocus only for a decoded model");
                            prop_assert!(optic.preview(decoded).is_none(), "{}", text)
                        }
                        other => prop_assert!(false, "{}: {}", other, text),
                    }
                }
            }
        }
    }};
}

fn every_optic(bytes: &[u8]) -> Result<(), TestCaseError> {
    explained!(bytes, Issue::issue_id);
    explained!(bytes, Issue::title_text);
    explained!(bytes, Issue::r#type);
    explained!(
        bytes,
        Issue::detail
            .then(Detail::incident)
            .then(Incident::impact)
            .then(Impact::service)
            .then(Service::tier)
    );
    explained!(
        bytes,
        Issue::detail
            .then(Detail::bug)
            .then(Bug::line_no)
            .then(some())
    );
    explained!(bytes, Issue::detail.then(Detail::bug).then(Bug::line_no));
    explained!(bytes, Issue::shape.then(Shape::circle));
    explained!(bytes, Issue::event.then(Event::note));
    explained!(bytes, Issue::tags.then(key("team")));
    explained!(bytes, Issue::meta.then(Meta::priority));
    explained!(bytes, Issue::span.then(Span::_1));
    explained!(bytes, Issue::labels.then(at(0)));
    explained!(bytes, Issue::votes.then(Votes::count));
    Ok(())
}

/// One edit of a serde document: cut it, copy a range of it elsewhere,
/// delete a range, or write a string where a number starts.
fn edited(bytes: &[u8], kind: u8, a: usize, b: usize, c: usize) -> Vec<u8> {
    let len = bytes.len();
    let (a, b, c) = (a % (len + 1), b % (len + 1), c % (len + 1));
    let (lo, hi) = (a.min(b), a.max(b));
    match kind {
        0 => bytes[..lo].to_vec(),
        1 => [&bytes[..c], &bytes[lo..hi], &bytes[c..]].concat(),
        2 => [&bytes[..lo], &bytes[hi..]].concat(),
        3 => bytes.to_vec(),
        _ => match bytes[lo..].iter().position(u8::is_ascii_digit) {
            Some(at) => {
                let at = lo + at;
                let end = at
                    + bytes[at..]
                        .iter()
                        .take_while(|b| b.is_ascii_digit())
                        .count();
                [&bytes[..at], &b"\"x\""[..], &bytes[end..]].concat()
            }
            None => bytes.to_vec(),
        },
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::scale::scaled(512)))]

    #[test]
    fn every_miss_is_explained_as_serde_json_reads_the_bytes(
        issue in issue(),
        kind in 0..5u8,
        a in any::<usize>(),
        b in any::<usize>(),
        c in any::<usize>(),
    ) {
        let whole = serde_json::to_vec(&issue).expect("serializes");
        every_optic(&edited(&whole, kind, a, b, c))?;
    }
}

#[test]
fn each_reason_reads_as_it_should() {
    let mut issue = issue()
        .new_tree(&mut proptest::test_runner::TestRunner::deterministic())
        .unwrap()
        .current();
    issue.issue_id = 7;
    issue.shape = Shape::Dot;
    let issue = serde_json::to_vec(&issue).unwrap();
    let json = Json::<Issue>::new(&issue);
    assert_eq!(json.try_read(Issue::issue_id).unwrap(), 7);
    let error = json.try_read(Issue::shape.then(Shape::circle)).unwrap_err();
    assert!(matches!(error, ReadError::NoFocus), "{error}");
    assert!(error.to_string().starts_with("the path has no focus"));

    let cut = &issue[..issue.len() - 1];
    let error = Json::<Issue>::new(cut)
        .try_read(Issue::shape.then(Shape::circle))
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "not one JSON document: unexpected end of input at byte {}",
            cut.len()
        )
    );
    assert!(std::error::Error::source(&error).is_some());

    let text = String::from_utf8(issue.clone())
        .unwrap()
        .replace("\"issueId\":7", "\"issueId\":\"7\"");
    let error = Json::<Issue>::new(text.as_bytes())
        .try_read(Issue::issue_id)
        .unwrap_err();
    assert!(
        error.to_string().starts_with("serde_json does not read the document as `Issue`: invalid type: string \"7\", expected u64"),
        "{error}"
    );
}

#[test]
fn a_model_declared_in_a_closure_is_named_without_its_path() {
    // `type_name` names it `try_read::…::{{closure}}::Local`.
    fn run(closure: impl FnOnce() -> String) -> String {
        closure()
    }
    let message = run(|| {
        #[derive(Optics, serde::Deserialize)]
        struct Local {
            id: u64,
        }
        Json::<Local>::new(br#"{"id":"x"}"#)
            .try_read(Local::id)
            .unwrap_err()
            .to_string()
    });
    assert_eq!(
        message,
        "serde_json does not read the document as `Local`: \
         invalid type: string \"x\", expected u64 at line 1 column 9"
    );
    let message =
        Json::<Vec<(u8, [Option<u16>; 2], std::collections::BTreeMap<String, u8>)>>::new(b"[1]")
            .try_read(at(0))
            .unwrap_err()
            .to_string();
    assert!(
        message.starts_with(
            "serde_json does not read the document as `Vec<(u8, [Option<u16>; 2], BTreeMap<String, u8>)>`:"
        ),
        "{message}"
    );
}

#[derive(Optics, serde::Deserialize, Default)]
struct Settings {
    retries: u32,
}

#[derive(Optics, serde::Deserialize)]
struct Defaults {
    id: u64,
    #[serde(default)]
    settings: Settings,
}

optic! {
    lens Retries: Defaults => u32 = Defaults::settings.then(Settings::retries);
}

#[test]
fn a_path_past_a_missing_defaulted_field_is_no_bug_report() {
    // serde fills `settings` in, and reads `retries` in it; the byte read
    // has no bytes to read on in (SERDE_ATTRIBUTES.md): a known limit, not
    // a focus the reader should have found.
    let bytes = br#"{"id":1}"#;
    let retries = Defaults::settings.then(Settings::retries);
    let decoded = serde_json::from_slice::<Defaults>(bytes).unwrap();
    assert_eq!(retries.preview(&decoded), Some(&0));
    assert_eq!(Json::<Defaults>::new(bytes).read(retries), None);
    let error = Json::<Defaults>::new(bytes).try_read(retries).unwrap_err();
    assert!(matches!(error, ReadError::PastAbsent), "{error}");
    let error = Json::<Defaults>::new(bytes).try_read(Retries).unwrap_err();
    assert!(matches!(error, ReadError::PastAbsent), "{error}");
    let duplicates = Duplicates::new();
    let strict = Strict::<Defaults>::validated(bytes, &duplicates).unwrap();
    let error = strict.try_read(retries).unwrap_err();
    assert!(matches!(error, ReadError::PastAbsent), "{error}");
    assert!(error
        .to_string()
        .starts_with("the path goes on past a field the document leaves out"));
    assert!(!duplicates.met());
    // Present, it reads.
    let bytes = br#"{"id":1,"settings":{"retries":4}}"#;
    assert_eq!(Json::<Defaults>::new(bytes).try_read(retries).unwrap(), 4);
    assert_eq!(Json::<Defaults>::new(bytes).try_read(Retries).unwrap(), 4);
}

#[path = "support/levels.rs"]
mod levels;

#[test]
fn a_path_through_more_flatten_levels_than_the_reader_follows_is_no_bug_report() {
    use levels::*;
    let six = L1::n
        .then(L2::n)
        .then(L3::n)
        .then(L4::n)
        .then(L5::n)
        .then(L6::n)
        .then(L7::z);
    let seven = L0::n.then(six);
    let bytes = br#"{"z":5,"list":[]}"#;
    assert_eq!(Json::<L1>::new(bytes).try_read(six).unwrap(), 5);
    let decoded = serde_json::from_slice::<L0>(bytes).unwrap();
    assert_eq!(seven.preview(&decoded), Some(&5));
    let error = Json::<L0>::new(bytes).try_read(seven).unwrap_err();
    assert!(matches!(error, ReadError::TooManyLevels), "{error}");
    assert_eq!(
        error.to_string(),
        "the path goes through more flatten and internal-tag levels on one object \
         than the byte read follows (six)"
    );
    // The seventh level as the focus itself.
    let whole = L0::n
        .then(L1::n)
        .then(L2::n)
        .then(L3::n)
        .then(L4::n)
        .then(L5::n)
        .then(L6::n);
    match Json::<L0>::new(bytes).try_read(whole) {
        Ok(focus) => assert_eq!(focus.z, 5),
        Err(error) => assert!(matches!(error, ReadError::TooManyLevels), "{error}"),
    }
}

/// A model declared in a trait impl's method: `type_name` names it
/// `try_read::<alloc::vec::Vec<_> as try_read::Named>::message::Local`.
trait Named {
    fn message() -> String;
}

impl<T> Named for Vec<T> {
    fn message() -> String {
        #[derive(Optics, serde::Deserialize)]
        struct Local {
            id: u64,
        }
        Json::<Local>::new(br#"{"id":"x"}"#)
            .try_read(Local::id)
            .unwrap_err()
            .to_string()
    }
}

#[test]
fn a_model_declared_in_a_trait_impl_is_named_without_its_path() {
    assert_eq!(
        <Vec<u8> as Named>::message(),
        "serde_json does not read the document as `Local`: \
         invalid type: string \"x\", expected u64 at line 1 column 9"
    );
}
