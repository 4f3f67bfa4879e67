//! Writing through optics into JSON bytes, in place: a new document made of
//! the bytes before the focus, the new focus as serde writes it, and the
//! bytes after.
//!
//! ```text
//! json.set(Issue::reporter.then(Person::email), &"x@y.z".to_owned())
//!
//! {"id":7,"reporter":{"name":"ann","email":"ann@corp.com","team":{..}},..}
//! '---- copied -----------------------------'--- new ----'-- copied ----'
//!                                            "x@y.z" (serde_json)
//! ```
//!
//! Each step finds its focus as a read does (see the table in [`json`](super));
//! only the last step writes, and it writes as serde's derive would:
//!
//! | focus                                   | what is written                                                   |
//! |-----------------------------------------|-------------------------------------------------------------------|
//! | a struct field present in the object    | its value replaced: the field's `serialize_with`, or the type's `Serialize` |
//! | a struct field absent from the object   | a member `"key":value` appended before the object's `}`, with the key serde writes |
//! | a field `skip_serializing_if` skips     | its member removed (with one comma), or left absent               |
//! | a tuple-struct or transparent field     | the element, or the whole value, replaced                         |
//! | an externally or adjacently tagged variant's payload | the payload replaced                                 |
//! | an internally tagged newtype variant's payload | the object rewritten: the tag as it stood first, then the payload's members (a unit variant of another enum: `"Variant":null`; an `Option`'s `None` is refused, as serde refuses it) |
//! | a unit variant's `()`                    | nothing: the document is unchanged                               |
//! | `at(i)`, `key(k)`, `some()`, `each()`    | the element, value or member value replaced                      |
//!
//! The rest of the document stays byte for byte. A focus that is not there
//! (another variant, an index past the end, a map without the key, `null`
//! under `some()`, malformed bytes) is not written: [`Json::set`] returns
//! `None`.
//!
//! **A missing field is appended** as the object's last member, since the
//! bytes do not say where serde would have put it among the others (serde
//! reads members in any order). Setting it again replaces it there.
//!
//! **A path through a missing field** (a `#[serde(default)]` struct that is
//! absent, then a field inside it) has no bytes to write in: it misses, where
//! a set on the decoded value would write into the default. A write of
//! every focus ([`Json::set_all`], [`Json::modify_all`]) refuses there as a
//! whole, since `set_all` on the value writes the default's foci; where
//! serde's default has none (`None`, an empty collection or string, or a
//! `Box` of one) there
//! is nothing to write, and that part is copied as it is.
//!
//! **A path through a field read with a function** (`with`,
//! `deserialize_with`) does not compile, as on the read side: the bytes there
//! are what the function reads, not necessarily the JSON of the field's type.
//! The field itself is written with its function.
//!
//! **Where a write refuses.** Each step finds its focus as a read does, from
//! a [`Spot`] that says how serde reads it there. A write splices
//! only where the new bytes are read back as the value-side set gives: a
//! plain JSON value (also one serde reads from its buffer: what serde writes
//! for the new value is what its buffer reads back), a member of an object
//! (the struct's own, or among the members serde hands an internally tagged
//! payload or a flattened field), an element of a tuple struct's array, an
//! internally tagged enum's own object. Anything else is a slot every write
//! refuses, and the write returns `None` (`false`) rather than guess: a
//! struct read from a JSON array (`[1, "a"]`), a struct variant written as
//! `["Variant", ...fields]`, a field whose key the spot hides (a tag or a
//! key of the outer struct, so an appended member would not be read as the
//! field), an internally tagged enum that is itself flattened or is the
//! payload of another internally tagged variant (its object is the outer
//! struct's or enum's; the payload's own members are written), the field of
//! a newtype or transparent struct that is an internally tagged payload or
//! flattened (it is those members as a whole: write the payload, or the
//! members inside), a focus that is not one JSON value (a flattened field's
//! or an internally tagged payload's members under `some()`, `at(i)`,
//! `key(k)`), an adjacently tagged newtype variant whose content is
//! missing, and a focus past more flatten and internal-tag levels on one
//! object than a read follows (six: reads miss there, but serde's value has
//! the focus), through an `optic!` name as through its path. A write of
//! every focus ([`Json::set_all`], [`Json::modify_all`]) refuses as a
//! whole where one of its foci refuses: the value-side `set_all` writes
//! that focus, so the document unchanged would not be what it gives.
//!
//! **Duplicate keys and malformed bytes.** A struct field is written where a
//! read finds it, in the first member with its key (serde_json rejects a
//! document with two); `key(k)` writes the last, the one serde_json keeps.
//! Nothing but the path to the focus is checked: bytes elsewhere are copied as
//! they are, malformed or not. Check a document first with
//! [`Json::validated`] (strict mode) to write only into well-formed ones.
//!
//! What cannot be written does not compile: a field serde does not both
//! read and write (`skip`, `skip_serializing`, `skip_deserializing`), a
//! `flatten`ed field as a whole (its members stand among the outer struct's;
//! a path *through* it writes them), a field of a type with `#[serde(into)]`,
//! a getter such as `Type::kind`, and any path through an `Rc`, an `Arc` or
//! a getter, however many steps follow it: what has no `set` on values has
//! none on bytes.

use core::ops::Range;

use serde::Serialize;

