//! The laws of every derived optic, checked on random values of the test model.
//!
//! - **Lens**: get-set (setting what is there changes nothing), set-get (what
//!   was set is what is got), set-set (the last set wins).
//! - **Prism**: preview-review (a built whole previews as its part),
//!   review-preview (a whole that previews as `a` is the whole built from `a`).
//! - **Optional** (and every lens and prism, which are optionals too): setting
//!   writes where there is a focus and nowhere else, the focus is then what was
//!   set, and the last set wins.
//!
//! One generic helper per law, called for every derived optic of the model (each
//! is listed), for compositions of every kind, and for `at(i)`, `key(k)` and
//! `some()`.

mod model;
mod support;

use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;

use model::*;
use optics_core::prelude::*;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

// ---------------------------------------------------------------------------
// The laws, one helper each

/// The optional laws: `set` writes exactly where `preview` finds a focus, what
/// was set is then previewed, setting what is there changes nothing, and a
/// second set overrides the first. `preview_mut` and `modify` agree with
/// `preview`.
fn optional_laws<O>(o: O, s: &O::Source, a: O::Focus, b: O::Focus) -> Result<(), TestCaseError>
where
    O: Optional,
    O::Source: Sized + Clone + PartialEq + Debug,
    O::Focus: Clone + PartialEq + Debug,
{
    let present = o.preview(s).cloned();

    // preview_mut sees what preview sees.
    let mut t = s.clone();
    prop_assert_eq!(o.preview_mut(&mut t).map(|f| f.clone()), present.clone());
    prop_assert_eq!(&t, s, "preview_mut alone changed the whole");

    // Setting what is there changes nothing.
    if let Some(focus) = &present {
        let mut t = s.clone();
        o.set(&mut t, focus.clone());
        prop_assert_eq!(&t, s, "get-set");
    }

    // Set where present only; then the focus is what was set.
    let mut t = s.clone();
    o.set(&mut t, a.clone());
    match &present {
        None => prop_assert_eq!(&t, s, "set changed a whole without a focus"),
        Some(_) => prop_assert_eq!(o.preview(&t), Some(&a), "set-get"),
    }

    // The last set wins.
    let mut twice = s.clone();
    o.set(&mut twice, b.clone());
    o.set(&mut twice, a.clone());
    prop_assert_eq!(&twice, &t, "set-set");

    // modify runs exactly where there is a focus.
    let mut m = s.clone();
    let ran = o.modify(&mut m, |focus| *focus = a.clone());
    prop_assert_eq!(ran, present.is_some());
    prop_assert_eq!(&m, &t, "modify differs from set");
    Ok(())
}

/// The lens laws: get-set, set-get, set-set, and `get`/`get_mut` agree with
/// `preview`, which never misses.
fn lens_laws<O>(o: O, s: &O::Source, a: O::Focus, b: O::Focus) -> Result<(), TestCaseError>
where
    O: Lens,
    O::Source: Sized + Clone + PartialEq + Debug,
    O::Focus: Clone + PartialEq + Debug,
{
    prop_assert_eq!(o.preview(s), Some(o.get(s)));
    let mut t = s.clone();
    prop_assert_eq!(&o.get_mut(&mut t).clone(), o.get(s));

    // get-set
    let mut t = s.clone();
    o.set(&mut t, o.get(s).clone());
    prop_assert_eq!(&t, s, "get-set");

    // set-get
    let mut t = s.clone();
    o.set(&mut t, a.clone());
    prop_assert_eq!(o.get(&t), &a, "set-get");

    // set-set
    let mut twice = s.clone();
    o.set(&mut twice, b.clone());
    o.set(&mut twice, a.clone());
    prop_assert_eq!(&twice, &t, "set-set");

    // get_mut writes like set.
    let mut m = s.clone();
    *o.get_mut(&mut m) = a.clone();
    prop_assert_eq!(&m, &t);

    optional_laws(o, s, a, b)
}

