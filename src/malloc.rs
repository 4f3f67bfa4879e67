//! The allocator's side of the filter's read buffers, with glibc's malloc.
//!
//! The filter reads its upstream into buffers of [`READ_SIZE`] bytes and
//! more, whose frames are judged on one task and written on another; a
//! buffer's memory is freed when its last frame is dropped, on whichever
//! thread that happens. glibc's malloc adapts its thresholds as it goes,
//! and with this pattern it keeps giving that memory back to the kernel
//! (it maps large blocks apart and trims the top of a heap once a few
//! hundred KiB there are free): the next read then faults every page of
//! its buffer in again, in the middle of the `recv` that copies into it.
//! On the demo's loopback, three runs of 200,000 messages through the
//! trusting filter took 13,000 to 103,000 minor faults (most of them in
//! the filter's reads), against about 4,000 with the two thresholds below
//! fixed, and the process used about 15 % less CPU (five paired sets,
//! 0.80–1.10× the time, median 0.85×).
//!
//! [`keep_freed_buffers`] fixes both thresholds for the whole process (one
//! alone makes it worse: fixing either turns the other's adaptation off).
//! It is the binary's choice, not the library's: the demo and the filter's
//! command call it first thing (and `benches/stream.rs`, to measure the
//! pipe as they run it); a service that embeds a [`Filter`] may do the
//! same, or use an allocator that keeps freed memory.
//!
//! [`Filter`]: crate::filter::Filter

use crate::frames::{DEFAULT_MAX_MESSAGE, READ_SIZE};

/// Blocks from this size up are mapped apart (and unmapped when freed):
/// twice the largest read buffer the default limits make (a frame of the
/// largest size and a read), 8.5 MiB.
pub const MMAP_THRESHOLD: usize = 2 * (DEFAULT_MAX_MESSAGE + READ_SIZE);

/// Free memory at the top of a heap beyond this is given back to the
/// kernel: twice [`MMAP_THRESHOLD`], as glibc's own adaptation would set
/// it, 17 MiB.
pub const TRIM_THRESHOLD: usize = 2 * MMAP_THRESHOLD;

// `mallopt` takes a C `int`: both fit (the larger is 17 MiB).
const _: () = assert!(TRIM_THRESHOLD <= i32::MAX as usize);

/// Fixes glibc's mmap and trim thresholds at [`MMAP_THRESHOLD`] and
/// [`TRIM_THRESHOLD`], so that read buffers freed on one thread are
/// allocated again on another without faulting their pages back in (see
/// the module). `true` if glibc took both; `false` with another C library
/// (nothing is changed) or if glibc refused one.
///
/// Call it once, at the start of `main`, before other threads allocate.
/// Cost: two calls into the allocator. The process may then keep up to
/// [`TRIM_THRESHOLD`] bytes of freed memory a heap instead of returning it.
pub fn keep_freed_buffers() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // Both fit a C `int` (asserted above).
        let (mmap, trim) = (MMAP_THRESHOLD as libc::c_int, TRIM_THRESHOLD as libc::c_int);
        // SAFETY: `mallopt` only sets two of glibc's allocator parameters,
        // each to a value in its documented range; it takes the allocator's
        // own lock, reads and writes no memory of ours, and any thread may
        // call it at any time.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, mmap) == 1
                && libc::mallopt(libc::M_TRIM_THRESHOLD, trim) == 1
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        false
    }
}
