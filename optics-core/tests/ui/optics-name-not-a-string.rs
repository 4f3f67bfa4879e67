// `#[optics(name = ...)]` takes a string literal, not a number.
use optics_core::Optics;

#[derive(Optics)]
struct Incident {
    #[optics(name = 5)]
    severity: u8,
}

fn main() {}
