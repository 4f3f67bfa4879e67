// `#[serde(with = "...")]` naming a module with generics written as in a
// type (`m<u8>`, not `m::<u8>`): serde's derive refuses it, as a path it
// cannot call; the derive reports the same error, once, and does not panic.
use optics_core::Optics;
use serde::{Deserialize, Serialize};

#[derive(Optics, Deserialize, Serialize)]
struct Incident {
    #[serde(with = "m<u8>")]
    severity: u8,
}

fn main() {}
