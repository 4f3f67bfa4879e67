// Const parameters named like the type parameters the derive's impls
// declare: type and const parameters share one namespace, so each is refused
// at its name, alone (rustc's "already used" error pointed at the derive).
use optics_core::Optics;
use serde::Deserialize;

#[derive(Optics, Deserialize)]
struct Window<const __X: usize> {
    width: u32,
}

#[derive(Optics, Deserialize)]
enum Shape<const __R: usize, const __K: usize> {
    Circle(u32),
}

fn main() {}
