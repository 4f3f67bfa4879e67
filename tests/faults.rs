//! The filter under faults and hostile input, in memory and on loopback:
//! malformed messages are never kept in strict mode, a graceful stop tears
//! no frame, and every wait has a bound.

use std::io::Cursor;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio_util::codec::Decoder;
use tokio_util::sync::CancellationToken;
use triage::exit::EXIT_INTERRUPTED;
use triage::filter::{Failure, Filter};
use triage::frames::{encode, BatchReader, FrameDecoder, FrameError, FramePart};
use triage::generate::{Gen, Generate};
use triage::judge::{
    by_decoding, by_optics, by_optics_trusting, by_optics_validating_kept, judge_bytes, Judge,
};
use triage::model::Issue;
use triage::net;
use triage::policy::{Flaw, Policy, Verdict};
use triage::pool::Pool;
use triage::roles;
use triage::shutdown::Shutdown;
use triage::tally::{Row, Tally};
use triage::timeouts::Timeouts;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// Generated issues the policy keeps.
fn kept_issues(seed: u64, count: usize) -> Vec<Issue> {
    let policy = Policy::default();
    let mut g = Gen::new(seed, 7);
    std::iter::repeat_with(|| Issue::generate(&mut g))
        .filter(|issue| policy.keep(&issue.detail))
        .take(count)
        .collect()
}

