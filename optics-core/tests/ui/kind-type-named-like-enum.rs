// `#[optics(kind_type = "...")]` naming the enum itself: the kind enum would
// be a second item of that name. One error, at the name, not rustc's cascade.
use optics_core::Optics;
use serde::Deserialize;

#[derive(Optics, Deserialize)]
#[optics(kind_type = "Status")]
enum Status {
    Up(u8),
    Down,
}

fn main() {}
