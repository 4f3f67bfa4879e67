//! Decoding one leaf: a `serde::Deserializer` over exactly one JSON value's
//! bytes that reads the common small values itself and hands everything else
//! to serde_json.
//!
//! A leaf the policy reads is nearly always a short string (`"Sev1"`, a unit
//! variant), a small non-negative integer, a bool or `null`. Setting up
//! serde_json's deserializer and its `end` check costs far more than reading
//! such a value, so [`Leaf`] reads them directly:
//!
//! | the trimmed bytes                                  | read as                               |
//! |----------------------------------------------------|---------------------------------------|
//! | `"..."` without `\`, control characters, bad UTF-8 | `visit_borrowed_str`; a unit variant  |
//! | digits, no leading zero, fits a `u64`               | `visit_u64`                           |
//! | the same (and `-`) fitting a `u128` or `i128`, asked for one | `visit_u128`, `visit_i128`  |
//! | `true`, `false`                                    | `visit_bool`                          |
//! | `null`                                             | `visit_unit`, `visit_none`            |
//! | anything else                                      | serde_json, then its `end` check      |
//!
//! Each fast case makes exactly the visitor call serde_json makes for the same
//! bytes, so the type's own `Deserialize` decides as it would under serde_json
//! (range checks included: a `u8` visitor rejects `256` from `visit_u64`). A
//! request serde_json answers with an error (a string read as a number, say)
//! is passed on to serde_json too, so it fails the same way. Wrappers that
//! serde_json passes through (`Option`'s `visit_some`, newtype structs) pass
//! through here, so `Option<Votes>` stays on the fast path.
//!
//! A `Deserialize` that returns without asking its deserializer for anything
//! leaves the bytes unread, and serde_json's `end` check rejects unread bytes:
//! so does [`decode`].
//!
//! Error values from a fast case carry no line and column; whether a leaf
//! decodes, and to what, is serde_json's answer.

use core::cell::Cell;

use serde::de::{
    Deserialize, DeserializeSeed, Deserializer, EnumAccess, Error as _, Unexpected, VariantAccess,
    Visitor,
};
use serde_json::de::SliceRead;
use serde_json::Error;

use super::scan;

/// How serde_json's private type names start (`RawValue`'s newtype name among
/// them): such a name asks for serde_json's special handling, so it always
/// goes to serde_json.
const SERDE_JSON_PRIVATE: &str = "$serde_json::";

/// `0x01` in every byte of a word.
const ONES: u64 = u64::from_le_bytes([0x01; 8]);
/// The top bit of every byte of a word.
const TOPS: u64 = u64::from_le_bytes([0x80; 8]);

/// The top bit of each byte of `word` (eight bytes of a string, little-endian)
/// that is `"`, `\`, a control character or not ASCII: the bytes that end a
/// run of plain ASCII. Bits above the lowest may be spurious (a borrow that
/// crossed a byte); the lowest is exact, and it is the only one read.
#[inline(always)]
fn run_enders(word: u64) -> u64 {
    let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x;
    let quote = zero_byte(word ^ (ONES * u64::from(b'"')));
    let backslash = zero_byte(word ^ (ONES * u64::from(b'\\')));
    let control = word.wrapping_sub(ONES * 0x20) & !word;
    (quote | backslash | control | word) & TOPS
}

/// The raw contents of the string whose opening quote is at `open`, and the
/// index just past its closing quote, when the string has no backslash and no
/// control character. Such contents are the string's text if they are valid
/// UTF-8. `None` for any other string, or no string at `open`.
///
/// Cost: O(n) in the string, eight bytes at a time; nothing is copied.
#[inline]
fn unescaped(bytes: &[u8], open: usize) -> Option<(&[u8], usize)> {
    if bytes.get(open) != Some(&b'"') {
        return None;
    }
    let from = open + 1;
    let mut pos = from;
    loop {
        // Skip plain ASCII a word at a time while eight bytes are left.
        while let Some(word) = bytes.get(pos..).and_then(|rest| rest.first_chunk::<8>()) {
            let enders = run_enders(u64::from_le_bytes(*word));
            if enders != 0 {
                pos += (enders.trailing_zeros() / 8) as usize;
                break;
            }
            pos += 8;
        }
        match *bytes.get(pos)? {
            b'"' => return Some((&bytes[from..pos], pos + 1)),
            b'\\' | 0x00..=0x1F => return None,
            // Not ASCII: UTF-8 is checked on the whole text at the end.
            _ => {}
        }
        pos += 1;
    }
}

