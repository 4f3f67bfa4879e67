//! Hostile bytes into every byte-side entry point: deep nesting, balanced and
//! not, around and inside the focus, through reads, strict reads, writes and
//! traversals, each run on a thread with a small stack so that recursion on
//! depth would overflow it.

mod model;

use std::time::{Duration, Instant};

use model::*;
use optics_core::json::{Duplicates, Strict};
use optics_core::prelude::*;

/// Small enough that a walk recursing once per level of 10^5 levels overflows.
const SMALL_STACK: usize = 256 * 1024;

/// Runs `f` on a thread with [`SMALL_STACK`] and returns how long it took.
fn on_small_stack<F: FnOnce() + Send + 'static>(f: F) -> Duration {
    let started = Instant::now();
    std::thread::Builder::new()
        .stack_size(SMALL_STACK)
        .spawn(f)
        .expect("thread")
        .join()
        .expect("no panic");
    started.elapsed()
}

/// Every single-focus entry point on `bytes` with `optic`, trusting and
/// strict: none may panic; strict ones answer only where serde_json parses.
macro_rules! single {
    ($bytes:expr, $valid:expr, $optic:expr, $value:expr) => {{
        let bytes: &[u8] = $bytes;
        let valid: bool = $valid;
        let optic = $optic;
        let json = Json::<Issue>::new(bytes);
        let _ = json.view(optic);
        let _ = json.read(optic);
        let _ = json.set(optic, &$value);
        let _ = json.modify(optic, |v| v);
        let _ = json.enter(optic).map(|e| e.json());
        let duplicates = Duplicates::new();
        let _ = json.strict(&duplicates).read(optic);
        let strict = Strict::<Issue>::validated(bytes, &duplicates);
        assert_eq!(strict.is_ok(), valid, "strict validation");
        if let Ok(strict) = strict {
            let _ = strict.read(optic);
        }
        let viewed = Strict::<Issue>::validated_view(bytes, &duplicates, optic);
        assert_eq!(viewed.is_ok(), valid, "strict validated_view");
    }};
}

/// Every traversal entry point on `bytes` with `optic`.
macro_rules! many {
    ($bytes:expr, $optic:expr, $value:expr) => {{
        let bytes: &[u8] = $bytes;
        let optic = $optic;
        let json = Json::<Issue>::new(bytes);
        let _ = json.iter(optic).count();
        let _ = json.read_each(optic).count();
        let _ = json.set_all(optic, &$value);
        let _ = json.modify_all(optic, |v| v);
    }};
}

