//! `Reader::fold_while` and its forms (`fold`, `any`, `all`) on the four
//! readers (a value, `Json`, `Entered`, `Strict`) against each other and
//! serde_json: on a document serde_json decodes, every reader folds the same
//! foci as the decoded value does (a map's in another order); a focus that
//! does not decode, or a key repeated on the path (strict), gives `None`.
//! The one documented exception: a path past a field the document leaves
//! out, which has no foci on bytes.

#[path = "support/scale.rs"]
mod scale;

mod model;

use std::ops::ControlFlow;

use model::*;
use optics_core::json::{Duplicates, Strict};
use optics_core::prelude::*;
use proptest::prelude::*;

/// Every focus each reader folds, collected (sorted when `sort`: a map's
/// order differs between a value and its bytes), against the value's.
macro_rules! folds_agree {
    ($issue:expr, $bytes:expr, $optic:expr, $sort:expr) => {{
        let issue: &Issue = $issue;
        let bytes: &[u8] = $bytes;
        let optic = $optic;
        let push = |mut all: Vec<String>, focus: &_| {
            all.push(format!("{focus:?}"));
            all
        };
        let on_value = issue.fold(optic, Vec::new(), push);
        let json = Json::<Issue>::new(bytes);
        let on_bytes = json.fold(optic, Vec::new(), push);
        let duplicates = Duplicates::new();
        let strict = Strict::<Issue>::validated(bytes, &duplicates).unwrap();
        let on_strict = strict.fold(optic, Vec::new(), push);
        let sorted = |all: Option<Vec<String>>| {
            all.map(|mut all| {
                if $sort {
                    all.sort();
                }
                all
            })
        };
        prop_assert!(on_value.is_some());
        prop_assert_eq!(sorted(on_bytes), sorted(on_value.clone()));
        prop_assert_eq!(sorted(on_strict), sorted(on_value.clone()));
        prop_assert!(!duplicates.met());
        let count = on_value.as_ref().map_or(0, Vec::len);
        // any/all agree with the value's, and stop where they answer.
        let first = on_value.as_ref().and_then(|all| all.first().cloned());
        let is_first = |focus: &_| Some(format!("{focus:?}")) == first;
        prop_assert_eq!(issue.any(optic, is_first), Some(count > 0));
        prop_assert_eq!(json.any(optic, is_first), Some(count > 0));
        prop_assert_eq!(strict.any(optic, is_first), Some(count > 0));
        prop_assert_eq!(json.all(optic, |_| true), Some(true));
        prop_assert_eq!(json.all(optic, |_| false), Some(count == 0));
        prop_assert_eq!(strict.all(optic, |_| false), Some(count == 0));
        let mut seen = 0;
        let stopped = json.fold_while(optic, 0, |n, _| {
            seen += 1;
            if n == 1 {
                ControlFlow::Break(n)
            } else {
                ControlFlow::Continue(n + 1)
            }
        });
        // Broken at the second focus: nothing after it is read.
        prop_assert_eq!(stopped, Some(count.min(1)));
        prop_assert_eq!(seen, count.min(2));
    }};
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::scale::scaled(128)))]

    #[test]
    fn every_reader_folds_what_the_value_holds(issue in issue()) {
        let bytes = serde_json::to_vec(&issue).unwrap();
        folds_agree!(&issue, &bytes, Issue::labels.then(each()), false);
        folds_agree!(&issue, &bytes, Issue::counters.then(each()).then(Wrapper::value), true);
        folds_agree!(&issue, &bytes, Issue::tags.then(each()), true);
        folds_agree!(
            &issue,
            &bytes,
            Issue::detail.then(Detail::bug).then(Bug::frames).then(each()).then(Frame::line),
            false
        );
        folds_agree!(
            &issue,
            &bytes,
            Issue::detail
                .then(Detail::incident)
                .then(Incident::impact)
                .then(Impact::service)
                .then(Service::owner_ids)
                .then(each()),
            false
        );
        // A single-focus optic folds its one focus, or none.
        folds_agree!(&issue, &bytes, Issue::issue_id, false);
        folds_agree!(&issue, &bytes, Issue::shape.then(Shape::circle), false);

        // Entered: the frames' lines read under the detail entered.
        let json = Json::<Issue>::new(&bytes);
        let detail = json.enter(Issue::detail).unwrap();
        let lines = Detail::bug.then(Bug::frames).then(each()).then(Frame::line);
        let value: &Detail = &issue.detail;
        let expected = value.fold(lines, 0u64, |sum, line| sum + u64::from(*line));
        prop_assert_eq!(detail.fold(lines, 0u64, |sum, line| sum + u64::from(*line)), expected);
    }
}

