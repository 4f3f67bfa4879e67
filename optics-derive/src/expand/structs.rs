//! A struct's optics: one lens per field, `Type::field`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

use super::decode::{decode_impl, field_json, through_impl, Layout};
use super::flatten::{self, where_with};
use super::write::{field_written_plain, written_plain, Writes};
use super::{names_text, optic_mod, optic_name, private, type_text, Optics};
use crate::ast::{Field, Input, Style};

pub fn expand(input: &Input, style: Style, fields: &[Field]) -> TokenStream {
    let own_keys = flatten::own_keys(fields);
    let layout = Layout {
        style,
        transparent: input.attrs.transparent.is_some(),
        count: fields.len(),
        array_form: !flatten::reads_as_map(fields),
        own_keys: &own_keys,
    };
    // What a flattened field's layout needs: the keys of every flattened
    // type, and (for a type with parameters) the check itself.
    let flatten_bounds = flatten::flatten_bounds(input, fields);
    let flatten_checks = if flatten::is_generic(input) {
        flatten::checks(input, fields)
    } else {
        Vec::new()
    };
    let mut optics = Optics::new();
    let writes = Writes::of(input);
    // The position among the fields serde reads: a skipped field takes no
    // element of an array.
    let mut element = 0usize;
    let mut flattened_before: Vec<&syn::Type> = Vec::new();
    for (index, field) in fields.iter().enumerate() {
        let mut json = field_json(input, field, &layout, element, &flattened_before);
        let bounds: &[TokenStream] = if field.flattens() {
            if let Some(check) = flatten_checks.get(flattened_before.len()) {
                json = quote!({ #check; #json });
            }
            &flatten_bounds
        } else {
            &[]
        };
        if !field.attrs.skip_deserializing {
            element += 1;
            if field.flattens() {
                flattened_before.push(field.ty);
            }
        }
        if field.attrs.optic_skip || !optics.claim(&field.optic) {
            continue;
        }
        optics.consts.push(lens_const(input, index, field));
        optics
            .impls
            .push(field_of_impl(input, index, field, json, bounds));
        optics.impls.push(decode_impl(
            input,
            quote!(FieldDecode),
            index,
            field,
            Some(&input.attrs.default),
            bounds,
        ));
        optics.impls.extend(writes.field(input, index, field));
        optics
            .impls
            .extend(through_impl(input, quote!(FieldThrough), index, field));
    }
    let keys = flatten::struct_keys(input, style, fields);
    let check = flatten::check_items(input, fields);
    let (inherent, impls) = optics.finish(input);
    quote! {
        #inherent
        #(#impls)*
        #keys
        #check
    }
}

/// `Type::field`, the lens, documented and with the field's visibility.
fn lens_const(input: &Input, index: usize, field: &Field) -> TokenStream {
    let o = optic_mod(input);
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
fn field_of_impl(
    input: &Input,
    index: usize,
    field: &Field,
    json: TokenStream,
    bounds: &[TokenStream],
) -> TokenStream {
    let p = private(input);
    let ident = input.ident;
    let (impl_generics, ty_generics, _) = input.original.generics.split_for_impl();
    let where_clause = where_with(&input.original.generics, bounds);
    let ty = field.ty;
    let member = &field.member;
    let name = optic_name(input, &field.optic);
    let written_plain = written_plain(field_written_plain(input, field));
    let filled_in = super::decode::filled_in(input, field, Some(&input.attrs.default));
    quote! {
        #[automatically_derived]
        #[allow(deprecated)]
        impl #impl_generics #p::FieldOf<#index> for #ident #ty_generics #where_clause {
            type Type = #ty;
            const NAME: &'static str = #name;
            const JSON: #p::FieldJson = #json;
            #written_plain
            #filled_in
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
