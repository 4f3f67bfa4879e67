// A variant `Kind` would get a prism `kind`, the name of the discriminant getter.
use optics_core::Optics;

#[derive(Optics)]
enum Label {
    Kind(String),
    Team(String),
}

fn main() {}
