// `with = "module"` on a model that only reads: serde's `Deserialize` calls
// `module::deserialize` alone, but the derive's byte writes call
// `module::serialize` too. `deserialize_with = "module::deserialize"` reads
// the same and asks for nothing more.
use optics_core::Optics;
use serde::Deserialize;

mod plus_one {
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        Ok(<u32 as serde::Deserialize>::deserialize(d)? + 1)
    }
}

#[derive(Optics, Deserialize)]
struct Counter {
    #[serde(with = "plus_one")]
    hits: u32,
}

fn main() {}
