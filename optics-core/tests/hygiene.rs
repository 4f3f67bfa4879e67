//! `#[derive(Optics)]` is hygienic: it works in a module where the prelude's
//! names (`Option`, `Some`, `None`, `Result`, `Ok`, `Err`, `Box`, `Default`,
//! `Clone`, `Copy`, `Debug`) are taken by local items, in a module where
//! constants are named like the locals the expansion declares (`found`,
//! `payload`, ...), on generic types with lifetimes and where-clauses, and on
//! every shape of enum variant, with serde's attributes beside it. Generated
//! code that wrote `Option` or `Default::default()` instead of a full path, or
//! bound a local that a constant in scope could match instead, would not
//! compile here; every test then checks that the optics read and write what
//! they should, on values and on JSON bytes.
//!
//! The models' modules import only the derive: the expansion must need
//! nothing else in scope.

use optics_core::prelude::*;

/// Models declared where the prelude is shadowed.
mod shadowed {
    // The local items below are named like the prelude's on purpose.
    #![allow(dead_code, non_snake_case)]

    use optics_core::Optics;
    use serde::{Deserialize, Serialize};

    pub struct Option;
    pub struct Result;
    pub struct Box;
    pub struct Copy;
    pub struct Debug;
    pub fn Some() {}
    pub fn None() {}
    pub fn Ok() {}
    pub fn Err() {}

    /// Not std's `Clone`: `Window`'s bounds name this one.
    pub trait Clone {
        fn duplicate(&self) -> Self;
    }

    /// Not std's `Default`: `Window`'s where-clause names this one.
    pub trait Default {
        fn blank() -> Self;
    }

    impl Clone for u32 {
        fn duplicate(&self) -> Self {
            *self
        }
    }

    impl Default for u32 {
        fn blank() -> Self {
            0
        }
    }

    /// A plain struct, with serde's renames, an alias, a default, a skipped
    /// field and an optional one.
    #[derive(Optics, Serialize, Deserialize, Debug, PartialEq)]
    #[serde(rename_all = "camelCase")]
    pub struct Incident {
        pub service_name: String,
        #[serde(default)]
        pub severity: u8,
        #[serde(alias = "started")]
        pub started_at: u64,
        pub owner: ::core::option::Option<String>,
        #[serde(skip)]
        pub cached: u32,
    }

    /// Every variant shape, adjacently tagged (the one encoding serde allows
    /// for all four).
    #[derive(Optics, Serialize, Deserialize, Debug, PartialEq)]
    #[serde(tag = "type", content = "data", rename_all = "snake_case")]
    pub enum Event {
        Opened,
        Paged(Incident),
        Moved(u32, String),
        #[serde(rename = "closed_by_owner")]
        Closed {
            by: String,
            #[serde(default)]
            reason: ::core::option::Option<String>,
        },
    }

    /// Generic, with a lifetime, a bound and a where-clause, both naming the
    /// local traits above.
    #[derive(Optics, Serialize, Deserialize, Debug, PartialEq)]
    pub struct Window<'a, T: Clone>
    where
        T: Default,
    {
        pub rows: Vec<T>,
        pub label: &'a str,
    }
}

/// Generic models with std's bounds.
mod generic {
    use optics_core::Optics;
    use serde::{Deserialize, Serialize};

    #[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
    pub struct Page<'a, T: Clone>
    where
        T: Default,
    {
        pub items: Vec<T>,
        pub title: &'a str,
    }

    #[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(rename_all = "lowercase")]
    pub enum Reply<T, E>
    where
        E: Clone,
    {
        Pending,
        Done(T),
        Partial(T, u32),
        Failed { error: E, retries: u32 },
    }
}

/// Models declared where constants take the names of the locals the
/// expansion declares (without its `__` prefix): a pattern that bound one of
/// them would match the constant instead, and fail to compile.
mod locals_taken {
    #![allow(dead_code, non_upper_case_globals)]

    use optics_core::Optics;
    use serde::{Deserialize, Deserializer, Serialize};

    pub const found: u8 = 0;
    pub const bytes: u8 = 0;
    pub const de: u8 = 0;
    pub const whole: u8 = 0;
    pub const payload: u8 = 0;
    pub const k: u8 = 0;
    pub const field: u8 = 0;
    pub const f: u8 = 0;

