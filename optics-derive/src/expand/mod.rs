//! Code generation: named fragments, spliced into one output.
//!
//! `structs.rs` and `enums.rs` expand each kind of input, `kind.rs` the enum's
//! kind type and its `Tagged` impl, `decode.rs` how a field is found and
//! decoded in JSON, `write.rs` how it is written (from the serialize-side
//! attributes `ser_attr.rs` reads), `flatten.rs` the keys a type reads and the
//! compile-time checks of `#[serde(flatten)]`. Locals the output declares start with `__`, so that no
//! user item in scope (a `const found`, say) can be matched in their place.

mod decode;
mod enums;
mod flatten;
mod kind;
mod structs;
mod write;

use std::collections::HashSet;

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::{DeriveInput, Ident};

use crate::ast::{unraw, Data, Input};
use crate::ctxt::{to_compile_errors, Ctxt};
use crate::valid;

/// The derive: parse, validate, expand. The only place where errors become
/// `compile_error!`.
///
/// With errors, the optics are still generated (a clashing name once), so the
/// user sees the errors themselves rather than a cascade of missing items
/// wherever the optics are used.
pub fn derive(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    let model = Input::from_syn(&cx, input);
    valid::check(&cx, &model);
    let errors = cx.check().err().map(to_compile_errors);
    let expansion = match &model.data {
        // Generated code would only add errors about the field's size, or
        // the parameter's name.
        Data::Struct(..) if model.has_unsized_field() => TokenStream::new(),
        _ if !model.reserved_generics().is_empty() => TokenStream::new(),
        Data::Struct(style, fields) => structs::expand(&model, *style, fields),
        Data::Enum(variants) => enums::expand(&model, variants),
        Data::Union(_) => TokenStream::new(),
    };
    quote!(#errors #expansion)
}

/// What only the derive's output names: `optics_core::__private`.
fn private() -> TokenStream {
    quote!(::optics_core::__private)
}

/// The public module of the optic types the generated consts have.
fn optic_mod() -> TokenStream {
    quote!(::optics_core::optic)
}

/// The optics generated for one type: associated consts, spliced into one
/// inherent impl, and the trait impls behind them.
struct Optics {
    consts: Vec<TokenStream>,
    impls: Vec<TokenStream>,
    /// The consts' names so far: a name that clashes (reported by `valid`) is
    /// generated once, so the only error is the derive's own.
    named: HashSet<String>,
}

impl Optics {
    fn new() -> Self {
        Optics {
            consts: Vec::new(),
            impls: Vec::new(),
            named: HashSet::new(),
        }
    }

    /// Claims `name` for a const; `false` if an earlier optic has it.
    fn claim(&mut self, name: &Ident) -> bool {
        self.named.insert(name.to_string())
    }

    /// The inherent impl that holds the consts, and the trait impls.
    fn finish(self, input: &Input) -> (TokenStream, Vec<TokenStream>) {
        let ident = input.ident;
        let (impl_generics, ty_generics, where_clause) = input.original.generics.split_for_impl();
        let consts = self.consts;
        let inherent = quote! {
            #[automatically_derived]
            #[allow(deprecated)]
            impl #impl_generics #ident #ty_generics #where_clause {
                #(#consts)*
            }
        };
        (inherent, self.impls)
    }
}

/// `Type::optic`, the optic's name in messages and `Debug`.
fn optic_name(input: &Input, optic: &Ident) -> String {
    format!("{}::{}", input.ident, unraw(optic))
}

pub(crate) fn type_text(ty: &syn::Type) -> String {
    ty.to_token_stream()
        .to_string()
        .replace(" < ", "<")
        .replace(" >", ">")
        .replace(" ,", ",")
}

fn names_text(names: &[String]) -> String {
    names
        .iter()
        .map(|n| code_span(&format!("\"{n}\"")))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `text` as one Markdown code span, whatever backticks it holds (a JSON name
/// may have some): fenced by one backtick more than its longest run, and
/// spaced from the fence where it starts or ends with one. A plain fence
/// would end early, and rustdoc would read the rest as HTML or links.
fn code_span(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    if text.starts_with('`') || text.ends_with('`') {
        format!("{fence} {text} {fence}")
    } else {
        format!("{fence}{text}{fence}")
    }
}

#[cfg(test)]
mod tests {
    use super::{code_span, names_text};

    #[test]
    fn json_names_with_backticks_stay_one_code_span_each() {
        let names = ["a`<b>[c]".to_owned(), "plain".to_owned()];
        assert_eq!(names_text(&names), "``\"a`<b>[c]\"``, `\"plain\"`");
    }

    #[test]
    fn code_spans_hold_any_backticks() {
        assert_eq!(code_span("\"a\""), "`\"a\"`");
        assert_eq!(code_span("\"a`<b>[c]\""), "``\"a`<b>[c]\"``");
        assert_eq!(code_span("x``y`"), "``` x``y` ```");
        assert_eq!(code_span("`"), "`` ` ``");
    }
}
