//! Judging one message, every way a Rust user could: the byte optics
//! (`optics` trusts what it skips; `optics_strict` is the filter's default
//! judge: it validates the message in the pass that finds its detail, then
//! reads through strict views that reject a key given twice on a path read;
//! `optics_strict_dup` is the same judge in two steps, validating then
//! viewing the detail, as it was before `Strict::validated_view`;
//! `optics_validating_kept` judges trusting and validates only the messages
//! the policy would keep, with the strict judge, `--validate-kept`), full
//! decode, the detail's view alone, the peers (sonic-rs `get`,
//! `get_unchecked` and `get_many_unchecked` with one `PointerTree` of every
//! path the policy reads, simd-json's tape, serde_json's partial decode
//! through `&RawValue`), on the same 256 messages, in two layouts, in one run.
//!
//! The floor: `floor` classifies the bytes in front of the detail (stage-1
//! masks, escapes and strings resolved, no key compared) with the best
//! kernel; no structural scan to the detail can cost less. `missing_key`
//! looks for a key the message does not have (the scan from the front to
//! the end), beside `detail`, a present late key; `missing_key_late` looks
//! for it as a late key is looked for, from both ends
//! (`scan::object_field_late`, the lookup a late field's optic makes), whose
//! text is nowhere in the message (`absent`), so that the walk gives up
//! after its first turns; `missing_nested_late` looks so for `name`, a key
//! of the message's nested objects only, whose text the walk meets;
//! `validate` is strict mode's check alone.
//! `leaves` is the policy's trusting reads alone, on the detail entered
//! beforehand, beside `detail_skip`, a skip of the detail from its first
//! byte to its end: what locating the leaves costs against passing over
//! the whole small object. `leaves_located` is the same verdicts from
//! leaves found beforehand (each decoded from its own bytes, the kind
//! given): `leaves` less it is what finding them costs.
//! Before criterion's runs, the bench prints same-run ratios (medians of
//! three interleaved rounds): how far the scan is from the floor, missing
//! against present, strict against decode, the optics against sonic-rs, and
//! the best kernel (AVX-512 where the CPU has it) against AVX2.
//!
//! `late`: as serde writes the model (`detail` is the 61st of 64 fields).
//! `first`: the same messages with `detail` moved to the front.

use std::hint::black_box;
use std::time::Instant;

mod common;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use optics_core::json::scan::{self, kernels};
use optics_core::json::{Duplicates, Strict};
use optics_core::Json;
use serde::de::IntoDeserializer;
use serde::Deserialize;
use serde_json::value::RawValue;
use simd_json::prelude::*;
use triage::judge;
use triage::model::{Detail, DetailKind, Issue, Module, Plan, Severity, Tier, Votes};
use triage::policy::{leaves, Flaw, Policy, Verdict};

const POOL: usize = 256;

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

/// The kind from the text of the detail's tag, as the policy's `KIND` reads
/// it; `None` for a kind the model does not know.
fn kind_of(tag: &str) -> Option<DetailKind> {
    match tag {
        "Bug" => Some(DetailKind::Bug),
        "Incident" => Some(DetailKind::Incident),
        "Request" => Some(DetailKind::Request),
        _ => None,
    }
}

/// The policy's verdict from the detail's kind and its leaves, each decoded
/// to its type by the peer's own reader and read only when the policy asks
/// for it, in the policy's order (as `Policy::judge` reads them): every
/// peer does the policy's work and no more.
fn verdict_from(
    policy: &Policy,
    kind: DetailKind,
    severity: impl FnOnce() -> Option<Severity>,
    tier: impl FnOnce() -> Option<Tier>,
    module: impl FnOnce() -> Option<Module>,
    plan: impl FnOnce() -> Option<Plan>,
    votes: impl FnOnce() -> Option<Votes>,
) -> Verdict {
    let keep = match kind {
        DetailKind::Incident => {
            severity().is_some_and(|s| policy.urgent.contains(&s))
                && tier().is_some_and(|t| policy.tiers.contains(&t))
        }
        DetailKind::Bug => module().is_some_and(|m| policy.modules.contains(&m)),
        DetailKind::Request => {
            plan().is_some_and(|p| policy.plans.contains(&p))
                && votes().is_some_and(|v| v >= policy.min_votes)
        }
    };
    Verdict::judged(Some(kind), keep)
}

