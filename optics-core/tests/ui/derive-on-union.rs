// A union has no field that is known to be there, so it gets no optics.
use optics_core::Optics;

#[derive(Optics)]
union Bits {
    int: u32,
    float: f32,
}

fn main() {}
