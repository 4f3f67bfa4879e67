//! Strict reads and duplicate keys: a key given twice on the path a read
//! takes (a top-level key, a nested key, an internally tagged enum's tag, a
//! key inside an array element) makes the read return nothing and sets the
//! caller's flag; a duplicate off the path is not reported; trusting reads
//! are unchanged; nothing is allocated. Small objects (walked member by
//! member) and large ones (walked by blocks) alike.

mod support;

use std::collections::BTreeMap;

use optics_core::json::{Duplicates, Strict};
use optics_core::prelude::*;
use serde::Deserialize;

#[global_allocator]
static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;

#[derive(Optics, Deserialize, Debug, PartialEq)]
struct Issue {
    id: u64,
    note: String,
    detail: Detail,
    tags: BTreeMap<String, String>,
}

#[derive(Optics, Deserialize, Debug, PartialEq)]
#[serde(tag = "type")]
enum Detail {
    Incident(Incident),
    Bug(Bug),
}

#[derive(Optics, Deserialize, Debug, PartialEq)]
struct Incident {
    severity: u8,
    impact: Impact,
}

#[derive(Optics, Deserialize, Debug, PartialEq)]
struct Impact {
    users: u64,
    service: Service,
}

#[derive(Optics, Deserialize, Debug, PartialEq)]
struct Service {
    #[serde(alias = "level")]
    tier: String,
    name: String,
}

#[derive(Optics, Deserialize, Debug, PartialEq)]
struct Bug {
    frames: Vec<Frame>,
}

#[derive(Optics, Deserialize, Debug, PartialEq)]
struct Frame {
    module: String,
    line: u32,
}

/// An incident message; `note` pads it (a long note makes the top-level
/// object large enough for the block walk).
fn incident(note_len: usize, detail: &str, extra: &str) -> String {
    format!(
        r#"{{"id":7,"note":"{}"{extra},"detail":{detail},"tags":{{"a":"1","a":"2"}}}}"#,
        "n".repeat(note_len)
    )
}

const DETAIL: &str = r#"{"type":"Incident","severity":1,"impact":{"users":5,"service":{"tier":"gold","name":"db"}}}"#;

/// What a strict read of `optic` from the whole issue gives, and whether it
/// met a duplicate.
fn strict_read<O>(message: &str, optic: O) -> (Option<O::Focus>, bool)
where
    O: for<'de> optics_core::json::JsonDecode<'de> + optics_core::optic::StartsAt<Issue>,
{
    let duplicates = Duplicates::new();
    let issue = Strict::<Issue>::validated(message.as_bytes(), &duplicates).expect("valid JSON");
    let value = issue.read(optic);
    (value, duplicates.met())
}

fn tier() -> impl for<'de> optics_core::json::JsonDecode<'de, Focus = String>
       + optics_core::optic::StartsAt<Issue>
       + Preview<Source = Issue, Focus = String> {
    Issue::detail
        .then(Detail::incident)
        .then(Incident::impact)
        .then(Impact::service)
        .then(Service::tier)
}

fn severity() -> impl for<'de> optics_core::json::JsonDecode<'de, Focus = u8>
       + optics_core::optic::StartsAt<Issue>
       + Preview<Source = Issue, Focus = u8> {
    Issue::detail
        .then(Detail::incident)
        .then(Incident::severity)
}

#[test]
fn a_clean_message_reads_as_trusting_reads_do() {
    for note in [0, 2000] {
        let message = incident(note, DETAIL, "");
        assert_eq!(strict_read(&message, tier()), (Some("gold".into()), false));
        assert_eq!(strict_read(&message, severity()), (Some(1), false));
        assert_eq!(
            strict_read(&message, Issue::detail.then(Detail::kind)),
            (Some(DetailKind::Incident), false)
        );
        assert_eq!(
            Json::<Issue>::new(message.as_bytes()).read(tier()),
            Some("gold".into())
        );
    }
}

