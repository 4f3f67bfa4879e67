//! Review 42, the HTTP/2 roles and the proxy's command line. An
//! `--upstream` whose port is not a port (`:99999`, `:65536`, `:1a`, an
//! empty `:`), or whose host is empty (`http://:80`), is not
//! `http://HOST:PORT`. The README says anything else is a usage error
//! naming `--upstream` (exit 2, before anything listens); the http crate
//! reads such a port as absent, and the proxy took it for port 80,
//! forwarding every call to whatever listens there. A failed call of
//! `downstream --http2` says where and why; the gRPC upstream's graceful
//! stop does not wait for a call that asked for more than it will send.

use triage::args::parse;
use triage::exit::EXIT_USAGE;
use triage::judge::Judge;
use triage::policy::Policy;
use triage::proxy::{Proxy, ProxyError};

#[test]
fn an_upstream_port_that_is_not_a_port_is_a_usage_error_not_port_80() {
    for upstream in [
        "http://127.0.0.1:99999",
        "http://127.0.0.1:65536",
        "http://127.0.0.1:1a",
        "http://127.0.0.1:",
        "http://:80",
        "http://user:pw@127.0.0.1:50052",
        "http://user@127.0.0.1:50052",
    ] {
        let line = ["proxy", "--listen", "127.0.0.1:0", "--upstream", upstream];
        let err = parse(line).expect_err(upstream);
        assert_eq!(err.exit_code(), i32::from(EXIT_USAGE), "{upstream}");
        let text = err.to_string();
        assert!(
            text.contains(&format!(
                "invalid value '{upstream}' for '--upstream <URI>'"
            )),
            "{upstream}: {text}"
        );
        // The library refuses it too.
        let err = Proxy::new(upstream, Judge::Optics, Policy::default()).unwrap_err();
        assert!(matches!(err, ProxyError::Upstream(_)), "{upstream}: {err}");
    }
    // A port given right, and none at all (http's 80), still parse.
    for upstream in [
        "http://127.0.0.1:65535",
        "http://127.0.0.1:1",
        "http://localhost",
        "http://[::1]:50052",
    ] {
        let line = ["proxy", "--listen", "127.0.0.1:0", "--upstream", upstream];
        assert!(parse(line).is_ok(), "{upstream}");
    }
}

/// `downstream --http2` toward a peer that is not gRPC: a TCP server that
/// closes each connection at once (or the TCP `upstream` role, which sends
/// bare frames). The error names the URI and what went wrong (the status's
/// cause, not only "transport error"), as a refused connection's does
/// (`cli.rs`).
#[tokio::test]
async fn downstream_http2_to_a_peer_that_closes_at_once_says_what_was_wrong() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let uri = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            drop(stream);
        }
    });
    let shutdown = triage::shutdown::Shutdown::manual();
    let err = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        triage::roles::http2::downstream(&uri, 1, &shutdown),
    )
    .await
    .expect("no hang")
    .expect_err(&uri);
    assert_eq!(err.code, triage::exit::EXIT_FAILURE);
    let text = err.to_string();
    assert!(text.contains(&uri), "names the URI: {text}");
    assert!(
        !text.trim_end().ends_with("transport error"),
        "says more than `transport error`: {text}"
    );
}

/// The gRPC upstream stopping (the `upstream --http2` role's signal) while
/// a call that asked for a billion issues streams: the stream ends at its
/// next message with UNAVAILABLE saying so, and the server's graceful stop
/// returns, where it waited for the call to send them all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_grpc_upstream_stopping_ends_a_long_call_at_a_message() {
    use std::sync::Arc;
    use std::time::Duration;
    use tokio_util::sync::CancellationToken;
    use triage::grpc::{self, Upstream};
    use triage::pool::Pool;

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let uri = format!("http://{}", listener.local_addr().unwrap());
    let stop = CancellationToken::new();
    let upstream =
        Upstream::new(Arc::new(Pool::generate(7, 7, 64).unwrap())).stopping_with(stop.clone());
    let log = upstream.log().clone();
    let serving = tokio::spawn(grpc::serve_upstream(
        listener,
        upstream,
        stop.clone().cancelled_owned(),
    ));
    let call = tokio::spawn(async move { grpc::subscribe(&uri, 1_000_000_000).await });
    while log.sent() < 100 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    stop.cancel();
    let received = tokio::time::timeout(Duration::from_secs(10), call)
        .await
        .expect("the call ends")
        .unwrap()
        .expect("the call was made");
    assert_eq!(
        received.status.code(),
        tonic::Code::Unavailable,
        "{:?}",
        received.status
    );
    let message = received.status.message();
    assert!(
        message.starts_with("upstream: stopping; the stream ends after ")
            && message.ends_with(" of the 1000000000 issues asked for"),
        "{message}"
    );
    assert!(
        received.messages.len() >= 100,
        "{}",
        received.messages.len()
    );
    tokio::time::timeout(Duration::from_secs(10), serving)
        .await
        .expect("the graceful stop returns")
        .unwrap()
        .unwrap();
}
