//! What a filter did, in plain numbers: messages per kind seen and kept, bytes
//! in and out, the time spent judging, and (for the proxy) how its calls
//! ended.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::model::DetailKind;
use crate::policy::{Flaw, Verdict};

/// One row of a per-kind table: what a message was counted as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Row {
    /// A message of this kind, judged by the policy.
    Kind(DetailKind),
    /// A message whose kind could not be read (a kind the model does not
    /// know, a message that is not an issue) or was not read (forward-all).
    None,
    /// A message refused before it was judged.
    Flawed(Flaw),
}

impl Row {
    /// The row's name in a report: the kind's tag, `none`, or the flaw.
    pub fn name(self) -> &'static str {
        match self {
            Row::Kind(kind) => kind.tag(),
            Row::None => "none",
            Row::Flawed(flaw) => flaw.name(),
        }
    }

    /// The row a verdict is counted in.
    #[inline]
    pub fn of(verdict: Verdict) -> Row {
        match (verdict.flaw, verdict.kind) {
            (Some(flaw), _) => Row::Flawed(flaw),
            (None, Some(kind)) => Row::Kind(kind),
            (None, None) => Row::None,
        }
    }

    /// The row's place in [`Tally::by_kind`]: kinds in declaration order
    /// (the derived kind enum's discriminant), then none, then each flaw.
    #[inline]
    fn index(self) -> usize {
        match self {
            Row::Kind(kind) => kind as usize,
            Row::None => DetailKind::ALL.len(),
            Row::Flawed(flaw) => DetailKind::ALL.len() + 1 + flaw as usize,
        }
    }
}

/// Rows of a per-kind table: one per [`DetailKind`], one for `none`, one per
/// [`Flaw`].
pub const ROWS: usize = DetailKind::ALL.len() + 1 + Flaw::ALL.len();

/// The rows of a per-kind table, in order: every kind as the model declares
/// them, then `none`, then every flaw.
pub fn rows() -> impl Iterator<Item = Row> {
    let kinds = DetailKind::ALL.into_iter().map(Row::Kind);
    kinds
        .chain([Row::None])
        .chain(Flaw::ALL.into_iter().map(Row::Flawed))
}

/// How a call through the proxy ended: forwarded to its end (the upstream's
/// own status, or the client's cancel), or ended by the proxy itself, and
/// why. The proxy's own endings are the rows of the README's table of the
/// statuses it makes, plus the 502, the 505 and the drain timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CallEnd {
    /// Forwarded; the upstream ended it with `grpc-status: 0` (or, for a
    /// response that is not gRPC, a 2xx status).
    UpstreamOk,
    /// Forwarded; the upstream ended it with an error status, a reset, or
    /// no status at all (or, not gRPC, a status other than 2xx; to a gRPC
    /// call, any status but 200 with a body, which the client gets as the
    /// code gRPC maps the status to).
    UpstreamError,
    /// Forwarded; the client cancelled it (a reset, or its connection
    /// closed or stopped answering the keepalive's pings) before it ended.
    ClientCancelled,
    /// INTERNAL: the upstream sent a compressed frame the proxy cannot
    /// inflate (an encoding other than gzip or deflate, or broken bytes).
    Compressed,
    /// INTERNAL: a frame flag other than 0 or 1.
    BadFlag,
    /// INTERNAL: `grpc-status: 0` in the response headers, then a body.
    StatusThenBody,
    /// RESOURCE_EXHAUSTED: a message over the size limit.
    TooLarge,
    /// INTERNAL: the response ended inside a frame.
    EndedInsideFrame,
    /// UNAVAILABLE: the upstream connection was lost under the call
    /// (closed, broken, or closed by the keepalive when the upstream
    /// stopped answering pings).
    ConnectionLost,
    /// DEADLINE_EXCEEDED: the call's `grpc-timeout` passed.
    DeadlineExceeded,
    /// UNAVAILABLE: the upstream could not be reached (refused, no
    /// connection within the connect timeout).
    Unreachable,
    /// `502 Bad Gateway`: a call that is not gRPC, whose upstream could
    /// not be reached or was lost before it answered.
    BadGateway,
    /// `505 HTTP Version Not Supported`: a client connection that spoke
    /// HTTP/1.1 (counted once per connection).
    Http1,
    /// Cut when the drain timeout passed at shutdown.
    Cut,
    /// UNIMPLEMENTED: the upstream answered grpc-web, whose frames the
    /// proxy does not judge (so it does not forward them).
    GrpcWeb,
}

