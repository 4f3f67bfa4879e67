//! A strict traversal over maps keeps the members serde keeps, with one
//! table of kept members for each map it walks: maps nested in a map, maps
//! in a list, a map that is an internally tagged variant's payload (read
//! from serde's buffer, the tag's member passed over). Keys read alike by
//! the key type (`"0"` and `"-0"` for `i128`, a key and its escaped
//! spelling for strings and `char`) keep the last member. The oracle is
//! serde_json: the whole model decoded, the same traversal run on the value.

use std::collections::{BTreeMap, HashMap};

use optics_core::json::{Duplicates, Strict};
use optics_core::prelude::*;
use serde::Deserialize;

#[derive(Optics, Deserialize, Debug)]
struct Maps {
    #[serde(default)]
    nested: BTreeMap<String, BTreeMap<i128, u32>>,
    #[serde(default)]
    list: Vec<HashMap<i128, u32>>,
    #[serde(default)]
    chars: BTreeMap<char, u32>,
    #[serde(default)]
    big: BTreeMap<u128, u32>,
    #[serde(default)]
    boxed: HashMap<Box<str>, u32>,
    #[serde(default)]
    payload: Option<Payload>,
}

#[derive(Optics, Deserialize, Debug)]
#[serde(tag = "type")]
enum Payload {
    Labels(HashMap<String, u32>),
}

/// The values a strict `read_each` of `$optic` gives on `$text`, sorted,
/// against those of the value serde_json decodes; no duplicate met.
macro_rules! agree {
    ($text:expr, $optic:expr) => {{
        let text: &str = $text;
        let value: Maps = serde_json::from_str(text).expect("serde_json reads it");
        let mut expected: Vec<u32> = $optic.iter(&value).copied().collect();
        expected.sort_unstable();
        let duplicates = Duplicates::new();
        let strict = Strict::<Maps>::validated(text.as_bytes(), &duplicates).expect("valid");
        let mut read: Vec<u32> = strict.read_each($optic).map(Option::unwrap).collect();
        read.sort_unstable();
        assert_eq!(read, expected, "{text}");
        assert!(!duplicates.met(), "{text}");
    }};
}

#[test]
fn each_map_a_traversal_walks_keeps_its_own_members() {
    let nested =
        r#"{"nested":{"x":{"0":1,"-0":2},"y":{"-0":3,"0":4,"5":5},"x":{"0":6,"-0":7,"1":8}}}"#;
    agree!(nested, Maps::nested.then(each()).then(each()));
    agree!(nested, Maps::nested.then(key("x")).then(each()));
    // Each inner map viewed on its own keeps the same members.
    let duplicates = Duplicates::new();
    let strict = Strict::<Maps>::validated(nested.as_bytes(), &duplicates).expect("valid");
    let inner: Vec<Vec<Option<u32>>> = strict
        .iter(Maps::nested.then(each()))
        .map(|map| map.read_each(each::<BTreeMap<i128, u32>>()).collect())
        .collect();
    assert_eq!(inner, [vec![Some(4), Some(5)], vec![Some(7), Some(8)]]);
    assert!(!duplicates.met());
    agree!(
        r#"{"list":[{"0":1,"-0":2},{"-0":3,"0":4,"5":5},{},{"7":6}]}"#,
        Maps::list.then(each()).then(each())
    );
    agree!(
        r#"{"chars":{"a":1,"\u0061":2,"b":3}}"#,
        Maps::chars.then(each())
    );
    agree!(r#"{"big":{"0":1,"1":2,"0":3}}"#, Maps::big.then(each()));
    agree!(
        r#"{"boxed":{"a":1,"\u0061":2,"b":3}}"#,
        Maps::boxed.then(each())
    );
    agree!(
        r#"{"payload":{"type":"Labels","a":1,"\u0061":2,"b":3,"a":4}}"#,
        Maps::payload
            .then(some())
            .then(Payload::labels)
            .then(each())
    );
}
