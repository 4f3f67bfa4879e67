//! `#[derive(Generate)]` for the triage demo's model: a struct is generated
//! field by field, in declaration order; an enum by choosing one of its
//! variants uniformly, then generating its payload. Only the leaves
//! (`String`, numbers, ...) have hand-written generators, in
//! `triage::generate`, so a field added to the model needs no generator
//! change.
//!
//! Supported shapes are what the model uses: structs with named or unnamed
//! fields, unit structs, and enums whose variants are units or have fields.
//! A union is refused with a spanned error.

use proc_macro::TokenStream;
use proc_macro2::TokenStream as TokenStream2;
use quote::quote;
use syn::{parse_macro_input, Data, DeriveInput, Fields};

/// Derives `triage::generate::Generate`.
#[proc_macro_derive(Generate)]
pub fn derive_generate(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

fn expand(input: &DeriveInput) -> syn::Result<TokenStream2> {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let body =
        match &input.data {
            Data::Struct(data) => construct(quote!(#ident), &data.fields),
            Data::Enum(data) if data.variants.is_empty() => {
                return Err(syn::Error::new_spanned(
                    ident,
                    "#[derive(Generate)] needs at least one variant to choose from",
                ))
            }
            Data::Enum(data) => {
                let count = data.variants.len();
                let arms = data.variants.iter().enumerate().map(|(i, variant)| {
                    let name = &variant.ident;
                    let value = construct(quote!(#ident::#name), &variant.fields);
                    if i + 1 == count {
                        quote!(_ => #value,)
                    } else {
                        quote!(#i => #value,)
                    }
                });
                quote! {
                    match __g.below(#count) {
                        #(#arms)*
                    }
                }
            }
            Data::Union(data) => return Err(syn::Error::new_spanned(
                data.union_token,
                "#[derive(Generate)] does not support unions: which field to fill is not knowable",
            )),
        };
    Ok(quote! {
        #[automatically_derived]
        impl #impl_generics ::triage::generate::Generate for #ident #ty_generics #where_clause {
            fn generate(__g: &mut ::triage::generate::Gen) -> Self {
                #body
            }
        }
    })
}

/// `path { a: generate(g), .. }`, `path(generate(g), ..)` or `path`, the
/// fields generated in declaration order.
fn construct(path: TokenStream2, fields: &Fields) -> TokenStream2 {
    let value = quote!(::triage::generate::Generate::generate(__g));
    match fields {
        Fields::Named(named) => {
            let names = named.named.iter().map(|f| &f.ident);
            quote!(#path { #(#names: #value,)* })
        }
        Fields::Unnamed(unnamed) => {
            let values = unnamed.unnamed.iter().map(|_| &value);
            quote!(#path(#(#values,)*))
        }
        Fields::Unit => path,
    }
}