use super::enum_tag::locate_variant;
use super::field_write::{write_json, FieldWrite, VariantFieldWrite};
use super::iter::{JsonElements, JsonTraverse, JsonTraverseThrough, PassedAbsent};
use super::locate::spot::Form;
use super::scan::{self, skip_ws};
use super::{Encoding, FieldJson, Found, Json, JsonDecode, JsonOptic, Located, Spot, VariantJson};
use crate::json::iter::JsonTraverseDecode;
use crate::optic::{
    At, Discriminant, Each, Field, Indexed, JsonKey, Key, Keyed, Optic, Some_, StartsAt, Then,
    ThroughMut, TraverseMut, Variant, VariantField, VariantOf,
};

/// Where one focus stands in the bytes, for writing: found by
/// [`JsonWrite::slots`], consumed by [`JsonWrite::write`]. Borrows the
/// document; holds no copy of it.
#[derive(Clone, Copy, Debug)]
pub struct Slot<'a> {
    place: Place<'a>,
    /// What a read finds there, for decoding the old focus.
    focus: Located<'a>,
}

#[derive(Clone, Copy, Debug)]
enum Place<'a> {
    /// A value to replace as a whole.
    Value(&'a [u8]),
    /// A member's value, in its object (which a skipped value leaves).
    Member { object: &'a [u8], value: &'a [u8] },
    /// A struct field the object does not have.
    Missing { object: &'a [u8] },
    /// A unit variant's payload, `()`: nothing to write.
    Unit,
    /// An internally tagged newtype variant: the enum's object, whose tag
    /// (`tag`, quotes included) stays.
    Tagged { object: &'a [u8], tag: &'a [u8] },
    /// A focus that cannot be written where it lies as serde would write
    /// it: every write refuses, so that a write of every focus refuses too.
    Refused,
}

impl<'a> Slot<'a> {
    const fn new(place: Place<'a>, focus: Located<'a>) -> Self {
        Slot { place, focus }
    }

    /// The slot of a focus a write refuses, where a read finds one (`None`
    /// for a miss: no focus, nothing to refuse).
    const fn refused(focus: Located<'a>) -> Option<Self> {
        match focus {
            Located::At(_) | Located::Absent => Some(Slot::new(Place::Refused, focus)),
            Located::Miss => None,
        }
    }

    /// What a read would have found here: the bytes the focus is decoded from
    /// ([`Found::At`]), or [`Found::Absent`] for a missing field.
    pub fn found(&self) -> Found<'a> {
        self.focus.found()
    }

    /// What a read would have found here, and how serde reads it there.
    pub fn located(&self) -> Located<'a> {
        self.focus
    }
}

/// A document being rewritten: the bytes before each edit are copied from the
/// document, the edit is written, and the rest is copied at the end. Edits
/// must come in document order and not overlap. Made by [`Json`]'s writing
/// methods; writes into the buffer they were given.
pub struct Splice<'a, 'o> {
    doc: &'a [u8],
    out: &'o mut Vec<u8>,
    /// The document's bytes before `pos` are written (or replaced).
    pos: usize,
}

impl<'a, 'o> Splice<'a, 'o> {
    fn new(doc: &'a [u8], out: &'o mut Vec<u8>) -> Self {
        out.clear();
        Splice { doc, out, pos: 0 }
    }

    /// Where `part`, a slice of the document, lies in it.
    fn span(&self, part: &[u8]) -> Option<Range<usize>> {
        let start = (part.as_ptr() as usize).checked_sub(self.doc.as_ptr() as usize)?;
        let end = start.checked_add(part.len())?;
        (end <= self.doc.len()).then_some(start..end)
    }

    /// Copies the document up to `at`; then the caller writes into `out`.
    fn copy_to(&mut self, at: usize) -> Option<&mut Vec<u8>> {
        let before = self.doc.get(self.pos..at)?;
        self.out.extend_from_slice(before);
        self.pos = at;
        Some(self.out)
    }

    /// Drops `range` of the document; what the caller writes stands for it.
    fn replace_range(&mut self, range: Range<usize>) -> Option<&mut Vec<u8>> {
        self.copy_to(range.start)?;
        self.pos = range.end;
        Some(self.out)
    }

    /// Drops `part`, a slice of the document; what the caller writes
    /// stands for it.
    fn replace(&mut self, part: &[u8]) -> Option<&mut Vec<u8>> {
        let range = self.span(part)?;
        self.replace_range(range)
    }

    /// Removes the member of `object` whose value is `value`, with the comma
    /// that separates it from the next member (or, for the last, the previous).
    fn remove_member(&mut self, object: &[u8], value: &[u8]) -> Option<()> {
        let base = self.span(object)?.start;
        let member = member_at(object, self.span(value)?.start.checked_sub(base)?)?;
        let range = if object.get(member.delimiter) == Some(&b',') {
            member.key..skip_ws(object, member.delimiter + 1)
        } else {
            match last_non_ws(object, member.key) {
                Some(comma) if object[comma] == b',' => comma..member.end,
                _ => member.key..member.end,
            }
        };
        self.replace_range(base + range.start..base + range.end)
            .map(drop)
    }

    /// Appends the member `"key":` + what `write` writes to `object`, before
    /// its closing brace (after a comma unless the object is empty).
    fn append_member(
        &mut self,
        object: &[u8],
        key: &str,
        write: impl FnOnce(&mut Vec<u8>) -> Result<(), serde_json::Error>,
    ) -> Option<()> {
        let base = self.span(object)?.start;
        let close = object.len().checked_sub(1)?;
        if object.get(close) != Some(&b'}') {
            return None;
        }
        let last = last_non_ws(object, close)?;
        let empty = object[last] == b'{';
        let out = self.copy_to(base + last + 1)?;
        if !empty {
            out.push(b',');
        }
        write_json(out, key).ok()?;
        out.push(b':');
        write(out).ok()
    }

