use optics_core::json::Json;
use optics_core::{Optics, Reader};
use serde::Deserialize;

// The same generic struct as `serde-flatten-type-parameter-shared-key.rs`,
// given a type whose keys the outer struct does not read: it builds, and
// the byte read gives what serde gives.
#[derive(Optics, Deserialize)]
struct Page<T> {
    a: u8,
    #[serde(flatten)]
    rest: T,
}

#[derive(Optics, Deserialize, Debug, PartialEq)]
struct Own {
    b: u8,
}

fn main() {
    let doc = br#"{"a":1,"b":2}"#;
    let json = Json::<Page<Own>>::new(doc);
    let read = json.read(Page::<Own>::rest.then(Own::b));
    let decoded: Page<Own> = serde_json::from_slice(doc).unwrap();
    assert_eq!(read, Some(decoded.rest.b));
    assert_eq!(decoded.a, 1);
}
