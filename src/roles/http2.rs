//! The roles over gRPC on HTTP/2 (h2c): the loopback demo (tonic upstream →
//! proxy → tonic client), the tonic upstream and downstream alone, and the
//! proxy between any gRPC client and server.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{bind, pool_for, progress, report_out, stopped, warm_up_count, Scoreboard};
use crate::exit::{RunError, EXIT_USAGE};
use crate::grpc::{self, Upstream};
use crate::judge::Judge;
use crate::policy::Policy;
use crate::proxy::{self, Proxy, DRAIN_TIMEOUT};
use crate::report;
use crate::shutdown::Shutdown;

/// The readers the HTTP/2 demo runs, in order (the oracle needs the TCP
/// filter's frame counter, so it runs only there).
const READERS: [Judge; 5] = [
    Judge::Optics,
    Judge::OpticsTrusting,
    Judge::OpticsValidatingKept,
    Judge::Decode,
    Judge::ForwardAll,
];

/// The demo over HTTP/2: a tonic upstream, the proxy and a tonic client on
/// 127.0.0.1, once per reader in each of `rounds` rounds, `count` messages
/// each after an untimed warm-up; prints the same report as the TCP demo.
///
/// # Errors
///
/// A [`RunError`] when a run fails or does not add up, or after a signal.
pub async fn demo(count: u64, rounds: u32, shutdown: &Shutdown) -> Result<(), RunError> {
    let start = Instant::now();
    let pool = Arc::new(pool_for(count)?);
    Scoreboard::announce(
        "upstream (tonic, gRPC over h2c)",
        count,
        &pool,
        start.elapsed(),
    )?;
    let mut board = Scoreboard::default();
    for round in 1..=rounds {
        board.round(round, rounds)?;
        for reader in READERS {
            let label = board.label(reader.label());
            for (timed, messages) in [(false, warm_up_count(count)), (true, count)] {
                let run = tokio::select! {
                    run = proxy::loopback_http2(pool.clone(), messages, reader, Policy::default()) => run,
                    () = shutdown.token().cancelled() => return Err(stopped(shutdown, "demo")),
                };
                let run = run.map_err(|err| RunError::failed(format!("{label}: {err}")))?;
                if timed {
                    report_out("demo", format_args!("{}", report::http2_run(&run)))?;
                }
                let rate = timed.then(|| (reader, run.messages_per_second()));
                board.record(&label, run.passed(), rate);
            }
        }
    }
    board.finish()
}

/// The upstream as a gRPC server (`triage.Issues/Subscribe` over h2c) on
/// `listen`, streaming each call the count of issues it asks for, cycling
/// through `DEFAULT_DISTINCT` generated issues; until a signal.
///
/// # Errors
///
/// A [`RunError`] when it cannot listen or the server fails, or after a
/// signal.
pub async fn upstream(listen: &str, shutdown: &Shutdown) -> Result<(), RunError> {
    let pool = Arc::new(pool_for(u64::MAX)?);
    let listener = bind(listen, "upstream").await?;
    let addr = listener
        .local_addr()
        .map_err(|err| RunError::failed(format!("upstream: reading the bound address: {err}")))?;
    progress(format_args!(
        "upstream (gRPC over h2c): listening on {addr}; triage.Issues/Subscribe cycles {} \
         distinct issues\n",
        pool.distinct()
    ));
    // On a signal every call's stream ends at its next message; one that
    // is not polled (its client stopped reading) is cut at the drain
    // timeout, as the proxy cuts its calls.
    let token = shutdown.token().clone();
    let serving = grpc::serve_upstream(
        listener,
        Upstream::new(pool).stopping_with(token.clone()),
        token.clone().cancelled_owned(),
    );
    let drained = async {
        token.cancelled().await;
        tokio::time::sleep(DRAIN_TIMEOUT).await;
    };
    tokio::select! {
        served = serving => served.map_err(|err| RunError::failed(format!("upstream: {err}")))?,
        () = drained => progress(format_args!(
            "upstream: calls still open {} s after the signal were cut\n",
            DRAIN_TIMEOUT.as_secs()
        )),
    }
    Err(stopped(shutdown, "upstream"))
}

/// The downstream as a gRPC client: calls `Subscribe` on `uri` for `count`
/// issues and checks each message: it should decode as an issue that the
/// policy keeps.
///
/// # Errors
///
/// A [`RunError`] when the call cannot be made or does not end with OK, when
/// any message fails the check, or after a signal.
pub async fn downstream(uri: &str, count: u64, shutdown: &Shutdown) -> Result<(), RunError> {
    let received = tokio::select! {
        received = grpc::subscribe(uri, count) => received
            .map_err(|err| RunError::failed(format!("downstream: {err}")))?,
        () = shutdown.token().cancelled() => return Err(stopped(shutdown, "downstream")),
    };
    let check = received.check(&Policy::default());
    let frames = received.messages.len() as u64;
    report_out(
        "downstream",
        format_args!(
            "downstream: received {frames} messages ({:.1} MB) from {uri} in {:.2} s; the call \
             ended with {:?}\n  {} decode as issues, and the policy keeps {} of them\n",
            received.bytes as f64 / 1e6,
            received
                .ended
                .saturating_duration_since(received.started)
                .as_secs_f64(),
            received.status.code(),
            check.decoded,
            check.kept
        ),
    )?;
    if !received.is_ok() {
        return Err(RunError::failed(format!(
            "downstream: the call to {uri} ended with {:?}: {}",
            received.status.code(),
            status_text(&received.status)
        )));
    }
    if check.decoded != frames || check.kept != frames {
        return Err(RunError::failed(format!(
            "downstream: check failed: of {frames} messages received, {} do not decode as issues \
             and {} more are not kept by the policy",
            frames - check.decoded,
            check.decoded - check.kept
        )));
    }
    Ok(())
}

