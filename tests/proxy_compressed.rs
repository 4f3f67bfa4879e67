//! Compressed responses through the proxy, from a hostile upstream: bombs
//! and the memory they cost, encodings named oddly or not at all, gzip and
//! zlib streams with more or less than one stream in a frame, frames cut at
//! every place, and grpc-web answered to a gRPC call. The upstream is a
//! hand-made h2c peer that answers each call with the request's own body
//! (cut into DATA frames where the call says), so each call sends exactly
//! the frames a test wrote. The counting allocator sees the whole process:
//! the tests of this binary run one at a time.

#[path = "../optics-core/tests/support/scale.rs"]
mod scale;

#[path = "support/proxy_checks.rs"]
mod proxy_checks;

use std::collections::VecDeque;
use std::convert::Infallible;
use std::io::Write as _;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use http::{HeaderMap, HeaderValue, Request, Response};
use http_body::{Body, Frame};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo};
use proptest::prelude::*;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use triage::frames::DEFAULT_MAX_MESSAGE;
use triage::generate::{Gen, Generate};
use triage::judge::Judge;
use triage::model::Issue;
use triage::policy::Policy;
use triage::proxy::{CallEnd, Proxy, Tally};

use proxy_checks::assert_calls;

#[global_allocator]
static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;

const SECOND: Duration = Duration::from_secs(1);

/// The tests of this binary one at a time: the allocator's peak is the
/// process's. (Async, as the tests hold it across their awaits.)
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

// ---- Frames ----

/// A gRPC frame: `flag`, the length, `payload`.
fn frame(flag: u8, payload: &[u8]) -> Vec<u8> {
    let mut frame = Vec::with_capacity(5 + payload.len());
    frame.push(flag);
    frame.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    frame.extend_from_slice(payload);
    frame
}

fn gzip(message: &[u8], level: u32) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
    encoder.write_all(message).unwrap();
    encoder.finish().unwrap()
}

/// `deflate` as gRPC means it: zlib (RFC 1950).
fn zlib(message: &[u8], level: u32) -> Vec<u8> {
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(level));
    encoder.write_all(message).unwrap();
    encoder.finish().unwrap()
}

/// Raw deflate (RFC 1951), no zlib header or checksum.
fn raw_deflate(message: &[u8]) -> Vec<u8> {
    let mut encoder =
        flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(message).unwrap();
    encoder.finish().unwrap()
}

/// `message` compressed under `encoding` (`gzip` or `deflate`).
fn compress(encoding: &str, message: &[u8], level: u32) -> Vec<u8> {
    match encoding {
        "gzip" => gzip(message, level),
        "deflate" => zlib(message, level),
        other => panic!("no such encoding {other}"),
    }
}

/// A generated issue as JSON: a third of each kind, the policy keeping
/// some.
fn issue(seed: u64) -> Vec<u8> {
    Issue::generate(&mut Gen::new(seed, 7)).to_json()
}

// ---- The echo upstream ----

/// A response body: chunks, then trailers (or, held, nothing until the
/// client goes away).
struct Echoed {
    chunks: VecDeque<Bytes>,
    trailers: Option<HeaderMap>,
    hold: bool,
}

impl Body for Echoed {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        if let Some(chunk) = this.chunks.pop_front() {
            return Poll::Ready(Some(Ok(Frame::data(chunk))));
        }
        if this.hold {
            // Never woken: the stream stays open until the call is reset.
            return Poll::Pending;
        }
        Poll::Ready(
            this.trailers
                .take()
                .map(|trailers| Ok(Frame::trailers(trailers))),
        )
    }

    fn is_end_stream(&self) -> bool {
        self.chunks.is_empty() && self.trailers.is_none() && !self.hold
    }
}

/// Cuts `body` at `cuts` (offsets, in order) into DATA chunks.
fn cut(body: &Bytes, cuts: &[usize]) -> VecDeque<Bytes> {
    let mut chunks = VecDeque::new();
    let mut at = 0;
    for &to in cuts.iter().chain([&body.len()]) {
        let to = to.min(body.len());
        if to > at {
            chunks.push_back(body.slice(at..to));
            at = to;
        }
    }
    chunks
}

