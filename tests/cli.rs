//! The command line, through the library functions the example calls:
//! argument errors, `generate` then `judge`, and `judge` on bad files; and
//! the profiling loop's `--help`, through its binary.

use std::ffi::OsString;
use std::fs;
use std::path::PathBuf;

use clap::error::ErrorKind;
use optics_core::Get;
use std::time::Duration;

use triage::args::{
    parse, Command, KeepaliveArgs, ReaderArgs, Timeout, TimeoutArgs, DEFAULT_COUNT,
};
use triage::exit::{EXIT_FAILURE, EXIT_USAGE};
use triage::frames::encode;
use triage::generate::{Gen, Generate};
use triage::judge::Judge;
use triage::model::{Detail, Issue};
use triage::policy::Policy;
use triage::roles::{generate, generate_file, judge_file};
use triage::timeouts::Timeouts;

fn args(line: &str) -> Vec<OsString> {
    line.split_whitespace().map(OsString::from).collect()
}

/// A path in the temp directory, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str) -> TempFile {
        TempFile(std::env::temp_dir().join(format!("triage-cli-{}-{name}", std::process::id())))
    }

    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.0);
    }
}

#[test]
fn parses_every_subcommand() {
    assert_eq!(
        parse(args("")).unwrap(),
        Command::Demo {
            count: DEFAULT_COUNT,
            http2: false,
            rounds: 1,
        }
    );
    assert_eq!(
        parse(args("200_000")).unwrap(),
        Command::Demo {
            count: 200_000,
            http2: false,
            rounds: 1,
        }
    );
    assert_eq!(
        parse(args("upstream --listen 127.0.0.1:7000 --count=10")).unwrap(),
        Command::Upstream {
            listen: "127.0.0.1:7000".into(),
            count: 10,
            http2: false,
            write_timeout: Timeout(Some(Duration::from_secs(30))),
        }
    );
    assert_eq!(
        parse(args(
            "filter --upstream localhost:1 --downstream [::1]:2 --reader decode"
        ))
        .unwrap(),
        Command::Filter {
            upstream: "localhost:1".into(),
            downstream: "[::1]:2".into(),
            reading: ReaderArgs {
                reader: Judge::Decode,
                trust_input: false,
                validate_kept: false,
            },
            redact: false,
            judges: None,
            timeouts: TimeoutArgs::default(),
        }
    );
    assert_eq!(
        parse(args("filter --upstream a:1 --downstream b:2")).unwrap(),
        Command::Filter {
            upstream: "a:1".into(),
            downstream: "b:2".into(),
            reading: ReaderArgs {
                reader: Judge::Optics,
                trust_input: false,
                validate_kept: false,
            },
            redact: false,
            judges: None,
            timeouts: TimeoutArgs::default(),
        }
    );
    assert_eq!(
        parse(args("filter --upstream a:1 --downstream b:2 --trust-input")).unwrap(),
        Command::Filter {
            upstream: "a:1".into(),
            downstream: "b:2".into(),
            reading: ReaderArgs {
                reader: Judge::Optics,
                trust_input: true,
                validate_kept: false,
            },
            redact: false,
            judges: None,
            timeouts: TimeoutArgs::default(),
        }
    );
    // Each reader the options name, as the filter and the proxy judge with.
    for (options, judge) in [
        ("", Judge::Optics),
        (" --trust-input", Judge::OpticsTrusting),
        (" --validate-kept", Judge::OpticsValidatingKept),
        (" --reader decode", Judge::Decode),
        (" --reader optics --trust-input", Judge::OpticsTrusting),
        (" --reader forward-all", Judge::ForwardAll),
    ] {
        for command in [
            "filter --upstream a:1 --downstream b:2",
            "proxy --listen a:1 --upstream http://b:2",
        ] {
            let line = format!("{command}{options}");
            let reading = match parse(args(&line)).unwrap() {
                Command::Filter { reading, .. } | Command::Proxy { reading, .. } => reading,
                other => panic!("{line}: {other:?}"),
            };
            assert_eq!(reading.judge(), judge, "{line}");
            assert_eq!(reading.validate_kept, options.contains("--validate-kept"));
        }
    }
    let Command::Filter { judges, .. } =
        parse(args("filter --upstream a:1 --downstream b:2 --judges 3")).unwrap()
    else {
        panic!("a filter command");
    };
    assert_eq!(judges, Some(3));
    let Command::Filter { timeouts, .. } = parse(args(
        "filter --upstream a:1 --downstream b:2 --connect-timeout 500ms --idle-timeout off \
         --write-timeout 2m",
    ))
    .unwrap() else {
        panic!("a filter command");
    };
    assert_eq!(
        timeouts.timeouts(),
        Timeouts {
            connect: Some(Duration::from_millis(500)),
            idle: None,
            write: Some(Duration::from_secs(120)),
        }
    );
    assert_eq!(
        parse(args("downstream --listen 127.0.0.1:7001")).unwrap(),
        Command::Downstream {
            listen: Some("127.0.0.1:7001".into()),
            http2: false,
            connect: None,
            count: DEFAULT_COUNT,
        }
    );
    assert_eq!(
        parse(args("--http2 20000")).unwrap(),
        Command::Demo {
            count: 20_000,
            http2: true,
            rounds: 1,
        }
    );
    assert_eq!(
        parse(args("--rounds 5 20000")).unwrap(),
        Command::Demo {
            count: 20_000,
            http2: false,
            rounds: 5,
        }
    );
    assert_eq!(
        parse(args(
            "downstream --http2 --connect http://127.0.0.1:1 --count 5"
        ))
        .unwrap(),
        Command::Downstream {
            listen: None,
            http2: true,
            connect: Some("http://127.0.0.1:1".into()),
            count: 5,
        }
    );
    assert_eq!(
        parse(args(
            "proxy --listen 127.0.0.1:7002 --upstream http://127.0.0.1:7003 --reader decode"
        ))
        .unwrap(),
        Command::Proxy {
            listen: "127.0.0.1:7002".into(),
            upstream: "http://127.0.0.1:7003".into(),
            reading: ReaderArgs {
                reader: Judge::Decode,
                trust_input: false,
                validate_kept: false,
            },
            keepalive: KeepaliveArgs::default(),
        }
    );
    assert_eq!(
        parse(args("generate 10 -")).unwrap(),
        Command::Generate {
            count: 10,
            file: "-".into()
        }
    );
    assert_eq!(
        parse(args("judge -")).unwrap(),
        Command::Judge { file: "-".into() }
    );
}