impl CallEnd {
    /// Every way a call ends, in the order of a report's table: the
    /// forwarded ones first, then the proxy's own.
    pub const ALL: [CallEnd; 15] = [
        CallEnd::UpstreamOk,
        CallEnd::UpstreamError,
        CallEnd::ClientCancelled,
        CallEnd::Compressed,
        CallEnd::BadFlag,
        CallEnd::StatusThenBody,
        CallEnd::TooLarge,
        CallEnd::EndedInsideFrame,
        CallEnd::ConnectionLost,
        CallEnd::DeadlineExceeded,
        CallEnd::Unreachable,
        CallEnd::BadGateway,
        CallEnd::Http1,
        CallEnd::Cut,
        CallEnd::GrpcWeb,
    ];

    /// The row's name in a report.
    pub fn name(self) -> &'static str {
        match self {
            CallEnd::UpstreamOk => "upstream OK",
            CallEnd::UpstreamError => "upstream error",
            CallEnd::ClientCancelled => "client cancelled",
            CallEnd::Compressed => "compressed frame",
            CallEnd::BadFlag => "bad flag",
            CallEnd::StatusThenBody => "status 0, then a body",
            CallEnd::TooLarge => "message over the limit",
            CallEnd::EndedInsideFrame => "ended inside a frame",
            CallEnd::ConnectionLost => "upstream connection lost",
            CallEnd::DeadlineExceeded => "deadline exceeded",
            CallEnd::Unreachable => "upstream not reached",
            CallEnd::BadGateway => "not gRPC, upstream failed",
            CallEnd::Http1 => "HTTP/1.1 client",
            CallEnd::Cut => "cut at the drain timeout",
            CallEnd::GrpcWeb => "grpc-web, not judged",
        }
    }

    /// What the client got.
    pub fn answer(self) -> &'static str {
        match self {
            CallEnd::UpstreamOk | CallEnd::UpstreamError => "the upstream's own end",
            CallEnd::ClientCancelled => "(its own cancel)",
            CallEnd::Compressed
            | CallEnd::BadFlag
            | CallEnd::StatusThenBody
            | CallEnd::EndedInsideFrame => "INTERNAL (13)",
            CallEnd::TooLarge => "RESOURCE_EXHAUSTED (8)",
            CallEnd::ConnectionLost | CallEnd::Unreachable => "UNAVAILABLE (14)",
            CallEnd::DeadlineExceeded => "DEADLINE_EXCEEDED (4)",
            CallEnd::BadGateway => "502 Bad Gateway",
            CallEnd::Http1 => "505 HTTP Version Not Supported",
            CallEnd::Cut => "a cut stream",
            CallEnd::GrpcWeb => "UNIMPLEMENTED (12)",
        }
    }

    /// Whether the proxy ended the call itself (a failed call), rather
    /// than forwarding it to the upstream's end or the client's cancel.
    pub fn by_proxy(self) -> bool {
        !matches!(
            self,
            CallEnd::UpstreamOk | CallEnd::UpstreamError | CallEnd::ClientCancelled
        )
    }
}

/// How many messages of one kind were seen and kept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KindCount {
    /// Messages of this kind judged.
    pub seen: u64,
    /// Of those, the ones kept.
    pub kept: u64,
}

/// What a filter did: messages per kind seen and kept, bytes in and out, and
/// the time spent judging. Plain numbers, `Copy`; adding one to another is
/// O(1).
///
/// ```
/// use triage::model::DetailKind;
/// use triage::policy::{Flaw, Verdict};
/// use triage::tally::{Row, Tally};
///
/// let mut tally = Tally::default();
/// tally.count(Verdict::judged(Some(DetailKind::Bug), true), 4096);
/// tally.count(Verdict::DROPPED, 100);
/// tally.count(Verdict::refused(Flaw::Malformed), 10);
/// assert_eq!(tally.messages, 3);
/// assert_eq!(tally.kept(), 1);
/// assert_eq!(tally.row(Row::Kind(DetailKind::Bug)).kept, 1);
/// assert_eq!(tally.row(Row::None).seen, 1);
/// assert_eq!(tally.row(Row::Flawed(Flaw::Malformed)).seen, 1);
/// assert_eq!(tally.bytes_in, 4206);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Seen and kept per kind, in the order of [`rows`].
    pub by_kind: [KindCount; ROWS],
    /// Messages judged.
    pub messages: u64,
    /// Bytes of the frames judged, headers included.
    pub bytes_in: u64,
    /// Bytes of kept frames written to the downstream.
    pub bytes_out: u64,
    /// Messages the policy kept that were never written: the downstream
    /// failed before them, or they waited for a batch whose judge panicked.
    /// Zero unless a write failed or a judge panicked; counted in
    /// [`Tally::kept`] all the same, so a report says both.
    pub unwritten: u64,
    /// Messages the policy kept that a redacting filter dropped because
    /// they had no reporter's email to redact, or their `reporter` or
    /// `email` key stood twice. Each is also counted in its kind's row, as
    /// seen and not kept.
    pub unredactable: u64,
    /// Time spent judging, measured around each batch.
    pub judging: Duration,
    /// The proxy's calls by how they ended, in the order of
    /// [`CallEnd::ALL`] (all zero for the TCP filter).
    pub calls: [u64; CallEnd::ALL.len()],
}

