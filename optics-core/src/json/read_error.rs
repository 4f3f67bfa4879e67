//! Why a byte read gave nothing: [`Json::try_read`] and [`Strict::try_read`]
//! read as [`Json::read`] does and, where that misses, find out why by
//! asking serde_json, the oracle the reads follow. The fast path is the
//! read itself; the explanation is paid for only on a miss.

use core::fmt;

use serde::Deserialize;

use super::{scan, Json, JsonDecode, JsonOptic, Located, Spot, Strict};
use crate::optic::Preview;

/// Why [`Json::try_read`] or [`Strict::try_read`] found no focus.
#[derive(Debug)]
#[non_exhaustive]
pub enum ReadError {
    /// The bytes are not one well-formed JSON document: what is wrong, and
    /// at which byte.
    Malformed(scan::SyntaxError),
    /// A key on the path stands twice in its object (strict reads only):
    /// the byte offset, in the view's bytes, of the second one's opening
    /// quote.
    Duplicate {
        /// Where the repeated key stands.
        offset: usize,
    },
    /// serde_json does not decode the document as the view's type: its
    /// error, with line and column. It is the first error serde_json meets
    /// in the whole document, which may lie off the path read (a member of
    /// the wrong type elsewhere).
    Model {
        /// The view's type, as `core::any::type_name` names it (displayed
        /// without its module paths).
        model: &'static str,
        /// serde_json's error.
        error: serde_json::Error,
    },
    /// The document decodes as the view's type and the path has no focus
    /// in it: a prism on another variant, a `None`, a map key the map does
    /// not have, an index past the end.
    NoFocus,
    /// The document decodes as the view's type, and the path goes on past
    /// a struct field the document leaves out: serde fills that field in
    /// (its default) and reads the focus in it, while the byte read has no
    /// bytes there to read on in and misses, as documented (see the
    /// crate's `SERDE_ATTRIBUTES.md`). Read the field itself, or decode.
    PastAbsent,
    /// The document decodes as the view's type, and the path goes through
    /// more flatten and internal-tag levels on one object than the byte
    /// reader follows (six): reads there miss, as documented (see the
    /// crate's `SERDE_ATTRIBUTES.md`). Decode instead.
    TooManyLevels,
    /// serde_json reads a focus that the byte read missed. The byte reader
    /// is meant to read every model it accepts exactly as serde_json does,
    /// so this is a bug in this crate: please report it with the document.
    Unread,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Malformed(error) => write!(f, "not one JSON document: {error}"),
            ReadError::Duplicate { offset } => write!(
                f,
                "a key on the path stands twice in its object: the second at byte {offset}"
            ),
            ReadError::Model { model, error } => {
                write!(
                    f,
                    "serde_json does not read the document as `{}`: {error}",
                    without_paths(model)
                )
            }
            ReadError::NoFocus => f.write_str(
                "the path has no focus in this document (another variant, a None, \
                 a map key it does not have, or an index past the end)",
            ),
            ReadError::PastAbsent => f.write_str(
                "the path goes on past a field the document leaves out: serde fills it in, \
                 the byte read has no bytes there to read on in",
            ),
            ReadError::TooManyLevels => f.write_str(
                "the path goes through more flatten and internal-tag levels on one object \
                 than the byte read follows (six)",
            ),
            ReadError::Unread => f.write_str(
                "serde_json reads a focus here that the byte read missed: a bug in optics, \
                 please report it with the document",
            ),
        }
    }
}

impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReadError::Malformed(error) => Some(error),
            ReadError::Model { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// A type's name without the module paths in it: `Vec<Item>` for
/// `alloc::vec::Vec<app::Item>`, `Local` for `app::main::{{closure}}::Local`
/// and for `app::<app::Foo as app::Trait>::method::Local` (a type declared
/// in a closure or a trait impl's method).
fn without_paths(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("::") {
            // What came before was a module, a type or a function: drop it.
            drop_segment(&mut out);
            rest = after;
            continue;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// Drops the path segment `out` ends with: a name (`app`, `{{closure}}`),
/// with its generic arguments if it has some (`Foo<T>`), or a qualified
/// type (`<Foo as Trait>`).
fn drop_segment(out: &mut String) {
    if out.ends_with('>') {
        let mut depth = 0usize;
        let mut open = None;
        for (at, c) in out.char_indices().rev() {
            match c {
                // The arrow of a `fn` type is no bracket.
                '>' if out[..at].ends_with('-') => {}
                '>' => depth += 1,
                '<' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        open = Some(at);
                        break;
                    }
                }
                _ => {}
            }
        }
        if let Some(open) = open {
            out.truncate(open);
        }
    }
    let name = out.trim_end_matches(|c: char| c.is_alphanumeric() || matches!(c, '_' | '{' | '}'));
    out.truncate(name.len());
}

/// Why `optic` has no focus in `bytes`, a document read as a `T` that
/// serde_json's grammar accepts: serde_json decodes it, and the optic is
/// looked for in the value (and, found there, the path in the bytes).
fn explain<'a, T, O>(bytes: &'a [u8], optic: &O) -> ReadError
where
    T: Deserialize<'a>,
    O: JsonOptic + Preview<Source = T>,
{
    match serde_json::from_slice::<T>(bytes) {
        Err(error) => ReadError::Model {
            model: core::any::type_name::<T>(),
            error,
        },
        Ok(value) => match optic.preview(&value) {
            None => ReadError::NoFocus,
            Some(_) => match optic.locate_at(Spot::document(bytes)) {
                // The focus itself is one level too many.
                Located::At(focus) if focus.hides_past_capacity() => ReadError::TooManyLevels,
                _ => optic
                    .unfollowed(Spot::document(bytes))
                    .unwrap_or(ReadError::Unread),
            },
        },
    }
}

