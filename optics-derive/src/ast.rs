//! The typed model of the derive's input: what each field and variant is, its
//! attributes, the optic's name and the JSON names serde reads. Borrows from
//! syn and keeps the original nodes for spans.

use proc_macro2::Span;
use quote::format_ident;
use syn::ext::IdentExt;
use syn::{DeriveInput, Ident, Member, Type, Visibility};

use crate::attr::{self, ContainerAttrs, FieldAttrs, VariantAttrs};
use crate::case::{optic_name_of_variant, RenameRule};
use crate::ctxt::Ctxt;

pub struct Input<'a> {
    pub original: &'a DeriveInput,
    pub ident: &'a Ident,
    pub vis: &'a Visibility,
    pub attrs: ContainerAttrs,
    pub data: Data<'a>,
}

pub enum Data<'a> {
    Struct(Style, Vec<Field<'a>>),
    Enum(Vec<Variant<'a>>),
    Union(&'a syn::token::Union),
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Named,
    Tuple,
    Unit,
}

pub struct Field<'a> {
    pub original: &'a syn::Field,
    pub member: Member,
    pub ty: &'a Type,
    pub attrs: FieldAttrs,
    /// The optic's name: the field's, or `#[optics(name)]`; `_0` for tuples.
    pub optic: Ident,
    /// The key serde reads, then the aliases (named fields only).
    pub json_names: Vec<String>,
}

pub struct Variant<'a> {
    pub original: &'a syn::Variant,
    pub ident: &'a Ident,
    pub style: Style,
    pub fields: Vec<Field<'a>>,
    pub attrs: VariantAttrs,
    /// The prism's name: the variant's in snake_case, or `#[optics(name)]`.
    pub optic: Ident,
    /// The tag serde reads, then the aliases; empty if serde never reads it.
    pub tag_names: Vec<String>,
}

/// An identifier for `text`, raw if it is a keyword; `None` if it cannot be one.
pub fn ident_for(text: &str, span: Span) -> Option<Ident> {
    // Only an identifier's characters reach the lexer: it would read a
    // string with a comment or spaces as the identifier in it, and report a
    // prefix such as `k#` itself, at the derive.
    let bare = text.strip_prefix("r#").unwrap_or(text);
    let mut chars = bare.chars();
    let starts = chars.next().is_some_and(|c| c == '_' || c.is_alphabetic());
    if !starts || !chars.all(|c| c == '_' || c.is_alphanumeric()) {
        return None;
    }
    // syn knows the keywords of every edition but these, which a later
    // edition reserved: the span given is the user's, so the identifier is
    // read in the user's edition and must be raw there.
    const RESERVED_LATER: &[&str] = &["gen"];
    let parsed = if RESERVED_LATER.contains(&text) {
        syn::parse_str::<Ident>(&format!("r#{text}"))
    } else {
        syn::parse_str::<Ident>(text).or_else(|_| syn::parse_str::<Ident>(&format!("r#{text}")))
    };
    let mut ident = parsed.ok()?;
    ident.set_span(span);
    Some(ident)
}

/// An identifier's name as serde and messages spell it: without `r#`. The
/// one place the derive strips it.
pub fn unraw(ident: &Ident) -> String {
    IdentExt::unraw(ident).to_string()
}

fn fields<'a>(
    cx: &Ctxt,
    fields: &'a syn::Fields,
    rename_all: Option<RenameRule>,
    optic_prefix: Option<&str>,
) -> (Style, Vec<Field<'a>>) {
    let style = match fields {
        syn::Fields::Named(_) => Style::Named,
        syn::Fields::Unnamed(_) => Style::Tuple,
        syn::Fields::Unit => Style::Unit,
    };
    let fields = fields
        .iter()
        .enumerate()
        .map(|(i, original)| {
            let attrs = attr::field(cx, &original.attrs);
            let (member, base_name) = match &original.ident {
                Some(ident) => (Member::Named(ident.clone()), unraw(ident)),
                None => (Member::Unnamed(i.into()), i.to_string()),
            };
            let optic = match (&attrs.optic_name, optic_prefix, &original.ident) {
                (Some(name), _, _) => name.clone(),
                (None, Some(prefix), _) => format_ident!("{}_{}", prefix, base_name),
                (None, None, Some(ident)) => ident.clone(),
                (None, None, None) => format_ident!("_{}", i),
            };
            let mut json_names = Vec::new();
            if original.ident.is_some() {
                json_names.push(match (&attrs.rename, rename_all) {
                    (Some(rename), _) => rename.value.clone(),
                    (None, Some(rule)) => rule.apply_to_field(&base_name),
                    (None, None) => base_name.clone(),
                });
                json_names.extend(attrs.aliases.iter().map(|alias| alias.value.clone()));
            }
            Field {
                original,
                member,
                ty: &original.ty,
                attrs,
                optic,
                json_names,
            }
        })
        .collect();
    (style, fields)
}

