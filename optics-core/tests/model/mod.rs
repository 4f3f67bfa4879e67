//! The test model shared by the integration tests (`mod model;`): a small issue
//! tracker's message that uses every serde attribute the derive reads, and
//! hand-written proptest strategies that build values of it.
//!
//! Every value a strategy builds survives a serde_json round trip unchanged
//! (skipped fields hold their default), so a test may compare a value with what
//! is read back from its JSON.
//!
//! ```text
//! Issue ─ detail: Detail (tag = "type") ─ Incident ─ impact: Impact ─ service: Service ─ tier: Tier
//!       │                               ├ Bug ─ frames: Vec<Frame>
//!       │                               ├ Question(Wrapper<String>)
//!       │                               └ Unknown (other)
//!       ├ shape: Shape (external) ─ Dot | Circle(u32) | Line(i32, i32) | Rect{..} | Maybe(Option) | Nested(Event)
//!       ├ event: Event (tag + content) ─ Ping | Note(String) | Moved{..}
//!       ├ meta: Meta (flatten), votes: Votes (transparent), span: Span (tuple)
//!       └ labels, tags, counters: Vec, HashMap, BTreeMap<String, Wrapper<u32>>
//! ```
#![allow(dead_code)]

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use optics_core::prelude::*;
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

/// A number written as a JSON string, for `with` and `deserialize_with`.
pub mod as_string {
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(n: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(n)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(D::Error::custom)
    }
}

/// The top of the model: level 1.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Issue {
    pub issue_id: u64,
    #[serde(rename = "title", alias = "headline", alias = "summary")]
    pub title_text: String,
    pub detail: Detail,
    pub shape: Shape,
    pub event: Event,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<String>,
    #[serde(default, skip_serializing_if = "HashMap::is_empty")]
    pub tags: HashMap<String, String>,
    pub counters: BTreeMap<String, Wrapper<u32>>,
    #[serde(flatten)]
    pub meta: Meta,
    #[serde(skip)]
    pub cache: Vec<u8>,
    pub votes: Votes,
    pub span: Span,
    pub r#type: Category,
}

/// Flattened into `Issue`: its members sit among the issue's own.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "kebab-case")]
pub struct Meta {
    pub created_at: u64,
    #[serde(with = "as_string")]
    pub big_number: u64,
    #[serde(
        default = "default_priority",
        skip_serializing_if = "is_default_priority"
    )]
    pub priority: u8,
}

pub fn default_priority() -> u8 {
    3
}

fn is_default_priority(p: &u8) -> bool {
    *p == default_priority()
}

/// Internally tagged: `{"type": "Incident", ...the payload's members}`.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "type")]
pub enum Detail {
    Incident(Incident),
    #[serde(rename = "bug_report", alias = "bug")]
    Bug(Bug),
    Question(Wrapper<String>),
    #[serde(other)]
    Unknown,
}

/// Level 3.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub struct Incident {
    pub severity: Severity,
    pub started_at: u64,
    pub impact: Impact,
    #[serde(default)]
    pub resolved: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Level 4.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "PascalCase")]
pub struct Impact {
    pub service: Service,
    pub users: u32,
    pub regions: Vec<Region>,
}

/// Level 5.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "SCREAMING-KEBAB-CASE")]
pub struct Service {
    pub name: Module,
    pub tier: Tier,
    #[serde(alias = "kind")]
    pub r#type: String,
    pub owner_ids: Vec<u64>,
}

/// Container-level default: any missing member takes `Region::default()`'s.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(default, rename_all = "UPPERCASE")]
pub struct Region {
    pub code: String,
    pub weight: i32,
    pub score: f64,
}

impl Default for Region {
    fn default() -> Self {
        Region {
            code: "eu".to_owned(),
            weight: 1,
            score: 0.5,
        }
    }
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "snake_case")]
pub struct Bug {
    pub module: Module,
    pub line_no: Option<u32>,
    pub frames: Vec<Frame>,
    #[serde(
        serialize_with = "as_string::serialize",
        deserialize_with = "as_string::deserialize"
    )]
    pub build: u64,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "lowercase")]
