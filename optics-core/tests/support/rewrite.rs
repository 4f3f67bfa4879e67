//! Rewriting of a JSON value serde wrote into other writings serde reads
//! alike: whitespace, escapes, member order, unknown members.

/// How to rewrite one writing: a stream of choices, used one per decision.
pub struct Rewrite {
    choices: Vec<u8>,
    at: usize,
    /// Whether each object's members are turned and maybe reversed (else
    /// they stay in key order, as serde_json's `Value` keeps them).
    reorder: bool,
}

impl Rewrite {
    /// A rewriting that takes its decisions from `choices` in turn.
    pub fn new(choices: Vec<u8>, reorder: bool) -> Self {
        Rewrite {
            choices,
            at: 0,
            reorder,
        }
    }

    fn next(&mut self) -> u8 {
        let c = self
            .choices
            .get(self.at % self.choices.len().max(1))
            .copied()
            .unwrap_or(0);
        self.at += 1;
        c
    }

    pub fn space(&mut self, out: &mut String) {
        match self.next() % 8 {
            0 => out.push(' '),
            1 => out.push_str("\n\t"),
            2 => out.push_str(" \r\n "),
            _ => {}
        }
    }

    /// `text` as a JSON string, each character escaped or not as chosen.
    pub fn string(&mut self, text: &str, out: &mut String) {
        out.push('"');
        for ch in text.chars() {
            let choice = self.next() % 4;
            match ch {
                '"' => out.push_str(if choice == 0 { "\\u0022" } else { "\\\"" }),
                '\\' => out.push_str(if choice == 0 { "\\u005C" } else { "\\\\" }),
                '/' if choice == 0 => out.push_str("\\/"),
                c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                c if choice == 1 => {
                    let mut units = [0u16; 2];
                    for unit in c.encode_utf16(&mut units) {
                        out.push_str(&format!("\\u{unit:04X}"));
                    }
                }
                c => out.push(c),
            }
        }
        out.push('"');
    }

    /// `value` rewritten: whitespace here and there, escapes now and then,
    /// objects in key order or reordered, and, where `decoys` are given, an
    /// unknown member now and then (one an object at most) whose value holds
    /// them.
    pub fn value(&mut self, value: &serde_json::Value, decoys: &[&str], out: &mut String) {
        use serde_json::Value;
        self.space(out);
        match value {
            Value::String(text) => self.string(text, out),
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    self.value(item, decoys, out);
                }
                self.space(out);
                out.push(']');
            }
            Value::Object(members) => {
                out.push('{');
                let mut members: Vec<_> = members.iter().collect();
                if self.reorder {
                    let turn = usize::from(self.next()) % members.len().max(1);
                    members.rotate_left(turn);
                    if self.next().is_multiple_of(2) {
                        members.reverse();
                    }
                }
                let mut first = true;
                // One decoy an object at most: two would be one key given
                // twice, which a map field takes as a repeated key.
                let mut decoyed = false;
                for (key, item) in members {
                    if !decoys.is_empty() && !decoyed && self.next().is_multiple_of(5) {
                        self.decoy(decoys, first, out);
                        first = false;
                        decoyed = true;
                    }
                    if !first {
                        out.push(',');
                    }
                    first = false;
                    self.space(out);
                    self.string(key, out);
                    self.space(out);
                    out.push(':');
                    self.value(item, decoys, out);
                }
                self.space(out);
                out.push('}');
            }
            other => out.push_str(&other.to_string()),
        }
        self.space(out);
    }

    /// An unknown member whose value holds the model's keys.
    fn decoy(&mut self, decoys: &[&str], first: bool, out: &mut String) {
        if !first {
            out.push(',');
        }
        let key = decoys[usize::from(self.next()) % decoys.len()];
        out.push_str("\"zz_unknown\":{");
        self.string(key, out);
        out.push_str(":[\"}\\\"\",{\"kind\":\"point\"}],\"");
        out.push_str(&key.replace('\\', "\\\\").replace('"', "\\\""));
        out.push_str("\\\\\":1}");
    }
}
