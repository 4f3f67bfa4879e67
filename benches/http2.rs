//! The gRPC proxy over HTTP/2, end to end on loopback, one run side by side:
//! a tonic client subscribes to 2,000 issues through
//!
//! - the proxy judging with **optics**, with a full **decode**, and with
//!   **forward-all** (no judging: what HTTP/2 and the sockets cost), and
//! - a **tonic decode proxy**: a tonic server whose handler calls the
//!   upstream with a tonic client, decodes each issue with the JSON codec,
//!   judges it and re-encodes the kept ones (how one writes this with tonic
//!   alone),
//!
//! all in front of the same tonic upstream, on one 2-worker runtime. The
//! same-run ratios are printed after the group.
//!
//! Then allocations per message on the proxy path, counted by a global
//! allocator on the proxy's own runtime threads only (upstream and client
//! run on another runtime): everything hyper, h2 and the proxy allocate for
//! a call of 20,000 messages, divided by the messages, and by the DATA
//! chunks the proxy took in and handed out.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::SystemTime;

use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use http::uri::PathAndQuery;
use tokio::net::TcpListener;
use tokio::runtime::Runtime;
use tokio_util::sync::CancellationToken;
use tonic::transport::Channel;
use triage::grpc::codec::{JsonEncoder, PairCodec, RawDecoder};
use triage::grpc::{self, JsonContentType, SubscribeRequest, Upstream};
use triage::judge::Judge;
use triage::model::Issue;
use triage::policy::Policy;
use triage::pool::Pool;
use triage::proxy::Proxy;

// ---- Counting allocator: counts only on threads that asked to be counted ----

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);

thread_local! {
    static COUNTED: Cell<bool> = const { Cell::new(false) };
}

fn counted_here() -> bool {
    COUNTED.try_with(Cell::get).unwrap_or(false)
}

// SAFETY: every call is passed to `System` unchanged; only counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if counted_here() {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
            BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
        }
        // SAFETY: the caller's contract for `alloc` is `System.alloc`'s.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if counted_here() {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
            BYTES.fetch_add(
                new_size.saturating_sub(layout.size()) as u64,
                Ordering::Relaxed,
            );
        }
        // SAFETY: the caller's contract for `realloc` is `System.realloc`'s.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

// ---- The peers ----

const MESSAGES: u64 = 2_000;
const ALLOCATION_MESSAGES: u64 = 20_000;

fn pool() -> Arc<Pool> {
    Arc::new(Pool::generate(7, 7, 1024).expect("messages frame"))
}

async fn bind() -> (TcpListener, SocketAddr) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let addr = listener.local_addr().expect("an address");
    (listener, addr)
}

/// Starts a tonic upstream on the current runtime.
async fn start_upstream(pool: Arc<Pool>, stop: &CancellationToken) -> SocketAddr {
    let (listener, addr) = bind().await;
    tokio::spawn(grpc::serve_upstream(
        listener,
        Upstream::new(pool),
        stop.clone().cancelled_owned(),
    ));
    addr
}

/// Starts the HTTP/2 proxy on the current runtime.
async fn start_proxy(
    upstream: SocketAddr,
    judge: Judge,
    stop: &CancellationToken,
) -> (SocketAddr, Proxy) {
    let (listener, addr) = bind().await;
    let proxy =
        Proxy::new(&format!("http://{upstream}"), judge, Policy::default()).expect("a proxy");
    let serving = proxy.clone();
    let stop = stop.clone();
    tokio::spawn(async move { serving.serve(listener, stop.cancelled_owned()).await });
    (addr, proxy)
}

/// Starts the tonic decode proxy on the current runtime.
async fn start_tonic_proxy(upstream: SocketAddr, stop: &CancellationToken) -> SocketAddr {
    let (listener, addr) = bind().await;
    tokio::spawn(grpc::serve_decode_proxy(
        listener,
        &format!("http://{upstream}"),
        Policy::default(),
        stop.clone().cancelled_owned(),
    ));
    addr
}

