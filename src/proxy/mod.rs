//! The gRPC proxy over HTTP/2 (h2c): every call forwarded to an upstream,
//! the response messages of gRPC calls judged and only the kept ones sent
//! on, byte for byte.
//!
//! ```text
//!  client ──h2c──> proxy (listens) ──h2c──> upstream
//!    request headers, metadata, messages ────────────> as they are
//!    <── response headers ─────────────────────────── as they are
//!    <── kept frames <── judge <── frames <── DATA chunks (see body)
//!    <── trailers (grpc-status, grpc-message, metadata) as they are
//! ```
//!
//! Built on hyper 1, server and client: message bytes flow as the `Bytes`
//! chunks h2 reads them into, and are never re-encoded. The proxy knows
//! nothing of the message type beyond what the [`Judge`] reads.
//!
//! - **What is judged:** every response a gRPC client would read messages
//!   from: a `200` to a request with `content-type: application/grpc` or
//!   `application/grpc+<format>`, and any response whose own content-type
//!   is gRPC, whatever the request said and whatever its status (a server
//!   may answer gRPC to a request that did not ask for it; tonic's does).
//!   A trailers-only response (HEADERS that end the stream) is passed on as
//!   it is. Headers that carry an error `grpc-status` but do not end the
//!   stream are final too, as a gRPC client reads them: the client gets
//!   them trailers-only, and what follows is dropped unread. Headers with
//!   `grpc-status: 0` are followed to the end of the stream: nothing more
//!   (an empty DATA frame, empty trailers) makes them trailers-only; a body
//!   is refused with INTERNAL (13), never sent. Each message is
//!   judged with [`Judge::judge`]; dropped messages are not sent. A gRPC
//!   call answered with another status than `200` and a response that is
//!   not gRPC, with a body, gets the code gRPC maps that status to
//!   ([`status::Code::of_http`], as grpc-go's client reads it),
//!   trailers-only, and the body is dropped unread: tonic's client reads
//!   messages from such a body, so it is never passed on unjudged. Request
//!   messages, and every other response, pass through untouched. The proxy
//!   cannot tell a unary call from a streaming one: a unary call whose one
//!   answer is dropped ends with the upstream's status and no message,
//!   which the client reports as an error of its own. grpc-web is not
//!   judged, nor passed on: an upstream's grpc-web response is answered
//!   UNIMPLEMENTED (12), trailers-only, its body dropped unread, whatever
//!   the call asked for (under `application/grpc` to a call that asked for
//!   gRPC, so that a gRPC client reads the status).
//! - **Faithful:** headers, metadata and trailers go through as they are,
//!   the request's `:authority` and path too (the upstream's authority
//!   only when the client sent none), with one exception: on a call whose
//!   request is gRPC, `grpc-accept-encoding` is sent upstream as
//!   `identity`, so that an upstream that honours it never compresses what
//!   the proxy has to read (a response judged only for its own
//!   content-type gets no such header). Not all do: grpc's C core set to
//!   compress by default compresses all the same. Under `gzip` or `deflate`
//!   each compressed message is inflated (at most the message limit) and
//!   judged, and a kept frame forwarded as it came; under another encoding
//!   a compressed frame ends the call with INTERNAL (13), never forwarded
//!   unjudged (see [`body`]). A client
//!   cancel resets the upstream stream; an upstream reset resets the
//!   client's stream with the same reason. A `grpc-timeout` is forwarded
//!   and also kept by the proxy, from the moment the call arrives: when it
//!   passes, whether the proxy is still connecting upstream or waiting for
//!   the response, the upstream call is cancelled and the client gets
//!   DEADLINE_EXCEEDED (4).
//! - **Errors as gRPC reports them:** a compressed frame the proxy cannot
//!   inflate or a bad flag gives INTERNAL (13), a message over the limit
//!   (4 MiB by default, inflated or not) RESOURCE_EXHAUSTED (8), a response that ends inside a frame INTERNAL,
//!   each with a `grpc-message` that says what and where; the kept messages
//!   before it are delivered first; an upstream connection lost under a
//!   call gives UNAVAILABLE (14) after them. `grpc-status: 0` in the
//!   response headers followed by a body gives INTERNAL before any
//!   message. An upstream that cannot be reached within
//!   [`CONNECT_TIMEOUT`] gives UNAVAILABLE (14).
//! - **Connecting:** a client connection's upstream connection is made on
//!   its first call, in a task of its own, under one short lock. Calls that
//!   arrive while it is being made wait for that one attempt and share its
//!   outcome, failure included: N calls to a dead upstream fail after one
//!   connect timeout, not N. A call that comes back unsent (the upstream
//!   shut the connection down gracefully with a GOAWAY, which hyper learns
//!   only when a call wakes it) is sent once more, on a new connection.
//! - **Memory:** each client connection gets its own upstream connection
//!   (so a slow client holds back only its own upstream connection). A call
//!   holds at most one upstream DATA chunk and one message that straddles
//!   chunks, and while it judges a compressed message that message inflated
//!   (never more than the message limit; at most 64 KiB of it is kept
//!   between messages); h2 holds at most [`UPSTREAM_STREAM_WINDOW`] per call and
//!   [`UPSTREAM_CONNECTION_WINDOW`] per connection from the upstream, and
//!   [`CLIENT_SEND_BUFFER`] per call towards the client. A slow client
//!   holds the upstream back through HTTP/2 flow control. The proxy sets no
//!   limit of its own on concurrent calls per client connection (hyper's
//!   default is 200; tonic's server has none), so it takes as many as the
//!   upstream does: those bounds are per call.
//! - **Counting:** each call tallies in its own [`Tally`] and adds it to the
//!   proxy's once, when it ends: one lock per call, none per message. The
//!   tally counts each call by how it ended ([`CallEnd`]): forwarded to the
//!   upstream's own end (OK or not), cancelled by its client, or ended by
//!   the proxy itself, and why (each status of its own, a `502`, a `505`
//!   per HTTP/1.1 connection, a cut at the drain timeout). A response the
//!   proxy passes on unjudged is counted when its headers arrive, by their
//!   status: a cut during its body is not seen.
//! - **Dead peers (opt-in):** with [`Proxy::with_keepalive`] the proxy
//!   sends HTTP/2 PINGs on quiet connections, both sides, and closes one
//!   whose peer does not ack in time: the upstream's calls then end
//!   UNAVAILABLE (14) saying it stopped answering pings, a client's calls
//!   are cancelled upstream. Off by default: grpc servers by default close
//!   a connection that pings more often than every 5 minutes.
//! - **Limits:** h2c only (no TLS, no HTTP/1.1: a client that sends it
//!   gets `505 HTTP Version Not Supported` and a line that says so; one
//!   that has not sent the whole preface within [`PREFACE_TIMEOUT`] is
//!   closed), one upstream with no path prefix ([`parse_upstream`] refuses
//!   one), no retries (but of a call the upstream never received), no load
//!   balancing; `grpc-timeout` is forwarded unchanged (the proxy adds no
//!   time of its own worth counting).

pub mod body;
mod run;
pub mod split;
pub mod status;

