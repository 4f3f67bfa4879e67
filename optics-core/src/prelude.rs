//! Everything a user of `#[derive(Optics)]` writes, in one import:
//!
//! ```
//! use optics_core::prelude::*;
//!
//! #[derive(Optics, serde::Deserialize)]
//! struct Service { tier: u8, regions: Vec<String> }
//!
//! let first_region = Service::regions.then(at(0));
//! let service = Service { tier: 1, regions: vec!["eu-west".into()] };
//! assert_eq!(Service::tier.get(&service), &1);
//! assert_eq!(first_region.preview(&service).map(String::as_str), Some("eu-west"));
//! assert_eq!(Json::<Service>::new(br#"{"tier":2,"regions":[]}"#).read(Service::tier), Some(2));
//! ```
//!
//! It holds the derive [`Optics`], the byte view [`Json`], the reader
//! capability [`Reader`], the traits that give each kind of optic its
//! operations ([`Get`], [`GetMut`], [`Preview`], [`PreviewMut`], [`Review`]) and
//! name the kinds ([`Lens`], [`Prism`], [`Optional`]), the traversal
//! traits ([`Traverse`], [`TraverseMut`], [`Traversal`]), the generic optics
//! [`at`], [`key`], [`some`] and [`each`], and [`optic!`] (with the
//! [`optic`](mod@crate::optic) module, which shares its name).

pub use crate::json::Json;
pub use crate::optic;
pub use crate::optic::{
    at, each, key, some, Get, GetMut, Lens, Optional, Preview, PreviewMut, Prism, Review,
    Traversal, Traverse, TraverseMut,
};
pub use crate::reader::Reader;
pub use optics_derive::Optics;
