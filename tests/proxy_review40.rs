//! The proxy's keepalive under calls at every stage, with real peers on
//! 127.0.0.1: a hand-made hyper h2c upstream that answers each call when
//! the test says, a hand-made hyper h2c client, and a TCP relay whose
//! connections can be frozen (no byte moves, both sockets stay open) or
//! cut, one connection at a time.

#[path = "support/frozen_pump.rs"]
mod frozen_pump;
#[path = "support/proxy_checks.rs"]
mod proxy_checks;
#[path = "support/running_proxy.rs"]
mod running_proxy;
use frozen_pump::pump;
use proxy_checks::h2c_client;
use running_proxy::Running;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use http::{HeaderMap, HeaderValue, Request, Response};
use http_body::{Body, Frame};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::{AbortHandle, JoinHandle};
use triage::model::Issue;
use triage::policy::Policy;
use triage::pool::Pool;
use triage::proxy::{CallEnd, Tally};

const SECOND: Duration = Duration::from_secs(1);
const INTERVAL: Duration = Duration::from_millis(200);
const TIMEOUT: Duration = Duration::from_millis(300);
/// How long a frozen peer may take to be found dead on a loaded machine.
const BOUND: Duration = Duration::from_secs(3);

/// One kept message, as a whole gRPC frame (checked with serde_json).
fn kept_frame() -> Bytes {
    let pool = Pool::generate(7, 7, 256).expect("messages frame");
    let message = (0..256)
        .map(|i| pool.message(i))
        .find(|message| {
            serde_json::from_slice::<Issue>(message)
                .is_ok_and(|issue| Policy::default().keep(&issue.detail))
        })
        .expect("a kept message");
    let mut frame = BytesMut::new();
    triage::frames::encode(&message, &mut frame).unwrap();
    frame.freeze()
}

// ---- The upstream: each call handed to the test ----

/// A response body fed by the test, frame by frame; dropping the sender
/// ends it.
struct Fed(mpsc::UnboundedReceiver<Frame<Bytes>>, Option<Gone>);

impl Body for Fed {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.0.poll_recv(cx).map(|frame| frame.map(Ok))
    }
}

/// Sends once when the upstream's side of a call is dropped (the call
/// ended or was reset).
struct Gone(Option<oneshot::Sender<()>>);

impl Drop for Gone {
    fn drop(&mut self) {
        if let Some(gone) = self.0.take() {
            let _ = gone.send(());
        }
    }
}

/// A call as the upstream got it: answer it with `respond`; `gone` fires
/// when the upstream's side of it is dropped.
struct Arrived {
    respond: Option<oneshot::Sender<Response<Fed>>>,
    gone: oneshot::Receiver<()>,
    feed: Option<mpsc::UnboundedSender<Frame<Bytes>>>,
}

impl Arrived {
    /// Answers with `headers` and a body the test feeds through the
    /// returned sender (its first frames `first`).
    fn answer(&mut self, headers: &[(&'static str, &'static str)], first: Vec<Frame<Bytes>>) {
        let (feed, fed) = mpsc::unbounded_channel();
        for frame in first {
            feed.send(frame).unwrap();
        }
        let mut response = Response::new(Fed(fed, None));
        for (name, value) in headers {
            response
                .headers_mut()
                .append(*name, HeaderValue::from_static(value));
        }
        if let Some(respond) = self.respond.take() {
            let _ = respond.send(response);
        }
        self.feed = Some(feed);
    }
}

/// The upstream: a hyper h2c server on 127.0.0.1 handing each call to the
/// test; `kill` drops every connection it has (a close, as of a peer whose
/// process ended).
struct Upstream {
    addr: SocketAddr,
    arrived: mpsc::UnboundedReceiver<Arrived>,
    connections: Arc<Mutex<Vec<AbortHandle>>>,
    task: JoinHandle<()>,
}

impl Drop for Upstream {
    fn drop(&mut self) {
        self.task.abort();
        self.kill();
    }
}

