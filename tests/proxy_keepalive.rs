//! HTTP/2 keepalive through the proxy, with real peers on 127.0.0.1: a
//! tonic server, a tonic client, and between one of them and the proxy a
//! TCP relay that can freeze (it stops moving bytes either way but keeps
//! both sockets open, as a peer that died without a FIN or a RST).

#[path = "support/frozen_pump.rs"]
mod frozen_pump;
#[path = "support/running_proxy.rs"]
mod running_proxy;
use frozen_pump::pump;
use running_proxy::Running;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures_core::Stream;
use http::uri::PathAndQuery;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};
use tokio::task::{JoinHandle, JoinSet};
use tonic::codegen::{BoxFuture, Service};
use tonic::server::{Grpc, NamedService};
use tonic::transport::server::TcpIncoming;
use tonic::transport::Channel;
use tonic::{Code, Status, Streaming};
use triage::args::{parse, Command};
use triage::grpc::codec::{PairCodec, RawDecoder, RawEncoder};
use triage::judge::Judge;
use triage::model::Issue;
use triage::policy::Policy;
use triage::pool::Pool;
use triage::proxy::{CallEnd, Proxy, Tally};

/// The keepalive the tests run with: short, so that a dead peer shows
/// within a second.
const INTERVAL: Duration = Duration::from_millis(200);
const TIMEOUT: Duration = Duration::from_millis(300);

/// How long a frozen peer may take to be declared dead: generous, for a
/// loaded 2-core machine.
const BOUND: Duration = Duration::from_secs(3);

type Raw = PairCodec<RawEncoder, RawDecoder>;

/// Messages the default policy keeps (checked with serde_json), so that
/// each one the upstream sends reaches the client.
fn kept_messages(n: usize) -> Vec<Bytes> {
    let pool = Pool::generate(7, 7, 256).expect("messages frame");
    let kept: Vec<Bytes> = (0..256)
        .map(|i| pool.message(i))
        .filter(|message| {
            serde_json::from_slice::<Issue>(message)
                .is_ok_and(|issue| Policy::default().keep(&issue.detail))
        })
        .take(n)
        .collect();
    assert_eq!(kept.len(), n, "the pool has {n} kept messages");
    kept
}

/// The sending end of one server-streaming call of the upstream: each
/// message sent goes out as the call's next message; dropping it ends the
/// call OK; `closed` completes when the call is cancelled.
type CallSender = mpsc::Sender<Result<Bytes, Status>>;

/// The test service `test.Feed`: each call hands its sender to the test
/// and sends what the test sends on it.
#[derive(Clone)]
struct Feed(mpsc::UnboundedSender<CallSender>);

impl NamedService for Feed {
    const NAME: &'static str = "test.Feed";
}

impl Service<http::Request<tonic::body::Body>> for Feed {
    type Response = http::Response<tonic::body::Body>;
    type Error = std::convert::Infallible;
    type Future = BoxFuture<Self::Response, Self::Error>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<tonic::body::Body>) -> Self::Future {
        let calls = self.0.clone();
        Box::pin(async move {
            let mut grpc = Grpc::new(Raw::default());
            Ok(grpc.server_streaming(Subscribe(calls), request).await)
        })
    }
}

struct Subscribe(mpsc::UnboundedSender<CallSender>);

/// A call's response stream, fed by the test.
struct Fed(mpsc::Receiver<Result<Bytes, Status>>);

impl Stream for Fed {
    type Item = Result<Bytes, Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.0.poll_recv(cx)
    }
}

impl Service<tonic::Request<Bytes>> for Subscribe {
    type Response = tonic::Response<Fed>;
    type Error = Status;
    type Future = std::future::Ready<Result<Self::Response, Status>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Status>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _: tonic::Request<Bytes>) -> Self::Future {
        let (send, feed) = mpsc::channel(16);
        let _ = self.0.send(send);
        std::future::ready(Ok(tonic::Response::new(Fed(feed))))
    }
}