/// An h2c upstream on 127.0.0.1 that answers every call with its request
/// body, until `stop`. The request's headers say how: `x-content-type`
/// (else `application/grpc+json`), `x-encoding` (sent as `grpc-encoding`,
/// once per comma-separated value), `x-cuts` (offsets where DATA frames
/// end, comma-separated), `x-hold` (no end: the stream stays open).
async fn echo_upstream(stop: CancellationToken) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let stream = tokio::select! {
                accepted = listener.accept() => accepted.unwrap().0,
                () = stop.cancelled() => return,
            };
            stream.set_nodelay(true).unwrap();
            tokio::spawn(async move {
                let service = service_fn(|request: Request<Incoming>| async move {
                    let headers = request.headers().clone();
                    let body = request.into_body().collect().await.unwrap().to_bytes();
                    let text = |name: &str| {
                        headers
                            .get(name)
                            .map(|value| value.to_str().unwrap().to_owned())
                    };
                    let cuts: Vec<usize> = text("x-cuts")
                        .map(|cuts| {
                            cuts.split(',')
                                .filter(|n| !n.is_empty())
                                .map(|n| n.parse().unwrap())
                                .collect()
                        })
                        .unwrap_or_default();
                    let mut trailers = HeaderMap::new();
                    trailers.insert("grpc-status", HeaderValue::from_static("0"));
                    let mut response = Response::new(Echoed {
                        chunks: cut(&body, &cuts),
                        trailers: Some(trailers),
                        hold: headers.contains_key("x-hold"),
                    });
                    let content_type = text("x-content-type")
                        .unwrap_or_else(|| "application/grpc+json".to_owned());
                    let out = response.headers_mut();
                    out.insert("content-type", content_type.parse().unwrap());
                    if let Some(encodings) = text("x-encoding") {
                        for encoding in encodings.split(',') {
                            out.append("grpc-encoding", encoding.parse().unwrap());
                        }
                    }
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

// ---- The proxy and a hand-made client ----

/// A proxy on 127.0.0.1 in front of an echo upstream; one token stops
/// both.
struct Running {
    proxy: Proxy,
    addr: SocketAddr,
    stop: CancellationToken,
    task: JoinHandle<Tally>,
}

impl Running {
    async fn start(judge: Judge, max_message: usize) -> Running {
        let stop = CancellationToken::new();
        let upstream = echo_upstream(stop.clone()).await;
        let proxy = Proxy::new(&format!("http://{upstream}"), judge, Policy::default())
            .unwrap()
            .with_max_message(max_message);
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
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
        }
    }

    /// Stops the proxy and the upstream; the proxy's tally.
    async fn stop(self) -> Tally {
        self.stop.cancel();
        tokio::time::timeout(10 * SECOND, self.task)
            .await
            .expect("the proxy stops")
            .expect("the proxy task")
    }

    /// Opens a call whose upstream answers `body` as `headers` say; the
    /// response's head and body.
    async fn open(&self, headers: &[(&str, String)], body: Bytes) -> Response<Incoming> {
        let stream = tokio::net::TcpStream::connect(self.addr).await.unwrap();
        stream.set_nodelay(true).unwrap();
        let (mut sender, connection) =
            hyper::client::conn::http2::Builder::new(TokioExecutor::new())
                .handshake(TokioIo::new(stream))
                .await
                .unwrap();
        tokio::spawn(connection);
        let mut request = Request::post(format!("http://{}/triage.Issues/Subscribe", self.addr))
            .header("te", "trailers");
        if !headers.iter().any(|(name, _)| *name == "content-type") {
            request = request.header("content-type", "application/grpc+json");
        }
        for (name, value) in headers {
            request = request.header(*name, value.as_str());
        }
        let request = request.body(http_body_util::Full::new(body)).unwrap();
        sender.send_request(request).await.unwrap()
    }

    /// One whole call: the response's head, body and trailers.
    async fn call(
        &self,
        headers: &[(&str, String)],
        body: Bytes,
    ) -> (http::response::Parts, Bytes, HeaderMap) {
        let response = tokio::time::timeout(10 * SECOND, async {
            let (parts, body) = self.open(headers, body).await.into_parts();
            let collected = body.collect().await.unwrap();
            let trailers = collected.trailers().cloned().unwrap_or_default();
            (parts, collected.to_bytes(), trailers)
        });
        response.await.expect("the call ends")
    }
}

fn encoding(name: &str) -> (&'static str, String) {
    ("x-encoding", name.to_owned())
}

// ---- Bombs and memory ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bomb_at_the_limit_costs_no_more_than_the_limit_and_is_not_kept_after_it() {
    let _serial = ONE_AT_A_TIME.lock().await;
    let running = Running::start(Judge::ForwardAll, DEFAULT_MAX_MESSAGE).await;
    // A message of exactly the limit, a few KB compressed, then a small
    // one; the stream then stays open.
    let bomb = frame(1, &gzip(&vec![b' '; DEFAULT_MAX_MESSAGE], 9));
    assert!(bomb.len() < 8 * 1024, "{}", bomb.len());
    let mut body = bomb.clone();
    body.extend_from_slice(&frame(0, b"{}"));
    let body = Bytes::from(body);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let before = alloc_counter::live_bytes();
    alloc_counter::reset_peak();
    let response = running
        .open(&[encoding("gzip"), ("x-hold", "1".into())], body.clone())
        .await;
    let mut incoming = response.into_body();
    let mut received = BytesMut::new();
    while received.len() < body.len() {
        let frame = tokio::time::timeout(10 * SECOND, incoming.frame())
            .await
            .expect("a frame")
            .expect("not the end")
            .expect("no error");
        received.extend_from_slice(&frame.into_data().expect("data"));
    }
    assert_eq!(received.freeze(), body, "both kept, as they came");
    // The proxy judged both and waits for more.
    tokio::time::sleep(Duration::from_millis(50)).await;
    let held = alloc_counter::live_bytes().saturating_sub(before);
    let peak = alloc_counter::peak_bytes() - before;
    eprintln!("a 4 MiB bomb: held {held} bytes while the call waits, {peak} at the peak");
    let limit = DEFAULT_MAX_MESSAGE as u64;
    assert!(
        held < 512 * 1024,
        "the call holds {held} bytes after the message was judged"
    );
    // The inflated message's buffer never grows past the limit; its last
    // growth (half the limit to the limit) counts both blocks for a moment.
    assert!(
        peak < limit + limit * 3 / 4,
        "{peak} bytes at the peak for a {limit} byte limit"
    );
    // The gauges count upstream bytes not yet sent on: none.
    assert_eq!(running.proxy.stats().held, 0);
    drop(incoming);
    let tally = running.stop().await;
    assert_eq!(tally.messages, 2);
}

// ---- grpc-web ----

/// Frames of generated issues, some of which the policy keeps.
fn issue_frames(count: u64) -> Bytes {
    let mut body = Vec::new();
    for seed in 0..count {
        body.extend_from_slice(&frame(0, &issue(seed)));
    }
    Bytes::from(body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_web_in_every_form_is_refused_whatever_the_call_asked_for() {
    let _serial = ONE_AT_A_TIME.lock().await;
    let body = issue_frames(40);
    for asked in [
        "application/grpc",
        "application/grpc+proto",
        "application/grpc-web",
        "application/json",
    ] {
        for answered in [
            "application/grpc-web",
            "application/grpc-web+proto",
            "application/grpc-web+json",
            "application/grpc-web-text",
            "application/grpc-web-text+proto",
            "Application/GRPC-Web+Proto",
            "application/grpc-web; charset=utf-8",
            "application/grpc-web-text ;q=1",
        ] {
            let running = Running::start(Judge::Optics, DEFAULT_MAX_MESSAGE).await;
            let headers = [
                ("content-type", asked.to_owned()),
                ("x-content-type", answered.to_owned()),
            ];
            let (parts, received, trailers) = running.call(&headers, body.clone()).await;
            let case = format!("asked {asked}, answered {answered}");
            // A gRPC client checks the content-type before it reads the
            // status (grpc-go calls anything else not gRPC, UNKNOWN): a call
            // that asked for gRPC gets gRPC's; the others the upstream's.
            let content_type =
                if asked.starts_with("application/grpc+") || asked == "application/grpc" {
                    "application/grpc"
                } else {
                    answered
                };
            assert_eq!(parts.headers["content-type"], content_type, "{case}");
            assert_eq!(
                parts.headers.get("grpc-status").map(|s| s.as_bytes()),
                Some(&b"12"[..]),
                "{case}: {} bytes reached the client, then {trailers:?}",
                received.len()
            );
            assert!(
                received.is_empty(),
                "{case}: {} bytes reached the client",
                received.len()
            );
            assert!(trailers.is_empty(), "{case}: trailers-only");
            let message = parts.headers["grpc-message"].to_str().unwrap();
            assert!(message.contains("grpc-web"), "{case}: {message}");
            let tally = running.stop().await;
            assert_eq!(tally.messages, 0, "{case}: nothing judged");
            assert_calls(&tally, CallEnd::GrpcWeb, 1);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tonic_client_reads_the_grpc_web_refusal_as_unimplemented() {
    let _serial = ONE_AT_A_TIME.lock().await;
    let running = Running::start(Judge::Optics, DEFAULT_MAX_MESSAGE).await;
    let channel = triage::grpc::connect(&format!("http://{}", running.addr))
        .await
        .unwrap();
    let mut request = tonic::Request::new(triage::grpc::SubscribeRequest { count: 1, start: 0 });
    request.metadata_mut().insert(
        "x-content-type",
        "application/grpc-web+json".parse().unwrap(),
    );
    let received = triage::grpc::subscribe_on(channel, request).await;
    assert_eq!(
        received.status.code(),
        tonic::Code::Unimplemented,
        "{:?}",
        received.status
    );
    assert!(received.status.message().contains("grpc-web"));
    assert!(received.messages.is_empty());
    let tally = running.stop().await;
    assert_calls(&tally, CallEnd::GrpcWeb, 1);
}

// ---- Encodings the proxy does not read, streams that are not one ----

/// The first generated issue from `from` on that the optics judge keeps
/// (`keep`) or drops.
fn issue_judged(keep: bool, from: u64) -> Vec<u8> {
    let policy = Policy::default();
    (from..)
        .map(issue)
        .find(|message| Judge::Optics.judge(&policy, message).keep == keep)
        .unwrap()
}

/// Ten uncompressed frames, then `bad`, then one more good frame: the call
/// must end at `bad` with `status`, after exactly the ten (forward-all
/// keeps each), counted as `end`; the status's text says `says`.
async fn ends_at(
    encoding_header: Option<&str>,
    bad: &[u8],
    status: &str,
    end: CallEnd,
    says: &str,
) {
    let good = issue_frames(10);
    let mut body = good.to_vec();
    body.extend_from_slice(bad);
    body.extend_from_slice(&frame(0, &issue(77)));
    let running = Running::start(Judge::ForwardAll, DEFAULT_MAX_MESSAGE).await;
    let headers: Vec<(&str, String)> = encoding_header.map(encoding).into_iter().collect();
    let case = format!(
        "{encoding_header:?}, {says}, {:?}",
        &bad[..bad.len().min(12)]
    );
    let (_, received, trailers) = running.call(&headers, Bytes::from(body)).await;
    assert_eq!(trailers["grpc-status"], status, "{case}: {trailers:?}");
    let message = trailers["grpc-message"].to_str().unwrap();
    assert!(message.contains(says), "{case}: {message}");
    assert!(message.contains("frame 10"), "{case}: {message}");
    assert_eq!(
        received, good,
        "{case}: the ten frames before it, nothing after"
    );
    let tally = running.stop().await;
    assert_eq!(tally.messages, 10, "{case}");
    assert_eq!(tally.bytes_in, good.len() as u64, "{case}");
    assert_eq!(tally.bytes_out, good.len() as u64, "{case}");
    assert_calls(&tally, end, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_compressed_frame_under_no_encoding_the_proxy_reads_is_never_forwarded() {
    let _serial = ONE_AT_A_TIME.lock().await;
    let compressed = frame(1, &gzip(&issue(5), 6));
    // No encoding, identity in any case, and names a client would not
    // read as gzip: whitespace, parameters, a list, an alias, nothing.
    for name in [None, Some("identity")] {
        let says = "no grpc-encoding was negotiated";
        ends_at(name, &compressed, "13", CallEnd::Compressed, says).await;
    }
    for name in [
        "IDENTITY",
        "Identity",
        "",
        "gzip ",
        " gzip",
        "gzip;q=1",
        "gzip deflate",
        "x-gzip",
        "snappy",
        "zstd",
    ] {
        ends_at(
            Some(name),
            &compressed,
            "13",
            CallEnd::Compressed,
            "which cannot be judged",
        )
        .await;
    }
    // Two grpc-encoding headers, either first: tonic reads the first,
    // grpc-go the last, so the proxy reads neither and refuses the frame,
    // naming both.
    for (names, says) in [
        ("identity,gzip", "grpc-encoding identity, gzip"),
        ("gzip,identity", "grpc-encoding gzip, identity"),
        ("gzip,gzip", "grpc-encoding gzip, gzip"),
    ] {
        ends_at(Some(names), &compressed, "13", CallEnd::Compressed, says).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frame_that_is_not_exactly_one_stream_of_its_encoding_is_refused() {
    let _serial = ONE_AT_A_TIME.lock().await;
    let message = issue_judged(true, 0);
    let gz = gzip(&message, 6);
    let zl = zlib(&message, 6);
    let with = |parts: &[&[u8]]| frame(1, &parts.concat());
    let mut bad_crc = gz.clone();
    let at = bad_crc.len() - 6;
    bad_crc[at] ^= 1;
    let mut bad_adler = zl.clone();
    let at = bad_adler.len() - 1;
    bad_adler[at] ^= 1;
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        // Two gzip members: grpc-go's reader would read both, tonic's the
        // first only, grpc's C core neither.
        ("gzip", with(&[&gz, &gz]), "after the compressed stream"),
        ("gzip", with(&[&gz, &[0]]), "after the compressed stream"),
        ("gzip", with(&[&gz, &zl]), "after the compressed stream"),
        ("gzip", with(&[&zl]), "does not inflate"),
        ("gzip", with(&[&raw_deflate(&message)]), "does not inflate"),
        ("gzip", with(&[&gz[..gz.len() - 1]]), "does not inflate"),
        ("gzip", with(&[&gz[..10]]), "does not inflate"),
        ("gzip", with(&[&bad_crc]), "does not inflate"),
        ("gzip", frame(1, &[]), "does not inflate"),
        ("deflate", with(&[&zl, &zl]), "after the compressed stream"),
        (
            "deflate",
            with(&[&zl, b"garbage"]),
            "after the compressed stream",
        ),
        // Raw deflate is not what gRPC's deflate means (C core, tonic and
        // grpc-dotnet write and read zlib).
        (
            "deflate",
            with(&[&raw_deflate(&message)]),
            "does not inflate",
        ),
        ("deflate", with(&[&gz]), "does not inflate"),
        ("deflate", with(&[&zl[..zl.len() - 1]]), "does not inflate"),
        ("deflate", with(&[&zl[..2]]), "does not inflate"),
        ("deflate", with(&[&bad_adler]), "does not inflate"),
        ("deflate", frame(1, &[]), "does not inflate"),
    ];
    for (name, bad, says) in cases {
        ends_at(Some(name), &bad, "13", CallEnd::Compressed, says).await;
    }
    // Past the limit, by one byte.
    let over = frame(1, &gzip(&vec![b' '; DEFAULT_MAX_MESSAGE + 1], 9));
    ends_at(
        Some("gzip"),
        &over,
        "8",
        CallEnd::TooLarge,
        "inflates past the",
    )
    .await;
    let over = frame(1, &zlib(&vec![b' '; DEFAULT_MAX_MESSAGE + 1], 9));
    ends_at(
        Some("deflate"),
        &over,
        "8",
        CallEnd::TooLarge,
        "inflates past the",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bombs_in_a_row_each_cost_at_most_the_limit() {
    let _serial = ONE_AT_A_TIME.lock().await;
    let limit = 1024 * 1024;
    let running = Running::start(Judge::ForwardAll, limit).await;
    // Twenty messages of exactly the limit (a kilobyte each compressed),
    // then one a byte past it.
    let at_limit = frame(1, &gzip(&vec![b'x'; limit], 9));
    let mut body = at_limit.repeat(20);
    body.extend_from_slice(&frame(1, &zlib(&vec![b'x'; limit + 1], 9)));
    tokio::time::sleep(Duration::from_millis(50)).await;
    let before = alloc_counter::live_bytes();
    alloc_counter::reset_peak();
    let (_, received, trailers) = running.call(&[encoding("gzip")], Bytes::from(body)).await;
    let peak = alloc_counter::peak_bytes() - before;
    eprintln!("twenty 1 MiB bombs: {peak} bytes at the peak");
    // Under gzip the zlib frame does not inflate: INTERNAL.
    assert_eq!(trailers["grpc-status"], "13");
    assert_eq!(received, at_limit.repeat(20));
    // One message's buffer at a time, never past the limit (its last
    // growth counts both blocks for a moment), beside the three
    // connections' own buffers (about 250 KB): twice the limit is room
    // enough, where each buffer doubling to twice the limit took 3.3 MB.
    let limit = limit as u64;
    assert!(peak < 2 * limit, "{peak} bytes at the peak");
    let tally = running.stop().await;
    assert_eq!(tally.messages, 20);
    assert_eq!(tally.kept(), 20);
    assert_calls(&tally, CallEnd::Compressed, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compressed_frames_cut_at_every_place_arrive_as_they_came() {
    let _serial = ONE_AT_A_TIME.lock().await;
    let kept = issue_judged(true, 0);
    let dropped = issue_judged(false, 0);
    let frames = [
        frame(1, &gzip(&kept, 6)),
        frame(0, &dropped),
        frame(1, &gzip(&dropped, 1)),
        frame(0, &kept),
        frame(1, &gzip(&kept, 9)),
        frame(1, &gzip(b"", 6)),
    ];
    let want = [frames[0].clone(), frames[3].clone(), frames[4].clone()].concat();
    let body = Bytes::from(frames.concat());
    let running = Running::start(Judge::Optics, DEFAULT_MAX_MESSAGE).await;
    let mut calls = 0;
    for at in 1..body.len() {
        let cuts = [encoding("gzip"), ("x-cuts", at.to_string())];
        let (_, received, trailers) = running.call(&cuts, body.clone()).await;
        assert_eq!(trailers["grpc-status"], "0", "cut at {at}");
        assert!(
            received == want,
            "cut at {at}: the kept frames as they came"
        );
        calls += 1;
    }
    // And every frame cut into many small DATA frames.
    let every: Vec<String> = (1..body.len())
        .step_by(7)
        .map(|at| at.to_string())
        .collect();
    let cuts = [encoding("gzip"), ("x-cuts", every.join(","))];
    let (_, received, _) = running.call(&cuts, body.clone()).await;
    assert!(received == want);
    calls += 1;
    let tally = running.stop().await;
    assert_eq!(tally.messages, 6 * calls);
    assert_eq!(tally.kept(), 3 * calls);
    assert_eq!(
        tally.flawed(triage::policy::Flaw::Malformed),
        calls,
        "the empty message"
    );
    assert_eq!(tally.bytes_in, body.len() as u64 * calls);
    assert_eq!(tally.bytes_out, want.len() as u64 * calls);
    assert_eq!(tally.calls_ended(CallEnd::UpstreamOk), calls);
}

// ---- The verdict on an inflated message is the verdict on its bytes ----

/// Damage done to a generated issue, so that flawed messages are judged too.
#[derive(Clone, Debug)]
enum Damage {
    None,
    /// Cut after this many bytes (modulo its length).
    Cut(usize),
    /// This byte (modulo the length) replaced.
    Byte(usize, u8),
    /// The detail given twice, the second time as a number.
    DetailTwice,
    /// No bytes at all.
    Empty,
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        3 => Just(Damage::None),
        1 => any::<usize>().prop_map(Damage::Cut),
        1 => (any::<usize>(), any::<u8>()).prop_map(|(at, byte)| Damage::Byte(at, byte)),
        1 => Just(Damage::DetailTwice),
        1 => Just(Damage::Empty),
    ]
}

fn damaged(seed: u64, damage: &Damage) -> Vec<u8> {
    let mut message = issue(seed);
    match *damage {
        Damage::None => {}
        Damage::Cut(at) => message.truncate(at % message.len()),
        Damage::Byte(at, byte) => {
            let at = at % message.len();
            message[at] = byte;
        }
        Damage::DetailTwice => {
            message.pop();
            message.extend_from_slice(br#","detail":1}"#);
        }
        Damage::Empty => message.clear(),
    }
    message
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: std::sync::OnceLock<tokio::runtime::Runtime> = std::sync::OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: crate::scale::scaled(64), ..ProptestConfig::default() })]

    /// Each message goes twice in one call, as it is and compressed (flag
    /// 1), through a real proxy: both frames are kept or both dropped, as
    /// the judge decides on the message's own bytes, and the tally counts
    /// each verdict twice in its row. The strict and the trusting judge,
    /// the one that validates what it keeps, and the full decode.
    #[test]
    fn a_compressed_message_is_judged_as_the_same_message_uncompressed(
        messages in prop::collection::vec((0u64..10_000, damage()), 1..12),
        deflate in any::<bool>(),
        level in 0u32..10,
        judge in prop_oneof![
            Just(Judge::Optics),
            Just(Judge::OpticsTrusting),
            Just(Judge::OpticsValidatingKept),
            Just(Judge::Decode),
        ],
        chunk in 64usize..6000,
    ) {
        let _serial = ONE_AT_A_TIME.blocking_lock();
        let name = if deflate { "deflate" } else { "gzip" };
        let policy = Policy::default();
        let mut body = Vec::new();
        let mut want = Vec::new();
        let mut tally = Tally::default();
        for (seed, damage) in &messages {
            let message = damaged(*seed, damage);
            let plain = frame(0, &message);
            let compressed = frame(1, &compress(name, &message, level));
            let verdict = judge.judge(&policy, &message);
            tally.count(verdict, plain.len());
            tally.count(verdict, compressed.len());
            if verdict.keep {
                want.extend_from_slice(&plain);
                want.extend_from_slice(&compressed);
            }
            body.extend_from_slice(&plain);
            body.extend_from_slice(&compressed);
        }
        let cuts: Vec<String> = (chunk..body.len()).step_by(chunk).map(|at| at.to_string()).collect();
        let (received, trailers, counted) = runtime().block_on(async {
            let running = Running::start(judge, DEFAULT_MAX_MESSAGE).await;
            let headers = [encoding(name), ("x-cuts", cuts.join(","))];
            let (_, received, trailers) = running.call(&headers, Bytes::from(body)).await;
            (received, trailers, running.stop().await)
        });
        prop_assert_eq!(&trailers["grpc-status"], "0");
        prop_assert!(received[..] == want[..], "the kept pairs, as they came");
        prop_assert_eq!(counted.by_kind, tally.by_kind);
        prop_assert_eq!(counted.messages, tally.messages);
        prop_assert_eq!(counted.bytes_in, tally.bytes_in);
        prop_assert_eq!(counted.bytes_out, want.len() as u64);
        prop_assert_eq!(counted.calls_ended(CallEnd::UpstreamOk), 1);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frame_of_the_limit_straddling_chunks_is_assembled_in_no_more_than_itself() {
    use triage::proxy::split::{ChunkSplitter, Cut};
    let _serial = ONE_AT_A_TIME.lock().await;
    // A compressed frame as large as a frame may be (what does not
    // compress stays that large), in 64 KiB DATA chunks.
    let wire = Bytes::from(frame(1, &vec![7u8; DEFAULT_MAX_MESSAGE]));
    let frame_len = wire.len() as u64;
    let chunks: Vec<Bytes> = (0..wire.len())
        .step_by(64 * 1024)
        .map(|at| wire.slice(at..(at + 64 * 1024).min(wire.len())))
        .collect();
    let before = alloc_counter::live_bytes();
    alloc_counter::reset_peak();
    let mut split = ChunkSplitter::with_max_message(DEFAULT_MAX_MESSAGE).accepting_compressed(true);
    let mut assembled = None;
    for chunk in chunks {
        split.push(chunk);
        while let Some(cut) = split.next_cut().unwrap() {
            match cut {
                Cut::Assembled(frame) => assembled = Some(frame),
                Cut::Chunk(range) => panic!("the frame straddles: {range:?}"),
            }
        }
    }
    let frame = assembled.expect("the frame");
    assert!(frame == wire);
    let held = alloc_counter::live_bytes() - before;
    let peak = alloc_counter::peak_bytes() - before;
    eprintln!("a {frame_len} byte frame assembled: {held} bytes held, {peak} at the peak");
    assert!(
        held <= frame_len + 1024,
        "{held} bytes held for a {frame_len} byte frame"
    );
    // The last growth (half the frame to the frame) counts both blocks
    // for a moment.
    assert!(
        peak < frame_len + frame_len * 3 / 4,
        "{peak} bytes at the peak"
    );
}
