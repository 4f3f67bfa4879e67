use std::collections::BTreeMap;

use optics_core::Optics;
use serde::Deserialize;

#[derive(Optics, Deserialize)]
struct Envelope {
    id: u32,
    #[serde(flatten)]
    body: Body,
}

#[derive(Optics, Deserialize)]
#[serde(tag = "type")]
enum Body {
    Fields(BTreeMap<String, u32>),
    Empty,
}

fn main() {}
