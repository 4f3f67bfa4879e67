//! One run of upstream, proxy and downstream over HTTP/2 on loopback: the
//! HTTP/2 twin of [`crate::net::loopback`].

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::net::TcpListener;
use tokio::task::AbortHandle;
use tokio_util::sync::CancellationToken;

use super::{Proxy, ProxyError, Stats, Tally};
use crate::cpu;
use crate::downstream::{self, StreamDigest};
use crate::grpc::{self, Received, Upstream};
use crate::judge::Judge;
use crate::policy::Policy;
use crate::pool::Pool;

/// One run of upstream, proxy and downstream over HTTP/2.
#[derive(Debug)]
pub struct Http2Run {
    /// The reader the proxy judged with.
    pub reader: Judge,
    /// What the proxy did.
    pub tally: Tally,
    /// From the downstream's call to the end of its stream.
    pub elapsed: Duration,
    /// The CPU time the process (upstream, proxy and downstream together)
    /// used from the downstream's call until every role had ended; `None`
    /// where it cannot be read ([`crate::cpu`]).
    pub cpu: Option<Duration>,
    /// The minor page faults the process took over the same span as `cpu`
    /// (see [`crate::malloc`]); `None` where they cannot be read.
    pub faults: Option<u64>,
    /// Messages the upstream sent.
    pub sent: u64,
    /// Their bytes as frames, headers included.
    pub sent_bytes: u64,
    /// What the downstream received.
    pub received: Received,
    /// The digest of what the downstream received.
    pub digest: StreamDigest,
    /// What it should have received: the frames a full decode and the
    /// policy keep (every frame, for forward-all), computed after the
    /// stream.
    pub expected: StreamDigest,
    /// How long computing both digests took (not part of the stream's time).
    pub check_took: Duration,
    /// The proxy's gauges at the end (the most it held, chunks in and out).
    pub stats: Stats,
}

impl Http2Run {
    /// Messages through the proxy per second.
    pub fn messages_per_second(&self) -> f64 {
        self.tally.messages as f64 / self.elapsed.as_secs_f64().max(f64::MIN_POSITIVE)
    }

    /// Whether everything adds up: the call ended OK, the proxy judged every
    /// message sent, the downstream received what the proxy says it kept,
    /// and that is exactly (digest for digest) what a full decode and the
    /// policy keep.
    pub fn passed(&self) -> bool {
        self.received.is_ok()
            && self.tally.messages == self.sent
            && self.tally.bytes_in == self.sent_bytes
            && self.digest.frames == self.tally.kept()
            && self.received.bytes == self.tally.bytes_out
            && self.digest == self.expected
    }
}

/// Runs a tonic upstream streaming `count` issues from `pool`, the proxy
/// judging with `judge` against `policy`, and a tonic downstream that
/// subscribes through it, all on `127.0.0.1` (ephemeral ports); then stops
/// upstream and proxy and checks what the downstream received by digest
/// (off the timed path, on a blocking thread).
///
/// Memory: the downstream keeps every kept message until the run is
/// dropped.
///
/// # Errors
///
/// [`ProxyError::Io`] when a port cannot be bound, [`ProxyError::Peer`] when
/// a peer fails or the call does not end with OK.
///
/// ```no_run
/// use std::sync::Arc;
/// use triage::{judge::Judge, pool::Pool, policy::Policy, proxy};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let pool = Arc::new(Pool::generate(7, 7, 1024)?);
/// let run = proxy::loopback_http2(pool, 10_000, Judge::Optics, Policy::default()).await?;
/// assert!(run.passed());
/// println!("{:.0} messages/s", run.messages_per_second());
/// # Ok(()) }
/// ```
pub async fn loopback_http2(
    pool: Arc<Pool>,
    count: u64,
    judge: Judge,
    policy: Policy,
) -> Result<Http2Run, ProxyError> {
    let up = bind("upstream").await?;
    let down = bind("proxy").await?;
    let up_addr = local_addr(&up, "upstream")?;
    let proxy_addr = local_addr(&down, "proxy")?;

    let upstream = Upstream::new(pool.clone());
    let log = upstream.log().clone();
    let stop = CancellationToken::new();
    let upstream_task = tokio::spawn(grpc::serve_upstream(
        up,
        upstream,
        stop.clone().cancelled_owned(),
    ));
    let proxy = Proxy::new(&format!("http://{up_addr}"), judge, policy.clone())?;
    let proxy_task = {
        let proxy = proxy.clone();
        let stop = stop.clone();
        tokio::spawn(async move { proxy.serve(down, stop.cancelled_owned()).await })
    };
    let _abort = AbortOnDrop(vec![
        upstream_task.abort_handle(),
        proxy_task.abort_handle(),
    ]);

    let start = Instant::now();
    let usage = cpu::Usage::now();
    let received = grpc::subscribe(&format!("http://{proxy_addr}"), count)
        .await
        .map_err(|err| ProxyError::Peer(format!("downstream: {err}")))?;
    let elapsed = received.ended.saturating_duration_since(start);
    if !received.is_ok() {
        return Err(ProxyError::Peer(format!(
            "downstream: the call ended with {}: {}",
            received.status.code(),
            received.status.message()
        )));
    }

    stop.cancel();
    let tally = proxy_task
        .await
        .map_err(|_| ProxyError::Peer("the proxy task panicked".into()))??;
    upstream_task
        .await
        .map_err(|_| ProxyError::Peer("the upstream task panicked".into()))?
        .map_err(|err| ProxyError::Peer(format!("upstream: {err}")))?;
    let used = usage.since();

    let sent = log.sent();
    let check_pool = pool.clone();
    let (received, digest, expected, check_took) = tokio::task::spawn_blocking(move || {
        let start = Instant::now();
        let digest = received.digest();
        let expected = downstream::expected(&check_pool, sent, judge, &policy, false);
        (received, digest, expected, start.elapsed())
    })
    .await
    .map_err(|_| ProxyError::Peer("the downstream check panicked".into()))?;
    let expected = expected.map_err(ProxyError::Peer)?;

    Ok(Http2Run {
        reader: judge,
        tally,
        elapsed,
        cpu: used.cpu,
        faults: used.faults,
        sent,
        sent_bytes: pool.wire_len(sent),
        received,
        digest,
        expected,
        check_took,
        stats: proxy.stats(),
    })
}

async fn bind(role: &str) -> Result<TcpListener, ProxyError> {
    TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0)))
        .await
        .map_err(|err| ProxyError::Io {
            context: format!("{role}: binding 127.0.0.1:0"),
            err,
        })
}

fn local_addr(listener: &TcpListener, role: &str) -> Result<SocketAddr, ProxyError> {
    listener.local_addr().map_err(|err| ProxyError::Io {
        context: format!("{role}: reading the bound address"),
        err,
    })
}

/// Aborts the run's tasks if it is dropped or fails before they end.
struct AbortOnDrop(Vec<AbortHandle>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        for task in &self.0 {
            task.abort();
        }
    }
}