impl<'a> Input<'a> {
    pub fn from_syn(cx: &Ctxt, input: &'a DeriveInput) -> Self {
        let is_enum = matches!(input.data, syn::Data::Enum(_));
        let attrs = attr::container(cx, &input.attrs, is_enum);
        let data = match &input.data {
            syn::Data::Struct(data) => {
                let (style, mut fields) = fields(cx, &data.fields, attrs.rename_all, None);
                if let [only] = fields.as_mut_slice() {
                    if style == Style::Tuple {
                        // serde decodes a newtype struct's only field whatever
                        // its `skip` or `skip_deserializing`: its
                        // `visit_newtype_struct` does not look at them.
                        only.attrs.skip_deserializing = false;
                        only.attrs.skip_keyword = None;
                    }
                }
                Data::Struct(style, fields)
            }
            syn::Data::Enum(data) => Data::Enum(
                data.variants
                    .iter()
                    .map(|original| {
                        let vattrs = attr::variant(cx, &original.attrs);
                        let snake = optic_name_of_variant(&unraw(&original.ident));
                        let optic = vattrs
                            .optic_name
                            .clone()
                            .or_else(|| ident_for(&snake, original.ident.span()))
                            .unwrap_or_else(|| format_ident!("{}_", snake));
                        let field_rule = vattrs.rename_all.or(attrs.rename_all_fields);
                        let prefix = unraw(&optic);
                        let (style, mut fields) =
                            fields(cx, &original.fields, field_rule, Some(&prefix));
                        if vattrs.borrow {
                            // serde borrows the fields of a variant marked
                            // `borrow` as if each were.
                            for field in &mut fields {
                                field.attrs.borrow = true;
                            }
                        }
                        let mut tag_names = Vec::new();
                        if !vattrs.skip_deserializing {
                            tag_names.push(match (&vattrs.rename, attrs.rename_all) {
                                (Some(rename), _) => rename.value.clone(),
                                (None, Some(rule)) => {
                                    rule.apply_to_variant(&unraw(&original.ident))
                                }
                                (None, None) => unraw(&original.ident),
                            });
                            tag_names
                                .extend(vattrs.aliases.iter().map(|alias| alias.value.clone()));
                        }
                        Variant {
                            original,
                            ident: &original.ident,
                            style,
                            fields,
                            attrs: vattrs,
                            optic,
                            tag_names,
                        }
                    })
                    .collect(),
            ),
            syn::Data::Union(data) => Data::Union(&data.union_token),
        };
        Input {
            original: input,
            ident: &input.ident,
            vis: &input.vis,
            attrs,
            data,
        }
    }

    /// Whether a struct field's type is unsized, refused in `valid.rs`:
    /// then nothing is generated, so that the refusal is the only error.
    pub fn has_unsized_field(&self) -> bool {
        match &self.data {
            Data::Struct(_, fields) => fields.iter().any(|f| is_unsized_type(f.ty)),
            _ => false,
        }
    }

    /// The input's generic parameters named like one the expansion declares
    /// (refused in `valid.rs`; then nothing is generated, so that the
    /// refusals are the only errors).
    pub fn reserved_generics(&self) -> Vec<&'a syn::GenericParam> {
        // The type parameters and lifetimes the generated impls and methods
        // declare; an enum's also declare those of its payload accessor.
        let is_enum = matches!(self.data, Data::Enum(_));
        let reserved = |name: &Ident, all: &[&str], enums: &[&str]| {
            all.iter()
                .chain(if is_enum { enums } else { &[] })
                .any(|n| name == n)
        };
        self.original
            .generics
            .params
            .iter()
            .filter(|param| match param {
                syn::GenericParam::Type(ty) => reserved(&ty.ident, &["__X"], &["__R", "__K"]),
                syn::GenericParam::Lifetime(lt) => {
                    reserved(&lt.lifetime.ident, &["__de", "__w", "__x"], &["__s"])
                }
                // Type and const parameters share one namespace.
                syn::GenericParam::Const(c) => reserved(&c.ident, &["__X"], &["__R", "__K"]),
            })
            .collect()
    }

    /// The discriminant getter's name: `kind`, or `#[optics(kind = "...")]`.
    pub fn kind_const(&self) -> Ident {
        self.attrs
            .kind_name
            .clone()
            .unwrap_or_else(|| Ident::new("kind", self.ident.span()))
    }

    /// The kind enum's name: `{Enum}Kind`, or `#[optics(kind_type = "...")]`.
    /// A `kind_type` that names the enum itself is refused in `valid.rs`; the
    /// default is generated in its place, so that refusal is the only error.
    pub fn kind_type(&self) -> Ident {
        self.attrs
            .kind_type
            .clone()
            .filter(|name| !self.kind_type_is_own_name(name))
            .unwrap_or_else(|| format_ident!("{}Kind", self.ident))
    }

    /// Whether `name` is the enum's own name, as `kind_type` must not be.
    pub fn kind_type_is_own_name(&self, name: &Ident) -> bool {
        unraw(name) == unraw(self.ident)
    }
}