/// A leaf's typed value from its raw JSON text, decoded by sonic-rs.
fn sonic_leaf<T: for<'de> Deserialize<'de>>(raw: Option<&str>) -> Option<T> {
    sonic_rs::from_str(raw?).ok()
}

/// The kind from the raw JSON text of the detail's tag, decoded by sonic-rs
/// (borrowed: the tags have no escapes, as the bench's checks confirm).
fn sonic_kind(raw: Option<&str>) -> Option<DetailKind> {
    kind_of(sonic_rs::from_str::<&str>(raw?).ok()?)
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
        sonic_leaf(Some(get(json, path, checked)?.as_raw_str()))
    }
    let Some(detail) = get(message, &["detail"], checked) else {
        return Verdict::DROPPED;
    };
    let detail = detail.as_raw_str().as_bytes();
    let tag = get(detail, &["type"], checked);
    let Some(kind) = sonic_kind(tag.as_ref().map(|t| t.as_raw_str())) else {
        return Verdict::DROPPED;
    };
    verdict_from(
        policy,
        kind,
        || leaf(detail, &["severity"], checked),
        || leaf(detail, &["impact", "service", "tier"], checked),
        || {
            leaf(
                detail,
                &sonic_rs::pointer!["trace", "frames", 0, "module"],
                checked,
            )
        },
        || leaf(detail, &["requester", "contract", "plan"], checked),
        || leaf(detail, &["votes"], checked),
    )
}

/// The demo's strict judge in two steps: the message validated, then its
/// detail viewed and judged through strict views; a key given twice on a
/// path the policy read refuses it as `Flaw::DuplicateKey`.
/// (`triage::judge::by_optics` does the first two in one pass, with
/// `Strict::validated_view`.)
fn by_optics_strict_dup(policy: &Policy, message: &[u8]) -> Verdict {
    let duplicates = Duplicates::new();
    let Ok(issue) = Strict::<Issue>::validated(message, &duplicates) else {
        return Verdict::refused(Flaw::Malformed);
    };
    let verdict = match issue.view(Issue::detail) {
        Some(detail) => policy.judge(detail),
        None => Verdict::DROPPED,
    };
    if duplicates.met() {
        Verdict::refused(Flaw::DuplicateKey)
    } else {
        verdict
    }
}

/// A unit variant from its name, as serde reads it.
fn variant<T: for<'de> Deserialize<'de>>(name: &str) -> Option<T> {
    let name: serde::de::value::StrDeserializer<'_, serde::de::value::Error> =
        name.into_deserializer();
    T::deserialize(name).ok()
}

/// sonic-rs: one `PointerTree` of every path the policy reads, one pass;
/// each leaf the policy asks for decoded from its raw text.
fn by_sonic_many(policy: &Policy, tree: &sonic_rs::PointerTree, message: &[u8]) -> Verdict {
    // SAFETY: the bench's messages are serde_json's output: valid JSON.
    let Ok(found) = (unsafe { sonic_rs::get_many_unchecked(message, tree) }) else {
        return Verdict::DROPPED;
    };
    let raw = |i: usize| {
        found
            .get(i)
            .and_then(Option::as_ref)
            .map(|v| v.as_raw_str())
    };
    let Some(kind) = sonic_kind(raw(0)) else {
        return Verdict::DROPPED;
    };
    verdict_from(
        policy,
        kind,
        || sonic_leaf(raw(1)),
        || sonic_leaf(raw(2)),
        || {
            // SAFETY: as above.
            let module =
                unsafe { sonic_rs::get_unchecked(raw(3)?, &sonic_rs::pointer![0, "module"]) };
            sonic_leaf(Some(module.ok()?.as_raw_str()))
        },
        || sonic_leaf(raw(4)),
        || sonic_leaf(raw(5)),
    )
}

/// The paths the policy reads, from the message's root.
fn policy_tree() -> sonic_rs::PointerTree {
    let mut tree = sonic_rs::PointerTree::new();
    tree.add_path(["detail", "type"]);
    tree.add_path(["detail", "severity"]);
    tree.add_path(["detail", "impact", "service", "tier"]);
    // `frames/0/module` would fail the whole call on an empty list (sonic-rs
    // reports "get value from an empty array"): the list is taken instead,
    // and its first module read from it.
    tree.add_path(["detail", "trace", "frames"]);
    tree.add_path(["detail", "requester", "contract", "plan"]);
    tree.add_path(["detail", "votes"]);
    tree
}