/// The text of the string whose opening quote is at `open`, and the index just
/// past its closing quote, when the string is *plain*: no backslash, no control
/// character, valid UTF-8. Such a string's text is its raw bytes, and both
/// serde_json and the scanner accept it. `None` for any other string (or no
/// string at `open`): the caller takes its general path.
#[inline]
fn plain_str(bytes: &[u8], open: usize) -> Option<(&str, usize)> {
    let (raw, end) = unescaped(bytes, open)?;
    let text = match super::simd::ascii_str(raw) {
        Some(text) => text,
        None => core::str::from_utf8(raw).ok()?,
    };
    Some((text, end))
}

/// A value the fast path reads itself.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Scalar<'de> {
    /// A plain string (see [`plain_str`]).
    Str(&'de str),
    /// A non-negative integer without fraction or exponent that fits a `u64`.
    U64(u64),
    Bool(bool),
    Null,
}

impl<'de> Scalar<'de> {
    /// `bytes`, trimmed, as one scalar the fast path reads; `None` for
    /// anything it leaves to serde_json.
    #[inline]
    fn of(bytes: &'de [u8]) -> Option<Self> {
        match *bytes.first()? {
            // Most leaves: a short string in printable ASCII, checked a
            // word at a time; any other string read byte by byte.
            b'"' => match super::simd::plain_ascii_string(bytes) {
                Some(text) => Some(Scalar::Str(text)),
                None => Scalar::str_of(bytes),
            },
            // serde_json rejects a leading zero before another digit.
            b'0' => (bytes.len() == 1).then_some(Scalar::U64(0)),
            // Up to 19 digits a `u64` always holds: no checks on the way.
            b'1'..=b'9' if bytes.len() < 20 => {
                let mut value: u64 = 0;
                for &byte in bytes {
                    let digit = byte.wrapping_sub(b'0');
                    if digit > 9 {
                        return None;
                    }
                    value = value * 10 + u64::from(digit);
                }
                Some(Scalar::U64(value))
            }
            b'1'..=b'9' => {
                let mut value: u64 = 0;
                for &byte in bytes {
                    let digit = byte.wrapping_sub(b'0');
                    if digit > 9 {
                        return None;
                    }
                    // Past u64, serde_json reads the number as a float.
                    value = value.checked_mul(10)?.checked_add(u64::from(digit))?;
                }
                Some(Scalar::U64(value))
            }
            b't' if bytes == b"true" => Some(Scalar::Bool(true)),
            b'f' if bytes == b"false" => Some(Scalar::Bool(false)),
            b'n' if bytes == b"null" => Some(Scalar::Null),
            _ => None,
        }
    }

    /// [`Scalar::of`] a string that is not plain printable ASCII: read
    /// byte by byte, its text checked as UTF-8.
    #[inline(never)]
    fn str_of(bytes: &'de [u8]) -> Option<Self> {
        match plain_str(bytes, 0)? {
            (text, end) if end == bytes.len() => Some(Scalar::Str(text)),
            _ => None,
        }
    }
}

/// Decodes a `T` from exactly these bytes, as `serde_json::from_slice` does
/// (see the module docs).
#[inline]
pub(crate) fn decode<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Option<T> {
    let read = Cell::new(false);
    let leaf = Leaf::new(bytes, &read);
    let value = T::deserialize(leaf).ok()?;
    // serde_json's `end`: a value the type did not read is trailing bytes
    // (a `Deserialize` may return without asking its deserializer for anything).
    (read.get() || leaf.is_blank()).then_some(value)
}

/// A deserializer over one JSON value's bytes (whitespace around it allowed,
/// nothing else), with serde_json's behaviour and error type. See the module
/// docs for what it reads itself. Wrappers (`visit_some`, newtype structs, a
/// unit variant's name) hand out a copy of it; all copies share `read`.
#[derive(Clone, Copy, Debug)]
struct Leaf<'r, 'de> {
    /// The bytes as given, for serde_json.
    bytes: &'de [u8],
    /// What the fast path reads them as, if anything.
    scalar: Option<Scalar<'de>>,
    /// Set once the value has been read, by a visitor call or by serde_json.
    read: &'r Cell<bool>,
}

