//! Models written by `macro_rules!`, whose attribute values are the macro's
//! fragments (`$name:literal`, `$name:expr`): the derive reads them as it
//! reads the strings written out, as serde's derive does, and the optics read
//! what serde_json decodes.

mod support;

use optics_core::prelude::*;
use serde::Deserialize;
use support::oracle::agree;

macro_rules! renamed_struct {
    ($model:ident, $optic:literal, $key:literal) => {
        #[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
        struct $model {
            #[optics(name = $optic)]
            #[serde(rename = $key)]
            value: u8,
        }
    };
}

macro_rules! renamed_struct_expr {
    ($model:ident, $optic:expr, $key:expr) => {
        #[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
        struct $model {
            #[optics(name = $optic)]
            #[serde(rename = $key)]
            value: u8,
        }
    };
}

macro_rules! tagged_enum {
    ($model:ident, $kind:expr, $kind_type:literal, $variant:expr) => {
        #[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
        #[optics(kind = $kind, kind_type = $kind_type)]
        enum $model {
            #[optics(name = $variant)]
            First(u8),
            Second,
        }
    };
}

renamed_struct!(FromLiteral, "level", "Level");
renamed_struct_expr!(FromExpr, "grade", "Grade");
tagged_enum!(Tagged, "which", "TaggedWhich", "one");

#[test]
fn attribute_values_from_macro_fragments_are_read() {
    assert_eq!(agree(r#"{"Level":3}"#, FromLiteral::level), Some(3));
    assert_eq!(agree(r#"{"Grade":4}"#, FromExpr::grade), Some(4));
    assert_eq!(agree(r#"{"First":5}"#, Tagged::one), Some(5));
    assert_eq!(
        agree(r#""Second""#, Tagged::which),
        Some(TaggedWhich::Second)
    );
}
