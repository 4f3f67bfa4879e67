use optics_core::Optics;
use serde::{Deserialize, Deserializer};

#[derive(Optics, Deserialize)]
enum Reading {
    #[serde(deserialize_with = "plus_one")]
    Level(u32),
    Off,
}

fn plus_one<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    Ok(u32::deserialize(d)? + 1)
}

fn main() {}
