//! The byte reader against serde_json, on a model with everything issue 10
//! names: flattened structs and enums of every encoding (sharing keys where
//! serde lends them), `deny_unknown_fields` and defaults behind a flatten,
//! internally tagged payloads of every kind, adjacently tagged enums with
//! optional content, smart pointers (`Box`, `Rc`, `Arc`, a recursive
//! `Option<Box<List>>`), maps keyed by integers, `bool` and `char`,
//! structs serde also reads from arrays, and floats in and out of serde's
//! buffer.
//!
//! Each case builds a random value, writes it with serde_json (compact and
//! pretty), and then rewrites it into the other forms serde accepts, with
//! edits that know nothing of the model: an object becomes the array of its
//! values, an internally tagged object the array `[tag, ...values]`, a tag
//! its variant's number, `null` becomes `{}` or `[]`, an adjacently tagged
//! object swaps its members, becomes `[tag, content]` or writes its tag as
//! `{"Variant":null}`, a member is dropped, a number gains or loses its fraction `.0`, and
//! members are shuffled, keys escaped and whitespace added throughout. Edits
//! serde rejects are kept too: the reader must not panic on them. For every
//! writing serde_json accepts, every path of the model read from the bytes
//! equals serde_json's decode previewed with the same path (the model and
//! its paths are in `support/fidelity_model.rs`, shared with the `fidelity`
//! fuzz target).
//!
//! [`CASES`] (512) values, each with serde_json's writing and [`EDITED`]
//! (10) edited ones: 5632 writings, of which serde_json accepts about 1980;
//! about 130 paths are read from each, some 730 000 byte reads compared. In a
//! debug build the run takes about 20 s on one core. Its seed is fixed, so a
//! failure in CI reproduces. The run counts, per kind of edit, the writings
//! serde accepted that carry it, and fails unless each was exercised at least
//! [`MIN_ACCEPTED`] times (the lowest, `NumberRetyped`, reaches 30).
//!
//! Enough cases to find every class: with any one of these fixes undone the
//! run fails, naming the path and the document (checked by hand when the
//! test was written): structs read from arrays, a tag's number in serde's
//! buffer, an adjacent tag written as an enum, adjacent `[tag, content]`,
//! buffered decoding of leaves (`{}` for a unit struct), a missing adjacent
//! content read as a missing field, the tag hidden from an internally tagged
//! payload (its fields, its map, its whole decode), the first variant-named
//! member of a flattened externally tagged enum, `["Tag", ...]` internally
//! tagged arrays, integer map keys, content written before its tag read from
//! the buffer, and `{}` for a buffered unit variant.

mod support;

use std::cell::RefCell;
use std::fmt::Debug;
use std::rc::Rc;
use std::sync::Arc;

use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use serde::de::{MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use support::fidelity_model::*;

/// Values tried.
const CASES: u32 = 512;
/// Edited writings per value.
const EDITED: usize = 10;
/// Accepted writings each kind of edit must reach over a run.
const MIN_ACCEPTED: usize = 20;

// ---------------------------------------------------------------------------
// Random values

/// A tiny xorshift generator, seeded by proptest.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    fn small(&mut self) -> u8 {
        self.below(6) as u8
    }

    fn word(&mut self) -> String {
        const WORDS: &[&str] = &["a", "b", "ann", "é", "x\"y", "tab\t", "type", "", "😀"];
        WORDS[self.below(WORDS.len())].to_owned()
    }

    fn float(&mut self) -> f64 {
        match self.below(4) {
            0 => self.below(100) as f64,
            1 => (self.next() % 10_000) as f64 / 7.0,
            2 => f64::from_bits(self.next() >> 2) % 1e12,
            _ => -((self.next() % 1000) as f64) / 3.0,
        }
    }

    fn maybe<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> Option<T> {
        (!self.one_in(3)).then(|| f(self))
    }
}

