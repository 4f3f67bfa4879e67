//! Review 43: hostile or broken clients, with real peers on 127.0.0.1: a
//! tonic upstream or a hand-made hyper one, the proxy, and hand-made
//! clients (hyper's, h2's over a socket that stops reading, raw TCP
//! bytes).

#[path = "support/proxy_checks.rs"]
mod proxy_checks;
#[path = "support/running_proxy.rs"]
mod running_proxy;

// Live heap bytes, for the memory a client that never reads costs.
#[global_allocator]
static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
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
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;
use triage::grpc::{self, Upstream};
use triage::policy::Policy;
use triage::pool::Pool;
use triage::proxy::{CallEnd, CLIENT_SEND_BUFFER, MAX_FRAME_SIZE, UPSTREAM_CONNECTION_WINDOW};

use proxy_checks::{answer_to_close, h2c_client};
use running_proxy::Running;

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

/// A `Subscribe` call with `headers` added, read to its end: status, body
/// and trailers.
async fn call_with(
    addr: SocketAddr,
    count: u64,
    headers: &[(&str, &str)],
) -> (http::StatusCode, HeaderMap, Bytes, Option<HeaderMap>) {
    let mut sender = h2c_client(addr).await;
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
    let proxy = triage::proxy::Proxy::new(
        &format!("http://{up}"),
        triage::judge::Judge::Optics,
        triage::policy::Policy::default(),
    )
    .unwrap();
    let running = Running::serve(proxy).await;
    let addr = running.addr;
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
    let tally = running.stop().await;
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

/// A response body: the same chunk, one DATA frame each, for ever.
struct Forever(Bytes);

impl Body for Forever {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Poll::Ready(Some(Ok(Frame::data(self.0.clone()))))
    }
}