#[test]
fn help_is_clap_s_and_exits_with_0() {
    for line in [
        "--help",
        "upstream --help",
        "filter --help",
        "downstream -h",
        "proxy --help",
        "generate --help",
        "judge -h",
    ] {
        let err = parse(args(line)).expect_err(line);
        assert_eq!(err.kind(), ErrorKind::DisplayHelp, "{line}");
        assert_eq!(err.exit_code(), 0, "{line}");
        let text = err.to_string();
        assert!(text.contains("Usage: grpc_filter"), "{line}: {text}");
    }
    let main = parse(args("--help")).unwrap_err().to_string();
    for sub in [
        "upstream",
        "filter",
        "downstream",
        "proxy",
        "generate",
        "judge",
    ] {
        assert!(main.contains(sub), "{main}");
    }
    let filter = parse(args("filter --help")).unwrap_err().to_string();
    for reader in [
        "optics:",
        "decode:",
        "forward-all:",
        "[default: optics]",
        "--trust-input",
        "--validate-kept",
    ] {
        assert!(filter.contains(reader), "{filter}");
    }
}

/// The profiling loop's example binary, beside this test's own executable.
fn profile_loop() -> PathBuf {
    let deps = std::env::current_exe().unwrap();
    let debug = deps.parent().unwrap().parent().unwrap();
    let exe = debug.join("examples").join("profile_loop");
    assert!(exe.exists(), "{} is built by cargo test", exe.display());
    exe
}

#[test]
fn the_profiling_loop_s_help_is_help_and_exits_with_0() {
    for flag in ["--help", "-h"] {
        let out = std::process::Command::new(profile_loop())
            .arg(flag)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{flag}: {out:?}");
        assert!(
            text.starts_with("usage: profile_loop MODE"),
            "{flag}: {text}"
        );
        assert!(text.contains("  valreads "), "{flag}: {text}");
        assert!(out.stderr.is_empty(), "{flag}: {out:?}");
    }
    // A mode it does not know is still a usage error.
    let out = std::process::Command::new(profile_loop())
        .arg("nonsense")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(i32::from(EXIT_USAGE)));
}

