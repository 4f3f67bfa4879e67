//! The byte interpretation of every optic kind.

use core::marker::PhantomData;

use serde::de::Deserialize;

use super::scan::{self, skip_ws, Lookup};
use super::{decode, decode_absent, Encoding, FieldJson, Found, VariantJson};
use crate::optic::{
    At, Discriminant, Field, FieldOf, Indexed, Key, Keyed, Optic, Some_, Tagged, Then, Variant,
    VariantField, VariantFieldOf, VariantOf,
};

/// An optic that can find its focus in the JSON bytes of its source.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot read JSON bytes",
    note = "optics derived with #[derive(Optics)], at(i), key(k), some() and their compositions read bytes"
)]
pub trait JsonOptic: Optic {
    /// Finds the focus in `bytes`, the JSON of a `Source`: one scan of the
    /// bytes in front of it, nothing decoded, nothing copied.
    fn locate<'a>(&self, bytes: &'a [u8]) -> Found<'a>;
}

/// An optic that can decode its focus from the bytes [`JsonOptic::locate`]
/// found, borrowing from them for `'de`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot decode its focus from JSON bytes borrowed for `'de`",
    note = "the focus type must implement serde::Deserialize<'de>; use `view` to get its bytes instead"
)]
pub trait JsonDecode<'de>: JsonOptic {
    /// The focus, decoded from what `locate` found, as serde would decode it
    /// as part of the whole.
    fn decode(&self, found: Found<'de>) -> Option<Self::Focus>;
}

/// How one field is decoded, missing or present: implemented by
/// `#[derive(Optics)]` so that `deserialize_with` and `default` apply.
pub trait FieldDecode<'de, const I: usize>: FieldOf<I> {
    /// The field's value from what was found for it.
    fn decode_field(found: Found<'de>) -> Option<Self::Type>;
}

/// How one field of a struct-like variant is decoded.
pub trait VariantFieldDecode<'de, const I: usize>: VariantFieldOf<I> {
    /// The field's value from what was found for it.
    fn decode_field(found: Found<'de>) -> Option<Self::Type>;
}

#[inline]
fn lookup(found: Lookup<'_>) -> Found<'_> {
    match found {
        Lookup::Found(bytes) => Found::At(bytes),
        Lookup::Missing => Found::Absent,
        Lookup::Malformed => Found::Miss,
    }
}

#[inline]
fn locate_field(bytes: &[u8], json: FieldJson) -> Found<'_> {
    match json {
        FieldJson::Key(keys) => lookup(scan::object_field(bytes, keys)),
        FieldJson::Inline => Found::At(scan::trim(bytes)),
        FieldJson::Element(i) => match scan::array_element(bytes, i) {
            Some(element) => Found::At(element),
            None => Found::Miss,
        },
        FieldJson::Skipped => Found::Absent,
    }
}

