// `get` on a path through a variant, which may miss: it needs `preview`.
use optics_core::{Get, Optics};

#[derive(Optics)]
enum Detail {
    Incident(Incident),
    Bug(Bug),
}

#[derive(Optics)]
struct Incident {
    severity: u8,
}

#[derive(Optics)]
struct Bug {
    module: String,
}

fn main() {
    let d = Detail::Incident(Incident { severity: 2 });
    let _ = Detail::incident.then(Incident::severity).get(&d);
}