impl Upstream {
    async fn start() -> Upstream {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (calls, arrived) = mpsc::unbounded_channel();
        let connections = Arc::new(Mutex::new(Vec::new()));
        let task = tokio::spawn({
            let connections = connections.clone();
            async move {
                loop {
                    let Ok((stream, _)) = listener.accept().await else {
                        continue;
                    };
                    let _ = stream.set_nodelay(true);
                    let calls = calls.clone();
                    let service = service_fn(move |_request: Request<Incoming>| {
                        let (respond, response) = oneshot::channel();
                        let (gone_tx, gone) = oneshot::channel();
                        // Held by this future until the call is answered,
                        // then by its body: dropped when the call ends or
                        // is reset.
                        let guard = Gone(Some(gone_tx));
                        let _ = calls.send(Arrived {
                            respond: Some(respond),
                            gone,
                            feed: None,
                        });
                        async move {
                            match response.await {
                                Ok(mut response) => {
                                    response.body_mut().1 = Some(guard);
                                    Ok::<_, Infallible>(response)
                                }
                                Err(_) => std::future::pending().await,
                            }
                        }
                    });
                    let connection = tokio::spawn(async move {
                        let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                            .serve_connection(TokioIo::new(stream), service)
                            .await;
                    });
                    connections.lock().unwrap().push(connection.abort_handle());
                }
            }
        });
        Upstream {
            addr,
            arrived,
            connections,
            task,
        }
    }

    /// The next call to arrive (within [`BOUND`]).
    async fn next(&mut self) -> Arrived {
        tokio::time::timeout(BOUND, self.arrived.recv())
            .await
            .expect("a call reaches the upstream")
            .unwrap()
    }

    fn kill(&self) {
        for connection in self.connections.lock().unwrap().drain(..) {
            connection.abort();
        }
    }
}

// ---- The relay: freezes or cuts its connections of the moment ----

struct Relay {
    addr: SocketAddr,
    /// One switch per connection made so far and not frozen yet.
    switches: Arc<Mutex<Vec<watch::Sender<bool>>>>,
    accepted: Arc<Mutex<u32>>,
    task: JoinHandle<()>,
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Relay {
    async fn start(target: SocketAddr) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let switches = Arc::new(Mutex::new(Vec::new()));
        let accepted = Arc::new(Mutex::new(0));
        let task = tokio::spawn({
            let switches = switches.clone();
            let accepted = accepted.clone();
            async move {
                let mut pumps = tokio::task::JoinSet::new();
                loop {
                    let Ok((near, _)) = listener.accept().await else {
                        continue;
                    };
                    let Ok(far) = TcpStream::connect(target).await else {
                        continue;
                    };
                    *accepted.lock().unwrap() += 1;
                    let _ = (near.set_nodelay(true), far.set_nodelay(true));
                    let (frozen, _) = watch::channel(false);
                    let (near_read, near_write) = near.into_split();
                    let (far_read, far_write) = far.into_split();
                    let (near_frozen, far_frozen) = (frozen.subscribe(), frozen.subscribe());
                    // The switch is in place before a byte moves: a call
                    // can cross the relay and reach the upstream before
                    // this task runs again, and a `freeze` then must reach
                    // this connection too.
                    switches.lock().unwrap().push(frozen);
                    pumps.spawn(pump(near_read, far_write, near_frozen, Arc::default()));
                    pumps.spawn(pump(far_read, near_write, far_frozen, Arc::default()));
                }
            }
        });
        Relay {
            addr,
            switches,
            accepted,
            task,
        }
    }

    /// Freezes every connection made so far; later ones move bytes.
    fn freeze(&self) {
        for switch in self.switches.lock().unwrap().drain(..) {
            switch.send_replace(true);
        }
    }

    fn accepted(&self) -> u32 {
        *self.accepted.lock().unwrap()
    }
}

// ---- The proxy and a hand-made client ----

async fn proxy(upstream: SocketAddr, keepalive: bool) -> Running {
    proxy_pinging(upstream, keepalive.then_some(INTERVAL)).await
}

