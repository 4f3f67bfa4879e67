//! The demo's command line, as clap types: each subcommand and option is
//! declared once, with its help taken from the doc comments, and every value
//! is checked as it is parsed.
//!
//! ```text
//! grpc_filter [--http2] [--rounds R] [N]                 the demo on loopback
//! grpc_filter upstream --listen ADDR [--count N] [--write-timeout TIME]
//! grpc_filter upstream --listen ADDR --http2
//! grpc_filter filter --upstream ADDR --downstream ADDR [--reader READER] [--trust-input | --validate-kept]
//!                    [--redact] [--judges N] [--connect-timeout TIME] [--idle-timeout TIME] [--write-timeout TIME]
//! grpc_filter downstream --listen ADDR | --http2 --connect URI [--count N]
//! grpc_filter proxy --listen ADDR --upstream http://HOST:PORT [--reader READER] [--trust-input | --validate-kept]
//!                   [--keepalive TIME [--keepalive-timeout TIME]]
//! grpc_filter generate N FILE
//! grpc_filter judge FILE
//! ```
//!
//! A bad argument is a [`clap::Error`] that names the argument and what was
//! expected; [`clap::Error::exit`] prints it and exits with code 2 (help and
//! version exit with 0).

use std::time::Duration;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

use crate::judge::Judge;
use crate::timeouts::{Timeouts, DEFAULT_CONNECT, DEFAULT_IDLE, DEFAULT_WRITE};

/// Messages per run when none is given.
pub const DEFAULT_COUNT: u64 = 200_000;

/// A filter between two services that stream gRPC-framed JSON issues.
///
/// Without a subcommand: runs upstream -> filter -> downstream on 127.0.0.1
/// once per filter (optics strict, trusting and validating what it keeps,
/// full decode, forward-all, the oracle, strict optics redacting), N
/// messages each, each after an untimed warm-up run, and prints the report. Through cargo:
/// `cargo run --release --example grpc_filter -- [ARGS]`.
#[derive(Parser, Debug)]
#[command(name = "grpc_filter", args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,

    /// Messages per timed run of the demo.
    #[arg(value_name = "N", default_value_t = DEFAULT_COUNT, value_parser = parse_positive_count)]
    count: u64,

    /// Runs the demo over gRPC on HTTP/2 instead: a tonic upstream, the
    /// proxy, and a tonic client, on 127.0.0.1, for every reader but the
    /// oracle (and no redacting run).
    #[arg(long)]
    http2: bool,

    /// Runs the demo R times (every filter once a round, in turn) and ends
    /// with each reader's median rate and the median of each same-run ratio
    /// over the rounds (the redacting run is in neither): on a noisy
    /// machine, one round says little.
    #[arg(long, value_name = "R", default_value_t = 1, value_parser = parse_rounds)]
    rounds: u32,
}

