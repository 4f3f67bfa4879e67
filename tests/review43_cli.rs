//! The command line with bad or contradictory input: options that a
//! combination would ignore, values the role cannot use, through
//! `triage::args::parse` (what the example binary calls).

use triage::args::{parse, Command};
use triage::exit::EXIT_USAGE;
use triage::judge::Judge;

/// The command line's words for a line of text.
fn args(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

/// Parses `line`, which must be a usage error (exit code 2) whose text says
/// each of `says`; returns that text.
fn usage_error(line: &str, says: &[&str]) -> String {
    let err = parse(args(line)).expect_err(line);
    assert_eq!(err.exit_code(), i32::from(EXIT_USAGE), "{line}: {err}");
    let text = err.to_string();
    for want in says {
        assert!(text.contains(want), "{line}: {text}");
    }
    text
}

#[test]
fn a_keepalive_timeout_with_keepalive_off_is_a_usage_error_naming_both() {
    let base = "proxy --listen 127.0.0.1:0 --upstream http://127.0.0.1:1";
    for options in [
        "--keepalive off --keepalive-timeout 5s",
        "--keepalive-timeout 5s --keepalive off",
    ] {
        usage_error(
            &format!("{base} {options}"),
            &["--keepalive-timeout", "--keepalive off"],
        );
    }
    // Off with no timeout, and a timeout with a keepalive, still parse.
    for (options, want) in [
        ("--keepalive off", None),
        ("--keepalive 1m", Some((60, 20))),
        ("--keepalive 1m --keepalive-timeout 5s", Some((60, 5))),
    ] {
        let line = format!("{base} {options}");
        match parse(args(&line)) {
            Ok(Command::Proxy { keepalive, .. }) => assert_eq!(
                keepalive
                    .get()
                    .map(|(interval, timeout)| (interval.as_secs(), timeout.as_secs())),
                want,
                "{line}"
            ),
            other => panic!("{line}: {other:?}"),
        }
    }
}

#[test]
fn a_downstream_connect_uri_it_cannot_call_is_a_usage_error_naming_the_flag() {
    for (uri, want) in [
        ("nope", "expected http://HOST:PORT"),
        ("https://127.0.0.1:1", "TLS is not supported"),
        (
            "http://127.0.0.1:1/prefix",
            "a path (`/prefix`) is not supported",
        ),
        ("http://127.0.0.1:99999", "has no valid port"),
        (
            "http://user@127.0.0.1:1",
            "credentials (`user@`) are not supported",
        ),
        (
            "http://127.0.0.1:1#v1",
            "a fragment (`#v1`) is not supported",
        ),
    ] {
        let line = format!("downstream --http2 --connect {uri}");
        usage_error(
            &line,
            &[
                &format!("invalid value '{uri}' for '--connect <URI>'"),
                want,
            ],
        );
    }
    // What it can call is taken as given.
    for uri in ["http://127.0.0.1:1", "http://localhost:50051/"] {
        let line = format!("downstream --http2 --connect {uri} --count 5");
        match parse(args(&line)) {
            Ok(Command::Downstream {
                connect: Some(got),
                count: 5,
                ..
            }) => assert_eq!(got, uri),
            other => panic!("{line}: {other:?}"),
        }
    }
}

#[test]
fn a_conflict_clap_cannot_see_shows_the_subcommand_s_usage() {
    for (line, usage) in [
        (
            "proxy --listen a:1 --upstream http://b:2 --keepalive off --keepalive-timeout 1s",
            "Usage: grpc_filter proxy ",
        ),
        (
            "proxy --listen a:1 --upstream http://b:2 --reader decode --trust-input",
            "Usage: grpc_filter proxy ",
        ),
        (
            "filter --upstream a:1 --downstream b:2 --reader forward-all --validate-kept",
            "Usage: grpc_filter filter ",
        ),
    ] {
        let text = usage_error(line, &[usage, "--help"]);
        assert!(
            !text.contains("grpc_filter [OPTIONS] [N]"),
            "{line}: {text}"
        );
    }
}

#[test]
fn a_time_past_365_days_is_a_usage_error_not_a_panic_later() {
    // hyper added such a keepalive interval to an Instant, and the proxy's
    // connection task panicked on the first client.
    let proxy = "proxy --listen 127.0.0.1:0 --upstream http://127.0.0.1:1";
    let filter = "filter --upstream a:1 --downstream b:2";
    for (line, flag) in [
        (
            format!("{proxy} --keepalive 18446744073709551615s"),
            "--keepalive <TIME>",
        ),
        (format!("{proxy} --keepalive 525601m"), "--keepalive <TIME>"),
        (
            format!("{proxy} --keepalive 1m --keepalive-timeout 99999999999999999m"),
            "--keepalive-timeout <TIME>",
        ),
        (
            format!("{filter} --idle-timeout 31536000001ms"),
            "--idle-timeout <TIME>",
        ),
        (
            format!("{filter} --connect-timeout 31536001s"),
            "--connect-timeout <TIME>",
        ),
        (
            "upstream --listen a:1 --write-timeout 9999999999m".to_owned(),
            "--write-timeout <TIME>",
        ),
    ] {
        usage_error(
            &line,
            &[flag, "expects a time of at most 525600m (365 days)"],
        );
    }
    // 365 days itself is taken.
    let line = format!("{proxy} --keepalive 525600m --keepalive-timeout 31536000s");
    match parse(args(&line)) {
        Ok(Command::Proxy { keepalive, .. }) => {
            let (interval, timeout) = keepalive.get().unwrap();
            assert_eq!(interval, std::time::Duration::from_secs(365 * 86_400));
            assert_eq!(timeout, std::time::Duration::from_secs(365 * 86_400));
        }
        other => panic!("{line}: {other:?}"),
    }
    assert!(parse(args(&format!("{filter} --write-timeout 525600m"))).is_ok());
}

#[tokio::test]
async fn the_tcp_downstream_names_the_peer_whose_frames_it_cannot_read() {
    use tokio::io::AsyncWriteExt;
    use triage::downstream::Verify;
    use triage::net::{receive_one, NetError};

    let stop = tokio_util::sync::CancellationToken::new();
    // A good frame, then a flag that is neither 0 nor 1; and a frame cut short.
    let mut good = Vec::new();
    triage::roles::generate(1, &mut good).unwrap();
    let bad_flag = [&good[..], b"\x07\x00\x00\x00\x02{}"].concat();
    let cut = good[..good.len() - 3].to_vec();
    for (sent, says) in [
        (
            bad_flag,
            format!(
                "frame flag 0x07 is neither 0 nor 1 (frame 1 at byte {})",
                good.len()
            ),
        ),
        (cut, "stream ended inside a frame".to_owned()),
    ] {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let peer = tokio::spawn(async move {
            let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
            let local = stream.local_addr().unwrap();
            stream.write_all(&sent).await.unwrap();
            stream.shutdown().await.unwrap();
            local
        });
        let verify = Verify::Decode(triage::policy::Policy::default());
        let err = receive_one(&listener, &verify, &stop).await.unwrap_err();
        let local = peer.await.unwrap();
        assert!(matches!(err, NetError::Downstream { .. }), "{err:?}");
        let text = err.to_string();
        assert!(
            text.starts_with(&format!("downstream: reading from {local}: ")),
            "{text}"
        );
        assert!(text.contains(&says), "{text}");
    }
}

#[test]
fn an_empty_file_name_is_a_usage_error_naming_file() {
    for line in [vec!["generate", "3", ""], vec!["judge", ""]] {
        let err = parse(line.clone()).expect_err(&line.join(" "));
        assert_eq!(err.exit_code(), i32::from(EXIT_USAGE), "{line:?}: {err}");
        let text = err.to_string();
        assert!(
            text.contains("a value is required for '<FILE>' but none was supplied"),
            "{line:?}: {text}"
        );
    }
}

/// The example binary, beside this test's own executable (built by
/// `cargo build --examples`).
fn grpc_filter() -> std::path::PathBuf {
    let deps = std::env::current_exe().unwrap();
    let debug = deps.parent().unwrap().parent().unwrap();
    let exe = debug.join("examples").join("grpc_filter");
    assert!(
        exe.exists(),
        "{} is built by cargo build --examples",
        exe.display()
    );
    exe
}

#[cfg(target_os = "linux")]
#[test]
fn generate_to_a_stdout_it_cannot_write_names_stdout() {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = std::process::Command::new(grpc_filter())
        .args(["generate", "10", "-"])
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("generate: writing stdout: No space left on device"),
        "{stderr}"
    );
}

