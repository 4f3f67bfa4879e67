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

/// The resolution of the CPU times read: one clock tick. A span's CPU time
/// is a whole number of ticks, off by up to one either way.
pub const TICK: Duration = Duration::from_millis(1000 / TICKS_PER_SECOND);

/// The fewest ticks of CPU time a span needs for its figure to mean
/// something: below, one tick is over a tenth of it.
pub const MIN_TICKS: u32 = 10;

/// What the process has used so far, or over a span (see
/// [`Usage::since`]): its CPU time (user and system, every thread, exited
/// ones included) and its minor page faults (pages the kernel mapped in at
/// their first touch; see [`crate::malloc`]). Each is `None` where
/// `/proc/self/stat` is not there or not understood.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// CPU time.
    pub cpu: Option<Duration>,
    /// Minor page faults.
    pub faults: Option<u64>,
}

impl Usage {
    /// The process's usage so far, from one read of `/proc/self/stat`.
    ///
    /// Cost: one read of a small `/proc` file (a few system calls, a few
    /// µs) and a small allocation for its text: for a run's start and end,
    /// not for a hot path.
    pub fn now() -> Usage {
        match std::fs::read_to_string("/proc/self/stat") {
            Ok(stat) => Usage {
                cpu: parse_stat(&stat),
                faults: parse_minor_faults(&stat),
            },
            Err(_) => Usage::default(),
        }
    }

    /// What the process used from `self` (a [`Usage::now`]) until now;
    /// costs what [`Usage::now`] does.
    pub fn since(self) -> Usage {
        let now = Usage::now();
        Usage {
            cpu: now
                .cpu
                .zip(self.cpu)
                .and_then(|(now, start)| now.checked_sub(start)),
            faults: now
                .faults
                .zip(self.faults)
                .and_then(|(now, start)| now.checked_sub(start)),
        }
    }
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

    /// Whether this system has no `/proc/self/stat` to read (said once).
    fn no_proc_stat() -> bool {
        let missing = !std::path::Path::new("/proc/self/stat").exists();
        if missing {
            eprintln!("no /proc/self/stat here: nothing to read");
        }
        missing
    }

    #[test]
    fn this_process_has_used_some_cpu_and_time_moves_forward() {
        if no_proc_stat() {
            return;
        }
        let start = Usage::now();
        assert!(start.cpu.is_some() && start.faults.is_some(), "{start:?}");
        // Spin until the kernel's next tick has been counted.
        let mut spent = Duration::ZERO;
        let began = std::time::Instant::now();
        while spent == Duration::ZERO && began.elapsed() < Duration::from_secs(5) {
            std::hint::black_box((0..10_000u64).sum::<u64>());
            spent = start.since().cpu.expect("time moves forward");
        }
        assert!(
            spent > Duration::ZERO,
            "5 s of spinning counted no CPU time"
        );
    }

    #[test]
    fn memory_touched_for_the_first_time_is_counted_as_faults() {
        if no_proc_stat() {
            return;
        }
        let start = Usage::now();
        // 64 MiB: above any threshold glibc maps blocks apart at, so the
        // pages are new to the process whatever was freed before.
        let fresh = vec![1u8; 64 << 20];
        std::hint::black_box(&fresh);
        let faults = start.since().faults.expect("faults are read");
        assert!(faults > 0, "64 MiB touched without a fault");
    }
}