impl<'r, 'de> Leaf<'r, 'de> {
    /// A deserializer over `bytes`. O(n) in a string or number, O(1) for a
    /// container; nothing is copied.
    #[inline]
    fn new(bytes: &'de [u8], read: &'r Cell<bool>) -> Self {
        let scalar = Scalar::of(scan::trim(bytes));
        Leaf {
            bytes,
            scalar,
            read,
        }
    }

    /// Notes that the value is read: the visitor call that follows reads it.
    #[inline(always)]
    fn reads(self) {
        self.read.set(true);
    }

    /// Whether the bytes hold nothing but whitespace.
    fn is_blank(self) -> bool {
        scan::trim(self.bytes).is_empty()
    }

    /// Decodes the bytes with serde_json, as `serde_json::from_slice` does:
    /// `call` on its deserializer, then the check that only whitespace follows.
    #[cold]
    fn by_serde_json<T>(
        self,
        call: impl FnOnce(&mut serde_json::Deserializer<SliceRead<'de>>) -> Result<T, Error>,
    ) -> Result<T, Error> {
        self.reads();
        let mut de = serde_json::Deserializer::from_slice(self.bytes);
        let value = call(&mut de)?;
        de.end()?;
        Ok(value)
    }
}

/// Methods that serde_json always answers: containers and byte strings.
macro_rules! by_serde_json {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        #[inline]
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, Error> {
            self.by_serde_json(|de| de.$method($($arg,)* visitor))
        }
    )*};
}

/// Number methods: serde_json calls `visit_u64` for a non-negative integer
/// that fits, whatever number type was asked for.
macro_rules! numbers {
    ($($method:ident)*) => {$(
        #[inline]
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            match self.scalar {
                Some(Scalar::U64(value)) => {
                    self.reads();
                    visitor.visit_u64(value)
                }
                _ => self.by_serde_json(|de| de.$method(visitor)),
            }
        }
    )*};
}

/// String methods: serde_json calls `visit_borrowed_str` for a string without
/// escapes (`char`, `string` and `identifier` are `str` in serde_json).
macro_rules! strings {
    ($($method:ident)*) => {$(
        #[inline]
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            match self.scalar {
                Some(Scalar::Str(text)) => {
                    self.reads();
                    visitor.visit_borrowed_str(text)
                }
                _ => self.by_serde_json(|de| de.$method(visitor)),
            }
        }
    )*};
}

impl<'de> Deserializer<'de> for Leaf<'_, 'de> {
    type Error = Error;

    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.scalar {
            Some(Scalar::Str(text)) => {
                self.reads();
                visitor.visit_borrowed_str(text)
            }
            Some(Scalar::Bool(value)) => {
                self.reads();
                visitor.visit_bool(value)
            }
            Some(Scalar::Null) => {
                self.reads();
                visitor.visit_unit()
            }
            // Numbers too: under `arbitrary_precision`, serde_json hands
            // `deserialize_any` a number as a map.
            Some(Scalar::U64(_)) | None => self.by_serde_json(|de| de.deserialize_any(visitor)),
        }
    }

    #[inline]
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.scalar {
            Some(Scalar::Bool(value)) => {
                self.reads();
                visitor.visit_bool(value)
            }
            _ => self.by_serde_json(|de| de.deserialize_bool(visitor)),
        }
    }

    numbers!(
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_f32 deserialize_f64
    );

    strings!(deserialize_char deserialize_str deserialize_string deserialize_identifier);

    #[inline]
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.scalar {
            Some(Scalar::Null) => {
                self.reads();
                visitor.visit_none()
            }
            // serde_json calls `visit_some` with itself for any other value.
            Some(_) => visitor.visit_some(self),
            None => self.by_serde_json(|de| de.deserialize_option(visitor)),
        }
    }

    #[inline]
    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.scalar {
            Some(Scalar::Null) => {
                self.reads();
                visitor.visit_unit()
            }
            _ => self.by_serde_json(|de| de.deserialize_unit(visitor)),
        }
    }

    #[inline]
    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.scalar {
            Some(Scalar::Null) => {
                self.reads();
                visitor.visit_unit()
            }
            _ => self.by_serde_json(|de| de.deserialize_unit_struct(name, visitor)),
        }
    }

    #[inline]
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        if name.starts_with(SERDE_JSON_PRIVATE) {
            return self.by_serde_json(|de| de.deserialize_newtype_struct(name, visitor));
        }
        visitor.visit_newtype_struct(self)
    }

    #[inline]
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.scalar {
            Some(Scalar::Str(_)) => visitor.visit_enum(UnitVariant(self)),
            _ => self.by_serde_json(|de| de.deserialize_enum(name, variants, visitor)),
        }
    }

    #[inline]
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.scalar {
            Some(_) => {
                self.reads();
                visitor.visit_unit()
            }
            None => self.by_serde_json(|de| de.deserialize_ignored_any(visitor)),
        }
    }

    // serde_json reads a 128-bit integer's digits into a `String` first;
    // these read the same integers without one, with the same visitor call.
    #[inline]
    fn deserialize_u128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match magnitude_128(scan::trim(self.bytes)) {
            Some(value) => {
                self.reads();
                visitor.visit_u128(value)
            }
            None => self.by_serde_json(|de| de.deserialize_u128(visitor)),
        }
    }

    #[inline]
    fn deserialize_i128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let value = match scan::trim(self.bytes) {
            [b'-', digits @ ..] => {
                magnitude_128(digits).and_then(|m| 0i128.checked_sub_unsigned(m))
            }
            digits => magnitude_128(digits).and_then(|m| i128::try_from(m).ok()),
        };
        match value {
            Some(value) => {
                self.reads();
                visitor.visit_i128(value)
            }
            None => self.by_serde_json(|de| de.deserialize_i128(visitor)),
        }
    }

    by_serde_json! {
        deserialize_bytes();
        deserialize_byte_buf();
        deserialize_seq();
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_map();
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
    }
}