use std::error::Error as StdError;
use std::fmt;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use http::header::{HeaderValue, CONTENT_LENGTH, CONTENT_TYPE};
use http::uri::{Authority, PathAndQuery, Scheme};
use http::{HeaderMap, Request, Response, StatusCode, Uri};
use http_body::Body as _;
use http_body_util::BodyExt as _;
use hyper::body::Incoming;
use hyper::client::conn::http2::SendRequest;
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;
use tokio_util::sync::{CancellationToken, DropGuard, WaitForCancellationFutureOwned};

pub use self::body::{Gauges, ProxyBody, Stats};
use self::body::{JudgedBody, Judging};
pub use self::run::{loopback_http2, Http2Run};
use self::status::{
    is_grpc, is_grpc_web, parse_timeout, percent_encode, upstream_end, Code, GRPC_ACCEPT_ENCODING,
    GRPC_ENCODING, GRPC_MESSAGE, GRPC_STATUS, GRPC_TIMEOUT,
};
// The tally lives with the TCP filter today; this is the one line to change
// when it moves.
use crate::frames::DEFAULT_MAX_MESSAGE;
use crate::judge::Judge;
use crate::policy::Policy;
pub use crate::tally::{CallEnd, SharedTally, Tally};

/// How long connecting to the upstream may take, TCP connect and HTTP/2
/// handshake together (a call's `grpc-timeout`, when shorter, ends its own
/// wait sooner).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// How long a shutdown waits for the calls in flight before it cuts them.
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a shutdown waits, after it cut the calls still in flight, for
/// their tasks to end and add their counts to the tally.
pub const CUT_GRACE: Duration = Duration::from_secs(1);

/// How long a client may take, from its connection, to send the whole
/// HTTP/2 preface (24 bytes, which an h2c client sends at once); one that
/// has not is closed. grpc-go's server allows 120 s, TLS included.
pub const PREFACE_TIMEOUT: Duration = Duration::from_secs(20);

/// How long a shutdown gives a client connection that carried no call to
/// end by itself (a live client acks the GOAWAY's PING within a round
/// trip, and hyper closes it then) before closing it.
pub const IDLE_CLOSE_GRACE: Duration = Duration::from_secs(1);

/// The flow-control window of one call from the upstream: what h2 may hold
/// of a call's response that the proxy has not read yet.
pub const UPSTREAM_STREAM_WINDOW: u32 = 1024 * 1024;

/// The flow-control window of one upstream connection, over all its calls.
pub const UPSTREAM_CONNECTION_WINDOW: u32 = 4 * 1024 * 1024;

/// The largest DATA frame the proxy accepts (either side): 64 KiB, so that
/// fewer messages straddle chunks than at HTTP/2's default 16 KiB.
pub const MAX_FRAME_SIZE: u32 = 64 * 1024;

/// What h2 may buffer of one call towards the client before the proxy stops
/// reading that call's upstream.
pub const CLIENT_SEND_BUFFER: usize = 256 * 1024;

/// The proxy: where calls go, how responses are judged, and the counts of
/// what it did. Cloning shares the counts.
///
/// ```no_run
/// use triage::judge::Judge;
/// use triage::policy::Policy;
/// use triage::proxy::Proxy;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:50051").await?;
/// let proxy = Proxy::new("http://127.0.0.1:50052", Judge::Optics, Policy::default())?;
/// let tally = proxy.serve(listener, async { let _ = tokio::signal::ctrl_c().await; }).await?;
/// println!("{} messages judged, {} kept", tally.messages, tally.kept());
/// println!("{} of {} calls ended by the proxy itself", tally.calls_failed(), tally.calls_total());
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct Proxy {
    upstream: Arc<Target>,
    judging: Judging,
    drain_timeout: Duration,
    preface_timeout: Duration,
}

/// The upstream's scheme and authority, the address to connect to, how
/// long connecting may take, and the keepalive of both sides.
#[derive(Clone, Debug)]
struct Target {
    scheme: Scheme,
    authority: Authority,
    addr: String,
    connect_timeout: Duration,
    keepalive: Option<Keepalive>,
}

/// HTTP/2 keepalive: a PING after `interval` with nothing read from the
/// peer, and the connection closed when its ack has not come `timeout`
/// later.
#[derive(Clone, Copy, Debug)]
struct Keepalive {
    interval: Duration,
    timeout: Duration,
}

impl Proxy {
    /// A proxy to `upstream` (`http://HOST:PORT`; h2c, so `http` only),
    /// judging with `judge` against `policy`, messages up to 4 MiB.
    /// O(1); connects to nothing yet.
    ///
    /// # Errors
    ///
    /// [`ProxyError::Upstream`] when `upstream` is not an `http://` URI with
    /// a host and no path (see [`parse_upstream`]).
    pub fn new(upstream: &str, judge: Judge, policy: Policy) -> Result<Proxy, ProxyError> {
        let uri = parse_upstream(upstream)
            .map_err(|why| ProxyError::Upstream(format!("`{upstream}`: {why}")))?;
        Proxy::with_uri(uri, judge, policy)
    }

    /// [`Proxy::new`] with a parsed URI.
    ///
    /// # Errors
    ///
    /// [`ProxyError::Upstream`] when `upstream` is not an `http://` URI with
    /// a host and no path.
    pub fn with_uri(upstream: Uri, judge: Judge, policy: Policy) -> Result<Proxy, ProxyError> {
        let target = Target::of(&upstream)
            .map_err(|why| ProxyError::Upstream(format!("`{upstream}`: {why}")))?;
        Ok(Proxy {
            upstream: Arc::new(target),
            judging: Judging {
                judge,
                policy: Arc::new(policy),
                max_message: DEFAULT_MAX_MESSAGE,
                live: SharedTally::new(),
                gauges: Arc::new(Gauges::default()),
                cutting: Arc::new(AtomicBool::new(false)),
            },
            drain_timeout: DRAIN_TIMEOUT,
            preface_timeout: PREFACE_TIMEOUT,
        })
    }

    /// The same proxy, rejecting response messages over `bytes` with
    /// RESOURCE_EXHAUSTED.
    pub fn with_max_message(mut self, bytes: usize) -> Proxy {
        self.judging.max_message = bytes;
        self
    }

    /// The same proxy, giving up on connecting to the upstream (TCP connect
    /// and HTTP/2 handshake) after `timeout` instead of [`CONNECT_TIMEOUT`].
    /// The calls waiting on that connect then get UNAVAILABLE.
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Proxy {
        let mut target = (*self.upstream).clone();
        target.connect_timeout = timeout;
        self.upstream = Arc::new(target);
        self
    }

