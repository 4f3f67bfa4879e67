// A byte write past a name from `optic!` that is a getter (here, because its
// path passes an `Rc`): a getter has no write, on values or on bytes, and
// neither has a path that goes on past it.
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

optic! {
    /// The inner part, read through the shared leaf.
    getter INNER: Node => Inner = Node::shared.then(Leaf::inner);
}

fn main() {
    let bytes = br#"{"shared":{"inner":{"x":1}}}"#;
    let _ = Json::<Node>::new(bytes).set(INNER.then(Inner::x), &5);
}
