//! The demo's three roles over TCP, and a run of all three on loopback.
//!
//! ```text
//! upstream (listens) <--connect-- filter --connect--> downstream (listens)
//!     frames ----------------------> judge ------------> kept frames
//! ```
//!
//! - The **upstream** listens and streams a fixed number of frames to each
//!   connection, one connection at a time, cycling through a [`Pool`] of
//!   messages framed in advance, then closes its write side.
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

use bytes::{Bytes, BytesMut};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::filter::{AbortOnDrop, BatchReader, Filter, FilterError, SharedTally, Tally};
use crate::frames::{encode, Frame, FrameError};
use crate::generate::{Gen, Generate};
use crate::judge::Judge;
use crate::model::Issue;
use crate::policy::Policy;

/// The size the stream's issues are generated at: up to seven words in a
/// text and seven elements in a list, about 4 KB a message.
pub const MESSAGE_SIZE: usize = 7;

/// How many distinct messages the upstream cycles through by default (about
/// 4 MB of frames).
pub const DEFAULT_DISTINCT: usize = 1024;

/// The seed the demo's messages are generated from.
pub const SEED: u64 = 7;

/// Messages framed in advance, all in one buffer, so that streaming them
/// costs writes and nothing else.
///
/// ```
/// use triage::net::Pool;
///
/// let pool = Pool::generate(1, 7, 3).unwrap();
/// assert_eq!(pool.distinct(), 3);
/// // Frames cycle: the fourth is the first again.
/// assert_eq!(pool.frame(3), pool.frame(0));
/// assert_eq!(pool.wire_len(4), pool.wire_len(3) + pool.frame(0).len() as u64);
/// ```
#[derive(Clone, Debug)]
pub struct Pool {
    /// Every frame, one after another.
    wire: Bytes,
    /// Where each frame ends in `wire`; never empty.
    ends: Vec<usize>,
}

impl Pool {
    /// Generates `distinct` (at least 1) issues at `size` from `seed` and
    /// frames them. Costs a generation and a serialization per message
    /// (tens of microseconds each in a release build).
    ///
    /// # Errors
    ///
    /// [`FrameError::Unframeable`] for a message over 4 GiB (never, at any
    /// sensible size).
    pub fn generate(seed: u64, size: usize, distinct: usize) -> Result<Pool, FrameError> {
        let mut g = Gen::new(seed, size);
        let mut wire = BytesMut::new();
        let mut ends = Vec::with_capacity(distinct.max(1));
        for _ in 0..distinct.max(1) {
            encode(&Issue::generate(&mut g).to_json(), &mut wire)?;
            ends.push(wire.len());
        }
        Ok(Pool {
            wire: wire.freeze(),
            ends,
        })
    }

    /// How many distinct messages the pool holds.
    pub fn distinct(&self) -> usize {
        self.ends.len()
    }

    /// Frame `i` of a stream that cycles through the pool, header included.
    /// O(1), nothing copied.
    pub fn frame(&self, i: u64) -> Bytes {
        let i = (i % self.ends.len() as u64) as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        self.wire.slice(start..self.ends[i])
    }

    /// The message of frame `i`, without its header. O(1), nothing copied.
    pub fn message(&self, i: u64) -> Bytes {
        self.frame(i).slice(crate::frames::HEADER_LEN..)
    }

    /// The mean length of a message in the pool, in bytes (headers left
    /// out).
    pub fn mean_message_len(&self) -> f64 {
        let headers = self.ends.len() * crate::frames::HEADER_LEN;
        (self.wire.len() - headers) as f64 / self.ends.len() as f64
    }

    /// The bytes of a stream of `count` frames. O(1).
    pub fn wire_len(&self, count: u64) -> u64 {
        let distinct = self.ends.len() as u64;
        let rest = (count % distinct) as usize;
        let partial = if rest == 0 { 0 } else { self.ends[rest - 1] };
        count / distinct * self.wire.len() as u64 + partial as u64
    }

