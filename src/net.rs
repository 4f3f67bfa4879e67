//! The demo's three roles over TCP, and a run of all three on loopback.
//!
//! ```text
//! upstream (listens) <--connect-- filter --connect--> downstream (listens)
//!     frames ----------------------> judge ------------> kept frames
//! ```
//!
//! - The **upstream** listens and streams a fixed number of frames to each
//!   connection ([`serve`]), cycling through a [`Pool`] of messages framed
//!   in advance, then closes its write side.
//! - The **filter** listens for nothing: it connects to the upstream and to
//!   the downstream and runs a [`Filter`] between them
//!   ([`filter_between`]).
//! - The **downstream** accepts one connection, keeps every frame it
//!   receives and, once the stream has ended (off the timed path), checks
//!   them: each should decode as an [`Issue`] the policy keeps
//!   ([`Received::check`]).
//!
//! [`loopback`] runs the three on `127.0.0.1` with ephemeral ports and
//! times the stream from the filter's first connect to the downstream's end
//! of stream.

use std::error::Error;
use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

use crate::filter::{AbortOnDrop, Filter, FilterError};
use crate::frames::BatchReader;
use crate::frames::{Frame, FrameError};
use crate::judge::Judge;
use crate::model::Issue;
use crate::policy::Policy;
use crate::pool::Pool;
use crate::tally::Tally;
use crate::timeouts::{within, Timeouts};

/// What the upstream sent to one connection.
#[derive(Clone, Copy, Debug)]
pub struct Sent {
    /// Who connected.
    pub peer: SocketAddr,
    /// Frames sent.
    pub frames: u64,
    /// Bytes sent, headers included.
    pub bytes: u64,
    /// From the accept to the close of the write side.
    pub took: Duration,
}

/// The upstream role, for one connection: streams `count` frames of `pool`
/// to `stream`, then closes its write side. Once `stop` is cancelled it stops
/// at the next cycle of the pool (a frame boundary) and closes as usual.
/// Each write (a cycle of the pool, about 4 MB) must end within
/// `write_timeout`.
///
/// # Errors
///
/// [`NetError::Io`] when writing fails (a peer that goes away early, or
/// stops reading, say).
pub async fn serve(
    mut stream: TcpStream,
    peer: SocketAddr,
    pool: &Pool,
    count: u64,
    stop: &CancellationToken,
    write_timeout: Option<Duration>,
) -> Result<Sent, NetError> {
    let start = Instant::now();
    // Best effort: without it only the last segment may wait for an ack.
    let _ = stream.set_nodelay(true);
    let (frames, bytes) = pool
        .write_to(&mut stream, count, stop, write_timeout)
        .await
        .map_err(|err| NetError::io(format!("upstream: writing to {peer}"), err))?;
    stream
        .shutdown()
        .await
        .map_err(|err| NetError::io(format!("upstream: closing the stream to {peer}"), err))?;
    Ok(Sent {
        peer,
        frames,
        bytes,
        took: start.elapsed(),
    })
}

/// The upstream role, once: accepts one connection and [`serve`]s it.
///
/// # Errors
///
/// [`NetError::Io`] when accepting or writing fails.
pub async fn serve_one(
    listener: &TcpListener,
    pool: &Pool,
    count: u64,
    stop: &CancellationToken,
) -> Result<Sent, NetError> {
    let (stream, peer) = listener
        .accept()
        .await
        .map_err(|err| NetError::io("upstream: accepting a connection", err))?;
    serve(stream, peer, pool, count, stop, Timeouts::default().write).await
}

/// Connects to `addr` for the filter within `timeout`, saying which side
/// (`"upstream"` or `"downstream"`) failed if it does.
///
/// # Errors
///
/// [`NetError::Io`] naming the side and the address, for a refused or
/// timed-out connect.
pub async fn connect(
    addr: &str,
    side: &str,
    timeout: Option<Duration>,
) -> Result<TcpStream, NetError> {
    let context = || format!("filter: connecting to the {side} at {addr}");
    let stream = within(
        timeout,
        || "the connect".to_owned(),
        TcpStream::connect(addr),
    )
    .await
    .map_err(|err| NetError::io(context(), err))?;
    let _ = stream.set_nodelay(true);
    Ok(stream)
}

