// `get` on a path through `each()`, which has many foci: it needs `iter`.
use optics_core::prelude::*;

#[derive(Optics)]
struct Trace {
    frames: Vec<Frame>,
}

#[derive(Optics)]
struct Frame {
    module: String,
}

fn main() {
    let trace = Trace { frames: Vec::new() };
    let _ = Trace::frames.then(each()).then(Frame::module).get(&trace);
}
