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

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
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

/// The path the output names `optics_core` by: `::optics_core`, or the one
/// `#[optics(crate = "...")]` gives, spanned on its string (so that a path
/// that does not resolve is reported there).
fn core(input: &Input) -> TokenStream {
    match &input.attrs.crate_path {
        Some(path) => path.to_token_stream(),
        None => quote!(::optics_core),
    }
}

/// [`core`] with every token at `span`, so that an error in a call it
/// starts points where `span` does.
fn core_at(input: &Input, span: Span) -> TokenStream {
    match &input.attrs.crate_path {
        Some(path) => path
            .to_token_stream()
            .into_iter()
            .map(|mut token| {
                token.set_span(span);
                token
            })
            .collect(),
        None => quote_spanned!(span=> ::optics_core),
    }
}

/// What only the derive's output names: `optics_core::__private`.
fn private(input: &Input) -> TokenStream {
    let core = core(input);
    quote!(#core::__private)
}

/// The public module of the optic types the generated consts have.
fn optic_mod(input: &Input) -> TokenStream {
    let core = core(input);
    quote!(#core::optic)
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
    use super::{code_span, derive, names_text};

    /// The output of the derive on `model`, as text.
    fn expand(model: &str) -> String {
        let input: syn::DeriveInput = syn::parse_str(model).expect("the model parses");
        derive(&input).to_string()
    }

    #[test]
    fn crate_attribute_renames_every_path_to_the_core_crate() {
        // Every shape the expansion has a branch for: generic and not (the
        // flatten checks differ), borrowed, defaulted, skipped, flattened and
        // `with` fields, and every kind of variant, tagged and not.
        let models = [
            r#"#[optics(crate = "renamed::core")]
            struct S<'a, T> {
                #[serde(borrow)] c: Cow<'a, str>,
                #[serde(default)] d: u8,
                #[serde(default)] v: Vec<T>,
                #[serde(skip)] s: u8,
                #[serde(flatten)] f: Inner,
                #[serde(with = "m")] w: u8,
                g: T,
            }"#,
            r#"#[optics(crate = "renamed::core")]
            struct P { #[serde(flatten)] f: Inner, x: Vec<u8> }"#,
            r#"#[optics(crate = "renamed::core")]
            struct N(u8);"#,
            r#"#[optics(crate = "renamed::core")]
            struct T(u8, #[serde(default)] String);"#,
            r#"#[optics(crate = "renamed::core")]
            enum E { U, N(u8), S { a: u8, #[serde(default)] b: u8 }, T(u8, u8) }"#,
            r#"#[optics(crate = "renamed::core")]
            #[serde(tag = "t")]
            enum I { U, N(Inner), S { a: u8 } }"#,
            r#"#[optics(crate = "renamed::core")]
            #[serde(tag = "t", content = "c")]
            enum A<T> { U, N(T), S { a: u8 } }"#,
            r#"#[optics(crate = "renamed::core")]
            #[serde(transparent)]
            struct Tr<T> { t: T }"#,
            r#"#[optics(crate = "renamed::core")]
            struct M<T> {
                a: T,
                #[serde(flatten)] f: Inner,
                #[serde(flatten)] #[optics(skip)] rest: HashMap<String, serde_json::Value>,
            }"#,
            r#"#[optics(crate = "renamed::core")]
            struct V { a: u8, #[serde(flatten)] #[optics(skip)] rest: serde_json::Value }"#,
            r#"#[optics(crate = "renamed::core")] #[optics(kind = "K")]
            enum Kd { #[serde(other)] O, #[serde(rename = "x")] X(Box<u8>), #[serde(skip)] Sk }"#,
            r#"#[optics(crate = "renamed::core")]
            enum Ev<'a> { B { #[serde(borrow)] c: Cow<'a, str> }, S { #[serde(with = "m")] w: u8 } }"#,
            r#"#[optics(crate = "renamed::core")]
            #[serde(tag = "t")]
            enum Iv<T> { S { a: T, #[serde(default)] d: Option<u8> }, P(Payload<T>) }"#,
        ];
        for model in models {
            let out = expand(model);
            assert!(!out.contains("compile_error"), "{model}: {out}");
            assert!(
                out.contains("renamed :: core :: __private"),
                "{model}: {out}"
            );
            assert!(!out.contains("optics_core"), "{model}: {out}");
            // Without the attribute the same model names `::optics_core`.
            let plain = expand(&model.replace(r#"#[optics(crate = "renamed::core")]"#, ""));
            assert!(
                plain.contains(":: optics_core :: __private"),
                "{model}: {plain}"
            );
            assert!(!plain.contains("renamed"), "{model}: {plain}");
        }
    }

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
