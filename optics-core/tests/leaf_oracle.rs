//! The leaf decoder checked against serde_json, the oracle.
//!
//! `optics_core::json::decode` reads short strings, small non-negative
//! integers, bools and `null` without serde_json, and hands everything else to
//! it. For every input here, and every type of a long list, it must give what
//! `serde_json::from_slice` gives: the same value, or an error on both.
//! [`Record`] goes further: it logs every visitor call a deserializer makes, so
//! the two must also make the same calls (`visit_borrowed_str`, not
//! `visit_str`; `visit_u64` for `7` whatever number was asked for).
//!
//! Inputs are valid values with whitespace around them, a list of tricky
//! fragments (leading zeros, escapes, raw control characters, invalid UTF-8,
//! numbers past `u64`, trailing bytes), byte-level mutations of serialized
//! values, and short random strings over JSON's alphabet.

mod support;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::{self, Debug};

use optics_core::json::decode;
use proptest::prelude::*;
use serde::de::{
    DeserializeSeed, Deserializer, EnumAccess, IgnoredAny, MapAccess, SeqAccess, VariantAccess,
    Visitor,
};
use serde::Deserialize;
use serde_json::value::RawValue;
use support::edit::edit_one_byte;

// ---------------------------------------------------------------------------
// Types to decode

#[derive(Deserialize, Debug, PartialEq)]
struct Unit;

#[derive(Deserialize, Debug, PartialEq)]
struct Votes(u32);

#[derive(Deserialize, Debug, PartialEq)]
struct Name(String);

#[derive(Deserialize, Debug, PartialEq)]
struct Wrapped(Option<Votes>);

#[derive(Deserialize, Debug, PartialEq)]
enum Tier {
    Critical,
    #[serde(rename = "std", alias = "Standard")]
    Standard,
    #[serde(rename = "é")]
    Accented,
}

#[derive(Deserialize, Debug, PartialEq)]
enum Shape {
    Dot,
    Circle(u8),
    Pair(u8, u8),
    Rect { w: u8 },
}

#[derive(Deserialize, Debug, PartialEq)]
#[serde(untagged)]
enum Either {
    Number(u64),
    Text(String),
}

#[derive(Deserialize, Debug, PartialEq)]
struct Point {
    x: u8,
}

/// A value that does not read its deserializer at all: serde_json then finds
/// the bytes unread and rejects them as trailing characters (unless there
/// are none).
#[derive(Debug, PartialEq)]
struct Constant;

impl<'de> Deserialize<'de> for Constant {
    fn deserialize<D: Deserializer<'de>>(_: D) -> Result<Self, D::Error> {
        Ok(Constant)
    }
}

#[derive(Deserialize, Debug, PartialEq)]
struct AroundConstant(Constant);

/// An enum whose variant name is never read: asked for as an enum, it takes
/// the variant without deserializing its name.
#[derive(Debug, PartialEq)]
struct Blind;

impl<'de> Deserialize<'de> for Blind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Unread;
        impl<'de> DeserializeSeed<'de> for Unread {
            type Value = ();
            fn deserialize<D: Deserializer<'de>>(self, _: D) -> Result<(), D::Error> {
                Ok(())
            }
        }
        struct BlindVisitor;
        impl<'de> Visitor<'de> for BlindVisitor {
            type Value = Blind;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an enum")
            }
            fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Blind, A::Error> {
                let ((), variant) = data.variant_seed(Unread)?;
                variant.unit_variant()?;
                Ok(Blind)
            }
        }
        d.deserialize_enum("Blind", &["A"], BlindVisitor)
    }
}

/// Which `deserialize_*` method a [`Record`] asks for.
#[derive(Clone, Copy, Debug)]
enum Ask {
    Any,
    Bool,
    U8,
    I32,
    U64,
    F32,
    F64,
    U128,
    Char,
    Str,
    String,
    Bytes,
    Option,
    Unit,
    UnitStruct,
    Newtype,
    Seq,
    Map,
    Enum,
    Identifier,
    IgnoredAny,
}

