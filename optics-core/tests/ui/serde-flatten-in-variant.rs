use optics_core::Optics;
use serde::Deserialize;

#[derive(Optics, Deserialize)]
enum Change {
    Moved {
        to: String,
        #[serde(flatten)]
        by: Author,
    },
}

#[derive(Optics, Deserialize)]
struct Author {
    name: String,
}

fn main() {}
