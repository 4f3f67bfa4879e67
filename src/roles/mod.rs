//! The demo's roles as the command line runs them: over bare TCP frames
//! ([`tcp`]: the loopback demo, upstream, filter, downstream), over gRPC on
//! HTTP/2 ([`http2`]: the loopback demo, the tonic upstream and downstream,
//! the proxy), and the two file commands ([`files`]: `generate`, `judge`).
//! Each prints its progress and returns a [`RunError`] (with its exit code)
//! when it does not succeed; the texts of tables and reports come from
//! [`crate::report`].
//!
//! Every async role watches one [`Shutdown`] for the whole process: on SIGINT
//! or SIGTERM it stops gracefully (no frame is torn), prints what it did, and
//! returns the signal's exit code.

pub mod files;
pub mod http2;
pub mod tcp;

pub use files::{generate, generate_file, judge_file};
pub use tcp::{demo, downstream, filter, filter_for, upstream};

use std::fmt;
use std::io::{self, Write};
use std::time::Duration;

use tokio::net::TcpListener;

use crate::exit::{RunError, EXIT_INTERRUPTED};
use crate::judge::Judge;
use crate::pool::{Pool, DEFAULT_DISTINCT, MESSAGE_SIZE, SEED};
use crate::report;
use crate::shutdown::Shutdown;

/// The most messages an untimed warm-up run streams.
pub const WARM_UP_CAP: u64 = 20_000;

/// The messages of an untimed warm-up run before a timed run of `count`:
/// a tenth of it, at most [`WARM_UP_CAP`], at least 1.
pub fn warm_up_count(count: u64) -> u64 {
    (count / 10).clamp(1, WARM_UP_CAP)
}

/// A multi-threaded tokio runtime for an async role.
///
/// # Errors
///
/// A [`RunError`] when the runtime cannot start.
pub fn runtime() -> Result<tokio::runtime::Runtime, RunError> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|err| RunError::failed(format!("cannot start the tokio runtime: {err}")))
}

/// Listens for the process's signals; see [`Shutdown::on_signals`].
///
/// # Errors
///
/// A [`RunError`] when the handlers cannot be installed.
pub fn signals() -> Result<Shutdown, RunError> {
    Shutdown::on_signals()
        .map_err(|err| RunError::failed(format!("cannot listen for signals: {err}")))
}

/// Writes to stdout, locked, and flushes: an error (a reader that closed
/// the pipe, say) is returned, never a panic.
fn write_stdout(args: fmt::Arguments<'_>) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_fmt(args)?;
    out.flush()
}

/// Writes a progress line (a server listening, a connection served): a
/// stdout that cannot be written is ignored, so that a reader that went
/// away (`| head -1`) stops no server.
pub(crate) fn progress(args: fmt::Arguments<'_>) {
    let _ = write_stdout(args);
}

/// Writes a line to stderr (a warning, a connection that failed): a stderr
/// that cannot be written is ignored, as for the progress lines, so that a
/// closed stderr stops no server and changes no exit code.
pub fn warn(args: fmt::Arguments<'_>) {
    let _ = io::stderr().lock().write_fmt(args);
}

/// Writes part of `role`'s report: a stdout that cannot be written fails
/// the run ([`crate::exit::EXIT_FAILURE`]), as the report is what the run
/// was for.
///
/// # Errors
///
/// A [`RunError`] naming the role and the i/o error.
pub(crate) fn report_out(role: &str, args: fmt::Arguments<'_>) -> Result<(), RunError> {
    write_stdout(args).map_err(|err| {
        RunError::failed(format!("{role}: cannot write the report to stdout: {err}"))
    })
}

/// The error a role returns after a graceful stop: the signal's exit code.
pub(crate) fn stopped(shutdown: &Shutdown, role: &str) -> RunError {
    RunError {
        code: shutdown.exit_code().unwrap_or(EXIT_INTERRUPTED),
        message: format!("{role}: stopped by {}", shutdown.signal_name()),
    }
}

pub(crate) async fn bind(addr: &str, role: &str) -> Result<TcpListener, RunError> {
    TcpListener::bind(addr)
        .await
        .map_err(|err| RunError::failed(format!("{role}: cannot listen on {addr}: {err}")))
}

