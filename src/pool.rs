//! The upstream's messages, generated and framed in advance, so that
//! streaming them costs writes and nothing else.

use std::io;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

use crate::frames::{encode, FrameError, HEADER_LEN};
use crate::generate::{Gen, Generate};
use crate::model::Issue;
use crate::timeouts::within;

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
/// use triage::pool::Pool;
///
/// let pool = Pool::generate(1, 7, 3).unwrap();
/// assert_eq!(pool.distinct(), 3);
/// // Frames cycle: the fourth is the first again.
/// assert_eq!(pool.frame(3), pool.frame(0));
/// assert_eq!(pool.wire_len(4), pool.wire_len(3) + pool.frame(0).len() as u64);
/// assert_eq!(pool.wire_len(u64::MAX), u64::MAX);
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
        self.frame(i).slice(HEADER_LEN..)
    }

    /// The mean length of a message in the pool, in bytes (headers left
    /// out).
    pub fn mean_message_len(&self) -> f64 {
        let headers = self.ends.len() * HEADER_LEN;
        (self.wire.len() - headers) as f64 / self.ends.len() as f64
    }

    /// The bytes of a stream of `count` frames, `u64::MAX` where they are
    /// more (a count no stream reaches, but one the command line takes).
    /// O(1).
    pub fn wire_len(&self, count: u64) -> u64 {
        let distinct = self.ends.len() as u64;
        let rest = (count % distinct) as usize;
        let partial = if rest == 0 { 0 } else { self.ends[rest - 1] };
        (count / distinct)
            .saturating_mul(self.wire.len() as u64)
            .saturating_add(partial as u64)
    }

    /// Writes a stream of `count` frames to `w`: the whole pool as often as
    /// it fits, then the first frames again. One `write_all` per cycle of
    /// the pool; nothing is copied or generated. Does not flush.
    ///
    /// Stops early, between two cycles (so at a frame boundary), once `stop`
    /// is cancelled. Each write must end within `timeout`. Returns the frames
    /// and bytes written.
    ///
    /// # Errors
    ///
    /// The writer's error, or [`io::ErrorKind::TimedOut`] for a write that
    /// took longer than `timeout` (a reader that stopped reading).
    pub async fn write_to<W: AsyncWrite + Unpin>(
        &self,
        w: &mut W,
        count: u64,
        stop: &CancellationToken,
        timeout: Option<Duration>,
    ) -> io::Result<(u64, u64)> {
        let stalled = || "writing to the client (it stopped reading)".to_owned();
        let distinct = self.ends.len() as u64;
        for cycle in 0..count / distinct {
            if stop.is_cancelled() {
                let frames = cycle * distinct;
                return Ok((frames, self.wire_len(frames)));
            }
            within(timeout, stalled, w.write_all(&self.wire)).await?;
        }
        let rest = (count % distinct) as usize;
        if rest > 0 && !stop.is_cancelled() {
            within(
                timeout,
                stalled,
                w.write_all(&self.wire[..self.ends[rest - 1]]),
            )
            .await?;
            return Ok((count, self.wire_len(count)));
        }
        let frames = count - rest as u64;
        Ok((frames, self.wire_len(frames)))
    }
}
