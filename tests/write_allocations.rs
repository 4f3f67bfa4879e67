//! Redacting the demo's messages into one reused buffer allocates nothing per
//! message once the buffer has grown, while decode + set + encode allocates
//! for every string of the issue. Counted by `alloc-counter` on this test's
//! thread, over the demo's stream (its seed and size).

use optics_core::prelude::*;
use triage::model::{Issue, Person};
use triage::pool::{Pool, MESSAGE_SIZE, SEED};

#[global_allocator]
static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;

const MESSAGES: u64 = 256;

#[test]
fn set_into_allocates_nothing_per_message() {
    let pool = Pool::generate(SEED, MESSAGE_SIZE, MESSAGES as usize).expect("messages frame");
    let messages: Vec<_> = (0..MESSAGES).map(|i| pool.message(i)).collect();
    let email = Issue::reporter.then(Person::email);
    let redacted = "redacted@example.com".to_owned();

    // The buffer grows to the largest message once.
    let mut out = Vec::new();
    let longest = messages.iter().map(|m| m.len()).max().unwrap_or(0);
    out.reserve(longest + redacted.len());

    let (written, counts) = alloc_counter::measure_thread(|| {
        messages
            .iter()
            .filter(|m| {
                let json = Json::<Issue>::new(m);
                json.set_into(email, &redacted, &mut out)
                    && json.set_into(Issue::revision, &0, &mut out)
            })
            .count()
    });
    assert_eq!(written as u64, MESSAGES);
    assert_eq!(counts.allocations, 0, "set_into allocated");

    // The baseline allocates: every string and list of the issue.
    let mut encoded = Vec::with_capacity(out.capacity());
    let (_, counts) = alloc_counter::measure_thread(|| {
        for m in &messages {
            let mut issue: Issue = serde_json::from_slice(m).expect("decodes");
            issue.reporter.email.clone_from(&redacted);
            encoded.clear();
            serde_json::to_writer(&mut encoded, &issue).expect("encodes");
        }
    });
    let per_message = counts.allocations as f64 / MESSAGES as f64;
    eprintln!("decode + set + encode: {per_message:.1} allocations a message; set_into: 0");
    assert!(per_message > 10.0);
}
