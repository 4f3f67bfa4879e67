//! serde_json's `Map` (a `Value` object) as a field: `key(k)` and `each()`
//! step into it as into a `BTreeMap<String, Value>`, on values and on bytes,
//! trusting and strict. The oracle is serde_json: the whole model decoded,
//! the same optic run on the value.

#[path = "support/scale.rs"]
mod scale;

use optics_core::json::{Duplicates, Json, Strict};
use optics_core::prelude::*;
use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

#[derive(Optics, Serialize, Deserialize, Debug, PartialEq)]
struct Doc {
    id: u32,
    #[serde(default)]
    extra: Map<String, Value>,
    #[serde(default)]
    labels: Option<Map<String, Value>>,
}

#[test]
fn key_finds_a_member_of_a_value_object_on_values_and_on_bytes() {
    let bytes = br#"{"id":1,"extra":{"a":[1,2],"b":{"c":"d"},"a\u0062":3}}"#;
    let value: Doc = serde_json::from_slice(bytes).unwrap();
    for k in ["a", "b", "ab", "missing"] {
        let path = Doc::extra.then(key(k));
        let expected = path.preview(&value).cloned();
        assert_eq!(Json::<Doc>::new(bytes).read(path), expected, "{k}");
        let duplicates = Duplicates::new();
        let strict = Strict::<Doc>::validated(bytes, &duplicates).unwrap();
        assert_eq!(strict.read(path), expected, "strict {k}");
    }
    let through = Doc::labels.then(some()).then(key("x"));
    let bytes = br#"{"id":1,"labels":{"x":true}}"#;
    assert_eq!(Json::<Doc>::new(bytes).read(through), Some(json!(true)));
    assert_eq!(Json::<Doc>::new(br#"{"id":1}"#).read(through), None);
}

#[test]
fn a_key_given_twice_is_read_as_serde_keeps_it_the_last() {
    let bytes = br#"{"id":1,"extra":{"k":1,"k":2,"\u006b":3}}"#;
    let value: Doc = serde_json::from_slice(bytes).unwrap();
    assert_eq!(value.extra["k"], json!(3));
    let path = Doc::extra.then(key("k"));
    assert_eq!(Json::<Doc>::new(bytes).read(path), Some(json!(3)));
    // A strict traversal visits the members serde keeps; a trusting one
    // every member the bytes hold.
    let duplicates = Duplicates::new();
    let strict = Strict::<Doc>::validated(bytes, &duplicates).unwrap();
    let kept: Vec<Value> = strict
        .read_each(Doc::extra.then(each()))
        .map(Option::unwrap)
        .collect();
    assert_eq!(kept, [json!(3)]);
    let all: Vec<Option<Value>> = Json::<Doc>::new(bytes)
        .read_each(Doc::extra.then(each()))
        .collect();
    assert_eq!(all, [Some(json!(1)), Some(json!(2)), Some(json!(3))]);
}

#[test]
fn a_member_of_a_value_object_is_written_in_place() {
    let bytes = br#"{"id":1,"extra":{"a":1,"b":[true]}}"#;
    let path = Doc::extra.then(key("b"));
    let written = Json::<Doc>::new(bytes)
        .set(path, &json!({"n": null}))
        .unwrap();
    let mut expected: Doc = serde_json::from_slice(bytes).unwrap();
    path.set(&mut expected, json!({"n": null}));
    assert_eq!(serde_json::from_slice::<Doc>(&written).unwrap(), expected);
}

/// Keys the property writes, several spellings of some.
const KEYS: [&str; 8] = ["a", "\\u0061", "b", "ab", "a\\u0062", "\\/", "/", "é"];

fn cases() -> ProptestConfig {
    ProptestConfig {
        cases: scale::scaled(256),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(cases())]

    /// Members picked from `KEYS` (repeats and spellings of one key
    /// included), each valued with its place: every key's lookup, the
    /// strict traversal and the folds agree with serde's `Map`.
    #[test]
    fn value_objects_read_as_serde_reads_them(
        picks in proptest::collection::vec(0..KEYS.len(), 0..10),
    ) {
        let members: Vec<String> = picks
            .iter()
            .enumerate()
            .map(|(place, &k)| format!("\"{}\":{place}", KEYS[k]))
            .collect();
        let text = format!("{{\"extra\":{{{}}},\"id\":7}}", members.join(","));
        let bytes = text.as_bytes();
        let value: Doc = serde_json::from_slice(bytes).unwrap();
        let json = Json::<Doc>::new(bytes);
        let duplicates = Duplicates::new();
        let strict = Strict::<Doc>::validated(bytes, &duplicates).unwrap();
        for k in ["a", "b", "ab", "/", "é", "none"] {
            let path = Doc::extra.then(key(k));
            let expected = path.preview(&value).cloned();
            prop_assert_eq!(json.read(path), expected.clone(), "{} in {}", k, text);
            prop_assert_eq!(strict.read(path), expected, "strict {} in {}", k, text);
        }
        let every = Doc::extra.then(each());
        let mut expected: Vec<Value> = every.iter(&value).cloned().collect();
        let mut kept: Vec<Value> = strict.read_each(every).map(Option::unwrap).collect();
        let order = |a: &Value, b: &Value| a.as_u64().cmp(&b.as_u64());
        expected.sort_by(order);
        kept.sort_by(order);
        prop_assert_eq!(kept, expected, "{}", text);
        let count = |n: usize, _: &Value| n + 1;
        prop_assert_eq!(strict.fold(every, 0, count), (&value).fold(every, 0, count));
        prop_assert_eq!(json.fold(every, 0, count), Some(picks.len()));
        prop_assert!(!duplicates.met());
    }
}
