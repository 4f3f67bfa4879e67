use optics_core::Optics;
use serde::Deserialize;

#[derive(Optics, Deserialize)]
struct Place {
    id: u32,
    #[serde(flatten)]
    position: Option<Position>,
}

#[derive(Optics, Deserialize)]
struct Position {
    lat: f64,
    lon: f64,
}

fn main() {}
