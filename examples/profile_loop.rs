//! The profiling loop behind the in-cache figures of
//! `docs/performance-log.md`: one reader run over the benches' pool of
//! messages again and again, timed round by round. It is made for `perf`,
//! for `valgrind --tool=callgrind` (run two lengths and take the
//! difference, so that the setup drops out) and for paired runs of two
//! builds, alternating. It is not a benchmark: the README's figures come
//! from criterion's benches and the demo's report.
//!
//! ```text
//! cargo run --release --example profile_loop -- MODE [MESSAGES] [ROUNDS]
//! cargo run --release --example profile_loop -- --help      (the modes)
//! ```
//!
//! `MESSAGES` judged a round (20,000 by default), `ROUNDS` rounds (5); the
//! pool holds `DISTINCT` messages (environment; 256 by default, as the
//! benches). With `FRESH=1` (environment) each message is read from a copy
//! made just before, as the filter's judges find them: the messages are
//! copied in turn into one of 16 buffers of [`READ_SIZE`] bytes, the size
//! of one of the filter's reads, and only the reading of the copies is
//! timed (not for `leaves`, `sreads` and `valreads`, which read details
//! entered or views made beforehand). Prints the median time a message
//! and every round's.

use std::hint::black_box;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use optics_core::json::{scan, Duplicates, Strict};
use optics_core::prelude::*;
use triage::frames::READ_SIZE;
use triage::judge::Judge;
use triage::model::{Detail, Issue};
use triage::policy::Policy;
use triage::pool::{Pool, MESSAGE_SIZE, SEED};

/// The readers it runs, and what each does to one message.
const MODES: [(&str, &str); 17] = [
    (
        "strict",
        "the demo's default judge: validation and the detail in one pass, then strict reads",
    ),
    (
        "trusting",
        "the trusting judge: the detail entered, then the policy's reads",
    ),
    ("decode", "the full decode judge"),
    ("validate", "strict mode's validation alone"),
    ("view", "a trusting view of the detail"),
    (
        "vview",
        "the strict judge's validated view of the detail, no reads",
    ),
    (
        "vtrust",
        "the validated view, then the policy's reads made trusting on its bytes",
    ),
    (
        "floor",
        "the classification floor over the whole message (no key compared)",
    ),
    (
        "skip",
        "a skip of the whole message (its structure walked to its end)",
    ),
    (
        "missing_late",
        "a key the message does not hold, looked for from both ends",
    ),
    (
        "missing",
        "a key the message does not hold, looked for from the front to the end",
    ),
    (
        "leaves",
        "the policy's trusting reads alone, on the detail entered beforehand",
    ),
    (
        "detail_skip",
        "a skip of the detail from its first byte, found beforehand",
    ),
    (
        "sreads",
        "the strict judge's reads alone, on validated views made beforehand",
    ),
    (
        "valreads",
        "a validation of the message, then the strict reads on its view made beforehand",
    ),
    (
        "each",
        "a trusting traversal of the issue's watchers and labels (`iter`), counted",
    ),
    (
        "seach",
        "the same traversal read strictly (`Strict::iter`) on the validated message",
    ),
];

/// The modes that read what was prepared beforehand, not the message
/// (`FRESH` does not apply to them).
const PREPARED: [&str; 3] = ["leaves", "sreads", "valreads"];

/// The usage line and every mode, one a line, the descriptions aligned.
fn usage_text() -> String {
    let width = MODES.iter().map(|(mode, _)| mode.len()).max().unwrap_or(0);
    let mut text = "usage: profile_loop MODE [MESSAGES] [ROUNDS]   (env DISTINCT: messages in the pool; FRESH=1: read copies made just before)\n".to_owned();
    for (mode, what) in MODES {
        text.push_str(&format!("  {mode:width$}  {what}\n"));
    }
    text
}

/// What was wrong with the arguments, then the usage, on stderr: exit 2.
fn usage(problem: &str) -> ExitCode {
    eprint!("profile_loop: {problem}\n{}", usage_text());
    ExitCode::from(2)
}

