// `#[optics(crate = "...")]` naming a path that does not lead to the crate:
// one error, at the path.
use optics_core::Optics;
use serde::Deserialize;

#[derive(Optics, Deserialize)]
#[optics(crate = "nowhere::optics")]
enum Level {
    Low,
    High(u8),
}

fn main() {}
