//! The byte scanner checked against serde_json, the oracle: whatever serde_json
//! reads at a key or index, the scanner must find there, byte for byte; and no
//! input, however broken or cut short, may make it panic or return a cut value.

mod support;

use optics_core::json::scan::{
    array_element, first_member, is_null, object_field, object_last, raw_eq, skip_value,
    string_raw, trim, validate, Lookup,
};
use proptest::prelude::*;
use serde_json::{Map, Value};
use std::time::{Duration, Instant};
use support::scan_calls::run_every_scan_fn;

// ---------------------------------------------------------------------------
// Strategies

/// Text that stresses the scanner: quotes, backslashes, brackets, control
/// characters, non-ASCII of every UTF-8 width.
fn text() -> impl Strategy<Value = String> {
    let tricky = prop::sample::select(vec![
        '"', '\\', '{', '}', '[', ']', ':', ',', ' ', '\n', '\t', '\u{1}', '\u{1f}', '/', 'é', '€',
        '😀', '\u{7f}', '\u{2028}', '\u{ffff}',
    ]);
    prop::collection::vec(
        prop_oneof![4 => prop::char::range('a', 'e'), 2 => tricky, 1 => any::<char>()],
        0..12,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from), // non-finite becomes null
        (-1000i32..1000, -30i32..30).prop_map(|(m, e)| Value::from(f64::from(m) * 10f64.powi(e))),
        text().prop_map(Value::String),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((text(), inner), 0..6)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

fn object() -> impl Strategy<Value = Value> {
    prop::collection::vec((text(), value()), 0..8)
        .prop_map(|members| Value::Object(members.into_iter().collect()))
}

/// JSON whitespace, possibly none.
fn whitespace() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(vec![' ', '\t', '\n', '\r']), 0..4)
        .prop_map(|chars| chars.into_iter().collect())
}

/// A document as serde_json writes it, compact or pretty, with the value serde_json
/// reads back from it (so floats are compared as parsed, not as generated).
fn serialized(value: &Value, pretty: bool) -> (String, Value) {
    let text = match pretty {
        true => serde_json::to_string_pretty(value),
        false => serde_json::to_string(value),
    }
    .expect("a Value serializes");
    let oracle = serde_json::from_str(&text).expect("serde_json reads its own output");
    (text, oracle)
}

fn parse(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes)
        .unwrap_or_else(|e| panic!("scanner returned {:?}: {e}", String::from_utf8_lossy(bytes)))
}

fn padded(before: &str, bytes: &[u8], after: &str) -> Vec<u8> {
    [before.as_bytes(), bytes, after.as_bytes()].concat()
}

/// A key that no generated object holds (the generator's text is at most 12
/// characters long).
const ABSENT: &str = "absent key that is longer than any generated one";

// ---------------------------------------------------------------------------
// The walk: every key and index of a document, checked against the oracle

