//! The optics reader and the full decode judge every message alike.

#[path = "../optics-core/tests/support/scale.rs"]
mod scale;

use bytes::BytesMut;
use proptest::prelude::*;
use triage::frames::encode;
use triage::generate::{Gen, Generate};
use triage::judge::judge_bytes;
use triage::judge::{by_decoding, by_optics, by_optics_trusting, by_optics_validating_kept};
use triage::model::Issue;
use triage::policy::{Policy, Verdict};

fn agree(seed: u64, size: usize) {
    let policy = Policy::default();
    let message = Issue::generate(&mut Gen::new(seed, size)).to_json();
    let optics = by_optics(&policy, &message);
    let decode = by_decoding(&policy, &message);
    assert_eq!(optics, decode, "seed {seed}, size {size}");
    assert_eq!(
        by_optics_trusting(&policy, &message),
        decode,
        "seed {seed}, size {size}"
    );
    assert_eq!(
        by_optics_validating_kept(&policy, &message),
        decode,
        "seed {seed}, size {size}"
    );
    assert!(optics.kind.is_some(), "a generated issue always has a kind");
    // The strict fuzz target's checks, strict traversals among them, on an
    // issue serde_json decodes.
    triage::fuzzing::strict(&message);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(scale::scaled(512)))]

    #[test]
    fn both_readers_judge_every_generated_message_alike(seed in any::<u64>(), size in 2usize..=40) {
        agree(seed, size);
    }
}

#[test]
fn both_readers_agree_at_every_size_from_2_to_40() {
    for size in 2..=40 {
        for seed in 0..25 {
            agree(seed, size);
        }
    }
}

/// An issue whose detail is of a kind the model does not know.
fn chore() -> Vec<u8> {
    let issue = Issue::generate(&mut Gen::new(3, 7));
    let mut json = serde_json::to_value(&issue).unwrap();
    json["detail"]["type"] = "Chore".into();
    serde_json::to_vec(&json).unwrap()
}

