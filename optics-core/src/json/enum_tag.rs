//! An enum's JSON: which variant it is, read from its tag where serde writes
//! it (externally, internally or adjacently tagged), and where the variant's
//! payload lies.

use core::marker::PhantomData;

use super::locate::spot::Form;
use super::locate::spot::{Hidden, Located, MemberIter, Spot};
use super::scan::{self, skip_ws, Lookup};
use super::{Encoding, VariantJson};
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
    /// How the object starts when serde writes its tag compactly:
    /// `{"tag":"` (the tag's key plain, as [`KEY_AND_NAMES`](Self::KEY_AND_NAMES)
    /// asks), and its length; a length of 0 where the tag's key is too long
    /// for the buffer (or the enum has none), and the quick read takes the
    /// general path.
    const COMPACT_START: ([u8; COMPACT_START_MAX], usize) = {
        let mut start = [0u8; COMPACT_START_MAX];
        match S::ENCODING {
            Encoding::Internal { tag } | Encoding::Adjacent { tag, .. }
                if tag.len() + 5 <= COMPACT_START_MAX =>
            {
                let tag = tag.as_bytes();
                start[0] = b'{';
                start[1] = b'"';
                let mut i = 0;
                while i < tag.len() {
                    start[2 + i] = tag[i];
                    i += 1;
                }
                start[2 + tag.len()] = b'"';
                start[3 + tag.len()] = b':';
                start[4 + tag.len()] = b'"';
                (start, tag.len() + 5)
            }
            _ => (start, 0),
        }
    };
}

/// The longest compact start [`PlainTags::COMPACT_START`] holds.
const COMPACT_START_MAX: usize = 32;

/// The index just past `"name"` if the bytes at `at` are that string (`name`
/// [plain](is_plain), so the string's text is `name` exactly).
#[inline(always)]
fn quoted_at(bytes: &[u8], at: usize, name: &str) -> Option<usize> {
    let close = at + 1 + name.len();
    let quoted = bytes.get(at) == Some(&b'"')
        && bytes.get(close) == Some(&b'"')
        && scan::same_bytes(&bytes[at + 1..close], name.as_bytes());
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
/// few short compares instead of a scan. A caller that takes the tag read
/// this way marks the object for strict reads
/// (`scan::duplicates::tag_read_quickly`): that its first key stands once
/// is checked later.
#[inline]
pub(super) fn leading_variant<S: Tagged>(bytes: &[u8]) -> Option<(usize, &[u8])> {
    leading_variant_at::<S>(bytes).map(|(index, tag, _)| (index, tag))
}

/// [`leading_variant`], and where the `,` or `}` after the tag's member is.
///
/// Written compactly, as serde writes it (`{"tag":"Name",` or `}`), the
/// object's start is compared in a word or two and the name after it;
/// anything else (whitespace, another layout) takes the general read.
#[inline(always)]
fn leading_variant_at<S: Tagged>(bytes: &[u8]) -> Option<(usize, &[u8], usize)> {
    if !PlainTags::<S>::KEY_AND_NAMES {
        return None;
    }
    let (start, len) = PlainTags::<S>::COMPACT_START;
    if len > 0 {
        if let (Some(head), Some(expected)) = (bytes.get(..len), start.get(..len)) {
            if scan::same_bytes(head, expected) {
                // `len - 1` is the name's opening quote.
                if let Some((index, end)) = variant_quoted_at::<S>(bytes, len - 1) {
                    if let Some(b',' | b'}') = bytes.get(end) {
                        return Some((index, &bytes[len - 1..end], end));
                    }
                }
            }
        }
    }
    leading_variant_spaced::<S>(bytes)
}

/// [`leading_variant_at`] for bytes not written compactly: whitespace
/// allowed wherever JSON allows it.
#[inline(never)]
fn leading_variant_spaced<S: Tagged>(bytes: &[u8]) -> Option<(usize, &[u8], usize)> {
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
    let delimiter = skip_ws(bytes, end);
    match bytes.get(delimiter) {
        Some(b',' | b'}') => Some((index, &bytes[value..end], delimiter)),
        _ => None,
    }
}

/// Which variant an enum's JSON is, as serde reads it where it lies, the
/// tag's bytes, and where the payload is.
#[derive(Clone, Copy, Debug)]
struct Resolved<'a> {
    variant: usize,
    /// What serde reads the variant from: the tag as written (a string, a
    /// number, `{"Variant":null}`), or for the externally tagged object form
    /// its key with the quotes.
    tag: &'a [u8],
    payload: Payload<'a>,
}