/// The prism laws: preview-review and review-preview, plus the optional laws.
fn prism_laws<O>(o: O, s: &O::Source, a: O::Focus, b: O::Focus) -> Result<(), TestCaseError>
where
    O: Prism,
    O::Source: Sized + Clone + PartialEq + Debug,
    O::Focus: Clone + PartialEq + Debug,
{
    // preview-review
    let built = o.review(a.clone());
    prop_assert_eq!(o.preview(&built), Some(&a), "preview-review");
    // review-preview
    if let Some(found) = o.preview(s) {
        prop_assert_eq!(&o.review(found.clone()), s, "review-preview");
    }
    // Setting replaces the payload of the whole that has one: the same as
    // building the whole from the new payload.
    if o.preview(s).is_some() {
        let mut t = s.clone();
        o.set(&mut t, a.clone());
        prop_assert_eq!(&t, &o.review(a.clone()));
    }
    optional_laws(o, s, a, b)
}

/// A getter (an enum's `kind`): `get` is what `preview` finds, always.
fn getter_law<O>(o: O, s: &O::Source) -> Result<(), TestCaseError>
where
    O: Get,
    O::Source: Sized,
    O::Focus: PartialEq + Debug,
{
    prop_assert_eq!(o.preview(s), Some(o.get(s)));
    Ok(())
}

/// The lens laws for each listed lens, with the new foci taken from two other
/// wholes `t` and `u`.
macro_rules! lenses {
    ($s:expr, $t:expr, $u:expr; $($o:expr),+ $(,)?) => {
        $( lens_laws($o, &$s, $o.get(&$t).clone(), $o.get(&$u).clone())?; )+
    };
}

/// The optional laws for each listed optional, with the new foci taken from
/// other wholes where they have one, else from `$a`/`$b`.
macro_rules! optionals {
    ($s:expr, $t:expr, $u:expr; $($o:expr => $a:expr, $b:expr);+ $(;)?) => {
        $(
            let a = $o.preview(&$t).cloned().unwrap_or_else(|| $a);
            let b = $o.preview(&$u).cloned().unwrap_or_else(|| $b);
            optional_laws($o, &$s, a, b)?;
        )+
    };
}

