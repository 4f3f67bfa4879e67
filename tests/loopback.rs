//! The filter end to end: over TCP on loopback, with a bad frame in the
//! middle of the stream, and with a downstream that reads slowly.

use std::io::Cursor;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;
use triage::downstream::{Digest, StreamDigest};
use triage::filter::{Failure, Filter};
use triage::frames::{encode, FrameError};
use triage::judge::Judge;
use triage::model::Issue;
use triage::net;
use triage::policy::{Policy, Verdict};
use triage::pool::Pool;
use triage::tally::Tally;

/// The oracle: decode the message with serde_json and ask the policy.
fn oracle(policy: &Policy, message: &[u8]) -> Verdict {
    match serde_json::from_slice::<Issue>(message) {
        Ok(issue) => policy.judge(&issue.detail),
        Err(_) => Verdict::DROPPED,
    }
}

/// The frames of `count` messages of `pool` the policy keeps, back to back,
/// and the tally judging them directly gives (without bytes out or time).
fn expected(pool: &Pool, count: u64, policy: &Policy) -> (Vec<u8>, Tally) {
    let mut kept = Vec::new();
    let mut tally = Tally::default();
    for i in 0..count {
        let frame = pool.frame(i);
        let verdict = oracle(policy, &pool.message(i));
        tally.count(verdict, frame.len());
        if verdict.keep {
            kept.extend_from_slice(&frame);
        }
    }
    (kept, tally)
}

