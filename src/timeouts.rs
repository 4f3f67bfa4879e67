//! Every wait the demo's TCP roles make has a bound: the defaults are named
//! here, and the command line can change each one.

use std::time::Duration;

/// How long a connect may take before the filter gives up.
pub const DEFAULT_CONNECT: Duration = Duration::from_secs(10);

/// How long a stream may stay silent while a frame is part-way through.
/// Between frames a stream may be quiet for as long as it likes.
pub const DEFAULT_IDLE: Duration = Duration::from_secs(30);

/// How long one write of a batch (at most one read's frames, about 256 KiB,
/// or one frame of up to 4 MiB) may take: a downstream that stops reading
/// fails the stream after this.
pub const DEFAULT_WRITE: Duration = Duration::from_secs(30);

/// The bounds on a stream's waits. `None` waits forever.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeouts {
    /// Connecting to the upstream or the downstream.
    pub connect: Option<Duration>,
    /// No byte from the upstream while a frame is part-way through.
    pub idle: Option<Duration>,
    /// Writing one batch to the downstream (or, for the upstream role, one
    /// cycle of its pool to a client).
    pub write: Option<Duration>,
}

impl Default for Timeouts {
    /// [`DEFAULT_CONNECT`], [`DEFAULT_IDLE`] and [`DEFAULT_WRITE`].
    fn default() -> Timeouts {
        Timeouts {
            connect: Some(DEFAULT_CONNECT),
            idle: Some(DEFAULT_IDLE),
            write: Some(DEFAULT_WRITE),
        }
    }
}

impl Timeouts {
    /// No bound on any wait.
    pub const NONE: Timeouts = Timeouts {
        connect: None,
        idle: None,
        write: None,
    };
}

/// Runs `future` within `limit` (`None`: no limit); a late one gives a
/// [`std::io::ErrorKind::TimedOut`] error that says what was being waited for.
///
/// # Errors
///
/// The future's own error, or the timeout.
pub async fn within<T>(
    limit: Option<Duration>,
    what: impl FnOnce() -> String,
    future: impl std::future::Future<Output = std::io::Result<T>>,
) -> std::io::Result<T> {
    match limit {
        None => future.await,
        Some(limit) => match tokio::time::timeout(limit, future).await {
            Ok(result) => result,
            Err(_) => Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!("{} took longer than {limit:?}", what()),
            )),
        },
    }
}
