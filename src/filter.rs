//! The filter between a reader of bytes and a writer: split frames, judge
//! each message, forward the kept frames byte for byte.
//!
//! ```text
//!  upstream bytes
//!       |
//!  [read task]   read_buf (<= 256 KiB) -> FrameDecoder -> Vec<Frame> per read
//!       |  bounded channel (4 batches)
//!  [judge task]  Judge::judge(policy, message) per frame, timed per batch
//!       |  bounded channel (4 batches of kept frames)
//!  [write task]  write_frames (vectored, byte for byte), flush, shutdown
//!       |
//!  downstream bytes
//! ```
//!
//! The three stages are separate tokio tasks. The channels between them hold
//! a few batches each, so a slow downstream fills them and stops the read
//! task from reading: memory stays bounded by about
//! `(2 * capacity + 3) * read_size` bytes, however far ahead the upstream is.
//!
//! A framing error (compressed frame, bad flag, message too large, a stream
//! that ends inside a frame) or a read error stops the stream. The frames
//! decoded before the bad one are still judged and their kept frames
//! forwarded; nothing after it is. The writer then flushes and closes its
//! side as usual, so the downstream never receives a torn frame, and the
//! filter returns the error together with the [`Tally`] of what it did.

use std::error::Error;
use std::fmt;
use std::io;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use bytes::{BufMut, Bytes, BytesMut};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio::task::AbortHandle;
use tokio_util::codec::Decoder;

use crate::frames::{write_frames, Frame, FrameDecoder, FrameError};
use crate::judge::Judge;
use crate::model::DetailKind;
use crate::policy::{Policy, Verdict};

/// The most bytes asked for by one read: 256 KiB (on loopback, small reads
/// are what limits a stream).
pub const READ_SIZE: usize = 256 * 1024;

/// Batches each channel between two stages holds before the sender waits.
pub const CHANNEL_CAPACITY: usize = 4;

/// The rows of a per-kind table, in order: the three kinds, then `None` for
/// messages whose kind could not be read (or was not read, by
/// [`Judge::ForwardAll`]).
pub const KINDS: [Option<DetailKind>; 4] = [
    Some(DetailKind::Bug),
    Some(DetailKind::Incident),
    Some(DetailKind::Request),
    None,
];

/// How many messages of one kind were seen and kept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KindCount {
    /// Messages of this kind judged.
    pub seen: u64,
    /// Of those, the ones kept.
    pub kept: u64,
}

/// What a filter did: messages per kind seen and kept, bytes in and out, and
/// the time spent judging. Plain numbers, `Copy`; adding one to another is
/// O(1).
///
/// ```
/// use triage::filter::Tally;
/// use triage::model::DetailKind;
/// use triage::policy::Verdict;
///
/// let mut tally = Tally::default();
/// tally.count(Verdict { kind: Some(DetailKind::Bug), keep: true }, 4096);
/// tally.count(Verdict { kind: None, keep: false }, 100);
/// assert_eq!(tally.messages, 2);
/// assert_eq!(tally.kept(), 1);
/// assert_eq!(tally.kind(Some(DetailKind::Bug)).kept, 1);
/// assert_eq!(tally.kind(None).seen, 1);
/// assert_eq!(tally.bytes_in, 4196);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Seen and kept per kind, in the order of [`KINDS`].
    pub by_kind: [KindCount; 4],
    /// Messages judged.
    pub messages: u64,
    /// Bytes of the frames judged, headers included.
    pub bytes_in: u64,
    /// Bytes of kept frames written to the downstream (whole batches).
    pub bytes_out: u64,
    /// Time spent judging, measured around each batch.
    pub judging: Duration,
}

impl Tally {
    /// Counts one judged frame of `frame_len` bytes. O(1).
    pub fn count(&mut self, verdict: Verdict, frame_len: usize) {
        let row = &mut self.by_kind[slot(verdict.kind)];
        row.seen += 1;
        row.kept += u64::from(verdict.keep);
        self.messages += 1;
        self.bytes_in += frame_len as u64;
    }