/// Checks every lookup on `node`, the exact bytes of one value, against `oracle`,
/// then recurses into the values it found; each check is repeated with `pad`
/// around the bytes.
fn check_node(node: &[u8], oracle: &Value, pad: &(String, String)) {
    let wrapped = padded(&pad.0, node, &pad.1);
    assert_eq!(parse(node), *oracle);
    assert_eq!(skip_value(node, 0), Some(node.len()));
    assert_eq!(skip_value(&wrapped, 0), Some(pad.0.len() + node.len()));
    assert_eq!(trim(&wrapped), node);
    assert_eq!(is_null(&wrapped), oracle.is_null());
    assert_eq!(validate(&wrapped), Ok(()));

    match oracle {
        Value::Object(map) => {
            for (key, expected) in map {
                let Lookup::Found(found) = object_field(node, &[key]) else {
                    panic!(
                        "key {key:?} not found in {:?}",
                        String::from_utf8_lossy(node)
                    );
                };
                assert_eq!(parse(found), *expected);
                assert_eq!(object_field(&wrapped, &[ABSENT, key]), Lookup::Found(found));
                assert_eq!(object_last(node, key), Lookup::Found(found));
                assert_eq!(object_last(&wrapped, key), Lookup::Found(found));
                check_node(found, expected, pad);
            }
            assert_eq!(object_field(node, &[ABSENT]), Lookup::Missing);
            assert_eq!(object_field(&wrapped, &[ABSENT]), Lookup::Missing);
            assert_eq!(object_last(&wrapped, ABSENT), Lookup::Missing);
            assert_eq!(object_field(node, &[]), Lookup::Missing);
            match first_member(&wrapped) {
                Some((raw_key, value)) => {
                    assert_eq!(map.len(), 1);
                    let (key, expected) = map.iter().next().expect("one member");
                    assert!(raw_eq(raw_key, key.as_bytes()));
                    assert_eq!(parse(value), *expected);
                }
                None => assert_ne!(map.len(), 1),
            }
            assert_eq!(array_element(node, 0), None);
        }
        Value::Array(items) => {
            for (index, expected) in items.iter().enumerate() {
                let found = array_element(node, index).expect("element in range");
                assert_eq!(parse(found), *expected);
                assert_eq!(array_element(&wrapped, index), Some(found));
                check_node(found, expected, pad);
            }
            assert_eq!(array_element(node, items.len()), None);
            assert_eq!(array_element(&wrapped, items.len() + 7), None);
            assert_eq!(object_field(node, &["a"]), Lookup::Malformed);
        }
        Value::String(text) => {
            let raw = string_raw(&wrapped).expect("a string");
            assert!(raw_eq(raw, text.as_bytes()));
            assert!(!raw_eq(raw, format!("{text}x").as_bytes()));
            assert!(text.is_empty() || !raw_eq(raw, &text.as_bytes()[1..]));
            assert_eq!(object_field(node, &["a"]), Lookup::Malformed);
        }
        _ => {
            assert_eq!(string_raw(node), None);
            assert_eq!(object_field(node, &["a"]), Lookup::Malformed);
            assert_eq!(array_element(node, 0), None);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(support::scaled(256)))]

    #[test]
    fn every_key_and_index_matches_serde_json(
        root in prop_oneof![3 => object(), 1 => value()],
        pretty: bool,
        pad in (whitespace(), whitespace()),
    ) {
        let (text, oracle) = serialized(&root, pretty);
        check_node(text.as_bytes(), &oracle, &pad);
    }

    /// Hand-built objects with repeated keys, some written with `\u` escapes:
    /// `object_last` agrees with serde_json's map (last wins), `object_field`
    /// finds the first.
    #[test]
    fn repeated_keys_follow_serde_json(
        members in prop::collection::vec(
            (prop::sample::select(vec!["a", "b", "é", "😀", "a\"b", "k\\", ""]), any::<bool>(), leaf()),
            0..10,
        ),
        (gap, pad) in (whitespace(), whitespace()),
    ) {
        let body: Vec<String> = members
            .iter()
            .map(|(key, escape, value)| {
                let key = if *escape { escape_all(key) } else { serde_json::to_string(key).unwrap() };
                format!("{key}{gap}:{gap}{}", serde_json::to_string(value).unwrap())
            })
            .collect();
        let text = format!("{pad}{{{gap}{}{gap}}}{pad}", body.join(&format!("{gap},{gap}")));
        let oracle: Map<String, Value> = serde_json::from_str(&text).unwrap();
        for key in ["a", "b", "é", "😀", "a\"b", "k\\", "", "c"] {
            match oracle.get(key) {
                Some(expected) => {
                    let Lookup::Found(found) = object_last(text.as_bytes(), key) else {
                        panic!("{key:?} not found in {text}");
                    };
                    prop_assert_eq!(&parse(found), expected);
                    let first = members.iter().find(|m| m.0 == key).expect("the key was written");
                    let first: Value = serde_json::from_str(&serde_json::to_string(&first.2).unwrap()).unwrap();
                    let Lookup::Found(found) = object_field(text.as_bytes(), &[key]) else {
                        panic!("{key:?} not found in {text}");
                    };
                    prop_assert_eq!(parse(found), first);
                }
                None => {
                    prop_assert_eq!(object_last(text.as_bytes(), key), Lookup::Missing);
                    prop_assert_eq!(object_field(text.as_bytes(), &[key]), Lookup::Missing);
                }
            }
        }
    }

    /// Every prefix of a valid document: no panic, and a value is only returned
    /// when it is complete (equal to the one in the whole document).
    #[test]
    fn truncations_never_return_a_cut_value(root in object(), items in prop::collection::vec(value(), 0..5), pretty: bool) {
        let (text, oracle) = serialized(&root, pretty);
        let Value::Object(map) = &oracle else { unreachable!("object() makes objects") };
        let whole: Vec<(&String, &[u8])> = map
            .keys()
            .map(|key| match object_field(text.as_bytes(), &[key]) {
                Lookup::Found(found) => (key, found),
                other => panic!("{key:?}: {other:?}"),
            })
            .collect();
        let (array_text, array_oracle) = serialized(&Value::Array(items), pretty);
        let elements: Vec<&[u8]> = (0..array_oracle.as_array().map_or(0, Vec::len))
            .map(|i| array_element(array_text.as_bytes(), i).expect("in range"))
            .collect();

        for cut in 0..text.len() {
            let prefix = &text.as_bytes()[..cut];
            run_every_scan_fn(prefix);
            prop_assert_eq!(skip_value(prefix, 0), None);
            prop_assert_eq!(first_member(prefix), None);
            for (key, found) in &whole {
                match object_field(prefix, &[key.as_str()]) {
                    Lookup::Found(value) => prop_assert_eq!(value, *found),
                    Lookup::Missing => panic!("{key:?} missing from an unclosed object"),
                    Lookup::Malformed => {}
                }
                prop_assert_eq!(object_last(prefix, key), Lookup::Malformed);
            }
            prop_assert_eq!(object_field(prefix, &[ABSENT]), Lookup::Malformed);
        }
        for cut in 0..array_text.len() {
            let prefix = &array_text.as_bytes()[..cut];
            prop_assert_eq!(skip_value(prefix, 0), None);
            for (index, element) in elements.iter().enumerate() {
                if let Some(found) = array_element(prefix, index) {
                    prop_assert_eq!(found, *element);
                }
            }
        }
    }

    /// Arbitrary bytes, leaning on JSON punctuation, bare and embedded.
    #[test]
    fn arbitrary_bytes_never_panic(
        bytes in prop::collection::vec(
            prop_oneof![
                3 => prop::sample::select(b"{}[]\",:\\ \nu0123456789-+.eEtruefalsn\x80\xff".to_vec()),
                1 => any::<u8>(),
            ],
            0..200,
        ),
    ) {
        run_every_scan_fn(&bytes);
        run_every_scan_fn(&[b"{\"a\":", &bytes[..], b",\"b\":1}"].concat());
        run_every_scan_fn(&[b"[", &bytes[..], b"]"].concat());
    }

    /// Whatever skip_value and validate say about valid documents, they say the same
    /// thing inside a bigger one: skip_value finds the end exactly.
    #[test]
    fn skip_value_stops_exactly(root in value(), pretty: bool, pad in whitespace(), tail in "[ ,:\\]}]{0,3}") {
        let (text, _) = serialized(&root, pretty);
        let bytes = format!("{pad}{text}{tail}");
        prop_assert_eq!(skip_value(bytes.as_bytes(), 0), Some(pad.len() + text.len()));
    }
}

