//! Judging with optics allocates nothing: a counting global allocator, in a test
//! binary of its own, over messages of every kind.

use triage::generate::{Gen, Generate};
use triage::judge;
use triage::model::Issue;
use triage::policy::{Policy, Verdict};

#[global_allocator]
static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;

#[test]
fn judging_with_optics_allocates_nothing() {
    let policy = Policy::default();
    let mut g = Gen::new(99, 7);
    let messages: Vec<Vec<u8>> = (0..600)
        .map(|_| Issue::generate(&mut g).to_json())
        .collect();

    // Every mode: strict (validate, then judge), trusting, and validating
    // only what it keeps.
    type JudgeFn = fn(&Policy, &[u8]) -> Verdict;
    let modes: [(&str, JudgeFn); 3] = [
        ("strict", judge::by_optics),
        ("trusting", judge::by_optics_trusting),
        ("validating what it keeps", judge::by_optics_validating_kept),
    ];
    for (mode, judge) in modes {
        let ((kept, kinds), counts) = alloc_counter::measure_thread(|| {
            let mut kept = 0usize;
            let mut kinds = 0usize;
            for message in &messages {
                let verdict = judge(&policy, message);
                kept += usize::from(verdict.keep);
                kinds += usize::from(verdict.kind.is_some());
            }
            (kept, kinds)
        });
        let allocations = counts.allocations;

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
    let ((), counts) = alloc_counter::measure_thread(|| {
        for message in &messages[..10] {
            judge::by_decoding(&policy, message);
        }
    });
    assert!(counts.allocations >= 10);
}
