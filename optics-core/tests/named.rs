//! `optic!` names a path without changing what it does: every operation of a
//! named optic gives what the path itself gives, on values and on bytes.

use optics_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "type")]
pub enum Detail {
    Incident(Incident),
    Note(Note),
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Incident {
    pub severity: u8,
    pub service: Service,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Service {
    pub name: String,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Note {
    pub text: String,
}

optic! {
    /// A lens two levels deep.
    pub lens SERVICE_NAME: Incident => String = Incident::service.then(Service::name);
}
optic! {
    /// A prism.
    pub prism INCIDENT: Detail => Incident = Detail::incident;
}
optic! {
    /// An optional: a prism then a lens.
    pub optional SEVERITY: Detail => u8 = Detail::incident.then(Incident::severity);
}
optic! {
    /// The kind.
    pub getter KIND: Detail => DetailKind = Detail::kind;
}

fn incident() -> Incident {
    Incident {
        severity: 2,
        service: Service { name: "db".into() },
    }
}

#[test]
fn a_named_lens_is_its_path() {
    let mut value = incident();
    assert_eq!(SERVICE_NAME.get(&value), "db");
    SERVICE_NAME.get_mut(&mut value).push('2');
    assert_eq!(value.service.name, "db2");
    SERVICE_NAME.set(&mut value, "cache".into());
    assert_eq!(
        SERVICE_NAME.preview(&value),
        Incident::service.then(Service::name).preview(&value)
    );
    let bytes = serde_json::to_vec(&value).unwrap();
    assert_eq!(
        Json::<Incident>::new(&bytes).read(SERVICE_NAME),
        Some("cache".to_owned())
    );
}

#[test]
fn a_named_prism_optional_and_getter_are_their_paths() {
    let detail = INCIDENT.review(incident());
    assert_eq!(detail, Detail::Incident(incident()));
    let note = Detail::Note(Note { text: "x".into() });
    for value in [&detail, &note] {
        let bytes = serde_json::to_vec(value).unwrap();
        let json = Json::<Detail>::new(&bytes);
        assert_eq!(
            SEVERITY.preview(value),
            Detail::incident.then(Incident::severity).preview(value)
        );
        assert_eq!(json.read(SEVERITY), SEVERITY.preview(value).copied());
        assert_eq!(json.read(INCIDENT), INCIDENT.preview(value).cloned());
        assert_eq!(json.read(KIND), Some(*KIND.get(value)));
    }
    assert_eq!(KIND.get(&note), &DetailKind::Note);
    // Named optics compose like any other.
    let name = INCIDENT.then(SERVICE_NAME);
    assert_eq!(name.preview(&detail).map(String::as_str), Some("db"));
    assert_eq!(name.preview(&note), None);
}

optic! {
    /// A lens one level deep, to go on past.
    pub lens SERVICE: Incident => Service = Incident::service;
}

/// A named optic goes on in the bytes as its path does: entered, its end not
/// looked for, so that a read past it in bytes cut short anywhere reads what
/// the path reads (a leaf standing whole before the cut), and `Json::enter`
/// enters it alike.
#[test]
fn a_named_optic_is_entered_as_its_path_is() {
    let whole = br#"{"type":"Incident","severity":2,"service":{"name":"db","zone":"eu"}}"#;
    let mut read_before_the_end = 0;
    for end in 0..=whole.len() {
        let detail = Json::<Detail>::new(&whole[..end]);
        let text = String::from_utf8_lossy(&whole[..end]);
        assert_eq!(
            detail.read(INCIDENT.then(Incident::severity)),
            detail.read(Detail::incident.then(Incident::severity)),
            "{text}"
        );
        let path = detail.read(Detail::incident.then(Incident::service).then(Service::name));
        assert_eq!(
            detail.read(INCIDENT.then(SERVICE).then(Service::name)),
            path,
            "{text}"
        );
        assert_eq!(
            detail.read(Detail::incident.then(SERVICE).then(Service::name)),
            path,
            "{text}"
        );
        let named = detail
            .enter(INCIDENT)
            .map(|incident| incident.read(SERVICE.then(Service::name)));
        let entered = detail
            .enter(Detail::incident)
            .map(|incident| incident.read(Incident::service.then(Service::name)));
        assert_eq!(named, entered, "{text}");
        read_before_the_end += usize::from(end < whole.len() && path.is_some());
    }
    // The name stands whole before the cut in some of them: the case above
    // that tells an entered step from one walked to its end.
    assert!(read_before_the_end > 0);
}

optic! {
    /// The lens on a field of the root, under a name.
    pub lens SEVERITY_OF: Incident => u8 = Incident::severity;
}

/// A strict view through a named field finds it in the validating pass as
/// through the field itself (the names it reads are the field's), and meets
/// the same duplicates.
#[test]
fn a_named_field_is_viewed_strictly_as_the_field_is() {
    use optics_core::json::{Duplicates, JsonOptic, Strict};

    assert_eq!(
        JsonOptic::member_names(&SEVERITY_OF),
        JsonOptic::member_names(&Incident::severity)
    );
    assert!(JsonOptic::member_names(&SEVERITY_OF).is_some());
    let documents: [&[u8]; 4] = [
        br#"{"severity":2,"service":{"name":"db"}}"#,
        br#"{"service":{"name":"db"},"severity":3}"#,
        br#"{"severity":2,"severity":3,"service":{"name":"db"}}"#,
        br#"{"service":{"name":"db"}}"#,
    ];
    for bytes in documents {
        let (named, path) = (Duplicates::new(), Duplicates::new());
        let by_name = Strict::<Incident>::validated_view(bytes, &named, SEVERITY_OF)
            .map(|view| view.map(|view| view.bytes()));
        let by_path = Strict::<Incident>::validated_view(bytes, &path, Incident::severity)
            .map(|view| view.map(|view| view.bytes()));
        assert_eq!(by_name, by_path, "{}", String::from_utf8_lossy(bytes));
        assert_eq!(
            named.met(),
            path.met(),
            "{}",
            String::from_utf8_lossy(bytes)
        );
    }
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
pub struct Outer {
    #[serde(deserialize_with = "plus_one")]
    pub w: Counter,
    #[serde(deserialize_with = "with_default_k")]
    pub inner: Inner,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
pub struct Counter(pub u32);

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
pub struct Inner {
    pub a: u32,
    #[serde(skip_deserializing)]
    pub k: u32,
}

fn plus_one<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Counter, D::Error> {
    Ok(Counter(u32::deserialize(d)? + 1))
}

fn with_default_k<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Inner, D::Error> {
    #[derive(Deserialize)]
    struct Raw {
        a: u32,
    }
    Raw::deserialize(d).map(|raw| Inner { a: raw.a, k: 42 })
}

optic! {
    /// A field read `with` a function, under a name a path may go on past.
    pub lens COUNTER: Outer => Counter = Outer::w;
}
optic! {
    /// The same, for a struct whose other field serde skips.
    pub lens INNER: Outer => Inner = Outer::inner;
}

/// Past a field read `with` a function, the bytes need not hold serde's
/// value, so every step in them misses: a newtype's field (which reads its
/// struct's own bytes) and a skipped field (which reads no bytes) too, where
/// they read the raw `7` and the default `0` before.
#[test]
fn steps_past_a_named_field_read_with_a_function_miss() {
    let bytes = br#"{"w":7,"inner":{"a":1}}"#;
    let value: Outer = serde_json::from_slice(bytes).unwrap();
    assert_eq!(COUNTER.then(Counter::_0).preview(&value), Some(&8));
    assert_eq!(INNER.then(Inner::k).preview(&value), Some(&42));
    let json = Json::<Outer>::new(bytes);
    assert_eq!(json.read(COUNTER.then(Counter::_0)), None);
    assert_eq!(json.read(INNER.then(Inner::k)), None);
    assert_eq!(json.read(INNER.then(Inner::a)), None);
    // The field itself reads through its function.
    assert_eq!(json.read(COUNTER), Some(Counter(8)));
    assert_eq!(json.read(Outer::inner), Some(value.inner.clone()));
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Ticket {
    pub id: u32,
    pub case: Case,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Case {
    pub desk: Desk,
    pub severity: u8,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Desk {
    pub name: String,
    pub tags: Vec<String>,
}

optic! {
    /// Two steps, for traversals and writes to go on past.
    pub lens DESK: Ticket => Desk = Ticket::case.then(Case::desk);
}

/// Traversals and writes take a path's steps as its reads do: a step that a
/// path goes on past is entered, its end not looked for. So at every cut of
/// a message a traversal finds the focus where a view finds it, and a name
/// traverses and writes as its path does (a traversal through the path
/// walked its first step to its end, and found nothing where the name and
/// the view found the desk).
#[test]
fn traversals_and_writes_go_on_as_reads_do() {
    let whole = br#"{"id":1,"case":{"desk":{"name":"db","tags":["a","b"]},"severity":2}}"#;
    let path = Ticket::case.then(Case::desk);
    let texts = |views: Vec<Json<'_, _>>| -> Vec<String> {
        views
            .into_iter()
            .map(|view: Json<'_, String>| String::from_utf8_lossy(view.bytes()).into_owned())
            .collect()
    };
    let mut found_before_the_end = 0;
    for end in 0..=whole.len() {
        let json = Json::<Ticket>::new(&whole[..end]);
        let text = String::from_utf8_lossy(&whole[..end]);
        let viewed = json.view(path).map(|view| view.bytes());
        let iterated: Vec<&[u8]> = json.iter(path).map(|view| view.bytes()).collect();
        assert_eq!(iterated, viewed.into_iter().collect::<Vec<_>>(), "{text}");
        let named: Vec<&[u8]> = json.iter(DESK).map(|view| view.bytes()).collect();
        assert_eq!(named, iterated, "{text}");
        assert_eq!(
            json.read_each(DESK.then(Desk::name)).collect::<Vec<_>>(),
            json.read_each(path.then(Desk::name)).collect::<Vec<_>>(),
            "{text}"
        );
        assert_eq!(
            texts(json.iter(DESK.then(Desk::tags).then(each())).collect()),
            texts(json.iter(path.then(Desk::tags).then(each())).collect()),
            "{text}"
        );
        let name = "x".to_string();
        assert_eq!(
            json.set(DESK.then(Desk::name), &name),
            json.set(path.then(Desk::name), &name),
            "{text}"
        );
        found_before_the_end += usize::from(end < whole.len() && viewed.is_some());
    }
    assert!(found_before_the_end > 0);
    // On the whole message, a write through the path is the value's.
    let mut value: Ticket = serde_json::from_slice(whole).unwrap();
    let written = Json::<Ticket>::new(whole)
        .set(
            Ticket::case.then(Case::desk).then(Desk::name),
            &"x".to_string(),
        )
        .unwrap();
    value.case.desk.name = "x".into();
    assert_eq!(serde_json::from_slice::<Ticket>(&written).unwrap(), value);
}
