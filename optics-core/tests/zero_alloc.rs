//! Reading from an already-built message allocates nothing: a view of a nested
//! object, and reads of an enum, a number, a bool and a `&str` leaf, through
//! composed paths with variant prisms and `at(0)`; nor does validating a
//! document, however deeply nested.
//!
//! The counting allocator (`alloc-counter`) counts, per thread, every
//! allocation; the measurement is one `#[test]`, and only its own thread counts.

mod model;

use std::collections::{BTreeMap, HashMap};

use model::*;
use optics_core::prelude::*;

#[global_allocator]
static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;

/// Runs `read` and returns what it gave and how many allocations it made.
fn counted<R>(read: impl FnOnce() -> R) -> (R, u64) {
    let (result, counts) = alloc_counter::measure_thread(read);
    (result, counts.allocations)
}

fn issue(detail: Detail) -> Issue {
    Issue {
        issue_id: 7,
        title_text: "checkout is slow".to_owned(),
        detail,
        shape: Shape::Line(-1, 2),
        event: Event::Moved {
            from_pos: 1,
            to_pos: 2,
        },
        labels: vec!["perf".to_owned(), "p1".to_owned()],
        tags: HashMap::from([("team".to_owned(), "core".to_owned())]),
        counters: BTreeMap::from([(
            "hits".to_owned(),
            Wrapper {
                value: 3,
                note: None,
            },
        )]),
        meta: Meta {
            created_at: 1_700_000_000,
            big_number: 99,
            priority: 1,
        },
        cache: Vec::new(),
        votes: Votes { count: 12 },
        span: Span(4, 5),
        r#type: Category::SlowStart,
    }
}

fn incident() -> Detail {
    Detail::Incident(Incident {
        severity: Severity::VeryHigh,
        started_at: 1_700_000_100,
        impact: Impact {
            service: Service {
                name: Module("checkout".to_owned()),
                tier: Tier::Critical,
                r#type: "http".to_owned(),
                owner_ids: vec![10, 11],
            },
            users: 4_000,
            regions: vec![
                Region {
                    code: "eu-west".to_owned(),
                    weight: -3,
                    score: 2.5,
                },
                Region::default(),
            ],
        },
        resolved: true,
        note: Some("rolled back".to_owned()),
    })
}

fn bug() -> Detail {
    Detail::Bug(Bug {
        module: Module("auth".to_owned()),
        line_no: Some(88),
        frames: vec![Frame {
            file_name: "login.rs".to_owned(),
            line: 12,
            inlined: true,
        }],
        build: 5,
    })
}

