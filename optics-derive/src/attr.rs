//! Attribute parsing: serde's attributes (the codec's own, read so that byte
//! optics find what serde_json decodes) and ours, `#[optics(...)]`.
//!
//! Unsupported serde attributes are recorded here with their span and rejected
//! in `valid.rs`, so every problem is reported at once.

use proc_macro2::Span;
use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::{Attribute, Ident, LitStr, Token};

use crate::case::RenameRule;
use crate::ctxt::Ctxt;

// serde's keywords.
const SERDE: &str = "serde";
const RENAME: &str = "rename";
const RENAME_ALL: &str = "rename_all";
const RENAME_ALL_FIELDS: &str = "rename_all_fields";
const ALIAS: &str = "alias";
const TAG: &str = "tag";
const CONTENT: &str = "content";
const UNTAGGED: &str = "untagged";
const TRANSPARENT: &str = "transparent";
const DEFAULT: &str = "default";
const FLATTEN: &str = "flatten";
const SKIP: &str = "skip";
const SKIP_DESERIALIZING: &str = "skip_deserializing";
const WITH: &str = "with";
const DESERIALIZE_WITH: &str = "deserialize_with";
const BORROW: &str = "borrow";
const OTHER: &str = "other";
const SERIALIZE: &str = "serialize";
const DESERIALIZE: &str = "deserialize";
/// serde attributes whose meaning the byte reader cannot follow: the keyword,
/// why, and what to do instead. `from` and `try_from` get a fix naming their
/// type (see `rejected`).
const REJECTED: &[(&str, &str, &str)] = &[
    (
        "from",
        "the JSON is another type's, decoded then converted",
        "derive Optics on the type named in `from` and read its JSON",
    ),
    (
        "try_from",
        "the JSON is another type's, decoded then converted",
        "derive Optics on the type named in `try_from` and read its JSON",
    ),
    (
        "remote",
        "the optics would be for this stand-in, not for the remote type",
        "remove #[derive(Optics)] from the remote definition",
    ),
    (
        "variant_identifier",
        "the enum is an identifier, not a value with variants",
        "remove #[derive(Optics)]; an identifier has nothing to focus",
    ),
    (
        "field_identifier",
        "the enum is an identifier, not a value with variants",
        "remove #[derive(Optics)]; an identifier has nothing to focus",
    ),
    (
        "getter",
        "it belongs to remote derives",
        "remove #[derive(Optics)] from the remote definition",
    ),
];

// Our keywords.
const OPTICS: &str = "optics";
const NAME: &str = "name";
const KIND: &str = "kind";
const KIND_TYPE: &str = "kind_type";
const CRATE: &str = "crate";

/// A name serde reads, with the span it was written at.
#[derive(Clone, Debug)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

/// `#[serde(default)]` and `#[serde(default = "path")]`.
#[derive(Clone, Debug, Default)]
pub enum DefaultValue {
    #[default]
    None,
    Trait,
    Path(syn::ExprPath),
}

/// A serde attribute the derive does not support, kept for `valid.rs`.
#[derive(Clone, Debug)]
pub struct Rejected {
    pub span: Span,
    pub keyword: String,
    pub why: &'static str,
    /// What to do instead, as the end of a sentence.
    pub fix: String,
}

#[derive(Default)]
pub struct ContainerAttrs {
    pub rename_all: Option<RenameRule>,
    pub rename_all_fields: Option<RenameRule>,
    pub tag: Option<Spanned<String>>,
    pub content: Option<Spanned<String>>,
    pub untagged: Option<Span>,
    pub transparent: Option<Span>,
    pub default: DefaultValue,
    pub rejected: Vec<Rejected>,
    /// `#[optics(kind = "...")]`: the name of the discriminant's const.
    pub kind_name: Option<Ident>,
    /// `#[optics(kind_type = "...")]`: the name of the generated kind enum.
    pub kind_type: Option<Ident>,
    /// `#[optics(crate = "...")]`: the path the output names `optics_core` by.
    pub crate_path: Option<syn::Path>,
}

#[derive(Default)]
pub struct FieldAttrs {
    pub rename: Option<Spanned<String>>,
    pub aliases: Vec<Spanned<String>>,
    pub default: DefaultValue,
    pub flatten: bool,
    pub skip_deserializing: bool,
    pub deserialize_with: Option<syn::ExprPath>,
    /// The keywords that set `skip_deserializing` and `deserialize_with`
    /// (`skip`, `with`, ...), where they are written: for errors about them.
    pub skip_keyword: Option<Spanned<String>>,
    pub with_keyword: Option<Spanned<String>>,
    pub borrow: bool,
    pub rejected: Vec<Rejected>,
    pub optic_name: Option<Ident>,
    pub optic_skip: bool,
    /// Where `#[optics(skip)]` is written, for an error about it.
    pub optic_skip_span: Option<Span>,
}

