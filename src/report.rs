//! The demo's report: per run, throughput, time spent judging, the CPU
//! time the whole process spent (where it can be read), a per-kind table
//! and the downstream's check; then the same-run ratios between the
//! filters.
//!
//! ```text
//! optics: 200000 messages, 834.0 MB in 0.46 s:
//!   434 k messages/s, 1809 MB/s
//!   judging them took 1.0 µs per message; the rest is sockets and framing
//!   the process used 3.9 µs of CPU per message, every role together: at that cost 2 cores sustain at most 513 k messages/s
//!   kind            seen      kept
//!   Bug            68173      6835
//!   ...
//!   downstream received 30075 messages (30075 kept); 30075 decode as issues, and the policy keeps 30075 of them
//!   the check took 317.7 ms, after the stream (not timed with it)
//! ```
//!
//! Every function returns the text (lines ending in `\n`); printing is the
//! caller's. MB are 10^6 bytes.

use std::fmt::Write;
use std::time::Duration;

use crate::downstream::StreamDigest;
use crate::judge::{Judge, Judged};
use crate::net::Run;
use crate::proxy::Http2Run;
use crate::tally::{rows, Tally};

/// `bytes` in MB (10^6 bytes).
fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

/// Seconds, never zero, so rates stay finite.
fn seconds(elapsed: Duration) -> f64 {
    elapsed.as_secs_f64().max(1e-9)
}

/// The first three lines of a run: what went through and how fast, and the
/// share of it spent judging.
///
/// ```
/// use std::time::Duration;
/// use triage::tally::Tally;
/// use triage::report::throughput;
///
/// let mut tally = Tally::default();
/// tally.messages = 200_000;
/// tally.bytes_in = 834_000_000;
/// tally.judging = Duration::from_millis(200);
/// assert_eq!(
///     throughput("optics", &tally, Duration::from_millis(460)),
///     "optics: 200000 messages, 834.0 MB in 0.46 s:\n  \
///      435 k messages/s, 1813 MB/s\n  \
///      judging them took 1.0 µs per message; the rest is sockets and framing\n"
/// );
/// ```
pub fn throughput(name: &str, tally: &Tally, elapsed: Duration) -> String {
    let secs = seconds(elapsed);
    let per_message = if tally.messages == 0 {
        0.0
    } else {
        tally.judging.as_secs_f64() * 1e6 / tally.messages as f64
    };
    format!(
        "{name}: {} messages, {:.1} MB in {secs:.2} s:\n  \
         {:.0} k messages/s, {:.0} MB/s\n  \
         judging them took {per_message:.1} µs per message; the rest is sockets and framing\n",
        tally.messages,
        mb(tally.bytes_in),
        tally.messages as f64 / secs / 1e3,
        mb(tally.bytes_in) / secs,
    )
}

/// What a run cost the whole process in CPU time, per message, and the rate
/// `cores` could sustain at that cost: the demo's roles share the process,
/// so this bounds its throughput whatever the filter does. Nothing for a
/// run without messages.
///
/// ```
/// use std::time::Duration;
/// use triage::report::cpu_cost;
///
/// assert_eq!(
///     cpu_cost(200_000, Duration::from_millis(400), 2),
///     "  the process used 2.0 µs of CPU per message, every role together: \
///      at that cost 2 cores sustain at most 1000 k messages/s\n"
/// );
/// assert!(cpu_cost(1, Duration::from_micros(5), 1).ends_with("1 core sustains at most 200 k messages/s\n"));
/// assert_eq!(cpu_cost(0, Duration::from_millis(400), 2), "");
/// ```
pub fn cpu_cost(messages: u64, cpu: Duration, cores: usize) -> String {
    if messages == 0 {
        return String::new();
    }
    let per_message = cpu.as_secs_f64() * 1e6 / messages as f64;
    let most = cores as f64 / per_message.max(1e-9) * 1e3;
    let sustain = if cores == 1 {
        "core sustains"
    } else {
        "cores sustain"
    };
    format!(
        "  the process used {per_message:.1} µs of CPU per message, every role together: \
         at that cost {cores} {sustain} at most {most:.0} k messages/s\n"
    )
}