fn cases(n: u32) -> ProptestConfig {
    ProptestConfig {
        cases: support::scaled(n),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

// ---------------------------------------------------------------------------
// Every derived lens

proptest! {
    #![proptest_config(cases(256))]

    #[test]
    fn issue_lenses(s in issue(), t in issue(), u in issue()) {
        lenses!(s, t, u;
            Issue::issue_id, Issue::title_text, Issue::detail, Issue::shape, Issue::event,
            Issue::labels, Issue::tags, Issue::counters, Issue::meta, Issue::cache,
            Issue::votes, Issue::span, Issue::r#type,
        );
    }

    #[test]
    fn meta_lenses(s in meta(), t in meta(), u in meta()) {
        lenses!(s, t, u; Meta::created_at, Meta::big_number, Meta::priority);
    }

    #[test]
    fn incident_lenses(s in incident(), t in incident(), u in incident()) {
        lenses!(s, t, u;
            Incident::severity, Incident::started_at, Incident::impact, Incident::resolved,
            Incident::note,
        );
    }

    #[test]
    fn impact_service_region_lenses(
        (s, t, u) in (impact(), impact(), impact()),
        (v, w, x) in (service(), service(), service()),
        (r1, r2, r3) in (region(), region(), region()),
    ) {
        lenses!(s, t, u; Impact::service, Impact::users, Impact::regions);
        lenses!(v, w, x; Service::name, Service::tier, Service::r#type, Service::owner_ids);
        lenses!(r1, r2, r3; Region::code, Region::weight, Region::score);
    }

    #[test]
    fn bug_frame_lenses(
        (s, t, u) in (bug(), bug(), bug()),
        (f1, f2, f3) in (frame(), frame(), frame()),
    ) {
        lenses!(s, t, u; Bug::module, Bug::line_no, Bug::frames, Bug::build);
        lenses!(f1, f2, f3; Frame::file_name, Frame::line, Frame::inlined);
    }

    #[test]
    fn newtype_and_generic_lenses(
        (m1, m2, m3) in (module(), module(), module()),
        (v1, v2, v3) in (votes(), votes(), votes()),
        (p1, p2, p3) in (span(), span(), span()),
        (w1, w2, w3) in (wrapper(any::<u32>()), wrapper(any::<u32>()), wrapper(any::<u32>())),
        (x1, x2, x3) in (wrapper(incident()), wrapper(incident()), wrapper(incident())),
    ) {
        lenses!(m1, m2, m3; Module::_0);
        lenses!(v1, v2, v3; Votes::count);
        lenses!(p1, p2, p3; Span::_0, Span::_1);
        lenses!(w1, w2, w3; Wrapper::value, Wrapper::note);
        lenses!(x1, x2, x3; Wrapper::value, Wrapper::note);
    }

    #[test]
    fn borrowed_lenses(
        names in prop::collection::vec(text(), 6),
        lines in prop::collection::vec(any::<u32>(), 6),
    ) {
        let frame = |i: usize| BorrowedFrame { file: &names[i], line: lines[i] };
        let borrowed = |i: usize| Borrowed {
            name: names[i].as_str().into(),
            module: &names[i + 1],
            frames: vec![frame(i); i],
            origin: if i.is_multiple_of(2) { Origin::Local } else { Origin::Remote(&names[i + 2]) },
        };
        let (s, t, u) = (borrowed(0), borrowed(1), borrowed(2));
        lenses!(s, t, u; Borrowed::name, Borrowed::module, Borrowed::frames, Borrowed::origin);
        let (f, g, h) = (frame(3), frame(4), frame(5));
        lenses!(f, g, h; BorrowedFrame::file, BorrowedFrame::line);
        prism_laws(Origin::local, &s.origin, (), ())?;
        prism_laws(Origin::local, &t.origin, (), ())?;
        prism_laws(Origin::remote, &s.origin, &names[3], &names[4])?;
        prism_laws(Origin::remote, &t.origin, &names[3], &names[4])?;
        getter_law(Origin::kind, &t.origin)?;
    }

    // -----------------------------------------------------------------------
    // Every derived prism, variant field and kind getter

    #[test]
    fn detail_prisms(
        s in detail(),
        (i1, i2) in (incident(), incident()),
        (b1, b2) in (bug(), bug()),
        (q1, q2) in (wrapper(text()), wrapper(text())),
    ) {
        prism_laws(Detail::incident, &s, i1.clone(), i2)?;
        prism_laws(Detail::bug, &s, b1.clone(), b2)?;
        prism_laws(Detail::question, &s, q1.clone(), q2)?;
        prism_laws(Detail::unknown, &s, (), ())?;
        getter_law(Detail::kind, &s)?;
        prop_assert_eq!(kind_of(Detail::kind, Detail::incident.review(i1)), DetailKind::Incident);
        prop_assert_eq!(kind_of(Detail::kind, Detail::bug.review(b1)), DetailKind::Bug);
        prop_assert_eq!(kind_of(Detail::kind, Detail::question.review(q1)), DetailKind::Question);
        prop_assert_eq!(kind_of(Detail::kind, Detail::unknown.review(())), DetailKind::Unknown);
    }

    #[test]
    fn shape_prisms_and_variant_fields(
        (s, t, u) in (shape(), shape(), shape()),
        (n1, n2) in (any::<u32>(), any::<u32>()),
        (o1, o2) in (prop::option::of(any::<u32>()), prop::option::of(any::<u32>())),
        (e1, e2) in (event(), event()),
        (l1, l2) in (any::<i32>(), any::<i32>()),
    ) {
        prism_laws(Shape::dot, &s, (), ())?;
        prism_laws(Shape::circle, &s, n1, n2)?;
        prism_laws(Shape::maybe, &s, o1, o2)?;
        prism_laws(Shape::nested, &s, e1, e2)?;
        optionals!(s, t, u;
            Shape::line_0 => l1, l2;
            Shape::line_1 => l2, l1;
            Shape::rect_width => n1, n2;
            Shape::rect_height => n2, n1;
        );
        getter_law(Shape::kind, &s)?;
        prop_assert_eq!(kind_of(Shape::kind, Shape::circle.review(n1)), ShapeKind::Circle);
        prop_assert_eq!(kind_of(Shape::kind, Shape::dot.review(())), ShapeKind::Dot);
        // A variant field reads its variant only.
        prop_assert_eq!(Shape::rect_width.preview(&s).is_some(), Shape::kind.get(&s) == &ShapeKind::Rect);
        prop_assert_eq!(Shape::line_1.preview(&s).is_some(), Shape::kind.get(&s) == &ShapeKind::Line);
    }

    #[test]
    fn event_prisms_and_variant_fields(
        (s, t, u) in (event(), event(), event()),
        (n1, n2) in (text(), text()),
        (p1, p2) in (any::<u32>(), any::<u32>()),
    ) {
        prism_laws(Event::ping, &s, (), ())?;
        prism_laws(Event::note, &s, n1, n2)?;
        optionals!(s, t, u;
            Event::moved_from_pos => p1, p2;
            Event::moved_to_pos => p2, p1;
        );
        getter_law(Event::kind, &s)?;
        prop_assert_eq!(kind_of(Event::kind, Event::ping.review(())), EventKind::Ping);
    }

    #[test]
    fn unit_enum_prisms(s in tier(), v in severity(), c in category()) {
        prism_laws(Tier::critical, &s, (), ())?;
        prism_laws(Tier::standard, &s, (), ())?;
        prism_laws(Tier::best_effort, &s, (), ())?;
        getter_law(Tier::kind, &s)?;
        prism_laws(Severity::low, &v, (), ())?;
        prism_laws(Severity::medium, &v, (), ())?;
        prism_laws(Severity::high, &v, (), ())?;
        prism_laws(Severity::very_high, &v, (), ())?;
        getter_law(Severity::kind, &v)?;
        prism_laws(Category::crash, &c, (), ())?;
        prism_laws(Category::slow_start, &c, (), ())?;
        prism_laws(Category::performance, &c, (), ())?;
        prism_laws(Category::other, &c, (), ())?;
        getter_law(Category::kind, &c)?;
        // Exactly one unit prism hits.
        let hits = [
            Severity::low.preview(&v).is_some(),
            Severity::medium.preview(&v).is_some(),
            Severity::high.preview(&v).is_some(),
            Severity::very_high.preview(&v).is_some(),
        ];
        prop_assert_eq!(hits.iter().filter(|hit| **hit).count(), 1);
    }

    // -----------------------------------------------------------------------
    // Compositions, at(i), key(k), some()

    #[test]
    fn lens_then_lens_is_a_lens(
        (s, t, u) in (issue(), issue(), issue()),
        (i, j, k) in (incident(), incident(), incident()),
    ) {
        lenses!(s, t, u;
            Issue::meta.then(Meta::created_at),
            Issue::meta.then(Meta::big_number),
            Issue::votes.then(Votes::count),
            Issue::span.then(Span::_1),
        );
        lenses!(i, j, k;
            Incident::impact.then(Impact::service),
            Incident::impact.then(Impact::service).then(Service::tier),
            Incident::impact.then(Impact::service).then(Service::name).then(Module::_0),
        );
    }

    #[test]
    fn prism_then_prism_is_a_prism(
        s in shape(),
        (n1, n2) in (text(), text()),
        (c1, c2) in (any::<u32>(), any::<u32>()),
    ) {
        prism_laws(Shape::nested.then(Event::note), &s, n1, n2)?;
        prism_laws(Shape::nested.then(Event::ping), &s, (), ())?;
        prism_laws(Shape::maybe.then(some()), &s, c1, c2)?;
    }

    #[test]
    fn compositions_with_a_prism_are_optionals(
        (s, t, u) in (issue(), issue(), issue()),
        (d, d2, d3) in (detail(), detail(), detail()),
        (n1, n2) in (any::<u32>(), any::<u32>()),
        (x1, x2) in (text(), text()),
    ) {
        optionals!(s, t, u;
            Issue::detail.then(Detail::incident) => incident_of(n1), incident_of(n2);
            Issue::detail.then(Detail::incident).then(Incident::impact).then(Impact::users) => n1, n2;
            Issue::detail.then(Detail::incident).then(Incident::note).then(some()) => x1.clone(), x2.clone();
            Issue::detail.then(Detail::bug).then(Bug::module).then(Module::_0) => x1.clone(), x2.clone();
            Issue::detail.then(Detail::question).then(Wrapper::value) => x1.clone(), x2.clone();
            Issue::shape.then(Shape::circle) => n1, n2;
            Issue::shape.then(Shape::rect_height) => n1, n2;
            Issue::shape.then(Shape::nested).then(Event::moved_to_pos) => n1, n2;
            Issue::event.then(Event::note) => x1.clone(), x2.clone();
            Issue::event.then(Event::moved_from_pos) => n1, n2;
        );
        optionals!(d, d2, d3;
            Detail::incident.then(Incident::severity) => Severity::Low, Severity::High;
            Detail::incident.then(Incident::impact).then(Impact::service).then(Service::tier)
                => Tier::Critical, Tier::Standard;
            Detail::bug.then(Bug::line_no) => Some(n1), None;
        );
    }

    #[test]
    fn at_is_an_optional(
        (s, t, u) in (issue(), issue(), issue()),
        v in prop::collection::vec(any::<u32>(), 0..4),
        (a, b) in (any::<u32>(), any::<u32>()),
        index in 0usize..5,
    ) {
        for i in [0, 1, index] {
            optional_laws(at(i), &v, a, b)?;
            prop_assert_eq!(at::<Vec<u32>>(i).preview(&v), v.get(i));
            optionals!(s, t, u;
                Issue::labels.then(at(i)) => "x".to_owned(), "y".to_owned();
                Issue::detail.then(Detail::bug).then(Bug::frames).then(at(i)).then(Frame::line)
                    => a, b;
                Issue::detail.then(Detail::incident).then(Incident::impact).then(Impact::regions)
                    .then(at(i)).then(Region::score) => 0.25, -1.5;
            );
        }
    }

    #[test]
    fn key_is_an_optional(
        (s, t, u) in (issue(), issue(), issue()),
        m in prop::collection::hash_map(map_key(), any::<u32>(), 0..4),
        b in prop::collection::btree_map(map_key(), any::<u32>(), 0..4),
        k in map_key(),
        (x, y) in (any::<u32>(), any::<u32>()),
    ) {
        // The first key of the whole, so that lookups hit too.
        let present: Option<String> = s.tags.keys().next().cloned();
        for k in [Some(k), present, m.keys().next().cloned()].into_iter().flatten() {
            optional_laws(key::<HashMap<String, u32>, str>(&k), &m, x, y)?;
            optional_laws(key::<BTreeMap<String, u32>, str>(&k), &b, x, y)?;
            prop_assert_eq!(key::<HashMap<String, u32>, str>(&k).preview(&m), m.get(&k));
            optionals!(s, t, u;
                Issue::tags.then(key(k.as_str())) => "x".to_owned(), "y".to_owned();
                Issue::counters.then(key(k.as_str())).then(Wrapper::value) => x, y;
            );
        }
    }

    #[test]
    fn some_is_a_prism(
        o in prop::option::of(any::<u32>()),
        (a, b) in (any::<u32>(), any::<u32>()),
        (i, j) in (incident(), incident()),
        (x1, x2) in (text(), text()),
    ) {
        prism_laws(some(), &o, a, b)?;
        prop_assert_eq!(some::<u32>().review(a), Some(a));
        optionals!(i, j, j;
            Incident::note.then(some()) => x1, x2;
        );
    }
}

/// What a getter finds in an owned whole.
fn kind_of<O>(o: O, s: O::Source) -> O::Focus
where
    O: Get,
    O::Source: Sized,
    O::Focus: Copy,
{
    *o.get(&s)
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
            regions: Vec::new(),
        },
        resolved: false,
        note: None,
    }
}
