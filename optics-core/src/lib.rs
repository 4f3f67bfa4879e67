//! Typed optics over serde models, that read Rust values and JSON bytes alike.
//!
//! `#[derive(Optics)]` gives every struct field a lens and every unit or newtype
//! enum variant a prism (every field of another variant an optional), as
//! associated consts named after them. Compose them with `then`; the
//! compiler checks every step against the model. The same optic reads a value
//! ([`Preview::preview`], [`Get::get`], [`PreviewMut::set`], [`Review::review`])
//! and the value's JSON bytes in place ([`Json::view`], [`Json::read`]): it finds
//! the focus in the bytes, skips everything else, copies nothing and decodes only
//! the leaf. It writes them too ([`Json::set`]): the bytes before the focus,
//! the new focus as serde writes it, the bytes after. [`each`] focuses every
//! element of a list or map: a traversal ([`Traverse::iter`],
//! [`TraverseMut::set_all`]; [`Json::iter`], [`Json::set_all`] on bytes).
//!
//! `use optics_core::prelude::*;` brings the derive, the optics, their
//! traits and [`Json`] (see [`prelude`]); strict mode's [`json::Strict`]
//! and [`json::Duplicates`], [`json::ReadError`] and [`json::Entered`] are
//! imported from [`json`]. The optic types themselves live in
//! [`optic`](mod@optic), the byte reading in [`json`] (its scanner in
//! [`json::scan`]).
//!
//! ```
//! use optics_core::prelude::*;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
//! #[serde(tag = "type")]
//! enum Detail { Incident(Incident), Bug(Bug) }
//!
//! #[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
//! #[serde(rename_all = "camelCase")]
//! struct Incident { severity: u8, started_at: u64 }
//!
//! #[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
//! struct Bug { module: String }
//!
//! let started = Detail::incident.then(Incident::started_at);
//!
//! let mut detail = Detail::Incident(Incident { severity: 1, started_at: 1700 });
//! assert_eq!(started.preview(&detail), Some(&1700));
//! started.set(&mut detail, 1800);
//! assert_eq!(Incident::severity.get(&Incident { severity: 2, started_at: 0 }), &2);
//!
//! let bytes = serde_json::to_vec(&detail).unwrap();
//! assert_eq!(Json::<Detail>::new(&bytes).read(started), Some(1800));
//! assert_eq!(Json::<Detail>::new(br#"{"type":"Bug","module":"auth"}"#).read(started), None);
//! ```
//!
//! # What the derive generates
//!
//! | on                                   | generates                                                   | kind     |
//! |--------------------------------------|-------------------------------------------------------------|----------|
//! | a named field `impact`               | `Type::impact`, with the field's visibility                 | lens     |
//! | a tuple-struct field `0`             | `Type::_0`                                                  | lens     |
//! | a unit variant `Closed`              | `Type::closed`, focusing `()`                               | prism    |
//! | a newtype variant `Incident(I)`      | `Type::incident`, focusing the `I`                          | prism    |
//! | a field `width` of `Rect { .. }`     | `Type::rect_width` (and `Type::rect_0` for tuple variants)  | optional |
//! | every enum                           | `Type::kind`, and the fieldless enum `TypeKind`             | getter   |
//!
//! A struct variant (even with one field), or a tuple variant with several
//! fields, gets no prism: no single value holds its payload, so a prism's
//! `review` would have nothing to build it from. Each of its fields gets an
//! optional instead, which misses on the other variants. Wrap the fields in a
//! struct (a newtype variant) to get a prism.
//!
//! A variant's optic is named in snake_case, as a raw identifier where that
//! name is a keyword in any edition: a variant `Type` gets `Type::r#type`,
//! and `Gen` gets `r#gen`, whatever the edition of the crate that derives
//! (`gen` is reserved from 2024 on).
//!
//! ```edition2024
//! use optics_core::prelude::*;
//!
//! #[derive(Optics, serde::Deserialize)]
//! enum Step { Gen(u32), Type(u32) }
//!
//! assert_eq!(Json::<Step>::new(br#"{"Gen":4}"#).read(Step::r#gen), Some(4));
//! assert_eq!(Json::<Step>::new(br#"{"Type":5}"#).read(Step::r#type), Some(5));
//! ```
//!
//! Every generated optic is a zero-sized associated const with a doc comment.
//! `#[optics(name = "...")]` renames one, `#[optics(skip)]` leaves one out, and
//! `#[optics(kind = "...", kind_type = "...")]` on an enum renames the getter
//! and its enum: the derive cannot see the module's other items, so where
//! one is already named `TypeKind`, rustc says the name is defined twice
//! (E0428) and `kind_type` gives the enum another. Generics, lifetimes and
//! where-clauses on the type are kept.
//!
//! The generated code names this crate `::optics_core`. Where a crate knows
//! it by another path (renamed in `Cargo.toml`, or re-exported by a facade
//! crate), `#[optics(crate = "path")]` on the type gives that path, as
//! `#[serde(crate = "...")]` does for serde:
//!
//! ```
//! mod facade {
//!     pub mod optics {
//!         pub use optics_core::*;
//!     }
//! }
//!
//! #[derive(facade::optics::Optics, serde::Deserialize)]
//! #[optics(crate = "crate::facade::optics")]
//! struct Ticket {
//!     id: u64,
//! }
//!
//! fn main() {
//!     let json = facade::optics::json::Json::<Ticket>::new(br#"{"id":7}"#);
//!     assert_eq!(json.read(Ticket::id), Some(7));
//! }
//! ```
//!
//! A known limit: every field's type must be as visible as the model. The
//! traits behind the optics are public and name each field's type, so a
//! `pub` model with a private field of a private (or `pub(crate)`) type is
//! rustc's E0446 at the derive, where serde's derive alone compiles it.
//! Make the field's type `pub`, make the model as private as it, or leave
//! that field's optic out with `#[optics(skip)]`.
//!
//! ```compile_fail,E0446
//! mod model {
//!     #[derive(optics_core::Optics)]
//!     pub struct Account {
//!         secret: Secret,
//!     }
//!
//!     struct Secret;
//! }
//! ```
//!
//! # Serde attributes
//!
//! The derive reads serde's attributes, so a byte optic finds exactly what
//! serde_json decodes. The table says, per attribute, what the derive does and
//! which test shows it.
#![doc = include_str!("../SERDE_ATTRIBUTES.md")]
#![warn(missing_docs)]
// All `unsafe` lives in `json::simd`, the one module allowed it.
#![deny(unsafe_code)]