    /// Copies what is left of the document.
    fn finish(self) -> Option<()> {
        let rest = self.doc.get(self.pos..)?;
        self.out.extend_from_slice(rest);
        Some(())
    }
}

/// Index of the last byte before `end` that is not JSON whitespace.
fn last_non_ws(bytes: &[u8], end: usize) -> Option<usize> {
    bytes
        .get(..end)?
        .iter()
        .rposition(|&b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
}

/// One member of an object, as positions in the object's bytes.
struct MemberAt {
    /// The key's opening quote.
    key: usize,
    /// Just past the value.
    end: usize,
    /// The `,` or `}` after the value.
    delimiter: usize,
}

/// The member of `object` whose value starts at `value`, walking the members
/// from the first. Only for removing a member, which is rare: a walk of the
/// object's members, each key and value skipped.
fn member_at(object: &[u8], value: usize) -> Option<MemberAt> {
    let open = skip_ws(object, 0);
    if object.get(open) != Some(&b'{') {
        return None;
    }
    let mut at = open + 1;
    loop {
        let key = skip_ws(object, at);
        if object.get(key) != Some(&b'"') {
            return None;
        }
        let colon = skip_ws(object, scan::skip_value(object, key)?);
        if object.get(colon) != Some(&b':') {
            return None;
        }
        let start = skip_ws(object, colon + 1);
        let end = scan::skip_value(object, start)?;
        let delimiter = skip_ws(object, end);
        if start == value {
            return Some(MemberAt {
                key,
                end,
                delimiter,
            });
        }
        match object.get(delimiter) {
            Some(b',') => at = delimiter + 1,
            _ => return None,
        }
    }
}

/// An optic that can write its foci into the JSON bytes of its source: the
/// byte side of `set`. Optics derived for fields serde reads and writes,
/// variant prisms, `at(i)`, `key(k)`, `some()`, `each()` and their
/// compositions (only the last step writes; the others find) have it.
///
/// Both methods are what [`Json::set`] and its siblings are made of; call
/// those.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot write its focus into JSON bytes",
    note = "the last step of the path writes: a field serde both reads and writes (not `skip`, `skip_serializing`, `skip_deserializing` or `flatten`), a variant, at(i), key(k), some() or each(), over a focus type that is `Serialize`",
    note = "a getter such as `Type::kind` has no write; a name from `optic!` writes through its path: use the path"
)]
pub trait JsonWrite: Optic {
    /// Calls `each` with the slot of every focus in `bytes` (the JSON of a
    /// `Source`), in document order, while it returns `true`; returns
    /// `false` if it stopped. Nothing is decoded or allocated. A focus that
    /// cannot be written faithfully where it lies (see the
    /// [module docs](crate::json::write)) has a slot every write refuses.
    #[inline]
    fn slots<'a, F: FnMut(Slot<'a>) -> bool>(&self, bytes: &'a [u8], each: &mut F) -> bool {
        self.slots_at(Spot::document(bytes), each)
    }

    /// [`slots`](Self::slots) from `at`, where the source lies (see [`Spot`]).
    fn slots_at<'a, F: FnMut(Slot<'a>) -> bool>(&self, at: Spot<'a>, each: &mut F) -> bool;

    /// Writes `value` at `slot` (one this optic found) into `splice`.
    /// `None` where it cannot be written (serde refuses the value, or the
    /// slot is not where the document is being rewritten).
    fn write<'a>(
        &self,
        value: &Self::Focus,
        slot: Slot<'a>,
        splice: &mut Splice<'a, '_>,
    ) -> Option<()>;
}

impl<A, B> JsonWrite for Then<A, B>
where
    // Writable on values all the way: through a `Box` as on values, but a
    // path through an `Rc` or an `Arc` (at any step, not only the last
    // but one) has no `set` on values, and none on bytes; nor has a path
    // past a getter (`Type::kind`, an `optic!` getter).
    A: JsonTraverseThrough + TraverseMut,
    B: JsonWrite,
    A::Focus: ThroughMut<B::Source>,
{
    #[inline]
    fn slots_at<'a, F: FnMut(Slot<'a>) -> bool>(&self, at: Spot<'a>, each: &mut F) -> bool {
        let mut foci = self.first().foci_at(at);
        for found in foci.by_ref() {
            // Past a field the document leaves out, which serde fills in
            // with a default that may have foci (`FILLED_IN`; here, or a
            // step before: `passed_absent` below): the value has them, the
            // bytes no place for them. The write refuses rather than leave
            // them as they are, as a fold past it cannot answer.
            if matches!(found, Located::Absent) && A::FILLED_IN {
                return each(Slot::new(Place::Refused, found));
            }
            if let Located::At(inner) = found {
                // Past more flatten and internal-tag levels than a spot
                // holds, the foci further on are not found: the write
                // refuses rather than leave them as they are.
                if inner.hides_past_capacity() {
                    return each(Slot::new(Place::Refused, found));
                }
                let more = if A::WRITES_THROUGH {
                    self.second().slots_at(inner, each)
                } else {
                    // Past a field serde writes with a function: every slot
                    // refuses.
                    self.second().slots_at(inner, &mut |slot| {
                        each(Slot::new(Place::Refused, slot.focus))
                    })
                };
                if !more {
                    return false;
                }
            }
        }
        if foci.past_capacity() || foci.passed_absent() {
            return each(Slot::new(Place::Refused, Located::Miss));
        }
        true
    }

    #[inline]
    fn write<'a>(
        &self,
        value: &Self::Focus,
        slot: Slot<'a>,
        splice: &mut Splice<'a, '_>,
    ) -> Option<()> {
        self.second().write(value, slot, splice)
    }
}