/// simd-json: the message copied (simd-json parses in place), its tape
/// built, then each leaf the policy asks for read from the tape (strings
/// borrowed from it) and decoded to its type.
fn by_simd_json(policy: &Policy, message: &[u8], copy: &mut Vec<u8>) -> Verdict {
    copy.clear();
    copy.extend_from_slice(message);
    let Ok(tape) = simd_json::to_tape(copy) else {
        return Verdict::DROPPED;
    };
    let root = tape.as_value();
    let Some(detail) = root.get("detail") else {
        return Verdict::DROPPED;
    };
    let at = |path: &[&str]| {
        let mut value = detail;
        for step in path {
            value = match step.parse::<usize>() {
                Ok(index) => value.get_idx(index)?,
                Err(_) => value.get(*step)?,
            };
        }
        Some(value)
    };
    let Some(kind) = at(&["type"]).and_then(|v| v.as_str().and_then(kind_of)) else {
        return Verdict::DROPPED;
    };
    verdict_from(
        policy,
        kind,
        || variant(at(&["severity"])?.as_str()?),
        || variant(at(&["impact", "service", "tier"])?.as_str()?),
        || variant(at(&["trace", "frames", "0", "module"])?.as_str()?),
        || variant(at(&["requester", "contract", "plan"])?.as_str()?),
        || Some(Votes(u32::try_from(at(&["votes"])?.as_u64()?).ok()?)),
    )
}

/// Where each message's detail starts: the floor classifies what is before.
fn fronts(pool: &[Vec<u8>]) -> Vec<usize> {
    pool.iter()
        .map(|m| {
            let detail = Json::<Issue>::new(m).view(Issue::detail).expect("a detail");
            detail.bytes().as_ptr() as usize - m.as_ptr() as usize
        })
        .collect()
}

/// Each message's detail, entered (`Json::enter`): the policy's reads go on
/// from its first byte.
fn entered(pool: &[Vec<u8>]) -> Vec<optics_core::json::Entered<'_, Detail>> {
    pool.iter()
        .map(|m| {
            Json::<Issue>::new(m)
                .enter(Issue::detail)
                .expect("a detail")
        })
        .collect()
}

/// The leaves the policy may read in one message, found beforehand (each
/// leaf's own bytes, in `verdict_from`'s order: severity, tier, module, plan,
/// votes), and the detail's kind: the `leaves_located` row, what is left of
/// the policy's reads when nothing has to be found.
struct Located<'a> {
    kind: Option<DetailKind>,
    leaves: [Option<&'a [u8]>; 5],
}

impl<'a> Located<'a> {
    fn find(message: &'a [u8]) -> Self {
        let detail = Json::<Issue>::new(message)
            .view(Issue::detail)
            .expect("a detail");
        Located {
            kind: detail.read(leaves::KIND),
            leaves: [
                detail.view(leaves::SEVERITY).map(|leaf| leaf.bytes()),
                detail.view(leaves::TIER).map(|leaf| leaf.bytes()),
                detail.view(leaves::MODULE).map(|leaf| leaf.bytes()),
                detail.view(leaves::PLAN).map(|leaf| leaf.bytes()),
                detail.view(leaves::VOTES).map(|leaf| leaf.bytes()),
            ],
        }
    }

    /// The policy's verdict from the leaves found: each read as the policy
    /// reads it, in its order, decoded from its own bytes as an optic's read
    /// decodes the leaf it found.
    fn judge(&self, policy: &Policy) -> Verdict {
        fn leaf<'a, T: Deserialize<'a>>(bytes: Option<&'a [u8]>) -> Option<T> {
            Json::<T>::new(bytes?).decode()
        }
        let [severity, tier, module, plan, votes] = self.leaves;
        let keep = match self.kind {
            Some(DetailKind::Incident) => {
                leaf::<Severity>(severity).is_some_and(|s| policy.urgent.contains(&s))
                    && leaf::<Tier>(tier).is_some_and(|t| policy.tiers.contains(&t))
            }
            Some(DetailKind::Bug) => {
                leaf::<Module>(module).is_some_and(|m| policy.modules.contains(&m))
            }
            Some(DetailKind::Request) => {
                leaf::<Plan>(plan).is_some_and(|p| policy.plans.contains(&p))
                    && leaf::<Votes>(votes).is_some_and(|v| v >= policy.min_votes)
            }
            None => false,
        };
        Verdict::judged(self.kind, keep)
    }
}

