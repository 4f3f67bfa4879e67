//! A struct's optics: one lens per field, `Type::field`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

use super::decode::{decode_impl, field_json};
use super::write::Writes;
use super::{names_text, optic_mod, optic_name, private, type_text, Optics};
use crate::ast::{Field, Input, Style};

pub fn expand(input: &Input, style: Style, fields: &[Field]) -> TokenStream {
    let transparent = input.attrs.transparent.is_some();
    let mut optics = Optics::new();
    let writes = Writes::of(input);
    // The position among the fields serde reads: a skipped field takes no
    // element of a tuple struct's array.
    let mut element = 0usize;
    for (index, field) in fields.iter().enumerate() {
        let json = field_json(field, style, transparent, element, fields.len());
        if !field.attrs.skip_deserializing {
            element += 1;
        }
        if field.attrs.optic_skip || !optics.claim(&field.optic) {
            continue;
        }
        optics.consts.push(lens_const(input, index, field));
        optics.impls.push(field_of_impl(input, index, field, json));
        optics.impls.push(decode_impl(
            input,
            quote!(FieldDecode),
            index,
            field,
            Some(&input.attrs.default),
        ));
        optics.impls.extend(writes.field(input, index, field));
    }
    let (inherent, impls) = optics.finish(input);
    quote! {
        #inherent
        #(#impls)*
    }
}

/// `Type::field`, the lens, documented and with the field's visibility.
fn lens_const(input: &Input, index: usize, field: &Field) -> TokenStream {
    let o = optic_mod();
    let ident = input.ident;
    let optic = &field.optic;
    let vis = &field.original.vis;
    let where_json = if field.json_names.is_empty() {
        String::new()
    } else {
        format!(" In JSON: {}.", names_text(&field.json_names))
    };
    let doc = format!(
        "Lens from `{ident}` to its field `{}`: `{}`.{where_json} Zero-sized; reads \
         values and JSON bytes.",
        field.member.to_token_stream(),
        type_text(field.ty),
    );
    quote_spanned! {field.original.span()=>
        #[doc = #doc]
        #[allow(non_upper_case_globals, dead_code)]
        #vis const #optic: #o::Field<Self, #index> = #o::Field::new();
    }
}

/// The `FieldOf` impl the lens reads through.
fn field_of_impl(input: &Input, index: usize, field: &Field, json: TokenStream) -> TokenStream {
    let p = private();
    let ident = input.ident;
    let (impl_generics, ty_generics, where_clause) = input.original.generics.split_for_impl();
    let ty = field.ty;
    let member = &field.member;
    let name = optic_name(input, &field.optic);
    quote! {
        #[automatically_derived]
        impl #impl_generics #p::FieldOf<#index> for #ident #ty_generics #where_clause {
            type Type = #ty;
            const NAME: &'static str = #name;
            const JSON: #p::FieldJson = #json;
            #[inline]
            fn field(&self) -> &#ty {
                &self.#member
            }
            #[inline]
            fn field_mut(&mut self) -> &mut #ty {
                &mut self.#member
            }
        }
    }
}
