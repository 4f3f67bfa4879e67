//! Judging messages another core has just written, as the filter's judges
//! do: a writer thread copies the demo's messages into batches (one buffer a
//! batch, as the filter's reads fill one), and the judge, on the other core,
//! judges each batch as soon as it is written, then judges it again, now in
//! its own cache; as the filter's judges do, each message's first bytes
//! are asked for (`Judge::prepare`) while the one before it is judged.
//! Both times are per message, judging alone (no waiting);
//! the ratio of the two is what reading from another core's cache costs
//! each reader, same run.
//!
//! Readers: the trusting optics judge, the strict one (the filter's
//! default), and full decode, on the demo's messages; and the trusting
//! judge again on the same messages with their detail moved to the front
//! (`first`, as in `benches/triage.rs`). 1,024 distinct messages (4.3 MB,
//! more than one core's L2), 32 to a batch, four batches in flight; five
//! interleaved rounds, medians. The threads are not pinned: on a machine with two cores
//! or more the scheduler gives each its own; on one, the figures say little.
//!
//! `cargo bench --bench cross_core`

use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

mod common;

use triage::judge::{self, Judge};
use triage::policy::Policy;

/// Messages a batch.
const BATCH: usize = 32;
/// Batches written and not yet judged, at most.
const IN_FLIGHT: usize = 4;
/// Batches a run.
const BATCHES: usize = 1_500;
const ROUNDS: usize = 5;
const DISTINCT: usize = 1_024;

/// One batch: its messages back to back, and where each ends.
#[derive(Default)]
struct Batch {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

/// Time a message, judged from another core's cache and then from its own.
struct Times {
    cross: Duration,
    own: Duration,
}

/// The messages a full decode and the policy keep in each batch of a run,
/// for a judge's count to be checked against.
fn kept_by_decode(policy: &Policy, messages: &[Vec<u8>], batches: usize) -> Vec<u64> {
    let keep: Vec<u64> = messages
        .iter()
        .map(|m| u64::from(judge::by_decoding(policy, m).keep))
        .collect();
    (0..batches)
        .map(|b| (0..BATCH).map(|k| keep[(b * BATCH + k) % keep.len()]).sum())
        .collect()
}

fn run(reader: Judge, policy: &Policy, messages: &Arc<Vec<Vec<u8>>>, batches: usize) -> Times {
    let want = kept_by_decode(policy, messages, batches);
    let slots: Arc<Vec<Mutex<Batch>>> =
        Arc::new((0..IN_FLIGHT).map(|_| Mutex::default()).collect());
    let written = Arc::new(AtomicUsize::new(0));
    let judged = Arc::new(AtomicUsize::new(0));
    let writer = {
        let (slots, written, judged, messages) = (
            Arc::clone(&slots),
            Arc::clone(&written),
            Arc::clone(&judged),
            Arc::clone(messages),
        );
        thread::spawn(move || {
            for b in 0..batches {
                while b >= judged.load(Ordering::Acquire) + IN_FLIGHT {
                    thread::yield_now();
                }
                let mut batch = slots[b % IN_FLIGHT].lock().expect("a batch");
                batch.bytes.clear();
                batch.ends.clear();
                for k in 0..BATCH {
                    batch
                        .bytes
                        .extend_from_slice(&messages[(b * BATCH + k) % messages.len()]);
                    let end = batch.bytes.len();
                    batch.ends.push(end);
                }
                drop(batch);
                written.store(b + 1, Ordering::Release);
            }
        })
    };
    let judge_batch = |batch: &Batch| {
        let mut from = 0;
        let mut kept = 0u64;
        for (k, &end) in batch.ends.iter().enumerate() {
            // As the filter's judges do: the next message asked for while
            // this one is judged.
            if let Some(&next) = batch.ends.get(k + 1) {
                reader.prepare(&batch.bytes[end..next]);
            }
            kept += u64::from(reader.judge(policy, &batch.bytes[from..end]).keep);
            from = end;
        }
        black_box(kept)
    };
    let (mut cross, mut own) = (Duration::ZERO, Duration::ZERO);
    for b in 0..batches {
        while written.load(Ordering::Acquire) <= b {
            thread::yield_now();
        }
        let batch = slots[b % IN_FLIGHT].lock().expect("a batch");
        let start = Instant::now();
        let first = judge_batch(&batch);
        cross += start.elapsed();
        let start = Instant::now();
        let again = judge_batch(&batch);
        own += start.elapsed();
        assert_eq!(first, again, "the same batch judged twice");
        assert_eq!(first, want[b], "{reader}: kept what a full decode keeps");
        drop(batch);
        judged.store(b + 1, Ordering::Release);
    }
    writer.join().expect("the writer");
    let per = |total: Duration| total / u32::try_from(batches * BATCH).expect("few messages");
    Times {
        cross: per(cross),
        own: per(own),
    }
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    // `cargo bench -- --test` (CI) runs each bench once: one short round.
    let quick = std::env::args().any(|arg| arg == "--test");
    let (rounds, batches) = if quick { (1, 8) } else { (ROUNDS, BATCHES) };
    let pool = common::pool(DISTINCT);
    let messages: Arc<Vec<Vec<u8>>> = Arc::new(
        (0..DISTINCT as u64)
            .map(|i| pool.message(i).to_vec())
            .collect(),
    );
    let first: Arc<Vec<Vec<u8>>> =
        Arc::new(messages.iter().map(|m| common::detail_first(m)).collect());
    let policy = Policy::default();
    let readers = [
        (Judge::OpticsTrusting, &messages, ""),
        (Judge::Optics, &messages, ""),
        (Judge::Decode, &messages, ""),
        (Judge::OpticsTrusting, &first, ", detail first"),
    ];
    let mut rows: Vec<Vec<Times>> = readers.iter().map(|_| Vec::new()).collect();
    for _ in 0..rounds {
        for ((reader, messages, _), row) in readers.iter().zip(&mut rows) {
            row.push(run(*reader, &policy, messages, batches));
        }
    }
    println!(
        "judging bytes another core has just written ({} messages of {} distinct, medians of {rounds} rounds):",
        batches * BATCH,
        DISTINCT
    );
    let ns = |d: Duration| d.as_secs_f64() * 1e9;
    let mut cross_medians = Vec::new();
    for ((reader, _, layout), row) in readers.iter().zip(&rows) {
        let cross = median(row.iter().map(|t| ns(t.cross)).collect());
        let own = median(row.iter().map(|t| ns(t.own)).collect());
        let ratio = median(row.iter().map(|t| ns(t.cross) / ns(t.own)).collect());
        cross_medians.push(row.iter().map(|t| ns(t.cross)).collect::<Vec<_>>());
        println!(
            "  {:<48} from another core {cross:>8.0} ns, from its own cache {own:>8.0} ns: {ratio:.2}x",
            format!("{}{layout}", reader.label())
        );
    }
    let same_run = |over: usize, under: usize| {
        median(
            cross_medians[over]
                .iter()
                .zip(&cross_medians[under])
                .map(|(a, b)| a / b)
                .collect(),
        )
    };
    println!(
        "  from another core, same-run ratios: decode / optics trusting {:.1}x, decode / optics strict {:.1}x",
        same_run(2, 0),
        same_run(2, 1)
    );
}