/// An h2c upstream on 127.0.0.1 that answers every call `200`,
/// `application/grpc`, and `chunk` for ever (the same bytes each time: it
/// allocates nothing per chunk).
async fn endless_upstream(chunk: Bytes) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let chunk = chunk.clone();
            tokio::spawn(async move {
                let service = service_fn(move |_: Request<Incoming>| {
                    let mut response = Response::new(Forever(chunk.clone()));
                    response
                        .headers_mut()
                        .insert("content-type", HeaderValue::from_static("application/grpc"));
                    async move { Ok::<_, Infallible>(response) }
                });
                let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                    .max_frame_size(MAX_FRAME_SIZE)
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    addr
}

/// A client's socket that stops reading when told to (a client that never
/// reads what it asked for, or a frozen one): the proxy's writes then fill
/// the socket's buffers and wait.
struct StopsReading {
    stream: TcpStream,
    stopped: Arc<AtomicBool>,
}

impl AsyncRead for StopsReading {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        if self.stopped.load(Ordering::SeqCst) {
            return Poll::Pending;
        }
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for StopsReading {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// Whether the policy keeps `message` (decoded with serde_json).
fn keeps(message: &[u8]) -> bool {
    serde_json::from_slice::<triage::model::Issue>(message)
        .is_ok_and(|issue| Policy::default().keep(&issue.detail))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_never_reads_sparse_kept_messages_costs_the_proxy_a_bounded_amount() {
    // h2 holds what waits for a client's flow-control window up to
    // `CLIENT_SEND_BUFFER` a call, counting the bytes of the kept frames
    // it was handed. Those were views of the upstream's DATA chunks, and a
    // view keeps its whole chunk alive: where the policy keeps one message
    // in a chunk of 60 KiB, a client that asks for huge windows and stops
    // reading its socket had the proxy hold some 80 chunks a call (5 MB,
    // not 256 KiB), and as many calls as it opens.
    let pool = Pool::generate(7, 7, 256).expect("messages frame");
    let kept = (0..256)
        .filter(|&i| keeps(&pool.message(i)))
        .min_by_key(|&i| pool.frame(i).len())
        .expect("the policy keeps some");
    let dropped = (0..256)
        .find(|&i| !keeps(&pool.message(i)))
        .expect("the policy drops some");
    let mut chunk = BytesMut::from(&pool.frame(kept)[..]);
    while chunk.len() + pool.frame(dropped).len() < 60 * 1024 {
        chunk.extend_from_slice(&pool.frame(dropped));
    }
    assert!(
        pool.frame(kept).len() * 10 < chunk.len(),
        "one kept message in ten"
    );
    let up = endless_upstream(chunk.freeze()).await;
    let running = Running::start(up, None).await;
    let addr = running.addr;
    let before = alloc_counter::live_bytes();

    const CALLS: u64 = 12;
    let stopped = Arc::new(AtomicBool::new(false));
    let socket = StopsReading {
        stream: TcpStream::connect(addr).await.unwrap(),
        stopped: stopped.clone(),
    };
    let (mut client, connection) = h2::client::Builder::new()
        .initial_window_size(i32::MAX as u32)
        .initial_connection_window_size(i32::MAX as u32)
        .handshake::<_, Bytes>(socket)
        .await
        .unwrap();
    tokio::spawn(connection);
    let mut calls = Vec::new();
    for _ in 0..CALLS {
        let request = Request::post(format!("http://{addr}{}", grpc::SUBSCRIBE))
            .header("content-type", "application/grpc+json")
            .header("te", "trailers")
            .body(())
            .unwrap();
        client = client.ready().await.unwrap();
        let (response, mut send) = client.send_request(request, false).unwrap();
        send.send_data(subscribe_body(1), true).unwrap();
        calls.push((response, send));
    }
    stopped.store(true, Ordering::SeqCst);
    // Until the proxy takes no more chunks from the upstream (10 s at most).
    let mut last = running.proxy.stats().chunks_in;
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let now = running.proxy.stats().chunks_in;
        if now == last && now > CALLS * 4 {
            break;
        }
        last = now;
    }
    let held = alloc_counter::live_bytes().saturating_sub(before);
    // Per call: what h2 holds for the client, eight times over at most (a
    // view is at least an eighth of its chunk), and a chunk the body holds; per
    // connection: the upstream's window in h2; and 4 MiB for the rest
    // (the connections' own buffers, the upstream's side).
    let bound = CALLS * (8 * CLIENT_SEND_BUFFER as u64 + 2 * u64::from(MAX_FRAME_SIZE))
        + u64::from(UPSTREAM_CONNECTION_WINDOW)
        + 4 * 1024 * 1024;
    assert!(
        held < bound,
        "{CALLS} calls of a client that stopped reading hold {held} bytes (bound {bound}); {:?}",
        running.proxy.stats()
    );
    drop(calls);
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_that_never_send_the_whole_preface_are_closed_in_time() {
    // hyper waits for a client's preface for ever, and pings (with a
    // keepalive) only once it came: a client that connects and sends
    // nothing, or part of the preface, held its descriptor and task for
    // as long as it stayed connected, keepalive or not (a peer that died
    // there, or any number of idle sockets, until the proxy ran out of
    // descriptors). And one byte, `P`, was taken for the preface, so an
    // HTTP/1.1 request whose first segment was that one byte got HTTP/2
    // frames, not the `505` that says what the proxy speaks.
    let stop = CancellationToken::new();
    let up = upstream(stop.clone()).await;
    let timeout = Duration::from_millis(300);
    let proxy = triage::proxy::Proxy::new(
        &format!("http://{up}"),
        triage::judge::Judge::Optics,
        Policy::default(),
    )
    .unwrap()
    .with_keepalive(Duration::from_millis(200), Duration::from_millis(200))
    .with_preface_timeout(timeout);
    let running = Running::serve(proxy).await;
    let addr = running.addr;
    let started = Instant::now();
    let mut quiet = Vec::new();
    for sent in [&b""[..], &PREFACE[..1], &PREFACE[..20]] {
        let mut client = TcpStream::connect(addr).await.unwrap();
        client.write_all(sent).await.unwrap();
        quiet.push(client);
    }
    // An HTTP/1.1 request sent one byte first.
    let mut http1 = TcpStream::connect(addr).await.unwrap();
    http1.write_all(b"P").await.unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    http1
        .write_all(b"OST / HTTP/1.1\r\nhost: x\r\n\r\n")
        .await
        .unwrap();
    let answer = answer_to_close(&mut http1).await;
    assert!(
        answer.starts_with("HTTP/1.1 505 "),
        "an HTTP/1.1 client gets a 505: {answer:?}"
    );
    // Each quiet client is closed once the preface timeout passed.
    for mut client in quiet {
        let mut rest = Vec::new();
        let read = tokio::time::timeout(5 * SECOND, client.read_to_end(&mut rest)).await;
        assert!(read.is_ok(), "the proxy closed the quiet connection");
    }
    assert!(started.elapsed() >= timeout);
    // A client that sends its preface at once is served as ever.
    let (status, _, _, trailers) = call_with(addr, 3, &[]).await;
    assert_eq!(status, http::StatusCode::OK);
    assert_eq!(trailers.unwrap()["grpc-status"], "0");
    let tally = running.stop().await;
    assert_eq!(
        tally.calls_ended(CallEnd::UpstreamOk),
        1,
        "{:?}",
        tally.calls
    );
    assert_eq!(tally.calls_ended(CallEnd::Http1), 1, "{:?}", tally.calls);
    assert_eq!(tally.calls_total(), 2, "{:?}", tally.calls);
    stop.cancel();
}
