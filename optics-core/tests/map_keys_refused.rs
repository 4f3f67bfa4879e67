//! A map whose object has a key serde_json does not read as the map's key
//! type: serde_json refuses the whole map (and the document). A strict
//! traversal over it cannot say which members serde keeps, so a strict
//! fold refuses too (`None`) instead of answering from the members it
//! could tell apart; a trusting one visits every member, as it always does.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;

use optics_core::json::{Duplicates, Json, Strict};
use optics_core::prelude::*;
use serde::Deserialize;

#[derive(Optics, Deserialize, Debug)]
struct Keyed {
    #[serde(default)]
    counts: BTreeMap<u64, u32>,
    #[serde(default)]
    flags: HashMap<bool, u32>,
    #[serde(default)]
    letters: BTreeMap<char, u32>,
    #[serde(default)]
    hosts: HashMap<IpAddr, u32>,
    #[serde(default)]
    names: BTreeMap<String, u32>,
    #[serde(default)]
    nested: Vec<BTreeMap<u64, u32>>,
}

fn sum(acc: u32, v: &u32) -> u32 {
    acc + v
}

/// serde_json refuses `bytes`; the strict fold over `optic` refuses, the
/// strict traversal yields nothing past where it cannot tell, and the
/// trusting fold still sums every member.
macro_rules! refused {
    ($bytes:expr, $optic:expr, $trusting_sum:expr) => {{
        let bytes: &[u8] = $bytes;
        assert!(
            serde_json::from_slice::<Keyed>(bytes).is_err(),
            "serde_json reads {}",
            String::from_utf8_lossy(bytes)
        );
        let duplicates = Duplicates::new();
        let strict = Strict::<Keyed>::validated(bytes, &duplicates).unwrap();
        assert_eq!(
            strict.fold($optic, 0, sum),
            None,
            "strict fold over {}",
            String::from_utf8_lossy(bytes)
        );
        assert!(!duplicates.met());
        let json = Json::<Keyed>::new(bytes);
        assert_eq!(json.fold($optic, 0, sum), Some($trusting_sum));
    }};
}

#[test]
fn a_key_serde_does_not_read_refuses_the_strict_fold() {
    // Integer keys: an escape, a sign, a space, a letter, out of range.
    refused!(
        br#"{"counts":{"1":1,"\u0031":2}}"#,
        Keyed::counts.then(each()),
        3
    );
    refused!(br#"{"counts":{"\u0031":2}}"#, Keyed::counts.then(each()), 2);
    refused!(
        br#"{"counts":{"1":1,"+2":2}}"#,
        Keyed::counts.then(each()),
        3
    );
    refused!(br#"{"counts":{" 1":1}}"#, Keyed::counts.then(each()), 1);
    refused!(
        br#"{"counts":{"x":1,"2":2}}"#,
        Keyed::counts.then(each()),
        3
    );
    refused!(
        br#"{"counts":{"18446744073709551616":1}}"#,
        Keyed::counts.then(each()),
        1
    );
    // `bool` keys: an escaped literal, another word.
    refused!(
        br#"{"flags":{"true":1,"\u0074rue":2}}"#,
        Keyed::flags.then(each()),
        3
    );
    refused!(br#"{"flags":{"yes":1}}"#, Keyed::flags.then(each()), 1);
    // `char` keys: two characters, none.
    refused!(
        br#"{"letters":{"a":1,"ab":2}}"#,
        Keyed::letters.then(each()),
        3
    );
    refused!(br#"{"letters":{"":1}}"#, Keyed::letters.then(each()), 1);
    // A key type read with its own `Deserialize`.
    refused!(
        br#"{"hosts":{"::1":1,"bogus":2}}"#,
        Keyed::hosts.then(each()),
        3
    );
    refused!(
        br#"{"hosts":{"bogus":2,"::1":1}}"#,
        Keyed::hosts.then(each()),
        3
    );
}

#[test]
fn keys_serde_reads_still_fold() {
    let bytes = br#"{"counts":{"1":1,"2":2,"1":3},"flags":{"true":1,"false":2},"letters":{"a":1,"\u0062":2,"b":4},"hosts":{"::1":1,"0::1":2},"names":{"a":1,"\u0061":2}}"#;
    let value: Keyed = serde_json::from_slice(bytes).unwrap();
    let duplicates = Duplicates::new();
    let strict = Strict::<Keyed>::validated(bytes, &duplicates).unwrap();
    for (read, expected) in [
        (
            strict.fold(Keyed::counts.then(each()), 0, sum),
            (&value).fold(Keyed::counts.then(each()), 0, sum),
        ),
        (
            strict.fold(Keyed::flags.then(each()), 0, sum),
            (&value).fold(Keyed::flags.then(each()), 0, sum),
        ),
        (
            strict.fold(Keyed::letters.then(each()), 0, sum),
            (&value).fold(Keyed::letters.then(each()), 0, sum),
        ),
        (
            strict.fold(Keyed::hosts.then(each()), 0, sum),
            (&value).fold(Keyed::hosts.then(each()), 0, sum),
        ),
        (
            strict.fold(Keyed::names.then(each()), 0, sum),
            (&value).fold(Keyed::names.then(each()), 0, sum),
        ),
    ] {
        assert_eq!(read, expected);
    }
    assert!(!duplicates.met());
}

#[test]
fn a_map_refused_inside_a_list_refuses_the_fold_over_the_list() {
    let nested = Keyed::nested.then(each()).then(each());
    refused!(br#"{"nested":[{"1":1},{"\u0032":2},{"3":3}]}"#, nested, 6);
    refused!(br#"{"nested":[{"1":1},{"3":3},{"x":2}]}"#, nested, 6);
    // The maps serde reads: the fold agrees with the value's.
    let bytes = br#"{"nested":[{"1":1,"1":5},{},{"3":3}]}"#;
    let value: Keyed = serde_json::from_slice(bytes).unwrap();
    let duplicates = Duplicates::new();
    let strict = Strict::<Keyed>::validated(bytes, &duplicates).unwrap();
    assert_eq!(strict.fold(nested, 0, sum), (&value).fold(nested, 0, sum));
    assert_eq!(strict.fold(nested, 0, sum), Some(8));
}
