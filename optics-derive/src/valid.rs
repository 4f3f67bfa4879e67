//! Checks across attributes: what the byte reader cannot follow, and names
//! that would clash. Every problem is recorded; none stops the others.

use std::collections::BTreeMap;

use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;

use crate::ast::{
    borrowable_cow, is_map_type, is_option_type, is_unsized_type, option_payload, unraw, Data,
    Field, Input, Style, Variant,
};
use crate::attr::Rejected;
use crate::ctxt::Ctxt;
use crate::expand::type_text;

pub fn check(cx: &Ctxt, input: &Input) {
    reject_all(cx, &input.attrs.rejected);
    for param in input.reserved_generics() {
        let (name, span) = match param {
            syn::GenericParam::Type(ty) => (ty.ident.to_string(), ty.ident.span()),
            syn::GenericParam::Lifetime(lt) => (lt.lifetime.to_string(), lt.lifetime.span()),
            syn::GenericParam::Const(c) => (c.ident.to_string(), c.ident.span()),
        };
        cx.syn_error(syn::Error::new(
            span,
            format!(
                "#[derive(Optics)] cannot derive for a generic parameter named `{name}`: the \
                 code it generates declares a parameter of that name; rename this one"
            ),
        ));
    }
    match &input.data {
        Data::Union(token) => cx.error_spanned_by(
            token,
            "#[derive(Optics)] does not support unions: a union has no field that is \
             known to be there, so no lens can be sound; use a struct or an enum",
        ),
        Data::Struct(style, fields) => {
            check_fields(cx, fields);
            check_json_names(cx, fields, "");
            if let Some(span) = input.attrs.transparent {
                let read = fields
                    .iter()
                    .filter(|f| !f.attrs.skip_deserializing)
                    .count();
                if read != 1 || *style == Style::Unit {
                    cx.syn_error(syn::Error::new(
                        span,
                        "#[serde(transparent)] needs exactly one field that is not skipped",
                    ));
                }
            }
        }
        Data::Enum(variants) => {
            if let Some(span) = input.attrs.untagged {
                cx.syn_error(syn::Error::new(
                    span,
                    "#[derive(Optics)] does not support #[serde(untagged)]: a variant of an \
                     untagged enum can only be recognized by decoding it, so its prisms cannot \
                     read bytes in place; give the enum a tag (`#[serde(tag = \"type\")]`)",
                ));
            }
            if let (Some(content), None) = (&input.attrs.content, &input.attrs.tag) {
                cx.syn_error(syn::Error::new(
                    content.span,
                    "#[serde(content = \"...\")] needs #[serde(tag = \"...\")] beside it",
                ));
            }
            if let Some(span) = input.attrs.transparent {
                cx.syn_error(syn::Error::new(
                    span,
                    "#[serde(transparent)] is for structs",
                ));
            }
            if let Some(name) = &input.attrs.kind_type {
                if input.kind_type_is_own_name(name) {
                    let own = unraw(input.ident);
                    cx.error_spanned_by(
                        name,
                        format!(
                            "#[optics(kind_type = \"{own}\")] names the enum itself: the \
                             generated kind enum would be a second type named `{own}`; give \
                             it another name, or remove `kind_type` to get `{own}Kind`"
                        ),
                    );
                }
            }
            for variant in variants {
                reject_all(cx, &variant.attrs.rejected);
                check_fields(cx, &variant.fields);
                for field in variant.fields.iter().filter(|f| f.attrs.flatten) {
                    cx.error_spanned_by(
                        field.original,
                        "#[derive(Optics)] does not support #[serde(flatten)] in an enum variant: \
                         the variant's own fields and the flattened one share the variant's \
                         members, which the derive follows for structs only; move the fields \
                         into a struct that flattens, and make it the variant's payload \
                         (`Variant(Payload)`)",
                    );
                }
                check_newtype_variant(cx, variant);
                check_newtype_variant_optics(cx, variant);
                if !variant.attrs.skip_deserializing {
                    let of_variant = format!(" of variant `{}`", variant.ident);
                    check_json_names(cx, &variant.fields, &of_variant);
                }
                if variant.attrs.other && variant.style != Style::Unit {
                    cx.error_spanned_by(variant.ident, "#[serde(other)] goes on a unit variant");
                }
            }
        }
    }
    check_names(cx, input);
    check_variant_names(cx, input);
}

fn reject_all(cx: &Ctxt, rejected: &[Rejected]) {
    for Rejected {
        span,
        keyword,
        why,
        fix,
    } in rejected
    {
        cx.syn_error(syn::Error::new(
            *span,
            format!(
                "#[derive(Optics)] does not support #[serde({keyword})]: {why}, so byte \
                 optics could not find what serde_json decodes; {fix}"
            ),
        ));
    }
}

