// Composing a lens that ends at `Impact` with one that starts at `Service`.
use optics_core::Optics;

#[derive(Optics)]
struct Incident {
    impact: Impact,
}

#[derive(Optics)]
struct Impact {
    users: u32,
}

#[derive(Optics)]
struct Service {
    tier: u8,
}

fn main() {
    let _ = Incident::impact.then(Service::tier);
}
