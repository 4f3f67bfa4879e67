//! Probes of byte reads and writes against serde_json, for the fidelity
//! hunts: a path read from a document (as written and airy; trusting, with
//! `try_read`, and strict) against serde_json's decode previewed with it, and
//! a byte write against `decode -> set -> encode`; a traversal's reads,
//! folds and writes against the same on the decoded value ([`probe_each`],
//! [`probe_set_all`], [`probe_modify_all`]). Each test gathers what it finds
//! in [`Checks`] and fails at its end with all of it.

use std::fmt::Debug;

use optics_core::json::{
    Duplicates, JsonDecode, JsonOptic, JsonTraverse, JsonTraverseDecode, JsonWrite, Strict,
};
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
    /// The byte writes of every focus made, and refused, by the traversal
    /// probes (a refusal is no disagreement, but a test of writes that all
    /// refuse says little).
    pub written: usize,
    pub writes_refused: usize,
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

/// The value a byte write is compared with: `expected` as serde_json writes
/// it and reads it back (a float may come back otherwise), or as it is
/// where serde_json cannot write it (an internally tagged `Option`
/// payload); `None` where serde_json does not read back what it writes:
/// nothing to compare.
fn written_back<S: DeserializeOwned + Serialize>(expected: S) -> Option<S> {
    match serde_json::to_vec(&expected) {
        Ok(written) => serde_json::from_slice(&written).ok(),
        Err(_) => Some(expected),
    }
}

/// Bytes a write (`what`) gave decode as `expected`; a disagreement
/// otherwise.
fn decodes_as<S: DeserializeOwned + Debug + PartialEq>(
    what: &str,
    written: &[u8],
    expected: &S,
    checks: &mut Checks,
) {
    let shown = String::from_utf8_lossy(written);
    match serde_json::from_slice::<S>(written) {
        Ok(got) if got == *expected => {}
        Ok(got) => checks.disagreements.push(format!(
            "{what} wrote {shown}, which decodes as {got:?}, not {expected:?}"
        )),
        Err(error) => checks.disagreements.push(format!(
            "{what} wrote {shown}, which serde_json refuses: {error}"
        )),
    }
}

/// A byte write of `a` through `o` in `doc` (as written and airy; trusting
/// and strict) decodes as serde_json's decode of `doc` with `o` set to `a`,
/// written and read back by serde_json; or refuses. It writes only where
/// the value has a focus.
pub fn probe_set<S, O>(group: &str, doc: &str, o: O, a: O::Focus, checks: &mut Checks)
where
    S: DeserializeOwned + Serialize + Debug + Clone + PartialEq,
    O: Optional<Source = S> + JsonOptic + JsonWrite + JsonTraverse + StartsAt<S> + Copy + Debug,
    O::Focus: Clone + PartialEq + Debug,
{
    probe_one_write(
        group,
        doc,
        |whole: &S| {
            let present = o.preview(whole).is_some();
            let mut expected = whole.clone();
            o.set(&mut expected, a.clone());
            (present, expected, format!("{o:?} := {a:?}"))
        },
        |json| json.set(o, &a),
        |strict| strict.set(o, &a),
        checks,
    );
}

/// A byte `modify` with `f` through `o` in `doc` (as written and airy;
/// trusting and strict) decodes as serde_json's decode of `doc` with its
/// focus changed by `f`, written and read back by serde_json; or refuses.
/// It writes only where the value has a focus.
pub fn probe_modify<S, O>(
    group: &str,
    doc: &str,
    o: O,
    f: fn(O::Focus) -> O::Focus,
    checks: &mut Checks,
) where
    S: DeserializeOwned + Serialize + Debug + Clone + PartialEq,
    O: Optional<Source = S>
        + JsonOptic
        + for<'a> JsonDecode<'a>
        + JsonWrite
        + JsonTraverse
        + StartsAt<S>
        + Copy
        + Debug,
    O::Focus: Clone + PartialEq + Debug,
{
    probe_one_write(
        group,
        doc,
        |whole: &S| {
            let old = o.preview(whole).cloned();
            let mut expected = whole.clone();
            if let Some(old) = old.clone() {
                o.set(&mut expected, f(old));
            }
            (old.is_some(), expected, format!("modify {o:?} of {old:?}"))
        },
        |json| json.modify(o, f),
        |strict| strict.modify(o, f),
        checks,
    );
}

