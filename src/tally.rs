//! What a filter did, in plain numbers: messages per kind seen and kept, bytes
//! in and out, and the time spent judging.

use std::time::Duration;

use crate::model::DetailKind;
use crate::policy::Verdict;

/// Rows of a per-kind table: one per [`DetailKind`], then one for messages
/// whose kind could not be read (or was not read, by forward-all).
pub const ROWS: usize = DetailKind::ALL.len() + 1;

/// The rows of a per-kind table, in order: every kind as the model declares
/// them, then `None`.
pub fn rows() -> impl Iterator<Item = Option<DetailKind>> {
    DetailKind::ALL.into_iter().map(Some).chain([None])
}

/// The row of `kind`: its declaration order (the derived kind enum's
/// discriminant), or the last row for `None`.
fn row(kind: Option<DetailKind>) -> usize {
    kind.map_or(ROWS - 1, |kind| kind as usize)
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
/// use triage::tally::Tally;
/// use triage::model::DetailKind;
/// use triage::policy::Verdict;
///
/// let mut tally = Tally::default();
/// tally.count(Verdict { kind: Some(DetailKind::Bug), keep: true }, 4096);
/// tally.count(Verdict { kind: None, keep: false }, 100);
/// assert_eq!(tally.messages, 2);
/// assert_eq!(tally.kept(), 1);
/// assert_eq!(tally.kind(Some(DetailKind::Bug)).kept, 1);
/// assert_eq!(tally.kind(None).seen, 1);
/// assert_eq!(tally.bytes_in, 4196);
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
    /// Time spent judging, measured around each batch.
    pub judging: Duration,
}

impl Tally {
    /// Counts one judged frame of `frame_len` bytes. O(1).
    #[inline]
    pub fn count(&mut self, verdict: Verdict, frame_len: usize) {
        let row = &mut self.by_kind[row(verdict.kind)];
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
        self.judging += other.judging;
    }

    /// Seen and kept for one kind (`None`: unclassified). O(1).
    pub fn kind(&self, kind: Option<DetailKind>) -> KindCount {
        self.by_kind[row(kind)]
    }

    /// Messages kept, over all kinds. O(1).
    pub fn kept(&self) -> u64 {
        self.by_kind.iter().map(|row| row.kept).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_its_own_row_and_none_is_last() {
        let rows: Vec<_> = rows().collect();
        assert_eq!(rows.len(), ROWS);
        assert_eq!(rows.last(), Some(&None));
        for (i, kind) in rows.iter().enumerate() {
            assert_eq!(row(*kind), i);
        }
    }
}
