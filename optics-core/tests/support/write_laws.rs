//! The laws of byte writes and traversals, one helper each, checked against
//! serde_json as the oracle. Shared by `optics-core`'s `write_laws` test (the
//! test model) and the demo's (`triage::model`).
//!
//! For a document `json` that serde wrote from a value, a single-focus optic
//! `o` and a new focus `a` ([`set_laws`]):
//!
//! - **set is set on the value**: `decode(json.set(o, a))` is `decode(json)`
//!   with `o.set(_, a)`, and `set` returns `None` exactly where the value has
//!   no focus;
//! - **read after set** gives `a`;
//! - **set twice is set once**, byte for byte; setting `b` then `a` decodes as
//!   setting `a`;
//! - **setting what was read changes no byte**;
//! - `modify` with a constant is `set`, with the identity changes no byte;
//!   `set_into` (into a dirty buffer) and `set_all` write what `set` writes.
//!
//! For a traversal ([`traversal_laws`]): `read_each` gives what `iter` gives
//! on the value, in the same order; `iter` gives a view per focus with bytes,
//! in document order, each decoding to its focus; `set_all` is `set_all` on
//! the value; every focus reads back as what was set; `set_all` twice is once;
//! `modify_all` with the identity changes no byte; `iter_mut` visits what
//! `iter` does, and `fold` counts them.

use std::fmt::Debug;

use optics_core::json::{Found, JsonDecode, JsonOptic, JsonTraverseDecode, JsonWrite};
use optics_core::prelude::*;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde::de::DeserializeOwned;
use serde::Serialize;

fn encode<S: Serialize>(s: &S) -> Result<Vec<u8>, TestCaseError> {
    serde_json::to_vec(s).map_err(|e| TestCaseError::fail(format!("serde refused: {e}")))
}

fn decode<S: DeserializeOwned>(bytes: &[u8]) -> Result<S, TestCaseError> {
    serde_json::from_slice(bytes).map_err(|e| {
        TestCaseError::fail(format!(
            "serde_json cannot decode {:?}: {e}",
            String::from_utf8_lossy(bytes)
        ))
    })
}

/// `s` as serde_json gives it back from its own text: the oracle's value.
/// serde_json's default float parsing is not always correctly rounded, so a
/// float may come back a unit in the last place away from what was written;
/// comparing with this, rather than with `s`, compares like with like.
fn through_serde<S: Serialize + DeserializeOwned>(s: &S) -> Result<S, TestCaseError> {
    decode(&encode(s)?)
}

/// The laws of a byte write through a single-focus optic, on the document
/// serde writes for `s`, with new foci `a` and `b`.
pub fn set_laws<O>(
    o: O,
    s: &O::Source,
    a: O::Focus,
    b: O::Focus,
    writes: Writes,
) -> Result<(), TestCaseError>
where
    O: Optional + JsonOptic + JsonWrite + for<'de> JsonDecode<'de> + Copy,
    O::Source: Sized + Serialize + DeserializeOwned + Clone + PartialEq + Debug,
    O::Focus: Clone + PartialEq + Debug,
{
    let doc = encode(s)?;
    let json = Json::<O::Source>::new(&doc);
    let decoded: O::Source = decode(&doc)?;
    let present = o.preview(&decoded).is_some();
    let mut expected = decoded.clone();
    o.set(&mut expected, a.clone());
    let expected = through_serde(&expected)?;

    let written = json.set(o, &a);
    prop_assert_eq!(
        written.is_some(),
        present,
        "set writes exactly where the value has a focus ({:?})",
        o.preview(&decoded)
    );
    let mut out = b"left over".to_vec();
    prop_assert_eq!(json.set_into(o, &a, &mut out), present);
    if let Some(written) = &written {
        let shown = String::from_utf8_lossy(written);
        let got: O::Source = decode(written)?;
        prop_assert_eq!(&got, &expected, "decode(set) == set(decode): {}", shown);
        let again = Json::<O::Source>::new(written);
        prop_assert_eq!(
            again.read(o),
            o.preview(&expected).cloned(),
            "read after set: {}",
            shown
        );
        prop_assert_eq!(again.set(o, &a), Some(written.clone()), "set twice");
        let b_then_a = json
            .set(o, &b)
            .and_then(|wb| Json::<O::Source>::new(&wb).set(o, &a));
        let b_then_a: O::Source = decode(&b_then_a.unwrap_or_default())?;
        prop_assert_eq!(&b_then_a, &expected, "set b then a");
        prop_assert_eq!(&out, written, "set_into");
        prop_assert_eq!(
            json.modify(o, |_| a.clone()),
            Some(written.clone()),
            "modify"
        );
        prop_assert_eq!(json.set_all(o, &a), Some(written.clone()), "set_all");
        if writes == Writes::Canonical {
            prop_assert_eq!(json.modify(o, |x| x), Some(doc.clone()), "modify(identity)");
        }
    } else {
        prop_assert!(out.is_empty(), "a missed set_into leaves the buffer empty");
        prop_assert_eq!(json.modify(o, |_| a.clone()), None);
    }
    if let Some(read) = json.read(o) {
        let same = json.set(o, &read);
        match writes {
            Writes::Canonical => {
                prop_assert_eq!(same, Some(doc.clone()), "set(read) changes no byte");
            }
            Writes::Unordered | Writes::Rounded => {
                let same: O::Source = decode(&same.unwrap_or_default())?;
                prop_assert_eq!(same, through_serde(&decoded)?, "set(read) changes nothing");
            }
        }
    }
    Ok(())
}

