//! Review 42, the TCP filter: a signal that comes while the filter is still
//! connecting stops it as a signal does at any other time (at once, with the
//! signal's exit code), rather than after the connect timeout with a connect
//! error and exit code 1.

use std::time::{Duration, Instant};

use tokio::net::{TcpListener, TcpSocket, TcpStream};
use triage::exit::{EXIT_INTERRUPTED, EXIT_TERMINATED};
use triage::filter::Filter;
use triage::judge::Judge;
use triage::policy::Policy;
use triage::roles;
use triage::shutdown::Shutdown;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// A listener that never accepts, its backlog full: a connect to it is left
/// unanswered by the kernel (as `faults.rs` finds). Returns its address, and
/// the listener and the connections that fill it, to be kept alive.
async fn unanswered() -> (String, TcpListener, Vec<TcpStream>) {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let listener = socket.listen(1).unwrap();
    let addr = listener.local_addr().unwrap();
    let mut fillers = Vec::new();
    loop {
        match tokio::time::timeout(Duration::from_millis(300), TcpStream::connect(addr)).await {
            Ok(Ok(stream)) => fillers.push(stream),
            Ok(Err(err)) => panic!("connecting to fill the backlog: {err}"),
            Err(_) => break,
        }
        assert!(fillers.len() < 64, "the backlog never filled");
    }
    (addr.to_string(), listener, fillers)
}

/// Runs the filter role toward `upstream` and `downstream` (one of them
/// unanswered), triggers `code`'s signal 300 ms in, and returns the role's
/// exit code and how long it took from the signal.
fn stopped_while_connecting(unanswered_side: &str, code: u8) -> (u8, String, Duration) {
    runtime().block_on(async {
        let (silent, _listener, _fillers) = unanswered().await;
        // A listener that accepts (the kernel does, from its backlog).
        let open = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let open = open.local_addr().map(|a| a.to_string()).map(|a| (a, open)).unwrap();
        let (upstream, downstream) = match unanswered_side {
            "upstream" => (silent.clone(), open.0.clone()),
            _ => (open.0.clone(), silent.clone()),
        };
        // The default timeouts: connecting may take 10 s.
        let filter = Filter::new(Judge::Optics, Policy::default());
        let shutdown = Shutdown::manual();
        let trigger = shutdown.clone();
        let signalled = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            trigger.trigger(code);
            Instant::now()
        });
        let result = tokio::time::timeout(
            Duration::from_secs(30),
            roles::filter(&upstream, &downstream, &filter, &shutdown),
        )
        .await
        .expect("the filter role ends");
        let took = signalled.await.unwrap().elapsed();
        let err = result.expect_err("a stopped filter returns its signal's error");
        (err.code, err.message, took)
    })
}

#[test]
fn sigint_while_the_upstream_connect_hangs_stops_the_filter_at_once_with_130() {
    let (code, message, took) = stopped_while_connecting("upstream", EXIT_INTERRUPTED);
    assert_eq!(
        code, EXIT_INTERRUPTED,
        "SIGINT exits with 130, not as a failed run: {message}"
    );
    assert!(message.contains("stopped by SIGINT"), "{message}");
    assert!(
        took < Duration::from_secs(3),
        "stopped {took:?} after the signal, not at once: {message}"
    );
}

#[test]
fn sigterm_while_the_downstream_connect_hangs_stops_the_filter_at_once_with_143() {
    let (code, message, took) = stopped_while_connecting("downstream", EXIT_TERMINATED);
    assert_eq!(
        code, EXIT_TERMINATED,
        "SIGTERM exits with 143, not as a failed run: {message}"
    );
    assert!(message.contains("stopped by SIGTERM"), "{message}");
    assert!(
        took < Duration::from_secs(3),
        "stopped {took:?} after the signal, not at once: {message}"
    );
}
