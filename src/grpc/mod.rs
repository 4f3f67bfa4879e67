//! The demo's real gRPC peers, built with tonic: the `triage.Issues` service
//! (an upstream that streams issues), a client that subscribes to it, and,
//! as the baseline the proxy is measured against, a proxy written with
//! tonic alone that decodes every issue to judge it.
//!
//! ```text
//! service triage.Issues {
//!   rpc Subscribe(SubscribeRequest) returns (stream Issue);   // JSON, application/grpc+json
//! }
//! ```
//!
//! The messages are JSON (a codec over serde_json, see [`codec`]), and the
//! calls say so with `content-type: application/grpc+json`. The upstream
//! streams the [`Pool`](crate::pool::Pool)'s pre-serialized issues through a
//! pass-through encoder: they are exactly the bytes serde_json writes for
//! those issues, and re-serializing each one per call would measure the
//! upstream, not the proxy.

pub mod codec;
mod decode_proxy;
mod downstream;
mod upstream;

use std::convert::Infallible;
use std::fmt;
use std::task::{Context, Poll};

use http::header::{HeaderValue, CONTENT_TYPE};
use serde::{Deserialize, Serialize};

pub use self::decode_proxy::serve_decode_proxy;
pub use self::downstream::{connect, subscribe, subscribe_on, Received};
pub use self::upstream::{serve_upstream, CallLog, Ending, Upstream};

/// The service's full name.
pub const SERVICE: &str = "triage.Issues";

/// The path of the `Subscribe` method.
pub const SUBSCRIBE: &str = "/triage.Issues/Subscribe";

/// The content type of the demo's calls: gRPC with JSON messages.
pub const GRPC_JSON: HeaderValue = HeaderValue::from_static("application/grpc+json");

/// What a subscriber asks for: `count` issues, starting at the pool's
/// `start`-th (so that concurrent calls can ask for different streams).
///
/// ```
/// use triage::grpc::SubscribeRequest;
///
/// let request: SubscribeRequest = serde_json::from_str(r#"{"count":3}"#).unwrap();
/// assert_eq!(request, SubscribeRequest { count: 3, start: 0 });
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubscribeRequest {
    /// How many issues to stream.
    pub count: u64,
    /// The index in the pool of the first one (the pool cycles).
    #[serde(default)]
    pub start: u64,
}

/// A tower service wrapper that sets `content-type: application/grpc+json`
/// on every request or response passing through it: tonic writes
/// `application/grpc` itself, whatever the codec. O(1) per call.
#[derive(Clone, Debug)]
pub struct JsonContentType<S>(pub S);

impl<S, B, R> tower_service::Service<http::Request<B>> for JsonContentType<S>
where
    S: tower_service::Service<http::Request<B>, Response = http::Response<R>>,
    S::Future: Send + 'static,
    R: 'static,
    S::Error: 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = std::pin::Pin<
        Box<dyn std::future::Future<Output = Result<S::Response, S::Error>> + Send + 'static>,
    >;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, mut request: http::Request<B>) -> Self::Future {
        request.headers_mut().insert(CONTENT_TYPE, GRPC_JSON);
        let response = self.0.call(request);
        Box::pin(async move {
            let mut response = response.await?;
            if response.headers().contains_key(CONTENT_TYPE) {
                response.headers_mut().insert(CONTENT_TYPE, GRPC_JSON);
            }
            Ok(response)
        })
    }
}

impl<S: tonic::server::NamedService> tonic::server::NamedService for JsonContentType<S> {
    const NAME: &'static str = S::NAME;
}

/// Why a peer could not run.
#[derive(Debug)]
pub enum GrpcError {
    /// The address is not a URI tonic can connect to.
    Address(String),
    /// Connecting to `uri` failed.
    Connect {
        /// Where.
        uri: String,
        /// Why: tonic's error, whose causes say what happened.
        err: tonic::transport::Error,
    },
    /// Serving or a call's transport failed.
    Transport(tonic::transport::Error),
}

impl fmt::Display for GrpcError {
    /// The error and its causes, since tonic's own text is only "transport
    /// error": `connecting to `http://127.0.0.1:1`: transport error:
    /// tcp connect error: Connection refused (os error 111)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GrpcError::Address(why) => write!(f, "address {why}"),
            GrpcError::Connect { uri, err } => {
                write!(f, "connecting to `{uri}`: ")?;
                write_chain(f, err)
            }
            GrpcError::Transport(err) => {
                f.write_str("transport: ")?;
                write_chain(f, err)
            }
        }
    }
}

/// Writes `err` and each of its causes, `: ` between them, leaving out a
/// cause whose text the one before already ends with (hyper and tonic
/// often repeat it).
fn write_chain(f: &mut fmt::Formatter<'_>, err: &dyn std::error::Error) -> fmt::Result {
    let mut last = err.to_string();
    f.write_str(&last)?;
    let mut source = err.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !last.ends_with(&text) {
            write!(f, ": {text}")?;
        }
        last = text;
        source = cause.source();
    }
    Ok(())
}

impl std::error::Error for GrpcError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            GrpcError::Address(_) => None,
            GrpcError::Connect { err, .. } | GrpcError::Transport(err) => Some(err),
        }
    }
}

impl From<tonic::transport::Error> for GrpcError {
    fn from(err: tonic::transport::Error) -> GrpcError {
        GrpcError::Transport(err)
    }
}

/// A response for a path the service does not have.
fn unimplemented<B: Default>(path: &str) -> http::Response<B> {
    tonic::Status::unimplemented(format!("no method {path} in {SERVICE}")).into_http()
}

/// Never fails: the services answer every call with a response.
type Never = Infallible;
