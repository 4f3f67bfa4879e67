// A byte write on a path that passes an `Rc` two steps before its focus:
// refused as when the `Rc` is one step before it, and as on values.
use std::rc::Rc;

use optics_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Optics, Serialize, Deserialize)]
struct Node {
    shared: Rc<Leaf>,
}

#[derive(Optics, Serialize, Deserialize)]
struct Leaf {
    inner: Inner,
}

#[derive(Optics, Serialize, Deserialize)]
struct Inner {
    x: u32,
}

fn main() {
    let bytes = br#"{"shared":{"inner":{"x":1}}}"#;
    let x = Node::shared.then(Leaf::inner).then(Inner::x);
    let _ = Json::<Node>::new(bytes).set(x, &5);
}
