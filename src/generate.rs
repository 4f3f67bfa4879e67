//! Generators derived from the model: only the leaves are written by hand.
//!
//! The model's types derive [`Generate`] (`#[derive(Generate)]`, from the
//! `generate-derive` crate): a struct is generated field by field, an enum by
//! choosing a variant, so a field added to the model is generated without
//! touching this file. A [`Gen`] carries a seeded random source and a size: the most words in
//! a text and the most elements in a list or map. Every variant of an enum is
//! equally likely, so a third of the issues are of each kind.

use std::collections::BTreeMap;

/// A seeded random source and the size that bounds texts and lists.
/// Deterministic: the same seed and size give the same values.
#[derive(Clone, Debug)]
pub struct Gen {
    state: u64,
    size: usize,
}

impl Gen {
    /// A generator of values at `size` (at least 1), from `seed`.
    pub fn new(seed: u64, size: usize) -> Self {
        Gen {
            state: seed ^ 0x9E37_79B9_7F4A_7C15,
            size: size.max(1),
        }
    }

    /// The size: the most words in a text and elements in a list.
    pub fn size(&self) -> usize {
        self.size
    }

    /// 64 random bits (splitmix64).
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() >> 11) % n as u64) as usize
    }

    /// True with probability 1/`n`.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    /// A length in `0..=size`.
    pub fn list_len(&mut self) -> usize {
        self.below(self.size + 1)
    }
}

/// Derives [`Generate`](trait@Generate) from a type's fields and variants.
pub use generate_derive::Generate;

/// A type whose values can be generated.
pub trait Generate: Sized {
    /// A value drawn from `g`.
    fn generate(g: &mut Gen) -> Self;
}

const WORDS: &[&str] = &[
    "checkout", "latency", "timeout", "retry", "customer", "invoice", "payment", "cache",
    "cluster", "deploy", "rollback", "error", "request", "session", "token", "queue", "replica",
    "index", "search", "gateway", "storage", "billing", "login", "report", "export", "import",
    "upload", "memory", "disk", "network", "config", "release",
];

/// Pieces that JSON must escape, or that are not ASCII: one text in twenty
/// carries one.
const AWKWARD: &[&str] = &[
    "\"quoted\"",
    "back\\slash",
    "line\nbreak",
    "tab\there",
    "café",
    "日本語",
    "🚀",
    "ctrl\u{1}",
    "{brace}",
    "[bracket]",
];

impl Generate for String {
    fn generate(g: &mut Gen) -> Self {
        let words = 1 + g.below(g.size());
        let mut text = String::new();
        for i in 0..words {
            if i > 0 {
                text.push(' ');
            }
            text.push_str(WORDS[g.below(WORDS.len())]);
        }
        if g.one_in(20) {
            text.push(' ');
            text.push_str(AWKWARD[g.below(AWKWARD.len())]);
        }
        text
    }
}

impl Generate for f64 {
    /// In `[0, 1e6]`: JSON has no NaN or infinities.
    fn generate(g: &mut Gen) -> Self {
        (g.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 1e6
    }
}

impl Generate for bool {
    fn generate(g: &mut Gen) -> Self {
        g.one_in(2)
    }
}

impl Generate for u64 {
    /// Timestamps and ids: up to 2^40, so they look like real ones.
    fn generate(g: &mut Gen) -> Self {
        g.next_u64() >> 24
    }
}

impl Generate for u32 {
    fn generate(g: &mut Gen) -> Self {
        (g.next_u64() % 10_000) as u32
    }
}

impl<T: Generate> Generate for Option<T> {
    fn generate(g: &mut Gen) -> Self {
        if g.one_in(2) {
            None
        } else {
            Some(T::generate(g))
        }
    }
}

impl<T: Generate> Generate for Vec<T> {
    fn generate(g: &mut Gen) -> Self {
        let len = g.list_len();
        (0..len).map(|_| T::generate(g)).collect()
    }
}

impl<V: Generate> Generate for BTreeMap<String, V> {
    fn generate(g: &mut Gen) -> Self {
        let len = g.list_len();
        (0..len)
            .map(|_| (WORDS[g.below(WORDS.len())].to_owned(), V::generate(g)))
            .collect()
    }
}
