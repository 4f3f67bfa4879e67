//! Judging any bytes as an issue: no panic, and wherever serde_json decodes the
//! bytes as an `Issue`, the optics judge it exactly as the decoded issue.
#![no_main]

use libfuzzer_sys::fuzz_target;
use triage::judge;
use triage::model::Issue;
use triage::policy::Policy;

fuzz_target!(|data: &[u8]| {
    let policy = Policy::default();
    let by_optics = judge::by_optics(&policy, data);
    if serde_json::from_slice::<Issue>(data).is_ok() {
        assert_eq!(by_optics, judge::by_decoding(&policy, data));
    }
});
