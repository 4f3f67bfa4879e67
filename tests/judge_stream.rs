//! `judge` reads its input as it comes (`judge_stream`): a stream longer
//! than memory would hold is judged in the memory of one read and one
//! frame, the verdicts are those of the same bytes judged whole
//! (`judge_bytes`), and a read that fails ends the stream with the frame it
//! failed in named.

use std::io::{self, Read};

use bytes::BytesMut;
use triage::frames::{FrameError, READ_SIZE};
use triage::judge::{judge_bytes, judge_stream, Judged};
use triage::policy::Policy;
use triage::pool::{Pool, MESSAGE_SIZE, SEED};

#[global_allocator]
static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;

/// The tests of this binary one at a time: the counting allocator's peak
/// is the process's.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The pool's frames, one after another, `count` of them, handed out `step`
/// bytes a read; then, with `fail`, a read error instead of the end.
struct Frames {
    pool: Pool,
    count: u64,
    next: u64,
    frame: bytes::Bytes,
    at: usize,
    step: usize,
    fail: bool,
}

impl Frames {
    fn new(pool: &Pool, count: u64, step: usize) -> Frames {
        Frames {
            pool: pool.clone(),
            count,
            next: 0,
            frame: bytes::Bytes::new(),
            at: 0,
            step,
            fail: false,
        }
    }
}

impl Read for Frames {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.at == self.frame.len() {
            if self.next == self.count {
                return match self.fail {
                    true => Err(io::Error::other("the disk went away")),
                    false => Ok(0),
                };
            }
            self.frame = self.pool.frame(self.next);
            self.next += 1;
            self.at = 0;
        }
        let n = buf.len().min(self.step).min(self.frame.len() - self.at);
        buf[..n].copy_from_slice(&self.frame[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

fn pool() -> Pool {
    Pool::generate(SEED, MESSAGE_SIZE, 64).unwrap()
}

/// What two judgings must share: every count, and the error's text.
fn summary(judged: &Judged) -> String {
    format!(
        "{} {:?} {} {:?} {:?} {:?}",
        judged.optics.messages,
        judged.optics.by_kind,
        judged.decode.messages,
        judged.decode.by_kind,
        judged.disagreements.len(),
        judged.error.as_ref().map(ToString::to_string)
    )
}

#[test]
fn a_long_stream_is_judged_in_the_memory_of_a_read_and_a_frame() {
    let _one = one_at_a_time();
    let pool = pool();
    // About 26 MB of frames, in reads of at most 40,000 bytes.
    let count = 6_000;
    let before = alloc_counter::live_bytes();
    alloc_counter::reset_peak();
    let judged = judge_stream(Frames::new(&pool, count, 40_000), &Policy::default());
    let peak = alloc_counter::peak_bytes().saturating_sub(before);
    assert!(judged.error.is_none(), "{:?}", judged.error);
    assert_eq!(judged.optics.messages, count);
    assert_eq!(judged.decode.messages, count);
    assert!(judged.disagreements.is_empty());
    let wire = pool.wire_len(count);
    assert!(wire > 20_000_000, "{wire}");
    // A read's room twice over, and the frames in flight: far below the
    // stream.
    assert!(
        peak < 4 * READ_SIZE as u64,
        "peak {peak} bytes for a stream of {wire}"
    );
}

#[test]
fn reads_of_any_size_judge_as_the_bytes_judged_whole() {
    let _one = one_at_a_time();
    let pool = pool();
    let mut whole = BytesMut::new();
    for i in 0..40 {
        whole.extend_from_slice(&pool.frame(i));
    }
    // The stream ends inside a frame's message: a framing error after the
    // frames before it.
    whole.truncate(whole.len() - 100);
    let expected = judge_bytes(whole.clone(), &Policy::default());
    assert!(
        matches!(
            expected.error,
            Some(FrameError::Truncated { index: 39, .. })
        ),
        "{:?}",
        expected.error
    );
    for step in [1, 5, 4_096, READ_SIZE] {
        let judged = judge_stream(&mut Steps(&whole[..], step), &Policy::default());
        assert_eq!(
            summary(&judged),
            summary(&expected),
            "reads of {step} bytes"
        );
    }
}

/// Bytes handed out at most `.1` a read.
struct Steps<'a>(&'a [u8], usize);

impl Read for Steps<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(self.1).min(self.0.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

#[test]
fn a_read_that_fails_names_the_frame_it_failed_in() {
    let _one = one_at_a_time();
    let pool = pool();
    // Between frames: the error as it came, after the three frames.
    let mut between = Frames::new(&pool, 3, 1_000);
    between.fail = true;
    let judged = judge_stream(between, &Policy::default());
    assert_eq!(judged.optics.messages, 3);
    let error = judged.error.expect("the read error");
    assert!(matches!(error, FrameError::Io(_)), "{error:?}");
    assert!(error.to_string().contains("the disk went away"), "{error}");

    // Inside the fourth frame: its index and offset.
    let mut inside = Frames::new(&pool, 3, 1_000);
    let mut cut = pool.frame(3).to_vec();
    cut.truncate(20);
    let judged = judge_stream(
        io::Read::chain(&mut inside, &cut[..]).chain(Failing),
        &Policy::default(),
    );
    assert_eq!(judged.optics.messages, 3);
    let error = judged.error.expect("the read error");
    let offset = pool.wire_len(3);
    assert!(
        matches!(error, FrameError::ReadFailed { index: 3, offset: o, .. } if o == offset),
        "{error:?}"
    );
}

/// A reader whose every read fails.
struct Failing;

impl Read for Failing {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        Err(io::Error::other("the disk went away"))
    }
}
