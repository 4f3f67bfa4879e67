//! The byte reader checked against serde_json, the oracle.
//!
//! Random values of the test model are written as JSON three ways: compact
//! (`to_vec`), pretty (`to_vec_pretty`), and by a printer of our own that
//! shuffles every object's members, puts random whitespace between all tokens,
//! escapes random characters of strings and keys (`\u0061`, surrogate pairs,
//! `\/`), and writes keys and tags under their serde aliases. For every path of
//! the model (each derived optic alone and composed, through every variant
//! encoding, `at(i)`, `key(k)` and `some()`):
//!
//! - `Json::read(path)` equals `path.preview(&decoded)`, where `decoded` is
//!   serde_json's decode of the same bytes, a miss on one being a miss on the
//!   other;
//! - `Json::view(path)` is bytes that parse to the JSON serde_json writes for the
//!   focus (see [`View`] for the two places where a view is wider by design);
//! - every enum's `kind` getter reads the same kind from the value and the bytes;
//! - a focus entered (`Json::enter`, as the trusting judge enters a message's
//!   detail), then read under, gives what the composed path's read gives.
//!
//! Each issue is also checked grown past 1 KiB (a long title in front of its
//! detail, a long string inside the detail, a long label after it), so that
//! the block walks, the walk from an object's end and the entered spots that
//! are settled once read every path too.

mod model;
mod support;

use std::fmt::Debug;

use model::*;
use optics_core::json::{Duplicates, Found, JsonDecode, JsonThrough, Strict};
use optics_core::optic::Then;
use optics_core::prelude::*;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

// ---------------------------------------------------------------------------
// Our own printer: shuffled members, random whitespace and escapes, aliases

/// A tiny xorshift generator, seeded by proptest, for the printer's choices.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }
}

/// Names serde also accepts for a key or a string value of the model: a key
/// under one of its aliases, a tag under an alias, an unknown tag where the
/// enum has an `other` variant.
const ALIASES: &[(&str, &[&str])] = &[
    ("title", &["headline", "summary"]),
    ("TYPE", &["kind"]),
    ("bug_report", &["bug"]),
    ("performance", &["perf"]),
    ("other", &["something-new"]),
    ("Unknown", &["Mystery"]),
];

struct Printer {
    rng: Rng,
    out: String,
}

impl Printer {
    fn whitespace(&mut self) {
        while self.rng.one_in(3) {
            let ws = [' ', '\t', '\n', '\r'][self.rng.below(4)];
            self.out.push(ws);
        }
    }

    fn name<'a>(&mut self, text: &'a str) -> &'a str {
        match ALIASES.iter().find(|(name, _)| *name == text) {
            Some((_, aliases)) if self.rng.one_in(2) => aliases[self.rng.below(aliases.len())],
            _ => text,
        }
    }

    fn string(&mut self, text: &str) {
        let text = self.name(text);
        self.out.push('"');
        for ch in text.chars() {
            match ch {
                '"' => self.out.push_str("\\\""),
                '\\' => self.out.push_str("\\\\"),
                '/' if self.rng.one_in(2) => self.out.push_str("\\/"),
                '\n' if self.rng.one_in(2) => self.out.push_str("\\n"),
                '\t' if self.rng.one_in(2) => self.out.push_str("\\t"),
                ch if (ch as u32) < 0x20 || self.rng.one_in(6) => {
                    let mut units = [0u16; 2];
                    for unit in ch.encode_utf16(&mut units) {
                        if self.rng.one_in(2) {
                            self.out.push_str(&format!("\\u{unit:04x}"));
                        } else {
                            self.out.push_str(&format!("\\u{unit:04X}"));
                        }
                    }
                }
                ch => self.out.push(ch),
            }
        }
        self.out.push('"');
    }

    fn value(&mut self, value: &Value) {
        self.whitespace();
        match value {
            Value::Null | Value::Bool(_) | Value::Number(_) => {
                self.out.push_str(&value.to_string())
            }
            Value::String(text) => self.string(text),
            Value::Array(elements) => {
                self.out.push('[');
                for (i, element) in elements.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.value(element);
                }
                self.whitespace();
                self.out.push(']');
            }
            Value::Object(members) => {
                let mut members: Vec<(&String, &Value)> = members.iter().collect();
                for i in (1..members.len()).rev() {
                    let j = self.rng.below(i + 1);
                    members.swap(i, j);
                }
                self.out.push('{');
                for (i, (key, member)) in members.into_iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.whitespace();
                    self.string(key);
                    self.whitespace();
                    self.out.push(':');
                    self.value(member);
                }
                self.whitespace();
                self.out.push('}');
            }
        }
        self.whitespace();
    }
}

