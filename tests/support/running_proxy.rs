//! A proxy on 127.0.0.1 for the proxy's tests, started with or without
//! a keepalive and stopped for its tally.

// Each test file that includes it uses what it needs.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use triage::judge::Judge;
use triage::policy::Policy;
use triage::proxy::{Proxy, Tally};

/// A running proxy (the optics judge, a drain of 1 s).
pub struct Running {
    pub addr: SocketAddr,
    pub proxy: Proxy,
    stop: CancellationToken,
    task: JoinHandle<Tally>,
}

impl Running {
    /// A proxy to `upstream`, pinging both sides with `keepalive`
    /// (interval, timeout) when given.
    pub async fn start(upstream: SocketAddr, keepalive: Option<(Duration, Duration)>) -> Running {
        let mut proxy = Proxy::new(
            &format!("http://{upstream}"),
            Judge::Optics,
            Policy::default(),
        )
        .unwrap()
        .with_drain_timeout(Duration::from_secs(1));
        if let Some((interval, timeout)) = keepalive {
            proxy = proxy.with_keepalive(interval, timeout);
        }
        Running::serve(proxy).await
    }

    /// `proxy`, as it was built, serving on a port of its own.
    pub async fn serve(proxy: Proxy) -> Running {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let stop = CancellationToken::new();
        let task = tokio::spawn({
            let proxy = proxy.clone();
            let stop = stop.clone();
            async move { proxy.serve(listener, stop.cancelled_owned()).await.unwrap() }
        });
        Running {
            addr,
            proxy,
            stop,
            task,
        }
    }

    /// Stops the proxy (within 10 s) and returns its tally.
    pub async fn stop(self) -> Tally {
        self.stop.cancel();
        tokio::time::timeout(Duration::from_secs(10), self.task)
            .await
            .expect("the proxy stops")
            .unwrap()
    }
}