/// What `probe_set` and `probe_modify` share: for each form of `doc` that
/// serde_json decodes, `change` says whether the value has a focus, the
/// value after the write and how to name the write; the bytes written by
/// `write` (trusting) and `write_strict` must decode as that value written
/// back, and nothing may be written where the value has no focus.
fn probe_one_write<S>(
    group: &str,
    doc: &str,
    change: impl Fn(&S) -> (bool, S, String),
    write: impl Fn(Json<'_, S>) -> Option<Vec<u8>>,
    write_strict: impl Fn(Strict<'_, '_, S>) -> Option<Vec<u8>>,
    checks: &mut Checks,
) where
    S: DeserializeOwned + Serialize + Debug + PartialEq,
{
    for bytes in forms(doc) {
        let text = String::from_utf8_lossy(&bytes);
        let whole = serde_json::from_slice::<S>(&bytes);
        checks.count(group, whole.is_ok());
        let Ok(whole) = whole else {
            continue;
        };
        let (present, expected, named) = change(&whole);
        let Some(expected) = written_back(expected) else {
            continue;
        };
        let duplicates = Duplicates::new();
        let strict = Strict::<S>::validated(&bytes, &duplicates).ok();
        let written = [
            ("", write(Json::<S>::new(&bytes))),
            ("strict ", strict.and_then(&write_strict)),
        ];
        for (how, written) in written {
            let Some(written) = written else {
                continue;
            };
            let shown = String::from_utf8_lossy(&written);
            if !present {
                checks.disagreements.push(format!(
                    "{group}: {how}{named} wrote {shown} in {text}, where the value has no focus"
                ));
            }
            let what = format!("{group}: {how}{named} in {text}");
            decodes_as(&what, &written, &expected, checks);
        }
    }
}

/// How a traversal's foci in the bytes line up with its foci in the value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Foci {
    /// In the same order: lists.
    Listed,
    /// In another order: a map's members come in the bytes' order, its
    /// values in the map's.
    Mapped,
    /// In another order, and the object repeats a key: a trusting read
    /// visits every member, where serde keeps the last, so only strict
    /// reads are held to serde's foci.
    Repeated,
}

impl Foci {
    /// Whether `got` are the foci `want`, every one once: in the same order
    /// for a list, in any order for a map. (Compared by `==`, so that a map
    /// inside a focus is compared whatever its own order.)
    fn agree<A: PartialEq>(self, got: &[A], want: &[A]) -> bool {
        got.len() == want.len() && self.among(got, want)
    }

    /// Whether each of `got` is one of `want`, each of those at most once:
    /// in their order for a list.
    fn among<A: PartialEq>(self, got: &[A], want: &[A]) -> bool {
        if self == Foci::Listed {
            let mut rest = want.iter();
            return got.iter().all(|focus| rest.any(|wanted| wanted == focus));
        }
        let mut left: Vec<&A> = want.iter().collect();
        got.iter().all(|focus| {
            let at = left.iter().position(|wanted| *wanted == focus);
            at.map(|at| left.swap_remove(at)).is_some()
        })
    }
}

/// The reads of traversal `o` in `doc` (as written and airy) against
/// serde_json's decode iterated with `o`: `read_each` (trusting and strict)
/// gives every focus the value has, in its order (see [`Foci`]); each view
/// `iter` gives decodes to one of them, in order (a field the bytes leave out
/// has no view); folds (`fold`, `any`, `all`) answer as they do on the value;
/// a strict read meets no duplicate.
pub fn probe_each<S, O>(group: &str, doc: &str, o: O, foci: Foci, checks: &mut Checks)
where
    S: DeserializeOwned + Debug,
    O: Traverse<Source = S> + for<'a> JsonTraverseDecode<'a> + StartsAt<S> + Copy + Debug,
    O::Focus: DeserializeOwned + Clone + PartialEq + Debug,
{
    probe_reads(group, doc, o, foci, Some(|view| view.decode()), checks);
}

