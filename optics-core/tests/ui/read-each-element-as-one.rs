// `read` of `each()` itself, as if it were one focus: it needs `read_each`
// (the element type does implement `Deserialize`).
use optics_core::prelude::*;
use serde::Deserialize;

#[derive(Optics, Deserialize)]
struct Trace {
    frames: Vec<Frame>,
}

#[derive(Optics, Deserialize)]
struct Frame {
    line: u32,
}

fn main() {
    let bytes = br#"{"frames":[{"line":1}]}"#;
    let _ = Json::<Trace>::new(bytes).read(Trace::frames.then(each()));
}
