//! Every kind of gRPC call through the proxy, between a real tonic server
//! and a real tonic client on 127.0.0.1: unary, client streaming, server
//! streaming and bidi, each held to the same call made directly.

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures_core::Stream;
use http::uri::PathAndQuery;
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tonic::codegen::{BoxFuture, Service};
use tonic::metadata::{MetadataMap, MetadataValue};
use tonic::server::{Grpc, NamedService};
use tonic::transport::server::TcpIncoming;
use tonic::transport::Channel;
use tonic::{Code, Status, Streaming};
use triage::grpc::codec::{PairCodec, RawDecoder, RawEncoder};
use triage::judge::Judge;
use triage::model::Issue;
use triage::policy::Policy;
use triage::pool::Pool;
use triage::proxy::{Proxy, Tally};

const SECOND: Duration = Duration::from_secs(1);

type Raw = PairCodec<RawEncoder, RawDecoder>;

fn pool() -> Arc<Pool> {
    Arc::new(Pool::generate(7, 7, 256).expect("messages frame"))
}

/// The oracle: decode with serde_json and ask the policy.
fn keeps(message: &[u8]) -> bool {
    serde_json::from_slice::<Issue>(message)
        .is_ok_and(|issue| Policy::default().keep(&issue.detail))
}

/// The status every `Fail` call ends with: a message that needs
/// percent-encoding and binary trailing metadata.
fn failure() -> Status {
    let mut metadata = MetadataMap::new();
    metadata.insert("x-reason", MetadataValue::from_static("quota"));
    metadata.insert_bin(
        "x-detail-bin",
        MetadataValue::from_bytes(&[0, 1, 2, 0xff, b'\n']),
    );
    Status::with_metadata(
        Code::FailedPrecondition,
        "quota at 100% for tenant ñ\nretry later",
        metadata,
    )
}

/// The test service `test.Echo`:
/// - `Unary`: answers the request message;
/// - `Collect` (client streaming): answers the last message it received;
/// - `Bidi`: answers each message as it arrives;
/// - `Fail` (unary): [`failure`], before any message (trailers-only).
#[derive(Clone)]
struct Echo;

impl NamedService for Echo {
    const NAME: &'static str = "test.Echo";
}

impl Service<http::Request<tonic::body::Body>> for Echo {
    type Response = http::Response<tonic::body::Body>;
    type Error = std::convert::Infallible;
    type Future = BoxFuture<Self::Response, Self::Error>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<tonic::body::Body>) -> Self::Future {
        Box::pin(async move {
            let mut grpc = Grpc::new(Raw::default());
            Ok(match request.uri().path() {
                "/test.Echo/Unary" => grpc.unary(Unary, request).await,
                "/test.Echo/Fail" => grpc.unary(Fail, request).await,
                "/test.Echo/Collect" => grpc.client_streaming(Collect, request).await,
                "/test.Echo/First3" => grpc.streaming(Bidi(Some(3)), request).await,
                _ => grpc.streaming(Bidi(None), request).await,
            })
        })
    }
}

struct Unary;

impl Service<tonic::Request<Bytes>> for Unary {
    type Response = tonic::Response<Bytes>;
    type Error = Status;
    type Future = std::future::Ready<Result<Self::Response, Status>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Status>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: tonic::Request<Bytes>) -> Self::Future {
        std::future::ready(Ok(tonic::Response::new(request.into_inner())))
    }
}

struct Fail;

impl Service<tonic::Request<Bytes>> for Fail {
    type Response = tonic::Response<Bytes>;
    type Error = Status;
    type Future = std::future::Ready<Result<Self::Response, Status>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Status>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _: tonic::Request<Bytes>) -> Self::Future {
        std::future::ready(Err(failure()))
    }
}

struct Collect;

impl Service<tonic::Request<Streaming<Bytes>>> for Collect {
    type Response = tonic::Response<Bytes>;
    type Error = Status;
    type Future = BoxFuture<Self::Response, Status>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Status>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: tonic::Request<Streaming<Bytes>>) -> Self::Future {
        Box::pin(async move {
            let mut stream = request.into_inner();
            let mut last = Bytes::new();
            while let Some(message) = stream.message().await? {
                last = message;
            }
            Ok(tonic::Response::new(last))
        })
    }
}

/// Echoes each message; after this many, if given, ends the call OK while
/// the client may still be sending.
struct Bidi(Option<usize>);

/// The messages of a call's request stream, as they arrive, up to a count.
struct EchoStream(Streaming<Bytes>, Option<usize>);

impl Stream for EchoStream {
    type Item = Result<Bytes, Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.1 == Some(0) {
            return Poll::Ready(None);
        }
        let next = Pin::new(&mut self.0).poll_next(cx);
        if let (Poll::Ready(Some(_)), Some(left)) = (&next, &mut self.1) {
            *left -= 1;
        }
        next
    }
}

