//! How a field is written into JSON bytes: the `FieldWrite` or
//! `VariantFieldWrite` impl of a field serde both reads and writes, with the
//! key serde writes, its `serialize_with` and its `skip_serializing_if`.
//! Fields serde does not both read and write get no impl, so a write through
//! them does not compile.

use proc_macro2::TokenStream;
use quote::quote;

use super::private;
use crate::ast::{unraw, Field, Input};
use crate::case::RenameRule;
use crate::ser_attr::{self, SerContainer};

/// The serialize-side facts about a type that its fields' writes need.
pub struct Writes {
    container: SerContainer,
}

impl Writes {
    pub fn of(input: &Input) -> Self {
        Writes {
            container: ser_attr::container(&input.original.attrs),
        }
    }

    /// The `FieldWrite` impl number `index` of a struct's `field`, if it can
    /// be written.
    pub fn field(&self, input: &Input, index: usize, field: &Field) -> Option<TokenStream> {
        write_impl(
            input,
            &self.container,
            quote!(FieldWrite),
            index,
            field,
            self.container.rename_all,
        )
    }

    /// The `VariantFieldWrite` impl number `number` of a field of `variant`,
    /// if it can be written.
    pub fn variant_field(
        &self,
        input: &Input,
        number: usize,
        variant: &syn::Variant,
        field: &Field,
    ) -> Option<TokenStream> {
        let rule = ser_attr::variant(&variant.attrs)
            .rename_all
            .or(self.container.rename_all_fields);
        write_impl(
            input,
            &self.container,
            quote!(VariantFieldWrite),
            number,
            field,
            rule,
        )
    }
}

fn write_impl(
    input: &Input,
    container: &SerContainer,
    write_trait: TokenStream,
    index: usize,
    field: &Field,
    rule: Option<RenameRule>,
) -> Option<TokenStream> {
    let ser = ser_attr::field(&field.original.attrs);
    if container.into
        || ser.skip_serializing
        || field.attrs.skip_deserializing
        || field.attrs.flatten
    {
        return None;
    }
    let p = private(input);
    let ident = input.ident;
    let ty = field.ty;
    let (impl_generics, ty_generics, where_clause) = input.original.generics.split_for_impl();
    let mut where_clause = where_clause
        .cloned()
        .unwrap_or_else(|| syn::parse_quote!(where));
    let key = match (&ser.rename, &field.original.ident) {
        (Some(rename), _) => rename.clone(),
        (None, Some(ident)) => {
            let name = unraw(ident);
            rule.map_or(name.clone(), |rule| rule.apply_to_field(&name))
        }
        (None, None) => String::new(),
    };
    // A member added under a key serde does not read would not read back.
    let read_back = (key.is_empty() || field.json_names.contains(&key))
        .then(TokenStream::new)
        .unwrap_or_else(|| {
            quote!(
                const READ_BACK: bool = false;
            )
        });
    let write = match &ser.serialize_with {
        Some(with) => quote!(#p::write_with(__out, |__ser| #with(__value, __ser))),
        None => {
            // Higher-ranked, so that a field type that is not `Serialize`
            // leaves the impl unusable rather than the type's crate broken.
            where_clause
                .predicates
                .push(syn::parse_quote!(for<'__w> #ty: #p::serde::Serialize));
            quote!(#p::write_json(__out, __value))
        }
    };
    let skips = ser.skip_serializing_if.map(|skip_if| {
        quote! {
            #[inline]
            fn skips(__value: &#ty) -> bool {
                #skip_if(__value)
            }
        }
    });
    Some(quote! {
        #[automatically_derived]
        #[allow(deprecated)]
        impl #impl_generics #p::#write_trait<#index> for #ident #ty_generics #where_clause {
            const KEY: &'static str = #key;
            #read_back
            #[inline]
            fn write_field(
                __value: &#ty,
                __out: &mut ::std::vec::Vec<u8>,
            ) -> ::core::result::Result<(), #p::serde_json::Error> {
                #write
            }
            #skips
        }
    })
}

/// Whether serde writes `field` as its type's own `Serialize` does: not with
/// `serialize_with` or `with`, not `skip` or `skip_serializing`, not in a
/// container with `into`. A byte write that goes on past a field that is
/// not refuses (and a prism's write, for a newtype variant's field).
pub fn field_written_plain(input: &Input, field: &Field) -> bool {
    let ser = ser_attr::field(&field.original.attrs);
    ser.serialize_with.is_none()
        && !ser.skip_serializing
        && !ser_attr::container(&input.original.attrs).into
}

/// The `WRITTEN_PLAIN` item of a `FieldOf`, `VariantFieldOf` or `VariantOf`
/// impl: nothing where it keeps its default, `true`.
pub fn written_plain(plain: bool) -> TokenStream {
    if plain {
        TokenStream::new()
    } else {
        quote!(
            const WRITTEN_PLAIN: bool = false;
        )
    }
}
