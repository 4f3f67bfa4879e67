//! The response body of a judged call: the upstream's DATA chunks in, the
//! kept frames out, byte for byte, then the upstream's trailers (or the
//! proxy's own status when the upstream broke the protocol).
//!
//! ```text
//!  upstream DATA chunk ──> ChunkSplitter ──> Judge::judge ──> kept runs ──> client DATA
//!     (polled only when the previous chunk's kept frames went out)
//!  upstream trailers ───────────────────────────────────────────────────> client trailers
//! ```
//!
//! Kept frames that lie next to each other in a chunk go out as one slice of
//! it, or as a copy where they are less than an eighth of it (a slice keeps
//! its whole chunk alive while it waits in h2 for the client; see `out_of`);
//! forward-all sends each chunk whole; a frame that straddled chunks goes
//! out as the buffer it was assembled in. Nothing is re-encoded.
//!
//! A frame the upstream compressed (flag 1) under a `grpc-encoding` of
//! `gzip` or `deflate` is inflated into a buffer of the body's, which never
//! grows past the message limit, and the inflated message judged; a kept
//! one goes out compressed, as it came. The buffer is freed once its
//! message is judged if it grew past 64 KiB, so a call that waits keeps no
//! more of it than that. Any other encoding, a frame that does not
//! inflate, or one that inflates past the limit ends the call (INTERNAL,
//! RESOURCE_EXHAUSTED). An upstream asked for `identity` compresses
//! nothing, and costs none of this.
//!
//! The body polls the upstream for its next chunk only when hyper asks it
//! for the next frame to send, which hyper does only when the client's
//! flow-control window has room: a client that reads slowly holds the
//! upstream back through HTTP/2's own flow control, and the body itself
//! never holds more than one chunk and one straddling frame (and, while it
//! judges a compressed message, that message inflated).

use std::future::Future;
use std::io::Read;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{ready, Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::HeaderMap;
use http_body::{Body, Frame, SizeHint};
use hyper::body::Incoming;
use tokio::time::Sleep;
use tokio_util::sync::DropGuard;

use super::split::{ChunkSplitter, Cut};
use super::status::{status_of, status_trailers, upstream_end, Code};
use super::{Link, SharedTally, Tally, Target};
use crate::frames::HEADER_LEN;
use crate::judge::Judge;
use crate::policy::Policy;
use crate::tally::CallEnd;

/// Counters of what the proxy's bodies hold and did, shared by every call
/// of a proxy. Updated once per chunk, never per message.
#[derive(Debug, Default)]
pub struct Gauges {
    held: AtomicU64,
    peak_held: AtomicU64,
    chunks_in: AtomicU64,
    chunks_out: AtomicU64,
}

/// A snapshot of [`Gauges`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Upstream bytes the proxy holds now: taken from h2 and not yet handed
    /// back to it for the client (or dropped). A compressed message's
    /// inflated copy is not counted (see the module docs for its bound).
    pub held: u64,
    /// The most it ever held at once.
    pub peak_held: u64,
    /// DATA chunks taken from upstreams.
    pub chunks_in: u64,
    /// DATA chunks handed to clients.
    pub chunks_out: u64,
}

impl Gauges {
    /// The counters as they stand. O(1).
    pub fn snapshot(&self) -> Stats {
        Stats {
            held: self.held.load(Ordering::Relaxed),
            peak_held: self.peak_held.load(Ordering::Relaxed),
            chunks_in: self.chunks_in.load(Ordering::Relaxed),
            chunks_out: self.chunks_out.load(Ordering::Relaxed),
        }
    }

    fn change_held(&self, before: u64, now: u64) {
        if now > before {
            let held = self.held.fetch_add(now - before, Ordering::Relaxed) + (now - before);
            self.peak_held.fetch_max(held, Ordering::Relaxed);
        } else if before > now {
            self.held.fetch_sub(before - now, Ordering::Relaxed);
        }
    }
}

