//! The demo's command line: parsing the arguments of `examples/grpc_filter.rs`
//! and running each subcommand, so that the example stays a thin `main` and
//! the tests can call what it calls.
//!
//! Exit codes: 0 on success, 1 when a run fails (a framing error, a failed
//! check, readers that disagree, a socket or file error), 2 for bad
//! arguments, 130 when stopped by Ctrl-C.

use std::ffi::OsString;
use std::fmt;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use bytes::BytesMut;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;
use tokio_util::codec::Decoder;

use crate::filter::{Filter, SharedTally, Tally};
use crate::frames::{encode, FrameDecoder, FrameError};
use crate::generate::{Gen, Generate};
use crate::judge::{by_decoding, by_optics, Judge};
use crate::model::Issue;
use crate::net::{self, Pool, DEFAULT_DISTINCT, MESSAGE_SIZE, SEED};
use crate::policy::{Policy, Verdict};
use crate::report;

/// Messages per run when none is given.
pub const DEFAULT_COUNT: u64 = 200_000;

/// The most messages an untimed warm-up run streams.
pub const WARM_UP_CAP: u64 = 20_000;

/// Exit code for bad arguments.
pub const EXIT_USAGE: u8 = 2;

/// Exit code for a failed run.
pub const EXIT_FAILURE: u8 = 1;

/// Exit code after Ctrl-C (128 + SIGINT, as shells report it).
pub const EXIT_INTERRUPTED: u8 = 130;

/// What the command line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// No subcommand: the three roles on loopback, once per filter.
    Demo {
        /// Messages per timed run.
        count: u64,
    },
    /// `upstream --listen ADDR [--count N]`.
    Upstream {
        /// Where to listen.
        listen: String,
        /// Frames per connection.
        count: u64,
    },
    /// `filter --upstream ADDR --downstream ADDR [--listen ADDR] [--reader R]`.
    Filter {
        /// Where to accept control connections, each of which starts a run;
        /// without it the filter runs once.
        listen: Option<String>,
        /// The upstream to connect to.
        upstream: String,
        /// The downstream to connect to.
        downstream: String,
        /// How messages are judged.
        reader: Judge,
    },
    /// `downstream --listen ADDR`.
    Downstream {
        /// Where to listen.
        listen: String,
    },
    /// `generate N FILE`.
    Generate {
        /// Frames to write.
        count: u64,
        /// The file, or `-` for stdout.
        file: String,
    },
    /// `judge FILE`.
    Judge {
        /// The file, or `-` for stdin.
        file: String,
    },
    /// `--help`, for the whole program or one subcommand.
    Help(Topic),
}

/// What a `--help` is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topic {
    /// The program.
    Main,
    /// `upstream`.
    Upstream,
    /// `filter`.
    Filter,
    /// `downstream`.
    Downstream,
    /// `generate`.
    Generate,
    /// `judge`.
    Judge,
}

impl Topic {
    /// The subcommand's name (`grpc_filter` for the program).
    pub fn name(self) -> &'static str {
        match self {
            Topic::Main => "grpc_filter",
            Topic::Upstream => "upstream",
            Topic::Filter => "filter",
            Topic::Downstream => "downstream",
            Topic::Generate => "generate",
            Topic::Judge => "judge",
        }
    }

    /// The help text.
    pub fn help(self) -> &'static str {
        match self {
            Topic::Main => HELP_MAIN,
            Topic::Upstream => HELP_UPSTREAM,
            Topic::Filter => HELP_FILTER,
            Topic::Downstream => HELP_DOWNSTREAM,
            Topic::Generate => HELP_GENERATE,
            Topic::Judge => HELP_JUDGE,
        }
    }
}

const HELP_MAIN: &str = "\
grpc_filter: a filter between two services that stream gRPC-framed JSON issues

usage:
  grpc_filter [N]          run upstream -> filter -> downstream on 127.0.0.1 once per
                           filter (optics, full decode, forward-all), N messages each
                           (default 200000), each after an untimed warm-up run, and
                           print the report
  grpc_filter upstream --listen ADDR [--count N]
  grpc_filter filter --upstream ADDR --downstream ADDR [--listen ADDR] [--reader READER]
  grpc_filter downstream --listen ADDR
  grpc_filter generate N FILE
  grpc_filter judge FILE

