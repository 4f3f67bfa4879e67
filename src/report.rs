//! The demo's report: per run, throughput, time spent judging, the CPU
//! time the whole process spent (where it can be read), a per-kind table
//! and the downstream's check; then the same-run ratios between the
//! filters.
//!
//! ```text
//! optics: 200000 messages, 834.0 MB in 0.46 s:
//!   434 k messages/s, 1809 MB/s
//!   judging them took 1.0 µs per message, summed over the judges (side by side, so more than the wall time a message is possible)
//!   the process used 3.9 µs of CPU per message, every role together: at that cost 2 cores sustain at most 513 k messages/s
//!   the process faulted 412 pages in, 0.002 a message (memory touched for the first time, every role together)
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

use crate::cpu;
use crate::downstream::StreamDigest;
use crate::judge::{Judge, Judged};
use crate::net::Run;
use crate::proxy::Http2Run;
use crate::tally::{rows, CallEnd, Tally};

/// `bytes` in MB (10^6 bytes).
fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

/// Seconds, never zero, so rates stay finite.
fn seconds(elapsed: Duration) -> f64 {
    elapsed.as_secs_f64().max(1e-9)
}

/// The first three lines of a run: what went through and how fast, and the
/// time spent judging, a message: the judges' time summed (each batch's
/// time in its judge task), not a share of the wall time, since the judges
/// work side by side with each other and with reading and writing.
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
///      judging them took 1.0 µs per message, summed over the judges \
///      (side by side, so more than the wall time a message is possible)\n"
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
         judging them took {per_message:.1} µs per message, summed over the judges \
         (side by side, so more than the wall time a message is possible)\n",
        tally.messages,
        mb(tally.bytes_in),
        tally.messages as f64 / secs / 1e3,
        mb(tally.bytes_in) / secs,
    )
}

/// What a run cost the whole process in CPU time, per message, and the rate
/// `cores` could sustain at that cost: the demo's roles share the process,
/// so this bounds its throughput whatever the filter does. Nothing for a
/// run without messages. A run that used under [`cpu::MIN_TICKS`] ticks of
/// the clock ([`cpu::TICK`]) is said to be too short to measure: its figure
/// is off by up to a tick, and a sustain figure from it would be false.
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
/// assert!(cpu_cost(1000, Duration::from_millis(500), 1).ends_with("1 core sustains at most 2 k messages/s\n"));
/// assert_eq!(
///     cpu_cost(1, Duration::ZERO, 2),
///     "  the run was too short to measure its CPU cost: the process used 0 ms of CPU, \
///      under the 100 ms (10 ticks of 10 ms) the clock measures it to a tenth\n"
/// );
/// assert_eq!(cpu_cost(0, Duration::from_millis(400), 2), "");
/// ```
pub fn cpu_cost(messages: u64, cpu: Duration, cores: usize) -> String {
    if messages == 0 {
        return String::new();
    }
    let least = cpu::TICK * cpu::MIN_TICKS;
    if cpu < least {
        return format!(
            "  the run was too short to measure its CPU cost: the process used {} ms of CPU, \
             under the {} ms ({} ticks of {} ms) the clock measures it to a tenth\n",
            cpu.as_millis(),
            least.as_millis(),
            cpu::MIN_TICKS,
            cpu::TICK.as_millis()
        );
    }
    let per_message = cpu.as_secs_f64() * 1e6 / messages as f64;
    let most = cores as f64 / per_message * 1e3;
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

/// The line saying how many pages the process faulted in a message over a
/// run (every role together; see [`crate::malloc`] for why it can be
/// many), or nothing for a run without messages.
///
/// ```
/// use triage::report::page_faults;
///
/// assert_eq!(
///     page_faults(200_000, 4_000),
///     "  the process faulted 4000 pages in, 0.020 a message \
///      (memory touched for the first time, every role together)\n"
/// );
/// assert_eq!(page_faults(0, 10), "");
/// ```
pub fn page_faults(messages: u64, faults: u64) -> String {
    if messages == 0 {
        return String::new();
    }
    format!(
        "  the process faulted {faults} pages in, {:.3} a message \
         (memory touched for the first time, every role together)\n",
        faults as f64 / messages as f64
    )
}

/// The cores the process may run on (1 if that cannot be told).
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// The per-kind table: a header and one row per kind, then `none` (messages
/// without a kind) and one row per flaw (`malformed`, `duplicate key`),
/// indented by two spaces; then, when a redacting filter dropped kept
/// messages it could not redact, a `not redactable` row that says so
/// (those messages are in their kinds' rows too, as seen and not kept).
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
    if tally.unredactable > 0 {
        let _ = writeln!(
            out,
            "  not redactable{:>10}{:>10}   (kept by the policy, dropped: no reporter's email to redact, its `reporter` or `email` key given twice, or redacted past the 4 MiB message limit; counted in their kinds too)",
            tally.unredactable, 0
        );
    }
    out
}