/// What a judged call needs from its proxy. Cloned per call: four `Arc`s.
#[derive(Clone, Debug)]
pub(crate) struct Judging {
    pub(crate) judge: Judge,
    pub(crate) policy: Arc<Policy>,
    pub(crate) max_message: usize,
    pub(crate) live: SharedTally,
    pub(crate) gauges: Arc<Gauges>,
    /// Set when a shutdown cuts the calls still in flight: a call dropped
    /// before its end is then counted as cut, not as the client's cancel.
    pub(crate) cutting: Arc<AtomicBool>,
}

impl Judging {
    /// How a call dropped before its end ended: cut by the shutdown, or
    /// cancelled by its client. One atomic load.
    pub(crate) fn dropped_end(&self) -> CallEnd {
        if self.cutting.load(Ordering::Relaxed) {
            CallEnd::Cut
        } else {
            CallEnd::ClientCancelled
        }
    }

    /// Counts one call that ended as `end` with nothing judged: one lock.
    pub(crate) fn count_call(&self, end: CallEnd) {
        let mut tally = Tally::default();
        tally.end_call(end);
        self.live.add(&tally);
    }
}

/// The verdict on one whole `frame` (header included), the `index`th of its
/// call: its message judged as it stands, or, compressed, once inflated
/// into `inflated`; how the call ends where a compressed message does not
/// inflate within the limit. Inflating costs O(the inflated size).
#[inline]
fn judge(
    judging: &Judging,
    inflate: Option<Inflate>,
    inflated: &mut Vec<u8>,
    index: u64,
    frame: &[u8],
) -> Result<crate::policy::Verdict, (CallEnd, HeaderMap)> {
    let message = &frame[HEADER_LEN..];
    if frame[0] == 0 {
        return Ok(judging.judge.judge(&judging.policy, message));
    }
    // Flag 1: the splitter hands such frames out only with `inflate`.
    let Some(inflate) = inflate else {
        // Not met: the splitter refuses such frames.
        let message = format!("proxy: upstream sent a compressed frame (frame {index})");
        return Err((
            CallEnd::Compressed,
            status_trailers(Code::Internal, &message),
        ));
    };
    let encoding = inflate.name();
    let result = match inflate.into(message, judging.max_message, inflated) {
        Ok(()) => Ok(judging.judge.judge(&judging.policy, inflated)),
        Err(Inflated::PastLimit) => {
            let message = format!(
                "proxy: upstream sent a {encoding} frame that inflates past the \
                     {} byte message limit (frame {index})",
                judging.max_message
            );
            Err((
                CallEnd::TooLarge,
                status_trailers(Code::ResourceExhausted, &message),
            ))
        }
        Err(Inflated::Broken(err)) => {
            let message = format!(
                "proxy: upstream sent a {encoding} frame that does not inflate \
                     (frame {index}): {err}"
            );
            Err((
                CallEnd::Compressed,
                status_trailers(Code::Internal, &message),
            ))
        }
    };
    // A large message's buffer is not kept for the call's next message: a
    // call that waits holds at most `KEEP_INFLATED` of it.
    if inflated.capacity() > KEEP_INFLATED {
        *inflated = Vec::new();
    }
    result
}

/// The bytes of `run`, kept frames next to each other in `chunk`, to send:
/// a view of the chunk where they make up an eighth of it at least, a copy
/// of their own where they are less. h2 holds what waits for the client's
/// window up to [`CLIENT_SEND_BUFFER`](super::CLIENT_SEND_BUFFER) a call,
/// counted in the bytes handed to it, and a view keeps its whole chunk
/// alive: views of one small kept message a chunk would have a client
/// that stops reading hold a chunk a message, a hundred times what h2
/// counts. So what a call has waiting in h2 holds at most eight times what
/// h2 counts. O(1) for a view; a copy costs O(`run`) and one allocation.
/// Copying where a run is under half its chunk made the optics proxy of
/// `benches/http2.rs` (the demo's 4 KB messages, 15 % kept, in chunks of
/// 16 KiB on average) 1.15× as slow (median of four paired runs), under a
/// quarter 1.07×, under an eighth 1.03×, inside the runs' noise.
#[inline]
fn out_of(chunk: &Bytes, run: std::ops::Range<usize>) -> Bytes {
    if run.len() * 8 < chunk.len() {
        Bytes::copy_from_slice(&chunk[run])
    } else {
        chunk.slice(run)
    }
}

