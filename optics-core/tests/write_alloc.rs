//! Writing into a reused buffer allocates nothing once the buffer has grown,
//! and traversing bytes allocates nothing at all: `set_into` and
//! `set_all_into` over a stream of messages, `iter` and `read_each` of
//! number leaves, and `iter`/`iter_mut` over values.
//!
//! The counting allocator (`alloc-counter`) counts, per thread, every
//! allocation; each measurement is one `#[test]`, and only its own thread counts.

mod model;

use std::collections::{BTreeMap, HashMap};

use model::*;
use optics_core::prelude::*;

#[global_allocator]
static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;

/// Runs `f` and returns what it gave and how many allocations it made.
fn counted<R>(f: impl FnOnce() -> R) -> (R, u64) {
    let (result, counts) = alloc_counter::measure_thread(f);
    (result, counts.allocations)
}

/// A stream of messages of different sizes and shapes: bugs with frames,
/// incidents, questions.
fn messages() -> Vec<Vec<u8>> {
    (0..24u32)
        .map(|i| {
            let detail = match i % 3 {
                0 => Detail::Bug(Bug {
                    module: Module(format!("module-{i}")),
                    line_no: (i % 2 == 0).then_some(i),
                    frames: (0..i % 7)
                        .map(|n| Frame {
                            file_name: format!("file-{n}.rs"),
                            line: n * 10,
                            inlined: n % 2 == 0,
                        })
                        .collect(),
                    build: u64::from(i),
                }),
                1 => Detail::Incident(Incident {
                    severity: Severity::High,
                    started_at: u64::from(i),
                    impact: Impact {
                        service: Service {
                            name: Module("db".into()),
                            tier: Tier::Critical,
                            r#type: "sql".into(),
                            owner_ids: vec![1, 2, 3],
                        },
                        users: i,
                        regions: vec![Region::default(); (i % 4) as usize],
                    },
                    resolved: false,
                    note: None,
                }),
                _ => Detail::Question(Wrapper {
                    value: "why".repeat(i as usize),
                    note: Some("n".into()),
                }),
            };
            let issue = Issue {
                issue_id: u64::from(i),
                title_text: "t".repeat(i as usize * 3),
                detail,
                shape: Shape::Circle(i),
                event: Event::Ping,
                labels: vec!["a".into(); (i % 3) as usize],
                tags: HashMap::from([("team".to_owned(), "core".to_owned())]),
                counters: BTreeMap::new(),
                meta: Meta {
                    created_at: 1,
                    big_number: 2,
                    priority: (i % 5) as u8,
                },
                cache: Vec::new(),
                votes: Votes { count: i },
                span: Span(i, i + 1),
                r#type: Category::Crash,
            };
            serde_json::to_vec(&issue).expect("the model serializes")
        })
        .collect()
}

#[test]
fn set_into_allocates_nothing_once_the_buffer_has_grown() {
    let messages = messages();
    let title = "redacted".to_owned();
    let mut out = Vec::new();
    // The counter counts: the first pass grows the buffer.
    let (_, n) = counted(|| {
        for m in &messages {
            Json::<Issue>::new(m).set_into(Issue::title_text, &title, &mut out);
        }
    });
    assert!(n > 0, "the counting allocator saw nothing");
    out.reserve(64);

    let line = Issue::detail.then(Detail::bug).then(Bug::line_no);
    let build = Issue::detail.then(Detail::bug).then(Bug::build);
    let priority = Issue::meta.then(Meta::priority);
    let users = Issue::detail
        .then(Detail::incident)
        .then(Incident::impact)
        .then(Impact::users);
    let (written, n) = counted(|| {
        let mut written = 0;
        for m in &messages {
            let json = Json::<Issue>::new(m);
            // A string leaf, replaced.
            written += usize::from(json.set_into(Issue::title_text, &title, &mut out));
            // An `Option`, inserted where it was skipped and replaced where not.
            written += usize::from(json.set_into(line, &Some(7), &mut out));
            // A `serialize_with` field, written with its function.
            written += usize::from(json.set_into(build, &42, &mut out));
            // A `skip_serializing_if` field: removed, or appended.
            written += usize::from(json.set_into(priority, &default_priority(), &mut out));
            written += usize::from(json.set_into(priority, &9, &mut out));
            // A miss, on another variant.
            written += usize::from(json.set_into(users, &1, &mut out));
        }
        written
    });
    assert_eq!(n, 0, "set_into allocated");
    // Every message: the title and the priority twice; bugs (a third): the
    // line and the build; incidents (a third): the users.
    let third = messages.len() / 3;
    assert_eq!(written, messages.len() * 3 + third * 2 + third);
}

