use std::collections::HashMap;

use optics_core::Optics;
use serde::Deserialize;

#[derive(Optics, Deserialize)]
struct Event {
    id: u32,
    #[serde(flatten)]
    extra: Option<HashMap<String, serde_json::Value>>,
}

fn main() {}
