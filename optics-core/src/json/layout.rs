//! How serde lays a derived type out in JSON, as `#[derive(Optics)]` writes it
//! down for the byte reader: where a field stands, how an enum is tagged. Named
//! only by the derive's output (through `optics_core::__private`).

/// Where a field's value stands in its struct's JSON, as serde reads it.
/// Written by `#[derive(Optics)]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldJson {
    /// A member of the object, under any of these keys (the name serde reads,
    /// then its aliases).
    Key(&'static [&'static str]),
    /// The struct's own bytes: a `flatten`ed field, the field of a
    /// `transparent` struct, or of a newtype struct.
    Inline,
    /// Element `i` of the array a tuple struct is written as.
    Element(usize),
    /// Never in the JSON (`skip`, `skip_deserializing`): always its default.
    Skipped,
}

/// How serde writes an enum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// `"Unit"` or `{"Variant": payload}` (serde's default).
    External,
    /// `{"tag": "Variant", ...payload's fields}` (`#[serde(tag = "...")]`).
    Internal {
        /// The tag's key.
        tag: &'static str,
    },
    /// `{"tag": "Variant", "content": payload}` (`tag` + `content`).
    Adjacent {
        /// The tag's key.
        tag: &'static str,
        /// The payload's key.
        content: &'static str,
    },
}

/// The names under which serde recognizes one variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VariantTags {
    /// The name serde reads, then its aliases. Empty for a variant serde never
    /// reads (`skip`, `skip_deserializing`).
    pub names: &'static [&'static str],
    /// `#[serde(other)]`: the variant any unknown tag decodes as.
    pub other: bool,
}

/// How a variant's payload is laid out in JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VariantJson {
    /// No payload: the variant is its tag alone.
    Unit,
    /// One value.
    Newtype,
    /// Several values: an array (tuple variant) or an object (struct variant).
    Fields,
}