/// The most of its inflation buffer a call keeps between compressed
/// messages; a larger one is freed once its message is judged.
const KEEP_INFLATED: usize = 64 * 1024;

/// How much of an inflated message is read at a time.
const INFLATE_BLOCK: usize = 16 * 1024;

/// A `grpc-encoding` the proxy inflates to judge: `gzip` (RFC 1952) or
/// `deflate` (zlib, RFC 1950, as gRPC means it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Inflate {
    Gzip,
    Deflate,
}

/// Why a compressed message was not inflated.
enum Inflated {
    /// It inflates past the message limit (read no further).
    PastLimit,
    /// Its bytes are not of the encoding.
    Broken(std::io::Error),
}

impl Inflate {
    /// The encoding named `name` (ASCII case ignored), if it is one of these.
    fn of(name: &str) -> Option<Inflate> {
        if name.eq_ignore_ascii_case("gzip") {
            Some(Inflate::Gzip)
        } else if name.eq_ignore_ascii_case("deflate") {
            Some(Inflate::Deflate)
        } else {
            None
        }
    }

    fn name(self) -> &'static str {
        match self {
            Inflate::Gzip => "gzip",
            Inflate::Deflate => "deflate",
        }
    }

    /// Inflates `compressed` into `out` (cleared first), reading at most
    /// `limit` + 1 bytes of what it inflates to, and never letting `out`
    /// grow past that: O(its size), bounded by the limit however small the
    /// compressed bytes. Nothing may follow the compressed stream.
    fn into(self, compressed: &[u8], limit: usize, out: &mut Vec<u8>) -> Result<(), Inflated> {
        out.clear();
        let rest = match self {
            Inflate::Gzip => {
                let mut decoder = flate2::bufread::GzDecoder::new(compressed);
                read_within(&mut decoder, limit, out)?;
                decoder.into_inner()
            }
            Inflate::Deflate => {
                let mut decoder = flate2::bufread::ZlibDecoder::new(compressed);
                read_within(&mut decoder, limit, out)?;
                decoder.into_inner()
            }
        };
        trailing(rest).map_err(Inflated::Broken)
    }
}

/// Reads `reader` to its end into `out`, [`INFLATE_BLOCK`] bytes at a time.
/// `out` doubles as it fills, but its capacity never passes `limit` + 1:
/// past the limit when that many bytes arrived (read no further).
fn read_within(reader: &mut impl Read, limit: usize, out: &mut Vec<u8>) -> Result<(), Inflated> {
    let cap = limit.saturating_add(1);
    let mut block = [0u8; INFLATE_BLOCK];
    loop {
        if out.len() >= cap {
            return Err(Inflated::PastLimit);
        }
        let want = block.len().min(cap - out.len());
        let n = match reader.read(&mut block[..want]) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(Inflated::Broken(err)),
        };
        if out.capacity() - out.len() < n {
            // Doubling, capped at what the limit allows: `n` fits, as it
            // is at most `cap - out.len()`.
            out.reserve_exact(out.capacity().max(n).min(cap - out.len()));
        }
        out.extend_from_slice(&block[..n]);
    }
}

/// An error where bytes are left after a compressed stream.
fn trailing(rest: &[u8]) -> std::io::Result<()> {
    if rest.is_empty() {
        Ok(())
    } else {
        Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{} bytes after the compressed stream", rest.len()),
        ))
    }
}

/// Where a judged body stands.
enum State {
    /// Reading the upstream.
    Streaming,
    /// The upstream connection broke under the call: once this says why
    /// (whether the upstream stopped answering keepalive pings), the call
    /// ends with UNAVAILABLE.
    Lost(Pin<Box<dyn Future<Output = String> + Send>>),
    /// The upstream is done (or was dropped); these trailers go out next.
    Trailers(HeaderMap),
    /// Nothing more to send.
    Done,
}

