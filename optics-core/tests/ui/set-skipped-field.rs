// A byte write to a field serde never writes: refused when it compiles.
use optics_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Optics, Serialize, Deserialize)]
struct Session {
    user: String,
    #[serde(skip)]
    cache: Vec<u8>,
}

fn main() {
    let bytes = br#"{"user":"ann"}"#;
    let _ = Json::<Session>::new(bytes).set(Session::cache, &Vec::new());
}