/// Writes every character of `key` as a `\u` escape (surrogate pairs beyond the BMP).
fn escape_all(key: &str) -> String {
    let mut out = String::from("\"");
    for unit in key.encode_utf16() {
        out.push_str(&format!("\\u{unit:04X}"));
    }
    out.push('"');
    out
}

// ---------------------------------------------------------------------------
// Unit tests

#[test]
fn escaped_keys_compare_decoded() {
    let obj = br#"{"x":0,"det\u0061il":{"a":1},"detai\u006C":2}"#;
    assert_eq!(object_field(obj, &["detail"]), Lookup::Found(br#"{"a":1}"#));
    assert_eq!(object_last(obj, "detail"), Lookup::Found(b"2"));
    assert_eq!(
        object_field(br#"{"a\/b":1}"#, &["a/b"]),
        Lookup::Found(b"1")
    );
    assert_eq!(
        object_field(br#"{"a\"b":1}"#, &["a\"b"]),
        Lookup::Found(b"1")
    );
    assert_eq!(
        object_field(br#"{"a\\b":1}"#, &["a\\b"]),
        Lookup::Found(b"1")
    );
    assert_eq!(
        object_field(br#"{"\b\f\n\r\t":1}"#, &["\u{8}\u{c}\n\r\t"]),
        Lookup::Found(b"1")
    );
    // a plain key never equals a text that would need escaping
    assert_eq!(object_field(br#"{"a\\b":1}"#, &["a\\\\b"]), Lookup::Missing);
    assert_eq!(object_field(br#"{"a\qb":1}"#, &["aqb"]), Lookup::Missing);
}

#[test]
fn surrogate_pairs_in_keys() {
    let obj = br#"{"\ud83d\ude00":1,"\uD83D\uDE01":2,"\ud83d":3,"\ude00":4,"\u00e9\u20ac":5}"#;
    assert_eq!(object_field(obj, &["😀"]), Lookup::Found(b"1"));
    assert_eq!(object_field(obj, &["😁"]), Lookup::Found(b"2"));
    assert_eq!(object_field(obj, &["é€"]), Lookup::Found(b"5"));
    // lone surrogates decode to nothing, so they equal no text
    assert_eq!(object_field(obj, &["\u{fffd}"]), Lookup::Missing);
    assert!(!raw_eq(br"\ud83d", "\u{fffd}".as_bytes()));
    assert!(!raw_eq(br"\ud83d\u0041", b"A"));
    assert!(raw_eq(br"x\ud83d\ude00y", "x😀y".as_bytes()));
    assert!(!raw_eq(br"\ud83d\ude0", "😀".as_bytes()));
}

#[test]
fn strings_full_of_escapes_span_blocks() {
    for len in [0, 1, 15, 16, 31, 63, 64, 65, 127, 200] {
        for pattern in ["\\", "\"", "\\\"", "\"\\", "a\\", "]}"] {
            let text: String = pattern.chars().cycle().take(len).collect();
            let doc = serde_json::json!({ "s": text, "deep": [{ "t": text }, [text]], "k": 1 });
            let bytes = serde_json::to_vec(&doc).unwrap();
            assert_eq!(
                object_field(&bytes, &["k"]),
                Lookup::Found(b"1"),
                "{len} {pattern:?}"
            );
            assert_eq!(skip_value(&bytes, 0), Some(bytes.len()));
            let Lookup::Found(found) = object_field(&bytes, &["s"]) else {
                panic!()
            };
            assert!(raw_eq(string_raw(found).unwrap(), text.as_bytes()));
            // the same behind every offset, to move the block edges around
            for shift in 0..64 {
                let shifted = padded(&" ".repeat(shift), &bytes, "");
                assert_eq!(object_field(&shifted, &["k"]), Lookup::Found(b"1"));
                assert_eq!(skip_value(&shifted, 0), Some(shifted.len()));
            }
        }
    }
}

#[test]
fn brackets_inside_strings_are_not_counted() {
    let obj = br#"{"a":["[{", "}]]]", {"b":"{{{"}, "\"]"],"c":{"d":"}"},"e":3}"#;
    assert_eq!(object_field(obj, &["e"]), Lookup::Found(b"3"));
    assert_eq!(object_field(obj, &["c"]), Lookup::Found(br#"{"d":"}"}"#));
    assert_eq!(
        array_element(br#"["]", "[", "}"]"#, 2),
        Some(&br#""}""#[..])
    );
    assert_eq!(skip_value(br#"["\\", "]"]"#, 0), Some(11));
}

#[test]
fn deep_nesting_is_rejected_quickly_without_recursion() {
    let started = Instant::now();
    let open = "[".repeat(100_000);
    let bytes = open.as_bytes();
    assert_eq!(skip_value(bytes, 0), None);
    assert_eq!(array_element(bytes, 0), None);
    assert_eq!(object_field(bytes, &["a"]), Lookup::Malformed);
    // Refused at the level serde_json refuses, before the end is reached.
    let error = validate(bytes).unwrap_err();
    assert_eq!((error.what, error.offset), ("nesting too deep", 127));
    let member = format!(r#"{{"a":{open}"#);
    assert_eq!(object_field(member.as_bytes(), &["a"]), Lookup::Malformed);
    assert_eq!(object_last(member.as_bytes(), "b"), Lookup::Malformed);
    assert_eq!(first_member(member.as_bytes()), None);
    let objects = r#"{"a":"#.repeat(100_000);
    assert_eq!(object_field(objects.as_bytes(), &["b"]), Lookup::Malformed);
    assert!(validate(objects.as_bytes()).is_err());

    // Balanced and deeper than serde_json goes: still skipped, and refused
    // by strict mode at the level serde_json refuses (one past `MAX_DEPTH`).
    let deep = format!(r#"{{"a":{open}{},"b":1}}"#, "]".repeat(100_000));
    assert_eq!(object_field(deep.as_bytes(), &["b"]), Lookup::Found(b"1"));
    let error = validate(deep.as_bytes()).unwrap_err();
    assert_eq!((error.what, error.offset), ("nesting too deep", 5 + 126));
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "took {:?}",
        started.elapsed()
    );
}

#[test]
fn every_number_form() {
    let numbers = [
        "0",
        "-0",
        "1",
        "-1",
        "12.5",
        "-0.0",
        "0.5",
        "1e5",
        "1E5",
        "1e+5",
        "1e-5",
        "1.5E-10",
        "-1.5e+300",
        "0e0",
        "123456789012345678901234567890",
        "-9223372036854775808",
        "18446744073709551615",
        "1.7976931348623157e308",
        "5e-324",
    ];
    for number in numbers {
        let obj = format!(r#"{{"n":{number},"m":[{number}, {number} ],"z":{number}}}"#);
        let bytes = obj.as_bytes();
        assert_eq!(
            object_field(bytes, &["n"]),
            Lookup::Found(number.as_bytes())
        );
        assert_eq!(
            object_field(bytes, &["z"]),
            Lookup::Found(number.as_bytes())
        );
        let Lookup::Found(list) = object_field(bytes, &["m"]) else {
            panic!()
        };
        assert_eq!(array_element(list, 1), Some(number.as_bytes()));
        assert_eq!(skip_value(number.as_bytes(), 0), Some(number.len()));
        assert_eq!(validate(bytes), Ok(()), "{number}");
        let _: Value = serde_json::from_slice(bytes).expect("serde_json agrees it is valid");
    }
    for bad in [
        "01", "-", "1.", ".5", "1e", "1e+", "+1", "0x1", "1.e5", "-a", "--1", "1ee5",
    ] {
        assert!(validate(bad.as_bytes()).is_err(), "{bad}");
    }
}

#[test]
fn literals_empty_containers_and_whitespace() {
    let obj =
        b" \t\r\n{ \"t\" : true ,\n\"f\"\t:\rfalse , \"n\":null, \"o\" : { } , \"a\" : [ ] } \n";
    assert_eq!(object_field(obj, &["t"]), Lookup::Found(b"true"));
    assert_eq!(object_field(obj, &["f"]), Lookup::Found(b"false"));
    assert_eq!(object_field(obj, &["n"]), Lookup::Found(b"null"));
    assert_eq!(object_field(obj, &["o"]), Lookup::Found(b"{ }"));
    assert_eq!(object_field(obj, &["a"]), Lookup::Found(b"[ ]"));
    assert_eq!(object_field(obj, &["x"]), Lookup::Missing);
    assert_eq!(object_field(b"{}", &["x"]), Lookup::Missing);
    assert_eq!(object_field(b" { } ", &["x"]), Lookup::Missing);
    assert_eq!(object_field(b"{} x", &["x"]), Lookup::Malformed);
    assert_eq!(object_field(b"{\"a\":1,}", &["x"]), Lookup::Malformed);
    assert_eq!(object_field(b"{\"a\":tru}", &["a"]), Lookup::Malformed);
    assert_eq!(object_field(b"{\"a\" 1}", &["a"]), Lookup::Malformed);
    assert_eq!(array_element(b"[]", 0), None);
    assert_eq!(array_element(b"[ ]", 0), None);
    assert_eq!(array_element(b"[1,]", 1), None);
    assert_eq!(array_element(b"[1 2]", 0), None);
    assert_eq!(first_member(b"{}"), None);
    assert_eq!(first_member(b"{\"a\":1} x"), None);
    assert!(is_null(b"\nnull "));
    assert!(!is_null(b"nulll"));
    assert_eq!(trim(b" \t\n\r"), b"");
    assert_eq!(trim(b""), b"");
}

#[test]
fn string_raw_wants_exactly_one_well_formed_string() {
    assert_eq!(string_raw(br#" "a\u00e9\n" "#), Some(&br#"a\u00e9\n"#[..]));
    assert_eq!(string_raw(b"\"\""), Some(&b""[..]));
    for bad in [
        &br#""a"#[..],
        br#""a\x""#,
        b"\"a\x01\"",
        b"\"\xff\"",
        br#""a""#.repeat(2).as_slice(),
        b"a",
        b"",
    ] {
        assert_eq!(string_raw(bad), None, "{:?}", String::from_utf8_lossy(bad));
    }
}

#[test]
fn validate_reports_the_first_error() {
    let error = |bytes: &[u8]| validate(bytes).unwrap_err();
    assert_eq!(
        error(br#"{"a":1,"b":"\x"}"#).to_string(),
        "invalid escape at byte 12"
    );
    assert_eq!(error(b"[1,]").to_string(), "expected a value at byte 3");
    assert_eq!(error(b"{\"a\" 1}").to_string(), "expected ':' at byte 5");
    assert_eq!(
        error(b"{1:1}").to_string(),
        "expected a string key at byte 1"
    );
    assert_eq!(error(b"[1 2]").to_string(), "expected ',' or ']' at byte 3");
    assert_eq!(
        error(b"{\"a\":1]").to_string(),
        "expected ',' or '}' at byte 6"
    );
    assert_eq!(error(b"[1] x").to_string(), "trailing characters at byte 4");
    assert_eq!(
        error(b"[\"a\x01\"]").to_string(),
        "control character in string at byte 3"
    );
    assert_eq!(error(b"[\"a\xc3\"]").to_string(), "invalid utf-8 at byte 3");
    assert_eq!(error(b"[tru]").to_string(), "invalid literal at byte 1");
    // The number is what is wrong, as serde_json says ("invalid number").
    assert_eq!(error(b"[01]").to_string(), "invalid number at byte 2");
    assert_eq!(
        error(b"[\"abc").to_string(),
        "unexpected end of input at byte 5"
    );
    assert_eq!(error(b"\xef\xbb\xbf{}").what, "expected a value");
    let boxed: Box<dyn std::error::Error> = Box::new(error(b""));
    assert_eq!(boxed.to_string(), "unexpected end of input at byte 0");
}

// ---------------------------------------------------------------------------
// The structural walk behind `object_field`: keys at every offset of a block,
// written plainly or with escapes, compact or with whitespace around colons.

/// `key` written as a JSON string's raw contents, each character escaped as
/// `\uXXXX` where `escape` says so.
fn write_key(key: &str, escape: &[bool]) -> String {
    let mut out = String::new();
    for (i, ch) in key.chars().enumerate() {
        if escape.get(i).copied().unwrap_or(false) {
            let mut units = [0u16; 2];
            for unit in ch.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            match ch {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(support::scaled(512)))]

    #[test]
    fn object_field_finds_keys_at_any_offset(
        keys in prop::collection::vec("[a-d]{1,9}", 1..40),
        values in prop::collection::vec(leaf(), 40),
        escapes in prop::collection::vec(prop::collection::vec(any::<bool>(), 9), 40),
        escape_some in any::<bool>(),
        spaced in any::<bool>(),
        filler in 0usize..70,
        // Objects from about 1 KiB up are walked block by block, smaller ones
        // member by member: both are exercised.
        padding in prop_oneof![Just(0usize), 1000usize..1600],
        nested in any::<bool>(),
    ) {
        // Unique keys, so that serde_json's map and the first match agree.
        let mut seen = std::collections::HashSet::new();
        let members: Vec<(String, Value)> = keys
            .into_iter()
            .filter(|k| seen.insert(k.clone()))
            .zip(values)
            .map(|(k, v)| if nested { (k.clone(), serde_json::json!({ "k": k, "v": [v] })) } else { (k, v) })
            .collect();
        let colon = if spaced { " : " } else { ":" };
        let mut doc = format!("{{\"{}\":\"{}\"", "f".repeat(filler), "p".repeat(padding));
        for (i, (key, value)) in members.iter().enumerate() {
            let raw = if escape_some { write_key(key, &escapes[i]) } else { write_key(key, &[]) };
            doc.push_str(&format!(",\"{raw}\"{colon}{value}"));
        }
        doc.push('}');
        let oracle: Map<String, Value> = serde_json::from_str(&doc).unwrap();
        for (key, _) in &members {
            match object_field(doc.as_bytes(), &[key]) {
                Lookup::Found(bytes) => {
                    let got: Value = serde_json::from_slice(bytes).unwrap();
                    // (compared with serde_json's reading of the same text: a float
                    // does not always survive printing and parsing exactly)
                    prop_assert_eq!(Some(&got), oracle.get(key), "{} in {}", key, doc);
                }
                other => prop_assert!(false, "{key}: {other:?} in {doc}"),
            }
        }
        for absent in ["e", "abcdabcdabcd", "k", "v"] {
            prop_assert_eq!(object_field(doc.as_bytes(), &[absent]), Lookup::Missing, "{} in {}", absent, doc);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(support::scaled(24)))]

    /// Documents of 3 to 13 KB (objects of 40 to 120 members of every
    /// kind, or arrays of as many values): every key and index, at every
    /// depth, is found as serde_json reads it (objects of 1 KiB and more
    /// are walked by blocks).
    #[test]
    fn every_key_and_index_of_large_documents_matches_serde_json(
        members in prop::collection::vec((text(), value()), 40..120),
        as_array: bool,
        pretty: bool,
        pad in (whitespace(), whitespace()),
    ) {
        let root = if as_array {
            Value::Array(members.into_iter().map(|(_, v)| v).collect())
        } else {
            Value::Object(members.into_iter().collect())
        };
        let (text, oracle) = serialized(&root, pretty);
        check_node(text.as_bytes(), &oracle, &pad);
    }
}