#[derive(Default)]
pub struct VariantAttrs {
    pub rename: Option<Spanned<String>>,
    pub aliases: Vec<Spanned<String>>,
    pub rename_all: Option<RenameRule>,
    pub skip_deserializing: bool,
    pub other: bool,
    /// `#[serde(borrow)]`: serde borrows the one field of a newtype variant.
    pub borrow: bool,
    pub rejected: Vec<Rejected>,
    pub optic_name: Option<Ident>,
    pub optic_skip: bool,
}

/// Where the attribute's keyword is written, for an error about it.
fn keyword_span(meta: &ParseNestedMeta) -> Span {
    meta.path
        .get_ident()
        .map_or_else(Span::call_site, Ident::span)
}

/// The attribute's keyword, where it is written.
fn keyword(meta: &ParseNestedMeta) -> Spanned<String> {
    Spanned {
        value: meta
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default(),
        span: keyword_span(meta),
    }
}

/// The string after `key =`.
fn lit_str(meta: &ParseNestedMeta) -> syn::Result<LitStr> {
    lit_str_in(meta, &keyword(meta).value)
}

/// The string after `key =`, nested in serde's attribute `attr_name` (as
/// `deserialize` is in `rename(...)`). Anything else is reported in serde's
/// words at serde's place, so that the compiler shows it once when serde's
/// derive reports it too.
fn lit_str_in(meta: &ParseNestedMeta, attr_name: &str) -> syn::Result<LitStr> {
    let expr: syn::Expr = meta.value()?.parse()?;
    let mut value = &expr;
    // A macro's `$name:expr` arrives in an invisible group.
    while let syn::Expr::Group(group) = value {
        value = &group.expr;
    }
    if let syn::Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Str(lit),
        ..
    }) = value
    {
        return Ok(lit.clone());
    }
    Err(syn::Error::new_spanned(
        &expr,
        format!(
            "expected serde {attr_name} attribute to be a string: `{} = \"...\"`",
            keyword(meta).value
        ),
    ))
}

/// `key = "x"`, or `key(serialize = "a", deserialize = "b")`: the name serde
/// reads when deserializing (`None` if only a serialize name is given).
fn de_name(meta: &ParseNestedMeta) -> syn::Result<Option<LitStr>> {
    if meta.input.peek(Token![=]) {
        return Ok(Some(lit_str(meta)?));
    }
    let attr_name = keyword(meta).value;
    let mut name = None;
    meta.parse_nested_meta(|nested| {
        if nested.path.is_ident(DESERIALIZE) {
            name = Some(lit_str_in(&nested, &attr_name)?);
        } else if nested.path.is_ident(SERIALIZE) {
            lit_str_in(&nested, &attr_name)?;
        } else {
            return Err(nested.error("expected `serialize` or `deserialize`"));
        }
        Ok(())
    })?;
    Ok(name)
}