fn point(r: &mut Rng) -> Point {
    Point {
        x: r.below(9) as i32 - 4,
        y: r.below(1000) as i32,
    }
}

fn floats(r: &mut Rng) -> Floats {
    Floats {
        single: r.float() as f32,
        double: r.float(),
    }
}

fn leaf(r: &mut Rng) -> Leaf {
    Leaf {
        weight: r.small(),
        note: r.maybe(Rng::word),
    }
}

fn login(r: &mut Rng) -> Login {
    Login {
        user: r.word(),
        admin: r.one_in(2),
        seen: Nothing,
        r#type: String::new(),
        kind: String::new(),
    }
}

fn list(r: &mut Rng, depth: usize) -> List {
    List {
        value: r.below(50) as u32,
        next: (depth < 3 && !r.one_in(3)).then(|| Box::new(list(r, depth + 1))),
    }
}

fn ext_e(r: &mut Rng) -> ExtE {
    match r.below(6) {
        0 => ExtE::Ping,
        1 => ExtE::Text(r.word()),
        2 => ExtE::Pair(r.small() as i8 - 3, r.small() as i8),
        3 => ExtE::Rect {
            w: r.small(),
            h: r.small(),
        },
        4 => ExtE::Boxed(Box::new(point(r))),
        _ => ExtE::Unit(Nothing),
    }
}

fn adj_e(r: &mut Rng) -> AdjE {
    match r.below(6) {
        0 => AdjE::Flag,
        1 => AdjE::Val(r.small()),
        2 => AdjE::Opt(r.maybe(Rng::small)),
        3 => AdjE::UnitPayload(()),
        4 => AdjE::Pair(r.small(), r.small()),
        _ => AdjE::Rect {
            w: r.small(),
            h: r.small(),
        },
    }
}

fn int(r: &mut Rng) -> Int {
    match r.below(11) {
        0 => Int::Unit(()),
        1 => Int::UnitStruct(Nothing),
        // serde cannot write an internally tagged `None`.
        2 => Int::Maybe(Some(point(r))),
        3 => Int::Map(
            (0..r.below(3))
                .map(|i| (["a", "b", "zz"][i].to_owned(), r.word()))
                .collect(),
        ),
        4 => Int::External(ext_e(r)),
        5 => Int::Nested(Box::new(if r.one_in(2) {
            Op::Num {
                n: r.below(100) as i64 - 50,
            }
        } else {
            Op::Scale(floats(r))
        })),
        6 => Int::Login(login(r)),
        7 => Int::Rect {
            w: r.small(),
            h: r.small(),
            mark: Nothing,
            none: (),
        },
        8 => Int::Empty,
        9 => Int::Num(floats(r)),
        _ => Int::Adjacent(adj_e(r)),
    }
}

fn root(r: &mut Rng) -> Root {
    let variant = r.below(3);
    Root {
        id: r.below(1000) as u32,
        head: Head {
            lat: r.maybe(Rng::float),
            lon: r.maybe(Rng::float),
            label: r.word(),
        },
        kind: match variant {
            0 => Kind::Login(login(r)),
            1 => Kind::Logout,
            _ => Kind::Idle {
                secs: r.below(100) as u32,
            },
        },
        also: match variant {
            0 => Also::Login {
                extra: r.maybe(Rng::small),
            },
            1 => Also::Logout,
            _ => Also::Idle,
        },
        ext_flat: match r.below(3) {
            0 => ExtFlat::Text(r.word()),
            1 => ExtFlat::Spot {
                sx: r.small() as i8,
                sy: -(r.small() as i8),
            },
            _ => ExtFlat::Num(r.next() as i64 >> 3),
        },
        adj_flat: match r.below(3) {
            0 => AdjFlat::Flag,
            1 => AdjFlat::Val(r.below(100) as i32 - 50),
            _ => AdjFlat::Opt(r.maybe(Rng::small)),
        },
        strict: Strict { strict: r.small() },
        int: int(r),
        adj: adj_e(r),
        adjs: (0..r.below(6)).map(|_| adj_e(r)).collect(),
        ext: ext_e(r),
        list: r.maybe(|r| Box::new(list(r, 0))),
        rc: Rc::new(leaf(r)),
        arc: Arc::new(leaf(r)),
        boxed: Box::new(point(r)),
        by_id: (0..r.below(4))
            .map(|_| (r.below(40) as u32, leaf(r)))
            .collect(),
        by_off: (0..r.below(4))
            .map(|_| (r.below(20) as i64 - 10, r.small()))
            .collect(),
        flags: (0..r.below(3)).map(|_| (r.one_in(2), r.small())).collect(),
        letters: (0..r.below(3))
            .map(|_| (['a', 'é', '"', '\n'][r.below(4)], r.small()))
            .collect(),
        pair: Pair(r.small(), r.small()),
        point: point(r),
        maybe: r.maybe(point),
        unit: Nothing,
        floats: floats(r),
    }
}

