//! Helpers shared by the integration tests (`mod support;`); each test uses
//! some of them.
#![allow(dead_code)]

pub mod edit;
pub mod oracle;
pub mod scan_calls;
pub mod write_laws;
