//! Allocation per message, counted by a global allocator: judging by decode, by
//! optics, the detail's view alone, and the whole pipe (the real `Filter` on
//! 1,024 messages in 256 KiB pieces), for each reader. Prints one table.
//!
//! Allocation counts are deterministic for the judging rows; the pipe rows
//! include the runtime's own task and channel bookkeeping.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

mod common;

use bytes::Bytes;
use optics_core::Json;
use triage::judge::{self, Judge};
use triage::model::Issue;
use triage::policy::Policy;
use triage::roles;

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is passed to `System` unchanged; only counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
        // SAFETY: the caller's contract for `alloc` is `System.alloc`'s.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(
            new_size.saturating_sub(layout.size()) as u64,
            Ordering::Relaxed,
        );
        // SAFETY: the caller's contract for `realloc` is `System.realloc`'s.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const MESSAGES: u64 = 1024;

/// Allocations and bytes allocated while `f` runs.
fn count(f: impl FnOnce()) -> (u64, u64) {
    let (a, b) = (
        ALLOCATIONS.load(Ordering::SeqCst),
        BYTES.load(Ordering::SeqCst),
    );
    f();
    (
        ALLOCATIONS.load(Ordering::SeqCst) - a,
        BYTES.load(Ordering::SeqCst) - b,
    )
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
