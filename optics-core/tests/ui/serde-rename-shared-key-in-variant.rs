use optics_core::Optics;
use serde::Deserialize;

#[derive(Optics, Deserialize)]
#[serde(rename_all_fields = "camelCase")]
enum Event {
    Moved {
        /// Read from `"userId"`, which serde gives to this field only.
        user_id: u32,
        #[serde(rename = "userId", default)]
        id: u32,
    },
    Stopped,
}

fn main() {}