/// [`proxy`] with a keepalive of `interval` (and [`TIMEOUT`]), or none.
async fn proxy_pinging(upstream: SocketAddr, interval: Option<Duration>) -> Running {
    Running::start(upstream, interval.map(|interval| (interval, TIMEOUT))).await
}

impl Running {
    /// Waits (at most [`BOUND`]) until `n` calls were counted in all.
    async fn counted(&self, n: u64) -> Tally {
        let started = Instant::now();
        loop {
            let tally = self.proxy.live().snapshot();
            if tally.calls_total() >= n || started.elapsed() > BOUND {
                return tally;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

type Sender = hyper::client::conn::http2::SendRequest<http_body_util::Full<Bytes>>;

/// An h2c client connection to `addr` (no keepalive of its own).
async fn connect(addr: SocketAddr) -> Sender {
    h2c_client(addr).await
}

/// Starts a call with `content_type` on `sender`; its response, in a task.
fn start_call(
    sender: &Sender,
    addr: SocketAddr,
    content_type: &'static str,
) -> JoinHandle<Result<Response<Incoming>, hyper::Error>> {
    let mut sender = sender.clone();
    tokio::spawn(async move {
        let mut body = BytesMut::new();
        triage::frames::encode(b"{}", &mut body).unwrap();
        let request = Request::post(format!("http://{addr}/test.Feed/Subscribe"))
            .header("content-type", content_type)
            .header("te", "trailers")
            .body(http_body_util::Full::new(body.freeze()))
            .unwrap();
        sender.ready().await?;
        sender.send_request(request).await
    })
}

/// How a call ended for its client.
#[derive(Debug, PartialEq, Eq)]
enum Seen {
    /// A gRPC status and message (from the trailers, or trailers-only).
    Status(String, String),
    /// The stream failed (a reset, a lost connection).
    Failed,
    /// Ended with no status.
    NoStatus,
}

fn status_of(headers: &HeaderMap) -> Option<Seen> {
    let text = |name: &str| {
        headers
            .get(name)
            .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
    };
    text("grpc-status").map(|status| Seen::Status(status, text("grpc-message").unwrap_or_default()))
}

/// Reads a response to its end: what the client saw, and the data bytes.
async fn finish(response: Response<Incoming>) -> (Seen, Bytes) {
    let (parts, mut body) = response.into_parts();
    if let Some(seen) = status_of(&parts.headers) {
        return (seen, Bytes::new());
    }
    let mut data = BytesMut::new();
    loop {
        match body.frame().await {
            None => return (Seen::NoStatus, data.freeze()),
            Some(Err(_)) => return (Seen::Failed, data.freeze()),
            Some(Ok(frame)) => match frame.into_data() {
                Ok(chunk) => data.extend_from_slice(&chunk),
                Err(frame) => {
                    let trailers = frame.into_trailers().unwrap_or_default();
                    let seen = status_of(&trailers).unwrap_or(Seen::NoStatus);
                    return (seen, data.freeze());
                }
            },
        }
    }
}

/// The upstream's side of `call` answers with one kept message, `frame`,
/// which the client reads: the call, streaming, and the upstream's side.
async fn streaming_after_one(
    call: JoinHandle<Result<Response<Incoming>, hyper::Error>>,
    upstream: &mut Upstream,
    frame: &Bytes,
) -> (Response<Incoming>, Arrived) {
    let mut arrived = upstream.next().await;
    arrived.answer(&[("content-type", GRPC)], vec![Frame::data(frame.clone())]);
    let mut response = within("headers", call).await.unwrap().unwrap();
    let first = within("the first message", response.body_mut().frame())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(first.into_data().unwrap(), frame);
    (response, arrived)
}

async fn within<T>(what: &str, future: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(BOUND, future)
        .await
        .unwrap_or_else(|_| panic!("{what} within {BOUND:?}"))
}

fn ok_trailers() -> HeaderMap {
    let mut trailers = HeaderMap::new();
    trailers.insert("grpc-status", HeaderValue::from_static("0"));
    trailers
}

const GRPC: &str = "application/grpc+json";

// ---- Keepalive ----

/// Calls at four stages on one upstream connection when the upstream
/// stops answering pings: waiting for headers, streaming judged, a
/// `grpc-status: 0` in headers read ahead, and a response passed on
/// unjudged. The three gRPC calls end UNAVAILABLE saying so, counted as
/// lost connections; the unjudged one was counted at its headers. The
/// next call connects again and works.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_at_every_stage_end_as_promised_when_the_upstream_misses_a_ping() {
    let frame = kept_frame();
    let mut upstream = Upstream::start().await;
    let relay = Relay::start(upstream.addr).await;
    let running = proxy(relay.addr, true).await;
    let client = connect(running.addr).await;

    // Streaming, judged: one kept message arrives.
    let call = start_call(&client, running.addr, GRPC);
    let (streaming, _b) = streaming_after_one(call, &mut upstream, &frame).await;

    // grpc-status 0 in the headers, nothing after yet: read ahead.
    let status_first = start_call(&client, running.addr, GRPC);
    let mut c = upstream.next().await;
    c.answer(&[("content-type", GRPC), ("grpc-status", "0")], vec![]);

    // Not gRPC either way: passed on unjudged, counted at its headers.
    let unjudged = start_call(&client, running.addr, "application/json");
    let mut d = upstream.next().await;
    d.answer(
        &[("content-type", "text/plain")],
        vec![Frame::data(Bytes::from_static(b"some text"))],
    );
    let unjudged = within("headers", unjudged).await.unwrap().unwrap();

    // Waiting for its headers.
    let waiting = start_call(&client, running.addr, GRPC);
    let _a = upstream.next().await;

    let counted = running.counted(1).await;
    assert_eq!(
        counted.calls_ended(CallEnd::UpstreamOk),
        1,
        "{:?}",
        counted.calls
    );

    relay.freeze();
    let frozen_at = Instant::now();
    let (waiting, streaming, status_first, unjudged) = within("every call ends", async {
        let waiting = match waiting.await.unwrap() {
            Ok(response) => finish(response).await.0,
            Err(_) => Seen::Failed,
        };
        let streaming = finish(streaming).await.0;
        let status_first = match status_first.await.unwrap() {
            Ok(response) => finish(response).await.0,
            Err(_) => Seen::Failed,
        };
        let unjudged = finish(unjudged).await.0;
        (waiting, streaming, status_first, unjudged)
    })
    .await;
    let took = frozen_at.elapsed();
    for (stage, seen) in [
        ("waiting for headers", &waiting),
        ("streaming", &streaming),
        ("status in headers", &status_first),
    ] {
        match seen {
            Seen::Status(code, message) => {
                assert_eq!(code, "14", "{stage}: {seen:?}");
                assert!(
                    message.contains("stopped answering HTTP/2 pings"),
                    "{stage}: {seen:?}"
                );
            }
            other => panic!("{stage}: {other:?}"),
        }
    }
    assert_eq!(unjudged, Seen::Failed, "the unjudged body is cut");
    assert!(took < INTERVAL + TIMEOUT + SECOND, "{took:?}");
    let tally = running.counted(4).await;
    assert_eq!(
        tally.calls_ended(CallEnd::ConnectionLost),
        3,
        "{:?}",
        tally.calls
    );
    assert_eq!(tally.calls_total(), 4, "{:?}", tally.calls);

    // The next call on the same client connection connects again.
    let accepted = relay.accepted();
    let next = start_call(&client, running.addr, GRPC);
    let mut e = upstream.next().await;
    e.answer(
        &[("content-type", GRPC)],
        vec![Frame::data(frame.clone()), Frame::trailers(ok_trailers())],
    );
    let (seen, data) = finish(within("headers", next).await.unwrap().unwrap()).await;
    assert_eq!(seen, Seen::Status("0".into(), String::new()));
    assert_eq!(data, frame);
    assert_eq!(relay.accepted(), accepted + 1, "a new upstream connection");
    let tally = running.stop().await;
    assert_eq!(
        tally.calls_ended(CallEnd::UpstreamOk),
        2,
        "{:?}",
        tally.calls
    );
    assert_eq!(tally.calls_total(), 5, "{:?}", tally.calls);
}

/// How calls end when the upstream closes its connection (its process
/// ended), at three stages, with the proxy's keepalive on or off: what
/// each client saw, the tally, and how long the slowest took.
async fn closed_under(keepalive: bool) -> (Vec<Seen>, Tally, Duration) {
    let frame = kept_frame();
    let mut upstream = Upstream::start().await;
    let running = proxy(upstream.addr, keepalive).await;
    let client = connect(running.addr).await;
    let call = start_call(&client, running.addr, GRPC);
    let (streaming, _b) = streaming_after_one(call, &mut upstream, &frame).await;
    let status_first = start_call(&client, running.addr, GRPC);
    let mut c = upstream.next().await;
    c.answer(&[("content-type", GRPC), ("grpc-status", "0")], vec![]);
    let waiting = start_call(&client, running.addr, GRPC);
    let _a = upstream.next().await;
    // Let the status-in-headers call reach its read-ahead.
    tokio::time::sleep(Duration::from_millis(100)).await;
    upstream.kill();
    let killed_at = Instant::now();
    let seen = within("every call ends", async {
        let mut seen = Vec::new();
        for call in [waiting, status_first] {
            seen.push(match call.await.unwrap() {
                Ok(response) => finish(response).await.0,
                Err(_) => Seen::Failed,
            });
        }
        seen.push(finish(streaming).await.0);
        seen
    })
    .await;
    let took = killed_at.elapsed();
    let tally = running.counted(3).await;
    running.stop().await;
    (seen, tally, took)
}

/// An upstream that closes its connection ends each call as it did
/// without keepalive: the same status, message and tally row, at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_that_closes_ends_calls_the_same_with_keepalive_on() {
    let (without, tally_without, _) = closed_under(false).await;
    let (with, tally_with, took) = closed_under(true).await;
    for seen in &without {
        assert!(
            matches!(seen, Seen::Status(code, _) if code == "14"),
            "{without:?}"
        );
    }
    // The upstream's address is the only part that differs between the
    // two runs.
    let strip = |seen: &[Seen]| -> Vec<Seen> {
        seen.iter()
            .map(|seen| match seen {
                Seen::Status(code, message) => {
                    let message = message
                        .split_whitespace()
                        .filter(|word| !word.starts_with("127.0.0.1:"))
                        .collect::<Vec<_>>()
                        .join(" ");
                    Seen::Status(code.clone(), message)
                }
                other => panic!("{other:?}"),
            })
            .collect()
    };
    assert_eq!(strip(&with), strip(&without));
    assert_eq!(tally_with.calls, tally_without.calls);
    assert_eq!(
        tally_with.calls_ended(CallEnd::ConnectionLost),
        3,
        "{:?}",
        tally_with.calls
    );
    assert!(took < SECOND / 2, "no call waits for nothing: {took:?}");
}

/// A client that stops answering pings while its call waits for the
/// upstream's headers (its request ended): the upstream call is cancelled,
/// counted as the client's cancel.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frozen_client_whose_call_waits_for_headers_has_it_cancelled_upstream() {
    let mut upstream = Upstream::start().await;
    let running = proxy(upstream.addr, true).await;
    let relay = Relay::start(running.addr).await;
    let client = connect(relay.addr).await;
    let _waiting = start_call(&client, relay.addr, GRPC);
    let mut a = upstream.next().await;
    relay.freeze();
    within(
        "the upstream call is cancelled once the client missed a ping",
        &mut a.gone,
    )
    .await
    .ok();
    let tally = running.counted(1).await;
    assert_eq!(
        tally.calls_ended(CallEnd::ClientCancelled),
        1,
        "{:?}",
        tally.calls
    );
    assert_eq!(tally.calls_total(), 1, "{:?}", tally.calls);
    let tally = running.stop().await;
    assert_eq!(tally.calls_total(), 1, "{:?}", tally.calls);
}

/// Many calls on one upstream connection that stops answering pings, half
/// waiting for headers and half streaming: each ends UNAVAILABLE saying
/// so, all within one timeout of each other (none waits on its own), and
/// the proxy holds nothing after.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_calls_on_an_upstream_that_misses_a_ping_all_say_so() {
    const EACH: usize = 16;
    let frame = kept_frame();
    let mut upstream = Upstream::start().await;
    let relay = Relay::start(upstream.addr).await;
    let running = proxy(relay.addr, true).await;
    let client = connect(running.addr).await;
    let mut streams = Vec::new();
    let mut answered = Vec::new();
    for _ in 0..EACH {
        let call = start_call(&client, running.addr, GRPC);
        let mut arrived = upstream.next().await;
        arrived.answer(&[("content-type", GRPC)], vec![Frame::data(frame.clone())]);
        let mut response = within("headers", call).await.unwrap().unwrap();
        let first = within("a message", response.body_mut().frame())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(first.into_data().unwrap(), frame);
        streams.push(response);
        answered.push(arrived);
    }
    let mut waiting = Vec::new();
    for _ in 0..EACH {
        waiting.push(start_call(&client, running.addr, GRPC));
        answered.push(upstream.next().await);
    }
    relay.freeze();
    let ends = within("every call ends", async {
        let mut ends = Vec::new();
        for response in streams {
            let seen = finish(response).await.0;
            ends.push((seen, Instant::now()));
        }
        for call in waiting {
            let seen = match call.await.unwrap() {
                Ok(response) => finish(response).await.0,
                Err(_) => Seen::Failed,
            };
            ends.push((seen, Instant::now()));
        }
        ends
    })
    .await;
    for (seen, _) in &ends {
        match seen {
            Seen::Status(code, message) => {
                assert_eq!(code, "14", "{seen:?}");
                assert!(
                    message.contains("stopped answering HTTP/2 pings"),
                    "{seen:?}"
                );
            }
            other => panic!("{other:?}"),
        }
    }
    let first = ends.iter().map(|(_, at)| *at).min().unwrap();
    let last = ends.iter().map(|(_, at)| *at).max().unwrap();
    assert!(last - first < TIMEOUT, "{:?}", last - first);
    let tally = running.counted(2 * EACH as u64).await;
    assert_eq!(
        tally.calls_ended(CallEnd::ConnectionLost),
        2 * EACH as u64,
        "{:?}",
        tally.calls
    );
    assert_eq!(running.proxy.stats().held, 0);
    let tally = running.stop().await;
    assert_eq!(tally.calls_total(), 2 * EACH as u64, "{:?}", tally.calls);
}

