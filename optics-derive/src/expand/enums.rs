//! An enum's optics: a prism per variant with one payload (`Type::variant`),
//! an optional per field of the others (`Type::variant_field`), and the kind
//! getter (see `kind.rs`).

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

use super::decode::{decode_impl, field_json, through_impl, Layout};
use super::flatten::enum_keys;
use super::kind::{kind_enum, kind_getter, tagged_impl};
use super::write::{field_written_plain, written_plain, Writes};
use super::{names_text, optic_mod, optic_name, private, type_text, Optics};
use crate::ast::{Field, Input, Style, Variant};

pub fn expand(input: &Input, variants: &[Variant]) -> TokenStream {
    let mut optics = Optics::new();
    optics.claim(&input.kind_const());
    optics.consts.push(kind_getter(input));
    // `VariantField` numbers count the fields of every variant without a prism.
    let mut first_field = 0usize;
    for (index, variant) in variants.iter().enumerate() {
        if variant.has_prism() {
            prism(input, index, variant, &mut optics);
        } else {
            variant_fields(input, index, variant, first_field, &mut optics);
            first_field += variant.fields.len();
        }
    }
    let kind_enum = kind_enum(input, variants);
    let tagged = tagged_impl(input, variants);
    let keys = enum_keys(input, variants);
    let (inherent, impls) = optics.finish(input);
    quote! {
        #kind_enum

        #inherent

        #tagged

        #(#impls)*

        #keys
    }
}

/// The prism on variant number `index`, a unit or newtype variant, and its
/// `VariantOf` impl.
fn prism(input: &Input, index: usize, variant: &Variant, optics: &mut Optics) {
    if variant.attrs.optic_skip || !optics.claim(&variant.optic) {
        return;
    }
    let o = optic_mod(input);
    let ident = input.ident;
    let vis = input.vis;
    let optic = &variant.optic;
    let doc = format!(
        "Prism from `{ident}` to its variant `{}`{}. In JSON: tag {}. Zero-sized; \
         reads values and JSON bytes.",
        variant.ident,
        if variant.style == Style::Unit {
            String::new()
        } else {
            format!("'s payload, `{}`", type_text(variant.fields[0].ty))
        },
        if variant.tag_names.is_empty() {
            "none (serde skips it)".to_owned()
        } else {
            names_text(&variant.tag_names)
        },
    );
    optics.consts.push(quote_spanned! {variant.original.span()=>
        #[doc = #doc]
        #[allow(non_upper_case_globals, dead_code)]
        #vis const #optic: #o::Variant<Self, #index> = #o::Variant::new();
    });
    optics.impls.push(variant_of_impl(input, index, variant));
}

/// What a prism's `VariantOf` impl says about its variant's payload: its
/// type, its JSON layout, the match arms that reach it, and the expression
/// that builds the variant from `__payload`.
struct Payload {
    ty: TokenStream,
    json: TokenStream,
    /// Arm to `Option<&Payload>`.
    preview: TokenStream,
    /// Arm that calls the continuation `__k` on `&Payload`.
    preview_then: TokenStream,
    /// Arm to `Option<&mut Payload>`.
    preview_mut: TokenStream,
    /// The parameter of `from_payload`.
    review_arg: TokenStream,
    review: TokenStream,
}