    /// A struct whose default fills a missing field (`whole`), with a field
    /// read by a function (`de`).
    #[derive(Optics, Serialize, Deserialize, PartialEq)]
    #[serde(default)]
    pub struct Settings {
        pub retries: u8,
        #[serde(deserialize_with = "doubled")]
        pub limit: u32,
    }

    impl Default for Settings {
        fn default() -> Self {
            Settings {
                retries: 3,
                limit: 10,
            }
        }
    }

    fn doubled<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
        u32::deserialize(deserializer).map(|limit| limit * 2)
    }

    /// Every variant shape (`payload`, `k`, `field`), and a kind (`f`).
    #[derive(Optics, Serialize, Deserialize, PartialEq)]
    #[serde(tag = "type")]
    pub enum Step {
        Start,
        Retry(Settings),
        Stop { code: u8, reason: String },
    }
}

use generic::{Page, Reply, ReplyKind};
use locals_taken::{Settings, Step, StepKind};
use shadowed::{Event, EventKind, Incident, Window};

fn incident() -> Incident {
    Incident {
        service_name: "checkout".to_owned(),
        severity: 2,
        started_at: 1700,
        owner: Some("ana".to_owned()),
        cached: 9,
    }
}

#[test]
fn struct_lenses_read_and_write_values() {
    let mut value = incident();
    assert_eq!(Incident::service_name.get(&value), "checkout");
    assert_eq!(
        Incident::owner.then(some()).preview(&value),
        Some(&"ana".to_owned())
    );
    *Incident::severity.get_mut(&mut value) = 4;
    Incident::started_at.set(&mut value, 1800);
    Incident::owner
        .then(some())
        .set(&mut value, "bo".to_owned());
    assert_eq!(value.severity, 4);
    assert_eq!(value.started_at, 1800);
    assert_eq!(value.owner.as_deref(), Some("bo"));
}

#[test]
fn struct_lenses_read_bytes_as_serde_does() {
    let bytes = serde_json::to_vec(&incident()).unwrap();
    let json = Json::<Incident>::new(&bytes);
    assert_eq!(
        json.read(Incident::service_name).as_deref(),
        Some("checkout")
    );
    assert_eq!(json.read(Incident::started_at), Some(1700));
    assert_eq!(
        json.read(Incident::owner.then(some())).as_deref(),
        Some("ana")
    );
    // Skipped: never in the JSON, so always its default.
    assert_eq!(json.read(Incident::cached), Some(0));

    // An alias, a defaulted field and an `Option` that are missing.
    let sparse = br#"{"serviceName": "db", "started": 5}"#;
    let json = Json::<Incident>::new(sparse);
    assert_eq!(json.read(Incident::started_at), Some(5));
    assert_eq!(json.read(Incident::severity), Some(0));
    assert_eq!(json.read(Incident::owner), Some(None));
    assert_eq!(json.read(Incident::owner.then(some())), None);
    let decoded: Incident = serde_json::from_slice(sparse).unwrap();
    assert_eq!(
        (decoded.started_at, decoded.severity, decoded.owner),
        (5, 0, None)
    );
}

