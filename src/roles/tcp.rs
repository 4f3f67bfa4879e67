//! The roles over bare gRPC frames on TCP (the original's mode): the
//! loopback demo, the upstream, the filter and the downstream.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::task::JoinSet;

use super::{bind, pool_for, progress, report_out, stopped, warm_up_count, warn, Scoreboard};
use crate::downstream::Verify;
use crate::exit::RunError;
use crate::filter::Filter;
use crate::judge::{by_decoding, Judge};
use crate::net::{self, NetError};
use crate::policy::Policy;
use crate::pool::Pool;
use crate::report;
use crate::shutdown::Shutdown;
use crate::timeouts::Timeouts;

/// The demo: upstream, filter and downstream on loopback, once per reader
/// ([`Judge::ALL`], then strict optics redacting) in each of `rounds`
/// rounds, `count` messages each, each after an untimed warm-up run of
/// [`warm_up_count`] messages. Prints the report as it goes, then the same-run ratios (and
/// over several rounds, each rate's and each ratio's median).
///
/// # Errors
///
/// A [`RunError`] when a run fails, a downstream check does not add up, or
/// `shutdown` stops it (then with the tally of the run it was in).
pub async fn demo(count: u64, rounds: u32, shutdown: &Shutdown) -> Result<(), RunError> {
    let start = Instant::now();
    let pool = Arc::new(pool_for(count)?);
    Scoreboard::announce("upstream", count, &pool, start.elapsed())?;
    let mut board = Scoreboard::default();
    // Every reader, and strict optics redacting what they keep, after them.
    let filters: Vec<Filter> = Judge::ALL
        .into_iter()
        .map(|reader| filter_for(reader, &pool))
        .chain([filter_for(Judge::Optics, &pool).redacting()])
        .collect();
    for round in 1..=rounds {
        board.round(round, rounds)?;
        for filter in &filters {
            let reader = filter.reader();
            let name = board.label(&if filter.redacts() {
                format!("{} (redacting)", reader.label())
            } else {
                reader.label().to_owned()
            });
            for (timed, messages) in [(false, warm_up_count(count)), (true, count)] {
                let label = if timed {
                    name.clone()
                } else {
                    format!("{name} (warm-up)")
                };
                let run = match net::loopback(pool.clone(), messages, filter, shutdown.token())
                    .await
                {
                    Ok(run) => run,
                    Err(NetError::Stopped(tally)) => {
                        // Stopped by a signal: its exit code whatever
                        // becomes of the tally.
                        let tally =
                            report::tally(&format!("stopped during {label}; so far"), &tally, None);
                        let _ = report_out("demo", format_args!("\n{tally}"));
                        return Err(stopped(shutdown, "demo"));
                    }
                    Err(err) => return Err(RunError::failed(format!("{label}: {err}"))),
                };
                if timed {
                    report_out("demo", format_args!("{}", report::run(&run)))?;
                }
                // The same-run ratios compare the readers; redaction is shown
                // by its own run.
                let rate =
                    (timed && !filter.redacts()).then(|| (reader, run.messages_per_second()));
                board.record(&label, run.passed(), rate);
            }
        }
    }
    board.finish()
}

/// The demo's filter for `reader` on a stream of `pool`'s messages; for the
/// oracle, with every distinct message's verdict decoded in advance.
pub fn filter_for(reader: Judge, pool: &Pool) -> Filter {
    let policy = Policy::default();
    match reader {
        Judge::Oracle => {
            let verdicts = (0..pool.distinct() as u64)
                .map(|i| by_decoding(&policy, &pool.message(i)))
                .collect();
            Filter::oracle(policy, verdicts)
        }
        reader => Filter::new(reader, policy),
    }
}

/// The upstream role: serves `count` frames to every connection on
/// `listen`, each on its own task, so a slow client delays no other. On a
/// signal it stops accepting, lets every connection end at a frame boundary,
/// and returns the signal's exit code.
///
/// # Errors
///
/// A [`RunError`] when it cannot listen, or after a signal.
pub async fn upstream(
    listen: &str,
    count: u64,
    timeouts: Timeouts,
    shutdown: &Shutdown,
) -> Result<(), RunError> {
    let pool = Arc::new(pool_for(count)?);
    let listener = bind(listen, "upstream").await?;
    let addr = net::local_addr(&listener, "upstream").map_err(RunError::failed)?;
    progress(format_args!(
        "upstream: listening on {addr}; {count} frames ({:.1} MB) per connection, cycling {} \
         distinct issues\n",
        pool.wire_len(count) as f64 / 1e6,
        pool.distinct()
    ));
    let stop = shutdown.token();
    let mut clients = JoinSet::new();
    let mut served = 0u64;
    loop {
        tokio::select! {
            () = stop.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    let (pool, stop) = (pool.clone(), stop.clone());
                    clients.spawn(async move {
                        net::serve(stream, peer, &pool, count, &stop, timeouts.write).await
                    });
                }
                Err(err) => {
                    warn(format_args!(
                        "upstream: accepting a connection on {addr}: {err}\n"
                    ));
                    // An accept that fails (out of file descriptors, say)
                    // would fail again at once: let it settle.
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
            Some(done) = clients.join_next() => served += report_served(done),
        }
    }
    while let Some(done) = clients.join_next().await {
        served += report_served(done);
    }
    progress(format_args!(
        "upstream: stopped after serving {served} connections\n"
    ));
    Err(stopped(shutdown, "upstream"))
}