/// A shutdown while a frozen client's call streams: the client misses a
/// ping before the drain timeout, so its call is cancelled upstream and
/// counted as the client's cancel, not cut; the shutdown does not wait
/// out the drain timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_drain_with_a_frozen_client_ends_its_call_before_the_timeout() {
    let frame = kept_frame();
    let mut upstream = Upstream::start().await;
    let running = proxy(upstream.addr, true).await;
    let relay = Relay::start(running.addr).await;
    let client = connect(relay.addr).await;
    let call = start_call(&client, relay.addr, GRPC);
    let mut arrived = upstream.next().await;
    arrived.answer(&[("content-type", GRPC)], vec![Frame::data(frame.clone())]);
    let mut response = within("headers", call).await.unwrap().unwrap();
    let _first = within("a message", response.body_mut().frame()).await;
    relay.freeze();
    let stopping = Instant::now();
    let tally = running.stop().await;
    assert!(within("the upstream call ends", &mut arrived.gone)
        .await
        .is_ok());
    assert_eq!(
        tally.calls_ended(CallEnd::ClientCancelled),
        1,
        "{:?}",
        tally.calls
    );
    assert_eq!(tally.calls_total(), 1, "{:?}", tally.calls);
    assert!(stopping.elapsed() < SECOND, "{:?}", stopping.elapsed());
}

