use optics_core::Optics;
use serde::Deserialize;

/// An `Option` behind an alias, or any type that does not derive Optics.
type MaybePosition = Option<Position>;

#[derive(Optics, Deserialize)]
struct Place {
    id: u32,
    #[serde(flatten)]
    position: MaybePosition,
}

#[derive(Optics, Deserialize)]
struct Position {
    lat: f64,
    lon: f64,
}

fn main() {}
