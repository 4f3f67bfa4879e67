//! What `#[serde(flatten)]` needs: the keys every type reads from the object
//! it is laid out in (its `JsonKeys` impl), whether it can be flattened
//! (`Flatten`), and the check, at compile time, that a struct's flattened
//! fields read only keys serde gives them.
//!
//! The `JsonKeys` and `Flatten` impls are generic in the traits' parameter
//! `__X`, and their bounds on other types (a flattened field's, a newtype
//! payload's) name it: a bound that named no parameter of the impl would be
//! checked where the impl is written, and a model whose enum has a map
//! payload, or is recursive, must still compile as long as it is not
//! flattened. The bounds are checked where the keys are used, which is where
//! a flattened field needs them. The lenses of flattened fields, which have no
//! such parameter, bound with `for<'__x>`, which defers the same way.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

use super::{core_at, private};
use crate::ast::{Field, Input, Style, Variant};

/// Whether the type has parameters: then its checks cannot be written as a
/// free `const _` and are made where the flattened field's layout is read.
pub fn is_generic(input: &Input) -> bool {
    !input.original.generics.params.is_empty()
}

/// The fields serde flattens.
pub fn flattened<'f, 'a>(fields: &'f [Field<'a>]) -> Vec<&'f Field<'a>> {
    fields.iter().filter(|field| field.flattens()).collect()
}

/// Whether serde reads the struct as a map, with a flattened field (a
/// struct, or a catch-all map the derive gives no optic): serde's own test.
/// Such a struct is not read from an array and takes none of its members
/// from an object it is flattened into.
pub fn reads_as_map(fields: &[Field]) -> bool {
    fields
        .iter()
        .any(|field| field.attrs.flatten && !field.attrs.skip_deserializing)
}

/// The keys the struct reads itself: the names and aliases of the fields
/// that are neither skipped nor flattened.
pub fn own_keys(fields: &[Field]) -> Vec<String> {
    fields
        .iter()
        .filter(|field| !field.attrs.flatten && !field.attrs.skip_deserializing)
        .flat_map(|field| field.json_names.iter().cloned())
        .collect()
}

