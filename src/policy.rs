//! The policy: which issues the filter keeps, written once against the reader
//! capability, so the same code judges decoded issues and their JSON bytes.

use std::collections::BTreeSet;

use optics_core::Reader;

use crate::model::{Detail, DetailKind, Module, Plan, Severity, Tier, Votes};

/// The optics the policy reads, composed once from derived optics and named
/// with `optic!`. Each works on a `&Detail` and on a `Json<Detail>` alike; none
/// is a string path, the kind included.
pub mod leaves {
    use optics_core::{at, optic};

    use crate::model::{
        Bug, Contract, Customer, Detail, DetailKind, Impact, Incident, Module, Plan, Request,
        Service, Severity, StackFrame, Tier, Trace, Votes,
    };

    optic! {
        /// Which kind of issue a detail is, from the enum's tag.
        pub getter KIND: Detail => DetailKind = Detail::kind;
    }
    optic! {
        /// `detail → incident → severity`.
        pub optional SEVERITY: Detail => Severity = Detail::incident.then(Incident::severity);
    }
    optic! {
        /// `detail → incident → impact → service → tier`.
        pub optional TIER: Detail => Tier = Detail::incident
            .then(Incident::impact)
            .then(Impact::service)
            .then(Service::tier);
    }
    optic! {
        /// `detail → bug → trace → frames[0] → module`.
        pub optional MODULE: Detail => Module = Detail::bug
            .then(Bug::trace)
            .then(Trace::frames)
            .then(at(0))
            .then(StackFrame::module);
    }
    optic! {
        /// `detail → request → requester → contract → plan`.
        pub optional PLAN: Detail => Plan = Detail::request
            .then(Request::requester)
            .then(Customer::contract)
            .then(Contract::plan);
    }
    optic! {
        /// `detail → request → votes`.
        pub optional VOTES: Detail => Votes = Detail::request.then(Request::votes);
    }
}

/// What the filter decided about one message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The kind, or `None` for a message whose kind could not be read (a kind
    /// the model does not know, bytes that are not an issue, or a flawed
    /// message).
    pub kind: Option<DetailKind>,
    /// Whether the filter forwards the message.
    pub keep: bool,
    /// Why the message was refused before the policy could judge it, if it
    /// was: strict reading found it malformed, or a key repeated on a path
    /// the policy reads.
    pub flaw: Option<Flaw>,
}

/// Why a message was refused before it was judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Flaw {
    /// Not one well-formed JSON document: bad grammar, invalid UTF-8,
    /// trailing bytes, too deep.
    Malformed,
    /// A key given twice in an object on a path the policy reads (serde_json
    /// rejects such a document; other parsers take the last, so the writer of
    /// the message could choose the verdict).
    DuplicateKey,
}

impl Flaw {
    /// Every flaw, in the order reports list them.
    pub const ALL: [Flaw; 2] = [Flaw::Malformed, Flaw::DuplicateKey];

    /// The flaw's name in reports: `malformed`, `duplicate key`.
    pub const fn name(self) -> &'static str {
        match self {
            Flaw::Malformed => "malformed",
            Flaw::DuplicateKey => "duplicate key",
        }
    }
}

impl Verdict {
    /// Dropped without a kind: a kind the model does not know, or a message
    /// that is well-formed but not an issue.
    pub const DROPPED: Verdict = Verdict {
        kind: None,
        keep: false,
        flaw: None,
    };

    /// Forwarded without being read (forward-all).
    pub const FORWARDED: Verdict = Verdict {
        kind: None,
        keep: true,
        flaw: None,
    };

    /// The policy's decision on a message of `kind`.
    pub const fn judged(kind: Option<DetailKind>, keep: bool) -> Verdict {
        Verdict {
            kind,
            keep,
            flaw: None,
        }
    }

    /// Refused for `flaw`, never kept.
    pub const fn refused(flaw: Flaw) -> Verdict {
        Verdict {
            kind: None,
            keep: false,
            flaw: Some(flaw),
        }
    }
}

/// `Bug kept`, `none dropped`, `malformed dropped`: the kind's tag (or the
/// flaw, or `none`) and the decision.
impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match (self.flaw, self.kind) {
            (Some(flaw), _) => flaw.name(),
            (None, Some(kind)) => kind.tag(),
            (None, None) => "none",
        };
        let keep = if self.keep { "kept" } else { "dropped" };
        write!(f, "{what} {keep}")
    }
}

/// Which issues to keep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    /// Incidents of these severities are urgent...
    pub urgent: BTreeSet<Severity>,
    /// ...and kept when they hit a service of one of these tiers.
    pub tiers: BTreeSet<Tier>,
    /// Bugs whose top stack frame is in one of these modules are kept.
    pub modules: BTreeSet<Module>,
    /// Requests from customers on these plans...
    pub plans: BTreeSet<Plan>,
    /// ...are kept with at least this many votes.
    pub min_votes: Votes,
}

impl Default for Policy {
    /// Urgent {Sev1, Sev2}, tiers {Critical}, modules {Checkout}, plans
    /// {Business, Enterprise}, at least 130 votes.
    fn default() -> Self {
        Policy {
            urgent: [Severity::Sev1, Severity::Sev2].into(),
            tiers: [Tier::Critical].into(),
            modules: [Module::Checkout].into(),
            plans: [Plan::Business, Plan::Enterprise].into(),
            min_votes: Votes(130),
        }
    }
}

impl Policy {
    /// Judges a detail, decoded (`&Detail`) or as bytes (`Json<Detail>`): its
    /// kind first, then only the leaves that kind's rule needs. A kind that
    /// cannot be read is dropped.
    ///
    /// On bytes this reads at most three leaves, each one scan of the detail's
    /// bytes in front of it; it allocates nothing.
    pub fn judge(&self, detail: impl Reader<Detail>) -> Verdict {
        let kind = detail.read(leaves::KIND);
        let keep = match kind {
            Some(DetailKind::Incident) => {
                detail
                    .read(leaves::SEVERITY)
                    .is_some_and(|s| self.urgent.contains(&s))
                    && detail
                        .read(leaves::TIER)
                        .is_some_and(|t| self.tiers.contains(&t))
            }
            Some(DetailKind::Bug) => detail
                .read(leaves::MODULE)
                .is_some_and(|m| self.modules.contains(&m)),
            Some(DetailKind::Request) => {
                detail
                    .read(leaves::PLAN)
                    .is_some_and(|p| self.plans.contains(&p))
                    && detail
                        .read(leaves::VOTES)
                        .is_some_and(|v| v >= self.min_votes)
            }
            None => false,
        };
        Verdict::judged(kind, keep)
    }

    /// Whether the policy keeps this detail.
    pub fn keep(&self, detail: impl Reader<Detail>) -> bool {
        self.judge(detail).keep
    }
}
