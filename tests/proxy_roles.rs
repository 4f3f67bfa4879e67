//! The HTTP/2 roles called as the command line calls them: each role alone
//! with a shutdown signal, and the loopback run that the report prints.

use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::sync::oneshot;
use triage::grpc::{self, Upstream};
use triage::judge::Judge;
use triage::policy::Policy;
use triage::pool::Pool;
use triage::proxy::{self, Proxy, ProxyError};
use triage::report;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_roles_run_alone_and_stop_on_their_signal() {
    let pool = Arc::new(Pool::generate(7, 7, 64).unwrap());
    let up = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let listen = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let upstream_uri = format!("http://{}", up.local_addr().unwrap());
    let proxy_uri = format!("http://{}", listen.local_addr().unwrap());

    // grpc_filter upstream --listen ...
    let (stop_up, up_signal) = oneshot::channel::<()>();
    let upstream = tokio::spawn(grpc::serve_upstream(
        up,
        Upstream::new(pool.clone()),
        async {
            let _ = up_signal.await;
        },
    ));
    // grpc_filter proxy --listen ... --upstream http://... --reader optics
    let (stop_proxy, proxy_signal) = oneshot::channel::<()>();
    let proxy = tokio::spawn(proxy::serve(
        listen,
        &upstream_uri,
        Judge::Optics,
        Policy::default(),
        async {
            let _ = proxy_signal.await;
        },
    ));
    // grpc_filter downstream --http2 --connect ...
    let received = grpc::subscribe(&proxy_uri, 3000).await.unwrap();
    assert!(received.is_ok(), "{:?}", received.status);

    stop_proxy.send(()).unwrap();
    let tally = proxy.await.unwrap().unwrap();
    stop_up.send(()).unwrap();
    upstream.await.unwrap().unwrap();

    assert_eq!(tally.messages, 3000);
    assert_eq!(tally.kept(), received.messages.len() as u64);
    let check = received.check(&Policy::default());
    assert_eq!(check.kept, received.messages.len() as u64);
    assert_eq!(check.decoded, check.kept);
    assert_eq!(tally.bytes_out, received.bytes);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_loopback_run_passes_its_check_for_every_reader() {
    let pool = Arc::new(Pool::generate(7, 7, 128).unwrap());
    for judge in [Judge::Optics, Judge::Decode, Judge::ForwardAll] {
        let run = proxy::loopback_http2(pool.clone(), 2000, judge, Policy::default())
            .await
            .unwrap();
        assert!(run.passed(), "{judge:?}: {run:?}");
        assert_eq!(run.sent, 2000);
        assert!(run.messages_per_second() > 0.0);
        assert_eq!(run.stats.held, 0);
        // The same report as the TCP run.
        let text = report::http2_run(&run);
        assert!(text.contains("2000 messages"), "{text}");
        assert!(text.contains("digest for digest"), "{text}");
        assert!(!text.contains("CHECK FAILED"), "{text}");
    }
}

#[test]
fn the_upstream_must_be_h2c_with_a_host() {
    for bad in ["https://127.0.0.1:1", "127.0.0.1:1", "http://", "not a uri"] {
        let err = Proxy::new(bad, Judge::Optics, Policy::default()).unwrap_err();
        assert!(matches!(err, ProxyError::Upstream(_)), "{bad}: {err}");
    }
    assert!(Proxy::new("http://localhost:50051", Judge::Optics, Policy::default()).is_ok());
}