/// What the command line asks for.
#[derive(Subcommand, Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// The demo on loopback (what `grpc_filter [--http2] [--rounds R] [N]`
    /// runs).
    #[command(skip)]
    Demo {
        /// Messages per timed run.
        count: u64,
        /// Over gRPC on HTTP/2 (the proxy) rather than bare TCP frames.
        http2: bool,
        /// Times every filter runs (1 to 100), a round at a time.
        rounds: u32,
    },
    /// Streams N frames to each connection on ADDR, then closes its write side.
    ///
    /// The frames cycle through 1024 distinct issues generated in advance.
    /// With --http2 it is a gRPC server instead (h2c): the service
    /// `triage.Issues`, whose server-streaming `Subscribe` sends the count of
    /// issues each request asks for. Runs until Ctrl-C.
    Upstream {
        /// Where to listen: HOST:PORT.
        #[arg(long, value_name = "ADDR", value_parser = parse_addr)]
        listen: String,
        /// Serve gRPC over HTTP/2 (tonic) instead of bare frames over TCP.
        #[arg(long)]
        http2: bool,
        /// Frames per connection (bare TCP; over HTTP/2 each call asks for
        /// its own count).
        #[arg(long, value_name = "N", default_value_t = DEFAULT_COUNT, value_parser = parse_count, conflicts_with = "http2")]
        count: u64,
        /// How long one write to a client (a cycle of about 4 MB) may take
        /// before the client is dropped as stalled: `500ms`, `30s`, `2m` or
        /// `off` (bare TCP).
        #[arg(long, value_name = "TIME", default_value = "30s", value_parser = parse_timeout, conflicts_with = "http2")]
        write_timeout: Timeout,
    },
    /// Reads frames from the upstream, judges each message and writes the
    /// kept frames, byte for byte, to the downstream.
    ///
    /// Runs once, until the upstream ends, and prints its tally. Ctrl-C stops
    /// it gracefully: it finishes writing what it has judged and prints the
    /// tally so far.
    Filter {
        /// The upstream to connect to: HOST:PORT.
        #[arg(long, value_name = "ADDR", value_parser = parse_peer_addr)]
        upstream: String,
        /// The downstream to connect to: HOST:PORT.
        #[arg(long, value_name = "ADDR", value_parser = parse_peer_addr)]
        downstream: String,
        /// How messages are judged.
        #[command(flatten)]
        reading: ReaderArgs,
        /// Replace the reporter's email of every kept message (through a
        /// byte lens: every other byte stays as it was) before forwarding it.
        /// A kept message with no reporter's email, whose `reporter` or
        /// `email` key stands twice, or that redacted would be over the 4 MiB
        /// message limit, is dropped and counted as `not redactable`.
        #[arg(long)]
        redact: bool,
        /// How many tasks judge batches of messages side by side (kept frames
        /// still go out in the order they came in). Default: one per core, at
        /// most 16.
        #[arg(long, value_name = "N", value_parser = parse_judges)]
        judges: Option<usize>,
        /// Bounds on the filter's waits.
        #[command(flatten)]
        timeouts: TimeoutArgs,
    },
    /// Accepts one connection on ADDR and checks every frame as it arrives:
    /// each should decode as an issue that the policy keeps.
    ///
    /// With --http2 it is a gRPC client instead: it calls `Subscribe` on URI
    /// for N issues and checks what comes back the same way. Exits with 1
    /// when any message fails the check.
    Downstream {
        /// Where to listen: HOST:PORT (bare TCP).
        #[arg(
            long,
            value_name = "ADDR",
            value_parser = parse_addr,
            required_unless_present = "http2",
            conflicts_with = "http2"
        )]
        listen: Option<String>,
        /// Be a gRPC client over HTTP/2 (tonic), calling --connect.
        #[arg(long, requires = "connect")]
        http2: bool,
        /// With --http2: the server (or proxy) to call, http://HOST:PORT
        /// (no TLS, no path), checked as the proxy checks its --upstream.
        #[arg(long, value_name = "URI", value_parser = parse_upstream, requires = "http2")]
        connect: Option<String>,
        /// With --http2: how many issues to ask for (a bare TCP downstream
        /// reads what the filter sends).
        #[arg(long, value_name = "N", default_value_t = DEFAULT_COUNT, value_parser = parse_count, requires = "http2")]
        count: u64,
    },
    /// A gRPC proxy (HTTP/2 without TLS, prior knowledge): forwards every
    /// call on ADDR to the upstream, and judges the response messages of
    /// gRPC calls, forwarding the kept ones byte for byte.
    ///
    /// Headers, trailers, status, deadlines and cancellation pass through;
    /// calls that are not gRPC pass through untouched. Runs until Ctrl-C,
    /// then prints the tally of every call.
    Proxy {
        /// Where to listen: HOST:PORT.
        #[arg(long, value_name = "ADDR", value_parser = parse_addr)]
        listen: String,
        /// The gRPC server to forward to: http://HOST:PORT.
        #[arg(long, value_name = "URI", value_parser = parse_upstream)]
        upstream: String,
        /// How messages are judged.
        #[command(flatten)]
        reading: ReaderArgs,
        /// HTTP/2 keepalive, to find dead peers.
        #[command(flatten)]
        keepalive: KeepaliveArgs,
    },
    /// Writes N gRPC frames of distinct generated issues (about 4 KB each) to
    /// FILE, or to stdout for `-`.
    Generate {
        /// How many frames.
        #[arg(value_name = "N", value_parser = parse_count)]
        count: u64,
        /// The file, or `-` for stdout.
        #[arg(value_name = "FILE", value_parser = clap::builder::NonEmptyStringValueParser::new())]
        file: String,
    },
    /// Reads gRPC frames from FILE (or stdin for `-`) and judges every message
    /// with both readers, optics and full decode.
    ///
    /// Prints each reader's per-kind table and the number of messages on which
    /// they disagree. Exits with 1 on a framing error or any disagreement,
    /// saying which frame and where.
    Judge {
        /// The file, or `-` for stdin.
        #[arg(value_name = "FILE", value_parser = clap::builder::NonEmptyStringValueParser::new())]
        file: String,
    },
}