#[derive(Optics, serde::Deserialize, Debug)]
struct Trace {
    frames: Vec<Frame2>,
}

#[derive(Optics, serde::Deserialize, Debug)]
struct Frame2 {
    line: u32,
}

#[test]
fn a_focus_that_does_not_decode_gives_none_unless_read_after_the_answer() {
    let lines = Trace::frames.then(each()).then(Frame2::line);
    let bytes = br#"{"frames":[{"line":1},{"line":"x"},{"line":3}]}"#;
    let json = Json::<Trace>::new(bytes);
    assert_eq!(json.fold(lines, 0, |n, _| n + 1), None);
    assert_eq!(json.any(lines, |&line| line == 3), None);
    // The answer comes before the focus that does not decode.
    assert_eq!(json.any(lines, |&line| line == 1), Some(true));
    assert_eq!(json.all(lines, |&line| line > 1), Some(false));
}

#[test]
fn a_key_repeated_on_the_path_gives_none_and_is_recorded() {
    let lines = Trace::frames.then(each()).then(Frame2::line);
    let bytes = br#"{"frames":[{"line":1},{"line":2,"line":3}]}"#;
    assert!(serde_json::from_slice::<Trace>(bytes).is_err());
    let duplicates = Duplicates::new();
    let strict = Strict::<Trace>::validated(bytes, &duplicates).unwrap();
    assert_eq!(strict.fold(lines, 0, |n, _| n + 1), None);
    assert!(duplicates.met());
    // Trusting, it reads the first of the two.
    let json = Json::<Trace>::new(bytes);
    assert_eq!(
        json.fold(lines, Vec::new(), |mut all, &line| {
            all.push(line);
            all
        }),
        Some(vec![1, 2])
    );
    // The strict reader stops at an answer before the duplicate.
    let duplicates = Duplicates::new();
    let strict = Strict::<Trace>::validated(bytes, &duplicates).unwrap();
    assert_eq!(strict.any(lines, |&line| line == 1), Some(true));
    assert!(!duplicates.met());
}

#[derive(Optics, serde::Deserialize, Debug)]
struct Rule {
    name: String,
    #[serde(default = "root_only")]
    blocked: Vec<String>,
}

fn root_only() -> Vec<String> {
    vec!["root".to_owned()]
}

/// On bytes, a path past a field the document leaves out has no bytes to
/// read on in, where the value serde fills in has its default's foci: a fold
/// that passes such a field before its answer cannot answer (`None`), and
/// `try_read` of the path says why.
#[test]
fn a_fold_past_a_field_serde_fills_in_with_foci_cannot_answer() {
    let bytes = br#"{"name":"r"}"#;
    let blocked = Rule::blocked.then(each());
    let is_root = |user: &String| user == "root";
    let value: Rule = serde_json::from_slice(bytes).unwrap();
    assert_eq!(value.name, "r");
    assert_eq!((&value).any(blocked, is_root), Some(true));
    let json = Json::<Rule>::new(bytes);
    assert_eq!(json.any(blocked, is_root), None);
    assert_eq!(json.all(blocked, |user| !is_root(user)), None);
    assert_eq!(json.fold(blocked, 0, |n, _| n + 1), None);
    let duplicates = Duplicates::new();
    let strict = Strict::<Rule>::validated(bytes, &duplicates).unwrap();
    assert_eq!(strict.any(blocked, is_root), None);
    assert!(!duplicates.met());
    // The field itself reads as serde fills it in.
    assert_eq!(json.read(Rule::blocked), Some(root_only()));
    assert_eq!(
        json.fold(Rule::blocked, 0, |n, list| n + list.len()),
        Some(1)
    );
    // Present, it folds as the value does.
    let present = br#"{"name":"r","blocked":["ann"]}"#;
    assert_eq!(
        Json::<Rule>::new(present).any(blocked, is_root),
        Some(false)
    );
}