#[test]
fn bad_arguments_name_the_argument_and_what_was_expected() {
    let cases = [
        ("0", "expects at least 1 message, got `0`"),
        ("many", "expects a whole number of messages, got `many`"),
        ("12k", "expects a whole number of messages, got `12k`"),
        ("10 20", "'20' cannot be used with '[N]'"),
        ("upstream", "--listen <ADDR>"),
        (
            "upstream --listen 7000",
            "invalid value '7000' for '--listen <ADDR>': expects an address HOST:PORT",
        ),
        (
            "upstream --listen 127.0.0.1:7000 --count",
            "a value is required for '--count <N>'",
        ),
        (
            "upstream --listen 127.0.0.1:7000 --count=-1",
            "expects a whole number of messages, got `-1`",
        ),
        (
            "upstream --listen a:1 --listen b:2",
            "the argument '--listen <ADDR>' cannot be used multiple times",
        ),
        (
            "upstream --listen a:1 --reader optics",
            "unexpected argument '--reader'",
        ),
        (
            "filter --upstream a:1 --downstream b:2 --reader fast",
            "invalid value 'fast' for '--reader <READER>'",
        ),
        ("filter --upstream a:1", "--downstream <ADDR>"),
        (
            "filter --upstream a:1 --downstream b:2 --listen c:3",
            "unexpected argument '--listen'",
        ),
        ("generate 10", "<FILE>"),
        (
            "generate ten out",
            "expects a whole number of messages, got `ten`",
        ),
        ("judge", "<FILE>"),
        ("judge a b", "unexpected argument 'b'"),
        ("judge --strict f", "unexpected argument '--strict'"),
        ("downstream --http2", "--connect <URI>"),
        (
            "downstream --listen a:1 --http2 --connect http://b:2",
            "cannot be used with",
        ),
        ("proxy --listen a:1", "--upstream <URI>"),
        (
            "filter --upstream a:1 --downstream b:2 --trust-input --validate-kept",
            "the argument '--trust-input' cannot be used with '--validate-kept'",
        ),
        (
            "proxy --listen a:1 --upstream http://b:2 --validate-kept --trust-input",
            "the argument '--validate-kept' cannot be used with '--trust-input'",
        ),
        (
            "filter --upstream a:1 --downstream b:2 --idle-timeout 5",
            "expects a time such as 500ms, 30s or 2m (or `off`), got `5`",
        ),
        (
            "filter --upstream a:1 --downstream b:2 --write-timeout 0s",
            "got `0s`",
        ),
        (
            "filter --upstream a:1 --downstream b:2 --judges 0",
            "invalid value '0' for '--judges <N>': expects a number of tasks from 1 to 256, got `0`",
        ),
        (
            "filter --upstream a:1 --downstream b:2 --judges many",
            "expects a number of tasks from 1 to 256, got `many`",
        ),
        (
            "--rounds 0",
            "invalid value '0' for '--rounds <R>': expects a number of rounds from 1 to 100, got `0`",
        ),
        (
            "--rounds 101 1000",
            "expects a number of rounds from 1 to 100, got `101`",
        ),
        ("--rounds", "a value is required for '--rounds <R>'"),
        (
            "upstream --listen a:1 --rounds 3",
            "unexpected argument '--rounds'",
        ),
    ];
    for (line, want) in cases {
        let err = parse(args(line)).expect_err(line);
        assert_eq!(err.exit_code(), i32::from(EXIT_USAGE), "{line}");
        let text = err.to_string();
        assert!(text.contains(want), "{line}: {text}");
        assert!(text.contains("--help"), "{line}: {text}");
    }
    // The reader's choices are listed where the value is wrong.
    let err = parse(args("filter --upstream a:1 --downstream b:2 --reader fast")).unwrap_err();
    assert!(
        err.to_string()
            .contains("[possible values: optics, decode, forward-all]"),
        "{err}"
    );
}

#[test]
fn a_proxy_upstream_the_proxy_cannot_use_is_a_usage_error_naming_the_flag() {
    let cases = [
        (
            "https://127.0.0.1:1",
            "TLS is not supported; use http:// (h2c)",
        ),
        ("127.0.0.1:1", "expected http://HOST:PORT"),
        ("ftp://127.0.0.1:1", "expected http://HOST:PORT"),
        ("http://", "expected http://HOST:PORT"),
        (
            "http://127.0.0.1:1/prefix",
            "a path (`/prefix`) is not supported",
        ),
        (
            "http://127.0.0.1:1/?x=1",
            "a path (`/?x=1`) is not supported",
        ),
    ];
    for (upstream, want) in cases {
        let line = format!("proxy --listen 127.0.0.1:0 --upstream {upstream}");
        let err = parse(args(&line)).expect_err(&line);
        assert_eq!(err.exit_code(), i32::from(EXIT_USAGE), "{line}");
        let text = err.to_string();
        assert!(
            text.contains(&format!(
                "invalid value '{upstream}' for '--upstream <URI>'"
            )),
            "{line}: {text}"
        );
        assert!(text.contains(want), "{line}: {text}");
    }
    // What the proxy can use is taken as given.
    for upstream in [
        "http://127.0.0.1:1",
        "http://127.0.0.1:1/",
        "http://localhost",
    ] {
        let line = format!("proxy --listen 127.0.0.1:0 --upstream {upstream}");
        match parse(args(&line)).expect(&line) {
            Command::Proxy { upstream: got, .. } => assert_eq!(got, upstream),
            other => panic!("{line}: {other:?}"),
        }
    }
}