/// How the filter and the proxy judge messages: a reader, and for optics
/// how much they validate.
#[derive(Args, Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReaderArgs {
    /// How messages are judged.
    #[arg(long, value_enum, default_value_t = Judge::Optics)]
    pub reader: Judge,
    /// With `--reader optics`: do not validate messages (trusting mode).
    /// Faster, but a message broken outside the paths the policy reads, or
    /// with a key repeated on them, may be kept. Only for producers you
    /// trust.
    #[arg(long)]
    pub trust_input: bool,
    /// With `--reader optics`: validate only the messages the policy would
    /// keep. The same frames are forwarded as in strict mode (never a
    /// malformed message, nor one with a key repeated on the paths the
    /// policy reads), for little more than the trusting mode's cost where
    /// most messages are dropped; but a dropped message is not checked, so
    /// its flaw, if it has one, is not counted: the tally counts it under
    /// the kind read from it.
    #[arg(long, conflicts_with = "trust_input")]
    pub validate_kept: bool,
}

impl ReaderArgs {
    /// Refuses `--trust-input` or `--validate-kept` with a reader other than
    /// `optics`, which would ignore them: what a usage error says, naming
    /// both.
    fn check(&self) -> Result<(), String> {
        let flag = match (self.trust_input, self.validate_kept) {
            (true, _) => "--trust-input",
            (_, true) => "--validate-kept",
            _ => return Ok(()),
        };
        if self.reader == Judge::Optics {
            return Ok(());
        }
        let reader = self
            .reader
            .to_possible_value()
            .map_or_else(|| format!("{:?}", self.reader), |v| v.get_name().to_owned());
        Err(format!(
            "{flag} applies to `--reader optics` only, not to `--reader {reader}`"
        ))
    }

    /// The reader the options name: `optics` made trusting or validating
    /// what it keeps when asked; any other reader as it is.
    pub fn judge(self) -> Judge {
        self.reader
            .trusting(self.trust_input)
            .validating_kept(self.validate_kept)
    }
}

impl Default for ReaderArgs {
    /// `--reader optics`, validating every message (strict mode).
    fn default() -> ReaderArgs {
        ReaderArgs {
            reader: Judge::Optics,
            trust_input: false,
            validate_kept: false,
        }
    }
}

/// The proxy's HTTP/2 keepalive: PINGs to find peers that died without
/// closing their connection (see [`crate::proxy::Proxy::with_keepalive`]).
#[derive(Args, Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeepaliveArgs {
    /// Send an HTTP/2 PING to a client or the upstream once nothing was
    /// read from it for TIME, and close its connection when the ack does
    /// not come within --keepalive-timeout: a client's calls are then
    /// cancelled upstream, the upstream's calls end UNAVAILABLE. Off by
    /// default. grpc-go and grpc's C core servers by default close a
    /// connection that keeps pinging more often than every 5 minutes while
    /// they send nothing (GOAWAY too_many_pings, after a few such pings):
    /// toward them give 5m or more, or loosen their keepalive enforcement.
    #[arg(long, value_name = "TIME", default_value = "off", value_parser = parse_timeout)]
    keepalive: Timeout,
    /// With --keepalive TIME (not `off`): how long to wait for a PING's
    /// ack before taking the peer for dead. Default: 20s.
    #[arg(long, value_name = "TIME", value_parser = parse_duration, requires = "keepalive")]
    keepalive_timeout: Option<Duration>,
}

/// How long the proxy waits for a keepalive PING's ack when
/// `--keepalive-timeout` is not given.
pub const DEFAULT_KEEPALIVE_TIMEOUT: Duration = Duration::from_secs(20);

impl KeepaliveArgs {
    /// The interval and the timeout, or `None` when keepalive is off.
    pub fn get(self) -> Option<(Duration, Duration)> {
        self.keepalive.0.map(|interval| {
            let timeout = self.keepalive_timeout.unwrap_or(DEFAULT_KEEPALIVE_TIMEOUT);
            (interval, timeout)
        })
    }

    /// Refuses `--keepalive-timeout` with `--keepalive off`, which would
    /// ignore it: what a usage error says, naming both. (clap's `requires`
    /// takes `--keepalive off` as present.)
    fn check(&self) -> Result<(), String> {
        match (self.keepalive, self.keepalive_timeout) {
            (Timeout(None), Some(_)) => Err("--keepalive-timeout applies only when --keepalive \
                                             is a time, not with `--keepalive off`"
                .to_owned()),
            _ => Ok(()),
        }
    }
}

