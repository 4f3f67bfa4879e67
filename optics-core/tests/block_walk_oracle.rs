//! The structural block walk (`object_field` on objects of 1 KiB and more)
//! checked against serde_json, with every kernel the machine has: the one
//! `dispatch` picks (AVX2 where the CPU has it), the SSE2 baseline and the
//! scalar oracle must give the same answer, and that answer must be what
//! serde_json reads.
//!
//! The documents stress what the walk must keep exact: keys written with
//! escapes, whitespace around colons, strings that straddle block edges and
//! hold brackets, colons, quotes and backslashes, nested objects that repeat
//! the keys sought, and a key that is missing (confirmed by the walk alone).
//! Objects of up to 20 KB are looked up in strict mode too (validation and
//! lookup in one pass), where a key given twice is malformed.

mod support;

use optics_core::json::scan::kernels::{
    object_field_entering_with, object_field_late_with, object_field_with, skip_container_with,
    validate_and_find_with, KernelChoice,
};
use optics_core::json::scan::{object_field, object_field_late, skip_value, Lookup};
use proptest::prelude::*;
use serde_json::{Map, Value};

const KERNELS: [KernelChoice; 4] = [
    KernelChoice::Best,
    KernelChoice::Avx2,
    KernelChoice::Baseline,
    KernelChoice::Scalar,
];

/// Text that stresses the string masks.
fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            4 => prop::char::range('a', 'e'),
            2 => prop::sample::select(vec!['"', '\\', '{', '}', '[', ']', ':', ',', ' ', '\n', 'é', '😀', '\u{1}']),
        ],
        0..90,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

/// A member value: leaves, and objects that repeat the keys sought inside.
fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..4).prop_map(|members| {
                Value::Object(
                    members
                        .into_iter()
                        .map(|(k, v)| (k.to_string(), v))
                        .collect(),
                )
            }),
        ]
    })
}

/// The keys members are named with; `absent` is never used.
const KEYS: &[&str] = &[
    "a",
    "ab",
    "detail",
    "type",
    "é",
    "k\"q",
    "x\\y",
    "longer_key_name",
    // the length and edge bytes of "detail", or all but one of them: what
    // the candidate filters (quote distance, first and last byte) tell apart
    "dxxxxl",
    "xetail",
    "detaix",
];

/// JSON whitespace, possibly none.
fn whitespace() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(vec![' ', '\t', '\n', '\r']), 0..3)
        .prop_map(|chars| chars.into_iter().collect())
}

/// `key` as a JSON string, each character escaped as `\uXXXX` where `escape` says.
fn write_key(key: &str, escape: &[bool]) -> String {
    let mut out = String::from("\"");
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
                c => out.push(c),
            }
        }
    }
    out.push('"');
    out
}

/// A document of unique top-level keys (so serde_json's map and the first
/// match agree), written with whitespace and escapes as drawn: a long
/// string member first, then the members drawn, then another long string
/// member, so that the members stand near the front, in the middle (where a
/// late field's walk searches the text, more than 16 blocks before the
/// end), or near the end.
fn document() -> impl Strategy<Value = (String, Vec<String>)> {
    (
        prop::collection::vec(
            (
                prop::sample::select(KEYS),
                value(),
                prop::collection::vec(any::<bool>(), 16),
                whitespace(),
                whitespace(),
            ),
            1..10,
        ),
        0usize..64,
        0usize..1300,
        prop_oneof![Just(0usize), 0usize..1300],
        whitespace(),
    )
        .prop_map(|(members, shift, filler, tail, outer)| {
            let mut seen = std::collections::HashSet::new();
            let mut doc = format!(
                "{outer}{{\"{}\":\"{}\"",
                "f".repeat(shift),
                "p".repeat(filler)
            );
            let mut keys = Vec::new();
            for (key, value, escape, before, after) in members {
                if !seen.insert(key) {
                    continue;
                }
                keys.push(key.to_string());
                let value = serde_json::to_string(&value).expect("serializes");
                doc.push_str(&format!(
                    ",{before}{}{before}:{after}{value}{after}",
                    write_key(key, &escape)
                ));
            }
            if tail > 0 {
                doc.push_str(&format!(",\"zz\":\"{}\"", "q".repeat(tail)));
            }
            doc.push('}');
            doc.push_str(&outer);
            (doc, keys)
        })
}