const ASKS: [Ask; 21] = [
    Ask::Any,
    Ask::Bool,
    Ask::U8,
    Ask::I32,
    Ask::U64,
    Ask::F32,
    Ask::F64,
    Ask::U128,
    Ask::Char,
    Ask::Str,
    Ask::String,
    Ask::Bytes,
    Ask::Option,
    Ask::Unit,
    Ask::UnitStruct,
    Ask::Newtype,
    Ask::Seq,
    Ask::Map,
    Ask::Enum,
    Ask::Identifier,
    Ask::IgnoredAny,
];

/// Every visitor call a deserializer makes, in order, asked with the method
/// `ASKS[ASK]`.
#[derive(Debug, PartialEq)]
struct Record<const ASK: usize>(Vec<String>);

/// Deserializes a [`Record`] by asking with `ask`.
#[derive(Clone, Copy)]
struct Asking(Ask);

impl<'de> DeserializeSeed<'de> for Asking {
    type Value = Vec<String>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<String>, D::Error> {
        let log = Log;
        match self.0 {
            Ask::Any => d.deserialize_any(log),
            Ask::Bool => d.deserialize_bool(log),
            Ask::U8 => d.deserialize_u8(log),
            Ask::I32 => d.deserialize_i32(log),
            Ask::U64 => d.deserialize_u64(log),
            Ask::F32 => d.deserialize_f32(log),
            Ask::F64 => d.deserialize_f64(log),
            Ask::U128 => d.deserialize_u128(log),
            Ask::Char => d.deserialize_char(log),
            Ask::Str => d.deserialize_str(log),
            Ask::String => d.deserialize_string(log),
            Ask::Bytes => d.deserialize_bytes(log),
            Ask::Option => d.deserialize_option(log),
            Ask::Unit => d.deserialize_unit(log),
            Ask::UnitStruct => d.deserialize_unit_struct("Unit", log),
            Ask::Newtype => d.deserialize_newtype_struct("Newtype", log),
            Ask::Seq => d.deserialize_seq(log),
            Ask::Map => d.deserialize_map(log),
            Ask::Enum => d.deserialize_enum("Enum", &["A", "B"], log),
            Ask::Identifier => d.deserialize_identifier(log),
            Ask::IgnoredAny => d.deserialize_ignored_any(log),
        }
    }
}

/// The visitor that logs each call it gets.
struct Log;

macro_rules! log_values {
    ($($method:ident: $ty:ty),*) => {$(
        fn $method<E: serde::de::Error>(self, v: $ty) -> Result<Vec<String>, E> {
            Ok(vec![format!("{} {:?}", stringify!($method), v)])
        }
    )*};
}