/// The number of the variant a tag names, as serde would resolve it. `raw` is
/// the tag's text between its quotes, escapes as written.
#[inline]
fn variant_of_tag<S: Tagged>(raw: &[u8]) -> Option<usize> {
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
struct PlainTags<S>(PhantomData<fn() -> S>);

impl<S: Tagged> PlainTags<S> {
    /// Every variant name is plain.
    const NAMES: bool = {
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
fn variant_quoted_at<S: Tagged>(bytes: &[u8], at: usize) -> Option<(usize, usize)> {
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
fn leading_variant<S: Tagged>(bytes: &[u8]) -> Option<(usize, &[u8])> {
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
fn tag_of<S: Tagged>(bytes: &[u8]) -> Option<(&[u8], Option<&[u8]>)> {
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
fn locate_variant<S: Tagged>(bytes: &[u8], index: usize, json: VariantJson) -> Found<'_> {
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

impl<A, B> JsonOptic for Then<A, B>
where
    A: JsonOptic,
    B: JsonOptic<Source = A::Focus>,
{
    #[inline]
    fn locate<'a>(&self, bytes: &'a [u8]) -> Found<'a> {
        match self.first().locate(bytes) {
            Found::At(inner) => self.second().locate(inner),
            Found::Absent | Found::Miss => Found::Miss,
        }
    }
}

impl<'de, A, B> JsonDecode<'de> for Then<A, B>
where
    A: JsonOptic,
    B: JsonDecode<'de, Source = A::Focus>,
{
    #[inline]
    fn decode(&self, found: Found<'de>) -> Option<Self::Focus> {
        self.second().decode(found)
    }
}

impl<S: FieldOf<I>, const I: usize> JsonOptic for Field<S, I> {
    #[inline]
    fn locate<'a>(&self, bytes: &'a [u8]) -> Found<'a> {
        locate_field(bytes, S::JSON)
    }
}

impl<'de, S: FieldDecode<'de, I>, const I: usize> JsonDecode<'de> for Field<S, I> {
    #[inline]
    fn decode(&self, found: Found<'de>) -> Option<S::Type> {
        S::decode_field(found)
    }
}

impl<S: VariantOf<I>, const I: usize> JsonOptic for Variant<S, I> {
    #[inline]
    fn locate<'a>(&self, bytes: &'a [u8]) -> Found<'a> {
        locate_variant::<S>(bytes, I, S::JSON)
    }
}

impl<'de, S: VariantOf<I>, const I: usize> JsonDecode<'de> for Variant<S, I>
where
    S::Payload: Deserialize<'de>,
{
    #[inline]
    fn decode(&self, found: Found<'de>) -> Option<S::Payload> {
        match (found, S::ENCODING, S::JSON) {
            // The payload's bytes are the enum's object, tag included; serde
            // hands the payload the other members only.
            (Found::At(bytes), Encoding::Internal { tag }, VariantJson::Newtype) => {
                untagged::decode(bytes, tag)
            }
            (Found::At(bytes), _, _) => decode(bytes),
            (Found::Absent | Found::Miss, _, _) => None,
        }
    }
}

/// Decoding the payload of an internally tagged newtype variant as serde does:
/// from the enum's object without its tag member, so that a map payload does
/// not get the tag as an entry and a `deny_unknown_fields` struct accepts it.
mod untagged {
    use serde::de::value::{BorrowedStrDeserializer, StringDeserializer};
    use serde::de::{
        Deserialize, DeserializeSeed, Deserializer, Error, IgnoredAny, MapAccess, Visitor,
    };

    type Inner<'a, 'de> = &'a mut serde_json::Deserializer<serde_json::de::SliceRead<'de>>;

    /// `bytes`, an object, decoded as a `T` without its members named `tag`.
    pub(super) fn decode<'de, T: Deserialize<'de>>(
        bytes: &'de [u8],
        tag: &'static str,
    ) -> Option<T> {
        let mut de = serde_json::Deserializer::from_slice(bytes);
        let value = T::deserialize(WithoutTag { de: &mut de, tag }).ok()?;
        de.end().ok()?;
        Some(value)
    }

    /// serde_json's deserializer over an object, hiding the tag member.
    struct WithoutTag<'a, 'de> {
        de: Inner<'a, 'de>,
        tag: &'static str,
    }

    /// A visitor that sees the object's members without the tag.
    struct Hide<V> {
        visitor: V,
        tag: &'static str,
    }

    /// The members of the object, without the tag.
    struct Members<A> {
        map: A,
        tag: &'static str,
    }

    /// A key as written: borrowed from the input unless it had escapes.
    enum Key<'de> {
        Borrowed(&'de str),
        Owned(String),
    }

