//! How a field is found and decoded in JSON: where its value stands
//! (`FieldJson`), and the `decode_field` of its `FieldDecode` or
//! `VariantFieldDecode` impl, as serde's derive would decode it (its
//! `deserialize_with`, its default, a borrowed `Cow`).

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

use super::private;
use crate::ast::{borrowable_cow, Field, Input, Style};
use crate::attr::DefaultValue;

/// What a field's JSON layout depends on beyond the field itself: its struct's
/// (or variant's) shape.
pub struct Layout<'a> {
    pub style: Style,
    pub transparent: bool,
    /// The number of fields as written: serde treats a tuple struct as a
    /// newtype by its written fields alone (`struct P(u32, #[serde(skip)] u8)`
    /// is the array `[1]`, not `1`).
    pub count: usize,
    /// Whether serde also reads the struct from an array (`[1, "a"]`): not
    /// with a flattened field, nor as an adjacently tagged struct variant.
    pub array_form: bool,
    /// The struct's own keys, which a flattened field never sees.
    pub own_keys: &'a [String],
}

/// Where a field's value stands in its struct's (or variant's) JSON.
/// `element` counts only the fields serde reads before it; `flattened_before`
/// are the types of the flattened fields before it, whose keys a flattened
/// field does not see either.
pub fn field_json(
    input: &Input,
    field: &Field,
    layout: &Layout,
    element: usize,
    flattened_before: &[&syn::Type],
) -> TokenStream {
    let p = private(input);
    let place = field_place(input, field, layout, element, flattened_before);
    // Only its function reads a field read `with` one (see `FieldThrough`).
    if field.attrs.deserialize_with.is_some() && !field.attrs.skip_deserializing {
        quote!(#p::FieldJson::With(&#place))
    } else {
        place
    }
}

/// Whether a byte read may go on past the field: its bytes are its type's
/// JSON (it is not read `with` a function). The impl of `through_trait`
/// (`FieldThrough` or `VariantFieldThrough`) number `index` that says so.
pub fn through_impl(
    input: &Input,
    through_trait: TokenStream,
    index: usize,
    field: &Field,
) -> Option<TokenStream> {
    if field.attrs.deserialize_with.is_some() {
        return None;
    }
    let p = private(input);
    let ident = input.ident;
    let (impl_generics, ty_generics, where_clause) = input.original.generics.split_for_impl();
    Some(quote! {
        #[automatically_derived]
        #[allow(deprecated)]
        impl #impl_generics #p::#through_trait<#index> for #ident #ty_generics #where_clause {}
    })
}

fn field_place(
    input: &Input,
    field: &Field,
    layout: &Layout,
    element: usize,
    flattened_before: &[&syn::Type],
) -> TokenStream {
    let p = private(input);
    if field.attrs.skip_deserializing {
        return quote!(#p::FieldJson::Skipped);
    }
    if field.flattens() {
        let own = layout.own_keys;
        return quote! {
            #p::FieldJson::Flatten {
                hidden: &#p::KeySet {
                    keys: &[#(#own),*],
                    nested: &[#(<#flattened_before as #p::JsonKeys>::TAKES),*],
                },
            }
        };
    }
    if layout.transparent
        || field.attrs.flatten
        || (layout.style == Style::Tuple && layout.count == 1)
    {
        return quote!(#p::FieldJson::Inline);
    }
    match layout.style {
        Style::Tuple => quote!(#p::FieldJson::Element(#element)),
        _ => {
            let names = &field.json_names;
            let position = if layout.array_form {
                quote!(#p::Option::Some(#element))
            } else {
                quote!(#p::Option::None)
            };
            // serde writes the fields in order: one in the second half is
            // nearer the end of its object.
            let late = 2 * element >= layout.count && layout.count > 1;
            quote!(#p::FieldJson::Key { names: &[#(#names),*], position: #position, late: #late })
        }
    }
}

/// The `FILLED_IN` item of a `FieldOf` or `VariantFieldOf` impl: whether
/// serde fills the field in, where its member is missing, with a value that
/// may hold foci a path goes on to. Not where the field has no default (an
/// `Option` is `None`; any other field missing fails serde's decode), nor
/// where its own `default` is the `Default` of a type whose default is
/// empty (a standard collection, `Option` or `String`, or a `Box` of one);
/// nothing where it keeps the trait's `false`.
///
/// The derive sees the type as spelled, not what it names, so the type
/// itself is asked at compile time (`EmptyDefault`): a type of the user's
/// named `Vec` counts as filled in, an alias of `Vec<T>` as empty.
pub fn filled_in(
    input: &Input,
    field: &Field,
    container_default: Option<&DefaultValue>,
) -> TokenStream {
    let type_default = match (&field.attrs.default, container_default) {
        (DefaultValue::Trait, _) => true,
        (DefaultValue::Path(_), _) => false,
        (DefaultValue::None, Some(DefaultValue::Trait | DefaultValue::Path(_))) => false,
        (DefaultValue::None, _) if field.attrs.skip_deserializing => true,
        (DefaultValue::None, _) => return TokenStream::new(),
    };
    if !type_default {
        return quote!(
            const FILLED_IN: bool = true;
        );
    }
    let p = private(input);
    let ty = field.ty;
    // Spanned on the field's type, so that an error in it points there.
    let is_empty = quote_spanned!(ty.span()=> #p::EmptyDefault::<#ty>::IS_EMPTY);
    quote!(
        const FILLED_IN: bool = {
            // Unused where the type has the inherent answer.
            #[allow(unused_imports)]
            use #p::NotKnownEmpty as _;
            !#is_empty
        };
    )
}

/// The impl of `decode_trait` (`FieldDecode` or `VariantFieldDecode`) number
/// `index` for `field`: its value decoded from what was found for it. Its
/// where-clause is the type's, plus what the decoding needs.
pub fn decode_impl(
    input: &Input,
    decode_trait: TokenStream,
    index: usize,
    field: &Field,
    container_default: Option<&DefaultValue>,
    extra_bounds: &[TokenStream],
) -> TokenStream {
    let p = private(input);
    let ident = input.ident;
    let ty = field.ty;
    let generics = with_de_lifetime(&input.original.generics);
    let (de_impl_generics, _, _) = generics.split_for_impl();
    let (_, ty_generics, _) = input.original.generics.split_for_impl();
    let (body, bounds) = decode_body(input, field, container_default);
    let mut de_where = input
        .original
        .generics
        .where_clause
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(where));
    for bound in bounds.iter().chain(extra_bounds) {
        de_where.predicates.push(syn::parse_quote!(#bound));
    }
    quote! {
        #[automatically_derived]
        #[allow(deprecated)]
        impl #de_impl_generics #p::#decode_trait<'__de, #index> for #ident #ty_generics #de_where {
            #[inline]
            fn decode_field(__found: #p::Located<'__de>) -> #p::Option<#ty> {
                #body
            }
        }
    }
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
fn borrowed_cow(input: &Input, field: &Field) -> Option<(TokenStream, syn::Lifetime)> {
    if !field.attrs.borrow || field.attrs.deserialize_with.is_some() {
        return None;
    }
    let (bytes, lifetime) = borrowable_cow(field.ty)?;
    let p = private(input);
    let function = if bytes {
        quote!(#p::borrow_cow_bytes)
    } else {
        quote!(#p::borrow_cow_str)
    };
    Some((function, lifetime.clone()))
}

/// The body of a field's `decode_field`: present, absent, or missed; and the
/// bounds the impl needs for it. Like serde's derive, which infers them, a
/// field that is decoded needs `Deserialize`, one that takes its type's
/// default needs `Default`, one that takes the container's needs `Self:
/// Default`; each only on this field's impl, so a type that lacks one loses
/// only the byte reads that need it, as it lacks serde's `Deserialize`.
fn decode_body(
    input: &Input,
    field: &Field,
    container_default: Option<&DefaultValue>,
) -> (TokenStream, Vec<TokenStream>) {
    let p = private(input);
    let ty = field.ty;
    let member = &field.member;
    let mut needs_bound = false;
    let mut bounds = Vec::new();
    // Spanned on the field's type, so that a missing `Default` points there.
    let type_default = quote_spanned!(ty.span()=> #ty: ::core::default::Default);
    let self_default = quote_spanned!(ty.span()=> Self: ::core::default::Default);
    let cow = borrowed_cow(input, field);
    let with = match (&field.attrs.deserialize_with, &cow) {
        (Some(with), _) => Some(with.to_token_stream()),
        (None, Some((function, _))) => Some(function.clone()),
        (None, None) => None,
    };
    let present = match &with {
        // Called on serde_json's deserializer, or on serde's buffer's where
        // serde would read the field from it.
        Some(with) => quote!(#p::decode_with_at(__spot, |__de| #with(__de), |__de| #with(__de))),
        None => {
            needs_bound = true;
            quote!(#p::decode_at::<#ty>(__spot))
        }
    };
    let absent = match (&field.attrs.default, container_default) {
        (DefaultValue::Trait, _) => {
            bounds.push(type_default);
            quote!(#p::Option::Some(::core::default::Default::default()))
        }
        (DefaultValue::Path(path), _) => quote!(#p::Option::Some(#path())),
        (DefaultValue::None, Some(DefaultValue::Trait)) => {
            bounds.push(self_default);
            quote!({
                let __whole: Self = ::core::default::Default::default();
                #p::Option::Some(__whole.#member)
            })
        }
        (DefaultValue::None, Some(DefaultValue::Path(path))) => quote!({
            let __whole: Self = #path();
            #p::Option::Some(__whole.#member)
        }),
        (DefaultValue::None, _) if field.attrs.skip_deserializing => {
            bounds.push(type_default);
            quote!(#p::Option::Some(::core::default::Default::default()))
        }
        (DefaultValue::None, _) if with.is_some() => quote!(#p::Option::None),
        (DefaultValue::None, _) => {
            needs_bound = true;
            quote!(#p::decode_absent::<#ty>())
        }
    };
    let body = quote! {
        match __found {
            #p::Located::At(__spot) => #present,
            #p::Located::Absent => #absent,
            #p::Located::Miss => #p::Option::None,
        }
    };
    match cow {
        Some((_, lifetime)) => bounds.push(quote!('__de: #lifetime)),
        None if needs_bound => bounds.push(quote!(#ty: #p::serde::Deserialize<'__de>)),
        None => {}
    }
    (body, bounds)
}
