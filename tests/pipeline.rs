//! The filter's pipeline under any read sizes, judge counts and keep
//! patterns: what reaches the downstream is exactly the kept frames, each
//! once, byte for byte, in the upstream's order, and the tally says so.
//! Streams are in memory: the upstream hands out a few bytes per read and
//! sometimes makes the reader wait; the downstream is a small duplex read
//! a few bytes at a time. The oracle decodes each message with serde_json.

#[path = "../optics-core/tests/support/scale.rs"]
mod scale;

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use bytes::{Bytes, BytesMut};
use proptest::prelude::*;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, ReadBuf};
use tokio_util::sync::CancellationToken;
use triage::filter::{Failure, Filter, FilterError};
use triage::frames::{encode, FrameError, DEFAULT_MAX_MESSAGE, HEADER_LEN};
use triage::judge::Judge;
use triage::model::Issue;
use triage::policy::{Policy, Verdict};
use triage::pool::Pool;
use triage::tally::Tally;

/// An upstream that hands out its bytes in reads of the given sizes (in
/// turn), makes every third read wait once, and cancels `stop` once it has
/// served `stop_after` reads.
struct Trickle {
    wire: Bytes,
    sizes: Vec<usize>,
    reads: usize,
    waited: bool,
    stop: Option<(usize, CancellationToken)>,
}

impl AsyncRead for Trickle {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.reads % 3 == 2 && !self.waited {
            self.waited = true;
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        self.waited = false;
        if let Some((after, stop)) = &self.stop {
            if self.reads >= *after {
                stop.cancel();
            }
        }
        let size = self.sizes[self.reads % self.sizes.len()];
        self.reads += 1;
        let n = size.min(buf.remaining()).min(self.wire.len());
        let chunk = self.wire.split_to(n);
        buf.put_slice(&chunk);
        Poll::Ready(Ok(()))
    }
}

/// The verdict a full decode with serde_json and the policy give.
fn oracle(policy: &Policy, message: &[u8]) -> Verdict {
    match serde_json::from_slice::<Issue>(message) {
        Ok(issue) => policy.judge(&issue.detail),
        Err(_) => Verdict::DROPPED,
    }
}

/// One message of a stream: an issue of the pool, padded with trailing
/// spaces, or bytes that are not an issue.
#[derive(Clone, Debug)]
enum Message {
    Issue { index: u64, pad: usize },
    Junk(&'static [u8]),
}

const JUNK: [&[u8]; 4] = [b"", b"{", b"not json", b"{\"id\":1}"];

fn message() -> impl Strategy<Value = Message> {
    prop_oneof![
        6 => (0u64..32, prop_oneof![3 => Just(0usize), 1 => 0usize..2_000, 1 => 0usize..40_000])
            .prop_map(|(index, pad)| Message::Issue { index, pad }),
        1 => (0..JUNK.len()).prop_map(|i| Message::Junk(JUNK[i])),
    ]
}

fn bytes_of(pool: &Pool, message: &Message) -> Vec<u8> {
    match message {
        Message::Issue { index, pad } => {
            let mut bytes = pool.message(*index).to_vec();
            bytes.resize(bytes.len() + pad, b' ');
            bytes
        }
        Message::Junk(bytes) => bytes.to_vec(),
    }
}

/// A stream case: the messages, their frames back to back, the filter, and
/// the keep decision of each frame as the oracle sees it.
struct Case {
    frames: Vec<Vec<u8>>,
    keep: Vec<bool>,
    filter: Filter,
}

fn case(
    messages: &[Message],
    judge: Judge,
    judges: usize,
    pattern: &[bool],
    read_size: usize,
) -> Case {
    let pool = Pool::generate(5, 4, 32).unwrap();
    let policy = Policy::default();
    let trusting = judge == Judge::OpticsTrusting;
    let mut frames = Vec::new();
    let mut keep = Vec::new();
    for (i, message) in messages.iter().enumerate() {
        // Trusting optics do not validate; they are only given issues.
        if trusting && matches!(message, Message::Junk(_)) {
            continue;
        }
        let bytes = bytes_of(&pool, message);
        let mut frame = BytesMut::new();
        encode(&bytes, &mut frame).unwrap();
        frames.push(frame.to_vec());
        keep.push(match judge {
            Judge::ForwardAll => true,
            Judge::Oracle => pattern[i % pattern.len()],
            _ => oracle(&policy, &bytes).keep,
        });
    }
    let filter = match judge {
        Judge::Oracle => Filter::oracle(
            policy,
            pattern
                .iter()
                .map(|&keep| Verdict::judged(None, keep))
                .collect(),
        ),
        judge => Filter::new(judge, policy),
    };
    // The oracle's pattern is by frame index: with junk left out for the
    // trusting judge it is not used.
    let filter = filter
        .with_judges(judges)
        .with_read_size(read_size)
        .with_in_flight(0);
    Case {
        frames,
        keep,
        filter,
    }
}

/// The kept frames of the first `count` frames, back to back.
fn kept(case: &Case, count: usize) -> Vec<u8> {
    case.frames[..count]
        .iter()
        .zip(&case.keep)
        .filter(|(_, &keep)| keep)
        .flat_map(|(frame, _)| frame.iter().copied())
        .collect()
}

/// Runs the case's filter from `wire` (read in reads of `sizes`) into a
/// duplex of `pipe` bytes read `chunk` bytes at a time; cancels the stop
/// token after `stop_after` reads, if given.
fn run(
    case: &Case,
    wire: Bytes,
    sizes: Vec<usize>,
    pipe: usize,
    chunk: usize,
    stop_after: Option<usize>,
) -> (Result<Tally, FilterError>, Vec<u8>) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let stop = CancellationToken::new();
        let upstream = Trickle {
            wire,
            sizes,
            reads: 0,
            waited: false,
            stop: stop_after.map(|after| (after, stop.clone())),
        };
        let (out, mut downstream) = tokio::io::duplex(pipe);
        let reading = tokio::spawn(async move {
            let mut got = Vec::new();
            let mut buf = vec![0; chunk];
            loop {
                let n = downstream.read(&mut buf).await.unwrap();
                if n == 0 {
                    return got;
                }
                got.extend_from_slice(&buf[..n]);
            }
        });
        let result = case.filter.run(upstream, out, &stop).await;
        (result, reading.await.unwrap())
    })
}

