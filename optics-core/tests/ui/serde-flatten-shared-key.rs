use optics_core::Optics;
use serde::Deserialize;

#[derive(Optics, Deserialize)]
struct Event {
    #[serde(flatten)]
    request: Request,
    #[serde(flatten)]
    response: Response,
}

#[derive(Optics, Deserialize)]
struct Request {
    id: u64,
    path: String,
}

#[derive(Optics, Deserialize)]
struct Response {
    #[serde(default)]
    id: u64,
    status: u16,
}

fn main() {}