/// `for<'__x> T: Flatten` for every flattened field's type: what the layout
/// of a flattened field reads.
pub fn flatten_bounds(input: &Input, fields: &[Field]) -> Vec<TokenStream> {
    let p = private(input);
    flattened(fields)
        .into_iter()
        .map(|field| {
            let ty = field.ty;
            quote!(for<'__x> #ty: #p::Flatten)
        })
        .collect()
}

/// The checks that each flattened field reads only keys serde gives it, one
/// expression (`()`) per flattened field, spanned on it. Each flattened type
/// is named where the field's type is written, so that a type that cannot be
/// flattened is reported there.
pub fn checks(input: &Input, fields: &[Field]) -> Vec<TokenStream> {
    let p = private(input);
    let outer = input.ident.to_string();
    let own = own_keys(fields);
    let flattened: Vec<TokenStream> = flattened(fields)
        .into_iter()
        .map(|field| {
            let ty = field.ty;
            let name = field.member.to_token_stream().to_string();
            let core = core_at(input, ty.span());
            quote_spanned!(ty.span()=> #core::__private::flattened::<#ty>(#name))
        })
        .collect();
    let fields = self::flattened(fields);
    (0..flattened.len())
        .map(|j| {
            let (earlier, this) = (&flattened[..j], &flattened[j]);
            // The path has the field's span, so that the call (whose span
            // is its first token's) points at the field.
            let span = fields[j]
                .original
                .ident
                .as_ref()
                .map_or_else(|| fields[j].ty.span(), syn::Ident::span);
            let core = core_at(input, span);
            quote_spanned! {span=>
                #core::__private::check_flatten(
                    #outer,
                    &#p::KeySet { keys: &[#(#own),*], nested: &[] },
                    &[#(#earlier),*],
                    &#this,
                )
            }
        })
        .collect()
}

/// The checks as items, for a struct without parameters; nothing otherwise
/// (the layout of each flattened field makes them then).
pub fn check_items(input: &Input, fields: &[Field]) -> TokenStream {
    if is_generic(input) {
        return TokenStream::new();
    }
    let checks = checks(input, fields);
    quote! {
        #(#[allow(deprecated)] const _: () = #checks;)*
    }
}

/// The struct's `JsonKeys` and, where serde can flatten it, `Flatten` impls.
pub fn struct_keys(input: &Input, style: Style, fields: &[Field]) -> TokenStream {
    let p = private(input);
    let transparent = input.attrs.transparent.is_some();
    let read: Vec<&Field> = fields
        .iter()
        .filter(|field| !field.attrs.skip_deserializing)
        .collect();
    // A newtype or a transparent struct reads as its one field does.
    let inner = match (style, read.as_slice()) {
        (Style::Tuple, [only]) if fields.len() == 1 || transparent => Some(only.ty),
        (Style::Named, [only]) if transparent => Some(only.ty),
        _ => None,
    };
    let (keys, takes, bounds, flattens) = match (style, inner) {
        // The bound names `__X`, as the others do, so that a payload that
        // leads back to this type (`struct Node(Box<NodeKind>)`, an enum
        // with a `Node` payload) is not a cycle checked where the impl is.
        (_, Some(ty)) => (
            quote!(<#ty as #p::JsonKeys<__X>>::KEYS),
            quote!(<#ty as #p::JsonKeys<__X>>::TAKES),
            vec![quote!(#ty: #p::Flatten<__X>)],
            true,
        ),
        (Style::Named, None) => {
            let own = own_keys(fields);
            let flat: Vec<&syn::Type> = flattened(fields).iter().map(|field| field.ty).collect();
            // A struct that flattens reads its members as a map and takes
            // none of them; one that does not takes its fields.
            let takes = if !reads_as_map(fields) {
                quote!(#p::KeySet { keys: &[#(#own),*], nested: &[] })
            } else {
                quote!(#p::KeySet::EMPTY)
            };
            (
                quote!(#p::KeySet {
                    keys: &[#(#own),*],
                    nested: &[#(<#flat as #p::JsonKeys<__X>>::KEYS),*],
                }),
                takes,
                flat.iter()
                    .map(|ty| quote!(#ty: #p::JsonKeys<__X>))
                    .collect(),
                true,
            )
        }
        (Style::Unit, None) => (
            quote!(#p::KeySet::EMPTY),
            quote!(#p::KeySet::EMPTY),
            Vec::new(),
            true,
        ),
        // A tuple struct reads an array: serde cannot flatten it.
        (Style::Tuple, None) => (
            quote!(#p::KeySet::EMPTY),
            quote!(#p::KeySet::EMPTY),
            Vec::new(),
            false,
        ),
    };
    keys_impls(input, &keys, &takes, &bounds, flattens)
}

/// The enum's `JsonKeys` and `Flatten` impls: the keys each encoding reads.
pub fn enum_keys(input: &Input, variants: &[Variant]) -> TokenStream {
    let p = private(input);
    let read: Vec<&Variant> = variants
        .iter()
        .filter(|v| !v.tag_names.is_empty())
        .collect();
    let (keys, takes, bounds) = match (&input.attrs.tag, &input.attrs.content) {
        // Flattened, an externally tagged enum takes the member named like
        // its variant.
        (None, _) => {
            let names: Vec<&String> = read.iter().flat_map(|v| &v.tag_names).collect();
            let set = quote!(#p::KeySet { keys: &[#(#names),*], nested: &[] });
            (set.clone(), set, Vec::new())
        }
        // Its tag, and what its payloads read beside the tag; it takes nothing
        // (serde lends it the members).
        (Some(tag), None) => {
            let tag = &tag.value;
            let mut own = vec![tag.clone()];
            let mut payloads = Vec::new();
            for variant in &read {
                match variant.style {
                    Style::Named => own.extend(own_keys(&variant.fields)),
                    Style::Tuple
                        if variant.fields.len() == 1
                            && !variant.fields[0].attrs.skip_deserializing =>
                    {
                        payloads.push(variant.fields[0].ty)
                    }
                    _ => {}
                }
            }
            (
                quote!(#p::KeySet {
                    keys: &[#(#own),*],
                    nested: &[#(<#payloads as #p::JsonKeys<__X>>::KEYS),*],
                }),
                quote!(#p::KeySet::EMPTY),
                payloads
                    .iter()
                    .map(|ty| quote!(#ty: #p::JsonKeys<__X>))
                    .collect(),
            )
        }
        (Some(tag), Some(content)) => {
            let (tag, content) = (&tag.value, &content.value);
            let set = quote!(#p::KeySet { keys: &[#tag, #content], nested: &[] });
            (set.clone(), set, Vec::new())
        }
    };
    keys_impls(input, &keys, &takes, &bounds, true)
}

fn keys_impls(
    input: &Input,
    keys: &TokenStream,
    takes: &TokenStream,
    bounds: &[TokenStream],
    flattens: bool,
) -> TokenStream {
    let p = private(input);
    let ident = input.ident;
    let mut generics = input.original.generics.clone();
    generics
        .params
        .push(syn::parse_quote!(__X: ?::core::marker::Sized));
    let (impl_generics, _, _) = generics.split_for_impl();
    let (_, ty_generics, _) = input.original.generics.split_for_impl();
    let where_clause = where_with(&input.original.generics, bounds);
    let flatten = flattens.then(|| {
        quote! {
            #[automatically_derived]
            #[allow(deprecated)]
            impl #impl_generics #p::Flatten<__X> for #ident #ty_generics #where_clause {}
        }
    });
    quote! {
        #[automatically_derived]
        #[allow(deprecated)]
        impl #impl_generics #p::JsonKeys<__X> for #ident #ty_generics #where_clause {
            const KEYS: #p::KeySet = #keys;
            const TAKES: #p::KeySet = #takes;
        }
        #flatten
    }
}

/// The type's where-clause with `bounds` added.
pub fn where_with(generics: &syn::Generics, bounds: &[TokenStream]) -> syn::WhereClause {
    let mut clause = generics
        .where_clause
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(where));
    for bound in bounds {
        clause.predicates.push(syn::parse_quote!(#bound));
    }
    clause
}
