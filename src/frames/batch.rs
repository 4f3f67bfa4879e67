//! Reading frames in batches: every frame decoded from one read of a stream.

use std::time::Duration;

use bytes::{BufMut, BytesMut};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio_util::codec::Decoder;

use super::{Frame, FrameDecoder, FrameError};

/// The most bytes asked for by one read: 256 KiB (on loopback, small reads
/// are what limits a stream).
pub const READ_SIZE: usize = 256 * 1024;

/// Reads frames from a byte stream in batches: all the frames decoded from
/// one read.
///
/// Each read asks for at most `read_size` bytes into a [`BytesMut`]; the
/// frames are [`Bytes`](bytes::Bytes) views of it, so a frame is copied only when it
/// straddles two reads. The buffer grows by `read_size` when less than a
/// quarter of that is free, so short reads do not each cost an allocation.
///
/// ```
/// use triage::frames::BatchReader;
/// use triage::frames::encode;
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let mut wire = bytes::BytesMut::new();
/// encode(b"{}", &mut wire).unwrap();
/// encode(b"[]", &mut wire).unwrap();
/// let mut frames = BatchReader::new(&wire[..]);
/// let batch = frames.next_batch().await.unwrap().unwrap();
/// assert_eq!(batch.len(), 2);
/// assert!(frames.next_batch().await.unwrap().is_none());
/// # });
/// ```
#[derive(Debug)]
pub struct BatchReader<R> {
    inner: R,
    buf: BytesMut,
    decoder: FrameDecoder,
    read_size: usize,
    /// An error found after some frames of the same read; reported by the
    /// next call, after those frames.
    pending: Option<FrameError>,
    /// The stream ended or failed: nothing more to read.
    done: bool,
    /// How long a read may wait while a frame is part-way through.
    idle_timeout: Option<Duration>,
}

impl<R: AsyncRead + Unpin> BatchReader<R> {
    /// Reads `inner` [`READ_SIZE`] bytes at a time, with a default
    /// [`FrameDecoder`] (4 MiB limit).
    pub fn new(inner: R) -> BatchReader<R> {
        BatchReader::with_read_size(inner, READ_SIZE)
    }

    /// Reads `inner` at most `read_size` (at least 1) bytes at a time.
    pub fn with_read_size(inner: R, read_size: usize) -> BatchReader<R> {
        BatchReader {
            inner,
            buf: BytesMut::new(),
            decoder: FrameDecoder::new(),
            read_size: read_size.max(1),
            pending: None,
            done: false,
            idle_timeout: None,
        }
    }

    /// The same reader, failing with [`FrameError::Stalled`] when no byte
    /// arrives for `timeout` while a frame is part-way through. Between
    /// frames it waits as long as the stream stays open: a quiet producer is
    /// not a stalled one. Needs a tokio runtime with its timer enabled.
    pub fn with_idle_timeout(mut self, timeout: Option<Duration>) -> BatchReader<R> {
        self.idle_timeout = timeout;
        self
    }

    /// The next batch of frames (never empty), `Ok(None)` once the stream
    /// ended cleanly between frames, or the error that stopped it. Frames
    /// decoded before an error in the same read come first, in their own
    /// batch; the error follows on the next call, and after it only
    /// `Ok(None)`.
    ///
    /// Costs one read (more while no whole frame has arrived) plus O(1) per
    /// frame.
    pub async fn next_batch(&mut self) -> Result<Option<Vec<Frame>>, FrameError> {
        if let Some(err) = self.pending.take() {
            self.done = true;
            return Err(err);
        }
        if self.done {
            return Ok(None);
        }
        loop {
            if self.buf.capacity() - self.buf.len() < self.read_size / 4 {
                self.decoder.make_room(&mut self.buf, self.read_size);
            }
            // Bytes left in the buffer are part of a frame: the stream is
            // inside one and must keep moving.
            let inside_frame = !self.buf.is_empty();
            let mut limited = (&mut self.buf).limit(self.read_size);
            let read = self.inner.read_buf(&mut limited);
            let read = match self.idle_timeout {
                Some(timeout) if inside_frame => match tokio::time::timeout(timeout, read).await {
                    Ok(read) => read,
                    Err(_) => {
                        self.done = true;
                        return Err(self.decoder.stalled(&self.buf, timeout));
                    }
                },
                _ => read.await,
            };
            let eof = match read {
                Ok(n) => n == 0,
                Err(err) => {
                    self.done = true;
                    // Inside a frame, the error says where, as a clean
                    // end there would.
                    return Err(self.decoder.read_failed(&self.buf, err));
                }
            };
            let mut batch = Vec::new();
            loop {
                let next = if eof {
                    self.decoder.decode_eof(&mut self.buf)
                } else {
                    self.decoder.decode(&mut self.buf)
                };
                match next {
                    Ok(Some(frame)) => batch.push(frame),
                    Ok(None) => break,
                    Err(err) if batch.is_empty() => {
                        self.done = true;
                        return Err(err);
                    }
                    Err(err) => {
                        self.pending = Some(err);
                        return Ok(Some(batch));
                    }
                }
            }
            if eof {
                self.done = true;
                return Ok((!batch.is_empty()).then_some(batch));
            }
            if !batch.is_empty() {
                return Ok(Some(batch));
            }
        }
    }
}
