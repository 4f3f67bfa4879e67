//! What the proxy's tests use again and again: the calls a tally counted,
//! upstream response bodies (scripted chunks and an end; one chunk and then
//! nothing), OK trailers, a compressed frame, an h2c client made by hand,
//! and what the proxy answers a socket before it closes it.

// Each test file that includes it uses what it needs.
#![allow(dead_code)]

use std::collections::VecDeque;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use http::{HeaderMap, HeaderValue};
use http_body::{Body, Frame};
use hyper::client::conn::http2::SendRequest;
use hyper_util::rt::{TokioExecutor, TokioIo};
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

/// A response body: chunks as given, each one DATA frame, then trailers, a
/// reset or nothing.
pub struct Scripted {
    pub chunks: VecDeque<Bytes>,
    pub end: End,
}

/// How a [`Scripted`] body ends.
#[derive(Clone)]
pub enum End {
    Trailers(HeaderMap),
    Reset(h2::Reason),
    Nothing,
}

impl End {
    /// `trailers`, or nothing.
    pub fn trailers_or_nothing(trailers: Option<HeaderMap>) -> End {
        trailers.map_or(End::Nothing, End::Trailers)
    }
}

impl Body for Scripted {
    type Data = Bytes;
    type Error = h2::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, h2::Error>>> {
        let this = self.get_mut();
        if let Some(chunk) = this.chunks.pop_front() {
            return Poll::Ready(Some(Ok(Frame::data(chunk))));
        }
        match std::mem::replace(&mut this.end, End::Nothing) {
            End::Trailers(trailers) => Poll::Ready(Some(Ok(Frame::trailers(trailers)))),
            End::Reset(reason) => Poll::Ready(Some(Err(h2::Error::from(reason)))),
            End::Nothing => Poll::Ready(None),
        }
    }

    /// True once no chunk and no trailers are left: hyper then puts
    /// END_STREAM on the last DATA frame, or on the response's HEADERS where
    /// there is none (a trailers-only response, in gRPC).
    fn is_end_stream(&self) -> bool {
        self.chunks.is_empty() && matches!(self.end, End::Nothing)
    }
}

/// Trailers with `grpc-status: 0`.
pub fn ok_trailers() -> HeaderMap {
    let mut trailers = HeaderMap::new();
    trailers.insert("grpc-status", HeaderValue::from_static("0"));
    trailers
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

/// An h2c client connection to `addr`, made by hand with hyper (no client
/// library's codec, deadline or keepalive in the way), for requests with a
/// body of type `B`; its connection task spawned.
pub async fn h2c_client<B>(addr: SocketAddr) -> SendRequest<B>
where
    B: Body<Data = Bytes> + Send + Unpin + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.set_nodelay(true).unwrap();
    let (sender, connection) = hyper::client::conn::http2::Builder::new(TokioExecutor::new())
        .handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(connection);
    sender
}

/// What the proxy writes to `tcp` until it closes it (within 5 s), as text:
/// its answer to a client that does not speak HTTP/2.
pub async fn answer_to_close(tcp: &mut tokio::net::TcpStream) -> String {
    use tokio::io::AsyncReadExt;
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), tcp.read_to_end(&mut answer))
        .await
        .expect("the proxy answers and closes")
        .unwrap();
    String::from_utf8_lossy(&answer).into_owned()
}