/// A task aborted when the test lets go of it.
struct Task(JoinHandle<()>);

impl Drop for Task {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The upstream: `test.Feed` on 127.0.0.1, and the senders of its calls as
/// they arrive.
async fn upstream() -> (SocketAddr, mpsc::UnboundedReceiver<CallSender>, Task) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (calls, arrived) = mpsc::unbounded_channel();
    let task = tokio::spawn(async move {
        let _ = tonic::transport::Server::builder()
            .serve_with_incoming(Feed(calls), TcpIncoming::from(listener))
            .await;
    });
    (addr, arrived, Task(task))
}

/// A TCP relay on 127.0.0.1 to `target` that can freeze: from then on it
/// moves no byte either way and keeps every socket open.
struct Relay {
    addr: SocketAddr,
    frozen: watch::Sender<bool>,
    /// Bytes moved toward `target`, and back.
    toward: Arc<AtomicU64>,
    back: Arc<AtomicU64>,
    _task: Task,
}

impl Relay {
    async fn start(target: SocketAddr) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (frozen, _) = watch::channel(false);
        let (toward, back) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
        let task = tokio::spawn({
            let frozen = frozen.clone();
            let (toward, back) = (toward.clone(), back.clone());
            async move {
                // Dropped with the accept task: every pump stops with it.
                let mut pumps = JoinSet::new();
                loop {
                    let Ok((near, _)) = listener.accept().await else {
                        continue;
                    };
                    let Ok(far) = TcpStream::connect(target).await else {
                        continue;
                    };
                    let _ = (near.set_nodelay(true), far.set_nodelay(true));
                    let (near_read, near_write) = near.into_split();
                    let (far_read, far_write) = far.into_split();
                    pumps.spawn(pump(
                        near_read,
                        far_write,
                        frozen.subscribe(),
                        toward.clone(),
                    ));
                    pumps.spawn(pump(far_read, near_write, frozen.subscribe(), back.clone()));
                }
            }
        });
        Relay {
            addr,
            frozen,
            toward,
            back,
            _task: Task(task),
        }
    }

    fn freeze(&self) {
        self.frozen.send_replace(true);
    }
}

/// A proxy on 127.0.0.1 to `upstream`, with `keepalive` when given.
async fn proxy(upstream: SocketAddr, keepalive: bool) -> Running {
    Running::start(upstream, keepalive.then_some((INTERVAL, TIMEOUT))).await
}