    /// The same proxy, detecting dead peers with HTTP/2 PINGs, on both
    /// sides: client connections and upstream connections. Off by default.
    ///
    /// A connection gets a PING once `interval` has passed since the proxy
    /// last read something from it: a call's headers, a chunk of its body
    /// or its trailers, or the ack of the last PING (hyper's keepalive
    /// counts what the proxy reads, not what it sends). So an upstream
    /// connection whose calls bring messages gets no PING, while a client
    /// connection whose calls only receive (server streaming) gets one
    /// every `interval`. When the ack has not come `timeout` after the
    /// PING, the peer is taken for dead and the connection is closed:
    /// - an upstream connection: each call on it ends with UNAVAILABLE
    ///   (14), after the kept messages already sent, its `grpc-message`
    ///   saying that the upstream stopped answering pings; counted as
    ///   [`CallEnd::ConnectionLost`]. The next call connects again. A
    ///   response passed on unjudged (not gRPC) has its stream reset
    ///   instead, and stays counted by its headers.
    /// - a client connection: each call on it is cancelled upstream (its
    ///   upstream stream reset), counted as [`CallEnd::ClientCancelled`],
    ///   at any stage, waiting for the upstream's response headers too.
    ///
    /// Client connections are pinged while they have no call too (hyper's
    /// server always does). Upstream connections only while a call is on
    /// them: an idle upstream connection costs the upstream nothing, and a
    /// call that starts on one that went quiet long ago gets a PING at once,
    /// so a dead one is found within `timeout` of that call.
    ///
    /// Costs: one PING frame (17 bytes) and its ack per quiet interval per
    /// connection, and one timer per connection; nothing per message.
    ///
    /// Toward gRPC servers, keep `interval` at 5 minutes or more, or loosen
    /// the server's keepalive enforcement. By default grpc-go and grpc's C
    /// core count a PING that comes less than 5 minutes after the one
    /// before, while they sent no data or headers in between, as a "ping
    /// strike" (grpc-go, when no call is open: less than 2 hours); on the
    /// third strike they send GOAWAY `ENHANCE_YOUR_CALM` with
    /// `too_many_pings` and close the connection, failing every call on
    /// it. A quiet call is exactly where the proxy pings. The bound is
    /// grpc-go's `keepalive.EnforcementPolicy.MinTime` and grpc's C core's
    /// `GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS`. (grpcio's
    /// server fails such a call with its own UNAVAILABLE "Too many pings",
    /// which the proxy passes on.) tonic's server (hyper's) enforces none.
    ///
    /// # Panics
    ///
    /// If `interval` or `timeout` is zero: a PING on every wake, or a peer
    /// that can never answer in time, is no keepalive (the command line
    /// refuses `0s` likewise).
    pub fn with_keepalive(mut self, interval: Duration, timeout: Duration) -> Proxy {
        assert!(
            !interval.is_zero() && !timeout.is_zero(),
            "Proxy::with_keepalive: the interval ({interval:?}) and the timeout ({timeout:?}) must be more than zero"
        );
        let mut target = (*self.upstream).clone();
        target.keepalive = Some(Keepalive { interval, timeout });
        self.upstream = Arc::new(target);
        self
    }

    /// The same proxy, waiting at most `timeout` for calls in flight when it
    /// shuts down.
    pub fn with_drain_timeout(mut self, timeout: Duration) -> Proxy {
        self.drain_timeout = timeout;
        self
    }

    /// The same proxy, closing a client connection whose HTTP/2 preface has
    /// not all come `timeout` after it connected, instead of
    /// [`PREFACE_TIMEOUT`].
    pub fn with_preface_timeout(mut self, timeout: Duration) -> Proxy {
        self.preface_timeout = timeout;
        self
    }

    /// The reader that judges messages.
    pub fn judge(&self) -> Judge {
        self.judging.judge
    }

    /// The tally of every call that ended so far, shared: read it while the
    /// proxy runs (for a Ctrl-C report, say). O(1).
    pub fn live(&self) -> &SharedTally {
        &self.judging.live
    }

    /// The proxy's gauges: bytes held now and at most, chunks in and out.
    /// O(1).
    pub fn stats(&self) -> Stats {
        self.judging.gauges.snapshot()
    }

    /// Serves h2c on `listener` until `shutdown` completes, then stops
    /// accepting, asks every connection to finish (GOAWAY), closes those
    /// that carried no call within [`IDLE_CLOSE_GRACE`] (a client that
    /// never finished its preface, or that made no call and never reads,
    /// is not waited for), waits for the calls in flight (at most the drain
    /// timeout, then cuts them) and returns the tally of every call, the
    /// cut ones included (their tasks get at most [`CUT_GRACE`] to end
    /// after the cut). Each connection runs in its own task, on whatever
    /// runtime this runs on (multi-thread or not).
    ///
    /// # Errors
    ///
    /// None today: a failed accept (out of file descriptors, say) is
    /// retried after a pause, and a failed connection ends only itself. The
    /// `Result` is for what a future version may not be able to ride out.
    pub async fn serve(
        &self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()>,
    ) -> Result<Tally, ProxyError> {
        let stop = CancellationToken::new();
        self.judging.cutting.store(false, Ordering::Relaxed);
        let (running, mut all_ended) = mpsc::channel(1);
        let calls = CallExecutor { running };
        let mut connections = JoinSet::new();
        let mut shutdown = std::pin::pin!(shutdown);
        loop {
            tokio::select! {
                () = &mut shutdown => break,
                accepted = listener.accept() => match accepted {
                    Ok((stream, peer)) => {
                        let proxy = self.clone();
                        let stop = stop.clone();
                        let calls = calls.clone();
                        connections.spawn(async move { proxy.connection(stream, peer, calls, stop).await });
                    }
                    // Out of descriptors, a connection reset while queued:
                    // nothing to do but wait a little and go on.
                    Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
                },
                // Reap finished connections as we go, so the set stays small.
                Some(_) = connections.join_next(), if !connections.is_empty() => {}
            }
        }
        drop(listener);
        stop.cancel();
        let drained = tokio::time::timeout(self.drain_timeout, async {
            while connections.join_next().await.is_some() {}
        })
        .await;
        if drained.is_err() {
            // The calls dropped from here on were cut, not cancelled.
            self.judging.cutting.store(true, Ordering::Relaxed);
            connections.shutdown().await;
        }
        // Each call runs in a task of its own and counts itself when it
        // ends, after its connection did (at once, for a cut connection):
        // the tally waits for them.
        drop(calls);
        let _ = tokio::time::timeout(CUT_GRACE, all_ended.recv()).await;
        Ok(self.judging.live.snapshot())
    }

