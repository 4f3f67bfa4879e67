//! Strict optics against serde_json on damaged messages: for random issues
//! with random damage, strict optics never keep a message that serde_json
//! rejects as JSON (numbers out of an f64's range included), nor one with a
//! key repeated on a path the policy reads;
//! and on every message that still decodes as an `Issue`, strict optics and
//! a full decode give the same verdict. Messages several of the
//! validator's chunks long, damaged at their edges, are judged framed too,
//! as the filter judges them (`judge_bytes`).

#[path = "../optics-core/tests/support/scale.rs"]
mod scale;

use std::collections::HashSet;
use std::fmt;

use bytes::BytesMut;
use proptest::prelude::*;
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use triage::frames::encode;
use triage::generate::{Gen, Generate};
use triage::judge::{
    by_decoding, by_optics, by_optics_trusting, by_optics_validating_kept, judge_bytes,
};
use triage::model::Issue;
use triage::policy::{Flaw, Policy};

/// A JSON document as a tree that keeps repeated keys (serde_json's `Value`
/// keeps only the last).
enum Node {
    Object(Vec<(String, Node)>),
    Array(Vec<Node>),
    Leaf,
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Node, D::Error> {
        struct Tree;
        impl<'de> Visitor<'de> for Tree {
            type Value = Node;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("JSON")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
                let mut members = Vec::new();
                while let Some((key, value)) = map.next_entry::<String, Node>()? {
                    members.push((key, value));
                }
                Ok(Node::Object(members))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element::<Node>()? {
                    items.push(item);
                }
                Ok(Node::Array(items))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Node, E> {
                Ok(Node::Leaf)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Node, E> {
                Ok(Node::Leaf)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Node, E> {
                Ok(Node::Leaf)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Node, E> {
                Ok(Node::Leaf)
            }
            fn visit_str<E>(self, _: &str) -> Result<Node, E> {
                Ok(Node::Leaf)
            }
            fn visit_unit<E>(self) -> Result<Node, E> {
                Ok(Node::Leaf)
            }
        }
        d.deserialize_any(Tree)
    }
}

impl Node {
    /// The first member named `key`, and whether `key` is there more than
    /// once.
    fn member(&self, key: &str) -> (Option<&Node>, bool) {
        let Node::Object(members) = self else {
            return (None, false);
        };
        let mut found = members.iter().filter(|(k, _)| k == key).map(|(_, v)| v);
        let first = found.next();
        (first, found.next().is_some())
    }

    /// Whether a key repeats on `path` (keys, `#0` for an array's first
    /// element) below this node.
    fn repeats_on(&self, path: &[&str]) -> bool {
        let Some((step, rest)) = path.split_first() else {
            return false;
        };
        if *step == "#0" {
            return match self {
                Node::Array(items) => items.first().is_some_and(|n| n.repeats_on(rest)),
                _ => false,
            };
        }
        match self.member(step) {
            (_, true) => true,
            (Some(next), false) => next.repeats_on(rest),
            (None, false) => false,
        }
    }
}

/// The paths the policy reads, from the issue down to each leaf.
const JUDGED_PATHS: [&[&str]; 6] = [
    &["detail", "type"],
    &["detail", "severity"],
    &["detail", "impact", "service", "tier"],
    &["detail", "trace", "frames", "#0", "module"],
    &["detail", "requester", "contract", "plan"],
    &["detail", "votes"],
];

/// Whether the document repeats a key on a path the policy reads.
fn repeats_a_judged_key(bytes: &[u8]) -> bool {
    match serde_json::from_slice::<Node>(bytes) {
        Ok(root) => JUDGED_PATHS.iter().any(|path| root.repeats_on(path)),
        Err(_) => false,
    }
}

/// One way to damage a message.
#[derive(Clone, Debug)]
enum Damage {
    /// Replace the byte at this fraction of the message with this byte.
    Replace(f64, u8),
    /// Insert this byte at this fraction of the message.
    Insert(f64, u8),
    /// Delete the byte at this fraction.
    Delete(f64),
    /// Cut the message at this fraction.
    Truncate(f64),
    /// Append these bytes.
    Append(Vec<u8>),
    /// Write the member of the `n`-th occurrence of a judged key
    /// (`"detail"`, `"type"`, ...) again, in front of itself.
    RepeatKey(usize, u8),
    /// No damage.
    None,
}

fn damage() -> impl Strategy<Value = Damage> {
    let at = 0.0..1.0f64;
    prop_oneof![
        (at.clone(), any::<u8>()).prop_map(|(a, b)| Damage::Replace(a, b)),
        (
            at.clone(),
            prop::sample::select(b"{}[]\",:\\ 0e-.tfn\xff\x01".to_vec())
        )
            .prop_map(|(a, b)| Damage::Insert(a, b)),
        at.clone().prop_map(Damage::Delete),
        at.prop_map(Damage::Truncate),
        prop::collection::vec(any::<u8>(), 1..4).prop_map(Damage::Append),
        (0usize..8, any::<u8>()).prop_map(|(n, b)| Damage::RepeatKey(n, b)),
        Just(Damage::None),
    ]
}

/// Keys on the judged paths, as they appear in the bytes.
const JUDGED_KEYS: [&str; 11] = [
    "\"detail\":",
    "\"type\":",
    "\"severity\":",
    "\"impact\":",
    "\"service\":",
    "\"tier\":",
    "\"trace\":",
    "\"frames\":",
    "\"module\":",
    "\"requester\":",
    "\"votes\":",
];

fn apply(message: &[u8], damage: &Damage) -> Vec<u8> {
    let mut out = message.to_vec();
    let at = |f: f64| ((f * message.len() as f64) as usize).min(message.len() - 1);
    match damage {
        Damage::Replace(f, b) => out[at(*f)] = *b,
        Damage::Insert(f, b) => out.insert(at(*f), *b),
        Damage::Delete(f) => {
            out.remove(at(*f));
        }
        Damage::Truncate(f) => out.truncate(at(*f)),
        Damage::Append(bytes) => out.extend_from_slice(bytes),
        Damage::RepeatKey(n, which) => {
            let text = String::from_utf8_lossy(message).into_owned();
            let key = JUDGED_KEYS[usize::from(*which) % JUDGED_KEYS.len()];
            let starts: Vec<usize> = text.match_indices(key).map(|(i, _)| i).collect();
            if let Some(&start) = starts.get(n % starts.len().max(1)) {
                // The member `key value,` written again in front of itself:
                // the value is taken whole with serde_json's own reader.
                let value_at = start + key.len();
                let mut values =
                    serde_json::Deserializer::from_slice(&message[value_at..]).into_iter();
                if let Some(Ok(serde::de::IgnoredAny)) = values.next() {
                    let end = value_at + values.byte_offset();
                    let member = [&message[start..end], b","].concat();
                    out.splice(start..start, member);
                }
            }
        }
        Damage::None => {}
    }
    out
}

fn check(seed: u64, size: usize, damage: &Damage) {
    let message = apply(
        &Issue::generate(&mut Gen::new(seed, size)).to_json(),
        damage,
    );
    check_message(&message, &format!("{damage:?}"));
}

/// Strict optics' verdict on `message` (damaged as `what` says) against
/// serde_json's reading of it.
fn check_message(message: &[u8], what: &str) {
    let policy = Policy::default();
    let verdict = by_optics(&policy, message);
    let is_json = serde_json::from_slice::<serde_json::Value>(message).is_ok();
    if verdict.keep {
        assert!(is_json, "{what}: kept what is not JSON");
        assert!(
            !repeats_a_judged_key(message),
            "{what}: kept a message with a key repeated on a judged path"
        );
    }
    if !is_json {
        assert_eq!(verdict.flaw, Some(Flaw::Malformed), "{what}");
    }
    if serde_json::from_slice::<Issue>(message).is_ok() {
        assert_eq!(verdict, by_decoding(&policy, message), "{what}");
    }
    // Validating only what it keeps forwards exactly what strict mode
    // forwards, with strict mode's verdict wherever trusting reads keep.
    let kept_only = by_optics_validating_kept(&policy, message);
    assert_eq!(kept_only.keep, verdict.keep, "{what}");
    if by_optics_trusting(&policy, message).keep {
        assert_eq!(kept_only, verdict, "{what}");
    }
}

#[test]
fn a_number_out_of_range_in_a_skipped_field_is_malformed() {
    let policy = Policy::default();
    let message = Issue::generate(&mut Gen::new(4, 7)).to_json();
    let text = String::from_utf8(message).unwrap();
    let huge = text.replacen("\"id\":", "\"id\":1e400,\"x\":", 1);
    assert!(serde_json::from_slice::<serde_json::Value>(huge.as_bytes()).is_err());
    assert_eq!(
        by_optics(&policy, huge.as_bytes()).flaw,
        Some(Flaw::Malformed)
    );
}

proptest! {
    // 2,000 damaged messages a run, every kind of damage about equally.
    #![proptest_config(ProptestConfig::with_cases(scale::scaled(2000)))]

    #[test]
    fn strict_optics_never_keep_what_serde_rejects(
        seed in any::<u64>(),
        size in 2usize..=12,
        damage in damage(),
    ) {
        check(seed, size, &damage);
    }
}

#[test]
fn repeating_a_judged_key_is_seen_by_the_oracle() {
    // The oracle itself: a repeated `detail` or `type` is on a judged path,
    // a repeated `title` is not.
    let message = Issue::generate(&mut Gen::new(3, 7)).to_json();
    let mut seen = HashSet::new();
    for which in 0..JUDGED_KEYS.len() as u8 {
        let damaged = apply(&message, &Damage::RepeatKey(0, which));
        if damaged != message {
            seen.insert(repeats_a_judged_key(&damaged));
        }
    }
    assert!(seen.contains(&true));
    let text = String::from_utf8(message.clone()).unwrap();
    let title = text.find("\"title\":").unwrap();
    let mut twice = message.clone();
    twice.splice(title..title, b"\"title\":\"x\",".iter().copied());
    assert!(serde_json::from_slice::<serde_json::Value>(&twice).is_ok());
    assert!(!repeats_a_judged_key(&twice));
}

/// Judges each of `messages` framed one after another on one wire, as the
/// filter does: strict optics and the full decode agree on every message
/// that decodes as an `Issue`.
fn judged_in_frames_agree(messages: &[Vec<u8>]) {
    let mut wire = BytesMut::new();
    for message in messages {
        encode(message, &mut wire).expect("a frame");
    }
    let judged = judge_bytes(wire, &Policy::default());
    assert!(judged.error.is_none());
    assert_eq!(judged.optics.messages, messages.len() as u64);
    for disagreement in &judged.disagreements {
        let message = &messages[disagreement.index as usize];
        assert!(
            serde_json::from_slice::<Issue>(message).is_err(),
            "frame {}: {disagreement:?}",
            disagreement.index
        );
    }
}

/// Messages several of the validator's chunks (4 KB) long, with a byte
/// replaced or inserted, or the message cut, at every offset just before
/// and at each chunk's edge and at the end: strict optics keep nothing
/// serde_json refuses, and agree with the full decode, alone and framed.
#[test]
fn large_messages_damaged_at_the_edges_of_chunks() {
    for seed in 0..2 {
        let message = Issue::generate(&mut Gen::new(seed, 20)).to_json();
        assert!(message.len() > 2 * 4096, "{} bytes", message.len());
        let edges = (1..=message.len() / 4096)
            .map(|k| k * 4096)
            .chain([message.len() - 1]);
        let mut damaged = vec![message.clone()];
        for edge in edges {
            for at in edge - 12..(edge + 2).min(message.len()) {
                for byte in *b"}]\",:\\ 0\xff" {
                    let mut replaced = message.clone();
                    replaced[at] = byte;
                    damaged.push(replaced);
                    let mut inserted = message.clone();
                    inserted.insert(at, byte);
                    damaged.push(inserted);
                }
                damaged.push(message[..at].to_vec());
            }
        }
        for (i, bytes) in damaged.iter().enumerate() {
            check_message(bytes, &format!("seed {seed}, damaged message {i}"));
        }
        judged_in_frames_agree(&damaged);
    }
}

/// The `detail` member of a message of several chunks at every offset
/// around a chunk's edge (whitespace after the `{` moving it), given once,
/// or twice (its copy first or last): strict optics keep what the full
/// decode keeps, and never a message with `detail` twice.
#[test]
fn detail_at_every_offset_around_the_edge_of_a_chunk() {
    let policy = Policy::default();
    for seed in 0..3 {
        let text =
            String::from_utf8(Issue::generate(&mut Gen::new(seed, 16)).to_json()).expect("UTF-8");
        let start = text.find("\"detail\":").expect("a detail");
        let value_at = start + "\"detail\":".len();
        let mut values = serde_json::Deserializer::from_str(&text[value_at..])
            .into_iter::<serde::de::IgnoredAny>();
        values.next().expect("a value").expect("valid");
        let member = &text[start..value_at + values.byte_offset()];
        let to_edge = (start / 4096 + 1) * 4096 - start;
        let mut messages = Vec::new();
        for shift in to_edge - 40..to_edge + 40 {
            let pad = " ".repeat(shift);
            let moved = format!("{{{pad}{}", &text[1..]);
            let first = format!("{{{pad}{member},{}", &text[1..]);
            let last = format!("{{{pad}{},{member}}}", &text[1..text.len() - 1]);
            for twice in [&first, &last] {
                assert!(!by_optics(&policy, twice.as_bytes()).keep, "shift {shift}");
            }
            for message in [moved, first, last] {
                check_message(message.as_bytes(), &format!("seed {seed}, shift {shift}"));
                messages.push(message.into_bytes());
            }
        }
        judged_in_frames_agree(&messages);
    }
}
