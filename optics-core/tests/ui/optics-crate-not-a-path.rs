// `#[optics(crate = "...")]` whose value is not a path, or is not a string.
use optics_core::Optics;
use serde::Deserialize;

#[derive(Optics, Deserialize)]
#[optics(crate = "optics core")]
struct Spaced {
    level: u8,
}

#[derive(Optics, Deserialize)]
#[optics(crate = optics_core)]
struct Bare {
    level: u8,
}

#[derive(Optics, Deserialize)]
#[optics(crate)]
struct Empty {
    level: u8,
}

fn main() {}
