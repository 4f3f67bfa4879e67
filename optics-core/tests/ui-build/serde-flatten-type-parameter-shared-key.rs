use optics_core::json::Json;
use optics_core::Optics;
use serde::Deserialize;

// The derive cannot see which type `T` will be, so the check that a
// flattened field takes no key of the struct around it runs for each type
// `T` is given, where a byte optic through that instance is compiled: here
// `Clash`, whose key `a` the outer struct already reads.
#[derive(Optics, Deserialize)]
struct Page<T> {
    a: u8,
    #[serde(flatten)]
    rest: T,
}

#[derive(Optics, Deserialize)]
struct Clash {
    a: u8,
    b: u8,
}

fn main() {
    let json = Json::<Page<Clash>>::new(br#"{"a":1,"b":2}"#);
    let _ = json.view(Page::<Clash>::rest.then(Clash::b));
}