/// The tally's counts against the first `count` frames of the case, and
/// the bytes out against what the downstream received.
fn check_tally(tally: &Tally, case: &Case, count: usize, got: &[u8]) {
    assert_eq!(tally.messages, count as u64);
    let seen: u64 = tally.by_kind.iter().map(|row| row.seen).sum();
    assert_eq!(seen, tally.messages, "every message in one row");
    let bytes_in: usize = case.frames[..count].iter().map(Vec::len).sum();
    assert_eq!(tally.bytes_in, bytes_in as u64);
    let kept = case.keep[..count].iter().filter(|&&keep| keep).count();
    assert_eq!(tally.kept(), kept as u64);
    assert_eq!(tally.unwritten, 0);
    assert_eq!(tally.written(), kept as u64);
    assert_eq!(tally.bytes_out, got.len() as u64);
}

/// A downstream that takes at most `per_write` bytes a write and fails
/// every write once it has taken `limit` bytes.
struct Failing {
    got: Arc<Mutex<Vec<u8>>>,
    per_write: usize,
    limit: usize,
}

impl AsyncWrite for Failing {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let mut got = self.got.lock().unwrap();
        if got.len() >= self.limit {
            return Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()));
        }
        let n = buf.len().min(self.per_write).min(self.limit - got.len());
        got.extend_from_slice(&buf[..n]);
        Poll::Ready(Ok(n))
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

