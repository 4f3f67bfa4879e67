// Two fields renamed to the same optic name.
use optics_core::Optics;

#[derive(Optics)]
struct Incident {
    #[optics(name = "level")]
    severity: u8,
    #[optics(name = "level")]
    priority: u8,
}

fn main() {}