#[test]
fn an_unknown_kind_has_no_kind_and_is_dropped_by_both() {
    let policy = Policy::default();
    let message = chore();
    assert!(String::from_utf8_lossy(&message).contains(r#""type":"Chore""#));
    let dropped = Verdict::DROPPED;
    assert_eq!(by_optics(&policy, &message), dropped);
    assert_eq!(by_optics_trusting(&policy, &message), dropped);
    assert_eq!(by_optics_validating_kept(&policy, &message), dropped);
    assert_eq!(by_decoding(&policy, &message), dropped);

    // And a stream's tally counts it as unclassified, for both readers.
    let mut wire = BytesMut::new();
    encode(&message, &mut wire).unwrap();
    let judged = judge_bytes(wire, &policy);
    assert!(judged.disagreements.is_empty());
    assert_eq!(judged.optics.kind(None).seen, 1);
    assert_eq!(judged.decode.kind(None).seen, 1);
    assert_eq!(judged.optics.kept(), 0);
}

/// A generated issue with a field the model does not know, holding `value`,
/// at its root or first in its detail.
fn with_unknown_field(value: &[u8], in_detail: bool) -> Vec<u8> {
    let message = Issue::generate(&mut Gen::new(5, 9)).to_json();
    let at = match in_detail {
        true => {
            let detail = br#""detail":{"#;
            let at = message.windows(detail.len()).position(|w| w == detail);
            at.expect("a detail") + detail.len()
        }
        false => 1,
    };
    [&message[..at], br#""zzz":"#, value, b",", &message[at..]].concat()
}

/// What serde_json's typed decode skips unchecked in a field it does not
/// know (bytes that are not UTF-8, a number out of an `f64`'s range, nesting
/// past serde_json's limit, a lone surrogate escape, a number serde_json
/// computes as infinite though it rounds to `f64::MAX`) both readers refuse
/// as malformed, as `serde_json::Value` refuses it; just inside the limits
/// (nesting one level less, a surrogate pair, an escaped backslash before
/// `u`, `f64::MAX` itself), both judge it. The fuzzer found the first of these and the lone
/// surrogate (the strict target's corpus keeps both).
#[test]
fn what_a_typed_decode_skips_unchecked_both_readers_check() {
    let policy = Policy::default();
    let nested = |levels: usize| [b"[".repeat(levels), b"]".repeat(levels)].concat();
    // The root is one level, the detail two: serde_json reads 127.
    let cases: [(&[u8], bool, bool); 18] = [
        (b"1.7976931348623158e308", false, false),
        (b"[-1.7976931348623158e308]", true, false),
        (b"1.7976931348623157e308", true, true),
        (br#""\ud800""#, false, false),
        (br#""\udc00x""#, true, false),
        (br#"{"\udbff+":1}"#, false, false),
        (br#"["\ud800\u0041"]"#, true, false),
        (br#""\ud83d\ude00""#, false, true),
        (br#"{"\ud83d\ude00":1}"#, true, true),
        (br#""\\ud800""#, true, true),
        (b"1e400", false, false),
        (b"[-1e400]", true, false),
        (b"\"caf\xe9\"", false, false),
        (b"{\"k\":\"\xff\"}", true, false),
        (&nested(127), false, false),
        (&nested(126), false, true),
        (&nested(126), true, false),
        (&nested(125), true, true),
    ];
    for (value, in_detail, is_json) in cases {
        let message = with_unknown_field(value, in_detail);
        let text = String::from_utf8_lossy(value);
        assert!(serde_json::from_slice::<Issue>(&message).is_ok() || in_detail);
        assert_eq!(
            serde_json::from_slice::<serde_json::Value>(&message).is_ok(),
            is_json,
            "{text}"
        );
        let decode = by_decoding(&policy, &message);
        assert_eq!(by_optics(&policy, &message), decode, "{text}");
        assert_eq!(decode.flaw.is_none(), is_json, "{text}");
        let mut wire = BytesMut::new();
        encode(&message, &mut wire).unwrap();
        assert!(
            judge_bytes(wire, &policy).disagreements.is_empty(),
            "{text}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(scale::scaled(128)))]

    /// Issues written in any layout serde_json reads (whitespace, members in
    /// any order, escapes, exponents, unknown members, a member twice): both
    /// readers judge as the full decode, and byte writes decode as the same
    /// writes on the value (`triage::fuzzing::layout`, also a fuzz target).
    #[test]
    fn every_layout_is_judged_and_written_as_decoded(
        seed in any::<u64>(),
        size in any::<u8>(),
        choices in proptest::collection::vec(any::<u8>(), 0..256),
    ) {
        let mut data = seed.to_le_bytes().to_vec();
        data.push(size);
        data.extend_from_slice(&choices);
        triage::fuzzing::layout(&data);
    }
}

/// The leaves read from serde's buffer (a detail's fields come from it, the
/// detail being internally tagged) in forms serde takes only there: a unit
/// variant written as `{"Sev1":{}}` or `{"Sev1":null}`, a plan and a tier
/// likewise. Every reader judges as the full decode does;
/// strict optics decoded such a leaf as a value of its own and dropped what
/// the others kept.
#[test]
fn leaves_serde_reads_from_its_buffer_are_read_alike() {
    let policy = Policy::default();
    let mut forms_seen = 0;
    for seed in 0..200 {
        let message = String::from_utf8(Issue::generate(&mut Gen::new(seed, 8)).to_json()).unwrap();
        for (plain, buffered) in [
            (r#""severity":"Sev1""#, r#""severity":{"Sev1":{}}"#),
            (r#""severity":"Sev2""#, r#""severity":{"Sev2":null}"#),
            (r#""plan":"Enterprise""#, r#""plan":{"Enterprise":{}}"#),
            (r#""tier":"Critical""#, r#""tier":{"Critical":null}"#),
        ] {
            if !message.contains(plain) {
                continue;
            }
            let odd = message.replacen(plain, buffered, 1);
            let decode = by_decoding(&policy, odd.as_bytes());
            assert!(decode.flaw.is_none(), "serde takes {buffered}");
            assert_eq!(
                by_optics(&policy, odd.as_bytes()),
                decode,
                "{buffered}, seed {seed}"
            );
            assert_eq!(
                by_optics_trusting(&policy, odd.as_bytes()),
                decode,
                "{buffered}, seed {seed}"
            );
            assert_eq!(
                by_optics_validating_kept(&policy, odd.as_bytes()),
                decode,
                "{buffered}, seed {seed}"
            );
            forms_seen += usize::from(decode.keep);
        }
    }
    // Some of them are kept: the forms decide a verdict, not only a kind.
    assert!(forms_seen > 0);
}