    /// Writes a stream of `count` frames to `w`: the whole pool as often as
    /// it fits, then the first frames again. One `write_all` per cycle of
    /// the pool; nothing is copied or generated. Does not flush. Returns the
    /// bytes written.
    ///
    /// # Errors
    ///
    /// The writer's error.
    pub async fn write_to<W: AsyncWrite + Unpin>(&self, w: &mut W, count: u64) -> io::Result<u64> {
        let distinct = self.ends.len() as u64;
        for _ in 0..count / distinct {
            w.write_all(&self.wire).await?;
        }
        let rest = (count % distinct) as usize;
        if rest > 0 {
            w.write_all(&self.wire[..self.ends[rest - 1]]).await?;
        }
        Ok(self.wire_len(count))
    }
}

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

/// The upstream role, once: accepts one connection, streams `count` frames
/// of `pool` to it, then closes its write side.
///
/// # Errors
///
/// [`NetError::Io`] when accepting or writing fails (a peer that goes away
/// early, say).
pub async fn serve_one(listener: &TcpListener, pool: &Pool, count: u64) -> Result<Sent, NetError> {
    let (mut stream, peer) = listener
        .accept()
        .await
        .map_err(|err| NetError::io("upstream: accepting a connection", err))?;
    let start = Instant::now();
    // Best effort: without it only the last segment may wait for an ack.
    let _ = stream.set_nodelay(true);
    let bytes = pool
        .write_to(&mut stream, count)
        .await
        .map_err(|err| NetError::io(format!("upstream: writing to {peer}"), err))?;
    stream
        .shutdown()
        .await
        .map_err(|err| NetError::io(format!("upstream: closing the stream to {peer}"), err))?;
    Ok(Sent {
        peer,
        frames: count,
        bytes,
        took: start.elapsed(),
    })
}

/// Connects to `addr` for the filter, saying which side (`"upstream"` or
/// `"downstream"`) failed if it does.
///
/// # Errors
///
/// [`NetError::Io`] naming the side and the address.
pub async fn connect(addr: &str, side: &str) -> Result<TcpStream, NetError> {
    let stream = TcpStream::connect(addr)
        .await
        .map_err(|err| NetError::io(format!("filter: connecting to the {side} at {addr}"), err))?;
    let _ = stream.set_nodelay(true);
    Ok(stream)
}

/// The filter role: connects to the upstream and the downstream and runs
/// `filter` between them until the upstream ends. Returns the stream's
/// tally; `live` is updated as it goes.
///
/// # Errors
///
/// [`NetError::Io`] when a connection fails, [`NetError::Filter`] (with the
/// tally so far) when the stream does.
pub async fn filter_between(
    filter: &Filter,
    upstream: &str,
    downstream: &str,
    live: &SharedTally,
) -> Result<Tally, NetError> {
    let up = connect(upstream, "upstream").await?;
    let down = connect(downstream, "downstream").await?;
    filter
        .run(up, down, live)
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
            Judge::Optics | Judge::Decode => {
                self.check.decoded == self.check.received && self.check.kept == self.check.received
            }
        };
        through && judged
    }
}

/// Runs upstream, `filter` and downstream on `127.0.0.1` (ephemeral ports)
/// for a stream of `count` frames from `pool`, then checks what the
/// downstream received (off the timed path, on a blocking thread). `live`
/// is updated as the filter goes.
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
    live: &SharedTally,
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

    let upstream = tokio::spawn(async move { serve_one(&up, &pool, count).await });
    let downstream = tokio::spawn(async move { receive_one(&down).await });
    let _abort = AbortOnDrop(vec![upstream.abort_handle(), downstream.abort_handle()]);

    let start = Instant::now();
    let tally = filter_between(filter, &up_addr, &down_addr, live).await?;
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
            NetError::Panicked(_) => None,
        }
    }
}
