//! The upstream: a tonic server of `triage.Issues` that streams issues from
//! a [`Pool`].

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use bytes::Bytes;
use futures_core::Stream;
use tokio::net::TcpListener;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use tonic::metadata::{MetadataMap, MetadataValue};
use tonic::server::{Grpc, NamedService, ServerStreamingService};
use tonic::transport::server::TcpIncoming;
use tonic::{Code, Status};

use super::codec::{JsonDecoder, PairCodec, RawEncoder};
use super::{
    unimplemented, GrpcError, JsonContentType, Never, SubscribeRequest, SERVICE, SUBSCRIBE,
};
use crate::pool::Pool;

/// How a `Subscribe` call ends once its issues are sent.
#[derive(Clone, Debug, Default)]
pub enum Ending {
    /// `grpc-status: 0`.
    #[default]
    Ok,
    /// This status, with these trailing metadata (ASCII keys and values).
    Status {
        /// The status code.
        code: Code,
        /// The status message.
        message: String,
        /// Custom trailing metadata.
        metadata: Vec<(String, String)>,
    },
    /// Nothing: the stream stays open, silent, until the call is cancelled.
    Stall,
}

/// What the upstream saw of its calls. Shared by every call; one atomic
/// increment per message sent.
#[derive(Debug, Default)]
pub struct CallLog {
    calls: AtomicU64,
    completed: AtomicU64,
    cancelled: AtomicU64,
    sent: AtomicU64,
    changed: Notify,
    last_request: Mutex<Option<http::HeaderMap>>,
}

impl CallLog {
    /// Calls started.
    pub fn calls(&self) -> u64 {
        self.calls.load(Ordering::SeqCst)
    }

    /// Calls whose stream went out whole.
    pub fn completed(&self) -> u64 {
        self.completed.load(Ordering::SeqCst)
    }

    /// Calls whose stream was dropped before its end: cancelled by the
    /// client (or the proxy), as the server sees it.
    pub fn cancelled(&self) -> u64 {
        self.cancelled.load(Ordering::SeqCst)
    }

    /// Messages handed to tonic to send, over all calls.
    pub fn sent(&self) -> u64 {
        self.sent.load(Ordering::SeqCst)
    }

    /// The request headers (metadata, `grpc-timeout` included) of the last
    /// call, as tonic's server received them.
    pub fn last_request(&self) -> Option<http::HeaderMap> {
        self.last_request
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Waits until `cancelled()` reaches `n`.
    pub async fn wait_cancelled(&self, n: u64) {
        loop {
            let changed = self.changed.notified();
            if self.cancelled() >= n {
                return;
            }
            changed.await;
        }
    }
}

/// The upstream service: streams `count` issues of the pool from `start`
/// for each `Subscribe`, then ends the call as its [`Ending`] says.
///
/// The pool's messages are sent through [`RawEncoder`]: exactly the bytes
/// serde_json wrote for each issue when the pool was built, copied once into
/// tonic's buffer, never re-serialized.
///
/// ```
/// use std::sync::{Arc, Mutex, PoisonError};
/// use triage::grpc::{Ending, Upstream};
/// use triage::pool::Pool;
///
/// let pool = Arc::new(Pool::generate(7, 7, 4).unwrap());
/// let upstream = Upstream::new(pool).ending(Ending::Stall);
/// assert_eq!(upstream.log().calls(), 0);
/// ```
#[derive(Clone, Debug)]
pub struct Upstream {
    pool: Arc<Pool>,
    ending: Ending,
    initial_metadata: Vec<(String, String)>,
    log: Arc<CallLog>,
    stop: Option<CancellationToken>,
}

impl Upstream {
    /// Streams from `pool`, ending every call with OK.
    pub fn new(pool: Arc<Pool>) -> Upstream {
        Upstream {
            pool,
            ending: Ending::Ok,
            initial_metadata: Vec::new(),
            log: Arc::new(CallLog::default()),
            stop: None,
        }
    }

    /// The same upstream, ending every call's stream at the next message
    /// once `stop` is cancelled (a server shutting down), with UNAVAILABLE
    /// and how many of the issues asked for it sent, so that a graceful
    /// stop does not wait for a call that asked for more issues than it
    /// will ever send. One atomic load a message.
    pub fn stopping_with(mut self, stop: CancellationToken) -> Upstream {
        self.stop = Some(stop);
        self
    }

    /// The same upstream, ending every call as `ending` says.
    pub fn ending(mut self, ending: Ending) -> Upstream {
        self.ending = ending;
        self
    }

    /// The same upstream, sending these metadata (ASCII keys and values)
    /// with every response's headers.
    pub fn initial_metadata(mut self, metadata: Vec<(String, String)>) -> Upstream {
        self.initial_metadata = metadata;
        self
    }

    /// What the upstream saw of its calls, shared.
    pub fn log(&self) -> &Arc<CallLog> {
        &self.log
    }
}

impl NamedService for Upstream {
    const NAME: &'static str = SERVICE;
}

impl tower_service::Service<http::Request<tonic::body::Body>> for Upstream {
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
        let method = Subscribe(self.clone());
        Box::pin(async move {
            let mut grpc =
                Grpc::new(PairCodec::<RawEncoder, JsonDecoder<SubscribeRequest>>::default());
            Ok(grpc.server_streaming(method, request).await)
        })
    }
}