    impl<'de> Deserialize<'de> for Key<'de> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct KeyVisitor;
            impl<'de> Visitor<'de> for KeyVisitor {
                type Value = Key<'de>;
                fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                    f.write_str("a key")
                }
                fn visit_borrowed_str<E: Error>(self, key: &'de str) -> Result<Key<'de>, E> {
                    Ok(Key::Borrowed(key))
                }
                fn visit_str<E: Error>(self, key: &str) -> Result<Key<'de>, E> {
                    Ok(Key::Owned(key.to_owned()))
                }
                fn visit_string<E: Error>(self, key: String) -> Result<Key<'de>, E> {
                    Ok(Key::Owned(key))
                }
            }
            d.deserialize_str(KeyVisitor)
        }
    }

    impl<'de, A: MapAccess<'de>> MapAccess<'de> for Members<A> {
        type Error = A::Error;

        fn next_key_seed<K: DeserializeSeed<'de>>(
            &mut self,
            seed: K,
        ) -> Result<Option<K::Value>, A::Error> {
            loop {
                let key = match self.map.next_key::<Key<'de>>()? {
                    None => return Ok(None),
                    Some(key) => key,
                };
                let is_tag = match &key {
                    Key::Borrowed(key) => *key == self.tag,
                    Key::Owned(key) => key == self.tag,
                };
                if is_tag {
                    self.map.next_value::<IgnoredAny>()?;
                    continue;
                }
                return match key {
                    Key::Borrowed(key) => seed.deserialize(BorrowedStrDeserializer::new(key)),
                    Key::Owned(key) => seed.deserialize(StringDeserializer::new(key)),
                }
                .map(Some);
            }
        }

        fn next_value_seed<V: DeserializeSeed<'de>>(
            &mut self,
            seed: V,
        ) -> Result<V::Value, A::Error> {
            self.map.next_value_seed(seed)
        }
    }

    impl<'de, V: Visitor<'de>> Visitor<'de> for Hide<V> {
        type Value = V::Value;

        fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            self.visitor.expecting(f)
        }

        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
            self.visitor.visit_map(Members { map, tag: self.tag })
        }
    }

    impl<'de> Deserializer<'de> for WithoutTag<'_, 'de> {
        type Error = serde_json::Error;

        fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
            self.deserialize_map(visitor)
        }

        fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
            self.de.deserialize_map(Hide {
                visitor,
                tag: self.tag,
            })
        }

        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _name: &'static str,
            _fields: &'static [&'static str],
            visitor: V,
        ) -> Result<V::Value, Self::Error> {
            self.deserialize_map(visitor)
        }

        fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
            // The bytes are an object, never `null`.
            visitor.visit_some(self)
        }

        fn deserialize_newtype_struct<V: Visitor<'de>>(
            self,
            _name: &'static str,
            visitor: V,
        ) -> Result<V::Value, Self::Error> {
            visitor.visit_newtype_struct(self)
        }

        fn deserialize_ignored_any<V: Visitor<'de>>(
            self,
            visitor: V,
        ) -> Result<V::Value, Self::Error> {
            self.de.deserialize_ignored_any(visitor)
        }

        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
            bytes byte_buf unit unit_struct seq tuple tuple_struct enum identifier
        }
    }
}

impl<S: VariantFieldOf<I>, const I: usize> JsonOptic for VariantField<S, I> {
    #[inline]
    fn locate<'a>(&self, bytes: &'a [u8]) -> Found<'a> {
        match locate_variant::<S>(bytes, S::VARIANT, VariantJson::Fields) {
            Found::At(payload) => locate_field(payload, S::JSON),
            Found::Absent | Found::Miss => Found::Miss,
        }
    }
}

impl<'de, S: VariantFieldDecode<'de, I>, const I: usize> JsonDecode<'de> for VariantField<S, I> {
    #[inline]
    fn decode(&self, found: Found<'de>) -> Option<S::Type> {
        S::decode_field(found)
    }
}

impl<S: Tagged> JsonOptic for Discriminant<S> {
    /// The tag's own bytes: the string serde wrote (for the externally tagged
    /// object form, the key, quotes included).
    #[inline]
    fn locate<'a>(&self, bytes: &'a [u8]) -> Found<'a> {
        if let Some((_, quoted)) = leading_variant::<S>(bytes) {
            return Found::At(quoted);
        }
        let Some((raw, _)) = tag_of::<S>(bytes) else {
            return Found::Miss;
        };
        match widen_by_quotes(bytes, raw) {
            Some(quoted) => Found::At(quoted),
            None => Found::Miss,
        }
    }
}

