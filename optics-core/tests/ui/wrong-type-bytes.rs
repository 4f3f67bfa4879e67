// An optic from `Detail` pointed at the JSON of an `Issue`.
use optics_core::{Json, Optics};
use serde::Deserialize;

#[derive(Optics, Deserialize)]
struct Issue {
    detail: Detail,
}

#[derive(Optics, Deserialize)]
enum Detail {
    Incident(Incident),
}

#[derive(Optics, Deserialize)]
struct Incident {
    severity: u8,
}

fn main() {
    let b: &[u8] = br#"{"detail":{"Incident":{"severity":2}}}"#;
    let _ = Json::<Issue>::new(b).read(Detail::incident);
}