impl<'de> Visitor<'de> for Log {
    type Value = Vec<String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("anything")
    }

    log_values!(
        visit_bool: bool, visit_i64: i64, visit_u64: u64, visit_i128: i128, visit_u128: u128,
        visit_f64: f64, visit_str: &str, visit_borrowed_str: &'de str, visit_string: String,
        visit_bytes: &[u8], visit_borrowed_bytes: &'de [u8], visit_byte_buf: Vec<u8>
    );

    fn visit_unit<E: serde::de::Error>(self) -> Result<Vec<String>, E> {
        Ok(vec!["visit_unit".into()])
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<Vec<String>, E> {
        Ok(vec!["visit_none".into()])
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Vec<String>, D::Error> {
        let mut log = vec!["visit_some".to_owned()];
        log.extend(Asking(Ask::Any).deserialize(d)?);
        Ok(log)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Vec<String>, D::Error> {
        let mut log = vec!["visit_newtype_struct".to_owned()];
        log.extend(Asking(Ask::Str).deserialize(d)?);
        Ok(log)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<String>, A::Error> {
        let mut log = vec!["visit_seq".to_owned()];
        while let Some(element) = seq.next_element_seed(Asking(Ask::Any))? {
            log.extend(element);
        }
        Ok(log)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<String>, A::Error> {
        let mut log = vec!["visit_map".to_owned()];
        while let Some(key) = map.next_key_seed(Asking(Ask::Str))? {
            log.extend(key);
            log.extend(map.next_value_seed(Asking(Ask::Any))?);
        }
        Ok(log)
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Vec<String>, A::Error> {
        let mut log = vec!["visit_enum".to_owned()];
        let (variant, access) = data.variant_seed(Asking(Ask::Identifier))?;
        log.extend(variant);
        access.unit_variant()?;
        log.push("unit_variant".into());
        Ok(log)
    }
}

impl<'de, const ASK: usize> Deserialize<'de> for Record<ASK> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Asking(ASKS[ASK]).deserialize(d).map(Record)
    }
}

// ---------------------------------------------------------------------------
// The oracle

/// `decode::<T>` gives what `serde_json::from_slice::<T>` gives.
fn agree<'a, T>(bytes: &'a [u8]) -> Result<(), TestCaseError>
where
    T: Deserialize<'a> + PartialEq + Debug,
{
    let ours = decode::<T>(bytes);
    let oracle = serde_json::from_slice::<T>(bytes).ok();
    prop_assert_eq!(
        &ours,
        &oracle,
        "{} from {:?}",
        std::any::type_name::<T>(),
        String::from_utf8_lossy(bytes)
    );
    Ok(())
}

/// Both deserializers make the same visitor calls for every `deserialize_*`
/// method, and accept or reject alike.
fn same_calls(bytes: &[u8]) -> Result<(), TestCaseError> {
    macro_rules! each_ask {
        ($($ask:literal)*) => {$( agree::<Record<$ask>>(bytes)?; )*};
    }
    each_ask!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20);
    Ok(())
}

/// Every type of the list agrees on `bytes`.
fn all_agree(bytes: &[u8]) -> Result<(), TestCaseError> {
    agree::<u8>(bytes)?;
    agree::<u16>(bytes)?;
    agree::<u32>(bytes)?;
    agree::<u64>(bytes)?;
    agree::<u128>(bytes)?;
    agree::<i8>(bytes)?;
    agree::<i16>(bytes)?;
    agree::<i32>(bytes)?;
    agree::<i64>(bytes)?;
    agree::<i128>(bytes)?;
    agree::<f32>(bytes)?;
    agree::<f64>(bytes)?;
    agree::<bool>(bytes)?;
    agree::<char>(bytes)?;
    agree::<String>(bytes)?;
    agree::<&str>(bytes)?;
    agree::<Cow<str>>(bytes)?;
    agree::<()>(bytes)?;
    agree::<Unit>(bytes)?;
    agree::<Votes>(bytes)?;
    agree::<Name>(bytes)?;
    agree::<Wrapped>(bytes)?;
    agree::<Option<u32>>(bytes)?;
    agree::<Option<Option<bool>>>(bytes)?;
    agree::<Option<String>>(bytes)?;
    agree::<Option<Tier>>(bytes)?;
    agree::<Tier>(bytes)?;
    agree::<Shape>(bytes)?;
    agree::<Either>(bytes)?;
    agree::<Point>(bytes)?;
    agree::<Vec<u32>>(bytes)?;
    agree::<Vec<String>>(bytes)?;
    agree::<(u8, bool)>(bytes)?;
    agree::<BTreeMap<String, u32>>(bytes)?;
    agree::<serde_json::Value>(bytes)?;
    agree::<IgnoredAny>(bytes)?;
    agree::<Constant>(bytes)?;
    agree::<AroundConstant>(bytes)?;
    agree::<Option<Constant>>(bytes)?;
    agree::<Blind>(bytes)?;
    let raw = |bytes| decode::<&RawValue>(bytes).map(RawValue::get);
    let oracle = serde_json::from_slice::<&RawValue>(bytes)
        .ok()
        .map(RawValue::get);
    prop_assert_eq!(raw(bytes), oracle);
    same_calls(bytes)
}

// ---------------------------------------------------------------------------
// Inputs

/// Values and near-values, each a case of its own for the fast path.
const FRAGMENTS: &[&str] = &[
    "0",
    "7",
    "130",
    "255",
    "256",
    "65535",
    "65536",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999",
    "170141183460469231731687303715884105727",
    "170141183460469231731687303715884105728",
    "-170141183460469231731687303715884105728",
    "-170141183460469231731687303715884105729",
    "340282366920938463463374607431768211455",
    "340282366920938463463374607431768211456",
    "-00",
    "-",
    "-340282366920938463463374607431768211455",
    "-340282366920938463463374607431768211456",
    "1000000000000000000000000000000000000000000000000000000000000",
    "-1000000000000000000000000000000000000000000000000000000000000",
    "1.0",
    "1e2",
    "-0.0",
    "-1e2",
    "0000",
    "--1",
    "-+1",
    "00",
    "01",
    "-0",
    "-1",
    "-129",
    "1.",
    "1.5",
    ".5",
    "1e3",
    "1E3",
    "1e",
    "+1",
    "0x1",
    "1_000",
    "\"\"",
    "\"a\"",
    "\"Critical\"",
    "\"std\"",
    "\"Standard\"",
    "\"é\"",
    "\"Dot\"",
    "\"Circle\"",
    "\"A\"",
    "\"B\"",
    "\"Sev1\"",
    "\"a rather long plain string, past a word or two\"",
    "\"C\\u0072itical\"",
    "\"a\\\"b\"",
    "\"a\\\\b\"",
    "\"\\n\"",
    "\"\\ud83d\\ude00\"",
    "\"\\ud800\"",
    "\"\\q\"",
    "\"a\u{1}b\"",
    "\"tab\there\"",
    "\"\u{7f}\"",
    "\"ünïcödé text, long enough for words\"",
    "\"unterminated",
    "\"two\" \"strings\"",
    "\"x\"y",
    "true",
    "false",
    "null",
    "nul",
    "nulll",
    "True",
    "tru",
    "[]",
    "[1,2]",
    "[\"a\",\"b\"]",
    "[1,true]",
    "[1,",
    "{}",
    "{\"x\":1}",
    "{\"x\":1,\"x\":2}",
    "{\"a\":1}",
    "{\"Circle\":3}",
    "{\"Pair\":[1,2]}",
    "{\"Rect\":{\"w\":4}}",
    "{\"Dot\":null}",
    "{\"A\":null}",
    "{\"x\":",
    "}",
    "",
    ",",
];

/// What may stand around a value: JSON whitespace, other whitespace serde_json
/// rejects, and stray bytes.
const AROUND: &[&str] = &[
    "", "", "", " ", "\t", "\n", "\r\n", " \t\n\r ", "\u{c}", "\u{a0}", "\u{feff}", ",", "x", "0",
    "\"", "]", "}", "/",
];

/// Bytes that matter to a JSON scanner, for mutations and random strings.
const ALPHABET: &[u8] = b"\"\\ \t\n\r0123456789-+.eEtrufalsn[]{},:abu\x01\x1f\x7f\xc3\xa9\xff/";

fn around() -> impl Strategy<Value = &'static str> {
    prop::sample::select(AROUND)
}

