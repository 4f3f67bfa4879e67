//! The proxy between peers that are not tonic: Python's grpcio (a generic
//! handler and raw bytes, no protobuf) as the upstream and as the client,
//! started as child processes on 127.0.0.1 and stopped by the test.
//!
//! Needs `python3` with `grpcio` (`python3 -m pip install grpcio==1.85.1`;
//! `.ci/run` installs it).

use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use triage::grpc::{self, SubscribeRequest, Upstream};
use triage::judge::Judge;
use triage::model::Issue;
use triage::policy::Policy;
use triage::pool::Pool;
use triage::proxy::{CallEnd, Proxy};

const PEER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/interop/grpcio_peer.py");
const DISTINCT: u64 = 128;

fn keeps(message: &[u8]) -> bool {
    serde_json::from_slice::<Issue>(message).is_ok_and(|i| Policy::default().keep(&i.detail))
}

/// The kept messages of the first `count` of the pool.
fn kept(pool: &Pool, count: u64) -> Vec<Bytes> {
    (0..count)
        .map(|i| pool.message(i))
        .filter(|m| keeps(m))
        .collect()
}

fn scratch(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("triage-interop-{}-{name}", std::process::id()))
}

fn require_grpcio() {
    let ok = Command::new("python3")
        .args(["-c", "import grpc"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        ok,
        "python3 with grpcio is needed: python3 -m pip install grpcio==1.85.1 (.ci/run does)"
    );
}

/// A grpcio server of the pool's messages; killed, and the file of its
/// messages removed, when dropped.
struct PyServer {
    child: Child,
    addr: SocketAddr,
    messages: PathBuf,
}

impl PyServer {
    fn start(pool: &Pool) -> PyServer {
        PyServer::start_with(pool, &[])
    }

    /// A server started with these extra arguments (`gzip`: it compresses
    /// by default).
    fn start_with(pool: &Pool, extra: &[&str]) -> PyServer {
        let path = scratch("messages");
        let mut lines = Vec::new();
        for i in 0..DISTINCT {
            let message = pool.message(i);
            assert!(!message.contains(&b'\n'));
            lines.extend_from_slice(&message);
            lines.push(b'\n');
        }
        std::fs::write(&path, lines).unwrap();
        let mut child = Command::new("python3")
            .arg(PEER)
            .arg("server")
            .arg(&path)
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port: u16 = line
            .strip_prefix("PORT ")
            .and_then(|p| p.trim().parse().ok())
            .unwrap_or_else(|| panic!("the grpcio server said {line:?}"));
        PyServer {
            child,
            addr: SocketAddr::from(([127, 0, 0, 1], port)),
            messages: path,
        }
    }
}

impl Drop for PyServer {
    fn drop(&mut self) {
        if let Some(mut stdin) = self.child.stdin.take() {
            let _ = stdin.flush();
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.messages);
    }
}

/// What the grpcio client got: messages, status code, details, trailers.
struct PyReceived {
    messages: Vec<Bytes>,
    code: u64,
    details: String,
    trailers: serde_json::Map<String, serde_json::Value>,
}

/// One grpcio client call through `target`, on a blocking thread.
async fn py_client(target: SocketAddr, count: u64, status: u32, name: &str) -> PyReceived {
    let out = scratch(name);
    let out2 = out.clone();
    let output = tokio::task::spawn_blocking(move || {
        Command::new("python3")
            .arg(PEER)
            .arg("client")
            .arg(target.to_string())
            .arg(count.to_string())
            .arg(status.to_string())
            .arg(&out2)
            .output()
            .expect("python3 runs")
    })
    .await
    .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    PyReceived {
        messages: read_messages(&out),
        code: report["code"].as_u64().unwrap(),
        details: report["details"].as_str().unwrap().to_owned(),
        trailers: report["trailers"].as_object().unwrap().clone(),
    }
}

fn read_messages(path: &Path) -> Vec<Bytes> {
    let bytes = Bytes::from(std::fs::read(path).unwrap());
    let mut messages = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let len = u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        messages.push(bytes.slice(at + 4..at + 4 + len));
        at += 4 + len;
    }
    let _ = std::fs::remove_file(path);
    messages
}