impl Running {
    /// Waits (at most [`BOUND`]) until `n` calls ended as `end`, and returns
    /// the tally then.
    async fn counted(&self, end: CallEnd, n: u64) -> Tally {
        let started = Instant::now();
        loop {
            let tally = self.proxy.live().snapshot();
            if tally.calls_ended(end) >= n || started.elapsed() > BOUND {
                return tally;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

/// A tonic client of `addr` (its own keepalive off, as tonic's default).
async fn client(addr: SocketAddr) -> tonic::client::Grpc<Channel> {
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut client = tonic::client::Grpc::new(channel);
    client.ready().await.unwrap();
    client
}

/// Starts a `test.Feed` call through `addr` and returns the client's
/// stream and the upstream's sender of that call.
async fn subscribe(
    addr: SocketAddr,
    calls: &mut mpsc::UnboundedReceiver<CallSender>,
) -> (Streaming<Bytes>, CallSender) {
    let mut client = client(addr).await;
    let call = tokio::spawn(async move {
        client
            .server_streaming(
                tonic::Request::new(Bytes::from_static(b"{}")),
                PathAndQuery::from_static("/test.Feed/Subscribe"),
                Raw::default(),
            )
            .await
    });
    let sender = tokio::time::timeout(BOUND, calls.recv())
        .await
        .expect("the call reaches the upstream")
        .unwrap();
    let stream = tokio::time::timeout(BOUND, call)
        .await
        .expect("the call is answered")
        .unwrap()
        .expect("the response headers arrive")
        .into_inner();
    (stream, sender)
}

/// Sends `messages` on the upstream's side of a call and checks that the
/// client gets each, in order.
async fn deliver(messages: &[Bytes], sender: &CallSender, stream: &mut Streaming<Bytes>) {
    for message in messages {
        sender.send(Ok(message.clone())).await.unwrap();
        let got = tokio::time::timeout(BOUND, stream.message())
            .await
            .expect("a kept message arrives")
            .unwrap()
            .expect("the call goes on");
        assert_eq!(&got, message);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_that_stops_answering_pings_ends_the_call_unavailable_after_its_messages() {
    let messages = kept_messages(3);
    let (upstream, mut calls, _upstream_task) = upstream().await;
    let relay = Relay::start(upstream).await;
    let running = proxy(relay.addr, true).await;
    let (mut stream, sender) = subscribe(running.addr, &mut calls).await;
    deliver(&messages, &sender, &mut stream).await;
    relay.freeze();
    let frozen_at = Instant::now();
    let end = tokio::time::timeout(BOUND, stream.message())
        .await
        .expect("the call ends once the upstream missed a ping");
    let status = end.expect_err("the call ends with an error, no more messages");
    assert_eq!(status.code(), Code::Unavailable, "{status:?}");
    assert!(
        status.message().contains("ping"),
        "says the upstream stopped answering pings: {status:?}"
    );
    // At least one interval and one timeout passed before it was declared.
    assert!(frozen_at.elapsed() >= TIMEOUT, "{:?}", frozen_at.elapsed());
    let tally = running.counted(CallEnd::ConnectionLost, 1).await;
    assert_eq!(
        tally.calls_ended(CallEnd::ConnectionLost),
        1,
        "{:?}",
        tally.calls
    );
    assert_eq!(tally.calls_total(), 1, "{:?}", tally.calls);
    assert_eq!(tally.messages, 3);
    assert_eq!(tally.kept(), 3);
    drop(stream);
    let tally = running.stop().await;
    assert_eq!(tally.calls_total(), 1, "{:?}", tally.calls);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_waiting_for_its_headers_from_a_frozen_upstream_ends_unavailable() {
    let messages = kept_messages(1);
    let (upstream, mut calls, _upstream_task) = upstream().await;
    let relay = Relay::start(upstream).await;
    let running = proxy(relay.addr, true).await;
    // A first call opens the upstream connection and ends OK.
    let (mut stream, sender) = subscribe(running.addr, &mut calls).await;
    deliver(&messages, &sender, &mut stream).await;
    drop(sender);
    let end = tokio::time::timeout(BOUND, stream.message()).await.unwrap();
    assert!(matches!(end, Ok(None)), "ends OK: {end:?}");
    relay.freeze();
    // The next call on that connection never reaches the upstream.
    let mut client = client(running.addr).await;
    let call = client.server_streaming(
        tonic::Request::new(Bytes::from_static(b"{}")),
        PathAndQuery::from_static("/test.Feed/Subscribe"),
        Raw::default(),
    );
    let status = tokio::time::timeout(BOUND, call)
        .await
        .expect("the call ends once the upstream missed a ping")
        .expect_err("no response headers");
    assert_eq!(status.code(), Code::Unavailable, "{status:?}");
    assert!(status.message().contains("ping"), "{status:?}");
    assert!(calls.try_recv().is_err(), "the upstream never saw it");
    let tally = running.counted(CallEnd::ConnectionLost, 1).await;
    assert_eq!(
        tally.calls_ended(CallEnd::ConnectionLost),
        1,
        "{:?}",
        tally.calls
    );
    assert_eq!(
        tally.calls_ended(CallEnd::UpstreamOk),
        1,
        "{:?}",
        tally.calls
    );
    assert_eq!(tally.calls_total(), 2, "{:?}", tally.calls);
    drop(stream);
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_keepalive_a_call_to_a_frozen_upstream_waits() {
    let messages = kept_messages(3);
    let (upstream, mut calls, _upstream_task) = upstream().await;
    let relay = Relay::start(upstream).await;
    let running = proxy(relay.addr, false).await;
    let (mut stream, sender) = subscribe(running.addr, &mut calls).await;
    deliver(&messages, &sender, &mut stream).await;
    relay.freeze();
    // What the upstream sends now never arrives: the relay really froze.
    sender.send(Ok(messages[0].clone())).await.unwrap();
    let waited = tokio::time::timeout(Duration::from_millis(1500), stream.message()).await;
    assert!(waited.is_err(), "still waiting: {waited:?}");
    assert_eq!(running.proxy.live().snapshot().calls_total(), 0);
    // The client gives up: a cancel, as the tally counts it.
    drop(stream);
    let tally = running.counted(CallEnd::ClientCancelled, 1).await;
    assert_eq!(
        tally.calls_ended(CallEnd::ClientCancelled),
        1,
        "{:?}",
        tally.calls
    );
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_stops_answering_pings_gets_its_upstream_call_cancelled() {
    let messages = kept_messages(3);
    let (upstream, mut calls, _upstream_task) = upstream().await;
    let running = proxy(upstream, true).await;
    let relay = Relay::start(running.addr).await;
    let (mut stream, sender) = subscribe(relay.addr, &mut calls).await;
    deliver(&messages, &sender, &mut stream).await;
    relay.freeze();
    // The upstream sees its call cancelled: its response stream is dropped.
    tokio::time::timeout(BOUND, sender.closed())
        .await
        .expect("the upstream call is cancelled once the client missed a ping");
    let tally = running.counted(CallEnd::ClientCancelled, 1).await;
    assert_eq!(
        tally.calls_ended(CallEnd::ClientCancelled),
        1,
        "{:?}",
        tally.calls
    );
    assert_eq!(tally.calls_total(), 1, "{:?}", tally.calls);
    assert_eq!(tally.kept(), 3);
    drop(stream);
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_keepalive_a_frozen_client_leaves_its_upstream_call_open() {
    let messages = kept_messages(3);
    let (upstream, mut calls, _upstream_task) = upstream().await;
    let running = proxy(upstream, false).await;
    let relay = Relay::start(running.addr).await;
    let (mut stream, sender) = subscribe(relay.addr, &mut calls).await;
    deliver(&messages, &sender, &mut stream).await;
    relay.freeze();
    let waited = tokio::time::timeout(Duration::from_millis(1500), sender.closed()).await;
    assert!(waited.is_err(), "the upstream call is still open");
    drop(stream);
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quiet_call_whose_peers_answer_pings_goes_on() {
    let messages = kept_messages(2);
    let (upstream, mut calls, _upstream_task) = upstream().await;
    let up_relay = Relay::start(upstream).await;
    let running = proxy(up_relay.addr, true).await;
    let down_relay = Relay::start(running.addr).await;
    let (mut stream, sender) = subscribe(down_relay.addr, &mut calls).await;
    deliver(&messages[..1], &sender, &mut stream).await;
    let before = (
        up_relay.toward.load(Ordering::Relaxed),
        up_relay.back.load(Ordering::Relaxed),
        down_relay.toward.load(Ordering::Relaxed),
        down_relay.back.load(Ordering::Relaxed),
    );
    // Quiet for ten intervals: only pings and their acks move.
    tokio::time::sleep(10 * INTERVAL).await;
    deliver(&messages[1..], &sender, &mut stream).await;
    drop(sender);
    let end = tokio::time::timeout(BOUND, stream.message()).await.unwrap();
    assert!(matches!(end, Ok(None)), "ends OK: {end:?}");
    // The proxy pinged both sides while the call was quiet, and both
    // answered.
    assert!(
        up_relay.toward.load(Ordering::Relaxed) > before.0,
        "pings to the upstream"
    );
    assert!(
        up_relay.back.load(Ordering::Relaxed) > before.1,
        "acks from the upstream"
    );
    assert!(
        down_relay.back.load(Ordering::Relaxed) > before.3,
        "pings to the client"
    );
    assert!(
        down_relay.toward.load(Ordering::Relaxed) > before.2,
        "acks from the client"
    );
    drop(stream);
    let tally = running.counted(CallEnd::UpstreamOk, 1).await;
    assert_eq!(
        tally.calls_ended(CallEnd::UpstreamOk),
        1,
        "{:?}",
        tally.calls
    );
    assert_eq!(tally.calls_total(), 1, "{:?}", tally.calls);
    running.stop().await;
}

/// The command line's words for a line of text.
fn args(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

#[test]
fn the_command_line_takes_a_keepalive_and_its_timeout() {
    let keepalive = |line: &str| match parse(args(line)) {
        Ok(Command::Proxy { keepalive, .. }) => Ok(keepalive.get()),
        Ok(other) => panic!("{line}: {other:?}"),
        Err(err) => Err(err),
    };
    let base = "proxy --listen 127.0.0.1:0 --upstream http://127.0.0.1:1";
    assert_eq!(keepalive(base).unwrap(), None, "off by default");
    assert_eq!(keepalive(&format!("{base} --keepalive off")).unwrap(), None);
    for (options, want) in [
        (" --keepalive 5m", (300, 20)),
        (" --keepalive 30s --keepalive-timeout 5s", (30, 5)),
        (" --keepalive-timeout 10s --keepalive 2m", (120, 10)),
    ] {
        let line = format!("{base}{options}");
        let (interval, timeout) = keepalive(&line).unwrap().expect(&line);
        assert_eq!(
            (interval, timeout),
            (Duration::from_secs(want.0), Duration::from_secs(want.1)),
            "{line}"
        );
    }
    assert_eq!(
        keepalive(&format!(
            "{base} --keepalive 250ms --keepalive-timeout 300ms"
        ))
        .unwrap(),
        Some((Duration::from_millis(250), Duration::from_millis(300)))
    );
    for (options, names) in [
        (" --keepalive 5", "--keepalive <TIME>"),
        (" --keepalive 0s", "--keepalive <TIME>"),
        (" --keepalive soon", "--keepalive <TIME>"),
        (" --keepalive", "--keepalive <TIME>"),
        (
            " --keepalive 5m --keepalive-timeout off",
            "--keepalive-timeout <TIME>",
        ),
        (
            " --keepalive 5m --keepalive-timeout 20",
            "--keepalive-timeout <TIME>",
        ),
        // A timeout with no keepalive to time.
        (" --keepalive-timeout 5s", "--keepalive"),
    ] {
        let line = format!("{base}{options}");
        let err = parse(args(&line)).expect_err(&line);
        assert_eq!(err.exit_code(), 2, "{line}");
        let text = err.to_string();
        assert!(text.contains(names), "{line}: {text}");
    }
    // Only the proxy takes them.
    let err = parse(args("upstream --listen 127.0.0.1:0 --http2 --keepalive 5m")).unwrap_err();
    assert_eq!(err.exit_code(), 2);
}

#[test]
fn a_zero_keepalive_is_refused_by_the_api_as_by_the_command_line() {
    for (interval, timeout) in [
        (Duration::ZERO, Duration::from_secs(20)),
        (Duration::from_secs(300), Duration::ZERO),
    ] {
        let proxy = Proxy::new("http://127.0.0.1:1", Judge::Optics, Policy::default()).unwrap();
        let refused = std::panic::catch_unwind(move || proxy.with_keepalive(interval, timeout));
        let message = refused.expect_err("a zero keepalive was taken");
        let message = message
            .downcast_ref::<String>()
            .expect("a formatted panic message");
        assert!(message.contains("must be more than zero"), "{message}");
    }
    // Anything more than zero is taken.
    let proxy = Proxy::new("http://127.0.0.1:1", Judge::Optics, Policy::default()).unwrap();
    let _ = proxy.with_keepalive(Duration::from_nanos(1), Duration::from_nanos(1));
}
