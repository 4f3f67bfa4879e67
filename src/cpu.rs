//! How much CPU the process used during a run: the demo runs the upstream,
//! the filter and the downstream in one process, so the CPU time a message
//! costs them together bounds the rate the machine's cores can sustain.
//! Also how many pages it faulted in (see [`crate::malloc`]).
//!
//! Read from `/proc/self/stat` (Linux): user and system time, in the
//! kernel's clock ticks of 1/100 s, and minor faults. Elsewhere, or if the
//! file cannot be read, there is no figure and the report leaves the line
//! out.

use std::time::Duration;

/// The kernel's clock ticks a second for `/proc` times (`USER_HZ`, fixed at
/// 100 on Linux for user space).
const TICKS_PER_SECOND: u64 = 100;

/// The CPU time (user and system, every thread, exited ones included) the
/// process has used so far; `None` where `/proc/self/stat` is not there or
/// not understood.
///
/// Cost: one read of a small `/proc` file (a few system calls, a few µs)
/// and a small allocation for its text: for a run's start and end, not for
/// a hot path.
pub fn process_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    parse_stat(&stat)
}

/// The CPU time between `start` (a [`process_time`]) and now; costs what
/// [`process_time`] does.
pub fn since(start: Option<Duration>) -> Option<Duration> {
    process_time()?.checked_sub(start?)
}

/// The minor page faults the process has taken so far (pages the kernel
/// mapped in at their first touch, every thread's, exited ones included):
/// the 10th field of `/proc/self/stat`; `None` where it cannot be read.
///
/// Cost: as [`process_time`].
pub fn minor_faults() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    parse_minor_faults(&stat)
}

/// The minor faults taken since `start` (a [`minor_faults`]); costs what
/// [`minor_faults`] does.
pub fn faults_since(start: Option<u64>) -> Option<u64> {
    minor_faults()?.checked_sub(start?)
}

/// The fields of a `/proc/<pid>/stat` line from the 3rd (the state) on.
/// The second field (the command's name, in parentheses) may hold spaces
/// and parentheses itself, so the fields are counted from the last `)`.
fn fields_after_name(stat: &str) -> Option<std::str::SplitWhitespace<'_>> {
    let (_, after_name) = stat.rsplit_once(')')?;
    Some(after_name.split_whitespace())
}

/// Minor faults from a `/proc/<pid>/stat` line: the 10th field.
fn parse_minor_faults(stat: &str) -> Option<u64> {
    fields_after_name(stat)?.nth(7)?.parse().ok()
}

/// User plus system time from a `/proc/<pid>/stat` line: the 14th and 15th
/// fields.
fn parse_stat(stat: &str) -> Option<Duration> {
    // After the name: field 3 (state) onwards, so utime (14) is the 12th.
    let mut fields = fields_after_name(stat)?.skip(11);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    let ticks = user.checked_add(system)?;
    Some(Duration::from_millis(
        ticks.checked_mul(1000 / TICKS_PER_SECOND)?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_and_system_time_come_from_fields_14_and_15() {
        let line = "4242 (grpc filter) R 1 4242 4242 0 -1 4194304 980 0 0 0 \
                    137 45 0 0 20 0 6 0 5000 100000 2000 18446744073709551615";
        assert_eq!(parse_stat(line), Some(Duration::from_millis(1820)));
    }

    #[test]
    fn a_name_holding_parentheses_and_spaces_is_skipped_whole() {
        let line = "7 (a) b (c) R 1 7 7 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 1 1 1";
        assert_eq!(parse_stat(line), Some(Duration::from_millis(70)));
    }

    #[test]
    fn minor_faults_come_from_field_10() {
        let line = "4242 (grpc filter) R 1 4242 4242 0 -1 4194304 980 0 0 0 \
                    137 45 0 0 20 0 6 0 5000 100000 2000 18446744073709551615";
        assert_eq!(parse_minor_faults(line), Some(980));
        assert_eq!(
            parse_minor_faults("7 (a) b (c) R 1 7 7 0 -1 0 12 0"),
            Some(12)
        );
        assert_eq!(parse_minor_faults("7 (a) R 1 7 7 0 -1 0"), None);
        assert_eq!(parse_minor_faults("7 (a) R 1 7 7 0 -1 0 x"), None);
    }

    #[test]
    fn a_line_cut_short_or_not_numbers_gives_nothing() {
        assert_eq!(parse_stat("7 (a) R 1 7 7 0 -1 0 0 0 0 0 3"), None);
        assert_eq!(parse_stat("7 (a) R 1 7 7 0 -1 0 0 0 0 0 x y"), None);
        assert_eq!(parse_stat("no name here"), None);
    }

    #[test]
    fn this_process_has_used_some_cpu_and_time_moves_forward() {
        if !std::path::Path::new("/proc/self/stat").exists() {
            eprintln!("no /proc/self/stat here: nothing to read");
            return;
        }
        let start = process_time().expect("/proc/self/stat reads");
        // Spin until the kernel's next tick has been counted.
        let mut spent = Duration::ZERO;
        let began = std::time::Instant::now();
        while spent == Duration::ZERO && began.elapsed() < Duration::from_secs(5) {
            std::hint::black_box((0..10_000u64).sum::<u64>());
            spent = since(Some(start)).expect("time moves forward");
        }
        assert!(
            spent > Duration::ZERO,
            "5 s of spinning counted no CPU time"
        );
    }
}
