//! Review 42, the TCP filter: a signal that comes while the filter is still
//! connecting stops it as a signal does at any other time (at once, with the
//! signal's exit code), rather than after the connect timeout with a connect
//! error and exit code 1; and `--redact` never forwards a frame over the
//! 4 MiB limit that its own downstream (and gRPC's default) refuses.

use std::time::{Duration, Instant};

use bytes::BytesMut;
use tokio::io::AsyncReadExt;
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio_util::codec::Decoder;
use tokio_util::sync::CancellationToken;
use triage::exit::{EXIT_INTERRUPTED, EXIT_TERMINATED};
use triage::filter::Filter;
use triage::frames::{encode, FrameDecoder, DEFAULT_MAX_MESSAGE};
use triage::generate::{Gen, Generate};
use triage::judge::{by_optics, Judge};
use triage::model::Issue;
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
        let open = open
            .local_addr()
            .map(|a| a.to_string())
            .map(|a| (a, open))
            .unwrap();
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

/// A kept issue of exactly the largest size the filter takes (4 MiB,
/// padded with whitespace before its closing brace), whose reporter's email
/// (`a@b`) is shorter than the one redaction writes: redacted, it would be
/// 21 bytes over the limit.
fn a_kept_message_of_the_largest_size() -> Vec<u8> {
    let policy = Policy::default();
    let mut g = Gen::new(5, 7);
    let mut issue = std::iter::repeat_with(|| Issue::generate(&mut g))
        .find(|issue| policy.keep(&issue.detail))
        .unwrap();
    issue.reporter.email = "a@b".to_owned();
    let mut message = issue.to_json();
    assert_eq!(message.pop(), Some(b'}'));
    message.resize(DEFAULT_MAX_MESSAGE - 1, b' ');
    message.push(b'}');
    assert_eq!(message.len(), DEFAULT_MAX_MESSAGE);
    assert!(by_optics(&policy, &message).keep, "strict mode keeps it");
    message
}

#[test]
fn redacting_never_forwards_a_frame_over_the_limit_its_downstream_refuses() {
    let message = a_kept_message_of_the_largest_size();
    let mut wire = BytesMut::new();
    encode(&message, &mut wire).unwrap();
    // Without --redact it goes on as it came: the filter takes it, and so
    // does a downstream with gRPC's default limit (the downstream role's).
    let runtime = runtime();
    let run = |filter: Filter| {
        let wire = wire.clone().freeze();
        runtime.block_on(async move {
            let (out, mut downstream) = tokio::io::duplex(1 << 20);
            let reading = tokio::spawn(async move {
                let mut got = Vec::new();
                downstream.read_to_end(&mut got).await.unwrap();
                got
            });
            let tally = filter
                .run(std::io::Cursor::new(wire), out, &CancellationToken::new())
                .await
                .unwrap();
            (tally, reading.await.unwrap())
        })
    };
    let plain = Filter::new(Judge::Optics, Policy::default());
    let (tally, got) = run(plain.clone());
    assert_eq!(tally.kept(), 1);
    assert_eq!(got, wire);

    let (tally, got) = run(plain.redacting());
    // What the downstream role reads with: FrameDecoder::new(), 4 MiB.
    let mut received = BytesMut::from(&got[..]);
    let mut decoder = FrameDecoder::new();
    let mut frames = 0u64;
    loop {
        match decoder.decode_eof(&mut received) {
            Ok(Some(frame)) => {
                assert!(
                    !frame.message().windows(5).any(|w| w == b"\"a@b\""),
                    "forwarded unredacted"
                );
                frames += 1;
            }
            Ok(None) => break,
            Err(err) => panic!(
                "the redacting filter forwarded a frame its downstream refuses: {err} \
                 (tally: {} kept, {} not redactable)",
                tally.kept(),
                tally.unredactable
            ),
        }
    }
    // Kept by the policy, 21 bytes over the limit redacted: dropped, and
    // counted as not redactable.
    assert_eq!((frames, tally.unredactable), (0, 1), "{tally:?}");
    assert_eq!(tally.written(), frames, "{tally:?}");
}