/// How serde writes a focus it read: the same bytes, or what decodes alike.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Writes {
    /// The same bytes.
    Canonical,
    /// A `HashMap`'s members in another order: serde takes the order from
    /// the map's hasher.
    Unordered,
    /// A float's last digit may differ: serde_json's default float parsing is
    /// not always correctly rounded, so what it reads need not be what was
    /// written.
    Rounded,
}

/// The laws of a traversal, on the value `s` and on the document serde
/// writes for it, with the new focus `a`.
pub fn traversal_laws<O>(o: O, s: &O::Source, a: O::Focus) -> Result<(), TestCaseError>
where
    O: Traversal + JsonWrite + for<'de> JsonTraverseDecode<'de> + Copy,
    O::Source: Sized + Serialize + DeserializeOwned + Clone + PartialEq + Debug,
    O::Focus: Clone + PartialEq + Debug + DeserializeOwned,
{
    // On the value.
    let values: Vec<O::Focus> = o.iter(s).cloned().collect();
    let mut t = s.clone();
    let mutable: Vec<O::Focus> = o.iter_mut(&mut t).map(|f| f.clone()).collect();
    prop_assert_eq!(&mutable, &values, "iter_mut visits what iter does");
    prop_assert_eq!(o.fold(s, 0usize, |n, _| n + 1), values.len(), "fold");
    let mut expected = s.clone();
    prop_assert_eq!(o.set_all(&mut expected, a.clone()), values.len());
    prop_assert!(o.iter(&expected).all(|f| f == &a), "set_all sets all");

    // On the bytes, written from `s` itself, so that a map's members stand in
    // the order its iterator gives.
    let doc = encode(s)?;
    let json = Json::<O::Source>::new(&doc);
    let read: Option<Vec<O::Focus>> = json.read_each(o).collect();
    let decoded: O::Source = decode(&doc)?;
    let in_decoded: Vec<O::Focus> = o.iter(&decoded).cloned().collect();
    // Compared with the value written (whose maps iterate in the order they
    // were written) or with the value read back (whose floats serde_json
    // parsed from the same text).
    prop_assert!(
        read.as_ref() == Some(&values) || read.as_ref() == Some(&in_decoded),
        "read_each == iter: {:?} against {:?}",
        read,
        values
    );
    // A view per focus with bytes, in document order, each decoding to the
    // focus (all of them, where no focus is a missing field).
    let mut end = 0;
    let mut from_views = Vec::new();
    for view in json.iter(o) {
        // A unit variant's view is `null`, which the bytes need not hold.
        if let Some(start) = (view.bytes().as_ptr() as usize).checked_sub(doc.as_ptr() as usize) {
            if start < doc.len() {
                prop_assert!(start >= end, "views in document order");
                end = start + view.bytes().len();
            }
        }
        from_views.push(o.decode_focus(Found::At(view.bytes())));
    }
    prop_assert!(from_views.len() <= values.len());
    if from_views.len() == values.len() {
        let from_views: Option<Vec<O::Focus>> = from_views.into_iter().collect();
        prop_assert_eq!(from_views, read, "views decode to the foci");
    }

    let mut expected = decoded.clone();
    o.set_all(&mut expected, a.clone());
    let expected = through_serde(&expected)?;
    let written = json.set_all(o, &a);
    prop_assert!(written.is_some(), "set_all writes");
    let written = written.unwrap_or_default();
    let shown = String::from_utf8_lossy(&written);
    let got: O::Source = decode(&written)?;
    prop_assert_eq!(
        &got,
        &expected,
        "decode(set_all) == set_all(decode): {}",
        shown
    );
    let again = Json::<O::Source>::new(&written);
    let back: Option<Vec<O::Focus>> = again.read_each(o).collect();
    let set: Vec<O::Focus> = o.iter(&expected).cloned().collect();
    prop_assert_eq!(back, Some(set), "read after set_all");
    prop_assert_eq!(again.set_all(o, &a), Some(written.clone()), "set_all twice");
    prop_assert_eq!(json.modify_all(o, |_| a.clone()), Some(written.clone()));
    prop_assert_eq!(
        json.modify_all(o, |x| x),
        Some(doc.clone()),
        "modify_all(identity)"
    );
    let mut out = b"left over".to_vec();
    prop_assert!(json.set_all_into(o, &a, &mut out));
    prop_assert_eq!(out, written);
    Ok(())
}

/// [`set_laws`] for each listed optic, the new foci taken from other wholes
/// where they have one, else from `$a`/`$b`.
#[allow(unused_macros)]
macro_rules! sets {
    ($s:expr, $t:expr, $u:expr; $($o:expr => $a:expr, $b:expr $(, $writes:ident)?);+ $(;)?) => {
        $(
            let a = $o.preview(&$t).cloned().unwrap_or_else(|| $a);
            let b = $o.preview(&$u).cloned().unwrap_or_else(|| $b);
            set_laws($o, &$s, a, b, sets!(@writes $($writes)?))?;
        )+
    };
    (@writes) => { Writes::Canonical };
    (@writes $writes:ident) => { Writes::$writes };
}
#[allow(unused_imports)]
pub(crate) use sets;
