// `#[optics(name)]` gives a prism the name of a variant: `Event::Closed`
// names the variant, never the prism.
use optics_core::Optics;

#[derive(Optics)]
enum Event {
    #[optics(name = "Closed")]
    Opened(u8),
    Closed,
}

fn main() {}