#[derive(Optics, serde::Deserialize, Debug)]
struct Rules {
    rules: Vec<Rule>,
    #[serde(default)]
    tags: Vec<String>,
    owner: Option<Owner>,
    #[serde(default)]
    backup: Option<Owner>,
}

#[derive(Optics, serde::Deserialize, Debug)]
struct Owner {
    names: Vec<String>,
}

#[derive(Optics, serde::Deserialize, Debug, Default)]
#[serde(default)]
struct Settings {
    hosts: Vec<String>,
}

impl Settings {
    fn local() -> Self {
        Settings {
            hosts: vec!["localhost".to_owned()],
        }
    }
}

#[derive(Optics, serde::Deserialize, Debug)]
struct Deployed {
    #[serde(default = "Settings::local")]
    settings: Settings,
}

#[test]
fn a_fold_past_a_field_whose_default_is_empty_answers_as_the_value() {
    // `default` of a collection or an `Option`, or no default on an
    // `Option`: nothing further to fold, as on the value.
    let bytes = br#"{"rules":[]}"#;
    let value: Rules = serde_json::from_slice(bytes).unwrap();
    let json = Json::<Rules>::new(bytes);
    let tags = Rules::tags.then(each());
    let owners = Rules::owner.then(some()).then(Owner::names).then(each());
    let backups = Rules::backup.then(some()).then(Owner::names).then(each());
    for (on_bytes, on_value) in [
        (
            json.fold(tags, 0, |n, _| n + 1),
            (&value).fold(tags, 0, |n, _| n + 1),
        ),
        (
            json.fold(owners, 0, |n, _| n + 1),
            (&value).fold(owners, 0, |n, _| n + 1),
        ),
        (
            json.fold(backups, 0, |n, _| n + 1),
            (&value).fold(backups, 0, |n, _| n + 1),
        ),
    ] {
        assert_eq!(on_bytes, Some(0));
        assert_eq!(on_bytes, on_value);
    }
    // A default of the user's own (a path, or a type's `Default` through a
    // container `default`) may hold foci: no answer.
    let deployed = br#"{}"#;
    let value: Deployed = serde_json::from_slice(deployed).unwrap();
    let hosts = Deployed::settings.then(Settings::hosts).then(each());
    assert_eq!((&value).fold(hosts, 0, |n, _| n + 1), Some(1));
    assert_eq!(
        Json::<Deployed>::new(deployed).fold(hosts, 0, |n, _| n + 1),
        None
    );
}

/// The standard types spelled in full, and holding the model's type
/// parameters: their defaults are as empty as `Vec<T>`'s.
#[derive(Optics, serde::Deserialize, Debug)]
struct SpelledInFull<K: Ord + std::hash::Hash, V, T> {
    #[serde(default)]
    list: std::vec::Vec<T>,
    #[serde(default)]
    map: ::std::collections::HashMap<K, V>,
    #[serde(default)]
    tree: std::collections::BTreeMap<K, V>,
    #[serde(skip_deserializing)]
    skipped: Option<T>,
    #[serde(default)]
    name: ::std::string::String,
}

#[derive(Optics, serde::Deserialize, Debug)]
struct Generic<T> {
    #[serde(default)]
    v: Vec<T>,
}