#[derive(Clone, Copy, Debug)]
enum Payload<'a> {
    /// The enum is its variant's name alone: no payload.
    Name,
    /// An adjacently tagged enum without its content.
    Missing,
    At(Spot<'a>),
}

/// The quick read of [`leading_variant`] where [`resolve`] would take it
/// and answer from it alone: an internally tagged enum that is one JSON
/// value, an object (its first byte `{`, as `internal` requires).
#[inline(always)]
fn leading_internal<S: Tagged>(at: Spot<'_>) -> Option<Leading<'_>> {
    let (Encoding::Internal { tag }, Form::Value { buffered, .. }) = (S::ENCODING, at.form())
    else {
        return None;
    };
    // The tag leads the object: an open spot's bytes (see `Spot`) are read
    // from the start, and its end is not looked for.
    let bytes = at.start_bytes();
    if bytes.first() != Some(&b'{') {
        return None;
    }
    let (variant, quoted, delimiter) = leading_variant_at::<S>(bytes)?;
    // A strict read checks later that this tag stands once.
    scan::duplicates::tag_read_quickly(bytes);
    Some(Leading {
        object: bytes,
        open: at.is_open(),
        variant,
        quoted,
        tag,
        buffered,
        delimiter,
    })
}

/// What [`leading_internal`] read.
struct Leading<'a> {
    /// The enum's object (or an open spot's bytes, which run on past it).
    object: &'a [u8],
    /// Whether `object` is an open spot's.
    open: bool,
    variant: usize,
    /// The tag's value, with its quotes.
    quoted: &'a [u8],
    /// The tag's key.
    tag: &'static str,
    /// Whether serde reads the enum from its buffer.
    buffered: bool,
    /// Where the `,` or `}` after the tag's member is: the payload's other
    /// members follow it.
    delimiter: usize,
}

