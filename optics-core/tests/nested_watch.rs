//! A read run from inside a strict read's lookup or traversal (a
//! `JsonKey`'s `is_key` or `read_key`, which are the user's code) reads as
//! it would on its own: the outer watch (its duplicate flag, its "every
//! member" mode of a strict write's check) does not reach into it, and what
//! it does leaves the outer read as it was.

use std::cell::RefCell;
use std::collections::BTreeMap;

use optics_core::json::{Duplicates, Json, Strict};
use optics_core::optic::JsonKey;
use optics_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Optics, Deserialize, Debug)]
struct Doc {
    items: Vec<Item>,
    counts: BTreeMap<String, u32>,
}

#[derive(Optics, Deserialize, Debug)]
struct Item {
    name: String,
    n: u32,
}

/// The other document the probe reads: a map with a repeated key, and an
/// item with a repeated field.
const INNER: &[u8] =
    br#"{"items":[{"name":"a","n":1},{"name":"b","n":2,"n":3}],"counts":{"x":1,"y":2,"x":3}}"#;

/// What the reads inside [`Probe::is_key`] gave.
#[derive(Debug, Default, Clone, PartialEq)]
struct Inner {
    /// A strict read of the map's values.
    strict_counts: Vec<Option<u32>>,
    /// Whether that read met a duplicate.
    strict_met: bool,
    /// A trusting read of every item's `n`.
    trusting_ns: Vec<Option<u32>>,
    /// A trusting read of the map's values.
    trusting_counts: Vec<Option<u32>>,
}

thread_local! {
    static SEEN: RefCell<Option<Inner>> = const { RefCell::new(None) };
}

/// What the inner reads give when run on their own.
fn inner_reads() -> Inner {
    let duplicates = Duplicates::new();
    let doc = Strict::<Doc>::validated(INNER, &duplicates).unwrap();
    let strict_counts = doc.read_each(Doc::counts.then(each())).collect();
    let trusting = Json::<Doc>::new(INNER);
    Inner {
        strict_counts,
        strict_met: duplicates.met(),
        trusting_ns: trusting
            .read_each(Doc::items.then(each()).then(Item::n))
            .collect(),
        trusting_counts: trusting.read_each(Doc::counts.then(each())).collect(),
    }
}

/// A map key whose byte lookup reads another document, strictly and
/// trustingly, each time it compares a key.
#[derive(Serialize, Deserialize, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Probe(String);

impl JsonKey for Probe {
    fn is_key(&self, raw: &[u8], _buffered: bool) -> bool {
        let seen = inner_reads();
        SEEN.with(|cell| *cell.borrow_mut() = Some(seen));
        raw == self.0.as_bytes()
    }
}

#[derive(Optics, Serialize, Deserialize, Debug)]
struct Outer {
    by: BTreeMap<Probe, u32>,
}

#[test]
fn the_inner_reads_on_their_own() {
    let alone = inner_reads();
    // serde keeps the last "x"; a trusting traversal visits every member.
    assert_eq!(alone.strict_counts, [Some(2), Some(3)]);
    assert!(!alone.strict_met);
    // A trusting read takes the first of a repeated field.
    assert_eq!(alone.trusting_ns, [Some(1), Some(2)]);
    assert_eq!(alone.trusting_counts, [Some(1), Some(2), Some(3)]);
}

#[test]
fn reads_inside_a_strict_read_read_as_on_their_own() {
    let probe = Probe("b".to_owned());
    let text = br#"{"by":{"a":1,"b":2}}"#;
    SEEN.with(|cell| *cell.borrow_mut() = None);
    let duplicates = Duplicates::new();
    let outer = Strict::<Outer>::validated(text, &duplicates).unwrap();
    assert_eq!(outer.read(Outer::by.then(key(&probe))), Some(2));
    assert!(!duplicates.met());
    let seen = SEEN.with(|cell| cell.borrow_mut().take());
    assert_eq!(seen, Some(inner_reads()));
}

#[test]
fn reads_inside_a_strict_write_read_as_on_their_own() {
    let probe = Probe("b".to_owned());
    let text = br#"{"by":{"a":1,"b":2}}"#;
    SEEN.with(|cell| *cell.borrow_mut() = None);
    let duplicates = Duplicates::new();
    let outer = Strict::<Outer>::validated(text, &duplicates).unwrap();
    let written = outer.set(Outer::by.then(key(&probe)), &5);
    assert_eq!(written.as_deref(), Some(&br#"{"by":{"a":1,"b":5}}"#[..]));
    assert!(!duplicates.met());
    let seen = SEEN.with(|cell| cell.borrow_mut().take());
    assert_eq!(seen, Some(inner_reads()));
}

/// A map key read with its own code (`read_key`), which reads another
/// document each time it reads a key: a strict traversal over its map
/// reads every key so.
#[derive(Deserialize, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Reading(String);

impl JsonKey for Reading {
    const ONE_SPELLING: bool = false;

    fn read_key(raw: &[u8], _buffered: bool) -> Option<Self> {
        let seen = inner_reads();
        SEEN.with(|cell| *cell.borrow_mut() = Some(seen));
        String::from_utf8(raw.to_vec()).ok().map(Reading)
    }

    fn is_key(&self, raw: &[u8], buffered: bool) -> bool {
        Self::read_key(raw, buffered).as_ref() == Some(self)
    }
}

#[derive(Optics, Deserialize, Debug)]
struct Read {
    by: BTreeMap<Reading, u32>,
}

#[test]
fn reads_inside_a_strict_traversal_read_as_on_their_own() {
    let text = br#"{"by":{"a":1,"b":2,"a":3}}"#;
    SEEN.with(|cell| *cell.borrow_mut() = None);
    let duplicates = Duplicates::new();
    let outer = Strict::<Read>::validated(text, &duplicates).unwrap();
    let kept: Vec<Option<u32>> = outer.read_each(Read::by.then(each())).collect();
    assert_eq!(kept, [Some(2), Some(3)]);
    assert!(!duplicates.met());
    let seen = SEEN.with(|cell| cell.borrow_mut().take());
    assert_eq!(seen, Some(inner_reads()));
}

/// A map key whose byte lookup panics.
#[derive(Serialize, Deserialize, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Bomb(String);

impl JsonKey for Bomb {
    fn is_key(&self, _raw: &[u8], _buffered: bool) -> bool {
        panic!("a key type's own code panicked");
    }
}

#[derive(Optics, Serialize, Deserialize, Debug)]
struct Mined {
    by: BTreeMap<Bomb, u32>,
}

#[test]
fn a_panic_inside_a_strict_write_leaves_no_watch_behind() {
    let bomb = Bomb("b".to_owned());
    let text = br#"{"by":{"a":1,"b":2}}"#;
    let caught = std::panic::catch_unwind(|| {
        let duplicates = Duplicates::new();
        let mined = Strict::<Mined>::validated(text, &duplicates).unwrap();
        mined.set(Mined::by.then(key(&bomb)), &5)
    });
    assert!(caught.is_err());
    // Later reads on this thread read as on their own.
    assert_eq!(inner_reads(), {
        let alone = std::thread::spawn(inner_reads).join().unwrap();
        assert_eq!(alone.strict_counts, [Some(2), Some(3)]);
        alone
    });
}
