use optics_core::Optics;
use serde::{Deserialize, Deserializer};

#[derive(Optics, Deserialize)]
struct Event {
    id: u32,
    #[serde(flatten, deserialize_with = "lenient")]
    extra: Extra,
}

#[derive(Optics, Deserialize, Default)]
struct Extra {
    note: String,
}

fn lenient<'de, D: Deserializer<'de>>(d: D) -> Result<Extra, D::Error> {
    Ok(Extra::deserialize(d).unwrap_or_default())
}

fn main() {}
