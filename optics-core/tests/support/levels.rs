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
