//! Allocation per message, counted by a global allocator: judging by decode, by
//! optics, the detail's view alone, and the whole pipe (the real `Filter` on
//! 1,024 messages in 256 KiB pieces), for each reader. Prints one table.
//!
//! Allocation counts are deterministic for the judging rows; the pipe rows
//! include the runtime's own task and channel bookkeeping.

mod common;

use bytes::Bytes;
use optics_core::Json;
use triage::judge::{self, Judge};
use triage::model::Issue;
use triage::policy::Policy;
use triage::roles;

#[global_allocator]
static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;

const MESSAGES: u64 = 1024;

/// Allocations and bytes allocated, by every thread, while `f` runs.
fn count(f: impl FnOnce()) -> (u64, u64) {
    let ((), counts) = alloc_counter::measure(f);
    (counts.allocations, counts.bytes)
}

fn main() {
    let pool = common::pool(MESSAGES as usize);
    let messages: Vec<Bytes> = (0..MESSAGES).map(|i| pool.message(i)).collect();
    let stream = common::stream_of(&pool, MESSAGES);
    let policy = Policy::default();
    let per = |(allocations, bytes): (u64, u64)| {
        (
            allocations as f64 / MESSAGES as f64,
            bytes as f64 / MESSAGES as f64,
        )
    };

    // Each judge counted gives a full decode's verdicts on these messages,
    // so that none is counted doing less.
    for m in &messages {
        let want = judge::by_decoding(&policy, m);
        assert_eq!(judge::by_optics(&policy, m), want);
        assert_eq!(judge::by_optics_trusting(&policy, m), want);
        assert_eq!(judge::by_optics_validating_kept(&policy, m), want);
        assert!(Json::<Issue>::new(m).view(Issue::detail).is_some());
    }

    let mut rows: Vec<(String, (f64, f64))> = Vec::new();
    rows.push((
        "decode (judge)".to_owned(),
        per(count(|| {
            for m in &messages {
                std::hint::black_box(judge::by_decoding(&policy, m));
            }
        })),
    ));
    rows.push((
        "optics, strict (judge)".to_owned(),
        per(count(|| {
            for m in &messages {
                std::hint::black_box(judge::by_optics(&policy, m));
            }
        })),
    ));
    rows.push((
        "optics, trusting (judge)".to_owned(),
        per(count(|| {
            for m in &messages {
                std::hint::black_box(judge::by_optics_trusting(&policy, m));
            }
        })),
    ));
    rows.push((
        "optics, validating what it keeps (judge)".to_owned(),
        per(count(|| {
            for m in &messages {
                std::hint::black_box(judge::by_optics_validating_kept(&policy, m));
            }
        })),
    ));
    rows.push((
        "detail (view alone)".to_owned(),
        per(count(|| {
            for m in &messages {
                std::hint::black_box(Json::<Issue>::new(m).view(Issue::detail));
            }
        })),
    ));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    for reader in Judge::ALL {
        let filter = roles::filter_for(reader, &pool);
        common::check_pipe(&runtime, &filter, &pool, MESSAGES, &stream);
        // Once untimed, so that lazily built runtime structures are not counted.
        let run = || common::run_pipe(&runtime, &filter, &stream);
        run();
        let name = format!("pipe, {reader}");
        rows.push((
            name,
            per(count(|| {
                run();
            })),
        ));
    }

    println!(
        "allocation per message ({MESSAGES} messages, {:.0} B on average)",
        pool.mean_message_len()
    );
    println!("| what | allocations | bytes |");
    println!("|---|---:|---:|");
    for (name, (allocations, bytes)) in rows {
        println!("| {name} | {allocations:.2} | {bytes:.0} |");
    }
}
