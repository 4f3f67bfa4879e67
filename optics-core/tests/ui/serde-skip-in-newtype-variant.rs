use optics_core::Optics;
use serde::Deserialize;

#[derive(Optics, Deserialize)]
enum Slot {
    /// serde reads `"Empty"`, a unit variant, and fills in `0`.
    Empty(#[serde(skip)] u8),
    Full(u8),
}

fn main() {}
