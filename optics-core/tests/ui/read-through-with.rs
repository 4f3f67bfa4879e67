use optics_core::prelude::*;
use serde::{Deserialize, Deserializer};

#[derive(Optics, Deserialize)]
struct Numbers {
    /// Written as a string: `"1,2,3"`.
    #[serde(deserialize_with = "comma_separated")]
    list: Vec<u32>,
}

fn comma_separated<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u32>, D::Error> {
    let text = String::deserialize(d)?;
    text.split(',')
        .map(|n| n.parse().map_err(serde::de::Error::custom))
        .collect()
}

fn main() {
    let bytes = br#"{"list":"1,2,3"}"#;
    // The field itself reads; a path that goes on past it reads values only.
    let _ = Json::<Numbers>::new(bytes).read(Numbers::list);
    let _ = Json::<Numbers>::new(bytes).read(Numbers::list.then(at(1)));
}
