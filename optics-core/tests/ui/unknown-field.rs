// A lens named after a field the struct does not have (a typo of `impact`).
use optics_core::{Get, Optics};

#[derive(Optics)]
struct Incident {
    impact: u8,
    severity: u8,
}

fn main() {
    let incident = Incident {
        impact: 3,
        severity: 1,
    };
    let _ = Incident::impcat.get(&incident);
}