impl<S: Tagged> JsonDecode<'_> for Discriminant<S> {
    #[inline]
    fn decode(&self, found: Found<'_>) -> Option<S::Kind> {
        let Found::At(quoted) = found else {
            return None;
        };
        // A variant's name as it stands, quotes and all, is that variant.
        let index = match PlainTags::<S>::NAMES.then(|| variant_quoted_at::<S>(quoted, 0)) {
            Some(Some((index, end))) if end == quoted.len() => index,
            _ => variant_of_tag::<S>(scan::string_raw(quoted)?)?,
        };
        S::KINDS.get(index).copied()
    }
}

/// `inner`, a string's raw contents inside `outer`, with its two quotes.
fn widen_by_quotes<'a>(outer: &'a [u8], inner: &[u8]) -> Option<&'a [u8]> {
    let start = (inner.as_ptr() as usize).checked_sub(outer.as_ptr() as usize)?;
    outer.get(start.checked_sub(1)?..start + inner.len() + 1)
}

impl<C: ?Sized + Indexed> JsonOptic for At<C> {
    #[inline]
    fn locate<'a>(&self, bytes: &'a [u8]) -> Found<'a> {
        match scan::array_element(bytes, self.index()) {
            Some(element) => Found::At(element),
            None => Found::Miss,
        }
    }
}

impl<'de, C: ?Sized + Indexed> JsonDecode<'de> for At<C>
where
    C::Element: Deserialize<'de>,
{
    #[inline]
    fn decode(&self, found: Found<'de>) -> Option<C::Element> {
        match found {
            Found::At(bytes) => decode(bytes),
            Found::Absent | Found::Miss => None,
        }
    }
}

impl<M: Keyed<Q>, Q: ?Sized + AsRef<str>> JsonOptic for Key<'_, M, Q> {
    #[inline]
    fn locate<'a>(&self, bytes: &'a [u8]) -> Found<'a> {
        match scan::object_last(bytes, self.key().as_ref()) {
            Lookup::Found(value) => Found::At(value),
            Lookup::Missing | Lookup::Malformed => Found::Miss,
        }
    }
}

impl<'de, M: Keyed<Q>, Q: ?Sized + AsRef<str>> JsonDecode<'de> for Key<'_, M, Q>
where
    M::Value: Deserialize<'de>,
{
    #[inline]
    fn decode(&self, found: Found<'de>) -> Option<M::Value> {
        match found {
            Found::At(bytes) => decode(bytes),
            Found::Absent | Found::Miss => None,
        }
    }
}

impl<T> JsonOptic for Some_<T> {
    #[inline]
    fn locate<'a>(&self, bytes: &'a [u8]) -> Found<'a> {
        let bytes = scan::trim(bytes);
        if bytes.is_empty() || scan::is_null(bytes) {
            Found::Miss
        } else {
            Found::At(bytes)
        }
    }
}

impl<'de, T: Deserialize<'de>> JsonDecode<'de> for Some_<T> {
    #[inline]
    fn decode(&self, found: Found<'de>) -> Option<T> {
        match found {
            Found::At(bytes) => decode(bytes),
            Found::Absent | Found::Miss => None,
        }
    }
}

/// The decoding a derived field without `deserialize_with` uses: present, its
/// type's `Deserialize`; missing, serde's rule for a missing field.
#[inline]
pub fn decode_field<'de, T: Deserialize<'de>>(found: Found<'de>) -> Option<T> {
    match found {
        Found::At(bytes) => decode(bytes),
        Found::Absent => decode_absent(),
        Found::Miss => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::VariantTags;
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
            match edit {
                0 if at < bytes.len() => bytes[at] = byte,
                1 => bytes.insert(at, byte),
                _ if at < bytes.len() => {
                    bytes.remove(at);
                }
                _ => bytes.push(byte),
            }
            agree(&bytes)?;
        }
    }
}
