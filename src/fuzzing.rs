//! The fuzz targets' bodies, here so that a stable test can replay every
//! committed corpus file through exactly what the fuzzer runs
//! (`tests/fuzz_corpus.rs`), and the targets in `fuzz/` stay one line each.
//! Each function takes any bytes, must not panic on them, and asserts its
//! oracle.

use bytes::{Bytes, BytesMut};
use optics_core::json::scan::kernels::{self, KernelChoice};
use optics_core::json::scan::{self, Lookup};
use optics_core::json::{Duplicates, JsonOptic, JsonWrite, Strict};
use optics_core::optic::StartsAt;
use optics_core::prelude::*;
use serde_json::{Map, Value};
use tokio_util::codec::Decoder;

use crate::frames::FrameDecoder;
use crate::generate::{Gen, Generate};
use crate::judge;
use crate::model::{
    Bug, CheckItem, Detail, Incident, Issue, Link, Module, Person, Severity, StackFrame, Trace,
};
use crate::policy::Policy;
use crate::proxy::split::{ChunkSplitter, Cut};

/// Every kernel the machine may pick.
const KERNELS: [KernelChoice; 4] = [
    KernelChoice::Best,
    KernelChoice::Avx2,
    KernelChoice::Baseline,
    KernelChoice::Scalar,
];

/// The scanner on any bytes: no panic; strict mode accepts exactly what
/// serde_json reads as a `Value`, with every kernel, also with the bytes
/// across the edge of the validator's first chunk; and wherever serde_json
/// reads the bytes as an object, every key is found with the value
/// serde_json keeps;
/// read from both ends of the object (a late field's walk, every kernel),
/// every key is found too (the first or the last member of a key given
/// twice), and a key the object lacks is missing.
pub fn scan(data: &[u8]) {
    let strict = scan::validate(data).is_ok();
    assert_eq!(
        strict,
        serde_json::from_slice::<Value>(data).is_ok(),
        "strict mode and serde_json disagree"
    );
    let _ = scan::skip_value(data, 0);
    strict_across_a_chunk_edge(data);
    let _ = scan::array_element(data, 1);
    let _ = scan::first_member(data);
    let _ = scan::object_field(data, &["a"]);
    for kernel in KERNELS {
        for enter in [false, true] {
            let _ = kernels::object_field_late_with(kernel, data, &["a"], enter);
        }
    }
    if let Ok(map) = serde_json::from_slice::<Map<String, Value>>(data) {
        if !map.contains_key("a") {
            // From both ends, a key is missing exactly where it is.
            for kernel in KERNELS {
                let late = kernels::object_field_late_with(kernel, data, &["a"], false);
                assert_eq!(late, Lookup::Missing, "{kernel:?}");
            }
        }
        for (key, value) in &map {
            // From both ends: a value of that key (the first or the last
            // for a key given twice), whole.
            for kernel in KERNELS {
                match kernels::object_field_late_with(kernel, data, &[key], false) {
                    Lookup::Found(bytes) => {
                        let found: Value =
                            serde_json::from_slice(bytes).expect("a found value parses");
                        if scan::object_field(data, &[key]) == Lookup::Found(bytes) {
                            continue;
                        }
                        assert_eq!(&found, value, "{kernel:?} {key:?}");
                    }
                    other => panic!("{kernel:?} {key:?}: {other:?}"),
                }
            }
            match scan::object_last(data, key) {
                Lookup::Found(bytes) => {
                    let found: Value = serde_json::from_slice(bytes).expect("a found value parses");
                    assert_eq!(&found, value);
                }
                other => panic!("{key:?}: {other:?}"),
            }
            // The first match may differ from serde_json's last for duplicate
            // keys; it must still be a value of that key.
            assert!(matches!(scan::object_field(data, &[key]), Lookup::Found(_)));
        }
    }
}

/// Where the block validator ends its first chunk of a long document
/// (64 blocks of 64 bytes).
const CHUNK_EDGE: usize = 4096;