    /// Adds every count of `other` to this tally. O(1).
    pub fn add(&mut self, other: &Tally) {
        for (row, more) in self.by_kind.iter_mut().zip(&other.by_kind) {
            row.seen += more.seen;
            row.kept += more.kept;
        }
        self.messages += other.messages;
        self.bytes_in += other.bytes_in;
        self.bytes_out += other.bytes_out;
        self.judging += other.judging;
    }

    /// Seen and kept for one kind (`None`: unclassified). O(1).
    pub fn kind(&self, kind: Option<DetailKind>) -> KindCount {
        self.by_kind[slot(kind)]
    }

    /// Messages kept, over all kinds. O(1).
    pub fn kept(&self) -> u64 {
        self.by_kind.iter().map(|row| row.kept).sum()
    }
}

/// The row of `kind` in [`Tally::by_kind`].
fn slot(kind: Option<DetailKind>) -> usize {
    match kind {
        Some(DetailKind::Bug) => 0,
        Some(DetailKind::Incident) => 1,
        Some(DetailKind::Request) => 2,
        None => 3,
    }
}

/// A [`Tally`] that several tasks can update and anyone can read while a
/// stream runs (for a Ctrl-C report, say). Cloning shares it. The filter
/// updates it once per batch (one uncontended lock, tens of nanoseconds),
/// never per message.
///
/// ```
/// use triage::filter::{SharedTally, Tally};
///
/// let live = SharedTally::new();
/// let mut batch = Tally::default();
/// batch.messages = 3;
/// live.clone().add(&batch);
/// assert_eq!(live.snapshot().messages, 3);
/// ```
#[derive(Clone, Debug, Default)]
pub struct SharedTally(Arc<Mutex<Tally>>);

impl SharedTally {
    /// A shared tally at zero.
    pub fn new() -> SharedTally {
        SharedTally::default()
    }

    /// A copy of the counts as they stand. O(1): one lock.
    pub fn snapshot(&self) -> Tally {
        *self.lock()
    }

    /// Adds `more` to the counts. O(1): one lock.
    pub fn add(&self, more: &Tally) {
        self.lock().add(more);
    }

