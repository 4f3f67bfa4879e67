//! The gRPC proxy over HTTP/2, end to end: real tonic peers (and, for what
//! tonic will not send, a raw hyper upstream) on 127.0.0.1, started and
//! stopped inside each test.

#[path = "support/proxy_checks.rs"]
mod proxy_checks;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use http::{HeaderMap, HeaderValue, Request, Response};
use http_body::{Body, Frame};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tonic::metadata::MetadataValue;
use tonic::Code;
use triage::grpc::{self, Ending, SubscribeRequest, Upstream};
use triage::judge::Judge;
use triage::model::Issue;
use triage::policy::Policy;
use triage::pool::Pool;
use triage::proxy::{CallEnd, Proxy, Tally};

use proxy_checks::{
    answer_to_close, assert_calls, compressed_frame, h2c_client, ok_trailers, End, Scripted,
    ThenSilent,
};

const SECOND: Duration = Duration::from_secs(1);

fn pool() -> Arc<Pool> {
    Arc::new(Pool::generate(7, 7, 256).expect("messages frame"))
}

/// The oracle: decode with serde_json and ask the policy.
fn keeps(policy: &Policy, message: &[u8]) -> bool {
    serde_json::from_slice::<Issue>(message).is_ok_and(|issue| policy.keep(&issue.detail))
}

/// The messages `count` from `start` of `pool` that `judge` keeps.
fn expected(pool: &Pool, start: u64, count: u64, judge: Judge) -> Vec<Bytes> {
    let policy = Policy::default();
    (start..start + count)
        .map(|i| pool.message(i))
        .filter(|m| judge == Judge::ForwardAll || keeps(&policy, m))
        .collect()
}

async fn listener() -> (TcpListener, SocketAddr) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    (listener, addr)
}

/// A proxy on 127.0.0.1 in front of `upstream`, until `stop`.
struct Running {
    proxy: Proxy,
    addr: SocketAddr,
    stop: CancellationToken,
    task: JoinHandle<Tally>,
    upstream: Option<JoinHandle<()>>,
}