    /// Serves one client connection until it closes, or until `stop`, then
    /// lets its calls finish.
    fn connection(
        self,
        mut stream: TcpStream,
        _peer: SocketAddr,
        calls: CallExecutor,
        stop: CancellationToken,
    ) -> std::pin::Pin<Box<dyn Future<Output = ()> + Send>> {
        Box::pin(async move {
            let _ = stream.set_nodelay(true);
            // A client that speaks HTTP/1.1 gets an answer it can read, not
            // HTTP/2 frames and a reset. One that sends nothing, or part of
            // the preface and no more (hyper would wait for the rest for
            // ever, keepalive or not: it pings only once the handshake is
            // done), is closed after the preface timeout.
            let speaks = tokio::select! {
                speaks = tokio::time::timeout(self.preface_timeout, speaks_http2(&stream)) => speaks,
                () = stop.cancelled() => return,
            };
            match speaks {
                Ok(Ok(true)) => {}
                Ok(Ok(false)) => {
                    self.judging.count_call(CallEnd::Http1);
                    tokio::select! {
                        () = answer_http1(&mut stream) => {}
                        () = stop.cancelled() => {}
                    }
                    return;
                }
                Ok(Err(_)) | Err(_) => return,
            }
            let upstream = Arc::new(UpstreamConnection {
                target: self.upstream.clone(),
                slot: std::sync::Mutex::new(Slot::Empty),
            });
            let proxy = Arc::new(self);
            // Whether the client made a call on this connection: one that
            // made none has nothing to drain when the proxy stops.
            let called = Arc::new(AtomicBool::new(false));
            let service = {
                let proxy = proxy.clone();
                let called = called.clone();
                service_fn(move |request| -> ForwardFuture {
                    called.store(true, Ordering::Release);
                    let proxy = proxy.clone();
                    let upstream = upstream.clone();
                    Box::pin(async move { proxy.forward(&upstream, request).await })
                })
            };
            let mut builder = hyper::server::conn::http2::Builder::new(calls);
            builder
                .timer(TokioTimer::new())
                .max_frame_size(MAX_FRAME_SIZE)
                .max_send_buf_size(CLIENT_SEND_BUFFER)
                // The client gets the upstream's headers, not a `date` the
                // proxy made up (grpc-go and grpc's C core send none).
                .auto_date_header(false)
                // As many concurrent calls as the upstream takes (tonic's
                // server sets no limit), not hyper's default of 200: long
                // subscriptions past 200 would hang behind the others.
                .max_concurrent_streams(None);
            if let Some(keepalive) = proxy.upstream.keepalive {
                // hyper's server pings idle connections too.
                builder
                    .keep_alive_interval(keepalive.interval)
                    .keep_alive_timeout(keepalive.timeout);
            }
            let conn = builder.serve_connection(TokioIo::new(stream), service);
            let mut conn = std::pin::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => {}
                () = stop.cancelled() => {
                    conn.as_mut().graceful_shutdown();
                    // hyper shuts a connection down only once its handshake
                    // is done (the client's whole preface read), and h2 then
                    // waits for the ack of the PING it sends with its GOAWAY:
                    // a client that never sends the rest of its preface, or
                    // never reads, would hold the stop up to the drain
                    // timeout with no call to drain. So a connection that
                    // carried no call gets `IDLE_CLOSE_GRACE` (a call sent
                    // before the client saw the GOAWAY still counts), then
                    // is closed. One that carried a call drains as it is.
                    let quiet = async {
                        tokio::time::sleep(IDLE_CLOSE_GRACE).await;
                        if called.load(Ordering::Acquire) {
                            std::future::pending::<()>().await;
                        }
                    };
                    tokio::select! {
                        _ = conn.as_mut() => {}
                        () = quiet => {}
                    }
                }
            }
        })
    }

    /// Forwards one call and answers with the upstream's response, judged
    /// when it is gRPC. Allocates the request's new URI, and the judged
    /// body's box; nothing per message.
    async fn forward(
        &self,
        upstream: &Arc<UpstreamConnection>,
        request: Request<Incoming>,
    ) -> Result<Response<ProxyBody>, hyper::Error> {
        let mut count = CallCount {
            judging: &self.judging,
            end: None,
            handed_over: false,
            cancel_upstream: None,
        };
        let grpc = is_grpc(request.headers());
        let deadline = request
            .headers()
            .get(GRPC_TIMEOUT)
            .filter(|_| grpc)
            .and_then(|value| parse_timeout(value.as_bytes()))
            .map(|timeout| (tokio::time::Instant::now() + timeout, timeout));
        let (mut parts, body) = request.into_parts();
        // Cancelled when the proxy drops the upstream's response before its
        // end (it ended the call itself): the request stops, and the
        // upstream stream is reset, even while the client still sends.
        let cancel = CancellationToken::new();
        let body = ToUpstream {
            body,
            cancelled: Box::pin(cancel.clone().cancelled_owned()),
        };
        count.cancel_upstream = Some(cancel.drop_guard());
        parts.uri = match self.upstream_uri(parts.uri.authority(), parts.uri.path_and_query()) {
            Ok(uri) => uri,
            // Not seen in practice: the parts come from a URI hyper parsed.
            // The call never reached the upstream, and counts so.
            Err(err) => {
                let message = err.to_string();
                return Ok(count.refuse(grpc, Code::Internal, CallEnd::Unreachable, &message));
            }
        };
        if grpc {
            parts
                .headers
                .insert(GRPC_ACCEPT_ENCODING, HeaderValue::from_static("identity"));
        }
        // The deadline bounds the connect too: a call does not wait out an
        // upstream that drops SYNs.
        // The connection's link, kept for the call's errors.
        let mut link = None;
        let call = async {
            let mut request = Request::from_parts(parts, body);
            // A connection the upstream shut down gracefully (a GOAWAY, as
            // a server draining or at its maximum connection age sends)
            // takes no new call, and hyper learns so only when a call
            // wakes it: that call comes back unsent, and is sent once more
            // on a new connection.
            let mut retry = true;
            loop {
                let Upstream {
                    mut sender,
                    link: open,
                } = upstream.sender().await.map_err(Failed::Connect)?;
                link = Some(open);
                sender.ready().await.map_err(Failed::Call)?;
                match sender.try_send_request(request).await {
                    Ok(response) => return Ok(response),
                    Err(mut failed) => match failed.take_message() {
                        Some(unsent) if retry => {
                            retry = false;
                            request = unsent;
                        }
                        _ => return Err(Failed::Call(failed.into_error())),
                    },
                }
            }
        };
        let response = match deadline {
            Some((at, timeout)) => match tokio::time::timeout_at(at, call).await {
                Ok(response) => response,
                Err(_) => {
                    let message = format!(
                        "proxy: deadline exceeded ({} ms grpc-timeout) before the upstream answered",
                        timeout.as_millis()
                    );
                    return Ok(count.refuse(
                        grpc,
                        Code::DeadlineExceeded,
                        CallEnd::DeadlineExceeded,
                        &message,
                    ));
                }
            },
            None => call.await,
        };
        // Where a keepalive runs, the connection's link says whether a
        // missed ping is why it broke under the call.
        let link = link.filter(|_| self.upstream.keepalive.is_some());
        let response = match response {
            Ok(response) => response,
            // The upstream reset the stream: so does the client's, with the
            // same reason.
            Err(Failed::Call(err)) if is_reset(&err) => {
                count.ended(CallEnd::UpstreamError);
                return Err(err);
            }
            Err(err) => {
                let end = match err {
                    Failed::Connect(_) => CallEnd::Unreachable,
                    Failed::Call(_) => CallEnd::ConnectionLost,
                };
                // A lost connection says so, as it does after the response
                // headers (the judged body's own message).
                let message = match err {
                    Failed::Connect(_) => format!("proxy: upstream {}: {err}", self.upstream.addr),
                    Failed::Call(_) => format!(
                        "proxy: upstream connection lost: upstream {}: {err}",
                        self.upstream.addr
                    ),
                };
                let message = match (&err, &link) {
                    (Failed::Call(err), Some(link)) => {
                        link.clone().lost(&self.upstream, err, message).await
                    }
                    _ => message,
                };
                return Ok(count.refuse(grpc, Code::Unavailable, end, &message));
            }
        };
        let (mut parts, body) = response.into_parts();
        // Judged when a gRPC client would read messages from it: what the
        // response says counts, not only what the request said (tonic's
        // server answers gRPC whatever the request's content-type).
        let read_as_grpc = (grpc && parts.status == StatusCode::OK) || is_grpc(&parts.headers);
        // grpc-web carries the same messages in a body the proxy does not
        // judge (its trailers are a frame of it; `-text` is base64): never
        // passed on unjudged, nor read as gRPC where the call asked for
        // gRPC (its trailer frame would read as a bad flag, `-text` as
        // bytes that are not frames). The client gets a status it reads.
        if is_grpc_web(&parts.headers) {
            drop(body);
            count.ended(CallEnd::GrpcWeb);
            return Ok(refuse_grpc_web(&parts.headers, &self.upstream.addr, grpc));
        }
        // A gRPC call answered with an HTTP status other than 200 and a
        // response that is not gRPC, with a body: grpc-go and grpc's C core
        // fail such a call with the code gRPC maps the status to and read
        // nothing of the body, but tonic reads messages from it whatever
        // the status. So it is not passed on unjudged: the client gets that
        // code, trailers-only, and the body is dropped unread (which
        // cancels the upstream stream).
        if grpc && !read_as_grpc && !body.is_end_stream() {
            drop(body);
            count.ended(CallEnd::UpstreamError);
            return Ok(refuse_http_error(&parts, &self.upstream.addr));
        }
        // Trailers-only: HEADERS that end the stream (h2's END_STREAM).
        if !read_as_grpc || body.is_end_stream() {
            // Counted now: the proxy does not follow a body it passes on.
            count.ended(match read_as_grpc {
                true => upstream_end(Some(&parts.headers)),
                false if parts.status.is_success() => CallEnd::UpstreamOk,
                false => CallEnd::UpstreamError,
            });
            // The request goes on as the client sends it.
            count.upstream_ends();
            return Ok(Response::from_parts(parts, ProxyBody::Through(body)));
        }
        if let Some(status) = parts.headers.get(GRPC_STATUS) {
            let status = status.clone();
            return self
                .status_in_headers(&mut count, parts, body, status, deadline, link)
                .await;
        }
        // Dropped frames change the length: a length the upstream gave
        // (rare in gRPC) no longer holds.
        parts.headers.remove(CONTENT_LENGTH);
        // The encodings, as one text: given twice, no one of them is read
        // (tonic reads the first, grpc-go the last), so no compressed frame
        // is judged by what one client would not read.
        let encoding = parts
            .headers
            .get_all(GRPC_ENCODING)
            .iter()
            .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
            .reduce(|first, next| format!("{first}, {next}"))
            .filter(|encoding| encoding != "identity");
        let lost_to = link.map(|link| (link, self.upstream.clone()));
        let body = JudgedBody::new(
            body,
            encoding,
            self.judging.clone(),
            deadline,
            lost_to,
            count.cancel_upstream.take(),
        );
        // The judged body counts the call when it ends.
        count.handed_over = true;
        Ok(Response::from_parts(
            parts,
            ProxyBody::Judged(Box::new(body)),
        ))
    }

    /// The answer to a gRPC response whose headers carry a `grpc-status`
    /// and do not end the stream. An error status is final, as a gRPC
    /// client reads it: it goes to the client at once as a trailers-only
    /// response, and whatever follows is dropped unread (which cancels the
    /// upstream stream). Status 0 is read ahead, until the deadline: a
    /// stream that ends with nothing more (empty DATA frames, empty
    /// trailers) is the trailers-only response it meant to be; any bytes
    /// or trailers after it are refused with INTERNAL, never sent on
    /// unjudged.
    async fn status_in_headers(
        &self,
        count: &mut CallCount<'_>,
        mut parts: http::response::Parts,
        mut body: Incoming,
        status: HeaderValue,
        deadline: Option<(tokio::time::Instant, Duration)>,
        link: Option<Arc<Link>>,
    ) -> Result<Response<ProxyBody>, hyper::Error> {
        // Answered trailers-only (HEADERS that end the stream): a length
        // the upstream gave its body would make them malformed (RFC 9113,
        // 8.1.1), and the client's h2 would reset the stream.
        parts.headers.remove(CONTENT_LENGTH);
        if status.as_bytes() != b"0" {
            drop(body);
            count.ended(CallEnd::UpstreamError);
            return Ok(Response::from_parts(parts, ProxyBody::Empty));
        }
        let rest = async {
            while let Some(frame) = body.frame().await {
                let frame = frame?;
                let empty = match frame.data_ref() {
                    Some(data) => data.is_empty(),
                    None => frame.trailers_ref().is_some_and(HeaderMap::is_empty),
                };
                if !empty {
                    return Ok(false);
                }
            }
            Ok(true)
        };
        let ended_empty = match deadline {
            Some((at, timeout)) => match tokio::time::timeout_at(at, rest).await {
                Ok(ended) => ended,
                Err(_) => {
                    let message = format!(
                        "proxy: deadline exceeded ({} ms grpc-timeout) before the upstream \
                         ended its response",
                        timeout.as_millis()
                    );
                    return Ok(count.refuse(
                        true,
                        Code::DeadlineExceeded,
                        CallEnd::DeadlineExceeded,
                        &message,
                    ));
                }
            },
            None => rest.await,
        };
        match ended_empty {
            Ok(true) => {
                // The upstream's own end: the request goes on as it came.
                count.upstream_ends();
                count.ended(CallEnd::UpstreamOk);
                Ok(Response::from_parts(parts, ProxyBody::Empty))
            }
            Ok(false) => {
                drop(body);
                let message = format!(
                    "proxy: upstream {} sent grpc-status 0 in its response headers and \
                     then a body; a trailers-only response must end with its headers",
                    self.upstream.addr
                );
                Ok(count.refuse(true, Code::Internal, CallEnd::StatusThenBody, &message))
            }
            Err(err) if is_reset(&err) => {
                count.ended(CallEnd::UpstreamError);
                Err(err)
            }
            Err(err) => {
                let message = format!("proxy: upstream connection lost: {err}");
                let message = match link {
                    Some(link) => link.lost(&self.upstream, &err, message).await,
                    None => message,
                };
                Ok(count.refuse(true, Code::Unavailable, CallEnd::ConnectionLost, &message))
            }
        }
    }

    /// The URI a request goes upstream with: the client's own `:authority`
    /// (the upstream's when the client sent none), path and query. Where it
    /// goes is the upstream's address whatever the authority says.
    fn upstream_uri(
        &self,
        authority: Option<&Authority>,
        path: Option<&PathAndQuery>,
    ) -> Result<Uri, http::Error> {
        Uri::builder()
            .scheme(self.upstream.scheme.clone())
            .authority(
                authority
                    .cloned()
                    .unwrap_or_else(|| self.upstream.authority.clone()),
            )
            .path_and_query(
                path.cloned()
                    .unwrap_or_else(|| PathAndQuery::from_static("/")),
            )
            .build()
    }
}

