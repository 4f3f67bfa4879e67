//! A third hunt, for traversals and prisms on bytes that disagree with
//! serde_json: `each()` over lists of enums of every encoding (external,
//! internal `tag`, adjacent `tag` + `content`) then a variant then a field;
//! `each()` after `each()`; `each()` and `key(k)` over maps (`BTreeMap`,
//! `HashMap`, serde_json's `Map`) of enums and structs; traversals through
//! `Option<Vec<T>>`, `Box`, tuples, newtype structs, flattened structs and
//! `default` fields.
//!
//! Every traversal is read (views, `read_each`; trusting and strict), folded
//! (`fold`, `any`, `all`) and written (`set_all`, `modify_all`; trusting and
//! strict) on the bytes, and the same is done on serde_json's decode of
//! them: reads must give the value's foci, writes must decode as the
//! value's write, or refuse (see `support::probe`). Single foci reached
//! through a prism (`at(i)`, `key(k)`) are read and written as the other
//! hunts do. The documents are hostile but valid: whitespace everywhere,
//! escaped keys and tags, members reordered (an internal tag after its
//! payload, content before its tag), decoys named like the model's keys
//! nested deeper, repeated map keys, empty lists and objects, escapes in the
//! leaves that are rewritten.
//!
//! Two disagreed when this suite was written, both writes of every focus
//! that answered with a part of the document unchanged where the value-side
//! write writes a focus; both now refuse, as the single `set` does:
//! `a_write_of_every_focus_refuses_an_adjacent_payload_left_out` and
//! `a_write_of_every_focus_past_a_default_with_foci_refuses`.

mod support;

use std::collections::{BTreeMap, HashMap};

use optics_core::json::{Duplicates, Strict};
use optics_core::prelude::*;
use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use support::probe::{
    probe, probe_each, probe_folds, probe_modify_all, probe_set, probe_set_all, Checks, Foci,
};
use support::rewrite::Rewrite;

