//! serde's serialize-side attributes: what a byte write needs to write a field
//! as serde's derive writes it (the key it writes, `serialize_with`,
//! `skip_serializing_if`), and what rules a write out (`skip_serializing`,
//! `into`).
//!
//! Read in a pass of their own over `#[serde(...)]`, beside `attr.rs`, which
//! reads the deserialize side and reports every malformed attribute; this pass
//! reports nothing, and stops at an attribute it cannot parse.

use syn::meta::ParseNestedMeta;
use syn::{Attribute, LitStr, Token};

use crate::attr::skip_rest;
use crate::case::RenameRule;

const SERDE: &str = "serde";
const RENAME: &str = "rename";
const RENAME_ALL: &str = "rename_all";
const RENAME_ALL_FIELDS: &str = "rename_all_fields";
const SERIALIZE: &str = "serialize";
const DESERIALIZE: &str = "deserialize";
const SKIP: &str = "skip";
const SKIP_SERIALIZING: &str = "skip_serializing";
const SKIP_SERIALIZING_IF: &str = "skip_serializing_if";
const SERIALIZE_WITH: &str = "serialize_with";
const WITH: &str = "with";
const INTO: &str = "into";

/// A struct's or enum's serialize-side attributes.
#[derive(Default)]
pub struct SerContainer {
    pub rename_all: Option<RenameRule>,
    pub rename_all_fields: Option<RenameRule>,
    /// `#[serde(into = "...")]`: serde writes another type's JSON.
    pub into: bool,
}

/// A field's serialize-side attributes.
#[derive(Default)]
pub struct SerField {
    pub rename: Option<String>,
    /// `serialize_with = "path"`, or `with = "module"` as `module::serialize`.
    pub serialize_with: Option<syn::ExprPath>,
    /// `skip` or `skip_serializing`: serde never writes the field.
    pub skip_serializing: bool,
    pub skip_serializing_if: Option<syn::ExprPath>,
}

/// A variant's serialize-side attributes.
#[derive(Default)]
pub struct SerVariant {
    /// The tag serde writes: `rename = "..."`, or `rename(serialize = "...")`.
    pub rename: Option<String>,
    pub rename_all: Option<RenameRule>,
    /// `serialize_with` (or `with`), `skip` or `skip_serializing`: serde does
    /// not write the variant as its payload's `Serialize` would.
    pub written_otherwise: bool,
}

/// `key = "x"`, or `key(serialize = "a", deserialize = "b")`: the name serde
/// writes (`None` if only a deserialize name is given).
fn ser_name(meta: &ParseNestedMeta) -> syn::Result<Option<String>> {
    if meta.input.peek(Token![=]) {
        return Ok(Some(meta.value()?.parse::<LitStr>()?.value()));
    }
    let mut name = None;
    meta.parse_nested_meta(|nested| {
        let value = nested.value()?.parse::<LitStr>()?.value();
        if nested.path.is_ident(SERIALIZE) {
            name = Some(value);
        } else if !nested.path.is_ident(DESERIALIZE) {
            return Err(nested.error("expected `serialize` or `deserialize`"));
        }
        Ok(())
    })?;
    Ok(name)
}

fn ser_rule(meta: &ParseNestedMeta) -> syn::Result<Option<RenameRule>> {
    Ok(ser_name(meta)?.and_then(|name| RenameRule::from_str(&name)))
}

fn path(meta: &ParseNestedMeta) -> syn::Result<syn::ExprPath> {
    meta.value()?.parse::<LitStr>()?.parse()
}

/// Calls `f` on every nested meta of every `#[serde(...)]`; an attribute that
/// does not parse is left to `attr.rs` to report.
fn each(attrs: &[Attribute], mut f: impl FnMut(&ParseNestedMeta) -> syn::Result<bool>) {
    for attr in attrs.iter().filter(|attr| attr.path().is_ident(SERDE)) {
        let _ = attr.parse_nested_meta(|meta| {
            if !f(&meta)? {
                skip_rest(&meta)?;
            }
            Ok(())
        });
    }
}

pub fn container(attrs: &[Attribute]) -> SerContainer {
    let mut out = SerContainer::default();
    each(attrs, |meta| {
        if meta.path.is_ident(RENAME_ALL) {
            out.rename_all = ser_rule(meta)?.or(out.rename_all);
        } else if meta.path.is_ident(RENAME_ALL_FIELDS) {
            out.rename_all_fields = ser_rule(meta)?.or(out.rename_all_fields);
        } else if meta.path.is_ident(INTO) {
            out.into = true;
            return Ok(false);
        } else {
            return Ok(false);
        }
        Ok(true)
    });
    out
}

pub fn field(attrs: &[Attribute]) -> SerField {
    let mut out = SerField::default();
    each(attrs, |meta| {
        if meta.path.is_ident(RENAME) {
            out.rename = ser_name(meta)?.or(out.rename.take());
        } else if meta.path.is_ident(SERIALIZE_WITH) {
            out.serialize_with = Some(path(meta)?);
        } else if meta.path.is_ident(WITH) {
            let lit = meta.value()?.parse::<LitStr>()?;
            // A path in an expression, as serde parses it (`attr.rs` reports
            // one that is not).
            let mut function: syn::ExprPath = lit.parse()?;
            // Spanned on the module's name: a module without `serialize`
            // (enough for serde's `Deserialize` alone) is an error there.
            function
                .path
                .segments
                .push(syn::Ident::new(SERIALIZE, lit.span()).into());
            out.serialize_with = Some(function);
        } else if meta.path.is_ident(SKIP_SERIALIZING_IF) {
            out.skip_serializing_if = Some(path(meta)?);
        } else if meta.path.is_ident(SKIP) || meta.path.is_ident(SKIP_SERIALIZING) {
            out.skip_serializing = true;
        } else {
            return Ok(false);
        }
        Ok(true)
    });
    out
}

pub fn variant(attrs: &[Attribute]) -> SerVariant {
    let mut out = SerVariant::default();
    each(attrs, |meta| {
        if meta.path.is_ident(RENAME) {
            out.rename = ser_name(meta)?.or(out.rename.take());
            Ok(true)
        } else if meta.path.is_ident(RENAME_ALL) {
            out.rename_all = ser_rule(meta)?.or(out.rename_all);
            Ok(true)
        } else if [SERIALIZE_WITH, WITH, SKIP, SKIP_SERIALIZING]
            .iter()
            .any(|name| meta.path.is_ident(name))
        {
            // Only the name counts here: the rest is skipped.
            out.written_otherwise = true;
            Ok(false)
        } else {
            Ok(false)
        }
    });
    out
}
