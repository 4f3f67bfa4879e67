// A lifetime named like the one the bounds of a flattened field declare
// (`for<'__x>`): refused at its name, rather than rustc's "shadows" error
// pointed at the derive.
use optics_core::Optics;
use serde::Deserialize;

#[derive(Optics, Deserialize)]
struct More {
    count: u32,
}

#[derive(Optics, Deserialize)]
struct Page<'__x> {
    title: &'__x str,
    #[serde(flatten)]
    more: More,
}

fn main() {}