/// The slot of a field laid out as `json` in its struct (or variant) at
/// `at`, written under `key`. `None` where the read finds no focus, or where
/// the focus does not lie in a form a write can splice faithfully: only a
/// member of an object (the struct's own, or the members serde hands an
/// internally tagged payload or a flattened field), an element of a tuple
/// struct's array and a whole plain value are written. A struct written as an
/// array, a struct variant written as `["Variant", ...fields]`, a field whose
/// key the spot hides (an appended member would not be read as the field)
/// and a flattened field's whole value are refused.
#[inline]
fn field_slot<'a>(at: Spot<'a>, json: FieldJson, key: &str) -> Option<Slot<'a>> {
    let focus = crate::json::locate::locate_field(at, json);
    let object = at.bytes();
    let place = match (json, at.form()) {
        // Written with its function: the place is the field's own.
        (FieldJson::With(inner), _) => {
            let slot = field_slot(at, *inner, key)?;
            return Some(Slot::new(slot.place, focus));
        }
        (FieldJson::Key { .. }, Form::Value { .. }) if object.first() == Some(&b'{') => match focus
        {
            Located::At(value) => Place::Member {
                object,
                value: value.bytes(),
            },
            Located::Absent => Place::Missing { object },
            Located::Miss => return None,
        },
        (FieldJson::Key { .. }, Form::Members { hidden, .. }) => {
            if hidden.hides(key) != Some(false) {
                return Slot::refused(focus);
            }
            match focus {
                Located::At(value) => Place::Member {
                    object,
                    value: value.bytes(),
                },
                Located::Absent => Place::Missing { object },
                Located::Miss => return None,
            }
        }
        (FieldJson::Inline, Form::Value { .. }) => Place::Value(object),
        (FieldJson::Element(_), Form::Value { .. }) => match focus {
            Located::At(value) => Place::Value(value.bytes()),
            Located::Absent | Located::Miss => return None,
        },
        _ => return Slot::refused(focus),
    };
    Some(Slot::new(place, focus))
}

/// Writes a field's value (with `write_field`, unless `skips`) at its slot;
/// `read_back` is [`FieldWrite::READ_BACK`].
#[inline]
fn write_field<'a>(
    slot: Slot<'a>,
    splice: &mut Splice<'a, '_>,
    key: &str,
    read_back: bool,
    skips: bool,
    write_field: impl FnOnce(&mut Vec<u8>) -> Result<(), serde_json::Error>,
) -> Option<()> {
    match slot.place {
        Place::Member { object, value } if skips => splice.remove_member(object, value),
        // A field serde does not read back under `key`: a member already
        // there under `key` would be written twice, so the write refuses.
        Place::Missing { object }
            if !read_back && scan::object_last(object, key) != scan::Lookup::Missing =>
        {
            None
        }
        Place::Missing { .. } if skips => Some(()),
        Place::Missing { object } => splice.append_member(object, key, write_field),
        Place::Member { value, .. } | Place::Value(value) => {
            write_field(splice.replace(value)?).ok()
        }
        Place::Unit | Place::Tagged { .. } | Place::Refused => None,
    }
}

/// Calls `each` with `slot`, if there is one: the slots of a single-focus optic.
#[inline]
fn at_most_one<'a, F: FnMut(Slot<'a>) -> bool>(slot: Option<Slot<'a>>, each: &mut F) -> bool {
    match slot {
        Some(slot) => each(slot),
        None => true,
    }
}

impl<S: FieldWrite<I>, const I: usize> JsonWrite for Field<S, I> {
    #[inline]
    fn slots_at<'a, F: FnMut(Slot<'a>) -> bool>(&self, at: Spot<'a>, each: &mut F) -> bool {
        at_most_one(field_slot(at, S::JSON, S::KEY), each)
    }

    #[inline]
    fn write<'a>(
        &self,
        value: &S::Type,
        slot: Slot<'a>,
        splice: &mut Splice<'a, '_>,
    ) -> Option<()> {
        write_field(slot, splice, S::KEY, S::READ_BACK, S::skips(value), |out| {
            S::write_field(value, out)
        })
    }
}

impl<S: VariantFieldWrite<I>, const I: usize> JsonWrite for VariantField<S, I> {
    #[inline]
    fn slots_at<'a, F: FnMut(Slot<'a>) -> bool>(&self, at: Spot<'a>, each: &mut F) -> bool {
        let slot = match locate_variant::<S>(at, S::VARIANT, VariantJson::Fields) {
            Located::At(payload) => field_slot(payload, S::JSON, S::KEY),
            Located::Absent | Located::Miss => None,
        };
        at_most_one(slot, each)
    }

    #[inline]
    fn write<'a>(
        &self,
        value: &S::Type,
        slot: Slot<'a>,
        splice: &mut Splice<'a, '_>,
    ) -> Option<()> {
        write_field(slot, splice, S::KEY, S::READ_BACK, S::skips(value), |out| {
            S::write_field(value, out)
        })
    }
}

