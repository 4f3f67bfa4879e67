//! Helpers shared by the integration tests (`mod support;`); each test uses
//! some of them.
#![allow(dead_code)]

pub mod edit;
pub mod fidelity_model;
pub mod oracle;
pub mod probe;
pub mod rewrite;
pub mod scale;
pub mod scan_calls;
pub mod write_laws;

// Unused in the suites without properties, like the modules above.
#[allow(unused_imports)]
pub use scale::scaled;