/// Parses `upstream` and checks that the proxy can forward to it:
/// `http://HOST[:PORT]` (h2c; the port defaults to 80, and 0 is refused),
/// with no path but `/` and no fragment, since calls go to the client's own
/// path. The command line's `--upstream` runs this, so a bad value is a
/// usage error that names the flag. O(length of `upstream`); connects to
/// nothing.
///
/// # Errors
///
/// Why the proxy cannot forward there, in words for a person.
///
/// ```
/// use triage::proxy::parse_upstream;
///
/// assert!(parse_upstream("http://127.0.0.1:50052").is_ok());
/// assert!(parse_upstream("https://127.0.0.1:50052").unwrap_err().contains("TLS"));
/// assert!(parse_upstream("http://127.0.0.1:50052/v1").unwrap_err().contains("path"));
/// assert!(parse_upstream("http://127.0.0.1:50052#v1").unwrap_err().contains("fragment"));
/// ```
pub fn parse_upstream(upstream: &str) -> Result<Uri, String> {
    // The http crate drops a fragment without a word: refused, as a path is.
    if let Some((_, fragment)) = upstream.split_once('#') {
        return Err(format!(
            "a fragment (`#{fragment}`) is not supported: give http://HOST:PORT"
        ));
    }
    let uri: Uri = upstream
        .parse()
        .map_err(|err| format!("expected http://HOST:PORT: {err}"))?;
    Target::of(&uri)?;
    Ok(uri)
}