#[test]
fn reading_an_already_built_message_allocates_nothing() {
    let incident_message = serde_json::to_vec_pretty(&issue(incident())).unwrap();
    let bug_message = serde_json::to_vec(&issue(bug())).unwrap();
    let borrowed_message =
        br#"{"name":"svc","module":"billing","frames":[{"file":"pay.rs","line":9}],"origin":{"Remote":"eu-1"}}"#;
    // The counter counts: decoding an owned string leaf allocates.
    let (_, n) = counted(|| Json::<Issue>::new(&bug_message).read(Issue::title_text));
    assert!(n > 0, "the counting allocator saw nothing");

    let incident_issue = Json::<Issue>::new(&incident_message);
    let bug_issue = Json::<Issue>::new(&bug_message);
    let borrowed = Json::<Borrowed<'_>>::new(borrowed_message);

    let incident = Issue::detail.then(Detail::incident);
    let regions = incident.then(Incident::impact).then(Impact::regions);
    let frames = Issue::detail.then(Detail::bug).then(Bug::frames);

    // A view of a nested object, through an internally tagged variant.
    let (view, n) = counted(|| incident_issue.view(incident.then(Incident::impact)));
    assert_eq!(n, 0, "view of a nested object");
    assert!(view.is_some_and(|view| view.bytes().starts_with(b"{")));

    // Enum leaves: a unit-only enum, four and five levels down, and a kind.
    let (severity, n) = counted(|| incident_issue.read(incident.then(Incident::severity)));
    assert_eq!((severity, n), (Some(Severity::VeryHigh), 0), "enum leaf");
    let tier = incident
        .then(Incident::impact)
        .then(Impact::service)
        .then(Service::tier);
    let (tier, n) = counted(|| incident_issue.read(tier));
    assert_eq!((tier, n), (Some(Tier::Critical), 0), "enum leaf");
    let (kind, n) = counted(|| bug_issue.read(Issue::detail.then(Detail::kind)));
    assert_eq!((kind, n), (Some(DetailKind::Bug), 0), "kind");
    let (kind, n) = counted(|| bug_issue.read(Issue::shape.then(Shape::kind)));
    assert_eq!((kind, n), (Some(ShapeKind::Line), 0), "kind");

    // Numbers, through at(0), a tuple variant and a flattened struct.
    let (weight, n) = counted(|| incident_issue.read(regions.then(at(0)).then(Region::weight)));
    assert_eq!((weight, n), (Some(-3), 0), "number");
    let (score, n) = counted(|| incident_issue.read(regions.then(at(0)).then(Region::score)));
    assert_eq!((score, n), (Some(2.5), 0), "float");
    let (line, n) = counted(|| bug_issue.read(frames.then(at(0)).then(Frame::line)));
    assert_eq!((line, n), (Some(12), 0), "number");
    let (end, n) = counted(|| bug_issue.read(Issue::shape.then(Shape::line_1)));
    assert_eq!((end, n), (Some(2), 0), "number");
    let (created, n) = counted(|| bug_issue.read(Issue::meta.then(Meta::created_at)));
    assert_eq!((created, n), (Some(1_700_000_000), 0), "number");

    // Bools.
    let (resolved, n) = counted(|| incident_issue.read(incident.then(Incident::resolved)));
    assert_eq!((resolved, n), (Some(true), 0), "bool");
    let (inlined, n) = counted(|| bug_issue.read(frames.then(at(0)).then(Frame::inlined)));
    assert_eq!((inlined, n), (Some(true), 0), "bool");

    // Borrowed strings, through at(0) and a variant prism.
    let file = Borrowed::frames.then(at(0)).then(BorrowedFrame::file);
    let (file, n) = counted(|| borrowed.read(file));
    assert_eq!((file, n), (Some("pay.rs"), 0), "&str leaf");
    let (remote, n) = counted(|| borrowed.read(Borrowed::origin.then(Origin::remote)));
    assert_eq!((remote, n), (Some("eu-1"), 0), "&str leaf");
    let (module, n) = counted(|| {
        bug_issue
            .view(Issue::detail.then(Detail::bug).then(Bug::module))
            .and_then(|module| module.read_as::<&str>())
    });
    assert_eq!((module, n), (Some("auth"), 0), "&str leaf");

    // Misses: another variant, an index past the end.
    let (missed, n) = counted(|| bug_issue.read(incident.then(Incident::resolved)));
    assert_eq!((missed, n), (None, 0), "miss on another variant");
    let (missed, n) = counted(|| incident_issue.read(regions.then(at(5)).then(Region::weight)));
    assert_eq!((missed, n), (None, 0), "miss past the end");

    // Validation, at every depth it accepts: the container stack is two
    // words, so a document 127 levels deep costs no allocation either.
    for depth in [1, 64, 65, 127] {
        let deep = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let (valid, n) = counted(|| Json::<Issue>::validated(deep.as_bytes()).is_ok());
        assert_eq!((valid, n), (true, 0), "validation {depth} levels deep");
    }
    // A level deeper is refused, with its first error named: still nothing.
    let deep = format!("{}{}", "[".repeat(128), "]".repeat(128));
    let (valid, n) = counted(|| Json::<Issue>::validated(deep.as_bytes()).is_ok());
    assert_eq!((valid, n), (false, 0), "validation 128 levels deep");
}