#[tokio::test]
async fn downstream_http2_says_what_failed_and_where() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let refused = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let cases = [
        (refused.as_str(), "Connection refused"),
        ("nope", "invalid URL, scheme is missing"),
        ("http://", "invalid URI"),
        ("https://127.0.0.1:1", "https://127.0.0.1:1"),
    ];
    let shutdown = triage::shutdown::Shutdown::manual();
    for (uri, want) in cases {
        let err = triage::roles::http2::downstream(uri, 1, &shutdown)
            .await
            .expect_err(uri);
        assert_eq!(err.code, EXIT_FAILURE, "{uri}");
        let text = err.to_string();
        assert!(text.starts_with("downstream: "), "{uri}: {text}");
        assert!(
            text.contains(&format!("`{uri}`")),
            "{uri}: names the URI: {text}"
        );
        assert!(text.contains(want), "{uri}: says what failed: {text}");
        assert!(
            text.trim_end() != "downstream: transport: transport error",
            "{text}"
        );
    }
}

#[cfg(unix)]
#[test]
fn an_argument_that_is_not_utf8_is_a_usage_error() {
    use std::os::unix::ffi::OsStringExt;
    let err = parse([
        OsString::from("judge"),
        OsString::from_vec(vec![0xff, 0xfe]),
    ])
    .unwrap_err();
    assert_eq!(err.exit_code(), i32::from(EXIT_USAGE));
    assert_eq!(err.kind(), ErrorKind::InvalidUtf8);
}

#[test]
fn generate_then_judge_agrees_on_every_message() {
    let file = TempFile::new("generated");
    generate_file(500, file.path()).unwrap();
    let mut out = Vec::new();
    let judged = judge_file(file.path(), &mut out).unwrap();
    assert_eq!(judged.optics.messages, 500);
    assert_eq!(judged.optics.by_kind, judged.decode.by_kind);
    assert!(judged.optics.kept() > 0);
    assert!(judged.disagreements.is_empty());
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("optics: 500 messages"), "{text}");
    assert!(
        text.contains("full decode (baseline): 500 messages"),
        "{text}"
    );
    assert!(
        text.contains("the readers disagree on 0 of 500 messages"),
        "{text}"
    );
}

#[test]
fn judge_reports_a_truncated_last_frame_and_fails() {
    let file = TempFile::new("truncated");
    let mut wire = Vec::new();
    generate(20, &mut wire).unwrap();
    let whole = wire.len();
    wire.truncate(whole - 10);
    fs::write(&file.0, &wire).unwrap();

    let mut out = Vec::new();
    let err = judge_file(file.path(), &mut out).unwrap_err();
    assert_eq!(err.code, EXIT_FAILURE);
    assert!(
        err.message.contains("stream ended inside a frame"),
        "{}",
        err.message
    );
    assert!(err.message.contains("(frame 19 at byte"), "{}", err.message);
    assert!(
        err.message.contains("the 19 frames before it were judged"),
        "{}",
        err.message
    );
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("optics: 19 messages"), "{text}");
}