#[derive(Optics, serde::Deserialize, Debug)]
enum Listed<T> {
    Queued {
        #[serde(default)]
        items: std::collections::VecDeque<T>,
    },
}

#[test]
fn a_fold_past_a_standard_type_however_spelled_answers_as_the_value() {
    type Full = SpelledInFull<String, Vec<u8>, Vec<u8>>;
    let bytes = br#"{}"#;
    let value: Full = serde_json::from_slice(bytes).unwrap();
    let json = Json::<Full>::new(bytes);
    let count = |n: usize, _: &u8| n + 1;
    let list = Full::list.then(each()).then(each());
    let map = Full::map.then(each()).then(each());
    let tree = Full::tree.then(each()).then(each());
    let skipped = Full::skipped.then(some()).then(each());
    for (on_bytes, on_value) in [
        (json.fold(list, 0, count), (&value).fold(list, 0, count)),
        (json.fold(map, 0, count), (&value).fold(map, 0, count)),
        (json.fold(tree, 0, count), (&value).fold(tree, 0, count)),
        (
            json.fold(skipped, 0, count),
            (&value).fold(skipped, 0, count),
        ),
    ] {
        assert_eq!(on_bytes, Some(0));
        assert_eq!(on_bytes, on_value);
    }
    // The field itself reads as serde fills it in.
    assert_eq!(json.read(Full::name), Some(String::new()));
    // Present, a skipped field is still left out.
    let present = br#"{"list":[[1]],"skipped":[2]}"#;
    let value: Full = serde_json::from_slice(present).unwrap();
    let json = Json::<Full>::new(present);
    assert_eq!(json.fold(skipped, 0, count), Some(0));
    assert_eq!(json.fold(list, 0, count), (&value).fold(list, 0, count));

    let generic = Generic::<Vec<u8>>::v.then(each()).then(each());
    let value: Generic<Vec<u8>> = serde_json::from_slice(bytes).unwrap();
    let on_bytes = Json::<Generic<Vec<u8>>>::new(bytes).fold(generic, 0, count);
    assert_eq!(on_bytes, Some(0));
    assert_eq!(on_bytes, (&value).fold(generic, 0, count));

    let variant = br#"{"Queued":{}}"#;
    let items = Listed::<u8>::queued_items.then(each());
    let value: Listed<u8> = serde_json::from_slice(variant).unwrap();
    let on_bytes = Json::<Listed<u8>>::new(variant).fold(items, 0, |n, _| n + 1);
    assert_eq!(on_bytes, Some(0));
    assert_eq!(on_bytes, (&value).fold(items, 0, |n, _| n + 1));
}

/// Standard collections under names of the user's: the derive cannot see
/// through an alias, the compiler can.
type List<T> = Vec<T>;
type Tally = std::collections::BTreeMap<String, List<u8>>;

#[derive(Optics, serde::Deserialize, Debug)]
struct Aliased {
    #[serde(default)]
    list: List<List<u8>>,
    #[serde(default)]
    tally: Tally,
    /// Named through `Self`, the model's own type.
    #[serde(default)]
    children: Vec<Self>,
}

#[test]
fn a_fold_past_an_alias_of_a_standard_type_answers_as_the_value() {
    let count = |n: usize, _: &u8| n + 1;
    let list = Aliased::list.then(each()).then(each());
    let tally = Aliased::tally.then(each()).then(each());
    let children = Aliased::children.then(each()).then(Aliased::list);
    let nested = each().then(each());
    for bytes in [&br#"{}"#[..], br#"{"list":[[1,2]],"children":[{}]}"#] {
        let value: Aliased = serde_json::from_slice(bytes).unwrap();
        let json = Json::<Aliased>::new(bytes);
        let duplicates = Duplicates::new();
        let strict = Strict::<Aliased>::validated(bytes, &duplicates).unwrap();
        let on_value = [
            (&value).fold(list, 0, count),
            (&value).fold(tally, 0, count),
            (&value).fold(children.then(nested), 0, count),
        ];
        let on_bytes = [
            json.fold(list, 0, count),
            json.fold(tally, 0, count),
            json.fold(children.then(nested), 0, count),
        ];
        let on_strict = [
            strict.fold(list, 0, count),
            strict.fold(tally, 0, count),
            strict.fold(children.then(nested), 0, count),
        ];
        assert!(on_value.iter().all(Option::is_some));
        assert_eq!(on_bytes, on_value, "{}", String::from_utf8_lossy(bytes));
        assert_eq!(on_strict, on_value, "{}", String::from_utf8_lossy(bytes));
    }
}