/// The variant the enum at `at` is, read as serde reads it there.
fn resolve<S: Tagged>(at: Spot<'_>) -> Option<Resolved<'_>> {
    match S::ENCODING {
        Encoding::External => external::<S>(at),
        Encoding::Internal { tag } => internal::<S>(at, tag),
        Encoding::Adjacent { tag, content } => adjacent::<S>(at, tag, content),
    }
}

/// `"Variant"` or `{"Variant": payload}`; flattened, the first member named
/// like a variant among the struct's others.
fn external<S: Tagged>(at: Spot<'_>) -> Option<Resolved<'_>> {
    let bytes = at.bytes();
    let buffered = at.is_buffered();
    let (key, value) = match at.form() {
        Form::Value { .. } => match bytes.first()? {
            b'"' => {
                return Some(Resolved {
                    variant: variant_of_tag::<S>(scan::string_raw(bytes)?)?,
                    tag: bytes,
                    payload: Payload::Name,
                })
            }
            b'{' => scan::first_member(bytes)?,
            _ => return None,
        },
        // serde's buffer reads an enum from a map of exactly one entry.
        Form::Members {
            hidden,
            flat: false,
            ..
        } => {
            let mut members = MemberIter::new(bytes);
            let mut only = None;
            for member in members.by_ref() {
                let (key, value) = member.ok()?;
                if hidden.hides_raw(key)? {
                    continue;
                }
                if only.replace((key, value)).is_some() {
                    return None;
                }
            }
            members.ended_well().then_some(())?;
            only?
        }
        // Flattened: the first member whose key is a variant's name or alias
        // (`other` takes no part: serde looks for the names). A strict read
        // meets a later member naming the same variant as a repeated key:
        // a reader that takes the last would read that one.
        Form::Members {
            hidden, flat: true, ..
        } => {
            let watching = scan::duplicates::watching();
            let mut members = MemberIter::new(bytes);
            let mut first = None;
            let mut variant = None;
            for member in members.by_ref() {
                let (key, value) = member.ok()?;
                if first.is_some() && !watching {
                    continue;
                }
                if hidden.hides_raw(key)? {
                    continue;
                }
                let Some(named) = variant_named::<S>(key) else {
                    continue;
                };
                if first.is_none() {
                    first = Some((key, value));
                    variant = Some(named);
                } else if variant == Some(named) {
                    scan::duplicates::met(key.as_ptr().wrapping_sub(1));
                    return None;
                }
            }
            members.ended_well().then_some(())?;
            first?
        }
        Form::Rest { .. } | Form::Opaque { .. } => return None,
    };
    let variant = match at.form() {
        Form::Members { flat: true, .. } => variant_named::<S>(key)?,
        _ => variant_of_tag::<S>(key)?,
    };
    Some(Resolved {
        variant,
        tag: widen_by_quotes(bytes, key)?,
        payload: Payload::At(Spot::value(value, buffered)),
    })
}

/// `{"tag": "Variant", ...payload}`, or `["Variant", ...payload]`.
fn internal<'a, S: Tagged>(at: Spot<'a>, tag: &'static str) -> Option<Resolved<'a>> {
    let bytes = at.bytes();
    match at.form() {
        Form::Value { buffered, .. } => match bytes.first()? {
            b'{' => {
                let payload = Payload::At(Spot::members(bytes, Hidden::NONE.with_tag(tag), false));
                if let Some((variant, quoted)) = leading_variant::<S>(bytes) {
                    scan::duplicates::tag_read_quickly(bytes);
                    return Some(Resolved {
                        variant,
                        tag: quoted,
                        payload,
                    });
                }
                let value = found(scan::object_field(bytes, &[tag]))?;
                Some(Resolved {
                    variant: tag_value::<S>(value, buffered)?,
                    tag: value,
                    payload,
                })
            }
            b'[' => {
                let value = scan::array_element(bytes, 0)?;
                Some(Resolved {
                    variant: tag_value::<S>(value, buffered)?,
                    tag: value,
                    payload: Payload::At(Spot::rest(bytes, 1)),
                })
            }
            _ => None,
        },
        Form::Members { hidden, .. } => {
            if hidden.hides(tag)? {
                return None;
            }
            let value = found(scan::object_field(bytes, &[tag]))?;
            Some(Resolved {
                variant: tag_value::<S>(value, true)?,
                tag: value,
                payload: Payload::At(Spot::members(bytes, hidden.with_tag(tag), false)),
            })
        }
        Form::Rest { skip } => {
            let value = scan::array_element(bytes, skip)?;
            Some(Resolved {
                variant: tag_value::<S>(value, true)?,
                tag: value,
                payload: Payload::At(Spot::rest(bytes, skip + 1)),
            })
        }
        Form::Opaque { .. } => None,
    }
}

/// `{"tag": "Variant", "content": payload}` in either order, or
/// `["Variant", payload]`.
fn adjacent<'a, S: Tagged>(
    at: Spot<'a>,
    tag: &'static str,
    content: &'static str,
) -> Option<Resolved<'a>> {
    let bytes = at.bytes();
    let (hidden, buffered) = match at.form() {
        Form::Value { buffered, .. } => match bytes.first()? {
            b'{' => (Hidden::NONE, buffered),
            b'[' => return adjacent_seq::<S>(bytes, 0, buffered),
            _ => return None,
        },
        Form::Members { hidden, .. } => (hidden, true),
        Form::Rest { skip } => return adjacent_seq::<S>(bytes, skip, true),
        Form::Opaque { .. } => return None,
    };
    if hidden.hides(tag)? {
        return None;
    }
    let (variant, tag_bytes) = match leading_variant::<S>(bytes) {
        Some(quick) if matches!(at.form(), Form::Value { .. }) => {
            scan::duplicates::tag_read_quickly(bytes);
            quick
        }
        _ => {
            let value = found(scan::object_field(bytes, &[tag]))?;
            (tag_as_enum::<S>(value, buffered)?, value)
        }
    };
    let payload = if hidden.hides(content)? {
        Payload::Missing
    } else {
        match scan::object_field(bytes, &[content]) {
            // Content written before the tag is buffered until the tag is read.
            Lookup::Found(value) => {
                let before = (value.as_ptr() as usize) < (tag_bytes.as_ptr() as usize);
                Payload::At(Spot::value(value, buffered || before))
            }
            Lookup::Missing => Payload::Missing,
            Lookup::Malformed => return None,
        }
    };
    Some(Resolved {
        variant,
        tag: tag_bytes,
        payload,
    })
}

/// `[tag, content]` from element `skip` of `bytes`: exactly two elements.
fn adjacent_seq<S: Tagged>(bytes: &[u8], skip: usize, buffered: bool) -> Option<Resolved<'_>> {
    let tag = scan::array_element(bytes, skip)?;
    let content = scan::array_element(bytes, skip + 1)?;
    if scan::array_element(bytes, skip + 2).is_some() {
        return None;
    }
    Some(Resolved {
        // Read as the variant's identifier here, not as an enum.
        variant: tag_value::<S>(tag, buffered)?,
        tag,
        payload: Payload::At(Spot::value(content, buffered)),
    })
}

