//! Review 42: upstream responses at the edges of what the proxy judges,
//! and calls the proxy ends itself while the client still sends (a bidi
//! call whose request stream is open), with real peers on 127.0.0.1:
//! hand-made hyper h2c upstreams that answer every call with a script
//! (status, headers, DATA frames, and trailers or none) or at once, before
//! the request ends, saying how each request ended (the client ended it,
//! or the stream was reset); tonic and hand-made hyper clients.

#[path = "support/proxy_checks.rs"]
mod proxy_checks;

#[path = "support/running_proxy.rs"]
mod running_proxy;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use http::{HeaderMap, HeaderValue, Request, Response, StatusCode};
use http_body::{Body, Frame};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use triage::grpc::{self, SubscribeRequest};
use triage::model::Issue;
use triage::policy::Policy;
use triage::pool::Pool;

use running_proxy::Running;
use triage::proxy::{CallEnd, Tally};

use proxy_checks::{assert_calls, compressed_frame, ok_trailers, End, Scripted, ThenSilent};

const SECOND: Duration = Duration::from_secs(1);

fn pool() -> Arc<Pool> {
    Arc::new(Pool::generate(7, 7, 256).expect("messages frame"))
}

/// The oracle: decode with serde_json and ask the policy.
fn keeps(message: &[u8]) -> bool {
    serde_json::from_slice::<Issue>(message)
        .is_ok_and(|issue| Policy::default().keep(&issue.detail))
}

// ---- The upstream: every call answered with one script ----

/// What the upstream answers every call with.
#[derive(Clone)]
struct Script {
    status: StatusCode,
    headers: Vec<(&'static str, &'static str)>,
    /// Each one DATA frame (the last carries END_STREAM when there are no
    /// trailers).
    chunks: Vec<Bytes>,
    trailers: Option<HeaderMap>,
}