/// The response body of a judged gRPC call. See the module docs.
pub struct JudgedBody {
    upstream: Option<Incoming>,
    split: ChunkSplitter,
    /// Kept frames of the current chunk, next to each other, not sent yet.
    run: Option<std::ops::Range<usize>>,
    /// The upstream's `grpc-encoding`, for the error text.
    encoding: Option<String>,
    /// How compressed frames inflate, where the encoding is one the body
    /// reads.
    inflate: Option<Inflate>,
    /// The last compressed message, inflated (empty until one comes).
    inflated: Vec<u8>,
    /// How the call ends, found while kept frames before it still waited
    /// to go out.
    pending: Option<(CallEnd, HeaderMap)>,
    judging: Judging,
    tally: Tally,
    /// Whether `tally` was added to the proxy's.
    counted: bool,
    /// What this body last told the gauges it holds.
    held: u64,
    deadline: Option<Pin<Box<Sleep>>>,
    timeout: Duration,
    /// Where a keepalive runs: the upstream connection's link, to say why
    /// it broke under the call.
    lost_to: Option<(Arc<Link>, Arc<Target>)>,
    /// Dropped, it cancels the request still going upstream (see
    /// `ToUpstream`): when the body ends before the upstream's response
    /// did, or is dropped.
    cancel_upstream: Option<DropGuard>,
    state: State,
}

impl JudgedBody {
    pub(super) fn new(
        upstream: Incoming,
        encoding: Option<String>,
        judging: Judging,
        deadline: Option<(tokio::time::Instant, Duration)>,
        lost_to: Option<(Arc<Link>, Arc<Target>)>,
        cancel_upstream: Option<DropGuard>,
    ) -> JudgedBody {
        let inflate = encoding.as_deref().and_then(Inflate::of);
        let split = ChunkSplitter::with_max_message(judging.max_message)
            .accepting_compressed(inflate.is_some());
        let (deadline, timeout) = match deadline {
            Some((at, timeout)) => (Some(Box::pin(tokio::time::sleep_until(at))), timeout),
            None => (None, Duration::ZERO),
        };
        JudgedBody {
            upstream: Some(upstream),
            split,
            run: None,
            encoding,
            inflate,
            inflated: Vec::new(),
            pending: None,
            judging,
            tally: Tally::default(),
            counted: false,
            held: 0,
            deadline,
            timeout,
            lost_to,
            cancel_upstream,
            state: State::Streaming,
        }
    }

    /// Cuts, judges and tallies frames of the current chunk until there is
    /// something to send (`Some`), the chunk is used up (`None`), or the
    /// upstream broke the protocol (how the call ends, and the trailers
    /// that end it).
    fn next_kept(&mut self) -> Result<Option<Bytes>, (CallEnd, HeaderMap)> {
        if let Some(end) = self.pending.take() {
            return Err(end);
        }
        let started = Instant::now();
        let result = loop {
            match self.split.next_cut() {
                Ok(Some(Cut::Chunk(range))) => {
                    let chunk = self.split.chunk();
                    let frame = &chunk[range.clone()];
                    let index = self.tally.messages;
                    let judged = judge(
                        &self.judging,
                        self.inflate,
                        &mut self.inflated,
                        index,
                        frame,
                    );
                    let verdict = match judged {
                        Ok(verdict) => verdict,
                        Err(end) => break self.end_after_run(end),
                    };
                    self.tally.count(verdict, range.len());
                    if !verdict.keep {
                        if let Some(run) = self.run.take() {
                            break Ok(Some(out_of(chunk, run)));
                        }
                        continue;
                    }
                    match &mut self.run {
                        Some(run) if run.end == range.start => run.end = range.end,
                        Some(run) => {
                            let out = out_of(chunk, run.clone());
                            *run = range;
                            break Ok(Some(out));
                        }
                        None => self.run = Some(range),
                    }
                }
                Ok(Some(Cut::Assembled(frame))) => {
                    // A straddling frame completes at the start of a chunk,
                    // before any run of that chunk began.
                    debug_assert!(self.run.is_none());
                    let index = self.tally.messages;
                    let judged = judge(
                        &self.judging,
                        self.inflate,
                        &mut self.inflated,
                        index,
                        &frame,
                    );
                    let verdict = match judged {
                        Ok(verdict) => verdict,
                        Err(end) => break Err(end),
                    };
                    self.tally.count(verdict, frame.len());
                    if verdict.keep {
                        break Ok(Some(frame));
                    }
                }
                Ok(None) => break Ok(self.run.take().map(|run| out_of(self.split.chunk(), run))),
                Err(err) => {
                    // The kept frames before the bad one go out first; the
                    // splitter reports the error again on the next call
                    // (it stays on the bad frame).
                    if let Some(run) = self.run.take() {
                        break Ok(Some(out_of(self.split.chunk(), run)));
                    }
                    let (code, end, message) = status_of(&err, self.encoding.as_deref());
                    break Err((end, status_trailers(code, &message)));
                }
            }
        };
        self.tally.judging += started.elapsed();
        result
    }

