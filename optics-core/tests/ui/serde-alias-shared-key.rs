use optics_core::Optics;
use serde::Deserialize;

#[derive(Optics, Deserialize)]
struct Limits {
    /// serde gives `"max"` to `high`: `{"max":5}` is `high: 5, max: 0`.
    #[serde(alias = "max")]
    high: u8,
    #[serde(default)]
    max: u8,
}

fn main() {}