impl Payload {
    /// A unit variant focuses `()`; a newtype variant, its one field.
    fn of(input: &Input, variant: &Variant) -> Self {
        let p = private(input);
        let v = variant.ident;
        match variant.style {
            Style::Unit => Payload {
                ty: quote!(()),
                json: quote!(#p::VariantJson::Unit),
                preview: quote!(Self::#v => #p::Option::Some(&())),
                preview_then: quote!(Self::#v => __k(&())),
                preview_mut: quote!(Self::#v => #p::Option::Some(#p::unit_mut())),
                review_arg: quote!(_),
                review: quote!(Self::#v),
            },
            _ => {
                let ty = variant.fields[0].ty;
                Payload {
                    ty: quote!(#ty),
                    json: quote!(#p::VariantJson::Newtype),
                    preview: quote!(Self::#v(__payload) => #p::Option::Some(__payload)),
                    preview_then: quote!(Self::#v(__payload) => __k(__payload)),
                    preview_mut: quote!(Self::#v(__payload) => #p::Option::Some(__payload)),
                    review_arg: quote!(__payload),
                    review: quote!(Self::#v(__payload)),
                }
            }
        }
    }
}

fn variant_of_impl(input: &Input, index: usize, variant: &Variant) -> TokenStream {
    let p = private(input);
    let ident = input.ident;
    let (impl_generics, ty_generics, where_clause) = input.original.generics.split_for_impl();
    let name = optic_name(input, &variant.optic);
    let Payload {
        ty,
        json,
        preview,
        preview_then,
        preview_mut,
        review_arg,
        review,
    } = Payload::of(input, variant);
    // serde writes the payload otherwise than its own `Serialize` does: a
    // byte write through the prism would not write what serde writes.
    let plain_payload = written_plain(
        !crate::ser_attr::container(&input.original.attrs).into
            && !crate::ser_attr::variant(&variant.original.attrs).written_otherwise
            && variant
                .fields
                .first()
                .is_none_or(|field| field_written_plain(input, field)),
    );
    quote! {
        #[automatically_derived]
        #[allow(deprecated)]
        impl #impl_generics #p::VariantOf<#index> for #ident #ty_generics #where_clause {
            type Payload = #ty;
            const NAME: &'static str = #name;
            const JSON: #p::VariantJson = #json;
            #plain_payload
            #[inline]
            fn payload(&self) -> #p::Option<&#ty> {
                #[allow(unreachable_patterns)]
                match self {
                    #preview,
                    _ => #p::Option::None,
                }
            }
            #[inline]
            fn payload_then<'__s, __R, __K>(&'__s self, __k: __K) -> #p::Option<__R>
            where
                __K: ::core::ops::FnOnce(&'__s #ty) -> #p::Option<__R>,
            {
                #[allow(unreachable_patterns)]
                match self {
                    #preview_then,
                    _ => #p::Option::None,
                }
            }
            #[inline]
            fn payload_mut(&mut self) -> #p::Option<&mut #ty> {
                #[allow(unreachable_patterns)]
                match self {
                    #preview_mut,
                    _ => #p::Option::None,
                }
            }
            #[inline]
            fn from_payload(#review_arg: #ty) -> Self {
                #review
            }
        }
    }
}

/// The optionals on the fields of variant number `index`, which has several
/// (or named) fields and so no prism; its fields are `VariantField` numbers
/// `first_field..`.
fn variant_fields(
    input: &Input,
    index: usize,
    variant: &Variant,
    first_field: usize,
    optics: &mut Optics,
) {
    // serde reads a struct variant from an array too, except as the content
    // of an adjacently tagged enum. (Flattening in a variant is refused.)
    let layout = Layout {
        style: variant.style,
        transparent: false,
        count: variant.fields.len().max(2),
        array_form: !(input.attrs.tag.is_some() && input.attrs.content.is_some()),
        own_keys: &[],
    };
    // The position among the fields serde reads: a skipped field takes no
    // element of an array.
    let mut element = 0usize;
    let writes = Writes::of(input);
    for (number, field) in (first_field..).zip(&variant.fields) {
        let position = element;
        if !field.attrs.skip_deserializing {
            element += 1;
        }
        if field.attrs.optic_skip || variant.attrs.optic_skip || !optics.claim(&field.optic) {
            continue;
        }
        let json = field_json(input, field, &layout, position, &[]);
        optics
            .consts
            .push(variant_field_const(input, number, variant, field));
        optics.impls.push(variant_field_of_impl(
            input, index, number, variant, field, json,
        ));
        optics.impls.push(decode_impl(
            input,
            quote!(VariantFieldDecode),
            number,
            field,
            None,
            &[],
        ));
        optics.impls.extend(through_impl(
            input,
            quote!(VariantFieldThrough),
            number,
            field,
        ));
        optics
            .impls
            .extend(writes.variant_field(input, number, variant.original, field));
    }
}

/// `Type::variant_field`, the optional, documented.
fn variant_field_const(
    input: &Input,
    number: usize,
    variant: &Variant,
    field: &Field,
) -> TokenStream {
    let o = optic_mod(input);
    let ident = input.ident;
    let vis = input.vis;
    let optic = &field.optic;
    let doc = format!(
        "Optional from `{ident}` to the field `{}` of its variant `{}`: `{}`. \
         Misses on other variants. Zero-sized; reads values and JSON bytes.",
        field.member.to_token_stream(),
        variant.ident,
        type_text(field.ty)
    );
    quote_spanned! {field.original.span()=>
        #[doc = #doc]
        #[allow(non_upper_case_globals, dead_code)]
        #vis const #optic: #o::VariantField<Self, #number> = #o::VariantField::new();
    }
}

/// The `VariantFieldOf` impl the optional reads through.
fn variant_field_of_impl(
    input: &Input,
    index: usize,
    number: usize,
    variant: &Variant,
    field: &Field,
    json: TokenStream,
) -> TokenStream {
    let p = private(input);
    let ident = input.ident;
    let (impl_generics, ty_generics, where_clause) = input.original.generics.split_for_impl();
    let v = variant.ident;
    let ty = field.ty;
    let member = &field.member;
    let name = optic_name(input, &field.optic);
    let filled_in = super::decode::filled_in(input, field, None);
    // A variant serde writes with a function writes its fields with it too.
    let written_plain = written_plain(
        !crate::ser_attr::variant(&variant.original.attrs).written_otherwise
            && field_written_plain(input, field),
    );
    quote! {
        #[automatically_derived]
        #[allow(deprecated)]
        impl #impl_generics #p::VariantFieldOf<#number> for #ident #ty_generics #where_clause {
            type Type = #ty;
            const NAME: &'static str = #name;
            const VARIANT: usize = #index;
            const JSON: #p::FieldJson = #json;
            #written_plain
            #filled_in
            #[inline]
            fn field(&self) -> #p::Option<&#ty> {
                #[allow(unreachable_patterns)]
                match self {
                    Self::#v { #member: __field, .. } => #p::Option::Some(__field),
                    _ => #p::Option::None,
                }
            }
            #[inline]
            fn field_mut(&mut self) -> #p::Option<&mut #ty> {
                #[allow(unreachable_patterns)]
                match self {
                    Self::#v { #member: __field, .. } => #p::Option::Some(__field),
                    _ => #p::Option::None,
                }
            }
        }
    }
}