impl Target {
    /// Where `upstream` says to connect, with the default connect timeout;
    /// or why the proxy cannot forward there.
    fn of(upstream: &Uri) -> Result<Target, String> {
        match upstream.scheme_str() {
            Some("http") => {}
            Some("https") => return Err("TLS is not supported; use http:// (h2c)".into()),
            _ => return Err("expected http://HOST:PORT".into()),
        }
        let authority = upstream
            .authority()
            .cloned()
            .ok_or_else(|| "expected http://HOST:PORT, with a host".to_owned())?;
        if let Some(path) = upstream.path_and_query() {
            if !matches!(path.as_str(), "" | "/") {
                return Err(format!(
                    "a path (`{path}`) is not supported: calls go to the client's own \
                     path; give http://HOST:PORT"
                ));
            }
        }
        if authority.host().is_empty() {
            return Err("expected http://HOST:PORT, with a host".into());
        }
        // Credentials have no place in HTTP/2's `:authority` (RFC 9113,
        // 8.3.1), which the proxy sends for a client that gives none, nor in
        // the lines that name the upstream.
        if authority.as_str().contains('@') {
            return Err("credentials (`user@`) are not supported: give http://HOST:PORT".into());
        }
        // The http crate reads a port that is not one (`:99999`, `:1a`, an
        // empty `:`) as no port at all: refused here, never taken for 80.
        let host_port = authority.as_str();
        if host_port.len() > authority.host().len() && authority.port_u16().is_none() {
            return Err(format!(
                "`{host_port}` has no valid port (a number up to 65535 after the `:`); give \
                 http://HOST:PORT"
            ));
        }
        if authority.port_u16() == Some(0) {
            return Err(format!(
                "`{host_port}` has port 0, which nothing can be reached on; give \
                 http://HOST:PORT"
            ));
        }
        let addr = format!(
            "{}:{}",
            authority.host(),
            authority.port_u16().unwrap_or(80)
        );
        Ok(Target {
            scheme: Scheme::HTTP,
            authority,
            addr,
            connect_timeout: CONNECT_TIMEOUT,
            keepalive: None,
        })
    }
}

/// Serves h2c on `listener` as a proxy to `upstream`, judging gRPC
/// responses with `judge` against `policy`, until `shutdown` completes;
/// returns the tally of every call. [`Proxy::new`] and [`Proxy::serve`] in
/// one call; see them for the costs and the errors.
///
/// # Errors
///
/// [`ProxyError::Upstream`] for an `upstream` that is not `http://HOST:PORT`.
///
/// ```no_run
/// use triage::{judge::Judge, policy::Policy, proxy};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:50051").await?;
/// let shutdown = async { let _ = tokio::signal::ctrl_c().await; };
/// let tally = proxy::serve(listener, "http://127.0.0.1:50052", Judge::Optics, Policy::default(), shutdown).await?;
/// # Ok(()) }
/// ```
pub fn serve(
    listener: TcpListener,
    upstream: &str,
    judge: Judge,
    policy: Policy,
    shutdown: impl Future<Output = ()>,
) -> impl Future<Output = Result<Tally, ProxyError>> {
    // Checked now, so that the future borrows nothing and can be spawned.
    let proxy = Proxy::new(upstream, judge, policy);
    async move { proxy?.serve(listener, shutdown).await }
}

/// Runs each call of the proxy's client connections in a tokio task of its
/// own, as hyper's `TokioExecutor` does, each task holding a clone of
/// `running`: [`Proxy::serve`] knows every call ended when the channel
/// closes. Nothing is ever sent on it.
#[derive(Clone)]
struct CallExecutor {
    running: mpsc::Sender<()>,
}

impl<F> hyper::rt::Executor<F> for CallExecutor
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    fn execute(&self, call: F) {
        let running = self.running.clone();
        tokio::spawn(async move {
            let _running = running;
            call.await;
        });
    }
}

/// A call being forwarded (boxed: its type is named in the service).
type ForwardFuture =
    std::pin::Pin<Box<dyn Future<Output = Result<Response<ProxyBody>, hyper::Error>> + Send>>;

/// A call's request body on its way upstream: the client's own, until the
/// proxy ends the call itself (its guard dropped) while the client still
/// sends. hyper's client sends the request from a task of its own that
/// keeps the upstream stream open after the response was dropped; this
/// body then fails with CANCEL, so that task resets the upstream stream
/// (RST_STREAM CANCEL) instead of forwarding the rest of the request to a
/// call that ended.
pub(crate) struct ToUpstream {
    body: Incoming,
    cancelled: std::pin::Pin<Box<WaitForCancellationFutureOwned>>,
}

impl http_body::Body for ToUpstream {
    type Data = Bytes;
    /// The client's own error (its reset, whose reason goes upstream), or
    /// CANCEL.
    type Error = Box<dyn StdError + Send + Sync>;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        if this.cancelled.as_mut().poll(cx).is_ready() {
            return std::task::Poll::Ready(Some(Err(Box::new(h2::Error::from(
                h2::Reason::CANCEL,
            )))));
        }
        std::pin::Pin::new(&mut this.body)
            .poll_frame(cx)
            .map_err(Into::into)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// Why a call got no response from the upstream.
enum Failed {
    /// No connection: refused, timed out, handshake failed.
    Connect(Arc<io::Error>),
    /// The connection failed or the upstream reset the stream.
    Call(hyper::Error),
}

impl fmt::Display for Failed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failed::Connect(err) => err.fmt(f),
            Failed::Call(err) => err.fmt(f),
        }
    }
}

/// The outcome of one connect attempt, shared by every call that waited on
/// it.
type Connected = Result<Upstream, Arc<io::Error>>;

/// The upstream connection of one client connection, made on its first call
/// and again after it closes (or after a connect failed).
struct UpstreamConnection {
    target: Arc<Target>,
    slot: std::sync::Mutex<Slot>,
}

/// Where a client connection's upstream connection stands.
enum Slot {
    /// None yet, or the last attempt failed.
    Empty,
    /// An attempt is under way; its outcome will be sent here.
    Connecting(watch::Receiver<Option<Connected>>),
    /// Connected (closed once `is_closed` says so).
    Open(Upstream),
}