impl Service<tonic::Request<Streaming<Bytes>>> for Bidi {
    type Response = tonic::Response<EchoStream>;
    type Error = Status;
    type Future = std::future::Ready<Result<Self::Response, Status>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Status>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: tonic::Request<Streaming<Bytes>>) -> Self::Future {
        std::future::ready(Ok(tonic::Response::new(EchoStream(
            request.into_inner(),
            self.0,
        ))))
    }
}

/// The echo server and a proxy in front of it, on 127.0.0.1.
struct Peers {
    upstream: SocketAddr,
    proxy: SocketAddr,
    stop: CancellationToken,
    proxy_task: tokio::task::JoinHandle<Tally>,
    server_task: tokio::task::JoinHandle<()>,
}

impl Peers {
    async fn start(judge: Judge) -> Peers {
        let up = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let upstream = up.local_addr().unwrap();
        let down = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let proxy_addr = down.local_addr().unwrap();
        let stop = CancellationToken::new();
        let server_task = tokio::spawn({
            let stop = stop.clone();
            async move {
                tonic::transport::Server::builder()
                    .serve_with_incoming_shutdown(
                        Echo,
                        TcpIncoming::from(up),
                        stop.cancelled_owned(),
                    )
                    .await
                    .expect("the echo server serves");
            }
        });
        let proxy = Proxy::new(&format!("http://{upstream}"), judge, Policy::default()).unwrap();
        let proxy_task = tokio::spawn({
            let stop = stop.clone();
            async move { proxy.serve(down, stop.cancelled_owned()).await.unwrap() }
        });
        Peers {
            upstream,
            proxy: proxy_addr,
            stop,
            proxy_task,
            server_task,
        }
    }

    async fn stop(self) -> Tally {
        self.stop.cancel();
        let tally = tokio::time::timeout(10 * SECOND, self.proxy_task)
            .await
            .expect("the proxy stops")
            .unwrap();
        tokio::time::timeout(10 * SECOND, self.server_task)
            .await
            .expect("the server stops")
            .unwrap();
        tally
    }
}

async fn client(addr: SocketAddr) -> tonic::client::Grpc<Channel> {
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut client = tonic::client::Grpc::new(channel);
    client.ready().await.unwrap();
    client
}

