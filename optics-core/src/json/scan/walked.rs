//! What strict reads remember of the small objects they walked, so that the
//! next read through the same object compares keys instead of walking it
//! again.
//!
//! A strict lookup walks its object to the end (see `duplicates.rs`), and
//! the policy's reads go through the same objects: the detail's kind, then
//! one or two leaves under it, each a walk of the detail. The first walk
//! records where each member's key and value stand (up to [`MEMBERS`] of
//! them) and whether the first key stands again (which counts where the
//! object's tag was read as its first member); a later lookup in that
//! object answers from the record, with the same outcome the walk would
//! give.
//!
//! A record is tagged with the number of the validation the read's view
//! comes from ([`next_validation`]; views not made by validating carry 0 and
//! record nothing). Those numbers are never reused, and every view carrying
//! one borrows the bytes that validation checked, unchanged while it lives:
//! a record is only ever read back for the very bytes it describes. Records
//! are per thread, a few objects at a time.

use core::cell::{Cell, RefCell};
use core::sync::atomic::{AtomicU64, Ordering};

use super::duplicates;
use super::member_walk::{each_member, key_eq};
use super::navigate::{Lookup, Span};

/// A number no validation had before (never 0). Each thread takes its
/// numbers from a run of its own, reserved a million at a time from one
/// shared counter: threads judging side by side do not contend for it.
pub(crate) fn next_validation() -> u64 {
    const RUN: u64 = 1 << 20;
    static NEXT_RUN: AtomicU64 = AtomicU64::new(1);
    thread_local! {
        /// The next number of this thread's run, and the run's end.
        static RUN_LEFT: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
    }
    RUN_LEFT.with(|run| {
        let (mut next, mut end) = run.get();
        if next == end {
            next = NEXT_RUN.fetch_add(RUN, Ordering::Relaxed);
            end = next + RUN;
        }
        run.set((next + 1, end));
        next
    })
}

/// Objects remembered at a time (the last ones walked).
const SLOTS: usize = 4;
/// Members an object remembered can have; a larger one is walked each time.
const MEMBERS: usize = 48;

/// Where one member's raw key and trimmed value stand in its object.
#[derive(Clone, Copy)]
struct Spans {
    key: (u32, u32),
    value: (u32, u32),
    key_escaped: bool,
}

const NO_SPANS: Spans = Spans {
    key: (0, 0),
    value: (0, 0),
    key_escaped: false,
};

/// One object walked: its members, and whether its first key (when it
/// counts, see `duplicates.rs`) stands again.
struct Record {
    /// The validation of the view it was read through; 0 for an empty slot.
    validation: u64,
    /// The object's address and length.
    span: (usize, usize),
    count: usize,
    first_repeats: bool,
    members: [Spans; MEMBERS],
}

struct Walked {
    records: [Record; SLOTS],
    /// The slot the next record takes.
    next: usize,
}

const EMPTY: Record = Record {
    validation: 0,
    span: (0, 0),
    count: 0,
    first_repeats: false,
    members: [NO_SPANS; MEMBERS],
};

thread_local! {
    static WALKED: RefCell<Walked> = const {
        RefCell::new(Walked {
            records: [EMPTY; SLOTS],
            next: 0,
        })
    };
}

/// The strict lookup of `keys` in the small object `obj`, read through a view
/// of `validation`, from the record of an earlier walk of it, or by a walk
/// that records it. `None` where the object cannot be recorded (too many
/// members, malformed): the caller walks it.
///
/// Cost: a walk of the object the first time; then a comparison of its keys.
#[inline(always)]
pub(super) fn find_once<'a>(
    validation: u64,
    obj: &'a [u8],
    keys: &[&str],
    first_too: bool,
) -> Option<Lookup<'a>> {
    // The outcome leaves the thread-local access as a `Span`, two words in
    // registers: an `Option<Lookup>` is three, returned through memory and
    // copied on at once, which waits for the stores just made.
    let found = WALKED.with(|walked| find_recorded(walked, validation, obj, keys, first_too));
    (found != Span::NONE).then(|| found.lookup(obj))
}

/// [`find_once`] in this thread's records; [`Span::NONE`] where the object
/// cannot be recorded.
#[inline(always)]
fn find_recorded(
    walked: &RefCell<Walked>,
    validation: u64,
    obj: &[u8],
    keys: &[&str],
    first_too: bool,
) -> Span {
    let Ok(mut walked) = walked.try_borrow_mut() else {
        return Span::NONE;
    };
    let span = (obj.as_ptr() as usize, obj.len());
    let slot = match walked
        .records
        .iter()
        .position(|record| record.validation == validation && record.span == span)
    {
        Some(slot) => slot,
        None => {
            let slot = walked.next;
            walked.next = (slot + 1) % SLOTS;
            if walked.records[slot].fill(validation, obj).is_none() {
                return Span::NONE;
            }
            slot
        }
    };
    walked.records[slot].find_once(obj, keys, first_too)
}