/// A serialized value: what serde_json writes for numbers, strings and bools.
fn serialized() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        any::<u64>().prop_map(|v| serde_json::to_vec(&v).unwrap()),
        (0u64..300).prop_map(|v| serde_json::to_vec(&v).unwrap()),
        any::<i64>().prop_map(|v| serde_json::to_vec(&v).unwrap()),
        any::<f64>().prop_map(|v| serde_json::to_vec(&v).unwrap()),
        any::<bool>().prop_map(|v| serde_json::to_vec(&v).unwrap()),
        any::<String>().prop_map(|v| serde_json::to_vec(&v).unwrap()),
        "[ -~]{0,20}".prop_map(|v| serde_json::to_vec(&v).unwrap()),
        prop::sample::select(&["Critical", "std", "Standard", "é", "Dot", "Circle"][..])
            .prop_map(|v| serde_json::to_vec(&v).unwrap()),
        any::<Option<u32>>().prop_map(|v| serde_json::to_vec(&v).unwrap()),
        prop::collection::vec(any::<u32>(), 0..3).prop_map(|v| serde_json::to_vec(&v).unwrap()),
    ]
}

/// One edit of `bytes`: replace, insert or delete a byte.
fn mutated() -> impl Strategy<Value = Vec<u8>> {
    (
        serialized(),
        any::<prop::sample::Index>(),
        0..3u8,
        prop::sample::select(ALPHABET),
    )
        .prop_map(|(mut bytes, at, edit, byte)| {
            let at = at.index(bytes.len() + 1);
            edit_one_byte(&mut bytes, at, edit, byte);
            bytes
        })
}

