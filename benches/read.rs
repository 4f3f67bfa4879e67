//! One leaf late in a ~4 KB message: the byte optic beside serde_json (full and
//! partial decode) and sonic-rs (`get`, `get_unchecked`), in one run.
//!
//! The path is `detail → incident → impact → service → tier`; `detail` is the
//! 61st of the issue's 64 fields. Every reader ends with the decoded `Tier`.

use std::hint::black_box;

mod common;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use optics_core::{Json, Preview};
use serde::Deserialize;
use serde_json::value::RawValue;
use triage::model::{Detail, Impact, Incident, Issue, Service, Tier};

#[derive(Deserialize)]
struct DetailOnly<'a> {
    #[serde(borrow)]
    detail: &'a RawValue,
}

fn bench(c: &mut Criterion) {
    // Incidents only, so that every reader finds the tier.
    let pool: Vec<Vec<u8>> = common::incidents(64).iter().map(|m| m.to_vec()).collect();
    let bytes: usize = pool.iter().map(Vec::len).sum();
    let at: f64 = pool
        .iter()
        .map(|m| {
            let detail = Json::<Issue>::new(m).view(Issue::detail).unwrap().bytes();
            (detail.as_ptr() as usize - m.as_ptr() as usize) as f64 / m.len() as f64
        })
        .sum::<f64>()
        / pool.len() as f64;
    eprintln!(
        "{} messages, {:.0} B on average; detail starts {:.0} % of the way in",
        pool.len(),
        bytes as f64 / pool.len() as f64,
        at * 100.0
    );

    let tier = Issue::detail
        .then(Detail::incident)
        .then(Incident::impact)
        .then(Impact::service)
        .then(Service::tier);
    let path = ["detail", "impact", "service", "tier"];
    // Every reader gives the tier a full decode gives, before anything is
    // timed.
    let rest = Detail::incident
        .then(Incident::impact)
        .then(Impact::service)
        .then(Service::tier);
    for m in &pool {
        let issue: Issue = serde_json::from_slice(m).unwrap();
        let want = tier.preview(&issue).copied();
        assert!(want.is_some());
        assert_eq!(Json::<Issue>::new(m).read(tier), want);
        let only: DetailOnly = serde_json::from_slice(m).unwrap();
        let detail: Detail = serde_json::from_str(only.detail.get()).unwrap();
        assert_eq!(rest.preview(&detail).copied(), want);
        let got = sonic_rs::get(m.as_slice(), &path).unwrap();
        assert_eq!(sonic_rs::from_str::<Tier>(got.as_raw_str()).ok(), want);
        // SAFETY: as in the timed loop below.
        let got = unsafe { sonic_rs::get_unchecked(m.as_slice(), &path) }.unwrap();
        assert_eq!(sonic_rs::from_str::<Tier>(got.as_raw_str()).ok(), want);
    }

    let mut group = c.benchmark_group("read_late_leaf");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("optics", |b| {
        b.iter(|| {
            for m in black_box(&pool) {
                black_box(Json::<Issue>::new(m).read(tier));
            }
        })
    });
    group.bench_function("serde_json_full", |b| {
        b.iter(|| {
            for m in black_box(&pool) {
                let issue: Issue = serde_json::from_slice(m).unwrap();
                black_box(tier.preview(&issue).copied());
            }
        })
    });
    group.bench_function("serde_json_raw_value", |b| {
        b.iter(|| {
            for m in black_box(&pool) {
                let only: DetailOnly = serde_json::from_slice(m).unwrap();
                let detail: Detail = serde_json::from_str(only.detail.get()).unwrap();
                black_box(rest.preview(&detail).copied());
            }
        })
    });
    group.bench_function("sonic_rs_get", |b| {
        b.iter(|| {
            for m in black_box(&pool) {
                let value = sonic_rs::get(m.as_slice(), &path).unwrap();
                black_box(sonic_rs::from_str::<Tier>(value.as_raw_str()).ok());
            }
        })
    });
    group.bench_function("sonic_rs_get_unchecked", |b| {
        b.iter(|| {
            for m in black_box(&pool) {
                // SAFETY: the messages were made by serde_json, so they are valid JSON,
                // which is what get_unchecked requires.
                let value = unsafe { sonic_rs::get_unchecked(m.as_slice(), &path) }.unwrap();
                black_box(sonic_rs::from_str::<Tier>(value.as_raw_str()).ok());
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
