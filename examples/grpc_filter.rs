//! The demo's command line: a filter between two services that stream
//! gRPC-framed JSON issues, judged through byte optics.
//!
//! ```text
//! cargo run --release --example grpc_filter [-- N]       # the three roles on loopback, N messages
//! cargo run --release --example grpc_filter -- --help    # the subcommands
//! ```
//!
//! Everything lives in `triage::cli`; this file only hands it the arguments
//! and turns its result into an exit code.

use std::process::ExitCode;

use triage::cli::{self, Command};

fn main() -> ExitCode {
    let result = cli::parse(std::env::args_os().skip(1)).and_then(|command| {
        if cfg!(debug_assertions) && matches!(command, Command::Demo { .. }) {
            eprintln!(
                "warning: this is a debug build; its timings mean nothing. \
                 Run `cargo run --release --example grpc_filter` for the figures."
            );
        }
        cli::run(command)
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("grpc_filter: {err}");
            ExitCode::from(err.code)
        }
    }
}