impl<S: VariantOf<I>, const I: usize> JsonWrite for Variant<S, I>
where
    S::Payload: Serialize,
{
    #[inline]
    fn slots_at<'a, F: FnMut(Slot<'a>) -> bool>(&self, at: Spot<'a>, each: &mut F) -> bool {
        let focus = locate_variant::<S>(at, I, S::JSON);
        // Where serde writes the payload with a function, or the bytes have
        // no place for it, the focus refuses every write.
        let refused = Slot::new(Place::Refused, focus);
        let payload = match focus {
            Located::At(payload) => payload,
            // An adjacently tagged payload whose content is left out, which
            // serde reads as `None`: the value has the focus, the bytes no
            // place for it.
            Located::Absent => return each(refused),
            Located::Miss => return true,
        };
        if !S::WRITTEN_PLAIN {
            return each(refused);
        }
        let place = match (S::ENCODING, S::JSON, payload.form()) {
            (_, VariantJson::Unit, _) => Place::Unit,
            // The enum's own object is rewritten: only where it is one plain
            // object (not the members a flattened field is handed, nor
            // `["Variant", ...]`).
            (Encoding::Internal { .. }, _, Form::Members { .. }) => {
                match (at.form(), at.bytes().first()) {
                    (Form::Value { .. }, Some(b'{')) => {}
                    _ => return each(refused),
                }
                match Discriminant::<S>::new().locate_at(at) {
                    Located::At(tag) => Place::Tagged {
                        object: at.bytes(),
                        tag: tag.bytes(),
                    },
                    Located::Absent | Located::Miss => return each(refused),
                }
            }
            (Encoding::Internal { .. }, _, _) => return each(refused),
            (_, _, Form::Value { .. }) => Place::Value(payload.bytes()),
            (_, _, Form::Members { .. } | Form::Rest { .. } | Form::Opaque { .. }) => {
                return each(refused)
            }
        };
        each(Slot::new(place, focus))
    }

    #[inline]
    fn write<'a>(
        &self,
        value: &S::Payload,
        slot: Slot<'a>,
        splice: &mut Splice<'a, '_>,
    ) -> Option<()> {
        match slot.place {
            // `()` has one value, which is there already.
            Place::Unit => Some(()),
            Place::Tagged { object, tag } => {
                let Encoding::Internal { tag: key } = S::ENCODING else {
                    return None;
                };
                let out = splice.replace(object)?;
                write_tagged(out, key, tag, value)
            }
            Place::Value(bytes) => write_json(splice.replace(bytes)?, value).ok(),
            Place::Member { .. } | Place::Missing { .. } | Place::Refused => None,
        }
    }
}

/// An internally tagged newtype variant as serde writes it: `{"key":tag`,
/// then the payload's members, then `}`. The payload must write an object,
/// or a unit (which adds no member), as serde requires; a unit variant of
/// another enum adds one member, `"Variant":null`, as serde writes it there.
/// `None` where the payload writes `null` or a string but is neither: an
/// `Option`'s `None` above all, which serde refuses to write in this place
/// and whose tag alone (`{"key":tag}`) serde reads as `Some` of the payload
/// decoded from no members, not as `None`.
fn write_tagged<P: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    key: &str,
    tag: &[u8],
    payload: &P,
) -> Option<()> {
    out.push(b'{');
    write_json(out, key).ok()?;
    out.push(b':');
    out.extend_from_slice(tag);
    let start = out.len();
    write_json(out, payload).ok()?;
    let shape = || payload.serialize(payload_shape::Shape).ok();
    match out.get(start..)? {
        b"{}" => {}
        b"null" if shape() == Some(payload_shape::Written::Unit) => {}
        [b'{', ..] => {
            out[start] = b',';
            return Some(());
        }
        // A string: serde writes none in this place, but for a unit variant.
        [b'"', ..] => {
            let Some(payload_shape::Written::UnitVariant(variant)) = shape() else {
                return None;
            };
            out.truncate(start);
            out.push(b',');
            write_json(out, variant).ok()?;
            out.extend_from_slice(b":null}");
            return Some(());
        }
        _ => return None,
    }
    // No member beside the tag.
    out.truncate(start);
    out.push(b'}');
    Some(())
}

/// What an internally tagged payload that serde_json writes as `null` or a
/// string is to serde's internally tagged writer.
mod payload_shape {
    use serde::ser::{Error as _, Impossible, Serialize, Serializer};

    /// A payload serde writes as the tag alone, or as one member beside it.
    #[derive(Debug, PartialEq)]
    pub(super) enum Written {
        /// `()` or a unit struct: the tag alone.
        Unit,
        /// A unit variant of another enum: `"Variant":null` beside the tag.
        UnitVariant(&'static str),
    }

    /// A serializer that tells a unit and a unit variant (through any
    /// newtype structs around them), and refuses everything else: `None`
    /// and `Some` included, which serde's internally tagged writer
    /// refuses too.
    pub(super) struct Shape;

    type Refused = Impossible<Written, serde_json::Error>;

    fn refused() -> serde_json::Error {
        serde_json::Error::custom("neither a unit nor a unit variant")
    }

    /// Methods that refuse their value.
    macro_rules! refuse {
        ($($method:ident($($arg:ty),*) -> $ok:ty;)*) => {$(
            fn $method(self, $(_: $arg),*) -> Result<$ok, serde_json::Error> {
                Err(refused())
            }
        )*};
    }

    impl Serializer for Shape {
        type Ok = Written;
        type Error = serde_json::Error;
        type SerializeSeq = Refused;
        type SerializeTuple = Refused;
        type SerializeTupleStruct = Refused;
        type SerializeTupleVariant = Refused;
        type SerializeMap = Refused;
        type SerializeStruct = Refused;
        type SerializeStructVariant = Refused;

        fn serialize_unit(self) -> Result<Written, serde_json::Error> {
            Ok(Written::Unit)
        }