pub struct Frame {
    pub file_name: String,
    pub line: u32,
    pub inlined: bool,
}

/// A generic struct.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Wrapper<T> {
    pub value: T,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Transparent tuple newtype: written as the string itself.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(transparent)]
pub struct Module(pub String);

/// Transparent struct with a named field: written as the number itself.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(transparent)]
pub struct Votes {
    pub count: u32,
}

/// A tuple struct: written as a two-element array.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Span(pub u32, pub u32);

/// Externally tagged (serde's default), with every variant shape.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub enum Shape {
    Dot,
    Circle(u32),
    Line(i32, i32),
    Rect { width: u32, height: u32 },
    Maybe(Option<u32>),
    Nested(Event),
}

/// Adjacently tagged: `{"t": "MOVED", "c": {"fromPos": 1, "toPos": 2}}`.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(
    tag = "t",
    content = "c",
    rename_all = "UPPERCASE",
    rename_all_fields = "camelCase"
)]
pub enum Event {
    Ping,
    Note(String),
    Moved { from_pos: u32, to_pos: u32 },
}

/// Unit-only enums.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    Critical,
    Standard,
    BestEffort,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Severity {
    Low,
    Medium,
    High,
    VeryHigh,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    Crash,
    SlowStart,
    #[serde(alias = "perf")]
    Performance,
    #[serde(other)]
    Other,
}

/// A type that borrows from the message it is read from.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Borrowed<'a> {
    #[serde(borrow)]
    pub name: Cow<'a, str>,
    pub module: &'a str,
    #[serde(borrow)]
    pub frames: Vec<BorrowedFrame<'a>>,
    #[serde(borrow)]
    pub origin: Origin<'a>,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct BorrowedFrame<'a> {
    pub file: &'a str,
    pub line: u32,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum Origin<'a> {
    Local,
    Remote(&'a str),
}

// ---------------------------------------------------------------------------
// Strategies

/// Text that stresses JSON strings: quotes, backslashes, control characters,
/// brackets, and non-ASCII of every UTF-8 width.
pub fn text() -> impl Strategy<Value = String> {
    let tricky = prop::sample::select(vec![
        '"', '\\', '/', '{', '}', '[', ']', ':', ',', ' ', '\n', '\t', '\u{0}', '\u{1f}', 'é', '€',
        '😀', '\u{2028}', '\u{ffff}',
    ]);
    prop::collection::vec(
        prop_oneof![6 => prop::char::range('a', 'f'), 2 => tricky, 1 => any::<char>()],
        0..8,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

/// A few keys, so that maps often share them and lookups often hit.
pub fn map_key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec!["team", "env", "a\"b", "é", "", "x\\y"]).prop_map(str::to_owned),
        1 => text(),
    ]
}

pub fn tier() -> impl Strategy<Value = Tier> {
    prop::sample::select(vec![Tier::Critical, Tier::Standard, Tier::BestEffort])
}

pub fn severity() -> impl Strategy<Value = Severity> {
    prop::sample::select(vec![
        Severity::Low,
        Severity::Medium,
        Severity::High,
        Severity::VeryHigh,
    ])
}

pub fn category() -> impl Strategy<Value = Category> {
    prop::sample::select(vec![
        Category::Crash,
        Category::SlowStart,
        Category::Performance,
        Category::Other,
    ])
}

pub fn module() -> impl Strategy<Value = Module> {
    text().prop_map(Module)
}

pub fn votes() -> impl Strategy<Value = Votes> {
    any::<u32>().prop_map(|count| Votes { count })
}

pub fn span() -> impl Strategy<Value = Span> {
    (any::<u32>(), any::<u32>()).prop_map(|(a, b)| Span(a, b))
}

pub fn service() -> impl Strategy<Value = Service> {
    (
        module(),
        tier(),
        text(),
        prop::collection::vec(any::<u64>(), 0..3),
    )
        .prop_map(|(name, tier, r#type, owner_ids)| Service {
            name,
            tier,
            r#type,
            owner_ids,
        })
}

