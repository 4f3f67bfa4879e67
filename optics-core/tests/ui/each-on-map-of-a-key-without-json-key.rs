// `each()` on bytes over a map whose key type does not say how serde tells
// its keys apart (no `JsonKey`).
use std::collections::BTreeMap;

use optics_core::prelude::*;

#[derive(serde::Deserialize, PartialEq, Eq, PartialOrd, Ord)]
enum Shade {
    #[serde(alias = "dark")]
    Dark,
    Light,
}

#[derive(Optics, serde::Deserialize)]
struct Palette {
    by: BTreeMap<Shade, u8>,
}

fn main() {
    let bytes = br#"{"by":{"Dark":1}}"#;
    let _ = Json::<Palette>::new(bytes).iter(Palette::by.then(each()));
}
