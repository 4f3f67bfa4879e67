//! One shutdown signal for the whole process: SIGINT and SIGTERM cancel a
//! single [`CancellationToken`] that every role and task is handed, so no
//! signal is lost between two waits. A second signal exits at once.

use std::io;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::exit::{EXIT_INTERRUPTED, EXIT_TERMINATED};

/// The process's shutdown: a token cancelled by the first SIGINT or SIGTERM,
/// and which of the two it was. Cloning shares it.
#[derive(Clone, Debug, Default)]
pub struct Shutdown {
    token: CancellationToken,
    /// The exit code of the signal that cancelled the token; 0 before.
    code: Arc<AtomicU8>,
}

impl Shutdown {
    /// A shutdown that only [`Shutdown::trigger`] cancels (tests, the demo's
    /// own runs).
    pub fn manual() -> Shutdown {
        Shutdown::default()
    }

    /// Listens for SIGINT and SIGTERM (Ctrl-C only, off Unix) on a task of
    /// the current tokio runtime. The first cancels the token and says so on
    /// stderr; the second ends the process at once with the first one's exit
    /// code.
    ///
    /// # Errors
    ///
    /// When a signal handler cannot be installed.
    pub fn on_signals() -> io::Result<Shutdown> {
        let shutdown = Shutdown::default();
        let mut signals = Signals::new()?;
        let task = shutdown.clone();
        tokio::spawn(async move {
            let code = signals.next().await;
            task.trigger(code);
            // Said once the first is handled: a signal sent after this line
            // is never merged into the first (the OS and tokio coalesce
            // signals not yet received).
            crate::roles::warn(format_args!(
                "grpc_filter: {}: stopping gracefully; a second signal exits at once\n",
                task.signal_name()
            ));
            signals.next().await;
            crate::roles::warn(format_args!("a second signal: exiting at once\n"));
            std::process::exit(i32::from(code));
        });
        Ok(shutdown)
    }

    /// Cancels the token as a signal with exit code `code` would. Only the
    /// first trigger's code is kept.
    pub fn trigger(&self, code: u8) {
        let _ = self
            .code
            .compare_exchange(0, code, Ordering::SeqCst, Ordering::SeqCst);
        self.token.cancel();
    }

    /// The token every task watches.
    pub fn token(&self) -> &CancellationToken {
        &self.token
    }

    /// Whether a stop was asked for.
    pub fn is_stopping(&self) -> bool {
        self.token.is_cancelled()
    }

    /// The exit code of the signal that stopped the process
    /// ([`EXIT_INTERRUPTED`] or [`EXIT_TERMINATED`]), or `None` before one.
    pub fn exit_code(&self) -> Option<u8> {
        match self.code.load(Ordering::SeqCst) {
            0 => None,
            code => Some(code),
        }
    }

    /// What stopped the process, for a message: `"SIGINT"` or `"SIGTERM"`.
    pub fn signal_name(&self) -> &'static str {
        match self.exit_code() {
            Some(EXIT_TERMINATED) => "SIGTERM",
            _ => "SIGINT",
        }
    }
}

/// The signals a role stops on, as a stream of exit codes.
struct Signals {
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
}

impl Signals {
    #[cfg(unix)]
    fn new() -> io::Result<Signals> {
        use tokio::signal::unix::{signal, SignalKind};
        Ok(Signals {
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
        })
    }

    #[cfg(not(unix))]
    fn new() -> io::Result<Signals> {
        Ok(Signals {})
    }

    /// The exit code of the next signal.
    #[cfg(unix)]
    async fn next(&mut self) -> u8 {
        tokio::select! {
            _ = self.interrupt.recv() => EXIT_INTERRUPTED,
            _ = self.terminate.recv() => EXIT_TERMINATED,
        }
    }

    #[cfg(not(unix))]
    async fn next(&mut self) -> u8 {
        match tokio::signal::ctrl_c().await {
            Ok(()) => EXIT_INTERRUPTED,
            Err(_) => std::future::pending().await,
        }
    }
}