/// The cores the process may run on (1 if that cannot be told).
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// The per-kind table: a header and one row per kind, then `none` (messages
/// without a kind) and one row per flaw (`malformed`, `duplicate key`),
/// indented by two spaces.
///
/// ```
/// use triage::tally::Tally;
/// use triage::report::kind_table;
///
/// let table = kind_table(&Tally::default());
/// assert!(table.starts_with("  kind                seen      kept\n  Bug                    0         0\n"));
/// assert!(table.ends_with("  none                   0         0\n  malformed              0         0\n  duplicate key          0         0\n"));
/// ```
pub fn kind_table(tally: &Tally) -> String {
    let mut out = format!("  {:<14}{:>10}{:>10}\n", "kind", "seen", "kept");
    for row in rows() {
        let name = row.name();
        let row = tally.row(row);
        // Writing to a String cannot fail.
        let _ = writeln!(out, "  {name:<14}{:>10}{:>10}", row.seen, row.kept);
    }
    out
}

/// The downstream's check in a loopback run: what it received against what
/// the filter kept, and whether its digest matches the frames a full decode
/// and the policy keep, with the time computing that took.
///
/// ```
/// use std::time::Duration;
/// use triage::downstream::StreamDigest;
/// use triage::judge::Judge;
/// use triage::report::check;
///
/// let got = StreamDigest { frames: 5, bytes: 20_000, hash: 7 };
/// assert_eq!(
///     check(&got, &got, 5, Judge::Optics, false, Duration::from_millis(3)),
///     "  downstream received 5 messages (5 kept), digest for digest the frames a full decode and the policy keep\n  \
///      the check took 3.0 ms, after the stream (not timed with it)\n"
/// );
/// ```
pub fn check(
    got: &StreamDigest,
    want: &StreamDigest,
    kept: u64,
    reader: Judge,
    redacted: bool,
    took: Duration,
) -> String {
    let which = match reader {
        Judge::ForwardAll => "every frame the upstream sent",
        _ => "the frames a full decode and the policy keep",
    };
    let which = if redacted {
        format!("{which}, each decoding as its issue with the reporter's email redacted")
    } else {
        which.to_owned()
    };
    let verdict = if got == want {
        format!("digest for digest {which}")
    } else {
        format!("NOT {which} ({} frames, {} B)", want.frames, want.bytes)
    };
    format!(
        "  downstream received {} messages ({kept} kept), {verdict}\n  \
         the check took {:.1} ms, after the stream (not timed with it)\n",
        got.frames,
        took.as_secs_f64() * 1e3,
    )
}

/// A tally on its own, for a stream that was stopped or has no downstream
/// check: throughput (when `elapsed` is known), bytes out and the kind table.
pub fn tally(name: &str, tally: &Tally, elapsed: Option<Duration>) -> String {
    let mut out = match elapsed {
        Some(elapsed) => throughput(name, tally, elapsed),
        None => format!(
            "{name}: {} messages, {:.1} MB in; judging took {:.1} ms\n",
            tally.messages,
            mb(tally.bytes_in),
            tally.judging.as_secs_f64() * 1e3
        ),
    };
    let _ = writeln!(
        out,
        "  kept {} messages, {:.1} MB out",
        tally.kept(),
        mb(tally.bytes_out)
    );
    out.push_str(&kind_table(tally));
    out
}

/// One run's report: throughput, the kind table and the downstream's check,
/// with a line saying so when the run does not add up.
pub fn run(run: &Run) -> String {
    run_text(&RunFacts {
        reader: run.reader,
        tally: &run.tally,
        elapsed: run.elapsed,
        cpu: run.cpu,
        sent: (run.sent.frames, run.sent.bytes),
        received: &run.received.digest,
        expected: &run.expected,
        check_took: run.check_took,
        passed: run.passed(),
        redacted: run.redacted,
    })
}

/// One HTTP/2 run's report, the same as a TCP run's ([`run`]), then what
/// the proxy held at its worst.
pub fn http2_run(run: &Http2Run) -> String {
    let mut out = run_text(&RunFacts {
        reader: run.reader,
        tally: &run.tally,
        elapsed: run.elapsed,
        cpu: run.cpu,
        sent: (run.sent, run.sent_bytes),
        received: &run.digest,
        expected: &run.expected,
        check_took: run.check_took,
        passed: run.passed(),
        redacted: false,
    });
    let _ = writeln!(
        out,
        "  the proxy held at most {} bytes of frames at once",
        run.stats.peak_held
    );
    out
}