        fn serialize_unit_struct(self, _: &'static str) -> Result<Written, serde_json::Error> {
            Ok(Written::Unit)
        }

        fn serialize_unit_variant(
            self,
            _: &'static str,
            _: u32,
            variant: &'static str,
        ) -> Result<Written, serde_json::Error> {
            Ok(Written::UnitVariant(variant))
        }

        fn serialize_newtype_struct<T: ?Sized + Serialize>(
            self,
            _: &'static str,
            value: &T,
        ) -> Result<Written, serde_json::Error> {
            value.serialize(self)
        }

        fn serialize_some<T: ?Sized + Serialize>(
            self,
            _: &T,
        ) -> Result<Written, serde_json::Error> {
            Err(refused())
        }

        fn serialize_newtype_variant<T: ?Sized + Serialize>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<Written, serde_json::Error> {
            Err(refused())
        }

        refuse! {
            serialize_bool(bool) -> Written;
            serialize_i8(i8) -> Written;
            serialize_i16(i16) -> Written;
            serialize_i32(i32) -> Written;
            serialize_i64(i64) -> Written;
            serialize_i128(i128) -> Written;
            serialize_u8(u8) -> Written;
            serialize_u16(u16) -> Written;
            serialize_u32(u32) -> Written;
            serialize_u64(u64) -> Written;
            serialize_u128(u128) -> Written;
            serialize_f32(f32) -> Written;
            serialize_f64(f64) -> Written;
            serialize_char(char) -> Written;
            serialize_str(&str) -> Written;
            serialize_bytes(&[u8]) -> Written;
            serialize_none() -> Written;
            serialize_seq(Option<usize>) -> Refused;
            serialize_tuple(usize) -> Refused;
            serialize_tuple_struct(&'static str, usize) -> Refused;
            serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Refused;
            serialize_map(Option<usize>) -> Refused;
            serialize_struct(&'static str, usize) -> Refused;
            serialize_struct_variant(&'static str, u32, &'static str, usize) -> Refused;
        }
    }
}

/// [`JsonWrite`] for an optic whose focus, where it is found, is replaced as
/// a whole with its type's `Serialize`.
macro_rules! replaced_whole {
    ($(impl[$($gen:tt)*] $ty:ty where [$($bound:tt)*];)*) => {$(
        impl<$($gen)*> JsonWrite for $ty
        where
            $($bound)*
        {
            #[inline]
            fn slots_at<'a, F: FnMut(Slot<'a>) -> bool>(&self, at: Spot<'a>, each: &mut F) -> bool {
                value_slot(self.locate_at(at), each)
            }

            #[inline]
            fn write<'a>(
                &self,
                value: &Self::Focus,
                slot: Slot<'a>,
                splice: &mut Splice<'a, '_>,
            ) -> Option<()> {
                match slot.place {
                    Place::Value(bytes) => write_json(splice.replace(bytes)?, value).ok(),
                    _ => None,
                }
            }
        }
    )*};
}

/// Calls `each` with the slot of `focus`, if it is one plain value (not the
/// members serde hands an internally tagged payload or a flattened field, nor
/// the bytes of a field read `with` a function).
#[inline]
fn value_slot<'a, F: FnMut(Slot<'a>) -> bool>(focus: Located<'a>, each: &mut F) -> bool {
    match focus {
        Located::At(spot) if matches!(spot.form(), Form::Value { .. }) => {
            each(Slot::new(Place::Value(spot.bytes()), focus))
        }
        // Not one JSON value (the members serde hands a flattened field or
        // an internally tagged payload): the write refuses.
        Located::At(_) => each(Slot::new(Place::Refused, focus)),
        Located::Absent | Located::Miss => true,
    }
}

replaced_whole! {
    impl[C: ?Sized + Indexed] At<C> where [C::Element: Serialize];
    impl[M: Keyed<Q>, Q: ?Sized + JsonKey] Key<'_, M, Q> where [M::Value: Serialize];
    impl[T] Some_<T> where [T: Serialize];
}

impl<C: ?Sized + JsonElements> JsonWrite for Each<C>
where
    C::Element: Serialize,
{
    #[inline]
    fn slots_at<'a, F: FnMut(Slot<'a>) -> bool>(&self, at: Spot<'a>, each: &mut F) -> bool {
        self.foci_at(at).all(|found| value_slot(found, each))
    }

    #[inline]
    fn write<'a>(
        &self,
        value: &C::Element,
        slot: Slot<'a>,
        splice: &mut Splice<'a, '_>,
    ) -> Option<()> {
        match slot.place {
            Place::Value(bytes) => write_json(splice.replace(bytes)?, value).ok(),
            _ => None,
        }
    }
}

/// The one slot of a single-focus optic in `bytes`, if it has one.
#[inline]
fn only_slot<'a, O: JsonWrite>(optic: &O, bytes: &'a [u8]) -> Option<Slot<'a>> {
    let mut slot = None;
    optic.slots(bytes, &mut |found| {
        slot = Some(found);
        false
    });
    slot
}

