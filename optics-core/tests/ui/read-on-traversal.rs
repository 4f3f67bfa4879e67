// `read` on a path through `each()`, which has many foci: it needs `read_each`.
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
    let lines = Trace::frames.then(each()).then(Frame::line);
    let _ = Json::<Trace>::new(bytes).read(lines);
}
