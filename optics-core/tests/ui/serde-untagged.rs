// An untagged enum: a variant can only be recognized by decoding it.
use optics_core::Optics;
use serde::Deserialize;

#[derive(Optics, Deserialize)]
#[serde(untagged)]
enum Reading {
    Count(u64),
    Label(String),
}

fn main() {}
