//! glibc's malloc told to keep freed read buffers (`triage::malloc`): a
//! real filter between a real upstream and downstream on 127.0.0.1 then
//! faults few pages in a message. A test binary of its own, so that the
//! process-wide setting and the fault count are this test's alone.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;
use triage::filter::Filter;
use triage::judge::Judge;
use triage::policy::Policy;
use triage::pool::{Pool, DEFAULT_DISTINCT, MESSAGE_SIZE, SEED};
use triage::{malloc, net};

/// Messages of the measured run (after a warm-up of a tenth as many).
const MESSAGES: u64 = 40_000;

#[test]
fn with_freed_buffers_kept_a_filter_faults_few_pages_in() {
    let kept = malloc::keep_freed_buffers();
    if !cfg!(all(target_os = "linux", target_env = "gnu")) {
        assert!(!kept, "only glibc is told anything");
        return;
    }
    assert!(kept, "glibc takes both thresholds");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let pool = Arc::new(Pool::generate(SEED, MESSAGE_SIZE, DEFAULT_DISTINCT).unwrap());
    let filter = Filter::new(Judge::OpticsTrusting, Policy::default());
    let stop = CancellationToken::new();
    let warm_up = runtime
        .block_on(net::loopback(pool.clone(), MESSAGES / 10, &filter, &stop))
        .unwrap();
    assert!(warm_up.passed());
    let run = runtime
        .block_on(net::loopback(pool, MESSAGES, &filter, &stop))
        .unwrap();
    assert!(run.passed(), "the downstream got exactly the kept frames");
    // Counted over the stream, as the demo's report counts them.
    let faults = run.faults.expect("/proc/self/stat is read on Linux");
    eprintln!(
        "{MESSAGES} messages (about {} MB read by the filter): {faults} pages faulted in",
        run.tally.bytes_in / 1_000_000
    );
    // Each 256 KiB read buffer faulted in again would be 64 faults a read
    // of about 60 messages; kept, the run's own start (its tasks, sockets
    // and first buffers) is most of what is left.
    assert!(
        faults < MESSAGES / 20,
        "{faults} pages faulted in for {MESSAGES} messages"
    );
}