    /// The kept frames of the current chunk before the frame that ends the
    /// call as `end`, if any, which go out first; `end` then comes next.
    fn end_after_run(
        &mut self,
        end: (CallEnd, HeaderMap),
    ) -> Result<Option<Bytes>, (CallEnd, HeaderMap)> {
        match self.run.take() {
            Some(run) => {
                self.pending = Some(end);
                Ok(Some(out_of(self.split.chunk(), run)))
            }
            None => Err(end),
        }
    }

    /// Tells the gauges what this body holds now.
    fn sync_held(&mut self) {
        let now = self.split.buffered() as u64;
        self.judging.gauges.change_held(self.held, now);
        self.held = now;
    }

    /// Ends the call as `how`, with `trailers` after what was sent: drops
    /// the upstream (which resets its stream if it had not ended) and adds
    /// this call's tally, its end counted, to the proxy's.
    fn end(&mut self, how: CallEnd, trailers: Option<HeaderMap>) {
        // The upstream's own end (trailers, END_STREAM, a reset) leaves its
        // request as it is; an end of the proxy's own, before the
        // upstream's, cancels the upstream call.
        if self.upstream.as_ref().is_some_and(Body::is_end_stream) {
            if let Some(guard) = self.cancel_upstream.take() {
                guard.disarm();
            }
        }
        self.cancel_upstream = None;
        self.upstream = None;
        self.deadline = None;
        self.run = None;
        self.split = ChunkSplitter::new();
        self.sync_held();
        self.count(how);
        self.state = match trailers {
            Some(trailers) => State::Trailers(trailers),
            None => State::Done,
        };
    }

    fn count(&mut self, how: CallEnd) {
        if !self.counted {
            self.counted = true;
            self.tally.end_call(how);
            self.judging.live.add(&self.tally);
        }
    }

    fn fail(&mut self, code: Code, how: CallEnd, message: &str) {
        self.end(how, Some(status_trailers(code, message)));
    }

    /// Whether the call's deadline passed (polling it, so that its timer
    /// wakes `cx`): if so, the call ends DEADLINE_EXCEEDED.
    fn deadline_passed(&mut self, cx: &mut Context<'_>) -> bool {
        let Some(deadline) = &mut self.deadline else {
            return false;
        };
        if deadline.as_mut().poll(cx).is_pending() {
            return false;
        }
        let message = format!(
            "proxy: deadline exceeded ({} ms grpc-timeout)",
            self.timeout.as_millis()
        );
        self.fail(Code::DeadlineExceeded, CallEnd::DeadlineExceeded, &message);
        true
    }
}

impl Drop for JudgedBody {
    /// A call the client cancelled (or a shutdown cut) still counts what
    /// it judged, and is counted as such; the held bytes are given back to
    /// the gauges.
    fn drop(&mut self) {
        if self.held > 0 {
            self.judging.gauges.change_held(self.held, 0);
        }
        let how = self.judging.dropped_end();
        self.count(how);
    }
}

