// `#[optics(name = "...")]` with a string that is not one identifier: each is
// refused at the string, and nothing else is reported (a string with a
// comment or spaces was read as the identifier in it; `k#a` also made the
// compiler report an unknown prefix at the derive).
use optics_core::Optics;

#[derive(Optics)]
struct Incident {
    #[optics(name = "level // the severity")]
    severity: u8,
    #[optics(name = " note ")]
    note: u8,
    #[optics(name = "k#tags")]
    tags: u8,
    #[optics(name = "0x")]
    count: u8,
}

fn main() {}