/// Ways to break a message outside the paths the policy reads, each keeping
/// its detail (so a reader that only looks at the detail would keep it).
fn damaged(message: &[u8]) -> Vec<(&'static str, Vec<u8>)> {
    let text = std::str::from_utf8(message).unwrap();
    let title = text.find(r#""title":""#).unwrap() + r#""title":""#.len();
    let mut garbage = message.to_vec();
    // `"title":"...` becomes `"title":@"...`: a value that is not JSON.
    garbage.insert(title - 1, b'@');
    let mut invalid_utf8 = message.to_vec();
    invalid_utf8.insert(title, 0xff);
    let mut control = message.to_vec();
    control.insert(title, b'\n');
    let mut trailing = message.to_vec();
    trailing.extend_from_slice(b" x");
    let mut two = message.to_vec();
    two.extend_from_slice(message);
    let mut unclosed = message.to_vec();
    unclosed.pop();
    let mut bad_number = message.to_vec();
    let id = text.find(r#""id":"#).unwrap() + r#""id":"#.len();
    bad_number.splice(id..id, b"01".iter().copied());
    vec![
        ("garbage in a skipped value", garbage),
        ("invalid UTF-8 in a skipped string", invalid_utf8),
        ("a raw control character in a skipped string", control),
        ("trailing garbage", trailing),
        ("two documents", two),
        ("an object that is not closed", unclosed),
        ("a number with a leading zero", bad_number),
    ]
}

#[test]
fn strict_optics_never_keep_a_malformed_message_and_count_it_as_malformed() {
    let policy = Policy::default();
    for issue in kept_issues(21, 20) {
        let message = issue.to_json();
        assert!(by_optics(&policy, &message).keep);
        for (how, bad) in damaged(&message) {
            assert!(
                serde_json::from_slice::<serde_json::Value>(&bad).is_err(),
                "{how}: the damage should make the message invalid JSON"
            );
            assert_eq!(
                by_optics(&policy, &bad),
                Verdict::refused(Flaw::Malformed),
                "{how}"
            );
            assert_eq!(
                by_decoding(&policy, &bad),
                Verdict::refused(Flaw::Malformed),
                "{how}"
            );
        }
    }
    // Trusting mode reads only the detail: damage elsewhere goes unseen.
    // This is why strict is the default.
    let message = kept_issues(21, 1).remove(0).to_json();
    let (how, garbage) = damaged(&message).remove(0);
    assert!(by_optics_trusting(&policy, &garbage).keep, "{how}");
}

#[test]
fn the_strict_filter_forwards_none_of_them_and_the_tally_says_why() {
    let issues = kept_issues(22, 5);
    let mut wire = BytesMut::new();
    let mut bad_count = 0;
    for issue in &issues {
        let message = issue.to_json();
        encode(&message, &mut wire).unwrap();
        for (_, bad) in damaged(&message) {
            encode(&bad, &mut wire).unwrap();
            bad_count += 1;
        }
    }
    let wire = wire.freeze();

    // `judge FILE`'s view: both readers count the malformed ones, and agree.
    let judged = judge_bytes(BytesMut::from(&wire[..]), &Policy::default());
    assert!(
        judged.disagreements.is_empty(),
        "{:?}",
        judged.disagreements
    );
    for tally in [&judged.optics, &judged.decode] {
        assert_eq!(tally.flawed(Flaw::Malformed), bad_count);
        assert_eq!(tally.kept(), issues.len() as u64);
    }

    // The filter: only the whole messages go through.
    let (tally, got) = filter_in_memory(Judge::Optics, wire);
    assert_eq!(tally.row(Row::Flawed(Flaw::Malformed)).seen, bad_count);
    assert_eq!(tally.row(Row::Flawed(Flaw::Malformed)).kept, 0);
    let mut want = BytesMut::new();
    for issue in &issues {
        encode(&issue.to_json(), &mut want).unwrap();
    }
    assert!(got == want[..], "exactly the whole messages, in order");
}

/// Runs a filter judging with `reader` (the default policy) over `wire` in
/// memory, to its end: its tally and every byte it wrote downstream.
fn filter_in_memory(reader: Judge, wire: Bytes) -> (Tally, Vec<u8>) {
    runtime().block_on(async {
        let (out, mut downstream) = tokio::io::duplex(64 * 1024);
        let reading = tokio::spawn(async move {
            let mut got = Vec::new();
            downstream.read_to_end(&mut got).await.map(|_| got)
        });
        let filter = Filter::new(reader, Policy::default());
        let tally = filter
            .run(Cursor::new(wire), out, &CancellationToken::new())
            .await
            .unwrap();
        (tally, reading.await.unwrap().unwrap())
    })
}

/// Generated issues, the first `kept` of them ones the policy keeps and the
/// next `dropped` ones it drops.
fn kept_and_dropped(seed: u64, kept: usize, dropped: usize) -> Vec<Issue> {
    let policy = Policy::default();
    let mut g = Gen::new(seed, 7);
    let (mut keep, mut drop) = (Vec::new(), Vec::new());
    while keep.len() < kept || drop.len() < dropped {
        let issue = Issue::generate(&mut g);
        match policy.keep(&issue.detail) {
            true if keep.len() < kept => keep.push(issue),
            false if drop.len() < dropped => drop.push(issue),
            _ => {}
        }
    }
    keep.extend(drop);
    keep
}

#[test]
fn validating_what_it_keeps_forwards_exactly_what_strict_forwards() {
    let policy = Policy::default();
    let issues = kept_and_dropped(23, 6, 6);
    let mut wire = BytesMut::new();
    let mut want = BytesMut::new();
    // Malformed or with `detail` twice, and read as kept by trusting reads:
    // the strict judge has the last word on them.
    let mut flawed_kept_by_trust = 0;
    // Malformed and dropped by trusting reads: never validated.
    let mut flawed_dropped_unseen = 0;
    for issue in &issues {
        let message = issue.to_json();
        let detail = serde_json::to_string(&issue.detail).unwrap();
        let mut twice = message.clone();
        twice.pop();
        twice.extend_from_slice(format!(r#","detail":{detail}}}"#).as_bytes());
        let mut variants = damaged(&message);
        variants.push(("`detail` twice", twice));
        variants.push(("whole", message.clone()));
        for (how, bytes) in variants {
            let strict = by_optics(&policy, &bytes);
            let trusting = by_optics_trusting(&policy, &bytes);
            let verdict = by_optics_validating_kept(&policy, &bytes);
            assert_eq!(verdict.keep, strict.keep, "{how}");
            if trusting.keep {
                assert_eq!(verdict, strict, "{how}");
            } else {
                // The verdict of trusting reads: no flaw looked for.
                assert_eq!(verdict, trusting, "{how}");
                assert_eq!(verdict.flaw, None, "{how}");
            }
            if strict.flaw.is_some() {
                match trusting.keep {
                    true => flawed_kept_by_trust += 1,
                    false => flawed_dropped_unseen += 1,
                }
            }
            encode(&bytes, &mut wire).unwrap();
            if strict.keep {
                encode(&bytes, &mut want).unwrap();
            }
        }
    }
    // Both sides of the rule were met.
    assert!(flawed_kept_by_trust > 0 && flawed_dropped_unseen > 0);
    // What strict mode keeps is the kept issues whole, in order.
    let mut whole = BytesMut::new();
    for issue in &issues[..6] {
        encode(&issue.to_json(), &mut whole).unwrap();
    }
    assert!(
        want == whole,
        "strict mode keeps the whole kept issues only"
    );

    // The filter forwards the same frames with either judge; the tally of
    // the one validating what it keeps counts only the flaws it validated.
    let wire = wire.freeze();
    for (reader, flawed) in [
        (Judge::Optics, None),
        (Judge::OpticsValidatingKept, Some(flawed_kept_by_trust)),
    ] {
        let (tally, got) = filter_in_memory(reader, wire.clone());
        assert!(
            got == want[..],
            "{reader}: exactly the whole kept messages, in order"
        );
        assert_eq!(tally.kept(), 6, "{reader}");
        let refused = tally.row(Row::Flawed(Flaw::Malformed)).seen
            + tally.row(Row::Flawed(Flaw::DuplicateKey)).seen;
        assert_eq!(
            refused,
            flawed.unwrap_or(flawed_kept_by_trust + flawed_dropped_unseen),
            "{reader}"
        );
    }
}

/// A reader that gives `bytes`, then stays open and silent for ever.
fn then_silence(bytes: Bytes) -> impl tokio::io::AsyncRead + Unpin + Send + 'static {
    tokio::io::AsyncReadExt::chain(Cursor::new(bytes), tokio::io::empty()).chain(Pending)
}

/// An `AsyncRead` that never yields a byte nor ends.
struct Pending;

impl tokio::io::AsyncRead for Pending {
    fn poll_read(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
        _: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Pending
    }
}

fn short(idle: u64, write: u64) -> Timeouts {
    Timeouts {
        connect: Some(Duration::from_millis(300)),
        idle: Some(Duration::from_millis(idle)),
        write: Some(Duration::from_millis(write)),
    }
}

#[test]
fn an_upstream_that_stalls_inside_a_frame_fails_the_stream_after_the_idle_timeout() {
    let pool = Pool::generate(23, 7, 40).unwrap();
    let mut wire = BytesMut::new();
    for i in 0..40 {
        wire.extend_from_slice(&pool.frame(i));
    }
    // A header announcing 1000 bytes, and three of them.
    wire.extend_from_slice(&[0, 0, 0, 3, 232, b'{', b'"', b'a']);
    let filter = Filter::new(Judge::ForwardAll, Policy::default()).with_timeouts(short(300, 5000));
    let start = Instant::now();
    let (result, got) = runtime().block_on(async {
        let (out, mut downstream) = tokio::io::duplex(1 << 20);
        let reading = tokio::spawn(async move {
            let mut got = Vec::new();
            downstream.read_to_end(&mut got).await.map(|_| got)
        });
        let result = filter
            .run(then_silence(wire.freeze()), out, &CancellationToken::new())
            .await;
        (result, reading.await.unwrap().unwrap())
    });
    let took = start.elapsed();
    let err = result.unwrap_err();
    let Failure::Read(FrameError::Stalled {
        received,
        expected,
        index,
        ..
    }) = &err.failure
    else {
        panic!("expected a stall, got {err}");
    };
    assert_eq!((*received, *expected, *index), (3, 1000, 40));
    assert!(
        err.to_string()
            .contains("stream stalled inside a frame: 3 of 1000 message bytes arrived"),
        "{err}"
    );
    assert!(took < Duration::from_secs(3), "took {took:?}");
    // The 40 frames before the stall were forwarded whole.
    assert_eq!(err.tally.messages, 40);
    assert_eq!(got.len() as u64, pool.wire_len(40));
}

#[test]
fn a_quiet_upstream_between_frames_is_not_stalled() {
    let pool = Pool::generate(24, 7, 2).unwrap();
    let filter = Filter::new(Judge::ForwardAll, Policy::default()).with_timeouts(short(100, 5000));
    let tally = runtime().block_on(async {
        let (mut up, up_read) = tokio::io::duplex(1 << 20);
        let (out, mut downstream) = tokio::io::duplex(1 << 20);
        let frames = (pool.frame(0), pool.frame(1));
        tokio::spawn(async move {
            up.write_all(&frames.0).await.unwrap();
            // Three idle timeouts of silence, between two frames.
            tokio::time::sleep(Duration::from_millis(300)).await;
            up.write_all(&frames.1).await.unwrap();
            up.shutdown().await.unwrap();
        });
        tokio::spawn(async move {
            let mut sink = Vec::new();
            let _ = downstream.read_to_end(&mut sink).await;
        });
        filter
            .run(up_read, out, &CancellationToken::new())
            .await
            .unwrap()
    });
    assert_eq!(tally.messages, 2);
}

#[test]
fn a_downstream_that_stops_reading_fails_the_stream_after_the_write_timeout() {
    let pool = Pool::generate(25, 7, 200).unwrap();
    let mut wire = BytesMut::new();
    for i in 0..200 {
        wire.extend_from_slice(&pool.frame(i));
    }
    let filter = Filter::new(Judge::ForwardAll, Policy::default()).with_timeouts(short(5000, 300));
    let start = Instant::now();
    let result = runtime().block_on(async {
        // A downstream that accepts 4 KiB and never reads.
        let (out, _never_read) = tokio::io::duplex(4096);
        filter
            .run(Cursor::new(wire.freeze()), out, &CancellationToken::new())
            .await
    });
    let took = start.elapsed();
    let err = result.unwrap_err();
    let Failure::Write(io) = &err.failure else {
        panic!("expected a write failure, got {err}");
    };
    assert_eq!(io.kind(), std::io::ErrorKind::TimedOut);
    assert!(err.to_string().contains("it stopped reading"), "{err}");
    assert!(took < Duration::from_secs(3), "took {took:?}");
}

/// A downstream on loopback that reads `limit` bytes, then resets the
/// connection (SO_LINGER 0). Returns its address.
async fn a_downstream_that_resets_after(limit: usize) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    tokio::spawn(async move {
        let (mut conn, _) = listener.accept().await.unwrap();
        let mut buf = vec![0u8; 64 * 1024];
        let mut got = 0;
        while got < limit {
            match conn.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => got += n,
            }
        }
        // Deprecated because a linger blocks the close; a zero one does
        // not: the close sends a reset at once.
        #[allow(deprecated)]
        conn.set_linger(Some(Duration::ZERO)).unwrap();
        drop(conn);
    });
    addr
}

#[test]
fn after_a_write_failure_the_tally_says_how_many_kept_messages_were_written() {
    let pool = Pool::generate(27, 7, 300).unwrap();
    let count = 4000;
    let mut wire = BytesMut::new();
    for i in 0..count {
        wire.extend_from_slice(&pool.frame(i));
    }
    let filter = Filter::new(Judge::ForwardAll, Policy::default()).with_timeouts(short(5000, 5000));
    let err = runtime().block_on(async {
        let addr = a_downstream_that_resets_after(200_000).await;
        let down = TcpStream::connect(&addr).await.unwrap();
        filter
            .run(Cursor::new(wire.freeze()), down, &CancellationToken::new())
            .await
            .unwrap_err()
    });
    let Failure::Write(_) = &err.failure else {
        panic!("expected a write failure, got {err}");
    };
    let tally = err.tally;
    let written = tally.written();
    assert!(
        tally.unwritten > 0,
        "some kept frames came after the failure: {err}"
    );
    assert_eq!(written + tally.unwritten, tally.kept());
    // The bytes out are those of the frames counted written, in order.
    let bytes: u64 = (0..written).map(|i| pool.frame(i).len() as u64).sum();
    assert_eq!(tally.bytes_out, bytes);
    let text = err.to_string();
    assert!(
        text.ends_with(&format!(
            "{} messages judged before it, {} kept by the policy, {written} written before the failure",
            tally.messages,
            tally.kept()
        )),
        "{text}"
    );
    let report = triage::report::tally("filter", &tally, None);
    assert!(
        report.contains(&format!(
            "kept {} messages by the policy, {written} written before the run failed ({} never written)",
            tally.kept(),
            tally.unwritten
        )),
        "{report}"
    );
}

#[test]
fn an_upstream_reset_inside_a_frame_says_where_like_a_clean_end_there() {
    let framed = |message: &[u8]| {
        let mut out = BytesMut::new();
        encode(message, &mut out).unwrap();
        out.freeze()
    };
    let (first, second) = (framed(&[b'x'; 100]), framed(&[b'y'; 3888]));
    let err = runtime().block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (first, part) = (first.clone(), second.slice(..5 + 95));
        let peer = tokio::spawn(async move {
            let (mut conn, _) = listener.accept().await.unwrap();
            conn.write_all(&first).await.unwrap();
            conn.write_all(&part).await.unwrap();
            // Read by the filter's side before the reset comes.
            tokio::time::sleep(Duration::from_millis(300)).await;
            #[allow(deprecated)] // A zero linger: the close resets at once.
            conn.set_linger(Some(Duration::ZERO)).unwrap();
            drop(conn);
        });
        let mut frames = BatchReader::new(TcpStream::connect(addr).await.unwrap());
        let batch = frames.next_batch().await.unwrap().unwrap();
        assert_eq!(batch.len(), 1);
        let err = frames.next_batch().await.unwrap_err();
        peer.await.unwrap();
        err
    });
    let FrameError::ReadFailed {
        error,
        part,
        received,
        expected,
        index,
        offset,
    } = &err
    else {
        panic!("expected a read failure inside a frame, got {err}");
    };
    assert_eq!(error.kind(), std::io::ErrorKind::ConnectionReset);
    assert_eq!(
        (*part, *received, *expected, *index, *offset),
        (FramePart::Message, 95, 3888, 1, first.len() as u64)
    );
    let text = err.to_string();
    assert!(text.starts_with("i/o error inside a frame: "), "{text}");
    assert!(
        text.ends_with(&format!(
            "; 95 of 3888 message bytes arrived (frame 1 at byte {})",
            first.len()
        )),
        "{text}"
    );
}