fn sizes() -> impl Strategy<Value = Vec<usize>> {
    proptest::collection::vec(prop_oneof![1usize..8, 8usize..200, 200usize..70_000], 1..6)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(scale::scaled(48)))]

    /// Whole streams: every kept frame once, in order, byte for byte, and
    /// the tally counts every frame.
    #[test]
    fn the_downstream_gets_exactly_the_kept_frames_in_order(
        messages in proptest::collection::vec(message(), 0..60),
        judge in 0..Judge::ALL.len(),
        judges in 1usize..=16,
        pattern in proptest::collection::vec(any::<bool>(), 1..8),
        read_size in prop_oneof![1usize..16, 16usize..5_000, 5_000usize..300_000],
        sizes in sizes(),
        pipe in 1usize..4_096,
        chunk in 1usize..2_000,
    ) {
        let case = case(&messages, Judge::ALL[judge], judges, &pattern, read_size);
        let wire: Bytes = case.frames.concat().into();
        let (result, got) = run(&case, wire, sizes, pipe, chunk, None);
        let tally = result.unwrap();
        let want = kept(&case, case.frames.len());
        prop_assert!(got == want, "{} bytes out, {} wanted", got.len(), want.len());
        check_tally(&tally, &case, case.frames.len(), &got);
    }

    /// A stream cut inside a frame: the frames before the cut are judged
    /// and their kept frames forwarded whole, then the filter fails with
    /// the stream truncated there.
    #[test]
    fn a_stream_cut_inside_a_frame_forwards_what_came_before_it(
        messages in proptest::collection::vec(message(), 1..40),
        judges in 1usize..=16,
        read_size in prop_oneof![1usize..16, 16usize..5_000, 5_000usize..300_000],
        sizes in sizes(),
        cut in any::<prop::sample::Index>(),
        pipe in 1usize..4_096,
    ) {
        let case = case(&messages, Judge::Optics, judges, &[true], read_size);
        let wire = case.frames.concat();
        let cut = cut.index(wire.len());
        // Whole frames before the cut, and whether it falls inside one.
        let mut whole = 0;
        let mut at = 0;
        while whole < case.frames.len() && at + case.frames[whole].len() <= cut {
            at += case.frames[whole].len();
            whole += 1;
        }
        let (result, got) = run(&case, Bytes::copy_from_slice(&wire[..cut]), sizes, pipe, 97, None);
        let want = kept(&case, whole);
        prop_assert!(got == want, "{} bytes out, {} wanted", got.len(), want.len());
        if at == cut {
            check_tally(&result.unwrap(), &case, whole, &got);
        } else {
            let err = result.unwrap_err();
            let Failure::Read(FrameError::Truncated { .. }) = &err.failure else {
                panic!("expected a truncated stream, got {err}");
            };
            check_tally(&err.tally, &case, whole, &got);
        }
    }

    /// A graceful stop at any read: the downstream gets the kept frames of
    /// exactly the frames the tally counts, none torn, and the filter ends
    /// well.
    #[test]
    fn a_graceful_stop_forwards_the_kept_frames_of_what_it_counted(
        messages in proptest::collection::vec(message(), 1..40),
        judges in 1usize..=16,
        read_size in prop_oneof![1usize..16, 16usize..5_000],
        sizes in sizes(),
        stop_after in 0usize..200,
        pipe in 1usize..4_096,
    ) {
        let case = case(&messages, Judge::Decode, judges, &[true], read_size);
        let wire: Bytes = case.frames.concat().into();
        let (result, got) = run(&case, wire, sizes, pipe, 61, Some(stop_after));
        let tally = result.unwrap();
        let count = usize::try_from(tally.messages).unwrap();
        prop_assert!(count <= case.frames.len());
        let want = kept(&case, count);
        prop_assert!(got == want, "{} bytes out, {} wanted", got.len(), want.len());
        check_tally(&tally, &case, count, &got);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(scale::scaled(48)))]

    /// A downstream that fails after any number of bytes: what it took is
    /// a prefix of the kept frames, the filter fails with the write error,
    /// and the tally counts as written exactly the kept frames whose bytes
    /// it counts out, every other kept frame as unwritten.
    #[test]
    fn a_failing_downstream_is_told_apart_from_what_was_written(
        messages in proptest::collection::vec(message(), 1..40),
        judges in 1usize..=16,
        read_size in prop_oneof![1usize..16, 16usize..5_000, 5_000usize..300_000],
        sizes in sizes(),
        per_write in 1usize..3_000,
        limit in any::<prop::sample::Index>(),
    ) {
        let case = case(&messages, Judge::ForwardAll, judges, &[true], read_size);
        let wire: Bytes = case.frames.concat().into();
        let want = kept(&case, case.frames.len());
        let limit = limit.index(want.len() + 1);
        let got = Arc::new(Mutex::new(Vec::new()));
        let downstream = Failing { got: got.clone(), per_write, limit };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let result = runtime.block_on(async {
            let upstream = Trickle { wire, sizes, reads: 0, waited: false, stop: None };
            case.filter.run(upstream, downstream, &CancellationToken::new()).await
        });
        let got = got.lock().unwrap().clone();
        prop_assert!(want.starts_with(&got));
        let tally = match result {
            Ok(tally) => {
                prop_assert_eq!(got.len(), want.len());
                check_tally(&tally, &case, case.frames.len(), &got);
                return Ok(());
            }
            Err(err) => {
                prop_assert!(matches!(err.failure, Failure::Write(_)), "{}", err);
                err.tally
            }
        };
        prop_assert!(got.len() < want.len() || limit == want.len());
        prop_assert_eq!(tally.written() + tally.unwritten, tally.kept());
        let written = usize::try_from(tally.written()).unwrap();
        let bytes: usize = case.frames[..written].iter().map(Vec::len).sum();
        prop_assert_eq!(tally.bytes_out, bytes as u64);
        prop_assert!(tally.bytes_out <= got.len() as u64);
    }
}

/// Frames of the largest message size, with a budget of one such frame, a
/// read size smaller than a frame and several judges: no deadlock, every
/// frame out whole and in order.
#[test]
fn frames_of_the_largest_size_pass_a_budget_of_one_frame() {
    let pool = Pool::generate(5, 4, 32).unwrap();
    let policy = Policy::default();
    let mut frames = Vec::new();
    for (i, len) in [DEFAULT_MAX_MESSAGE, 10, DEFAULT_MAX_MESSAGE - 1, 3]
        .into_iter()
        .enumerate()
    {
        let mut message = pool.message(i as u64).to_vec();
        message.resize(len.max(message.len()), b' ');
        let mut frame = BytesMut::new();
        encode(&message, &mut frame).unwrap();
        assert!(frame.len() <= DEFAULT_MAX_MESSAGE + HEADER_LEN);
        frames.push(frame.to_vec());
    }
    for judges in [1, 3] {
        let case = Case {
            frames: frames.clone(),
            keep: vec![true; frames.len()],
            filter: Filter::new(Judge::ForwardAll, policy.clone())
                .with_judges(judges)
                .with_read_size(100_000)
                .with_in_flight(0),
        };
        assert_eq!(case.filter.in_flight(), DEFAULT_MAX_MESSAGE + HEADER_LEN);
        let wire: Bytes = case.frames.concat().into();
        let (result, got) = run(&case, wire, vec![65_536, 3, 300_000], 8_192, 50_000, None);
        let tally = result.unwrap();
        let want = kept(&case, case.frames.len());
        assert!(got == want, "{judges} judges: {} bytes out", got.len());
        check_tally(&tally, &case, case.frames.len(), &got);
    }
}
