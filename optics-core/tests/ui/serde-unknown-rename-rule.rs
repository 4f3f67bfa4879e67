// An unknown `rename_all` rule: serde's derive reports it, and the derive's
// own error says the same thing at the same place, so the compiler shows it
// once.
use optics_core::Optics;
use serde::Deserialize;

#[derive(Optics, Deserialize)]
#[serde(rename_all = "NOT_A_CASE")]
struct Incident {
    severity: u8,
}

#[derive(Optics, Deserialize)]
#[serde(tag = "type")]
enum Detail {
    #[serde(rename_all = "Title Case")]
    Failure { status_code: u16 },
}

fn main() {}