/// [`probe_each`] for a focus that has no `Deserialize` of its own (an
/// enum's kind): its views are not decoded.
pub fn probe_folds<S, O>(group: &str, doc: &str, o: O, foci: Foci, checks: &mut Checks)
where
    S: DeserializeOwned + Debug,
    O: Traverse<Source = S> + for<'a> JsonTraverseDecode<'a> + StartsAt<S> + Copy + Debug,
    O::Focus: Clone + PartialEq + Debug,
{
    probe_reads(group, doc, o, foci, None, checks);
}

/// How [`probe_each`] decodes a focus's view.
type DecodeView<A> = for<'a> fn(Json<'a, A>) -> Option<A>;

/// [`probe_each`], its views decoded with `decode_view` where given.
fn probe_reads<S, O>(
    group: &str,
    doc: &str,
    o: O,
    foci: Foci,
    decode_view: Option<DecodeView<O::Focus>>,
    checks: &mut Checks,
) where
    S: DeserializeOwned + Debug,
    O: Traverse<Source = S> + for<'a> JsonTraverseDecode<'a> + StartsAt<S> + Copy + Debug,
    O::Focus: Clone + PartialEq + Debug,
{
    for bytes in forms(doc) {
        let text = String::from_utf8_lossy(&bytes);
        let whole = serde_json::from_slice::<S>(&bytes);
        checks.count(group, whole.is_ok());
        let Ok(whole) = whole else {
            continue;
        };
        let mut found = |what: &str, got: String, expected: String| {
            checks.disagreements.push(format!(
                "{group}: {what} of {o:?} in {text}: {got}, serde_json {expected}"
            ));
        };
        let expected: Vec<O::Focus> = o.iter(&whole).cloned().collect();
        let json = Json::<S>::new(&bytes);
        let duplicates = Duplicates::new();
        let Ok(strict) = Strict::<S>::validated(&bytes, &duplicates) else {
            found("validation", "refused".into(), "accepted".into());
            continue;
        };
        let agree = |got: &Option<Vec<O::Focus>>| {
            got.as_ref().is_some_and(|got| foci.agree(got, &expected))
        };
        let strict_read: Option<Vec<O::Focus>> = strict.read_each(o).collect();
        if !agree(&strict_read) || duplicates.met() {
            found(
                "strict read_each",
                format!("{strict_read:?}"),
                format!("{expected:?}"),
            );
        }
        let push = |mut all: Vec<O::Focus>, focus: &O::Focus| {
            all.push(focus.clone());
            all
        };
        let strict_fold = strict.fold(o, Vec::new(), push);
        if !agree(&strict_fold) {
            found(
                "strict fold",
                format!("{strict_fold:?}"),
                format!("{expected:?}"),
            );
        }
        // `any` and `all` for each focus and for none.
        let probes: Vec<Option<&O::Focus>> = expected.iter().map(Some).chain([None]).collect();
        let on_value = fold_answers(&whole, o, &probes);
        let on_strict = fold_answers(strict, o, &probes);
        if on_strict != on_value {
            found(
                "strict any/all",
                format!("{on_strict:?}"),
                format!("{on_value:?}"),
            );
        }
        if foci == Foci::Repeated {
            continue;
        }
        let read: Option<Vec<O::Focus>> = json.read_each(o).collect();
        if !agree(&read) {
            found("read_each", format!("{read:?}"), format!("{expected:?}"));
        }
        let fold = json.fold(o, Vec::new(), push);
        if !agree(&fold) {
            found("fold", format!("{fold:?}"), format!("{expected:?}"));
        }
        let on_bytes = fold_answers(json, o, &probes);
        if on_bytes != on_value {
            found("any/all", format!("{on_bytes:?}"), format!("{on_value:?}"));
        }
        let Some(decode_view) = decode_view else {
            continue;
        };
        let views: Option<Vec<O::Focus>> = json.iter(o).map(decode_view).collect();
        if !views
            .as_ref()
            .is_some_and(|views| foci.among(views, &expected))
        {
            found("views", format!("{views:?}"), format!("{expected:?}"));
        }
    }
}