fn rename_rule(meta: &ParseNestedMeta) -> syn::Result<Option<RenameRule>> {
    match de_name(meta)? {
        None => Ok(None),
        Some(lit) => match RenameRule::from_str(&lit.value()) {
            Some(rule) => Ok(Some(rule)),
            // In serde's words, at serde's place: shown once when serde's
            // derive reports it too.
            None => Err(syn::Error::new(
                lit.span(),
                format!(
                    "unknown rename rule `rename_all = {:?}`, expected one of {}",
                    lit.value(),
                    crate::case::RULES
                        .iter()
                        .map(|(name, _)| format!("{name:?}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )),
        },
    }
}

/// The path written in a serde attribute's string. If it is not one, the
/// error says so in serde's words at serde's place, so that the compiler
/// shows it once when serde's derive reports it too.
fn lit_path<T: syn::parse::Parse>(lit: &LitStr) -> syn::Result<T> {
    lit.parse().map_err(|_| {
        syn::Error::new(
            lit.span(),
            format!("failed to parse path: {:?}", lit.value()),
        )
    })
}

fn default_value(meta: &ParseNestedMeta) -> syn::Result<DefaultValue> {
    if meta.input.peek(Token![=]) {
        Ok(DefaultValue::Path(lit_path(&lit_str(meta)?)?))
    } else {
        Ok(DefaultValue::Trait)
    }
}

/// Consumes whatever follows a keyword we do not interpret (`= value` or
/// `(...)`), so that serde's other attributes pass through untouched.
pub(crate) fn skip_rest(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<syn::Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in meta.input);
        content.parse::<proc_macro2::TokenStream>()?;
    }
    Ok(())
}

fn rejected(meta: &ParseNestedMeta, into: &mut Vec<Rejected>) -> syn::Result<bool> {
    for (keyword, why, fix) in REJECTED {
        if meta.path.is_ident(keyword) {
            let mut fix = (*fix).to_owned();
            if *keyword == "from" || *keyword == "try_from" {
                // `from = "Raw"`: name the type, so the fix can be followed as is.
                let mut value: syn::Expr = meta.value()?.parse()?;
                while let syn::Expr::Group(group) = value {
                    value = *group.expr;
                }
                if let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(ty),
                    ..
                }) = value
                {
                    fix = format!(
                        "derive Optics on `{ty}`, the type the JSON is, and read it as `Json<{ty}>`",
                        ty = ty.value()
                    );
                }
            } else {
                skip_rest(meta)?;
            }
            into.push(Rejected {
                span: keyword_span(meta),
                keyword: (*keyword).to_owned(),
                why,
                fix,
            });
            return Ok(true);
        }
    }
    Ok(false)
}

/// Parses `#[optics(...)]`'s value as an identifier (a keyword becomes a raw
/// identifier). The value is a string, as in serde's attributes; anything else
/// gets a message that shows how to write it.
fn ident_value(meta: &ParseNestedMeta) -> syn::Result<Ident> {
    let key = meta
        .path
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_default();
    if !meta.input.peek(Token![=]) {
        return Err(meta.error(format!("`{key}` needs a value: `{key} = \"...\"`")));
    }
    let mut value: syn::Expr = meta.value()?.parse()?;
    // A macro's `$name:expr` or `$name:literal` arrives in an invisible group.
    while let syn::Expr::Group(group) = value {
        value = *group.expr;
    }
    let lit = match value {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(lit),
            ..
        }) => lit,
        syn::Expr::Path(path) if path.path.get_ident().is_some() => {
            let text = path.to_token_stream();
            return Err(syn::Error::new_spanned(
                path,
                format!("`{key}` takes a string: write `{key} = \"{text}\"`"),
            ));
        }
        other => {
            return Err(syn::Error::new_spanned(
                other,
                format!("`{key}` takes the name as a string: `{key} = \"...\"`"),
            ));
        }
    };
    crate::ast::ident_for(&lit.value(), lit.span()).ok_or_else(|| {
        syn::Error::new(
            lit.span(),
            format!("`{}` is not a valid Rust identifier", lit.value()),
        )
    })
}

fn each(
    cx: &Ctxt,
    attrs: &[Attribute],
    name: &str,
    mut f: impl FnMut(ParseNestedMeta) -> syn::Result<()>,
) {
    for attr in attrs.iter().filter(|attr| attr.path().is_ident(name)) {
        if let Err(error) = attr.parse_nested_meta(&mut f) {
            cx.syn_error(error);
        }
    }
}

fn unknown_optics_key(meta: &ParseNestedMeta, allowed: &str) -> syn::Error {
    let key = meta
        .path
        .segments
        .iter()
        .map(|segment| segment.ident.to_string())
        .collect::<Vec<_>>()
        .join("::");
    let key = if meta.path.leading_colon.is_some() {
        format!("::{key}")
    } else {
        key
    };
    meta.error(format!(
        "unknown optics attribute `{key}`: expected {allowed}"
    ))
}

