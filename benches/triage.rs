//! Judging one message, every way a Rust user could: the byte optics
//! (`optics` trusts what it skips; `optics_strict` validates the message
//! first, as the filter does by default), full decode, the detail's view alone, and the peers (sonic-rs `get` and
//! `get_unchecked`, serde_json's partial decode through `&RawValue`), on the
//! same 256 messages, in two layouts, in one run.
//!
//! `late`: as serde writes the model (`detail` is the 61st of 64 fields).
//! `first`: the same messages with `detail` moved to the front.

use std::hint::black_box;

mod common;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use optics_core::Json;
use serde::Deserialize;
use serde_json::value::RawValue;
use triage::judge;
use triage::model::{Detail, DetailKind, Issue, Module, Plan, Severity, Tier, Votes};
use triage::policy::{Policy, Verdict};

const POOL: usize = 256;

/// The same message with its detail moved to the front.
fn detail_first(message: &[u8]) -> Vec<u8> {
    let detail = Json::<Issue>::new(message)
        .view(Issue::detail)
        .expect("a detail")
        .bytes();
    let start = detail.as_ptr() as usize - message.as_ptr() as usize;
    let end = start + detail.len();
    let key = b",\"detail\":";
    let member = start - key.len();
    assert_eq!(&message[member..start], key, "compact serde output");
    let mut out = Vec::with_capacity(message.len());
    out.extend_from_slice(b"{\"detail\":");
    out.extend_from_slice(detail);
    out.push(b',');
    out.extend_from_slice(&message[1..member]);
    out.extend_from_slice(&message[end..]);
    out
}

#[derive(Deserialize)]
struct DetailOnly<'a> {
    #[serde(borrow)]
    detail: &'a RawValue,
}

/// serde_json's partial decode: the detail as a raw slice, then the detail
/// decoded from it, then the policy.
fn by_raw_value(policy: &Policy, message: &[u8]) -> Verdict {
    match serde_json::from_slice::<DetailOnly>(message)
        .ok()
        .and_then(|only| serde_json::from_str::<Detail>(only.detail.get()).ok())
    {
        Some(detail) => policy.judge(&detail),
        None => Verdict::DROPPED,
    }
}

/// sonic-rs: the detail's raw JSON by path, then each leaf by path inside it.
fn by_sonic(policy: &Policy, message: &[u8], checked: bool) -> Verdict {
    fn get<'a, P>(json: &'a [u8], path: P, checked: bool) -> Option<sonic_rs::LazyValue<'a>>
    where
        P: IntoIterator,
        P::Item: sonic_rs::Index,
    {
        if checked {
            sonic_rs::get(json, path).ok()
        } else {
            // SAFETY: the bench's messages are serde_json's output: valid JSON.
            unsafe { sonic_rs::get_unchecked(json, path) }.ok()
        }
    }
    fn leaf<T, P>(json: &[u8], path: P, checked: bool) -> Option<T>
    where
        T: for<'de> Deserialize<'de>,
        P: IntoIterator,
        P::Item: sonic_rs::Index,
    {
        sonic_rs::from_str(get(json, path, checked)?.as_raw_str()).ok()
    }
    let none = Verdict::DROPPED;
    let Some(detail) = get(message, &["detail"], checked) else {
        return none;
    };
    let detail = detail.as_raw_str().as_bytes();
    let kind = match leaf::<String, _>(detail, &["type"], checked).as_deref() {
        Some("Bug") => DetailKind::Bug,
        Some("Incident") => DetailKind::Incident,
        Some("Request") => DetailKind::Request,
        _ => return none,
    };
    let keep = match kind {
        DetailKind::Incident => {
            leaf::<Severity, _>(detail, &["severity"], checked)
                .is_some_and(|s| policy.urgent.contains(&s))
                && leaf::<Tier, _>(detail, &["impact", "service", "tier"], checked)
                    .is_some_and(|t| policy.tiers.contains(&t))
        }
        DetailKind::Bug => leaf::<Module, _>(
            detail,
            &sonic_rs::pointer!["trace", "frames", 0, "module"],
            checked,
        )
        .is_some_and(|m| policy.modules.contains(&m)),
        DetailKind::Request => {
            leaf::<Plan, _>(detail, &["requester", "contract", "plan"], checked)
                .is_some_and(|p| policy.plans.contains(&p))
                && leaf::<Votes, _>(detail, &["votes"], checked)
                    .is_some_and(|v| v >= policy.min_votes)
        }
    };
    Verdict::judged(Some(kind), keep)
}

fn bench(c: &mut Criterion) {
    let policy = Policy::default();
    let late: Vec<Vec<u8>> = common::messages(POOL).iter().map(|m| m.to_vec()).collect();
    let first: Vec<Vec<u8>> = late.iter().map(|m| detail_first(m)).collect();
    for (late, first) in late.iter().zip(&first) {
        let a: Issue = serde_json::from_slice(late).unwrap();
        let b: Issue = serde_json::from_slice(first).unwrap();
        assert_eq!(a, b, "moving the detail changes nothing else");
        let want = judge::by_decoding(&policy, late);
        for m in [late, first] {
            assert_eq!(judge::by_optics(&policy, m), want);
            assert_eq!(judge::by_optics_trusting(&policy, m), want);
            assert_eq!(by_raw_value(&policy, m), want);
            assert_eq!(by_sonic(&policy, m, true), want);
            assert_eq!(by_sonic(&policy, m, false), want);
        }
    }

    for (layout, pool) in [("late", &late), ("first", &first)] {
        let bytes: usize = pool.iter().map(Vec::len).sum();
        let mut group = c.benchmark_group(format!("judge_{layout}"));
        group.throughput(Throughput::Bytes((bytes / pool.len()) as u64));
        let mut run = |name: &str, judge: &dyn Fn(&[u8]) -> Verdict| {
            group.bench_function(BenchmarkId::from_parameter(name), |b| {
                let mut i = 0;
                b.iter(|| {
                    i = (i + 1) % pool.len();
                    black_box(judge(black_box(&pool[i])))
                })
            });
        };
        run("decode", &|m| judge::by_decoding(&policy, m));
        run("optics", &|m| judge::by_optics_trusting(&policy, m));
        run("optics_strict", &|m| judge::by_optics(&policy, m));
        run("detail", &|m| {
            Verdict::judged(None, Json::<Issue>::new(m).view(Issue::detail).is_some())
        });
        run("serde_json_raw_value", &|m| by_raw_value(&policy, m));
        run("sonic_rs_get", &|m| by_sonic(&policy, m, true));
        run("sonic_rs_get_unchecked", &|m| by_sonic(&policy, m, false));
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
