//! The fidelity model: a serde model with everything the byte reader must
//! read exactly as serde_json decodes it (flattened structs and enums of
//! every encoding, internally, adjacently and externally tagged enums,
//! `deny_unknown_fields`, defaults, smart pointers, a recursive list, maps
//! keyed by integers, `bool` and `char`, structs serde also reads from
//! arrays, floats), and every path of it read from bytes against serde_json's
//! decode. Shared by `fidelity_oracle.rs` (values written and edited by the
//! test) and the `fidelity` fuzz target (any bytes, `fuzz/`), whose corpus
//! `tests/fuzz_corpus.rs` replays on stable.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;
use std::rc::Rc;
use std::sync::Arc;

use optics_core::json::{Duplicates, JsonDecode, Strict as StrictView};
use optics_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Root {
    pub id: u32,
    #[serde(flatten)]
    pub head: Head,
    #[serde(flatten)]
    pub kind: Kind,
    #[serde(flatten)]
    pub also: Also,
    #[serde(flatten)]
    pub ext_flat: ExtFlat,
    #[serde(flatten)]
    pub adj_flat: AdjFlat,
    #[serde(flatten)]
    pub strict: Strict,
    pub int: Int,
    pub adj: AdjE,
    pub adjs: Vec<AdjE>,
    pub ext: ExtE,
    pub list: Option<Box<List>>,
    pub rc: Rc<Leaf>,
    pub arc: Arc<Leaf>,
    pub boxed: Box<Point>,
    pub by_id: BTreeMap<u32, Leaf>,
    pub by_off: HashMap<i64, u8>,
    pub flags: BTreeMap<bool, u8>,
    pub letters: BTreeMap<char, u8>,
    pub pair: Pair,
    pub point: Point,
    pub maybe: Option<Point>,
    pub unit: Nothing,
    pub floats: Floats,
}

/// Flattened: what to write instead of a flattened `Option<Struct>`.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Head {
    pub lat: Option<f64>,
    pub lon: Option<f64>,
    #[serde(default)]
    pub label: String,
}

/// Flattened, internally tagged; `Also` has the same tag, which serde lends
/// to both.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "kind")]
pub enum Kind {
    Login(Login),
    Logout,
    Idle { secs: u32 },
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "kind")]
pub enum Also {
    Login { extra: Option<u8> },
    Logout,
    Idle,
}

/// Flattened, externally tagged.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum ExtFlat {
    Text(String),
    Spot { sx: i8, sy: i8 },
    Num(i64),
}

