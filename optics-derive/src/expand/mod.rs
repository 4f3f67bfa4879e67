//! Code generation: named fragments, spliced into one output.

use std::collections::HashSet;

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{DeriveInput, Ident};

use crate::ast::{Data, Field, Input, Style, Variant};
use crate::attr::DefaultValue;
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
        Data::Struct(style, fields) => expand_struct(&model, *style, fields),
        Data::Enum(variants) => expand_enum(&model, variants),
        Data::Union(_) => TokenStream::new(),
    };
    quote!(#errors #expansion)
}

fn private() -> TokenStream {
    quote!(::optics_core::__private)
}

fn type_text(ty: &syn::Type) -> String {
    ty.to_token_stream()
        .to_string()
        .replace(" < ", "<")
        .replace(" >", ">")
        .replace(" ,", ",")
}

fn names_text(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`\"{n}\"`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The generics of an impl that also takes the decoder's lifetime `'__de`.
fn with_de_lifetime(generics: &syn::Generics) -> syn::Generics {
    let mut generics = generics.clone();
    generics.params.insert(0, syn::parse_quote!('__de));
    generics
}

/// `Cow<'x, str>` or `Cow<'x, [u8]>` under `#[serde(borrow)]`, without a
/// `deserialize_with`: serde's derive then borrows from the input where it can
/// (a plain `Cow` always owns). The function that decodes it the same way, and
/// `'x`, which the decoder's lifetime must outlive.
fn borrowed_cow(field: &Field) -> Option<(TokenStream, syn::Lifetime)> {
    fn ungroup(ty: &syn::Type) -> &syn::Type {
        match ty {
            syn::Type::Group(group) => ungroup(&group.elem),
            ty => ty,
        }
    }
    if !field.attrs.borrow || field.attrs.deserialize_with.is_some() {
        return None;
    }
    let syn::Type::Path(path) = ungroup(field.ty) else {
        return None;
    };
    let segment = path.path.segments.last()?;
    let syn::PathArguments::AngleBracketed(args) = &segment.arguments else {
        return None;
    };
    let mut args = args.args.iter();
    let (
        Some(syn::GenericArgument::Lifetime(lifetime)),
        Some(syn::GenericArgument::Type(elem)),
        None,
    ) = (args.next(), args.next(), args.next())
    else {
        return None;
    };
    if segment.ident != "Cow" {
        return None;
    }
    let function = match ungroup(elem) {
        syn::Type::Path(elem) if elem.qself.is_none() && elem.path.is_ident("str") => {
            quote!(::optics_core::__private::borrow_cow_str)
        }
        syn::Type::Slice(slice) if matches!(ungroup(&slice.elem), syn::Type::Path(elem) if elem.path.is_ident("u8")) =>
        {
            quote!(::optics_core::__private::borrow_cow_bytes)
        }
        _ => return None,
    };
    Some((function, lifetime.clone()))
}

/// The body of a field's `decode_field`: present, absent, or missed; and the
/// bound the impl needs for it.
fn decode_body(
    field: &Field,
    container_default: Option<&DefaultValue>,
) -> (TokenStream, Option<TokenStream>) {
    let p = private();
    let ty = field.ty;
    let member = &field.member;
    let mut needs_bound = false;
    let cow = borrowed_cow(field);
    let with = match (&field.attrs.deserialize_with, &cow) {
        (Some(with), _) => Some(with.to_token_stream()),
        (None, Some((function, _))) => Some(function.clone()),
        (None, None) => None,
    };
    let present = match &with {
        Some(with) => quote!(#p::decode_with(bytes, |de| #with(de))),
        None => {
            needs_bound = true;
            quote!(::optics_core::json::decode::<#ty>(bytes))
        }
    };
    let absent = match (&field.attrs.default, container_default) {
        (DefaultValue::Trait, _) => quote!(#p::Option::Some(::core::default::Default::default())),
        (DefaultValue::Path(path), _) => quote!(#p::Option::Some(#path())),
        (DefaultValue::None, Some(DefaultValue::Trait)) => quote!({
            let whole: Self = ::core::default::Default::default();
            #p::Option::Some(whole.#member)
        }),
        (DefaultValue::None, Some(DefaultValue::Path(path))) => quote!({
            let whole: Self = #path();
            #p::Option::Some(whole.#member)
        }),
        (DefaultValue::None, _) if field.attrs.skip_deserializing => {
            quote!(#p::Option::Some(::core::default::Default::default()))
        }
        (DefaultValue::None, _) if with.is_some() => quote!(#p::Option::None),
        (DefaultValue::None, _) => {
            needs_bound = true;
            quote!(#p::decode_absent::<#ty>())
        }
    };
    let body = quote! {
        match found {
            ::optics_core::json::Found::At(bytes) => #present,
            ::optics_core::json::Found::Absent => #absent,
            ::optics_core::json::Found::Miss => #p::Option::None,
        }
    };
    let bound = match cow {
        Some((_, lifetime)) => Some(quote!('__de: #lifetime)),
        None => needs_bound.then(|| quote!(#ty: #p::serde::Deserialize<'__de>)),
    };
    (body, bound)
}

/// Where a struct field's value stands in the struct's JSON. `element` counts
/// only the fields serde reads; `count` is the number of fields as written,
/// since serde treats a tuple struct as a newtype by its written fields alone
/// (`struct P(u32, #[serde(skip)] u8)` is the array `[1]`, not `1`).
fn field_json(
    field: &Field,
    style: Style,
    transparent: bool,
    element: usize,
    count: usize,
) -> TokenStream {
    let p = private();
    if field.attrs.skip_deserializing {
        return quote!(#p::FieldJson::Skipped);
    }
    if transparent || field.attrs.flatten || (style == Style::Tuple && count == 1) {
        return quote!(#p::FieldJson::Inline);
    }
    match style {
        Style::Tuple => quote!(#p::FieldJson::Element(#element)),
        _ => {
            let names = &field.json_names;
            quote!(#p::FieldJson::Key(&[#(#names),*]))
        }
    }
}

fn expand_struct(input: &Input, style: Style, fields: &[Field]) -> TokenStream {
    let p = private();
    let ident = input.ident;
    let generics = &input.original.generics;
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let de_generics = with_de_lifetime(generics);
    let (de_impl_generics, _, _) = de_generics.split_for_impl();
    let transparent = input.attrs.transparent.is_some();

    let mut consts = Vec::new();
    let mut named = HashSet::new();
    let mut impls = Vec::new();
    let mut element = 0usize;
    for (index, field) in fields.iter().enumerate() {
        let json = field_json(field, style, transparent, element, fields.len());
        if !field.attrs.skip_deserializing {
            element += 1;
        }
        if field.attrs.optic_skip {
            continue;
        }
        let ty = field.ty;
        let member = &field.member;
        let optic = &field.optic;
        if !named.insert(optic.to_string()) {
            continue;
        }
        let vis = &field.original.vis;
        let span = field.original.span();
        let name = format!("{ident}::{}", optic.to_string().trim_start_matches("r#"));
        let where_json = if field.json_names.is_empty() {
            String::new()
        } else {
            format!(" In JSON: {}.", names_text(&field.json_names))
        };
        let doc = format!(
            "Lens from `{ident}` to its field `{}`: `{}`.{where_json} Zero-sized; reads \
             values and JSON bytes.",
            member.to_token_stream(),
            type_text(ty),
        );
        consts.push(quote_spanned! {span=>
            #[doc = #doc]
            #[allow(non_upper_case_globals, dead_code)]
            #vis const #optic: ::optics_core::optic::Field<Self, #index> = ::optics_core::optic::Field::new();
        });
        let (body, bound) = decode_body(field, Some(&input.attrs.default));
        let mut de_where = where_clause
            .cloned()
            .unwrap_or_else(|| syn::parse_quote!(where));
        if let Some(bound) = bound {
            de_where.predicates.push(syn::parse_quote!(#bound));
        }
        impls.push(quote! {
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
            #[automatically_derived]
            impl #de_impl_generics #p::FieldDecode<'__de, #index> for #ident #ty_generics #de_where {
                #[inline]
                fn decode_field(found: ::optics_core::json::Found<'__de>) -> #p::Option<#ty> {
                    #body
                }
            }
        });
    }
    quote! {
        #[automatically_derived]
        impl #impl_generics #ident #ty_generics #where_clause {
            #(#consts)*
        }
        #(#impls)*
    }
}

fn variant_pattern(variant: &Variant) -> TokenStream {
    let ident = variant.ident;
    match variant.style {
        Style::Unit => quote!(Self::#ident),
        Style::Tuple => quote!(Self::#ident(..)),
        Style::Named => quote!(Self::#ident { .. }),
    }
}

fn expand_kind_enum(input: &Input, variants: &[Variant]) -> TokenStream {
    let ident = input.ident;
    let vis = input.vis;
    let kind_type = input.kind_type();
    let names: Vec<&Ident> = variants.iter().map(|v| v.ident).collect();
    let tags: Vec<String> = variants
        .iter()
        .map(|v| {
            v.tag_names
                .first()
                .cloned()
                .unwrap_or_else(|| v.ident.to_string())
        })
        .collect();
    let count = variants.len();
    let doc = format!(
        "Which variant a `{ident}` is: one unit variant per variant of `{ident}`, \
         read by the `{}` getter from values and from JSON bytes.",
        input.kind_const()
    );
    let variant_docs = variants
        .iter()
        .zip(&tags)
        .map(|(v, tag)| format!("`{ident}::{}` (tag `\"{tag}\"`).", v.ident));
    quote! {
        #[doc = #doc]
        #[derive(
            ::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug,
            ::core::cmp::PartialEq, ::core::cmp::Eq, ::core::hash::Hash,
            ::core::cmp::PartialOrd, ::core::cmp::Ord,
        )]
        #vis enum #kind_type {
            #(#[doc = #variant_docs] #names,)*
        }

        #[automatically_derived]
        impl #kind_type {
            /// Every kind, in declaration order.
            pub const ALL: [Self; #count] = [#(Self::#names),*];

            /// The tag serde writes for this kind.
            pub const fn tag(self) -> &'static str {
                match self {
                    #(Self::#names => #tags,)*
                }
            }
        }

        #[automatically_derived]
        impl ::core::fmt::Display for #kind_type {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.tag())
            }
        }
    }
}

fn expand_enum(input: &Input, variants: &[Variant]) -> TokenStream {
    let p = private();
    let ident = input.ident;
    let vis = input.vis;
    let generics = &input.original.generics;
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let de_generics = with_de_lifetime(generics);
    let (de_impl_generics, _, _) = de_generics.split_for_impl();
    let kind_type = input.kind_type();
    let kind_const = input.kind_const();

    let encoding = match (&input.attrs.tag, &input.attrs.content) {
        (None, _) => quote!(#p::Encoding::External),
        (Some(tag), None) => {
            let tag = &tag.value;
            quote!(#p::Encoding::Internal { tag: #tag })
        }
        (Some(tag), Some(content)) => {
            let (tag, content) = (&tag.value, &content.value);
            quote!(#p::Encoding::Adjacent { tag: #tag, content: #content })
        }
    };
    let variant_tags = variants.iter().map(|v| {
        let names = &v.tag_names;
        let other = v.attrs.other;
        quote!(#p::VariantTags { names: &[#(#names),*], other: #other })
    });
    let kind_names = variants.iter().map(|v| v.ident);
    let index_arms = variants.iter().enumerate().map(|(i, v)| {
        let pattern = variant_pattern(v);
        quote!(#pattern => #i,)
    });
    let kind_doc = format!(
        "Getter from a `{ident}` to its kind, [`{kind_type}`]: which variant it is. Reads \
         values, and JSON bytes by their tag alone."
    );

    let mut named = HashSet::from([kind_const.to_string()]);
    let mut consts = vec![quote! {
        #[doc = #kind_doc]
        #[allow(non_upper_case_globals, dead_code)]
        #vis const #kind_const: ::optics_core::optic::Discriminant<Self> = ::optics_core::optic::Discriminant::new();
    }];
    let mut impls = Vec::new();
    let mut field_index = 0usize;
    for (index, variant) in variants.iter().enumerate() {
        let v = variant.ident;
        let span = variant.original.span();
        if variant.has_prism() {
            if variant.attrs.optic_skip {
                continue;
            }
            let optic = &variant.optic;
            if !named.insert(optic.to_string()) {
                continue;
            }
            let name = format!("{ident}::{}", optic.to_string().trim_start_matches("r#"));
            let (payload, json, preview, preview_then, preview_mut, review) = match variant.style {
                Style::Unit => (
                    quote!(()),
                    quote!(#p::VariantJson::Unit),
                    quote!(Self::#v => #p::Option::Some(&())),
                    quote!(Self::#v => k(&())),
                    quote!(Self::#v => #p::Option::Some(#p::unit_mut())),
                    quote!(Self::#v),
                ),
                _ => {
                    let ty = variant.fields[0].ty;
                    (
                        quote!(#ty),
                        quote!(#p::VariantJson::Newtype),
                        quote!(Self::#v(payload) => #p::Option::Some(payload)),
                        quote!(Self::#v(payload) => k(payload)),
                        quote!(Self::#v(payload) => #p::Option::Some(payload)),
                        quote!(Self::#v(payload)),
                    )
                }
            };
            let doc = format!(
                "Prism from `{ident}` to its variant `{v}`{}. In JSON: tag {}. Zero-sized; \
                 reads values and JSON bytes.",
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
            consts.push(quote_spanned! {span=>
                #[doc = #doc]
                #[allow(non_upper_case_globals, dead_code)]
                #vis const #optic: ::optics_core::optic::Variant<Self, #index> = ::optics_core::optic::Variant::new();
            });
            let review_arg = if variant.style == Style::Unit {
                quote!(_payload)
            } else {
                quote!(payload)
            };
            impls.push(quote! {
                #[automatically_derived]
                impl #impl_generics #p::VariantOf<#index> for #ident #ty_generics #where_clause {
                    type Payload = #payload;
                    const NAME: &'static str = #name;
                    const JSON: #p::VariantJson = #json;
                    #[inline]
                    fn payload(&self) -> #p::Option<&#payload> {
                        #[allow(unreachable_patterns)]
                        match self {
                            #preview,
                            _ => #p::Option::None,
                        }
                    }
                    #[inline]
                    fn payload_then<'__s, __R, __K>(&'__s self, k: __K) -> #p::Option<__R>
                    where
                        __K: ::core::ops::FnOnce(&'__s #payload) -> #p::Option<__R>,
                    {
                        #[allow(unreachable_patterns)]
                        match self {
                            #preview_then,
                            _ => #p::Option::None,
                        }
                    }
                    #[inline]
                    fn payload_mut(&mut self) -> #p::Option<&mut #payload> {
                        #[allow(unreachable_patterns)]
                        match self {
                            #preview_mut,
                            _ => #p::Option::None,
                        }
                    }
                    #[inline]
                    fn from_payload(#review_arg: #payload) -> Self {
                        #review
                    }
                }
            });
        } else {
            let count = variant.fields.len();
            // The position among the fields serde reads: a skipped field
            // takes no element of a tuple variant's array.
            let mut element = 0usize;
            for field in &variant.fields {
                let this = field_index;
                field_index += 1;
                let position = element;
                if !field.attrs.skip_deserializing {
                    element += 1;
                }
                if field.attrs.optic_skip || variant.attrs.optic_skip {
                    continue;
                }
                let ty = field.ty;
                let member = &field.member;
                let optic = &field.optic;
                if !named.insert(optic.to_string()) {
                    continue;
                }
                let fspan = field.original.span();
                let name = format!("{ident}::{}", optic.to_string().trim_start_matches("r#"));
                let json = field_json(field, variant.style, false, position, count.max(2));
                let doc = format!(
                    "Optional from `{ident}` to the field `{}` of its variant `{v}`: `{}`. \
                     Misses on other variants. Zero-sized; reads values and JSON bytes.",
                    member.to_token_stream(),
                    type_text(ty)
                );
                consts.push(quote_spanned! {fspan=>
                    #[doc = #doc]
                    #[allow(non_upper_case_globals, dead_code)]
                    #vis const #optic: ::optics_core::optic::VariantField<Self, #this> = ::optics_core::optic::VariantField::new();
                });
                let (body, bound) = decode_body(field, None);
                let mut de_where = where_clause
                    .cloned()
                    .unwrap_or_else(|| syn::parse_quote!(where));
                if let Some(bound) = bound {
                    de_where.predicates.push(syn::parse_quote!(#bound));
                }
                impls.push(quote! {
                    #[automatically_derived]
                    impl #impl_generics #p::VariantFieldOf<#this> for #ident #ty_generics #where_clause {
                        type Type = #ty;
                        const NAME: &'static str = #name;
                        const VARIANT: usize = #index;
                        const JSON: #p::FieldJson = #json;
                        #[inline]
                        fn field(&self) -> #p::Option<&#ty> {
                            #[allow(unreachable_patterns)]
                            match self {
                                Self::#v { #member: field, .. } => #p::Option::Some(field),
                                _ => #p::Option::None,
                            }
                        }
                        #[inline]
                        fn field_mut(&mut self) -> #p::Option<&mut #ty> {
                            #[allow(unreachable_patterns)]
                            match self {
                                Self::#v { #member: field, .. } => #p::Option::Some(field),
                                _ => #p::Option::None,
                            }
                        }
                    }
                    #[automatically_derived]
                    impl #de_impl_generics #p::VariantFieldDecode<'__de, #this> for #ident #ty_generics #de_where {
                        #[inline]
                        fn decode_field(found: ::optics_core::json::Found<'__de>) -> #p::Option<#ty> {
                            #body
                        }
                    }
                });
            }
        }
    }

    let kind_enum = expand_kind_enum(input, variants);
    quote! {
        #kind_enum

        #[automatically_derived]
        impl #impl_generics #ident #ty_generics #where_clause {
            #(#consts)*
        }

        #[automatically_derived]
        impl #impl_generics #p::Tagged for #ident #ty_generics #where_clause {
            type Kind = #kind_type;
            const ENCODING: #p::Encoding = #encoding;
            const VARIANTS: &'static [#p::VariantTags] = &[#(#variant_tags),*];
            const KINDS: &'static [#kind_type] = &[#(#kind_type::#kind_names),*];
            #[inline]
            fn variant_index(&self) -> usize {
                match *self {
                    #(#index_arms)*
                }
            }
        }

        #(#impls)*
    }
}
