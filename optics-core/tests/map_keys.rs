//! Maps whose key type reads two different texts as one key: serde_json
//! decodes each member's key with the key type and inserts it, so a later
//! member whose key decodes to an equal key replaces the earlier one. A
//! strict traversal (`Strict::iter`, `Strict::read_each`, a fold on a
//! strict view) visits the members serde keeps, so it must tell keys apart
//! as the key type does; a trusting one visits every member. The oracle is
//! serde_json: the whole model decoded, the same optic run on the value.

#[path = "support/scale.rs"]
mod scale;

use std::collections::{BTreeMap, HashMap};
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

use optics_core::json::{Duplicates, Json, Strict};
use optics_core::optic::{read_map_key, JsonKey};
use optics_core::prelude::*;
use proptest::prelude::*;
use serde::Deserialize;

#[derive(Deserialize, Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Shade {
    #[serde(alias = "dark")]
    Dark,
    Light,
}

/// A newtype key over an integer that reads `"-0"` as 0.
#[derive(Deserialize, Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Id(i128);

/// Read with their own `Deserialize`: an alias is the same key.
macro_rules! read_keys {
    ($($ty:ty)*) => {$(
        impl JsonKey for $ty {
            const ONE_SPELLING: bool = false;
            fn read_key(raw: &[u8], buffered: bool) -> Option<Self> {
                read_map_key(raw, buffered)
            }
            fn is_key(&self, raw: &[u8], buffered: bool) -> bool {
                Self::read_key(raw, buffered).as_ref() == Some(self)
            }
        }
    )*};
}

read_keys!(Shade Id);

#[derive(Optics, Deserialize, Debug)]
struct Keyed {
    #[serde(default)]
    wide: BTreeMap<i128, u32>,
    #[serde(default)]
    hashed: HashMap<i128, u32>,
    #[serde(default)]
    ids: BTreeMap<Id, u32>,
    #[serde(default)]
    shades: BTreeMap<Shade, u32>,
    #[serde(default)]
    hosts: HashMap<IpAddr, u32>,
    #[serde(default)]
    sockets: BTreeMap<SocketAddr, u32>,
    #[serde(default)]
    paths: BTreeMap<PathBuf, u32>,
}

/// The values of `optic`'s foci read strictly from `bytes`, sorted, and
/// whether a duplicate was met; with the same from the value serde_json
/// decodes, and the strict fold's sum against the value's.
macro_rules! agree {
    ($bytes:expr, $optic:expr) => {{
        let bytes: &[u8] = $bytes;
        let value: Keyed = serde_json::from_slice(bytes).unwrap();
        let mut expected: Vec<u32> = $optic.iter(&value).copied().collect();
        expected.sort_unstable();
        let duplicates = Duplicates::new();
        let strict = Strict::<Keyed>::validated(bytes, &duplicates).unwrap();
        let mut read: Vec<u32> = strict.read_each($optic).map(Option::unwrap).collect();
        read.sort_unstable();
        assert_eq!(
            read,
            expected,
            "read_each over {}",
            String::from_utf8_lossy(bytes)
        );
        let mut views: Vec<u32> = strict
            .iter($optic)
            .map(|view| serde_json::from_slice(view.json().bytes()).unwrap())
            .collect();
        views.sort_unstable();
        assert_eq!(
            views,
            expected,
            "iter over {}",
            String::from_utf8_lossy(bytes)
        );
        let sum = |acc: u32, v: &u32| acc + v;
        assert_eq!(strict.fold($optic, 0, sum), (&value).fold($optic, 0, sum));
        assert!(!duplicates.met());
    }};
}