/// What `reader` answers to `any` and `all` of `o` with a focus equal to
/// each of `probes` (`None`: equal to none).
fn fold_answers<S, O>(
    reader: impl Reader<S>,
    o: O,
    probes: &[Option<&O::Focus>],
) -> Vec<Option<bool>>
where
    O: Traverse<Source = S> + for<'a> JsonTraverseDecode<'a> + Copy,
    O::Focus: PartialEq,
{
    probes
        .iter()
        .flat_map(|probe| {
            let is = |focus: &O::Focus| Some(focus) == *probe;
            [reader.any(o, is), reader.all(o, |focus| !is(focus))]
        })
        .collect()
}

/// A byte write of every focus of traversal `o` in `doc` (as written and
/// airy; trusting and strict) decodes as serde_json's decode of `doc` with
/// `write` made on the value, written and read back by serde_json; or
/// refuses (counted in [`Checks::writes_refused`]).
fn probe_write_all<S, O>(
    group: &str,
    doc: &str,
    o: O,
    write: &dyn Fn(&mut S),
    on_bytes: &dyn Fn(Json<'_, S>) -> Option<Vec<u8>>,
    on_strict: &dyn Fn(Strict<'_, '_, S>) -> Option<Vec<u8>>,
    checks: &mut Checks,
) where
    S: DeserializeOwned + Serialize + Debug + Clone + PartialEq,
    O: Debug,
{
    for bytes in forms(doc) {
        let text = String::from_utf8_lossy(&bytes);
        let whole = serde_json::from_slice::<S>(&bytes);
        checks.count(group, whole.is_ok());
        let Ok(whole) = whole else {
            continue;
        };
        let mut expected = whole.clone();
        write(&mut expected);
        let Some(expected) = written_back(expected) else {
            continue;
        };
        let duplicates = Duplicates::new();
        let strict = Strict::<S>::validated(&bytes, &duplicates).ok();
        let written = [
            ("trusting", on_bytes(Json::new(&bytes))),
            ("strict", strict.and_then(on_strict)),
        ];
        for (how, written) in written {
            let Some(written) = written else {
                checks.writes_refused += 1;
                continue;
            };
            checks.written += 1;
            let what = format!("{group}: {how} write of every focus of {o:?} in {text}");
            decodes_as(&what, &written, &expected, checks);
        }
    }
}

/// [`Json::set_all`] and [`Strict::set_all`] of `a` through `o` in `doc`
/// against `set_all` on the decoded value (see [`probe_write_all`]).
pub fn probe_set_all<S, O>(group: &str, doc: &str, o: O, a: O::Focus, checks: &mut Checks)
where
    S: DeserializeOwned + Serialize + Debug + Clone + PartialEq,
    O: TraverseMut<Source = S> + JsonWrite + JsonTraverse + StartsAt<S> + Copy + Debug,
    O::Focus: Clone + Debug,
{
    probe_write_all(
        group,
        doc,
        o,
        &|s| {
            o.set_all(s, a.clone());
        },
        &|json| json.set_all(o, &a),
        &|strict| strict.set_all(o, &a),
        checks,
    );
}

/// [`Json::modify_all`] and [`Strict::modify_all`] with `f` through `o` in
/// `doc` against `modify_all` on the decoded value (see [`probe_write_all`]).
pub fn probe_modify_all<S, O>(
    group: &str,
    doc: &str,
    o: O,
    f: fn(O::Focus) -> O::Focus,
    checks: &mut Checks,
) where
    S: DeserializeOwned + Serialize + Debug + Clone + PartialEq,
    O: TraverseMut<Source = S>
        + for<'a> JsonTraverseDecode<'a>
        + JsonWrite
        + StartsAt<S>
        + Copy
        + Debug,
    O::Focus: Clone + Debug,
{
    probe_write_all(
        group,
        doc,
        o,
        &|s| {
            o.modify_all(s, |focus| *focus = f(focus.clone()));
        },
        &|json| json.modify_all(o, f),
        &|strict| strict.modify_all(o, f),
        checks,
    );
}