#[test]
fn a_duplicate_on_each_step_of_the_path_is_met() {
    let twice_detail = format!(r#","detail":{DETAIL}"#);
    let cases: Vec<(&str, String)> = vec![
        // the top-level key, before the one read
        ("top-level key", twice_detail.clone()),
    ];
    for note in [0, 2000] {
        for (what, extra) in &cases {
            let message = incident(note, DETAIL, extra);
            assert_eq!(
                strict_read(&message, tier()),
                (None, true),
                "{what}, note {note}"
            );
            assert_eq!(
                strict_read(&message, severity()),
                (None, true),
                "{what}, note {note}"
            );
            // The same bytes read trustingly: the first member, as before.
            assert_eq!(
                Json::<Issue>::new(message.as_bytes()).read(tier()),
                Some("gold".into())
            );
        }
        // A duplicate after the key read, at the end of the message.
        let message = format!(
            r#"{{"id":7,"note":"{}","detail":{DETAIL},"detail":{{}}}}"#,
            "n".repeat(note)
        );
        assert_eq!(strict_read(&message, tier()), (None, true));
        // The first key repeated, with a number: no tag, not on the path.
        let message = incident(note, DETAIL, r#","id":8"#);
        assert_eq!(strict_read(&message, tier()), (Some("gold".into()), false));
    }

    // nested keys: each step of detail -> impact -> service -> tier
    let nested = [
        r#"{"type":"Incident","severity":1,"impact":{"users":5,"service":{"tier":"gold","name":"db"}},"impact":{}}"#,
        r#"{"type":"Incident","severity":1,"impact":{"users":5,"service":{"tier":"gold","name":"db"},"service":{}}}"#,
        r#"{"type":"Incident","severity":1,"impact":{"users":5,"service":{"tier":"gold","name":"db","tier":"tin"}}}"#,
        // an alias is the same field to serde
        r#"{"type":"Incident","severity":1,"impact":{"users":5,"service":{"tier":"gold","level":"tin","name":"db"}}}"#,
        // a key written with escapes is the same key
        r#"{"type":"Incident","severity":1,"impact":{"users":5,"service":{"tier":"gold","name":"db","t\u0069er":"tin"}}}"#,
    ];
    for detail in nested {
        for note in [0, 2000] {
            let message = incident(note, detail, "");
            assert_eq!(strict_read(&message, tier()), (None, true), "{detail}");
            // severity's path does not go through impact: not reported
            assert_eq!(
                strict_read(&message, severity()),
                (Some(1), false),
                "{detail}"
            );
        }
    }
}

#[test]
fn a_duplicate_tag_is_met_by_every_read_through_the_enum() {
    for detail in [
        r#"{"type":"Incident","severity":1,"type":"Bug","impact":{"users":5,"service":{"tier":"gold","name":"db"}}}"#,
        r#"{"severity":1,"type":"Incident","impact":{"users":5,"service":{"tier":"gold","name":"db"}},"type":"Incident"}"#,
    ] {
        for note in [0, 2000] {
            let message = incident(note, detail, "");
            assert_eq!(
                strict_read(&message, Issue::detail.then(Detail::kind)),
                (None, true),
                "{detail}"
            );
            assert_eq!(strict_read(&message, severity()), (None, true), "{detail}");
            assert_eq!(strict_read(&message, tier()), (None, true), "{detail}");
        }
    }
    // A large detail: the tag check by blocks.
    let big = format!(
        r#"{{"type":"Incident","severity":1,"pad":"{}","impact":{{"users":5,"service":{{"tier":"gold","name":"db"}}}},"type":"Bug"}}"#,
        "p".repeat(1500)
    );
    let message = incident(0, &big, "");
    assert_eq!(
        strict_read(&message, Issue::detail.then(Detail::kind)),
        (None, true)
    );
    assert_eq!(strict_read(&message, severity()), (None, true));
    // Strict views of the detail alone, as a policy would read them.
    let duplicates = Duplicates::new();
    let detail = Strict::<Detail>::validated(big.as_bytes(), &duplicates).expect("valid");
    assert_eq!(detail.read(Detail::kind), None);
    assert!(duplicates.met());
}

#[test]
fn a_duplicate_inside_an_array_element_is_met_only_on_its_path() {
    let module = Issue::detail
        .then(Detail::bug)
        .then(Bug::frames)
        .then(at(0))
        .then(Frame::module);
    let bug = |frames: &str| format!(r#"{{"type":"Bug","frames":{frames}}}"#);
    let first_dup = bug(r#"[{"module":"auth","line":1,"module":"db"},{"module":"x","line":2}]"#);
    let second_dup = bug(r#"[{"module":"auth","line":1},{"module":"x","line":2,"module":"y"}]"#);
    for note in [0, 2000] {
        assert_eq!(
            strict_read(&incident(note, &first_dup, ""), module),
            (None, true)
        );
        assert_eq!(
            strict_read(&incident(note, &second_dup, ""), module),
            (Some("auth".into()), false)
        );
    }
}

#[test]
fn duplicates_off_the_path_and_in_maps_are_not_reported() {
    for note in [0, 2000] {
        // `x` twice at the top level, `a` twice in the map, `users` twice
        // beside the path to `tier`.
        let detail = r#"{"type":"Incident","severity":1,"impact":{"extra":0,"users":5,"users":6,"service":{"tier":"gold","name":"db"}}}"#;
        let message = incident(note, detail, r#","x":1,"x":2"#);
        assert_eq!(strict_read(&message, tier()), (Some("gold".into()), false));
        // A map keeps serde_json's reading: the last `a`.
        assert_eq!(
            strict_read(&message, Issue::tags.then(key("a"))),
            (Some("2".into()), false)
        );
        // The path through `users` meets it.
        assert_eq!(
            strict_read(
                &message,
                Issue::detail
                    .then(Detail::incident)
                    .then(Incident::impact)
                    .then(Impact::users)
            ),
            (None, true)
        );
    }
}

/// An object's first key, written plainly with a string value (where an
/// internally tagged enum's tag stands), given twice where no tag is read
/// from the object: off the path like any other key. serde_json reads these
/// documents (the key is no field), and strict reads read them as it does;
/// where the object's tag is read, the same key twice is refused.
#[test]
fn a_first_key_repeated_where_no_tag_is_read_is_off_the_path() {
    let service = r#"{"junk":"a","tier":"gold","name":"db","junk":"b"}"#;
    let impact = format!(r#"{{"junk":"a","users":5,"service":{service},"junk":"b"}}"#);
    let detail = format!(r#"{{"type":"Incident","severity":1,"impact":{impact}}}"#);
    for note in [0, 2000] {
        let message = format!(
            r#"{{"junk":"a","id":7,"note":"{}","detail":{detail},"tags":{{}},"junk":"b"}}"#,
            "n".repeat(note)
        );
        let issue: Issue = serde_json::from_str(&message).expect("serde_json reads it");
        let Detail::Incident(incident) = &issue.detail else {
            panic!("an incident");
        };
        assert_eq!(
            strict_read(&message, tier()),
            (Some(incident.impact.service.tier.clone()), false),
            "{message}"
        );
        assert_eq!(
            strict_read(&message, Issue::id),
            (Some(issue.id), false),
            "{message}"
        );
        // In one pass too.
        let duplicates = Duplicates::new();
        let view = Strict::<Issue>::validated_view(message.as_bytes(), &duplicates, Issue::detail)
            .expect("valid JSON")
            .expect("the detail");
        assert_eq!(
            view.read(Detail::incident.then(Incident::severity)),
            Some(1)
        );
        assert!(!duplicates.met(), "{message}");
        // The detail's own first key is its tag: given twice, refused.
        let tagged_twice = message.replace(r#""severity":1"#, r#""severity":1,"type":"Bug""#);
        assert!(serde_json::from_str::<Issue>(&tagged_twice).is_err());
        assert_eq!(strict_read(&tagged_twice, tier()), (None, true));
    }
}

#[test]
fn strict_views_are_readers_and_allocate_nothing() {
    fn gold(detail: impl Reader<Detail>) -> bool {
        detail.read(
            Detail::incident
                .then(Incident::impact)
                .then(Impact::service)
                .then(Service::tier),
        ) == Some("gold".to_owned())
            && detail.read(Detail::kind) == Some(DetailKind::Incident)
    }
    let clean = incident(2000, DETAIL, "");
    let twice = incident(2000, DETAIL, &format!(r#","detail":{DETAIL}"#));
    let messages = [clean.as_bytes(), twice.as_bytes()];
    // Warm up (the first use of the thread's watch), then count.
    let duplicates = Duplicates::new();
    for message in messages {
        let issue = Strict::<Issue>::validated(message, &duplicates).expect("valid");
        let _ = issue.view(Issue::detail).map(gold);
        duplicates.clear();
    }
    let ((kept, met), counts) = alloc_counter::measure_thread(|| {
        let mut kept = [false; 2];
        let mut met = [false; 2];
        for (i, message) in messages.iter().enumerate() {
            let issue = Strict::<Issue>::validated(message, &duplicates).expect("valid");
            // `String` leaves allocate; compare a view's bytes instead.
            kept[i] = issue
                .view(Issue::detail)
                .and_then(|d| {
                    d.view(
                        Detail::incident
                            .then(Incident::impact)
                            .then(Impact::service)
                            .then(Service::tier),
                    )
                })
                .is_some_and(|t| t.bytes() == br#""gold""#);
            met[i] = duplicates.met();
            duplicates.clear();
        }
        (kept, met)
    });
    assert_eq!(counts.allocations, 0);
    assert_eq!(kept, [true, false]);
    assert_eq!(met, [false, true]);
}

mod arbitrary_bytes {
    use super::*;
    use proptest::prelude::*;

    /// Bytes that lean on JSON's punctuation and on the model's keys.
    fn bytes() -> impl Strategy<Value = Vec<u8>> {
        let pieces = prop::sample::select(vec![
            "{",
            "}",
            "[",
            "]",
            ":",
            ",",
            "\"",
            "\\",
            " ",
            "1",
            "\"type\"",
            "\"Incident\"",
            "\"detail\"",
            "\"impact\"",
            "\"service\"",
            "\"tier\"",
            "\"severity\"",
            "\"gold\"",
            "\"t\\u0069er\"",
            "null",
            "\u{e9}",
            "\u{1}",
        ]);
        prop::collection::vec(pieces, 0..60).prop_map(|p| p.concat().into_bytes())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::support::scaled(2000)))]

        /// Strict reads never panic on any bytes, and a value they return is
        /// the one the trusting read returns.
        #[test]
        fn strict_reads_are_safe_and_agree(bytes in bytes(), wrap: bool) {
            let bytes = if wrap {
                format!(r#"{{"id":1,"detail":{}}}"#, String::from_utf8_lossy(&bytes)).into_bytes()
            } else {
                bytes
            };
            let duplicates = Duplicates::new();
            let strict = Json::<Issue>::new(&bytes).strict(&duplicates);
            let trusting = Json::<Issue>::new(&bytes);
            if let Some(found) = strict.read(tier()) {
                prop_assert_eq!(Some(found), trusting.read(tier()));
            }
            if let Some(kind) = strict.read(Issue::detail.then(Detail::kind)) {
                prop_assert_eq!(Some(kind), trusting.read(Issue::detail.then(Detail::kind)));
            }
            if let Some(view) = strict.view(Issue::detail) {
                prop_assert_eq!(Some(view.bytes()), trusting.view(Issue::detail).map(|v| v.bytes()));
            }
        }
    }
}

/// Reads through views of one validation walk each small object once and
/// answer later reads from what that walk recorded: the answers (and the
/// duplicates met) must be the ones fresh walks give, read after read.
mod walked_once {
    use super::*;
    use proptest::prelude::*;

    /// An object of `members` in random order, some given twice.
    fn object(members: Vec<String>) -> impl Strategy<Value = String> {
        prop::collection::vec(prop::sample::select(members), 0..6)
            .prop_map(|picked| format!("{{{}}}", picked.join(",")))
    }

    fn message() -> impl Strategy<Value = String> {
        let owned =
            |members: &[&str]| -> Vec<String> { members.iter().map(|m| m.to_string()).collect() };
        let service = object(owned(&[
            r#""tier":"gold""#,
            r#""level":"silver""#,
            r#""ti\u0065r":"bronze""#,
            r#""name":"db""#,
        ]));
        let impact = service.prop_flat_map(move |service| {
            object(owned(&[r#""users":5"#, r#""name":"x""#])).prop_map(move |rest| {
                // the service once, or not at all, or twice
                let service = format!(r#""service":{service}"#);
                let inner = rest
                    .trim_start_matches('{')
                    .trim_end_matches('}')
                    .to_string();
                let mut parts: Vec<String> = vec![service.clone()];
                if !inner.is_empty() {
                    parts.push(inner);
                }
                if rest.len() % 3 == 0 {
                    parts.push(service);
                }
                format!("{{{}}}", parts.join(","))
            })
        });
        (impact, any::<u8>()).prop_flat_map(move |(impact, seed)| {
            let mut members = owned(&[
                r#""type":"Incident""#,
                r#""type":"Bug""#,
                r#""t\u0079pe":"Incident""#,
                r#""severity":1"#,
                r#""severity":2"#,
                r#""frames":[]"#,
            ]);
            members.push(format!(r#""impact":{impact}"#));
            object(members).prop_map(move |detail| {
                let detail = if seed % 2 == 0 {
                    // the tag first, as serde writes it
                    detail
                        .replacen('{', r#"{"type":"Incident","#, 1)
                        .replace(",}", "}")
                } else {
                    detail
                };
                format!(r#"{{"id":1,"note":"n","detail":{detail},"tags":{{}}}}"#)
            })
        })
    }

    /// The reads, in turn, through `issue`: each answer with the flag after it.
    fn reads(issue: Strict<'_, '_, Issue>, duplicates: &Duplicates) -> Vec<(String, bool)> {
        let mut seen = Vec::new();
        for round in 0..2 {
            seen.push((
                format!(
                    "{round} kind {:?}",
                    issue.read(Issue::detail.then(Detail::kind))
                ),
                duplicates.met(),
            ));
            seen.push((
                format!("{round} tier {:?}", issue.read(tier())),
                duplicates.met(),
            ));
            seen.push((
                format!("{round} severity {:?}", issue.read(severity())),
                duplicates.met(),
            ));
            let detail = issue.view(Issue::detail);
            seen.push((
                format!("{round} detail {:?}", detail.map(|d| d.bytes())),
                duplicates.met(),
            ));
            if let Some(detail) = detail {
                let incident = detail.view(Detail::incident.then(Incident::impact));
                seen.push((
                    format!(
                        "{round} impact {:?}",
                        incident.map(|i| i.read(Impact::users))
                    ),
                    duplicates.met(),
                ));
            }
            duplicates.clear();
        }
        seen
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::support::scaled(2000)))]

        #[test]
        fn reads_through_one_validation_answer_as_fresh_walks_do(message in message()) {
            let bytes = message.as_bytes();
            prop_assume!(Json::<Issue>::validated(bytes).is_ok());
            let recorded = Duplicates::new();
            let issue = Strict::<Issue>::validated(bytes, &recorded).unwrap();
            let fresh = Duplicates::new();
            // `strict` on validated bytes: a view of no validation, walked every time
            let walked = Json::<Issue>::validated(bytes).unwrap().strict(&fresh);
            prop_assert_eq!(reads(issue, &recorded), reads(walked, &fresh), "{}", message);
        }
    }
}

#[test]
fn a_trusting_read_stops_at_its_focus_and_a_strict_one_checks_the_rest() {
    // The containers a path goes through are read up to its focus: what
    // follows the focus in them is not looked at by a trusting read, and is
    // by strict validation. The focus's own member is checked either way.
    let service_tier = Impact::service.then(Service::tier);
    let impact = |rest: &str| format!(r#"{{"users":5,"service":{{"tier":"gold"{rest}"#);
    // What follows `"tier":"gold"`; the trusting read; the trusting view of
    // `service` (a container on the path: its end is found by its brackets,
    // and its member must be followed by `,` or `}`); well formed.
    let cases: [(&str, Option<&str>, Option<&str>, bool); 5] = [
        (
            r#","name":"db"}}"#,
            Some("gold"),
            Some(r#"{"tier":"gold","name":"db"}"#),
            true,
        ),
        // a value missing after the focus
        (
            r#","name":}}"#,
            Some("gold"),
            Some(r#"{"tier":"gold","name":}"#),
            false,
        ),
        // the impact never closes
        (r#","name":"db"}"#, Some("gold"), None, false),
        // the focus's member not followed by `,` or `}`
        (
            r#" "name":"db"}}"#,
            None,
            Some(r#"{"tier":"gold" "name":"db"}"#),
            false,
        ),
        // cut right after the focus's value
        ("", None, None, false),
    ];
    for (rest, trusting, view, well_formed) in cases {
        let doc = impact(rest);
        let json = Json::<Impact>::new(doc.as_bytes());
        assert_eq!(json.read(service_tier).as_deref(), trusting, "{doc}");
        assert_eq!(
            json.view(Impact::service).map(|v| v.bytes()),
            view.map(str::as_bytes),
            "{doc}"
        );
        let duplicates = Duplicates::new();
        let strict = Strict::<Impact>::validated(doc.as_bytes(), &duplicates);
        assert_eq!(strict.is_ok(), well_formed, "{doc}");
        if let Ok(strict) = strict {
            assert_eq!(strict.read(service_tier).as_deref(), Some("gold"));
        }
    }
    // The same through an internally tagged enum, whose tag leads its
    // object: a message cut after the service reads as a whole one, in a
    // small message (walked member by member) and a large one (by blocks).
    for note in [1, 2000] {
        let whole = incident(note, DETAIL, "");
        let cut = &whole[..whole.find(r#""name":"db"}"#).unwrap() + 12];
        for message in [cut, whole.as_str()] {
            let json = Json::<Issue>::new(message.as_bytes());
            assert_eq!(json.read(tier()).as_deref(), Some("gold"), "{message}");
            assert_eq!(json.read(severity()), Some(1), "{message}");
            assert_eq!(
                json.read(Issue::detail.then(Detail::kind)),
                Some(DetailKind::Incident),
                "{message}"
            );
        }
        // A view of the detail still finds its end; the detail entered
        // reads under it as the composed paths do, and finds its end only
        // when asked for its bytes.
        assert!(Json::<Issue>::new(cut.as_bytes())
            .view(Issue::detail)
            .is_none());
        for message in [cut, whole.as_str()] {
            let json = Json::<Issue>::new(message.as_bytes());
            let detail = json.enter(Issue::detail).expect("a detail");
            let service_tier = Detail::incident
                .then(Incident::impact)
                .then(Impact::service)
                .then(Service::tier);
            assert_eq!(detail.read(service_tier), json.read(tier()));
            assert_eq!(
                detail.read(Detail::incident.then(Incident::severity)),
                Some(1)
            );
            assert_eq!(detail.read(Detail::kind), Some(DetailKind::Incident));
            assert_eq!(
                detail.json().map(|d| d.bytes()),
                json.view(Issue::detail).map(|d| d.bytes())
            );
        }
        assert!(Json::<Issue>::new(br#"{"id":7,"note":"n"}"#)
            .enter(Issue::detail)
            .is_none());
        // The detail first, with a short or a long rest of the message after
        // it (a long one is walked to the detail's end once, when entered).
        let first = format!(
            r#"{{"detail":{DETAIL},"id":7,"note":"{}","tags":{{}}}}"#,
            "n".repeat(note)
        );
        let json = Json::<Issue>::new(first.as_bytes());
        let detail = json.enter(Issue::detail).expect("a detail");
        assert_eq!(
            detail.read(Detail::incident.then(Incident::severity)),
            Some(1)
        );
        assert_eq!(detail.read(Detail::kind), Some(DetailKind::Incident));
        assert_eq!(detail.json().map(|d| d.bytes()), Some(DETAIL.as_bytes()));
        let duplicates = Duplicates::new();
        assert!(Strict::<Issue>::validated(cut.as_bytes(), &duplicates).is_err());
    }
    // The same through a list: element 0 is read, the elements after it
    // are not looked at; element 0's own members are.
    let module = Bug::frames.then(at(0)).then(Frame::module);
    for (doc, trusting) in [
        (
            r#"{"frames":[{"module":"auth","line":1},{"module":"x","line":2}]}"#,
            Some("auth"),
        ),
        (
            r#"{"frames":[{"module":"auth","line":1},{"module":]}"#,
            Some("auth"),
        ),
        (r#"{"frames":[{"module":"auth" "line":1}]}"#, None),
        (r#"{"frames":[{"module":"au"#, None),
    ] {
        assert_eq!(
            Json::<Bug>::new(doc.as_bytes()).read(module).as_deref(),
            trusting,
            "{doc}"
        );
    }
}

/// A message several of the validator's chunks long whose nested objects
/// on the path are large too (walked by blocks): the key read at every
/// offset around a chunk's edge, given once, or again (plainly, by its
/// alias, or with an escape) before or after the edge, and a long key off
/// the path that spells it in its value.
#[test]
fn duplicates_in_large_nested_objects_around_the_edge_of_a_chunk() {
    let seconds = [
        None,
        Some(r#""tier":"tin""#),
        Some(r#""level":"tin""#),
        Some(r#""t\u0069er":"tin""#),
    ];
    for second in seconds {
        for second_first in [false, true] {
            for back in 0..70 {
                // "tier" at 4096 + 8 - back, the service object padded
                // before it and after it.
                let head = format!(
                    r#"{{"id":7,"note":"{}","detail":{{"type":"Incident","severity":1,"impact":{{"users":5,"service":{{"name":"db","x":"\"tier\":\\","#,
                    "n".repeat(1500)
                );
                let pad = 4096 + 8 - back - head.len();
                let mut service = format!("{head}{}", " ".repeat(pad));
                let gold = r#""tier":"gold""#;
                match (second, second_first) {
                    (Some(second), true) => service += &format!("{second},{gold}"),
                    (Some(second), false) => service += &format!("{gold},{second}"),
                    (None, _) => service += gold,
                }
                let message = format!(
                    r#"{service},"y":"{}"}}}}}},"tags":{{}}}}"#,
                    "q".repeat(1200)
                );
                let want = match second {
                    None => (Some("gold".to_string()), false),
                    Some(_) => (None, true),
                };
                assert_eq!(
                    strict_read(&message, tier()),
                    want,
                    "{second:?} first {second_first}, back {back}"
                );
                assert_eq!(strict_read(&message, severity()), (Some(1), false));
                let decoded = serde_json::from_str::<Issue>(&message);
                assert_eq!(decoded.is_ok(), second.is_none(), "{second:?}");
            }
        }
    }
}