impl Record {
    /// Walks `obj` member by member and records it for `validation`; `None`
    /// (and the slot left empty) where it cannot be recorded.
    fn fill(&mut self, validation: u64, obj: &[u8]) -> Option<()> {
        self.validation = 0;
        if u32::try_from(obj.len()).is_err() {
            return None;
        }
        let mut count = 0;
        let mut first: Option<&[u8]> = None;
        let mut first_repeats = false;
        let spans = &mut self.members;
        let recorded = each_member(obj, |member| {
            let key = member.key();
            let escaped = member.key_escaped();
            if count == 0 {
                first = member.tag_like_key().map(str::as_bytes);
            } else if first.is_some_and(|first| key_eq(key, escaped, first)) {
                first_repeats = true;
            }
            let (key_from, key_to) = member.key_span();
            let (value_from, value_to) = member.value_span();
            let Some(slot) = spans.get_mut(count) else {
                // Too many members to record.
                return false;
            };
            *slot = Spans {
                key: (key_from as u32, key_to as u32),
                value: (value_from as u32, value_to as u32),
                key_escaped: escaped,
            };
            count += 1;
            true
        });
        if !recorded {
            return None;
        }
        self.span = (obj.as_ptr() as usize, obj.len());
        self.count = count;
        self.first_repeats = first_repeats;
        self.validation = validation;
        Some(())
    }

    /// The opening quote of the first key where it stands again, found
    /// among the members recorded (only when it does: a rare, cold path);
    /// the object's start if the record does not hold it.
    #[cold]
    fn first_repeated(&self, obj: &[u8]) -> *const u8 {
        let raw = |spans: &Spans| {
            obj.get(spans.key.0 as usize..spans.key.1 as usize)
                .unwrap_or_default()
        };
        let members = &self.members[..self.count];
        let again = members.split_first().and_then(|(first, rest)| {
            rest.iter()
                .find(|spans| key_eq(raw(spans), spans.key_escaped, raw(first)))
        });
        match again {
            Some(spans) => obj.as_ptr().wrapping_add(spans.key.0 as usize - 1),
            None => obj.as_ptr(),
        }
    }

    /// What `members_find_once` finds in the object recorded, `obj`: the
    /// member under `keys`, `Missing`, or a duplicate (a key sought twice,
    /// or the first key again; recorded, and malformed).
    #[inline(always)]
    fn find_once(&self, obj: &[u8], keys: &[&str], first_too: bool) -> Span {
        if first_too && self.first_repeats {
            duplicates::met(self.first_repeated(obj));
            return Span::MALFORMED;
        }
        let mut found = Span::MISSING;
        for member in &self.members[..self.count] {
            let raw = &obj[member.key.0 as usize..member.key.1 as usize];
            if keys
                .iter()
                .any(|sought| key_eq(raw, member.key_escaped, sought.as_bytes()))
            {
                if found != Span::MISSING {
                    duplicates::met(obj.as_ptr().wrapping_add(member.key.0 as usize - 1));
                    return Span::MALFORMED;
                }
                found = Span::found(member.value.0 as usize, member.value.1 as usize);
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::super::member_walk::members_find_once;
    use super::*;

    #[test]
    fn validation_numbers_are_never_zero_nor_reused() {
        // Threads side by side, one of them past the end of its first run.
        let takes = [10usize, 1000, (1 << 20) + 10];
        let numbers: Vec<Vec<u64>> = std::thread::scope(|scope| {
            let handles: Vec<_> = takes
                .iter()
                .map(|&n| scope.spawn(move || (0..n).map(|_| next_validation()).collect()))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut all: Vec<u64> = numbers.concat();
        assert_eq!(all.len(), takes.iter().sum::<usize>());
        assert!(!all.contains(&0));
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), takes.iter().sum::<usize>());
    }

    #[test]
    fn a_record_answers_as_the_walk_does() {
        let docs: [&[u8]; 5] = [
            br#"{"type":"Bug","a":1,"b":[2,{"a":3}],"c":"x"}"#,
            br#" { "a" : 1 , "b\"" : 2 , "c":{} } "#,
            br#"{"type":"Bug","a":1,"type":"Incident"}"#,
            br#"{"a":1,"a":2}"#,
            br#"{}"#,
        ];
        let keys: [&[&str]; 5] = [&["a"], &["b"], &["c", "a"], &["zzz"], &["b\""]];
        for doc in docs {
            let validation = next_validation();
            for keys in keys {
                // The first lookup walks and records, the second answers from
                // the record: both as the member walk.
                // With the first key checked and without, in turns.
                for first_too in [true, false, true, false] {
                    let walk = members_find_once(doc, keys, first_too);
                    let recorded = find_once(validation, doc, keys, first_too);
                    assert_eq!(
                        recorded,
                        Some(walk),
                        "{:?} {:?} {first_too}",
                        String::from_utf8_lossy(doc),
                        keys
                    );
                    // the very bytes, not equal ones elsewhere
                    if let (Some(Lookup::Found(is)), Lookup::Found(was)) = (recorded, walk) {
                        assert_eq!(is.as_ptr(), was.as_ptr());
                    }
                }
                // The first key repeated counts only where checked.
                if doc.starts_with(br#"{"type":"Bug","a":1,"type""#) {
                    let keys = &["a"];
                    assert_eq!(members_find_once(doc, keys, true), Lookup::Malformed);
                    assert_eq!(members_find_once(doc, keys, false), Lookup::Found(b"1"));
                }
            }
        }
        // Too many members to record: no answer, the caller walks.
        let mut many = String::from("{");
        for i in 0..=MEMBERS {
            many += &format!("\"k{i}\":{i},");
        }
        many.pop();
        many.push('}');
        assert_eq!(
            find_once(next_validation(), many.as_bytes(), &["k1"], true),
            None
        );
    }
}