impl Body for JudgedBody {
    type Data = Bytes;
    /// The upstream's own error, passed on so that hyper resets the
    /// client's stream with the upstream's reason.
    type Error = hyper::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, hyper::Error>>> {
        let this = self.get_mut();
        loop {
            match std::mem::replace(&mut this.state, State::Streaming) {
                State::Streaming => {}
                State::Lost(mut why) => match why.as_mut().poll(cx) {
                    Poll::Ready(message) => {
                        this.fail(Code::Unavailable, CallEnd::ConnectionLost, &message);
                        continue;
                    }
                    // The deadline still holds while the call waits to
                    // learn why its connection broke.
                    Poll::Pending if this.deadline_passed(cx) => continue,
                    Poll::Pending => {
                        this.state = State::Lost(why);
                        return Poll::Pending;
                    }
                },
                State::Trailers(trailers) => {
                    this.state = State::Done;
                    return Poll::Ready(Some(Ok(Frame::trailers(trailers))));
                }
                State::Done => {
                    this.state = State::Done;
                    return Poll::Ready(None);
                }
            }
            match this.next_kept() {
                Ok(Some(data)) => {
                    this.tally.bytes_out += data.len() as u64;
                    this.judging
                        .gauges
                        .chunks_out
                        .fetch_add(1, Ordering::Relaxed);
                    return Poll::Ready(Some(Ok(Frame::data(data))));
                }
                Ok(None) => {}
                Err((how, trailers)) => {
                    this.end(how, Some(trailers));
                    continue;
                }
            }
            // The chunk is used up and its kept frames went out: only now
            // is the next one taken.
            this.sync_held();
            if this.deadline_passed(cx) {
                continue;
            }
            let Some(upstream) = this.upstream.as_mut() else {
                // Only after an end, which counted the call already.
                this.end(CallEnd::UpstreamError, None);
                continue;
            };
            match ready!(Pin::new(upstream).poll_frame(cx)) {
                Some(Ok(frame)) => match frame.into_data() {
                    Ok(chunk) => {
                        this.judging
                            .gauges
                            .chunks_in
                            .fetch_add(1, Ordering::Relaxed);
                        this.split.push(chunk);
                        this.sync_held();
                    }
                    Err(frame) => {
                        let trailers = frame.into_trailers().ok();
                        match this.split.finish() {
                            Ok(()) => this.end(upstream_end(trailers.as_ref()), trailers),
                            Err(err) => {
                                let (code, how, message) =
                                    status_of(&err, this.encoding.as_deref());
                                this.fail(code, how, &message);
                            }
                        }
                    }
                },
                None => match this.split.finish() {
                    // No trailers: passed on as it came (the client will
                    // call it an error, as it should).
                    Ok(()) => this.end(CallEnd::UpstreamError, None),
                    Err(err) => {
                        let (code, how, message) = status_of(&err, this.encoding.as_deref());
                        this.fail(code, how, &message);
                    }
                },
                Some(Err(err)) if super::is_reset(&err) => {
                    // The upstream reset the stream: passed on as an error,
                    // so the client's stream is reset with the upstream's
                    // reason (hyper finds it in the error's chain).
                    this.end(CallEnd::UpstreamError, None);
                    return Poll::Ready(Some(Err(err)));
                }
                Some(Err(err)) => {
                    // The upstream's connection broke under the call: what
                    // gRPC calls a lost upstream, UNAVAILABLE, after the
                    // kept messages before it (a reset would read INTERNAL).
                    // Where a keepalive runs, the connection's task says
                    // first whether a missed ping closed it.
                    let message = format!("proxy: upstream connection lost: {err}");
                    match this.lost_to.take() {
                        Some((link, target)) => {
                            this.upstream = None;
                            this.state = State::Lost(Box::pin(link.lost(&target, &err, message)));
                        }
                        None => this.fail(Code::Unavailable, CallEnd::ConnectionLost, &message),
                    }
                }
            }
        }
    }

    /// Only once `poll_frame` reached the end: hyper drops a body that
    /// says it ended without polling it again, so an end found ahead (the
    /// upstream's END_STREAM on the DATA frame of a kept message, an error
    /// pending after the kept frames before it) must still be polled to
    /// count the call and send its status. A response the upstream ends
    /// without trailers costs one empty DATA frame more.
    fn is_end_stream(&self) -> bool {
        matches!(self.state, State::Done)
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::default()
    }
}

/// The body of any response the proxy sends: judged, passed through as it
/// came, or empty (a trailers-only response the proxy made itself).
pub enum ProxyBody {
    /// A judged gRPC call.
    Judged(Box<JudgedBody>),
    /// A call the proxy does not judge (not gRPC, or trailers-only): the
    /// upstream's body as is.
    Through(Incoming),
    /// Nothing.
    Empty,
    /// A body the proxy wrote itself (the text of a `502` it answers a call
    /// that is not gRPC with), sent once.
    Text(Option<Bytes>),
}

