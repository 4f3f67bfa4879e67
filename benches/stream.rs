//! The filter's whole pipe in memory, no sockets: 1,024 messages' frames
//! arriving in 256 KiB pieces are split, judged, tallied and the kept frames
//! written again, by the real `Filter` (its read task, one judge task per
//! core, its write task, and the channels between them), for each reader, in
//! one run.

mod common;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use triage::judge::Judge;
use triage::roles;

const MESSAGES: u64 = 1024;

fn bench(c: &mut Criterion) {
    let pool = common::pool(MESSAGES as usize);
    let stream = common::stream_of(&pool, MESSAGES);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");

    let mut group = c.benchmark_group("pipe");
    group.throughput(Throughput::Bytes(stream.len() as u64));
    for reader in Judge::ALL {
        let filter = roles::filter_for(reader, &pool);
        let tally = common::run_pipe(&runtime, &filter, &stream);
        assert_eq!(tally.messages, MESSAGES);
        group.bench_function(BenchmarkId::from_parameter(reader), |b| {
            b.iter(|| common::run_pipe(&runtime, &filter, &stream))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