#[test]
fn set_allocates_once_where_the_new_document_fits_its_first_buffer() {
    let messages = messages();
    let json = Json::<Issue>::new(&messages[0]);
    // The first buffer holds the old document and 64 bytes more.
    let (title, tag) = ("redacted".to_owned(), "t".to_owned());
    let (set, n) = counted(|| json.set(Issue::title_text, &title));
    assert!(set.is_some());
    assert_eq!(n, 1, "set of a short title");
    let (set, n) = counted(|| json.set_all(Issue::tags.then(each()), &tag));
    assert!(set.is_some());
    assert_eq!(n, 1, "set_all of short tags");
    // A focus that grows the document past it grows the buffer as a `Vec`
    // grows.
    let long = "x".repeat(1000);
    let (set, n) = counted(|| json.set(Issue::title_text, &long));
    assert!(set.is_some());
    assert!(n > 1, "set of a long title: {n}");
}

#[test]
fn set_all_into_allocates_nothing_once_the_buffer_has_grown() {
    let messages = messages();
    let lines = Issue::detail
        .then(Detail::bug)
        .then(Bug::frames)
        .then(each())
        .then(Frame::line);
    let labels = Issue::labels.then(each());
    let label = "x".to_owned();
    let mut out = Vec::with_capacity(4096);
    let (all, n) = counted(|| {
        messages.iter().all(|m| {
            let json = Json::<Issue>::new(m);
            json.set_all_into(lines, &0, &mut out) && json.set_all_into(labels, &label, &mut out)
        })
    });
    assert!(all);
    assert_eq!(n, 0, "set_all_into allocated");
}

#[test]
fn traversing_bytes_allocates_nothing() {
    let messages = messages();
    let frames = Issue::detail
        .then(Detail::bug)
        .then(Bug::frames)
        .then(each());
    let (total, n) = counted(|| {
        let mut total = 0u64;
        for m in &messages {
            let json = Json::<Issue>::new(m);
            for view in json.iter(frames.then(Frame::file_name)) {
                total += view.bytes().len() as u64;
            }
            for line in json.read_each(frames.then(Frame::line)) {
                total += u64::from(line.unwrap_or_default());
            }
            total += json.iter(Issue::tags.then(each())).count() as u64;
        }
        total
    });
    assert_eq!(n, 0, "iter and read_each allocated");
    assert!(total > 0);
}

#[test]
fn traversing_values_allocates_nothing() {
    let mut issues: Vec<Issue> = messages()
        .iter()
        .map(|m| serde_json::from_slice(m).expect("decodes"))
        .collect();
    let lines = Issue::detail
        .then(Detail::bug)
        .then(Bug::frames)
        .then(each())
        .then(Frame::line);
    let everything = each::<Vec<Issue>>().then(lines);
    let (sum, n) = counted(|| {
        let sum = everything.fold(&issues, 0u32, |sum, line| sum + line);
        everything.modify_all(&mut issues, |line| *line += 1);
        sum + everything.iter(&issues).count() as u32
    });
    assert_eq!(n, 0, "iter, fold and modify_all allocated");
    assert!(sum > 0);
}

#[test]
fn modify_of_a_focus_that_does_not_decode_allocates_no_buffer() {
    let messages = messages();
    let json = Json::<Issue>::new(&messages[0]);
    // Decoded, changed and written: one buffer for the new document.
    let (bumped, n) = counted(|| json.modify(Issue::issue_id, |id| id + 1));
    assert!(bumped.is_some());
    assert_eq!(n, 1, "modify of the issue's id");
    // A focus the bytes hold in a form its type does not read: no buffer.
    let text = String::from_utf8(messages[0].clone()).unwrap();
    let id = serde_json::to_value(serde_json::from_slice::<Issue>(&messages[0]).unwrap()).unwrap()
        ["issueId"]
        .to_string();
    let broken = text.replacen(&format!("\"issueId\":{id}"), "\"issueId\":\"x\"", 1);
    assert_ne!(broken, text);
    let json = Json::<Issue>::new(broken.as_bytes());
    let (bumped, n) = counted(|| json.modify(Issue::issue_id, |id| id + 1));
    assert_eq!(bumped, None);
    // serde_json's error for the failed decode allocates; the write adds
    // nothing to it.
    let (read, failed_decode) = counted(|| json.read(Issue::issue_id));
    assert_eq!(read, None);
    assert_eq!(n, failed_decode, "modify of a focus that does not decode");
}