fn wrapped(inner: impl Strategy<Value = Vec<u8>>) -> impl Strategy<Value = Vec<u8>> {
    (around(), inner, around()).prop_map(|(before, inner, after)| {
        let mut bytes = before.as_bytes().to_vec();
        bytes.extend_from_slice(&inner);
        bytes.extend_from_slice(after.as_bytes());
        bytes
    })
}

// ---------------------------------------------------------------------------
// Tests

#[test]
fn every_fragment_alone_and_with_whitespace() {
    for fragment in FRAGMENTS {
        for (before, after) in [("", ""), (" \t", "\r\n "), ("", " "), (" ", "")] {
            let bytes = format!("{before}{fragment}{after}");
            if let Err(error) = all_agree(bytes.as_bytes()) {
                panic!("{error}");
            }
        }
    }
}

#[test]
fn invalid_utf8_in_a_string() {
    for bytes in [
        &b"\"\xff\""[..],
        b"\"\xc3\"",
        b"\"a\xc3\xa9\xff\"",
        b"\"\xed\xa0\x80\"",
        b"\"long enough to be read a word at a time \xff\"",
    ] {
        if let Err(error) = all_agree(bytes) {
            panic!("{error}");
        }
    }
}

#[test]
fn a_leaf_borrows_a_plain_string_and_reads_small_numbers() {
    let text: &str = decode(br#""checkout""#).unwrap();
    assert_eq!(text, "checkout");
    assert_eq!(decode::<Cow<str>>(br#""a""#), Some(Cow::Owned("a".into())));
    assert_eq!(decode::<Tier>(br#" "std" "#), Some(Tier::Standard));
    assert_eq!(decode::<Votes>(b"130"), Some(Votes(130)));
    assert_eq!(decode::<Wrapped>(b"null"), Some(Wrapped(None)));
    assert_eq!(decode::<u8>(b"256"), None);
    assert_eq!(decode::<u32>(b"01"), None);
    assert_eq!(decode::<Shape>(br#""Circle""#), None);
    assert_eq!(decode::<String>(b"\"a\x01\""), None);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(support::scaled(2000)))]

    #[test]
    fn fragments_with_anything_around(bytes in wrapped(prop::sample::select(FRAGMENTS).prop_map(|f| f.as_bytes().to_vec()))) {
        all_agree(&bytes)?;
    }

    #[test]
    fn serialized_values(bytes in wrapped(serialized())) {
        all_agree(&bytes)?;
    }

    #[test]
    fn mutated_values(bytes in mutated()) {
        all_agree(&bytes)?;
    }

    #[test]
    fn random_bytes(bytes in prop::collection::vec(prop::sample::select(ALPHABET), 0..14)) {
        all_agree(&bytes)?;
    }
}