/// Every kernel's validator, alone and carrying strict mode's lookup of the
/// root object's key, on `data` as they are and placed across the edge of
/// the validator's first chunk, two arrays deep in a member `"a"`: each
/// agrees with serde_json on whether the bytes are JSON, and where `data`
/// alone is a value, the lookup finds exactly it.
fn strict_across_a_chunk_edge(data: &[u8]) {
    const OPEN: &[u8] = br#"{"a":[["#;
    let from = CHUNK_EDGE.saturating_sub(data.len() / 2).max(OPEN.len());
    let mut doc = OPEN.to_vec();
    doc.resize(from, b' ');
    doc.extend_from_slice(data);
    doc.extend_from_slice(b"]]}");
    let alone = serde_json::from_slice::<Value>(data).ok();
    for bytes in [data, &doc[..]] {
        let valid = serde_json::from_slice::<Value>(bytes).is_ok();
        for kernel in KERNELS {
            assert_eq!(
                kernels::is_valid_with(kernel, bytes),
                valid,
                "{kernel:?}: the block validator and serde_json disagree"
            );
        }
    }
    let valid = serde_json::from_slice::<Value>(&doc).is_ok();
    for kernel in KERNELS {
        match kernels::validate_and_find_with(kernel, &doc, &["a"]) {
            Err(_) => assert!(!valid, "{kernel:?}: a valid document rejected"),
            Ok(found) => {
                assert!(valid, "{kernel:?}: an invalid document accepted");
                // `data` alone a value: the member is that value, once.
                if let Some(value) = &alone {
                    let Some(Lookup::Found(bytes)) = found else {
                        panic!("{kernel:?}: the member not found: {found:?}");
                    };
                    let found: Value = serde_json::from_slice(bytes).expect("a found value parses");
                    assert_eq!(found, Value::from(vec![Value::from(vec![value.clone()])]));
                }
            }
        }
    }
}

/// The frame decoder on any bytes in any pieces (the first byte sets the
/// piece size): no panic, and the frames it hands out are the stream's own
/// bytes, in order.
pub fn frames(data: &[u8]) {
    let Some((&piece, stream)) = data.split_first() else {
        return;
    };
    let piece = usize::from(piece).max(1);
    let mut decoder = FrameDecoder::with_max_message(1 << 16);
    let mut buffer = BytesMut::new();
    let mut out = Vec::new();
    'read: for chunk in stream.chunks(piece) {
        buffer.extend_from_slice(chunk);
        loop {
            match decoder.decode(&mut buffer) {
                Ok(Some(frame)) => out.extend_from_slice(frame.frame()),
                Ok(None) => break,
                Err(_) => break 'read,
            }
        }
    }
    assert_eq!(&stream[..out.len()], &out[..]);
}

/// Judging any bytes as an issue, trusting: no panic, and wherever the full
/// decode reads the bytes as an `Issue` (serde_json, every value checked as
/// JSON: [`crate::checked`]), the optics judge it exactly as the decoded
/// issue. (A trusting read does not check what it skips, so bytes that are
/// not JSON only where serde_json's typed decode skips them unchecked are
/// outside its promise.)
pub fn judge(data: &[u8]) {
    let policy = Policy::default();
    let by_optics = judge::by_optics_trusting(&policy, data);
    if crate::checked::from_slice::<Issue>(data).is_ok() {
        assert_eq!(by_optics, judge::by_decoding(&policy, data));
    }
}

/// Judging any bytes in strict mode: no panic; a message serde_json rejects
/// as JSON is never kept, nor one whose `detail` key is given twice;
/// wherever serde_json's typed decode reads the bytes as an `Issue` (even
/// with values it skips unchecked), strict optics judge it exactly as the
/// full decode does; and the judge that validates only what it keeps
/// (`judge::by_optics_validating_kept`) keeps exactly what strict optics
/// keep; and strict traversals read as serde_json does (see
/// `strict_traversals`).
pub fn strict(data: &[u8]) {
    let policy = Policy::default();
    let verdict = judge::by_optics(&policy, data);
    assert_eq!(
        judge::by_optics_validating_kept(&policy, data).keep,
        verdict.keep,
        "validating what it keeps forwarded otherwise than strict optics"
    );
    if verdict.keep {
        assert!(
            serde_json::from_slice::<Value>(data).is_ok(),
            "strict optics kept what is not JSON"
        );
        if let Ok(Value::Object(_)) = serde_json::from_slice::<Value>(data) {
            let details = serde_json::Deserializer::from_slice(data)
                .into_iter::<DetailCount>()
                .next();
            if let Some(Ok(DetailCount(n))) = details {
                assert!(n <= 1, "strict optics kept a message with `detail` twice");
            }
        }
    }
    if serde_json::from_slice::<Issue>(data).is_ok() {
        assert_eq!(verdict, judge::by_decoding(&policy, data));
    }
    strict_traversals(data);
}

