//! Checks across attributes: what the byte reader cannot follow, and names
//! that would clash. Every problem is recorded; none stops the others.

use std::collections::BTreeMap;

use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::ast::{Data, Field, Input, Style};
use crate::attr::Rejected;
use crate::ctxt::Ctxt;

pub fn check(cx: &Ctxt, input: &Input) {
    reject_all(cx, &input.attrs.rejected);
    match &input.data {
        Data::Union(token) => cx.error_spanned_by(
            token,
            "#[derive(Optics)] does not support unions: a union has no field that is \
             known to be there, so no lens can be sound; use a struct or an enum",
        ),
        Data::Struct(style, fields) => {
            check_fields(cx, fields);
            if let Some(span) = input.attrs.transparent {
                let read = fields.iter().filter(|f| !f.attrs.skip_deserializing).count();
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
                cx.syn_error(syn::Error::new(span, "#[serde(transparent)] is for structs"));
            }
            for variant in variants {
                reject_all(cx, &variant.attrs.rejected);
                check_fields(cx, &variant.fields);
                if variant.attrs.other && variant.style != Style::Unit {
                    cx.error_spanned_by(variant.ident, "#[serde(other)] goes on a unit variant");
                }
            }
        }
    }
    check_names(cx, input);
}

fn reject_all(cx: &Ctxt, rejected: &[Rejected]) {
    for Rejected { span, keyword, why } in rejected {
        cx.syn_error(syn::Error::new(
            *span,
            format!(
                "#[derive(Optics)] does not support #[serde({keyword})]: {why}, so byte \
                 optics could not find what serde_json decodes"
            ),
        ));
    }
}

fn check_fields(cx: &Ctxt, fields: &[Field]) {
    for field in fields {
        reject_all(cx, &field.attrs.rejected);
        if field.attrs.flatten && field.original.ident.is_none() {
            cx.error_spanned_by(field.original, "#[serde(flatten)] needs a named field");
        }
    }
}

/// Every associated const the derive adds, with where its name comes from.
fn generated_names(input: &Input) -> Vec<(String, Span)> {
    let mut names = Vec::new();
    let mut push = |ident: &syn::Ident, span: Span| {
        let text = ident.to_string();
        names.push((text.strip_prefix("r#").unwrap_or(&text).to_owned(), span));
    };
    match &input.data {
        Data::Struct(_, fields) => {
            for field in fields.iter().filter(|f| !f.attrs.optic_skip) {
                push(&field.optic, field.original.span());
            }
        }
        Data::Enum(variants) => {
            push(&input.kind_const(), input.ident.span());
            for variant in variants.iter().filter(|v| !v.attrs.optic_skip) {
                if variant.has_prism() {
                    push(&variant.optic, variant.ident.span());
                } else {
                    for field in variant.fields.iter().filter(|f| !f.attrs.optic_skip) {
                        push(&field.optic, field.original.span());
                    }
                }
            }
        }
        Data::Union(_) => {}
    }
    names
}

fn check_names(cx: &Ctxt, input: &Input) {
    let mut seen: BTreeMap<String, Span> = BTreeMap::new();
    for (name, span) in generated_names(input) {
        match seen.get(&name) {
            Some(first) => {
                let mut error = syn::Error::new(
                    span,
                    format!(
                        "two optics would be named `{name}`; rename one with \
                         #[optics(name = \"...\")] or leave one out with #[optics(skip)]"
                    ),
                );
                error.combine(syn::Error::new(*first, format!("first `{name}` is here")));
                cx.syn_error(error);
            }
            None => {
                seen.insert(name, span);
            }
        }
    }
}