impl Running {
    fn uri(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops the proxy (and the upstream), returns the proxy's tally.
    async fn stop(self) -> Tally {
        self.stop.cancel();
        let tally = tokio::time::timeout(10 * SECOND, self.task)
            .await
            .expect("the proxy stops")
            .expect("the proxy task");
        if let Some(upstream) = self.upstream {
            tokio::time::timeout(10 * SECOND, upstream)
                .await
                .expect("the upstream stops")
                .expect("the upstream task");
        }
        tally
    }
}

async fn start_proxy(upstream: SocketAddr, judge: Judge) -> Running {
    start_proxy_until(upstream, judge, CancellationToken::new()).await
}

async fn start_proxy_until(upstream: SocketAddr, judge: Judge, stop: CancellationToken) -> Running {
    let proxy = Proxy::new(&format!("http://{upstream}"), judge, Policy::default()).unwrap();
    serve_proxy(proxy, stop).await
}

/// Serves `proxy` on 127.0.0.1 until `stop`.
async fn serve_proxy(proxy: Proxy, stop: CancellationToken) -> Running {
    let (listener, addr) = listener().await;
    let task = {
        let proxy = proxy.clone();
        let stop = stop.clone();
        tokio::spawn(async move {
            proxy
                .serve(listener, stop.cancelled_owned())
                .await
                .expect("the proxy serves")
        })
    };
    Running {
        proxy,
        addr,
        stop,
        task,
        upstream: None,
    }
}

/// A tonic upstream serving `upstream`, and a proxy in front of it; one
/// token stops both.
async fn start(upstream: Upstream, judge: Judge) -> Running {
    let (listener, up_addr) = listener().await;
    let stop = CancellationToken::new();
    let up = {
        let stop = stop.clone();
        tokio::spawn(async move {
            grpc::serve_upstream(listener, upstream, stop.cancelled_owned())
                .await
                .expect("the upstream serves")
        })
    };
    let mut running = start_proxy_until(up_addr, judge, stop).await;
    running.upstream = Some(up);
    running
}

/// A `Subscribe` call on `channel` whose messages are read as they come,
/// raw bytes, one at a time (where [`call`] collects them all).
async fn raw_subscription(
    channel: tonic::transport::Channel,
    request: tonic::Request<SubscribeRequest>,
) -> tonic::Streaming<Bytes> {
    let mut client = tonic::client::Grpc::new(grpc::JsonContentType(channel));
    client.ready().await.unwrap();
    let codec = grpc::codec::PairCodec::<
        grpc::codec::JsonEncoder<SubscribeRequest>,
        grpc::codec::RawDecoder,
    >::default();
    let path = http::uri::PathAndQuery::from_static(grpc::SUBSCRIBE);
    client
        .server_streaming(request, path, codec)
        .await
        .unwrap()
        .into_inner()
}

async fn call(uri: &str, request: tonic::Request<SubscribeRequest>) -> grpc::Received {
    let channel = grpc::connect(uri).await.expect("connects");
    grpc::subscribe_on(channel, request).await
}

fn subscribe(count: u64, start: u64) -> tonic::Request<SubscribeRequest> {
    tonic::Request::new(SubscribeRequest { count, start })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_receives_exactly_the_kept_messages_byte_for_byte_in_order() {
    let pool = pool();
    for judge in [Judge::Optics, Judge::OpticsValidatingKept, Judge::Decode] {
        let running = start(Upstream::new(pool.clone()), judge).await;
        let mut want = Tally::default();
        for count in [0, 1, 2, 10, 333, 1024, 10_000] {
            let received = call(&running.uri(), subscribe(count, 5)).await;
            assert!(received.is_ok(), "{judge:?} {count}: {:?}", received.status);
            let kept = expected(&pool, 5, count, judge);
            assert_eq!(received.messages.len(), kept.len(), "{judge:?} {count}");
            assert!(
                received.messages == kept,
                "{judge:?} {count}: not byte for byte"
            );
            want.messages += count;
            want.bytes_in += (5..5 + count)
                .map(|i| pool.frame(i).len() as u64)
                .sum::<u64>();
            want.bytes_out += received.bytes;
        }
        let tally = running.stop().await;
        assert_eq!(tally.messages, want.messages, "{judge:?}");
        assert_eq!(tally.bytes_in, want.bytes_in, "{judge:?}");
        assert_eq!(tally.bytes_out, want.bytes_out, "{judge:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forward_all_sends_everything_and_metadata_goes_both_ways() {
    let pool = pool();
    let upstream = Upstream::new(pool.clone())
        .initial_metadata(vec![("x-served-by".into(), "triage-upstream".into())]);
    let log = upstream.log().clone();
    let running = start(upstream, Judge::ForwardAll).await;
    let mut request = subscribe(500, 0);
    request
        .metadata_mut()
        .insert("x-tenant", MetadataValue::from_static("acme"));
    request
        .metadata_mut()
        .insert("grpc-timeout", MetadataValue::from_static("30S"));
    let received = call(&running.uri(), request).await;
    assert!(received.is_ok(), "{:?}", received.status);
    assert!(received.messages == expected(&pool, 0, 500, Judge::ForwardAll));
    assert_eq!(
        received.headers.get("x-served-by").unwrap(),
        "triage-upstream"
    );
    let seen = log.last_request().expect("a call reached the upstream");
    assert_eq!(seen["x-tenant"], "acme");
    assert_eq!(seen["grpc-timeout"], "30S");
    assert_eq!(seen["content-type"], "application/grpc+json");
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_error_status_and_its_trailers_reach_the_client_unchanged() {
    let pool = pool();
    let upstream = Upstream::new(pool.clone()).ending(Ending::Status {
        code: Code::NotFound,
        message: "no project named triage-ñ".into(),
        metadata: vec![
            ("x-reason".into(), "archived".into()),
            ("x-retry-after".into(), "3600".into()),
        ],
    });
    let running = start(upstream, Judge::Optics).await;
    let received = call(&running.uri(), subscribe(300, 0)).await;
    assert_eq!(received.status.code(), Code::NotFound);
    assert_eq!(received.status.message(), "no project named triage-ñ");
    assert_eq!(received.trailers.get("x-reason").unwrap(), "archived");
    assert_eq!(received.trailers.get("x-retry-after").unwrap(), "3600");
    assert!(received.messages == expected(&pool, 0, 300, Judge::Optics));
    let tally = running.stop().await;
    assert_calls(&tally, CallEnd::UpstreamError, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_that_ends_ok_after_some_messages_ends_ok() {
    let pool = pool();
    let running = start(Upstream::new(pool.clone()), Judge::Optics).await;
    let received = call(&running.uri(), subscribe(40, 17)).await;
    assert_eq!(received.status.code(), Code::Ok);
    assert!(received.messages == expected(&pool, 17, 40, Judge::Optics));
    let tally = running.stop().await;
    assert_eq!(tally.messages, 40);
    assert_calls(&tally, CallEnd::UpstreamOk, 1);
    let report = triage::report::tally("proxy", &tally, None);
    assert!(
        report.contains("\n  no call failed at the proxy: it ended none of the 1 calls itself\n"),
        "{report}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_cancel_cancels_the_upstream_call_within_a_second() {
    let pool = pool();
    let upstream = Upstream::new(pool.clone()).ending(Ending::Stall);
    let log = upstream.log().clone();
    let running = start(upstream, Judge::ForwardAll).await;
    let channel = grpc::connect(&running.uri()).await.unwrap();
    let mut stream = raw_subscription(channel, subscribe(50, 0)).await;
    for _ in 0..10 {
        stream.message().await.unwrap().expect("a message");
    }
    assert_eq!(log.cancelled(), 0);
    let dropped = Instant::now();
    drop(stream);
    tokio::time::timeout(SECOND, log.wait_cancelled(1))
        .await
        .expect("the upstream sees its stream cancelled within 1 s");
    assert!(dropped.elapsed() < SECOND);
    let tally = running.stop().await;
    assert_calls(&tally, CallEnd::ClientCancelled, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_passed_deadline_ends_the_call_with_deadline_exceeded() {
    let pool = pool();
    let upstream = Upstream::new(pool.clone()).ending(Ending::Stall);
    let log = upstream.log().clone();
    let running = start(upstream, Judge::Optics).await;
    let mut request = subscribe(30, 0);
    request
        .metadata_mut()
        .insert("grpc-timeout", MetadataValue::from_static("200m"));
    let started = Instant::now();
    let received = tokio::time::timeout(5 * SECOND, call(&running.uri(), request))
        .await
        .expect("the proxy ends the call");
    let took = started.elapsed();
    assert_eq!(
        received.status.code(),
        Code::DeadlineExceeded,
        "{:?}",
        received.status
    );
    assert!(received.status.message().contains("deadline"));
    assert!(
        took >= Duration::from_millis(200) && took < 2 * SECOND,
        "{took:?}"
    );
    assert!(received.messages == expected(&pool, 0, 30, Judge::Optics));
    tokio::time::timeout(SECOND, log.wait_cancelled(1))
        .await
        .expect("the upstream call is cancelled");
    let tally = running.stop().await;
    assert_calls(&tally, CallEnd::DeadlineExceeded, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_upstream_gives_unavailable() {
    let (closed, addr) = listener().await;
    drop(closed);
    let running = start_proxy(addr, Judge::Optics).await;
    let received = call(&running.uri(), subscribe(3, 0)).await;
    assert_eq!(
        received.status.code(),
        Code::Unavailable,
        "{:?}",
        received.status
    );
    assert!(received.status.message().starts_with("proxy: upstream"));
    let tally = running.stop().await;
    assert_calls(&tally, CallEnd::Unreachable, 1);
}

/// A listener whose accept queue is full, so that the kernel drops the SYNs
/// of further connects: an upstream that never answers a connect. Holds
/// the listener and the connections that fill its queue.
async fn blackhole() -> (
    SocketAddr,
    tokio::net::TcpListener,
    Vec<tokio::net::TcpStream>,
) {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let listener = socket.listen(1).unwrap();
    let addr = listener.local_addr().unwrap();
    let mut fillers = Vec::new();
    while let Ok(Ok(stream)) = tokio::time::timeout(
        Duration::from_millis(200),
        tokio::net::TcpStream::connect(addr),
    )
    .await
    {
        fillers.push(stream);
        assert!(fillers.len() < 64, "the accept queue never filled");
    }
    (addr, listener, fillers)
}

/// `calls` concurrent hand-made calls on one client connection, with
/// `headers`: when each was answered (from the start of all), its
/// grpc-status and grpc-message.
async fn concurrent_raw_calls(
    addr: SocketAddr,
    calls: usize,
    headers: &'static [(&'static str, &'static str)],
) -> Vec<(Duration, String, String)> {
    let sender = h2c_client(addr).await;
    let started = Instant::now();
    let calls: Vec<_> = (0..calls)
        .map(|_| {
            let sender = sender.clone();
            tokio::spawn(async move {
                let (parts, _, _) = raw_call_on(sender, addr, headers, br#"{"count":1}"#).await;
                let header = |name: &str| {
                    parts
                        .headers
                        .get(name)
                        .map_or(String::new(), |value| value.to_str().unwrap().to_owned())
                };
                (
                    started.elapsed(),
                    header("grpc-status"),
                    header("grpc-message"),
                )
            })
        })
        .collect();
    let mut answers = Vec::new();
    for call in calls {
        answers.push(call.await.unwrap());
    }
    answers
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_deadline_bounds_the_connect_and_waiting_calls_share_one_attempt() {
    const CONNECT: Duration = Duration::from_millis(600);
    let (up, _listener, _fillers) = blackhole().await;
    let proxy = Proxy::new(&format!("http://{up}"), Judge::Optics, Policy::default())
        .unwrap()
        .with_connect_timeout(CONNECT);
    let running = serve_proxy(proxy, CancellationToken::new()).await;
    const GRPC: &[(&str, &str)] = &[
        ("content-type", "application/grpc+json"),
        ("te", "trailers"),
    ];
    const GRPC_200MS: &[(&str, &str)] = &[
        ("content-type", "application/grpc+json"),
        ("te", "trailers"),
        ("grpc-timeout", "200m"),
    ];

    // Each call's deadline passes while the proxy connects: DEADLINE_EXCEEDED
    // at the deadline, for every call, not one after another's connect.
    for (took, status, message) in concurrent_raw_calls(running.addr, 3, GRPC_200MS).await {
        assert_eq!(status, "4", "{message}");
        assert!(message.contains("deadline exceeded"), "{message}");
        assert!(
            took >= Duration::from_millis(200) && took < CONNECT,
            "answered after {took:?}"
        );
    }
    // No deadline: the calls that waited on one attempt all get its
    // failure when it times out, not one connect timeout each.
    for (took, status, message) in concurrent_raw_calls(running.addr, 3, GRPC).await {
        assert_eq!(status, "14", "{message}");
        assert!(message.contains("connect timed out"), "{message}");
        assert!(
            took >= CONNECT && took < CONNECT + Duration::from_millis(500),
            "answered after {took:?}"
        );
    }
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_concurrent_calls_on_one_connection_and_on_ten_each_get_their_own() {
    let pool = pool();
    let running = start(Upstream::new(pool.clone()), Judge::Optics).await;
    let plan = |i: u64| (i * 37 % 256, 1 + i * 53 % 700);
    let mut want = 0u64;
    for connections in [1usize, 10] {
        let mut channels = Vec::new();
        for _ in 0..connections {
            channels.push(grpc::connect(&running.uri()).await.unwrap());
        }
        let mut calls = Vec::new();
        for i in 0..100u64 {
            let channel = channels[i as usize % connections].clone();
            let (start, count) = plan(i);
            want += count;
            calls.push(tokio::spawn(async move {
                grpc::subscribe_on(channel, subscribe(count, start)).await
            }));
        }
        for (i, call) in calls.into_iter().enumerate() {
            let received = call.await.unwrap();
            let (start, count) = plan(i as u64);
            assert!(received.is_ok(), "call {i}: {:?}", received.status);
            assert!(
                received.messages == expected(&pool, start, count, Judge::Optics),
                "call {i} over {connections} connection(s) got other messages"
            );
        }
    }
    let tally = running.stop().await;
    assert_eq!(tally.messages, want, "every call's tally is in the total");
    assert_calls(&tally, CallEnd::UpstreamOk, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_and_fifty_open_calls_on_one_connection_all_flow() {
    // Long-lived calls (a subscription that stays open): hyper's server
    // would allow 200 at once by default, tonic's any number; the proxy
    // must not hold back what the upstream allows.
    const CALLS: u64 = 250;
    let pool = pool();
    let upstream = Upstream::new(pool.clone()).ending(Ending::Stall);
    let log = upstream.log().clone();
    let running = start(upstream, Judge::ForwardAll).await;
    let channel = grpc::connect(&running.uri()).await.unwrap();
    let calls: Vec<_> = (0..CALLS)
        .map(|i| {
            let channel = channel.clone();
            tokio::spawn(async move {
                let mut stream = raw_subscription(channel, subscribe(1, i)).await;
                let first = stream.message().await.unwrap().expect("a message");
                // Kept open: the upstream stalls after its one message.
                (first, stream)
            })
        })
        .collect();
    let mut open = Vec::new();
    for (i, call) in calls.into_iter().enumerate() {
        let (first, stream) = tokio::time::timeout(10 * SECOND, call)
            .await
            .unwrap_or_else(|_| panic!("call {i} of {CALLS} got no message within 10 s"))
            .unwrap();
        assert!(first == pool.message(i as u64), "call {i}");
        open.push(stream);
    }
    drop(open);
    tokio::time::timeout(10 * SECOND, log.wait_cancelled(CALLS))
        .await
        .expect("every upstream call is cancelled");
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_client_holds_the_upstream_back_and_the_proxy_holds_little() {
    // The proxy holds at most one upstream DATA chunk (64 KiB at most) and
    // one message that straddles chunks (under 16 KiB here) per call.
    const PROXY_BOUND: u64 = 128 * 1024;
    // End to end, what the upstream may be ahead of the client: the
    // upstream's window into the proxy (1 MiB), the proxy's send buffer
    // (256 KiB), the client's window (2 MiB in tonic), tonic's own buffers
    // and the loopback sockets' buffers; far less than the stream (210 MB).
    const LAG_BOUND: u64 = 32 * 1024 * 1024;
    const COUNT: u64 = 50_000;
    let pool = pool();
    let upstream = Upstream::new(pool.clone());
    let log = upstream.log().clone();
    let running = start(upstream, Judge::ForwardAll).await;
    let channel = grpc::connect(&running.uri()).await.unwrap();
    let mut stream = raw_subscription(channel, subscribe(COUNT, 0)).await;
    let mut received = 0u64;
    let mut received_bytes = 0u64;
    let mut max_lag = 0u64;
    while let Some(message) = stream.message().await.unwrap() {
        assert!(message == pool.message(received), "message {received}");
        received += 1;
        received_bytes += message.len() as u64 + 5;
        if received.is_multiple_of(1000) {
            // Reading slowly: the upstream runs ahead until the windows
            // fill, then waits.
            tokio::time::sleep(Duration::from_millis(20)).await;
            let lag = pool.wire_len(log.sent()) - received_bytes;
            max_lag = max_lag.max(lag);
        }
    }
    assert_eq!(received, COUNT);
    let stats = running.proxy.stats();
    assert!(
        stats.peak_held <= PROXY_BOUND,
        "the proxy held {} bytes",
        stats.peak_held
    );
    assert!(stats.peak_held > 0);
    assert!(
        max_lag <= LAG_BOUND,
        "the upstream ran {max_lag} bytes ahead of the client"
    );
    assert_eq!(stats.held, 0, "nothing held once the call ended");
    running.stop().await;
}

// ---- A raw upstream, for what tonic will not send ----

/// What the raw upstream answers to every call.
#[derive(Clone)]
struct Script {
    headers: Vec<(&'static str, &'static str)>,
    body: Bytes,
    chunk: usize,
    end: End,
    delay: Duration,
}

/// Serves `script` over h2c on 127.0.0.1 until `stop`.
async fn raw_upstream(script: Script, stop: CancellationToken) -> SocketAddr {
    let (listener, addr) = listener().await;
    tokio::spawn(async move {
        loop {
            let stream = tokio::select! {
                accepted = listener.accept() => accepted.unwrap().0,
                () = stop.cancelled() => return,
            };
            let script = script.clone();
            tokio::spawn(async move {
                let service = service_fn(move |request: Request<Incoming>| {
                    let script = script.clone();
                    async move {
                        // Echo what is not gRPC; answer gRPC calls with the script.
                        let echo = request.headers()["content-type"] == "application/json";
                        let request_body = request.into_body().collect().await.unwrap().to_bytes();
                        tokio::time::sleep(script.delay).await;
                        let body = if echo {
                            request_body
                        } else {
                            script.body.clone()
                        };
                        let chunks = (0..body.len())
                            .step_by(script.chunk.max(1))
                            .map(|at| body.slice(at..(at + script.chunk).min(body.len())))
                            .collect();
                        let mut response = Response::new(Scripted {
                            chunks,
                            end: script.end.clone(),
                        });
                        for (name, value) in &script.headers {
                            response
                                .headers_mut()
                                .insert(*name, HeaderValue::from_static(value));
                        }
                        Ok::<_, Infallible>(response)
                    }
                });
                let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    addr
}

/// The frames of messages `0..count` of the pool, then `bad` bytes.
fn stream_with(pool: &Pool, count: u64, bad: &[u8]) -> Bytes {
    let mut wire = BytesMut::new();
    for i in 0..count {
        wire.extend_from_slice(&pool.frame(i));
    }
    wire.extend_from_slice(bad);
    wire.freeze()
}

fn grpc_script(body: Bytes, chunk: usize) -> Script {
    Script {
        headers: vec![("content-type", "application/grpc+json")],
        body,
        chunk,
        end: End::Trailers(ok_trailers()),
        delay: Duration::ZERO,
    }
}

async fn through_raw(script: Script, judge: Judge) -> (grpc::Received, Tally) {
    let stop = CancellationToken::new();
    let addr = raw_upstream(script, stop.clone()).await;
    let running = start_proxy(addr, judge).await;
    let received = tokio::time::timeout(10 * SECOND, call(&running.uri(), subscribe(1, 0)))
        .await
        .expect("the call ends");
    let tally = running.stop().await;
    stop.cancel();
    (received, tally)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn frames_cut_anywhere_by_the_chunks_arrive_whole_and_in_order() {
    let pool = pool();
    let body = stream_with(&pool, 200, &[]);
    // h2 itself cuts off floods of tiny DATA frames (the test below); cuts
    // at every offset are the splitter's own test.
    for chunk in [257, 1000, 4096, 7919, 65536] {
        for judge in [Judge::Optics, Judge::ForwardAll] {
            let (received, tally) = through_raw(grpc_script(body.clone(), chunk), judge).await;
            assert!(received.is_ok(), "{chunk}: {:?}", received.status);
            assert!(
                received.messages == expected(&pool, 0, 200, judge),
                "{judge:?} in chunks of {chunk}"
            );
            assert_eq!(tally.messages, 200);
            assert_eq!(tally.bytes_in, body.len() as u64);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_that_floods_tiny_data_frames_is_cut_off_with_unavailable() {
    let pool = pool();
    let body = stream_with(&pool, 200, &[]);
    let (received, tally) = through_raw(grpc_script(body, 1), Judge::Optics).await;
    // h2 answers the flood with a GOAWAY (ENHANCE_YOUR_CALM) on the upstream
    // connection: the call has lost its upstream, and the client gets
    // UNAVAILABLE after the kept messages before it, not a reset.
    assert_upstream_lost(&received);
    let kept = expected(&pool, 0, 200, Judge::Optics);
    assert!(kept.starts_with(&received.messages));
    assert_calls(&tally, CallEnd::ConnectionLost, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_frames_end_the_call_with_the_right_status_after_the_kept_messages() {
    let pool = pool();
    let over = (4 * 1024 * 1024 + 1u32).to_be_bytes();
    let cases: [(&str, Vec<u8>, Code, &str, CallEnd); 4] = [
        (
            "compressed",
            vec![1, 0, 0, 0, 2, b'{', b'}'],
            Code::Internal,
            "compressed frame",
            CallEnd::Compressed,
        ),
        (
            "over 4 MiB",
            vec![0, over[0], over[1], over[2], over[3], b'{'],
            Code::ResourceExhausted,
            "over the 4194304-byte limit",
            CallEnd::TooLarge,
        ),
        (
            "truncated",
            vec![0, 0, 0, 0, 100, b'{', b'"'],
            Code::Internal,
            "stream ended inside a frame: 2 of 100 message bytes arrived",
            CallEnd::EndedInsideFrame,
        ),
        (
            "bad flag",
            vec![7, 0, 0, 0, 0],
            Code::Internal,
            "frame flag 0x07",
            CallEnd::BadFlag,
        ),
    ];
    for (name, bad, code, text, end) in cases {
        // Good messages after the bad frame must not arrive.
        let mut tail = bad.clone();
        if name != "truncated" {
            tail.extend_from_slice(&pool.frame(3));
        }
        let body = stream_with(&pool, 120, &tail);
        for chunk in [body.len(), 1000] {
            let (received, tally) =
                through_raw(grpc_script(body.clone(), chunk), Judge::Optics).await;
            assert_eq!(
                received.status.code(),
                code,
                "{name}: {:?}",
                received.status
            );
            assert!(
                received.status.message().contains(text),
                "{name}: {}",
                received.status.message()
            );
            assert!(
                received.messages == expected(&pool, 0, 120, Judge::Optics),
                "{name}: the kept messages before the bad frame"
            );
            assert_eq!(tally.messages, 120, "{name}");
            assert_calls(&tally, end, 1);
        }
    }
}

/// A gRPC call made by hand with hyper (no deadline or codec of a client
/// library in the way): the response's headers, body and trailers.
async fn raw_call(
    addr: SocketAddr,
    timeout: Option<&'static str>,
) -> (http::response::Parts, Bytes, HeaderMap) {
    let mut headers = vec![
        ("content-type", "application/grpc+json"),
        ("te", "trailers"),
    ];
    if let Some(timeout) = timeout {
        headers.push(("grpc-timeout", timeout));
    }
    raw_call_with(addr, &headers, br#"{"count":1}"#).await
}

/// [`raw_call`] with the request headers and message given; the message
/// goes as one gRPC frame whatever the headers say.
async fn raw_call_with(
    addr: SocketAddr,
    headers: &[(&'static str, &'static str)],
    message: &[u8],
) -> (http::response::Parts, Bytes, HeaderMap) {
    let sender = h2c_client(addr).await;
    raw_call_on(sender, addr, headers, message).await
}

/// One hand-made call on an open connection: `message` as one gRPC frame.
async fn raw_call_on(
    mut sender: hyper::client::conn::http2::SendRequest<http_body_util::Full<Bytes>>,
    addr: SocketAddr,
    headers: &[(&'static str, &'static str)],
    message: &[u8],
) -> (http::response::Parts, Bytes, HeaderMap) {
    let mut body = BytesMut::new();
    triage::frames::encode(message, &mut body).unwrap();
    let mut request = Request::post(format!("http://{addr}{}", grpc::SUBSCRIBE));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let request = request
        .body(http_body_util::Full::new(body.freeze()))
        .unwrap();
    let response = sender.send_request(request).await.unwrap();
    let (parts, body) = response.into_parts();
    let collected = body.collect().await.unwrap();
    let trailers = collected.trailers().cloned().unwrap_or_default();
    (parts, collected.to_bytes(), trailers)
}

/// The messages of a response body of whole gRPC frames.
fn messages_of(body: &Bytes) -> Vec<Bytes> {
    use tokio_util::codec::Decoder;
    let mut decoder = triage::frames::FrameDecoder::new();
    let mut wire = BytesMut::from(&body[..]);
    let mut messages = Vec::new();
    while let Some(frame) = decoder.decode(&mut wire).expect("whole frames") {
        messages.push(Bytes::copy_from_slice(frame.message()));
    }
    assert!(wire.is_empty(), "the body ends with a whole frame");
    messages
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grpc_response_is_judged_whatever_the_request_content_type_says() {
    // tonic's server does not look at the request's content-type: it answers
    // any POST to its path with gRPC frames, so what the client reads is
    // what counts.
    let pool = pool();
    let running = start(Upstream::new(pool.clone()), Judge::Optics).await;
    let want = expected(&pool, 0, 100, Judge::Optics);
    assert!(want.len() < 100, "the policy drops some of these");
    for content_type in [
        "application/grpc+json",
        "application/json",
        "application/octet-stream",
        "text/plain",
    ] {
        let (parts, body, trailers) = raw_call_with(
            running.addr,
            &[("content-type", content_type), ("te", "trailers")],
            br#"{"count":100}"#,
        )
        .await;
        assert_eq!(parts.status, 200, "{content_type}");
        assert_eq!(parts.headers["content-type"], "application/grpc+json");
        assert_eq!(trailers["grpc-status"], "0", "{content_type}");
        assert!(
            messages_of(&body) == want,
            "{content_type}: only the kept messages"
        );
    }
    let tally = running.stop().await;
    assert_eq!(tally.messages, 400, "every call was judged");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_after_grpc_status_in_the_headers_is_refused_not_passed_on() {
    // Frames the policy would never keep: a malformed message and one with
    // a duplicate key. Sent after headers that already carry a status, they
    // must not reach the client unjudged.
    let mut wire = BytesMut::new();
    triage::frames::encode(b"{not json at all", &mut wire).unwrap();
    triage::frames::encode(br#"{"detail":{"type":"Incident"},"detail":1}"#, &mut wire).unwrap();
    let mut script = grpc_script(wire.freeze(), 65536);
    script.headers.push(("grpc-status", "0"));
    let stop = CancellationToken::new();
    let addr = raw_upstream(script, stop.clone()).await;
    let running = start_proxy(addr, Judge::Optics).await;
    let (parts, body, trailers) = raw_call(running.addr, None).await;
    assert_eq!(parts.status, 200);
    assert_eq!(parts.headers["grpc-status"], "13", "{:?}", parts.headers);
    let message = parts.headers["grpc-message"].to_str().unwrap();
    assert!(message.contains("grpc-status"), "{message}");
    assert!(
        body.is_empty() && trailers.is_empty(),
        "{body:?} {trailers:?}"
    );
    // A tonic client sees the same: the call fails, no message arrives.
    let received = call(&running.uri(), subscribe(1, 0)).await;
    assert_eq!(
        received.status.code(),
        Code::Internal,
        "{:?}",
        received.status
    );
    assert!(received.messages.is_empty());
    let tally = running.stop().await;
    assert_calls(&tally, CallEnd::StatusThenBody, 2);
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_trailers_only_response_passes_through_unchanged() {
    let script = Script {
        headers: vec![
            ("content-type", "application/grpc+json"),
            ("grpc-status", "5"),
            ("grpc-message", "no%20such%20project"),
            ("x-reason", "archived"),
        ],
        body: Bytes::new(),
        chunk: 1,
        end: End::Nothing,
        delay: Duration::ZERO,
    };
    let stop = CancellationToken::new();
    let addr = raw_upstream(script, stop.clone()).await;
    let running = start_proxy(addr, Judge::Optics).await;
    let (parts, body, trailers) = raw_call(running.addr, None).await;
    assert_eq!(parts.status, 200);
    assert_eq!(parts.headers["grpc-status"], "5");
    assert_eq!(parts.headers["grpc-message"], "no%20such%20project");
    assert_eq!(parts.headers["x-reason"], "archived");
    assert!(body.is_empty() && trailers.is_empty());
    let received = call(&running.uri(), subscribe(1, 0)).await;
    assert_eq!(received.status.code(), Code::NotFound);
    assert_eq!(received.status.message(), "no such project");
    let tally = running.stop().await;
    assert_calls(&tally, CallEnd::UpstreamError, 2);
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_compressed_frame_under_an_encoding_the_proxy_cannot_read_is_never_forwarded() {
    let pool = pool();
    let body = stream_with(&pool, 10, &[1, 0, 0, 0, 2, 0x1f, 0x8b]);
    let mut script = grpc_script(body.clone(), 65536);
    script.headers.push(("grpc-encoding", "snappy"));
    let stop = CancellationToken::new();
    let addr = raw_upstream(script, stop.clone()).await;
    let running = start_proxy(addr, Judge::ForwardAll).await;
    // By hand: tonic's client, built without compression, would refuse the
    // response's grpc-encoding before reading it.
    let (parts, received, trailers) = raw_call(running.addr, None).await;
    assert_eq!(parts.headers["grpc-encoding"], "snappy");
    assert_eq!(trailers["grpc-status"], "13");
    let message = trailers["grpc-message"].to_str().unwrap();
    assert!(message.contains("grpc-encoding snappy"), "{message}");
    assert_eq!(
        received,
        body.slice(..body.len() - 7),
        "the ten messages, not the compressed one"
    );
    let tally = running.stop().await;
    assert_calls(&tally, CallEnd::Compressed, 1);
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compressed_frames_are_inflated_to_be_judged_and_forwarded_as_they_came() {
    // An upstream that compresses although the proxy asked for identity
    // (grpc's C core set to compress by default does): under gzip and
    // deflate, each message is inflated and judged, and a kept frame goes
    // out compressed, byte for byte; frames cut across chunks anywhere.
    let pool = pool();
    //
    // Cut into 7-byte DATA frames, 16 messages (about 3,700 frames) rather
    // than 40 (about 9,200): h2 ends a connection on which frames under 256
    // bytes wait unread past half its window (about 8,400 frames of 7 bytes
    // here), and on a loaded machine the whole body can arrive before the
    // proxy reads any of it (the README's Limits).
    for encoding in ["gzip", "deflate", "GZIP"] {
        for (chunk, count) in [(7, 16u64), (1000, 40), (65536, 40)] {
            let frames: Vec<Bytes> = (0..count)
                .map(|i| compressed_frame(&encoding.to_ascii_lowercase(), &pool.message(i)))
                .collect();
            let kept_messages = expected(&pool, 0, count, Judge::Optics);
            assert!(!kept_messages.is_empty() && kept_messages.len() < count as usize);
            let want: Vec<u8> = (0..count)
                .filter(|&i| kept_messages.contains(&pool.message(i)))
                .flat_map(|i| frames[i as usize].to_vec())
                .collect();
            let body = Bytes::from(frames.concat());
            let mut script = grpc_script(body.clone(), chunk);
            script.headers.push(("grpc-encoding", encoding));
            let stop = CancellationToken::new();
            let addr = raw_upstream(script, stop.clone()).await;
            let running = start_proxy(addr, Judge::Optics).await;
            let (parts, received, trailers) = raw_call(running.addr, None).await;
            assert_eq!(parts.headers["grpc-encoding"], encoding);
            assert_eq!(trailers["grpc-status"], "0", "{encoding} {chunk}");
            assert!(
                received == want,
                "{encoding} {chunk}: the kept frames as they came"
            );
            let tally = running.stop().await;
            assert_eq!(tally.messages, count);
            assert_eq!(tally.kept(), kept_messages.len() as u64);
            assert_eq!(tally.bytes_in, body.len() as u64);
            assert_calls(&tally, CallEnd::UpstreamOk, 1);
            stop.cancel();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_compressed_frame_that_does_not_inflate_or_inflates_past_the_limit_ends_the_call() {
    let pool = pool();
    let kept_first = expected(&pool, 0, 10, Judge::ForwardAll);
    let good: Vec<u8> = (0..10)
        .flat_map(|i| compressed_frame("gzip", &pool.message(i)).to_vec())
        .collect();
    // A gzip stream cut short; one with bytes after its end; one that
    // inflates to 5 MiB of zeros (a few KB compressed, past the 4 MiB
    // limit).
    let whole = compressed_frame("gzip", b"{}");
    let mut cut = BytesMut::from(&whole[..whole.len() - 3]);
    cut[1..5].copy_from_slice(&((whole.len() - 8) as u32).to_be_bytes());
    let mut trailing = BytesMut::from(&whole[..]);
    trailing.extend_from_slice(b"xx");
    trailing[1..5].copy_from_slice(&((whole.len() - 3) as u32).to_be_bytes());
    let bomb = compressed_frame("gzip", &vec![b' '; 5 << 20]);
    for (bad, status, end, says) in [
        (cut.freeze(), "13", CallEnd::Compressed, "does not inflate"),
        (
            trailing.freeze(),
            "13",
            CallEnd::Compressed,
            "after the compressed stream",
        ),
        (bomb, "8", CallEnd::TooLarge, "inflates past the"),
    ] {
        let mut body = good.clone();
        body.extend_from_slice(&bad);
        body.extend_from_slice(&compressed_frame("gzip", &pool.message(11)));
        let mut script = grpc_script(Bytes::from(body), 4096);
        script.headers.push(("grpc-encoding", "gzip"));
        let stop = CancellationToken::new();
        let addr = raw_upstream(script, stop.clone()).await;
        let running = start_proxy(addr, Judge::ForwardAll).await;
        let (_, received, trailers) = raw_call(running.addr, None).await;
        assert_eq!(trailers["grpc-status"], status, "{says}");
        let message = trailers["grpc-message"].to_str().unwrap();
        assert!(message.contains(says), "{message}");
        assert!(message.contains("frame 10"), "{message}");
        assert_eq!(kept_first.len(), 10);
        assert!(
            received[..] == good[..],
            "{says}: the ten frames before it, nothing after"
        );
        let tally = running.stop().await;
        assert_eq!(tally.messages, 10, "{says}");
        assert_calls(&tally, end, 1);
        stop.cancel();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_reset_reaches_the_client_with_its_reason() {
    let pool = pool();
    let mut script = grpc_script(stream_with(&pool, 50, &[]), 4096);
    script.end = End::Reset(h2::Reason::ENHANCE_YOUR_CALM);
    let (received, tally) = through_raw(script, Judge::ForwardAll).await;
    // tonic reads ENHANCE_YOUR_CALM as RESOURCE_EXHAUSTED: the reason came
    // through, not a generic INTERNAL.
    assert_eq!(
        received.status.code(),
        Code::ResourceExhausted,
        "{:?}",
        received.status
    );
    assert!(received.messages.len() <= 50);
    assert_calls(&tally, CallEnd::UpstreamError, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deadline_that_passes_before_the_upstream_answers_gives_deadline_exceeded() {
    let pool = pool();
    let mut script = grpc_script(stream_with(&pool, 5, &[]), 4096);
    script.delay = 5 * SECOND;
    let stop = CancellationToken::new();
    let addr = raw_upstream(script, stop.clone()).await;
    let running = start_proxy(addr, Judge::Optics).await;
    // By hand: tonic's client would end the call itself at its deadline.
    let started = Instant::now();
    let (parts, body, trailers) = raw_call(running.addr, Some("200m")).await;
    assert!(started.elapsed() >= Duration::from_millis(200));
    assert!(started.elapsed() < 2 * SECOND);
    // Trailers-only: the status is in the headers, the body is empty.
    assert_eq!(parts.headers["grpc-status"], "4");
    assert!(parts.headers["grpc-message"]
        .to_str()
        .unwrap()
        .contains("deadline exceeded"));
    assert!(body.is_empty() && trailers.is_empty());
    let tally = running.stop().await;
    assert_calls(&tally, CallEnd::DeadlineExceeded, 1);
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_that_is_not_grpc_passes_through_untouched() {
    let stop = CancellationToken::new();
    let mut trailers = HeaderMap::new();
    trailers.insert("x-checksum", HeaderValue::from_static("7"));
    let script = Script {
        headers: vec![("content-type", "application/json"), ("x-echo", "yes")],
        body: Bytes::new(),
        chunk: 3,
        end: End::Trailers(trailers),
        delay: Duration::ZERO,
    };
    let addr = raw_upstream(script, stop.clone()).await;
    let running = start_proxy(addr, Judge::Optics).await;

    let mut sender = h2c_client(running.addr).await;
    // Not a gRPC frame at all: judging it would fail the call.
    let payload = Bytes::from_static(b"\x07{\"not\":\"grpc\",\"flag\":7}");
    let request = Request::post(format!("{}/api/issues?x=1", running.uri()))
        .header("content-type", "application/json")
        .body(http_body_util::Full::new(payload.clone()))
        .unwrap();
    let response = sender.send_request(request).await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["x-echo"], "yes");
    assert_eq!(response.headers()["content-type"], "application/json");
    let collected = response.into_body().collect().await.unwrap();
    let trailers = collected.trailers().cloned().expect("trailers");
    assert_eq!(collected.to_bytes(), payload);
    assert_eq!(trailers["x-checksum"], "7");
    let tally = running.stop().await;
    assert_eq!(tally.messages, 0, "nothing was judged");
    assert_calls(&tally, CallEnd::UpstreamOk, 1);
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tonic_decode_proxy_keeps_the_same_issues() {
    let pool = pool();
    let (up_listener, up_addr) = listener().await;
    let (proxy_listener, proxy_addr) = listener().await;
    let stop = CancellationToken::new();
    let up = tokio::spawn(grpc::serve_upstream(
        up_listener,
        Upstream::new(pool.clone()),
        stop.clone().cancelled_owned(),
    ));
    let proxy = tokio::spawn(grpc::serve_decode_proxy(
        proxy_listener,
        &format!("http://{up_addr}"),
        Policy::default(),
        stop.clone().cancelled_owned(),
    ));
    let received = call(&format!("http://{proxy_addr}"), subscribe(400, 0)).await;
    assert!(received.is_ok(), "{:?}", received.status);
    let want = expected(&pool, 0, 400, Judge::Decode);
    assert_eq!(received.messages.len(), want.len());
    for (got, want) in received.messages.iter().zip(&want) {
        let got: Issue = serde_json::from_slice(got).unwrap();
        let want: Issue = serde_json::from_slice(want).unwrap();
        assert_eq!(got, want);
    }
    stop.cancel();
    up.await.unwrap().unwrap();
    proxy.await.unwrap().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_connection_lost_mid_call_gives_unavailable_after_the_kept_messages() {
    let pool = pool();
    let body = stream_with(&pool, 50, &[]);
    let (listener, addr) = listener().await;
    // Sends fifty messages, then its connection is dropped under the call.
    let upstream = tokio::spawn(async move {
        let (stream, _) = listener.accept().await.unwrap();
        let service = service_fn(move |request: Request<Incoming>| {
            let body = body.clone();
            async move {
                let _ = request.into_body().collect().await;
                let mut response = Response::new(ThenSilent(Some(body)));
                response.headers_mut().insert(
                    "content-type",
                    HeaderValue::from_static("application/grpc+json"),
                );
                Ok::<_, Infallible>(response)
            }
        });
        let connection = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
            .serve_connection(TokioIo::new(stream), service);
        // Dropping the connection closes its socket.
        let _ = tokio::time::timeout(Duration::from_millis(500), connection).await;
    });
    let running = start_proxy(addr, Judge::Optics).await;
    let received = tokio::time::timeout(10 * SECOND, call(&running.uri(), subscribe(50, 0)))
        .await
        .expect("the call ends");
    // It was reset with INTERNAL_ERROR, which tonic reads as INTERNAL.
    assert_upstream_lost(&received);
    assert!(received.messages == expected(&pool, 0, 50, Judge::Optics));
    let tally = running.stop().await;
    assert_calls(&tally, CallEnd::ConnectionLost, 1);
    upstream.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_connection_lost_before_the_response_headers_says_so() {
    let (listener, addr) = listener().await;
    // Takes the call and never answers it; its connection is dropped.
    let upstream = tokio::spawn(async move {
        let (stream, _) = listener.accept().await.unwrap();
        let service = service_fn(|request: Request<Incoming>| async move {
            let _ = request.into_body().collect().await;
            std::future::pending::<Result<Response<http_body_util::Empty<Bytes>>, Infallible>>()
                .await
        });
        let connection = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
            .serve_connection(TokioIo::new(stream), service);
        let _ = tokio::time::timeout(Duration::from_millis(500), connection).await;
    });
    let running = start_proxy(addr, Judge::Optics).await;
    let received = tokio::time::timeout(10 * SECOND, call(&running.uri(), subscribe(5, 0)))
        .await
        .expect("the call ends");
    // The same status and words as a connection lost mid-call (README's
    // table), counted the same way.
    assert_upstream_lost(&received);
    assert!(received.messages.is_empty());
    let tally = running.stop().await;
    assert_calls(&tally, CallEnd::ConnectionLost, 1);
    upstream.await.unwrap();
}

/// The call ended as one whose upstream connection was lost: UNAVAILABLE,
/// saying so.
fn assert_upstream_lost(received: &grpc::Received) {
    assert_eq!(
        received.status.code(),
        Code::Unavailable,
        "{:?}",
        received.status
    );
    assert!(received
        .status
        .message()
        .contains("upstream connection lost"));
}

// ---- What a client sends and gets, next to a direct call ----

/// An h2c upstream that records each request's head and answers every call
/// with `answer`'s headers, trailers-only; hyper's date header off, as
/// grpc's C core and grpc-go send none.
async fn recording_upstream(
    answer: Vec<(&'static str, &'static str)>,
    stop: CancellationToken,
) -> (SocketAddr, Arc<std::sync::Mutex<Vec<http::request::Parts>>>) {
    let (listener, addr) = listener().await;
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        loop {
            let stream = tokio::select! {
                accepted = listener.accept() => accepted.unwrap().0,
                () = stop.cancelled() => return,
            };
            let answer = answer.clone();
            let log = log.clone();
            tokio::spawn(async move {
                let service = service_fn(move |request: Request<Incoming>| {
                    let answer = answer.clone();
                    let log = log.clone();
                    async move {
                        let (parts, body) = request.into_parts();
                        let _ = body.collect().await;
                        log.lock().unwrap().push(parts);
                        let mut response = Response::new(http_body_util::Empty::<Bytes>::new());
                        for (name, value) in &answer {
                            response
                                .headers_mut()
                                .insert(*name, HeaderValue::from_static(value));
                        }
                        Ok::<_, Infallible>(response)
                    }
                });
                let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                    .auto_date_header(false)
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    (addr, seen)
}

/// The request headers of a hand-made gRPC call with custom metadata.
const CALL_HEADERS: [(&str, &str); 5] = [
    ("content-type", "application/grpc"),
    ("te", "trailers"),
    ("x-tenant", "acme"),
    ("x-trace-bin", "AAEC"),
    ("grpc-timeout", "30S"),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_response_headers_are_the_upstreams_and_no_date_is_added() {
    let stop = CancellationToken::new();
    let (addr, _) = recording_upstream(
        vec![
            ("content-type", "application/grpc"),
            ("grpc-status", "0"),
            ("x-served-by", "up"),
        ],
        stop.clone(),
    )
    .await;
    let (direct, _, _) = raw_call_with(addr, &CALL_HEADERS, b"{}").await;
    let running = start_proxy(addr, Judge::Optics).await;
    let (via, _, _) = raw_call_with(running.addr, &CALL_HEADERS, b"{}").await;
    assert_eq!(direct.status, via.status);
    assert_eq!(
        direct.headers, via.headers,
        "the client sees the upstream's response headers, nothing added"
    );
    running.stop().await;
    stop.cancel();
}

/// The request head the upstream saw of a hand-made gRPC call sent to
/// `addr` for `authority` and `path`, with [`CALL_HEADERS`].
async fn seen_upstream(
    addr: SocketAddr,
    authority: &str,
    path: &str,
    seen: &std::sync::Mutex<Vec<http::request::Parts>>,
) -> http::request::Parts {
    let mut sender = h2c_client(addr).await;
    let mut body = BytesMut::new();
    triage::frames::encode(b"{}", &mut body).unwrap();
    let mut request = Request::post(format!("http://{authority}{path}"));
    for (name, value) in CALL_HEADERS {
        request = request.header(name, value);
    }
    let request = request
        .body(http_body_util::Full::new(body.freeze()))
        .unwrap();
    let response = sender.send_request(request).await.unwrap();
    let _ = response.into_body().collect().await.unwrap();
    seen.lock()
        .unwrap()
        .pop()
        .expect("the upstream saw the call")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_upstream_sees_the_clients_authority_path_and_metadata() {
    let stop = CancellationToken::new();
    let (addr, seen) = recording_upstream(
        vec![("content-type", "application/grpc"), ("grpc-status", "0")],
        stop.clone(),
    )
    .await;
    let running = start_proxy(addr, Judge::Optics).await;
    let path = "/triage.Issues/Subscribe?shard=2";
    let direct = seen_upstream(addr, "issues.example.com:443", path, &seen).await;
    let via = seen_upstream(running.addr, "issues.example.com:443", path, &seen).await;
    assert_eq!(direct.uri.authority().unwrap(), "issues.example.com:443");
    assert_eq!(
        via.uri.authority(),
        direct.uri.authority(),
        "the client's :authority reaches the upstream"
    );
    assert_eq!(via.uri.path_and_query(), direct.uri.path_and_query());
    assert_eq!(via.method, direct.method);
    // Every header as the client sent it, te and grpc-timeout included; the
    // one the proxy sets is grpc-accept-encoding.
    let mut headers = via.headers.clone();
    assert_eq!(headers.remove("grpc-accept-encoding").unwrap(), "identity");
    assert_eq!(headers, direct.headers);
    running.stop().await;
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tally_serve_returns_counts_the_calls_cut_at_the_drain_timeout() {
    let pool = pool();
    let (up_listener, up_addr) = listener().await;
    let stop_upstream = CancellationToken::new();
    let upstream = tokio::spawn(grpc::serve_upstream(
        up_listener,
        Upstream::new(pool.clone()).ending(Ending::Stall),
        stop_upstream.clone().cancelled_owned(),
    ));
    let proxy = Proxy::new(
        &format!("http://{up_addr}"),
        Judge::Optics,
        Policy::default(),
    )
    .unwrap()
    .with_drain_timeout(Duration::from_millis(200));
    let running = serve_proxy(proxy, CancellationToken::new()).await;
    let channel = grpc::connect(&running.uri()).await.unwrap();
    let want = expected(&pool, 0, 50, Judge::Optics);
    // Every message judged and the kept ones read; then the call stalls.
    let mut stream = raw_subscription(channel, subscribe(50, 0)).await;
    for message in &want {
        assert_eq!(
            &stream.message().await.unwrap().expect("a message"),
            message
        );
    }
    let tally = running.stop().await;
    assert_eq!(tally.messages, 50, "the cut call's messages are counted");
    assert_eq!(tally.kept(), want.len() as u64);
    assert_calls(&tally, CallEnd::Cut, 1);
    assert!(stream.message().await.is_err(), "the call was cut");
    stop_upstream.cancel();
    upstream.await.unwrap().unwrap();
}

/// A response body that is empty but does not say so up front: hyper ends
/// the stream with an empty DATA frame after the HEADERS, as some servers
/// and proxies end a trailers-only response.
struct EmptyLate;

impl Body for EmptyLate {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Poll::Ready(None)
    }
}

/// An h2c upstream that answers every call with `status` in its response
/// headers and an [`EmptyLate`] body, until `stop`.
async fn empty_late_upstream(status: &'static str, stop: CancellationToken) -> SocketAddr {
    let (listener, addr) = listener().await;
    tokio::spawn(async move {
        loop {
            let stream = tokio::select! {
                accepted = listener.accept() => accepted.unwrap().0,
                () = stop.cancelled() => return,
            };
            tokio::spawn(async move {
                let service = service_fn(move |request: Request<Incoming>| async move {
                    let _ = request.into_body().collect().await;
                    let mut response = Response::new(EmptyLate);
                    let headers = response.headers_mut();
                    headers.insert("content-type", HeaderValue::from_static("application/grpc"));
                    headers.insert("grpc-status", HeaderValue::from_static(status));
                    headers.insert("grpc-message", HeaderValue::from_static("as%20said"));
                    Ok::<_, Infallible>(response)
                });
                let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    addr
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_status_in_the_headers_then_an_empty_end_of_stream_is_that_status() {
    for (status, code) in [("5", Code::NotFound), ("0", Code::Ok)] {
        let stop = CancellationToken::new();
        let addr = empty_late_upstream(status, stop.clone()).await;
        let direct = call(&format!("http://{addr}"), subscribe(1, 0)).await;
        assert_eq!(direct.status.code(), code, "{:?}", direct.status);
        let running = start_proxy(addr, Judge::Optics).await;
        let via = call(&running.uri(), subscribe(1, 0)).await;
        assert_eq!(via.status.code(), code, "{:?}", via.status);
        if code != Code::Ok {
            assert_eq!(via.status.message(), "as said");
        }
        assert!(via.messages.is_empty());
        // By hand: the client gets the upstream's headers, trailers-only.
        let (parts, body, trailers) = raw_call(running.addr, None).await;
        assert_eq!(parts.headers["grpc-status"], status);
        assert_eq!(parts.headers["grpc-message"], "as%20said");
        assert!(body.is_empty() && trailers.is_empty());
        let tally = running.stop().await;
        let end = match code {
            Code::Ok => CallEnd::UpstreamOk,
            _ => CallEnd::UpstreamError,
        };
        assert_calls(&tally, end, 2);
        stop.cancel();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_error_status_in_the_headers_is_final_and_what_follows_is_dropped() {
    let pool = pool();
    let mut script = grpc_script(stream_with(&pool, 20, &[]), 4096);
    script.headers.push(("grpc-status", "7"));
    script.headers.push(("grpc-message", "denied"));
    let stop = CancellationToken::new();
    let addr = raw_upstream(script, stop.clone()).await;
    let direct = call(&format!("http://{addr}"), subscribe(1, 0)).await;
    assert_eq!(direct.status.code(), Code::PermissionDenied);
    assert!(direct.messages.is_empty());
    let running = start_proxy(addr, Judge::ForwardAll).await;
    let via = call(&running.uri(), subscribe(1, 0)).await;
    assert_eq!(
        via.status.code(),
        Code::PermissionDenied,
        "{:?}",
        via.status
    );
    assert_eq!(via.status.message(), "denied");
    assert!(via.messages.is_empty());
    let (parts, body, trailers) = raw_call(running.addr, None).await;
    assert_eq!(parts.headers["grpc-status"], "7");
    assert!(
        body.is_empty() && trailers.is_empty(),
        "nothing after the status"
    );
    let tally = running.stop().await;
    assert_eq!(tally.messages, 0, "nothing judged, nothing sent");
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_that_is_not_grpc_to_a_dead_upstream_gets_502_saying_why() {
    let (closed, addr) = listener().await;
    drop(closed);
    let running = start_proxy(addr, Judge::Optics).await;
    let mut sender = h2c_client(running.addr).await;
    let request = Request::post(format!("{}/api/issues", running.uri()))
        .header("content-type", "application/json")
        .body(http_body_util::Full::new(Bytes::from_static(b"{}")))
        .unwrap();
    let response = sender.send_request(request).await.unwrap();
    assert_eq!(response.status(), 502);
    assert_eq!(
        response.headers()["content-type"],
        "text/plain; charset=utf-8"
    );
    let body = response.into_body().collect().await.unwrap().to_bytes();
    let text = String::from_utf8(body.to_vec()).unwrap();
    assert!(
        text.starts_with(&format!("proxy: upstream {addr}: ")),
        "{text:?}"
    );
    let tally = running.stop().await;
    assert_calls(&tally, CallEnd::BadGateway, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http1_request_gets_505_saying_h2c_only_and_the_proxy_stays_up() {
    use tokio::io::AsyncWriteExt;
    let pool = pool();
    let running = start(Upstream::new(pool.clone()), Judge::Optics).await;
    for request in [
        &b"GET /triage.Issues/Subscribe HTTP/1.1\r\nHost: proxy\r\n\r\n"[..],
        b"POST /triage.Issues/Subscribe HTTP/1.1\r\nHost: proxy\r\n\
          Content-Type: application/grpc\r\nContent-Length: 0\r\n\r\n",
        // An HTTP/1.1 upgrade to h2c is not taken either.
        b"GET / HTTP/1.1\r\nHost: proxy\r\nConnection: Upgrade, HTTP2-Settings\r\n\
          Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n",
    ] {
        let mut tcp = tokio::net::TcpStream::connect(running.addr).await.unwrap();
        tcp.write_all(request).await.unwrap();
        let answer = answer_to_close(&mut tcp).await;
        assert!(
            answer.starts_with("HTTP/1.1 505 HTTP Version Not Supported\r\n"),
            "{answer:?}"
        );
        assert!(answer.contains("h2c"), "{answer:?}");
    }
    let received = call(&running.uri(), subscribe(20, 0)).await;
    assert!(received.is_ok(), "{:?}", received.status);
    assert!(received.messages == expected(&pool, 0, 20, Judge::Optics));
    let tally = running.stop().await;
    assert_eq!(tally.calls_ended(CallEnd::Http1), 3, "{:?}", tally.calls);
    assert_eq!(
        tally.calls_ended(CallEnd::UpstreamOk),
        1,
        "{:?}",
        tally.calls
    );
    assert_eq!((tally.calls_total(), tally.calls_failed()), (4, 3));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_reset_mid_message_resets_the_client_after_the_kept_messages() {
    let pool = pool();
    // Thirty whole frames, then the first half of one, then a reset.
    let half = pool.frame(30);
    let body = stream_with(&pool, 30, &half[..half.len() / 2]);
    for chunk in [1000, body.len()] {
        let mut script = grpc_script(body.clone(), chunk);
        script.end = End::Reset(h2::Reason::REFUSED_STREAM);
        let (received, tally) = through_raw(script, Judge::Optics).await;
        // tonic reads REFUSED_STREAM as UNAVAILABLE: the reason came through.
        assert_eq!(
            received.status.code(),
            Code::Unavailable,
            "{:?}",
            received.status
        );
        // A reset drops the DATA still queued on either side (h2 clears a
        // reset stream's send queue): what arrives is a prefix of the kept
        // messages, and the half frame is never judged nor sent.
        let kept = expected(&pool, 0, 30, Judge::Optics);
        assert!(kept.starts_with(&received.messages), "{chunk}");
        assert!(tally.messages <= 30, "{chunk}");
        assert!(tally.kept() >= received.messages.len() as u64, "{chunk}");
        assert_calls(&tally, CallEnd::UpstreamError, 1);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_call_counts_what_was_judged_and_holds_nothing() {
    let pool = pool();
    let upstream = Upstream::new(pool.clone()).ending(Ending::Stall);
    let log = upstream.log().clone();
    let running = start(upstream, Judge::Optics).await;
    // The call ends with a kept message, so that every message was judged
    // before the client read the last one: with dropped messages after it,
    // the client could cancel before the proxy took their chunk (seen under
    // load: 50 of 60 counted).
    let policy = Policy::default();
    let sent = (0..60u64)
        .rev()
        .find(|&i| keeps(&policy, &pool.message(i)))
        .expect("a kept message")
        + 1;
    let want = expected(&pool, 0, sent, Judge::Optics);
    let channel = grpc::connect(&running.uri()).await.unwrap();
    let mut stream = raw_subscription(channel, subscribe(sent, 0)).await;
    let mut bytes = 0;
    for message in &want {
        let got = stream.message().await.unwrap().expect("a message");
        assert_eq!(&got, message);
        bytes += 5 + got.len() as u64;
    }
    drop(stream);
    tokio::time::timeout(SECOND, log.wait_cancelled(1))
        .await
        .expect("the upstream call is cancelled");
    let live = running.proxy.live().clone();
    let deadline = Instant::now() + SECOND;
    while live.snapshot().messages < sent && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let counted = live.snapshot();
    assert_eq!(counted.messages, sent);
    assert_eq!(counted.kept(), want.len() as u64);
    assert_eq!(
        counted.bytes_in,
        (0..sent).map(|i| pool.frame(i).len() as u64).sum::<u64>()
    );
    assert_eq!(counted.bytes_out, bytes);
    assert_eq!(running.proxy.stats().held, 0);
    assert_calls(&counted, CallEnd::ClientCancelled, 1);
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grpc_web_response_is_refused_never_passed_on_unjudged() {
    // grpc-web frames messages as gRPC does, but its trailers come as a
    // frame of the body (flag 0x80) and `-text` is base64: the proxy does
    // not judge it, so an upstream that answers it must not hand a client
    // every message, dropped ones included. Each content-type, asked for
    // by the client or not.
    for (asked, answered) in [
        ("application/grpc-web+json", "application/grpc-web+json"),
        ("application/grpc-web", "application/grpc-web"),
        (
            "application/grpc-web-text",
            "application/grpc-web-text+proto",
        ),
        (
            "application/json",
            "application/grpc-web+json; charset=utf-8",
        ),
    ] {
        let pool = pool();
        let body = stream_with(&pool, 40, &[]);
        let mut script = grpc_script(body, 4096);
        script.headers = vec![("content-type", answered)];
        let stop = CancellationToken::new();
        let addr = raw_upstream(script, stop.clone()).await;
        let running = start_proxy(addr, Judge::Optics).await;
        let (parts, received, trailers) =
            raw_call_with(running.addr, &[("content-type", asked)], br#"{"count":40}"#).await;
        assert!(expected(&pool, 0, 40, Judge::Optics).len() < 40);
        assert_eq!(parts.status, http::StatusCode::OK, "{answered}");
        assert_eq!(parts.headers["content-type"], answered);
        assert_eq!(parts.headers["grpc-status"], "12", "{answered}");
        let message = parts.headers["grpc-message"].to_str().unwrap();
        assert!(message.contains("grpc-web"), "{message}");
        assert!(received.is_empty(), "{answered}: nothing forwarded");
        assert!(trailers.is_empty(), "{answered}: trailers-only");
        let tally = running.stop().await;
        assert_eq!(tally.messages, 0);
        assert_calls(&tally, CallEnd::GrpcWeb, 1);
        stop.cancel();
    }
}

/// A request body the test feeds by hand, which ends only when dropped.
struct Fed(tokio::sync::mpsc::Receiver<Bytes>);

impl Body for Fed {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.0
            .poll_recv(cx)
            .map(|chunk| chunk.map(|chunk| Ok(Frame::data(chunk))))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deadline_that_passes_while_the_client_still_sends_cancels_the_upstream_call() {
    // An upstream that reads the request to its end before it answers, and
    // says how the request ended: Ok (the client ended it) or an error (the
    // stream was reset).
    let (listener, addr) = listener().await;
    let (ended, mut request_ended) = tokio::sync::mpsc::unbounded_channel::<Result<(), String>>();
    tokio::spawn(async move {
        let (stream, _) = listener.accept().await.unwrap();
        let service = service_fn(move |request: Request<Incoming>| {
            let ended = ended.clone();
            async move {
                let outcome = request
                    .into_body()
                    .collect()
                    .await
                    .map(|_| ())
                    .map_err(|e| e.to_string());
                let _ = ended.send(outcome);
                let mut response = Response::new(http_body_util::Empty::<Bytes>::new());
                response
                    .headers_mut()
                    .insert("content-type", HeaderValue::from_static("application/grpc"));
                response
                    .headers_mut()
                    .insert("grpc-status", HeaderValue::from_static("0"));
                Ok::<_, Infallible>(response)
            }
        });
        let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
            .serve_connection(TokioIo::new(stream), service)
            .await;
    });
    let running = start_proxy(addr, Judge::Optics).await;
    let stream = tokio::net::TcpStream::connect(running.addr).await.unwrap();
    let (mut sender, connection) = hyper::client::conn::http2::Builder::new(TokioExecutor::new())
        .handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(connection);
    let (feed, fed) = tokio::sync::mpsc::channel(4);
    let mut first = BytesMut::new();
    triage::frames::encode(b"{}", &mut first).unwrap();
    feed.send(first.freeze()).await.unwrap();
    let request = Request::post(format!("{}/test.Echo/Collect", running.uri()))
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .header("grpc-timeout", "200m")
        .body(Fed(fed))
        .unwrap();
    let started = Instant::now();
    let response = tokio::time::timeout(5 * SECOND, sender.send_request(request))
        .await
        .expect("the proxy answers at the deadline")
        .unwrap();
    assert_eq!(response.headers()["grpc-status"], "4");
    assert!(started.elapsed() < 2 * SECOND);
    // The client has its status and keeps its request stream open (its
    // library may well): the upstream call must be cancelled all the same.
    let outcome = tokio::time::timeout(2 * SECOND, request_ended.recv())
        .await
        .expect("the upstream call ends soon after the deadline")
        .unwrap();
    assert!(
        outcome.is_err(),
        "the upstream saw its call reset, not ended: {outcome:?}"
    );
    drop(feed);
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn empty_messages_are_forwarded_by_forward_all_and_counted_malformed_by_optics() {
    use triage::policy::Flaw;
    use triage::tally::Row;
    let pool = pool();
    // Ten issues, each followed by an empty message (length 0).
    let mut wire = BytesMut::new();
    for i in 0..10 {
        wire.extend_from_slice(&pool.frame(i));
        wire.extend_from_slice(&[0, 0, 0, 0, 0]);
    }
    let body = wire.freeze();
    for chunk in [257, 1000, 4097, body.len()] {
        let (received, tally) =
            through_raw(grpc_script(body.clone(), chunk), Judge::ForwardAll).await;
        assert!(received.is_ok(), "{chunk}: {:?}", received.status);
        assert_eq!(received.messages.len(), 20, "{chunk}");
        assert!(received
            .messages
            .iter()
            .skip(1)
            .step_by(2)
            .all(Bytes::is_empty));
        assert_eq!(tally.messages, 20);
        let (received, tally) = through_raw(grpc_script(body.clone(), chunk), Judge::Optics).await;
        assert!(received.is_ok(), "{chunk}: {:?}", received.status);
        assert!(
            received.messages == expected(&pool, 0, 10, Judge::Optics),
            "{chunk}"
        );
        assert_eq!(tally.messages, 20);
        assert_eq!(tally.row(Row::Flawed(Flaw::Malformed)).seen, 10, "{chunk}");
        assert_eq!(tally.bytes_in, body.len() as u64);
    }
}

// ---- How calls end, counted ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_that_compresses_every_response_shows_as_failed_calls_in_the_report() {
    let pool = pool();
    let body = stream_with(&pool, 4, &[1, 0, 0, 0, 2, 0x1f, 0x8b]);
    let mut script = grpc_script(body, 65536);
    script.headers.push(("grpc-encoding", "gzip"));
    let stop = CancellationToken::new();
    let addr = raw_upstream(script, stop.clone()).await;
    let running = start_proxy(addr, Judge::Optics).await;
    for _ in 0..3 {
        let (_, _, trailers) = raw_call(running.addr, None).await;
        assert_eq!(trailers["grpc-status"], "13");
    }
    let tally = running.stop().await;
    stop.cancel();
    let report = triage::report::tally("proxy (optics), stopped by SIGINT", &tally, None);
    assert!(
        report.contains("\n  compressed frame                3   INTERNAL (13)\n"),
        "{report}"
    );
    assert!(
        report.contains("\n  FAILED: the proxy ended 3 of 3 calls itself: 3 compressed frame\n"),
        "{report}"
    );
}