/// 1 if a lookup says the key is missing (the contenders' fold).
fn is_missing(lookup: scan::Lookup) -> u64 {
    matches!(lookup, scan::Lookup::Missing) as u64
}

/// Same-run ratios, printed before criterion runs: each contender timed over
/// the pool in three interleaved rounds, the median taken.
fn print_ratios(layout: &str, pool: &[Vec<u8>], policy: &Policy) {
    let fronts = fronts(pool);
    let entered = entered(pool);
    let located: Vec<Located> = pool.iter().map(|m| Located::find(m)).collect();
    type Contender<'p> = (&'static str, Box<dyn Fn(usize) -> u64 + 'p>);
    let contenders: Vec<Contender> = vec![
        (
            "floor",
            Box::new(|i| kernels::classify_floor(&pool[i][..fronts[i]])),
        ),
        (
            "detail",
            Box::new(|i| {
                Json::<Issue>::new(&pool[i])
                    .view(Issue::detail)
                    .map_or(0, |d| d.bytes().len() as u64)
            }),
        ),
        (
            "missing_key",
            Box::new(|i| is_missing(scan::object_field(&pool[i], &["absent"]))),
        ),
        (
            "missing_key_late",
            Box::new(|i| is_missing(scan::object_field_late(&pool[i], &["absent"]))),
        ),
        (
            "missing_nested_late",
            Box::new(|i| is_missing(scan::object_field_late(&pool[i], &["name"]))),
        ),
        (
            "optics",
            Box::new(|i| judge::by_optics_trusting(policy, &pool[i]).keep as u64),
        ),
        (
            "validate",
            Box::new(|i| scan::validate(&pool[i]).is_ok() as u64),
        ),
        (
            "optics_strict",
            Box::new(|i| judge::by_optics(policy, &pool[i]).keep as u64),
        ),
        (
            "optics_strict_dup",
            Box::new(|i| by_optics_strict_dup(policy, &pool[i]).keep as u64),
        ),
        (
            "optics_validating_kept",
            Box::new(|i| judge::by_optics_validating_kept(policy, &pool[i]).keep as u64),
        ),
        (
            "decode",
            Box::new(|i| judge::by_decoding(policy, &pool[i]).keep as u64),
        ),
        (
            "validate_avx2",
            Box::new(|i| kernels::is_valid_with(kernels::KernelChoice::Avx2, &pool[i]) as u64),
        ),
        (
            "missing_key_avx2",
            Box::new(|i| {
                is_missing(kernels::object_field_with(
                    kernels::KernelChoice::Avx2,
                    &pool[i],
                    &["absent"],
                ))
            }),
        ),
        ("leaves", Box::new(|i| policy.judge(entered[i]).keep as u64)),
        (
            "leaves_located",
            Box::new(|i| located[i].judge(policy).keep as u64),
        ),
        (
            "detail_skip",
            Box::new(|i| scan::skip_value(&pool[i], fronts[i]).unwrap_or(0) as u64),
        ),
        (
            "sonic_get",
            Box::new(|i| by_sonic(policy, &pool[i], true).keep as u64),
        ),
        (
            "sonic_get_unchecked",
            Box::new(|i| by_sonic(policy, &pool[i], false).keep as u64),
        ),
    ];
    let runs: Vec<&dyn Fn(usize) -> u64> = contenders.iter().map(|(_, run)| &**run).collect();
    let ns = medians(pool.len(), &runs);
    let get = |name: &str| {
        ns[contenders
            .iter()
            .position(|(n, _)| *n == name)
            .expect("named")]
    };
    let bytes = pool.iter().map(Vec::len).sum::<usize>() as f64 / pool.len() as f64;
    let kept = pool
        .iter()
        .filter(|m| judge::by_decoding(policy, m).keep)
        .count();
    println!(
        "same-run ratios, judge_{layout} (median of 3 rounds, ns per message; the policy keeps {kept} of the {} messages, the ones `optics_validating_kept` judges twice):",
        pool.len()
    );
    for ((name, _), t) in contenders.iter().zip(&ns) {
        println!("  {name:<18} {t:>9.1} ns  {:>6.2}x floor", t / get("floor"));
    }
    println!(
        "  detail / floor {:.2}  optics / floor {:.2}  missing / present {:.2} (from both ends {:.2}; spelled in nested objects {:.2})  decode / optics {:.1}  decode / optics_strict {:.1}  decode / optics_strict_dup {:.1}  decode / optics_validating_kept {:.1}  validate {:.2} GB/s",
        get("detail") / get("floor"),
        get("optics") / get("floor"),
        get("missing_key") / get("detail"),
        get("missing_key_late") / get("detail"),
        get("missing_nested_late") / get("detail"),
        get("decode") / get("optics"),
        get("decode") / get("optics_strict"),
        get("decode") / get("optics_strict_dup"),
        get("decode") / get("optics_validating_kept"),
        bytes / get("validate"),
    );
    println!(
        "  sonic_get_unchecked / optics {:.2}  sonic_get / optics_strict {:.2}  the best kernel against AVX2: validate {:.2}, missing key {:.2}  leaves / detail skip {:.2} (finding them {:.2}, decoding {:.1} ns)",
        get("sonic_get_unchecked") / get("optics"),
        get("sonic_get") / get("optics_strict"),
        get("validate_avx2") / get("validate"),
        get("missing_key_avx2") / get("missing_key"),
        get("leaves") / get("detail_skip"),
        (get("leaves") - get("leaves_located")) / get("detail_skip"),
        get("leaves_located"),
    );
}

