//! What the benches share: one pool of the demo's messages (the same seed
//! and size as the demo's upstream), and the in-memory pipe.
// Each bench uses a part of this module.
#![allow(dead_code)]

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use optics_core::Json;
use tokio::io::{AsyncRead, ReadBuf};
use triage::frames::READ_SIZE;
use triage::model::{Detail, Issue};
use triage::pool::{Pool, MESSAGE_SIZE, SEED};

/// The demo's messages: `distinct` issues at the stream's size, from the
/// demo's seed, framed.
pub fn pool(distinct: usize) -> Pool {
    Pool::generate(SEED, MESSAGE_SIZE, distinct).expect("messages frame")
}

/// The first `count` messages of the demo's pool, without headers.
pub fn messages(count: usize) -> Vec<Bytes> {
    let pool = pool(count);
    (0..count as u64).map(|i| pool.message(i)).collect()
}

/// `count` incidents from the demo's messages, in order (about a third of
/// the messages are incidents).
pub fn incidents(count: usize) -> Vec<Bytes> {
    messages(count * 4)
        .into_iter()
        .filter(|m| {
            let issue: Issue = serde_json::from_slice(m).expect("the pool decodes");
            matches!(issue.detail, Detail::Incident(_))
        })
        .take(count)
        .collect()
}

/// An upstream that hands out a byte stream at most `READ_SIZE` bytes a read,
/// as a socket read into the filter's buffer would.
pub struct Pieces {
    pub bytes: Bytes,
}

impl AsyncRead for Pieces {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let n = self.bytes.len().min(buf.remaining()).min(READ_SIZE);
        let piece = self.bytes.split_to(n);
        buf.put_slice(&piece);
        Poll::Ready(Ok(()))
    }
}

/// The frames of the pool's first `count` messages, back to back.
pub fn stream_of(pool: &Pool, count: u64) -> Bytes {
    let mut stream = Vec::new();
    for i in 0..count {
        stream.extend_from_slice(&pool.frame(i));
    }
    Bytes::from(stream)
}

/// One run of the real filter from `stream`, in pieces, into a sink.
pub fn run_pipe(
    runtime: &tokio::runtime::Runtime,
    filter: &triage::filter::Filter,
    stream: &Bytes,
) -> triage::tally::Tally {
    runtime
        .block_on(filter.run(
            Pieces {
                bytes: stream.clone(),
            },
            tokio::io::sink(),
            &tokio_util::sync::CancellationToken::new(),
        ))
        .expect("the pipe runs")
}

/// Runs `filter` once over `stream` (the first `count` frames of `pool`)
/// into a downstream that digests what it receives, and checks that digest
/// against the frames serde_json's decode and the policy keep (every frame
/// for forward-all): a pipe that forwards too little, too much or the wrong
/// frames fails here, before it is timed.
///
/// # Panics
///
/// When the pipe fails or its output is not the expected frames.
pub fn check_pipe(
    runtime: &tokio::runtime::Runtime,
    filter: &triage::filter::Filter,
    pool: &Pool,
    count: u64,
    stream: &Bytes,
) {
    use triage::downstream::{self, Verify};
    let stop = tokio_util::sync::CancellationToken::new();
    let (to_downstream, from_filter) = tokio::io::duplex(1 << 20);
    let (tally, received) = runtime.block_on(async {
        let receiving = {
            let stop = stop.clone();
            tokio::spawn(
                async move { downstream::receive(from_filter, &Verify::Digest, &stop).await },
            )
        };
        let pieces = Pieces {
            bytes: stream.clone(),
        };
        let tally = filter
            .run(pieces, to_downstream, &stop)
            .await
            .expect("the pipe runs");
        let received = receiving
            .await
            .expect("the downstream runs")
            .expect("the downstream reads frames");
        (tally, received)
    });
    let reader = filter.reader();
    let want = downstream::expected(pool, count, reader, filter.policy(), filter.redacts())
        .expect("the expected frames");
    assert_eq!(tally.messages, count, "{reader}: every message judged");
    assert_eq!(
        received.digest, want,
        "{reader}: the pipe forwards exactly the frames serde_json and the policy keep"
    );
    assert_eq!(
        tally.kept(),
        want.frames,
        "{reader}: the tally's kept frames"
    );
}

/// The same message with its detail moved to the front.
pub fn detail_first(message: &[u8]) -> Vec<u8> {
    let detail = Json::<Issue>::new(message)
        .view(Issue::detail)
        .expect("a detail")
        .bytes();
    let start = detail.as_ptr() as usize - message.as_ptr() as usize;
    let end = start + detail.len();
    let key = b",\"detail\":";
    let member = start - key.len();
    assert_eq!(&message[member..start], key, "compact serde output");
    let mut out = Vec::with_capacity(message.len());
    out.extend_from_slice(b"{\"detail\":");
    out.extend_from_slice(detail);
    out.push(b',');
    out.extend_from_slice(&message[1..member]);
    out.extend_from_slice(&message[end..]);
    out
}