impl<'a, T> Json<'a, T> {
    /// The focus, decoded as [`Json::read`] decodes it, or why there is
    /// none. A read that finds its focus costs what `read` costs. On a miss
    /// the document is validated ([`ReadError::Malformed`]), then decoded
    /// whole by serde_json ([`ReadError::Model`], with serde_json's own
    /// message), and the optic is looked for in the value
    /// ([`ReadError::NoFocus`]; [`ReadError::PastAbsent`] or
    /// [`ReadError::TooManyLevels`] where serde finds it on a path the
    /// byte read does not follow, by design): a full decode, with what it
    /// allocates.
    ///
    /// ```
    /// use optics_core::json::ReadError;
    /// use optics_core::prelude::*;
    /// use serde::Deserialize;
    ///
    /// #[derive(Optics, Deserialize)]
    /// struct Issue { id: u64, detail: Detail }
    /// #[derive(Optics, Deserialize)]
    /// enum Detail { Incident { severity: u8 }, Bug { line: u32 } }
    ///
    /// let severity = Issue::detail.then(Detail::incident_severity);
    /// let read = |bytes: &[u8]| Json::<Issue>::new(bytes).try_read(severity);
    /// assert_eq!(read(br#"{"id":1,"detail":{"Incident":{"severity":2}}}"#).unwrap(), 2);
    /// assert!(matches!(read(br#"{"id":1,"detail":{"Bug":{"line":2}}}"#), Err(ReadError::NoFocus)));
    /// let wrong = read(br#"{"id":1,"detail":{"Incident":{"severity":"high"}}}"#).unwrap_err();
    /// assert_eq!(wrong.to_string(), "serde_json does not read the document as `Issue`: \
    ///     invalid type: string \"high\", expected u8 at line 1 column 47");
    /// let cut = read(br#"{"id":1,"detail":{"Incident":{"severity":"#).unwrap_err();
    /// assert_eq!(cut.to_string(), "not one JSON document: unexpected end of input at byte 41");
    /// ```
    pub fn try_read<O>(self, optic: O) -> Result<O::Focus, ReadError>
    where
        T: Deserialize<'a>,
        O: JsonDecode<'a> + Preview<Source = T>,
    {
        if let Some(focus) = super::locate::read(&optic, self.bytes) {
            return Ok(focus);
        }
        scan::validate(self.bytes).map_err(ReadError::Malformed)?;
        Err(explain(self.bytes, &optic))
    }
}

impl<'a, T> Strict<'a, '_, T> {
    /// The focus, decoded as [`Strict::read`] decodes it, or why there is
    /// none: [`ReadError::Duplicate`] where a key on the path stands twice
    /// (recorded in the view's [`Duplicates`](super::Duplicates) too), then as
    /// [`Json::try_read`] explains a miss (the bytes were validated when
    /// the view was made). A read that finds its focus costs what `read`
    /// costs.
    ///
    /// ```
    /// use optics_core::json::{Duplicates, ReadError, Strict};
    /// use optics_core::prelude::*;
    /// use serde::Deserialize;
    ///
    /// #[derive(Optics, Deserialize)]
    /// struct Issue { id: u64 }
    ///
    /// let duplicates = Duplicates::new();
    /// let bytes = br#"{"id":1,"id":2}"#;
    /// let issue = Strict::<Issue>::validated(bytes, &duplicates).unwrap();
    /// let error = issue.try_read(Issue::id).unwrap_err();
    /// assert!(matches!(error, ReadError::Duplicate { offset: 8 }));
    /// assert!(duplicates.met());
    /// ```
    pub fn try_read<O>(self, optic: O) -> Result<O::Focus, ReadError>
    where
        T: Deserialize<'a>,
        O: JsonDecode<'a> + Preview<Source = T>,
    {
        match self.on_own_flag(|strict| optic.decode_at(strict.locate_at(&optic))) {
            (Some(focus), _) => Ok(focus),
            (None, Some(offset)) => Err(ReadError::Duplicate { offset }),
            (None, None) => Err(explain(self.json.bytes, &optic)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::without_paths;

    #[test]
    fn type_names_lose_their_paths_only() {
        for (name, shown) in [
            ("app::Issue", "Issue"),
            ("alloc::vec::Vec<app::Item>", "Vec<Item>"),
            (
                "(u8, [core::option::Option<u16>; 2], &str)",
                "(u8, [Option<u16>; 2], &str)",
            ),
            (
                "alloc::boxed::Box<dyn core::fmt::Debug + core::marker::Send>",
                "Box<dyn Debug + Send>",
            ),
            (
                "fn(&'_ u8) -> alloc::string::String",
                "fn(&'_ u8) -> String",
            ),
            ("app::main::{{closure}}::Local", "Local"),
            ("app::<app::Foo as app::Tr>::m::Local", "Local"),
            ("app::<alloc::vec::Vec<_> as app::Tr>::m::Local", "Local"),
            ("app::<fn() -> u8 as app::Tr>::m::Local", "Local"),
            ("app::Foo<_>::m::Local", "Local"),
            ("app::W<app::Foo<_>::m::Local>", "W<Local>"),
            ("app::Pair<'_, app::Item>", "Pair<'_, Item>"),
        ] {
            assert_eq!(without_paths(name), shown, "{name}");
        }
    }
}