impl UpstreamConnection {
    /// A handle to send a call on, connecting first if there is no open
    /// connection. One short lock per call, never held across an await.
    /// Calls that come while a connect is under way wait for that attempt
    /// and share its outcome, error included: N calls to a dead upstream
    /// fail after one connect timeout, not N. The attempt runs in its own
    /// task, so a call that gives up waiting (its deadline) does not cancel
    /// it for the others.
    async fn sender(self: &Arc<Self>) -> Result<Upstream, Arc<io::Error>> {
        let mut outcome = {
            let mut slot = self.slot.lock().unwrap_or_else(PoisonError::into_inner);
            match &*slot {
                Slot::Open(open) if !open.sender.is_closed() => return Ok(open.clone()),
                Slot::Connecting(outcome) => outcome.clone(),
                Slot::Open(_) | Slot::Empty => {
                    let (send, outcome) = watch::channel(None);
                    *slot = Slot::Connecting(outcome.clone());
                    tokio::spawn(self.clone().connect(send));
                    outcome
                }
            }
        };
        let shared = outcome.wait_for(Option::is_some).await;
        match shared.as_deref() {
            Ok(Some(connected)) => connected.clone(),
            // The attempt's task ended without an outcome: the runtime is
            // shutting down.
            Ok(None) | Err(_) => Err(Arc::new(io::Error::other("connect abandoned"))),
        }
    }

    /// One connect attempt, bounded by the connect timeout: leaves the
    /// outcome in the slot for later calls and sends it to the calls that
    /// waited on it.
    async fn connect(self: Arc<Self>, waiting: watch::Sender<Option<Connected>>) {
        let timeout = self.target.connect_timeout;
        let connected = match tokio::time::timeout(timeout, handshake(&self.target)).await {
            Ok(connected) => connected.map_err(Arc::new),
            Err(_) => Err(Arc::new(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("connect timed out after {} ms", timeout.as_millis()),
            ))),
        };
        let mut slot = self.slot.lock().unwrap_or_else(PoisonError::into_inner);
        *slot = match &connected {
            Ok(open) => Slot::Open(open.clone()),
            Err(_) => Slot::Empty,
        };
        waiting.send_replace(Some(connected));
    }
}

/// What an HTTP/2 client sends first (RFC 9113, 3.4).
const HTTP2_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// Whether a client sent HTTP/2's preface: true once all of it arrived,
/// false as soon as what arrived is not its start (`P` alone could still
/// be `POST`, so the rest is waited for). Reads nothing off the socket. An
/// error for a client that closed before sending anything. While part of
/// the preface has come, the socket stays readable, so the rest is looked
/// for after a pause that doubles, from 1 ms to 100 ms.
async fn speaks_http2(stream: &TcpStream) -> io::Result<bool> {
    let mut first = [0; HTTP2_PREFACE.len()];
    let mut pause = Duration::from_millis(1);
    loop {
        match stream.peek(&mut first).await? {
            0 => return Err(io::ErrorKind::UnexpectedEof.into()),
            n if !HTTP2_PREFACE.starts_with(&first[..n]) => return Ok(false),
            n if n == HTTP2_PREFACE.len() => return Ok(true),
            _ => {
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(Duration::from_millis(100));
            }
        }
    }
}

/// The answer to a client that does not speak HTTP/2: `505`, saying what
/// the proxy speaks, then the connection closes. What the client sent is
/// read and dropped (a second at most), so that closing does not reset the
/// connection before the client read the answer.
async fn answer_http1(stream: &mut TcpStream) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    const TEXT: &str = "proxy: this is a gRPC proxy that speaks HTTP/2 without TLS (h2c, \
                        prior knowledge) only; HTTP/1.1 and upgrades to h2c are not served\n";
    let answer = format!(
        "HTTP/1.1 505 HTTP Version Not Supported\r\ncontent-type: text/plain; \
         charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{TEXT}",
        TEXT.len()
    );
    if stream.write_all(answer.as_bytes()).await.is_err() || stream.shutdown().await.is_err() {
        return;
    }
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        let mut sink = [0; 4096];
        while matches!(stream.read(&mut sink).await, Ok(n) if n > 0) {}
    })
    .await;
}

/// Connects to the upstream and starts an HTTP/2 connection on it, with
/// the keepalive when there is one.
async fn handshake(target: &Target) -> Result<Upstream, io::Error> {
    let stream = TcpStream::connect(&target.addr).await?;
    let _ = stream.set_nodelay(true);
    let mut builder = hyper::client::conn::http2::Builder::new(TokioExecutor::new());
    builder
        // Keepalive needs the timer.
        .timer(TokioTimer::new())
        .initial_stream_window_size(UPSTREAM_STREAM_WINDOW)
        .initial_connection_window_size(UPSTREAM_CONNECTION_WINDOW)
        .max_frame_size(MAX_FRAME_SIZE);
    if let Some(keepalive) = target.keepalive {
        builder
            .keep_alive_interval(keepalive.interval)
            .keep_alive_timeout(keepalive.timeout)
            // Only while a call is open: grpc servers by default punish
            // pings on a connection with no call, and an idle connection
            // found dead costs nothing; a call on a connection quiet for
            // longer than the interval gets a PING at once.
            .keep_alive_while_idle(false);
    }
    let (sender, connection) = builder
        .handshake(TokioIo::new(stream))
        .await
        .map_err(io::Error::other)?;
    let link = Arc::new(Link::default());
    // Runs until every handle to it is dropped and its calls are done, or
    // until it fails. A missed keepalive ping fails it with a timeout
    // (hyper's only timeout on an HTTP/2 client connection).
    tokio::spawn({
        let link = link.clone();
        async move {
            if connection.await.is_err_and(|err| err.is_timeout()) {
                link.missed_ping.store(true, Ordering::Release);
            }
            link.ended.cancel();
        }
    });
    Ok(Upstream { sender, link })
}

/// An open upstream connection: where to send calls, and how it ended.
#[derive(Clone)]
struct Upstream {
    sender: SendRequest<ToUpstream>,
    link: Arc<Link>,
}

/// How an upstream connection ended, for the calls that were on it.
#[derive(Debug, Default)]
struct Link {
    /// Cancelled when the connection's task ended.
    ended: CancellationToken,
    /// Set, before `ended`, when the connection ended because the upstream
    /// did not answer a keepalive ping in time.
    missed_ping: AtomicBool,
}

/// How long a call whose upstream connection broke waits for the
/// connection's task to say why (it ends at once in practice).
const LINK_GRACE: Duration = Duration::from_secs(1);

