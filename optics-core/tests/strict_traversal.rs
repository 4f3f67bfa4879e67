//! Strict traversals (`Strict::iter`, `Strict::read_each`) against
//! serde_json: where serde_json reads a document, a strict traversal reads
//! the same foci and meets no duplicate; where a key on the path to a focus
//! stands twice (serde_json's "duplicate field"), the duplicate is recorded
//! and the traversal ends there; over a map, the members serde keeps (the
//! last of a repeated key, however the key is spelled; keys told apart as
//! the key type reads them: `keys_a_type_reads_alike_from_two_texts_keep_one_member`).

#[path = "support/scale.rs"]
mod scale;

use std::collections::{BTreeMap, HashMap};

use optics_core::json::{Duplicates, Json, Strict};
use optics_core::prelude::*;
use proptest::prelude::*;
use serde::Deserialize;

#[global_allocator]
static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;

#[derive(Optics, Deserialize, Debug)]
struct Doc {
    items: Vec<Item>,
    counts: BTreeMap<String, u32>,
    #[serde(default)]
    events: Vec<Event>,
}

#[derive(Optics, Deserialize, Debug)]
struct Item {
    name: String,
    n: u32,
    #[serde(default)]
    weight: u32,
}

#[derive(Optics, Deserialize, Debug)]
#[serde(tag = "type")]
enum Event {
    Open(Stamp),
    Close(Stamp),
}

#[derive(Optics, Deserialize, Debug)]
struct Stamp {
    at: u32,
}

/// One item as generated: its fields, and whether `n` is given twice.
#[derive(Clone, Debug)]
struct ItemSpec {
    name: String,
    n: u32,
    weight: Option<u32>,
    n_twice: bool,
    n_first: bool,
}