/// The name an alias of [`ALIASES`] stands for; other text as it is.
fn unalias(text: String) -> String {
    ALIASES
        .iter()
        .find(|(_, aliases)| aliases.contains(&text.as_str()))
        .map_or(text, |(name, _)| (*name).to_owned())
}

/// `value` with every alias the printer may have written replaced by its name.
/// (The model's random text never spells an alias: aliases hold letters that
/// its strategies draw only rarely, and never in a whole word.)
fn canonical(value: Value) -> Value {
    match value {
        Value::String(text) => Value::String(unalias(text)),
        Value::Array(elements) => Value::Array(elements.into_iter().map(canonical).collect()),
        Value::Object(members) => Value::Object(
            members
                .into_iter()
                .map(|(key, member)| (unalias(key), canonical(member)))
                .collect(),
        ),
        other => other,
    }
}

/// `value`'s JSON with shuffled members, random whitespace, escapes and aliases.
fn scrambled<T: Serialize>(value: &T, seed: u64) -> Vec<u8> {
    let mut printer = Printer {
        rng: Rng(seed | 1),
        out: String::new(),
    };
    printer.value(&serde_json::to_value(value).expect("the model serializes"));
    printer.out.into_bytes()
}

/// The three writings of a value: compact, pretty, scrambled. Only the first
/// two keep every tag as the kind's own.
fn writings<T: Serialize>(value: &T, seed: u64) -> [(Vec<u8>, bool); 3] {
    [
        (serde_json::to_vec(value).expect("serializes"), true),
        (serde_json::to_vec_pretty(value).expect("serializes"), true),
        (scrambled(value, seed), false),
    ]
}

// ---------------------------------------------------------------------------
// The checks

/// What the bytes of a view must parse to.
#[derive(Clone, Copy, Debug)]
enum View {
    /// Exactly the JSON of the focus.
    Exact,
    /// An object holding every member of the focus's JSON, and maybe more: the
    /// view of a `flatten`ed field is its struct's whole object, and the view
    /// of an internally tagged variant's payload is the enum's object, tag
    /// included. Nothing is copied, so nothing can be left out.
    Within,
    /// The focus written as a string: a field read `with` `as_string`.
    AsString,
}

/// A document: bytes, and what serde_json decodes from them.
struct Doc<'b, S> {
    bytes: &'b [u8],
    decoded: S,
    /// Whether every tag is written as its kind's own name (no alias).
    exact_tags: bool,
}

impl<'b, S: DeserializeOwned + PartialEq + Debug> Doc<'b, S> {
    /// Decodes `bytes` with serde_json; a compact or pretty writing must give
    /// back `original`.
    fn new(bytes: &'b [u8], exact_tags: bool, original: &S) -> Result<Self, TestCaseError> {
        let decoded: S = serde_json::from_slice(bytes).map_err(|error| {
            TestCaseError::fail(format!(
                "serde_json rejects {}: {error}",
                String::from_utf8_lossy(bytes)
            ))
        })?;
        if exact_tags {
            prop_assert_eq!(&decoded, original, "the value does not survive serde_json");
        }
        Ok(Doc {
            bytes,
            decoded,
            exact_tags,
        })
    }
}

