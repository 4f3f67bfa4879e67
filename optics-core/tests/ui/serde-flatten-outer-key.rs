use optics_core::Optics;
use serde::Deserialize;

#[derive(Optics, Deserialize)]
struct Envelope {
    r#type: String,
    #[serde(flatten)]
    detail: Detail,
}

#[derive(Optics, Deserialize)]
#[serde(tag = "type")]
enum Detail {
    Bug { module: String },
    Incident { severity: u8 },
}

fn main() {}
