//! The scanner on the target workload: a ~4 KB object of 64 members (short
//! strings, numbers, booleans, objects nested 3 deep, short lists, a map) whose
//! wanted key sits ~90 % of the way in. Also the SIMD block classifier against
//! its scalar oracle, which is what justifies the `unsafe` in `json/simd/`.
//!
//! Each scan beside its floor, in the same run: `missing_key` (a key the
//! object lacks, confirmed by the walk to the end) beside a present late key
//! and the classification floor of the bytes each must look at;
//! `leaf_locate` (keys found inside a small object, as the policy's leaves
//! are) beside skipping that object whole and classifying it;
//! `validate_4k` (strict mode) beside its byte-by-byte oracle.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use optics_core::json::scan::{kernels, object_field, skip_value, validate, Lookup};
use serde_json::{json, Map, Value};
use std::hint::black_box;

const MEMBERS: usize = 64;
/// The wanted member: the 58th of 64 (keys sort in insertion order too).
const TARGET: &str = "member_name_57";

/// The workload document, built once.
fn document() -> Vec<u8> {
    let words = [
        "alpha",
        "beta rollout",
        "gamma ray",
        "delta",
        "edge case",
        "fox",
    ];
    let mut object = Map::new();
    for i in 0..MEMBERS {
        let key = format!("member_name_{i:02}");
        let word = words[i % words.len()];
        let value = match i % 8 {
            0 => json!(format!(
                "the {word} report {} came in late again, as usual",
                i * 7
            )),
            1 => json!(i * 1_000_003),
            2 => json!(i % 3 == 0),
            3 => json!({
                "id": i,
                "owner": { "name": word, "team": "core", "site": { "level": 3, "ok": true, "zone": "eu-west" } },
                "labels": ["p1", "triage"],
            }),
            4 => json!([i, i + 1, word, null, 2.5, "done"]),
            5 => json!(-(i as f64) * 1.25e-3),
            6 => {
                json!({ "en": word, "de": "das Wort", "fr": "le mot", "es": "la palabra", "count": i })
            }
            _ => json!(format!("{word} said \"hello\" {i} times today")),
        };
        object.insert(key, value);
    }
    let text = serde_json::to_vec(&Value::Object(object)).expect("serializes");
    assert!((3_800..4_400).contains(&text.len()), "{} bytes", text.len());
    let Lookup::Found(value) = object_field(&text, &[TARGET]) else {
        panic!("{TARGET} missing");
    };
    let at = value.as_ptr() as usize - text.as_ptr() as usize;
    assert!(
        (80..95).contains(&(at * 100 / text.len())),
        "{TARGET} at {at} of {}",
        text.len()
    );
    text
}

fn scan(c: &mut Criterion) {
    let doc = document();
    let mut group = c.benchmark_group("scan_4k");
    group.throughput(Throughput::Bytes(doc.len() as u64));
    group.bench_function("object_field_late_key", |b| {
        b.iter(|| {
            let found = object_field(black_box(&doc), &[TARGET]);
            assert!(matches!(found, Lookup::Found(_)));
            found
        })
    });
    group.bench_function("skip_value_whole_object", |b| {
        b.iter(|| skip_value(black_box(&doc), 0))
    });
    group.bench_function("validate", |b| b.iter(|| validate(black_box(&doc))));
    group.bench_function("serde_json_ignored_any_reference", |b| {
        b.iter(|| serde_json::from_slice::<serde::de::IgnoredAny>(black_box(&doc)))
    });
    group.finish();
}

/// A small object like the demo's incident detail (~300 bytes), and the keys
/// the policy reads in it.
fn small_detail() -> Vec<u8> {
    let detail = json!({
        "type": "Incident",
        "severity": "Sev2",
        "startedAt": 1_700_000_123u64,
        "mitigated": false,
        "summary": "checkout latency above the objective in two regions",
        "impact": {
            "users": 48_210,
            "errorRate": 0.0375,
            "service": { "name": "checkout-api", "tier": "Critical", "region": "eu-west-1" }
        },
        "owner": { "team": "payments", "oncall": "ann", "escalated": true }
    });
    let text = serde_json::to_vec(&detail).expect("serializes");
    assert!((250..400).contains(&text.len()), "{} bytes", text.len());
    text
}