/// The bytes a late field's walk searches as text when neither end meets
/// the key in its first turn (the object's first block, then 16 blocks
/// from its end, on the blocks of 64 bytes from its `{`): from the `{` to
/// where the end's first turn stops. Empty where the object does not end
/// with `}` (the walk then goes from the front alone) or the two turns
/// meet.
fn searched_as_text(bytes: &[u8]) -> (usize, usize) {
    let open = bytes.iter().take_while(|b| b" \t\n\r".contains(b)).count();
    let end = bytes.len()
        - bytes
            .iter()
            .rev()
            .take_while(|b| b" \t\n\r".contains(b))
            .count();
    if end < open + 2 || bytes[end - 1] != b'}' {
        return (open, open);
    }
    let blocks = (end - open).div_ceil(64);
    if blocks <= 17 {
        return (open, open);
    }
    (open, open + (blocks - 16) * 64)
}

/// Whether a string opening at a quote in `bytes[from..to]` may spell
/// `key`: `key` written plainly then a quote, or a backslash no later than
/// where the text first differs from it. Byte by byte: the oracle of the
/// walk's text search.
fn spelled_between(bytes: &[u8], from: usize, to: usize, key: &str) -> bool {
    (from..to).filter(|&at| bytes[at] == b'"').any(|at| {
        let text = &bytes[at + 1..];
        let want: Vec<u8> = key.bytes().chain([b'"']).collect();
        for (i, w) in want.iter().enumerate() {
            match text.get(i) {
                Some(b'\\') => return true,
                Some(b) if b == w => {}
                _ => return false,
            }
        }
        true
    })
}