/// Strict traversals and folds on any bytes: no panic; wherever the bytes
/// are JSON and serde_json decodes them as an `Issue`, they read its lists
/// and its map as the decoded value holds them, and meet no duplicate.
fn strict_traversals(data: &[u8]) {
    let duplicates = Duplicates::new();
    let Ok(view) = Strict::<Issue>::validated(data, &duplicates) else {
        return;
    };
    let keys: Vec<Option<String>> = view
        .read_each(Issue::links.then(each()).then(Link::key))
        .collect();
    let done = view.fold(
        Issue::checklist.then(each()).then(CheckItem::done),
        0,
        |n, &done| n + usize::from(done),
    );
    let tags: Vec<Option<String>> = view.read_each(Issue::tags.then(each())).collect();
    if let Ok(issue) = serde_json::from_slice::<Issue>(data) {
        let links: Vec<Option<String>> = issue.links.iter().map(|l| Some(l.key.clone())).collect();
        assert_eq!(keys, links, "strict traversal of the links");
        let checked = issue.checklist.iter().filter(|item| item.done).count();
        assert_eq!(done, Some(checked), "strict fold of the checklist");
        let mut tags: Vec<String> = tags
            .into_iter()
            .map(|tag| tag.expect("a tag decodes"))
            .collect();
        let mut values: Vec<String> = issue.tags.into_values().collect();
        tags.sort_unstable();
        values.sort_unstable();
        assert_eq!(tags, values, "strict traversal of the tags");
        assert!(
            !duplicates.met(),
            "a duplicate in an issue serde_json decodes"
        );
    }
}

/// The proxy's chunk splitter on any bytes cut into any chunks (the first
/// byte sets the chunk size): no panic, and the same frames and the same
/// error as the frame decoder (the oracle) on the whole stream.
pub fn proxy_frames(data: &[u8]) {
    const MAX: usize = 1 << 12;

    let Some((&piece, stream)) = data.split_first() else {
        return;
    };
    let piece = usize::from(piece).max(1);

    let mut want = Vec::new();
    let mut decoder = FrameDecoder::with_max_message(MAX);
    let mut buffer = BytesMut::from(stream);
    let want_err = loop {
        match decoder.decode_eof(&mut buffer) {
            Ok(Some(frame)) => want.push(frame.into_frame()),
            Ok(None) => break None,
            Err(err) => break Some(err.to_string()),
        }
    };

    let mut got: Vec<Bytes> = Vec::new();
    let mut split = ChunkSplitter::with_max_message(MAX);
    let whole = Bytes::copy_from_slice(stream);
    let mut got_err = None;
    'chunks: for start in (0..whole.len()).step_by(piece) {
        split.push(whole.slice(start..(start + piece).min(whole.len())));
        loop {
            match split.next_cut() {
                Ok(Some(Cut::Chunk(range))) => got.push(split.chunk().slice(range)),
                Ok(Some(Cut::Assembled(frame))) => got.push(frame),
                Ok(None) => break,
                Err(err) => {
                    got_err = Some(err.to_string());
                    break 'chunks;
                }
            }
        }
    }
    if got_err.is_none() {
        got_err = split.finish().err().map(|err| err.to_string());
    }
    assert_eq!(got, want);
    assert_eq!(got_err, want_err);
}

