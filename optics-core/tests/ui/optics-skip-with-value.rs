// `#[optics(skip)]` takes no value; written with one, the error must say so.
use optics_core::Optics;

#[derive(Optics)]
struct Incident {
    #[optics(skip = true)]
    severity: u8,
    #[optics(skip(always))]
    note: u8,
}

fn main() {}