/// An entered lookup's outcome against the exact one's: the same key
/// missing, or the value found from the same start to the end of `bytes`.
fn entered_where_found(
    exact: Lookup,
    entered: Lookup,
    bytes: &[u8],
    what: &str,
) -> Result<(), TestCaseError> {
    match (exact, entered) {
        (Lookup::Found(value), Lookup::Found(rest)) => {
            let at = value.as_ptr() as usize - bytes.as_ptr() as usize;
            prop_assert_eq!(rest, &bytes[at..], "{}", what);
        }
        (Lookup::Missing, Lookup::Missing) => {}
        (exact, entered) => prop_assert!(false, "{what}: {entered:?}, exact {exact:?}"),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(support::scaled(400)))]

    #[test]
    fn every_kernel_finds_what_serde_json_reads((doc, keys) in document()) {
        let oracle: Map<String, Value> = serde_json::from_str(&doc).expect("valid");
        for key in KEYS.iter().chain(&["absent", "f", ""]) {
            let want = oracle.get(*key);
            for kernel in KERNELS {
                let got = object_field_with(kernel, doc.as_bytes(), &[key]);
                match (want, got) {
                    (Some(want), Lookup::Found(bytes)) => {
                        let got: Value = serde_json::from_slice(bytes).expect("a whole value");
                        prop_assert_eq!(&got, want, "{:?} {:?} in {}", kernel, key, doc);
                    }
                    (None, Lookup::Missing) => {}
                    (want, got) => prop_assert!(false, "{kernel:?} {key:?}: {got:?}, want {want:?} in {doc}"),
                }
            }
            // The public entry point agrees (member walk below 1 KiB).
            let public = object_field(doc.as_bytes(), &[key]);
            prop_assert_eq!(public, object_field_with(KernelChoice::Scalar, doc.as_bytes(), &[key]));
        }
        // Aliases: the first member, in the document's order, with either key.
        for pair in [["detail", "dxxxxl"], ["xetail", "ab"], ["a", "k\"q"]] {
            let want = keys.iter().find(|k| pair.contains(&k.as_str())).map(|k| &oracle[k]);
            for kernel in KERNELS {
                let got = object_field_with(kernel, doc.as_bytes(), &pair);
                match (want, got) {
                    (Some(want), Lookup::Found(bytes)) => {
                        let got: Value = serde_json::from_slice(bytes).expect("a whole value");
                        prop_assert_eq!(&got, want, "{:?} {:?} in {}", kernel, pair, doc);
                    }
                    (None, Lookup::Missing) => {}
                    (want, got) => prop_assert!(false, "{kernel:?} {pair:?}: {got:?}, want {want:?} in {doc}"),
                }
            }
        }
        prop_assert!(keys.iter().all(|k| oracle.contains_key(k)));
        let open = doc.find('{').expect("an object");
        for kernel in KERNELS {
            prop_assert_eq!(
                skip_container_with(kernel, doc.as_bytes(), open),
                skip_value(doc.as_bytes(), 0),
                "{:?}", kernel
            );
        }
    }

    /// A lookup that enters the value it finds (a trusting path going on
    /// inside it) finds it where the exact walk does, in every kernel, and
    /// hands it out from there to the end of the bytes; on every prefix of
    /// the document too, where the value found may be cut but its start is
    /// the whole document's, and no key is called missing.
    #[test]
    fn an_entered_value_starts_where_the_exact_walk_finds_it(
        (doc, _keys) in document(),
        cut in any::<prop::sample::Index>(),
    ) {
        let bytes = doc.as_bytes();
        let cut = cut.index(doc.trim_end().len());
        for key in KEYS.iter().chain(&["absent"]) {
            let exact = object_field_with(KernelChoice::Scalar, bytes, &[key]);
            for kernel in KERNELS {
                let entered = object_field_entering_with(kernel, bytes, &[key]);
                entered_where_found(exact, entered, bytes, &format!("{kernel:?} {key:?} in {doc}"))?;
                match object_field_entering_with(kernel, &bytes[..cut], &[key]) {
                    Lookup::Found(rest) => {
                        let Lookup::Found(value) = exact else {
                            return Err(TestCaseError::fail(format!("{kernel:?} {key:?} found in a cut {doc}")));
                        };
                        // (A cut in the whitespace before the value leaves
                        // nothing of it: the rest is empty, at the cut.)
                        let at = (value.as_ptr() as usize - bytes.as_ptr() as usize).min(cut);
                        prop_assert_eq!(rest.as_ptr() as usize - bytes.as_ptr() as usize, at);
                        prop_assert_eq!(rest, &bytes[at..cut]);
                    }
                    Lookup::Missing => prop_assert!(false, "{kernel:?} {key:?} missing from a cut object"),
                    Lookup::Malformed => {}
                }
            }
        }
    }

    /// The walk of a late field, from both ends in turns, finds what the
    /// walk from the front finds, in every kernel, wherever the key stands
    /// and whatever stands around it (escapes, whitespace, nested objects
    /// that repeat it, strings with brackets and quotes across block edges);
    /// entering, it hands the value out from the same start; a key missing
    /// is missing. The public entry agrees at any size.
    #[test]
    fn the_walk_from_both_ends_finds_what_the_front_finds((doc, _keys) in document()) {
        let bytes = doc.as_bytes();
        for key in KEYS.iter().chain(&["absent", "f", ""]) {
            let exact = object_field_with(KernelChoice::Scalar, bytes, &[key]);
            for kernel in KERNELS {
                let late = object_field_late_with(kernel, bytes, &[key], false);
                prop_assert_eq!(late, exact, "{:?} {:?} in {}", kernel, key, doc);
                let entered = object_field_late_with(kernel, bytes, &[key], true);
                entered_where_found(exact, entered, bytes, &format!("{kernel:?} {key:?} in {doc}"))?;
            }
            prop_assert_eq!(object_field_late(bytes, &[key]), object_field(bytes, &[key]));
        }
    }

    /// Every prefix of a document, and the document with a byte changed:
    /// the walk from both ends ends in every kernel, and calls a key missing
    /// only where the walk from the front does (both ends must agree on the
    /// structure where they meet), or where no string in the bytes it
    /// searched as text could spell the key.
    #[test]
    fn the_walk_from_both_ends_calls_a_key_missing_only_where_the_front_does_or_no_text_spells_it(
        (doc, _keys) in document(),
        cut in any::<prop::sample::Index>(),
        at in any::<prop::sample::Index>(),
        byte in prop::sample::select(b"{}[]\":, x\\".to_vec()),
    ) {
        let mut changed = doc.clone().into_bytes();
        let at = at.index(changed.len());
        changed[at] = byte;
        let cut = &doc.as_bytes()[..cut.index(doc.len())];
        for broken in [cut, &changed[..]] {
            for key in KEYS.iter().chain(&["absent"]) {
                let front = object_field_with(KernelChoice::Scalar, broken, &[key]);
                for kernel in KERNELS {
                    let late = object_field_late_with(kernel, broken, &[key], false);
                    if late == Lookup::Missing && front != Lookup::Missing {
                        let (from, to) = searched_as_text(broken);
                        prop_assert!(
                            !spelled_between(broken, from, to, key),
                            "{:?} {:?} missing, the front {:?}, in {:?}", kernel, key, front, String::from_utf8_lossy(broken)
                        );
                    }
                }
            }
        }
    }

    /// Every prefix of a document: no kernel returns a value that is cut, or
    /// calls a key missing from an object that never closes.
    #[test]
    fn cut_documents_never_report_missing((doc, _keys) in document(), cut in any::<prop::sample::Index>()) {
        let whole = doc.trim_end();
        let cut = cut.index(whole.len());
        let prefix = &doc.as_bytes()[..cut];
        for key in KEYS.iter().chain(&["absent"]) {
            let full = object_field_with(KernelChoice::Scalar, doc.as_bytes(), &[key]);
            for kernel in KERNELS {
                match object_field_with(kernel, prefix, &[key]) {
                    Lookup::Found(bytes) => prop_assert_eq!(Lookup::Found(bytes), full),
                    Lookup::Missing => prop_assert!(false, "{kernel:?} {key:?} missing from a cut object"),
                    Lookup::Malformed => {}
                }
            }
        }
    }
}