async fn proxy_to(upstream: SocketAddr, stop: &CancellationToken) -> (SocketAddr, Proxy) {
    let proxy = Proxy::new(
        &format!("http://{upstream}"),
        Judge::Optics,
        Policy::default(),
    )
    .unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let serving = proxy.clone();
    let stop = stop.clone();
    tokio::spawn(async move { serving.serve(listener, stop.cancelled_owned()).await });
    (addr, proxy)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpcio_client_and_server_through_the_proxy() {
    require_grpcio();
    let pool = Arc::new(Pool::generate(7, 7, DISTINCT as usize).unwrap());
    let server = PyServer::start(&pool);
    let stop = CancellationToken::new();
    let (proxy_addr, proxy) = proxy_to(server.addr, &stop).await;

    // grpcio -> proxy -> grpcio, ending OK.
    let got = py_client(proxy_addr, 500, 0, "ok").await;
    assert_eq!(got.code, 0, "{}", got.details);
    assert!(
        got.messages == kept(&pool, 500),
        "exactly the kept messages, byte for byte"
    );
    assert_eq!(got.trailers["x-origin"], "grpcio");

    // grpcio -> proxy -> grpcio, ending NOT_FOUND with trailers.
    let got = py_client(proxy_addr, 300, 5, "not-found").await;
    assert_eq!(got.code, 5);
    assert_eq!(got.details, "grpcio says no");
    assert_eq!(got.trailers["x-origin"], "grpcio");
    assert!(got.messages == kept(&pool, 300));

    // grpcio -> proxy -> grpcio, failing before any message (trailers-only).
    let direct = py_client(server.addr, 0, 9, "trailers-only-direct").await;
    let got = py_client(proxy_addr, 0, 9, "trailers-only").await;
    assert_eq!((direct.code, got.code), (9, 9), "{}", got.details);
    assert_eq!(got.details, direct.details);
    assert_eq!(got.trailers, direct.trailers);
    assert!(got.messages.is_empty());

    // tonic -> proxy -> grpcio.
    let channel = grpc::connect(&format!("http://{proxy_addr}"))
        .await
        .unwrap();
    let received = grpc::subscribe_on(
        channel,
        tonic::Request::new(SubscribeRequest {
            count: 700,
            start: 0,
        }),
    )
    .await;
    assert!(received.is_ok(), "{:?}", received.status);
    assert!(received.messages == kept(&pool, 700));
    assert_eq!(received.trailers.get("x-origin").unwrap(), "grpcio");

    assert_eq!(proxy.live().snapshot().messages, 1500);
    stop.cancel();
    drop(server);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpcio_client_through_the_proxy_to_a_tonic_upstream() {
    require_grpcio();
    let pool = Arc::new(Pool::generate(7, 7, DISTINCT as usize).unwrap());
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let up_addr = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    tokio::spawn(grpc::serve_upstream(
        listener,
        Upstream::new(pool.clone()),
        stop.clone().cancelled_owned(),
    ));
    let (proxy_addr, _) = proxy_to(up_addr, &stop).await;
    let got = py_client(proxy_addr, 400, 0, "tonic").await;
    assert_eq!(got.code, 0, "{}", got.details);
    assert!(got.messages == kept(&pool, 400));
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grpcio_server_that_compresses_by_default_is_judged_through_its_compression() {
    require_grpcio();
    let pool = Arc::new(Pool::generate(7, 7, DISTINCT as usize).unwrap());
    let server = PyServer::start_with(&pool, &["gzip"]);
    // grpc's C core compresses whatever the client accepts: directly, the
    // grpcio client reads every message.
    let direct = py_client(server.addr, 50, 0, "gzip-direct").await;
    assert_eq!(direct.code, 0, "{}", direct.details);
    assert_eq!(direct.messages.len(), 50);
    // Through the proxy, which asks for identity, the server compresses all
    // the same: the proxy inflates each message to judge it, and forwards
    // the kept ones compressed, as they came.
    let stop = CancellationToken::new();
    let (proxy_addr, proxy) = proxy_to(server.addr, &stop).await;
    let via = py_client(proxy_addr, 50, 0, "gzip-proxy").await;
    assert_eq!(via.code, 0, "{}", via.details);
    assert!(via.messages == kept(&pool, 50), "exactly the kept messages");
    assert!(via.messages.len() < 50);
    let tally = proxy.live().snapshot();
    assert_eq!(tally.messages, 50);
    assert_eq!(tally.kept(), via.messages.len() as u64);
    assert_eq!(
        tally.calls_ended(CallEnd::UpstreamOk),
        1,
        "{:?}",
        tally.calls
    );
    assert_eq!(tally.calls_total(), 1, "{:?}", tally.calls);
    let report = triage::report::tally("proxy", &tally, None);
    assert!(
        report.contains("\n  no call failed at the proxy: it ended none of the 1 calls itself\n"),
        "{report}"
    );
    stop.cancel();
    drop(server);
}

/// One call to `Subscribe` on `addr` with a raw JSON request: the messages
/// it got, and how it ended.
async fn raw_subscribe(addr: SocketAddr, request: &'static str) -> (Vec<Bytes>, tonic::Status) {
    use triage::grpc::codec::{PairCodec, RawDecoder, RawEncoder};
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut client = tonic::client::Grpc::new(channel);
    client.ready().await.unwrap();
    let mut stream = client
        .server_streaming(
            tonic::Request::new(Bytes::from_static(request.as_bytes())),
            http::uri::PathAndQuery::from_static("/triage.Issues/Subscribe"),
            PairCodec::<RawEncoder, RawDecoder>::default(),
        )
        .await
        .unwrap()
        .into_inner();
    let mut messages = Vec::new();
    loop {
        match stream.message().await {
            Ok(Some(message)) => messages.push(message),
            Ok(None) => return (messages, tonic::Status::ok("")),
            Err(status) => return (messages, status),
        }
    }
}

/// A proxy to `upstream` with a keepalive of `interval` (1 s for the ack)
/// when given.
async fn proxy_pinging(
    upstream: SocketAddr,
    interval: Option<Duration>,
    stop: &CancellationToken,
) -> (SocketAddr, Proxy) {
    let mut proxy = Proxy::new(
        &format!("http://{upstream}"),
        Judge::Optics,
        Policy::default(),
    )
    .unwrap();
    if let Some(interval) = interval {
        proxy = proxy.with_keepalive(interval, Duration::from_secs(1));
    }
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let serving = proxy.clone();
    let stop = stop.clone();
    tokio::spawn(async move { serving.serve(listener, stop.cancelled_owned()).await });
    (addr, proxy)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grpcio_server_fails_a_quiet_call_on_a_connection_pinged_too_often() {
    require_grpcio();
    let pool = Arc::new(Pool::generate(7, 7, DISTINCT as usize).unwrap());
    // 20 messages, 2 s of quiet, 20 more.
    let request = r#"{"count": 20, "pause": 2, "after": 20}"#;
    let want: Vec<Bytes> = kept(&pool, 20).into_iter().chain(kept(&pool, 20)).collect();
    let ping = Some(Duration::from_millis(200));
    // grpc's C core by default: the quiet call goes through without
    // keepalive; with a PING every 200 ms it fails, ended by the server.
    let strict = PyServer::start(&pool);
    // Told to take pings as they come, it lets the same call through.
    let lenient = PyServer::start_with(&pool, &["lenient"]);
    let stop = CancellationToken::new();
    let mut cases = Vec::new();
    for (server, interval, fails) in [
        (strict.addr, None, false),
        (strict.addr, ping, true),
        (lenient.addr, ping, false),
    ] {
        let (addr, proxy) = proxy_pinging(server, interval, &stop).await;
        // The three calls side by side.
        let call = tokio::spawn(raw_subscribe(addr, request));
        cases.push((interval, fails, proxy, call));
    }
    for (interval, fails, proxy, call) in cases {
        let (messages, status) = call.await.unwrap();
        let tally = proxy.live().snapshot();
        let case = format!("{interval:?}, {status:?}, {:?}", tally.calls);
        if fails {
            assert_eq!(status.code(), tonic::Code::Unavailable, "{case}");
            assert!(status.message().contains("ping"), "{case}");
            assert!(messages.len() < want.len(), "{case}");
            assert!(messages[..] == want[..messages.len()], "{case}");
            // The server's own end, passed on.
            assert_eq!(tally.calls_ended(CallEnd::UpstreamError), 1, "{case}");
        } else {
            assert_eq!(status.code(), tonic::Code::Ok, "{case}");
            assert!(messages == want, "{case}");
            assert_eq!(tally.calls_ended(CallEnd::UpstreamOk), 1, "{case}");
        }
    }
    stop.cancel();
}