fn floors(c: &mut Criterion) {
    let doc = document();
    let Lookup::Found(value) = object_field(&doc, &[TARGET]) else {
        panic!("{TARGET} missing");
    };
    let front = value.as_ptr() as usize - doc.as_ptr() as usize;
    let mut group = c.benchmark_group("missing_key");
    group.throughput(Throughput::Bytes(doc.len() as u64));
    group.bench_function("present_late_key", |b| {
        b.iter(|| object_field(black_box(&doc), &[TARGET]))
    });
    group.bench_function("missing_key", |b| {
        b.iter(|| {
            let found = object_field(black_box(&doc), &["member_name_99"]);
            assert_eq!(found, Lookup::Missing);
            found
        })
    });
    group.bench_function("floor_to_the_present_key", |b| {
        b.iter(|| kernels::classify_floor(black_box(&doc[..front])))
    });
    group.bench_function("floor_whole_object", |b| {
        b.iter(|| kernels::classify_floor(black_box(&doc)))
    });
    group.finish();

    let detail = small_detail();
    let mut group = c.benchmark_group("leaf_locate");
    group.throughput(Throughput::Bytes(detail.len() as u64));
    group.bench_function("tag_severity_impact_owner", |b| {
        b.iter(|| {
            let d = black_box(&detail[..]);
            [
                object_field(d, &["type"]),
                object_field(d, &["severity"]),
                object_field(d, &["impact"]),
                object_field(d, &["owner"]),
            ]
        })
    });
    group.bench_function("last_key", |b| {
        b.iter(|| object_field(black_box(&detail), &["owner"]))
    });
    group.bench_function("skip_whole_object", |b| {
        b.iter(|| skip_value(black_box(&detail), 0))
    });
    group.bench_function("floor_whole_object", |b| {
        b.iter(|| kernels::classify_floor(black_box(&detail)))
    });
    group.finish();

    let mut group = c.benchmark_group("validate_4k");
    group.throughput(Throughput::Bytes(doc.len() as u64));
    group.bench_function("validate", |b| b.iter(|| validate(black_box(&doc))));
    group.bench_function("validate_scalar_oracle", |b| {
        b.iter(|| kernels::validate_scalar(black_box(&doc)))
    });
    group.bench_function("floor_whole_object", |b| {
        b.iter(|| kernels::classify_floor(black_box(&doc)))
    });
    group.finish();
}

fn kernels(c: &mut Criterion) {
    let doc = document();
    let blocks: Vec<[u8; kernels::BLOCK]> = doc
        .chunks_exact(kernels::BLOCK)
        .map(|chunk| chunk.try_into().expect("64 bytes"))
        .collect();
    let bytes = (blocks.len() * kernels::BLOCK) as u64;
    let mut group = c.benchmark_group("classify");
    group.throughput(Throughput::Bytes(bytes));
    let fold = |m: kernels::Masks| m.quote ^ m.backslash ^ m.open ^ m.close;
    group.bench_function("sse2", |b| {
        b.iter(|| {
            black_box(&blocks)
                .iter()
                .fold(0, |acc, block| acc ^ fold(kernels::classify(block)))
        })
    });
    group.bench_function("scalar_oracle", |b| {
        b.iter(|| {
            black_box(&blocks)
                .iter()
                .fold(0, |acc, block| acc ^ fold(kernels::classify_scalar(block)))
        })
    });
    group.finish();

    // The AVX2 kernel (taken when the CPU has it) against SSE2, on a whole object.
    let mut group = c.benchmark_group("skip_container");
    group.throughput(Throughput::Bytes(doc.len() as u64));
    group.bench_function("dispatched", |b| b.iter(|| skip_value(black_box(&doc), 0)));
    group.bench_function("sse2_baseline", |b| {
        b.iter(|| kernels::skip_container_baseline(black_box(&doc), 0))
    });
    group.finish();

    // A long string with its quote at the end: the string-skipping search.
    let long: Vec<u8> = doc
        .iter()
        .map(|&b| if b == b'"' || b == b'\\' { b'x' } else { b })
        .collect();
    let mut group = c.benchmark_group("find_quote_or_backslash");
    group.throughput(Throughput::Bytes(long.len() as u64));
    group.bench_function("sse2", |b| {
        b.iter(|| kernels::find_quote_or_backslash(black_box(&long), 0))
    });
    group.bench_function("scalar_oracle", |b| {
        b.iter(|| kernels::find_quote_or_backslash_scalar(black_box(&long), 0))
    });
    group.finish();
}

criterion_group!(benches, scan, floors, kernels);
criterion_main!(benches);