Each subcommand takes --help. Through cargo:
  cargo run --release --example grpc_filter -- [ARGS]
";

const HELP_UPSTREAM: &str = "\
grpc_filter upstream --listen ADDR [--count N]

Listens on ADDR (HOST:PORT) and streams N gRPC frames (default 200000) to each
connection, one connection at a time, then closes its write side. The frames
cycle through 1024 distinct issues generated in advance. Runs until Ctrl-C.
";

const HELP_FILTER: &str = "\
grpc_filter filter --upstream ADDR --downstream ADDR [--listen ADDR] [--reader READER]

Connects to the upstream and to the downstream, reads frames from the first,
judges each message and writes the kept frames, byte for byte, to the second.
READER is optics (the default), decode (full decode, the baseline) or
forward-all (keeps everything, reads nothing).

Without --listen the filter runs once and prints its tally. With --listen it is
a service: each connection accepted on ADDR starts one run (one at a time),
and the run's report is written back on that connection, e.g.
  nc 127.0.0.1 7002
Ctrl-C prints the tally so far.
";

const HELP_DOWNSTREAM: &str = "\
grpc_filter downstream --listen ADDR

Listens on ADDR, accepts one connection, reads every frame until it ends, then
checks them: how many decode as issues, and how many of those the policy keeps.
";

const HELP_GENERATE: &str = "\
grpc_filter generate N FILE

Writes N gRPC frames of distinct generated issues (size 7, about 4 KB each) to
FILE, or to stdout for `-`.
";

const HELP_JUDGE: &str = "\
grpc_filter judge FILE

Reads gRPC frames from FILE (or stdin for `-`) and judges every message with
both readers, optics and full decode. Prints each reader's per-kind table and
the number of messages on which they disagree. Exits with 1 on a framing error
or any disagreement, saying which frame and where.
";

/// A command-line failure: what to tell the user, and the exit code.
#[derive(Debug)]
pub struct CliError {
    /// The exit code: [`EXIT_USAGE`], [`EXIT_FAILURE`] or
    /// [`EXIT_INTERRUPTED`].
    pub code: u8,
    /// What went wrong, in one or more lines.
    pub message: String,
}

impl CliError {
    fn usage(topic: Topic, message: impl fmt::Display) -> CliError {
        let see = match topic {
            Topic::Main => "see `grpc_filter --help`".to_owned(),
            topic => format!("see `grpc_filter {} --help`", topic.name()),
        };
        CliError {
            code: EXIT_USAGE,
            message: format!("{message}\n{see}"),
        }
    }