/// `digits` as the integer serde_json reads for a 128-bit request: `0`, or
/// digits without a leading zero, that fit a `u128`. `None` for anything
/// else, which serde_json then reads (or refuses) itself.
#[inline]
fn magnitude_128(digits: &[u8]) -> Option<u128> {
    match digits {
        [b'0'] => Some(0),
        [b'1'..=b'9', ..] => digits.iter().try_fold(0u128, |value, &byte| {
            let digit = byte.wrapping_sub(b'0');
            if digit > 9 {
                return None;
            }
            value.checked_mul(10)?.checked_add(u128::from(digit))
        }),
        _ => None,
    }
}

/// An enum written as a plain string: a unit variant, as serde_json's own
/// `UnitVariantAccess` reads it. The variant's name is deserialized from the
/// same string, and asking for a payload fails with serde_json's error.
struct UnitVariant<'r, 'de>(Leaf<'r, 'de>);

impl<'r, 'de> EnumAccess<'de> for UnitVariant<'r, 'de> {
    type Error = Error;
    type Variant = Self;

    #[inline]
    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self), Error> {
        let variant = seed.deserialize(self.0)?;
        Ok((variant, self))
    }
}

impl<'de> VariantAccess<'de> for UnitVariant<'_, 'de> {
    type Error = Error;

