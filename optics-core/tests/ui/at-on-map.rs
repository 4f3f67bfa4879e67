// `at(i)` on a map, which has no positions: it needs `key(&k)`.
use optics_core::prelude::*;
use std::collections::HashMap;

#[derive(Optics)]
struct Order {
    counters: HashMap<String, u32>,
}

fn main() {
    let _ = Order::counters.then(at(0));
}