    fn failed(message: impl fmt::Display) -> CliError {
        CliError {
            code: EXIT_FAILURE,
            message: message.to_string(),
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CliError {}

/// Parses the arguments after the program's name.
///
/// # Errors
///
/// A [`CliError`] with [`EXIT_USAGE`] naming the argument and what was
/// expected.
///
/// ```
/// use triage::cli::{parse, Command};
///
/// assert_eq!(parse(["1000".into()]).unwrap(), Command::Demo { count: 1000 });
/// let err = parse(["upstream".into(), "--count".into(), "ten".into()]).unwrap_err();
/// assert_eq!(err.code, 2);
/// assert!(err.message.starts_with("`--count` expects a whole number of messages, got `ten`"));
/// ```
pub fn parse<I>(args: I) -> Result<Command, CliError>
where
    I: IntoIterator<Item = OsString>,
{
    let mut strings = Vec::new();
    for arg in args {
        match arg.into_string() {
            Ok(arg) => strings.push(arg),
            Err(arg) => {
                return Err(CliError::usage(
                    Topic::Main,
                    format!("argument {arg:?} is not valid UTF-8"),
                ))
            }
        }
    }
    let mut args = strings.into_iter();
    let Some(first) = args.next() else {
        return Ok(Command::Demo {
            count: DEFAULT_COUNT,
        });
    };
    let topic = match first.as_str() {
        "upstream" => Topic::Upstream,
        "filter" => Topic::Filter,
        "downstream" => Topic::Downstream,
        "generate" => Topic::Generate,
        "judge" => Topic::Judge,
        "--help" | "-h" | "help" => return Ok(Command::Help(Topic::Main)),
        other if !other.starts_with(|c: char| c.is_ascii_digit()) => {
            return Err(CliError::usage(
                Topic::Main,
                format!(
                    "unknown subcommand `{other}`: expected upstream, filter, downstream, \
                     generate, judge, or a number of messages N"
                ),
            ))
        }
        _ => {
            let count = parse_count(Topic::Main, "N", &first)?;
            if count == 0 {
                return Err(CliError::usage(
                    Topic::Main,
                    "N expects at least 1 message, got `0`",
                ));
            }
            if let Some(extra) = args.next() {
                return Err(CliError::usage(
                    Topic::Main,
                    format!("unexpected argument `{extra}` after N"),
                ));
            }
            return Ok(Command::Demo { count });
        }
    };
    let parsed = Parsed::new(topic, args)?;
    if parsed.help {
        return Ok(Command::Help(topic));
    }
    parsed.command()
}

/// A subcommand's arguments, sorted into options and positionals.
struct Parsed {
    topic: Topic,
    help: bool,
    options: Vec<(&'static str, String)>,
    positional: Vec<String>,
}

impl Parsed {
    fn new(topic: Topic, args: impl Iterator<Item = String>) -> Result<Parsed, CliError> {
        let known: &[&'static str] = match topic {
            Topic::Upstream => &["--listen", "--count"],
            Topic::Filter => &["--listen", "--upstream", "--downstream", "--reader"],
            Topic::Downstream => &["--listen"],
            Topic::Main | Topic::Generate | Topic::Judge => &[],
        };
        let mut parsed = Parsed {
            topic,
            help: false,
            options: Vec::new(),
            positional: Vec::new(),
        };
        let mut args = args.peekable();
        while let Some(arg) = args.next() {
            if arg == "--help" || arg == "-h" {
                parsed.help = true;
                continue;
            }
            if !arg.starts_with("--") {
                // `-` (stdin or stdout) is a positional too.
                parsed.positional.push(arg);
                continue;
            }
            let (flag, inline) = match arg.split_once('=') {
                Some((flag, value)) => (flag.to_owned(), Some(value.to_owned())),
                None => (arg, None),
            };
            let Some(&name) = known.iter().find(|k| **k == flag) else {
                let expected = if known.is_empty() {
                    "it takes no options".to_owned()
                } else {
                    format!("expected one of {}", known.join(", "))
                };
                return Err(CliError::usage(
                    topic,
                    format!("unknown option `{flag}` for `{}`: {expected}", topic.name()),
                ));
            };
            let value = match inline {
                Some(value) => value,
                None => match args.next_if(|next| !next.starts_with("--")) {
                    Some(value) => value,
                    None => {
                        return Err(CliError::usage(
                            topic,
                            format!("`{name}` expects a value: {}", what_option_expects(name)),
                        ))
                    }
                },
            };
            if parsed.options.iter().any(|(n, _)| *n == name) {
                return Err(CliError::usage(topic, format!("`{name}` is given twice")));
            }
            parsed.options.push((name, value));
        }
        Ok(parsed)
    }

    fn option(&self, name: &str) -> Option<&str> {
        self.options
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    fn required_addr(&self, name: &'static str) -> Result<String, CliError> {
        match self.option(name) {
            Some(value) => parse_addr(self.topic, name, value),
            None => Err(CliError::usage(
                self.topic,
                format!(
                    "`{}` needs `{name}`: {}",
                    self.topic.name(),
                    what_option_expects(name)
                ),
            )),
        }
    }

    /// Exactly `names.len()` positionals, or an error naming the first
    /// missing or extra one.
    fn positionals(&self, names: &[&str]) -> Result<&[String], CliError> {
        if let Some(extra) = self.positional.get(names.len()) {
            return Err(CliError::usage(
                self.topic,
                format!("unexpected argument `{extra}` for `{}`", self.topic.name()),
            ));
        }
        if let Some(missing) = names.get(self.positional.len()) {
            return Err(CliError::usage(
                self.topic,
                format!("`{}` needs {missing}", self.topic.name()),
            ));
        }
        Ok(&self.positional)
    }

    fn command(&self) -> Result<Command, CliError> {
        let topic = self.topic;
        match topic {
            Topic::Upstream => {
                self.positionals(&[])?;
                let count = match self.option("--count") {
                    Some(value) => parse_count(topic, "--count", value)?,
                    None => DEFAULT_COUNT,
                };
                Ok(Command::Upstream {
                    listen: self.required_addr("--listen")?,
                    count,
                })
            }
            Topic::Filter => {
                self.positionals(&[])?;
                let listen = match self.option("--listen") {
                    Some(value) => Some(parse_addr(topic, "--listen", value)?),
                    None => None,
                };
                let reader = match self.option("--reader") {
                    Some(value) => value.parse::<Judge>().map_err(|_| {
                        CliError::usage(
                            topic,
                            format!(
                                "`--reader` expects optics, decode or forward-all, got `{value}`"
                            ),
                        )
                    })?,
                    None => Judge::Optics,
                };
                Ok(Command::Filter {
                    listen,
                    upstream: self.required_addr("--upstream")?,
                    downstream: self.required_addr("--downstream")?,
                    reader,
                })
            }
            Topic::Downstream => {
                self.positionals(&[])?;
                Ok(Command::Downstream {
                    listen: self.required_addr("--listen")?,
                })
            }
            Topic::Generate => {
                let args = self.positionals(&["N (how many frames)", "FILE (or - for stdout)"])?;
                Ok(Command::Generate {
                    count: parse_count(topic, "N", &args[0])?,
                    file: args[1].clone(),
                })
            }
            Topic::Judge => {
                let args = self.positionals(&["FILE (or - for stdin)"])?;
                Ok(Command::Judge {
                    file: args[0].clone(),
                })
            }
            Topic::Main => Ok(Command::Help(Topic::Main)),
        }
    }
}

fn what_option_expects(name: &str) -> &'static str {
    match name {
        "--count" => "a whole number of messages",
        "--reader" => "optics, decode or forward-all",
        _ => "an address HOST:PORT, e.g. 127.0.0.1:7000",
    }
}

/// A count of messages: digits, `_` allowed between them (`200_000`).
fn parse_count(topic: Topic, name: &str, value: &str) -> Result<u64, CliError> {
    let digits: String = value.chars().filter(|c| *c != '_').collect();
    match digits.parse::<u64>() {
        Ok(count) if !digits.is_empty() && !value.starts_with('_') => Ok(count),
        _ => Err(CliError::usage(
            topic,
            format!("`{name}` expects a whole number of messages, got `{value}`"),
        )),
    }
}

/// An address `HOST:PORT`; the host is resolved when it is used.
fn parse_addr(topic: Topic, name: &str, value: &str) -> Result<String, CliError> {
    let port_ok = value
        .rsplit_once(':')
        .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok());
    if port_ok {
        Ok(value.to_owned())
    } else {
        Err(CliError::usage(
            topic,
            format!("`{name}` expects an address HOST:PORT, e.g. 127.0.0.1:7000, got `{value}`"),
        ))
    }
}

/// Runs a parsed command to the end, printing to stdout. Async commands get
/// a multi-threaded tokio runtime of their own.
///
/// # Errors
///
/// A [`CliError`] saying what failed, with its exit code.
pub fn run(command: Command) -> Result<(), CliError> {
    match command {
        Command::Help(topic) => {
            print!("{}", topic.help());
            Ok(())
        }
        Command::Generate { count, file } => generate_file(count, &file),
        Command::Judge { file } => {
            let stdout = io::stdout();
            judge_file(&file, &mut stdout.lock()).map(|_| ())
        }
        Command::Demo { count } => runtime()?.block_on(demo_until_interrupted(count)),
        Command::Upstream { listen, count } => runtime()?.block_on(upstream(&listen, count)),
        Command::Filter {
            listen,
            upstream,
            downstream,
            reader,
        } => {
            let filter = Filter::new(reader, Policy::default());
            runtime()?.block_on(filter_role(
                listen.as_deref(),
                &upstream,
                &downstream,
                &filter,
            ))
        }
        Command::Downstream { listen } => runtime()?.block_on(downstream(&listen)),
    }
}

fn runtime() -> Result<tokio::runtime::Runtime, CliError> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|err| CliError::failed(format!("cannot start the tokio runtime: {err}")))
}

/// Resolves when Ctrl-C is pressed; never, if the handler cannot be set.
async fn ctrl_c() {
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await;
    }
}