impl Default for KeepaliveArgs {
    /// Off (its timeout, were it on, [`DEFAULT_KEEPALIVE_TIMEOUT`]).
    fn default() -> KeepaliveArgs {
        KeepaliveArgs {
            keepalive: Timeout(None),
            keepalive_timeout: None,
        }
    }
}

/// The filter's bounds on its waits, each a duration (`500ms`, `30s`,
/// `2m`, at most 365 days) or `off`.
#[derive(Args, Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeoutArgs {
    /// How long connecting to the upstream or the downstream may take.
    #[arg(long, value_name = "TIME", default_value = "10s", value_parser = parse_timeout)]
    connect_timeout: Timeout,
    /// How long the upstream may send nothing while a frame is part-way
    /// through (between frames it may be quiet for as long as it likes).
    #[arg(long, value_name = "TIME", default_value = "30s", value_parser = parse_timeout)]
    idle_timeout: Timeout,
    /// How long writing one batch of kept frames to the downstream may take
    /// before the downstream is taken to have stopped reading.
    #[arg(long, value_name = "TIME", default_value = "30s", value_parser = parse_timeout)]
    write_timeout: Timeout,
}

/// A timeout as the command line gives it: a duration, or `None` for `off`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeout(pub Option<Duration>);

impl TimeoutArgs {
    /// The timeouts as the filter takes them.
    pub fn timeouts(self) -> Timeouts {
        Timeouts {
            connect: self.connect_timeout.0,
            idle: self.idle_timeout.0,
            write: self.write_timeout.0,
        }
    }
}

impl Default for TimeoutArgs {
    /// The defaults of [`Timeouts::default`], as the command line has them.
    fn default() -> TimeoutArgs {
        TimeoutArgs {
            connect_timeout: Timeout(Some(DEFAULT_CONNECT)),
            idle_timeout: Timeout(Some(DEFAULT_IDLE)),
            write_timeout: Timeout(Some(DEFAULT_WRITE)),
        }
    }
}

/// Parses the arguments after the program's name.
///
/// # Errors
///
/// A [`clap::Error`] naming the argument and what was expected (exit code
/// 2), or carrying the help text (`--help`, exit code 0).
///
/// ```
/// use triage::args::{parse, Command};
///
/// assert_eq!(parse(["1000"]).unwrap(), Command::Demo { count: 1000, http2: false, rounds: 1 });
/// let err = parse(["upstream", "--listen", "127.0.0.1:1", "--count", "ten"]).unwrap_err();
/// assert_eq!(err.exit_code(), 2);
/// assert!(err.to_string().contains("expects a whole number of messages, got `ten`"));
/// ```
pub fn parse<I, T>(args: I) -> Result<Command, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let program = std::iter::once(std::ffi::OsString::from("grpc_filter"));
    let cli = Cli::try_parse_from(program.chain(args.into_iter().map(Into::into)))?;
    // What clap cannot say: options that the value of another would ignore.
    let checked = match &cli.command {
        Some(Command::Filter { reading, .. }) => reading.check().map_err(|m| ("filter", m)),
        Some(Command::Proxy {
            reading, keepalive, ..
        }) => reading
            .check()
            .and_then(|()| keepalive.check())
            .map_err(|m| ("proxy", m)),
        _ => Ok(()),
    };
    if let Err((subcommand, message)) = checked {
        return Err(conflict(subcommand, message));
    }
    Ok(cli.command.unwrap_or(Command::Demo {
        count: cli.count,
        http2: cli.http2,
        rounds: cli.rounds,
    }))
}

/// A usage error of `subcommand`, as clap's own conflicts are: its message,
/// then the subcommand's usage (not the demo's), exit code 2.
fn conflict(subcommand: &str, message: String) -> clap::Error {
    let kind = clap::error::ErrorKind::ArgumentConflict;
    let mut cli = Cli::command().bin_name("grpc_filter");
    cli.build();
    match cli.find_subcommand_mut(subcommand) {
        Some(sub) => sub.error(kind, message),
        None => cli.error(kind, message),
    }
}

