//! `#[derive(Optics)]` under strict lints: the generated code must not make a
//! crate that denies warnings, clippy's pedantic group and missing docs fail.
//! Run by `cargo clippy --all-targets -- -D warnings` as well as `cargo test`.

#![deny(warnings)]
#![deny(clippy::pedantic)]
#![deny(missing_docs)]

use optics_core::prelude::*;
use serde::{Deserialize, Serialize};

/// An incident report.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// Where it happened.
    pub service_name: String,
    /// How bad it is.
    #[serde(default)]
    pub severity: u8,
    /// What happened.
    pub detail: Detail,
}

/// What happened, one variant per shape.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[serde(tag = "type", content = "data")]
pub enum Detail {
    /// Nothing yet.
    Unknown,
    /// A failed request.
    Failure(Failure),
    /// A move between regions: from, to.
    Moved(String, String),
    /// A closed report.
    Closed {
        /// Who closed it.
        by: String,
    },
}

/// Variants that share a postfix, allowed here: the kind enum the derive
/// generates has the same names, and must not need an `allow` of its own.
/// Private, as clippy lints only an enum outside the crate's API.
#[allow(clippy::enum_variant_names)]
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
enum Stage {
    /// The first.
    FirstStage,
    /// The second.
    SecondStage(u8),
    /// The last.
    LastStage,
}

/// A failed request.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The status code.
    pub status: u16,
}

/// A page of items, generic with a lifetime.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
pub struct Page<'a, T: Clone>
where
    T: Default,
{
    /// The items, none where the page leaves them out (a default the derive
    /// checks is `Vec`'s).
    #[serde(default)]
    pub items: Vec<T>,
    /// The page's title.
    pub title: &'a str,
}

/// Private models whose optics are not all used: they must not be dead code.
#[derive(Optics, Serialize, Deserialize)]
#[serde(tag = "type")]
enum Private {
    Used { count: u32 },
    Unused,
}

#[derive(Optics)]
struct PrivateStruct {
    used: u32,
    unused: u32,
}

/// A deprecated model: serde's derive adds no deprecation warning for it, and
/// neither may ours.
#[deprecated = "the derive must not warn about this"]
#[derive(Optics, Serialize, Deserialize)]
pub struct Retired {
    /// A field.
    pub value: u8,
    /// A flattened field.
    #[serde(flatten)]
    pub more: Failure,
}

/// A deprecated enum, internally tagged.
#[deprecated = "the derive must not warn about this"]
#[derive(Optics, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum RetiredDetail {
    /// A variant.
    Only {
        /// A field.
        value: u8,
    },
    /// A unit variant.
    Other,
}

/// A model whose variants are spelled as the wire spells them, with the
/// lint allowed where they are written: the kind enum the derive makes from
/// them must not warn either.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum token {
    /// A keyword.
    #[optics(name = "keyword")]
    r#match(String),
    /// A number.
    #[optics(name = "number")]
    int(u32),
}

#[test]
fn reads_under_strict_lints() {
    let report = Report {
        service_name: "checkout".to_owned(),
        severity: 2,
        detail: Detail::Failure(Failure { status: 503 }),
    };
    let status = Report::detail.then(Detail::failure).then(Failure::status);
    assert_eq!(status.preview(&report), Some(&503));
    assert_eq!(Report::severity.get(&report), &2);
    assert_eq!(Detail::kind.get(&report.detail), &DetailKind::Failure);

    let bytes = serde_json::to_vec(&report).expect("a report serializes");
    assert_eq!(Json::<Report>::new(&bytes).read(status), Some(503));

    let page = Page {
        items: vec![1_u8],
        title: "front",
    };
    let bytes = serde_json::to_vec(&page).expect("a page serializes");
    assert_eq!(
        Json::<Page<'_, u8>>::new(&bytes).read(Page::title),
        Some("front")
    );

    // Only one of `Private`'s optics is used; the others must not warn.
    for private in [Private::Used { count: 3 }, Private::Unused] {
        let bytes = serde_json::to_vec(&private).expect("a private model serializes");
        let json = Json::<Private>::new(&bytes);
        assert_eq!(
            json.read(Private::used_count),
            Private::used_count.preview(&private).copied()
        );
    }
    let bytes = br#"{"match":"if"}"#;
    assert_eq!(
        Json::<token>::new(bytes).read(token::keyword),
        Some("if".to_owned())
    );
    assert_eq!(
        Json::<token>::new(bytes).read(token::kind),
        Some(tokenKind::r#match)
    );

    let private = PrivateStruct { used: 1, unused: 2 };
    assert_eq!(PrivateStruct::used.get(&private) + private.unused, 3);

    assert_eq!(
        Json::<Stage>::new(br#"{"SecondStage":4}"#).read(Stage::kind),
        Some(StageKind::SecondStage)
    );
    assert_eq!(Stage::first_stage.preview(&Stage::FirstStage), Some(&()));
}