#[test]
fn an_answer_before_the_field_serde_fills_in_stands() {
    // The first rule blocks root; the second leaves `blocked` out, and serde
    // fills it in with a default that blocks root too.
    let bytes = br#"{"rules":[{"name":"a","blocked":["root"]},{"name":"b"}]}"#;
    let value: Rules = serde_json::from_slice(bytes).unwrap();
    let blocked = Rules::rules.then(each()).then(Rule::blocked).then(each());
    let is_root = |user: &String| user == "root";
    let json = Json::<Rules>::new(bytes);
    assert_eq!((&value).any(blocked, is_root), Some(true));
    assert_eq!(json.any(blocked, is_root), Some(true));
    // Counting them all passes the second rule: no answer.
    assert_eq!((&value).fold(blocked, 0, |n, _| n + 1), Some(2));
    assert_eq!(json.fold(blocked, 0, |n, _| n + 1), None);
    // Entered at the first rule's list, the same.
    let entered = json.enter(Rules::rules).unwrap();
    let inner = each().then(Rule::blocked).then(each());
    assert_eq!(entered.any(inner, is_root), Some(true));
    assert_eq!(entered.fold(inner, 0, |n, _| n + 1), None);
}

/// Seven internally tagged levels on one object: one more than the byte
/// reader follows (`SERDE_ATTRIBUTES.md`).
mod levels {
    use optics_core::prelude::*;
    use serde::Deserialize;

    #[derive(Optics, Deserialize, Debug)]
    pub struct Leaf {
        pub list: Vec<u32>,
    }
    /// One internal-tag level: `$outer`'s variant `A` holds `$inner`.
    macro_rules! level {
        ($($outer:ident($tag:literal) > $inner:ident),*) => {$(
            #[derive(Optics, Deserialize, Debug)]
            #[serde(tag = $tag)]
            pub enum $outer {
                A($inner),
            }
        )*};
    }
    level!(
        T7("t7") > Leaf,
        T6("t6") > T7,
        T5("t5") > T6,
        T4("t4") > T5,
        T3("t3") > T4,
        T2("t2") > T3,
        T1("t1") > T2
    );
}

/// Past more flatten and internal-tag levels than the byte reader follows,
/// a read misses; a fold over foci past them cannot answer, where it
/// answered as if there were none.
#[test]
fn a_fold_past_more_levels_than_the_reader_follows_cannot_answer() {
    use levels::*;
    let bytes = br#"{"t1":"A","t2":"A","t3":"A","t4":"A","t5":"A","t6":"A","t7":"A","list":[1,2]}"#;
    let list = T1::a
        .then(T2::a)
        .then(T3::a)
        .then(T4::a)
        .then(T5::a)
        .then(T6::a)
        .then(T7::a)
        .then(Leaf::list)
        .then(each());
    let value: T1 = serde_json::from_slice(bytes).unwrap();
    assert_eq!((&value).any(list, |n| *n == 1), Some(true));
    let json = Json::<T1>::new(bytes);
    assert_eq!(json.read_each(list).count(), 0);
    assert_eq!(json.any(list, |n| *n == 1), None);
    assert_eq!(json.all(list, |n| *n != 1), None);
    assert_eq!(json.fold(list, 0, |n, _| n + 1), None);
    let duplicates = Duplicates::new();
    let strict = Strict::<T1>::validated(bytes, &duplicates).unwrap();
    assert_eq!(strict.any(list, |n| *n == 1), None);
    assert!(!duplicates.met());
}