#[test]
fn port_0_to_connect_to_is_a_usage_error() {
    for (line, says) in [
        (
            "filter --upstream 127.0.0.1:0 --downstream 127.0.0.1:2",
            "invalid value '127.0.0.1:0' for '--upstream <ADDR>': expects an address to connect \
             to, HOST:PORT with a port from 1 to 65535",
        ),
        (
            "filter --upstream 127.0.0.1:1 --downstream localhost:00",
            "invalid value 'localhost:00' for '--downstream <ADDR>'",
        ),
        (
            "proxy --listen 127.0.0.1:0 --upstream http://127.0.0.1:0",
            "invalid value 'http://127.0.0.1:0' for '--upstream <URI>': `127.0.0.1:0` has port 0",
        ),
        (
            "downstream --http2 --connect http://localhost:0/",
            "invalid value 'http://localhost:0/' for '--connect <URI>': `localhost:0` has port 0",
        ),
    ] {
        usage_error(line, &[says]);
    }
    // Port 0 to listen on still means any free port.
    for line in [
        "upstream --listen 127.0.0.1:0",
        "downstream --listen 127.0.0.1:0",
        "proxy --listen 127.0.0.1:0 --upstream http://127.0.0.1:1",
    ] {
        assert!(parse(args(line)).is_ok(), "{line}");
    }
}

