//! `Strict::validated_view` (validation and the strict lookup of a root
//! member in one pass over the blocks) against its definition, validating
//! then viewing in two steps: the same verdict, the same bytes, the same
//! duplicate reported, on documents built to hit the lookup's edges (keys
//! that share the sought key's length and edge bytes, escaped keys and
//! escaped quotes right before a key, whitespace around colons, the key
//! nested deeper, the key or the first key given twice, objects of every
//! size across block edges, roots that are not objects, damage).

mod support;

use optics_core::json::{Duplicates, JsonOptic, Strict};
use optics_core::optic::StartsAt;
use optics_core::prelude::*;
use proptest::prelude::*;
use serde::Deserialize;

#[derive(Optics, Deserialize, Debug, PartialEq)]
struct Issue {
    id: u64,
    #[serde(alias = "item")]
    detail: Detail,
}

#[derive(Optics, Deserialize, Debug, PartialEq)]
struct Detail {
    code: u8,
}

/// The same root with one name for the detail. The one pass watches the
/// keys that start as a name of the detail does: here two bytes; for
/// `Issue` (`detail`, `item`) one each.
#[derive(Optics, Deserialize, Debug, PartialEq)]
struct Single {
    id: u64,
    detail: Detail,
}

/// A root member of one byte: the one pass watches keys that start with it
/// and then a quote.
#[derive(Optics, Deserialize, Debug, PartialEq)]
struct Short {
    id: u64,
    d: Detail,
}

/// What a reader makes of one document: refused, or the detail's bytes (or
/// none) and whether a duplicate was met.
type Outcome = Result<(Option<Vec<u8>>, bool), ()>;

/// `optic` read from `bytes` in the one pass (`Strict::validated_view`).
fn one_pass<T, O>(bytes: &[u8], optic: O) -> Outcome
where
    O: JsonOptic + StartsAt<T>,
{
    let duplicates = Duplicates::new();
    let view = Strict::<T>::validated_view(bytes, &duplicates, optic).map_err(|_| ())?;
    Ok((view.map(|v| v.bytes().to_vec()), duplicates.met()))
}

/// `optic` read from `bytes` by validating, then viewing: the definition.
fn two_steps<T, O>(bytes: &[u8], optic: O) -> Outcome
where
    O: JsonOptic + StartsAt<T>,
{
    let duplicates = Duplicates::new();
    let root = Strict::<T>::validated(bytes, &duplicates).map_err(|_| ())?;
    let view = root.view(optic);
    Ok((view.map(|v| v.bytes().to_vec()), duplicates.met()))
}

fn in_one_pass(bytes: &[u8]) -> Outcome {
    one_pass::<Issue, _>(bytes, Issue::detail)
}

fn in_two_steps(bytes: &[u8]) -> Outcome {
    two_steps::<Issue, _>(bytes, Issue::detail)
}

fn single_in_one_pass(bytes: &[u8]) -> Outcome {
    one_pass::<Single, _>(bytes, Single::detail)
}

fn single_in_two_steps(bytes: &[u8]) -> Outcome {
    two_steps::<Single, _>(bytes, Single::detail)
}

fn short_in_one_pass(bytes: &[u8]) -> Outcome {
    one_pass::<Short, _>(bytes, Short::d)
}

fn short_in_two_steps(bytes: &[u8]) -> Outcome {
    two_steps::<Short, _>(bytes, Short::d)
}

/// One member of the root object, as written.
fn member() -> impl Strategy<Value = String> {
    let key = prop::sample::select(vec![
        "detail",
        "item",
        "id",
        "type",
        "detal",
        "xdetail",
        "detaix",
        "dexxil",
        "det\\u0061il",
        "it\\u0065m",
        "a\\\"detail",
        "\\\\detail",
        "d\\\"l",
        "tyqe",
        "ty\\u0070e",
        "\\u0064etail",
        "\\u0074ype",
        "\\u0069d",
        "dueAt",
        "d",
        "detail\\u0020",
        // the second byte escaped: the key's first two bytes are not the
        // sought key's as written
        "d\\u0065tail",
        "i\\u0074em",
        "t\\u0079pe",
        "\\u0064",
        "d\\u0022",
        "de",
    ]);
    let value = prop::sample::select(vec![
        r#"{"code":1}"#,
        r#"{"code":2,"detail":{"code":3}}"#,
        r#"{ "code" : 4 }"#,
        r#""Incident""#,
        r#""a\"b:c""#,
        r#"[{"detail":1},"detail:"]"#,
        "7",
        "-0.5e3",
        "null",
        "true",
        "{}",
        "[]",
        r#""\\""#,
    ]);
    let gap = prop::sample::select(vec!["", " ", "\n  ", "\t"]);
    (key, gap.clone(), gap, value).prop_map(|(k, g1, g2, v)| format!("\"{k}\"{g1}:{g2}{v}"))
}

