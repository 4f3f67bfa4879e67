// `#[optics(name)]` or `#[optics(skip)]` on the field of a newtype variant:
// the variant gets one prism, named and skipped on the variant, so these
// did nothing. They are refused, at the attribute.
use optics_core::Optics;

#[derive(Optics)]
enum Detail {
    Failure(#[optics(name = "status")] u16),
    Moved(#[optics(skip)] String),
}

fn main() {}
