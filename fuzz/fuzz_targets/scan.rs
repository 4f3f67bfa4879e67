//! The scanner on any bytes: no panic, and wherever serde_json reads the bytes
//! as an object, every key is found with the value serde_json keeps.
#![no_main]

use libfuzzer_sys::fuzz_target;
use optics_core::json::scan::{self, Lookup};
use serde_json::{Map, Value};

fuzz_target!(|data: &[u8]| {
    let strict = scan::validate(data).is_ok();
    let _ = scan::skip_value(data, 0);
    let _ = scan::array_element(data, 1);
    let _ = scan::first_member(data);
    let _ = scan::object_field(data, &["a"]);
    if let Ok(map) = serde_json::from_slice::<Map<String, Value>>(data) {
        assert!(strict, "serde_json accepts what strict mode rejects");
        for (key, value) in &map {
            match scan::object_last(data, key) {
                Lookup::Found(bytes) => {
                    let found: Value = serde_json::from_slice(bytes).expect("a found value parses");
                    assert_eq!(&found, value);
                }
                other => panic!("{key:?}: {other:?}"),
            }
            // The first match may differ from serde_json's last for duplicate keys;
            // it must still be a value of that key.
            assert!(matches!(scan::object_field(data, &[key]), Lookup::Found(_)));
        }
    }
});