/// Flattened, adjacently tagged.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t", content = "c")]
pub enum AdjFlat {
    Flag,
    Val(i32),
    Opt(Option<u8>),
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Strict {
    pub strict: u8,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Login {
    pub user: String,
    #[serde(default)]
    pub admin: bool,
    /// Always in serde's buffer here: `{}` and `[]` read as it.
    pub seen: Nothing,
    /// Named like the tags of the enums `Login` is a payload of: serde never
    /// hands it the tag, so it is always its default.
    #[serde(default, skip_serializing)]
    pub r#type: String,
    #[serde(default, skip_serializing)]
    pub kind: String,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "type")]
pub enum Int {
    Unit(()),
    UnitStruct(Nothing),
    /// serde writes no internally tagged `Option`; it reads `Some` of the
    /// payload from the members beside the tag.
    #[serde(serialize_with = "some_point")]
    Maybe(Option<Point>),
    Map(BTreeMap<String, String>),
    External(ExtE),
    Nested(Box<Op>),
    Login(Login),
    Rect {
        w: u8,
        h: u8,
        mark: Nothing,
        none: (),
    },
    Empty,
    Num(Floats),
    Adjacent(AdjE),
}

pub fn some_point<S: serde::Serializer>(point: &Option<Point>, s: S) -> Result<S::Ok, S::Error> {
    match point {
        Some(point) => point.serialize(s),
        None => s.serialize_unit(),
    }
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "op")]
pub enum Op {
    Num { n: i64 },
    Scale(Floats),
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "t", content = "c")]
pub enum AdjE {
    Flag,
    Val(u8),
    Opt(Option<u8>),
    UnitPayload(()),
    Pair(u8, u8),
    Rect { w: u8, h: u8 },
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum ExtE {
    Ping,
    Text(String),
    Pair(i8, i8),
    Rect { w: u8, h: u8 },
    Boxed(Box<Point>),
    Unit(Nothing),
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct List {
    pub value: u32,
    pub next: Option<Box<List>>,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Leaf {
    pub weight: u8,
    pub note: Option<String>,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Pair(pub u8, pub u8);

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Nothing;

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Floats {
    pub single: f32,
    pub double: f64,
}

// ---------------------------------------------------------------------------
// The paths

/// One path: the byte read equals the decoded value previewed; on a document
/// serde rejects, the read must merely not panic.
pub fn check<O>(bytes: &[u8], decoded: Option<&Root>, o: O) -> Result<(), String>
where
    O: Preview<Source = Root> + for<'de> JsonDecode<'de> + Debug + Copy,
    O::Focus: Clone + PartialEq + Debug,
{
    let read = Json::<Root>::new(bytes).read(o);
    if let Some(decoded) = decoded {
        let expected = o.preview(decoded).cloned();
        if read != expected {
            return Err(format!(
                "{o:?} read {read:?}, serde_json {expected:?}, in {}",
                String::from_utf8_lossy(bytes)
            ));
        }
        // Read strictly where the bytes are one valid document: the same,
        // unless a key on the path stands twice, which strict reads refuse.
        let duplicates = Duplicates::new();
        if let Ok(strict) = StrictView::<Root>::validated(bytes, &duplicates) {
            let read = strict.read(o);
            if read != expected && !duplicates.met() {
                return Err(format!(
                    "{o:?} read strictly {read:?}, serde_json {expected:?}, in {}",
                    String::from_utf8_lossy(bytes)
                ));
            }
        }
    }
    Ok(())
}

macro_rules! paths {
    ($bytes:expr, $decoded:expr; $($o:expr),* $(,)?) => {
        $( check($bytes, $decoded, $o)?; )*
    };
}

/// Every path of the model read from `bytes`, each against `decoded` (what
/// serde_json made of them) previewed with the same path.
pub fn every_path(bytes: &[u8], decoded: Option<&Root>, keys: &Keys) -> Result<(), String> {
    let int = Root::int;
    let adj = Root::adj;
    let ext = Root::ext;
    let list = Root::list.then(some());
    paths!(bytes, decoded;
        Root::id,
        // Flattened structs and enums of every encoding.
        Root::head, Root::head.then(Head::lat), Root::head.then(Head::lon).then(some()),
        Root::head.then(Head::label),
        Root::kind, Root::kind.then(Kind::kind), Root::kind.then(Kind::login),
        Root::kind.then(Kind::login).then(Login::user), Root::kind.then(Kind::login).then(Login::admin),
        Root::kind.then(Kind::logout), Root::kind.then(Kind::idle_secs),
        Root::also, Root::also.then(Also::kind), Root::also.then(Also::login_extra),
        Root::also.then(Also::idle),
        Root::ext_flat, Root::ext_flat.then(ExtFlat::kind), Root::ext_flat.then(ExtFlat::text),
        Root::ext_flat.then(ExtFlat::spot_sx), Root::ext_flat.then(ExtFlat::spot_sy),
        Root::ext_flat.then(ExtFlat::num),
        Root::adj_flat, Root::adj_flat.then(AdjFlat::kind), Root::adj_flat.then(AdjFlat::flag),
        Root::adj_flat.then(AdjFlat::val), Root::adj_flat.then(AdjFlat::opt),
        Root::adj_flat.then(AdjFlat::opt).then(some()),
        Root::strict, Root::strict.then(Strict::strict),
        // Internally tagged payloads of every kind.
        int, int.then(Int::kind), int.then(Int::unit), int.then(Int::unit_struct),
        int.then(Int::maybe), int.then(Int::maybe).then(some()).then(Point::x),
        int.then(Int::map), int.then(Int::map).then(key("a")), int.then(Int::map).then(key("type")),
        int.then(Int::external), int.then(Int::external).then(ExtE::kind),
        int.then(Int::external).then(ExtE::rect_w), int.then(Int::external).then(ExtE::boxed).then(Point::y),
        int.then(Int::external).then(ExtE::unit), int.then(Int::external).then(ExtE::ping),
        int.then(Int::nested), int.then(Int::nested).then(Op::kind), int.then(Int::nested).then(Op::num_n),
        int.then(Int::nested).then(Op::scale).then(Floats::single),
        int.then(Int::nested).then(Op::scale).then(Floats::double),
        int.then(Int::login), int.then(Int::login).then(Login::user), int.then(Int::login).then(Login::admin),
        int.then(Int::rect_w), int.then(Int::rect_h), int.then(Int::rect_mark),
        int.then(Int::rect_none), int.then(Int::empty), int.then(Int::login).then(Login::seen),
        Root::kind.then(Kind::login).then(Login::seen),
        Root::kind.then(Kind::login).then(Login::kind), Root::kind.then(Kind::login).then(Login::r#type),
        int.then(Int::login).then(Login::kind), int.then(Int::login).then(Login::r#type),
        int.then(Int::num), int.then(Int::num).then(Floats::single), int.then(Int::num).then(Floats::double),
        int.then(Int::adjacent), int.then(Int::adjacent).then(AdjE::kind),
        int.then(Int::adjacent).then(AdjE::opt), int.then(Int::adjacent).then(AdjE::unit_payload),
        int.then(Int::adjacent).then(AdjE::rect_h),
        // Adjacently and externally tagged.
        adj, adj.then(AdjE::kind), adj.then(AdjE::flag), adj.then(AdjE::val), adj.then(AdjE::opt),
        adj.then(AdjE::opt).then(some()), adj.then(AdjE::unit_payload), adj.then(AdjE::pair_0),
        adj.then(AdjE::pair_1), adj.then(AdjE::rect_w), adj.then(AdjE::rect_h),
        Root::adjs, Root::adjs.then(at(0)).then(AdjE::unit_payload), Root::adjs.then(at(1)).then(AdjE::kind),
        Root::adjs.then(at(2)).then(AdjE::unit_payload), Root::adjs.then(at(3)).then(AdjE::opt),
        Root::adjs.then(at(4)).then(AdjE::unit_payload),
        ext, ext.then(ExtE::kind), ext.then(ExtE::ping), ext.then(ExtE::text), ext.then(ExtE::pair_0),
        ext.then(ExtE::pair_1), ext.then(ExtE::rect_w), ext.then(ExtE::boxed),
        ext.then(ExtE::boxed).then(Point::x), ext.then(ExtE::unit),
        // Smart pointers and a recursive list.
        Root::list, list.then(List::value), list.then(List::next).then(some()).then(List::value),
        list.then(List::next).then(some()).then(List::next).then(some()).then(List::value),
        list.then(List::next).then(some()).then(List::next),
        Root::rc, Root::rc.then(Leaf::weight), Root::rc.then(Leaf::note),
        Root::arc.then(Leaf::weight), Root::arc.then(Leaf::note).then(some()),
        Root::boxed, Root::boxed.then(Point::x),
        // Non-string map keys.
        Root::by_id, Root::by_off, Root::flags, Root::letters,
        Root::by_id.then(key(&keys.id)), Root::by_id.then(key(&keys.id)).then(Leaf::weight),
        Root::by_off.then(key(&keys.offset)), Root::flags.then(key(&keys.flag)),
        Root::letters.then(key(&keys.letter)),
        // Structs serde also reads from arrays, options, a unit struct, floats.
        Root::pair, Root::pair.then(Pair::_0), Root::pair.then(Pair::_1),
        Root::point, Root::point.then(Point::x), Root::point.then(Point::y),
        Root::maybe, Root::maybe.then(some()).then(Point::y), Root::unit,
        Root::floats, Root::floats.then(Floats::single), Root::floats.then(Floats::double),
    );
    Ok(())
}

/// The keys looked up in the maps: present ones mostly.
pub struct Keys {
    pub id: u32,
    pub offset: i64,
    pub flag: bool,
    pub letter: char,
}

/// The fuzz targets' body: every path read from any `data`, against
/// serde_json's decode of it where there is one, with the maps' keys taken
/// from the decoded value (a key absent otherwise).
pub fn fuzz(data: &[u8]) -> Result<(), String> {
    let decoded = serde_json::from_slice::<Root>(data).ok();
    let keys = Keys {
        id: decoded
            .as_ref()
            .and_then(|r| r.by_id.keys().next_back().copied())
            .unwrap_or(7),
        offset: decoded
            .as_ref()
            .and_then(|r| r.by_off.keys().next().copied())
            .unwrap_or(3),
        flag: data.len().is_multiple_of(2),
        letter: decoded
            .as_ref()
            .and_then(|r| r.letters.keys().next_back().copied())
            .unwrap_or('a'),
    };
    every_path(data, decoded.as_ref(), &keys)
}