/// What a unary call to `path` ended with: the message, or the status and
/// its trailing metadata.
async fn unary(addr: SocketAddr, path: &'static str, message: Bytes) -> Result<Bytes, Status> {
    let mut client = client(addr).await;
    client
        .unary(
            tonic::Request::new(message),
            PathAndQuery::from_static(path),
            Raw::default(),
        )
        .await
        .map(tonic::Response::into_inner)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unary_calls_answer_as_directly_kept_or_not() {
    let pool = pool();
    let peers = Peers::start(Judge::Optics).await;
    let (mut kept, mut dropped) = (0, 0);
    for i in 0..20 {
        let message = pool.message(i);
        let direct = unary(peers.upstream, "/test.Echo/Unary", message.clone()).await;
        assert_eq!(direct.as_ref().unwrap(), &message);
        let via = unary(peers.proxy, "/test.Echo/Unary", message.clone()).await;
        if keeps(&message) {
            kept += 1;
            assert_eq!(via.unwrap(), message, "{i}: kept, byte for byte");
        } else {
            dropped += 1;
            // A unary response whose one message was dropped: tonic's client
            // reads an OK status with no message as an error of its own.
            let status = via.unwrap_err();
            assert_eq!(status.code(), Code::Internal, "{i}: {status:?}");
            assert_eq!(status.message(), "Missing response message.");
        }
    }
    assert!(kept > 0 && dropped > 0);
    let tally = peers.stop().await;
    assert_eq!(tally.messages, 20);
    assert_eq!(tally.kept(), kept);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trailers_only_error_with_encoded_text_and_binary_metadata_arrives_unchanged() {
    let peers = Peers::start(Judge::Optics).await;
    let direct = unary(peers.upstream, "/test.Echo/Fail", Bytes::from_static(b"{}"))
        .await
        .unwrap_err();
    let via = unary(peers.proxy, "/test.Echo/Fail", Bytes::from_static(b"{}"))
        .await
        .unwrap_err();
    let want = failure();
    assert_eq!(direct.code(), want.code());
    assert_eq!(direct.message(), want.message());
    assert_eq!(via.code(), direct.code());
    assert_eq!(via.message(), direct.message());
    let detail = |status: &Status| {
        status
            .metadata()
            .get_bin("x-detail-bin")
            .expect("binary metadata")
            .to_bytes()
            .unwrap()
    };
    assert_eq!(detail(&via), detail(&direct));
    assert_eq!(&detail(&via)[..], &[0, 1, 2, 0xff, b'\n']);
    assert_eq!(via.metadata().get("x-reason").unwrap(), "quota");
    let tally = peers.stop().await;
    assert_eq!(tally.messages, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_stream_reaches_the_server_whole_and_its_answer_is_judged() {
    let pool = pool();
    let peers = Peers::start(Judge::Optics).await;
    // Ends on a kept message, then on a dropped one.
    let kept_at = (0..).find(|&i| keeps(&pool.message(i))).unwrap();
    let dropped_at = (0..).find(|&i| !keeps(&pool.message(i))).unwrap();
    for last in [kept_at, dropped_at] {
        let messages: Vec<Bytes> = (last + 1..last + 300)
            .map(|i| pool.message(i))
            .chain([pool.message(last)])
            .collect();
        let mut client = client(peers.proxy).await;
        let answer = client
            .client_streaming(
                tonic::Request::new(tokio_stream_of(messages)),
                PathAndQuery::from_static("/test.Echo/Collect"),
                Raw::default(),
            )
            .await;
        if last == kept_at {
            assert_eq!(answer.unwrap().into_inner(), pool.message(last));
        } else {
            assert_eq!(answer.unwrap_err().code(), Code::Internal);
        }
    }
    let tally = peers.stop().await;
    assert_eq!(tally.messages, 2, "only the answers are judged");
    assert_eq!(tally.kept(), 1);
}

/// A request stream of `messages`, sent as fast as the call takes them.
fn tokio_stream_of(messages: Vec<Bytes>) -> impl Stream<Item = Bytes> + Send + 'static {
    struct Of(std::vec::IntoIter<Bytes>);
    impl Stream for Of {
        type Item = Bytes;
        fn poll_next(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Bytes>> {
            Poll::Ready(self.0.next())
        }
    }
    Of(messages.into_iter())
}

/// A request stream fed from a channel: each message when the test sends it.
struct Fed(mpsc::Receiver<Bytes>);

impl Stream for Fed {
    type Item = Bytes;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Bytes>> {
        self.0.poll_recv(cx)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bidi_call_answers_each_kept_message_before_the_next_is_sent() {
    let pool = pool();
    let peers = Peers::start(Judge::Optics).await;
    let mut client = client(peers.proxy).await;
    let (send, fed) = mpsc::channel(1);
    let call = client.streaming(
        tonic::Request::new(Fed(fed)),
        PathAndQuery::from_static("/test.Echo/Bidi"),
        Raw::default(),
    );
    // The response headers come once the server took the call.
    let first = pool.message(0);
    send.send(first.clone()).await.unwrap();
    let mut answers = tokio::time::timeout(5 * SECOND, call)
        .await
        .expect("the call is answered")
        .unwrap()
        .into_inner();
    let mut sent = vec![first];
    let mut received = Vec::new();
    if keeps(&sent[0]) {
        received.push(answers.message().await.unwrap().unwrap());
    }
    // Ping-pong: each kept message's echo arrives before the next goes.
    for i in 1..200 {
        let message = pool.message(i);
        send.send(message.clone()).await.unwrap();
        sent.push(message.clone());
        if keeps(&message) {
            let echo = tokio::time::timeout(5 * SECOND, answers.message())
                .await
                .expect("the echo of a kept message arrives before the next is sent")
                .unwrap()
                .unwrap();
            assert_eq!(echo, message, "{i}");
            received.push(echo);
        }
    }
    drop(send);
    assert!(answers.message().await.unwrap().is_none(), "ends OK");
    let want: Vec<Bytes> = sent.into_iter().filter(|m| keeps(m)).collect();
    assert!(received == want);
    let tally = peers.stop().await;
    assert_eq!(tally.messages, 200);
    assert_eq!(tally.kept(), want.len() as u64);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_ends_a_bidi_call_while_the_client_sends_ends_it_ok() {
    let pool = pool();
    let kept: Vec<Bytes> = (0..)
        .map(|i| pool.message(i))
        .filter(|m| keeps(m))
        .take(3)
        .collect();
    let peers = Peers::start(Judge::Optics).await;
    for addr in [peers.upstream, peers.proxy] {
        let mut client = client(addr).await;
        let (send, fed) = mpsc::channel(8);
        for message in &kept {
            send.send(message.clone()).await.unwrap();
        }
        let mut answers = client
            .streaming(
                tonic::Request::new(Fed(fed)),
                PathAndQuery::from_static("/test.Echo/First3"),
                Raw::default(),
            )
            .await
            .unwrap()
            .into_inner();
        for message in &kept {
            assert_eq!(&answers.message().await.unwrap().unwrap(), message);
        }
        // The server ended the call; the client's stream is still open.
        let end = tokio::time::timeout(5 * SECOND, answers.message())
            .await
            .expect("the call ends");
        assert!(matches!(end, Ok(None)), "{addr}: {end:?}");
        assert!(answers.trailers().await.is_ok());
        drop(send);
    }
    let tally = peers.stop().await;
    assert_eq!(tally.messages, 3);
}
