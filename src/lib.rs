#![warn(missing_docs)]
//! The triage demo: a filter between two services that stream gRPC-framed JSON
//! issues over TCP. It classifies every message from three values read in the
//! bytes through optics and forwards the kept ones byte for byte, never
//! decoding a message. The same policy judges fully decoded issues as the
//! baseline.

pub mod cli;
pub mod filter;
pub mod frames;
pub mod generate;
pub mod grpc;
pub mod judge;
// The model's fields and enum variants are named for what they hold; each
// type's doc says what it is.
#[allow(missing_docs)]
pub mod model;
pub mod net;
pub mod policy;
pub mod proxy;
pub mod report;

/// The README's examples, compiled and run as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
