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

use tokio::net::TcpListener;

use crate::exit::{RunError, EXIT_INTERRUPTED};
use crate::pool::{Pool, DEFAULT_DISTINCT, MESSAGE_SIZE, SEED};
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