#[test]
fn a_strict_traversal_keeps_one_member_of_an_i128_key_written_two_ways() {
    agree!(br#"{"wide":{"-0":1,"0":2}}"#, Keyed::wide.then(each()));
    agree!(
        br#"{"hashed":{"0":1,"-0":2,"7":3}}"#,
        Keyed::hashed.then(each())
    );
    agree!(br#"{"ids":{"-0":1,"0":2}}"#, Keyed::ids.then(each()));
}

#[test]
fn a_strict_traversal_keeps_one_member_of_an_enum_key_and_its_alias() {
    agree!(
        br#"{"shades":{"Dark":1,"dark":2,"Light":3}}"#,
        Keyed::shades.then(each())
    );
    agree!(
        br#"{"shades":{"d\u0061rk":1,"Dark":2}}"#,
        Keyed::shades.then(each())
    );
}

#[test]
fn a_strict_traversal_keeps_one_member_of_an_address_spelled_two_ways() {
    agree!(
        br#"{"hosts":{"::1":1,"0::1":2,"::A":3,"::a":4}}"#,
        Keyed::hosts.then(each())
    );
    agree!(
        br#"{"sockets":{"[::1]:80":1,"[0::1]:80":2}}"#,
        Keyed::sockets.then(each())
    );
    agree!(
        br#"{"paths":{"a/b":1,"a//b":2,"c":3}}"#,
        Keyed::paths.then(each())
    );
}

/// A trusting traversal visits every member the bytes hold, as its docs
/// say: serde's dropped ones included.
#[test]
fn a_trusting_traversal_visits_every_member() {
    let bytes = br#"{"wide":{"-0":1,"0":2},"shades":{"Dark":1,"dark":2}}"#;
    let json = Json::<Keyed>::new(bytes);
    let read: Vec<Option<u32>> = json.read_each(Keyed::wide.then(each())).collect();
    assert_eq!(read, [Some(1), Some(2)]);
    assert_eq!(json.iter(Keyed::shades.then(each())).count(), 2);
    assert_eq!(
        json.fold(Keyed::wide.then(each()), 0, |a, v| a + v),
        Some(3)
    );
}

/// Maps of every kind of key the property below writes, and one whose keys
/// serde reads from its buffer.
#[derive(Optics, Deserialize, Debug)]
struct Maps {
    #[serde(default)]
    small: BTreeMap<i64, u32>,
    #[serde(default)]
    wide: HashMap<i128, u32>,
    #[serde(default)]
    unsigned: BTreeMap<u128, u32>,
    #[serde(default)]
    flags: HashMap<bool, u32>,
    #[serde(default)]
    shades: BTreeMap<Shade, u32>,
    #[serde(default)]
    ids: HashMap<Id, u32>,
    #[serde(default)]
    letters: BTreeMap<char, u32>,
    #[serde(default)]
    names: HashMap<String, u32>,
    #[serde(default)]
    tagged: Option<Tagged>,
}

/// A map as an internally tagged payload: serde reads its keys from its
/// buffer, the tag passed over.
#[derive(Optics, Deserialize, Debug)]
#[serde(tag = "type")]
enum Tagged {
    Map(BTreeMap<Shade, u32>),
}

/// Each field's key spellings, as written between the quotes: several
/// spellings of one key, and a few that serde_json refuses (the document
/// is then not one the property compares).
const SPELLINGS: [(&str, &[&str]); 9] = [
    ("small", &["0", "-0", "1", "-1", "01", "7"]),
    (
        "wide",
        &[
            "0",
            "-0",
            "1",
            "-1",
            "00",
            "-170141183460469231731687303715884105728",
        ],
    ),
    (
        "unsigned",
        &["0", "1", "-0", "340282366920938463463374607431768211455"],
    ),
    ("flags", &["true", "false", "\\u0074rue"]),
    (
        "shades",
        &["Dark", "dark", "d\\u0061rk", "Light", "\\u004cight"],
    ),
    ("ids", &["0", "-0", "5", "-5"]),
    (
        "letters",
        &["a", "\\u0061", "b", "\\n", "\\u000a", "é", "\\u00e9", "ab"],
    ),
    (
        "names",
        &[
            "a",
            "\\u0061",
            "ab",
            "a\\u0062",
            "\\/",
            "/",
            "\\ud83d\\ude00",
            "😀",
        ],
    ),
    ("tagged", &["Dark", "dark", "Light", "\\u004cight", "x"]),
];

/// The document: the field's map with the members `picks` names, each
/// valued with its index (so each member is told by its value).
fn document(field: usize, picks: &[usize], spaced: bool) -> Vec<u8> {
    let (name, spellings) = SPELLINGS[field];
    let members: Vec<String> = picks
        .iter()
        .enumerate()
        .map(|(i, &pick)| {
            let space = if spaced { " " } else { "" };
            format!(
                "{space}\"{}\"{space}:{space}{i}",
                spellings[pick % spellings.len()]
            )
        })
        .collect();
    let tag = if name == "tagged" {
        r#""type":"Map","#
    } else {
        ""
    };
    let members = members.join(",");
    let members = if tag.is_empty() || members.is_empty() {
        members
    } else {
        format!(",{members}")
    };
    let tag = tag.trim_end_matches(',');
    format!(r#"{{"{name}":{{{tag}{members}}}}}"#).into_bytes()
}

/// The byte traversals and lookups over `$map` (a path to a map) against
/// the same optics on the value serde_json decodes from `$bytes`.
macro_rules! compare {
    ($bytes:expr, $value:expr, $map:expr) => {{
        let (bytes, value): (&[u8], &Maps) = ($bytes, $value);
        let map = $map;
        let each_value = map.then(each());
        // Strict: the members serde keeps, in document order.
        let mut expected: Vec<u32> = each_value.iter(value).copied().collect();
        expected.sort_unstable();
        let duplicates = Duplicates::new();
        let strict = Strict::<Maps>::validated(bytes, &duplicates).unwrap();
        let read: Vec<u32> = strict.read_each(each_value).map(Option::unwrap).collect();
        prop_assert!(
            read.windows(2).all(|w| w[0] < w[1]),
            "not in document order: {:?}",
            read
        );
        prop_assert_eq!(&read, &expected);
        prop_assert_eq!(strict.iter(each_value).count(), expected.len());
        let sum = |acc: u32, v: &u32| acc + v;
        prop_assert_eq!(
            strict.fold(each_value, 0, sum),
            value.fold(each_value, 0, sum)
        );
        // Trusting: every member, in document order.
        let json = Json::<Maps>::new(bytes);
        let all: Vec<u32> = json.read_each(each_value).map(Option::unwrap).collect();
        let members = all.len() as u32;
        prop_assert_eq!(all, (0..members).collect::<Vec<_>>());
        // Lookups: the value serde keeps under each key, trusting and strict.
        for (k, v) in map.preview(value).unwrap().iter() {
            prop_assert_eq!(json.read(map.then(key(k))), Some(*v));
            prop_assert_eq!(strict.read(map.then(key(k))), Some(*v));
        }
        // A write writes every member, trusting or strict; serde reads
        // back the map the value's write gives.
        let mut set = map.preview(value).unwrap().clone();
        set.values_mut().for_each(|v| *v = 99);
        for written in [
            json.set_all(each_value, &99),
            strict.set_all(each_value, &99),
        ] {
            let back: Maps = serde_json::from_slice(&written.unwrap()).unwrap();
            prop_assert_eq!(map.preview(&back), Some(&set));
        }
        prop_assert!(!duplicates.met());
    }};
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::scale::scaled(1024)))]

    /// Over maps whose keys have several spellings, byte traversals and
    /// lookups read what serde_json reads: a strict traversal the members
    /// serde keeps, a trusting one every member, `key(k)` the last member
    /// of the key.
    #[test]
    fn byte_reads_over_maps_agree_with_serde_json(
        field in 0..SPELLINGS.len(),
        picks in proptest::collection::vec(0usize..8, 0..8),
        spaced in any::<bool>(),
    ) {
        let bytes = document(field, &picks, spaced);
        let Ok(value) = serde_json::from_slice::<Maps>(&bytes) else {
            return Ok(());
        };
        match field {
            0 => compare!(&bytes, &value, Maps::small),
            1 => compare!(&bytes, &value, Maps::wide),
            2 => compare!(&bytes, &value, Maps::unsigned),
            3 => compare!(&bytes, &value, Maps::flags),
            4 => compare!(&bytes, &value, Maps::shades),
            5 => compare!(&bytes, &value, Maps::ids),
            6 => compare!(&bytes, &value, Maps::letters),
            7 => compare!(&bytes, &value, Maps::names),
            _ => compare!(&bytes, &value, Maps::tagged.then(some()).then(Tagged::map)),
        }
    }
}