/// The issues a stream of `count` messages cycles through.
pub(crate) fn pool_for(count: u64) -> Result<Pool, RunError> {
    let distinct = usize::try_from(count)
        .unwrap_or(usize::MAX)
        .min(DEFAULT_DISTINCT);
    Pool::generate(SEED, MESSAGE_SIZE, distinct).map_err(RunError::failed)
}

/// What the demo's runs add up to: each reader's rate in its timed run, and
/// the runs whose check failed. Shared by the TCP and the HTTP/2 demo.
#[derive(Debug, Default)]
pub(crate) struct Scoreboard {
    /// Each round's timed rates, by reader.
    rounds: Vec<Vec<(Judge, f64)>>,
    /// Whether the demo runs several rounds.
    several: bool,
    failed: Vec<String>,
}

impl Scoreboard {
    /// Starts round `round` of `rounds` (from 1): a heading when there are
    /// several.
    pub(crate) fn round(&mut self, round: u32, rounds: u32) -> Result<(), RunError> {
        self.several = rounds > 1;
        self.rounds.push(Vec::new());
        if self.several {
            report_out("demo", format_args!("== round {round} of {rounds}\n\n"))?;
        }
        Ok(())
    }

    /// What the report calls the filter `name`'s run: with its round when
    /// there are several.
    pub(crate) fn label(&self, name: &str) -> String {
        match self.several {
            true => format!("{name}, round {}", self.rounds.len()),
            false => name.to_owned(),
        }
    }

    /// Prints the demo's first lines: what the upstream streams, and the
    /// warm-up.
    pub(crate) fn announce(
        upstream: &str,
        count: u64,
        pool: &Pool,
        generated: Duration,
    ) -> Result<(), RunError> {
        report_out(
            "demo",
            format_args!(
                "{upstream}: {count} messages per run, cycling {} distinct issues (size \
                 {MESSAGE_SIZE}, {:.0} B on average; generated in {:.2} s)\n\
                 each filter first runs untimed on {} messages (a tenth, at most {WARM_UP_CAP}) \
                 to warm up\n\n",
                pool.distinct(),
                pool.mean_message_len(),
                generated.as_secs_f64(),
                warm_up_count(count)
            ),
        )
    }

    /// Notes one run: whether its check passed, and, for a timed run, the
    /// reader's rate. A run whose check failed gives no rate: it did not do
    /// the work the others did, so no ratio or median counts it.
    pub(crate) fn record(&mut self, label: &str, passed: bool, timed: Option<(Judge, f64)>) {
        if self.rounds.is_empty() {
            self.rounds.push(Vec::new());
        }
        if !passed {
            self.failed.push(label.to_owned());
            return;
        }
        if let Some(round) = self.rounds.last_mut() {
            round.extend(timed);
        }
    }

    /// Prints the same-run ratios of each round, then, over several rounds,
    /// the medians, all from the runs whose check passed; fails, naming
    /// them, if any run's check did.
    pub(crate) fn finish(self) -> Result<(), RunError> {
        for (round, rates) in (1..).zip(&self.rounds) {
            for line in report::ratios(rates).iter().flat_map(|text| text.lines()) {
                match self.several {
                    true => report_out("demo", format_args!("round {round}: {line}\n"))?,
                    false => report_out("demo", format_args!("{line}\n"))?,
                }
            }
        }
        if let Some(text) = report::ratio_medians(&self.rounds) {
            report_out("demo", format_args!("\n{text}"))?;
        }
        if self.failed.is_empty() {
            Ok(())
        } else {
            report_out(
                "demo",
                format_args!(
                    "the downstream check failed for {}: no rate of theirs is in the ratios\n",
                    self.failed.join(", ")
                ),
            )?;
            Err(RunError::failed(format!(
                "the downstream check failed for {}",
                self.failed.join(", ")
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_whose_check_failed_gives_no_rate_to_the_ratios() {
        let mut board = Scoreboard::default();
        board.round(1, 1).unwrap();
        // A filter that forwarded the wrong frames, fast.
        board.record("optics", false, Some((Judge::Optics, 9e6)));
        board.record("oracle", true, Some((Judge::Oracle, 1e6)));
        assert_eq!(board.rounds, [vec![(Judge::Oracle, 1e6)]]);
        assert_eq!(report::ratios(&board.rounds[0]), None);
        assert_eq!(board.failed, ["optics"]);
    }
}
