//! The same filter written with tonic alone, as the baseline the HTTP/2
//! proxy is measured against: a tonic server whose `Subscribe` calls the
//! upstream with a tonic client, decodes every issue with the JSON codec,
//! judges its detail, and re-encodes the kept ones.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};

use futures_core::Stream;
use http::uri::PathAndQuery;
use tokio::net::TcpListener;
use tonic::client::Grpc as Client;
use tonic::server::{Grpc as Server, NamedService, ServerStreamingService};
use tonic::transport::server::TcpIncoming;
use tonic::transport::{Channel, Endpoint};
use tonic::{Status, Streaming};

use super::codec::{JsonCodec, JsonDecoder, JsonEncoder, PairCodec};
use super::{
    unimplemented, GrpcError, JsonContentType, Never, SubscribeRequest, SERVICE, SUBSCRIBE,
};
use crate::model::Issue;
use crate::policy::Policy;

/// The tonic-only proxy: one upstream channel, the policy.
#[derive(Clone, Debug)]
struct DecodeProxy {
    upstream: Channel,
    policy: Arc<Policy>,
}

impl NamedService for DecodeProxy {
    const NAME: &'static str = SERVICE;
}

impl tower_service::Service<http::Request<tonic::body::Body>> for DecodeProxy {
    type Response = http::Response<tonic::body::Body>;
    type Error = Never;
    type Future =
        Pin<Box<dyn Future<Output = Result<http::Response<tonic::body::Body>, Never>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Never>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<tonic::body::Body>) -> Self::Future {
        if request.uri().path() != SUBSCRIBE {
            let response = unimplemented(request.uri().path());
            return Box::pin(async move { Ok(response) });
        }
        let method = Forward(self.clone());
        Box::pin(async move {
            let codec = PairCodec::<JsonEncoder<Issue>, JsonDecoder<SubscribeRequest>>::default();
            Ok(Server::new(codec).server_streaming(method, request).await)
        })
    }
}

/// `Subscribe`: the same call upstream, then the kept issues.
struct Forward(DecodeProxy);

impl ServerStreamingService<SubscribeRequest> for Forward {
    type Response = Issue;
    type ResponseStream = Kept;
    type Future = Pin<Box<dyn Future<Output = Result<tonic::Response<Kept>, Status>> + Send>>;

    fn call(&mut self, request: tonic::Request<SubscribeRequest>) -> Self::Future {
        let proxy = self.0.clone();
        Box::pin(async move {
            let mut client = Client::new(JsonContentType(proxy.upstream));
            client
                .ready()
                .await
                .map_err(|err| Status::unavailable(format!("upstream: {err}")))?;
            let (metadata, _, message) = request.into_parts();
            let request = tonic::Request::from_parts(metadata, Default::default(), message);
            let codec = JsonCodec::<SubscribeRequest, Issue>::default();
            let response = client
                .server_streaming(request, PathAndQuery::from_static(SUBSCRIBE), codec)
                .await?;
            Ok(tonic::Response::new(Kept {
                issues: response.into_inner(),
                policy: proxy.policy,
            }))
        })
    }
}

/// The upstream's issues, decoded, that the policy keeps.
struct Kept {
    issues: Streaming<Issue>,
    policy: Arc<Policy>,
}

impl Stream for Kept {
    type Item = Result<Issue, Status>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            match ready!(Pin::new(&mut this.issues).poll_next(cx)) {
                Some(Ok(issue)) if !this.policy.keep(&issue.detail) => continue,
                other => return Poll::Ready(other),
            }
        }
    }
}

/// Serves the tonic-only decode proxy on `listener`, forwarding
/// `triage.Issues/Subscribe` to `upstream` (`http://HOST:PORT`, connected
/// on the first call) until `shutdown` completes.
///
/// Costs a full serde_json decode of every issue and a re-encode of every
/// kept one (about a hundred allocations a message): what the HTTP/2 proxy
/// avoids. Forwards request metadata; the upstream's trailing metadata is
/// not forwarded (tonic's server takes only a status from the stream).
///
/// # Errors
///
/// [`GrpcError::Address`] for a bad `upstream`, [`GrpcError::Transport`]
/// when tonic's server fails.
pub fn serve_decode_proxy(
    listener: TcpListener,
    upstream: &str,
    policy: Policy,
    shutdown: impl Future<Output = ()>,
) -> impl Future<Output = Result<(), GrpcError>> {
    // Parsed now, so that the future borrows nothing and can be spawned.
    let endpoint = Endpoint::from_shared(upstream.to_owned())
        .map_err(|err| GrpcError::Address(format!("`{upstream}`: {err}")));
    async move {
        let proxy = DecodeProxy {
            upstream: endpoint?.tcp_nodelay(true).connect_lazy(),
            policy: Arc::new(policy),
        };
        let incoming = TcpIncoming::from(listener).with_nodelay(Some(true));
        tonic::transport::Server::builder()
            .max_frame_size(crate::proxy::MAX_FRAME_SIZE)
            .serve_with_incoming_shutdown(JsonContentType(proxy), incoming, shutdown)
            .await?;
        Ok(())
    }
}