/// The `Subscribe` method of an [`Upstream`].
struct Subscribe(Upstream);

impl ServerStreamingService<SubscribeRequest> for Subscribe {
    type Response = Bytes;
    type ResponseStream = PoolStream;
    type Future = std::future::Ready<Result<tonic::Response<PoolStream>, Status>>;

    fn call(&mut self, request: tonic::Request<SubscribeRequest>) -> Self::Future {
        let upstream = &self.0;
        let SubscribeRequest { count, start } = *request.get_ref();
        upstream.log.calls.fetch_add(1, Ordering::SeqCst);
        *upstream
            .log
            .last_request
            .lock()
            .unwrap_or_else(PoisonError::into_inner) =
            Some(request.metadata().clone().into_headers());
        let mut response = tonic::Response::new(PoolStream {
            pool: upstream.pool.clone(),
            next: start,
            end: start.saturating_add(count),
            ending: Some(upstream.ending.clone()),
            log: upstream.log.clone(),
            stop: upstream.stop.clone(),
            start,
            done: false,
        });
        *response.metadata_mut() = metadata(&upstream.initial_metadata);
        std::future::ready(Ok(response))
    }
}

/// A call's stream of issues; counts itself cancelled when dropped early.
struct PoolStream {
    pool: Arc<Pool>,
    next: u64,
    end: u64,
    ending: Option<Ending>,
    log: Arc<CallLog>,
    /// Once cancelled, the stream ends at its next message.
    stop: Option<CancellationToken>,
    /// The first issue's number, to say how many were sent.
    start: u64,
    done: bool,
}

impl Stream for PoolStream {
    type Item = Result<Bytes, Status>;

    fn poll_next(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if !this.done
            && this
                .stop
                .as_ref()
                .is_some_and(CancellationToken::is_cancelled)
        {
            this.finish();
            let message = format!(
                "upstream: stopping; the stream ends after {} of the {} issues asked for",
                this.next - this.start,
                this.end - this.start
            );
            return Poll::Ready(Some(Err(Status::unavailable(message))));
        }
        if this.next < this.end {
            let message = this.pool.message(this.next);
            this.next += 1;
            this.log.sent.fetch_add(1, Ordering::Relaxed);
            return Poll::Ready(Some(Ok(message)));
        }
        match this.ending.take() {
            None | Some(Ending::Ok) => {
                this.finish();
                Poll::Ready(None)
            }
            Some(Ending::Status {
                code,
                message,
                metadata,
            }) => {
                this.finish();
                Poll::Ready(Some(Err(status(code, message, &metadata))))
            }
            Some(Ending::Stall) => {
                // Never woken: the call ends when the client cancels it.
                this.ending = Some(Ending::Stall);
                Poll::Pending
            }
        }
    }
}

impl PoolStream {
    fn finish(&mut self) {
        if !self.done {
            self.done = true;
            self.log.completed.fetch_add(1, Ordering::SeqCst);
            self.log.changed.notify_waiters();
        }
    }
}

impl Drop for PoolStream {
    fn drop(&mut self) {
        if !self.done {
            self.log.cancelled.fetch_add(1, Ordering::SeqCst);
            self.log.changed.notify_waiters();
        }
    }
}

/// A status with custom metadata.
fn status(code: Code, message: String, pairs: &[(String, String)]) -> Status {
    Status::with_metadata(code, message, metadata(pairs))
}

/// Metadata from pairs; pairs that are not valid ASCII metadata are left
/// out.
fn metadata(pairs: &[(String, String)]) -> MetadataMap {
    let mut map = MetadataMap::new();
    for (key, value) in pairs {
        if let (Ok(key), Ok(value)) = (
            key.parse::<tonic::metadata::AsciiMetadataKey>(),
            value.parse::<MetadataValue<tonic::metadata::Ascii>>(),
        ) {
            map.insert(key, value);
        }
    }
    map
}

/// Serves `upstream` (the `triage.Issues` service) with tonic on `listener`
/// until `shutdown` completes, then waits for the calls in flight. Every
/// call is answered with `content-type: application/grpc+json`.
///
/// # Errors
///
/// [`GrpcError::Transport`] when tonic's server fails.
///
/// ```no_run
/// use std::sync::{Arc, Mutex, PoisonError};
/// use triage::grpc::{serve_upstream, Upstream};
/// use triage::pool::Pool;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:50052").await?;
/// let pool = Arc::new(Pool::generate(7, 7, 1024)?);
/// serve_upstream(listener, Upstream::new(pool), async { let _ = tokio::signal::ctrl_c().await; }).await?;
/// # Ok(()) }
/// ```
pub async fn serve_upstream(
    listener: TcpListener,
    upstream: Upstream,
    shutdown: impl Future<Output = ()>,
) -> Result<(), GrpcError> {
    let incoming = TcpIncoming::from(listener).with_nodelay(Some(true));
    tonic::transport::Server::builder()
        .max_frame_size(crate::proxy::MAX_FRAME_SIZE)
        .serve_with_incoming_shutdown(JsonContentType(upstream), incoming, shutdown)
        .await?;
    Ok(())
}
