//! Strict mode's block validator checked against its byte-by-byte oracle
//! (`validate_scalar`, itself checked against JSONTestSuite and, on every
//! input here, serde_json's `Value`),
//! with every kernel the machine has: on valid documents, on documents with
//! one byte edited, cut short, or made of JSON's punctuation at random, the
//! verdicts are the same; `validate` reports the oracle's first error.

mod support;

use optics_core::json::scan::kernels::{is_valid_with, validate_scalar, KernelChoice};
use optics_core::json::scan::validate;
use proptest::prelude::*;
use serde_json::Value;
use support::edit::edit_one_byte;

const KERNELS: [KernelChoice; 4] = [
    KernelChoice::Best,
    KernelChoice::Avx2,
    KernelChoice::Baseline,
    KernelChoice::Scalar,
];

/// Every kernel's verdict is the oracle's, `validate` is the oracle, and
/// the oracle's verdict is serde_json's (`serde_json::Value`).
fn agree(bytes: &[u8]) -> Result<(), TestCaseError> {
    let oracle = validate_scalar(bytes);
    prop_assert_eq!(
        oracle.is_ok(),
        serde_json::from_slice::<Value>(bytes).is_ok(),
        "serde_json on {:?} (oracle: {:?})",
        String::from_utf8_lossy(bytes),
        oracle
    );
    for kernel in KERNELS {
        prop_assert_eq!(
            is_valid_with(kernel, bytes),
            oracle.is_ok(),
            "{:?} on {:?} (oracle: {:?})",
            kernel,
            String::from_utf8_lossy(bytes),
            oracle
        );
    }
    prop_assert_eq!(validate(bytes), oracle);
    Ok(())
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            4 => prop::char::range('a', 'e'),
            2 => prop::sample::select(vec![
                '"', '\\', '{', '}', '[', ']', ':', ',', ' ', '\n', '\u{1}', '\u{1f}', 'é', '€',
                '😀', '\u{7f}',
            ]),
        ],
        0..40,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        (-1000i32..1000, -30i32..30).prop_map(|(m, e)| Value::from(f64::from(m) * 10f64.powi(e))),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((text(), inner), 0..6)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

/// A valid document: compact or pretty, with whitespace around it.
fn document() -> impl Strategy<Value = Vec<u8>> {
    (value(), any::<bool>(), 0usize..70, "[ \t\n\r]{0,3}").prop_map(|(v, pretty, shift, after)| {
        let text = if pretty {
            serde_json::to_string_pretty(&v)
        } else {
            serde_json::to_string(&v)
        }
        .expect("serializes");
        format!("{}{text}{after}", " ".repeat(shift)).into_bytes()
    })
}

/// Bytes JSON's grammar turns on.
const ALPHABET: &[u8] = b"{}[]\",:\\ \n\t0123456789-+.eEtrufalsn\x00\x1f\x7f\x80\xc3\xa9\xff/bu";

proptest! {
    #![proptest_config(ProptestConfig::with_cases(support::scaled(1000)))]

    #[test]
    fn valid_documents(bytes in document()) {
        prop_assert_eq!(validate_scalar(&bytes), Ok(()));
        agree(&bytes)?;
    }

    #[test]
    fn documents_with_one_byte_edited(
        bytes in document(),
        at in any::<prop::sample::Index>(),
        edit in 0..3u8,
        byte in prop::sample::select(ALPHABET),
    ) {
        let mut bytes = bytes;
        let at = at.index(bytes.len() + 1);
        edit_one_byte(&mut bytes, at, edit, byte);
        agree(&bytes)?;
    }

    #[test]
    fn documents_cut_short(bytes in document(), cut in any::<prop::sample::Index>()) {
        agree(&bytes[..cut.index(bytes.len() + 1)])?;
    }

    #[test]
    fn punctuation_at_random(bytes in prop::collection::vec(prop::sample::select(ALPHABET), 0..150)) {
        agree(&bytes)?;
        agree(&[b"[", &bytes[..], b"]"].concat())?;
        agree(&[b"{\"a\":", &bytes[..], b"}"].concat())?;
    }
}

