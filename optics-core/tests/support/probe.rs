//! Probes of byte reads and writes against serde_json, for the fidelity
//! hunts: a path read from a document (as written and airy; trusting, with
//! `try_read`, and strict) against serde_json's decode previewed with it, and
//! a byte write against `decode -> set -> encode`. Each test gathers what it
//! finds in [`Checks`] and fails at its end with all of it.

use std::fmt::Debug;

use optics_core::json::{Duplicates, JsonDecode, JsonOptic, JsonWrite, Strict};
use optics_core::optic::StartsAt;
use optics_core::prelude::*;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::oracle::airy;

/// The disagreements a test found, and how many of its documents serde_json
/// accepted and refused.
#[derive(Default)]
pub struct Checks {
    pub disagreements: Vec<String>,
    pub accepted: usize,
    pub refused: usize,
    /// The groups with a document serde_json accepted.
    groups_accepted: std::collections::BTreeSet<String>,
    /// Every group checked.
    groups: std::collections::BTreeSet<String>,
}

impl Checks {
    /// Fails with every disagreement found, or where serde_json refused
    /// most of the documents (the checks would then say little).
    #[track_caller]
    pub fn finish(self) {
        assert!(
            self.disagreements.is_empty(),
            "{} disagreements:\n{}",
            self.disagreements.len(),
            self.disagreements.join("\n")
        );
        assert!(
            self.accepted > self.refused,
            "serde_json accepted {} documents, refused {}",
            self.accepted,
            self.refused
        );
        let idle: Vec<_> = self.groups.difference(&self.groups_accepted).collect();
        assert!(
            idle.is_empty(),
            "serde_json refused every document of {idle:?}"
        );
    }

    /// Counts a document of `group`, accepted by serde_json or not.
    pub fn count(&mut self, group: &str, accepted: bool) {
        self.groups.insert(group.to_owned());
        if accepted {
            self.accepted += 1;
            self.groups_accepted.insert(group.to_owned());
        } else {
            self.refused += 1;
        }
    }
}

/// `doc` as written and with whitespace around every token.
pub fn forms(doc: &str) -> [Vec<u8>; 2] {
    [doc.as_bytes().to_vec(), airy(doc.as_bytes())]
}

/// The byte read of `o` in `bytes` (trusting and strict) equals serde_json's
/// decode previewed with `o`, where serde_json accepts `bytes`. Generic in
/// the input's lifetime, so that borrowing models are checked too.
pub fn probe_in<'a, S, O>(group: &str, bytes: &'a [u8], o: O, checks: &mut Checks)
where
    S: Deserialize<'a> + Debug,
    O: Preview<Source = S> + JsonDecode<'a> + StartsAt<S> + Copy + Debug,
    O::Focus: Clone + PartialEq + Debug,
{
    let text = String::from_utf8_lossy(bytes);
    let whole = serde_json::from_slice::<S>(bytes);
    checks.count(group, whole.is_ok());
    let Ok(whole) = whole else {
        return;
    };
    let expected = o.preview(&whole).cloned();
    let read = Json::<S>::new(bytes).read(o);
    let tried = Json::<S>::new(bytes).try_read(o).ok();
    let duplicates = Duplicates::new();
    let strict = Strict::<S>::validated(bytes, &duplicates).map(|strict| strict.read(o));
    if read != expected || tried != expected || strict.as_ref().ok() != Some(&expected) {
        checks.disagreements.push(format!(
            "{group}: {o:?} in {text}: read {read:?}, try_read {tried:?}, strict {strict:?}, serde_json {expected:?}"
        ));
    }
}

/// [`probe_in`] on `doc` as written and airy.
pub fn probe<S, O>(group: &str, doc: &str, o: O, checks: &mut Checks)
where
    S: for<'a> Deserialize<'a> + Debug,
    O: Preview<Source = S> + for<'a> JsonDecode<'a> + StartsAt<S> + Copy + Debug,
    O::Focus: Clone + PartialEq + Debug,
{
    for bytes in forms(doc) {
        probe_in(group, &bytes, o, checks);
    }
}

/// A byte write of `a` through `o` in `doc` (as written and airy) decodes as
/// serde_json's decode of `doc` with `o` set to `a`, written and read back
/// by serde_json; or refuses. It writes only where the value has a focus.
pub fn probe_set<S, O>(group: &str, doc: &str, o: O, a: O::Focus, checks: &mut Checks)
where
    S: DeserializeOwned + Serialize + Debug + Clone + PartialEq,
    O: Optional<Source = S> + JsonOptic + JsonWrite + StartsAt<S> + Copy + Debug,
    O::Focus: Clone + PartialEq + Debug,
{
    for bytes in forms(doc) {
        let text = String::from_utf8_lossy(&bytes);
        let whole = serde_json::from_slice::<S>(&bytes);
        checks.count(group, whole.is_ok());
        let Ok(whole) = whole else {
            continue;
        };
        let present = o.preview(&whole).is_some();
        let mut expected = whole.clone();
        o.set(&mut expected, a.clone());
        let Ok(expected) = serde_json::from_slice::<S>(&serde_json::to_vec(&expected).unwrap())
        else {
            // serde does not read back what it writes: nothing to compare.
            continue;
        };
        let Some(written) = Json::<S>::new(&bytes).set(o, &a) else {
            continue;
        };
        let shown = String::from_utf8_lossy(&written);
        if !present {
            checks.disagreements.push(format!(
                "{group}: {o:?} wrote {shown} in {text}, where the value has no focus"
            ));
        }
        match serde_json::from_slice::<S>(&written) {
            Ok(got) if got == expected => {}
            Ok(got) => checks.disagreements.push(format!(
                "{group}: {o:?} := {a:?} in {text} wrote {shown}, which decodes as {got:?}, not {expected:?}"
            )),
            Err(error) => checks.disagreements.push(format!(
                "{group}: {o:?} := {a:?} in {text} wrote {shown}, which serde_json refuses: {error}"
            )),
        }
    }
}