/// The proxy's calls: first a line that says plainly whether the proxy
/// ended any call itself, how many and why, then one row per [`CallEnd`]
/// with what the client got. Nothing when no call was counted (the TCP
/// filter).
///
/// ```
/// use triage::tally::{CallEnd, Tally};
/// use triage::report::call_table;
///
/// let mut tally = Tally::default();
/// assert_eq!(call_table(&tally), "");
/// tally.end_call(CallEnd::UpstreamOk);
/// tally.end_call(CallEnd::Compressed);
/// tally.end_call(CallEnd::Compressed);
/// let table = call_table(&tally);
/// assert!(table.starts_with(
///     "  FAILED: the proxy ended 2 of 3 calls itself: 2 compressed frame\n  \
///      call ended                  calls   the client got\n"
/// ));
/// assert!(table.contains("\n  compressed frame                2   INTERNAL (13)\n"));
/// ```
pub fn call_table(tally: &Tally) -> String {
    let total = tally.calls_total();
    if total == 0 {
        return String::new();
    }
    let failed = tally.calls_failed();
    let mut out = if failed == 0 {
        format!("  no call failed at the proxy: it ended none of the {total} calls itself\n")
    } else {
        let why: Vec<String> = CallEnd::ALL
            .into_iter()
            .filter(|end| end.by_proxy() && tally.calls_ended(*end) > 0)
            .map(|end| format!("{} {}", tally.calls_ended(end), end.name()))
            .collect();
        format!(
            "  FAILED: the proxy ended {failed} of {total} calls itself: {}\n",
            why.join(", ")
        )
    };
    out.push_str(&format!(
        "  {:<25}{:>8}   {}\n",
        "call ended", "calls", "the client got"
    ));
    for end in CallEnd::ALL {
        let _ = writeln!(
            out,
            "  {:<25}{:>8}   {}",
            end.name(),
            tally.calls_ended(end),
            end.answer()
        );
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
/// check: throughput (when `elapsed` is known), bytes out, for the proxy
/// its calls ([`call_table`]), and the kind table.
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
    if tally.unwritten == 0 {
        let _ = writeln!(
            out,
            "  kept {} messages, {:.1} MB out",
            tally.kept(),
            mb(tally.bytes_out)
        );
    } else {
        let _ = writeln!(
            out,
            "  kept {} messages by the policy, {} written before the run failed \
             ({} never written), {:.1} MB out",
            tally.kept(),
            tally.written(),
            tally.unwritten,
            mb(tally.bytes_out)
        );
    }
    out.push_str(&call_table(tally));
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
        faults: run.faults,
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
        faults: run.faults,
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
    /// The minor page faults the process took over the run, if they could
    /// be read.
    faults: Option<u64>,
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
    if let Some(faults) = run.faults {
        out.push_str(&page_faults(run.tally.messages, faults));
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

/// The same-run ratios of each optics filter's throughput (strict,
/// trusting, and validating what it keeps) to the full decode's,
/// forward-all's and the oracle's, from each reader's messages per second
/// (the demo gives only the runs whose downstream check passed). `None` unless an optics rate and at least one other
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
    let mut out = String::new();
    for optics in OPTICS {
        let versus: Vec<String> = PEERS
            .into_iter()
            .filter_map(|other| {
                same_run(rates, optics, other).map(|ratio| format!("{ratio:.2}× {other}'s"))
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

/// The filters whose throughput the ratios are of.
const OPTICS: [Judge; 3] = [
    Judge::Optics,
    Judge::OpticsTrusting,
    Judge::OpticsValidatingKept,
];
/// The filters they are compared with.
const PEERS: [Judge; 3] = [Judge::Decode, Judge::ForwardAll, Judge::Oracle];

/// `reader`'s rate among `rates`, if it is there, finite and positive.
fn rate_of(rates: &[(Judge, f64)], reader: Judge) -> Option<f64> {
    rates
        .iter()
        .find(|(r, _)| *r == reader)
        .map(|(_, rate)| *rate)
        .filter(|rate| rate.is_finite() && *rate > 0.0)
}

/// `optics`'s rate over `other`'s, both from the same runs.
fn same_run(rates: &[(Judge, f64)], optics: Judge, other: Judge) -> Option<f64> {
    Some(rate_of(rates, optics)? / rate_of(rates, other)?)
}

/// The median of `values` (the mean of the two middle ones for an even
/// count); `None` for none.
fn median(mut values: Vec<f64>) -> Option<f64> {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(values[n / 2]),
        _ => Some((values[n / 2 - 1] + values[n / 2]) / 2.0),
    }
}

/// Over several rounds of the demo (each the rates of one round's runs):
/// every filter's messages a second, round by round and their median, then
/// each same-run ratio of [`ratios`] round by round and its median (the
/// median of the ratios, not the ratio of the medians). `None` for fewer
/// than two rounds with rates.
///
/// ```
/// use triage::judge::Judge;
/// use triage::report::ratio_medians;
///
/// let rounds = [
///     vec![(Judge::Optics, 90e3), (Judge::Decode, 45e3)],
///     vec![(Judge::Optics, 80e3), (Judge::Decode, 50e3)],
///     vec![(Judge::Optics, 99e3), (Judge::Decode, 33e3)],
/// ];
/// assert_eq!(
///     ratio_medians(&rounds).as_deref(),
///     Some(
///         "over 3 rounds, messages a second (each round, median):\n  \
///          optics: 90.0 k / 80.0 k / 99.0 k, 90.0 k\n  \
///          decode: 45.0 k / 50.0 k / 33.0 k, 45.0 k\n\
///          over 3 rounds, same-run ratios (each round, median):\n  \
///          optics / decode: 2.00 / 1.60 / 3.00, 2.00×\n"
///     )
/// );
/// ```
pub fn ratio_medians(rounds: &[Vec<(Judge, f64)>]) -> Option<String> {
    let rounds: Vec<&Vec<(Judge, f64)>> = rounds.iter().filter(|r| !r.is_empty()).collect();
    if rounds.len() < 2 {
        return None;
    }
    let n = rounds.len();
    let mut out = format!("over {n} rounds, messages a second (each round, median):\n");
    for reader in Judge::ALL {
        let each: Vec<f64> = rounds.iter().filter_map(|r| rate_of(r, reader)).collect();
        let listed: Vec<String> = each
            .iter()
            .map(|rate| format!("{:.1} k", rate / 1e3))
            .collect();
        let Some(middle) = median(each) else {
            continue;
        };
        let _ = writeln!(
            out,
            "  {reader}: {}, {:.1} k",
            listed.join(" / "),
            middle / 1e3
        );
    }
    let mut lines = String::new();
    for optics in OPTICS {
        for other in PEERS {
            let each: Vec<f64> = rounds
                .iter()
                .filter_map(|r| same_run(r, optics, other))
                .collect();
            let listed: Vec<String> = each.iter().map(|ratio| format!("{ratio:.2}")).collect();
            let Some(middle) = median(each) else {
                continue;
            };
            let _ = writeln!(
                lines,
                "  {optics} / {other}: {}, {middle:.2}×",
                listed.join(" / ")
            );
        }
    }
    if !lines.is_empty() {
        let _ = writeln!(
            out,
            "over {n} rounds, same-run ratios (each round, median):"
        );
        out.push_str(&lines);
    }
    Some(out)
}

/// Both readers' tables and the disagreements, as `judge FILE` prints them;
/// one line instead when no frame was judged (an empty input, or a framing
/// error in the first frame, which the caller reports).
pub fn judged(name: &str, judged: &Judged) -> String {
    if judged.optics.messages == 0 {
        return match judged.error {
            None => format!("{name}: empty, no frames to judge\n"),
            Some(_) => format!("{name}: no frame judged\n"),
        };
    }
    let mut text = String::new();
    for (reader, tally) in [
        (Judge::Optics, &judged.optics),
        (Judge::Decode, &judged.decode),
    ] {
        let per_message = tally.judging.as_secs_f64() * 1e6 / tally.messages as f64;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cpu_time_under_ten_ticks_gives_no_cost_and_no_sustain_figure() {
        // What `grpc_filter 1` measured: no tick at all.
        let none = cpu_cost(1, Duration::ZERO, 2);
        assert!(none.contains("too short to measure its CPU cost"), "{none}");
        assert!(!none.contains("sustain"), "{none}");
        // Nine ticks: still under.
        let nine = cpu_cost(3000, Duration::from_millis(90), 2);
        assert!(
            nine.contains("used 90 ms of CPU, under the 100 ms"),
            "{nine}"
        );
        assert!(!nine.contains("sustain"), "{nine}");
        // Ten ticks: measured, and the bound follows from it.
        let ten = cpu_cost(3000, Duration::from_millis(100), 2);
        assert_eq!(
            ten,
            "  the process used 33.3 µs of CPU per message, every role together: \
             at that cost 2 cores sustain at most 60 k messages/s\n"
        );
    }

    #[test]
    fn judging_summed_over_the_judges_is_not_called_a_share_of_the_wall_time() {
        // The README's full decode run: 200,000 messages in 1.73 s of wall
        // time (8.65 µs each), 14.5 µs of judging each, summed over two
        // judges working side by side.
        let tally = Tally {
            messages: 200_000,
            bytes_in: 834_000_000,
            judging: Duration::from_millis(2_900),
            ..Tally::default()
        };
        let text = throughput("full decode", &tally, Duration::from_millis(1_730));
        assert!(
            text.contains("judging them took 14.5 µs per message"),
            "{text}"
        );
        assert!(!text.contains("the rest is"), "{text}");
        assert!(text.contains("summed over the judges"), "{text}");
    }

    #[test]
    fn the_median_of_an_even_count_is_the_mean_of_the_middle_two() {
        assert_eq!(median(vec![]), None);
        assert_eq!(median(vec![3.0]), Some(3.0));
        assert_eq!(median(vec![4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(vec![5.0, 1.0, 3.0]), Some(3.0));
    }

    #[test]
    fn medians_need_two_rounds_and_skip_what_a_round_lacks() {
        let one = vec![(Judge::Optics, 2.0), (Judge::Decode, 1.0)];
        assert_eq!(ratio_medians(std::slice::from_ref(&one)), None);
        assert_eq!(ratio_medians(&[one, Vec::new()]), None);
        // The oracle only in the second round, forward-all's rate not
        // finite in the first: each ratio is over the rounds that have both.
        let rounds = [
            vec![
                (Judge::Optics, 300.0),
                (Judge::Decode, 100.0),
                (Judge::ForwardAll, f64::NAN),
            ],
            vec![
                (Judge::Optics, 200.0),
                (Judge::Decode, 100.0),
                (Judge::ForwardAll, 400.0),
                (Judge::Oracle, 800.0),
            ],
        ];
        let text = ratio_medians(&rounds).unwrap();
        assert!(
            text.contains("  optics / decode: 3.00 / 2.00, 2.50×\n"),
            "{text}"
        );
        assert!(
            text.contains("  optics / forward-all: 0.50, 0.50×\n"),
            "{text}"
        );
        assert!(text.contains("  optics / oracle: 0.25, 0.25×\n"), "{text}");
        assert!(text.contains("  oracle: 0.8 k, 0.8 k\n"), "{text}");
        assert!(!text.contains("--trust-input"), "{text}");
    }
}
