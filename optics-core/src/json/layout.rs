//! How serde lays a derived type out in JSON, as `#[derive(Optics)]` writes it
//! down for the byte reader: where a field stands, how an enum is tagged, which
//! keys a type reads from an object it is flattened into. Named only by the
//! derive's output (through `optics_core::__private`).

/// Where a field's value stands in its struct's JSON, as serde reads it.
/// Written by `#[derive(Optics)]`.
#[derive(Clone, Copy, Debug)]
pub enum FieldJson {
    /// A member of the object, under any of `names` (the name serde reads,
    /// then its aliases); where serde also reads the struct from an array
    /// (`[1, "a"]` for `struct S { a: u8, b: String }`), element `position`.
    Key {
        /// The name serde reads, then its aliases.
        names: &'static [&'static str],
        /// The field's element when the struct is written as an array: its
        /// place among the fields serde reads. `None` where serde reads the
        /// struct from an object only (it has a flattened field, or it is the
        /// struct variant of an adjacently tagged enum).
        position: Option<usize>,
        /// Whether serde writes the field in the second half of its
        /// struct's fields: a trusting lookup of it in a large object reads
        /// the object from both ends (see `scan::object_field_late`).
        late: bool,
    },
    /// The struct's own bytes: the field of a `transparent` struct, or of a
    /// newtype struct.
    Inline,
    /// A `flatten`ed field: its value is read from the members of the struct's
    /// object that `hidden` does not name (the struct's own keys, and those
    /// the flattened fields before it take).
    Flatten {
        /// The keys this field never sees.
        hidden: &'static KeySet,
    },
    /// Element `i` of the array a tuple struct is written as.
    Element(usize),
    /// Never in the JSON (`skip`, `skip_deserializing`): always its default.
    Skipped,
    /// A field read `with` a function, standing where `place` says: only the
    /// function reads its bytes, and no byte read goes on past it.
    With(&'static FieldJson),
}

/// How serde writes an enum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// `"Unit"` or `{"Variant": payload}` (serde's default).
    External,
    /// `{"tag": "Variant", ...payload's fields}` (`#[serde(tag = "...")]`).
    Internal {
        /// The tag's key.
        tag: &'static str,
    },
    /// `{"tag": "Variant", "content": payload}` (`tag` + `content`).
    Adjacent {
        /// The tag's key.
        tag: &'static str,
        /// The payload's key.
        content: &'static str,
    },
}

/// The names under which serde recognizes one variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VariantTags {
    /// The name serde reads, then its aliases. Empty for a variant serde never
    /// reads (`skip`, `skip_deserializing`).
    pub names: &'static [&'static str],
    /// `#[serde(other)]`: the variant any unknown tag decodes as.
    pub other: bool,
}

/// How a variant's payload is laid out in JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VariantJson {
    /// No payload: the variant is its tag alone.
    Unit,
    /// One value.
    Newtype,
    /// Several values: an array (tuple variant) or an object (struct variant).
    Fields,
}

/// A set of object keys, built at compile time from the derive's lists: its
/// own `keys` and those of the sets `nested` in it (a flattened field's, a
/// variant payload's). Unescaped, as serde compares them.
#[derive(Clone, Copy, Debug)]
pub struct KeySet {
    /// Keys of this set itself.
    pub keys: &'static [&'static str],
    /// Sets whose keys belong to this one too.
    pub nested: &'static [KeySet],
}

impl KeySet {
    /// No key.
    pub const EMPTY: KeySet = KeySet {
        keys: &[],
        nested: &[],
    };

    /// Whether `key` is in the set.
    pub const fn contains(&self, key: &str) -> bool {
        let mut i = 0;
        while i < self.keys.len() {
            if str_eq(self.keys[i], key) {
                return true;
            }
            i += 1;
        }
        let mut n = 0;
        while n < self.nested.len() {
            if self.nested[n].contains(key) {
                return true;
            }
            n += 1;
        }
        false
    }

    /// Whether the key whose raw text (between its quotes, escapes as
    /// written) is `raw` is in the set.
    pub(crate) fn contains_raw(&self, raw: &[u8]) -> bool {
        let escaped = raw.contains(&b'\\');
        let same = |key: &&str| {
            if escaped {
                super::scan::raw_eq(raw, key.as_bytes())
            } else {
                raw == key.as_bytes()
            }
        };
        self.keys.iter().any(same) || self.nested.iter().any(|set| set.contains_raw(raw))
    }

