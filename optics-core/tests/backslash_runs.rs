//! Runs of backslashes at and across block edges, in documents whose late
//! field the end's walk finds reading backward: every read agrees with
//! serde_json, trusting and strict ([`agree`]).

mod support;

use optics_core::prelude::*;
use serde::Deserialize;
use support::oracle::agree;

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Doc {
    a: String,
    b: Inner,
    c: String,
    z: u32,
}

#[derive(Optics, Deserialize, Debug, Clone, PartialEq)]
struct Inner {
    s: String,
    t: String,
    y: u32,
}

/// A string body: `pad` letters, then a run of `run` backslashes and what an
/// odd run escapes (a quote, with a member spelled after it inside the
/// string) or an even run leaves plain.
fn body(pad: usize, run: usize) -> String {
    let mut out = "p".repeat(pad);
    out.push_str(&"\\".repeat(run));
    if run % 2 == 1 {
        out.push_str(r#"",\"z\":99,\"y\":98,\""#);
    } else {
        out.push('x');
    }
    out
}

#[test]
fn runs_at_block_edges_read_backward() {
    for pad in (0..70).step_by(3) {
        for run in [1, 2, 3, 63, 64, 65, 66, 127, 128, 129, 130, 200, 201] {
            let one = body(pad, run);
            let two = body(pad + 5, run + 1);
            let doc = format!(
                r#"{{"a":"{one}","b":{{"t":"{two}","y":3,"s":"{one}"}},"c":"{two}{one}","z":7}}"#
            );
            assert_eq!(agree(&doc, Doc::z), Some(7), "{doc}");
            assert_eq!(agree(&doc, Doc::b.then(Inner::y)), Some(3), "{doc}");
            agree(&doc, Doc::c);
            agree(&doc, Doc::b.then(Inner::s));
            // The late field first: the end reads every run backward.
            let doc = format!(
                r#"{{"z":7,"a":"{one}","c":"{two}{one}{two}","b":{{"s":"{one}","y":3,"t":"{two}{two}"}}}}"#
            );
            assert_eq!(agree(&doc, Doc::z), Some(7), "{doc}");
            assert_eq!(agree(&doc, Doc::b.then(Inner::y)), Some(3), "{doc}");
            agree(&doc, Doc::b.then(Inner::t));
        }
    }
}