/// The keys of `#[optics(...)]` given so far on one item, across all its
/// `#[optics]` attributes: a key given twice is an error, where serde's own
/// attributes are too, rather than the last value winning silently.
#[derive(Default)]
struct SeenKeys(Vec<&'static str>);

impl SeenKeys {
    /// Records `key`; reports it, spanned on the key and its value, if it
    /// was given before. Call after the value is parsed.
    fn once(&mut self, cx: &Ctxt, meta: &ParseNestedMeta, key: &'static str) -> bool {
        if self.0.contains(&key) {
            cx.syn_error(meta.error(format!("duplicate optics attribute `{key}`: give it once")));
            return false;
        }
        self.0.push(key);
        true
    }
}

pub fn container(cx: &Ctxt, attrs: &[Attribute], is_enum: bool) -> ContainerAttrs {
    let mut out = ContainerAttrs::default();
    each(cx, attrs, SERDE, |meta| {
        if meta.path.is_ident(RENAME_ALL) {
            if let Some(rule) = rename_rule(&meta)? {
                out.rename_all = Some(rule);
            }
        } else if meta.path.is_ident(RENAME_ALL_FIELDS) {
            if let Some(rule) = rename_rule(&meta)? {
                out.rename_all_fields = Some(rule);
            }
        } else if meta.path.is_ident(TAG) {
            let lit = lit_str(&meta)?;
            out.tag = Some(Spanned {
                value: lit.value(),
                span: lit.span(),
            });
        } else if meta.path.is_ident(CONTENT) {
            let lit = lit_str(&meta)?;
            out.content = Some(Spanned {
                value: lit.value(),
                span: lit.span(),
            });
        } else if meta.path.is_ident(UNTAGGED) {
            out.untagged = Some(keyword_span(&meta));
        } else if meta.path.is_ident(TRANSPARENT) {
            out.transparent = Some(keyword_span(&meta));
        } else if meta.path.is_ident(DEFAULT) {
            out.default = default_value(&meta)?;
        } else if !rejected(&meta, &mut out.rejected)? {
            skip_rest(&meta)?;
        }
        Ok(())
    });
    let mut seen = SeenKeys::default();
    each(cx, attrs, OPTICS, |meta| {
        if meta.path.is_ident(CRATE) {
            let path = crate_path(&meta)?;
            if seen.once(cx, &meta, CRATE) {
                out.crate_path = Some(path);
            }
        } else if is_enum && meta.path.is_ident(KIND) {
            let ident = ident_value(&meta)?;
            if seen.once(cx, &meta, KIND) {
                out.kind_name = Some(ident);
            }
        } else if is_enum && meta.path.is_ident(KIND_TYPE) {
            let ident = ident_value(&meta)?;
            if seen.once(cx, &meta, KIND_TYPE) {
                out.kind_type = Some(ident);
            }
        } else if is_enum {
            return Err(unknown_optics_key(
                &meta,
                "`kind = \"...\"`, `kind_type = \"...\"` or `crate = \"...\"` on an enum",
            ));
        } else {
            return Err(unknown_optics_key(
                &meta,
                "`crate = \"...\"` on a struct (`name` and `skip` go on fields)",
            ));
        }
        Ok(())
    });
    out
}

/// The path in `crate = "..."`: where the user's crate finds `optics_core`
/// (renamed in `Cargo.toml`, or re-exported by another crate).
fn crate_path(meta: &ParseNestedMeta) -> syn::Result<syn::Path> {
    if !meta.input.peek(Token![=]) {
        return Err(meta.error("`crate` needs a value: `crate = \"path::to::optics_core\"`"));
    }
    let expr: syn::Expr = meta.value()?.parse()?;
    let mut value = &expr;
    // A macro's `$name:expr` or `$name:literal` arrives in an invisible group.
    while let syn::Expr::Group(group) = value {
        value = &group.expr;
    }
    let syn::Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Str(lit),
        ..
    }) = value
    else {
        return Err(syn::Error::new_spanned(
            &expr,
            "`crate` takes a path in a string: `crate = \"path::to::optics_core\"`",
        ));
    };
    lit.parse_with(syn::Path::parse_mod_style).map_err(|_| {
        syn::Error::new(
            lit.span(),
            format!(
                "`crate = {:?}` is not a path: write the path the crate is known by, \
                 as `crate = \"my_optics\"` or `crate = \"::facade::optics_core\"`",
                lit.value()
            ),
        )
    })
}

/// `#[optics(name = "...")]` and `#[optics(skip)]` on a field or variant:
/// the name, and where `skip` is written.
fn optics_member(
    cx: &Ctxt,
    attrs: &[Attribute],
    name: &mut Option<Ident>,
    skip: &mut Option<Span>,
) {
    let mut seen = SeenKeys::default();
    each(cx, attrs, OPTICS, |meta| {
        if meta.path.is_ident(NAME) {
            let ident = ident_value(&meta)?;
            if seen.once(cx, &meta, NAME) {
                *name = Some(ident);
            }
        } else if meta.path.is_ident(SKIP) {
            if meta.input.peek(Token![=]) || meta.input.peek(syn::token::Paren) {
                skip_rest(&meta)?;
                return Err(meta.error("`skip` takes no value: write `#[optics(skip)]`"));
            }
            if seen.once(cx, &meta, SKIP) {
                *skip = Some(keyword_span(&meta));
            }
        } else {
            return Err(unknown_optics_key(&meta, "`name = \"...\"` or `skip`"));
        }
        Ok(())
    });
}

