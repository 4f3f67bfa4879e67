// `#[serde(from = "...")]`: the JSON is another type's, decoded then converted.
use optics_core::Optics;
use serde::Deserialize;

#[derive(Deserialize)]
struct RawIncident {
    severity: u8,
}

#[derive(Optics, Deserialize)]
#[serde(from = "RawIncident")]
struct Incident {
    severity: u8,
}

impl From<RawIncident> for Incident {
    fn from(raw: RawIncident) -> Self {
        Incident {
            severity: raw.severity,
        }
    }
}

fn main() {}
