// A serde attribute whose string is not a path: serde's derive reports it,
// and the derive's own error says the same thing at the same place, so the
// compiler shows it once.
use optics_core::Optics;
use serde::Deserialize;

#[derive(Optics, Deserialize)]
struct Incident {
    #[serde(default = "not a path")]
    severity: u8,
    #[serde(deserialize_with = "")]
    note: u8,
    #[serde(with = "a b")]
    tags: u8,
}

fn main() {}
