//! The filter's whole pipe in memory, no sockets: a stream of the demo's
//! frames arriving in 256 KiB pieces is split, judged, tallied and the kept
//! frames written again, by the real `Filter` (its read task, one judge task
//! per core, its write task, and the channels between them), for each
//! reader, in one run.
//!
//! Two lengths of stream: `pipe` (1,024 messages, about 4.3 MB), where the
//! start of each run (its tasks spawned, its first buffers allocated) is
//! part of what is timed, and `pipe_long` (8,192 messages, the same 1,024
//! distinct ones in turn, about 34 MB), closer to the pipe's steady state.
//!
//! The bench first fixes glibc's allocator thresholds as the filter's
//! command and the demo do (`triage::malloc::keep_freed_buffers`), so that
//! it measures the pipe as the binary runs it: left to adapt, glibc gives
//! the freed read buffers back to the kernel and each run faults their
//! pages in again.

mod common;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use triage::judge::Judge;
use triage::roles;

/// Distinct messages in the streams (the longer one cycles through them).
const DISTINCT: u64 = 1024;

fn bench(c: &mut Criterion) {
    if !triage::malloc::keep_freed_buffers() {
        eprintln!("stream: the allocator's thresholds are left as they are (not glibc)");
    }
    let pool = common::pool(DISTINCT as usize);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");

    for (name, messages) in [("pipe", DISTINCT), ("pipe_long", 8 * DISTINCT)] {
        let stream = common::stream_of(&pool, messages);
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Bytes(stream.len() as u64));
        for reader in Judge::ALL {
            let filter = roles::filter_for(reader, &pool);
            common::check_pipe(&runtime, &filter, &pool, messages, &stream);
            group.bench_function(BenchmarkId::from_parameter(reader), |b| {
                b.iter(|| common::run_pipe(&runtime, &filter, &stream))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
