#![warn(missing_docs)]
//! The triage demo: a filter between two services that stream gRPC-framed JSON
//! issues over TCP. It classifies every message from three values read in the
//! bytes through optics and forwards the kept ones byte for byte, never
//! decoding a message. The same policy judges fully decoded issues as the
//! baseline.

extern crate self as triage;

pub mod args;
pub mod checked;
pub mod cpu;
pub mod downstream;
pub mod exit;
pub mod filter;
pub mod frames;
#[doc(hidden)]
pub mod fuzzing;
pub mod generate;
pub mod grpc;
pub mod judge;
pub mod malloc;
// The model's fields and enum variants are named for what they hold; each
// type's doc says what it is.
#[allow(missing_docs)]
pub mod model;
pub mod net;
pub mod policy;
pub mod pool;
pub mod proxy;
pub mod redact;
pub mod report;
pub mod roles;
pub mod shutdown;
pub mod tally;
pub mod timeouts;

/// The README's examples, compiled and run as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
