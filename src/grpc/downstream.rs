//! The downstream: a tonic client that subscribes to `triage.Issues` and keeps
//! every message it receives, byte for byte.

use std::future::Future;
use std::time::Instant;

use bytes::Bytes;
use http::uri::PathAndQuery;
use tonic::client::Grpc;
use tonic::metadata::MetadataMap;
use tonic::transport::{Channel, Endpoint};
use tonic::{Code, Status};

use super::codec::{JsonEncoder, PairCodec, RawDecoder};
use super::{GrpcError, JsonContentType, SubscribeRequest, SUBSCRIBE};
use crate::frames::HEADER_LEN;
use crate::model::Issue;
// The downstream's check and digest are the TCP demo's, so the report reads
// the same.
use crate::downstream::{Check, Digest, StreamDigest};
use crate::policy::Policy;

/// What a subscriber received: every message, in order, as it arrived, and
/// how the call ended.
///
/// Holds the messages in memory (views of tonic's buffers), so memory is the
/// size of the stream received.
#[derive(Debug)]
pub struct Received {
    /// The messages, without their frame headers.
    pub messages: Vec<Bytes>,
    /// Bytes received as frames, headers included.
    pub bytes: u64,
    /// When the call was made.
    pub started: Instant,
    /// When the call ended.
    pub ended: Instant,
    /// The response's headers (initial metadata; empty when the call failed
    /// before them).
    pub headers: MetadataMap,
    /// How it ended: `Code::Ok` with an empty message when it went well.
    pub status: Status,
    /// The trailing metadata (for an error status, also in `status`).
    pub trailers: MetadataMap,
}

impl Received {
    /// Whether the call ended with OK.
    pub fn is_ok(&self) -> bool {
        self.status.code() == Code::Ok
    }

    /// Decodes every message as an [`Issue`] as the filter's full decode
    /// does ([`checked::from_slice`](crate::checked::from_slice)) and asks
    /// the policy about its detail, as the TCP demo's downstream does.
    /// O(total bytes): a full decode per message.
    pub fn check(&self, policy: &Policy) -> Check {
        let mut check = Check::default();
        for message in &self.messages {
            if let Ok(issue) = crate::checked::from_slice::<Issue>(message) {
                check.decoded += 1;
                check.kept += u64::from(policy.keep(&issue.detail));
            }
        }
        check
    }

    /// The digest of the messages received, each framed as it travelled
    /// (an uncompressed frame's header, then the message), so that it
    /// compares with the TCP downstream's and with
    /// [`downstream::expected`](crate::downstream::expected). O(total bytes).
    pub fn digest(&self) -> StreamDigest {
        let mut digest = Digest::default();
        let mut frame = Vec::new();
        for message in &self.messages {
            frame.clear();
            frame.push(0);
            frame.extend_from_slice(&(message.len() as u32).to_be_bytes());
            frame.extend_from_slice(message);
            digest.add(&frame);
        }
        digest.finish()
    }
}

/// Opens a channel (one HTTP/2 connection, h2c) to `uri`
/// (`http://HOST:PORT`). Calls made on clones of it share the connection.
///
/// # Errors
///
/// [`GrpcError::Address`] for a URI tonic cannot use,
/// [`GrpcError::Connect`] when connecting fails, with the URI and why.
pub fn connect(uri: &str) -> impl Future<Output = Result<Channel, GrpcError>> {
    // Parsed now, so that the future borrows nothing and can be spawned.
    let endpoint = Endpoint::from_shared(uri.to_owned())
        .map_err(|err| GrpcError::Address(format!("`{uri}`: {err}")));
    let uri = uri.to_owned();
    async move {
        let endpoint = endpoint?.tcp_nodelay(true);
        endpoint
            .connect()
            .await
            .map_err(|err| GrpcError::Connect { uri, err })
    }
}

/// Subscribes to `count` issues at `uri` on a new connection and receives
/// them all. See [`subscribe_on`].
///
/// # Errors
///
/// As [`connect`]. A call that ends with an error status is not an error
/// here: the status is in [`Received::status`], after the messages that
/// came before it.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let received = triage::grpc::subscribe("http://127.0.0.1:50051", 1000).await?;
/// println!("{} messages, {}", received.messages.len(), received.status.code());
/// # Ok(()) }
/// ```
pub fn subscribe(uri: &str, count: u64) -> impl Future<Output = Result<Received, GrpcError>> {
    let channel = connect(uri);
    async move {
        let request = tonic::Request::new(SubscribeRequest { count, start: 0 });
        Ok(subscribe_on(channel.await?, request).await)
    }
}

/// Makes one `Subscribe` call on `channel` with `request` (its metadata,
/// `grpc-timeout` included, go out as headers) and receives every message
/// until the call ends, keeping each as the bytes it arrived as (one view of
/// tonic's buffer per message, nothing parsed).
pub async fn subscribe_on(channel: Channel, request: tonic::Request<SubscribeRequest>) -> Received {
    let started = Instant::now();
    let mut messages = Vec::new();
    let mut bytes = 0u64;
    let mut client = Grpc::new(JsonContentType(channel));
    let codec = PairCodec::<JsonEncoder<SubscribeRequest>, RawDecoder>::default();
    let path = PathAndQuery::from_static(SUBSCRIBE);
    let mut headers = MetadataMap::new();
    let ended = |headers, status: Status, trailers, messages, bytes| Received {
        messages,
        bytes,
        started,
        ended: Instant::now(),
        headers,
        status,
        trailers,
    };
    if let Err(err) = client.ready().await {
        let status = Status::unavailable(format!("channel not ready: {err}"));
        return ended(headers, status, MetadataMap::new(), messages, bytes);
    }
    let mut stream = match client.server_streaming(request, path, codec).await {
        Ok(response) => {
            let (metadata, stream, _) = response.into_parts();
            headers = metadata;
            stream
        }
        Err(status) => {
            let trailers = status.metadata().clone();
            return ended(headers, status, trailers, messages, bytes);
        }
    };
    loop {
        match stream.message().await {
            Ok(Some(message)) => {
                bytes += (HEADER_LEN + message.len()) as u64;
                messages.push(message);
            }
            Ok(None) => {
                let (status, trailers) = match stream.trailers().await {
                    Ok(trailers) => (Status::new(Code::Ok, ""), trailers.unwrap_or_default()),
                    Err(status) => {
                        let trailers = status.metadata().clone();
                        (status, trailers)
                    }
                };
                return ended(headers, status, trailers, messages, bytes);
            }
            Err(status) => {
                let trailers = status.metadata().clone();
                return ended(headers, status, trailers, messages, bytes);
            }
        }
    }
}