/// Byte writes on any bytes: no panic, and wherever the full decode reads
/// the bytes as an `Issue` (every value checked as JSON: [`crate::checked`]),
/// a write through a byte lens (or a traversal) decodes as the decoded issue
/// with the same write made on the value, and writes exactly where the value
/// has a focus. The bytes may be laid out in any way serde_json reads:
/// whitespace, escapes, members in any order, unknown keys, a map's key given
/// twice.
pub fn write(data: &[u8]) {
    let Ok(issue) = crate::checked::from_slice::<Issue>(data) else {
        // Not an issue: a write must still not panic.
        let _ = Json::<Issue>::new(data).set(Issue::reporter.then(Person::email), &String::new());
        let _ = Json::<Issue>::new(data).set_all(Issue::watchers.then(each()), &String::new());
        return;
    };
    let frames = Issue::detail
        .then(Detail::bug)
        .then(Bug::trace)
        .then(Trace::frames);
    let severity = Issue::detail
        .then(Detail::incident)
        .then(Incident::severity);
    set_as_on_the_value(data, &issue, Issue::id, 7);
    set_as_on_the_value(
        data,
        &issue,
        Issue::reporter.then(Person::email),
        "r\"@x".into(),
    );
    set_as_on_the_value(data, &issue, Issue::assignee, None);
    let email = Issue::assignee.then(some()).then(Person::email);
    set_as_on_the_value(data, &issue, email, "a@x".into());
    set_as_on_the_value(data, &issue, Issue::due_at.then(some()), 1);
    set_as_on_the_value(data, &issue, Issue::estimate_hours, 0.5);
    set_as_on_the_value(
        data,
        &issue,
        Issue::custom_fields.then(key("a")),
        "v".into(),
    );
    set_as_on_the_value(data, &issue, severity, Severity::Sev1);
    let module = frames.then(at(0)).then(StackFrame::module);
    set_as_on_the_value(data, &issue, module, Module::Auth);
    set_as_on_the_value(data, &issue, Issue::revision, u64::MAX);
    set_all_as_on_the_value(data, &issue, Issue::watchers.then(each()), "w".into());
    set_all_as_on_the_value(data, &issue, frames.then(each()).then(StackFrame::line), 3);
    set_all_as_on_the_value(data, &issue, Issue::tags.then(each()), "t".into());
}

/// `Json::set` through `optic` on `data`, against `Optional::set` on
/// `issue`, which was decoded from `data`.
fn set_as_on_the_value<O>(data: &[u8], issue: &Issue, optic: O, value: O::Focus)
where
    O: Optional<Source = Issue> + JsonOptic + JsonWrite + StartsAt<Issue> + Copy,
    O::Focus: Sized,
{
    let written = Json::<Issue>::new(data).set(optic, &value);
    assert_eq!(
        written.is_some(),
        optic.preview(issue).is_some(),
        "set writes where the value has a focus"
    );
    if let Some(written) = written {
        let mut want = issue.clone();
        optic.set(&mut want, value);
        let got = crate::checked::from_slice::<Issue>(&written).expect("a written issue decodes");
        assert!(got == want, "the bytes written decode as the value written");
    }
}

/// `Json::set_all` through the traversal `optic` on `data`, against
/// `Traversal::set_all` on `issue`, which was decoded from `data`.
fn set_all_as_on_the_value<O>(data: &[u8], issue: &Issue, optic: O, value: O::Focus)
where
    O: Traversal<Source = Issue> + JsonWrite + StartsAt<Issue> + Copy,
    O::Focus: Sized + Clone,
{
    let written = Json::<Issue>::new(data)
        .set_all(optic, &value)
        .expect("set_all writes an issue");
    let mut want = issue.clone();
    optic.set_all(&mut want, value);
    let got = crate::checked::from_slice::<Issue>(&written).expect("a written issue decodes");
    assert!(got == want, "the bytes written decode as the value written");
}

/// An issue generated from the first 9 bytes (a seed, a size), written out
/// again in a layout the rest choose: whitespace between any two tokens,
/// members in another order, characters of keys and strings escaped,
/// floats with an exponent, unknown members, a member given twice. Then the
/// judge, strict and write checks above run on those bytes, where their
/// oracle (the full decode) reads an issue, as it does whenever no member
/// was given twice (asserted).
pub fn layout(data: &[u8]) {
    let Some((seed, rest)) = data.split_first_chunk::<8>() else {
        return;
    };
    let Some((&size, choices)) = rest.split_first() else {
        return;
    };
    let issue = Issue::generate(&mut Gen::new(
        u64::from_le_bytes(*seed),
        usize::from(size % 12) + 1,
    ));
    let value = serde_json::to_value(&issue).expect("an issue is a JSON value");
    let mut layout = Layout {
        choices,
        at: 0,
        twice: false,
        out: Vec::new(),
    };
    layout.value(&value);
    let bytes = layout.out;
    if !layout.twice {
        if let Err(err) = crate::checked::from_slice::<Issue>(&bytes) {
            panic!(
                "an issue laid out again does not decode: {err}: {}",
                String::from_utf8_lossy(&bytes)
            );
        }
    }
    judge(&bytes);
    strict(&bytes);
    write(&bytes);
}

/// A JSON writer whose every choice of layout takes the next byte of
/// `choices`, cycling (all canonical where there is none).
struct Layout<'a> {
    choices: &'a [u8],
    at: usize,
    /// Whether a member was written twice (a struct refuses that).
    twice: bool,
    out: Vec<u8>,
}