#[test]
fn the_end_of_the_object_is_exact_in_every_kernel() {
    // Something after the object: malformed, never a key of the second object.
    let two = format!(r#"{{"a":"{}"}} {{"detail":1}}"#, "p".repeat(1100));
    // Brackets in strings, escaped quotes at block edges, a key after a
    // closing bracket in the same block as the end.
    let tricky = format!(
        r#"{{"s":"{}\"]}}","n":{{"detail":[1,{{"detail":2}}]}},"t":"\\","detail" :  3 }}"#,
        "x".repeat(1090)
    );
    for kernel in KERNELS {
        assert_eq!(
            object_field_with(kernel, two.as_bytes(), &["detail"]),
            Lookup::Malformed
        );
        assert_eq!(
            object_field_with(kernel, tricky.as_bytes(), &["detail"]),
            Lookup::Found(b"3"),
            "{kernel:?}"
        );
        assert_eq!(
            object_field_with(kernel, tricky.as_bytes(), &["missing"]),
            Lookup::Missing
        );
        // every shift of the block edges
        for shift in 0..64 {
            let shifted = format!("{}{tricky}", " ".repeat(shift));
            assert_eq!(
                object_field_with(kernel, shifted.as_bytes(), &["det\u{61}il"]),
                Lookup::Found(b"3")
            );
        }
    }
}

/// A key written with escapes, or a plain one right after a backslash, at
/// every offset against the block edges: the backslash and the colon fall in
/// one block or in two, and only the bytes within reach of a colon decide
/// whether its key may be compared as written plainly.
#[test]
fn keys_near_backslashes_are_found_at_every_block_offset() {
    let keys = [r#""det\u0061il""#, r#""detail""#, r#""d\u0065tail""#];
    for pad in 0..140 {
        for (i, key) in keys.iter().enumerate() {
            let doc = format!(
                r#"{{"f":"{}","g":"a\\","detaix":0,{key}:{i},"z":1}}"#,
                "p".repeat(1024 + pad)
            );
            let oracle: Map<String, Value> = serde_json::from_str(&doc).expect("valid");
            for kernel in KERNELS {
                let want = oracle["detail"].to_string();
                let got = object_field_with(kernel, doc.as_bytes(), &["detail"]);
                assert_eq!(
                    got,
                    Lookup::Found(want.as_bytes()),
                    "{kernel:?} pad {pad} key {key}"
                );
                // From both ends, with the key's escapes and the backslash
                // before it read backward, and with more after it, so that
                // the end's walk reaches it in any block.
                for tail in [0, pad] {
                    let doc = format!("{}{}}}", &doc[..doc.len() - 1], r#","t":"x""#.repeat(tail));
                    let got = object_field_late_with(kernel, doc.as_bytes(), &["detail"], false);
                    assert_eq!(
                        got,
                        Lookup::Found(want.as_bytes()),
                        "{kernel:?} pad {pad} tail {tail} key {key}, from both ends"
                    );
                }
            }
        }
    }
}

/// An escaped quote (`\"`, and `\\\"` whose quote is escaped too) or an
/// escaped backslash before a closing quote (`\\"`), at every offset against
/// the block edges, in a string after the late key: read backward, the block
/// that starts with the quote learns from the bytes below it whether the
/// quote is escaped.
#[test]
fn escaped_quotes_at_every_block_edge_read_from_the_end() {
    for text in [r#"a\"b"#, r#"a\\\"b"#, r#"a\\"#] {
        for pad in 0..140 {
            let doc = format!(
                r#"{{"f":"{}","detail":[1,{{"a":2}}],"g":"{}{text}","h":{{"detail":3}},"t":"{}"}}"#,
                "p".repeat(1024),
                "q".repeat(pad),
                "r".repeat(200),
            );
            let oracle: Map<String, Value> = serde_json::from_str(&doc).expect("valid");
            let want = oracle["detail"].to_string();
            for kernel in KERNELS {
                let got = object_field_late_with(kernel, doc.as_bytes(), &["detail"], false);
                assert_eq!(
                    got,
                    Lookup::Found(want.as_bytes()),
                    "{kernel:?} pad {pad} {text}"
                );
                let missing = object_field_late_with(kernel, doc.as_bytes(), &["absent"], false);
                assert_eq!(missing, Lookup::Missing, "{kernel:?} pad {pad} {text}");
            }
        }
    }
}

/// A key near the front of a long object, at every offset across the
/// blocks where the front's walk of a late field stops for a turn and
/// resumes (its key split by the turn's last block edge too), with so much
/// after it that the end's walk never reaches it: found where the walk from
/// the front alone finds it, in every kernel.
#[test]
fn the_front_resumes_a_late_walk_exactly_at_every_offset() {
    // The front's turns end after 9 and 25 blocks; the end reads 16, 32
    // and 64 blocks (7 KiB) before the front's third turn.
    let tail = "t".repeat(8000);
    for pad in 0..1800 {
        let doc = format!(
            r#"{{"f":"{}","detail":{{"k":[1]}},"z":"{tail}"}}"#,
            "p".repeat(pad)
        );
        for kernel in KERNELS {
            let want = object_field_with(kernel, doc.as_bytes(), &["detail"]);
            assert_eq!(want, Lookup::Found(br#"{"k":[1]}"#), "{kernel:?} pad {pad}");
            assert_eq!(
                object_field_late_with(kernel, doc.as_bytes(), &["detail"], false),
                want,
                "{kernel:?} pad {pad}, from both ends"
            );
        }
    }
}

/// A key sought so long that a `\u` escape at its start stands more than a
/// block before its colon: read from the end, its block must not pass for
/// one without escapes near. Every kernel, at every offset of the colon.
#[test]
fn a_long_key_with_an_escape_far_before_its_colon_is_found_from_the_end() {
    let key = format!("a{}", "b".repeat(59));
    let written = format!(r#""\u0061{}""#, "b".repeat(59));
    for pad in 0..64 {
        let doc = format!(
            r#"{{"f":"{}",{written}:7,"z":"t"}}"#,
            "p".repeat(1200 + pad)
        );
        for kernel in KERNELS {
            assert_eq!(
                object_field_with(kernel, doc.as_bytes(), &[&key]),
                Lookup::Found(b"7")
            );
            assert_eq!(
                object_field_late_with(kernel, doc.as_bytes(), &[&key], false),
                Lookup::Found(b"7"),
                "{kernel:?} pad {pad}"
            );
        }
    }
}

/// Keys sought nested two and three levels down after the depth-1 one, in
/// blocks the end's walk passes whole (their depth cannot come back to 1)
/// and in blocks where a closer brings it back to 1 next to a nested key, at
/// every offset against the block edges: read from the end, only the
/// depth-1 key is found, and a key missing is missing.
#[test]
fn nested_keys_sought_are_passed_over_from_the_end_at_every_offset() {
    for pad in 0..140 {
        let doc = format!(
            r#"{{"f":"{}","detail":1,"n":{{"m":{{"detail":2,"s":"{}","deep":{{"detail":[3,{{"detail":4}}]}}}},"z":[{{"detail":5}}]}},"detaix":{{"detail":6}},"t":"{}"}}"#,
            "p".repeat(1024),
            "q".repeat(pad),
            "r".repeat(300),
        );
        let oracle: Map<String, Value> = serde_json::from_str(&doc).expect("valid");
        assert_eq!(oracle["detail"], Value::from(1));
        for kernel in KERNELS {
            let got = object_field_late_with(kernel, doc.as_bytes(), &["detail"], false);
            assert_eq!(got, Lookup::Found(b"1"), "{kernel:?} pad {pad}");
            let missing = object_field_late_with(kernel, doc.as_bytes(), &["absent"], false);
            assert_eq!(missing, Lookup::Missing, "{kernel:?} pad {pad}");
        }
    }
}

/// The one-key walk's filter compares a key's bytes before each colon where
/// they stand, in the colon's block or the one below: a key sought, look-alikes
/// that share its length and its first and last bytes or all but one of them,
/// and a key sought with whitespace before its colon, each at every offset
/// against the block edges (its opening quote and its colon in one block or
/// in two), in objects of one to three blocks: found, or missing where only
/// the look-alikes are, in every kernel, as serde_json reads them.
#[test]
fn keys_and_their_look_alikes_at_every_block_edge() {
    let members = [
        (r#""dxxxxl":1,"detaix":2,"xetail":3"#, None),
        (r#""dxxxxl":1,"detail":4,"xetail":3"#, Some("4")),
        (r#""dxxxxl":1,"detail"  :5"#, Some("5")),
        (r#""detail":6"#, Some("6")),
    ];
    for pad in 0..192 {
        for (members, want) in members {
            let doc = format!(
                r#"{{"f":"{}",{members},"z":[{{"detail":0}}]}}"#,
                "p".repeat(pad)
            );
            let oracle: Map<String, Value> = serde_json::from_str(&doc).expect("valid");
            assert_eq!(
                oracle.get("detail").map(Value::to_string).as_deref(),
                want,
                "the oracle, pad {pad}"
            );
            let want = match want {
                Some(value) => Lookup::Found(value.as_bytes()),
                None => Lookup::Missing,
            };
            for kernel in KERNELS {
                assert_eq!(
                    object_field_with(kernel, doc.as_bytes(), &["detail"]),
                    want,
                    "{kernel:?} pad {pad} members {members}"
                );
                assert_eq!(
                    object_field_late_with(kernel, doc.as_bytes(), &["detail"], false),
                    want,
                    "{kernel:?} pad {pad} members {members}, from both ends"
                );
            }
        }
    }
}

/// Members that fill a large object: escapes and backslash runs, text of
/// every UTF-8 width, numbers, literals, nested objects that repeat the
/// key sought, strings that spell it, and keys that look like it.
const FILLERS: [&str; 11] = [
    r#""s":"a\\\\\"b\\""#,
    r#""u":"\u00e9\ud83d\ude00""#,
    "\"m\":\"é€😀\"",
    r#""n":-0.5e-10"#,
    r#""t":[true,false,null]"#,
    r#""o":{"detail":{"detail":1},"x":"detail"}"#,
    r#""v":"detail""#,
    r#""w" : [ { } , [ ] ]"#,
    r#""d\u0065tai":"detail\\""#,
    r#""detai":1"#,
    r#""detaill":2"#,
];

/// An object of about `len` bytes, `member` written after the first
/// `before` bytes (whitespace placing it exactly), fillers around it.
fn large_object_with(before: usize, len: usize, member: &str) -> String {
    let mut doc = String::from("{\"first\":0");
    let mut fillers = FILLERS.iter().cycle();
    let mut fill = |doc: &mut String, to: usize| {
        while doc.len() + 40 < to {
            doc.push(',');
            doc.push_str(fillers.next().expect("cycles"));
        }
    };
    fill(&mut doc, before);
    while doc.len() < before {
        doc.push(' ');
    }
    doc.push(',');
    doc.push_str(member);
    fill(&mut doc, len);
    doc.push('}');
    doc
}

/// How many members of the root object of `doc` have the key `key`, as
/// serde_json reads the keys.
fn root_key_count(doc: &str, key: &str) -> usize {
    struct Keys(Vec<String>);
    impl<'de> serde::Deserialize<'de> for Keys {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct Visit;
            impl<'de> serde::de::Visitor<'de> for Visit {
                type Value = Keys;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("an object")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut map: A,
                ) -> Result<Keys, A::Error> {
                    let mut keys = Vec::new();
                    while let Some((key, _)) = map.next_entry::<String, serde::de::IgnoredAny>()? {
                        keys.push(key);
                    }
                    Ok(Keys(keys))
                }
            }
            d.deserialize_map(Visit)
        }
    }
    let Keys(keys) = serde_json::from_str(doc).expect("an object");
    keys.iter().filter(|k| *k == key).count()
}

/// Every kernel's lookups of `keys` in the large object `doc`, from the
/// front, from both ends, and strict (validation and lookup in one pass),
/// against serde_json: a key given once is found as serde_json reads it,
/// one not given is missing; strict mode calls a key given twice malformed
/// (the trusting lookups are not asked about it). A lookup entering the
/// value finds it where the exact one does. The object's end is where a
/// skip finds it.
fn large_lookups_agree(doc: &str, keys: &[&str]) -> Result<(), TestCaseError> {
    let bytes = doc.as_bytes();
    let oracle: Map<String, Value> = serde_json::from_str(doc).expect("valid");
    let same =
        |got: &[u8], want: &Value| serde_json::from_slice::<Value>(got).ok().as_ref() == Some(want);
    for key in keys {
        let want = oracle.get(*key);
        let count = root_key_count(doc, key);
        for kernel in KERNELS {
            let strict = validate_and_find_with(kernel, bytes, &[key]);
            let strict_ok = match (count, want, &strict) {
                (1, Some(want), Ok(Some(Lookup::Found(got)))) => same(got, want),
                (0, None, Ok(Some(Lookup::Missing))) => true,
                (2.., _, Ok(Some(Lookup::Malformed))) => true,
                _ => false,
            };
            prop_assert!(
                strict_ok,
                "{:?} strict {:?} x{}: {:?} in {}",
                kernel,
                key,
                count,
                strict,
                doc
            );
            if count > 1 {
                continue;
            }
            for (walk, got) in [
                ("front", object_field_with(kernel, bytes, &[key])),
                (
                    "both ends",
                    object_field_late_with(kernel, bytes, &[key], false),
                ),
            ] {
                let ok = match (want, got) {
                    (Some(want), Lookup::Found(got)) => same(got, want),
                    (None, Lookup::Missing) => true,
                    _ => false,
                };
                prop_assert!(
                    ok,
                    "{:?} {} {:?}: {:?}, want {:?} in {}",
                    kernel,
                    walk,
                    key,
                    got,
                    want,
                    doc
                );
            }
            // Entering the value found: from the same start to the end.
            let exact = object_field_with(KernelChoice::Scalar, bytes, &[key]);
            let what = format!("{kernel:?} {key:?} entered");
            let entered = object_field_entering_with(kernel, bytes, &[key]);
            entered_where_found(exact, entered, bytes, &what)?;
            let entered_late = object_field_late_with(kernel, bytes, &[key], true);
            entered_where_found(exact, entered_late, bytes, &what)?;
        }
        if count <= 1 {
            prop_assert_eq!(
                object_field_late(bytes, &[key]),
                object_field(bytes, &[key])
            );
        }
    }
    for kernel in KERNELS {
        prop_assert_eq!(skip_container_with(kernel, bytes, 0), Some(bytes.len()));
    }
    prop_assert_eq!(skip_value(bytes, 0), Some(bytes.len()));
    Ok(())
}

/// The key sought, written plainly or with escapes, at every offset around
/// the edge of a validator's chunk (4 KB), in steps around the last block
/// of a 6 KB object, and around the front and the end of a 12 KB one, where
/// the walk from both ends takes several turns and searches the text
/// between them (the fillers' nested keys and values spell it).
#[test]
fn keys_at_every_offset_of_large_objects() {
    let members = [
        r#""detail":{"code":[1,2,"x"]}"#,
        r#""d\u0065tail":"escaped""#,
        r#""detail"  :  "a\"b""#,
        r#""detai\u006c":7"#,
    ];
    let places = [
        (6000, 4096, 1),
        (6000, 5936, 3),
        (12000, 100, 6),
        (12000, 10900, 6),
    ];
    for (len, edge, step) in places {
        for member in members {
            for back in (0..40).step_by(step) {
                let doc = large_object_with(edge + 8 - back, len, member);
                if let Err(error) = large_lookups_agree(&doc, &["detail", "absent"]) {
                    panic!("{error}");
                }
            }
        }
    }
}

/// Root keys of a large object as written: the key sought plainly and with
/// an escape, look-alikes, and keys with escapes of their own.
const WRITTEN_KEYS: [&str; 7] = [
    r#""detail""#,
    r#""d\u0065tail""#,
    r#""detai""#,
    r#""detaill""#,
    r#""x""#,
    r#""\\""#,
    r#""de\"""#,
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(support::scaled(48)))]

    /// Large objects (about 3 to 20 KB) of members drawn from the keys
    /// above, some given twice, with whitespace around their colons and
    /// values of every kind: the lookups agree with serde_json.
    #[test]
    fn lookups_in_large_objects_agree_with_serde_json(
        members in prop::collection::vec((prop::sample::select(&WRITTEN_KEYS[..]), value(), 0usize..3), 60..300),
        first_is_text in any::<bool>(),
    ) {
        let mut doc = String::from(if first_is_text { r#"{"first":"s""# } else { r#"{"first":0"# });
        for (key, value, spaces) in &members {
            let ws = " ".repeat(*spaces);
            doc.push_str(&format!(",{ws}{key}{ws}:{ws}{value}"));
        }
        doc.push('}');
        large_lookups_agree(&doc, &["detail", "first", "x", "absent"])?;
    }
}

/// Large objects whose blocks are dense with brackets at every depth (the
/// AVX-512 kernel finds a container's end among a block's closers in a
/// table): arrays and objects nested 9 to 65 levels, hundreds in a row,
/// before and around the key sought. Every kernel skips the object to its
/// end and finds what serde_json reads, from the front and from both ends.
#[test]
fn dense_brackets_in_large_objects() {
    for depth in [9, 17, 65] {
        let array = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
        let object = format!("{}1{}", r#"{"k":"#.repeat(depth), "}".repeat(depth));
        let arrays = vec![array; 200].join(",");
        let objects = vec![object; 100].join(",");
        let shapes = [
            format!(r#"{{"a":[{arrays}],"b":[{objects}],"detail":[{arrays}],"z":1}}"#),
            format!(r#"{{"a":[{arrays}],"b":[{objects}],"z":1,"detail":{{"q":[{arrays}]}}}}"#),
        ];
        for shape in &shapes {
            for pad in [0, 31] {
                let doc = format!("{}{shape}", " ".repeat(pad));
                let bytes = doc.as_bytes();
                let oracle: Map<String, Value> = serde_json::from_str(&doc).expect("valid");
                for kernel in KERNELS {
                    assert_eq!(skip_container_with(kernel, bytes, pad), Some(bytes.len()));
                    for key in ["detail", "z", "k", "absent"] {
                        for got in [
                            object_field_with(kernel, bytes, &[key]),
                            object_field_late_with(kernel, bytes, &[key], false),
                        ] {
                            match (oracle.get(key), got) {
                                (Some(want), Lookup::Found(got)) => {
                                    let got: Value = serde_json::from_slice(got).expect("whole");
                                    assert_eq!(&got, want, "{kernel:?} {key} depth {depth}");
                                }
                                (None, Lookup::Missing) => {}
                                (want, got) => {
                                    panic!("{kernel:?} {key} depth {depth}: {got:?}, want {want:?}")
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Strict mode's one-pass lookup runs before any tag is read in the root:
/// the root object's first key, written plainly with a text value (a tag's
/// place), met again at any offset around a chunk's edge, plainly or with an
/// escape, before or after the key sought, is off the path like any other
/// key: the key sought is found in every kernel, with no duplicate
/// recorded.
#[test]
fn the_first_key_repeated_around_the_edge_of_a_chunk_is_off_the_path() {
    let again = [None, Some(r#""type":"B""#), Some(r#""typ\u0065":"B""#)];
    for repeat in again {
        for repeat_after in [false, true] {
            for back in 0..24 {
                let head = format!(r#"{{"type":"A","p":"{}""#, "p".repeat(3000));
                let mut doc = head.clone();
                doc.push_str(&" ".repeat(4096 + 4 - back - head.len()));
                let detail = r#","detail":[1]"#;
                match (repeat, repeat_after) {
                    (Some(repeat), false) => doc += &format!(",{repeat}{detail}"),
                    (Some(repeat), true) => doc += &format!("{detail},{repeat}"),
                    (None, _) => doc += detail,
                }
                doc += &format!(r#","q":"{}"}}"#, "q".repeat(1000));
                for kernel in KERNELS {
                    let got = validate_and_find_with(kernel, doc.as_bytes(), &["detail"]);
                    let want = Lookup::Found(b"[1]");
                    assert_eq!(got, Ok(Some(want)), "{kernel:?} {repeat:?} back {back}");
                }
            }
        }
    }
}