// ---------------------------------------------------------------------------
// The model.

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct P {
    a: u8,
    s: String,
    #[serde(default)]
    d: u8,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
enum Ext {
    A(P),
    B(u8),
    C { x: u8, s: String },
    T(u8, String),
    U,
    L(Vec<P>),
    M(BTreeMap<String, Adj>),
    O(Option<P>),
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t")]
enum Int {
    A(P),
    C {
        x: u8,
        s: String,
    },
    U,
    M(BTreeMap<String, u8>),
    /// serde writes no `None` here: in hand-written documents only.
    O(Option<P>),
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t", content = "c")]
enum Adj {
    A(P),
    B(u8),
    C { x: u8, s: String },
    T(u8, String),
    U,
    L(Vec<P>),
    M(HashMap<String, Ext>),
    O(Option<P>),
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Wrap(Vec<Adj>);

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Flat {
    fl: Vec<Int>,
    fm: BTreeMap<String, Ext>,
}

/// Lists and maps inside an internally tagged payload, which serde reads
/// from its buffer.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Holder {
    ext: Vec<Ext>,
    adj: Vec<Adj>,
    int: Vec<Int>,
    grid: Vec<Vec<P>>,
    opt: Option<Vec<P>>,
    #[serde(default)]
    dflt: Vec<Int>,
    m: BTreeMap<String, Ext>,
    #[serde(flatten)]
    flat: Flat,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "k")]
enum Outer {
    H(Holder),
    S {
        items: Vec<Adj>,
        m: HashMap<String, Int>,
    },
}

/// A map behind a newtype and a transparent struct.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Reg(BTreeMap<String, Int>);

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(transparent)]
struct Tr {
    v: HashMap<String, Ext>,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Doc {
    ext: Vec<Ext>,
    int: Vec<Int>,
    adj: Vec<Adj>,
    grid: Vec<Vec<P>>,
    bmap: BTreeMap<String, Int>,
    hmap: HashMap<String, Adj>,
    jmap: serde_json::Map<String, serde_json::Value>,
    opt: Option<Vec<P>>,
    // Boxes on purpose: paths read and write through them.
    #[allow(clippy::box_collection)]
    boxed: Box<Vec<Ext>>,
    #[allow(clippy::vec_box)]
    bxs: Vec<Box<Int>>,
    wrap: Wrap,
    pairs: Vec<(u8, String)>,
    #[serde(default)]
    dflt: Vec<Adj>,
    maybe: Vec<Option<Ext>>,
    outer: Vec<Outer>,
    mm: BTreeMap<String, BTreeMap<String, u8>>,
    lom: Vec<BTreeMap<String, Int>>,
    mol: HashMap<String, Vec<Ext>>,
    reg: Reg,
    tr: Tr,
    #[serde(flatten)]
    flat: Flat,
}

// ---------------------------------------------------------------------------
// Every traversal of the model, read, folded and written on `doc`.

fn bump(n: u8) -> u8 {
    n.wrapping_add(1)
}

fn quote(s: String) -> String {
    format!("{s}\"é\\")
}

/// Every probe of the model's traversals on `doc`; `maps` says how the
/// maps' foci line up with the value's.
fn probe_doc(group: &str, doc: &str, maps: Foci, checks: &mut Checks) {
    let l = Foci::Listed;
    let new_p = P {
        a: 9,
        s: "n\u{1}\"".into(),
        d: 4,
    };
    // Lists of externally tagged enums.
    let ext = Doc::ext.then(each());
    probe_each(group, doc, ext, l, checks);
    probe_each(group, doc, ext.then(Ext::a).then(P::s), l, checks);
    probe_each(group, doc, ext.then(Ext::a).then(P::d), l, checks);
    probe_each(group, doc, ext.then(Ext::b), l, checks);
    probe_each(group, doc, ext.then(Ext::c_s), l, checks);
    probe_each(group, doc, ext.then(Ext::t_1), l, checks);
    probe_each(group, doc, ext.then(Ext::u), l, checks);
    probe_set_all(
        group,
        doc,
        ext.then(Ext::a).then(P::s),
        "w\\".into(),
        checks,
    );
    probe_modify_all(group, doc, ext.then(Ext::a).then(P::s), quote, checks);
    probe_modify_all(group, doc, ext.then(Ext::a).then(P::d), bump, checks);
    probe_modify_all(group, doc, ext.then(Ext::b), bump, checks);
    probe_set_all(group, doc, ext.then(Ext::c_x), 3, checks);
    probe_modify_all(group, doc, ext.then(Ext::t_1), quote, checks);
    probe_set_all(group, doc, ext.then(Ext::u), (), checks);
    probe_set_all(
        group,
        doc,
        ext,
        Ext::C {
            x: 1,
            s: "\"".into(),
        },
        checks,
    );
    probe_set_all(group, doc, ext.then(Ext::a), new_p.clone(), checks);
    probe_each(
        group,
        doc,
        ext.then(Ext::l).then(each()).then(P::s),
        l,
        checks,
    );
    probe_each(
        group,
        doc,
        ext.then(Ext::m).then(each()).then(Adj::b),
        maps,
        checks,
    );
    probe_each(
        group,
        doc,
        ext.then(Ext::o).then(some()).then(P::s),
        l,
        checks,
    );
    probe_each(group, doc, ext.then(Ext::o), l, checks);
    probe_modify_all(
        group,
        doc,
        ext.then(Ext::l).then(each()).then(P::d),
        bump,
        checks,
    );
    probe_modify_all(
        group,
        doc,
        ext.then(Ext::m).then(each()).then(Adj::t_1),
        quote,
        checks,
    );
    probe_modify_all(
        group,
        doc,
        ext.then(Ext::o).then(some()).then(P::s),
        quote,
        checks,
    );
    probe_set_all(group, doc, ext.then(Ext::o), None, checks);
    probe_set_all(group, doc, ext.then(Ext::o), Some(new_p.clone()), checks);
    // Lists of internally tagged enums.
    let int = Doc::int.then(each());
    probe_folds(group, doc, ext.then(Ext::kind), l, checks);
    probe_folds(group, doc, int.then(Int::kind), l, checks);
    probe_folds(group, doc, Doc::adj.then(each()).then(Adj::kind), l, checks);
    probe_folds(
        group,
        doc,
        Doc::bmap.then(each()).then(Int::kind),
        maps,
        checks,
    );
    probe_folds(
        group,
        doc,
        Doc::flat.then(Flat::fm).then(each()).then(Ext::kind),
        maps,
        checks,
    );
    probe_each(group, doc, int, l, checks);
    probe_each(group, doc, int.then(Int::a).then(P::s), l, checks);
    probe_each(group, doc, int.then(Int::a).then(P::d), l, checks);
    probe_each(group, doc, int.then(Int::c_x), l, checks);
    probe_each(group, doc, int.then(Int::u), l, checks);
    probe_each(group, doc, int.then(Int::m).then(each()), maps, checks);
    probe_set_all(group, doc, int.then(Int::a).then(P::s), "t".into(), checks);
    probe_modify_all(group, doc, int.then(Int::a).then(P::a), bump, checks);
    probe_modify_all(group, doc, int.then(Int::a).then(P::d), bump, checks);
    probe_modify_all(group, doc, int.then(Int::c_s), quote, checks);
    probe_set_all(group, doc, int.then(Int::u), (), checks);
    probe_modify_all(group, doc, int.then(Int::m).then(each()), bump, checks);
    probe_set_all(group, doc, int, Int::U, checks);
    probe_set_all(group, doc, int, Int::A(new_p.clone()), checks);
    probe_set_all(group, doc, int.then(Int::a), new_p.clone(), checks);
    probe_set_all(
        group,
        doc,
        int.then(Int::m),
        BTreeMap::from([("k".into(), 1)]),
        checks,
    );
    probe_each(
        group,
        doc,
        int.then(Int::o).then(some()).then(P::d),
        l,
        checks,
    );
    probe_modify_all(
        group,
        doc,
        int.then(Int::o).then(some()).then(P::s),
        quote,
        checks,
    );
    // Lists of adjacently tagged enums.
    let adj = Doc::adj.then(each());
    probe_each(group, doc, adj, l, checks);
    probe_each(group, doc, adj.then(Adj::a).then(P::s), l, checks);
    probe_each(group, doc, adj.then(Adj::b), l, checks);
    probe_each(group, doc, adj.then(Adj::c_s), l, checks);
    probe_each(group, doc, adj.then(Adj::t_0), l, checks);
    probe_each(group, doc, adj.then(Adj::u), l, checks);
    probe_each(
        group,
        doc,
        adj.then(Adj::l).then(each()).then(P::s),
        l,
        checks,
    );
    probe_modify_all(group, doc, adj.then(Adj::a).then(P::s), quote, checks);
    probe_modify_all(group, doc, adj.then(Adj::b), bump, checks);
    probe_set_all(group, doc, adj.then(Adj::c_x), 0, checks);
    probe_modify_all(group, doc, adj.then(Adj::t_1), quote, checks);
    probe_set_all(group, doc, adj.then(Adj::u), (), checks);
    probe_modify_all(
        group,
        doc,
        adj.then(Adj::l).then(each()).then(P::d),
        bump,
        checks,
    );
    probe_set_all(group, doc, adj.then(Adj::l), vec![], checks);
    probe_set_all(group, doc, adj, Adj::T(2, "c".into()), checks);
    probe_each(
        group,
        doc,
        adj.then(Adj::m).then(each()).then(Ext::c_s),
        maps,
        checks,
    );
    probe_each(
        group,
        doc,
        adj.then(Adj::o).then(some()).then(P::d),
        l,
        checks,
    );
    probe_each(group, doc, adj.then(Adj::o), l, checks);
    probe_modify_all(
        group,
        doc,
        adj.then(Adj::m).then(each()).then(Ext::b),
        bump,
        checks,
    );
    probe_modify_all(
        group,
        doc,
        adj.then(Adj::o).then(some()).then(P::a),
        bump,
        checks,
    );
    probe_set_all(group, doc, adj.then(Adj::o), None, checks);
    probe_set_all(group, doc, adj.then(Adj::o), Some(new_p.clone()), checks);
    // Lists of lists.
    let grid = Doc::grid.then(each()).then(each());
    probe_each(group, doc, grid, l, checks);
    probe_each(group, doc, grid.then(P::s), l, checks);
    probe_modify_all(group, doc, grid.then(P::s), quote, checks);
    probe_modify_all(group, doc, grid.then(P::d), bump, checks);
    probe_set_all(
        group,
        doc,
        Doc::grid.then(each()),
        vec![new_p.clone()],
        checks,
    );
    // Maps of enums, and serde_json's map.
    let bmap = Doc::bmap.then(each());
    probe_each(group, doc, bmap, maps, checks);
    probe_each(group, doc, bmap.then(Int::a).then(P::s), maps, checks);
    probe_each(group, doc, bmap.then(Int::c_x), maps, checks);
    probe_modify_all(group, doc, bmap.then(Int::a).then(P::s), quote, checks);
    probe_modify_all(group, doc, bmap.then(Int::c_x), bump, checks);
    probe_set_all(
        group,
        doc,
        bmap,
        Int::C {
            x: 5,
            s: "t".into(),
        },
        checks,
    );
    let hmap = Doc::hmap.then(each());
    probe_each(group, doc, hmap, maps, checks);
    probe_each(group, doc, hmap.then(Adj::b), maps, checks);
    probe_each(group, doc, hmap.then(Adj::a).then(P::a), maps, checks);
    probe_modify_all(group, doc, hmap.then(Adj::b), bump, checks);
    probe_modify_all(group, doc, hmap.then(Adj::a).then(P::s), quote, checks);
    probe_set_all(group, doc, hmap, Adj::U, checks);
    let jmap = Doc::jmap.then(each());
    probe_each(group, doc, jmap, maps, checks);
    probe_set_all(group, doc, jmap, serde_json::json!({"t": "\""}), checks);
    probe_modify_all(group, doc, jmap, |v| serde_json::json!([v, "é"]), checks);
    for k in ["", "k", "t", "c", "\"", "é"] {
        probe(
            group,
            doc,
            Doc::bmap.then(key(k)).then(Int::a).then(P::s),
            checks,
        );
        probe(
            group,
            doc,
            Doc::bmap.then(key(k)).then(Int::m).then(key("t")),
            checks,
        );
        probe(group, doc, Doc::hmap.then(key(k)).then(Adj::b), checks);
        probe(group, doc, Doc::hmap.then(key(k)).then(Adj::c_s), checks);
        probe(group, doc, Doc::jmap.then(key(k)), checks);
        probe(
            group,
            doc,
            Doc::flat.then(Flat::fm).then(key(k)).then(Ext::t_0),
            checks,
        );
        probe_set(
            group,
            doc,
            Doc::bmap.then(key(k)).then(Int::c_s),
            "\\".into(),
            checks,
        );
        probe_set(
            group,
            doc,
            Doc::hmap.then(key(k)).then(Adj::a).then(P::d),
            8,
            checks,
        );
        probe_set(
            group,
            doc,
            Doc::jmap.then(key(k)),
            serde_json::json!(null),
            checks,
        );
        probe_set(
            group,
            doc,
            Doc::flat.then(Flat::fm).then(key(k)).then(Ext::u),
            (),
            checks,
        );
    }
    // Single foci through `at(i)` and a prism.
    for i in 0..3 {
        probe(group, doc, Doc::ext.then(at(i)).then(Ext::c_s), checks);
        probe(
            group,
            doc,
            Doc::int.then(at(i)).then(Int::a).then(P::d),
            checks,
        );
        probe(group, doc, Doc::adj.then(at(i)).then(Adj::t_1), checks);
        probe_set(
            group,
            doc,
            Doc::ext.then(at(i)).then(Ext::a).then(P::s),
            "\u{7f}".into(),
            checks,
        );
        probe_set(group, doc, Doc::int.then(at(i)).then(Int::c_x), 6, checks);
        probe_set(
            group,
            doc,
            Doc::int.then(at(i)).then(Int::a),
            new_p.clone(),
            checks,
        );
        probe_set(group, doc, Doc::adj.then(at(i)).then(Adj::b), 6, checks);
        probe_set(group, doc, Doc::adj.then(at(i)).then(Adj::u), (), checks);
        probe_set(
            group,
            doc,
            Doc::bxs.then(at(i)).then(Int::c_s),
            "b".into(),
            checks,
        );
    }
    // Through an `Option`, a `Box`, a newtype, tuples, a default and a flatten.
    let opt = Doc::opt.then(some()).then(each());
    probe_each(group, doc, opt.then(P::s), l, checks);
    probe_modify_all(group, doc, opt.then(P::s), quote, checks);
    probe_set_all(group, doc, opt, new_p.clone(), checks);
    let boxed = Doc::boxed.then(each::<Vec<Ext>>());
    probe_each(group, doc, boxed.then(Ext::b), l, checks);
    probe_modify_all(group, doc, boxed.then(Ext::b), bump, checks);
    probe_set_all(group, doc, boxed.then(Ext::c_s), "x".into(), checks);
    let bxs = Doc::bxs.then(each());
    probe_each(group, doc, bxs.then(Int::c_s), l, checks);
    probe_each(group, doc, bxs.then(Int::a).then(P::d), l, checks);
    probe_modify_all(group, doc, bxs.then(Int::c_s), quote, checks);
    probe_modify_all(group, doc, bxs.then(Int::a).then(P::d), bump, checks);
    let wrap = Doc::wrap.then(Wrap::_0).then(each());
    probe_each(group, doc, wrap.then(Adj::t_0), l, checks);
    probe_modify_all(group, doc, wrap.then(Adj::t_0), bump, checks);
    probe_set_all(group, doc, wrap.then(Adj::c_s), "y".into(), checks);
    let pairs = Doc::pairs.then(each());
    probe_each(group, doc, pairs, l, checks);
    probe_modify_all(group, doc, pairs, |(n, s)| (bump(n), quote(s)), checks);
    let dflt = Doc::dflt.then(each());
    probe_each(group, doc, dflt.then(Adj::a).then(P::d), l, checks);
    probe_modify_all(group, doc, dflt.then(Adj::a).then(P::d), bump, checks);
    probe_set_all(group, doc, dflt, Adj::B(1), checks);
    let fl = Doc::flat.then(Flat::fl).then(each());
    probe_each(group, doc, fl, l, checks);
    probe_each(group, doc, fl.then(Int::a).then(P::s), l, checks);
    probe_each(group, doc, fl.then(Int::m).then(each()), maps, checks);
    probe_modify_all(group, doc, fl.then(Int::a).then(P::s), quote, checks);
    probe_modify_all(group, doc, fl.then(Int::c_x), bump, checks);
    probe_set_all(group, doc, fl, Int::U, checks);
    let fm = Doc::flat.then(Flat::fm).then(each());
    probe_each(group, doc, fm, maps, checks);
    probe_each(group, doc, fm.then(Ext::a).then(P::d), maps, checks);
    probe_modify_all(group, doc, fm.then(Ext::t_1), quote, checks);
    probe_set_all(group, doc, fm.then(Ext::c_x), 2, checks);
    // `some()` after `each()`; maps behind a newtype and a transparent struct.
    let maybe = Doc::maybe.then(each()).then(some());
    probe_each(group, doc, maybe, l, checks);
    probe_each(group, doc, maybe.then(Ext::a).then(P::s), l, checks);
    probe_modify_all(group, doc, maybe.then(Ext::b), bump, checks);
    probe_set_all(group, doc, maybe.then(Ext::u), (), checks);
    probe_set_all(group, doc, Doc::maybe.then(each()), None, checks);
    let reg = Doc::reg.then(Reg::_0).then(each());
    probe_each(group, doc, reg.then(Int::c_s), maps, checks);
    probe_modify_all(group, doc, reg.then(Int::a).then(P::d), bump, checks);
    let tr = Doc::tr.then(Tr::v).then(each());
    probe_each(group, doc, tr.then(Ext::t_1), maps, checks);
    probe_modify_all(group, doc, tr.then(Ext::c_s), quote, checks);
    for k in ["", "k", "t", "é"] {
        probe(
            group,
            doc,
            Doc::reg
                .then(Reg::_0)
                .then(key(k))
                .then(Int::m)
                .then(key(k)),
            checks,
        );
        probe(
            group,
            doc,
            Doc::tr.then(Tr::v).then(key(k)).then(Ext::b),
            checks,
        );
        probe_set(
            group,
            doc,
            Doc::tr.then(Tr::v).then(key(k)).then(Ext::a).then(P::s),
            "r".into(),
            checks,
        );
    }
    // Maps of maps, lists of maps, maps of lists.
    let mm = Doc::mm.then(each()).then(each());
    probe_each(group, doc, mm, maps, checks);
    probe_modify_all(group, doc, mm, bump, checks);
    probe_set_all(
        group,
        doc,
        Doc::mm.then(each()),
        BTreeMap::from([("\"".into(), 1)]),
        checks,
    );
    let lom = Doc::lom.then(each()).then(each());
    probe_each(group, doc, lom.then(Int::c_x), maps, checks);
    probe_each(group, doc, lom.then(Int::a).then(P::s), maps, checks);
    probe_modify_all(group, doc, lom.then(Int::c_x), bump, checks);
    probe_set_all(group, doc, lom, Int::U, checks);
    let mol = Doc::mol.then(each()).then(each());
    probe_each(group, doc, mol.then(Ext::b), maps, checks);
    probe_each(group, doc, mol.then(Ext::a).then(P::d), maps, checks);
    probe_modify_all(group, doc, mol.then(Ext::t_1), quote, checks);
    for k in ["k", "j", "é"] {
        probe_each(group, doc, Doc::mm.then(key(k)).then(each()), maps, checks);
        probe(group, doc, Doc::mm.then(key(k)).then(key(k)), checks);
        probe_each(
            group,
            doc,
            Doc::lom.then(each()).then(key(k)).then(Int::c_s),
            l,
            checks,
        );
        probe_each(
            group,
            doc,
            Doc::mol.then(key(k)).then(each()).then(Ext::c_x),
            l,
            checks,
        );
        probe_set(group, doc, Doc::mm.then(key(k)).then(key("j")), 5, checks);
        probe_set_all(
            group,
            doc,
            Doc::lom.then(each()).then(key(k)).then(Int::c_s),
            "v".into(),
            checks,
        );
        probe_set_all(
            group,
            doc,
            Doc::mol.then(key(k)).then(each()).then(Ext::b),
            4,
            checks,
        );
    }
    // Inside internally tagged payloads, read from serde's buffer.
    let h = Doc::outer.then(each()).then(Outer::h);
    probe_folds(
        group,
        doc,
        Doc::outer.then(each()).then(Outer::kind),
        l,
        checks,
    );
    probe_folds(
        group,
        doc,
        h.then(Holder::int).then(each()).then(Int::kind),
        l,
        checks,
    );
    probe_folds(
        group,
        doc,
        h.then(Holder::ext).then(each()).then(Ext::kind),
        l,
        checks,
    );
    probe_each(
        group,
        doc,
        h.then(Holder::ext).then(each()).then(Ext::c_s),
        l,
        checks,
    );
    probe_each(
        group,
        doc,
        h.then(Holder::ext).then(each()).then(Ext::u),
        l,
        checks,
    );
    probe_each(
        group,
        doc,
        h.then(Holder::adj).then(each()).then(Adj::t_1),
        l,
        checks,
    );
    probe_each(
        group,
        doc,
        h.then(Holder::adj).then(each()).then(Adj::l).then(each()),
        l,
        checks,
    );
    probe_each(
        group,
        doc,
        h.then(Holder::int).then(each()).then(Int::a).then(P::d),
        l,
        checks,
    );
    probe_each(
        group,
        doc,
        h.then(Holder::int).then(each()).then(Int::m).then(each()),
        maps,
        checks,
    );
    probe_each(
        group,
        doc,
        h.then(Holder::grid).then(each()).then(each()).then(P::s),
        l,
        checks,
    );
    probe_each(
        group,
        doc,
        h.then(Holder::opt).then(some()).then(each()).then(P::a),
        l,
        checks,
    );
    probe_each(
        group,
        doc,
        h.then(Holder::dflt).then(each()).then(Int::c_x),
        l,
        checks,
    );
    probe_each(
        group,
        doc,
        h.then(Holder::m).then(each()).then(Ext::b),
        maps,
        checks,
    );
    probe_each(
        group,
        doc,
        h.then(Holder::flat)
            .then(Flat::fl)
            .then(each())
            .then(Int::c_s),
        l,
        checks,
    );
    probe_each(
        group,
        doc,
        h.then(Holder::flat).then(Flat::fm).then(each()),
        maps,
        checks,
    );
    let s_items = Doc::outer.then(each()).then(Outer::s_items).then(each());
    probe_each(group, doc, s_items.then(Adj::a).then(P::s), l, checks);
    probe_each(
        group,
        doc,
        Doc::outer
            .then(each())
            .then(Outer::s_m)
            .then(each())
            .then(Int::c_s),
        maps,
        checks,
    );
    probe_modify_all(
        group,
        doc,
        h.then(Holder::ext).then(each()).then(Ext::c_s),
        quote,
        checks,
    );
    probe_modify_all(
        group,
        doc,
        h.then(Holder::adj).then(each()).then(Adj::b),
        bump,
        checks,
    );
    probe_modify_all(
        group,
        doc,
        h.then(Holder::int).then(each()).then(Int::a).then(P::d),
        bump,
        checks,
    );
    probe_modify_all(
        group,
        doc,
        h.then(Holder::grid).then(each()).then(each()).then(P::s),
        quote,
        checks,
    );
    probe_modify_all(
        group,
        doc,
        h.then(Holder::m).then(each()).then(Ext::t_0),
        bump,
        checks,
    );
    probe_modify_all(
        group,
        doc,
        h.then(Holder::flat)
            .then(Flat::fl)
            .then(each())
            .then(Int::c_s),
        quote,
        checks,
    );
    probe_set_all(group, doc, h.then(Holder::ext).then(each()), Ext::U, checks);
    probe_set_all(
        group,
        doc,
        h.then(Holder::flat)
            .then(Flat::fm)
            .then(each())
            .then(Ext::u),
        (),
        checks,
    );
    probe_modify_all(group, doc, s_items.then(Adj::a).then(P::s), quote, checks);
    probe_set_all(
        group,
        doc,
        Doc::outer
            .then(each())
            .then(Outer::s_m)
            .then(each())
            .then(Int::c_x),
        1,
        checks,
    );
    for i in 0..2 {
        probe(
            group,
            doc,
            Doc::outer
                .then(at(i))
                .then(Outer::h)
                .then(Holder::ext)
                .then(at(1))
                .then(Ext::a)
                .then(P::s),
            checks,
        );
        probe(
            group,
            doc,
            Doc::outer
                .then(at(i))
                .then(Outer::h)
                .then(Holder::m)
                .then(key("k"))
                .then(Ext::c_x),
            checks,
        );
        probe_set(
            group,
            doc,
            Doc::outer
                .then(at(i))
                .then(Outer::h)
                .then(Holder::adj)
                .then(at(0))
                .then(Adj::b),
            7,
            checks,
        );
        probe_set(
            group,
            doc,
            Doc::outer
                .then(at(i))
                .then(Outer::s_m)
                .then(key("k"))
                .then(Int::a)
                .then(P::s),
            "h".into(),
            checks,
        );
    }
}

// ---------------------------------------------------------------------------
// Hand-written documents.

/// `doc`, which serde_json must accept: a hand-written document it refuses
/// would check nothing.
#[track_caller]
fn accepted<S: serde::de::DeserializeOwned>(doc: String) -> String {
    if let Err(error) = serde_json::from_str::<S>(&doc) {
        panic!("serde_json refuses {doc}: {error}");
    }
    doc
}

/// The parts of a document the tests below change (an empty part left
/// out); every other member is empty.
fn doc_with(members: &[(&str, &str)]) -> String {
    let mut parts: BTreeMap<&str, &str> = BTreeMap::from([
        ("ext", "[]"),
        ("int", "[]"),
        ("adj", "[]"),
        ("grid", "[]"),
        ("bmap", "{}"),
        ("hmap", "{}"),
        ("jmap", "{}"),
        ("opt", "null"),
        ("boxed", "[]"),
        ("bxs", "[]"),
        ("wrap", "[]"),
        ("pairs", "[]"),
        ("fl", "[]"),
        ("fm", "{}"),
        ("maybe", "[]"),
        ("outer", "[]"),
        ("reg", "{}"),
        ("tr", "{}"),
        ("mm", "{}"),
        ("lom", "[]"),
        ("mol", "{}"),
    ]);
    for (name, value) in members {
        parts.insert(name, value);
    }
    // An empty value leaves the member out.
    let members: Vec<String> = parts
        .into_iter()
        .filter(|(_, value)| !value.is_empty())
        .map(|(name, value)| format!("\"{name}\":{value}"))
        .collect();
    accepted::<Doc>(format!("{{{}}}", members.join(",")))
}

#[test]
fn lists_of_enums_of_every_encoding_in_hostile_writings() {
    let mut checks = Checks::default();
    let ext = [
        r#"[{"A":{"s":"\u0022\\","a":1}},{"B":2},{"C":{"s":"x","x":3}},{"T":[4,"y\n"]},"U",{"\u0041":{"a":5,"s":"","d":6}}]"#,
        r#"[{"U":null},{"C":{"x":1,"s":"z","x2":{"A":{"a":1}}}},{"A":{"a":0,"s":"t","zz":{"s":"decoy","a":9}}}]"#,
        r#"[{"B":1},{"\u0055":null},"\u0055",{"T":[0,"\u00e9"]}]"#,
        r#"[{"L":[]},{"L":[{"s":"l","a":1},[2,"m",3]]},{"O":null},{"O":{"a":1,"s":"o"}},{"M":{"k":{"c":1,"t":"B"},"i":{"t":"T","c":[1,"\""]},"j":{"t":"U"}}},{"M":{}}]"#,
    ];
    for list in ext {
        probe_doc(
            "ext",
            &doc_with(&[("ext", list), ("boxed", list)]),
            Foci::Mapped,
            &mut checks,
        );
    }
    let int = [
        // The tag after the payload, escaped, and decoys named like it.
        r#"[{"a":1,"s":"p","t":"A"},{"x":2,"s":"q\"","\u0074":"C"},{"t":"U"},{"k":1,"t":"M","j":2}]"#,
        r#"[{"zz":{"t":"C","x":1},"s":"","a":3,"t":"A","d":4},{"zz":{"t":"U"},"t":"\u0043","s":"","x":0}]"#,
        r#"[{"t":"M"},{"t":"A","a":0,"s":"\\u0041"},{"t":"U","extra":[{"t":"A"}]}]"#,
        r#"[["A",1,"s"],["C",2,"t"],["U"]]"#,
        r#"[{"a":1,"s":"o","t":"O"},["O",2,"p",3],{"\u0074":"M","k":1},{"t":"O","d":4,"s":"q","a":5}]"#,
    ];
    for list in int {
        probe_doc(
            "int",
            &doc_with(&[("int", list), ("bxs", list), ("fl", list)]),
            Foci::Mapped,
            &mut checks,
        );
    }
    let adj = [
        // Content before its tag, unit content null or left out, decoys.
        r#"[{"c":{"a":1,"s":"s"},"t":"A"},{"t":"B","c":2},{"c":[3,"\u0074"],"t":"T"},{"t":"U"},{"t":"U","c":null}]"#,
        r#"[{"t":"L","c":[{"a":1,"s":"a","d":1},{"s":"b","a":2}]},{"c":{"s":"c","x":1},"\u0074":"\u0043"}]"#,
        r#"[{"c":[],"t":"L"},{"t":"A","c":{"t":"B","c":1,"a":7,"s":"d"}},{"c":null,"t":"U"}]"#,
        r#"[["B",4],["L",[{"a":1,"s":""}]],["U",null]]"#,
        r#"[{"t":"O"},{"t":"O","c":null},{"c":null,"t":"O"},{"c":{"a":1,"s":""},"t":"O"},{"t":"M","c":{"k":{"B":1},"j":{"C":{"s":"\"","x":2}}}},{"c":{"k":"U"},"t":"M"}]"#,
    ];
    for list in adj {
        probe_doc(
            "adj",
            &doc_with(&[("adj", list), ("wrap", list), ("dflt", list)]),
            Foci::Mapped,
            &mut checks,
        );
    }
    let (written, refused) = (checks.written, checks.writes_refused);
    checks.finish();
    assert!(written > refused, "{written} written, {refused} refused");
}

#[test]
fn lists_of_lists_options_tuples_and_defaults() {
    let mut checks = Checks::default();
    let docs = [
        doc_with(&[(
            "grid",
            r#"[[],[{"a":1,"s":"x"}],[],[{"s":"\"","a":2,"d":3},{"a":4,"s":"y"}]]"#,
        )]),
        doc_with(&[
            ("grid", "[[]]"),
            ("opt", "[]"),
            ("pairs", r#"[[1,"\u0061"],[2,""]]"#),
        ]),
        doc_with(&[("opt", r#"[{"a":1,"s":"o"},{"a":2,"s":"\\"}]"#)]),
        // `opt` left out; structs written as arrays.
        doc_with(&[
            ("opt", ""),
            ("ext", r#"[{"A":[1,"x"]},{"A":[2,"y",3]},{"C":[4,"z"]}]"#),
            ("adj", r#"[{"t":"A","c":[1,"\""]},{"c":[5,"w"],"t":"A"}]"#),
            ("grid", r#"[[[1,"g"],{"a":2,"s":"h"}]]"#),
        ]),
        // Maps of maps, lists of maps and maps of lists.
        doc_with(&[
            ("mm", r#"{"k":{"j":1,"k":2},"j":{},"\u00e9":{"\u006a":3}}"#),
            (
                "lom",
                r#"[{},{"k":{"t":"C","x":1,"s":"a"}},{"k":{"t":"U"},"j":{"s":"b","x":2,"t":"C"}}]"#,
            ),
            (
                "mol",
                r#"{"k":[{"B":1},{"C":{"x":2,"s":""}}],"j":[],"é":["U",{"A":{"a":1,"s":""}}]}"#,
            ),
        ]),
        // `dflt` given (the others leave it out).
        doc_with(&[("dflt", r#"[{"t":"A","c":{"a":1,"s":""}}]"#)]),
    ];
    for doc in &docs {
        probe_doc("lists", doc, Foci::Mapped, &mut checks);
    }
    checks.finish();
}

#[test]
fn maps_of_enums_and_structs_with_escaped_repeated_and_reordered_keys() {
    let mut checks = Checks::default();
    let unique = [
        doc_with(&[
            (
                "bmap",
                r#"{"k":{"a":1,"s":"x","t":"A"},"\u0074":{"t":"C","x":2,"s":"y"},"":{"t":"U"}}"#,
            ),
            (
                "hmap",
                r#"{"c":{"c":3,"t":"B"},"k":{"t":"A","c":{"a":1,"s":"\""}},"\"":{"t":"U"}}"#,
            ),
            ("jmap", r#"{"k":[1,{"t":2}],"é":null,"t":{"k":"v"}}"#),
            (
                "fm",
                r#"{"k":{"T":[1,"u"]},"\u00e9":"U","c":{"C":{"x":3,"s":"c"}}}"#,
            ),
        ]),
        doc_with(&[
            ("bmap", r#"{"t":{"t":"M","t2":3,"k":4},"c":{"t":"M"}}"#),
            ("hmap", r#"{"\u0063":{"t":"L","c":[{"a":1,"s":"l"}]}}"#),
        ]),
    ];
    for doc in &unique {
        probe_doc("maps", doc, Foci::Mapped, &mut checks);
    }
    // serde keeps the last member of a repeated key, however it is spelled.
    let repeated = [
        doc_with(&[
            (
                "bmap",
                r#"{"k":{"t":"U"},"\u006b":{"t":"A","a":1,"s":"x"},"c":{"t":"C","x":1,"s":""},"k":{"t":"C","x":2,"s":"last"}}"#,
            ),
            (
                "hmap",
                r#"{"k":{"t":"B","c":1},"k":{"t":"A","c":{"a":2,"s":"s"}}}"#,
            ),
            ("jmap", r#"{"t":1,"t":[2],"\u0074":{"x":3}}"#),
            ("fm", r#"{"k":"U","k":{"B":4}}"#),
            (
                "ext",
                r#"[{"M":{"k":{"c":1,"t":"B"},"k":{"t":"T","c":[1,"\""]},"j":{"t":"U"}}}]"#,
            ),
        ]),
        doc_with(&[("int", r#"[{"t":"M","k":1,"k":2,"\u006b":3}]"#)]),
        // Repeated keys in maps of maps and lists of maps: each object
        // keeps its own last member.
        doc_with(&[
            (
                "mm",
                r#"{"k":{"j":1,"j":2},"k":{"k":3,"\u006a":4,"j":5},"j":{"j":6}}"#,
            ),
            (
                "lom",
                r#"[{"k":{"t":"U"},"k":{"t":"C","x":1,"s":"a"}},{"k":{"t":"C","x":2,"s":"b"}}]"#,
            ),
            (
                "mol",
                r#"{"k":[{"B":1}],"j":[],"k":[{"B":2},{"C":{"x":3,"s":""}}]}"#,
            ),
            (
                "outer",
                r#"[{"k":"S","items":[],"m":{"k":{"t":"U"},"k":{"t":"C","x":1,"s":""}}},{"m":{"j":{"t":"C","x":2,"s":"2"},"j":{"t":"U"}},"items":[],"k":"S"}]"#,
            ),
        ]),
    ];
    for doc in &repeated {
        probe_doc("repeated", doc, Foci::Repeated, &mut checks);
    }
    let (written, refused) = (checks.written, checks.writes_refused);
    checks.finish();
    assert!(written > refused, "{written} written, {refused} refused");
}

#[test]
fn traversals_inside_internally_tagged_payloads_read_from_serde_s_buffer() {
    let mut checks = Checks::default();
    let outer = [
        // The tag after the payload, so serde buffers everything before it.
        r#"[{"ext":[{"C":{"s":"\u0041","x":1}},"U",{"A":{"a":1,"s":"x"}}],"adj":[{"c":[1,"\\"],"t":"T"},{"t":"B","c":3}],"int":[{"x":1,"s":"","t":"C"},{"t":"A","a":2,"s":"y"},{"k":1,"t":"M"}],"grid":[[],[{"s":"g","a":3}]],"opt":[{"a":4,"s":""}],"m":{"k":{"C":{"x":2,"s":"z"}},"j":{"B":5}},"fl":[{"t":"C","x":3,"s":"f"}],"fm":{"k":"U"},"k":"H"}]"#,
        // Decoys named like the tags, keys escaped, the inner tag first.
        r#"[{"\u006b":"H","ext":[],"adj":[{"t":"L","c":[{"a":1,"s":"l","k":"S"}]}],"int":[{"t":"M","\u006b":4,"j":5}],"grid":[],"opt":null,"dflt":[{"t":"C","x":9,"s":"d"}],"m":{},"fl":[],"fm":{"\u006b":{"T":[6,"t"]}},"zz":{"k":"S","items":[]}},{"items":[{"c":{"a":1,"s":"i"},"t":"A"}],"m":{"k":{"t":"A","a":7,"s":"m"},"j":{"t":"C","x":8,"s":"n"}},"k":"S"}]"#,
        r#"[{"k":"S","items":[],"m":{}},{"m":{"k":{"s":"q","x":1,"t":"C"}},"items":[{"t":"U"},{"t":"B","c":0}],"k":"S"}]"#,
        // A struct variant written as an array.
        r#"[["S",[{"t":"B","c":1},{"c":null,"t":"O"}],{"k":{"t":"U"},"j":{"t":"A","a":1,"s":""}}],["\u0053",[],{}]]"#,
    ];
    for list in outer {
        probe_doc(
            "outer",
            &doc_with(&[("outer", list)]),
            Foci::Mapped,
            &mut checks,
        );
    }
    // Content keys escaped, members beside the tag and the content, and
    // `Option`s of enums, behind a newtype and a transparent struct.
    let docs = [
        doc_with(&[
            (
                "adj",
                r#"[{"\u0063":{"a":1,"s":"e"},"zz":{"t":"B","c":1},"t":"A"},{"t":"B","zz":null,"c":2}]"#,
            ),
            ("maybe", r#"[null,{"B":1},"U",null,{"A":{"a":2,"s":"m"}}]"#),
            (
                "reg",
                r#"{"k":{"t":"C","x":1,"s":"r"},"t":{"t":"M","k":1,"t2":2}}"#,
            ),
            ("tr", r#"{"k":{"T":[1,"q"]},"é":{"B":3},"":"U"}"#),
        ]),
        doc_with(&[("maybe", "[null]"), ("reg", r#"{"":{"t":"U"}}"#)]),
    ];
    for doc in &docs {
        probe_doc("wrapped", doc, Foci::Mapped, &mut checks);
    }
    let (written, refused) = (checks.written, checks.writes_refused);
    checks.finish();
    assert!(written > refused, "{written} written, {refused} refused");
}

/// serde reads an adjacently tagged `Option` payload whose content is left
/// out (`{"t":"O"}`) as `None`: the value has a focus there, which a write
/// of every focus on the value writes. The bytes have no place for it
/// (`SERDE_ATTRIBUTES.md`), so every byte write through it refuses, a write
/// of every focus as a whole, rather than answer with the document as if
/// the focus were not there.
#[test]
fn a_write_of_every_focus_refuses_an_adjacent_payload_left_out() {
    let doc = doc_with(&[("adj", r#"[{"t":"B","c":1},{"t":"O"}]"#)]);
    let bytes = doc.as_bytes();
    let whole: Doc = serde_json::from_slice(bytes).unwrap();
    let payloads = Doc::adj.then(each()).then(Adj::o);
    assert_eq!(payloads.iter(&whole).collect::<Vec<_>>(), [&None]);
    let new = Some(P {
        a: 1,
        s: "n".into(),
        d: 0,
    });
    let json = Json::<Doc>::new(bytes);
    assert_eq!(json.read_each(payloads).collect::<Vec<_>>(), [Some(None)]);
    assert_eq!(json.set(Doc::adj.then(at(1)).then(Adj::o), &new), None);
    assert_eq!(json.set_all(payloads, &new), None);
    assert_eq!(json.modify_all(payloads, |_| new.clone()), None);
    let duplicates = Duplicates::new();
    let strict = Strict::<Doc>::validated(bytes, &duplicates).unwrap();
    assert_eq!(strict.set_all(payloads, &new), None);
    assert_eq!(strict.modify_all(payloads, |_| new.clone()), None);
    assert!(!duplicates.met());
    // The element as a whole is written, as on the value.
    let mut checks = Checks::default();
    probe_set_all(
        "left out",
        &doc,
        Doc::adj.then(each()),
        Adj::O(new),
        &mut checks,
    );
    probe_doc("left out", &doc, Foci::Mapped, &mut checks);
    checks.finish();
}

/// Fields serde fills in, when the document leaves them out, with defaults
/// that hold foci.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Filled {
    #[serde(default = "two_ps")]
    ps: Vec<P>,
    #[serde(default)]
    lim: Lim,
    #[serde(default)]
    adj: Vec<Adj>,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Lim {
    ext: Vec<Ext>,
}

impl Default for Lim {
    fn default() -> Self {
        Lim {
            ext: vec![Ext::B(1), Ext::U, Ext::B(2)],
        }
    }
}

fn two_ps() -> Vec<P> {
    vec![
        P {
            a: 1,
            s: "x".into(),
            d: 0,
        };
        2
    ]
}

/// A write of every focus past a field the document leaves out, which serde
/// fills in with a default that has foci: the value-side write writes them,
/// the bytes have no place for them, so the byte write refuses (as a fold
/// past it cannot answer), rather than answer with that part unchanged. A
/// default with no foci (an empty list) is no refusal: there is nothing to
/// write.
#[test]
fn a_write_of_every_focus_past_a_default_with_foci_refuses() {
    let mut checks = Checks::default();
    let docs = [
        r#"{}"#,
        r#"{"ps":[{"a":3,"s":"p"}]}"#,
        r#"{"lim":{"ext":[{"B":4},"U"]},"adj":[{"t":"B","c":5}]}"#,
        r#"{"adj":[],"ps":[],"lim":{"ext":[]}}"#,
    ];
    for doc in docs {
        let doc = &accepted::<Filled>(doc.into());
        let ps = Filled::ps.then(each()).then(P::a);
        let ext = Filled::lim.then(Lim::ext).then(each()).then(Ext::b);
        let adj = Filled::adj.then(each()).then(Adj::b);
        probe_set_all("filled", doc, ps, 9, &mut checks);
        probe_modify_all("filled", doc, ps, bump, &mut checks);
        probe_set_all("filled", doc, ext, 9, &mut checks);
        probe_modify_all("filled", doc, ext, bump, &mut checks);
        probe_set_all(
            "filled",
            doc,
            Filled::lim.then(Lim::ext).then(each()),
            Ext::U,
            &mut checks,
        );
        probe_set_all("filled", doc, adj, 9, &mut checks);
        probe_modify_all("filled", doc, adj, bump, &mut checks);
    }
    // Where the document leaves out only empty defaults, every write is
    // made.
    let (written, refused) = (checks.written, checks.writes_refused);
    checks.finish();
    assert!(
        written > 0 && refused > 0,
        "{written} written, {refused} refused"
    );
    let json = Json::<Filled>::new(b"{}");
    let lim = Filled::lim.then(Lim::ext).then(each()).then(Ext::b);
    assert_eq!(json.set_all(lim, &9), None);
    assert_eq!(json.modify_all(lim, bump), None);
    // The field's own focus, past the default, as a path's last step.
    assert_eq!(json.set_all(Filled::lim.then(Lim::ext), &vec![]), None);
    assert_eq!(
        json.set_all(Filled::adj.then(each()), &Adj::U).as_deref(),
        Some(&b"{}"[..])
    );
}

/// Internally tagged payloads serde reads from the rest of an array
/// (`["Variant", ...]`) as well as from an object: lists, a newtype of a
/// list, a struct, a struct variant, a map.
#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t")]
enum Seqs {
    L(Vec<u8>),
    W(Wrap),
    P(P),
    S { items: Vec<Ext>, n: u8 },
    M(BTreeMap<String, Ext>),
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct SeqsDoc {
    seqs: Vec<Seqs>,
}

#[test]
fn traversals_into_internally_tagged_payloads_written_as_arrays() {
    let mut checks = Checks::default();
    let docs = [
        r#"{"seqs":[["L",1,2,3],["L"],["W",{"t":"B","c":1},{"c":[1,"x"],"t":"T"}],["P",1,"s"],["P",2,"t",3]]}"#,
        r#"{"seqs":[["S",[{"B":1},"U",{"C":{"x":1,"s":""}}],4],{"items":[{"B":5}],"\u0074":"S","n":1},["\u0053",[],0]]}"#,
        r#"{"seqs":[{"k":"U","t":"M","j":{"B":2},"\u006b":{"T":[1,"k"]}},{"\u0074":"M"},["W"],{"t":"P","s":"p","a":4}]}"#,
    ];
    let l = Foci::Listed;
    for doc in docs {
        let doc = &accepted::<SeqsDoc>(doc.into());
        let seqs = SeqsDoc::seqs.then(each());
        probe_each("seqs", doc, seqs, l, &mut checks);
        probe_each("seqs", doc, seqs.then(Seqs::l).then(each()), l, &mut checks);
        probe_each(
            "seqs",
            doc,
            seqs.then(Seqs::w).then(Wrap::_0).then(each()).then(Adj::b),
            l,
            &mut checks,
        );
        probe_each(
            "seqs",
            doc,
            seqs.then(Seqs::w)
                .then(Wrap::_0)
                .then(each())
                .then(Adj::t_1),
            l,
            &mut checks,
        );
        probe_each("seqs", doc, seqs.then(Seqs::p).then(P::s), l, &mut checks);
        probe_each("seqs", doc, seqs.then(Seqs::p).then(P::d), l, &mut checks);
        probe_each(
            "seqs",
            doc,
            seqs.then(Seqs::s_items).then(each()).then(Ext::b),
            l,
            &mut checks,
        );
        probe_each(
            "seqs",
            doc,
            seqs.then(Seqs::s_items).then(each()).then(Ext::c_s),
            l,
            &mut checks,
        );
        probe_each("seqs", doc, seqs.then(Seqs::s_n), l, &mut checks);
        probe_each(
            "seqs",
            doc,
            seqs.then(Seqs::m).then(each()),
            Foci::Repeated,
            &mut checks,
        );
        for i in 0..5 {
            let one = SeqsDoc::seqs.then(at(i));
            probe("seqs", doc, one.then(Seqs::l).then(at(1)), &mut checks);
            probe(
                "seqs",
                doc,
                one.then(Seqs::w).then(Wrap::_0).then(at(1)).then(Adj::t_0),
                &mut checks,
            );
            probe(
                "seqs",
                doc,
                one.then(Seqs::s_items).then(at(0)).then(Ext::b),
                &mut checks,
            );
            probe(
                "seqs",
                doc,
                one.then(Seqs::m).then(key("k")).then(Ext::t_1),
                &mut checks,
            );
        }
    }
    checks.finish();
}

// ---------------------------------------------------------------------------
// The property: serde_json's writing of a random value, rewritten with
// whitespace, escapes and its members in a random order (and, a second
// time, with decoys named like the model's keys), read, folded and written
// through every traversal as on the value.

mod model {
    use super::*;

    pub fn text() -> impl Strategy<Value = String> {
        proptest::string::string_regex("[actAU\"\\\\/é😀\u{7f}\u{1}]{0,4}").unwrap()
    }

    pub fn p() -> impl Strategy<Value = P> {
        (any::<u8>(), text(), any::<u8>()).prop_map(|(a, s, d)| P { a, s, d })
    }

    /// Every variant of `Ext` or `Adj` (which have the same ones) but `M`,
    /// whose map holds the other enum again.
    macro_rules! leaf {
        ($enum:ident) => {
            prop_oneof![
                p().prop_map($enum::A),
                any::<u8>().prop_map($enum::B),
                (any::<u8>(), text()).prop_map(|(x, s)| $enum::C { x, s }),
                (any::<u8>(), text()).prop_map(|(n, s)| $enum::T(n, s)),
                Just($enum::U),
                proptest::collection::vec(p(), 0..3).prop_map($enum::L),
                proptest::option::of(p()).prop_map($enum::O),
            ]
        };
    }

    fn ext_leaf() -> impl Strategy<Value = Ext> {
        leaf!(Ext)
    }

    pub fn ext() -> impl Strategy<Value = Ext> {
        prop_oneof![
            4 => ext_leaf(),
            1 => proptest::collection::btree_map(text(), adj_leaf(), 0..3).prop_map(Ext::M),
        ]
    }

    pub fn int() -> impl Strategy<Value = Int> {
        prop_oneof![
            p().prop_map(Int::A),
            (any::<u8>(), text()).prop_map(|(x, s)| Int::C { x, s }),
            Just(Int::U),
            proptest::collection::btree_map(text(), any::<u8>(), 0..3)
                .prop_filter("no tag key", |m| !m.contains_key("t"))
                .prop_map(Int::M),
        ]
    }

    fn adj_leaf() -> impl Strategy<Value = Adj> {
        leaf!(Adj)
    }

    pub fn adj() -> impl Strategy<Value = Adj> {
        prop_oneof![
            4 => adj_leaf(),
            1 => proptest::collection::hash_map(text(), ext_leaf(), 0..3).prop_map(Adj::M),
        ]
    }

    fn vec<T: Debug>(s: impl Strategy<Value = T>) -> impl Strategy<Value = Vec<T>> {
        proptest::collection::vec(s, 0..4)
    }

    use std::fmt::Debug;

    pub fn holder() -> impl Strategy<Value = Holder> {
        (
            (vec(ext()), vec(adj()), vec(int()), vec(vec(p()))),
            (
                proptest::option::of(vec(p())),
                vec(int()),
                proptest::collection::btree_map(text(), ext(), 0..3),
            ),
            (
                vec(int()),
                proptest::collection::btree_map(text(), ext(), 0..3),
            ),
        )
            .prop_map(|((ext, adj, int, grid), (opt, dflt, m), (fl, fm))| Holder {
                ext,
                adj,
                int,
                grid,
                opt,
                dflt,
                m,
                flat: Flat { fl, fm },
            })
    }

    pub fn outer() -> impl Strategy<Value = Outer> {
        prop_oneof![
            holder().prop_map(Outer::H),
            (
                vec(adj()),
                proptest::collection::hash_map(text(), int(), 0..3)
            )
                .prop_map(|(items, m)| Outer::S { items, m }),
        ]
    }

    pub fn doc() -> impl Strategy<Value = Doc> {
        (
            (vec(ext()), vec(int()), vec(adj()), vec(vec(p()))),
            (
                proptest::collection::btree_map(text(), int(), 0..3),
                proptest::collection::hash_map(text(), adj(), 0..3),
                proptest::collection::btree_map(text(), any::<i8>(), 0..3),
            ),
            (
                proptest::option::of(vec(p())),
                vec(ext()),
                vec(int()),
                vec(adj()),
            ),
            (vec((any::<u8>(), text())), vec(adj())),
            (
                vec(int()),
                proptest::collection::btree_map(text(), ext(), 0..3),
            ),
            (
                proptest::collection::btree_map(
                    text(),
                    proptest::collection::btree_map(text(), any::<u8>(), 0..3),
                    0..3,
                ),
                vec(proptest::collection::btree_map(text(), int(), 0..3)),
                proptest::collection::hash_map(text(), vec(ext()), 0..3),
            ),
            (
                vec(proptest::option::of(ext())),
                proptest::collection::vec(outer(), 0..3),
                proptest::collection::btree_map(text(), int(), 0..3),
                proptest::collection::hash_map(text(), ext(), 0..3),
            ),
        )
            .prop_map(
                |(
                    (ext, int, adj, grid),
                    (bmap, hmap, jmap),
                    (opt, boxed, bxs, wrap),
                    (pairs, dflt),
                    (fl, fm),
                    (mm, lom, mol),
                    (maybe, outer, reg, tr),
                )| Doc {
                    ext,
                    int,
                    adj,
                    grid,
                    bmap,
                    hmap,
                    jmap: jmap.into_iter().map(|(k, v)| (k, v.into())).collect(),
                    opt,
                    boxed: Box::new(boxed),
                    bxs: bxs.into_iter().map(Box::new).collect(),
                    wrap: Wrap(wrap),
                    pairs,
                    dflt,
                    maybe,
                    outer,
                    mm,
                    lom,
                    mol,
                    reg: Reg(reg),
                    tr: Tr { v: tr },
                    flat: Flat { fl, fm },
                },
            )
    }
}

fn hunt_cases() -> ProptestConfig {
    ProptestConfig {
        cases: support::scaled(48),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(hunt_cases())]

    #[test]
    fn rewritten_writings_traverse_fold_and_write_as_serde(
        model in model::doc(),
        choices in proptest::collection::vec(any::<u8>(), 1..48),
    ) {
        let value = serde_json::to_value(&model).unwrap();
        let mut text = String::new();
        Rewrite::new(choices.clone(), true).value(&value, &[], &mut text);
        let whole: Doc = serde_json::from_str(&text)
            .map_err(|error| TestCaseError::fail(format!("{error}: {text}")))?;
        prop_assert_eq!(&whole, &model);
        let mut checks = Checks::default();
        probe_doc("rewritten", &text, Foci::Mapped, &mut checks);
        prop_assert_eq!(checks.refused, 0);
        let mut decoyed = String::new();
        Rewrite::new(choices, true).value(&value, &["t", "c", "a", "s", "A", "k"], &mut decoyed);
        probe_doc("decoyed", &decoyed, Foci::Mapped, &mut checks);
        prop_assert!(checks.disagreements.is_empty(), "{}", checks.disagreements.join("\n"));
    }
}
