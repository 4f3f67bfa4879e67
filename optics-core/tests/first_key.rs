//! An object's first key, written plainly with a string value, is where
//! serde writes an internally tagged enum's tag, which the byte reader reads
//! there without a lookup. Strict reads count that key given twice as a
//! duplicate where the object's tag is read, and nowhere else: elsewhere it
//! is a key like any other, on the path where the read goes through it, off
//! the path otherwise.
//!
//! Against serde_json, on documents with one object edited: a junk key
//! first and again (serde_json reads them: strict reads read the same and
//! meet no duplicate), or the object's first key given again (serde_json
//! refuses them: a strict read through that key, or through the tag,
//! refuses and records the duplicate; any other read reads as it would
//! without the edit). Objects small (walked member by member, or answered
//! from a validation's records) and over 1 KiB (walked by blocks).

#[path = "support/scale.rs"]
mod scale;

use optics_core::json::{Duplicates, Strict};
use optics_core::prelude::*;
use proptest::prelude::*;
use serde::Deserialize;

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Root {
    name: String,
    inner: Inner,
    ev: Ev,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Inner {
    label: String,
    n: u32,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "type")]
enum Ev {
    Open(Open),
    Close(Close),
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Open {
    at: u32,
    by: String,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Close {
    at: u32,
}

/// Which object is edited.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Object {
    Root,
    Inner,
    Ev,
}

/// The edit: a junk key first and again, or the object's first key again
/// (`name`, `label`, the tag `type`).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Edit {
    Junk,
    FirstAgain,
}

/// A document as generated.
#[derive(Clone, Debug)]
struct Spec {
    name: String,
    label: String,
    n: u32,
    open: bool,
    at: u32,
    /// Padding of the root, the inner object and the enum's object (a junk
    /// member each, where not 0).
    pads: [usize; 3],
    object: Object,
    edit: Edit,
    /// The repeated key right after the first member, or last.
    early: bool,
}