impl Tally {
    /// Counts one judged frame of `frame_len` bytes. O(1).
    #[inline]
    pub fn count(&mut self, verdict: Verdict, frame_len: usize) {
        let row = &mut self.by_kind[Row::of(verdict).index()];
        row.seen += 1;
        row.kept += u64::from(verdict.keep);
        self.messages += 1;
        self.bytes_in += frame_len as u64;
    }

    /// Adds every count of `other` to this tally. O(1).
    pub fn add(&mut self, other: &Tally) {
        for (row, more) in self.by_kind.iter_mut().zip(&other.by_kind) {
            row.seen += more.seen;
            row.kept += more.kept;
        }
        self.messages += other.messages;
        self.bytes_in += other.bytes_in;
        self.bytes_out += other.bytes_out;
        self.unwritten += other.unwritten;
        self.unredactable += other.unredactable;
        self.judging += other.judging;
        for (calls, more) in self.calls.iter_mut().zip(&other.calls) {
            *calls += more;
        }
    }

    /// Counts one call that ended as `end`. O(1).
    pub fn end_call(&mut self, end: CallEnd) {
        self.calls[end as usize] += 1;
    }

    /// Calls that ended as `end`. O(1).
    pub fn calls_ended(&self, end: CallEnd) -> u64 {
        self.calls[end as usize]
    }

    /// Calls counted, however they ended. O(1).
    pub fn calls_total(&self) -> u64 {
        self.calls.iter().sum()
    }

    /// Calls the proxy ended itself: failed calls. O(1).
    pub fn calls_failed(&self) -> u64 {
        CallEnd::ALL
            .into_iter()
            .filter(|end| end.by_proxy())
            .map(|end| self.calls_ended(end))
            .sum()
    }

    /// Seen and kept in one row. O(1).
    pub fn row(&self, row: Row) -> KindCount {
        self.by_kind[row.index()]
    }

    /// Seen and kept for one kind (`None`: unclassified, flaws apart). O(1).
    pub fn kind(&self, kind: Option<DetailKind>) -> KindCount {
        self.row(kind.map_or(Row::None, Row::Kind))
    }

    /// Messages refused for `flaw`. O(1).
    pub fn flawed(&self, flaw: Flaw) -> u64 {
        self.row(Row::Flawed(flaw)).seen
    }

    /// Messages kept, over all kinds. O(1).
    pub fn kept(&self) -> u64 {
        self.by_kind.iter().map(|row| row.kept).sum()
    }

    /// Messages kept and written to the downstream: all those kept unless
    /// a write failed. O(1).
    pub fn written(&self) -> u64 {
        self.kept().saturating_sub(self.unwritten)
    }
}

/// One [`Tally`] that concurrent streams (the proxy's calls) add theirs to,
/// and that anyone can read meanwhile. Cloning shares it. Each stream adds
/// once, when it ends: one uncontended lock per stream, never per message.
///
/// ```
/// use triage::tally::{SharedTally, Tally};
///
/// let total = SharedTally::new();
/// let mut call = Tally::default();
/// call.messages = 3;
/// total.clone().add(&call);
/// assert_eq!(total.snapshot().messages, 3);
/// ```
#[derive(Clone, Debug, Default)]
pub struct SharedTally(Arc<Mutex<Tally>>);

impl SharedTally {
    /// A shared tally at zero.
    pub fn new() -> SharedTally {
        SharedTally::default()
    }

    /// A copy of the counts as they stand. O(1): one lock.
    pub fn snapshot(&self) -> Tally {
        *self.lock()
    }

    /// Adds `more` to the counts. O(1): one lock.
    pub fn add(&self, more: &Tally) {
        self.lock().add(more);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Tally> {
        // A panic while holding the lock cannot leave a `Tally` half
        // updated in a way that matters for a report: keep counting.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_call_end_has_its_own_place_in_order() {
        for (i, end) in CallEnd::ALL.into_iter().enumerate() {
            assert_eq!(end as usize, i, "{end:?}");
        }
        let mut tally = Tally::default();
        tally.end_call(CallEnd::UpstreamOk);
        tally.end_call(CallEnd::Cut);
        tally.end_call(CallEnd::Cut);
        assert_eq!(tally.calls_ended(CallEnd::Cut), 2);
        assert_eq!((tally.calls_total(), tally.calls_failed()), (3, 2));
    }

    #[test]
    fn every_row_has_its_own_place_in_order() {
        let rows: Vec<_> = rows().collect();
        assert_eq!(rows.len(), ROWS);
        assert_eq!(rows[DetailKind::ALL.len()], Row::None);
        for (i, row) in rows.iter().enumerate() {
            assert_eq!(row.index(), i, "{row:?}");
        }
    }
}
