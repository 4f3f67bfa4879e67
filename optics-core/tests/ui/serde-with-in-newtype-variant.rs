use optics_core::Optics;
use serde::{Deserialize, Deserializer};

#[derive(Optics, Deserialize)]
enum Reading {
    /// serde decodes the payload with `plus_one`; the prism would read `u32`'s
    /// own JSON.
    Level(#[serde(deserialize_with = "plus_one")] u32),
    Off,
}

fn plus_one<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    Ok(u32::deserialize(d)? + 1)
}

fn main() {}