/// Serves `frames` once on a listener of its own and takes whatever comes
/// on another, both on 127.0.0.1: an upstream and a downstream for one run
/// of the filter. Returns their addresses.
async fn one_stream_peers(frames: Vec<u8>) -> (std::net::SocketAddr, std::net::SocketAddr) {
    use tokio::io::AsyncWriteExt;
    let up = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let down = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addrs = (up.local_addr().unwrap(), down.local_addr().unwrap());
    tokio::spawn(async move {
        let (mut stream, _) = up.accept().await.unwrap();
        stream.write_all(&frames).await.unwrap();
        stream.shutdown().await.unwrap();
    });
    tokio::spawn(async move {
        let (mut stream, _) = down.accept().await.unwrap();
        tokio::io::copy(&mut stream, &mut tokio::io::sink())
            .await
            .unwrap();
    });
    addrs
}

#[tokio::test]
async fn the_filter_s_tally_says_it_redacted() {
    let mut frames = Vec::new();
    triage::roles::generate(50, &mut frames).unwrap();
    for (redact, heading) in [
        (
            true,
            "filter (optics, redacting reporters' emails): 50 messages",
        ),
        (false, "filter (optics): 50 messages"),
    ] {
        let (up, down) = one_stream_peers(frames.clone()).await;
        let mut command = std::process::Command::new(grpc_filter());
        command.args(["filter", "--upstream", &up.to_string()]);
        command.args(["--downstream", &down.to_string()]);
        if redact {
            command.arg("--redact");
        }
        let out = tokio::task::spawn_blocking(move || command.output().unwrap())
            .await
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.starts_with(heading), "{stdout}");
    }
}

#[tokio::test]
async fn a_proxy_whose_upstream_is_its_own_address_is_refused() {
    let shutdown = triage::shutdown::Shutdown::manual();
    // Each case's listen host and upstream host, on one port.
    let mut cases = vec![
        ("127.0.0.1".to_owned(), "127.0.0.1".to_owned()),
        ("127.0.0.1".to_owned(), "localhost".to_owned()),
        ("0.0.0.0".to_owned(), "127.0.0.1".to_owned()),
    ];
    // The machine's own address on its network, which a proxy listening on
    // every address also listens on.
    match own_network_address() {
        Some(ip) => cases.push(("0.0.0.0".to_owned(), ip.to_string())),
        None => eprintln!("no address but loopback here: the network address's case not run"),
    }
    for (listen_host, upstream_host) in cases {
        // A port free a moment ago; the tests beside this one may take it
        // before the proxy binds it (an ephemeral port of theirs), so a
        // case whose port was taken runs again on another.
        let mut attempts = 0;
        let err = loop {
            attempts += 1;
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            let listen = format!("{listen_host}:{port}");
            let upstream = format!("http://{upstream_host}:{port}");
            let run =
                triage::roles::http2::proxy(&listen, &upstream, Judge::Optics, None, &shutdown);
            let err = tokio::time::timeout(std::time::Duration::from_secs(10), run)
                .await
                .expect("refused at once, not served")
                .unwrap_err();
            let taken = err.message.contains("cannot listen on") && err.message.contains("in use");
            if !taken || attempts == 5 {
                break (err, listen, upstream);
            }
        };
        let (err, listen, upstream) = err;
        assert_eq!(err.code, EXIT_USAGE, "{listen} {upstream}: {err}");
        assert!(
            err.message.starts_with(&format!(
                "proxy: --upstream {upstream} is the proxy's own --listen address"
            )),
            "{}",
            err.message
        );
    }
}

/// This machine's IPv4 address on its network: the source address the
/// system picks towards a documentation address (a UDP "connection" sends
/// nothing). `None` on a machine with no route but loopback.
fn own_network_address() -> Option<std::net::Ipv4Addr> {
    let socket = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
    socket.connect("198.51.100.1:9").ok()?;
    match socket.local_addr().ok()?.ip() {
        std::net::IpAddr::V4(ip) if !ip.is_loopback() && !ip.is_unspecified() => Some(ip),
        _ => None,
    }
}