    /// Adds `bytes` to the bytes written out. O(1): one lock.
    fn add_bytes_out(&self, bytes: u64) {
        self.lock().bytes_out += bytes;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Tally> {
        // A panic while holding the lock cannot leave a `Tally` half
        // updated in a way that matters for a report: keep counting.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Reads frames from a byte stream in batches: all the frames decoded from
/// one read.
///
/// Each read asks for at most `read_size` bytes into a [`BytesMut`]; the
/// frames are [`Bytes`] views of it, so a frame is copied only when it
/// straddles two reads. The buffer grows by `read_size` when less than a
/// quarter of that is free, so short reads do not each cost an allocation.
///
/// ```
/// use triage::filter::BatchReader;
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
        }
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
                self.buf.reserve(self.read_size);
            }
            let read = self
                .inner
                .read_buf(&mut (&mut self.buf).limit(self.read_size))
                .await;
            let eof = match read {
                Ok(n) => n == 0,
                Err(err) => {
                    self.done = true;
                    return Err(FrameError::Io(err));
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

/// A filter: which reader judges the messages, the policy, and how the
/// stream is read and buffered.
///
/// ```
/// use triage::filter::{Filter, SharedTally};
/// use triage::frames::encode;
/// use triage::judge::Judge;
/// use triage::policy::Policy;
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let mut wire = bytes::BytesMut::new();
/// encode(b"not an issue", &mut wire).unwrap();
/// let (out, mut downstream) = tokio::io::duplex(1024);
/// let filter = Filter::new(Judge::Optics, Policy::default());
/// let tally = filter.run(std::io::Cursor::new(wire.freeze()), out, &SharedTally::new()).await.unwrap();
/// assert_eq!((tally.messages, tally.kept()), (1, 0));
/// # });
/// ```
#[derive(Clone, Debug)]
pub struct Filter {
    reader: Judge,
    policy: Policy,
    read_size: usize,
    capacity: usize,
}

impl Filter {
    /// A filter judging with `reader` against `policy`, reading
    /// [`READ_SIZE`] bytes at a time with [`CHANNEL_CAPACITY`] batches
    /// between stages.
    pub fn new(reader: Judge, policy: Policy) -> Filter {
        Filter {
            reader,
            policy,
            read_size: READ_SIZE,
            capacity: CHANNEL_CAPACITY,
        }
    }

    /// The same filter, reading at most `bytes` (at least 1) per read.
    pub fn with_read_size(mut self, bytes: usize) -> Filter {
        self.read_size = bytes.max(1);
        self
    }

    /// The same filter, with `batches` (at least 1) batches between stages.
    pub fn with_capacity(mut self, batches: usize) -> Filter {
        self.capacity = batches.max(1);
        self
    }

    /// The reader that judges messages.
    pub fn reader(&self) -> Judge {
        self.reader
    }

    /// The policy messages are judged against.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// Filters the frames read from `upstream` into `downstream` until the
    /// upstream ends, then flushes and shuts `downstream` down.
    ///
    /// Spawns three tasks (read, judge, write) on the current runtime; they
    /// are aborted if this future is dropped. Adds to `live` once per batch,
    /// and returns the tally of this stream alone. Clones the policy once.
    ///
    /// # Errors
    ///
    /// [`FilterError`], with the tally of what was done, when the upstream
    /// fails to read or frame ([`Failure::Read`]: everything before the bad
    /// frame is still judged and forwarded) or the downstream fails to write
    /// ([`Failure::Write`]: the reading stops).
    pub async fn run<R, W>(
        &self,
        upstream: R,
        downstream: W,
        live: &SharedTally,
    ) -> Result<Tally, FilterError>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (frames_tx, frames_rx) = mpsc::channel(self.capacity);
        let (kept_tx, kept_rx) = mpsc::channel(self.capacity);
        let frames = BatchReader::with_read_size(upstream, self.read_size);
        let mut read = tokio::spawn(read_stage(frames, frames_tx));
        let judge = tokio::spawn(judge_stage(
            self.reader,
            self.policy.clone(),
            frames_rx,
            kept_tx,
            live.clone(),
        ));
        let write = tokio::spawn(write_stage(downstream, kept_rx, live.clone()));
        let _abort = AbortOnDrop(vec![
            read.abort_handle(),
            judge.abort_handle(),
            write.abort_handle(),
        ]);

        // The writer finishes last in a stream that goes well, and first when
        // the downstream fails; then the reader may be waiting on an idle
        // upstream, so stop it. The judge stops by itself as its channels
        // close.
        let written = write.await;
        if !matches!(written, Ok((_, None))) {
            read.abort();
        }
        let judged = judge.await;
        let read_result = (&mut read).await;

        let mut tally = match judged {
            Ok(tally) => tally,
            Err(_) => {
                return Err(FilterError::new(
                    Failure::Panicked("judge"),
                    Tally::default(),
                ))
            }
        };
        let write_error = match written {
            Ok((bytes, error)) => {
                tally.bytes_out = bytes;
                error
            }
            Err(_) => return Err(FilterError::new(Failure::Panicked("write"), tally)),
        };
        if let Some(err) = write_error {
            return Err(FilterError::new(Failure::Write(err), tally));
        }
        match read_result {
            Ok(Ok(())) => Ok(tally),
            Ok(Err(err)) => Err(FilterError::new(Failure::Read(err), tally)),
            Err(err) if err.is_panic() => Err(FilterError::new(Failure::Panicked("read"), tally)),
            // Only aborted when the writer failed, which returned above.
            Err(_) => Ok(tally),
        }
    }
}

/// Aborts tasks when the future that spawned them is dropped before they
/// end (a Ctrl-C, a failed run), so none outlives its stream.
pub(crate) struct AbortOnDrop(pub(crate) Vec<AbortHandle>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        for task in &self.0 {
            task.abort();
        }
    }
}

/// Reads batches and passes them on until the stream ends, fails, or the
/// judge stops taking them.
async fn read_stage<R: AsyncRead + Unpin>(
    mut frames: BatchReader<R>,
    tx: mpsc::Sender<Vec<Frame>>,
) -> Result<(), FrameError> {
    while let Some(batch) = frames.next_batch().await? {
        if tx.send(batch).await.is_err() {
            // The judge stopped because the writer failed; that error is the
            // one to report.
            return Ok(());
        }
    }
    Ok(())
}

/// Judges every frame of every batch, tallies once per batch and passes the
/// kept frames on. Returns this stream's tally (without bytes out).
async fn judge_stage(
    reader: Judge,
    policy: Policy,
    mut rx: mpsc::Receiver<Vec<Frame>>,
    tx: mpsc::Sender<Vec<Bytes>>,
    live: SharedTally,
) -> Tally {
    let mut total = Tally::default();
    while let Some(batch) = rx.recv().await {
        let mut tally = Tally::default();
        let mut kept = Vec::with_capacity(batch.len());
        let start = Instant::now();
        for frame in batch {
            let verdict = reader.judge(&policy, frame.message());
            tally.count(verdict, frame.frame().len());
            if verdict.keep {
                kept.push(frame.into_frame());
            }
        }
        tally.judging = start.elapsed();
        total.add(&tally);
        live.add(&tally);
        if !kept.is_empty() && tx.send(kept).await.is_err() {
            break;
        }
    }
    total
}

/// Writes the kept frames as they arrived, then flushes and shuts down.
/// Returns the bytes of the batches written whole, and the error that
/// stopped it, if any.
async fn write_stage<W: AsyncWrite + Unpin>(
    mut w: W,
    mut rx: mpsc::Receiver<Vec<Bytes>>,
    live: SharedTally,
) -> (u64, Option<io::Error>) {
    let mut written = 0u64;
    while let Some(frames) = rx.recv().await {
        if let Err(err) = write_frames(&mut w, &frames).await {
            return (written, Some(err));
        }
        let bytes: u64 = frames.iter().map(|frame| frame.len() as u64).sum();
        written += bytes;
        live.add_bytes_out(bytes);
    }
    if let Err(err) = w.flush().await {
        return (written, Some(err));
    }
    if let Err(err) = w.shutdown().await {
        return (written, Some(err));
    }
    (written, None)
}

/// Why a filter stopped before the end of its upstream.
#[derive(Debug)]
pub enum Failure {
    /// The upstream could not be read or split into frames.
    Read(FrameError),
    /// The downstream could not be written.
    Write(io::Error),
    /// One of the filter's tasks panicked (a bug).
    Panicked(&'static str),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Read(err) => write!(f, "upstream: {err}"),
            Failure::Write(err) => write!(f, "downstream: write failed: {err}"),
            Failure::Panicked(task) => write!(f, "the filter's {task} task panicked"),
        }
    }
}