impl Layout<'_> {
    fn choice(&mut self) -> u8 {
        if self.choices.is_empty() {
            return 0;
        }
        let c = self.choices[self.at % self.choices.len()];
        self.at += 1;
        c
    }

    /// Nothing mostly, else one of JSON's four whitespace bytes, or a run.
    fn space(&mut self) {
        let ws: &[u8] = match self.choice() % 16 {
            0..=10 => b"",
            11 => b" ",
            12 => b"\n",
            13 => b"\t",
            14 => b"\r",
            _ => b" \n\t  \r\n      ",
        };
        self.out.extend_from_slice(ws);
    }

    fn value(&mut self, value: &Value) {
        self.space();
        match value {
            Value::Null | Value::Bool(_) => {
                self.out.extend_from_slice(value.to_string().as_bytes())
            }
            Value::Number(n) => match n.as_f64() {
                Some(f) if n.is_f64() && self.choice().is_multiple_of(4) => {
                    self.out.extend_from_slice(format!("{f:e}").as_bytes())
                }
                _ => self.out.extend_from_slice(n.to_string().as_bytes()),
            },
            Value::String(text) => self.string(text),
            Value::Array(items) => {
                self.out.push(b'[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.space();
                        self.out.push(b',');
                    }
                    self.value(item);
                }
                self.space();
                self.out.push(b']');
            }
            Value::Object(map) => {
                let mut members: Vec<(&str, Value)> =
                    map.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
                let order = self.choice();
                if !members.is_empty() {
                    let by = usize::from(order) % members.len();
                    members.rotate_left(by);
                    if order & 0x80 != 0 {
                        members.reverse();
                    }
                }
                match self.choice() % 32 {
                    0 => {
                        let at = usize::from(self.choice()) % (members.len() + 1);
                        members.insert(at, ("unknown", Value::String("x".into())));
                    }
                    1 if !members.is_empty() => {
                        let at = usize::from(self.choice()) % members.len();
                        let key = members[at].0;
                        members.insert(at, (key, Value::String("twice".into())));
                        self.twice = true;
                    }
                    _ => {}
                }
                self.out.push(b'{');
                for (i, (key, item)) in members.iter().enumerate() {
                    if i > 0 {
                        self.space();
                        self.out.push(b',');
                    }
                    self.space();
                    self.string(key);
                    self.space();
                    self.out.push(b':');
                    self.value(item);
                }
                self.space();
                self.out.push(b'}');
            }
        }
    }

    /// A string, each character as it is or escaped (a short escape where
    /// JSON has one, else `\u`, a surrogate pair beyond the BMP).
    fn string(&mut self, text: &str) {
        self.out.push(b'"');
        for c in text.chars() {
            let must = matches!(c, '"' | '\\') || c < ' ';
            if !must && !self.choice().is_multiple_of(8) {
                let mut buf = [0; 4];
                self.out
                    .extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                continue;
            }
            let short = match c {
                '"' => Some('"'),
                '\\' => Some('\\'),
                '/' => Some('/'),
                '\n' => Some('n'),
                '\t' => Some('t'),
                '\r' => Some('r'),
                '\u{8}' => Some('b'),
                '\u{c}' => Some('f'),
                _ => None,
            };
            match short {
                Some(s) if self.choice().is_multiple_of(2) => {
                    self.out.extend_from_slice(&[b'\\', s as u8])
                }
                _ => {
                    let mut units = [0; 2];
                    for unit in c.encode_utf16(&mut units) {
                        let hex = if self.choice().is_multiple_of(2) {
                            format!("\\u{unit:04x}")
                        } else {
                            format!("\\u{unit:04X}")
                        };
                        self.out.extend_from_slice(hex.as_bytes());
                    }
                }
            }
        }
        self.out.push(b'"');
    }
}

/// How many times the top-level object gives the key `detail`.
struct DetailCount(usize);

impl<'de> serde::Deserialize<'de> for DetailCount {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Count;
        impl<'de> serde::de::Visitor<'de> for Count {
            type Value = DetailCount;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<DetailCount, A::Error> {
                let mut n = 0;
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    n += usize::from(key == "detail");
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
                Ok(DetailCount(n))
            }
        }
        d.deserialize_map(Count)
    }
}
