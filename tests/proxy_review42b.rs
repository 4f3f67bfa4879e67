//! Review 42b: calls the proxy ends itself while the client still sends
//! (a bidi call whose request stream is open), with real peers on
//! 127.0.0.1: a hand-made hyper h2c upstream that reads each request to
//! its end and says how it ended (the client ended it, or the stream was
//! reset), and a hand-made hyper client whose request stream stays open.

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
use triage::grpc;
use triage::model::Issue;
use triage::policy::Policy;
use triage::pool::Pool;

use running_proxy::Running;
use triage::proxy::{CallEnd, Tally};

const SECOND: Duration = Duration::from_secs(1);

fn pool() -> Arc<Pool> {
    Arc::new(Pool::generate(7, 7, 256).expect("messages frame"))
}

/// The oracle: decode with serde_json and ask the policy.
fn keeps(message: &[u8]) -> bool {
    serde_json::from_slice::<Issue>(message)
        .is_ok_and(|issue| Policy::default().keep(&issue.detail))
}

/// A body: `first` (if any), then nothing, never ending.
struct Hang(Option<Bytes>);

impl Body for Hang {
    type Data = Bytes;
    type Error = Infallible;
    fn poll_frame(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match self.get_mut().0.take() {
            Some(b) => Poll::Ready(Some(Ok(Frame::data(b)))),
            None => Poll::Pending,
        }
    }
}

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
async fn upstream(answer: Answer) -> (SocketAddr, mpsc::UnboundedReceiver<Result<(), String>>) {
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
                        let mut response = Response::new(Hang(answer.first));
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
    let (addr, mut request_ended) = upstream(answer).await;
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
    assert_eq!(
        tally.calls_ended(CallEnd::UpstreamError),
        1,
        "{:?}",
        tally.calls
    );
    assert_eq!(tally.calls_total(), 1, "{:?}", tally.calls);
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
    assert_eq!(
        tally.calls_ended(CallEnd::DeadlineExceeded),
        1,
        "{:?}",
        tally.calls
    );
    assert_eq!(tally.calls_total(), 1, "{:?}", tally.calls);
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
    assert_eq!(
        tally.calls_ended(CallEnd::UpstreamError),
        1,
        "{:?}",
        tally.calls
    );
    assert_eq!(tally.calls_total(), 1, "{:?}", tally.calls);
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
    assert_eq!(
        tally.calls_ended(CallEnd::StatusThenBody),
        1,
        "{:?}",
        tally.calls
    );
    assert_eq!(tally.calls_total(), 1, "{:?}", tally.calls);
    assert_cancelled_upstream("status 0 then a body", &outcome, &tally);
}