/// The filter role: connects to the upstream and the downstream and runs
/// `filter` between them until the upstream ends. Returns the stream's
/// tally. When `stop` is cancelled the filter stops gracefully (see
/// [`Filter::run`]) and returns what it did until then.
///
/// # Errors
///
/// [`NetError::Io`] when a connection fails, [`NetError::Filter`] (with the
/// tally so far) when the stream does.
pub async fn filter_between(
    filter: &Filter,
    upstream: &str,
    downstream: &str,
    stop: &CancellationToken,
) -> Result<Tally, NetError> {
    let timeout = filter.timeouts().connect;
    let up = connect(upstream, "upstream", timeout).await?;
    let down = connect(downstream, "downstream", timeout).await?;
    filter
        .run(up, down, stop)
        .await
        .map_err(|err| NetError::Filter(Box::new(err)))
}

/// What the downstream received: every frame, in order.
///
/// Holds the frames in memory, views of the read buffers they arrived in,
/// so memory is the size of the stream received.
#[derive(Debug)]
pub struct Received {
    /// The frames, as they arrived.
    pub frames: Vec<Frame>,
    /// Bytes received, headers included.
    pub bytes: u64,
    /// When the receiving began.
    pub started: Instant,
    /// When the end of the stream was read.
    pub ended: Instant,
}

/// The downstream's check of what it received: how many frames decode as an
/// [`Issue`], and how many of those the policy keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Check {
    /// Messages received.
    pub received: u64,
    /// Of those, the ones that decode as an `Issue`.
    pub decoded: u64,
    /// Of those, the ones the policy keeps.
    pub kept: u64,
    /// How long the check took (not part of the stream's time).
    pub took: Duration,
}

impl Received {
    /// Decodes every message as an [`Issue`] with serde_json and judges its
    /// detail with `policy`. O(total bytes): a full decode per message.
    pub fn check(&self, policy: &Policy) -> Check {
        let start = Instant::now();
        let mut decoded = 0;
        let mut kept = 0;
        for frame in &self.frames {
            if let Ok(issue) = serde_json::from_slice::<Issue>(frame.message()) {
                decoded += 1;
                kept += u64::from(policy.keep(&issue.detail));
            }
        }
        Check {
            received: self.frames.len() as u64,
            decoded,
            kept,
            took: start.elapsed(),
        }
    }

    /// The messages received, in order, without headers. Nothing copied.
    pub fn messages(&self) -> impl Iterator<Item = &Bytes> + '_ {
        self.frames.iter().map(Frame::message)
    }
}

/// Reads every frame from `r` until it ends. Costs one read per 256 KiB and
/// O(1) per frame; keeps every frame.
///
/// # Errors
///
/// The [`FrameError`] that stopped the stream; the frames before it are
/// dropped.
pub async fn receive<R: AsyncRead + Unpin>(r: R) -> Result<Received, FrameError> {
    let started = Instant::now();
    let mut reader = BatchReader::new(r);
    let mut frames = Vec::new();
    let mut bytes = 0u64;
    while let Some(batch) = reader.next_batch().await? {
        bytes += batch.iter().map(|f| f.frame().len() as u64).sum::<u64>();
        frames.extend(batch);
    }
    Ok(Received {
        frames,
        bytes,
        started,
        ended: Instant::now(),
    })
}

/// The downstream role: accepts one connection and receives every frame on
/// it (see [`receive`]). Returns who sent them, and what they were.
///
/// # Errors
///
/// [`NetError::Io`] when accepting fails, [`NetError::Downstream`] when the
/// stream cannot be read or framed.
pub async fn receive_one(listener: &TcpListener) -> Result<(SocketAddr, Received), NetError> {
    let (stream, peer) = listener
        .accept()
        .await
        .map_err(|err| NetError::io("downstream: accepting a connection", err))?;
    let received = receive(stream).await.map_err(NetError::Downstream)?;
    Ok((peer, received))
}

/// One run of upstream, filter and downstream on loopback.
#[derive(Debug)]
pub struct Run {
    /// The reader the filter judged with.
    pub reader: Judge,
    /// What the filter did.
    pub tally: Tally,
    /// From the filter's first connect to the downstream reading the end
    /// of the stream.
    pub elapsed: Duration,
    /// What the upstream sent.
    pub sent: Sent,
    /// What the downstream received.
    pub received: Received,
    /// The downstream's check, done after the timed stream.
    pub check: Check,
}

impl Run {
    /// Messages through the filter per second.
    pub fn messages_per_second(&self) -> f64 {
        self.tally.messages as f64 / self.elapsed.as_secs_f64().max(f64::MIN_POSITIVE)
    }

    /// Whether everything adds up: the filter judged every frame sent, the
    /// downstream received exactly the kept frames, and (unless the filter
    /// forwards everything) each decodes as an issue the policy keeps.
    pub fn passed(&self) -> bool {
        let through = self.tally.messages == self.sent.frames
            && self.tally.bytes_in == self.sent.bytes
            && self.check.received == self.tally.kept()
            && self.received.bytes == self.tally.bytes_out;
        let judged = match self.reader {
            Judge::ForwardAll => self.check.received == self.sent.frames,
            Judge::Optics | Judge::OpticsTrusting | Judge::Decode => {
                self.check.decoded == self.check.received && self.check.kept == self.check.received
            }
        };
        through && judged
    }
}