/// `rename` and `alias`, which fields and variants read alike: whether `meta`
/// was one of them.
fn serde_name(
    meta: &ParseNestedMeta,
    rename: &mut Option<Spanned<String>>,
    aliases: &mut Vec<Spanned<String>>,
) -> syn::Result<bool> {
    let spanned = |lit: LitStr| Spanned {
        value: lit.value(),
        span: lit.span(),
    };
    if meta.path.is_ident(RENAME) {
        if let Some(lit) = de_name(meta)? {
            *rename = Some(spanned(lit));
        }
    } else if meta.path.is_ident(ALIAS) {
        aliases.push(spanned(lit_str(meta)?));
    } else {
        return Ok(false);
    }
    Ok(true)
}

pub fn field(cx: &Ctxt, attrs: &[Attribute]) -> FieldAttrs {
    let mut out = FieldAttrs::default();
    each(cx, attrs, SERDE, |meta| {
        if serde_name(&meta, &mut out.rename, &mut out.aliases)? {
            return Ok(());
        }
        if meta.path.is_ident(DEFAULT) {
            out.default = default_value(&meta)?;
        } else if meta.path.is_ident(FLATTEN) {
            out.flatten = true;
        } else if meta.path.is_ident(SKIP) || meta.path.is_ident(SKIP_DESERIALIZING) {
            out.skip_deserializing = true;
            out.skip_keyword = Some(keyword(&meta));
        } else if meta.path.is_ident(WITH) {
            out.with_keyword = Some(keyword(&meta));
            // Parsed as serde parses it, as a path in an expression: a
            // module written `m<T>` is refused here rather than making a
            // function path that cannot be parsed.
            let mut function: syn::ExprPath = lit_path(&lit_str(&meta)?)?;
            function
                .path
                .segments
                .push(Ident::new(DESERIALIZE, Span::call_site()).into());
            out.deserialize_with = Some(function);
        } else if meta.path.is_ident(DESERIALIZE_WITH) {
            out.with_keyword = Some(keyword(&meta));
            out.deserialize_with = Some(lit_path(&lit_str(&meta)?)?);
        } else if meta.path.is_ident(BORROW) {
            out.borrow = true;
            skip_rest(&meta)?;
        } else if !rejected(&meta, &mut out.rejected)? {
            skip_rest(&meta)?;
        }
        Ok(())
    });
    optics_member(cx, attrs, &mut out.optic_name, &mut out.optic_skip_span);
    out.optic_skip = out.optic_skip_span.is_some();
    out
}

pub fn variant(cx: &Ctxt, attrs: &[Attribute]) -> VariantAttrs {
    let mut out = VariantAttrs::default();
    each(cx, attrs, SERDE, |meta| {
        if serde_name(&meta, &mut out.rename, &mut out.aliases)? {
            return Ok(());
        }
        if meta.path.is_ident(RENAME_ALL) {
            if let Some(rule) = rename_rule(&meta)? {
                out.rename_all = Some(rule);
            }
        } else if meta.path.is_ident(SKIP) || meta.path.is_ident(SKIP_DESERIALIZING) {
            out.skip_deserializing = true;
        } else if meta.path.is_ident(OTHER) {
            out.other = true;
        } else if meta.path.is_ident(BORROW) {
            out.borrow = true;
            skip_rest(&meta)?;
        } else if meta.path.is_ident(WITH) || meta.path.is_ident(DESERIALIZE_WITH) {
            out.rejected.push(Rejected {
                span: keyword_span(&meta),
                keyword: meta.path.get_ident().map(ToString::to_string).unwrap_or_default(),
                why: "the variant's payload would be decoded by a function the byte reader cannot follow",
                fix: "give the variant one field, a newtype struct whose field is read with \
                      the function: `Variant(Payload)` with \
                      `struct Payload(#[serde(deserialize_with = \"...\")] T)`, `T` what the \
                      function returns; its JSON is the same"
                    .to_owned(),
            });
            skip_rest(&meta)?;
        } else if meta.path.is_ident(UNTAGGED) {
            out.rejected.push(Rejected {
                span: keyword_span(&meta),
                keyword: UNTAGGED.to_owned(),
                why: "an untagged variant can only be recognized by decoding it",
                fix: "remove #[serde(untagged)] from the variant, so serde writes its tag"
                    .to_owned(),
            });
        } else if !rejected(&meta, &mut out.rejected)? {
            skip_rest(&meta)?;
        }
        Ok(())
    });
    let mut skip = None;
    optics_member(cx, attrs, &mut out.optic_name, &mut skip);
    out.optic_skip = skip.is_some();
    out
}
