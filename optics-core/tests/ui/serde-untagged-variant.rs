// An untagged variant of a tagged enum: serde tries the tagged variants
// first, then decodes the untagged ones, so it is recognized only by decoding it.
use optics_core::Optics;
use serde::Deserialize;

#[derive(Optics, Deserialize)]
#[serde(tag = "type")]
enum Reading {
    Count { n: u64 },
    #[serde(untagged)]
    Label(String),
}

fn main() {}