    /// A key of this set that `other` has too, if any.
    pub const fn shared_with(&self, other: &KeySet) -> Option<&'static str> {
        let mut i = 0;
        while i < self.keys.len() {
            if other.contains(self.keys[i]) {
                return Some(self.keys[i]);
            }
            i += 1;
        }
        let mut n = 0;
        while n < self.nested.len() {
            if let Some(key) = self.nested[n].shared_with(other) {
                return Some(key);
            }
            n += 1;
        }
        None
    }
}

/// `a == b`, at compile time.
const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The keys a type reads from the object it is laid out in, so that the
/// derive can check, at compile time, that a flattened field reads only keys
/// serde gives it. Implemented by `#[derive(Optics)]` for every struct and
/// enum, and here for `()`, `Option` and the smart pointers serde sees through.
///
/// `X` is only there to be generic over: the derive's impls are generic in
/// it, so that their bounds on other types (a payload's keys) are checked
/// where the keys are used, not where the impl is written: a model whose enum
/// has a map payload, or is recursive, compiles as long as it is not
/// flattened. Users name `JsonKeys` (that is, `JsonKeys<()>`).
#[diagnostic::on_unimplemented(
    message = "the keys `{Self}` reads are not known to #[derive(Optics)]",
    label = "its keys are not known",
    note = "a flattened field, and the newtype payloads of a flattened enum, must be structs or enums that derive Optics: serde hands them the members no other field takes, and the derive must know which those are; a map (or a type that does not derive Optics) would take every member left over"
)]
pub trait JsonKeys<X: ?Sized = ()> {
    /// Every key the type may read from the object it is laid out in.
    const KEYS: KeySet;
    /// The keys it takes from serde's buffer when it is flattened: a
    /// flattened field after it never sees them.
    const TAKES: KeySet;
}

/// A type `#[serde(flatten)]` can be read through in place: a struct or an
/// enum that derives Optics (and a `Box`, `Rc` or `Arc` of one).
#[diagnostic::on_unimplemented(
    message = "#[derive(Optics)] cannot read a flattened `{Self}` in place",
    label = "flattened here",
    note = "serde gives a flattened field the members no other field takes; a byte optic can follow that only for a struct or an enum that derives Optics, whose keys are known",
    note = "derive Optics on the flattened type, or give the field a key of its own (remove #[serde(flatten)])",
    note = "a catch-all map is known by its spelling only: write `serde_json::Value`, or a map with its parameters (`HashMap<String, Value>`, `BTreeMap<..>`, `IndexMap<..>`, `serde_json::Map<..>`), not an import or an alias, and add #[optics(skip)] to the field"
)]
pub trait Flatten<X: ?Sized = ()>: JsonKeys<X> {}

impl<X: ?Sized> JsonKeys<X> for () {
    const KEYS: KeySet = KeySet::EMPTY;
    const TAKES: KeySet = KeySet::EMPTY;
}
impl<X: ?Sized> Flatten<X> for () {}

/// An internally tagged newtype payload `Option<T>` is `Some` of the payload
/// read from the enum's members: it reads `T`'s keys. (Flattening an `Option`
/// itself is refused: it is not [`Flatten`].)
impl<X: ?Sized, T: JsonKeys<X>> JsonKeys<X> for Option<T> {
    const KEYS: KeySet = T::KEYS;
    const TAKES: KeySet = T::TAKES;
}

macro_rules! transparent_pointers {
    ($($pointer:ident)*) => {$(
        impl<X: ?Sized, T: ?Sized + JsonKeys<X>> JsonKeys<X> for $pointer<T> {
            const KEYS: KeySet = T::KEYS;
            const TAKES: KeySet = T::TAKES;
        }
        impl<X: ?Sized, T: ?Sized + Flatten<X>> Flatten<X> for $pointer<T> {}
    )*};
}

use std::rc::Rc;
use std::sync::Arc;
transparent_pointers!(Box Rc Arc);

/// One flattened field, for [`check_flatten`].
#[derive(Clone, Copy, Debug)]
pub struct Flattened {
    /// The field's name, for messages.
    pub field: &'static str,
    /// The keys its type reads.
    pub keys: KeySet,
    /// The keys its type takes from serde's buffer.
    pub takes: KeySet,
}

/// The flattened field `field` of type `T`, for [`check_flatten`]: a type
/// that cannot be flattened is refused here, where the derive names it.
pub const fn flattened<T: ?Sized + Flatten>(field: &'static str) -> Flattened {
    Flattened {
        field,
        keys: T::KEYS,
        takes: T::TAKES,
    }
}

