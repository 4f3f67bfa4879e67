//! What every enum gets: its kind type (`DetailKind`), the getter that reads
//! it (`Detail::kind`), and the `Tagged` impl that tells the byte reader how
//! serde tags the enum.

use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;

use super::{optic_mod, private};
use crate::ast::{unraw, Input, Style, Variant};

/// The fieldless enum naming the variants, with its tags and `Display`.
pub fn kind_enum(input: &Input, variants: &[Variant]) -> TokenStream {
    let ident = input.ident;
    let vis = input.vis;
    let kind_type = input.kind_type();
    let names: Vec<&Ident> = variants.iter().map(|v| v.ident).collect();
    // The tag serde writes, which may differ from those it reads
    // (`rename(serialize = "...")`), and stands for a variant serde never
    // reads too.
    let rule = crate::ser_attr::container(&input.original.attrs).rename_all;
    let tags: Vec<String> = variants
        .iter()
        .map(|v| {
            let name = unraw(v.ident);
            crate::ser_attr::variant(&v.original.attrs)
                .rename
                .unwrap_or_else(|| {
                    rule.map_or_else(|| name.clone(), |rule| rule.apply_to_variant(&name))
                })
        })
        .collect();
    let count = variants.len();
    let doc = format!(
        "Which variant a `{ident}` is: one unit variant per variant of `{ident}`, \
         read by the `{}` getter from values and from JSON bytes.",
        input.kind_const()
    );
    let variant_docs = variants.iter().zip(&tags).map(|(v, tag)| {
        format!(
            "`{ident}::{}` (tag {}).",
            v.ident,
            super::code_span(&format!("\"{tag}\""))
        )
    });
    quote! {
        #[doc = #doc]
        #[derive(
            ::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug,
            ::core::cmp::PartialEq, ::core::cmp::Eq, ::core::hash::Hash,
            ::core::cmp::PartialOrd, ::core::cmp::Ord,
        )]
        // Named after the enum and its variants: where they are not camel
        // case, or share a prefix or postfix, rustc or clippy warns at the
        // user's enum already, which may allow it; an `allow` there does not
        // reach this enum.
        #[allow(non_camel_case_types, clippy::enum_variant_names)]
        #vis enum #kind_type {
            #(#[doc = #variant_docs] #names,)*
        }

        #[automatically_derived]
        #[allow(deprecated)]
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
        #[allow(deprecated)]
        impl ::core::fmt::Display for #kind_type {
            fn fmt(&self, __f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                __f.write_str(self.tag())
            }
        }
    }
}

/// `Type::kind`, the getter from the enum to its kind.
pub fn kind_getter(input: &Input) -> TokenStream {
    let o = optic_mod(input);
    let ident = input.ident;
    let vis = input.vis;
    let kind_type = input.kind_type();
    let kind_const = input.kind_const();
    let doc = format!(
        "Getter from a `{ident}` to its kind, [`{kind_type}`]: which variant it is. Reads \
         values, and JSON bytes by their tag alone."
    );
    quote! {
        #[doc = #doc]
        #[allow(non_upper_case_globals, dead_code)]
        #vis const #kind_const: #o::Discriminant<Self> = #o::Discriminant::new();
    }
}

/// The `Tagged` impl: the enum's encoding, each variant's tags, its kinds, and
/// which variant a value is.
pub fn tagged_impl(input: &Input, variants: &[Variant]) -> TokenStream {
    let p = private(input);
    let ident = input.ident;
    let (impl_generics, ty_generics, where_clause) = input.original.generics.split_for_impl();
    let kind_type = input.kind_type();
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
    quote! {
        #[automatically_derived]
        #[allow(deprecated)]
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
    }
}

/// A pattern that matches `variant` whatever it holds.
fn variant_pattern(variant: &Variant) -> TokenStream {
    let ident = variant.ident;
    match variant.style {
        Style::Unit => quote!(Self::#ident),
        Style::Tuple => quote!(Self::#ident(..)),
        Style::Named => quote!(Self::#ident { .. }),
    }
}
