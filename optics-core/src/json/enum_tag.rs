//! An enum's JSON: which variant it is, read from its tag where serde writes
//! it (externally, internally or adjacently tagged), and where the variant's
//! payload lies.

use core::marker::PhantomData;

use super::scan::{self, skip_ws, Lookup};
use super::{Encoding, Found, VariantJson};
use crate::optic::Tagged;

/// The number of the variant a tag names, as serde would resolve it. `raw` is
/// the tag's text between its quotes, escapes as written.
#[inline]
pub(super) fn variant_of_tag<S: Tagged>(raw: &[u8]) -> Option<usize> {
    // Without a backslash the raw text is the text: one slice comparison per
    // name (lengths first) instead of an escape-aware walk.
    let escaped = raw.contains(&b'\\');
    let mut other = None;
    for (index, tags) in S::VARIANTS.iter().enumerate() {
        if tags.names.iter().any(|name| {
            if escaped {
                scan::raw_eq(raw, name.as_bytes())
            } else {
                raw == name.as_bytes()
            }
        }) {
            return Some(index);
        }
        if tags.other {
            other = Some(index);
        }
    }
    other
}

/// Whether `text`, written between two quotes, is a JSON string whose text is
/// `text` itself: it holds no `"`, `\` or control character, the bytes JSON
/// must escape. Then `"text"` in the bytes is that string, byte for byte.
const fn is_plain(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'"' || bytes[i] == b'\\' || bytes[i] < 0x20 {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether an enum's tag key (for the internally and adjacently tagged
/// encodings) and every name of its variants are [plain](is_plain), so that
/// its tag can be matched byte for byte. Computed once per enum, at compile time.
pub(super) struct PlainTags<S>(PhantomData<fn() -> S>);

impl<S: Tagged> PlainTags<S> {
    /// Every variant name is plain.
    pub(super) const NAMES: bool = {
        let mut v = 0;
        let mut plain = true;
        while v < S::VARIANTS.len() {
            let names = S::VARIANTS[v].names;
            let mut n = 0;
            while n < names.len() {
                plain &= is_plain(names[n]);
                n += 1;
            }
            v += 1;
        }
        plain
    };
    /// The names and the tag's key are plain.
    const KEY_AND_NAMES: bool = Self::NAMES
        && match S::ENCODING {
            Encoding::Internal { tag } | Encoding::Adjacent { tag, .. } => is_plain(tag),
            Encoding::External => false,
        };
}

/// The index just past `"name"` if the bytes at `at` are that string (`name`
/// [plain](is_plain), so the string's text is `name` exactly).
#[inline(always)]
fn quoted_at(bytes: &[u8], at: usize, name: &str) -> Option<usize> {
    let close = at + 1 + name.len();
    let quoted = bytes.get(at) == Some(&b'"')
        && bytes.get(close) == Some(&b'"')
        && bytes.get(at + 1..close) == Some(name.as_bytes());
    quoted.then_some(close + 1)
}

/// The first variant, in declaration order, one of whose names is the string
/// at `at` as it stands, and the index just past that string. Only for an enum
/// whose names are all [plain](is_plain).
#[inline(always)]
pub(super) fn variant_quoted_at<S: Tagged>(bytes: &[u8], at: usize) -> Option<(usize, usize)> {
    debug_assert!(PlainTags::<S>::NAMES);
    for (index, tags) in S::VARIANTS.iter().enumerate() {
        for name in tags.names {
            if let Some(end) = quoted_at(bytes, at, name) {
                return Some((index, end));
            }
        }
    }
    None
}

/// The variant an internally or adjacently tagged enum's JSON is, and its tag
/// with its quotes, read the quick way when the bytes are laid out as serde
/// writes them: the tag is the object's first member, written
/// `"tag":"Name"` (whitespace allowed) with `Name` one of the variants' names
/// as it stands, and a `,` or `}` follows. That member is then what
/// `scan::object_field(bytes, &[tag])` finds (the first with the key), its
/// text is `Name`, and the variant is the one [`variant_of_tag`] resolves.
/// `None` otherwise (escapes, an unknown tag, another layout): the caller
/// reads the tag in full.
///
/// Every leaf below a variant checks the tag again; this makes the check a
/// few short compares instead of a scan.
#[inline]
pub(super) fn leading_variant<S: Tagged>(bytes: &[u8]) -> Option<(usize, &[u8])> {
    let (Encoding::Internal { tag } | Encoding::Adjacent { tag, .. }) = S::ENCODING else {
        return None;
    };
    if !PlainTags::<S>::KEY_AND_NAMES {
        return None;
    }
    let open = skip_ws(bytes, 0);
    if bytes.get(open) != Some(&b'{') {
        return None;
    }
    let colon = skip_ws(bytes, quoted_at(bytes, skip_ws(bytes, open + 1), tag)?);
    if bytes.get(colon) != Some(&b':') {
        return None;
    }
    let value = skip_ws(bytes, colon + 1);
    let (index, end) = variant_quoted_at::<S>(bytes, value)?;
    match bytes.get(skip_ws(bytes, end)) {
        Some(b',' | b'}') => Some((index, &bytes[value..end])),
        _ => None,
    }
}

/// The variant an enum's JSON is, as serde would resolve it, and for the
/// externally tagged object form, the payload beside the tag.
#[inline]
fn variant_at<S: Tagged>(bytes: &[u8]) -> Option<(usize, Option<&[u8]>)> {
    if let Some((index, _)) = leading_variant::<S>(bytes) {
        return Some((index, None));
    }
    let (tag, external_payload) = tag_of::<S>(bytes)?;
    Some((variant_of_tag::<S>(tag)?, external_payload))
}

/// The unit value's JSON, for the payload of a unit variant.
const NULL: &[u8] = b"null";

/// The tag of an enum's JSON: its raw text (escapes as written) and, for the
/// externally tagged object form, the payload beside it.
#[inline]
pub(super) fn tag_of<S: Tagged>(bytes: &[u8]) -> Option<(&[u8], Option<&[u8]>)> {
    match S::ENCODING {
        Encoding::External => {
            let bytes = scan::trim(bytes);
            match bytes.first()? {
                b'"' => Some((scan::string_raw(bytes)?, None)),
                b'{' => {
                    let (key, value) = scan::first_member(bytes)?;
                    Some((key, Some(value)))
                }
                _ => None,
            }
        }
        Encoding::Internal { tag } | Encoding::Adjacent { tag, .. } => {
            match scan::object_field(bytes, &[tag]) {
                Lookup::Found(value) => Some((scan::string_raw(value)?, None)),
                Lookup::Missing | Lookup::Malformed => None,
            }
        }
    }
}

/// The payload of variant `index` in an enum's JSON, if the JSON is that variant.
#[inline]
pub(super) fn locate_variant<S: Tagged>(
    bytes: &[u8],
    index: usize,
    json: VariantJson,
) -> Found<'_> {
    let Some((variant, external_payload)) = variant_at::<S>(bytes) else {
        return Found::Miss;
    };
    if variant != index {
        return Found::Miss;
    }
    match (S::ENCODING, json) {
        (Encoding::External, VariantJson::Unit) => match external_payload {
            None => Found::At(NULL),
            Some(payload) if scan::is_null(payload) => Found::At(NULL),
            Some(_) => Found::Miss,
        },
        (Encoding::External, _) => match external_payload {
            Some(payload) => Found::At(payload),
            None => Found::Miss,
        },
        (Encoding::Internal { .. }, VariantJson::Unit) => Found::At(NULL),
        (Encoding::Internal { .. }, _) => Found::At(scan::trim(bytes)),
        (Encoding::Adjacent { content, .. }, VariantJson::Unit) => {
            match scan::object_field(bytes, &[content]) {
                Lookup::Found(payload) if scan::is_null(payload) => Found::At(NULL),
                Lookup::Missing => Found::At(NULL),
                Lookup::Found(_) | Lookup::Malformed => Found::Miss,
            }
        }
        (Encoding::Adjacent { content, .. }, _) => match scan::object_field(bytes, &[content]) {
            Lookup::Found(payload) => Found::At(payload),
            Lookup::Missing | Lookup::Malformed => Found::Miss,
        },
    }
}

/// `inner`, a string's raw contents inside `outer`, with its two quotes.
pub(super) fn widen_by_quotes<'a>(outer: &'a [u8], inner: &[u8]) -> Option<&'a [u8]> {
    let start = (inner.as_ptr() as usize).checked_sub(outer.as_ptr() as usize)?;
    outer.get(start.checked_sub(1)?..start + inner.len() + 1)
}

