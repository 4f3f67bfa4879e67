//! Review 43: hostile or broken clients, with real peers on 127.0.0.1: a
//! tonic upstream, the proxy, and hand-made clients (hyper's, or raw TCP
//! bytes).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use http::{HeaderMap, Request};
use http_body_util::BodyExt;
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;
use triage::grpc::{self, Upstream};
use triage::pool::Pool;
use triage::proxy::CallEnd;

const SECOND: Duration = Duration::from_secs(1);

/// A tonic upstream of `Subscribe` on 127.0.0.1 until `stop`.
async fn upstream(stop: CancellationToken) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let pool = Arc::new(Pool::generate(7, 7, 256).expect("messages frame"));
    tokio::spawn(grpc::serve_upstream(
        listener,
        Upstream::new(pool),
        stop.cancelled_owned(),
    ));
    addr
}

/// The request body of a `Subscribe` call for `count` issues.
fn subscribe_body(count: u64) -> Bytes {
    let mut body = BytesMut::new();
    triage::frames::encode(format!(r#"{{"count":{count}}}"#).as_bytes(), &mut body).unwrap();
    body.freeze()
}

/// A hyper h2c client connection to `addr`.
async fn client(
    addr: SocketAddr,
) -> hyper::client::conn::http2::SendRequest<http_body_util::Full<Bytes>> {
    let stream = TcpStream::connect(addr).await.unwrap();
    let (sender, connection) = hyper::client::conn::http2::Builder::new(TokioExecutor::new())
        .handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(connection);
    sender
}

/// A `Subscribe` call with `headers` added, read to its end: status, body
/// and trailers.
async fn call_with(
    addr: SocketAddr,
    count: u64,
    headers: &[(&str, &str)],
) -> (http::StatusCode, HeaderMap, Bytes, Option<HeaderMap>) {
    let mut sender = client(addr).await;
    let mut request = Request::post(format!("http://{addr}{}", grpc::SUBSCRIBE))
        .header("content-type", "application/grpc+json")
        .header("te", "trailers");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let request = request
        .body(http_body_util::Full::new(subscribe_body(count)))
        .unwrap();
    tokio::time::timeout(10 * SECOND, async {
        let response = sender.send_request(request).await.unwrap();
        let (parts, body) = response.into_parts();
        let collected = body.collect().await.unwrap();
        let trailers = collected.trailers().cloned();
        (parts.status, parts.headers, collected.to_bytes(), trailers)
    })
    .await
    .expect("the call ends")
}

// ---- The tests ----

/// The HTTP/2 client preface (RFC 9113, 3.4).
const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_that_never_finish_their_handshake_do_not_hold_up_the_stop() {
    // A stopping proxy waits for the calls in flight, up to its drain
    // timeout (10 s by default). A connection that carries no call has
    // nothing to drain, but hyper shuts one down only once the client's
    // whole preface arrived, and h2 then waits for the ack of the PING it
    // sends with its GOAWAY: a client that sent part of its preface, or
    // all of it and nothing more, or its SETTINGS and never reads (a port
    // scanner, a frozen peer) held the stop for the whole drain timeout.
    let stop = CancellationToken::new();
    let up = upstream(stop.clone()).await;
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let proxy = triage::proxy::Proxy::new(
        &format!("http://{up}"),
        triage::judge::Judge::Optics,
        triage::policy::Policy::default(),
    )
    .unwrap();
    let stopping = CancellationToken::new();
    let serving = tokio::spawn({
        let proxy = proxy.clone();
        let stopping = stopping.clone();
        async move {
            proxy
                .serve(listener, stopping.cancelled_owned())
                .await
                .unwrap()
        }
    });
    let mut clients = Vec::new();
    for sent in [
        &PREFACE[..10],
        PREFACE,
        &[PREFACE, b"\0\0\0\x04\0\0\0\0\0"].concat()[..],
    ] {
        let mut client = TcpStream::connect(addr).await.unwrap();
        client.write_all(sent).await.unwrap();
        clients.push(client);
    }
    // And one that behaves, with a call done: it is not cut short.
    let (status, _, _, trailers) = call_with(addr, 3, &[]).await;
    assert_eq!(status, http::StatusCode::OK);
    assert_eq!(trailers.unwrap()["grpc-status"], "0");
    tokio::time::sleep(Duration::from_millis(100)).await;
    let started = Instant::now();
    stopping.cancel();
    let tally = tokio::time::timeout(15 * SECOND, serving)
        .await
        .expect("the proxy stops")
        .unwrap();
    let took = started.elapsed();
    assert!(
        took < triage::proxy::IDLE_CLOSE_GRACE + SECOND,
        "the stop took {took:?}, waiting for connections with no call"
    );
    assert_eq!(
        tally.calls_ended(CallEnd::UpstreamOk),
        1,
        "{:?}",
        tally.calls
    );
    assert_eq!(tally.calls_total(), 1, "{:?}", tally.calls);
    // Each of them was closed.
    for mut client in clients {
        let mut rest = Vec::new();
        let read = tokio::time::timeout(SECOND, client.read_to_end(&mut rest)).await;
        assert!(read.is_ok(), "the proxy closed the connection");
    }
    stop.cancel();
}