fn check_fields(cx: &Ctxt, fields: &[Field]) {
    for field in fields {
        reject_all(cx, &field.attrs.rejected);
        if is_unsized_type(field.ty) {
            cx.error_spanned_by(
                field.ty,
                format!(
                    "#[derive(Optics)] does not support a field of unsized type `{}`: a lens \
                     focuses a value of the field's type, which must have a size; make \
                     the field owned (`Vec<T>` for `[T]`, `String` for `str`, `Box<dyn \
                     Trait>` for `dyn Trait`)",
                    type_text(field.ty)
                ),
            );
        }
        if field.attrs.flatten && field.original.ident.is_none() {
            cx.error_spanned_by(field.original, "#[serde(flatten)] needs a named field");
        }
        // A catch-all map, or an `Option` of one: serde hands an `Option` of
        // a map every member left over, as it does the map (`Some`, unless
        // one of them is not a value of the map's).
        let catch_all = is_map_type(field.ty) || option_payload(field.ty).is_some_and(is_map_type);
        if field.attrs.flatten && is_option_type(field.ty) && !catch_all {
            cx.error_spanned_by(
                field.ty,
                "#[derive(Optics)] does not support #[serde(flatten)] on an `Option`: serde \
                 gives `None` when the flattened struct cannot be decoded from the members \
                 left over, which a byte optic cannot tell without decoding them all; flatten \
                 the struct itself and make its fields `Option`s (or `#[serde(default)]`)",
            );
        }
        if field.attrs.flatten && field.attrs.deserialize_with.is_some() {
            cx.error_spanned_by(
                field.original,
                "#[derive(Optics)] does not support #[serde(flatten)] with `with` or \
                 `deserialize_with`: the function would be handed the members no other field \
                 takes, which a byte optic cannot hand it; give the field a key of its own, \
                 or move the function to a field of the flattened struct",
            );
        }
        if field.attrs.flatten && catch_all && !field.attrs.optic_skip {
            cx.error_spanned_by(
                field.ty,
                "#[derive(Optics)] gives no optic to a map under #[serde(flatten)]: serde \
                 gives the map only the members no other field takes, and in the bytes those \
                 stand among the others, so a byte optic would read the wrong map; add \
                 #[optics(skip)] to the field to keep the other fields' optics (they read \
                 as serde does), or give the map a key of its own",
            );
        }
    }
}

/// The keys serde reads a field from, each with where it is written and what
/// it is: the name (the field's own, renamed by `rename` or `rename_all`),
/// then the aliases.
fn json_names<'f>(field: &'f Field) -> impl Iterator<Item = (&'f str, Span, &'static str)> {
    let name_span = match (&field.attrs.rename, &field.original.ident) {
        (Some(rename), _) => rename.span,
        (None, Some(ident)) => ident.span(),
        (None, None) => field.ty.span(),
    };
    let spans = std::iter::once((name_span, "name")).chain(
        field
            .attrs
            .aliases
            .iter()
            .map(|alias| (alias.span, "alias")),
    );
    field
        .json_names
        .iter()
        .zip(spans)
        .map(|(name, (span, what))| (name.as_str(), span, what))
}