impl ItemSpec {
    fn write(&self, out: &mut String) {
        let mut members = vec![format!(r#""name":{:?}"#, self.name)];
        let n = format!(r#""n":{}"#, self.n);
        if self.n_first {
            members.insert(0, n);
        } else {
            members.push(n);
        }
        if let Some(weight) = self.weight {
            members.push(format!(r#""weight":{weight}"#));
        }
        if self.n_twice {
            members.push(format!(r#""n":{}"#, self.n + 1));
        }
        out.push('{');
        out.push_str(&members.join(" , "));
        out.push('}');
    }
}

/// A map key as written: `a`, `b` or `c`, plainly or with an escape.
fn written_key(key: u8, escaped: bool) -> String {
    match (key, escaped) {
        (k, false) => format!("\"{}\"", (b'a' + k) as char),
        (k, true) => format!("\"\\u00{:x}\"", b'a' + k),
    }
}

fn item() -> impl Strategy<Value = ItemSpec> {
    (
        "[a-z]{0,6}",
        0u32..1000,
        proptest::option::of(0u32..9),
        proptest::bool::weighted(0.1),
        any::<bool>(),
    )
        .prop_map(|(name, n, weight, n_twice, n_first)| ItemSpec {
            name,
            n,
            weight,
            n_twice,
            n_first,
        })
}

/// A map member as generated: its key, whether spelled with an escape, its
/// value.
type MemberSpec = (u8, bool, u32);

/// A document: its items, the map's members, whether `items` is given
/// twice, and whether the map comes first.
type DocSpec = (Vec<ItemSpec>, Vec<MemberSpec>, bool, bool);

fn doc() -> impl Strategy<Value = DocSpec> {
    (
        proptest::collection::vec(item(), 0..6),
        proptest::collection::vec((0u8..3, any::<bool>(), 0u32..100), 0..8),
        proptest::bool::weighted(0.1),
        any::<bool>(),
    )
}

fn write_doc(
    items: &[ItemSpec],
    counts: &[MemberSpec],
    items_twice: bool,
    counts_first: bool,
) -> String {
    let mut list = String::from("[");
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            list.push(',');
        }
        item.write(&mut list);
    }
    list.push(']');
    let map = counts
        .iter()
        .map(|&(k, escaped, v)| format!("{}: {v}", written_key(k, escaped)))
        .collect::<Vec<_>>()
        .join(",");
    let mut members = vec![format!(r#""items":{list}"#)];
    let counts = format!(r#""counts":{{{map}}}"#);
    if counts_first {
        members.insert(0, counts);
    } else {
        members.push(counts);
    }
    if items_twice {
        members.push(r#""items":[]"#.to_owned());
    }
    format!("{{{}}}", members.join(","))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::scale::scaled(512)))]

    #[test]
    fn strict_traversals_read_as_serde_json((items, counts, items_twice, counts_first) in doc()) {
        let text = write_doc(&items, &counts, items_twice, counts_first);
        let bytes = text.as_bytes();
        let decoded = serde_json::from_slice::<Doc>(bytes);
        let duplicate_on_path = items_twice || items.iter().any(|item| item.n_twice);
        // The generator's duplicates are the only ones serde_json refuses.
        prop_assert_eq!(decoded.is_err(), duplicate_on_path, "{}", text);

        let duplicates = Duplicates::new();
        let doc = Strict::<Doc>::validated(bytes, &duplicates).unwrap();
        let ns: Vec<Option<u32>> = doc.read_each(Doc::items.then(each()).then(Item::n)).collect();
        match &decoded {
            Ok(decoded) => {
                let expected: Vec<Option<u32>> = decoded.items.iter().map(|item| Some(item.n)).collect();
                prop_assert_eq!(&ns, &expected, "{}", text);
                prop_assert!(!duplicates.met(), "{}", text);
            }
            Err(_) => {
                prop_assert!(duplicates.met(), "{}", text);
                // Every focus read before the duplicate is the item's own.
                let before = if items_twice {
                    0
                } else {
                    items.iter().position(|item| item.n_twice).unwrap()
                };
                let expected: Vec<Option<u32>> = items[..before].iter().map(|item| Some(item.n)).collect();
                prop_assert_eq!(&ns, &expected, "{}", text);
            }
        }

        // A field serde fills in reads as its default.
        let duplicates = Duplicates::new();
        let doc = Strict::<Doc>::validated(bytes, &duplicates).unwrap();
        let weights: Vec<Option<u32>> = doc.read_each(Doc::items.then(each()).then(Item::weight)).collect();
        if let Ok(decoded) = &decoded {
            let expected: Vec<Option<u32>> = decoded.items.iter().map(|item| Some(item.weight)).collect();
            prop_assert_eq!(&weights, &expected, "{}", text);
        }

        // The map: the members serde keeps, however their keys are spelled.
        let duplicates = Duplicates::new();
        let doc = Strict::<Doc>::validated(bytes, &duplicates).unwrap();
        let mut values: Vec<u32> = doc
            .read_each(Doc::counts.then(each()))
            .map(Option::unwrap)
            .collect();
        let map = serde_json::from_slice::<serde_json::Value>(bytes).unwrap();
        let oracle: BTreeMap<String, u32> = serde_json::from_value(map["counts"].clone()).unwrap();
        let mut expected: Vec<u32> = oracle.values().copied().collect();
        values.sort_unstable();
        expected.sort_unstable();
        prop_assert_eq!(values, expected, "{}", text);
        if !items_twice {
            prop_assert!(!duplicates.met(), "{}", text);
        }

        // Views agree with the reads, and a trusting traversal is unchanged.
        let duplicates = Duplicates::new();
        let doc = Strict::<Doc>::validated(bytes, &duplicates).unwrap();
        let viewed: Vec<Option<u32>> = doc
            .iter(Doc::items.then(each()))
            .map(|item| item.read(Item::n))
            .collect();
        if decoded.is_ok() {
            prop_assert_eq!(&viewed, &ns, "{}", text);
        }
        let trusting = Json::<Doc>::new(bytes).read_each(Doc::counts.then(each())).count();
        prop_assert_eq!(trusting, counts.len(), "{}", text);
    }
}

#[test]
fn a_map_keeps_the_last_member_of_a_key_however_it_is_spelled() {
    let bytes = br#"{"items":[],"counts":{"a":1,"b":2,"\u0061":3,"c":4,"b":5}}"#;
    let oracle: Doc = serde_json::from_slice(bytes).unwrap();
    let duplicates = Duplicates::new();
    let doc = Strict::<Doc>::validated(bytes, &duplicates).unwrap();
    // In the order the kept members stand.
    let read: Vec<Option<u32>> = doc.read_each(Doc::counts.then(each())).collect();
    assert_eq!(read, [Some(3), Some(4), Some(5)]);
    let mut expected: Vec<u32> = oracle.counts.into_values().collect();
    expected.sort_unstable();
    assert_eq!(expected, [3, 4, 5]);
    assert!(!duplicates.met());
    // The trusting traversal visits every member, as its docs say.
    let all: Vec<Option<u32>> = Json::<Doc>::new(bytes)
        .read_each(Doc::counts.then(each()))
        .collect();
    assert_eq!(all, [Some(1), Some(2), Some(3), Some(4), Some(5)]);
}

#[derive(Optics, Deserialize, Debug)]
struct Signed {
    ids: HashMap<i32, u32>,
}

#[derive(Optics, Deserialize, Debug)]
struct Named {
    ids: HashMap<String, u32>,
}

#[test]
fn integer_keys_are_kept_as_serde_json_reads_them() {
    // serde_json reads an integer key from the one way JSON writes it: a
    // key spelled with an escape, or `"-0"`, is no integer to it. So keys
    // compared as strings are compared as the integers they read as.
    for refused in [
        &br#"{"ids":{"\u0031":1}}"#[..],
        br#"{"ids":{"-0":1,"0":2}}"#,
        br#"{"ids":{"-0":1}}"#,
    ] {
        assert!(serde_json::from_slice::<Signed>(refused).is_err());
    }
    let bytes = br#"{"ids":{"1":1,"2":2,"1":3,"-1":4}}"#;
    let oracle = serde_json::from_slice::<Signed>(bytes).unwrap();
    let duplicates = Duplicates::new();
    let signed = Strict::<Signed>::validated(bytes, &duplicates).unwrap();
    let read: Vec<Option<u32>> = signed.read_each(Signed::ids.then(each())).collect();
    assert_eq!(read, [Some(2), Some(3), Some(4)]);
    let mut expected: Vec<u32> = oracle.ids.into_values().collect();
    expected.sort_unstable();
    assert_eq!(expected, [2, 3, 4]);
    assert!(!duplicates.met());
    // A string key reads `"-0"` and `"0"` as two keys, and so does the
    // traversal.
    let bytes = br#"{"ids":{"-0":1,"0":2}}"#;
    assert_eq!(serde_json::from_slice::<Named>(bytes).unwrap().ids.len(), 2);
    let duplicates = Duplicates::new();
    let named = Strict::<Named>::validated(bytes, &duplicates).unwrap();
    assert_eq!(named.iter(Named::ids.then(each())).count(), 2);
    assert!(!duplicates.met());
}

#[test]
fn a_tag_given_twice_in_an_element_is_a_duplicate() {
    let kinds = Doc::events.then(each()).then(Event::kind);
    let good =
        br#"{"items":[],"counts":{},"events":[{"type":"Open","at":1},{"type":"Close","at":2}]}"#;
    let oracle: Doc = serde_json::from_slice(good).unwrap();
    let duplicates = Duplicates::new();
    let doc = Strict::<Doc>::validated(good, &duplicates).unwrap();
    let read: Vec<_> = doc.read_each(kinds).collect();
    assert_eq!(read.len(), oracle.events.len());
    assert!(read.iter().all(Option::is_some));
    assert!(!duplicates.met());

    let twice = br#"{"items":[],"counts":{},"events":[{"type":"Open","at":1},{"type":"Close","at":2,"type":"Open"}]}"#;
    let refused = serde_json::from_slice::<Doc>(twice).unwrap_err();
    assert!(refused.to_string().contains("duplicate field"), "{refused}");
    let duplicates = Duplicates::new();
    let doc = Strict::<Doc>::validated(twice, &duplicates).unwrap();
    assert_eq!(doc.read_each(kinds).count(), 1);
    assert!(duplicates.met());
    // The trusting traversal reads both, as it always did.
    assert_eq!(Json::<Doc>::new(twice).read_each(kinds).count(), 2);
}

#[test]
fn strict_views_of_elements_read_strictly() {
    let bytes = br#"{"items":[{"name":"a","n":1},{"name":"b","n":2,"n":3}],"counts":{}}"#;
    let duplicates = Duplicates::new();
    let doc = Strict::<Doc>::validated(bytes, &duplicates).unwrap();
    let items: Vec<_> = doc.iter(Doc::items.then(each())).collect();
    // The path to each element has no key inside it: both are views.
    assert_eq!(items.len(), 2);
    assert!(!duplicates.met());
    assert_eq!(items[0].read(Item::n), Some(1));
    assert!(!duplicates.met());
    assert_eq!(items[1].read(Item::n), None);
    assert!(duplicates.met());
}

#[test]
fn a_traversal_over_arrays_allocates_nothing() {
    let mut text = String::from(r#"{"counts":{},"items":["#);
    for i in 0..10_000 {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&format!(r#"{{"name":"x","n":{i}}}"#));
    }
    text.push_str("]}");
    let duplicates = Duplicates::new();
    let doc = Strict::<Doc>::validated(text.as_bytes(), &duplicates).unwrap();
    let (sum, counts) = alloc_counter::measure_thread(|| {
        doc.read_each(Doc::items.then(each()).then(Item::n))
            .map(|n| u64::from(n.unwrap()))
            .sum::<u64>()
    });
    assert_eq!(sum, (0..10_000u64).sum::<u64>());
    assert_eq!(counts.allocations, 0);
    let (views, counts) =
        alloc_counter::measure_thread(|| doc.iter(Doc::items.then(each())).count());
    assert_eq!(views, 10_000);
    assert_eq!(counts.allocations, 0);
    assert!(!duplicates.met());
}

/// An internally tagged enum whose payloads are read without a lookup in
/// its object: a map (`each()` over it, `key(k)`), an externally tagged
/// enum, and no payload at all.
#[derive(Optics, Deserialize, Debug)]
#[serde(tag = "type")]
enum Part {
    Labels(BTreeMap<String, String>),
    Choice(Choice),
    Blank,
}

#[derive(Optics, Deserialize, Debug)]
enum Choice {
    Left(u32),
    Right(u32),
}

#[derive(Optics, Deserialize, Debug)]
struct Parts {
    parts: Vec<Part>,
}

/// Whether serde_json refuses `bytes` with "duplicate field".
fn refused_as_duplicate(bytes: &[u8]) -> bool {
    serde_json::from_slice::<Parts>(bytes)
        .is_err_and(|error| error.to_string().contains("duplicate field"))
}

#[test]
fn a_tag_given_twice_is_met_where_no_lookup_follows_the_tag_check() {
    // Each document holds a good element, then one whose tag stands twice
    // (the second spelled plainly, or with an escape).
    for second in [r#""type":"Labels""#, r#""\u0074ype":"Labels""#] {
        let text = format!(
            r#"{{"parts":[{{"type":"Labels","a":"1"}},{{"type":"Labels","b":"2",{second}}}]}}"#
        );
        let bytes = text.as_bytes();
        assert!(refused_as_duplicate(bytes), "{text}");
        // The payload itself, a view of it, and its members.
        let duplicates = Duplicates::new();
        let doc = Strict::<Parts>::validated(bytes, &duplicates).unwrap();
        let payloads = doc
            .iter(Parts::parts.then(each()).then(Part::labels))
            .count();
        assert_eq!((payloads, duplicates.met()), (1, true), "{text}");
        let duplicates = Duplicates::new();
        let doc = Strict::<Parts>::validated(bytes, &duplicates).unwrap();
        let labels: Vec<Option<String>> = doc
            .read_each(Parts::parts.then(each()).then(Part::labels).then(each()))
            .collect();
        assert_eq!(labels, [Some("1".to_owned())], "{text}");
        assert!(duplicates.met(), "{text}");
        // The same element read alone.
        let duplicates = Duplicates::new();
        let doc = Strict::<Parts>::validated(bytes, &duplicates).unwrap();
        let second = Parts::parts.then(at(1)).then(Part::labels);
        assert!(doc.view(second).is_none(), "{text}");
        assert!(duplicates.met(), "{text}");
        let duplicates = Duplicates::new();
        let doc = Strict::<Parts>::validated(bytes, &duplicates).unwrap();
        assert_eq!(doc.read(second.then(key("b"))), None, "{text}");
        assert!(duplicates.met(), "{text}");
    }
    // An externally tagged payload, and none.
    for (text, choice) in [
        (
            r#"{"parts":[{"type":"Choice","Left":1},{"type":"Choice","Right":2,"type":"Choice"}]}"#,
            true,
        ),
        (
            r#"{"parts":[{"type":"Blank"},{"type":"Blank","type":"Blank"}]}"#,
            false,
        ),
    ] {
        let bytes = text.as_bytes();
        assert!(refused_as_duplicate(bytes), "{text}");
        let duplicates = Duplicates::new();
        let doc = Strict::<Parts>::validated(bytes, &duplicates).unwrap();
        // The second element's tag is read on the way to either variant:
        // the traversal meets it there, after the first element's focus.
        let read = if choice {
            let left = Parts::parts
                .then(each())
                .then(Part::choice)
                .then(Choice::left);
            let left = doc.iter(left).count();
            assert_eq!((left, duplicates.met()), (1, true), "{text}");
            duplicates.clear();
            let right = Parts::parts
                .then(each())
                .then(Part::choice)
                .then(Choice::right);
            doc.iter(right).count()
        } else {
            doc.iter(Parts::parts.then(each()).then(Part::blank))
                .count()
        };
        assert_eq!(
            (read, duplicates.met()),
            (usize::from(!choice), true),
            "{text}"
        );
    }
    // Where serde_json reads the document, nothing is met.
    let text = r#"{"parts":[{"type":"Labels","a":"1","a":"2"},{"type":"Choice","Right":2},{"type":"Blank"}]}"#;
    let bytes = text.as_bytes();
    let oracle = serde_json::from_slice::<Parts>(bytes).unwrap();
    assert_eq!(oracle.parts.len(), 3);
    let duplicates = Duplicates::new();
    let doc = Strict::<Parts>::validated(bytes, &duplicates).unwrap();
    let labels: Vec<Option<String>> = doc
        .read_each(Parts::parts.then(each()).then(Part::labels).then(each()))
        .collect();
    assert_eq!(labels, [Some("2".to_owned())]);
    let right = Parts::parts
        .then(each())
        .then(Part::choice)
        .then(Choice::right);
    assert_eq!(doc.read_each(right).collect::<Vec<_>>(), [Some(2)]);
    assert_eq!(
        doc.iter(Parts::parts.then(each()).then(Part::blank))
            .count(),
        1
    );
    assert!(!duplicates.met());
}

thread_local! {
    /// What the strict traversals run inside [`Probe::is_key`] met.
    static INNER: core::cell::Cell<(usize, bool)> = const { core::cell::Cell::new((0, false)) };
}

/// A map key whose byte lookup runs a strict traversal of another document
/// (one that repeats a key on its path) each time it compares a key: a
/// strict read inside a strict read.
#[derive(Deserialize, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Probe(String);

impl optics_core::optic::JsonKey for Probe {
    fn is_key(&self, raw: &[u8], _buffered: bool) -> bool {
        let inner = br#"{"items":[{"name":"a","n":1},{"name":"b","n":2,"n":3}],"counts":{}}"#;
        let duplicates = Duplicates::new();
        let doc = Strict::<Doc>::validated(inner, &duplicates).unwrap();
        let read = doc.read_each(Doc::items.then(each()).then(Item::n)).count();
        INNER.with(|inner| inner.set((read, duplicates.met())));
        raw == self.0.as_bytes()
    }
}

#[derive(Optics, Deserialize, Debug)]
#[serde(tag = "type")]
enum Probed {
    Map(BTreeMap<Probe, u32>),
}

#[test]
fn a_strict_traversal_inside_a_strict_read_leaves_the_outer_watch_as_it_was() {
    let probe = Probe("b".to_owned());
    let read = |text: &str| {
        INNER.with(|inner| inner.set((0, false)));
        let duplicates = Duplicates::new();
        let outer = Strict::<Probed>::validated(text.as_bytes(), &duplicates).unwrap();
        let value = outer.read(Probed::map.then(key(&probe)));
        (value, duplicates.met(), INNER.with(core::cell::Cell::get))
    };
    // The inner traversal meets its own duplicate, and only it.
    assert_eq!(
        read(r#"{"type":"Map","a":1,"b":2}"#),
        (Some(2), false, (1, true))
    );
    // The outer read's tag, read quickly before the inner traversal ran,
    // is still checked after it.
    let twice = r#"{"type":"Map","a":1,"b":2,"type":"Map"}"#;
    assert!(serde_json::from_str::<Probed>(twice).is_err());
    assert_eq!(read(twice), (None, true, (1, true)));
}

#[derive(Optics, Deserialize, Debug)]
struct Wide {
    by: BTreeMap<i128, u32>,
}

#[derive(Deserialize, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Shade {
    #[serde(alias = "dark")]
    Dark,
    Light,
}

impl optics_core::optic::JsonKey for Shade {
    const ONE_SPELLING: bool = false;
    fn read_key(raw: &[u8], buffered: bool) -> Option<Self> {
        optics_core::optic::read_map_key(raw, buffered)
    }
    fn is_key(&self, raw: &[u8], buffered: bool) -> bool {
        Self::read_key(raw, buffered).as_ref() == Some(self)
    }
}

#[derive(Optics, Deserialize, Debug)]
struct Shades {
    by: BTreeMap<Shade, u32>,
    hosts: BTreeMap<std::net::IpAddr, u32>,
}

/// A key type that reads two texts as one key (serde_json reads the `i128`
/// key `"-0"` as 0, an enum key takes its aliases, an address has several
/// spellings) keeps one member in serde's map, and so does the strict
/// traversal: such a key type reads each key (`JsonKey::read_key`).
#[test]
fn keys_a_type_reads_alike_from_two_texts_keep_one_member() {
    let bytes = br#"{"by":{"-0":1,"0":2}}"#;
    let oracle = serde_json::from_slice::<Wide>(bytes).unwrap();
    assert_eq!(oracle.by.into_iter().collect::<Vec<_>>(), [(0, 2)]);
    let duplicates = Duplicates::new();
    let wide = Strict::<Wide>::validated(bytes, &duplicates).unwrap();
    let read: Vec<Option<u32>> = wide.read_each(Wide::by.then(each())).collect();
    assert_eq!(read, [Some(2)]);
    assert!(!duplicates.met());

    let bytes = br#"{"by":{"Dark":1,"dark":2,"Light":3},"hosts":{"::1":4,"0::1":5}}"#;
    let oracle = serde_json::from_slice::<Shades>(bytes).unwrap();
    assert_eq!(oracle.by.values().copied().collect::<Vec<_>>(), [2, 3]);
    assert_eq!(oracle.hosts.values().copied().collect::<Vec<_>>(), [5]);
    let duplicates = Duplicates::new();
    let shades = Strict::<Shades>::validated(bytes, &duplicates).unwrap();
    let read: Vec<Option<u32>> = shades.read_each(Shades::by.then(each())).collect();
    assert_eq!(read, [Some(2), Some(3)]);
    let read: Vec<Option<u32>> = shades.read_each(Shades::hosts.then(each())).collect();
    assert_eq!(read, [Some(5)]);
    assert!(!duplicates.met());
}