extern crate self as optics_core;

pub mod json;
pub mod optic;
pub mod prelude;
mod reader;
// The unit property tests' case counts, multiplied by `PROPTEST_SCALE` as
// the integration suites' are.
#[cfg(test)]
#[path = "../tests/support/scale.rs"]
mod scale;

pub use json::Json;
pub use optic::{
    at, each, key, some, Get, GetMut, Lens, Optional, Preview, PreviewMut, Prism, Review,
    Traversal, Traverse, TraverseMut,
};
pub use optics_derive::Optics;
pub use reader::Reader;

/// Items only the derive's output names. Not part of the public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::json::empty_default::{EmptyDefault, NotKnownEmpty};
    pub use crate::json::field_decode::{
        borrow_cow_bytes, borrow_cow_str, decode_absent, decode_at, decode_with, decode_with_at,
        ContentDe, FieldDecode, FieldThrough, VariantFieldDecode, VariantFieldThrough,
    };
    pub use crate::json::field_write::{write_json, write_with, FieldWrite, VariantFieldWrite};
    pub use crate::json::layout::{
        check_flatten, flattened, Encoding, FieldJson, Flatten, Flattened, JsonKeys, KeySet,
        VariantJson, VariantTags,
    };
    pub use crate::json::{Located, Spot};
    pub use crate::optic::field::FieldOf;
    pub use crate::optic::variant::{Tagged, VariantFieldOf, VariantOf};
    pub use core::option::Option;
    pub use serde;
    pub use serde_json;

    /// A `&mut ()` for the payload of a unit variant. `Box::new(())` does not
    /// allocate: a zero-sized box is never given memory.
    #[inline]
    pub fn unit_mut() -> &'static mut () {
        Box::leak(Box::new(()))
    }
}