/// A key two fields of one struct (or struct variant) read: serde gives it to
/// the first of them only (the others' match arms are unreachable), while a
/// byte optic would find it for each. Refused at the later field's name.
/// `owner` ends the fields' description (" of variant `V`").
fn check_json_names(cx: &Ctxt, fields: &[Field], owner: &str) {
    let mut seen: BTreeMap<&str, (&Field, Span, &'static str)> = BTreeMap::new();
    // A skipped field reads no key; a flattened one reads its fields' keys,
    // which `flatten.rs` checks against these.
    for field in fields
        .iter()
        .filter(|f| !f.attrs.skip_deserializing && !f.attrs.flatten)
    {
        for (name, span, what) in json_names(field) {
            let Some(&(first, first_span, first_what)) = seen.get(name) else {
                seen.insert(name, (field, span, what));
                continue;
            };
            if std::ptr::eq(first, field) {
                continue;
            }
            let fix = if what == "name" && first_what == "name" {
                "give each field a name of its own (#[serde(rename = \"...\")])"
            } else {
                "give each field names of its own (remove the alias, or rename one \
                 field with #[serde(rename = \"...\")])"
            };
            let first_what = if first_what == "name" {
                "the name"
            } else {
                "an alias"
            };
            let this_field = field.member.to_token_stream();
            let first_field = first.member.to_token_stream();
            let mut error = syn::Error::new(
                span,
                format!(
                    "#[derive(Optics)] cannot read field `{this_field}`{owner} as serde does: \
                     its {what} `\"{name}\"` is also {first_what} of field \
                     `{first_field}` before it, and serde gives that key to `{first_field}` \
                     only, so `{this_field}` never reads it, where a byte optic would; {fix}"
                ),
            );
            error.combine(syn::Error::new(
                first_span,
                format!("field `{first_field}`{owner} reads `\"{name}\"` here"),
            ));
            cx.syn_error(error);
        }
    }
}

/// The one field of a newtype variant (`Variant(T)`): its prism reads the
/// payload as `T`'s own JSON, so serde's field attributes that change how the
/// payload is read are refused here, each at its keyword.
fn check_newtype_variant(cx: &Ctxt, variant: &Variant) {
    if variant.style != Style::Tuple || variant.fields.len() != 1 {
        return;
    }
    // serde never reads a skipped variant: what its field says does not matter.
    if variant.attrs.skip_deserializing {
        return;
    }
    let field = &variant.fields[0];
    let v = variant.ident;
    let ty = type_text(field.ty);
    if let Some(with) = &field.attrs.with_keyword {
        let keyword = &with.value;
        cx.syn_error(syn::Error::new(
            with.span,
            format!(
                "#[derive(Optics)] does not support #[serde({keyword})] on the field of a \
                 newtype variant: serde decodes `{v}`'s payload with the function, which the \
                 prism `{v}` does not call, so byte optics could not find what serde_json \
                 decodes; make the payload a newtype struct whose field is read with the \
                 function, `{v}(Payload)` with \
                 `struct Payload(#[serde({keyword} = \"...\")] {ty})`: its JSON is the same"
            ),
        ));
    }
    if let Some(skip) = &field.attrs.skip_keyword {
        let keyword = &skip.value;
        cx.syn_error(syn::Error::new(
            skip.span,
            format!(
                "#[derive(Optics)] does not support #[serde({keyword})] on the field of a \
                 newtype variant: serde then reads `{v}` as a unit variant and fills the field \
                 with its default, which the prism `{v}` does not do, so byte optics could \
                 not find what serde_json decodes; make `{v}` a unit variant, or remove \
                 #[serde({keyword})]"
            ),
        ));
    }
    let borrowed = field.attrs.borrow
        && field.attrs.with_keyword.is_none()
        && field.attrs.skip_keyword.is_none();
    if let Some((bytes, lifetime)) = borrowable_cow(field.ty).filter(|_| borrowed) {
        let reads = if bytes {
            "which reads it from a string's bytes, never from an array"
        } else {
            "which borrows the string where it has no escapes"
        };
        cx.error_spanned_by(
            field.ty,
            format!(
                "#[derive(Optics)] does not support #[serde(borrow)] on a `Cow` that is the \
                 payload of a newtype variant: serde decodes `{v}`'s `{ty}` with its borrowing \
                 function ({reads}), which the prism `{v}` does not call, so byte optics could \
                 not find what \
                 serde_json decodes; make the payload a newtype struct that borrows, \
                 `{v}(Payload<{lifetime}>)` with \
                 `struct Payload<{lifetime}>(#[serde(borrow)] {ty})`: its JSON is the same"
            ),
        );
    }
}

/// `#[optics(name)]` and `#[optics(skip)]` on the one field of a newtype
/// variant would do nothing: the variant gets one prism, which the variant's
/// own `#[optics(...)]` names or leaves out. Refused at the attribute.
fn check_newtype_variant_optics(cx: &Ctxt, variant: &Variant) {
    if !variant.has_prism() || variant.style != Style::Tuple {
        return;
    }
    let v = variant.ident;
    let field = &variant.fields[0];
    if let Some(name) = &field.attrs.optic_name {
        cx.error_spanned_by(
            name,
            format!(
                "#[optics(name)] on the field of newtype variant `{v}` does nothing: `{v}` \
                 gets one prism, not one optic per field; put #[optics(name = \"...\")] on \
                 the variant to name its prism"
            ),
        );
    }
    if let Some(span) = field.attrs.optic_skip_span {
        cx.syn_error(syn::Error::new(
            span,
            format!(
                "#[optics(skip)] on the field of newtype variant `{v}` does nothing: `{v}` \
                 gets one prism, not one optic per field; put #[optics(skip)] on the variant \
                 to leave its prism out"
            ),
        ));
    }
}

/// One associated const the derive adds: its name, what it is, and where its
/// name comes from in the user's code.
struct Generated {
    name: String,
    what: String,
    /// `None` for the kind getter under its default name, which no token
    /// of the input spells.
    span: Option<Span>,
    is_kind: bool,
    /// The variant the optic belongs to, without `r#`.
    variant: Option<String>,
}

/// The span of the token that gives a field's optic its name: the string in
/// `#[optics(name = "...")]`, else the field's name, else (a tuple field) its type.
fn field_name_span(field: &Field) -> Span {
    match (&field.attrs.optic_name, &field.original.ident) {
        (Some(name), _) => name.span(),
        (None, Some(ident)) => ident.span(),
        (None, None) => field.ty.span(),
    }
}

/// Every associated const the derive adds.
fn generated_names(input: &Input) -> Vec<Generated> {
    let mut names = Vec::new();
    match &input.data {
        Data::Struct(_, fields) => {
            for field in fields.iter().filter(|f| !f.attrs.optic_skip) {
                names.push(Generated {
                    name: unraw(&field.optic),
                    what: format!("the lens on field `{}`", field.member.to_token_stream()),
                    span: Some(field_name_span(field)),
                    is_kind: false,
                    variant: None,
                });
            }
        }
        Data::Enum(variants) => {
            names.push(Generated {
                name: unraw(&input.kind_const()),
                what: format!(
                    "the kind getter `{}::{}`",
                    input.ident,
                    unraw(&input.kind_const())
                ),
                span: input.attrs.kind_name.as_ref().map(syn::Ident::span),
                is_kind: true,
                variant: None,
            });
            for variant in variants.iter().filter(|v| !v.attrs.optic_skip) {
                if variant.has_prism() {
                    names.push(Generated {
                        name: unraw(&variant.optic),
                        what: format!("the prism on variant `{}`", variant.ident),
                        span: Some(
                            variant
                                .attrs
                                .optic_name
                                .as_ref()
                                .map_or_else(|| variant.ident.span(), syn::Ident::span),
                        ),
                        is_kind: false,
                        variant: Some(unraw(variant.ident)),
                    });
                } else {
                    for field in variant.fields.iter().filter(|f| !f.attrs.optic_skip) {
                        names.push(Generated {
                            name: unraw(&field.optic),
                            what: format!(
                                "the optional on field `{}` of variant `{}`",
                                field.member.to_token_stream(),
                                variant.ident
                            ),
                            span: Some(field_name_span(field)),
                            is_kind: false,
                            variant: Some(unraw(variant.ident)),
                        });
                    }
                }
            }
        }
        Data::Union(_) => {}
    }
    names
}

/// Two optics with one name would be two consts with one name: reported here,
/// at both places, before the compiler's "duplicate definitions" could be.
fn check_names(cx: &Ctxt, input: &Input) {
    let mut seen: BTreeMap<String, Generated> = BTreeMap::new();
    for this in generated_names(input) {
        let Some(first) = seen.get(&this.name) else {
            seen.insert(this.name.clone(), this);
            continue;
        };
        let name = &this.name;
        let span = this.span.unwrap_or_else(|| input.ident.span());
        let mut error = if first.is_kind {
            syn::Error::new(
                span,
                format!(
                    "{} would be named `{name}`, like {}; rename the getter with \
                     #[optics(kind = \"...\")] on the enum, or this optic with \
                     #[optics(name = \"...\")]",
                    this.what, first.what
                ),
            )
        } else {
            syn::Error::new(
                span,
                format!(
                    "{} and {} would both be named `{name}`; rename one with \
                     #[optics(name = \"...\")] or leave one out with #[optics(skip)]",
                    first.what, this.what
                ),
            )
        };
        if let Some(first_span) = first.span {
            error.combine(syn::Error::new(
                first_span,
                format!("{} is named `{name}` here", first.what),
            ));
        }
        cx.syn_error(error);
    }
}

/// An optic named like a variant of its enum could not be reached:
/// `Enum::name` names the variant first. Reported at the optic's name, and
/// at the variant where that is another token.
fn check_variant_names(cx: &Ctxt, input: &Input) {
    let Data::Enum(variants) = &input.data else {
        return;
    };
    let generated = generated_names(input);
    for this in &generated {
        // Two optics of one name are reported once, by `check_names`.
        if generated.iter().filter(|g| g.name == this.name).count() > 1 {
            continue;
        }
        let Some(variant) = variants.iter().find(|v| unraw(v.ident) == this.name) else {
            continue;
        };
        let name = &this.name;
        let enum_name = input.ident;
        let own = this.variant.as_deref() == Some(name.as_str());
        let like = if own {
            "like the variant itself".to_owned()
        } else {
            format!("like variant `{}`", variant.ident)
        };
        let rename = if this.is_kind {
            "rename the getter with #[optics(kind = \"...\")] on the enum"
        } else {
            "rename the optic with #[optics(name = \"...\")]"
        };
        let span = this.span.unwrap_or_else(|| enum_name.span());
        let mut error = syn::Error::new(
            span,
            format!(
                "{} would be named `{name}`, {like}, and `{enum_name}::{}` names the \
                 variant, so the optic could not be reached; {rename}",
                this.what, variant.ident
            ),
        );
        if !own {
            error.combine(syn::Error::new(
                variant.ident.span(),
                format!("variant `{}` is here", variant.ident),
            ));
        }
        cx.syn_error(error);
    }
}