/// One call of `count` issues through `channel`; returns the messages
/// received (each dropped as it arrives).
async fn subscribe(channel: &Channel, count: u64) -> u64 {
    let mut client = tonic::client::Grpc::new(JsonContentType(channel.clone()));
    client.ready().await.expect("ready");
    let codec = PairCodec::<JsonEncoder<SubscribeRequest>, RawDecoder>::default();
    let mut stream = client
        .server_streaming(
            tonic::Request::new(SubscribeRequest { count, start: 0 }),
            PathAndQuery::from_static(grpc::SUBSCRIBE),
            codec,
        )
        .await
        .expect("the call starts")
        .into_inner();
    let mut received = 0;
    while stream.message().await.expect("a message").is_some() {
        received += 1;
    }
    received
}

/// Checks, before anything is timed, that a call of `MESSAGES` issues
/// through `channel` (the peer `name`) ends OK with what it should: the
/// messages serde_json's decode and the policy keep, in order (every
/// message for forward-all), byte for byte; the tonic decode proxy
/// re-encodes what it keeps, so its messages must decode as those issues.
fn check_call(rt: &Runtime, channel: &Channel, pool: &Pool, name: &str) {
    let request = tonic::Request::new(SubscribeRequest {
        count: MESSAGES,
        start: 0,
    });
    let received = rt.block_on(grpc::subscribe_on(channel.clone(), request));
    assert!(received.is_ok(), "{name}: {:?}", received.status);
    let policy = Policy::default();
    let want: Vec<_> = (0..MESSAGES)
        .map(|i| pool.message(i))
        .filter(|m| {
            name == "forward-all"
                || serde_json::from_slice::<Issue>(m).is_ok_and(|i| policy.keep(&i.detail))
        })
        .collect();
    // The policy keeps some messages, not all: a check of nothing is none.
    assert!(name == "forward-all" || (1..MESSAGES as usize).contains(&want.len()));
    if name == "tonic-decode-proxy" {
        let issues = |messages: &[bytes::Bytes]| -> Vec<Issue> {
            messages
                .iter()
                .map(|m| serde_json::from_slice(m).expect("an issue"))
                .collect()
        };
        assert_eq!(issues(&received.messages), issues(&want), "{name}");
    } else {
        assert!(received.messages == want, "{name}: not the kept messages");
    }
}

fn runtime(workers: usize, counted: bool) -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .on_thread_start(move || COUNTED.with(|c| c.set(counted)))
        .enable_all()
        .build()
        .expect("a runtime")
}

const NAMES: [&str; 4] = ["optics", "decode", "forward-all", "tonic-decode-proxy"];

fn bench(c: &mut Criterion) {
    let started = SystemTime::now();
    let rt = runtime(2, false);
    let stop = CancellationToken::new();
    let pool = pool();
    let channels: Vec<Channel> = rt.block_on(async {
        let upstream = start_upstream(pool.clone(), &stop).await;
        let mut targets = Vec::new();
        for judge in [Judge::Optics, Judge::Decode, Judge::ForwardAll] {
            targets.push(start_proxy(upstream, judge, &stop).await.0);
        }
        targets.push(start_tonic_proxy(upstream, &stop).await);
        let mut channels = Vec::new();
        for target in targets {
            channels.push(
                grpc::connect(&format!("http://{target}"))
                    .await
                    .expect("connects"),
            );
        }
        channels
    });
    let mut group = c.benchmark_group("http2");
    group.throughput(Throughput::Elements(MESSAGES));
    group.sample_size(20);
    for (name, channel) in NAMES.iter().zip(&channels) {
        check_call(&rt, channel, &pool, name);
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| rt.block_on(subscribe(channel, MESSAGES)))
        });
    }
    group.finish();
    // In `--test` mode nothing is measured: there are no estimates of this
    // run to read.
    if !std::env::args().any(|arg| arg == "--test") {
        print_ratios(started);
    }
    stop.cancel();
}

/// Where criterion writes its estimates, found as criterion 0.8 finds it:
/// `CRITERION_HOME`, else `criterion` under `CARGO_TARGET_DIR`, else under
/// the target directory `cargo metadata` names, else `target/criterion`.
fn criterion_home() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(home);
    }
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(target).join("criterion");
    }
    let metadata = std::env::var_os("CARGO").and_then(|cargo| {
        std::process::Command::new(cargo)
            .args(["metadata", "--format-version", "1", "--no-deps"])
            .output()
            .ok()
    });
    metadata
        .and_then(|out| serde_json::from_slice::<serde_json::Value>(&out.stdout).ok())
        .and_then(|json| json["target_directory"].as_str().map(PathBuf::from))
        .map_or_else(
            || PathBuf::from("target/criterion"),
            |t| t.join("criterion"),
        )
}