impl Body for ProxyBody {
    type Data = Bytes;
    /// The upstream's own error, passed on so that hyper resets the
    /// client's stream with the upstream's reason.
    type Error = hyper::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, hyper::Error>>> {
        match self.get_mut() {
            ProxyBody::Judged(body) => Pin::new(body.as_mut()).poll_frame(cx),
            ProxyBody::Through(body) => Pin::new(body).poll_frame(cx),
            ProxyBody::Empty => Poll::Ready(None),
            ProxyBody::Text(text) => Poll::Ready(text.take().map(|text| Ok(Frame::data(text)))),
        }
    }

    fn is_end_stream(&self) -> bool {
        match self {
            ProxyBody::Judged(body) => body.is_end_stream(),
            ProxyBody::Through(body) => body.is_end_stream(),
            ProxyBody::Empty => true,
            ProxyBody::Text(text) => text.is_none(),
        }
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            ProxyBody::Judged(body) => body.size_hint(),
            ProxyBody::Through(body) => body.size_hint(),
            ProxyBody::Empty => SizeHint::with_exact(0),
            ProxyBody::Text(text) => {
                SizeHint::with_exact(text.as_ref().map_or(0, |text| text.len() as u64))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;
    use hyper_util::rt::{TokioExecutor, TokioIo};

    /// An upstream response body from a real hyper HTTP/2 connection over
    /// an in-memory pipe, its server answering with an empty body.
    async fn incoming() -> Incoming {
        let (near, far) = tokio::io::duplex(1 << 16);
        let service = hyper::service::service_fn(|_| async {
            Ok::<_, std::convert::Infallible>(http::Response::new(
                http_body_util::Empty::<Bytes>::new(),
            ))
        });
        tokio::spawn(
            hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                .serve_connection(TokioIo::new(far), service),
        );
        let (mut sender, connection) =
            hyper::client::conn::http2::Builder::new(TokioExecutor::new())
                .handshake(TokioIo::new(near))
                .await
                .unwrap();
        tokio::spawn(connection);
        let request = http::Request::post("http://upstream/test.Feed/Subscribe")
            .body(http_body_util::Empty::<Bytes>::new())
            .unwrap();
        sender.send_request(request).await.unwrap().into_body()
    }

    /// A call whose upstream connection broke, waiting to learn why, still
    /// ends at its deadline: DEADLINE_EXCEEDED, counted so.
    #[tokio::test]
    async fn the_deadline_holds_while_a_lost_call_waits_to_learn_why() {
        let live = SharedTally::new();
        let judging = Judging {
            judge: Judge::Optics,
            policy: Arc::new(crate::policy::Policy::default()),
            max_message: 1 << 20,
            live: live.clone(),
            gauges: Arc::new(Gauges::default()),
            cutting: Arc::new(AtomicBool::new(false)),
        };
        let timeout = Duration::from_millis(50);
        let at = tokio::time::Instant::now() + timeout;
        let mut body = JudgedBody::new(
            incoming().await,
            None,
            judging,
            Some((at, timeout)),
            None,
            None,
        );
        // Why the connection broke never comes.
        body.state = State::Lost(Box::pin(std::future::pending()));
        let frame = tokio::time::timeout(Duration::from_secs(5), body.frame())
            .await
            .expect("the deadline ends the wait")
            .expect("a frame")
            .expect("not an error");
        assert!(tokio::time::Instant::now() >= at);
        let trailers = frame.into_trailers().expect("the call's trailers");
        assert_eq!(trailers["grpc-status"], "4", "{trailers:?}");
        let message = trailers["grpc-message"].to_str().unwrap();
        assert!(message.contains("deadline exceeded"), "{message}");
        assert!(body.frame().await.is_none(), "nothing after the trailers");
        assert_eq!(
            live.snapshot().calls_ended(CallEnd::DeadlineExceeded),
            1,
            "{:?}",
            live.snapshot().calls
        );
    }
}
