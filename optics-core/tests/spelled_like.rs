//! Models whose names, keys and field types are spelled like something the
//! derive looks for: a struct named `Value` or `Map`, raw identifiers, keys
//! that JSON must escape, `Option` written in other ways, borrowed fields. The
//! byte reader must find what serde_json finds, and the derive must not take
//! one thing for another.

mod support;

use optics_core::prelude::*;
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
