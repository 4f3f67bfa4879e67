//! Maps keyed by 128-bit integers: their keys stand in quotes, which
//! serde_json reads as numbers; the byte reads agree.

use std::collections::BTreeMap;

use optics_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Wide {
    by: BTreeMap<u128, u32>,
    neg: BTreeMap<i128, u32>,
}

#[test]
fn maps_keyed_by_128_bit_integers_read_as_serde_json_reads_them() {
    let doc = r#"{"by":{"0":1,"340282366920938463463374607431768211455":2,"18446744073709551616":3},"neg":{"-170141183460469231731687303715884105728":4,"-0":5,"7":6}}"#;
    let whole: Wide = serde_json::from_str(doc).unwrap();
    let json = Json::<Wide>::new(doc.as_bytes());
    assert_eq!(json.read(Wide::by).as_ref(), Some(&whole.by));
    assert_eq!(json.read(Wide::neg).as_ref(), Some(&whole.neg));
    let big = u128::MAX;
    assert_eq!(json.read(Wide::by.then(key(&big))), Some(2));
    let min = i128::MIN;
    assert_eq!(json.read(Wide::neg.then(key(&min))), Some(4));
    let zero = 0i128;
    assert_eq!(
        json.read(Wide::neg.then(key(&zero))),
        whole.neg.get(&0).copied()
    );
    let mut values: Vec<u32> = json.read_each(Wide::by.then(each())).flatten().collect();
    values.sort_unstable();
    assert_eq!(values, vec![1, 2, 3]);
}