/// The members of one object, as written, with the edit where it applies.
fn object(members: Vec<String>, pad: usize, edit: Option<(Edit, bool)>) -> String {
    let mut members = members;
    if pad > 0 {
        members.insert(1, format!(r#""pad":"{}""#, "p".repeat(pad)));
    }
    if let Some((edit, early)) = edit {
        let again = match edit {
            Edit::Junk => {
                members.insert(0, r#""junk":"a""#.to_owned());
                r#""junk":"b""#.to_owned()
            }
            // The first member's key, with another string value.
            Edit::FirstAgain => {
                let key = &members[0][..members[0].find(':').expect("a member")];
                format!(r#"{key}:"Open""#)
            }
        };
        if early {
            members.insert(1, again);
        } else {
            members.push(again);
        }
    }
    format!("{{{}}}", members.join(","))
}

fn write(spec: &Spec) -> String {
    let edit = |o: Object| (spec.object == o).then_some((spec.edit, spec.early));
    let inner = object(
        vec![
            format!(r#""label":{:?}"#, spec.label),
            format!(r#""n":{}"#, spec.n),
        ],
        spec.pads[1],
        edit(Object::Inner),
    );
    let ev = if spec.open {
        vec![
            r#""type":"Open""#.to_owned(),
            format!(r#""at":{}"#, spec.at),
            r#""by":"me""#.to_owned(),
        ]
    } else {
        vec![
            r#""type":"Close""#.to_owned(),
            format!(r#""at":{}"#, spec.at),
        ]
    };
    let ev = object(ev, spec.pads[2], edit(Object::Ev));
    object(
        vec![
            format!(r#""name":{:?}"#, spec.name),
            format!(r#""inner":{inner}"#),
            format!(r#""ev":{ev}"#),
        ],
        spec.pads[0],
        edit(Object::Root),
    )
}

fn spec() -> impl Strategy<Value = Spec> {
    let pad = prop_oneof![Just(0usize), 1usize..40, 1100usize..1300];
    (
        (
            "[a-z]{0,5}",
            "[a-z]{0,5}",
            0u32..100,
            any::<bool>(),
            0u32..100,
        ),
        [pad.clone(), pad.clone(), pad],
        prop_oneof![Just(Object::Root), Just(Object::Inner), Just(Object::Ev)],
        prop_oneof![Just(Edit::Junk), Just(Edit::FirstAgain)],
        any::<bool>(),
    )
        .prop_map(
            |((name, label, n, open, at), pads, object, edit, early)| Spec {
                name,
                label,
                n,
                open,
                at,
                pads,
                object,
                edit,
                early,
            },
        )
}

/// A strict read of `optic` through a validated view of `text`: the focus,
/// and whether a duplicate was met.
fn strict<O>(text: &str, optic: O) -> (Option<O::Focus>, bool)
where
    O: for<'de> optics_core::json::JsonDecode<'de> + optics_core::optic::StartsAt<Root>,
{
    let duplicates = Duplicates::new();
    let view = Strict::<Root>::validated(text.as_bytes(), &duplicates).expect("valid JSON");
    (view.read(optic), duplicates.met())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(scale::scaled(512)))]

    #[test]
    fn the_first_key_counts_twice_only_where_a_tag_is_read(spec in spec()) {
        let text = write(&spec);
        let value = Root {
            name: spec.name.clone(),
            inner: Inner { label: spec.label.clone(), n: spec.n },
            ev: if spec.open {
                Ev::Open(Open { at: spec.at, by: "me".to_owned() })
            } else {
                Ev::Close(Close { at: spec.at })
            },
        };
        let decoded = serde_json::from_str::<Root>(&text);
        prop_assert_eq!(decoded.is_ok(), spec.edit == Edit::Junk, "{}", text);
        if let Ok(decoded) = &decoded {
            prop_assert_eq!(decoded, &value);
        }
        // A read through the key given twice refuses; any other reads what
        // the value holds. `name` and `label` are their objects' first keys;
        // every read under `ev` reads its tag.
        let through = |o: Object| spec.edit == Edit::FirstAgain && spec.object == o;
        let (open_at, close_at) = match &value.ev {
            Ev::Open(open) => (Some(open.at), None),
            Ev::Close(close) => (None, Some(close.at)),
        };
        let want = |refused: bool, focus: Option<String>| if refused { (None, true) } else { (focus, false) };
        let text_read = |(focus, met): (Option<String>, bool)| (focus, met);
        let number_read = |(focus, met): (Option<u32>, bool)| (focus.map(|n| n.to_string()), met);
        let reads = [
            ("name", text_read(strict(&text, Root::name)), want(through(Object::Root), Some(value.name.clone()))),
            ("inner.n", number_read(strict(&text, Root::inner.then(Inner::n))), want(false, Some(value.inner.n.to_string()))),
            ("inner.label", text_read(strict(&text, Root::inner.then(Inner::label))), want(through(Object::Inner), Some(value.inner.label.clone()))),
            ("ev.open.at", number_read(strict(&text, Root::ev.then(Ev::open).then(Open::at))), want(through(Object::Ev), open_at.map(|n| n.to_string()))),
            ("ev.close.at", number_read(strict(&text, Root::ev.then(Ev::close).then(Close::at))), want(through(Object::Ev), close_at.map(|n| n.to_string()))),
        ];
        for (what, got, want) in reads {
            prop_assert_eq!(got, want, "{} of {}", what, text);
        }
        // In one pass over the root, the view of `inner` then `n`.
        let duplicates = Duplicates::new();
        let view = Strict::<Root>::validated_view(text.as_bytes(), &duplicates, Root::inner)
            .expect("valid JSON")
            .expect("the inner object");
        prop_assert_eq!(view.read(Inner::n), Some(value.inner.n), "{}", text);
        prop_assert!(!duplicates.met(), "{}", text);
    }
}