fn found(lookup: Lookup<'_>) -> Option<&[u8]> {
    match lookup {
        Lookup::Found(value) => Some(value),
        Lookup::Missing | Lookup::Malformed => None,
    }
}

/// The variant a tag value names, read as a variant identifier: its name
/// (or an alias, or `other`), and from serde's buffer also its number.
fn tag_value<S: Tagged>(value: &[u8], buffered: bool) -> Option<usize> {
    match value.first()? {
        b'"' => variant_of_tag::<S>(scan::string_raw(value)?),
        b'0'..=b'9' if buffered => variant_of_index::<S>(unsigned(value)?),
        _ => None,
    }
}

/// The variant an adjacently tagged enum's tag names, read as serde reads
/// it, as an enum: `"Variant"`, or `{"Variant": null}` (in serde's buffer
/// also `{"Variant": {}}`).
fn tag_as_enum<S: Tagged>(value: &[u8], buffered: bool) -> Option<usize> {
    match value.first()? {
        b'"' => variant_of_tag::<S>(scan::string_raw(value)?),
        b'{' => {
            let (key, unit) = scan::first_member(value)?;
            is_unit(unit, buffered).then_some(())?;
            variant_of_tag::<S>(key)
        }
        _ => None,
    }
}

/// Whether `value` is the unit value as serde reads it: `null`, and in its
/// buffer also `{}`.
fn is_unit(value: &[u8], buffered: bool) -> bool {
    scan::is_null(value) || (buffered && is_empty_object(value))
}

fn is_empty_object(value: &[u8]) -> bool {
    let value = scan::trim(value);
    value.first() == Some(&b'{')
        && value.last() == Some(&b'}')
        && scan::trim(&value[1..value.len() - 1]).is_empty()
}

/// A JSON integer without sign, fraction or exponent that fits a `u64`: what
/// serde_json hands serde's buffer as an unsigned number.
fn unsigned(value: &[u8]) -> Option<u64> {
    let value = scan::trim(value);
    if value.len() > 1 && value[0] == b'0' {
        return None;
    }
    let mut n: u64 = 0;
    for &byte in value {
        let digit = byte.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        n = n.checked_mul(10)?.checked_add(u64::from(digit))?;
    }
    (!value.is_empty()).then_some(n)
}

/// The variant numbered `n` among those serde reads (skipped variants take
/// no number), or the `other` variant past them.
fn variant_of_index<S: Tagged>(n: u64) -> Option<usize> {
    let mut read = S::VARIANTS
        .iter()
        .enumerate()
        .filter(|(_, tags)| !tags.names.is_empty());
    let numbered = usize::try_from(n).ok().and_then(|n| read.clone().nth(n));
    match numbered {
        Some((index, _)) => Some(index),
        None => read.find(|(_, tags)| tags.other).map(|(index, _)| index),
    }
}

/// The variant one of whose names is the raw key, without `other`.
fn variant_named<S: Tagged>(raw: &[u8]) -> Option<usize> {
    let escaped = raw.contains(&b'\\');
    S::VARIANTS.iter().position(|tags| {
        tags.names.iter().any(|name| {
            if escaped {
                scan::raw_eq(raw, name.as_bytes())
            } else {
                raw == name.as_bytes()
            }
        })
    })
}

/// The payload of variant `index` in the enum at `at`, if the enum is that
/// variant with a payload of the shape `json` says.
#[inline]
pub(super) fn locate_variant<S: Tagged>(
    at: Spot<'_>,
    index: usize,
    json: VariantJson,
) -> Located<'_> {
    if let Some(leading) = leading_internal::<S>(at) {
        // What `resolve` and the match below make of it, without the detour.
        if leading.variant != index {
            return Located::Miss;
        }
        return match json {
            VariantJson::Unit => Located::At(Spot::null(leading.buffered)),
            // The tag's member, first and checked, need not be walked again.
            VariantJson::Newtype | VariantJson::Fields => Located::At(Spot::members_after(
                leading.object,
                Hidden::NONE.with_tag(leading.tag),
                leading.delimiter,
                leading.open,
            )),
        };
    }
    variant_resolved::<S>(at, index, json)
}