/// Runs upstream, `filter` and downstream on `127.0.0.1` (ephemeral ports)
/// for a stream of `count` frames from `pool`, then checks what the
/// downstream received (off the timed path, on a blocking thread).
///
/// Memory: the downstream keeps every kept frame until the run is dropped.
///
/// # Errors
///
/// The first role that failed, as a [`NetError`].
pub async fn loopback(
    pool: Arc<Pool>,
    count: u64,
    filter: &Filter,
    stop: &CancellationToken,
) -> Result<Run, NetError> {
    let loopback = SocketAddr::from(([127, 0, 0, 1], 0));
    let up = TcpListener::bind(loopback)
        .await
        .map_err(|err| NetError::io("upstream: binding 127.0.0.1:0", err))?;
    let down = TcpListener::bind(loopback)
        .await
        .map_err(|err| NetError::io("downstream: binding 127.0.0.1:0", err))?;
    let up_addr = local_addr(&up, "upstream")?.to_string();
    let down_addr = local_addr(&down, "downstream")?.to_string();

    let upstream_stop = stop.clone();
    let upstream = tokio::spawn(async move { serve_one(&up, &pool, count, &upstream_stop).await });
    let downstream = tokio::spawn(async move { receive_one(&down).await });
    let _abort = AbortOnDrop(vec![upstream.abort_handle(), downstream.abort_handle()]);

    let start = Instant::now();
    let tally = filter_between(filter, &up_addr, &down_addr, stop).await?;
    if stop.is_cancelled() {
        return Err(NetError::Stopped(Box::new(tally)));
    }
    let (_, received) = downstream
        .await
        .map_err(|_| NetError::Panicked("downstream"))??;
    let sent = upstream
        .await
        .map_err(|_| NetError::Panicked("upstream"))??;
    let elapsed = received.ended.saturating_duration_since(start);

    let policy = filter.policy().clone();
    let (received, check) = tokio::task::spawn_blocking(move || {
        let check = received.check(&policy);
        (received, check)
    })
    .await
    .map_err(|_| NetError::Panicked("downstream check"))?;

    Ok(Run {
        reader: filter.reader(),
        tally,
        elapsed,
        sent,
        received,
        check,
    })
}

/// The address a listener is bound to.
///
/// # Errors
///
/// [`NetError::Io`] naming the role, should the OS not say.
pub fn local_addr(listener: &TcpListener, role: &str) -> Result<SocketAddr, NetError> {
    listener
        .local_addr()
        .map_err(|err| NetError::io(format!("{role}: reading the bound address"), err))
}

/// Why a role failed.
#[derive(Debug)]
pub enum NetError {
    /// A socket operation failed; `context` says which, and where.
    Io {
        /// What was being done: `"filter: connecting to the upstream at ..."`.
        context: String,
        /// The error.
        err: io::Error,
    },
    /// The filter stopped early; the error holds its tally so far (boxed:
    /// a tally is a hundred-odd bytes).
    Filter(Box<FilterError>),
    /// The downstream could not read or split what it received.
    Downstream(FrameError),
    /// A role's task panicked (a bug).
    Panicked(&'static str),
    /// The run was stopped (a signal) before its end; the filter stopped
    /// gracefully, and this is its tally (boxed, as in `Filter`).
    Stopped(Box<Tally>),
}

impl NetError {
    /// An I/O error with what was being done.
    pub fn io(context: impl Into<String>, err: io::Error) -> NetError {
        NetError::Io {
            context: context.into(),
            err,
        }
    }
}

impl fmt::Display for NetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NetError::Io { context, err } => write!(f, "{context}: {err}"),
            NetError::Filter(err) => write!(f, "filter: {err}"),
            NetError::Downstream(err) => write!(f, "downstream: {err}"),
            NetError::Panicked(role) => write!(f, "the {role} task panicked"),
            NetError::Stopped(tally) => write!(
                f,
                "stopped before the end of the stream: {} messages judged, {} kept",
                tally.messages,
                tally.kept()
            ),
        }
    }
}

impl Error for NetError {
    /// Each variant's text includes its cause's text, so the chain goes on
    /// from the cause's own source.
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            NetError::Io { err, .. } => err.source(),
            NetError::Filter(err) => err.source(),
            NetError::Downstream(err) => err.source(),
            NetError::Panicked(_) | NetError::Stopped(_) => None,
        }
    }
}
