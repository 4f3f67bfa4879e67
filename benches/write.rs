//! Writing one leaf of a ~4 KB message through a byte optic, and traversing
//! every stack frame of a bug, beside serde_json doing the same by decoding,
//! in one run.
//!
//! - `write_*`: set one leaf and produce the new message. The byte optic
//!   splices the leaf into a buffer reused from message to message
//!   (`set_into`) or into a new one (`set`); serde_json decodes the issue,
//!   sets the leaf through the same optic on the value, and encodes the issue
//!   into a reused buffer. The leaves: `reporter.email` (the 5th field,
//!   early), `revision` (the 64th and last) and
//!   `detail → incident → impact → service → tier` (inside the 61st; incidents
//!   only).
//! - `iterate_frame_modules`: the module of every stack frame of a bug
//!   (`detail → bug → trace → frames → each → module`; bugs only), as views
//!   (`Json::iter`), decoded (`Json::read_each`), and from a decoded issue.
//!
//! Messages are the demo's (`triage::generate`, the stream's seed and size),
//! built once outside the timed loops.

use std::hint::black_box;

mod common;

use bytes::Bytes;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use optics_core::prelude::*;
use triage::model::{
    Bug, Detail, Impact, Incident, Issue, Module, Person, Service, StackFrame, Tier, Trace,
};

/// Messages to a group.
const MESSAGES: usize = 64;

/// The first `count` messages of the demo's pool whose detail `keep` takes.
fn of_kind(count: usize, keep: impl Fn(&Detail) -> bool) -> Vec<Vec<u8>> {
    common::messages(count * 5)
        .iter()
        .filter(|m| {
            let issue: Issue = serde_json::from_slice(m).expect("the pool decodes");
            keep(&issue.detail)
        })
        .take(count)
        .map(|m: &Bytes| m.to_vec())
        .collect()
}

fn total_len(pool: &[Vec<u8>]) -> u64 {
    pool.iter().map(|m| m.len() as u64).sum()
}

/// One write group: the byte optic (`set_into`, `set`) beside decode, set on
/// the value, encode.
fn write_group<O>(c: &mut Criterion, name: &str, pool: &[Vec<u8>], optic: O, value: &O::Focus)
where
    O: Optional<Source = Issue>
        + optics_core::json::JsonOptic
        + optics_core::json::JsonWrite
        + Copy,
    O::Focus: Clone,
{
    // Both writers make the same document, as serde_json reads it.
    let mut out = Vec::new();
    let mut encoded = Vec::new();
    for m in pool {
        assert!(Json::<Issue>::new(m).set_into(optic, value, &mut out));
        assert_eq!(
            Json::<Issue>::new(m).set(optic, value).as_deref(),
            Some(&out[..])
        );
        let mut issue: Issue = serde_json::from_slice(m).expect("decodes");
        assert!(optic.preview(&issue).is_some());
        optic.set(&mut issue, value.clone());
        encoded.clear();
        serde_json::to_writer(&mut encoded, &issue).expect("encodes");
        let spliced: Issue = serde_json::from_slice(&out).expect("decodes");
        let reencoded: Issue = serde_json::from_slice(&encoded).expect("decodes");
        assert_eq!(spliced, reencoded);
    }

    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Bytes(total_len(pool)));
    group.bench_function("optics_set_into", |b| {
        b.iter(|| {
            for m in black_box(pool) {
                black_box(Json::<Issue>::new(m).set_into(optic, value, &mut out));
            }
        })
    });
    group.bench_function("optics_set", |b| {
        b.iter(|| {
            for m in black_box(pool) {
                black_box(Json::<Issue>::new(m).set(optic, value));
            }
        })
    });
    group.bench_function("serde_json_decode_set_encode", |b| {
        b.iter(|| {
            for m in black_box(pool) {
                let mut issue: Issue = serde_json::from_slice(m).unwrap();
                optic.set(&mut issue, value.clone());
                encoded.clear();
                serde_json::to_writer(&mut encoded, &issue).unwrap();
                black_box(&encoded);
            }
        })
    });
    group.finish();
}

fn bench(c: &mut Criterion) {
    let all = of_kind(MESSAGES, |_| true);
    let incidents = of_kind(MESSAGES, |d| matches!(d, Detail::Incident(_)));
    let bugs = of_kind(MESSAGES, |d| matches!(d, Detail::Bug(_)));
    let where_in = |pool: &[Vec<u8>], optic: &dyn Fn(Json<'_, Issue>) -> Option<usize>| {
        pool.iter()
            .map(|m| optic(Json::<Issue>::new(m)).unwrap_or(0) as f64 / m.len() as f64)
            .sum::<f64>()
            / pool.len() as f64
            * 100.0
    };
    let offset = |m: Json<'_, Issue>, view: Option<&[u8]>| {
        view.map(|v| v.as_ptr() as usize - m.bytes().as_ptr() as usize)
    };
    let email = Issue::reporter.then(Person::email);
    let tier = Issue::detail
        .then(Detail::incident)
        .then(Incident::impact)
        .then(Impact::service)
        .then(Service::tier);
    eprintln!(
        "{} messages, {:.0} B on average; email at {:.0} %, revision at {:.0} %, tier at {:.0} % of the way in",
        all.len(),
        total_len(&all) as f64 / all.len() as f64,
        where_in(&all, &|m| offset(m, m.view(email).map(|v| v.bytes()))),
        where_in(&all, &|m| offset(m, m.view(Issue::revision).map(|v| v.bytes()))),
        where_in(&incidents, &|m| offset(m, m.view(tier).map(|v| v.bytes()))),
    );

    write_group(
        c,
        "write_early_leaf",
        &all,
        email,
        &"redacted@example.com".to_owned(),
    );
    write_group(c, "write_late_leaf", &all, Issue::revision, &u64::MAX);
    write_group(
        c,
        "write_late_nested_leaf",
        &incidents,
        tier,
        &Tier::Experimental,
    );

    let modules = Issue::detail
        .then(Detail::bug)
        .then(Bug::trace)
        .then(Trace::frames)
        .then(each())
        .then(StackFrame::module);
    let frames: usize = bugs
        .iter()
        .map(|m| Json::<Issue>::new(m).iter(modules).count())
        .sum();
    eprintln!(
        "{} bugs, {:.1} frames each on average",
        bugs.len(),
        frames as f64 / bugs.len() as f64
    );
    for m in &bugs {
        let issue: Issue = serde_json::from_slice(m).expect("decodes");
        let read: Option<Vec<Module>> = Json::<Issue>::new(m).read_each(modules).collect();
        assert_eq!(read, Some(modules.iter(&issue).copied().collect()));
        assert_eq!(
            Json::<Issue>::new(m).iter(modules).count(),
            modules.iter(&issue).count()
        );
    }

    let mut group = c.benchmark_group("iterate_frame_modules");
    group.throughput(Throughput::Bytes(total_len(&bugs)));
    group.bench_function("optics_iter", |b| {
        b.iter(|| {
            for m in black_box(&bugs) {
                for module in Json::<Issue>::new(m).iter(modules) {
                    black_box(module.bytes());
                }
            }
        })
    });
    group.bench_function("optics_read_each", |b| {
        b.iter(|| {
            for m in black_box(&bugs) {
                for module in Json::<Issue>::new(m).read_each(modules) {
                    black_box(module);
                }
            }
        })
    });
    group.bench_function("serde_json_full", |b| {
        b.iter(|| {
            for m in black_box(&bugs) {
                let issue: Issue = serde_json::from_slice(m).unwrap();
                for module in modules.iter(&issue) {
                    black_box(module);
                }
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
