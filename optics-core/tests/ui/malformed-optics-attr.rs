// A misspelled key in `#[optics(...)]`.
use optics_core::Optics;

#[derive(Optics)]
struct Incident {
    #[optics(nmae = "level")]
    severity: u8,
}

fn main() {}
