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
