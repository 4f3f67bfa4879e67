// A key given twice in `#[optics(...)]`, in one attribute or in two: the
// derive must say so rather than keep the last value silently.
use optics_core::Optics;

#[derive(Optics)]
struct Incident {
    #[optics(name = "level", name = "grade")]
    severity: u8,
    #[optics(skip)]
    #[optics(skip)]
    note: u8,
}

#[derive(Optics)]
#[optics(kind = "which")]
#[optics(kind = "variant")]
enum Status {
    Up,
    Down,
}

fn main() {}
