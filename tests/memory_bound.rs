//! The filter's memory bound, measured: with 4 MiB kept frames and a slow
//! downstream, the bytes the filter holds at its worst stay under the bound
//! `triage::filter` states (its own test binary, so the counting allocator
//! sees only this stream).

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncReadExt, ReadBuf};
use tokio_util::sync::CancellationToken;
use triage::filter::{memory_bound, Filter};
use triage::frames::{encode, DEFAULT_MAX_MESSAGE, HEADER_LEN};
use triage::generate::{Gen, Generate};
use triage::judge::Judge;
use triage::model::Issue;
use triage::policy::Policy;

#[global_allocator]
static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;

/// An upstream that hands out `bytes` 64 KiB a read, as a socket would.
struct Upstream(Bytes);

impl AsyncRead for Upstream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let n = self.0.len().min(buf.remaining()).min(64 * 1024);
        let piece = self.0.split_to(n);
        buf.put_slice(&piece);
        Poll::Ready(Ok(()))
    }
}

/// A kept issue whose message is as large as a frame may be (within 64
/// bytes of the 4 MiB limit).
fn largest_kept_message() -> Vec<u8> {
    let policy = Policy::default();
    let mut g = Gen::new(31, 7);
    let mut issue = std::iter::repeat_with(|| Issue::generate(&mut g))
        .find(|issue| policy.keep(&issue.detail))
        .unwrap();
    issue.description.clear();
    let room = DEFAULT_MAX_MESSAGE - issue.to_json().len() - 64;
    issue.description = "x".repeat(room);
    let message = issue.to_json();
    assert!(message.len() <= DEFAULT_MAX_MESSAGE && message.len() > DEFAULT_MAX_MESSAGE - 128);
    message
}

/// The tests of this binary one at a time: the counting allocator's peak
/// is the process's.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Runs `filter` from `wire` into a slow downstream (64 KiB a millisecond
/// at most); returns the tally, the bytes received, and the most bytes the
/// process held beyond what it held before the run.
fn peak_through(filter: &Filter, wire: Bytes) -> (triage::tally::Tally, u64, u64) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (out, mut downstream) = tokio::io::duplex(64 * 1024);
        let reading = tokio::spawn(async move {
            // A slow reader, counting only.
            let mut buf = vec![0u8; 64 * 1024];
            let mut got = 0u64;
            loop {
                let n = downstream.read(&mut buf).await.unwrap();
                if n == 0 {
                    return got;
                }
                got += n as u64;
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
        });
        tokio::time::sleep(Duration::from_millis(10)).await;
        let before = alloc_counter::live_bytes();
        alloc_counter::reset_peak();
        let tally = filter
            .run(Upstream(wire), out, &CancellationToken::new())
            .await
            .unwrap();
        let peak = alloc_counter::peak_bytes() - before;
        (tally, reading.await.unwrap(), peak)
    })
}

#[test]
fn four_mib_frames_and_a_slow_downstream_stay_within_the_stated_bound() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|err| err.into_inner());
    let message = largest_kept_message();
    let frames = 24;
    let mut wire = bytes::BytesMut::new();
    for _ in 0..frames {
        encode(&message, &mut wire).unwrap();
    }
    let wire = wire.freeze();
    let frame_len = (message.len() + HEADER_LEN) as u64;
    let filter = Filter::new(Judge::Optics, Policy::default());
    let (tally, received, peak) = peak_through(&filter, wire);
    assert_eq!(tally.kept(), frames);
    assert_eq!(received, frames * frame_len);
    let bound = memory_bound(filter.in_flight(), DEFAULT_MAX_MESSAGE);
    eprintln!(
        "4 MiB frames: the filter held at most {peak} bytes ({:.1} frames); the stated bound is {bound} bytes",
        peak as f64 / frame_len as f64
    );
    assert!(
        peak <= bound,
        "held {peak} bytes at its worst, over the stated bound of {bound}"
    );
    // Far less than the stream: back-pressure held the upstream.
    assert!(peak < frames * frame_len / 4);
}

/// Frames of the largest size between small ones: each large frame
/// straddles many reads, so the read buffer doubles past it (4 MiB to
/// 8 MiB) and the frame in flight holds that whole buffer. `budget` 0 is
/// the smallest budget, one such frame.
fn largest_frames_between_small_ones(budget: usize) {
    let mut wire = bytes::BytesMut::new();
    let mut frames = 0;
    for i in 0..10 {
        let len = if i % 2 == 0 { DEFAULT_MAX_MESSAGE } else { 100 };
        encode(&vec![b' '; len], &mut wire).unwrap();
        frames += 1;
    }
    let wire = wire.freeze();
    for judges in [1, 4] {
        let filter = Filter::new(Judge::ForwardAll, Policy::default())
            .with_judges(judges)
            .with_in_flight(budget);
        let (tally, received, peak) = peak_through(&filter, wire.clone());
        assert_eq!(tally.kept(), frames);
        assert_eq!(received, wire.len() as u64);
        let bound = memory_bound(filter.in_flight(), DEFAULT_MAX_MESSAGE);
        eprintln!(
            "budget {}, {judges} judges: held at most {peak} bytes; the stated bound is {bound}",
            filter.in_flight()
        );
        assert!(
            peak <= bound,
            "budget {}, {judges} judges: held {peak} bytes at its worst, over the stated bound of {bound}",
            filter.in_flight()
        );
    }
}

/// The default budget: two such frames do not fit, so one is in flight at
/// a time, and the bound holds (about 21.0 MB held against 22.8 MB).
#[test]
fn largest_frames_between_small_ones_stay_within_the_default_bound() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|err| err.into_inner());
    largest_frames_between_small_ones(triage::filter::MAX_IN_FLIGHT);
}

/// The smallest budget, one frame of the largest size. Nothing deadlocks,
/// every frame is forwarded, and the bound holds: a frame that straddled
/// reads holds a read buffer of its own size (`FrameDecoder::make_room`;
/// it held one of twice that, 21.0 MB in all against the 18.6 MB bound).
#[test]
fn a_budget_of_one_largest_frame_stays_within_its_bound() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|err| err.into_inner());
    largest_frames_between_small_ones(0);
}