/// A shutdown while a call streams from an upstream that froze: the call
/// ends UNAVAILABLE saying so before the drain timeout, counted as lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_drain_with_a_frozen_upstream_ends_its_call_unavailable() {
    let frame = kept_frame();
    let mut upstream = Upstream::start().await;
    let relay = Relay::start(upstream.addr).await;
    let running = proxy(relay.addr, true).await;
    let client = connect(running.addr).await;
    let call = start_call(&client, running.addr, GRPC);
    let mut arrived = upstream.next().await;
    arrived.answer(&[("content-type", GRPC)], vec![Frame::data(frame.clone())]);
    let mut response = within("headers", call).await.unwrap().unwrap();
    let _first = within("a message", response.body_mut().frame()).await;
    relay.freeze();
    let stopping = Instant::now();
    let reading = tokio::spawn(finish(response));
    let tally = running.stop().await;
    let (seen, _) = within("the call ends", reading).await.unwrap();
    match &seen {
        Seen::Status(code, message) => {
            assert_eq!(code, "14", "{seen:?}");
            assert!(
                message.contains("stopped answering HTTP/2 pings"),
                "{seen:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        tally.calls_ended(CallEnd::ConnectionLost),
        1,
        "{:?}",
        tally.calls
    );
    assert_eq!(tally.calls_total(), 1, "{:?}", tally.calls);
    assert!(stopping.elapsed() < SECOND, "{:?}", stopping.elapsed());
}

/// Waits (at most [`BOUND`]) until the runtime runs no more than
/// `baseline` tasks; how many it runs then.
async fn tasks_back_to(baseline: usize) -> usize {
    let metrics = tokio::runtime::Handle::current().metrics();
    let started = Instant::now();
    loop {
        let alive = metrics.num_alive_tasks();
        if alive <= baseline || started.elapsed() > BOUND {
            return alive;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Nothing is left running once a frozen upstream was found dead, a new
/// connection served the next call, and every peer went away.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_is_left_running_after_a_dead_upstream_and_its_peers_are_gone() {
    let baseline = tokio::runtime::Handle::current()
        .metrics()
        .num_alive_tasks();
    let frame = kept_frame();
    let mut upstream = Upstream::start().await;
    let relay = Relay::start(upstream.addr).await;
    let running = proxy(relay.addr, true).await;
    let client = connect(running.addr).await;
    let call = start_call(&client, running.addr, GRPC);
    let mut arrived = upstream.next().await;
    arrived.answer(&[("content-type", GRPC)], vec![Frame::data(frame.clone())]);
    let response = within("headers", call).await.unwrap().unwrap();
    let waiting = start_call(&client, running.addr, GRPC);
    let _waiting_upstream = upstream.next().await;
    relay.freeze();
    let (seen, data) = within("the call ends", finish(response)).await;
    assert!(
        matches!(&seen, Seen::Status(code, _) if code == "14"),
        "{seen:?}"
    );
    assert_eq!(data, frame);
    let _ = within("the waiting call ends", waiting).await;
    let again = start_call(&client, running.addr, GRPC);
    let mut next = upstream.next().await;
    next.answer(
        &[("content-type", GRPC)],
        vec![Frame::trailers(ok_trailers())],
    );
    let (seen, _) = finish(within("headers", again).await.unwrap().unwrap()).await;
    assert_eq!(seen, Seen::Status("0".into(), String::new()));
    drop((arrived, next, _waiting_upstream));
    drop(client);
    let tally = running.stop().await;
    assert_eq!(tally.calls_total(), 3, "{:?}", tally.calls);
    drop(relay);
    drop(upstream);
    let alive = tasks_back_to(baseline).await;
    assert_eq!(alive, baseline, "tasks left running");
}

/// A client that stops answering pings while its request is still
/// streaming (a client-streaming or bidi call): its call is cancelled
/// upstream and counted as the client's cancel, whether it waits for the
/// upstream's headers, reads ahead after `grpc-status: 0` in them, or
/// streams judged messages.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frozen_client_still_sending_has_its_calls_counted_as_cancelled() {
    let frame = kept_frame();
    let mut upstream = Upstream::start().await;
    let running = proxy(upstream.addr, true).await;
    let relay = Relay::start(running.addr).await;
    let client = h2c_client::<Fed>(relay.addr).await;
    let open_call = |client: &hyper::client::conn::http2::SendRequest<Fed>| {
        let (feed, fed) = mpsc::unbounded_channel();
        let mut first = BytesMut::new();
        triage::frames::encode(b"{}", &mut first).unwrap();
        feed.send(Frame::data(first.freeze())).unwrap();
        let request = Request::post(format!("http://{}/test.Feed/Chat", relay.addr))
            .header("content-type", GRPC)
            .header("te", "trailers")
            .body(Fed(fed, None))
            .unwrap();
        let mut client = client.clone();
        let response = tokio::spawn(async move {
            client.ready().await?;
            client.send_request(request).await
        });
        (feed, response)
    };
    // Streaming both ways, judged.
    let (_feed_b, call) = open_call(&client);
    let (_streaming, mut b) = streaming_after_one(call, &mut upstream, &frame).await;
    // Waiting for its headers.
    let (_feed_a, _waiting) = open_call(&client);
    let mut a = upstream.next().await;
    // grpc-status 0 in its headers, read ahead.
    let (_feed_c, _status_first) = open_call(&client);
    let mut c = upstream.next().await;
    c.answer(&[("content-type", GRPC), ("grpc-status", "0")], vec![]);
    tokio::time::sleep(Duration::from_millis(50)).await;
    relay.freeze();
    assert!(
        within("the waiting call is cancelled upstream", &mut a.gone)
            .await
            .is_ok()
    );
    assert!(
        within("the streaming call is cancelled upstream", &mut b.gone)
            .await
            .is_ok()
    );
    assert!(
        within("the read-ahead call is cancelled upstream", &mut c.gone)
            .await
            .is_ok()
    );
    let tally = running.counted(3).await;
    assert_eq!(
        tally.calls_ended(CallEnd::ClientCancelled),
        3,
        "{:?}",
        tally.calls
    );
    assert_eq!(tally.calls_total(), 3, "{:?}", tally.calls);
    running.stop().await;
}

/// A call that starts on an upstream connection quiet for longer than the
/// interval gets a PING at once: a frozen upstream is found within about
/// the timeout of the call, not the interval and the timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_on_a_long_quiet_connection_finds_a_dead_upstream_within_the_timeout() {
    const LONG: Duration = Duration::from_secs(2);
    let mut upstream = Upstream::start().await;
    let relay = Relay::start(upstream.addr).await;
    let running = proxy_pinging(relay.addr, Some(LONG)).await;
    let client = connect(running.addr).await;
    let first = start_call(&client, running.addr, GRPC);
    let mut arrived = upstream.next().await;
    arrived.answer(
        &[("content-type", GRPC)],
        vec![Frame::trailers(ok_trailers())],
    );
    let (seen, _) = finish(within("headers", first).await.unwrap().unwrap()).await;
    assert_eq!(seen, Seen::Status("0".into(), String::new()));
    tokio::time::sleep(LONG + LONG / 4).await;
    relay.freeze();
    let started = Instant::now();
    let call = start_call(&client, running.addr, GRPC);
    let seen = match within("the call ends", call).await.unwrap() {
        Ok(response) => finish(response).await.0,
        Err(_) => Seen::Failed,
    };
    let took = started.elapsed();
    assert!(
        matches!(&seen, Seen::Status(code, message) if code == "14" && message.contains("pings")),
        "{seen:?}"
    );
    assert!(took < LONG, "found after {took:?}");
    running.stop().await;
}