/// One path: the byte read agrees with the value read, and the view with the
/// focus's JSON.
fn check<S, O>(doc: &Doc<'_, S>, o: O, view: View) -> Result<(), TestCaseError>
where
    O: Preview<Source = S> + for<'de> JsonDecode<'de> + Copy + Debug,
    O::Focus: Clone + PartialEq + Debug + Serialize,
{
    let json = Json::<S>::new(doc.bytes);
    let text = String::from_utf8_lossy(doc.bytes);
    let expected = o.preview(&doc.decoded);
    let read = json.read(o);
    prop_assert_eq!(read.as_ref(), expected, "read {:?} in {}", o, text);
    // A strict read of the same valid bytes reads the same, no key met twice.
    let duplicates = Duplicates::new();
    let strict = Strict::<S>::validated(doc.bytes, &duplicates)
        .map_err(|error| TestCaseError::fail(format!("not valid ({error:?}): {text}")))?;
    prop_assert_eq!(strict.read(o), read, "strict read {:?} in {}", o, text);
    prop_assert!(
        !duplicates.met(),
        "strict read {:?} met a duplicate in {}",
        o,
        text
    );
    match (json.view(o), expected) {
        (Some(found), Some(focus)) => {
            let got: Value = serde_json::from_slice(found.bytes()).map_err(|error| {
                TestCaseError::fail(format!("view {o:?} is not JSON ({error}): {found:?}"))
            })?;
            let got = if doc.exact_tags { got } else { canonical(got) };
            let want = serde_json::to_value(focus).expect("serializes");
            match view {
                View::Exact => prop_assert_eq!(got, want, "view {:?} in {}", o, text),
                View::AsString => prop_assert_eq!(
                    got,
                    Value::String(want.to_string()),
                    "view {:?} in {}",
                    o,
                    text
                ),
                View::Within => {
                    let (Value::Object(got), Value::Object(want)) = (&got, &want) else {
                        return Err(TestCaseError::fail(format!(
                            "view {o:?}: {got} is not an object holding {want}"
                        )));
                    };
                    for (name, member) in want {
                        prop_assert_eq!(got.get(name), Some(member), "view {:?} in {}", o, text);
                    }
                }
            }
        }
        // A member serde fills in (a default, a `None`): no bytes to view.
        (None, Some(_)) => prop_assert_eq!(
            o.locate(doc.bytes),
            Found::Absent,
            "view {:?} missed a focus the value has, in {}",
            o,
            text
        ),
        (Some(found), None) => {
            return Err(TestCaseError::fail(format!(
                "view {o:?} found {found:?} where the value has no focus, in {text}"
            )))
        }
        (None, None) => {}
    }
    Ok(())
}

/// A `kind` getter: the same kind from the value and the bytes, and its view is
/// the tag serde wrote.
fn check_kind<S, O>(
    doc: &Doc<'_, S>,
    o: O,
    tag: fn(O::Focus) -> &'static str,
) -> Result<(), TestCaseError>
where
    O: Preview<Source = S> + for<'de> JsonDecode<'de> + Copy + Debug,
    O::Focus: Copy + PartialEq + Debug,
{
    let json = Json::<S>::new(doc.bytes);
    let text = String::from_utf8_lossy(doc.bytes);
    let expected = o.preview(&doc.decoded).copied();
    prop_assert_eq!(json.read(o), expected, "read {:?} in {}", o, text);
    let view = json.view(o);
    prop_assert_eq!(
        view.is_some(),
        expected.is_some(),
        "view {:?} in {}",
        o,
        text
    );
    if let (Some(view), Some(kind)) = (view, expected) {
        let written: String = serde_json::from_slice(view.bytes())
            .map_err(|error| TestCaseError::fail(format!("view {o:?}: {error}")))?;
        if doc.exact_tags {
            prop_assert_eq!(written.as_str(), tag(kind), "view {:?} in {}", o, text);
        }
    }
    Ok(())
}

/// A focus entered ([`Json::enter`], as the trusting judge enters a
/// message's detail), then a read under it: what the read of the two optics
/// composed gives, and what the value gives.
fn check_entered<S, A, B>(doc: &Doc<'_, S>, a: A, b: B) -> Result<(), TestCaseError>
where
    A: Preview<Source = S> + JsonThrough + Copy + Debug,
    B: Preview<Source = A::Focus> + for<'de> JsonDecode<'de> + Copy + Debug,
    B::Focus: Clone + PartialEq + Debug,
{
    let json = Json::<S>::new(doc.bytes);
    let text = String::from_utf8_lossy(doc.bytes);
    let path = Then::new(a, b);
    let entered = json.enter(a).and_then(|focus| focus.read(b));
    prop_assert_eq!(
        &entered,
        &json.read(path),
        "{:?} entered, then {:?}, in {}",
        a,
        b,
        text
    );
    prop_assert_eq!(
        entered.as_ref(),
        path.preview(&doc.decoded),
        "{:?} entered, then {:?}, in {}",
        a,
        b,
        text
    );
    Ok(())
}

macro_rules! entered {
    ($doc:expr; $($a:expr => [$($b:expr),* $(,)?]);+ $(;)?) => {
        $( $( check_entered($doc, $a, $b)?; )* )+
    };
}

macro_rules! paths {
    ($doc:expr; $($view:ident => [$($o:expr),* $(,)?]);+ $(;)?) => {
        $( $( check($doc, $o, View::$view)?; )* )+
    };
}

// ---------------------------------------------------------------------------
// Every path of the model

fn issue_paths(doc: &Doc<'_, Issue>, keys: &[String]) -> Result<(), TestCaseError> {
    let incident = Issue::detail.then(Detail::incident);
    let impact = incident.then(Incident::impact);
    let service = impact.then(Impact::service);
    let bug = Issue::detail.then(Detail::bug);
    let question = Issue::detail.then(Detail::question);
    let nested = Issue::shape.then(Shape::nested);
    paths!(doc;
        // Every field of the root, alone.
        Exact => [
            Issue::issue_id, Issue::title_text, Issue::detail, Issue::shape, Issue::event,
            Issue::labels, Issue::tags, Issue::counters, Issue::cache, Issue::votes,
            Issue::span, Issue::r#type,
        ];
        Within => [Issue::meta];
        // Flattened, transparent and tuple structs.
        Exact => [
            Issue::meta.then(Meta::created_at), Issue::meta.then(Meta::priority),
            Issue::votes.then(Votes::count),
            Issue::span.then(Span::_0), Issue::span.then(Span::_1),
        ];
        AsString => [Issue::meta.then(Meta::big_number)];
        // Internally tagged variants, and three to six levels down through them.
        Within => [incident, bug, question];
        Exact => [
            Issue::detail.then(Detail::unknown),
            incident.then(Incident::severity), incident.then(Incident::started_at),
            incident.then(Incident::impact), incident.then(Incident::resolved),
            incident.then(Incident::note), incident.then(Incident::note).then(some()),
            incident.then(Incident::severity).then(Severity::low),
            incident.then(Incident::severity).then(Severity::medium),
            incident.then(Incident::severity).then(Severity::high),
            incident.then(Incident::severity).then(Severity::very_high),
            impact.then(Impact::service), impact.then(Impact::users), impact.then(Impact::regions),
            impact.then(Impact::regions).then(at(0)),
            impact.then(Impact::regions).then(at(0)).then(Region::code),
            impact.then(Impact::regions).then(at(1)).then(Region::weight),
            impact.then(Impact::regions).then(at(2)).then(Region::score),
            service.then(Service::name), service.then(Service::name).then(Module::_0),
            service.then(Service::tier), service.then(Service::r#type),
            service.then(Service::owner_ids), service.then(Service::owner_ids).then(at(0)),
            service.then(Service::owner_ids).then(at(1)),
            service.then(Service::tier).then(Tier::critical),
            service.then(Service::tier).then(Tier::standard),
            service.then(Service::tier).then(Tier::best_effort),
            bug.then(Bug::module), bug.then(Bug::module).then(Module::_0),
            bug.then(Bug::line_no), bug.then(Bug::line_no).then(some()),
            bug.then(Bug::frames), bug.then(Bug::frames).then(at(0)),
            bug.then(Bug::frames).then(at(0)).then(Frame::file_name),
            bug.then(Bug::frames).then(at(1)).then(Frame::line),
            bug.then(Bug::frames).then(at(0)).then(Frame::inlined),
            question.then(Wrapper::value), question.then(Wrapper::note),
            question.then(Wrapper::note).then(some()),
        ];
        AsString => [bug.then(Bug::build)];
        // Externally tagged variants of every shape.
        Exact => [
            Issue::shape.then(Shape::dot), Issue::shape.then(Shape::circle),
            Issue::shape.then(Shape::line_0), Issue::shape.then(Shape::line_1),
            Issue::shape.then(Shape::rect_width), Issue::shape.then(Shape::rect_height),
            Issue::shape.then(Shape::maybe), Issue::shape.then(Shape::maybe).then(some()),
            nested, nested.then(Event::ping), nested.then(Event::note),
            nested.then(Event::moved_from_pos), nested.then(Event::moved_to_pos),
        ];
        // Adjacently tagged variants of every shape.
        Exact => [
            Issue::event.then(Event::ping), Issue::event.then(Event::note),
            Issue::event.then(Event::moved_from_pos), Issue::event.then(Event::moved_to_pos),
        ];
        // Unit-only enums, the `other` variant and an aliased one.
        Exact => [
            Issue::r#type.then(Category::crash), Issue::r#type.then(Category::slow_start),
            Issue::r#type.then(Category::performance), Issue::r#type.then(Category::other),
        ];
        // Lists.
        Exact => [
            Issue::labels.then(at(0)), Issue::labels.then(at(1)), Issue::labels.then(at(3)),
        ];
    );
    // Entered, then read under: at every depth of the paths above.
    entered!(doc;
        Issue::detail => [
            Detail::kind, Detail::unknown, Detail::incident.then(Incident::severity),
            Detail::incident.then(Incident::impact).then(Impact::service).then(Service::tier),
            Detail::bug.then(Bug::frames).then(at(0)).then(Frame::file_name),
            Detail::question.then(Wrapper::note),
        ];
        incident => [
            Incident::severity, Incident::started_at, Incident::resolved,
            Incident::note.then(some()),
            Incident::impact.then(Impact::regions).then(at(1)).then(Region::weight),
        ];
        impact => [Impact::users, Impact::service.then(Service::name).then(Module::_0)];
        service => [Service::tier, Service::r#type, Service::owner_ids.then(at(1))];
        bug => [Bug::module, Bug::line_no, Bug::frames.then(at(1)).then(Frame::line)];
        question => [Wrapper::value, Wrapper::note.then(some())];
        Issue::meta => [Meta::created_at, Meta::priority];
        Issue::shape => [Shape::dot, Shape::rect_width, Shape::maybe.then(some()), Shape::nested];
        nested => [Event::ping, Event::note, Event::moved_to_pos, Event::kind];
        Issue::event => [Event::note, Event::moved_from_pos];
        Issue::labels => [at(0), at(3)];
        Issue::votes => [Votes::count];
        Issue::span => [Span::_0, Span::_1];
        Issue::r#type => [Category::crash, Category::other, Category::kind];
    );
    // Maps: every key the value has, and one that it may not.
    for k in keys {
        let k = k.as_str();
        paths!(doc; Exact => [
            Issue::tags.then(key(k)),
            Issue::counters.then(key(k)),
            Issue::counters.then(key(k)).then(Wrapper::value),
            Issue::counters.then(key(k)).then(Wrapper::note),
            Issue::counters.then(key(k)).then(Wrapper::note).then(some()),
        ]);
        entered!(doc;
            Issue::tags => [key(k)];
            Issue::counters => [key(k), key(k).then(Wrapper::note)];
            Issue::counters.then(key(k)) => [Wrapper::value, Wrapper::note];
        );
    }
    check_kind(doc, Issue::detail.then(Detail::kind), DetailKind::tag)?;
    check_kind(doc, Issue::shape.then(Shape::kind), ShapeKind::tag)?;
    check_kind(doc, Issue::event.then(Event::kind), EventKind::tag)?;
    check_kind(doc, nested.then(Event::kind), EventKind::tag)?;
    check_kind(doc, Issue::r#type.then(Category::kind), CategoryKind::tag)?;
    check_kind(
        doc,
        service.then(Service::tier).then(Tier::kind),
        TierKind::tag,
    )?;
    check_kind(
        doc,
        incident.then(Incident::severity).then(Severity::kind),
        SeverityKind::tag,
    )?;
    Ok(())
}

/// Each enum as a document of its own: single steps straight from the top.
fn enum_paths(
    detail: &Doc<'_, Detail>,
    shape: &Doc<'_, Shape>,
    event: &Doc<'_, Event>,
    tier: &Doc<'_, Tier>,
) -> Result<(), TestCaseError> {
    paths!(detail;
        Within => [Detail::incident, Detail::bug, Detail::question];
        Exact => [Detail::unknown, Detail::incident.then(Incident::impact).then(Impact::users)];
    );
    check_kind(detail, Detail::kind, DetailKind::tag)?;
    paths!(shape; Exact => [
        Shape::dot, Shape::circle, Shape::line_0, Shape::line_1, Shape::rect_width,
        Shape::rect_height, Shape::maybe, Shape::nested,
    ]);
    check_kind(shape, Shape::kind, ShapeKind::tag)?;
    paths!(event; Exact => [Event::ping, Event::note, Event::moved_from_pos, Event::moved_to_pos]);
    check_kind(event, Event::kind, EventKind::tag)?;
    paths!(tier; Exact => [Tier::critical, Tier::standard, Tier::best_effort]);
    check_kind(tier, Tier::kind, TierKind::tag)?;
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: support::scaled(256), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn byte_reads_agree_with_serde_json(issue in issue(), seed in any::<u64>(), k in map_key()) {
        let mut keys: Vec<String> = issue.tags.keys().chain(issue.counters.keys()).cloned().collect();
        keys.push(k);
        for (bytes, exact_tags) in writings(&issue, seed) {
            let doc = Doc::new(&bytes, exact_tags, &issue)?;
            issue_paths(&doc, &keys)?;
        }
        // The same issue past 1 KiB, so that the block walks read it: the
        // root (a long title in front of the detail), the detail (a long
        // note or frame inside it), and a list after it.
        let mut large = issue.clone();
        large.title_text.push_str(&"t".repeat(1100));
        match &mut large.detail {
            Detail::Incident(incident) => incident.note = Some("n".repeat(1100)),
            Detail::Bug(bug) => bug.frames.push(Frame {
                file_name: "f".repeat(1100),
                line: 1,
                inlined: false,
            }),
            Detail::Question(_) | Detail::Unknown => {}
        }
        if let Some(label) = large.labels.first_mut() {
            label.push_str(&"l".repeat(1100));
        }
        for (bytes, exact_tags) in writings(&large, seed) {
            let doc = Doc::new(&bytes, exact_tags, &large)?;
            issue_paths(&doc, &keys)?;
        }
    }

    #[test]
    fn enums_read_alone_agree_with_serde_json(
        detail in detail(),
        shape in shape(),
        event in event(),
        tier in tier(),
        seed in any::<u64>(),
    ) {
        let details = writings(&detail, seed);
        let shapes = writings(&shape, seed ^ 1);
        let events = writings(&event, seed ^ 2);
        let tiers = writings(&tier, seed ^ 3);
        for i in 0..3 {
            enum_paths(
                &Doc::new(&details[i].0, details[i].1, &detail)?,
                &Doc::new(&shapes[i].0, shapes[i].1, &shape)?,
                &Doc::new(&events[i].0, events[i].1, &event)?,
                &Doc::new(&tiers[i].0, tiers[i].1, &tier)?,
            )?;
        }
    }
}