/// Times `run` over `0..n` in `rounds` interleaved rounds with the others;
/// the median of the rounds, in ns per call.
fn medians(n: usize, runs: &[&dyn Fn(usize) -> u64]) -> Vec<f64> {
    let rounds = 3;
    let mut times = vec![Vec::new(); runs.len()];
    for _ in 0..rounds {
        for (slot, run) in runs.iter().enumerate() {
            let iterations = 40 * n;
            let start = Instant::now();
            for i in 0..iterations {
                black_box(run(black_box(i % n)));
            }
            times[slot].push(start.elapsed().as_nanos() as f64 / iterations as f64);
        }
    }
    times
        .into_iter()
        .map(|mut t| {
            t.sort_by(f64::total_cmp);
            t[t.len() / 2]
        })
        .collect()
}

/// One leaf late (`benches/read.rs`'s path, on its 64 incidents): the read,
/// strict and trusting, beside the floor of the bytes in front of the leaf.
fn print_leaf_ratios() {
    let pool: Vec<Vec<u8>> = common::incidents(64).iter().map(|m| m.to_vec()).collect();
    let tier = Issue::detail
        .then(Detail::incident)
        .then(triage::model::Incident::impact)
        .then(triage::model::Impact::service)
        .then(triage::model::Service::tier);
    let fronts: Vec<usize> = pool
        .iter()
        .map(|m| {
            let leaf = Json::<Issue>::new(m).view(tier).expect("a tier").bytes();
            leaf.as_ptr() as usize - m.as_ptr() as usize
        })
        .collect();
    let floor = |i: usize| kernels::classify_floor(&pool[i][..fronts[i]]);
    let trusting = |i: usize| Json::<Issue>::new(&pool[i]).read(tier).is_some() as u64;
    let strict = |i: usize| {
        let duplicates = Duplicates::new();
        Strict::<Issue>::validated(&pool[i], &duplicates)
            .ok()
            .and_then(|issue| issue.read(tier))
            .is_some() as u64
    };
    let ns = medians(pool.len(), &[&floor, &trusting, &strict]);
    println!(
        "same-run ratios, one leaf late (64 incidents, median of 3 rounds): floor {:.1} ns, optics {:.1} ns ({:.2}x floor), optics strict with duplicate keys {:.1} ns ({:.2}x floor)",
        ns[0],
        ns[1],
        ns[1] / ns[0],
        ns[2],
        ns[2] / ns[0]
    );
}

