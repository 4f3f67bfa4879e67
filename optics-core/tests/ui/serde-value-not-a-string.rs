// serde attribute values that are not strings: serde's derive reports each,
// and the derive's own error says the same thing at the same place, so the
// compiler shows each once.
use optics_core::Optics;
use serde::Deserialize;

#[derive(Optics, Deserialize)]
struct Incident {
    #[serde(rename = 5)]
    severity: u8,
    #[serde(rename(serialize = "n", deserialize = 6))]
    note: u8,
    #[serde(alias = 7)]
    tags: u8,
    #[serde(default = 8)]
    count: u8,
    #[serde(deserialize_with = 9)]
    level: u8,
}

#[derive(Optics, Deserialize)]
#[serde(tag = 10)]
enum Detail {
    Failure { status: u16 },
}

fn main() {}
