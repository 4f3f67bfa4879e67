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