#[path = "support/levels.rs"]
mod flatten_levels;

/// A fold through an `optic!` name whose path goes past more flatten
/// levels than the byte reader follows, against serde's value: the name's
/// lookup misses there, and the fold answered as over no foci.
#[test]
fn a_fold_through_a_name_past_more_levels_than_the_reader_follows_cannot_answer() {
    use flatten_levels::*;
    let bytes = br#"{"z":5,"list":[1,2]}"#;
    let value: L0 = serde_json::from_slice(bytes).unwrap();
    let json = Json::<L0>::new(bytes);
    let elements = LIST.then(each());
    let nested = L0::n.then(LIST_FROM_L1).then(each());
    let nested_right = L0::n.then(LIST_FROM_L1.then(each()));
    let through_name = LIST_THROUGH_NAME.then(each());
    let past_name = TO_L7.then(L7::list).then(each());
    let is_one = |n: &u32| *n == 1;
    assert_eq!((&value).any(elements, is_one), Some(true));
    assert_eq!((&value).fold(nested, 0, |n, _| n + 1), Some(2));
    assert_eq!(json.read_each(elements).count(), 0);
    // The oracle's answer, or none.
    for on_bytes in [
        json.any(elements, is_one),
        json.all(elements, |n| !is_one(n)).map(|all| !all),
        json.any(nested, is_one),
        json.any(nested_right, is_one),
        json.any(through_name, is_one),
        json.any(past_name, is_one),
        // The name alone: its focus, the list.
        json.any(LIST, |list| list.contains(&1)),
        json.any(LIST.then(at(0)), is_one),
    ] {
        assert_eq!(on_bytes, None);
    }
    assert_eq!(json.fold(elements, 0, |n, _| n + 1), None);
    assert_eq!(json.fold(LIST, 0, |n, _| n + 1), None);
    let duplicates = Duplicates::new();
    let strict = Strict::<L0>::validated(bytes, &duplicates).unwrap();
    assert_eq!(strict.any(elements, is_one), None);
    assert_eq!(strict.any(nested, is_one), None);
    assert_eq!(strict.any(LIST, |list| list.contains(&1)), None);
    assert!(!duplicates.met());
    // One level fewer, the name's foci are folded.
    let l1 = Json::<L1>::new(bytes);
    assert_eq!(l1.any(LIST_FROM_L1.then(each()), is_one), Some(true));
    assert_eq!(l1.fold(LIST_FROM_L1.then(each()), 0, |n, _| n + 1), Some(2));
    assert_eq!(l1.fold(LIST_FROM_L1, 0, |n, _| n + 1), Some(1));
}

optic! {
    /// The hosts of a deployment, by name: past a field serde fills in
    /// with a default of the user's.
    lens HOSTS: Deployed => Vec<String> = Deployed::settings.then(Settings::hosts);
}

optic! {
    /// The owner's names, by name: past an `Option` serde fills in with `None`.
    optional OWNER_NAMES: Rules => Vec<String> = Rules::owner.then(some()).then(Owner::names);
}

