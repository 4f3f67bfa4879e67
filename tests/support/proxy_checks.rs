//! What the proxy's tests check again and again: the calls a tally counted,
//! and an upstream response body that sends one chunk and then nothing.

// Each test file that includes it uses what it needs.
#![allow(dead_code)]

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
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
