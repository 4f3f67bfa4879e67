//! How a run of the demo ends: its exit codes, and the error a role returns.
//!
//! | code | when |
//! |---:|---|
//! | 0 | the run succeeded (or `--help` was asked for) |
//! | 1 | the run failed: a framing error, a failed check, readers that disagree, a socket or file error |
//! | 2 | a bad argument (clap's code for usage errors) |
//! | 130 | stopped by SIGINT (Ctrl-C) after a graceful stop, or at once on a second signal |
//! | 143 | stopped by SIGTERM, likewise |
//!
//! `generate` and `judge` install no signal handler: SIGINT or SIGTERM
//! ends them at once, which a shell reports as 130 or 143 (128 + the
//! signal) and a parent process sees as the signal, with no exit code.

use std::fmt;

/// Exit code for a failed run.
pub const EXIT_FAILURE: u8 = 1;

/// Exit code for bad arguments (what clap exits with).
pub const EXIT_USAGE: u8 = 2;

/// Exit code after SIGINT (128 + 2, as shells report it).
pub const EXIT_INTERRUPTED: u8 = 130;

/// Exit code after SIGTERM (128 + 15).
pub const EXIT_TERMINATED: u8 = 143;

/// A role that did not succeed: what to tell the user, and the exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunError {
    /// The exit code: [`EXIT_FAILURE`], [`EXIT_INTERRUPTED`] or
    /// [`EXIT_TERMINATED`].
    pub code: u8,
    /// What went wrong, in one or more lines.
    pub message: String,
}

impl RunError {
    /// A failed run ([`EXIT_FAILURE`]).
    pub fn failed(message: impl fmt::Display) -> RunError {
        RunError {
            code: EXIT_FAILURE,
            message: message.to_string(),
        }
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RunError {}
