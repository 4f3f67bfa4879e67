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
//! - The **downstream** accepts one connection and verifies every frame as
//!   it arrives, in constant memory ([`receive_one`], see
//!   [`crate::downstream`]).
//!
//! [`loopback`] runs the three on `127.0.0.1` with ephemeral ports, times
//! the stream from the filter's first connect to the downstream's end of
//! stream, and then checks the downstream's digest against what the policy
//! keeps.

use std::error::Error;
use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

use crate::cpu;
use crate::downstream::{self, receive, Received, StreamDigest, Verify};
use crate::filter::{AbortOnDrop, Filter, FilterError};
use crate::frames::FrameError;
use crate::judge::Judge;
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
/// [`Filter::run`]) and returns what it did until then; cancelled while a
/// connect is under way, it gives that connect up and returns an empty
/// tally at once (nothing was read), rather than waiting out the connect
/// timeout.
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
    let connecting = async {
        let up = connect(upstream, "upstream", timeout).await?;
        let down = connect(downstream, "downstream", timeout).await?;
        Ok::<_, NetError>((up, down))
    };
    let (up, down) = tokio::select! {
        biased;
        () = stop.cancelled() => return Ok(Tally::default()),
        connected = connecting => connected?,
    };
    filter
        .run(up, down, stop)
        .await
        .map_err(|err| NetError::Filter(Box::new(err)))
}

/// The downstream role: accepts one connection and receives every frame on
/// it (see [`receive`]), verifying as `verify` says, until the stream ends
/// or `stop` is cancelled. Returns who sent them, and what was received.
///
/// # Errors
///
/// [`NetError::Io`] when accepting fails, [`NetError::Downstream`] when the
/// stream cannot be read or framed, [`NetError::Stopped`] when `stop` came
/// before a connection.
pub async fn receive_one(
    listener: &TcpListener,
    verify: &Verify,
    stop: &CancellationToken,
) -> Result<(SocketAddr, Received), NetError> {
    let (stream, peer) = tokio::select! {
        accepted = listener.accept() => accepted
            .map_err(|err| NetError::io("downstream: accepting a connection", err))?,
        () = stop.cancelled() => return Err(NetError::Stopped(Box::default())),
    };
    let received = receive(stream, verify, stop)
        .await
        .map_err(|err| NetError::Downstream { peer, err })?;
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
    /// The CPU time the process (upstream, filter and downstream together)
    /// used from the filter's first connect until every role had ended;
    /// `None` where it cannot be read ([`crate::cpu`]).
    pub cpu: Option<Duration>,
    /// The minor page faults the process took over the same span as `cpu`
    /// (see [`crate::malloc`]); `None` where they cannot be read.
    pub faults: Option<u64>,
    /// What the upstream sent.
    pub sent: Sent,
    /// What the downstream received.
    pub received: Received,
    /// What the downstream should have received: the frames a full decode
    /// and the policy keep (every frame, for forward-all), computed after
    /// the stream.
    pub expected: StreamDigest,
    /// How long computing `expected` took (not part of the stream's time).
    pub check_took: Duration,
    /// Whether the filter redacted the kept messages.
    pub redacted: bool,
}

impl Run {
    /// Messages through the filter per second.
    pub fn messages_per_second(&self) -> f64 {
        self.tally.messages as f64 / self.elapsed.as_secs_f64().max(f64::MIN_POSITIVE)
    }

    /// Whether everything adds up: the filter judged every frame sent, the
    /// downstream received what the filter says it kept, and that is exactly
    /// (digest for digest) what a full decode and the policy keep.
    pub fn passed(&self) -> bool {
        self.tally.messages == self.sent.frames
            && self.tally.bytes_in == self.sent.bytes
            && self.received.frames() == self.tally.kept()
            && self.received.bytes() == self.tally.bytes_out
            && self.received.digest == self.expected
    }
}

/// Runs upstream, `filter` and downstream on `127.0.0.1` (ephemeral ports)
/// for a stream of `count` frames from `pool`. The downstream keeps only a
/// digest of what it receives; after the stream, on a blocking thread, the
/// digest it should have is computed from the pool (see
/// [`downstream::expected`]). Memory stays constant, whatever `count`.
///
/// # Errors
///
/// The first role that failed, as a [`NetError`]; [`NetError::Stopped`]
/// when `stop` ends the run early.
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

    let upstream = {
        let (pool, stop) = (pool.clone(), stop.clone());
        tokio::spawn(async move { serve_one(&up, &pool, count, &stop).await })
    };
    let downstream = {
        let stop = stop.clone();
        tokio::spawn(async move { receive_one(&down, &Verify::Digest, &stop).await })
    };
    let _abort = AbortOnDrop(vec![upstream.abort_handle(), downstream.abort_handle()]);

    let start = Instant::now();
    let usage = cpu::Usage::now();
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
    let used = usage.since();

    let (reader, policy, redact) = (filter.reader(), filter.policy().clone(), filter.redacts());
    let (expected, check_took) = tokio::task::spawn_blocking(move || {
        let start = Instant::now();
        let expected = downstream::expected(&pool, count, reader, &policy, redact);
        (expected, start.elapsed())
    })
    .await
    .map_err(|_| NetError::Panicked("downstream check"))?;
    let expected = expected.map_err(NetError::Check)?;

    Ok(Run {
        reader,
        tally,
        elapsed,
        cpu: used.cpu,
        faults: used.faults,
        sent,
        received,
        expected,
        check_took,
        redacted: redact,
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
    /// The downstream could not read or split what it received from `peer`.
    Downstream {
        /// The connection's peer (the filter).
        peer: SocketAddr,
        /// What went wrong, with the frame and its byte offset.
        err: FrameError,
    },
    /// A role's task panicked (a bug).
    Panicked(&'static str),
    /// What the downstream should have received could not be worked out:
    /// says why (a redaction that is not the value's).
    Check(String),
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
            NetError::Downstream { peer, err } => {
                write!(f, "downstream: reading from {peer}: {err}")
            }
            NetError::Panicked(role) => write!(f, "the {role} task panicked"),
            NetError::Check(why) => write!(f, "downstream check: {why}"),
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
            NetError::Downstream { err, .. } => err.source(),
            NetError::Panicked(_) | NetError::Check(_) | NetError::Stopped(_) => None,
        }
    }
}