/// Every path of the model through every entry point.
fn every_entry_point(bytes: &[u8], valid: bool) {
    single!(bytes, valid, Issue::issue_id, 7);
    single!(bytes, valid, Issue::r#type, Category::Crash);
    single!(bytes, valid, Issue::title_text, "t".to_owned());
    single!(
        bytes,
        valid,
        Issue::detail
            .then(Detail::incident)
            .then(Incident::impact)
            .then(Impact::service)
            .then(Service::tier),
        Tier::Critical
    );
    single!(
        bytes,
        valid,
        Issue::detail
            .then(Detail::incident)
            .then(Incident::impact)
            .then(Impact::regions)
            .then(at(3))
            .then(Region::code),
        "x".to_owned()
    );
    single!(
        bytes,
        valid,
        Issue::detail
            .then(Detail::bug)
            .then(Bug::line_no)
            .then(some()),
        3
    );
    single!(bytes, valid, Issue::shape.then(Shape::circle), 3);
    single!(bytes, valid, Issue::shape.then(Shape::rect_width), 3);
    single!(bytes, valid, Issue::shape.then(Shape::line_1), 3);
    single!(bytes, valid, Issue::event.then(Event::note), "n".to_owned());
    single!(bytes, valid, Issue::event.then(Event::moved_to_pos), 3);
    single!(bytes, valid, Issue::tags.then(key("team")), "t".to_owned());
    single!(
        bytes,
        valid,
        Issue::counters.then(key("a")).then(Wrapper::value),
        1
    );
    single!(bytes, valid, Issue::meta.then(Meta::priority), 1);
    single!(bytes, valid, Issue::meta.then(Meta::big_number), 1);
    single!(bytes, valid, Issue::votes.then(Votes::count), 1);
    single!(bytes, valid, Issue::span.then(Span::_1), 1);
    let kind = Json::<Issue>::new(bytes).read(Issue::detail.then(Detail::kind));
    let _ = kind;
    many!(bytes, Issue::labels.then(each()), "l".to_owned());
    many!(bytes, Issue::counters.then(each()).then(Wrapper::value), 1);
    many!(
        bytes,
        Issue::detail
            .then(Detail::bug)
            .then(Bug::frames)
            .then(each())
            .then(Frame::line),
        1
    );
    many!(
        bytes,
        Issue::detail
            .then(Detail::incident)
            .then(Incident::impact)
            .then(Impact::service)
            .then(Service::owner_ids)
            .then(each()),
        1
    );
}

/// How the deep part of a document nests.
#[derive(Clone, Copy, Debug)]
enum Deep {
    /// `[[[...`
    OpenArrays,
    /// `[[[...]]]`
    Arrays,
    /// `{"a":{"a":...`
    OpenObjects,
    /// `{"a":{"a":...1}}}`
    Objects,
}

impl Deep {
    const ALL: [Deep; 4] = [
        Deep::OpenArrays,
        Deep::Arrays,
        Deep::OpenObjects,
        Deep::Objects,
    ];

    fn write(self, n: usize, out: &mut Vec<u8>) {
        match self {
            Deep::OpenArrays => out.extend(std::iter::repeat_n(b'[', n)),
            Deep::Arrays => {
                out.extend(std::iter::repeat_n(b'[', n));
                out.extend(std::iter::repeat_n(b']', n));
            }
            Deep::OpenObjects => (0..n).for_each(|_| out.extend_from_slice(br#"{"a":"#)),
            Deep::Objects => {
                (0..n).for_each(|_| out.extend_from_slice(br#"{"a":"#));
                out.push(b'1');
                out.extend(std::iter::repeat_n(b'}', n));
            }
        }
    }
}

/// A hostile document: `before`, something `n` levels deep, `after`.
struct Doc {
    before: String,
    deep: Deep,
    after: String,
}

impl Doc {
    fn bytes(&self, n: usize) -> Vec<u8> {
        let mut out = self.before.clone().into_bytes();
        self.deep.write(n, &mut out);
        out.extend_from_slice(self.after.as_bytes());
        out
    }
}

/// The hostile documents: deep nesting as the whole document, as every
/// member of `Issue`, before it, and inside the parents of each focus.
fn deep_documents() -> Vec<Doc> {
    let doc = |before: &str, deep, after: &str| Doc {
        before: before.to_owned(),
        deep,
        after: after.to_owned(),
    };
    let mut docs = Vec::new();
    for deep in Deep::ALL {
        docs.push(doc("", deep, ""));
        docs.push(doc("", deep, "]}]}"));
        docs.push(doc("{", deep, ""));
    }
    let members = [
        "issueId",
        "title",
        "detail",
        "shape",
        "event",
        "labels",
        "tags",
        "counters",
        "priority",
        "big-number",
        "votes",
        "span",
        "type",
        "x",
    ];
    for member in members {
        for deep in Deep::ALL {
            docs.push(doc(&format!(r#"{{"{member}":"#), deep, "}"));
            docs.push(doc(
                &format!(r#"{{"{member}":"#),
                deep,
                r#","issueId":1,"type":"crash"}"#,
            ));
            docs.push(doc(r#"{"x":"#, deep, &format!(r#","{member}":1}}"#)));
        }
    }
    let inners = [
        r#"{"detail":{"type":"Incident","IMPACT":{"Service":{"TIER":"#,
        r#"{"detail":{"type":"Incident","IMPACT":{"Regions":[1,2,3,"#,
        r#"{"detail":{"type":"bug","frames":["#,
        r#"{"detail":{"type":"bug","line_no":"#,
        r#"{"detail":{"IMPACT":{"Service":{"OWNER-IDS":"#,
        r#"{"detail":{"type":"Incident","IMPACT":{"Service":{"OWNER-IDS":["#,
        r#"{"shape":{"circle":"#,
        r#"{"shape":{"rect":{"width":"#,
        r#"{"shape":{"line":[1,"#,
        r#"{"event":{"t":"NOTE","c":"#,
        r#"{"event":{"c":"#,
        r#"{"event":{"t":"MOVED","c":{"toPos":"#,
        r#"{"tags":{"team":"#,
        r#"{"counters":{"a":{"value":"#,
        r#"{"counters":{"a":"#,
        r#"{"labels":["#,
        r#"{"span":[1,"#,
    ];
    for inner in inners {
        let closes: String = inner
            .bytes()
            .rev()
            .filter_map(|b| match b {
                b'{' => Some('}'),
                b'[' => Some(']'),
                _ => None,
            })
            .collect();
        for deep in Deep::ALL {
            docs.push(doc(inner, deep, ""));
            docs.push(doc(inner, deep, &closes));
        }
    }
    docs
}

/// Runs every entry point on `spec` nested `n` deep, on the small stack.
fn run_deep(spec: &Doc, n: usize) {
    let doc = spec.bytes(n);
    let what = format!("{} {:?} {} at {n}", spec.before, spec.deep, spec.after);
    // serde_json's own answer, on the test's big stack.
    let valid = serde_json::from_slice::<serde_json::Value>(&doc).is_ok();
    // serde_json's recursion (to its limit of 128 levels) needs more than
    // the small stack in a debug build: these run on this one.
    assert_eq!(
        optics_core::json::decode::<serde_json::Value>(&doc).is_some(),
        valid
    );
    let _ = optics_core::json::decode::<Issue>(&doc);
    let _ = Json::<Issue>::new(&doc).decode();
    let took = on_small_stack(move || every_entry_point(&doc, valid));
    // Coarse: linear work takes a few seconds at most in a debug build.
    assert!(took < Duration::from_secs(60), "{what}: {took:?}");
}

#[test]
fn deep_nesting_anywhere_through_every_entry_point() {
    // 20,000 levels: a recursion of 16 bytes a level would need more than
    // the small stack. (10^5 and 10^6 levels ran the same, in minutes.)
    for spec in deep_documents() {
        run_deep(&spec, 20_000);
    }
}

#[test]
fn a_million_levels_as_the_whole_document() {
    for spec in deep_documents().iter().filter(|spec| spec.before.len() < 2) {
        for n in [100_000, 1_000_000] {
            run_deep(spec, n);
        }
    }
}

/// Time of `f` on the best of three runs (one run if that one is slow: it
/// has said enough).
fn best_of_three(mut f: impl FnMut()) -> Duration {
    let mut best = Duration::MAX;
    for _ in 0..3 {
        let started = Instant::now();
        f();
        best = best.min(started.elapsed());
        if best > Duration::from_secs(5) {
            break;
        }
    }
    best
}

/// A document of about `len` bytes: one member whose string is a run of
/// backslashes (valid JSON: `len` is even), then nothing else.
fn backslash_run(len: usize) -> Vec<u8> {
    let mut doc = br#"{"p":""#.to_vec();
    doc.extend(std::iter::repeat_n(b'\\', len));
    doc.extend_from_slice(br#""}"#);
    doc
}

#[test]
fn a_late_field_behind_a_long_run_of_backslashes_is_read_in_linear_time() {
    // `type` is `Issue`'s last field: read from both ends of the object, the
    // end first. Each block of the run read backward used to count the
    // whole run below it: 512 KiB took about 40 s in a debug build.
    let small = backslash_run(512 * 1024);
    let large = backslash_run(2 * 1024 * 1024);
    assert!(serde_json::from_slice::<serde_json::Value>(&large).is_ok());
    let mut times = Vec::new();
    for doc in [&small, &large] {
        let took = best_of_three(|| {
            assert_eq!(Json::<Issue>::new(doc).read(Issue::r#type), None);
            let duplicates = Duplicates::new();
            let strict = Strict::<Issue>::validated(doc, &duplicates).expect("valid");
            assert_eq!(strict.read(Issue::r#type), None);
        });
        // Coarse: quadratic work takes minutes here.
        assert!(
            took < Duration::from_secs(5),
            "{} bytes: {took:?}",
            doc.len()
        );
        times.push(took);
    }
    eprintln!("512 KiB: {:?}, 2 MiB: {:?}", times[0], times[1]);
}

/// Four string fields, the last read from both ends of its object.
#[derive(Optics, serde::Deserialize, Debug)]
struct Late {
    a: String,
    b: String,
    c: String,
    kind: String,
}

#[test]
fn a_late_field_read_backward_over_backslash_runs_agrees_with_serde_json() {
    // The end's walk reads `c`, then `b`'s run of backslashes (ending in an
    // escaped quote or not, across every block edge), then meets `kind`.
    for pad in 0..64 {
        for run in 0..140 {
            for quote in [false, true] {
                let mut b = "\\\\".repeat(run);
                if quote {
                    b.push_str("\\\"x");
                }
                let doc = format!(
                    r#"{{"a":"{}","kind":"K{run}","b":"{b}","c":"{}"}}"#,
                    "x".repeat(1500 + pad),
                    "y".repeat(300)
                );
                let want: Late = serde_json::from_str(&doc).expect("valid");
                let got = Json::<Late>::new(doc.as_bytes()).read(Late::kind);
                assert_eq!(
                    got.as_deref(),
                    Some(want.kind.as_str()),
                    "{pad} {run} {quote}"
                );
            }
        }
    }
}
