use std::rc::Rc;

use optics_core::prelude::*;

#[derive(Optics)]
struct Node {
    value: u32,
    shared: Rc<Leaf>,
}

#[derive(Optics)]
struct Leaf {
    weight: u32,
}

fn main() {
    let mut node = Node {
        value: 1,
        shared: Rc::new(Leaf { weight: 2 }),
    };
    // Reading through an `Rc` is fine; writing would clone or fail when shared.
    let _ = Node::shared.then(Leaf::weight).get(&node);
    Node::shared.then(Leaf::weight).set(&mut node, 4);
}