#[test]
fn judge_reports_where_the_readers_disagree() {
    // Well-formed JSON that is not an issue, with a detail the policy keeps:
    // the optics judge the detail (syntax checking cannot tell), a full
    // decode finds no issue.
    let policy = Policy::default();
    let mut g = Gen::new(5, 7);
    let issue = std::iter::repeat_with(|| Issue::generate(&mut g))
        .find(|issue| policy.keep(&issue.detail))
        .unwrap();
    let detail = serde_json::to_string(&issue.detail).unwrap();
    let json = format!(r#"{{"detail":{detail}}}"#).into_bytes();

    let mut wire = bytes::BytesMut::new();
    let mut good = Vec::new();
    generate(3, &mut good).unwrap();
    wire.extend_from_slice(&good);
    encode(&json, &mut wire).unwrap();

    let file = TempFile::new("disagree");
    fs::write(&file.0, &wire).unwrap();
    let mut out = Vec::new();
    let err = judge_file(file.path(), &mut out).unwrap_err();
    assert_eq!(err.code, EXIT_FAILURE);
    let want = format!(
        "the readers disagree on 1 of 4 messages; the first at frame 3 at byte {}",
        good.len()
    );
    assert!(err.message.contains(&want), "{}", err.message);
    let kind = Detail::kind.get(&issue.detail);
    let optics = format!("optics says {kind} kept");
    assert!(err.message.contains(&optics), "{}", err.message);
    assert!(
        err.message.contains("decode says none dropped"),
        "{}",
        err.message
    );
}

#[test]
fn judge_names_a_file_it_cannot_read() {
    let err = judge_file("/nonexistent/triage/frames.bin", &mut Vec::new()).unwrap_err();
    assert_eq!(err.code, EXIT_FAILURE);
    assert!(
        err.message
            .contains("judge: reading /nonexistent/triage/frames.bin"),
        "{}",
        err.message
    );
}

#[test]
fn an_option_a_role_would_not_use_is_a_usage_error() {
    for line in [
        "upstream --listen 127.0.0.1:0 --http2 --count 5",
        "upstream --listen 127.0.0.1:0 --http2 --write-timeout 1s",
        "downstream --listen 127.0.0.1:0 --count 5",
    ] {
        let err = parse(args(line)).expect_err(line);
        assert_eq!(err.exit_code(), i32::from(EXIT_USAGE), "{line}");
        // clap names the option that goes only with --http2, or without it.
        assert!(err.to_string().contains("--http2"), "{line}: {err}");
    }
    // Optics' modes, with a reader that would ignore them.
    for (line, says) in [
        (
            "filter --upstream a:1 --downstream b:2 --reader decode --trust-input",
            "--trust-input applies to `--reader optics` only, not to `--reader decode`",
        ),
        (
            "proxy --listen a:1 --upstream http://b:2 --validate-kept --reader forward-all",
            "--validate-kept applies to `--reader optics` only, not to `--reader forward-all`",
        ),
    ] {
        let err = parse(args(line)).expect_err(line);
        assert_eq!(err.exit_code(), i32::from(EXIT_USAGE), "{line}");
        assert!(err.to_string().contains(says), "{line}: {err}");
    }
    // Their defaults, and each used where it counts, still parse.
    for line in [
        "upstream --listen 127.0.0.1:0 --http2",
        "upstream --listen 127.0.0.1:0 --count 5 --write-timeout 1s",
        "downstream --listen 127.0.0.1:0",
        "downstream --http2 --connect http://127.0.0.1:1 --count 5",
    ] {
        assert!(parse(args(line)).is_ok(), "{line}");
    }
}

#[test]
fn judge_names_a_directory_before_any_report() {
    let dir = std::env::temp_dir();
    let name = dir.to_str().unwrap();
    let mut out = Vec::new();
    let err = judge_file(name, &mut out).unwrap_err();
    assert_eq!(err.code, EXIT_FAILURE);
    assert_eq!(
        err.message,
        format!("judge: reading {name}: a directory, not a file of frames")
    );
    assert!(out.is_empty(), "{}", String::from_utf8_lossy(&out));
}

#[test]
fn judge_counts_the_frames_before_a_framing_error_in_words() {
    let mut one = Vec::new();
    generate(1, &mut one).unwrap();
    for (frames, want) in [
        (&[][..], "; no frame came before it"),
        (&one[..], "; the frame before it was judged"),
    ] {
        let mut wire = frames.to_vec();
        // A frame whose flag byte is neither 0 nor 1.
        wire.extend_from_slice(&[7, 0, 0, 0, 2, b'{', b'}']);
        let file = TempFile::new("counted");
        fs::write(&file.0, &wire).unwrap();
        let mut out = Vec::new();
        let err = judge_file(file.path(), &mut out).unwrap_err();
        assert!(err.message.ends_with(want), "{}", err.message);
        if frames.is_empty() {
            // No tables of zeros before the error.
            let text = String::from_utf8(out).unwrap();
            assert_eq!(text, format!("{}: no frame judged\n", file.path()));
        }
    }
}

#[test]
fn judge_of_an_empty_input_says_so_instead_of_tables_of_zeros() {
    let file = TempFile::new("empty");
    fs::write(&file.0, b"").unwrap();
    let mut out = Vec::new();
    let judged = judge_file(file.path(), &mut out).unwrap();
    assert_eq!(judged.optics.messages, 0);
    assert_eq!(
        String::from_utf8(out).unwrap(),
        format!("{}: empty, no frames to judge\n", file.path())
    );
}
