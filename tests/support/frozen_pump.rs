//! One direction of a TCP relay that tests can freeze: the proxy's
//! keepalive tests put it between the proxy and a real peer to play a peer
//! that died without closing its connection.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::watch;

/// Moves bytes from `from` to `to` (counting them in `moved`) until either
/// closes, or until `frozen`: then holds both open and moves nothing more.
pub async fn pump(
    mut from: OwnedReadHalf,
    mut to: OwnedWriteHalf,
    mut frozen: watch::Receiver<bool>,
    moved: Arc<AtomicU64>,
) {
    let mut buf = vec![0; 64 * 1024];
    loop {
        let read = tokio::select! {
            read = from.read(&mut buf) => Some(read),
            _ = frozen.wait_for(|frozen| *frozen) => None,
        };
        let n = match read {
            _ if *frozen.borrow() => break,
            None => break,
            Some(Ok(0) | Err(_)) => {
                let _ = to.shutdown().await;
                return;
            }
            Some(Ok(n)) => n,
        };
        if to.write_all(&buf[..n]).await.is_err() {
            return;
        }
        moved.fetch_add(n as u64, Ordering::Relaxed);
    }
    let _held = (from, to);
    std::future::pending::<()>().await;
}