/// A number near the edges of an `f64`'s range, written any way the
/// grammar allows (many digits, a fraction, an exponent with a sign and
/// leading zeros): strict mode's verdict is serde_json's, which is not
/// always the correctly rounded value's (`1.7976931348623158e308` rounds to
/// `f64::MAX`, and serde_json refuses it).
fn number_near_the_edges() -> impl Strategy<Value = String> {
    (
        any::<bool>(),
        "[1-9][0-9]{0,24}|0",
        prop::option::of("[0-9]{1,24}"),
        prop_oneof![
            Just(None),
            (
                prop::sample::select(vec!["e", "E", "e+", "e-", "E-", "e0", "e-0"]),
                prop_oneof![
                    270u32..340,
                    0u32..30,
                    Just(2_147_483_647),
                    Just(2_147_483_648),
                    Just(4_000_000_000),
                ],
            )
                .prop_map(Some),
        ],
    )
        .prop_map(|(negative, integer, fraction, exponent)| {
            let mut text = String::new();
            if negative {
                text.push('-');
            }
            text += &integer;
            if let Some(fraction) = fraction {
                text += &format!(".{fraction}");
            }
            if let Some((mark, power)) = exponent {
                text += &format!("{mark}{power}");
            }
            text
        })
}

/// A number within a few units in the last place of `f64::MAX` (its digits
/// `17976931348623157...` with some changed at the end), the decimal point
/// anywhere and the exponent making it about `1.8e308`, or ten times more
/// or less.
fn number_near_the_top() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["1797693134862315", "1797693134862316"]),
        "[0-9]{1,8}",
        1usize..20,
        -1i32..=1,
    )
        .prop_map(|(head, tail, point, shift)| {
            let digits = format!("{head}{tail}");
            let point = point.min(digits.len());
            let power = 309 - point as i32 + shift;
            let (integer, fraction) = digits.split_at(point);
            match fraction {
                "" => format!("{integer}e{power}"),
                _ => format!("{integer}.{fraction}e{power}"),
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(support::scaled(2000)))]

    #[test]
    fn numbers_near_the_edges_as_serde_json_reads_them(
        number in prop_oneof![number_near_the_edges(), number_near_the_top()],
    ) {
        agree(format!("[{number}]").as_bytes())?;
    }
}

/// The numbers whose verdicts once differed from serde_json's, and their
/// neighbours: strict mode's verdict is serde_json's, from every kernel.
#[test]
fn numbers_at_the_top_of_the_range() {
    let numbers = [
        "1.7976931348623157e308",
        "1.7976931348623158e308",
        "-1.7976931348623158e308",
        "1.7976931348623157999e308",
        "17976931348623157e292",
        "17976931348623158e292",
        "0.17976931348623157e309",
        "179769313486231570000000000000000000000e270",
        "1e308",
        "10e307",
        "1e309",
        "0e999999999999999999",
        "1e-999999999999999999",
        "1e2147483647",
        "1e2147483648",
        "0.00001e313",
        "18446744073709551615e289",
        "18446744073709551616e289",
    ];
    for number in numbers {
        if let Err(error) = agree(format!("[{number}]").as_bytes()) {
            panic!("{error}");
        }
    }
}

/// Strings, escapes, numbers and containers, each put across block and
/// chunk edges at every offset.
const ACROSS_EDGES: [&str; 7] = [
    "\"abc\\\"def\"",
    "\"\\\\\"",
    "\"\\u00e9\"",
    "12345.678e-9",
    "true",
    "{\"k\":[]}",
    "\"\\\\\\\"\"",
];

