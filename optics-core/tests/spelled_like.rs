//! Models whose names, keys and field types are spelled like something the
//! derive looks for: a struct named `Value` or `Map`, raw identifiers, keys
//! that JSON must escape, `Option` written in other ways, borrowed fields. The
//! byte reader must find what serde_json finds, and the derive must not take
//! one thing for another.

mod support;

use std::borrow::Cow;

use optics_core::prelude::*;
use serde::{Deserialize, Serialize};
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

/// Raw identifiers: serde reads the name without `r#`, and so do the optics.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Raw {
    r#type: String,
    #[serde(alias = "r#fn")]
    r#fn: u8,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "tag", rename_all_fields = "UPPERCASE")]
enum RawVariants {
    r#Type(Raw),
    Loop { r#match: u8 },
}

#[test]
fn raw_identifiers_read_the_names_serde_reads() {
    let doc = r#"{"type":"x","fn":1}"#;
    assert_eq!(agree(doc, Raw::r#type), Some("x".to_owned()));
    assert_eq!(agree(doc, Raw::r#fn), Some(1));
    assert_eq!(agree(r#"{"type":"x","r#fn":2}"#, Raw::r#fn), Some(2));
    let doc = r#"{"tag":"Type","type":"y","fn":3}"#;
    assert_eq!(agree(doc, RawVariants::r#type.then(Raw::r#fn)), Some(3));
    assert_eq!(
        agree(r#"{"tag":"Loop","MATCH":4}"#, RawVariants::loop_match),
        Some(4)
    );
}

/// Keys JSON must escape, or may spell with escapes.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Escaped {
    #[serde(rename = "a\"b")]
    quote: u8,
    #[serde(rename = "tab\there")]
    tab: u8,
    #[serde(rename = "é")]
    accent: u8,
    #[serde(rename = "\u{1}")]
    control: u8,
    #[serde(rename = "")]
    empty: u8,
    #[serde(rename = "back\\slash")]
    backslash: u8,
    #[serde(rename = "😀")]
    astral: u8,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t\"y")]
enum EscapedTags {
    #[serde(rename = "a\"b")]
    One { x: u8 },
    #[serde(rename = "")]
    Two { x: u8 },
}

#[test]
fn escaped_keys_are_found_where_serde_finds_them() {
    let value = Escaped {
        quote: 1,
        tab: 2,
        accent: 3,
        control: 4,
        empty: 5,
        backslash: 6,
        astral: 7,
    };
    let written = serde_json::to_string(&value).unwrap();
    let spelled = r#"{"a\u0022b":1,"tab\u0009here":2,"\u00e9":3,"\u0001":4,"":5,"back\u005cslash":6,"\ud83d\ude00":7}"#;
    for doc in [written.as_str(), spelled] {
        assert_eq!(agree(doc, Escaped::quote), Some(1), "{doc}");
        assert_eq!(agree(doc, Escaped::tab), Some(2), "{doc}");
        assert_eq!(agree(doc, Escaped::accent), Some(3), "{doc}");
        assert_eq!(agree(doc, Escaped::control), Some(4), "{doc}");
        assert_eq!(agree(doc, Escaped::empty), Some(5), "{doc}");
        assert_eq!(agree(doc, Escaped::backslash), Some(6), "{doc}");
        assert_eq!(agree(doc, Escaped::astral), Some(7), "{doc}");
    }
    for doc in [
        r#"{"t\"y":"a\"b","x":1}"#,
        r#"{"t\u0022y":"\u0061\u0022b","x":1}"#,
        r#"{"x":2,"t\"y":""}"#,
    ] {
        agree(doc, EscapedTags::one_x);
        agree(doc, EscapedTags::two_x);
        agree(doc, EscapedTags::kind);
    }
}

type Maybe<T> = Option<T>;

/// `Option` however it is spelled: serde reads a missing key as `None` by
/// asking the type, not by its spelling.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Spellings {
    a: ::std::option::Option<u8>,
    b: core::option::Option<u8>,
    c: Maybe<u8>,
    d: u8,
}

#[test]
fn an_option_reads_a_missing_key_as_none_however_it_is_spelled() {
    let doc = r#"{"d":1}"#;
    assert_eq!(agree(doc, Spellings::a), Some(None));
    assert_eq!(agree(doc, Spellings::b), Some(None));
    assert_eq!(agree(doc, Spellings::c), Some(None));
    assert_eq!(agree(r#"{"c":2,"d":1}"#, Spellings::c), Some(Some(2)));
}

/// Borrowed fields: a string with escapes cannot be borrowed, by serde or
/// by a byte read, directly, in an internally tagged payload and flattened.
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Borrowed<'a> {
    s: &'a str,
    b: &'a [u8],
    o: Option<&'a str>,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "type")]
enum Tagged<'a> {
    #[serde(borrow)]
    One(Borrowed<'a>),
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Flat<'a> {
    id: u8,
    #[serde(flatten, borrow)]
    inner: Borrowed<'a>,
}

#[test]
fn borrowed_fields_fail_on_escapes_as_serde_does() {
    let fields = [r#""s":"a""#, r#""b":"c""#, r#""o":"d""#];
    for escaped in 0..=fields.len() {
        let mut members: Vec<String> = fields.iter().map(|m| (*m).to_owned()).collect();
        if let Some(member) = members.get_mut(escaped) {
            member.insert_str(member.len() - 1, "\\n");
        }
        let members = members.join(",");
        let direct = format!("{{{members}}}");
        let tagged = format!(r#"{{"type":"One",{members}}}"#);
        let late_tag = format!(r#"{{{members},"type":"One"}}"#);
        let flat = format!(r#"{{"id":1,{members}}}"#);
        let direct_ok = serde_json::from_str::<Borrowed>(&direct).is_ok();
        assert_eq!(direct_ok, escaped == fields.len(), "{direct}");
        for (i, optic_read) in [
            (
                0,
                Json::<Borrowed>::new(direct.as_bytes())
                    .read(Borrowed::s)
                    .is_some(),
            ),
            (
                1,
                Json::<Borrowed>::new(direct.as_bytes())
                    .read(Borrowed::b)
                    .is_some(),
            ),
            (
                2,
                Json::<Borrowed>::new(direct.as_bytes())
                    .read(Borrowed::o)
                    .is_some(),
            ),
        ] {
            assert_eq!(optic_read, i != escaped, "{i} in {direct}");
        }
        for doc in [&tagged, &late_tag] {
            assert_eq!(
                serde_json::from_str::<Tagged>(doc).is_ok(),
                direct_ok,
                "{doc}"
            );
            let json = Json::<Tagged>::new(doc.as_bytes());
            assert_eq!(
                json.read(Tagged::one.then(Borrowed::s)).is_some(),
                escaped != 0,
                "{doc}"
            );
            assert_eq!(
                json.read(Tagged::one.then(Borrowed::o)).is_some(),
                escaped != 2,
                "{doc}"
            );
        }
        assert_eq!(
            serde_json::from_str::<Flat>(&flat).is_ok(),
            direct_ok,
            "{flat}"
        );
        let json = Json::<Flat>::new(flat.as_bytes());
        assert_eq!(
            json.read(Flat::inner.then(Borrowed::s)).is_some(),
            escaped != 0,
            "{flat}"
        );
    }
}

/// Types of the user's named like standard collections, whose defaults are
/// not empty: the derive spells them as it spells `Vec` and `BTreeSet`, and
/// must not take them for those.
mod named_like_collections {
    use optics_core::Optics;
    use serde::{Deserialize, Serialize};

    #[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
    pub struct Vec {
        pub items: std::vec::Vec<u32>,
    }

    impl Default for Vec {
        fn default() -> Self {
            Vec { items: vec![1] }
        }
    }

    #[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
    pub struct BTreeSet<T> {
        pub items: std::vec::Vec<T>,
    }

    impl<T: Default> Default for BTreeSet<T> {
        fn default() -> Self {
            BTreeSet {
                items: vec![T::default()],
            }
        }
    }
}

/// Named by path, and brought in by `use` so that they are spelled as the
/// standard ones are.
mod uses_named_like_collections {
    use super::named_like_collections::{BTreeSet, Vec};
    use optics_core::Optics;
    use serde::Deserialize;

    #[derive(Optics, Deserialize, Debug)]
    pub struct ByPath {
        #[serde(default)]
        pub list: super::named_like_collections::Vec,
    }

    #[derive(Optics, Deserialize, Debug)]
    pub struct Imported<T> {
        #[serde(default)]
        pub list: Vec,
        #[serde(skip_deserializing)]
        pub set: BTreeSet<T>,
    }

    #[derive(Optics, Deserialize, Debug)]
    pub enum Variant {
        Listed {
            #[serde(default)]
            list: Vec,
        },
    }
}

#[test]
fn a_fold_past_a_type_named_like_a_standard_collection_does_not_take_it_for_one() {
    use named_like_collections::{BTreeSet, Vec};
    use optics_core::json::{Duplicates, Strict};
    use uses_named_like_collections::{ByPath, Imported, Variant};

    let one = |&n: &u32| n == 1;
    // Each default holds a 1: the value answers it, the bytes cannot.
    let bytes = br#"{}"#;
    let by_path = ByPath::list.then(Vec::items).then(each());
    let value: ByPath = serde_json::from_slice(bytes).unwrap();
    assert_eq!((&value).any(by_path, one), Some(true));
    assert_eq!(Json::<ByPath>::new(bytes).any(by_path, one), None);
    let duplicates = Duplicates::new();
    let strict = Strict::<ByPath>::validated(bytes, &duplicates).unwrap();
    assert_eq!(strict.any(by_path, one), None);

    let list = Imported::<u32>::list.then(Vec::items).then(each());
    let set = Imported::<u32>::set
        .then(BTreeSet::<u32>::items)
        .then(each());
    let value: Imported<u32> = serde_json::from_slice(bytes).unwrap();
    let json = Json::<Imported<u32>>::new(bytes);
    assert_eq!((&value).any(list, one), Some(true));
    assert_eq!(json.any(list, one), None);
    assert_eq!((&value).all(set, |&n| n == 7), Some(false));
    assert_eq!(json.all(set, |&n| n == 7), None);
    assert_eq!((&value).fold(set, 0, |n, _| n + 1), Some(1));
    assert_eq!(json.fold(set, 0, |n, _| n + 1), None);
    // The field itself reads as serde fills it in.
    assert_eq!(json.read(Imported::<u32>::list), Some(Vec::default()));

    let variant = br#"{"Listed":{}}"#;
    let listed = Variant::listed_list.then(Vec::items).then(each());
    let value: Variant = serde_json::from_slice(variant).unwrap();
    assert_eq!((&value).any(listed, one), Some(true));
    assert_eq!(Json::<Variant>::new(variant).any(listed, one), None);

    // Present, they fold as the value does.
    let present = br#"{"list":{"items":[2]}}"#;
    let value: ByPath = serde_json::from_slice(present).unwrap();
    assert_eq!((&value).any(by_path, one), Some(false));
    assert_eq!(Json::<ByPath>::new(present).any(by_path, one), Some(false));
}
