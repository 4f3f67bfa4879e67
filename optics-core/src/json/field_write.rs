//! Writing a derived field as serde's derive writes it: under the key serde
//! writes, with its `serialize_with`, left out where `skip_serializing_if`
//! says so. Named only by the derive's output (through
//! `optics_core::__private`).

use serde::Serialize;

use crate::optic::{FieldOf, VariantFieldOf};

/// How one field is written: implemented by `#[derive(Optics)]` for every
/// field serde both reads and writes. Not for fields that are `skip`ped (or
/// `skip_serializing`, `skip_deserializing`), `flatten`ed (whose members
/// stand among the outer struct's), of a type with `#[serde(into)]`, or whose
/// type is not `Serialize` (without a `serialize_with`).
#[diagnostic::on_unimplemented(
    message = "field number {I} of `{Self}` cannot be written into JSON bytes",
    note = "serde must both read and write the field: not `skip`, `skip_serializing` or `skip_deserializing`, not `flatten`, not in a type with `#[serde(into)]`, and its type `Serialize` (or given a `serialize_with`)"
)]
pub trait FieldWrite<const I: usize>: FieldOf<I> {
    /// The key serde writes the field under (its serialize name); empty for
    /// a field that is not an object member (tuple, newtype, transparent).
    const KEY: &'static str;
    /// Whether serde reads the field under [`KEY`](Self::KEY) (its name or
    /// one of its aliases). Not so for a field renamed for writing only
    /// (`rename(serialize = "..")`) to a name it is not read under: a member
    /// added under that key would not read back, so a write where the
    /// member is missing refuses.
    const READ_BACK: bool = true;
    /// Writes the field's value as serde's derive writes it.
    fn write_field(value: &Self::Type, out: &mut Vec<u8>) -> Result<(), serde_json::Error>;
    /// Whether serde leaves the member out for this value
    /// (`skip_serializing_if`).
    #[inline]
    fn skips(value: &Self::Type) -> bool {
        let _ = value;
        false
    }
}

/// How one field of a struct-like variant is written: [`FieldWrite`] for
/// variant fields.
#[diagnostic::on_unimplemented(
    message = "field number {I} of `{Self}`'s variants cannot be written into JSON bytes",
    note = "serde must both read and write the field: not `skip`, `skip_serializing` or `skip_deserializing`, and its type `Serialize` (or given a `serialize_with`)"
)]
pub trait VariantFieldWrite<const I: usize>: VariantFieldOf<I> {
    /// The key serde writes the field under; empty for a tuple variant's.
    const KEY: &'static str;
    /// Whether serde reads the field under `KEY`: [`FieldWrite::READ_BACK`].
    const READ_BACK: bool = true;
    /// Writes the field's value as serde's derive writes it.
    fn write_field(value: &Self::Type, out: &mut Vec<u8>) -> Result<(), serde_json::Error>;
    /// Whether serde leaves the member out for this value.
    #[inline]
    fn skips(value: &Self::Type) -> bool {
        let _ = value;
        false
    }
}

/// Writes `value` with its own `Serialize`, as serde_json does: what a field
/// without `serialize_with` is written with. Allocates nothing once `out` has
/// room.
#[inline]
pub fn write_json<T: ?Sized + Serialize>(
    out: &mut Vec<u8>,
    value: &T,
) -> Result<(), serde_json::Error> {
    serde_json::to_writer(out, value)
}

/// Writes a value with a `serialize_with` function (called as serde's
/// derive calls it, `with(value, serializer)`).
#[inline]
pub fn write_with(
    out: &mut Vec<u8>,
    with: impl FnOnce(&mut serde_json::Serializer<&mut Vec<u8>>) -> Result<(), serde_json::Error>,
) -> Result<(), serde_json::Error> {
    with(&mut serde_json::Serializer::new(out))
}