impl<'a, T: ?Sized> Json<'a, T> {
    /// A new document with the focus of `optic` set to `value`: the bytes
    /// before the focus, `value` as serde writes it there (see the
    /// [module docs](crate::json::write) for each kind of step), and the
    /// bytes after, byte for byte. `None` where the focus is not there
    /// (another variant, an index past the end, malformed bytes) or serde
    /// refuses the value.
    ///
    /// Costs what [`Json::view`] costs, one copy of the document and the
    /// serialization of `value`: one allocation, for the new document, sized
    /// for the old one and 64 bytes more (a document that outgrows it grows
    /// as a `Vec` grows; [`Json::set_into`] reuses a buffer). A struct field
    /// missing from the bytes is appended to its object (see the module
    /// docs).
    ///
    /// ```
    /// use optics_core::prelude::*;
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Optics, Serialize, Deserialize)]
    /// #[serde(rename_all = "camelCase")]
    /// struct Issue { id: u64, reporter: Person }
    /// #[derive(Optics, Serialize, Deserialize)]
    /// #[serde(rename_all = "camelCase")]
    /// struct Person { name: String, #[serde(skip_serializing_if = "Option::is_none")] email_address: Option<String> }
    ///
    /// let bytes = br#"{"id": 7, "reporter": {"name": "ann"}}"#;
    /// let email = Issue::reporter.then(Person::email_address);
    /// let set = Json::<Issue>::new(bytes).set(email, &Some("a@b.c".to_owned())).unwrap();
    /// assert_eq!(set, br#"{"id": 7, "reporter": {"name": "ann","emailAddress":"a@b.c"}}"#);
    /// let name = Json::<Issue>::new(&set).set(Issue::reporter.then(Person::name), &"bo".to_owned());
    /// assert_eq!(name.unwrap(), br#"{"id": 7, "reporter": {"name": "bo","emailAddress":"a@b.c"}}"#);
    /// ```
    pub fn set<O>(self, optic: O, value: &O::Focus) -> Option<Vec<u8>>
    where
        O: JsonOptic + JsonWrite + StartsAt<T>,
    {
        let mut out = Vec::with_capacity(self.bytes().len() + 64);
        self.set_into(optic, value, &mut out).then_some(out)
    }

    /// [`Json::set`] into `out`, which is cleared first: a caller that keeps
    /// `out` from one message to the next allocates nothing once it has grown
    /// to the largest document. Returns whether the focus was written; where
    /// it was not, `out` is left empty.
    ///
    /// ```
    /// use optics_core::prelude::*;
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Optics, Serialize, Deserialize)]
    /// struct Person { name: String, email: String }
    ///
    /// let redacted = "redacted".to_owned();
    /// let mut out = Vec::new();
    /// for message in [&br#"{"name":"ann","email":"ann@corp.com"}"#[..], br#"{"name":"bo"}"#] {
    ///     if Json::<Person>::new(message).set_into(Person::email, &redacted, &mut out) {
    ///         assert!(out.ends_with(br#""email":"redacted"}"#));
    ///     }
    /// }
    /// ```
    pub fn set_into<O>(self, optic: O, value: &O::Focus, out: &mut Vec<u8>) -> bool
    where
        O: JsonOptic + JsonWrite + StartsAt<T>,
    {
        let written = match only_slot(&optic, self.bytes()) {
            Some(slot) => {
                let mut splice = Splice::new(self.bytes(), out);
                optic
                    .write(value, slot, &mut splice)
                    .and_then(|()| splice.finish())
                    .is_some()
            }
            None => false,
        };
        if !written {
            out.clear();
        }
        written
    }

    /// A new document with the focus of `optic` changed by `f`: only the
    /// focus is decoded (as [`Json::read`] decodes it; a missing field as
    /// serde fills it in), `f` runs once, and the result is written as
    /// [`Json::set`] writes it. `None` where the focus is not there or does
    /// not decode.
    ///
    /// ```
    /// use optics_core::prelude::*;
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Optics, Serialize, Deserialize)]
    /// struct Counter { name: String, hits: u32 }
    ///
    /// let bytes = br#"{"name":"a","hits":41}"#;
    /// let bumped = Json::<Counter>::new(bytes).modify(Counter::hits, |n| n + 1);
    /// assert_eq!(bumped.unwrap(), br#"{"name":"a","hits":42}"#);
    /// ```
    pub fn modify<O, F>(self, optic: O, f: F) -> Option<Vec<u8>>
    where
        O: JsonOptic + JsonDecode<'a> + JsonWrite + StartsAt<T>,
        F: FnOnce(O::Focus) -> O::Focus,
    {
        let slot = only_slot(&optic, self.bytes())?;
        // Decoded first: a focus that does not decode costs no buffer.
        let value = f(optic.decode_at(slot.located())?);
        let mut out = Vec::with_capacity(self.bytes().len() + 64);
        self.write_slot(&optic, slot, &value, &mut out)?;
        Some(out)
    }

    /// [`Json::modify`] into `out`, which is cleared first: a caller that
    /// keeps `out` from one message to the next allocates nothing for the
    /// document once it has grown (the focus's own `Deserialize` may still
    /// allocate). Returns whether the focus was written; where it was not,
    /// `out` is left empty.
    ///
    /// ```
    /// use optics_core::prelude::*;
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Optics, Serialize, Deserialize)]
    /// struct Counter { name: String, hits: u32 }
    ///
    /// let mut out = Vec::new();
    /// assert!(Json::<Counter>::new(br#"{"name":"a","hits":41}"#).modify_into(Counter::hits, |n| n + 1, &mut out));
    /// assert_eq!(out, br#"{"name":"a","hits":42}"#);
    /// assert!(!Json::<Counter>::new(br#"{"name":"a","hits":"x"}"#).modify_into(Counter::hits, |n| n + 1, &mut out));
    /// assert!(out.is_empty());
    /// ```
    pub fn modify_into<O, F>(self, optic: O, f: F, out: &mut Vec<u8>) -> bool
    where
        O: JsonOptic + JsonDecode<'a> + JsonWrite + StartsAt<T>,
        F: FnOnce(O::Focus) -> O::Focus,
    {
        let written = only_slot(&optic, self.bytes())
            .and_then(|slot| self.modify_slot(&optic, slot, f, out))
            .is_some();
        if !written {
            out.clear();
        }
        written
    }

    /// The focus at `slot` decoded, changed by `f` and written into `out`
    /// with the rest of the document.
    fn modify_slot<O, F>(self, optic: &O, slot: Slot<'a>, f: F, out: &mut Vec<u8>) -> Option<()>
    where
        O: JsonDecode<'a> + JsonWrite,
        F: FnOnce(O::Focus) -> O::Focus,
    {
        let value = f(optic.decode_at(slot.located())?);
        self.write_slot(optic, slot, &value, out)
    }

    /// `value` written at `slot` into `out` with the rest of the document.
    fn write_slot<O: JsonWrite>(
        self,
        optic: &O,
        slot: Slot<'a>,
        value: &O::Focus,
        out: &mut Vec<u8>,
    ) -> Option<()> {
        let mut splice = Splice::new(self.bytes(), out);
        optic.write(value, slot, &mut splice)?;
        splice.finish()
    }

    /// A new document with every focus of `optic` set to `value`: for a
    /// traversal, every element it reaches, each written as [`Json::set`]
    /// writes one. With no focus, the document is copied unchanged. `None`
    /// where serde refuses the value, or where a focus cannot be written
    /// where it lies (see the [module docs](crate::json::write)).
    ///
    /// Costs one walk of the foci, one copy of the document and a
    /// serialization of `value` per focus: one allocation, for the new
    /// document, sized as [`Json::set`] sizes it.
    ///
    /// ```
    /// use optics_core::prelude::*;
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Optics, Serialize, Deserialize)]
    /// struct Trace { frames: Vec<Frame> }
    /// #[derive(Optics, Serialize, Deserialize)]
    /// struct Frame { module: String, line: u32 }
    ///
    /// let bytes = br#"{"frames":[{"module":"auth","line":7},{"module":"http","line":9}]}"#;
    /// let lines = Trace::frames.then(each()).then(Frame::line);
    /// let zeroed = Json::<Trace>::new(bytes).set_all(lines, &0).unwrap();
    /// assert_eq!(zeroed, br#"{"frames":[{"module":"auth","line":0},{"module":"http","line":0}]}"#);
    /// ```
    pub fn set_all<O>(self, optic: O, value: &O::Focus) -> Option<Vec<u8>>
    where
        O: JsonWrite + StartsAt<T>,
    {
        let mut out = Vec::with_capacity(self.bytes().len() + 64);
        self.set_all_into(optic, value, &mut out).then_some(out)
    }

    /// [`Json::set_all`] into `out`, which is cleared first; allocates
    /// nothing once `out` has grown. Returns whether every focus was written;
    /// where not, `out` is left empty.
    pub fn set_all_into<O>(self, optic: O, value: &O::Focus, out: &mut Vec<u8>) -> bool
    where
        O: JsonWrite + StartsAt<T>,
    {
        let mut splice = Splice::new(self.bytes(), out);
        let mut written = true;
        optic.slots(self.bytes(), &mut |slot| {
            written = optic.write(value, slot, &mut splice).is_some();
            written
        });
        let written = written && splice.finish().is_some();
        if !written {
            out.clear();
        }
        written
    }

    /// A new document with every focus of `optic` changed by `f`: each is
    /// decoded from its own bytes, changed, and written back, in document
    /// order. `None` where a focus does not decode, serde refuses a value,
    /// or a focus cannot be written where it lies.
    ///
    /// ```
    /// use optics_core::prelude::*;
    /// use serde::{Deserialize, Serialize};
    ///
    /// #[derive(Optics, Serialize, Deserialize)]
    /// struct Trace { lines: Vec<u32> }
    ///
    /// let shifted = Json::<Trace>::new(br#"{"lines":[7, 9]}"#)
    ///     .modify_all(Trace::lines.then(each()), |line| line + 100);
    /// assert_eq!(shifted.unwrap(), br#"{"lines":[107, 109]}"#);
    /// ```
    pub fn modify_all<O, F>(self, optic: O, f: F) -> Option<Vec<u8>>
    where
        O: JsonTraverseDecode<'a> + JsonWrite + StartsAt<T>,
        F: FnMut(O::Focus) -> O::Focus,
    {
        let mut out = Vec::with_capacity(self.bytes().len() + 64);
        self.modify_all_into(optic, f, &mut out).then_some(out)
    }

    /// [`Json::modify_all`] into `out`, which is cleared first; allocates
    /// nothing for the document once `out` has grown (each focus's own
    /// `Deserialize` may still allocate). Returns whether every focus was
    /// written; where not, `out` is left empty.
    pub fn modify_all_into<O, F>(self, optic: O, mut f: F, out: &mut Vec<u8>) -> bool
    where
        O: JsonTraverseDecode<'a> + JsonWrite + StartsAt<T>,
        F: FnMut(O::Focus) -> O::Focus,
    {
        let mut splice = Splice::new(self.bytes(), out);
        let mut written = true;
        optic.slots(self.bytes(), &mut |slot| {
            written = match optic.decode_focus_at(slot.located()) {
                Some(old) => optic.write(&f(old), slot, &mut splice).is_some(),
                None => false,
            };
            written
        });
        let written = written && splice.finish().is_some();
        if !written {
            out.clear();
        }
        written
    }
}
