// A catch-all under flatten with #[optics(skip)], its type serde_json's
// `Value` imported bare: the derive knows a catch-all by its spelling only,
// so the message must say how to spell it.
use optics_core::Optics;
use serde::Deserialize;
use serde_json::Value;

#[derive(Optics, Deserialize)]
struct Event {
    id: u64,
    #[serde(flatten)]
    #[optics(skip)]
    extra: Value,
}

fn main() {}