/// A padding member that moves the rest across block edges and, long
/// enough, past the size where lookups walk by blocks.
fn padding() -> impl Strategy<Value = String> {
    (
        0usize..1500,
        prop::sample::select(vec!["n", "\\\"", "\\\\", "é", ":", "{"]),
    )
        .prop_map(|(len, piece)| format!(r#""pad":"{}""#, piece.repeat(len / piece.len().max(1))))
}

fn document() -> impl Strategy<Value = Vec<u8>> {
    let members = prop::collection::vec(prop_oneof![4 => member(), 1 => padding()], 0..8);
    // a cut, or a stray bracket, at some place
    let damage = prop_oneof![
        8 => Just(None),
        1 => (0usize..2000, Just(None)).prop_map(Some),
        1 => (0usize..2000, prop::sample::select(vec!['}', ']', '{', '['])).prop_map(|(at, b)| Some((at, Some(b)))),
    ];
    (
        members,
        prop::sample::select(vec!["", " ", "\n"]),
        any::<bool>(),
        damage,
    )
        .prop_map(|(members, lead, array_root, damage)| {
            let body = members.join(",");
            let mut text = if array_root {
                format!("{lead}[{{{body}}}]")
            } else {
                format!("{lead}{{{body}}}{lead}")
            };
            if let Some((at, stray)) = damage {
                let mut at = at % (text.len() + 1);
                while !text.is_char_boundary(at) {
                    at -= 1;
                }
                match stray {
                    Some(byte) => text.insert(at, byte),
                    None => text.truncate(at),
                }
            }
            text.into_bytes()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(support::scaled(4000)))]

    #[test]
    fn one_pass_reads_as_validating_then_viewing(bytes in document()) {
        prop_assert_eq!(in_one_pass(&bytes), in_two_steps(&bytes), "{}", String::from_utf8_lossy(&bytes));
        prop_assert_eq!(
            single_in_one_pass(&bytes),
            single_in_two_steps(&bytes),
            "{}",
            String::from_utf8_lossy(&bytes)
        );
        prop_assert_eq!(
            short_in_one_pass(&bytes),
            short_in_two_steps(&bytes),
            "{}",
            String::from_utf8_lossy(&bytes)
        );
    }
}

#[test]
fn each_edge_agrees() {
    let cases: &[&str] = &[
        r#"{"id":1,"detail":{"code":1}}"#,
        r#"{"id":1,"detail":{"code":1},"detail":{"code":2}}"#,
        r#"{"id":1,"item":{"code":1},"detail":{"code":2}}"#,
        r#"{"id":1,"a\"detail":{"code":1}}"#,
        r#"{"id":1,"det\u0061il":{"code":1}}"#,
        r#"{"type":"x","detail":{"code":1},"type":"y"}"#,
        r#"{"type":"x","detail":{"code":1},"ty\u0070e":"y"}"#,
        r#"{"x":{"detail":{"code":1}}}"#,
        // a key's first letter escaped: read again the usual way
        r#"{"id":1,"\u0064etail":{"code":1}}"#,
        r#"{"id":1,"detail":{"code":1},"\u0064etail":{"code":2}}"#,
        r#"{"type":"x","detail":{"code":1},"\u0074ype":"y"}"#,
        r#"{"id":1,"dueAt":2,"d":3,"detail":{"code":1},"details":4}"#,
        // its second letter escaped
        r#"{"id":1,"d\u0065tail":{"code":1}}"#,
        r#"{"id":1,"detail":{"code":1},"d\u0065tail":{"code":2}}"#,
        r#"{"id":1,"d":{"code":1},"\u0064":{"code":2}}"#,
        r#"{"id":1,"de":2,"d":{"code":1},"dd":{}}"#,
        r#"[{"detail":{"code":1}}]"#,
        r#"{"id":1}"#,
        r#"{}"#,
        r#"  {"detail" :  {"code":1}  }  "#,
        r#"{"id":1,"detail":{"code":1}"#,
        r#"{"id":1,"detail":{"code":1}} x"#,
        // more closers than openers before a key, in one block
        r#"{"a":1}},"detail":{"code":1}}"#,
        r#"{"a":[1]]],"detail":{"code":1}}"#,
        "",
    ];
    for case in cases {
        assert_eq!(
            in_one_pass(case.as_bytes()),
            in_two_steps(case.as_bytes()),
            "{case}"
        );
        assert_eq!(
            single_in_one_pass(case.as_bytes()),
            single_in_two_steps(case.as_bytes()),
            "{case}"
        );
        assert_eq!(
            short_in_one_pass(case.as_bytes()),
            short_in_two_steps(case.as_bytes()),
            "{case}"
        );
    }
    // a present key, a duplicate, and a refused document really are told apart
    assert_eq!(
        in_one_pass(br#"{"id":1,"detail":{"code":1}}"#),
        Ok((Some(br#"{"code":1}"#.to_vec()), false))
    );
    assert_eq!(
        in_one_pass(br#"{"id":1,"detail":{"code":1},"item":{}}"#),
        Ok((None, true))
    );
    assert_eq!(in_one_pass(br#"{"id":1,"detail":{"code":1}"#), Err(()));
    // a key written with an escape is the key it spells
    assert_eq!(
        single_in_one_pass(br#"{"id":1,"\u0064etail":{"code":1}}"#),
        Ok((Some(br#"{"code":1}"#.to_vec()), false))
    );
    assert_eq!(
        single_in_one_pass(br#"{"id":1,"detail":{"code":1},"de\u0074ail":{}}"#),
        Ok((None, true))
    );
    // the first key again, where no tag was read: off the path
    assert_eq!(
        single_in_one_pass(br#"{"type":"x","detail":{"code":1},"\u0074ype":"y"}"#),
        Ok((Some(br#"{"code":1}"#.to_vec()), false))
    );
    assert_eq!(
        in_one_pass(br#"{"type":"x","detail":{"code":1},"type":"y"}"#),
        Ok((Some(br#"{"code":1}"#.to_vec()), false))
    );
    // the second letter escaped: found, and a duplicate when written again
    assert_eq!(
        single_in_one_pass(br#"{"id":1,"d\u0065tail":{"code":1}}"#),
        Ok((Some(br#"{"code":1}"#.to_vec()), false))
    );
    assert_eq!(
        single_in_one_pass(br#"{"id":1,"detail":{"code":1},"d\u0065tail":{}}"#),
        Ok((None, true))
    );
    // a one-byte key: its look-alikes passed, its escaped spelling met
    assert_eq!(
        short_in_one_pass(br#"{"id":1,"de":2,"d":{"code":1},"dd":{}}"#),
        Ok((Some(br#"{"code":1}"#.to_vec()), false))
    );
    assert_eq!(
        short_in_one_pass(br#"{"id":1,"d":{"code":1},"\u0064":{"code":2}}"#),
        Ok((None, true))
    );
}

#[test]
fn large_documents_agree_at_every_offset() {
    // the sought key at every offset of a block, after a long padding
    for pad in 1000..1140 {
        for (escaped, key) in [(false, "detail"), (true, "detail"), (false, "d\\u0065tail")] {
            let piece = if escaped { "\\\"" } else { "n" };
            let doc = format!(
                r#"{{"id":1,"pad":"{}","{key}":{{"code":1}},"tail":"{}"}}"#,
                piece.repeat(pad / piece.len()),
                "t".repeat(pad % 70)
            );
            let one = in_one_pass(doc.as_bytes());
            assert_eq!(one, in_two_steps(doc.as_bytes()), "{pad}");
            assert_eq!(one, Ok((Some(br#"{"code":1}"#.to_vec()), false)), "{pad}");
            let single = single_in_one_pass(doc.as_bytes());
            assert_eq!(single, single_in_two_steps(doc.as_bytes()), "{pad}");
            assert_eq!(single, one, "{pad}");
        }
    }
}

#[test]
fn a_long_value_closes_at_every_offset() {
    // The detail spans blocks and its closing bracket lands on every offset
    // of a block: the one pass takes its end from the validator's blocks.
    for pad in 0..200 {
        for (open, close) in [("{", "}"), ("[", "]")] {
            let inner = format!(
                r#"{{"code":1,"pad":"{}","deep":[[{{"a":"]}}"}}]]}}"#,
                "p".repeat(pad)
            );
            let value = match open {
                "{" => inner.clone(),
                _ => format!("{open}{inner} , {inner}{close}"),
            };
            let doc = format!(r#"{{"id":1,"detail":  {value}  ,"tail":[{{}}]}}"#);
            let one = in_one_pass(doc.as_bytes());
            assert_eq!(one, in_two_steps(doc.as_bytes()), "{pad} {open}");
            assert_eq!(one, Ok((Some(value.into_bytes()), false)), "{pad} {open}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(support::scaled(1000)))]

    /// Every kernel this machine has finds what the scalar kernel finds.
    #[test]
    fn every_kernel_finds_alike(bytes in document()) {
        use optics_core::json::scan::kernels::{validate_and_find_with, KernelChoice};
        // two keys, and one (the edge-byte filter on)
        for keys in [&["detail", "item"][..], &["detail"][..]] {
            let want = validate_and_find_with(KernelChoice::Scalar, &bytes, keys).map_err(|_| ());
            for choice in [KernelChoice::Best, KernelChoice::Avx2, KernelChoice::Baseline] {
                let got = validate_and_find_with(choice, &bytes, keys).map_err(|_| ());
                prop_assert_eq!(got, want, "{:?} {:?}", choice, keys);
            }
        }
    }
}