/// A fold through an `optic!` name whose path goes on past a field serde
/// fills in, as through the path itself: no answer where the default may
/// hold foci, the value's answer where it holds none.
#[test]
fn a_fold_through_a_name_past_a_field_serde_fills_in_answers_as_its_path() {
    let deployed = br#"{}"#;
    let value: Deployed = serde_json::from_slice(deployed).unwrap();
    let hosts = HOSTS.then(each());
    assert_eq!((&value).fold(hosts, 0, |n, _| n + 1), Some(1));
    let json = Json::<Deployed>::new(deployed);
    assert_eq!(json.fold(hosts, 0, |n, _| n + 1), None);
    assert_eq!(json.fold(HOSTS, 0, |n, _| n + 1), None);
    let duplicates = Duplicates::new();
    let strict = Strict::<Deployed>::validated(deployed, &duplicates).unwrap();
    assert_eq!(strict.fold(hosts, 0, |n, _| n + 1), None);
    // Present, they fold.
    let present = br#"{"settings":{"hosts":["a","b"]}}"#;
    let json = Json::<Deployed>::new(present);
    assert_eq!(json.fold(hosts, 0, |n, _| n + 1), Some(2));
    // `None` holds nothing further: the value's answer.
    let bytes = br#"{"rules":[]}"#;
    let value: Rules = serde_json::from_slice(bytes).unwrap();
    let names = OWNER_NAMES.then(each());
    assert_eq!((&value).fold(names, 0, |n, _| n + 1), Some(0));
    assert_eq!(
        Json::<Rules>::new(bytes).fold(names, 0, |n, _| n + 1),
        Some(0)
    );
    assert_eq!(
        Json::<Rules>::new(bytes).fold(OWNER_NAMES, 0, |n, _| n + 1),
        Some(0)
    );
}

/// Boxed standard collections, left out: a box's default is its content's,
/// so one of an empty collection, `Option`, string or slice is as empty.
#[derive(Optics, serde::Deserialize, serde::Serialize, Debug, Clone, PartialEq)]
struct Boxed {
    #[serde(default)]
    list: Box<List<List<u8>>>,
    #[serde(default)]
    tally: Box<Tally>,
    #[serde(default)]
    maybe: Box<Option<Vec<u8>>>,
    #[serde(default)]
    rest: u8,
}

#[test]
fn a_fold_and_a_write_past_a_boxed_standard_type_answer_as_the_value() {
    let count = |n: usize, _: &u8| n + 1;
    let list = Boxed::list.then(each::<List<List<u8>>>()).then(each());
    let tally = Boxed::tally.then(each::<Tally>()).then(each());
    let maybe = Boxed::maybe.then(some::<Vec<u8>>()).then(each());
    for bytes in [
        &br#"{}"#[..],
        br#"{"rest":1}"#,
        br#"{"list":[[1,2],[3]],"rest":2}"#,
        br#"{"tally":{"a":[4]},"maybe":[5,6]}"#,
    ] {
        let value: Boxed = serde_json::from_slice(bytes).unwrap();
        let json = Json::<Boxed>::new(bytes);
        let duplicates = Duplicates::new();
        let strict = Strict::<Boxed>::validated(bytes, &duplicates).unwrap();
        for optic_fold in [
            (
                json.fold(list, 0, count),
                strict.fold(list, 0, count),
                (&value).fold(list, 0, count),
            ),
            (
                json.fold(tally, 0, count),
                strict.fold(tally, 0, count),
                (&value).fold(tally, 0, count),
            ),
            (
                json.fold(maybe, 0, count),
                strict.fold(maybe, 0, count),
                (&value).fold(maybe, 0, count),
            ),
        ] {
            let (on_bytes, on_strict, on_value) = optic_fold;
            assert!(on_value.is_some());
            assert_eq!(on_bytes, on_value, "{}", String::from_utf8_lossy(bytes));
            assert_eq!(on_strict, on_value, "{}", String::from_utf8_lossy(bytes));
        }
        // A write of every focus past them is made, and decodes as the
        // value's write does.
        let written = json
            .set_all(list, &7)
            .expect("an empty default is no refusal");
        let mut expected = value.clone();
        expected.list.iter_mut().flatten().for_each(|n| *n = 7);
        let decoded: Boxed = serde_json::from_slice(&written).unwrap();
        assert_eq!(decoded, expected, "{}", String::from_utf8_lossy(bytes));
        let written = json.modify_all(tally, |n| n + 1).expect("an empty default");
        let mut expected = value.clone();
        expected.tally.values_mut().flatten().for_each(|n| *n += 1);
        let decoded: Boxed = serde_json::from_slice(&written).unwrap();
        assert_eq!(decoded, expected, "{}", String::from_utf8_lossy(bytes));
    }
}
