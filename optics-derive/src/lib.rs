//! `#[derive(Optics)]`: a lens for every struct field, a prism for every unit or
//! newtype enum variant and an optional for every field of another variant of a
//! serde model, as associated consts, reading values and JSON bytes.
//!
//! Use it through `optics_core::Optics`; the generated code names
//! `::optics_core` paths, or the path `#[optics(crate = "...")]` gives. The parse -> validate -> expand pipeline lives in one
//! module each; errors from every stage are collected and reported together,
//! each spanned on the user's code.

mod ast;
mod attr;
mod case;
mod ctxt;
mod expand;
mod ser_attr;
mod valid;

use proc_macro::TokenStream;
use syn::{parse_macro_input, DeriveInput};

/// Derives optics for a struct or enum. See `optics_core`'s documentation for
/// what is generated and which serde attributes are read.
#[proc_macro_derive(Optics, attributes(optics))]
pub fn derive_optics(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input).into()
}