/// The integration tests' one-byte edit, shared rather than written again.
#[cfg(test)]
#[path = "../../tests/support/edit.rs"]
mod edit;

#[cfg(test)]
mod tests {
    use super::edit::edit_one_byte;
    use super::*;
    use crate::json::layout::VariantTags;
    use proptest::prelude::*;

    /// An internally tagged enum with an alias, a non-ASCII name and an
    /// `other` variant, tagged by hand as the derive would tag it.
    enum Kinds {}

    impl Tagged for Kinds {
        type Kind = usize;
        const ENCODING: Encoding = Encoding::Internal { tag: "type" };
        const VARIANTS: &'static [VariantTags] = &[
            VariantTags {
                names: &["bug_report", "bug"],
                other: false,
            },
            VariantTags {
                names: &["Incident"],
                other: false,
            },
            VariantTags {
                names: &["é"],
                other: false,
            },
            VariantTags {
                names: &[],
                other: true,
            },
        ];
        const KINDS: &'static [usize] = &[0, 1, 2, 3];
        fn variant_index(&self) -> usize {
            match *self {}
        }
    }

    /// The tag read in full: the variant and the tag with its quotes.
    fn in_full(bytes: &[u8]) -> Option<(usize, &[u8])> {
        let (raw, _) = tag_of::<Kinds>(bytes)?;
        Some((variant_of_tag::<Kinds>(raw)?, widen_by_quotes(bytes, raw)?))
    }

    /// Whenever the quick read answers, it answers what the full read does.
    fn agree(bytes: &[u8]) -> Result<(), TestCaseError> {
        if let Some(quick) = leading_variant::<Kinds>(bytes) {
            prop_assert_eq!(
                Some(quick),
                in_full(bytes),
                "{:?}",
                String::from_utf8_lossy(bytes)
            );
        }
        Ok(())
    }

    const DOCS: &[&str] = &[
        r#"{"type":"Incident","severity":"Sev1"}"#,
        r#" { "type" : "bug" , "x":1}"#,
        r#"{"type":"bug_report"}"#,
        r#"{"type":"é","x":[]}"#,
        r#"{"type":"Unknown","x":1}"#,
        r#"{"type":"Incident"}  "#,
        r#"{"x":1,"type":"Incident"}"#,
        r#"{"type":"Incident","type":"bug"}"#,
        r#"{"type":"Inc\u0069dent"}"#,
        r#"{"t\u0079pe":"bug"}"#,
        r#"{"type":"Incident""#,
        r#"{"type":"Incident" "x":1}"#,
        r#"{"type":"Incident"]"#,
        r#"{"type":Incident}"#,
        r#"{"type":"bug_reportx"}"#,
        r#"["type","bug"]"#,
    ];

    #[test]
    fn the_quick_read_covers_serde_layout() {
        let quick = |doc: &str| leading_variant::<Kinds>(doc.as_bytes()).map(|(i, _)| i);
        assert_eq!(quick(DOCS[0]), Some(1));
        assert_eq!(quick(DOCS[1]), Some(0));
        assert_eq!(quick(DOCS[3]), Some(2));
        // Unknown tags, escapes and a tag that is not first take the full read.
        assert_eq!(quick(DOCS[4]), None);
        assert_eq!(quick(DOCS[6]), None);
        assert_eq!(quick(DOCS[8]), None);
        assert_eq!(quick(DOCS[9]), None);
        assert_eq!(quick(DOCS[10]), None);
        assert_eq!(quick(DOCS[11]), None);
        for doc in DOCS {
            if let Err(error) = agree(doc.as_bytes()) {
                panic!("{error}");
            }
        }
    }

    proptest! {
        #[test]
        fn the_quick_read_agrees_with_the_full_read_on_edited_bytes(
            doc in prop::sample::select(DOCS),
            at in any::<prop::sample::Index>(),
            edit in 0..3u8,
            byte in prop::sample::select(&b"\"\\ :,{}[]\x01\xc3\xa9bgtypeIncidnu"[..]),
        ) {
            let mut bytes = doc.as_bytes().to_vec();
            let at = at.index(bytes.len() + 1);
            edit_one_byte(&mut bytes, at, edit, byte);
            agree(&bytes)?;
        }
    }
}
