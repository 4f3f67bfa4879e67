// A key in `#[optics(...)]` written as a path: the error names it.
use optics_core::Optics;

#[derive(Optics)]
struct Incident {
    #[optics(serde::name = "level")]
    severity: u8,
}

fn main() {}
