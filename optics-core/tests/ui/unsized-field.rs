// A struct whose last field is unsized: serde's `Serialize` derive accepts
// it, but a lens cannot focus an unsized value. The derive refuses it at the
// field's type, alone (no errors from generated code).
use optics_core::Optics;
use serde::Serialize;

#[derive(Optics, Serialize)]
struct Packet {
    kind: u8,
    payload: [u8],
}

#[derive(Optics, Serialize)]
struct Label(u8, str);

fn main() {}