/// The same-run ratios from criterion's estimates of this run: files
/// written since `started` only, so that an older run's estimates (another
/// target directory's, say) are never printed as this run's.
fn print_ratios(started: SystemTime) {
    let home = criterion_home();
    let mean = |name: &str| -> Option<f64> {
        let path = home.join(format!("http2/{name}/new/estimates.json"));
        let written = std::fs::metadata(&path).ok()?.modified().ok()?;
        if written < started {
            return None;
        }
        let text = std::fs::read_to_string(path).ok()?;
        let json: serde_json::Value = serde_json::from_str(&text).ok()?;
        json["mean"]["point_estimate"].as_f64()
    };
    let Some(times) = NAMES.iter().map(|n| mean(n)).collect::<Option<Vec<f64>>>() else {
        println!(
            "\nhttp2: no estimates of this run under {}: no same-run ratios",
            home.display()
        );
        return;
    };
    let rate = |i: usize| MESSAGES as f64 / (times[i] / 1e9);
    println!("\nhttp2, this run (messages/s):");
    for (i, name) in NAMES.iter().enumerate() {
        println!("  {name:<20} {:>10.0}", rate(i));
    }
    println!(
        "  same run: optics is {:.2}x the tonic decode proxy, {:.2}x forward-all, {:.2}x the proxy's decode",
        rate(0) / rate(3),
        rate(0) / rate(2),
        rate(0) / rate(1),
    );
}

/// Allocations per message on the proxy path, for each reader and for the
/// tonic decode proxy.
fn allocations() {
    let peers = runtime(1, false);
    let proxies = runtime(1, true);
    let stop = CancellationToken::new();
    let pool = pool();
    let upstream = peers.block_on(start_upstream(pool, &stop));
    println!("\nallocations on the proxy's threads, a call of {ALLOCATION_MESSAGES} messages:");
    println!(
        "  {:<20}{:>12}{:>14}{:>14}{:>16}",
        "proxy", "per message", "bytes/message", "DATA chunks", "per DATA chunk"
    );
    for name in NAMES {
        let (target, proxy) = proxies.block_on(async {
            match name {
                "optics" => start_proxy(upstream, Judge::Optics, &stop).await,
                "decode" => start_proxy(upstream, Judge::Decode, &stop).await,
                "forward-all" => start_proxy(upstream, Judge::ForwardAll, &stop).await,
                _ => {
                    let addr = start_tonic_proxy(upstream, &stop).await;
                    (
                        addr,
                        Proxy::new("http://unused:1", Judge::ForwardAll, Policy::default())
                            .expect("a proxy"),
                    )
                }
            }
        });
        let channel = peers
            .block_on(grpc::connect(&format!("http://{target}")))
            .expect("connects");
        // Once untimed, so that connections and lazily built structures are
        // not counted.
        peers.block_on(subscribe(&channel, ALLOCATION_MESSAGES));
        let stats = proxy.stats();
        let (a, b) = (
            ALLOCATIONS.load(Ordering::SeqCst),
            BYTES.load(Ordering::SeqCst),
        );
        peers.block_on(subscribe(&channel, ALLOCATION_MESSAGES));
        let (a, b) = (
            ALLOCATIONS.load(Ordering::SeqCst) - a,
            BYTES.load(Ordering::SeqCst) - b,
        );
        let after = proxy.stats();
        let chunks = (after.chunks_in - stats.chunks_in) + (after.chunks_out - stats.chunks_out);
        let per = |x: u64| x as f64 / ALLOCATION_MESSAGES as f64;
        let per_chunk = if chunks == 0 {
            "-".to_owned()
        } else {
            format!("{:.2}", a as f64 / chunks as f64)
        };
        let chunks = if chunks == 0 {
            "-".to_owned()
        } else {
            chunks.to_string()
        };
        println!(
            "  {name:<20}{:>12.2}{:>14.0}{:>14}{:>16}",
            per(a),
            per(b),
            chunks,
            per_chunk
        );
    }
    stop.cancel();
}

criterion_group!(benches, bench);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    allocations();
}
