//! Review 42, the proxy's command line: an `--upstream` whose port is not a
//! port (`:99999`, `:65536`, `:1a`, an empty `:`), or whose host is empty
//! (`http://:80`), is not `http://HOST:PORT`. The README says anything else
//! is a usage error naming `--upstream` (exit 2, before anything listens);
//! the http crate reads such a port as absent, and the proxy took it for
//! port 80, forwarding every call to whatever listens there.

use triage::args::parse;
use triage::exit::EXIT_USAGE;
use triage::judge::Judge;
use triage::policy::Policy;
use triage::proxy::{Proxy, ProxyError};

#[test]
fn an_upstream_port_that_is_not_a_port_is_a_usage_error_not_port_80() {
    for upstream in [
        "http://127.0.0.1:99999",
        "http://127.0.0.1:65536",
        "http://127.0.0.1:1a",
        "http://127.0.0.1:",
        "http://:80",
    ] {
        let line = ["proxy", "--listen", "127.0.0.1:0", "--upstream", upstream];
        let err = parse(line).expect_err(upstream);
        assert_eq!(err.exit_code(), i32::from(EXIT_USAGE), "{upstream}");
        let text = err.to_string();
        assert!(
            text.contains(&format!(
                "invalid value '{upstream}' for '--upstream <URI>'"
            )),
            "{upstream}: {text}"
        );
        // The library refuses it too.
        let err = Proxy::new(upstream, Judge::Optics, Policy::default()).unwrap_err();
        assert!(matches!(err, ProxyError::Upstream(_)), "{upstream}: {err}");
    }
    // A port given right, and none at all (http's 80), still parse.
    for upstream in [
        "http://127.0.0.1:65535",
        "http://127.0.0.1:1",
        "http://localhost",
        "http://[::1]:50052",
    ] {
        let line = ["proxy", "--listen", "127.0.0.1:0", "--upstream", upstream];
        assert!(parse(line).is_ok(), "{upstream}");
    }
}
