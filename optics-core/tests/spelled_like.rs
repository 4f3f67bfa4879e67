//! Models whose names, keys and field types are spelled like something the
//! derive looks for: a struct named `Value` or `Map`, raw identifiers, keys
//! that JSON must escape, `Option` written in other ways, borrowed fields. The
//! byte reader must find what serde_json finds, and the derive must not take
//! one thing for another.

mod support;

use std::borrow::Cow;

use optics_core::prelude::*;
use serde::Deserialize;
use support::oracle::agree;

/// A model's own structs named like `serde_json`'s map types.
mod named_like_maps {
    use optics_core::Optics;
    use serde::{Deserialize, Serialize};

    #[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
    pub struct Value {
        pub amount: u64,
    }

    #[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
    pub struct Map {
        pub width: u32,
    }

    /// Flattens both: they are structs that derive Optics, not maps.
    #[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
    pub struct Priced {
        pub name: String,
        #[serde(flatten)]
        pub value: Value,
        #[serde(flatten)]
        pub map: Map,
    }
}

#[test]
fn a_flattened_struct_named_like_a_map_is_read_in_place() {
    use named_like_maps::{Map, Priced, Value};
    let doc = r#"{"width":4,"name":"x","amount":3}"#;
    assert_eq!(agree(doc, Priced::value.then(Value::amount)), Some(3));
    assert_eq!(agree(doc, Priced::map.then(Map::width)), Some(4));
    assert_eq!(agree(doc, Priced::name), Some("x".to_owned()));
    let priced = Priced {
        name: "y".to_owned(),
        value: Value { amount: 5 },
        map: Map { width: 6 },
    };
    let bytes = serde_json::to_vec(&priced).unwrap();
    let json = Json::<Priced>::new(&bytes);
    assert_eq!(json.read(Priced::value.then(Value::amount)), Some(5));
    let set = json.set(Priced::map.then(Map::width), &7).unwrap();
    let back: Priced = serde_json::from_slice(&set).unwrap();
    assert_eq!(back.map.width, 7);
}

/// The payload the derive's refusal of a borrowed `Cow` newtype variant
/// suggests: a newtype struct whose field borrows.
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Bytes<'a>(#[serde(borrow)] Cow<'a, [u8]>);

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
enum Blob<'a> {
    #[serde(borrow)]
    Raw(Bytes<'a>),
}

#[test]
fn a_borrowed_cow_payload_reads_as_serde_does_in_a_newtype_struct() {
    let raw = Blob::raw.then(Bytes::_0);
    for doc in [r#"{"Raw":"abc"}"#, r#"{"Raw":"a\nc"}"#] {
        let whole: Blob = serde_json::from_str(doc).unwrap();
        let Blob::Raw(payload) = &whole;
        let Bytes(expected) = payload;
        let read = Json::<Blob>::new(doc.as_bytes()).read(raw).unwrap();
        assert_eq!(read, *expected, "{doc}");
        assert_eq!(
            matches!(read, Cow::Borrowed(_)),
            matches!(expected, Cow::Borrowed(_)),
            "{doc}"
        );
        assert_eq!(
            Json::<Blob>::new(doc.as_bytes()).read(Blob::raw),
            Some(payload.clone())
        );
    }
    // serde reads a borrowed `Cow<[u8]>` from a string only.
    let doc = r#"{"Raw":[1,2]}"#;
    assert!(serde_json::from_str::<Blob>(doc).is_err());
    assert_eq!(Json::<Blob>::new(doc.as_bytes()).read(raw), None);
    assert_eq!(Json::<Blob>::new(doc.as_bytes()).read(Blob::raw), None);
}