/// A filter that stopped early: why, and the tally of what it judged and
/// forwarded until then.
///
/// ```
/// use triage::filter::{Failure, FilterError, Tally};
/// use triage::frames::FrameError;
///
/// let err = FilterError::new(Failure::Read(FrameError::Compressed { index: 3, offset: 120 }), Tally::default());
/// assert_eq!(
///     err.to_string(),
///     "upstream: compressed frame: no message encoding was negotiated (frame 3 at byte 120); \
///      0 messages judged before it, 0 kept"
/// );
/// ```
#[derive(Debug)]
pub struct FilterError {
    /// What went wrong.
    pub failure: Failure,
    /// What the filter did before it stopped.
    pub tally: Tally,
}

impl FilterError {
    /// Wraps a failure with the tally so far.
    pub fn new(failure: Failure, tally: Tally) -> FilterError {
        FilterError { failure, tally }
    }
}

impl fmt::Display for FilterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}; {} messages judged before it, {} kept",
            self.failure,
            self.tally.messages,
            self.tally.kept()
        )
    }
}

impl Error for FilterError {
    /// The text already includes the failure's own text, so the chain
    /// continues with that failure's source rather than repeating it.
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match &self.failure {
            Failure::Read(err) => err.source(),
            Failure::Write(err) => err.source(),
            Failure::Panicked(_) => None,
        }
    }
}
