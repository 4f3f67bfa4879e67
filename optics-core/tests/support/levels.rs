//! Seven flatten levels on one object (`L0` down to `L7`): one more than
//! the byte reader follows (`SERDE_ATTRIBUTES.md`). For the tests of what
//! reads and writes do past them.

// Each test file that includes it uses what it needs.
#![allow(dead_code)]

use optics_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Optics, Serialize, Deserialize, Debug, PartialEq)]
pub struct L7 {
    pub z: u32,
    pub list: Vec<u32>,
}

/// One flatten level: `$outer` holds `$inner` flattened.
macro_rules! level {
    ($($outer:ident > $inner:ident),*) => {$(
        #[derive(Optics, Serialize, Deserialize, Debug, PartialEq)]
        pub struct $outer {
            #[serde(flatten)]
            pub n: $inner,
        }
    )*};
}

level!(
    L6 > L7,
    L5 > L6,
    L4 > L5,
    L3 > L4,
    L2 > L3,
    L1 > L2,
    L0 > L1
);

optic! {
    /// `L7`'s list, seven flatten levels down, by name: the name's foci come
    /// from one lookup of the whole path.
    pub lens LIST: L0 => Vec<u32> = L0::n
        .then(L1::n)
        .then(L2::n)
        .then(L3::n)
        .then(L4::n)
        .then(L5::n)
        .then(L6::n)
        .then(L7::list);
}

optic! {
    /// `L7` itself, by name: the focus past the levels a read follows.
    pub lens TO_L7: L0 => L7 = L0::n
        .then(L1::n)
        .then(L2::n)
        .then(L3::n)
        .then(L4::n)
        .then(L5::n)
        .then(L6::n);
}

optic! {
    /// `L7`'s list from `L1`: six levels, which a read follows from an
    /// `L1`, but not from inside an `L0` (`L0::n.then(LIST_FROM_L1)`).
    pub lens LIST_FROM_L1: L1 => Vec<u32> = L1::n
        .then(L2::n)
        .then(L3::n)
        .then(L4::n)
        .then(L5::n)
        .then(L6::n)
        .then(L7::list);
}

optic! {
    /// A name whose path goes through another name.
    pub lens LIST_THROUGH_NAME: L0 => Vec<u32> = L0::n.then(LIST_FROM_L1);
}