/// A count of messages: digits, `_` allowed between them (`200_000`).
fn parse_count(value: &str) -> Result<u64, String> {
    let digits: String = value.chars().filter(|c| *c != '_').collect();
    match digits.parse::<u64>() {
        Ok(count) if !digits.is_empty() && !value.starts_with('_') => Ok(count),
        _ => Err(format!("expects a whole number of messages, got `{value}`")),
    }
}

/// A count of at least one message.
fn parse_positive_count(value: &str) -> Result<u64, String> {
    match parse_count(value)? {
        0 => Err("expects at least 1 message, got `0`".to_owned()),
        count => Ok(count),
    }
}

/// A number of rounds of the demo: 1 to 100.
fn parse_rounds(value: &str) -> Result<u32, String> {
    match value.parse::<u32>() {
        Ok(rounds @ 1..=100) => Ok(rounds),
        _ => Err(format!(
            "expects a number of rounds from 1 to 100, got `{value}`"
        )),
    }
}

/// A number of judge tasks: 1 to 256.
fn parse_judges(value: &str) -> Result<usize, String> {
    match value.parse::<usize>() {
        Ok(judges @ 1..=256) => Ok(judges),
        _ => Err(format!(
            "expects a number of tasks from 1 to 256, got `{value}`"
        )),
    }
}

/// The longest time any of the command line's timeouts or intervals takes:
/// 365 days. Longer ones are refused rather than taken, as hyper adds the
/// keepalive interval to an `Instant`, which panics past its range.
pub const MAX_TIME: Duration = Duration::from_secs(365 * 24 * 60 * 60);

/// A timeout: a whole number with a unit (`ms`, `s`, `m`), or `off` for
/// none.
fn parse_timeout(value: &str) -> Result<Timeout, String> {
    if value == "off" {
        return Ok(Timeout(None));
    }
    parse_time(value, "500ms, 30s or 2m (or `off`)").map(|time| Timeout(Some(time)))
}

/// A duration as [`parse_timeout`] reads it, where `off` makes no sense.
fn parse_duration(value: &str) -> Result<Duration, String> {
    parse_time(value, "500ms, 20s or 1m")
}

/// A whole number with a unit (`ms`, `s`, `m`), more than zero and at most
/// [`MAX_TIME`]; the error gives `examples` of what is expected.
fn parse_time(value: &str, examples: &str) -> Result<Duration, String> {
    let digits = value.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = &value[digits.len()..];
    let amount = digits.parse::<u64>().ok().filter(|_| !digits.is_empty());
    let duration = match (amount, unit) {
        (Some(n), "ms") => Some(Duration::from_millis(n)),
        (Some(n), "s") => Some(Duration::from_secs(n)),
        (Some(n), "m") => Some(n.checked_mul(60).map_or(Duration::MAX, Duration::from_secs)),
        _ => None,
    };
    match duration {
        Some(duration) if duration > MAX_TIME => Err(format!(
            "expects a time of at most 525600m (365 days), got `{value}`"
        )),
        Some(duration) if !duration.is_zero() => Ok(duration),
        _ => Err(format!("expects a time such as {examples}, got `{value}`")),
    }
}

/// The proxy's upstream, `http://HOST:PORT`, checked as the proxy checks it
/// ([`crate::proxy::parse_upstream`]); the HTTP/2 downstream's `--connect`
/// too, which tonic would otherwise call over plain h2c whatever its scheme,
/// on port 80 for a port that is not one, and without its path.
fn parse_upstream(value: &str) -> Result<String, String> {
    crate::proxy::parse_upstream(value).map(|_| value.to_owned())
}

/// An address `HOST:PORT`; the host is resolved when it is used.
fn parse_addr(value: &str) -> Result<String, String> {
    let port_ok = value
        .rsplit_once(':')
        .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok());
    if port_ok {
        Ok(value.to_owned())
    } else {
        Err(format!(
            "expects an address HOST:PORT, e.g. 127.0.0.1:7000, got `{value}`"
        ))
    }
}

/// An address to connect to, `HOST:PORT`: as [`parse_addr`], with a port
/// other than 0, which nothing listens on.
fn parse_peer_addr(value: &str) -> Result<String, String> {
    let addr = parse_addr(value)?;
    if addr
        .rsplit_once(':')
        .is_some_and(|(_, port)| port.parse() == Ok(0u16))
    {
        return Err(format!(
            "expects an address to connect to, HOST:PORT with a port from 1 to 65535, got \
             `{value}`"
        ));
    }
    Ok(addr)
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        super::Cli::command().debug_assert();
    }
}