fn bench(c: &mut Criterion) {
    let policy = Policy::default();
    let tree = policy_tree();
    let late: Vec<Vec<u8>> = common::messages(POOL).iter().map(|m| m.to_vec()).collect();
    let first: Vec<Vec<u8>> = late.iter().map(|m| common::detail_first(m)).collect();
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
            assert_eq!(by_sonic_many(&policy, &tree, m), want);
            assert_eq!(by_simd_json(&policy, m, &mut Vec::new()), want);
            assert_eq!(by_optics_strict_dup(&policy, m), want);
            assert_eq!(judge::by_optics_validating_kept(&policy, m), want);
            // Both ways of looking for a key the message lacks say so, and
            // from both ends for one that only its nested objects have.
            assert_eq!(scan::object_field(m, &["absent"]), scan::Lookup::Missing);
            assert_eq!(
                scan::object_field_late(m, &["absent"]),
                scan::Lookup::Missing
            );
            assert_eq!(scan::object_field_late(m, &["name"]), scan::Lookup::Missing);
            // As the rows say: `absent`'s text is nowhere in the message,
            // so the search between the ends finds nothing to walk to, and
            // `name`'s is (a key of the nested objects), so the walk goes on.
            let holds = |text: &[u8]| m.windows(text.len()).any(|w| w == text);
            assert!(!holds(b"absent"));
            assert!(holds(b"\"name\":"));
            // `leaves` judges as the whole judge does, and `detail_skip`
            // ends where the detail does.
            let json = Json::<Issue>::new(m);
            let detail = json.view(Issue::detail).expect("a detail");
            let front = detail.bytes().as_ptr() as usize - m.as_ptr() as usize;
            assert_eq!(
                policy.judge(json.enter(Issue::detail).expect("a detail")),
                want
            );
            assert_eq!(Located::find(m).judge(&policy), want);
            assert_eq!(
                scan::skip_value(m, front),
                Some(front + detail.bytes().len())
            );
        }
    }
    for (layout, pool) in [("late", &late), ("first", &first)] {
        print_ratios(layout, pool, &policy);
    }
    print_leaf_ratios();

    for (layout, pool) in [("late", &late), ("first", &first)] {
        let bytes: usize = pool.iter().map(Vec::len).sum();
        let fronts = fronts(pool);
        let mut group = c.benchmark_group(format!("judge_{layout}"));
        group.throughput(Throughput::Bytes((bytes / pool.len()) as u64));
        let mut by_index = |name: &str, judge: &dyn Fn(usize) -> u64| {
            group.bench_function(BenchmarkId::from_parameter(name), |b| {
                let mut i = 0;
                b.iter(|| {
                    i = (i + 1) % pool.len();
                    black_box(judge(black_box(i)))
                })
            });
        };
        by_index("floor", &|i| kernels::classify_floor(&pool[i][..fronts[i]]));
        by_index("missing_key", &|i| {
            is_missing(scan::object_field(&pool[i], &["absent"]))
        });
        by_index("missing_key_late", &|i| {
            is_missing(scan::object_field_late(&pool[i], &["absent"]))
        });
        by_index("missing_nested_late", &|i| {
            is_missing(scan::object_field_late(&pool[i], &["name"]))
        });
        by_index("validate", &|i| scan::validate(&pool[i]).is_ok() as u64);
        let entered = entered(pool);
        by_index("leaves", &|i| policy.judge(entered[i]).keep as u64);
        let located: Vec<Located> = pool.iter().map(|m| Located::find(m)).collect();
        by_index("leaves_located", &|i| located[i].judge(&policy).keep as u64);
        by_index("detail_skip", &|i| {
            scan::skip_value(&pool[i], fronts[i]).unwrap_or(0) as u64
        });
        let copy = std::cell::RefCell::new(Vec::with_capacity(8192));
        by_index("simd_json_tape", &|i| {
            by_simd_json(&policy, &pool[i], &mut copy.borrow_mut()).keep as u64
        });
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
        run("optics_strict_dup", &|m| by_optics_strict_dup(&policy, m));
        run("optics_validating_kept", &|m| {
            judge::by_optics_validating_kept(&policy, m)
        });
        run("detail", &|m| {
            Verdict::judged(None, Json::<Issue>::new(m).view(Issue::detail).is_some())
        });
        run("serde_json_raw_value", &|m| by_raw_value(&policy, m));
        run("sonic_rs_get", &|m| by_sonic(&policy, m, true));
        run("sonic_rs_get_unchecked", &|m| by_sonic(&policy, m, false));
        run("sonic_rs_get_many_unchecked", &|m| {
            by_sonic_many(&policy, &tree, m)
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
