//! The issue that the two services exchange: 64 fields, one of which, `detail`,
//! says what kind of issue it is.
//!
//! Rust names are snake_case, JSON names camelCase. `Detail` is internally
//! tagged on `"type"`, so a detail's JSON is its variant's object plus the tag:
//! `{"type":"Incident","severity":"Sev1",...}`. Every type derives [`Optics`],
//! serde's traits, and a generator (see [`crate::generate`]).

use std::collections::BTreeMap;

use optics_core::Optics;
use serde::{Deserialize, Serialize};

use crate::generate::{Gen, Generate};

/// The votes on a feature request: a bare number in JSON.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[serde(transparent)]
pub struct Votes(pub u32);

impl Generate for Votes {
    /// 0 to 200 votes.
    fn generate(g: &mut Gen) -> Self {
        Votes(g.below(201) as u32)
    }
}

/// An issue as the upstream service streams it.
#[derive(Optics, Generate, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Issue {
    pub id: u64,
    pub key: String,
    pub title: String,
    pub description: String,
    pub reporter: Person,
    pub assignee: Option<Person>,
    pub watchers: Vec<String>,
    pub project: String,
    pub component: String,
    pub labels: Vec<String>,
    pub priority: Priority,
    pub status: Status,
    pub resolution: Option<Resolution>,
    pub created_at: u64,
    pub updated_at: u64,
    pub due_at: Option<u64>,
    pub estimate_hours: f64,
    pub spent_hours: f64,
    pub story_points: Option<u32>,
    pub sprint: Option<String>,
    pub epic: Option<String>,
    pub parent_key: Option<String>,
    pub environment: String,
    pub version: String,
    pub fix_versions: Vec<String>,
    pub affected_versions: Vec<String>,
    pub os: String,
    pub browser: Option<String>,
    pub locale: String,
    pub timezone: String,
    pub customer_visible: bool,
    pub security_level: SecurityLevel,
    pub confidential: bool,
    pub vote_count: u32,
    pub watch_count: u32,
    pub comment_count: u32,
    pub attachment_count: u32,
    pub last_commenter: Option<Person>,
    pub links: Vec<Link>,
    pub external_url: Option<String>,
    pub source: Source,
    pub channel: String,
    pub sla_breached: bool,
    pub sla_due_at: Option<u64>,
    pub response_minutes: Option<u32>,
    pub resolution_minutes: Option<u32>,
    pub reopen_count: u32,
    pub score: f64,
    pub sentiment: f64,
    pub language: String,
    pub region: String,
    pub team: Team,
    pub cost_center: String,
    pub budget: f64,
    pub approved: bool,
    pub approver: Option<Person>,
    pub rank: String,
    pub color: String,
    pub archived: bool,
    pub custom_fields: BTreeMap<String, String>,
    /// What kind of issue this is, with the kind's own fields: the 61st field.
    pub detail: Detail,
    pub tags: BTreeMap<String, String>,
    pub checklist: Vec<CheckItem>,
    pub revision: u64,
}

/// Who reported or works on an issue: Person -> Team -> Org.
#[derive(Optics, Generate, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Person {
    pub id: u64,
    pub name: String,
    pub email: String,
    pub role: String,
    pub team: Team,
}

/// A team, in an organisation.
#[derive(Optics, Generate, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Team {
    pub name: String,
    pub lead: String,
    pub org: Org,
}

/// An organisation.
#[derive(Optics, Generate, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Org {
    pub name: String,
    pub domain: String,
    pub country: String,
}

/// A link to another issue.
#[derive(Optics, Generate, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Link {
    pub relation: Relation,
    pub key: String,
}

/// One item of an issue's checklist.
#[derive(Optics, Generate, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct CheckItem {
    pub text: String,
    pub done: bool,
}

/// What kind of issue it is, with that kind's fields.
#[derive(Optics, Generate, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "type")]
pub enum Detail {
    Bug(Bug),
    Incident(Incident),
    Request(Request),
}

/// A defect, with the stack trace it was reported with.
#[derive(Optics, Generate, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Bug {
    pub component: String,
    pub build: String,
    pub reproducible: bool,
    pub trace: Trace,
}

/// A stack trace, top frame first.
#[derive(Optics, Generate, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Trace {
    pub exception: String,
    pub frames: Vec<StackFrame>,
}

/// One frame of a stack trace.
#[derive(Optics, Generate, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct StackFrame {
    pub module: Module,
    pub function: String,
    pub line: u32,
}

/// An outage or degradation.
#[derive(Optics, Generate, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Incident {
    pub severity: Severity,
    pub started_at: u64,
    pub mitigated: bool,
    pub impact: Impact,
}

/// Whom and what an incident hits.
#[derive(Optics, Generate, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Impact {
    pub users: u64,
    pub error_rate: f64,
    pub service: Service,
}

/// A service, with its tier.
#[derive(Optics, Generate, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Service {
    pub name: String,
    pub tier: Tier,
    pub region: String,
}

/// A feature request from a customer.
#[derive(Optics, Generate, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    pub product: String,
    pub votes: Votes,
    pub quarter: String,
    pub requester: Customer,
}

/// A customer, with its contract.
#[derive(Optics, Generate, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Customer {
    pub name: String,
    pub contract: Contract,
}

/// A customer's contract.
#[derive(Optics, Generate, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Contract {
    pub plan: Plan,
    pub seats: u32,
    pub renewal: String,
}

/// Where in the code base a stack frame is.
#[derive(
    Optics,
    Generate,
    Serialize,
    Deserialize,
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
)]
pub enum Module {
    Auth,
    Billing,
    Catalog,
    Checkout,
    Gateway,
    Search,
    Storage,
}

/// How bad an incident is.
#[derive(
    Optics,
    Generate,
    Serialize,
    Deserialize,
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
)]
pub enum Severity {
    Sev1,
    Sev2,
    Sev3,
    Sev4,
}

/// How much a service matters.
#[derive(
    Optics,
    Generate,
    Serialize,
    Deserialize,
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
)]
pub enum Tier {
    Critical,
    Standard,
    Experimental,
}

/// A customer's plan.
#[derive(
    Optics,
    Generate,
    Serialize,
    Deserialize,
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
)]
pub enum Plan {
    Free,
    Team,
    Business,
    Enterprise,
}

/// An issue's priority.
#[derive(Optics, Generate, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Priority {
    Low,
    Medium,
    High,
    Urgent,
}

/// Where an issue is in its life.
#[derive(Optics, Generate, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Open,
    InProgress,
    Resolved,
    Closed,
}

/// How an issue was closed.
#[derive(Optics, Generate, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolution {
    Fixed,
    WontFix,
    Duplicate,
    CannotReproduce,
}

/// Who may see an issue.
#[derive(Optics, Generate, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecurityLevel {
    Public,
    Internal,
    Restricted,
}

/// Where an issue came from.
#[derive(Optics, Generate, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Web,
    Email,
    Api,
    Chat,
}

/// How two issues relate.
#[derive(Optics, Generate, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    Blocks,
    BlockedBy,
    Duplicates,
    RelatesTo,
}

impl Issue {
    /// The issue's JSON, as the upstream service sends it (compact, in the
    /// model's field order).
    pub fn to_json(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("an Issue always serializes: string keys, finite numbers")
    }
}