/// The proxy on `listen`, forwarding to `upstream` (`http://HOST:PORT`) and
/// judging gRPC responses with `reader`, with HTTP/2 `keepalive` (interval
/// and timeout) when given; until a signal, after which it drains the calls
/// under way and prints the tally of every call.
///
/// # Errors
///
/// A [`RunError`] for a bad upstream address, a port it cannot listen on,
/// an upstream that is the proxy's own address (exit code 2), a failed
/// server, or after a signal (its exit code).
pub async fn proxy(
    listen: &str,
    upstream: &str,
    reader: Judge,
    keepalive: Option<(Duration, Duration)>,
    shutdown: &Shutdown,
) -> Result<(), RunError> {
    let mut proxy = Proxy::new(upstream, reader, Policy::default())
        .map_err(|err| RunError::failed(format!("proxy: {err}")))?;
    if let Some((interval, timeout)) = keepalive {
        proxy = proxy.with_keepalive(interval, timeout);
    }
    let listener = bind(listen, "proxy").await?;
    let addr = listener
        .local_addr()
        .map_err(|err| RunError::failed(format!("proxy: reading the bound address: {err}")))?;
    if forwards_to(upstream, addr).await {
        return Err(RunError {
            code: EXIT_USAGE,
            message: format!(
                "proxy: --upstream {upstream} is the proxy's own --listen address ({addr}): \
                 every call would be forwarded back to the proxy, over a new connection each \
                 time"
            ),
        });
    }
    let pings = match keepalive {
        Some((interval, timeout)) => format!(
            "; keepalive: a PING after {} ms quiet, {} ms for its ack",
            interval.as_millis(),
            timeout.as_millis()
        ),
        None => String::new(),
    };
    progress(format_args!(
        "proxy: listening on {addr} (h2c); forwarding to {upstream}, judging with {reader}{pings}\n"
    ));
    let start = Instant::now();
    let tally = proxy
        .serve(listener, shutdown.token().clone().cancelled_owned())
        .await
        .map_err(|err| RunError::failed(format!("proxy: {err}")))?;
    let name = format!("proxy ({reader}), stopped by {}", shutdown.signal_name());
    let text = report::tally(&name, &tally, Some(start.elapsed()));
    // The signal's exit code, whether or not the tally is written.
    let _ = report_out("proxy", format_args!("{text}"));
    Err(stopped(shutdown, "proxy"))
}

/// How long the proxy's start waits to resolve its upstream's name for
/// [`forwards_to`]: past it, the name is not taken for the proxy's own.
const LOOP_CHECK_LOOKUP: Duration = Duration::from_secs(2);

/// Whether `upstream` (`http://HOST:PORT`) resolves to the socket the proxy
/// listens on, `local`: the same address, or, when the proxy listens on
/// every address, one of this machine's own with its port (loopback,
/// unspecified, or an interface's address such as its LAN one). A name that
/// does not resolve now, or within [`LOOP_CHECK_LOOKUP`], is not taken for
/// it (the proxy says so per call). Costs the lookup and, per address
/// resolved, at most one bind of a UDP socket, once at the proxy's start.
async fn forwards_to(upstream: &str, local: SocketAddr) -> bool {
    let Some(authority) = proxy::parse_upstream(upstream)
        .ok()
        .and_then(|uri| uri.authority().cloned())
    else {
        return false;
    };
    let port = authority.port_u16().unwrap_or(80);
    if port != local.port() {
        return false;
    }
    // A resolver that does not answer soon must not hold the proxy's start.
    let lookup = tokio::net::lookup_host((authority.host().trim_matches(['[', ']']), port));
    let Ok(Ok(mut addrs)) = tokio::time::timeout(LOOP_CHECK_LOOKUP, lookup).await else {
        return false;
    };
    addrs.any(|addr| match (local.ip(), addr.ip()) {
        (own, ip) if own == ip => true,
        // An IPv6 socket on `::` takes IPv4 connections too (Linux's default).
        (IpAddr::V4(own), ip @ IpAddr::V4(_)) => own.is_unspecified() && is_own_address(ip),
        (IpAddr::V6(own), ip) => own.is_unspecified() && is_own_address(ip),
        (IpAddr::V4(_), IpAddr::V6(_)) => false,
    })
}

/// Whether `ip` reaches this machine itself: loopback, unspecified, or the
/// address of one of its interfaces, which is what a socket can be bound to
/// (tried with a UDP socket on a port the system picks, closed at once).
/// A multicast address can be bound to as well but is no host's own.
fn is_own_address(ip: IpAddr) -> bool {
    ip.is_loopback()
        || ip.is_unspecified()
        || (!ip.is_multicast() && std::net::UdpSocket::bind((ip, 0)).is_ok())
}

/// A status's message and, after it, each error in its source chain that
/// says more (a transport error's cause: a connection closed, a protocol
/// error), so that a failed call says why. O(chain).
fn status_text(status: &tonic::Status) -> String {
    let mut text = status.message().to_owned();
    let mut source = std::error::Error::source(status);
    while let Some(err) = source {
        let more = err.to_string();
        if !text.contains(&more) {
            text = format!("{text}: {more}");
        }
        source = err.source();
    }
    text
}