/// Checks, at compile time, that the flattened field `this` of `outer` reads
/// only keys serde gives it: none of the struct's own keys (`own`), and none
/// that a flattened field before it (`earlier`) takes. Panics (a compile error
/// where it is evaluated) naming the key and the fields, and saying what to
/// write instead.
pub const fn check_flatten(outer: &str, own: &KeySet, earlier: &[Flattened], this: &Flattened) {
    if let Some(key) = own.shared_with(&this.keys) {
        fail(&[
            "#[derive(Optics)] cannot read the flattened field `",
            this.field,
            "` in place: it reads the key `",
            key,
            "`, which is also a field of `",
            outer,
            "`; serde gives that member to `",
            outer,
            "`'s own field and never to `",
            this.field,
            "`, so a byte optic through it would read the wrong member; rename one of them (#[serde(rename = \"...\")])",
        ]);
    }
    let mut i = 0;
    while i < earlier.len() {
        if let Some(key) = earlier[i].takes.shared_with(&this.keys) {
            fail(&[
                "#[derive(Optics)] cannot read the flattened field `",
                this.field,
                "` in place: it reads the key `",
                key,
                "`, which the flattened field `",
                earlier[i].field,
                "` before it takes; serde gives that member to `",
                earlier[i].field,
                "` only, so a byte optic through `",
                this.field,
                "` would read a member serde never gives it; rename one of the keys, or give one field a key of its own instead of flattening it",
            ]);
        }
        i += 1;
    }
}

/// The longest message [`fail`] writes; longer ones are cut.
const MESSAGE: usize = 1024;

/// Panics with `parts` joined: a compile-time error message built from the
/// derive's names and the key found.
const fn fail(parts: &[&str]) {
    let mut buffer = [0u8; MESSAGE];
    let mut len = 0;
    let mut p = 0;
    while p < parts.len() {
        let part = parts[p].as_bytes();
        let mut i = 0;
        while i < part.len() && len < MESSAGE {
            buffer[len] = part[i];
            len += 1;
            i += 1;
        }
        p += 1;
    }
    // Cut back to a character boundary if the message was cut.
    while len > 0 && len < MESSAGE && (buffer[len] & 0xC0) == 0x80 {
        len -= 1;
    }
    let (text, _) = buffer.split_at(len);
    match core::str::from_utf8(text) {
        Ok(message) => panic!("{}", message),
        Err(_) => panic!("#[derive(Optics)]: a flattened field reads a key serde does not give it"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INNER: KeySet = KeySet {
        keys: &["a", "b"],
        nested: &[],
    };
    const OUTER: KeySet = KeySet {
        keys: &["c"],
        nested: &[INNER, KeySet::EMPTY],
    };

    #[test]
    fn key_sets_see_their_nested_sets() {
        assert!(OUTER.contains("a") && OUTER.contains("c"));
        assert!(!OUTER.contains("d"));
        assert!(OUTER.contains_raw(br"\u0061"));
        assert!(!OUTER.contains_raw(b"ab"));
        assert_eq!(OUTER.shared_with(&INNER), Some("a"));
        assert_eq!(
            KeySet {
                keys: &["x"],
                nested: &[]
            }
            .shared_with(&OUTER),
            None
        );
    }

    const FIRST: Flattened = Flattened {
        field: "first",
        keys: INNER,
        takes: INNER,
    };

    #[test]
    fn disjoint_flattened_fields_pass() {
        let own = KeySet {
            keys: &["id"],
            nested: &[],
        };
        let second = Flattened {
            field: "second",
            keys: KeySet {
                keys: &["c"],
                nested: &[],
            },
            takes: KeySet::EMPTY,
        };
        check_flatten("Outer", &own, &[], &FIRST);
        check_flatten("Outer", &own, &[FIRST], &second);
    }

    #[test]
    #[should_panic(
        expected = "it reads the key `a`, which the flattened field `first` before it takes"
    )]
    fn a_key_taken_before_is_refused() {
        let second = Flattened {
            field: "second",
            keys: OUTER,
            takes: KeySet::EMPTY,
        };
        check_flatten("Outer", &KeySet::EMPTY, &[FIRST], &second);
    }

    #[test]
    #[should_panic(expected = "which is also a field of `Outer`")]
    fn an_own_key_is_refused() {
        let own = KeySet {
            keys: &["b"],
            nested: &[],
        };
        check_flatten("Outer", &own, &[], &FIRST);
    }
}
