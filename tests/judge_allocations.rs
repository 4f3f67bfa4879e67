//! Judging with optics allocates nothing: a counting global allocator, in a test
//! binary of its own, over messages of every kind.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use triage::generate::{Gen, Generate};
use triage::judge;
use triage::model::Issue;
use triage::policy::{Policy, Verdict};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed to `System` unchanged; only a counter is added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract for `alloc` is `System.alloc`'s.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract for `realloc` is `System.realloc`'s.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn judging_with_optics_allocates_nothing() {
    let policy = Policy::default();
    let mut g = Gen::new(99, 7);
    let messages: Vec<Vec<u8>> = (0..600)
        .map(|_| Issue::generate(&mut g).to_json())
        .collect();

    // Both modes: strict (validate, then judge) and trusting.
    type JudgeFn = fn(&Policy, &[u8]) -> Verdict;
    let modes: [(&str, JudgeFn); 2] = [
        ("strict", judge::by_optics),
        ("trusting", judge::by_optics_trusting),
    ];
    for (mode, judge) in modes {
        let before = ALLOCATIONS.load(Ordering::Relaxed);
        let mut kept = 0usize;
        let mut kinds = 0usize;
        for message in &messages {
            let verdict = judge(&policy, message);
            kept += usize::from(verdict.keep);
            kinds += usize::from(verdict.kind.is_some());
        }
        let allocations = ALLOCATIONS.load(Ordering::Relaxed) - before;

        assert_eq!(
            allocations,
            0,
            "{mode}: judging {} messages allocated",
            messages.len()
        );
        assert_eq!(kinds, messages.len(), "{mode}: every message has a kind");
        assert!(
            kept > 0 && kept < messages.len(),
            "{mode}: the policy keeps some, not all: {kept}"
        );
    }

    // The decoding baseline, for contrast, allocates for every message.
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    for message in &messages[..10] {
        judge::by_decoding(&policy, message);
    }
    assert!(ALLOCATIONS.load(Ordering::Relaxed) - before >= 10);
}