/// Scores are quarters, so that they survive JSON text exactly.
pub fn region() -> impl Strategy<Value = Region> {
    (text(), any::<i32>(), -4000i32..4000).prop_map(|(code, weight, quarters)| Region {
        code,
        weight,
        score: f64::from(quarters) / 4.0,
    })
}

pub fn impact() -> impl Strategy<Value = Impact> {
    (
        service(),
        any::<u32>(),
        prop::collection::vec(region(), 0..4),
    )
        .prop_map(|(service, users, regions)| Impact {
            service,
            users,
            regions,
        })
}

pub fn incident() -> impl Strategy<Value = Incident> {
    (
        severity(),
        any::<u64>(),
        impact(),
        any::<bool>(),
        prop::option::of(text()),
    )
        .prop_map(|(severity, started_at, impact, resolved, note)| Incident {
            severity,
            started_at,
            impact,
            resolved,
            note,
        })
}

pub fn frame() -> impl Strategy<Value = Frame> {
    (text(), any::<u32>(), any::<bool>()).prop_map(|(file_name, line, inlined)| Frame {
        file_name,
        line,
        inlined,
    })
}

pub fn bug() -> impl Strategy<Value = Bug> {
    (
        module(),
        prop::option::of(any::<u32>()),
        prop::collection::vec(frame(), 0..3),
        any::<u64>(),
    )
        .prop_map(|(module, line_no, frames, build)| Bug {
            module,
            line_no,
            frames,
            build,
        })
}

pub fn wrapper<T: std::fmt::Debug>(
    value: impl Strategy<Value = T>,
) -> impl Strategy<Value = Wrapper<T>> {
    (value, prop::option::of(text())).prop_map(|(value, note)| Wrapper { value, note })
}

pub fn detail() -> impl Strategy<Value = Detail> {
    prop_oneof![
        3 => incident().prop_map(Detail::Incident),
        2 => bug().prop_map(Detail::Bug),
        1 => wrapper(text()).prop_map(Detail::Question),
        1 => Just(Detail::Unknown),
    ]
}

pub fn event() -> impl Strategy<Value = Event> {
    prop_oneof![
        Just(Event::Ping),
        text().prop_map(Event::Note),
        (any::<u32>(), any::<u32>())
            .prop_map(|(from_pos, to_pos)| Event::Moved { from_pos, to_pos }),
    ]
}

pub fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        Just(Shape::Dot),
        any::<u32>().prop_map(Shape::Circle),
        (any::<i32>(), any::<i32>()).prop_map(|(a, b)| Shape::Line(a, b)),
        (any::<u32>(), any::<u32>()).prop_map(|(width, height)| Shape::Rect { width, height }),
        prop::option::of(any::<u32>()).prop_map(Shape::Maybe),
        event().prop_map(Shape::Nested),
    ]
}

pub fn meta() -> impl Strategy<Value = Meta> {
    (
        any::<u64>(),
        any::<u64>(),
        prop_oneof![Just(default_priority()), any::<u8>()],
    )
        .prop_map(|(created_at, big_number, priority)| Meta {
            created_at,
            big_number,
            priority,
        })
}

pub fn issue() -> impl Strategy<Value = Issue> {
    let head = (any::<u64>(), text(), detail(), shape(), event());
    let maps = (
        prop::collection::vec(text(), 0..3),
        prop::collection::hash_map(map_key(), text(), 0..4),
        prop::collection::btree_map(map_key(), wrapper(any::<u32>()), 0..4),
    );
    let tail = (meta(), votes(), span(), category());
    (head, maps, tail).prop_map(
        |(
            (issue_id, title_text, detail, shape, event),
            (labels, tags, counters),
            (meta, votes, span, r#type),
        )| Issue {
            issue_id,
            title_text,
            detail,
            shape,
            event,
            labels,
            tags,
            counters,
            meta,
            cache: Vec::new(),
            votes,
            span,
            r#type,
        },
    )
}
