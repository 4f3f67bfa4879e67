//! The demo's command line: a filter between two services that stream
//! gRPC-framed JSON issues, judged through byte optics.
//!
//! ```text
//! cargo run --release --example grpc_filter [-- N]       # the three roles on loopback, N messages
//! cargo run --release --example grpc_filter -- --rounds 5 # five rounds, with the medians
//! cargo run --release --example grpc_filter -- --help    # the subcommands
//! ```
//!
//! The arguments are parsed by `triage::args` and each subcommand runs a
//! role of `triage::roles`; this file only joins the two and turns the result
//! into an exit code (see `triage::exit`).

use std::process::ExitCode;

use triage::args::{self, Command};
use triage::exit::RunError;
use triage::filter::Filter;
use triage::policy::Policy;
use triage::roles;
use triage::timeouts::Timeouts;

fn main() -> ExitCode {
    // Before any thread allocates: freed read buffers stay in the process
    // (see `triage::malloc`); with another C library, nothing changes.
    triage::malloc::keep_freed_buffers();
    let command = match args::parse(std::env::args_os().skip(1)) {
        Ok(command) => command,
        Err(err) => err.exit(),
    };
    match run(command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // A closed stderr leaves the exit code as it is.
            roles::warn(format_args!("grpc_filter: {err}\n"));
            ExitCode::from(err.code)
        }
    }
}

fn run(command: Command) -> Result<(), RunError> {
    match command {
        Command::Generate { count, file } => roles::generate_file(count, &file),
        Command::Judge { file } => {
            roles::judge_file(&file, &mut std::io::stdout().lock()).map(drop)
        }
        Command::Demo {
            count,
            http2,
            rounds,
        } => {
            if cfg!(debug_assertions) {
                roles::warn(format_args!(
                    "warning: this is a debug build; its timings mean nothing. \
                     Run `cargo run --release --example grpc_filter` for the figures.\n"
                ));
            }
            async_role(|shutdown| async move {
                if http2 {
                    roles::http2::demo(count, rounds, &shutdown).await
                } else {
                    roles::demo(count, rounds, &shutdown).await
                }
            })
        }
        Command::Upstream {
            listen,
            http2: true,
            ..
        } => async_role(|shutdown| async move { roles::http2::upstream(&listen, &shutdown).await }),
        Command::Upstream {
            listen,
            count,
            write_timeout,
            http2: false,
        } => async_role(|shutdown| async move {
            let timeouts = Timeouts {
                write: write_timeout.0,
                ..Timeouts::default()
            };
            roles::upstream(&listen, count, timeouts, &shutdown).await
        }),
        Command::Filter {
            upstream,
            downstream,
            reading,
            redact,
            judges,
            timeouts,
        } => async_role(|shutdown| async move {
            let mut filter =
                Filter::new(reading.judge(), Policy::default()).with_timeouts(timeouts.timeouts());
            if let Some(judges) = judges {
                filter = filter.with_judges(judges);
            }
            if redact {
                filter = filter.redacting();
            }
            roles::filter(&upstream, &downstream, &filter, &shutdown).await
        }),
        Command::Downstream {
            connect: Some(uri),
            count,
            ..
        } => {
            async_role(
                |shutdown| async move { roles::http2::downstream(&uri, count, &shutdown).await },
            )
        }
        Command::Downstream {
            listen: Some(listen),
            ..
        } => async_role(|shutdown| async move { roles::downstream(&listen, &shutdown).await }),
        Command::Downstream { .. } => Err(RunError::failed(
            "downstream: give --listen ADDR, or --http2 --connect URI",
        )),
        Command::Proxy {
            listen,
            upstream,
            reading,
            keepalive,
        } => async_role(|shutdown| async move {
            let keepalive = keepalive.get();
            roles::http2::proxy(&listen, &upstream, reading.judge(), keepalive, &shutdown).await
        }),
    }
}

/// Runs an async role on a multi-threaded runtime, with the process's one
/// shutdown signal.
fn async_role<F, Fut>(role: F) -> Result<(), RunError>
where
    F: FnOnce(triage::shutdown::Shutdown) -> Fut,
    Fut: std::future::Future<Output = Result<(), RunError>>,
{
    roles::runtime()?.block_on(async move { role(roles::signals()?).await })
}