/// What a run's report says, whatever carried it.
struct RunFacts<'a> {
    reader: Judge,
    tally: &'a Tally,
    elapsed: Duration,
    /// The process's CPU time over the run, if it could be read.
    cpu: Option<Duration>,
    /// Frames and bytes the upstream sent.
    sent: (u64, u64),
    received: &'a StreamDigest,
    expected: &'a StreamDigest,
    check_took: Duration,
    passed: bool,
    /// Whether the kept messages were redacted on their way.
    redacted: bool,
}

fn run_text(run: &RunFacts<'_>) -> String {
    let name = if run.redacted {
        format!("{}, redacting reporters' emails", run.reader.label())
    } else {
        run.reader.label().to_owned()
    };
    let mut out = throughput(&name, run.tally, run.elapsed);
    if let Some(cpu) = run.cpu {
        out.push_str(&cpu_cost(run.tally.messages, cpu, cores()));
    }
    out.push_str(&kind_table(run.tally));
    out.push_str(&check(
        run.received,
        run.expected,
        run.tally.kept(),
        run.reader,
        run.redacted,
        run.check_took,
    ));
    if !run.passed {
        let _ = writeln!(
            out,
            "  CHECK FAILED: sent {} frames ({} B); filter judged {} ({} B in) and kept {} ({} B out); \
             downstream received {} ({} B)",
            run.sent.0,
            run.sent.1,
            run.tally.messages,
            run.tally.bytes_in,
            run.tally.kept(),
            run.tally.bytes_out,
            run.received.frames,
            run.received.bytes,
        );
    }
    out
}

/// The same-run ratios of each optics filter's throughput (strict and
/// trusting) to the full decode's, forward-all's and the oracle's, from each
/// reader's messages per second. `None` unless an optics rate and at least one other
/// are given.
///
/// ```
/// use triage::judge::Judge;
/// use triage::report::ratios;
///
/// let line = ratios(&[(Judge::Optics, 90e3), (Judge::Decode, 45e3), (Judge::ForwardAll, 120e3)]);
/// assert_eq!(
///     line.as_deref(),
///     Some("same runs, throughput of optics: 2.00× decode's, 0.75× forward-all's\n")
/// );
/// ```
pub fn ratios(rates: &[(Judge, f64)]) -> Option<String> {
    let rate = |reader| {
        rates
            .iter()
            .find(|(r, _)| *r == reader)
            .map(|(_, rate)| *rate)
            .filter(|rate| rate.is_finite() && *rate > 0.0)
    };
    let mut out = String::new();
    for optics in [Judge::Optics, Judge::OpticsTrusting] {
        let Some(mine) = rate(optics) else { continue };
        let versus: Vec<String> = [Judge::Decode, Judge::ForwardAll, Judge::Oracle]
            .into_iter()
            .filter_map(|other| {
                rate(other).map(|theirs| format!("{:.2}× {other}'s", mine / theirs))
            })
            .collect();
        if !versus.is_empty() {
            let _ = writeln!(
                out,
                "same runs, throughput of {}: {}",
                optics.label(),
                versus.join(", ")
            );
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Both readers' tables and the disagreements, as `judge FILE` prints them.
pub fn judged(name: &str, judged: &Judged) -> String {
    let mut text = String::new();
    for (reader, tally) in [
        (Judge::Optics, &judged.optics),
        (Judge::Decode, &judged.decode),
    ] {
        let per_message = if tally.messages == 0 {
            0.0
        } else {
            tally.judging.as_secs_f64() * 1e6 / tally.messages as f64
        };
        let _ = writeln!(
            text,
            "{name}, {}: {} messages, {:.1} MB; judging took {per_message:.1} µs per message",
            reader.label(),
            tally.messages,
            mb(tally.bytes_in),
        );
        text.push_str(&kind_table(tally));
    }
    let _ = writeln!(
        text,
        "the readers disagree on {} of {} messages",
        judged.disagreements.len(),
        judged.optics.messages
    );
    for d in judged.disagreements.iter().take(10) {
        let _ = writeln!(text, "  {d}");
    }
    if judged.disagreements.len() > 10 {
        let _ = writeln!(text, "  ... and {} more", judged.disagreements.len() - 10);
    }
    text
}