#[test]
fn unit_variant_prism() {
    let mut event = Event::Opened;
    assert_eq!(Event::opened.preview(&event), Some(&()));
    assert_eq!(Event::paged.preview(&event), None);
    assert_eq!(Event::opened.review(()), Event::Opened);
    assert_eq!(Event::kind.get(&event), &EventKind::Opened);
    assert!(Event::opened.modify(&mut event, |()| {}));

    let bytes = serde_json::to_vec(&event).unwrap();
    assert_eq!(bytes, br#"{"type":"opened"}"#);
    let json = Json::<Event>::new(&bytes);
    assert_eq!(json.read(Event::opened), Some(()));
    assert_eq!(json.read(Event::paged), None);
    assert_eq!(json.read(Event::kind), Some(EventKind::Opened));
}

#[test]
fn newtype_variant_prism() {
    let mut event = Event::paged.review(incident());
    assert_eq!(event, Event::Paged(incident()));
    let severity = Event::paged.then(Incident::severity);
    assert_eq!(severity.preview(&event), Some(&2));
    severity.set(&mut event, 3);
    assert_eq!(severity.preview(&event), Some(&3));
    assert_eq!(severity.preview(&Event::Opened), None);

    let bytes = serde_json::to_vec(&event).unwrap();
    let json = Json::<Event>::new(&bytes);
    assert_eq!(json.read(severity), Some(3));
    assert_eq!(
        json.read(Event::paged.then(Incident::service_name))
            .as_deref(),
        Some("checkout")
    );
    assert_eq!(json.read(Event::kind), Some(EventKind::Paged));
    assert_eq!(json.read(Event::moved_0), None);
}

#[test]
fn tuple_variant_optionals() {
    let mut event = Event::Moved(7, "payments".to_owned());
    assert_eq!(Event::moved_0.preview(&event), Some(&7));
    assert_eq!(
        Event::moved_1.preview(&event).map(String::as_str),
        Some("payments")
    );
    Event::moved_0.set(&mut event, 8);
    assert_eq!(event, Event::Moved(8, "payments".to_owned()));
    assert_eq!(Event::moved_0.preview(&Event::Opened), None);

    let bytes = serde_json::to_vec(&event).unwrap();
    assert_eq!(bytes, br#"{"type":"moved","data":[8,"payments"]}"#);
    let json = Json::<Event>::new(&bytes);
    assert_eq!(json.read(Event::moved_0), Some(8));
    assert_eq!(json.read(Event::moved_1).as_deref(), Some("payments"));
    assert_eq!(json.read(Event::kind), Some(EventKind::Moved));
}

#[test]
fn struct_variant_optionals() {
    let mut event = Event::Closed {
        by: "ana".to_owned(),
        reason: None,
    };
    assert_eq!(
        Event::closed_by.preview(&event).map(String::as_str),
        Some("ana")
    );
    assert_eq!(Event::closed_reason.preview(&event), Some(&None));
    Event::closed_reason.set(&mut event, Some("fixed".to_owned()));
    assert_eq!(
        Event::closed_reason
            .then(some())
            .preview(&event)
            .map(String::as_str),
        Some("fixed")
    );

    let bytes = serde_json::to_vec(&event).unwrap();
    let json = Json::<Event>::new(&bytes);
    assert_eq!(json.read(Event::kind), Some(EventKind::Closed));
    assert_eq!(EventKind::Closed.tag(), "closed_by_owner");
    assert_eq!(json.read(Event::closed_by).as_deref(), Some("ana"));
    assert_eq!(
        json.read(Event::closed_reason.then(some())).as_deref(),
        Some("fixed")
    );

    // The defaulted field missing from the bytes.
    let sparse = br#"{"type":"closed_by_owner","data":{"by":"bo"}}"#;
    let json = Json::<Event>::new(sparse);
    assert_eq!(json.read(Event::closed_reason), Some(None));
    assert_eq!(json.read(Event::closed_by).as_deref(), Some("bo"));
    assert_eq!(json.read(Event::moved_1), None);
}

#[test]
fn generic_struct_under_local_traits() {
    let mut window = Window {
        rows: vec![1_u32, 2, 3],
        label: "recent",
    };
    let second = Window::rows.then(at(1));
    assert_eq!(second.preview(&window), Some(&2));
    second.set(&mut window, 20);
    assert_eq!(window.rows, [1, 20, 3]);
    assert_eq!(*Window::label.get(&window), "recent");

    let bytes = serde_json::to_vec(&window).unwrap();
    let json = Json::<Window<'_, u32>>::new(&bytes);
    assert_eq!(json.read(second), Some(20));
    assert_eq!(json.read(Window::rows.then(at(3))), None);
    // A borrowed leaf points into the bytes.
    let label: Option<&str> = json.read(Window::label);
    assert_eq!(label, Some("recent"));
}

#[test]
fn generic_struct_with_lifetime_and_where_clause() {
    let title = String::from("front");
    let mut page = Page {
        items: vec!['a', 'b'],
        title: &title,
    };
    assert_eq!(Page::items.then(at(0)).preview(&page), Some(&'a'));
    Page::items.then(at(1)).set(&mut page, 'c');
    assert_eq!(page.items, ['a', 'c']);
    Page::title.set(&mut page, "back");
    assert_eq!(page.title, "back");

    let bytes = serde_json::to_vec(&page).unwrap();
    let json = Json::<Page<'_, char>>::new(&bytes);
    assert_eq!(json.read(Page::title), Some("back"));
    assert_eq!(json.read(Page::items.then(at(1))), Some('c'));
    assert_eq!(
        json.view(Page::items).map(|items| items.bytes()),
        Some(&br#"["a","c"]"#[..])
    );
}

#[test]
fn generic_enum() {
    type R = Reply<u64, String>;
    let done: R = Reply::done.review(42);
    assert_eq!(done, Reply::Done(42));
    assert_eq!(Reply::done.preview(&done), Some(&42));
    assert_eq!(Reply::pending.preview(&done), None);
    assert_eq!(Reply::kind.get(&done), &ReplyKind::Done);

    let mut failed: R = Reply::Failed {
        error: "timeout".to_owned(),
        retries: 1,
    };
    Reply::failed_retries.set(&mut failed, 2);
    assert_eq!(Reply::failed_retries.preview(&failed), Some(&2));
    assert_eq!(Reply::partial_0.preview(&failed), None);

    let bytes = serde_json::to_vec(&failed).unwrap();
    assert_eq!(bytes, br#"{"failed":{"error":"timeout","retries":2}}"#);
    let json = Json::<R>::new(&bytes);
    assert_eq!(json.read(Reply::failed_error).as_deref(), Some("timeout"));
    assert_eq!(json.read(Reply::failed_retries), Some(2));
    assert_eq!(json.read(Reply::kind), Some(ReplyKind::Failed));
    assert_eq!(json.read(Reply::done), None);

    let partial = Json::<R>::new(br#"{"partial":[7,3]}"#);
    assert_eq!(partial.read(Reply::partial_0), Some(7));
    assert_eq!(partial.read(Reply::partial_1), Some(3));
    assert_eq!(
        Json::<R>::new(br#""pending""#).read(Reply::pending),
        Some(())
    );
    assert_eq!(Json::<R>::new(br#"{"done":9}"#).read(Reply::done), Some(9));
}

#[test]
fn constants_named_like_the_expansions_locals_do_not_capture_them() {
    let settings = Settings {
        retries: 1,
        limit: 4,
    };
    assert_eq!(Settings::retries.get(&settings), &1);
    let json = Json::<Settings>::new(br#"{"limit":5}"#);
    assert_eq!(json.read(Settings::limit), Some(10));
    assert_eq!(json.read(Settings::retries), Some(3));

    let mut step = Step::retry.review(settings);
    assert!(Step::retry.then(Settings::limit).preview(&step) == Some(&4));
    Step::retry.then(Settings::limit).set(&mut step, 6);
    assert!(Step::retry.then(Settings::limit).preview(&step) == Some(&6));
    assert!(Step::start.preview(&step).is_none());
    assert_eq!(Step::kind.get(&step), &StepKind::Retry);
    assert_eq!(StepKind::Retry.to_string(), "Retry");

    let stop = Step::Stop {
        code: 2,
        reason: "done".to_owned(),
    };
    assert_eq!(Step::stop_code.preview(&stop), Some(&2));
    let bytes = serde_json::to_vec(&stop).unwrap();
    let json = Json::<Step>::new(&bytes);
    assert_eq!(json.read(Step::stop_reason).as_deref(), Some("done"));
    assert_eq!(json.read(Step::kind), Some(StepKind::Stop));
    assert_eq!(
        Json::<Step>::new(br#"{"type":"Retry","limit":1}"#).read(Step::retry.then(Settings::limit)),
        Some(2)
    );
}

/// `optics_core` reached through another crate's re-export, as a facade
/// crate would give it: `#[optics(crate = "...")]` names the path the
/// expansion uses. (That no path is left out is checked on the expansion in
/// `optics-derive`; this checks the optics work through it.)
mod facade {
    pub use optics_core as optics;
}

mod through_facade {
    use optics_core::Optics;
    use serde::{Deserialize, Serialize};

    #[derive(Optics, Serialize, Deserialize, Debug, PartialEq)]
    #[optics(crate = "crate::facade::optics")]
    pub struct Ticket {
        pub id: u64,
        #[serde(flatten)]
        pub meta: Meta,
        pub state: State,
    }

    #[derive(Optics, Serialize, Deserialize, Debug, PartialEq)]
    #[optics(crate = "crate::facade::optics")]
    pub struct Meta {
        pub owner: String,
    }

    #[derive(Optics, Serialize, Deserialize, Debug, PartialEq)]
    #[optics(crate = "crate::facade::optics")]
    #[serde(tag = "t")]
    pub enum State {
        Open,
        Closed { reason: String },
    }

    /// Generic, with a flattened struct (checked where it is read), a
    /// catch-all map, a borrowed `Cow`, a field read `with` a module and a
    /// default whose type is checked to be `Vec`.
    #[derive(Optics, Serialize, Deserialize, Debug, PartialEq)]
    #[optics(crate = "crate::facade::optics")]
    pub struct Page<'a, T> {
        pub id: T,
        #[serde(default)]
        pub tags: Vec<T>,
        #[serde(borrow)]
        pub title: std::borrow::Cow<'a, str>,
        #[serde(flatten)]
        pub meta: Meta,
        #[serde(flatten)]
        #[optics(skip)]
        pub rest: std::collections::BTreeMap<String, u8>,
        #[serde(with = "as_text")]
        pub count: u32,
    }

    /// An enum of each representation, generic, through the facade.
    #[derive(Optics, Serialize, Deserialize, Debug, PartialEq)]
    #[optics(crate = "crate::facade::optics")]
    #[serde(tag = "t", content = "c")]
    pub enum Adjacent<T> {
        One(T),
        Two { x: T },
    }

    #[derive(Optics, Serialize, Deserialize, Debug, PartialEq)]
    #[optics(crate = "crate::facade::optics")]
    pub enum External<T> {
        One(Box<T>),
        Pair(T, T),
    }

    pub mod as_text {
        use serde::{Deserialize, Deserializer, Serializer};

        pub fn serialize<S: Serializer>(n: &u32, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_str(&n.to_string())
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
            let text = <&str>::deserialize(d)?;
            text.parse().map_err(serde::de::Error::custom)
        }
    }
}

#[test]
fn generic_models_of_every_branch_read_through_a_facade() {
    use through_facade::{Adjacent, External, Page};
    let doc = br#"{"x":1,"id":5,"title":"t","owner":"ann","count":"12","y":2}"#;
    let json = Json::<Page<u64>>::new(doc);
    assert_eq!(json.read(Page::<u64>::id), Some(5));
    assert_eq!(json.read(Page::<u64>::title).as_deref(), Some("t"));
    assert_eq!(json.read(Page::<u64>::count), Some(12));
    let tags = Page::<u64>::tags.then(each());
    assert_eq!(json.fold(tags, 0, |n, _| n + 1), Some(0));
    let owner = Page::<u64>::meta.then(through_facade::Meta::owner);
    assert_eq!(json.read(owner).as_deref(), Some("ann"));
    let doc = br#"{"t":"Two","c":{"x":3}}"#;
    assert_eq!(
        Json::<Adjacent<u8>>::new(doc).read(Adjacent::<u8>::two_x),
        Some(3)
    );
    let doc = br#"{"Pair":[1,2]}"#;
    assert_eq!(
        Json::<External<u8>>::new(doc).read(External::<u8>::pair_1),
        Some(2)
    );
    let doc = br#"{"One":4}"#;
    let one = External::<u8>::one;
    assert_eq!(
        Json::<External<u8>>::new(doc).read(one).as_deref(),
        Some(&4)
    );
}

#[test]
fn a_model_whose_core_crate_is_reached_through_a_facade() {
    use through_facade::{Meta, State, StateKind, Ticket};
    let ticket = Ticket {
        id: 7,
        meta: Meta {
            owner: "ann".to_owned(),
        },
        state: State::Closed {
            reason: "fixed".to_owned(),
        },
    };
    assert_eq!(Ticket::id.get(&ticket), &7);
    let reason = Ticket::state.then(State::closed_reason);
    assert_eq!(reason.preview(&ticket).map(String::as_str), Some("fixed"));

    let bytes = serde_json::to_vec(&ticket).unwrap();
    let json = Json::<Ticket>::new(&bytes);
    assert_eq!(json.read(Ticket::id), Some(7));
    assert_eq!(
        json.read(Ticket::meta.then(Meta::owner)).as_deref(),
        Some("ann")
    );
    assert_eq!(json.read(reason).as_deref(), Some("fixed"));
    assert_eq!(
        json.read(Ticket::state.then(State::kind)),
        Some(StateKind::Closed)
    );

    let written = json.set(Ticket::id, &8).expect("id is written in place");
    let mut expected = ticket;
    expected.id = 8;
    assert_eq!(
        serde_json::from_slice::<Ticket>(&written).unwrap(),
        expected
    );
}