// ---------------------------------------------------------------------------
// Writings: an order-keeping JSON tree, edits, a printer

#[derive(Clone, Debug)]
enum J {
    Null,
    Bool(bool),
    Num(String),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

impl<'de> Deserialize<'de> for J {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = J;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("JSON")
            }
            fn visit_unit<E>(self) -> Result<J, E> {
                Ok(J::Null)
            }
            fn visit_bool<E>(self, b: bool) -> Result<J, E> {
                Ok(J::Bool(b))
            }
            fn visit_u64<E>(self, n: u64) -> Result<J, E> {
                Ok(J::Num(n.to_string()))
            }
            fn visit_i64<E>(self, n: i64) -> Result<J, E> {
                Ok(J::Num(n.to_string()))
            }
            fn visit_f64<E>(self, n: f64) -> Result<J, E> {
                Ok(J::Num(
                    serde_json::Number::from_f64(n).map_or("0".to_owned(), |n| n.to_string()),
                ))
            }
            fn visit_str<E>(self, s: &str) -> Result<J, E> {
                Ok(J::Str(s.to_owned()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<J, A::Error> {
                let mut out = Vec::new();
                while let Some(element) = seq.next_element()? {
                    out.push(element);
                }
                Ok(J::Arr(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<J, A::Error> {
                let mut out: Vec<(String, J)> = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    out.push(entry);
                }
                // Under `arbitrary_precision` serde_json hands a number over
                // as a map of one private key.
                match out.as_slice() {
                    [(key, J::Str(number))] if key == "$serde_json::private::Number" => {
                        Ok(J::Num(number.clone()))
                    }
                    _ => Ok(J::Obj(out)),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// The kinds of edit, each a bit of a writing's mark.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Edit {
    ObjectToArray,
    TaggedToArray,
    TagToNumber,
    NullToEmpty,
    AdjacentSwap,
    AdjacentToSeq,
    AdjacentTagAsEnum,
    DropMember,
    NumberRetyped,
    UnitVariantAsObject,
}

const EDITS: [Edit; 10] = [
    Edit::ObjectToArray,
    Edit::TaggedToArray,
    Edit::TagToNumber,
    Edit::NullToEmpty,
    Edit::AdjacentSwap,
    Edit::AdjacentToSeq,
    Edit::AdjacentTagAsEnum,
    Edit::DropMember,
    Edit::NumberRetyped,
    Edit::UnitVariantAsObject,
];

/// The internally tagged enums' tags, and their variants in order (a tag
/// written as a number names the variant of that number).
const TAGS: &[(&str, &[&str])] = &[
    ("kind", &["Login", "Logout", "Idle"]),
    (
        "type",
        &[
            "Unit",
            "UnitStruct",
            "Maybe",
            "Map",
            "External",
            "Nested",
            "Login",
            "Rect",
            "Empty",
            "Num",
            "Adjacent",
        ],
    ),
    ("op", &["Num", "Scale"]),
];

/// How many nodes the tree has, to pick one at random.
fn count(j: &J) -> usize {
    1 + match j {
        J::Arr(items) => items.iter().map(count).sum(),
        J::Obj(members) => members.iter().map(|(_, v)| count(v)).sum(),
        _ => 0,
    }
}

/// Applies `edit` at node number `at` (pre-order); whether it changed it.
fn edit_at(j: &mut J, at: &mut usize, edit: Edit, r: &mut Rng) -> bool {
    if *at == 0 {
        return apply(j, edit, r);
    }
    *at -= 1;
    match j {
        J::Arr(items) => items.iter_mut().any(|item| edit_at(item, at, edit, r)),
        J::Obj(members) => members.iter_mut().any(|(_, v)| edit_at(v, at, edit, r)),
        _ => false,
    }
}

fn apply(j: &mut J, edit: Edit, r: &mut Rng) -> bool {
    match (edit, &mut *j) {
        (Edit::ObjectToArray, J::Obj(members)) => {
            *j = J::Arr(members.drain(..).map(|(_, v)| v).collect());
        }
        (Edit::TaggedToArray, J::Obj(members)) => {
            let Some(at) = members
                .iter()
                .position(|(k, _)| TAGS.iter().any(|(tag, _)| k == tag))
            else {
                return false;
            };
            let tag = members.remove(at).1;
            let mut items = vec![tag];
            items.extend(members.drain(..).map(|(_, v)| v));
            *j = J::Arr(items);
        }
        (Edit::TagToNumber, J::Obj(members)) => {
            let mut changed = false;
            for (key, value) in members.iter_mut() {
                let Some((_, variants)) = TAGS.iter().find(|(tag, _)| key == tag) else {
                    continue;
                };
                if let J::Str(name) = value {
                    if let Some(n) = variants.iter().position(|v| v == name) {
                        *value = J::Num(n.to_string());
                        changed = true;
                    }
                }
            }
            return changed;
        }
        // A null, or the nulls right inside an object.
        (Edit::NullToEmpty, J::Null) => *j = empty(r),
        (Edit::NullToEmpty, J::Obj(members)) => {
            let mut changed = false;
            for (_, value) in members.iter_mut() {
                if matches!(value, J::Null) {
                    *value = empty(r);
                    changed = true;
                }
            }
            return changed;
        }
        (Edit::AdjacentSwap, J::Obj(members)) if has_key(members, "t") => members.reverse(),
        (Edit::AdjacentToSeq, J::Obj(members)) if has_key(members, "t") && members.len() <= 2 => {
            let tag = take(members, "t");
            let content = take(members, "c").unwrap_or(J::Null);
            *j = J::Arr(vec![tag.unwrap_or(J::Null), content]);
        }
        (Edit::AdjacentTagAsEnum, J::Obj(members)) if has_key(members, "t") => {
            for (key, value) in members.iter_mut() {
                if key == "t" {
                    if let J::Str(name) = value {
                        let unit = if r.one_in(3) {
                            J::Obj(Vec::new())
                        } else {
                            J::Null
                        };
                        *value = J::Obj(vec![(name.clone(), unit)]);
                    }
                }
            }
        }
        (Edit::DropMember, J::Obj(members)) if !members.is_empty() => {
            // Content, an optional or defaulted member: often still accepted.
            let at = members
                .iter()
                .position(|(k, _)| k == "c" || k == "label" || k == "admin" || k == "extra")
                .unwrap_or_else(|| r.below(members.len()));
            members.remove(at);
        }
        // An integer with a fraction (serde reads it as no integer), a
        // float's integer written without one (read as the float).
        (Edit::NumberRetyped, J::Num(text)) => match text.strip_suffix(".0") {
            Some(integer) => *text = integer.to_owned(),
            None if !text.contains(['.', 'e', 'E']) => text.push_str(".0"),
            None => return false,
        },
        (Edit::UnitVariantAsObject, J::Str(name)) => {
            let unit = if r.one_in(3) {
                J::Obj(Vec::new())
            } else {
                J::Null
            };
            *j = J::Obj(vec![(name.clone(), unit)]);
        }
        _ => return false,
    }
    true
}

fn empty(r: &mut Rng) -> J {
    if r.one_in(2) {
        J::Obj(Vec::new())
    } else {
        J::Arr(Vec::new())
    }
}

fn has_key(members: &[(String, J)], key: &str) -> bool {
    members.iter().any(|(k, _)| k == key)
}

fn take(members: &mut Vec<(String, J)>, key: &str) -> Option<J> {
    let at = members.iter().position(|(k, _)| k == key)?;
    Some(members.remove(at).1)
}

/// Prints with members shuffled, whitespace between tokens and characters of
/// strings and keys escaped, all at random (unless `plain`).
struct Printer<'r> {
    rng: &'r mut Rng,
    out: String,
    plain: bool,
}

impl Printer<'_> {
    fn ws(&mut self) {
        while !self.plain && self.rng.one_in(4) {
            self.out.push([' ', '\t', '\n', '\r'][self.rng.below(4)]);
        }
    }

    fn string(&mut self, text: &str) {
        // serde_json reads a number or `bool` key only as written plainly:
        // escaping one would make nearly every writing one serde rejects.
        let plain = self.plain
            || text == "true"
            || text == "false"
            || text.bytes().all(|b| b == b'-' || b.is_ascii_digit());
        self.out.push('"');
        for ch in text.chars() {
            match ch {
                '"' => self.out.push_str("\\\""),
                '\\' => self.out.push_str("\\\\"),
                ch if (ch as u32) < 0x20 || (!plain && self.rng.one_in(8)) => {
                    let mut units = [0u16; 2];
                    for unit in ch.encode_utf16(&mut units) {
                        self.out.push_str(&format!("\\u{unit:04x}"));
                    }
                }
                ch => self.out.push(ch),
            }
        }
        self.out.push('"');
    }

    fn value(&mut self, j: &J) {
        self.ws();
        match j {
            J::Null => self.out.push_str("null"),
            J::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            J::Num(n) => self.out.push_str(n),
            J::Str(s) => self.string(s),
            J::Arr(items) => {
                self.out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.value(item);
                    self.ws();
                }
                self.out.push(']');
            }
            J::Obj(members) => {
                let mut order: Vec<usize> = (0..members.len()).collect();
                if !self.plain && self.rng.one_in(2) {
                    for i in (1..order.len()).rev() {
                        order.swap(i, self.rng.below(i + 1));
                    }
                }
                self.out.push('{');
                for (n, &i) in order.iter().enumerate() {
                    if n > 0 {
                        self.out.push(',');
                    }
                    self.ws();
                    self.string(&members[i].0);
                    self.ws();
                    self.out.push(':');
                    self.value(&members[i].1);
                    self.ws();
                }
                self.out.push('}');
            }
        }
        self.ws();
    }
}

/// The writings of `value`: serde_json's, then edited ones, each with the
/// edits it carries.
///
/// serde writes the tag the two flattened enums share twice, once for each;
/// it reads it once (a second is a duplicate), so the first writing keeps
/// the first only.
fn writings(value: &Root, r: &mut Rng) -> Vec<(Vec<u8>, Vec<Edit>)> {
    let compact = serde_json::to_vec(value).expect("serializes");
    let mut tree: J = serde_json::from_slice(&compact).expect("parses");
    if let J::Obj(members) = &mut tree {
        let mut seen = Vec::new();
        members.retain(|(key, _)| {
            let again = seen.contains(key);
            seen.push(key.clone());
            !again
        });
    }
    let mut plain = Printer {
        rng: &mut *r,
        out: String::new(),
        plain: true,
    };
    plain.value(&tree);
    let mut out = vec![(plain.out.into_bytes(), Vec::new())];
    for _ in 0..EDITED {
        let mut tree = tree.clone();
        let mut edits = Vec::new();
        for _ in 0..1 + r.below(3) {
            let edit = EDITS[r.below(EDITS.len())];
            // Edits where they can apply: a few tries at random nodes.
            for _ in 0..12 {
                let mut at = r.below(count(&tree));
                if edit_at(&mut tree, &mut at, edit, r) {
                    edits.push(edit);
                    break;
                }
            }
        }
        let mut printer = Printer {
            rng: &mut *r,
            out: String::new(),
            plain: false,
        };
        printer.value(&tree);
        out.push((printer.out.into_bytes(), edits));
    }
    out
}

/// Whether serde_json was built with `arbitrary_precision` (it keeps a
/// number's text).
fn arbitrary_precision() -> bool {
    // Without it, `1e2` is the float 100.0.
    serde_json::from_str::<serde_json::Value>("1e2").is_ok_and(|n| !n.to_string().contains("100"))
}

#[test]
fn every_path_reads_as_serde_json_decodes() {
    let accepted = RefCell::new([0usize; EDITS.len()]);
    let writings_seen = RefCell::new((0usize, 0usize));
    // A fixed seed: every run tries the same cases, so a failure in CI is
    // one to reproduce.
    let mut runner = TestRunner::new_with_rng(
        Config {
            cases: support::scaled(CASES),
            failure_persistence: None,
            ..Config::default()
        },
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    );
    let result = runner.run(&proptest::num::u64::ANY, |seed| {
        let mut r = Rng(seed | 1);
        let value = root(&mut r);
        let keys = Keys {
            id: value.by_id.keys().next().copied().unwrap_or(7),
            offset: value.by_off.keys().next().copied().unwrap_or(3),
            flag: r.one_in(2),
            letter: value.letters.keys().next().copied().unwrap_or('a'),
        };
        for (n, (bytes, edits)) in writings(&value, &mut r).into_iter().enumerate() {
            let decoded = serde_json::from_slice::<Root>(&bytes);
            if n == 0 && !arbitrary_precision() {
                // serde_json's writing decodes. (Without `float_roundtrip` a
                // float may come back a bit off, so the value is not
                // compared. Under `arbitrary_precision` serde reads no float
                // from its buffer, so its own writing may not decode.)
                if let Err(error) = &decoded {
                    let text = String::from_utf8_lossy(&bytes);
                    let line = text
                        .split('\n')
                        .nth(error.line().saturating_sub(1))
                        .unwrap_or("");
                    return Err(TestCaseError::fail(format!(
                        "rejects {text:?}: {error}, at {:?}",
                        line.get(..error.column()).unwrap_or(line)
                    )));
                }
            }
            let decoded = decoded.ok();
            let mut seen = writings_seen.borrow_mut();
            seen.0 += 1;
            if decoded.is_some() {
                seen.1 += 1;
                let mut accepted = accepted.borrow_mut();
                for edit in &edits {
                    accepted[EDITS.iter().position(|e| e == edit).unwrap_or(0)] += 1;
                }
            }
            drop(seen);
            every_path(&bytes, decoded.as_ref(), &keys).map_err(TestCaseError::fail)?;
        }
        Ok(())
    });
    if let Err(error) = result {
        panic!("{error}");
    }
    let accepted = accepted.into_inner();
    let (seen, decoded) = writings_seen.into_inner();
    eprintln!("writings: {seen}, accepted by serde_json: {decoded}");
    for (edit, count) in EDITS.iter().zip(accepted) {
        eprintln!("  {edit:?}: {count} accepted");
        if arbitrary_precision() {
            continue;
        }
        assert!(
            count >= MIN_ACCEPTED,
            "{edit:?} reached only {count} writings serde accepts"
        );
    }
}
