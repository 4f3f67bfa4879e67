//! What the proxy's tests use again and again: the calls a tally counted,
//! an upstream response body that sends one chunk and then nothing, and a
//! compressed frame.

// Each test file that includes it uses what it needs.
#![allow(dead_code)]

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::{Bytes, BytesMut};
use http_body::{Body, Frame};
use triage::proxy::{CallEnd, Tally};

/// Asserts that `tally` counted `n` calls, each of them as `end`.
#[track_caller]
pub fn assert_calls(tally: &Tally, end: CallEnd, n: u64) {
    assert_eq!(tally.calls_ended(end), n, "{end:?}: {:?}", tally.calls);
    assert_eq!(tally.calls_total(), n, "{:?}", tally.calls);
}

/// A response body: one chunk (if any), then nothing, ever.
pub struct ThenSilent(pub Option<Bytes>);

impl Body for ThenSilent {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match self.get_mut().0.take() {
            Some(chunk) => Poll::Ready(Some(Ok(Frame::data(chunk)))),
            None => Poll::Pending,
        }
    }
}

/// `message` compressed as `encoding` (`gzip` or `deflate`), framed with
/// flag 1.
pub fn compressed_frame(encoding: &str, message: &[u8]) -> Bytes {
    use std::io::Write as _;
    let compressed = match encoding {
        "gzip" => {
            let mut encoder =
                flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            encoder.write_all(message).unwrap();
            encoder.finish().unwrap()
        }
        _ => {
            let mut encoder =
                flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
            encoder.write_all(message).unwrap();
            encoder.finish().unwrap()
        }
    };
    let mut frame = BytesMut::with_capacity(5 + compressed.len());
    frame.extend_from_slice(&[1]);
    frame.extend_from_slice(&(compressed.len() as u32).to_be_bytes());
    frame.extend_from_slice(&compressed);
    frame.freeze()
}