/// Prints what one upstream connection got; 1 if it was served whole.
fn report_served(done: Result<Result<net::Sent, NetError>, tokio::task::JoinError>) -> u64 {
    match done {
        Ok(Ok(sent)) => {
            progress(format_args!(
                "upstream: sent {} frames ({:.1} MB) to {} in {:.2} s\n",
                sent.frames,
                sent.bytes as f64 / 1e6,
                sent.peer,
                sent.took.as_secs_f64()
            ));
            1
        }
        Ok(Err(err)) => {
            warn(format_args!("{err}\n"));
            0
        }
        Err(err) => {
            warn(format_args!(
                "upstream: a connection's task failed: {err}\n"
            ));
            0
        }
    }
}

/// The filter role: connects to the upstream and the downstream, runs
/// `filter` between them until the upstream ends or a signal stops it
/// gracefully, and prints the tally, headed by its reader (and whether it
/// redacts).
///
/// # Errors
///
/// A [`RunError`] when a connection or the stream fails (the tally of what
/// was done is printed first), or after a signal.
pub async fn filter(
    upstream: &str,
    downstream: &str,
    filter: &Filter,
    shutdown: &Shutdown,
) -> Result<(), RunError> {
    let name = match filter.redacts() {
        true => format!("filter ({}, redacting reporters' emails)", filter.reader()),
        false => format!("filter ({})", filter.reader()),
    };
    let start = Instant::now();
    match net::filter_between(filter, upstream, downstream, shutdown.token()).await {
        Ok(tally) if shutdown.is_stopping() => {
            let name = format!("{name}, stopped by {}", shutdown.signal_name());
            let text = report::tally(&name, &tally, Some(start.elapsed()));
            // The signal's exit code, whether or not the tally is written.
            let _ = report_out("filter", format_args!("{text}"));
            Err(stopped(shutdown, "filter"))
        }
        Ok(tally) => {
            let text = report::tally(&name, &tally, Some(start.elapsed()));
            report_out("filter", format_args!("{text}"))
        }
        Err(err) => {
            if let NetError::Filter(failed) = &err {
                // The stream's own failure is the one to report.
                let text = report::tally(&name, &failed.tally, Some(start.elapsed()));
                let _ = report_out("filter", format_args!("{text}"));
            }
            Err(RunError::failed(err))
        }
    }
}

/// The downstream role: receives one stream on `listen`, checking each
/// message as it arrives: every message should decode as an issue that the
/// policy keeps. Memory stays constant. On a signal it stops reading and
/// reports what it checked.
///
/// # Errors
///
/// A [`RunError`] when it cannot listen or read, when any message received
/// fails the check, or after a signal.
pub async fn downstream(listen: &str, shutdown: &Shutdown) -> Result<(), RunError> {
    let listener = bind(listen, "downstream").await?;
    let addr = net::local_addr(&listener, "downstream").map_err(RunError::failed)?;
    progress(format_args!("downstream: listening on {addr}\n"));
    let verify = Verify::Decode(Policy::default());
    let (peer, received) = match net::receive_one(&listener, &verify, shutdown.token()).await {
        Ok(received) => received,
        Err(NetError::Stopped(_)) => return Err(stopped(shutdown, "downstream")),
        Err(err) => return Err(RunError::failed(err)),
    };
    let check = received.check.unwrap_or_default();
    report_out(
        "downstream",
        format_args!(
            "downstream: received {} messages ({:.1} MB) from {peer} in {:.2} s{}\n  \
             {} decode as issues, and the policy keeps {} of them\n",
            received.frames(),
            received.bytes() as f64 / 1e6,
            received.took().as_secs_f64(),
            if received.stopped {
                ", then was stopped"
            } else {
                ""
            },
            check.decoded,
            check.kept
        ),
    )?;
    if check.decoded != received.frames() || check.kept != received.frames() {
        return Err(RunError::failed(format!(
            "downstream: check failed: of {} messages received, {} do not decode as issues \
             and {} more are not kept by the policy",
            received.frames(),
            received.frames() - check.decoded,
            check.decoded - check.kept
        )));
    }
    if received.stopped {
        return Err(stopped(shutdown, "downstream"));
    }
    Ok(())
}