impl Link {
    /// The `grpc-message` of a call whose upstream connection broke under
    /// it with `err`: `otherwise`, the message the call gets without a
    /// keepalive, unless the upstream stopped answering pings. Where a
    /// keepalive runs and `err` is an I/O error (how a connection closed
    /// for a missed ping shows to its calls), waits for the connection's
    /// task to end (at most [`LINK_GRACE`]) to tell.
    fn lost(
        self: Arc<Self>,
        target: &Target,
        err: &hyper::Error,
        otherwise: String,
    ) -> impl Future<Output = String> + Send + 'static {
        let keepalive = target.keepalive.filter(|_| err.is_timeout() || is_io(err));
        // A call that waits for its headers gets the keepalive's own
        // timeout (hyper's only timeout on an HTTP/2 client connection):
        // that says it without the connection's task.
        let timed_out = err.is_timeout();
        let addr = target.addr.clone();
        async move {
            if let Some(keepalive) = keepalive {
                if !timed_out {
                    let _ = tokio::time::timeout(LINK_GRACE, self.ended.cancelled()).await;
                }
                if timed_out || self.missed_ping.load(Ordering::Acquire) {
                    return format!(
                        "proxy: upstream connection lost: upstream {addr} stopped answering \
                         HTTP/2 pings (no ack within {} ms)",
                        keepalive.timeout.as_millis()
                    );
                }
            }
            otherwise
        }
    }
}

/// Whether a client error is an I/O error under h2 (the connection broke
/// or closed), rather than a reset or a GOAWAY.
fn is_io(err: &hyper::Error) -> bool {
    let mut source = err.source();
    while let Some(cause) = source {
        if let Some(h2) = cause.downcast_ref::<h2::Error>() {
            return h2.is_io();
        }
        if cause.downcast_ref::<io::Error>().is_some() {
            return true;
        }
        source = cause.source();
    }
    false
}

/// Whether a client error is the upstream resetting the stream (rather than
/// a connection that failed).
fn is_reset(err: &hyper::Error) -> bool {
    let mut source = err.source();
    while let Some(cause) = source {
        if let Some(h2) = cause.downcast_ref::<h2::Error>() {
            return h2.is_reset();
        }
        source = cause.source();
    }
    false
}

/// Counts one call of [`Proxy::forward`] once: as it was answered, or, when
/// the call is dropped unanswered, as cancelled by its client or cut by a
/// shutdown; unless a judged body took the counting over. One lock per call.
struct CallCount<'a> {
    judging: &'a Judging,
    /// How the call ended; `None` while it has no answer.
    end: Option<CallEnd>,
    /// Whether a judged body counts the call when it ends.
    handed_over: bool,
    /// Dropped with the call (or handed to its judged body), it cancels
    /// the request going upstream, which resets the upstream stream where
    /// the client still sends (see [`ToUpstream`]); disarmed where the
    /// client gets the upstream's own response, to its end.
    cancel_upstream: Option<DropGuard>,
}

impl CallCount<'_> {
    /// The client gets the upstream's own response, to its end: the request
    /// goes on as the client sends it.
    fn upstream_ends(&mut self) {
        if let Some(guard) = self.cancel_upstream.take() {
            guard.disarm();
        }
    }

    /// The call ended as `end`.
    fn ended(&mut self, end: CallEnd) {
        self.end = Some(end);
    }

    /// The proxy's own answer ([`refuse`]), counted as `end` for a gRPC
    /// call and as a 502 for any other.
    fn refuse(
        &mut self,
        grpc: bool,
        code: Code,
        end: CallEnd,
        message: &str,
    ) -> Response<ProxyBody> {
        self.ended(if grpc { end } else { CallEnd::BadGateway });
        refuse(grpc, code, message)
    }
}

impl Drop for CallCount<'_> {
    fn drop(&mut self) {
        if !self.handed_over {
            let end = self.end.unwrap_or_else(|| self.judging.dropped_end());
            self.judging.count_call(end);
        }
    }
}

/// The proxy's own answer when it cannot forward a call: a trailers-only
/// gRPC response with `code` and `message`, or `502 Bad Gateway` with
/// `message` as its plain-text body for a call that is not gRPC.
fn refuse(grpc: bool, code: Code, message: &str) -> Response<ProxyBody> {
    if !grpc {
        let mut response =
            Response::new(ProxyBody::Text(Some(Bytes::from(format!("{message}\n")))));
        *response.status_mut() = StatusCode::BAD_GATEWAY;
        response.headers_mut().insert(
            CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        return response;
    }
    let mut response = Response::new(ProxyBody::Empty);
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/grpc"));
    headers.insert(GRPC_STATUS, code.header_value());
    if let Ok(value) = HeaderValue::from_str(&percent_encode(message)) {
        headers.insert(GRPC_MESSAGE, value);
    }
    response
}

/// The proxy's answer where the upstream answered grpc-web (its response
/// `headers`): a trailers-only response, UNIMPLEMENTED (12) and a message
/// saying why. Its content-type is gRPC's where the call asked for gRPC
/// (`grpc`: a gRPC client reads no status under another), the upstream's
/// otherwise (a grpc-web client reads it).
fn refuse_grpc_web(headers: &HeaderMap, upstream: &str, grpc: bool) -> Response<ProxyBody> {
    let content_type = headers.get(CONTENT_TYPE).cloned();
    let answered = content_type.as_ref().map_or(String::new(), |ct| {
        String::from_utf8_lossy(ct.as_bytes()).into_owned()
    });
    let message = if grpc {
        format!(
            "proxy: upstream {upstream} answered grpc-web ({answered}) to a gRPC call; \
             the proxy does not judge grpc-web, so it forwards none of its messages"
        )
    } else {
        format!(
            "proxy: upstream {upstream} answered grpc-web ({answered}), whose messages the \
             proxy does not judge, so it forwards none of them; call it with gRPC \
             (application/grpc)"
        )
    };
    let mut response = refuse(true, Code::Unimplemented, &message);
    if let (Some(content_type), false) = (content_type, grpc) {
        response.headers_mut().insert(CONTENT_TYPE, content_type);
    }
    response
}

/// The proxy's answer where the upstream answered a gRPC call with an HTTP
/// status other than 200 and a response that is not gRPC (its `parts`),
/// with a body: a trailers-only response with the code gRPC maps the status
/// to ([`Code::of_http`]) and a message that says what came.
fn refuse_http_error(parts: &http::response::Parts, upstream: &str) -> Response<ProxyBody> {
    let content_type = parts.headers.get(CONTENT_TYPE).map_or_else(
        || "no content-type".to_owned(),
        |ct| format!("content-type {}", String::from_utf8_lossy(ct.as_bytes())),
    );
    let message = format!(
        "proxy: upstream {upstream} answered the gRPC call with HTTP {} and {content_type}, \
         not a gRPC response; the proxy forwards nothing of a body it does not judge",
        parts.status
    );
    refuse(true, Code::of_http(parts.status), &message)
}

/// Why the proxy could not start.
#[derive(Debug)]
pub enum ProxyError {
    /// The upstream address is not one the proxy can forward to.
    Upstream(String),
    /// A socket operation failed; `context` says which.
    Io {
        /// What was being done.
        context: String,
        /// The error.
        err: io::Error,
    },
    /// A peer of a loopback run failed, or its call did not end with OK.
    Peer(String),
}

impl fmt::Display for ProxyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProxyError::Upstream(why) => write!(f, "upstream {why}"),
            ProxyError::Io { context, err } => write!(f, "{context}: {err}"),
            ProxyError::Peer(why) => f.write_str(why),
        }
    }
}

impl StdError for ProxyError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match self {
            ProxyError::Upstream(_) | ProxyError::Peer(_) => None,
            ProxyError::Io { err, .. } => err.source(),
        }
    }
}