#[test]
fn edges_of_blocks_and_grammar() {
    let mut cases: Vec<Vec<u8>> = [
        "",
        " ",
        "1",
        "-0",
        "01",
        "1.",
        ".5",
        "1e",
        "1e+",
        "1e400",
        "-1.5E-7",
        "true",
        "tru",
        "truex",
        "nul",
        "null",
        "false",
        "\"\"",
        "\"",
        "[]",
        "{}",
        "[",
        "]",
        "{",
        "}",
        "[1,]",
        "[,1]",
        "[1 2]",
        "{\"a\"}",
        "{\"a\":}",
        "{\"a\":1,}",
        "{,}",
        "{\"a\" 1}",
        "{1:1}",
        "[1:2]",
        "{\"a\":1:2}",
        "{\"a\":\"b\":\"c\"}",
        "[1]]",
        "[[1]",
        "{]",
        "[}",
        "{} {}",
        "1 2",
        "\"a\" \"b\"",
        "[\"a\\x\"]",
        "[\"\\u12\"]",
        "[\"\\u12G4\"]",
        "[\"\\ud800\"]",
        "\u{feff}[]",
        "[\"\u{1}\"]",
        "[1,\n2]",
        " [ ] ",
        "[-]",
        "[--1]",
        "[1-2]",
        "[+1]",
        "[1e5e5]",
        "[1.2.3]",
        "[12.]",
        "[12.e5]",
        "[12.5e]",
        "[12.5.]",
        "[12.5x]",
        "[12.5-]",
        "[12.5,3.25]",
        "[1234567890.12345678901]",
        "[12.5e400]",
        "[12.5E+3]",
        "[0x1]",
        "[Infinity]",
        "[\"a\"\"b\"]",
        "{\"a\":1\"b\":2}",
        "[1\"a\"]",
        "[\\\"]",
        "\\",
        "[1,,2]",
        ",",
        ":",
        "[:]",
        "{:1}",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    cases.push(b"[\"\xff\"]".to_vec());
    cases.push(b"[\"\xc3\"]".to_vec());
    cases.push(b"[1]\x00".to_vec());
    // Strings, escapes and numbers across every block edge.
    for piece in ACROSS_EDGES {
        for shift in 0..70 {
            cases.push(format!("[{}{piece}]", " ".repeat(shift)).into_bytes());
            cases.push(format!("{{\"{}\":{piece}}}", "x".repeat(shift)).into_bytes());
            cases.push(format!("[{}{piece}", " ".repeat(shift)).into_bytes());
        }
    }
    // Blocks whose only brackets are in strings (the validator branches on
    // a block's raw brackets, strings' too), and a closer outside them that
    // matches or does not, across every block edge.
    for shift in 0..70 {
        let pad = "x".repeat(shift);
        cases.push(format!("{{\"{pad}\":\"[{{]}}\",\"b\":\"}}]\"}}").into_bytes());
        cases.push(format!("[\"{pad}{{\",\"]\",1]").into_bytes());
        cases.push(format!("[\"{pad}{{\",\"]\",1}}").into_bytes());
        cases.push(format!("{{\"{pad}\":\"[\"]").into_bytes());
    }
    // The document's first token, valid or not, in a later block than the
    // first (after whitespace alone), and whitespace alone past a block.
    for first in [
        "", "1", "\"a\"", "[]", "{}", ",", ":", "]", "}", ",1", ":1", "]1",
    ] {
        for shift in [63, 64, 65, 130] {
            cases.push(format!("{}{first}", " ".repeat(shift)).into_bytes());
            cases.push(format!("{}{first} ", "\n".repeat(shift)).into_bytes());
        }
    }
    // Deep nesting, balanced and not, past the inline stack.
    cases.push(format!("{}{}", "[".repeat(300), "]".repeat(300)).into_bytes());
    cases.push(format!("{}{}", "[".repeat(300), "]".repeat(299)).into_bytes());
    cases.push(format!("{}1{}", "[{\"a\":".repeat(100), "}]".repeat(100)).into_bytes());
    for bytes in &cases {
        if let Err(error) = agree(bytes) {
            panic!("{error}");
        }
    }
}

/// The validator classifies its blocks in chunks (of 4 KB, or whole for a
/// document of up to 512 bytes) and checks their grammar after: every token
/// and every state it carries (a string, an escape, a scalar, a key before
/// its `:`, an opener before its closer, an open container) across the edge
/// of a chunk, and documents either side of 512 bytes.
#[test]
fn edges_of_chunks() {
    let grammar = [
        "[]",
        "{}",
        "[1,,2]",
        "{\"a\" :1}",
        "{\"a\":1,}",
        "[1 2]",
        "[}",
        "[\"\u{1}\"]",
    ];
    let mut cases = Vec::new();
    for edge in [512, 4096, 8192] {
        for piece in ACROSS_EDGES.iter().chain(&grammar) {
            for back in 0..70 {
                let shift = edge - back;
                cases.push(format!("[{}{piece}]", " ".repeat(shift)).into_bytes());
                cases.push(format!("{{\"{}\":{piece}}}", "x".repeat(shift)).into_bytes());
                cases.push(format!("[{}{piece}", "1,".repeat(shift / 2)).into_bytes());
                cases.push(format!("[{}{piece}]", "1,".repeat(shift / 2)).into_bytes());
            }
        }
    }
    for bytes in &cases {
        if let Err(error) = agree(bytes) {
            panic!("{error}");
        }
    }
}

/// A surrogate escape is text only as half of a pair, as serde_json reads a
/// string into a `Value` (or a `String`, or a key): pairs, lone halves,
/// halves in the wrong order and escaped backslashes before them, in
/// values and in keys, at every offset across a block's edge, get
/// serde_json's verdict from the oracle and every kernel. The strict
/// fuzzer found the lone leading half (in a key) that strict mode accepted.
#[test]
fn surrogates_as_serde_json_reads_them() {
    let contents = [
        r"\ud83d\ude00",
        r"\uD83D\uDE00",
        r"\ud800",
        r"\udbff",
        r"\udc00",
        r"\udfff",
        r"\ud800\u0041",
        r"\ud800\ud800",
        r"\ud800\ud800\udc00",
        r"\udc00\ud800",
        r"\ud800\n",
        r"\ud800x",
        r"\\ud800",
        r"\\\ud800",
        r"\\\ud83d\ude00",
        r"a\ud83d\ude00b\udc00",
        r"\ud83d\\ude00",
        r"\u00e9\udc00",
        r"\ud83d\ude00\ud83d\ude01",
    ];
    for content in contents {
        for shift in 0..70 {
            let pad = "x".repeat(shift);
            for doc in [
                format!("[\"{pad}{content}\"]"),
                format!("{{\"{pad}{content}\":1}}"),
                format!("{{\"k\":\"{pad}{content}\",\"z\":[\"{content}\"]}}"),
            ] {
                if let Err(error) = agree(doc.as_bytes()) {
                    panic!("{error}");
                }
            }
        }
    }
}

/// UTF-8 is checked only over the blocks that hold non-ASCII bytes: a
/// character, whole or broken, at every offset across block edges, alone or
/// with another far before or after it (in another block, many blocks away),
/// inside a string and outside one, gets the oracle's verdict from every
/// kernel.
#[test]
fn utf8_wherever_it_stands() {
    let pieces: [&[u8]; 8] = [
        "é".as_bytes(),
        "€".as_bytes(),
        "😀".as_bytes(),
        b"\xc3",         // a lead byte with nothing after it
        b"\xa9",         // a continuation byte alone
        b"\xe2\x82",     // three bytes cut after two
        b"\xed\xa0\x80", // a surrogate, encoded
        b"\xff",
    ];
    let far = "x".repeat(300);
    for piece in pieces {
        for shift in 0..70 {
            let pad = "x".repeat(shift);
            let mut cases = Vec::new();
            let string = |before: &str, after: &str| {
                [
                    format!("[\"{before}{pad}").as_bytes(),
                    piece,
                    format!("{after}\"]").as_bytes(),
                ]
                .concat()
            };
            cases.push(string("", ""));
            cases.push(string(&far, ""));
            cases.push(string("", &far));
            cases.push(string("é", &far));
            cases.push(string(&far, "😀"));
            // outside a string: never valid, whatever the bytes
            cases.push([format!("[{pad}").as_bytes(), piece, b"]"].concat());
            // the very end of the input
            cases.push([format!("\"{pad}").as_bytes(), piece].concat());
            for bytes in &cases {
                if let Err(error) = agree(bytes) {
                    panic!("{error}");
                }
            }
        }
    }
}

/// JSONTestSuite's parsing tests, when `JSON_TEST_SUITE_DIR` is set: every
/// file, `i_` ones included, gets the oracle's verdict from every kernel.
#[test]
fn json_test_suite_verdicts_agree() {
    let Some(dir) = std::env::var_os("JSON_TEST_SUITE_DIR") else {
        println!("JSON_TEST_SUITE_DIR is not set: skipping");
        return;
    };
    let mut files = 0;
    for entry in std::fs::read_dir(dir).expect("a directory") {
        let path = entry.expect("an entry").path();
        if path.extension().is_some_and(|ext| ext == "json") {
            let bytes = std::fs::read(&path).expect("readable");
            if let Err(error) = agree(&bytes) {
                panic!("{}: {error}", path.display());
            }
            files += 1;
        }
    }
    assert!(files > 300, "only {files} files");
}

/// Nesting up to `MAX_DEPTH` levels is accepted and one level more refused,
/// as serde_json reads JSON: arrays, objects and both, the innermost
/// container empty or not, the deepest opener at every offset of a block,
/// by every kernel.
#[test]
fn nesting_stops_where_serde_json_stops() {
    use optics_core::json::scan::MAX_DEPTH;
    for levels in [
        MAX_DEPTH - 2,
        MAX_DEPTH - 1,
        MAX_DEPTH,
        MAX_DEPTH + 1,
        MAX_DEPTH + 2,
    ] {
        let shapes = [
            format!("{}{}", "[".repeat(levels), "]".repeat(levels)),
            format!("{}1{}", "[".repeat(levels), "]".repeat(levels)),
            format!("{}{{}}{}", "[".repeat(levels - 1), "]".repeat(levels - 1)),
            format!("{}1{}", r#"{"a":"#.repeat(levels), "}".repeat(levels)),
            format!(
                "{}[]{}",
                r#"[{"a":"#.repeat((levels - 1) / 2),
                "}]".repeat((levels - 1) / 2)
            ),
        ];
        for shape in &shapes {
            for pad in 0..64 {
                let doc = format!("{}{shape}", " ".repeat(pad));
                if let Err(error) = agree(doc.as_bytes()) {
                    panic!("{levels} levels, {pad} spaces before: {error}");
                }
            }
        }
        let deepest = shapes[0].len() / 2 <= MAX_DEPTH;
        assert_eq!(validate(shapes[0].as_bytes()).is_ok(), deepest, "{levels}");
    }
}

/// Tokens the chunk test above does not place across a chunk's edge:
/// escapes and backslash runs, surrogate escapes paired and lone, text of
/// every UTF-8 width and bytes that are not UTF-8, numbers with exponents,
/// in range and out of it, literals whole and cut, whitespace runs. Each
/// straddles the edge at every byte of it, and stands just before and
/// after it: in an array of numbers, as the value of a member, and as the
/// last token of a document that ends right after it.
#[test]
fn every_kind_of_token_across_the_edge_of_a_chunk() {
    let tokens: [&[u8]; 30] = [
        br#""a\\\\\\\"b\"\\""#,
        br#""\u00e9\ud83d\ude00x""#,
        br#""\ud800""#,
        br#""\ude00\ud83d""#,
        "\"é€😀\"".as_bytes(),
        b"\"\xff\"",
        b"\"\xe2\x82\"",
        b"\"\xed\xa0\x80\"",
        b"\"\x01\"",
        br#""\x""#,
        br#""\u12g4""#,
        b"-0.5e-10",
        b"1.7976931348623157e308",
        b"1e400",
        b"123456789012345678901234567890",
        b"01",
        b"1.",
        b"-",
        b"1e",
        b"true",
        b"false",
        b"null",
        b"tru",
        b"nulll",
        br#"{"k" : [ 1 , { "x" : null } ] }"#,
        br#"{"k" 1}"#,
        b"[1,]",
        b"{,}",
        b"\t\n\r   ",
        b"\xc3\xa9",
    ];
    for edge in [512usize, 4096] {
        for token in tokens {
            // From the token just after the edge to just before it.
            for back in 0..token.len() + 6 {
                let at = edge + 2 - back;
                let mut array = b"[".to_vec();
                while array.len() + 3 < at {
                    array.extend_from_slice(b"0,");
                }
                array.resize(at, b' ');
                array.extend_from_slice(token);
                let mut whole = array.clone();
                whole.extend_from_slice(b",1]");
                array.push(b']');
                let mut member = b"{\"a\":".to_vec();
                member.resize(at, b' ');
                member.extend_from_slice(token);
                member.push(b'}');
                for bytes in [&whole, &array, &member] {
                    if let Err(error) = agree(bytes) {
                        panic!("{} bytes, token at {at}: {error}", bytes.len());
                    }
                }
            }
        }
    }
}

/// Numbers of 299 to 400 characters (strict mode reads more than 300 in
/// full, as serde_json does, for their range), and bytes that are not
/// UTF-8 (a surrogate, an overlong form, a code point past U+10FFFF) or not
/// JSON (a byte-order mark, a form feed), at and around a chunk's edge.
#[test]
fn long_numbers_and_stray_bytes_across_the_edge_of_a_chunk() {
    let mut tokens: Vec<Vec<u8>> = Vec::new();
    for digits in [299usize, 300, 301, 308, 309, 310, 400] {
        let integer = format!("1{}", "0".repeat(digits - 1));
        tokens.push(integer.clone().into_bytes());
        tokens.push(format!("-{integer}").into_bytes());
        tokens.push(format!("{integer}.5").into_bytes());
        tokens.push(format!("{integer}e-10").into_bytes());
        tokens.push(format!("0.{}1", "0".repeat(digits)).into_bytes());
        tokens.push(format!("1.{}e308", "9".repeat(digits)).into_bytes());
        tokens.push(format!("0.{}e310", "0".repeat(digits)).into_bytes());
    }
    for stray in [
        &b"\"\xed\xa0\x80\""[..],
        b"\"\xc0\xaf\"",
        b"\"\xf4\x90\x80\x80\"",
        b"\"\x7f\"",
        b"\xef\xbb\xbf1",
        b"\x0c1",
    ] {
        tokens.push(stray.to_vec());
    }
    for token in &tokens {
        for at in (4000..4100).step_by(7).chain([4095, 4096, 4097]) {
            let mut bytes = b"[".to_vec();
            bytes.resize(at, b' ');
            bytes.extend_from_slice(token);
            bytes.push(b']');
            if let Err(error) = agree(&bytes) {
                panic!("token at {at}: {error}");
            }
        }
    }
}

/// Chunks with a token every other byte or every byte (`[1,1,...]`,
/// `{"a":1,"a":1,...}`, `[[],{},...]`), containers nested up to one level
/// past the limit whose brackets straddle a chunk's edge, and documents
/// whose value or whole bytes end just before, at or just after a chunk's
/// edge, followed by nothing, whitespace or a stray byte.
#[test]
fn dense_and_deep_chunks_and_ends_at_the_edge() {
    use optics_core::json::scan::MAX_DEPTH;
    let mut cases: Vec<Vec<u8>> = Vec::new();
    for len in [4094usize, 4095, 4096, 4097, 4160, 8193] {
        let mut ones = b"[1".to_vec();
        while ones.len() + 2 < len {
            ones.extend_from_slice(b",1");
        }
        ones.push(b']');
        for stray in [&b""[..], b"x", b" ", b"]", b",", b"0"] {
            cases.push([&ones[..], stray].concat());
        }
        let mut members = b"{\"a\":1".to_vec();
        while members.len() + 6 < len {
            members.extend_from_slice(b",\"a\":1");
        }
        members.push(b'}');
        cases.push(members);
        let mut empties = b"[[]".to_vec();
        while empties.len() + 3 < len {
            empties.extend_from_slice(b",{}");
        }
        empties.push(b']');
        cases.push(empties);
        for value_end in [len - 2, len - 1, len] {
            let mut bytes = b"[1".to_vec();
            bytes.resize(value_end - 1, b' ');
            bytes.push(b']');
            bytes.resize(len, b' ');
            for stray in [b'x', b'1', b'{', b'"', 0x80] {
                cases.push([&bytes[..], &[stray]].concat());
                let mut last = bytes.clone();
                last[len - 1] = stray;
                cases.push(last);
            }
            cases.push(bytes);
        }
    }
    for opened_at in (3980..4100).step_by(3) {
        for levels in [MAX_DEPTH, MAX_DEPTH + 1] {
            let mut bytes = vec![b' '; opened_at];
            bytes.extend(std::iter::repeat_n(b'[', levels));
            bytes.extend(std::iter::repeat_n(b']', levels));
            cases.push(bytes);
            let nested = format!("{}1{}", r#"{"k":"#.repeat(levels), "}".repeat(levels));
            cases.push([&vec![b' '; opened_at][..], nested.as_bytes()].concat());
        }
    }
    for bytes in &cases {
        if let Err(error) = agree(bytes) {
            panic!("{} bytes: {error}", bytes.len());
        }
    }
}

/// A document of about 5 to 30 KB (one to seven chunks): many values,
/// compact or pretty.
fn large_document() -> impl Strategy<Value = Vec<u8>> {
    (prop::collection::vec(value(), 40..160), any::<bool>()).prop_map(|(values, pretty)| {
        let text = if pretty {
            serde_json::to_string_pretty(&values)
        } else {
            serde_json::to_string(&values)
        };
        text.expect("serializes").into_bytes()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(support::scaled(32)))]

    /// Large documents, whole and with one byte replaced, inserted or
    /// deleted near the edge of one of their chunks (an error, if the edit
    /// makes one, in a later chunk than the first).
    #[test]
    fn large_documents_edited_near_the_edge_of_a_chunk(
        bytes in large_document(),
        chunk in 1usize..5,
        back in 0usize..130,
        edit in 0..3u8,
        byte in prop::sample::select(ALPHABET),
    ) {
        agree(&bytes)?;
        let mut bytes = bytes;
        let at = (chunk * 4096 + 64).saturating_sub(back).min(bytes.len());
        edit_one_byte(&mut bytes, at, edit, byte);
        agree(&bytes)?;
    }
}
