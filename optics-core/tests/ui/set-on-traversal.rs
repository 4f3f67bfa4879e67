// `set` on a path through `each()`, which has many foci: it needs `set_all`.
use optics_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Optics, Serialize, Deserialize)]
struct Trace {
    frames: Vec<Frame>,
}

#[derive(Optics, Serialize, Deserialize)]
struct Frame {
    line: u32,
}

fn main() {
    let bytes = br#"{"frames":[{"line":1}]}"#;
    let lines = Trace::frames.then(each()).then(Frame::line);
    let _ = Json::<Trace>::new(bytes).set(lines, &0);
}
