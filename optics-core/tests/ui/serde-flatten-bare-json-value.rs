// serde_json's `Value` flattened, imported so that its name is bare: the
// derive cannot tell it from a struct of the model named `Value` by its
// spelling, and refuses it where the field's type must be read in place.
use optics_core::Optics;
use serde::Deserialize;
use serde_json::Value;

#[derive(Optics, Deserialize)]
struct Event {
    id: u64,
    #[serde(flatten)]
    extra: Value,
}

fn main() {}