/// Serves `script` over h2c on 127.0.0.1 until `stop`.
async fn upstream(script: Script, stop: CancellationToken) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
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
                        let _ = request.into_body().collect().await;
                        let mut response = Response::new(Scripted {
                            chunks: script.chunks.into(),
                            end: End::trailers_or_nothing(script.trailers),
                        });
                        *response.status_mut() = script.status;
                        for (name, value) in &script.headers {
                            response
                                .headers_mut()
                                .append(*name, HeaderValue::from_static(value));
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

/// A tonic `Subscribe` call to `addr`, as the demo's subscriber makes it.
async fn tonic_call(addr: SocketAddr) -> grpc::Received {
    let channel = grpc::connect(&format!("http://{addr}"))
        .await
        .expect("connects");
    let request = tonic::Request::new(SubscribeRequest { count: 1, start: 0 });
    tokio::time::timeout(10 * SECOND, grpc::subscribe_on(channel, request))
        .await
        .expect("the call ends")
}

/// A gRPC call made by hand with hyper, read to its end: the response's
/// headers, body and trailers (none: empty).
async fn raw_call(addr: SocketAddr) -> (http::response::Parts, Bytes, Option<HeaderMap>) {
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut sender, connection) = hyper::client::conn::http2::Builder::new(TokioExecutor::new())
        .handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(connection);
    let mut body = BytesMut::new();
    triage::frames::encode(br#"{"count":1}"#, &mut body).unwrap();
    let request = Request::post(format!("http://{addr}{}", grpc::SUBSCRIBE))
        .header("content-type", "application/grpc+json")
        .header("te", "trailers")
        .body(http_body_util::Full::new(body.freeze()))
        .unwrap();
    let response = tokio::time::timeout(10 * SECOND, async {
        let response = sender.send_request(request).await.unwrap();
        let (parts, body) = response.into_parts();
        let collected = body.collect().await.unwrap();
        let trailers = collected.trailers().cloned();
        (parts, collected.to_bytes(), trailers)
    })
    .await
    .expect("the call ends");
    response
}

// ---- The tests ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_non_200_response_without_a_grpc_content_type_is_not_read_past_the_policy() {
    // tonic's client reads the messages of a response whatever its HTTP
    // status and content-type (the status only decides the call's code when
    // the trailers carry none): a 500 with no content-type, gRPC frames and
    // `grpc-status: 0` reads as a call that went well. So it is "a response
    // a gRPC client would read messages from", and none of it may reach the
    // client unjudged: the client gets the code gRPC maps the HTTP status
    // to, as grpc-go's client reads such a response, and no message.
    let pool = pool();
    let mut body = BytesMut::new();
    for i in 0..40 {
        body.extend_from_slice(&pool.frame(i));
    }
    let all: Vec<Bytes> = (0..40).map(|i| pool.message(i)).collect();
    assert!(
        all.iter().any(|m| !keeps(m)),
        "the policy drops some of these"
    );
    for (status, headers, code) in [
        (
            StatusCode::INTERNAL_SERVER_ERROR,
            vec![],
            tonic::Code::Unknown,
        ),
        (
            StatusCode::NOT_FOUND,
            vec![("content-type", "text/plain")],
            tonic::Code::Unimplemented,
        ),
        (
            StatusCode::SERVICE_UNAVAILABLE,
            vec![("content-type", "text/html")],
            tonic::Code::Unavailable,
        ),
        (StatusCode::ACCEPTED, vec![], tonic::Code::Unknown),
    ] {
        let script = Script {
            status,
            headers,
            chunks: vec![body.clone().freeze()],
            trailers: Some(ok_trailers()),
        };
        let stop = CancellationToken::new();
        let addr = upstream(script, stop.clone()).await;
        // Directly, tonic reads every message, and OK.
        let direct = tonic_call(addr).await;
        assert!(direct.is_ok(), "{status}: {:?}", direct.status);
        assert!(direct.messages == all, "{status}: tonic reads them all");
        // Through the proxy, none: the code of the HTTP status, and why.
        let running = Running::start(addr, None).await;
        let received = tonic_call(running.addr).await;
        let tally = running.stop().await;
        stop.cancel();
        assert!(
            received.messages.is_empty(),
            "{status}: the client read {} messages unjudged",
            received.messages.len()
        );
        assert_eq!(
            received.status.code(),
            code,
            "{status}: {:?}",
            received.status
        );
        let message = received.status.message();
        assert!(
            message.contains(&format!("answered the gRPC call with HTTP {status}")),
            "{message}"
        );
        assert_eq!(tally.messages, 0, "{status}: nothing judged");
        assert_eq!(
            tally.calls_ended(CallEnd::UpstreamError),
            1,
            "{status}: {:?}",
            tally.calls
        );
        assert_eq!(tally.calls_total(), 1, "{status}: {:?}", tally.calls);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_response_that_ends_on_a_kept_message_without_trailers_counts_as_the_upstreams_end() {
    // The upstream ends its stream with END_STREAM on the DATA frame that
    // carries its last message, and sends no trailers: "forwarded to the
    // upstream's own end (... or no status)", counted as `upstream error`,
    // not as a cancel by a client that read it all.
    let pool = pool();
    let last_kept = (0..256).find(|&i| keeps(&pool.message(i))).unwrap();
    let script = Script {
        status: StatusCode::OK,
        headers: vec![("content-type", "application/grpc+json")],
        chunks: vec![pool.frame(last_kept)],
        trailers: None,
    };
    let stop = CancellationToken::new();
    let addr = upstream(script, stop.clone()).await;
    let running = Running::start(addr, None).await;
    let (parts, body, trailers) = raw_call(running.addr).await;
    assert_eq!(parts.status, 200);
    assert_eq!(body, pool.frame(last_kept), "the kept message");
    assert!(trailers.is_none(), "{trailers:?}");
    let tally = running.stop().await;
    stop.cancel();
    assert_eq!(tally.calls_total(), 1, "{:?}", tally.calls);
    assert_eq!(
        tally.calls_ended(CallEnd::UpstreamError),
        1,
        "the client cancelled nothing: {:?} (ClientCancelled = {})",
        tally.calls,
        tally.calls_ended(CallEnd::ClientCancelled)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gzip_frame_that_does_not_inflate_after_a_kept_one_in_the_last_data_frame_ends_internal()
{
    // One DATA frame, END_STREAM on it, no trailers: a kept gzip frame,
    // then a gzip frame cut short. The README's table: INTERNAL (13), "...
    // does not inflate", after the kept messages before it, counted as
    // `compressed frame`.
    let pool = pool();
    let kept = (0..256).find(|&i| keeps(&pool.message(i))).unwrap();
    let good = compressed_frame("gzip", &pool.message(kept));
    let whole = compressed_frame("gzip", b"{}");
    let mut cut = BytesMut::from(&whole[..whole.len() - 3]);
    cut[1..5].copy_from_slice(&((whole.len() - 8) as u32).to_be_bytes());
    let mut chunk = BytesMut::from(&good[..]);
    chunk.extend_from_slice(&cut);
    let script = Script {
        status: StatusCode::OK,
        headers: vec![
            ("content-type", "application/grpc+json"),
            ("grpc-encoding", "gzip"),
        ],
        chunks: vec![chunk.freeze()],
        trailers: None,
    };
    let stop = CancellationToken::new();
    let addr = upstream(script, stop.clone()).await;
    let running = Running::start(addr, None).await;
    let (_, body, trailers) = raw_call(running.addr).await;
    let tally = running.stop().await;
    stop.cancel();
    assert_eq!(body, good, "the kept frame, as it came");
    let trailers = trailers.unwrap_or_else(|| {
        panic!(
            "no trailers: the stream ended with the kept frame, no status; counted {:?}",
            tally.calls
        )
    });
    assert_eq!(trailers["grpc-status"], "13", "{trailers:?}");
    let message = trailers["grpc-message"].to_str().unwrap();
    assert!(message.contains("does not inflate"), "{message}");
    assert_calls(&tally, CallEnd::Compressed, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_error_status_in_headers_with_a_content_length_reaches_the_client_as_that_status() {
    // HEADERS with `grpc-status: 5` and a `content-length: 10` that do not
    // end the stream, then the ten bytes. tonic reads NOT_FOUND "gone" from
    // the headers. The README: "that status, trailers-only, as a gRPC client
    // reads it directly". The proxy's trailers-only answer must not carry a
    // non-zero content-length on HEADERS that end the stream (RFC 9113,
    // 8.1.1: malformed; the client's h2 resets the stream).
    let script = Script {
        status: StatusCode::OK,
        headers: vec![
            ("content-type", "application/grpc+json"),
            ("grpc-status", "5"),
            ("grpc-message", "gone"),
            ("content-length", "10"),
        ],
        chunks: vec![Bytes::from_static(b"0123456789")],
        trailers: None,
    };
    let stop = CancellationToken::new();
    let addr = upstream(script, stop.clone()).await;
    let direct = tonic_call(addr).await;
    assert_eq!(
        direct.status.code(),
        tonic::Code::NotFound,
        "{:?}",
        direct.status
    );
    let running = Running::start(addr, None).await;
    let received = tonic_call(running.addr).await;
    let tally = running.stop().await;
    stop.cancel();
    assert_eq!(
        (received.status.code(), received.status.message()),
        (tonic::Code::NotFound, "gone"),
        "{:?}",
        received.status
    );
    assert_calls(&tally, CallEnd::UpstreamError, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_after_the_upstreams_graceful_goaway_is_forwarded_not_failed() {
    // An upstream that shuts a connection down gracefully (GOAWAY
    // NO_ERROR, as grpc-go does at its MaxConnectionAge, or any server
    // draining) while a long call is still open on it, and keeps
    // listening. A call that comes a second later on the same client
    // connection must be forwarded (on a new upstream connection): the
    // README's proxy "forwards every call to one upstream", and no
    // connection was lost under it. The proxy sent it on the closing
    // connection, where hyper cancels it unsent: UNAVAILABLE "operation
    // was canceled", counted as `upstream connection lost`.
    use std::sync::atomic::{AtomicUsize, Ordering};
    let pool = pool();
    let kept = (0..256).find(|&i| keeps(&pool.message(i))).unwrap();
    let frame = pool.frame(kept);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let shut = Arc::new(tokio::sync::Notify::new());
    let conns = Arc::new(AtomicUsize::new(0));
    tokio::spawn({
        let shut = shut.clone();
        let conns = conns.clone();
        let frame = frame.clone();
        async move {
            loop {
                let stream = listener.accept().await.unwrap().0;
                conns.fetch_add(1, Ordering::SeqCst);
                let shut = shut.clone();
                let frame = frame.clone();
                tokio::spawn(async move {
                    let service = service_fn(move |request: Request<Incoming>| {
                        let frame = frame.clone();
                        async move {
                            let long = request.headers().contains_key("x-long");
                            let body: http_body_util::combinators::BoxBody<Bytes, h2::Error> =
                                if long {
                                    ThenSilent(Some(frame))
                                        .map_err(|never| match never {})
                                        .boxed()
                                } else {
                                    Scripted {
                                        chunks: vec![frame].into(),
                                        end: End::Trailers(ok_trailers()),
                                    }
                                    .boxed()
                                };
                            let mut response = Response::new(body);
                            response.headers_mut().insert(
                                "content-type",
                                HeaderValue::from_static("application/grpc+json"),
                            );
                            Ok::<_, Infallible>(response)
                        }
                    });
                    let conn = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                        .serve_connection(TokioIo::new(stream), service);
                    let mut conn = std::pin::pin!(conn);
                    tokio::select! {
                        _ = conn.as_mut() => {}
                        () = shut.notified() => {
                            conn.as_mut().graceful_shutdown();
                            let _ = conn.await;
                        }
                    }
                });
            }
        }
    });
    let running = Running::start(addr, None).await;
    let stream = tokio::net::TcpStream::connect(running.addr).await.unwrap();
    let (mut sender, connection) = hyper::client::conn::http2::Builder::new(TokioExecutor::new())
        .handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(connection);
    let req = |long: bool| {
        let mut body = BytesMut::new();
        triage::frames::encode(br#"{"count":1}"#, &mut body).unwrap();
        let mut r = Request::post(format!("http://{}{}", running.addr, grpc::SUBSCRIBE))
            .header("content-type", "application/grpc+json")
            .header("te", "trailers");
        if long {
            r = r.header("x-long", "1");
        }
        r.body(http_body_util::Full::new(body.freeze())).unwrap()
    };
    sender.ready().await.unwrap();
    let a = sender.send_request(req(true)).await.unwrap();
    let mut a_body = a.into_body();
    let first = a_body.frame().await.unwrap().unwrap();
    assert_eq!(
        first.data_ref(),
        Some(&frame),
        "the long call's first message"
    );
    shut.notify_waiters();
    tokio::time::sleep(SECOND).await;
    sender.ready().await.unwrap();
    let b = tokio::time::timeout(5 * SECOND, sender.send_request(req(false)))
        .await
        .expect("answered")
        .unwrap();
    let (parts, body) = b.into_parts();
    let collected = tokio::time::timeout(5 * SECOND, body.collect())
        .await
        .expect("ends")
        .unwrap();
    let trailers = collected.trailers().cloned();
    let body = collected.to_bytes();
    drop(a_body);
    let tally = running.stop().await;
    assert_eq!(
        (
            parts.headers.get("grpc-status"),
            parts.headers.get("grpc-message")
        ),
        (None, None),
        "the second call was failed by the proxy; upstream connections made: {}",
        conns.load(Ordering::SeqCst)
    );
    assert_eq!(body, frame, "the kept message");
    assert_eq!(
        trailers.as_ref().map(|t| &t["grpc-status"]),
        Some(&HeaderValue::from_static("0"))
    );
    assert_eq!(conns.load(Ordering::SeqCst), 2, "a new upstream connection");
    assert_eq!(
        tally.calls_ended(CallEnd::ConnectionLost),
        0,
        "{:?}",
        tally.calls
    );
}

// ---- Calls the proxy ends while the client still sends ----

/// A request body the test feeds by hand, which ends only when dropped.
struct Fed(mpsc::Receiver<Bytes>);

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

/// What the upstream answers every call with, at once (before the request
/// ends): `status`, `headers`, then `first` (if any) and a body that never
/// ends.
#[derive(Clone)]
struct Answer {
    status: StatusCode,
    headers: Vec<(&'static str, &'static str)>,
    first: Option<Bytes>,
}

/// An upstream on 127.0.0.1 that answers every call with `answer` and
/// reads its request to the end in a task of its own; how each request
/// ended goes to the receiver: Ok (its client ended it) or the error (a
/// reset).
async fn answering_upstream(
    answer: Answer,
) -> (SocketAddr, mpsc::UnboundedReceiver<Result<(), String>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (ended, request_ended) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        loop {
            let stream = listener.accept().await.unwrap().0;
            let answer = answer.clone();
            let ended = ended.clone();
            tokio::spawn(async move {
                let service = service_fn(move |request: Request<Incoming>| {
                    let answer = answer.clone();
                    let ended = ended.clone();
                    async move {
                        tokio::spawn(async move {
                            let outcome = request
                                .into_body()
                                .collect()
                                .await
                                .map(|_| ())
                                .map_err(|e| format!("{e:?}"));
                            let _ = ended.send(outcome);
                        });
                        let mut response = Response::new(ThenSilent(answer.first));
                        *response.status_mut() = answer.status;
                        for (name, value) in &answer.headers {
                            response
                                .headers_mut()
                                .append(*name, HeaderValue::from_static(value));
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
    (addr, request_ended)
}

/// What the client got: the gRPC status (from the headers of a
/// trailers-only answer, or from the trailers), the body's bytes.
#[derive(Debug)]
struct Got {
    status: Option<HeaderValue>,
    message: Option<HeaderValue>,
    body: Bytes,
}

/// One call through a proxy to an upstream answering `answer`, its request
/// stream kept open after a first message (as a bidi client's may well
/// be): what the client got, how the upstream saw the request end (`None`:
/// still open 3 s after the client had its status), and the tally.
async fn call_still_sending(
    answer: Answer,
    timeout: Option<&'static str>,
) -> (Got, Option<Result<(), String>>, Tally) {
    let (addr, mut request_ended) = answering_upstream(answer).await;
    let running = Running::start(addr, None).await;
    let stream = tokio::net::TcpStream::connect(running.addr).await.unwrap();
    let (mut sender, connection) = hyper::client::conn::http2::Builder::new(TokioExecutor::new())
        .handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(connection);
    let (feed, fed) = mpsc::channel(4);
    let mut first = BytesMut::new();
    triage::frames::encode(br#"{"count":1}"#, &mut first).unwrap();
    feed.send(first.freeze()).await.unwrap();
    let mut request = Request::post(format!("http://{}{}", running.addr, grpc::SUBSCRIBE))
        .header("content-type", "application/grpc+json")
        .header("te", "trailers");
    if let Some(timeout) = timeout {
        request = request.header("grpc-timeout", timeout);
    }
    let request = request.body(Fed(fed)).unwrap();
    let got = tokio::time::timeout(10 * SECOND, async {
        let response = sender.send_request(request).await.unwrap();
        let (parts, mut body) = response.into_parts();
        let mut bytes = BytesMut::new();
        let mut trailers: Option<HeaderMap> = None;
        while let Some(frame) = body.frame().await {
            let frame = frame.expect("no reset");
            match frame.into_data() {
                Ok(data) => bytes.extend_from_slice(&data),
                Err(frame) => trailers = frame.into_trailers().ok(),
            }
        }
        let end = trailers.unwrap_or(parts.headers);
        Got {
            status: end.get("grpc-status").cloned(),
            message: end.get("grpc-message").cloned(),
            body: bytes.freeze(),
        }
    })
    .await
    .expect("the call ends");
    let outcome = tokio::time::timeout(3 * SECOND, request_ended.recv())
        .await
        .ok()
        .flatten();
    drop(feed);
    let tally = running.stop().await;
    (got, outcome, tally)
}

fn assert_cancelled_upstream(what: &str, outcome: &Option<Result<(), String>>, tally: &Tally) {
    assert!(
        matches!(outcome, Some(Err(_))),
        "{what}: the client has its status, the upstream call should be cancelled (its \
         stream reset), but the upstream's request {} (tally {:?})",
        match outcome {
            None => "is still open 3 s later".to_owned(),
            Some(Ok(())) => "ended normally".to_owned(),
            Some(Err(e)) => format!("was reset: {e}"),
        },
        tally.calls
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_error_status_in_the_headers_cancels_the_upstream_call_while_the_client_still_sends() {
    // The README's table: "an error grpc-status in its response headers,
    // then anything | that status, trailers-only ...; what follows is
    // dropped unread and the upstream stream cancelled".
    let answer = Answer {
        status: StatusCode::OK,
        headers: vec![
            ("content-type", "application/grpc+json"),
            ("grpc-status", "5"),
            ("grpc-message", "gone"),
        ],
        first: None,
    };
    let (got, outcome, tally) = call_still_sending(answer, None).await;
    assert_eq!(
        got.status.as_ref().map(|s| s.as_bytes()),
        Some(&b"5"[..]),
        "{got:?}"
    );
    assert_eq!(
        got.message.as_ref().map(|m| m.as_bytes()),
        Some(&b"gone"[..]),
        "{got:?}"
    );
    assert!(got.body.is_empty(), "{got:?}");
    assert_calls(&tally, CallEnd::UpstreamError, 1);
    assert_cancelled_upstream("error status in the headers", &outcome, &tally);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_flag_ends_the_call_and_cancels_the_upstream_call_while_the_client_still_sends() {
    // A frame with flag 2: INTERNAL (13) after the kept messages before it;
    // the proxy ends the call itself, so the upstream call must not go on.
    let pool = pool();
    let kept = (0..256).find(|&i| keeps(&pool.message(i))).unwrap();
    let mut chunk = BytesMut::from(&pool.frame(kept)[..]);
    let mut bad = BytesMut::from(&pool.frame(kept)[..]);
    bad[0] = 2;
    chunk.extend_from_slice(&bad);
    let answer = Answer {
        status: StatusCode::OK,
        headers: vec![("content-type", "application/grpc+json")],
        first: Some(chunk.freeze()),
    };
    let (got, outcome, tally) = call_still_sending(answer, None).await;
    assert_eq!(
        got.status.as_ref().map(|s| s.as_bytes()),
        Some(&b"13"[..]),
        "{got:?}"
    );
    assert_eq!(
        got.body,
        pool.frame(kept),
        "the kept message before the bad one"
    );
    assert_eq!(tally.calls_ended(CallEnd::BadFlag), 1, "{:?}", tally.calls);
    assert_eq!(tally.calls_total(), 1, "{:?}", tally.calls);
    assert_cancelled_upstream("bad flag", &outcome, &tally);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deadline_that_passes_mid_stream_cancels_the_upstream_call_while_the_client_still_sends()
{
    // The README's table: "nothing before the grpc-timeout passes |
    // DEADLINE_EXCEEDED (4) at the deadline; the upstream call is
    // cancelled". Here the upstream sent a kept message, then nothing.
    let pool = pool();
    let kept = (0..256).find(|&i| keeps(&pool.message(i))).unwrap();
    let answer = Answer {
        status: StatusCode::OK,
        headers: vec![("content-type", "application/grpc+json")],
        first: Some(pool.frame(kept)),
    };
    let (got, outcome, tally) = call_still_sending(answer, Some("300m")).await;
    assert_eq!(
        got.status.as_ref().map(|s| s.as_bytes()),
        Some(&b"4"[..]),
        "{got:?}"
    );
    assert_eq!(got.body, pool.frame(kept), "the kept message");
    assert_calls(&tally, CallEnd::DeadlineExceeded, 1);
    assert_cancelled_upstream("deadline mid-stream", &outcome, &tally);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_non_grpc_error_page_cancels_the_upstream_call_while_the_client_still_sends() {
    // The README's table: "a status other than 200 and a content-type that
    // is not gRPC ..., then a body, to a gRPC call | ... the body is dropped
    // unread and the upstream stream cancelled".
    let answer = Answer {
        status: StatusCode::SERVICE_UNAVAILABLE,
        headers: vec![("content-type", "text/html")],
        first: Some(Bytes::from_static(b"<html>busy</html>")),
    };
    let (got, outcome, tally) = call_still_sending(answer, None).await;
    assert_eq!(
        got.status.as_ref().map(|s| s.as_bytes()),
        Some(&b"14"[..]),
        "{got:?}"
    );
    assert_calls(&tally, CallEnd::UpstreamError, 1);
    assert_cancelled_upstream("503 text/html with a body", &outcome, &tally);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_0_then_a_body_cancels_the_upstream_call_while_the_client_still_sends() {
    // The README's table: "grpc-status: 0 in its response headers, then a
    // body | INTERNAL (13) ...; no message of that body is sent, and the
    // upstream stream is cancelled".
    let pool = pool();
    let kept = (0..256).find(|&i| keeps(&pool.message(i))).unwrap();
    let answer = Answer {
        status: StatusCode::OK,
        headers: vec![
            ("content-type", "application/grpc+json"),
            ("grpc-status", "0"),
        ],
        first: Some(pool.frame(kept)),
    };
    let (got, outcome, tally) = call_still_sending(answer, None).await;
    assert_eq!(
        got.status.as_ref().map(|s| s.as_bytes()),
        Some(&b"13"[..]),
        "{got:?}"
    );
    assert!(got.body.is_empty(), "{got:?}");
    assert_calls(&tally, CallEnd::StatusThenBody, 1);
    assert_cancelled_upstream("status 0 then a body", &outcome, &tally);
}