    #[inline]
    fn unit_variant(self) -> Result<(), Error> {
        Ok(())
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, _: S) -> Result<S::Value, Error> {
        Err(Error::invalid_type(
            Unexpected::UnitVariant,
            &"newtype variant",
        ))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value, Error> {
        Err(Error::invalid_type(
            Unexpected::UnitVariant,
            &"tuple variant",
        ))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Error> {
        Err(Error::invalid_type(
            Unexpected::UnitVariant,
            &"struct variant",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_the_fast_path_reads() {
        let of = |bytes: &'static [u8]| Leaf::new(bytes, &Cell::new(false)).scalar;
        assert_eq!(of(br#" "Sev1" "#), Some(Scalar::Str("Sev1")));
        assert_eq!(of(b"\t130\n"), Some(Scalar::U64(130)));
        assert_eq!(of(b"0"), Some(Scalar::U64(0)));
        assert_eq!(of(b"18446744073709551615"), Some(Scalar::U64(u64::MAX)));
        assert_eq!(of(b"true"), Some(Scalar::Bool(true)));
        assert_eq!(of(b"null"), Some(Scalar::Null));
    }

    #[test]
    fn everything_else_goes_to_serde_json() {
        for bytes in [
            &br#""a\"b""#[..],
            b"\"a\x01\"",
            b"\"\xff\"",
            br#""a" "b""#,
            b"01",
            b"1.",
            b"1e3",
            b"-1",
            b"18446744073709551616",
            b"nul",
            b"truex",
            b"[1]",
            b"{}",
            b"",
            b"   ",
        ] {
            assert_eq!(
                Leaf::new(bytes, &Cell::new(false)).scalar,
                None,
                "{:?}",
                String::from_utf8_lossy(bytes)
            );
        }
    }

    #[test]
    fn run_enders_finds_the_first_byte_that_ends_a_plain_run() {
        for ender in [b'"', b'\\', 0x00, 0x1F, 0x80, 0xFF] {
            for at in 0..8 {
                for filler in [b' ', b'a', b'~', 0x7F, b'!', b'#', b'[', b']'] {
                    let mut word = [filler; 8];
                    word[at] = ender;
                    // Bytes after the ender are arbitrary: anything goes there.
                    for (i, byte) in word.iter_mut().enumerate().skip(at + 1) {
                        *byte = (i as u8).wrapping_mul(37);
                    }
                    let enders = run_enders(u64::from_le_bytes(word));
                    assert_eq!(enders.trailing_zeros() / 8, at as u32, "{word:?}");
                }
            }
        }
        for byte in 0x20..0x80u8 {
            let plain = byte != b'"' && byte != b'\\';
            assert_eq!(
                run_enders(u64::from_le_bytes([byte; 8])) == 0,
                plain,
                "{byte:#x}"
            );
        }
    }

    /// The quick read of a plain ASCII string answers what the general read
    /// does wherever it answers, and answers for every plain ASCII string:
    /// every length to 40 (past 16 the text is checked in a call of its
    /// own, 16 bytes at a time), each byte of the text in turn one that is not
    /// plain, and the same bytes with something after the string.
    #[test]
    fn plain_ascii_strings_read_as_the_general_read_does() {
        let general = |bytes: &'static [u8]| match plain_str(bytes, 0) {
            Some((text, end)) if end == bytes.len() => Some(text),
            _ => None,
        };
        let mut cases: Vec<Vec<u8>> = vec![b"\"".to_vec(), b"\"\"\"".to_vec(), b"x".to_vec()];
        for len in 0..=40usize {
            let alphabet = b" a~\x7f!#[]Z09";
            let text: Vec<u8> = (0..len).map(|i| alphabet[i % alphabet.len()]).collect();
            let quoted = [&b"\""[..], &text, b"\""].concat();
            cases.push(quoted.clone());
            cases.push([&quoted[..], b"\""].concat());
            cases.push([&quoted[..], b" "].concat());
            for at in 0..len {
                for odd in [b'"', b'\\', 0x00, 0x1F, 0x80, 0xC3, 0xFF] {
                    let mut bytes = quoted.clone();
                    bytes[1 + at] = odd;
                    cases.push(bytes);
                }
            }
        }
        for bytes in cases {
            let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
            let quick = crate::json::simd::plain_ascii_string(bytes);
            let plain_ascii = bytes.len() >= 2
                && bytes[0] == b'"'
                && bytes[bytes.len() - 1] == b'"'
                && bytes[1..bytes.len() - 1]
                    .iter()
                    .all(|&b| (0x20..0x80).contains(&b) && b != b'"' && b != b'\\');
            let shown = String::from_utf8_lossy(bytes);
            assert_eq!(quick.is_some(), plain_ascii, "{shown:?}");
            if quick.is_some() {
                assert_eq!(quick, general(bytes), "{shown:?}");
            }
            let scalar = Leaf::new(bytes, &Cell::new(false)).scalar;
            let trimmed = scan::trim(bytes);
            assert_eq!(scalar, general(trimmed).map(Scalar::Str), "{shown:?}");
        }
    }

    #[test]
    fn plain_strings_end_at_their_quote() {
        assert_eq!(plain_str(br#"{"type":"Bug"}"#, 1), Some(("type", 7)));
        assert_eq!(plain_str(br#""a\nb""#, 0), None);
        assert_eq!(plain_str(b"\"abc", 0), None);
        assert_eq!(plain_str(b"x\"\"", 0), None);
        assert_eq!(plain_str("\"é\"".as_bytes(), 0), Some(("é", 4)));
        assert_eq!(plain_str(b"\"\xff\"", 0), None);
        let long = br#""a rather long plain string, past a word or two" "#;
        assert_eq!(plain_str(long, 0).map(|s| s.1), Some(long.len() - 1));
        assert_eq!(
            plain_str(br#""a rather long string with an \" escape""#, 0),
            None
        );
        assert_eq!(
            plain_str("\"long enough: ünïcödé and more text\"".as_bytes(), 0).map(|s| s.0),
            Some("long enough: ünïcödé and more text")
        );
    }
}
