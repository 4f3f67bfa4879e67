// `each()` on a field that is no collection.
use optics_core::prelude::*;

#[derive(Optics)]
struct Order {
    name: String,
}

fn main() {
    let _ = Order::name.then(each());
}