/// The digest of `wire`, a stream of whole frames.
fn digest(wire: &[u8]) -> StreamDigest {
    let mut buf = BytesMut::from(wire);
    let mut decoder = triage::frames::FrameDecoder::new();
    let mut digest = Digest::default();
    while let Some(frame) = tokio_util::codec::Decoder::decode_eof(&mut decoder, &mut buf).unwrap()
    {
        digest.add(frame.frame());
    }
    digest.finish()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn same_counts(got: &Tally, want: &Tally) {
    assert_eq!(got.by_kind, want.by_kind);
    assert_eq!(got.messages, want.messages);
    assert_eq!(got.bytes_in, want.bytes_in);
}

#[test]
fn downstream_receives_exactly_the_kept_frames_byte_for_byte_in_order() {
    let policy = Policy::default();
    // More frames than distinct messages, so the upstream cycles the pool.
    let pool = Arc::new(Pool::generate(11, 7, 1500).unwrap());
    let count = 4000;
    let (want_bytes, want_tally) = expected(&pool, count, &policy);
    let want = digest(&want_bytes);
    assert!(
        want_tally.kept() > 300,
        "the policy keeps some: {want_tally:?}"
    );

    for reader in [
        Judge::Optics,
        Judge::OpticsTrusting,
        Judge::OpticsValidatingKept,
        Judge::Decode,
    ] {
        let filter = Filter::new(reader, policy.clone());
        let run = runtime()
            .block_on(net::loopback(
                pool.clone(),
                count,
                &filter,
                &CancellationToken::new(),
            ))
            .unwrap();
        assert_eq!(
            run.received.digest, want,
            "{reader:?}: the downstream did not receive exactly the kept frames, in order"
        );
        same_counts(&run.tally, &want_tally);
        assert_eq!(run.tally.bytes_out, want.bytes);
        assert_eq!(run.received.frames(), want_tally.kept());
        assert_eq!(run.expected, want, "the run's own expectation agrees");
        assert!(run.passed(), "{reader:?}");
    }
}

#[test]
fn forward_all_forwards_every_frame() {
    let pool = Arc::new(Pool::generate(12, 7, 300).unwrap());
    let filter = Filter::new(Judge::ForwardAll, Policy::default());
    let run = runtime()
        .block_on(net::loopback(
            pool.clone(),
            700,
            &filter,
            &CancellationToken::new(),
        ))
        .unwrap();
    assert_eq!(run.received.frames(), 700);
    assert_eq!(run.received.bytes(), pool.wire_len(700));
    assert_eq!(run.tally.kind(None).kept, 700);
    assert!(run.passed());
}

/// A stream of `good` messages of `pool`, then `bad`, then more good ones.
fn stream_with(pool: &Pool, good: u64, bad: &[u8]) -> Bytes {
    let mut wire = BytesMut::new();
    for i in 0..good {
        wire.extend_from_slice(&pool.frame(i));
    }
    wire.extend_from_slice(bad);
    for i in 0..50 {
        wire.extend_from_slice(&pool.frame(i));
    }
    wire.freeze()
}

/// Runs `filter` from `wire` into an in-memory downstream; returns what the
/// filter returned and what the downstream received.
fn filter_in_memory(
    filter: &Filter,
    wire: Bytes,
) -> (Result<Tally, triage::filter::FilterError>, Vec<u8>) {
    runtime().block_on(async {
        let (out, mut downstream) = tokio::io::duplex(64 * 1024);
        let reading = tokio::spawn(async move {
            let mut got = Vec::new();
            downstream.read_to_end(&mut got).await.map(|_| got)
        });
        let result = filter
            .run(Cursor::new(wire), out, &CancellationToken::new())
            .await;
        (result, reading.await.unwrap().unwrap())
    })
}

#[test]
fn a_bad_frame_stops_the_stream_after_forwarding_what_came_before() {
    let policy = Policy::default();
    let pool = Pool::generate(13, 7, 400).unwrap();
    let good = 300;
    let (want, want_tally) = expected(&pool, good, &policy);
    let offset = pool.wire_len(good);

    let mut compressed = BytesMut::new();
    encode(b"{}", &mut compressed).unwrap();
    compressed[0] = 1;
    let mut bad_flag = compressed.clone();
    bad_flag[0] = 7;
    let too_large = [0u8, 0x7f, 0xff, 0xff, 0xff];

    let cases: [(&str, &[u8]); 3] = [
        ("compressed", &compressed),
        ("bad flag", &bad_flag),
        ("too large", &too_large),
    ];
    for (name, bad) in cases {
        let wire = stream_with(&pool, good, bad);
        // One read for the whole stream, and reads of 1000 bytes, so the bad
        // frame comes in the same read as good ones or in a later one, and
        // good frames straddle reads.
        for read_size in [1 << 24, 1000] {
            for reader in [
                Judge::Optics,
                Judge::OpticsTrusting,
                Judge::OpticsValidatingKept,
                Judge::Decode,
            ] {
                let filter = Filter::new(reader, policy.clone()).with_read_size(read_size);
                let (result, got) = filter_in_memory(&filter, wire.clone());
                let err = result.expect_err(name);
                match (&err.failure, name) {
                    (Failure::Read(FrameError::Compressed { index, offset: at }), "compressed")
                    | (
                        Failure::Read(FrameError::BadFlag {
                            index, offset: at, ..
                        }),
                        "bad flag",
                    )
                    | (
                        Failure::Read(FrameError::TooLarge {
                            index, offset: at, ..
                        }),
                        "too large",
                    ) => {
                        assert_eq!((*index, *at), (good, offset), "{name}");
                    }
                    (other, _) => panic!("{name}: unexpected failure {other:?}"),
                }
                same_counts(&err.tally, &want_tally);
                assert_eq!(err.tally.bytes_out, want.len() as u64, "{name}");
                assert!(
                    got == want,
                    "{name}, {read_size}, {reader:?}: wrong bytes forwarded"
                );
            }
        }
    }
}

#[test]
fn a_stream_that_ends_inside_a_frame_forwards_everything_before_it() {
    let policy = Policy::default();
    let pool = Pool::generate(14, 7, 200).unwrap();
    let good = 150;
    let (want, want_tally) = expected(&pool, good, &policy);
    let mut wire = BytesMut::new();
    for i in 0..=good {
        wire.extend_from_slice(&pool.frame(i));
    }
    wire.truncate(wire.len() - 10);

    let filter = Filter::new(Judge::Optics, policy).with_read_size(4096);
    let (result, got) = filter_in_memory(&filter, wire.freeze());
    let err = result.unwrap_err();
    assert!(
        matches!(
            err.failure,
            Failure::Read(FrameError::Truncated { index, .. }) if index == good
        ),
        "{err}"
    );
    same_counts(&err.tally, &want_tally);
    assert!(got == want);
    assert!(
        err.to_string().contains("stream ended inside a frame"),
        "{err}"
    );
}

#[test]
fn a_slow_downstream_pushes_back_and_loses_nothing() {
    let pool = Arc::new(Pool::generate(15, 7, 500).unwrap());
    let count = 6000;
    let total = pool.wire_len(count);
    assert!(
        total > 20_000_000,
        "the stream should dwarf the buffers: {total}"
    );

    let (got, max_ahead) = runtime().block_on(async {
        let (mut up_write, up_read) = tokio::io::duplex(64 * 1024);
        let (down_write, mut down_read) = tokio::io::duplex(64 * 1024);
        let written = Arc::new(AtomicU64::new(0));

        let upstream = {
            let pool = pool.clone();
            let written = written.clone();
            tokio::spawn(async move {
                for i in 0..count {
                    let frame = pool.frame(i);
                    up_write.write_all(&frame).await.unwrap();
                    written.fetch_add(frame.len() as u64, Ordering::Relaxed);
                }
                up_write.shutdown().await.unwrap();
            })
        };
        let downstream = {
            let written = written.clone();
            tokio::spawn(async move {
                let mut got = Vec::with_capacity(total as usize);
                let mut buf = vec![0u8; 64 * 1024];
                let mut max_ahead = 0;
                loop {
                    let n = down_read.read(&mut buf).await.unwrap();
                    if n == 0 {
                        break;
                    }
                    got.extend_from_slice(&buf[..n]);
                    let ahead = written.load(Ordering::Relaxed) - got.len() as u64;
                    max_ahead = max_ahead.max(ahead);
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
                (got, max_ahead)
            })
        };
        let filter = Filter::new(Judge::ForwardAll, Policy::default());
        let tally = filter
            .run(up_read, down_write, &CancellationToken::new())
            .await
            .unwrap();
        assert_eq!(tally.messages, count);
        upstream.await.unwrap();
        downstream.await.unwrap()
    });

    eprintln!(
        "the upstream ran at most {max_ahead} bytes ahead of the downstream ({total} in all)"
    );
    let want: Vec<u8> = (0..count).flat_map(|i| pool.frame(i).to_vec()).collect();
    assert!(
        got == want,
        "the slow downstream did not get every byte, in order"
    );
    // Two channels of `CHANNEL_CAPACITY` batches (of 64 KiB reads here), a
    // batch in each stage and the pipes' buffers: far less than the stream.
    // Without back-pressure the upstream would finish while the downstream
    // had read almost nothing.
    assert!(
        max_ahead < 4 * 1024 * 1024,
        "the upstream ran {max_ahead} bytes ahead of the downstream"
    );
}

#[test]
fn a_slow_downstream_gets_exactly_the_kept_frames() {
    let policy = Policy::default();
    let pool = Pool::generate(16, 7, 800).unwrap();
    let count = 800;
    let (want, _) = expected(&pool, count, &policy);
    let wire: Bytes = (0..count)
        .flat_map(|i| pool.frame(i).to_vec())
        .collect::<Vec<u8>>()
        .into();

    let got = runtime().block_on(async {
        // A pipe smaller than one frame, read a little at a time.
        let (out, mut down_read) = tokio::io::duplex(1024);
        let reading = tokio::spawn(async move {
            let mut got = Vec::new();
            let mut buf = [0u8; 700];
            loop {
                let n = down_read.read(&mut buf).await.unwrap();
                if n == 0 {
                    break got;
                }
                got.extend_from_slice(&buf[..n]);
                tokio::time::sleep(Duration::from_micros(200)).await;
            }
        });
        let filter = Filter::new(Judge::Optics, policy.clone()).with_capacity(1);
        filter
            .run(Cursor::new(wire), out, &CancellationToken::new())
            .await
            .unwrap();
        reading.await.unwrap()
    });
    assert!(got == want);
}

#[test]
fn a_downstream_that_goes_away_stops_the_filter_with_a_write_error() {
    let pool = Pool::generate(17, 7, 100).unwrap();
    let wire: Bytes = (0..2000u64)
        .flat_map(|i| pool.frame(i).to_vec())
        .collect::<Vec<u8>>()
        .into();
    let result = runtime().block_on(async {
        let (out, down_read) = tokio::io::duplex(1024);
        drop(down_read);
        Filter::new(Judge::ForwardAll, Policy::default())
            .run(Cursor::new(wire), out, &CancellationToken::new())
            .await
    });
    let err = result.unwrap_err();
    assert!(matches!(err.failure, Failure::Write(_)), "{err}");
    assert_eq!(err.tally.bytes_out, 0);
}

#[test]
fn a_redacting_filter_forwards_each_kept_message_with_only_the_email_replaced() {
    let policy = Policy::default();
    let pool = Arc::new(Pool::generate(18, 7, 400).unwrap());
    let count = 400;
    let wire: Vec<u8> = (0..count).flat_map(|i| pool.frame(i).to_vec()).collect();
    let filter = Filter::new(Judge::Optics, policy.clone()).redacting();
    let (result, got) = filter_in_memory(&filter, Bytes::from(wire));
    let tally = result.unwrap();
    let mut buf = BytesMut::from(&got[..]);
    let mut decoder = triage::frames::FrameDecoder::new();
    let originals: Vec<Bytes> = (0..count)
        .map(|i| pool.message(i))
        .filter(|m| oracle(&policy, m).keep)
        .collect();
    let mut received = 0;
    while let Some(frame) =
        tokio_util::codec::Decoder::decode_eof(&mut decoder, &mut buf).expect("whole frames")
    {
        let original = &originals[received];
        assert!(triage::redact::verify(original, frame.message()));
        let issue: Issue = serde_json::from_slice(frame.message()).unwrap();
        assert_eq!(issue.reporter.email, triage::redact::REDACTED_EMAIL);
        received += 1;
    }
    assert_eq!(received, originals.len());
    assert_eq!(tally.kept(), originals.len() as u64);
    assert_eq!(tally.bytes_out, got.len() as u64);

    // On loopback, the downstream's digest is the expected one.
    let run = runtime()
        .block_on(net::loopback(
            pool,
            count,
            &filter,
            &CancellationToken::new(),
        ))
        .unwrap();
    assert!(run.redacted && run.passed());
}

#[test]
fn a_kept_message_that_cannot_be_redacted_is_dropped_and_counted_as_such() {
    let policy = Policy::default();
    let original = a_kept_message(&policy);
    let kind = oracle(&policy, &original).kind;
    assert!(kind.is_some());
    // The kept issue without its reporter: well-formed, the same detail,
    // and no email to redact.
    let mut object: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(&original).unwrap();
    object.remove("reporter").expect("a reporter");
    let unredactable = serde_json::to_vec(&object).unwrap();
    let mut wire = BytesMut::new();
    encode(&original, &mut wire).unwrap();
    encode(&unredactable, &mut wire).unwrap();
    let wire = wire.freeze();

    let plain = Filter::new(Judge::Optics, policy.clone());
    let (result, got) = filter_in_memory(&plain, wire.clone());
    let tally = result.unwrap();
    assert_eq!(tally.kind(kind).kept, 2, "without --redact both go on");
    assert_eq!(got, wire);
    assert_eq!(tally.unredactable, 0);

    let redacting = plain.redacting();
    let (result, got) = filter_in_memory(&redacting, wire.clone());
    let tally = result.unwrap();
    let kind_row = tally.kind(kind);
    assert_eq!((kind_row.seen, kind_row.kept), (2, 1), "its kind is kept");
    assert_eq!(tally.kind(None).seen, 0, "not counted as `none`");
    assert_eq!(tally.unredactable, 1);
    let mut buf = BytesMut::from(&got[..]);
    let mut decoder = triage::frames::FrameDecoder::new();
    let frame = tokio_util::codec::Decoder::decode_eof(&mut decoder, &mut buf)
        .unwrap()
        .expect("the redactable message");
    assert!(triage::redact::verify(&original, frame.message()));
    assert!(buf.is_empty(), "only that one");
    let report = triage::report::tally("redacting", &tally, None);
    assert!(
        report.contains("not redactable"),
        "the report says why one was dropped:\n{report}"
    );
}

#[test]
fn the_report_says_a_repeated_email_key_made_a_message_not_redactable() {
    let policy = Policy::default();
    let original = a_kept_message(&policy);
    // The kept issue with its reporter's email given twice: it has an email
    // to redact, but a last-wins parser would read the one the lens left.
    let text = String::from_utf8(original.to_vec()).unwrap();
    let email = text.find("\"email\":").expect("an email");
    let twice = format!("{}\"email\":\"first@x\",{}", &text[..email], &text[email..]);
    let mut wire = BytesMut::new();
    encode(twice.as_bytes(), &mut wire).unwrap();

    let redacting = Filter::new(Judge::Optics, policy).redacting();
    let (result, got) = filter_in_memory(&redacting, wire.freeze());
    let tally = result.unwrap();
    assert!(got.is_empty(), "never forwarded half redacted");
    assert_eq!(tally.unredactable, 1);
    let report = triage::report::tally("redacting", &tally, None);
    let row = report
        .lines()
        .find(|line| line.contains("not redactable"))
        .expect("a not redactable row");
    assert!(
        row.contains("given twice"),
        "the row gives every reason a kept message is dropped:\n{row}"
    );
}

#[test]
fn any_number_of_judges_forwards_the_kept_frames_in_the_order_they_came() {
    let policy = Policy::default();
    let pool = Pool::generate(19, 7, 300).unwrap();
    let count = 1500;
    let (want, want_tally) = expected(&pool, count, &policy);
    let wire: Bytes = (0..count)
        .flat_map(|i| pool.frame(i).to_vec())
        .collect::<Vec<u8>>()
        .into();
    let verdicts: Vec<Verdict> = (0..pool.distinct() as u64)
        .map(|i| oracle(&policy, &pool.message(i)))
        .collect();
    for judges in [1, 2, 3, 8] {
        // Reads of a few frames each: hundreds of batches dealt to the
        // judges with room, of uneven sizes, some with nothing kept; judges
        // may finish them out of order, and the writer puts them back.
        for (label, filter) in [
            ("optics", Filter::new(Judge::Optics, policy.clone())),
            ("decode", Filter::new(Judge::Decode, policy.clone())),
            ("oracle", Filter::oracle(policy.clone(), verdicts.clone())),
        ] {
            let filter = filter.with_judges(judges).with_read_size(7_000);
            assert_eq!(filter.judges(), judges);
            let (result, got) = filter_in_memory(&filter, wire.clone());
            let tally = result.unwrap();
            same_counts(&tally, &want_tally);
            assert_eq!(
                tally.bytes_out,
                want.len() as u64,
                "{label}, {judges} judges"
            );
            assert!(
                got == want,
                "{label} with {judges} judges: the kept frames differ or are out of order"
            );
        }
    }
}

/// A generated message the policy keeps.
fn a_kept_message(policy: &Policy) -> Bytes {
    let pool = Pool::generate(18, 7, 400).unwrap();
    (0..400)
        .map(|i| pool.message(i))
        .find(|m| oracle(policy, m).keep)
        .expect("the policy keeps one")
}