/// A positive count from an argument or the environment, or what was wrong.
fn count(name: &str, text: Option<String>, default: usize) -> Result<usize, String> {
    match text {
        None => Ok(default),
        Some(text) => match text.parse::<usize>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(format!(
                "{name} must be a positive whole number, not {text:?}"
            )),
        },
    }
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(mode) = args.next() else {
        return usage("no MODE given");
    };
    if mode == "--help" || mode == "-h" {
        // A stdout that cannot be written is no panic.
        let _ = std::io::Write::write_all(&mut std::io::stdout(), usage_text().as_bytes());
        return ExitCode::SUCCESS;
    }
    if !MODES.iter().any(|(known, _)| *known == mode) {
        return usage(&format!("unknown MODE {mode:?}"));
    }
    let counts = (
        count("MESSAGES", args.next(), 20_000),
        count("ROUNDS", args.next(), 5),
        count("DISTINCT", std::env::var("DISTINCT").ok(), 256),
    );
    let (messages, rounds, distinct) = match counts {
        (Ok(m), Ok(r), Ok(d)) => (m, r, d),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return usage(&e),
    };
    if let Some(extra) = args.next() {
        return usage(&format!("unexpected argument {extra:?}"));
    }
    let fresh = match std::env::var("FRESH").ok().as_deref() {
        None | Some("0") => false,
        Some("1") if PREPARED.contains(&mode.as_str()) => {
            return usage(&format!(
                "FRESH does not apply to {mode} (it reads what was prepared beforehand)"
            ))
        }
        Some("1") => true,
        Some(other) => return usage(&format!("FRESH must be 0 or 1, not {other:?}")),
    };
    let pool = match Pool::generate(SEED, MESSAGE_SIZE, distinct) {
        Ok(pool) => pool,
        Err(err) => {
            eprintln!("profile_loop: the pool of {distinct} messages: {err}");
            return ExitCode::FAILURE;
        }
    };
    let pool: Vec<Vec<u8>> = (0..distinct as u64)
        .map(|i| pool.message(i).to_vec())
        .collect();
    let policy = Policy::default();
    // Each message's detail entered beforehand, for `leaves`.
    let entered: Vec<_> = pool
        .iter()
        .map(|message| Json::<Issue>::new(message).enter(Issue::detail))
        .collect();
    // Where each message's detail starts, for `detail_skip`.
    let fronts: Vec<usize> = pool
        .iter()
        .map(|message| {
            Json::<Issue>::new(message)
                .view(Issue::detail)
                .map_or(0, |detail| {
                    detail.bytes().as_ptr() as usize - message.as_ptr() as usize
                })
        })
        .collect();
    // Each message's validated view of its detail, for `sreads` and
    // `valreads`, with the flag its strict reads raise on a duplicate.
    let flags: Vec<Duplicates> = pool.iter().map(|_| Duplicates::new()).collect();
    let views: Vec<_> = pool
        .iter()
        .zip(&flags)
        .map(|(message, flag)| {
            Strict::<Issue>::validated_view(message, flag, Issue::detail)
                .ok()
                .flatten()
        })
        .collect();
    let strict_reads = |i: usize| -> u64 {
        let keep = views[i].is_some_and(|detail| policy.judge(detail).keep);
        (keep && !flags[i].met()) as u64
    };
    let run = |message: &[u8], i: usize| -> u64 {
        match mode.as_str() {
            "strict" => Judge::Optics.judge(&policy, message).keep as u64,
            "trusting" => Judge::OpticsTrusting.judge(&policy, message).keep as u64,
            "decode" => Judge::Decode.judge(&policy, message).keep as u64,
            "validate" => scan::validate(message).is_ok() as u64,
            "view" => Json::<Issue>::new(message)
                .view(Issue::detail)
                .map_or(0, |detail| detail.bytes().len() as u64),
            "vview" | "vtrust" => {
                let duplicates = Duplicates::new();
                match Strict::<Issue>::validated_view(message, &duplicates, Issue::detail) {
                    Ok(Some(detail)) if mode == "vview" => detail.bytes().len() as u64,
                    Ok(Some(detail)) => {
                        policy.judge(Json::<Detail>::new(detail.bytes())).keep as u64
                    }
                    _ => 0,
                }
            }
            "floor" => scan::kernels::classify_floor(message),
            "skip" => scan::skip_value(message, 0).unwrap_or(0) as u64,
            "missing_late" => matches!(
                scan::object_field_late(message, &["absent"]),
                scan::Lookup::Missing
            ) as u64,
            "missing" => matches!(
                scan::object_field(message, &["absent"]),
                scan::Lookup::Missing
            ) as u64,
            "leaves" => entered[i].map_or(0, |detail| policy.judge(detail).keep as u64),
            "detail_skip" => scan::skip_value(message, fronts[i]).unwrap_or(0) as u64,
            "sreads" => strict_reads(i),
            "valreads" => scan::validate(message).is_ok() as u64 + strict_reads(i),
            "each" => {
                let issue = Json::<Issue>::new(message);
                (issue.iter(Issue::watchers.then(each())).count()
                    + issue.iter(Issue::labels.then(each())).count()) as u64
            }
            "seach" => {
                let duplicates = Duplicates::new();
                let issue = Json::<Issue>::new(message).strict(&duplicates);
                (issue.iter(Issue::watchers.then(each())).count()
                    + issue.iter(Issue::labels.then(each())).count()) as u64
            }
            _ => unreachable!("the modes are checked above"),
        }
    };
    let mut times = Vec::with_capacity(rounds);
    // The copies' buffers (with `FRESH`): about as many reads as the filter
    // holds at once with two judges (13).
    let mut buffers: Vec<Vec<u8>> = (0..16).map(|_| Vec::with_capacity(READ_SIZE)).collect();
    let mut spans = Vec::new();
    for _ in 0..rounds {
        let mut fold = 0u64;
        let elapsed = if fresh {
            let mut elapsed = Duration::ZERO;
            let mut i = 0;
            for buffer in (0..buffers.len()).cycle() {
                if i == messages {
                    break;
                }
                let buffer = &mut buffers[buffer];
                buffer.clear();
                spans.clear();
                while i < messages {
                    let message = &pool[i % distinct];
                    if !buffer.is_empty() && buffer.len() + message.len() > READ_SIZE {
                        break;
                    }
                    spans.push((buffer.len(), message.len(), i % distinct));
                    buffer.extend_from_slice(message);
                    i += 1;
                }
                let start = Instant::now();
                for &(at, len, index) in &spans {
                    fold = fold.wrapping_add(run(black_box(&buffer[at..at + len]), index));
                }
                elapsed += start.elapsed();
            }
            elapsed
        } else {
            let start = Instant::now();
            for i in 0..messages {
                fold = fold.wrapping_add(run(black_box(&pool[i % distinct]), i % distinct));
            }
            start.elapsed()
        };
        black_box(fold);
        times.push(elapsed.as_nanos() as f64 / messages as f64);
    }
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    let rounds: Vec<u64> = times.iter().map(|t| t.round() as u64).collect();
    println!(
        "{mode}: median {:.1} ns a message  rounds {rounds:?}",
        sorted[sorted.len() / 2]
    );
    ExitCode::SUCCESS
}