fn interrupted(message: String) -> CliError {
    CliError {
        code: EXIT_INTERRUPTED,
        message,
    }
}

async fn bind(addr: &str, role: &str) -> Result<TcpListener, CliError> {
    TcpListener::bind(addr)
        .await
        .map_err(|err| CliError::failed(format!("{role}: cannot listen on {addr}: {err}")))
}

/// The messages of an untimed warm-up run before a timed run of `count`:
/// a tenth of it, at most [`WARM_UP_CAP`], at least 1.
pub fn warm_up_count(count: u64) -> u64 {
    (count / 10).clamp(1, WARM_UP_CAP)
}

/// Which run the demo is in, and its live tally, for a Ctrl-C report.
#[derive(Debug, Default)]
pub struct Live {
    current: Mutex<(String, SharedTally)>,
}

impl Live {
    /// Starts a run called `label`: returns the tally the run should update.
    pub fn begin(&self, label: impl Into<String>) -> SharedTally {
        let tally = SharedTally::new();
        *self.lock() = (label.into(), tally.clone());
        tally
    }

    /// The current run's name and its tally so far.
    pub fn snapshot(&self) -> (String, Tally) {
        let current = self.lock();
        (current.0.clone(), current.1.snapshot())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (String, SharedTally)> {
        self.current.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

async fn demo_until_interrupted(count: u64) -> Result<(), CliError> {
    let live = Live::default();
    tokio::select! {
        result = demo(count, &live) => result,
        () = ctrl_c() => {
            let (label, tally) = live.snapshot();
            println!();
            print!("{}", report::tally(&format!("interrupted during {label}; so far"), &tally, None));
            Err(interrupted("stopped by Ctrl-C".to_owned()))
        }
    }
}

/// The demo: upstream, filter and downstream on loopback, once per reader
/// (optics, full decode, forward-all), `count` messages each, each after an
/// untimed warm-up run of [`warm_up_count`] messages. Prints the report as
/// it goes; `live` follows the current run.
///
/// # Errors
///
/// A [`CliError`] when a run fails or a downstream check does not add up.
pub async fn demo(count: u64, live: &Live) -> Result<(), CliError> {
    let start = Instant::now();
    let distinct = usize::try_from(count)
        .unwrap_or(usize::MAX)
        .min(DEFAULT_DISTINCT);
    let pool = Arc::new(Pool::generate(SEED, MESSAGE_SIZE, distinct).map_err(CliError::failed)?);
    let warm_up = warm_up_count(count);
    println!(
        "upstream: {count} messages per run, cycling {} distinct issues (size {MESSAGE_SIZE}, \
         {:.0} B on average; generated in {:.2} s)",
        pool.distinct(),
        pool.mean_message_len(),
        start.elapsed().as_secs_f64()
    );
    println!(
        "each filter first runs untimed on {warm_up} messages (a tenth, at most {WARM_UP_CAP}) \
         to warm up"
    );
    println!();

    let mut rates = Vec::new();
    let mut failed = Vec::new();
    for reader in [Judge::Optics, Judge::Decode, Judge::ForwardAll] {
        let filter = Filter::new(reader, Policy::default());
        let name = report::filter_name(reader);
        let tally = live.begin(format!("{name} (warm-up)"));
        let warm = net::loopback(pool.clone(), warm_up, &filter, &tally)
            .await
            .map_err(|err| CliError::failed(format!("{name}, warm-up: {err}")))?;
        if !warm.passed() {
            failed.push(format!("{name} (warm-up)"));
        }
        drop(warm);
        let tally = live.begin(name);
        let run = net::loopback(pool.clone(), count, &filter, &tally)
            .await
            .map_err(|err| CliError::failed(format!("{name}: {err}")))?;
        print!("{}", report::run(&run));
        if !run.passed() {
            failed.push(name.to_owned());
        }
        rates.push((reader, run.messages_per_second()));
    }
    if let Some(line) = report::ratios(&rates) {
        print!("{line}");
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(CliError::failed(format!(
            "the downstream check failed for {}",
            failed.join(", ")
        )))
    }
}

/// The upstream role: serves `count` frames to each connection on `listen`,
/// one at a time, until Ctrl-C.
async fn upstream(listen: &str, count: u64) -> Result<(), CliError> {
    let distinct = usize::try_from(count)
        .unwrap_or(usize::MAX)
        .min(DEFAULT_DISTINCT);
    let pool = Pool::generate(SEED, MESSAGE_SIZE, distinct).map_err(CliError::failed)?;
    let listener = bind(listen, "upstream").await?;
    let addr = net::local_addr(&listener, "upstream").map_err(CliError::failed)?;
    println!(
        "upstream: listening on {addr}; {count} frames ({:.1} MB) per connection, cycling {} \
         distinct issues",
        pool.wire_len(count) as f64 / 1e6,
        pool.distinct()
    );
    let mut served = 0u64;
    loop {
        tokio::select! {
            result = net::serve_one(&listener, &pool, count) => match result {
                Ok(sent) => {
                    served += 1;
                    println!(
                        "upstream: sent {} frames ({:.1} MB) to {} in {:.2} s",
                        sent.frames,
                        sent.bytes as f64 / 1e6,
                        sent.peer,
                        sent.took.as_secs_f64()
                    );
                }
                Err(err) => {
                    eprintln!("{err}");
                    // An accept that fails (out of file descriptors, say)
                    // would fail again at once: let it settle.
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
            () = ctrl_c() => {
                println!("upstream: stopped by Ctrl-C after serving {served} connections");
                return Ok(());
            }
        }
    }
}

/// The filter role: once, or once per control connection on `listen`.
async fn filter_role(
    listen: Option<&str>,
    upstream: &str,
    downstream: &str,
    filter: &Filter,
) -> Result<(), CliError> {
    let name = format!("filter ({})", filter.reader().name());
    let Some(listen) = listen else {
        let live = SharedTally::new();
        let start = Instant::now();
        return tokio::select! {
            result = net::filter_between(filter, upstream, downstream, &live) => match result {
                Ok(tally) => {
                    print!("{}", report::tally(&name, &tally, Some(start.elapsed())));
                    Ok(())
                }
                Err(err) => {
                    if let net::NetError::Filter(failed) = &err {
                        print!("{}", report::tally(&name, &failed.tally, Some(start.elapsed())));
                    }
                    Err(CliError::failed(err))
                }
            },
            () = ctrl_c() => {
                print!("{}", report::tally(&format!("{name}, stopped by Ctrl-C"), &live.snapshot(), None));
                Err(interrupted("stopped by Ctrl-C".to_owned()))
            }
        };
    };
    let listener = bind(listen, "filter").await?;
    let addr = net::local_addr(&listener, "filter").map_err(CliError::failed)?;
    println!(
        "filter: listening on {addr}; each connection runs {upstream} -> {} -> {downstream}",
        filter.reader().name()
    );
    let live = SharedTally::new();
    loop {
        let (mut control, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    eprintln!("filter: accepting a connection on {addr}: {err}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = ctrl_c() => {
                print!("{}", report::tally(&format!("{name}, all runs"), &live.snapshot(), None));
                return Ok(());
            }
        };
        println!("filter: run requested by {peer}");
        let start = Instant::now();
        let text = tokio::select! {
            result = net::filter_between(filter, upstream, downstream, &live) => match result {
                Ok(tally) => report::tally(&name, &tally, Some(start.elapsed())),
                Err(err) => {
                    let mut text = format!("{err}\n");
                    if let net::NetError::Filter(failed) = &err {
                        text.push_str(&report::tally(&name, &failed.tally, Some(start.elapsed())));
                    }
                    text
                }
            },
            () = ctrl_c() => {
                print!("{}", report::tally(&format!("{name}, stopped by Ctrl-C; all runs"), &live.snapshot(), None));
                return Err(interrupted("stopped by Ctrl-C".to_owned()));
            }
        };
        print!("{text}");
        // The requester may have gone; the report was printed here anyway.
        let _ = control.write_all(text.as_bytes()).await;
        let _ = control.shutdown().await;
    }
}

/// The downstream role: receives one stream on `listen` and checks it.
async fn downstream(listen: &str) -> Result<(), CliError> {
    let listener = bind(listen, "downstream").await?;
    let addr = net::local_addr(&listener, "downstream").map_err(CliError::failed)?;
    println!("downstream: listening on {addr}");
    let (peer, received) = tokio::select! {
        result = net::receive_one(&listener) => result.map_err(CliError::failed)?,
        () = ctrl_c() => return Err(interrupted("downstream: stopped by Ctrl-C".to_owned())),
    };
    println!(
        "downstream: received {} messages ({:.1} MB) from {peer} in {:.2} s",
        received.frames.len(),
        received.bytes as f64 / 1e6,
        received
            .ended
            .saturating_duration_since(received.started)
            .as_secs_f64()
    );
    let check = received.check(&Policy::default());
    println!(
        "  {} decode as issues, and the policy keeps {} of them (the check took {:.1} ms)",
        check.decoded,
        check.kept,
        check.took.as_secs_f64() * 1e3
    );
    Ok(())
}

/// Writes `count` frames, each a distinct issue generated at the stream's
/// size, to `out`. Costs a generation and a serialization per message;
/// memory for one message. Returns the bytes written.
///
/// # Errors
///
/// The writer's error.
pub fn generate(count: u64, out: &mut impl Write) -> io::Result<u64> {
    let mut g = Gen::new(SEED, MESSAGE_SIZE);
    let mut frame = BytesMut::new();
    let mut written = 0;
    for _ in 0..count {
        frame.clear();
        encode(&Issue::generate(&mut g).to_json(), &mut frame)
            .map_err(|err| io::Error::new(io::ErrorKind::InvalidData, err))?;
        out.write_all(&frame)?;
        written += frame.len() as u64;
    }
    Ok(written)
}

/// `generate N FILE`: [`generate`] into FILE, or stdout for `-`.
///
/// # Errors
///
/// A [`CliError`] naming the file when it cannot be created or written.
pub fn generate_file(count: u64, file: &str) -> Result<(), CliError> {
    let fail = |err: io::Error| CliError::failed(format!("generate: writing {file}: {err}"));
    if file == "-" {
        let stdout = io::stdout();
        let mut out = BufWriter::new(stdout.lock());
        generate(count, &mut out).map_err(fail)?;
        out.flush().map_err(fail)
    } else {
        let mut out = BufWriter::new(File::create(file).map_err(fail)?);
        let bytes = generate(count, &mut out).map_err(fail)?;
        out.flush().map_err(fail)?;
        eprintln!("generate: wrote {count} frames ({bytes} bytes) to {file}");
        Ok(())
    }
}

/// Two readers' verdicts on one message that differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Disagreement {
    /// 0-based index of the frame.
    pub index: u64,
    /// Offset of the frame's first byte in the stream.
    pub offset: u64,
    /// What the optics reader said.
    pub optics: Verdict,
    /// What the full decode said.
    pub decode: Verdict,
}

impl fmt::Display for Disagreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "frame {} at byte {}: optics says {}, decode says {}",
            self.index,
            self.offset,
            verdict(self.optics),
            verdict(self.decode)
        )
    }
}

fn verdict(v: Verdict) -> String {
    format!(
        "{} {}",
        v.kind.map_or("none", |k| k.tag()),
        if v.keep { "kept" } else { "dropped" }
    )
}

/// Every message of a stream judged by both readers.
#[derive(Debug, Default)]
pub struct Judged {
    /// The optics reader's tally.
    pub optics: Tally,
    /// The full decode's tally.
    pub decode: Tally,
    /// Messages on which the two differ, in order.
    pub disagreements: Vec<Disagreement>,
    /// The framing error that stopped the stream, if any; the frames before
    /// it were judged.
    pub error: Option<FrameError>,
}

/// Splits `wire` into frames and judges each message with both readers
/// against `policy`. Costs one optics read and one full decode per message.
///
/// ```
/// use bytes::BytesMut;
/// use triage::cli::judge_bytes;
/// use triage::frames::encode;
/// use triage::policy::Policy;
///
/// let mut wire = BytesMut::new();
/// encode(b"{}", &mut wire).unwrap();
/// let judged = judge_bytes(wire, &Policy::default());
/// assert_eq!(judged.optics.messages, 1);
/// assert!(judged.disagreements.is_empty() && judged.error.is_none());
/// ```
pub fn judge_bytes(mut wire: BytesMut, policy: &Policy) -> Judged {
    let mut decoder = FrameDecoder::new();
    let mut judged = Judged::default();
    let mut offset = 0u64;
    let mut index = 0u64;
    loop {
        let frame = match decoder.decode_eof(&mut wire) {
            Ok(Some(frame)) => frame,
            Ok(None) => break,
            Err(err) => {
                judged.error = Some(err);
                break;
            }
        };
        let len = frame.frame().len();
        let message = frame.message();

        let start = Instant::now();
        let optics = by_optics(policy, message);
        judged.optics.judging += start.elapsed();
        judged.optics.count(optics, len);

        let start = Instant::now();
        let decode = by_decoding(policy, message);
        judged.decode.judging += start.elapsed();
        judged.decode.count(decode, len);

        if optics != decode {
            judged.disagreements.push(Disagreement {
                index,
                offset,
                optics,
                decode,
            });
        }
        index += 1;
        offset += len as u64;
    }
    judged
}

/// `judge FILE`: reads FILE (or stdin for `-`) whole, judges it with
/// [`judge_bytes`] and writes both tables and the disagreements to `out`.
///
/// # Errors
///
/// A [`CliError`] ([`EXIT_FAILURE`]) when the file cannot be read, the
/// stream has a framing error, or the readers disagree on any message; the
/// message says which frame, and where.
pub fn judge_file(file: &str, out: &mut impl Write) -> Result<Judged, CliError> {
    let mut bytes = Vec::new();
    let read = if file == "-" {
        io::stdin().lock().read_to_end(&mut bytes)
    } else {
        File::open(file).and_then(|mut f| f.read_to_end(&mut bytes))
    };
    let name = if file == "-" { "stdin" } else { file };
    read.map_err(|err| CliError::failed(format!("judge: reading {name}: {err}")))?;

    let judged = judge_bytes(BytesMut::from(&bytes[..]), &Policy::default());
    let text = judge_report(name, &judged);
    out.write_all(text.as_bytes())
        .map_err(|err| CliError::failed(format!("judge: writing the report: {err}")))?;

    if let Some(err) = &judged.error {
        return Err(CliError::failed(format!(
            "judge: {name}: {err}; the {} frames before it were judged",
            judged.optics.messages
        )));
    }
    if let Some(first) = judged.disagreements.first() {
        return Err(CliError::failed(format!(
            "judge: {name}: the readers disagree on {} of {} messages; the first at {first}",
            judged.disagreements.len(),
            judged.optics.messages
        )));
    }
    Ok(judged)
}

/// Both readers' tables and the disagreements, as `judge` prints them.
fn judge_report(name: &str, judged: &Judged) -> String {
    let mut text = String::new();
    for (reader, tally) in [
        (Judge::Optics, &judged.optics),
        (Judge::Decode, &judged.decode),
    ] {
        let per_message = if tally.messages == 0 {
            0.0
        } else {
            tally.judging.as_secs_f64() * 1e6 / tally.messages as f64
        };
        text.push_str(&format!(
            "{name}, {}: {} messages, {:.1} MB; judging took {per_message:.1} µs per message\n",
            report::filter_name(reader),
            tally.messages,
            tally.bytes_in as f64 / 1e6,
        ));
        text.push_str(&report::kind_table(tally));
    }
    text.push_str(&format!(
        "the readers disagree on {} of {} messages\n",
        judged.disagreements.len(),
        judged.optics.messages
    ));
    for d in judged.disagreements.iter().take(10) {
        text.push_str(&format!("  {d}\n"));
    }
    if judged.disagreements.len() > 10 {
        text.push_str(&format!(
            "  ... and {} more\n",
            judged.disagreements.len() - 10
        ));
    }
    text
}