#[test]
fn a_connect_to_a_listener_that_never_accepts_times_out() {
    runtime().block_on(async {
        // A listener with a backlog of one that never accepts: once its
        // queue is full, the kernel leaves further connects unanswered.
        let socket = TcpSocket::new_v4().unwrap();
        socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let listener = socket.listen(1).unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let mut fillers = Vec::new();
        let start = Instant::now();
        let timeout = Some(Duration::from_millis(300));
        let err = loop {
            match net::connect(&addr, "downstream", timeout).await {
                Ok(stream) => fillers.push(stream),
                Err(err) => break err,
            }
            assert!(fillers.len() < 64, "the backlog never filled");
        };
        let took = start.elapsed();
        let text = err.to_string();
        assert!(
            text.starts_with(&format!("filter: connecting to the downstream at {addr}")),
            "{text}"
        );
        assert!(text.contains("took longer than 300ms"), "{text}");
        assert!(took < Duration::from_secs(5), "took {took:?}");
        drop(listener);
    });
}

#[test]
fn the_upstream_role_serves_a_reading_client_while_another_does_not_read() {
    let rt = runtime();
    let count = 20_000; // about 80 MB a connection: far more than a socket buffers
    let (sent_to_reader, took, stopped) = rt.block_on(async {
        let probe = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = probe.local_addr().unwrap().to_string();
        drop(probe);
        let shutdown = Shutdown::manual();
        let timeouts = Timeouts {
            write: Some(Duration::from_millis(500)),
            ..Timeouts::default()
        };
        let role = {
            let (addr, shutdown) = (addr.clone(), shutdown.clone());
            tokio::spawn(async move { roles::upstream(&addr, count, timeouts, &shutdown).await })
        };
        let connect = || async {
            for _ in 0..100 {
                if let Ok(stream) = TcpStream::connect(&addr).await {
                    return stream;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            panic!("the upstream role never listened");
        };
        let _idle = connect().await; // connects, never reads
        tokio::time::sleep(Duration::from_millis(100)).await;
        let start = Instant::now();
        let mut reader = connect().await;
        let mut got = 0u64;
        let mut buf = vec![0u8; 1 << 16];
        loop {
            let n = reader.read(&mut buf).await.unwrap();
            if n == 0 {
                break;
            }
            got += n as u64;
        }
        let took = start.elapsed();
        shutdown.trigger(EXIT_INTERRUPTED);
        let stopped = tokio::time::timeout(Duration::from_secs(5), role)
            .await
            .expect("the role stops after the signal")
            .unwrap();
        (got, took, stopped)
    });
    let pool = Pool::generate(triage::pool::SEED, triage::pool::MESSAGE_SIZE, 1024).unwrap();
    assert_eq!(sent_to_reader, pool.wire_len(count));
    assert!(took < Duration::from_secs(20), "took {took:?}");
    assert_eq!(stopped.unwrap_err().code, EXIT_INTERRUPTED);
}

#[test]
fn a_graceful_stop_writes_every_judged_frame_whole_and_tears_none() {
    let pool = Arc::new(Pool::generate(26, 7, 300).unwrap());
    let count = 20_000;
    let (tally, got) = runtime().block_on(async {
        let (mut up, up_read) = tokio::io::duplex(64 * 1024);
        let (out, mut down) = tokio::io::duplex(16 * 1024);
        let writer = {
            let pool = pool.clone();
            tokio::spawn(async move {
                for i in 0..count {
                    if up.write_all(&pool.frame(i)).await.is_err() {
                        break;
                    }
                }
            })
        };
        let stop = CancellationToken::new();
        let reader = {
            let stop = stop.clone();
            tokio::spawn(async move {
                let mut got = Vec::new();
                let mut buf = vec![0u8; 8192];
                loop {
                    let n = down.read(&mut buf).await.unwrap();
                    if n == 0 {
                        break;
                    }
                    got.extend_from_slice(&buf[..n]);
                    if got.len() > 200_000 {
                        stop.cancel();
                    }
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
                got
            })
        };
        let filter = Filter::new(Judge::Optics, Policy::default());
        let tally = filter.run(up_read, out, &stop).await.unwrap();
        let got = reader.await.unwrap();
        writer.abort();
        (tally, got)
    });
    assert!(tally.messages < count, "the stop came before the end");
    assert_eq!(got.len() as u64, tally.bytes_out);
    let mut buf = BytesMut::from(&got[..]);
    let mut decoder = FrameDecoder::new();
    let mut frames = 0;
    while let Some(frame) = decoder.decode_eof(&mut buf).expect("no torn frame") {
        assert!(by_optics(&Policy::default(), frame.message()).keep);
        frames += 1;
    }
    assert_eq!(frames, tally.kept());
}

#[test]
fn a_key_given_twice_on_a_judged_path_is_refused_by_both_readers() {
    let policy = Policy::default();
    for issue in kept_issues(27, 10) {
        let message = issue.to_json();
        let detail = serde_json::to_string(&issue.detail).unwrap();
        // `detail` twice: the second one a copy with another kind's tag, so
        // that a reader taking the first and one taking the last disagree.
        let mut twice = message.clone();
        twice.pop();
        twice.extend_from_slice(format!(r#","detail":{detail}}}"#).as_bytes());
        assert_eq!(
            by_optics(&policy, &twice),
            Verdict::refused(Flaw::DuplicateKey)
        );
        assert_eq!(
            by_decoding(&policy, &twice),
            Verdict::refused(Flaw::DuplicateKey)
        );
        // Trusting mode reads the first and keeps it: why strict is the default.
        assert!(by_optics_trusting(&policy, &twice).keep);
        // A key repeated off the judged paths changes no verdict.
        let text = String::from_utf8(message.clone()).unwrap();
        let title = text.find("\"title\":").unwrap();
        let mut off_path = message.clone();
        off_path.splice(title..title, b"\"title\":\"x\",".iter().copied());
        assert!(by_optics(&policy, &off_path).keep);
    }
}
