//! Zero cost, measured: a composed optic four levels deep against the same
//! access written by hand, for `preview` and `set`, in one run.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use optics_core::{Optics, Preview, PreviewMut};

#[derive(Optics, Clone)]
pub struct Issue {
    pub id: u64,
    pub detail: Detail,
}

#[derive(Optics, Clone)]
pub enum Detail {
    Bug(String),
    Incident(Incident),
}

#[derive(Optics, Clone)]
pub struct Incident {
    pub severity: u8,
    pub impact: Impact,
}

#[derive(Optics, Clone)]
pub struct Impact {
    pub users: u64,
    pub service: Service,
}

#[derive(Optics, Clone)]
pub struct Service {
    pub name: String,
    pub tier: u32,
}

fn issues() -> Vec<Issue> {
    (0..256u32)
        .map(|i| Issue {
            id: u64::from(i),
            detail: if i % 3 == 0 {
                Detail::Bug(format!("bug {i}"))
            } else {
                Detail::Incident(Incident {
                    severity: (i % 4) as u8,
                    impact: Impact {
                        users: u64::from(i) * 10,
                        service: Service {
                            name: format!("svc{i}"),
                            tier: i % 3,
                        },
                    },
                })
            },
        })
        .collect()
}

fn tier_by_hand(issue: &Issue) -> Option<&u32> {
    match &issue.detail {
        Detail::Incident(incident) => Some(&incident.impact.service.tier),
        Detail::Bug(_) => None,
    }
}

fn set_tier_by_hand(issue: &mut Issue, tier: u32) {
    if let Detail::Incident(incident) = &mut issue.detail {
        incident.impact.service.tier = tier;
    }
}

fn bench(c: &mut Criterion) {
    let tier = Issue::detail
        .then(Detail::incident)
        .then(Incident::impact)
        .then(Impact::service)
        .then(Service::tier);
    let mut pool = issues();
    // The optic and the hand-written access read and write the same.
    for issue in &pool {
        assert_eq!(tier.preview(issue), tier_by_hand(issue));
        let (mut a, mut b) = (issue.clone(), issue.clone());
        tier.set(&mut a, 9);
        set_tier_by_hand(&mut b, 9);
        assert_eq!(tier.preview(&a), tier_by_hand(&b));
        assert_eq!(tier.preview(&a).is_some(), tier.preview(issue).is_some());
    }

    let mut group = c.benchmark_group("four_levels");
    group.bench_function("preview/optic", |b| {
        b.iter(|| {
            let mut sum = 0u64;
            for issue in black_box(&pool) {
                sum += u64::from(*tier.preview(issue).unwrap_or(&0));
            }
            sum
        })
    });
    group.bench_function("preview/by_hand", |b| {
        b.iter(|| {
            let mut sum = 0u64;
            for issue in black_box(&pool) {
                sum += u64::from(*tier_by_hand(issue).unwrap_or(&0));
            }
            sum
        })
    });
    group.bench_function("set/optic", |b| {
        b.iter(|| {
            for (i, issue) in black_box(&mut pool).iter_mut().enumerate() {
                tier.set(issue, i as u32);
            }
        })
    });
    group.bench_function("set/by_hand", |b| {
        b.iter(|| {
            for (i, issue) in black_box(&mut pool).iter_mut().enumerate() {
                set_tier_by_hand(issue, i as u32);
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