/// [`locate_variant`] through [`resolve`], without the quick read.
fn variant_resolved<S: Tagged>(at: Spot<'_>, index: usize, json: VariantJson) -> Located<'_> {
    let Some(resolved) = resolve::<S>(at) else {
        return Located::Miss;
    };
    if resolved.variant != index {
        return Located::Miss;
    }
    let buffered = at.is_buffered();
    let unit = Located::At(Spot::null(buffered));
    match (S::ENCODING, json, resolved.payload) {
        (_, VariantJson::Unit, Payload::Name) => unit,
        (Encoding::External, VariantJson::Unit, Payload::At(value)) => {
            if is_unit(value.bytes(), value.is_buffered()) {
                unit
            } else {
                Located::Miss
            }
        }
        // Any members may stand beside the tag of a unit variant; written as
        // an array, nothing may follow the tag.
        (Encoding::Internal { .. }, VariantJson::Unit, Payload::At(payload)) => {
            match payload.form() {
                Form::Rest { skip } => {
                    let bytes = payload.bytes();
                    let well_formed = scan::skip_value(bytes, 0) == Some(bytes.len());
                    if well_formed && scan::array_element(bytes, skip).is_none() {
                        unit
                    } else {
                        Located::Miss
                    }
                }
                Form::Value { .. } | Form::Members { .. } | Form::Opaque { .. } => unit,
            }
        }
        (Encoding::Adjacent { .. }, VariantJson::Unit, Payload::Missing) => unit,
        (Encoding::Adjacent { .. }, VariantJson::Unit, Payload::At(content)) => {
            if scan::is_null(content.bytes()) {
                unit
            } else {
                Located::Miss
            }
        }
        (_, VariantJson::Newtype | VariantJson::Fields, Payload::At(payload)) => {
            Located::At(payload)
        }
        // serde reads a missing content as a missing field: `None` for an
        // `Option`, an error for anything else.
        (Encoding::Adjacent { .. }, VariantJson::Newtype, Payload::Missing) => Located::Absent,
        (_, _, Payload::Name | Payload::Missing) => Located::Miss,
    }
}

/// The variant the enum at `at` is, where the quick read of its leading
/// tag reads it (as [`locate_tag`] and [`locate_variant`] do first);
/// `None` where they read it in full.
#[inline]
pub(super) fn leading_variant_of<S: Tagged>(at: Spot<'_>) -> Option<usize> {
    leading_internal::<S>(at).map(|leading| leading.variant)
}

/// The tag of the enum at `at`: what its kind is read from.
#[inline]
pub(super) fn locate_tag<S: Tagged>(at: Spot<'_>) -> Located<'_> {
    if let Some(Leading {
        quoted, buffered, ..
    }) = leading_internal::<S>(at)
    {
        return Located::At(Spot::value(quoted, buffered));
    }
    tag_resolved::<S>(at)
}

/// [`locate_tag`] through [`resolve`], without the quick read.
fn tag_resolved<S: Tagged>(at: Spot<'_>) -> Located<'_> {
    match resolve::<S>(at) {
        Some(resolved) => Located::At(Spot::value(resolved.tag, at.is_buffered())),
        None => Located::Miss,
    }
}

/// The variant a tag [`locate_tag`] found names.
#[inline]
pub(super) fn kind_of_tag<S: Tagged>(tag: &[u8]) -> Option<usize> {
    match tag.first()? {
        b'"' => {
            // A variant's name as it stands, quotes and all, is that variant.
            match PlainTags::<S>::NAMES.then(|| variant_quoted_at::<S>(tag, 0)) {
                Some(Some((index, end))) if end == tag.len() => Some(index),
                _ => variant_of_tag::<S>(scan::string_raw(tag)?),
            }
        }
        b'0'..=b'9' => variant_of_index::<S>(unsigned(tag)?),
        b'{' => variant_of_tag::<S>(scan::first_member(tag)?.0),
        _ => None,
    }
}

/// `inner`, a string's raw contents inside `outer`, with its two quotes.
pub(super) fn widen_by_quotes<'a>(outer: &'a [u8], inner: &[u8]) -> Option<&'a [u8]> {
    let start = (inner.as_ptr() as usize).checked_sub(outer.as_ptr() as usize)?;
    outer.get(start.checked_sub(1)?..start + inner.len() + 1)
}

/// The integration tests' one-byte edit, shared rather than written again
/// (the scanner's unit tests use it too).
#[cfg(test)]
#[path = "../../tests/support/edit.rs"]
pub(crate) mod edit;

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
        let value = found(scan::object_field(bytes, &["type"]))?;
        Some((tag_value::<Kinds>(value, false)?, value))
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
        r#"{"type":"Incident","a":1,"x":{"b":2},"severity":"Sev1"}"#,
        r#"{"type":"bug" ,
 "x" : 1 }"#,
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

    /// Whenever `locate_tag` and `locate_variant` take the quick read, they
    /// answer what `resolve` does, directly and from serde's buffer.
    fn locates_agree(bytes: &[u8]) -> Result<(), TestCaseError> {
        for buffered in [false, true] {
            let at = Spot::value(bytes, buffered);
            prop_assert_eq!(
                format!("{:?}", locate_tag::<Kinds>(at)),
                format!("{:?}", tag_resolved::<Kinds>(at))
            );
            for index in 0..Kinds::VARIANTS.len() {
                for json in [VariantJson::Unit, VariantJson::Newtype, VariantJson::Fields] {
                    let quick = locate_variant::<Kinds>(at, index, json);
                    prop_assert_eq!(
                        format!("{:?}", from_start(quick)),
                        format!("{:?}", variant_resolved::<Kinds>(at, index, json)),
                        "{:?}",
                        String::from_utf8_lossy(bytes)
                    );
                    // A payload read on from after the tag finds what a read
                    // from the object's start finds.
                    if let Located::At(spot) = quick {
                        if let Form::Members { resume, .. } = spot.form() {
                            let resume = resume as usize;
                            if resume > 0 {
                                // `resume` is the delimiter after the tag's
                                // member, as the member walk finds it.
                                let scan::Lookup::Found(tag) =
                                    scan::object_field(spot.bytes(), &["type"])
                                else {
                                    return Err(TestCaseError::fail("no tag member"));
                                };
                                let end = tag.as_ptr() as usize - spot.bytes().as_ptr() as usize
                                    + tag.len();
                                prop_assert_eq!(skip_ws(spot.bytes(), end), resume);
                            }
                            for keys in [&["x"][..], &["severity"], &["a", "x"]] {
                                prop_assert_eq!(
                                    scan::object_field_from(spot.bytes(), keys, resume),
                                    scan::object_field(spot.bytes(), keys),
                                    "{:?} {:?} from {}",
                                    String::from_utf8_lossy(bytes),
                                    keys,
                                    resume
                                );
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The kind read where the quick read takes the tag (`read_at`) is the
    /// kind decoded from the tag `locate_at` finds, directly, from serde's
    /// buffer and from an open spot.
    fn kinds_agree(bytes: &[u8]) -> Result<(), TestCaseError> {
        use crate::json::{JsonDecode, JsonOptic};
        let kind = crate::optic::Discriminant::<Kinds>::new();
        for buffered in [false, true] {
            let spots = [
                Spot::value(bytes, buffered),
                Spot::open_value(bytes, buffered),
            ];
            for at in spots {
                prop_assert_eq!(
                    kind.read_at(at),
                    kind.decode_at(kind.locate_at(at)),
                    "{:?}",
                    String::from_utf8_lossy(bytes)
                );
            }
        }
        Ok(())
    }

    #[test]
    fn kind_read_quickly_is_kind_decoded() {
        for doc in DOCS {
            if let Err(error) = kinds_agree(doc.as_bytes()) {
                panic!("{error}");
            }
        }
    }

    /// `located` with a payload's members read from the object's start, as
    /// `resolve` leaves them.
    fn from_start(located: Located<'_>) -> Located<'_> {
        match located {
            Located::At(spot) => match spot.form() {
                Form::Members { hidden, flat, .. } => {
                    Located::At(Spot::members(spot.bytes(), hidden, flat))
                }
                _ => located,
            },
            other => other,
        }
    }

    #[test]
    fn the_quick_locates_agree_with_resolve() {
        for doc in DOCS {
            if let Err(error) = locates_agree(doc.as_bytes()) {
                panic!("{error}");
            }
        }
    }

    proptest! {
        #[test]
        fn the_quick_locates_agree_with_resolve_on_edited_bytes(
            doc in prop::sample::select(DOCS),
            at in any::<prop::sample::Index>(),
            edit in 0..3u8,
            byte in prop::sample::select(&b"\"\\ :,{}[]\x01\xc3\xa9bgtypeIncidnu"[..]),
        ) {
            let mut bytes = doc.as_bytes().to_vec();
            let at = at.index(bytes.len() + 1);
            edit_one_byte(&mut bytes, at, edit, byte);
            locates_agree(&bytes)?;
            kinds_agree(&bytes)?;
        }

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
