// Reading a field of a list element without choosing the element with `at(i)`.
use optics_core::Optics;

#[derive(Optics)]
struct Trace {
    frames: Vec<Frame>,
}

#[derive(Optics)]
struct Frame {
    module: String,
}

fn main() {
    let _ = Trace::frames.then(Frame::module);
}