impl Variant<'_> {
    /// A variant with one payload (unit or newtype) gets a prism; others get
    /// one optional per field.
    pub fn has_prism(&self) -> bool {
        match self.style {
            Style::Unit => true,
            Style::Tuple => self.fields.len() == 1,
            Style::Named => false,
        }
    }
}

impl Field<'_> {
    /// Whether the derive reads this field as flattened: `#[serde(flatten)]`
    /// on a field it does not refuse (a map, an `Option`, a field read `with`
    /// a function are refused in `valid.rs`, and then laid out as before so
    /// that the refusal is the only error).
    pub fn flattens(&self) -> bool {
        self.attrs.flatten
            && self.original.ident.is_some()
            && !self.attrs.skip_deserializing
            && self.attrs.deserialize_with.is_none()
            && !is_map_type(self.ty)
            && !is_option_type(self.ty)
    }
}

/// Whether a type is spelled as one of the maps serde flattens members into:
/// a map with its parameters (`HashMap<K, V>`, `serde_json::Map<String,
/// Value>`), or `serde_json::Value` with its crate. A bare `Value` or `Map`
/// may be the model's own struct, which flattens in place; serde_json's, like
/// a map behind an alias, gets the `Flatten` bound's message instead.
pub fn is_map_type(ty: &Type) -> bool {
    const MAPS: &[&str] = &["HashMap", "BTreeMap", "IndexMap", "Map"];
    match ty {
        Type::Path(path) => {
            let segments = &path.path.segments;
            let Some(last) = segments.last() else {
                return false;
            };
            let generic = matches!(last.arguments, syn::PathArguments::AngleBracketed(_));
            let json_value = last.ident == "Value"
                && segments.len() >= 2
                && segments[segments.len() - 2].ident == "serde_json";
            (generic && MAPS.iter().any(|name| last.ident == name)) || json_value
        }
        Type::Group(group) => is_map_type(&group.elem),
        _ => false,
    }
}

/// Whether a type is spelled as one that has no size: a slice, `str` or a
/// trait object (the last field of a struct may be one).
pub fn is_unsized_type(ty: &Type) -> bool {
    match ty {
        Type::Slice(_) | Type::TraitObject(_) => true,
        Type::Path(path) => path.qself.is_none() && path.path.is_ident("str"),
        Type::Group(group) => is_unsized_type(&group.elem),
        Type::Paren(paren) => is_unsized_type(&paren.elem),
        _ => false,
    }
}

/// `Cow<'x, str>` or `Cow<'x, [u8]>`, spelled as serde looks for them: the
/// types serde decodes with its borrowing functions under
/// `#[serde(borrow)]`. `true` for `[u8]`; and `'x`.
pub fn borrowable_cow(ty: &Type) -> Option<(bool, &syn::Lifetime)> {
    let Type::Path(path) = ungroup(ty) else {
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
    match ungroup(elem) {
        Type::Path(elem) if elem.qself.is_none() && elem.path.is_ident("str") => {
            Some((false, lifetime))
        }
        Type::Slice(slice) if matches!(ungroup(&slice.elem), Type::Path(elem) if elem.path.is_ident("u8")) => {
            Some((true, lifetime))
        }
        _ => None,
    }
}

fn ungroup(ty: &Type) -> &Type {
    match ty {
        Type::Group(group) => ungroup(&group.elem),
        ty => ty,
    }
}

/// Whether a type is spelled `Option<...>`.
pub fn is_option_type(ty: &Type) -> bool {
    last_segment_is(ty, &["Option"])
}

/// `T` of a type spelled `Option<T>`.
pub fn option_payload(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ungroup(ty) else {
        return None;
    };
    let segment = path.path.segments.last()?;
    let syn::PathArguments::AngleBracketed(args) = &segment.arguments else {
        return None;
    };
    match (
        segment.ident == "Option",
        args.args.first(),
        args.args.len(),
    ) {
        (true, Some(syn::GenericArgument::Type(payload)), 1) => Some(payload),
        _ => None,
    }
}

fn last_segment_is(ty: &Type, names: &[&str]) -> bool {
    match ty {
        Type::Path(path) => path
            .path
            .segments
            .last()
            .is_some_and(|segment| names.iter().any(|name| segment.ident == name)),
        Type::Group(group) => last_segment_is(&group.elem, names),
        _ => false,
    }
}
