//! A global allocator that counts: how many allocations a piece of code makes,
//! and how many bytes they ask for. For tests that assert "allocates nothing"
//! and benches that report allocations per message.
//!
//! Install [`Counting`] as the global allocator of the test or bench binary,
//! then wrap the code to measure in [`measure`] (every thread) or
//! [`measure_thread`] (the calling thread only, so that other tests running
//! beside it do not count):
//!
//! ```
//! #[global_allocator]
//! static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;
//!
//! let (sum, counts) = alloc_counter::measure_thread(|| [1, 2, 3].iter().sum::<u32>());
//! assert_eq!((sum, counts.allocations), (6, 0));
//! let (_, counts) = alloc_counter::measure_thread(|| vec![0u8; 100]);
//! assert_eq!((counts.allocations, counts.bytes), (1, 100));
//! ```
//!
//! It also follows the bytes live (allocated and not yet freed) and their
//! peak, for tests that state a memory bound: [`reset_peak`], then
//! [`peak_bytes`].
//!
//! Every call goes on to [`System`] unchanged; counting costs a few relaxed
//! atomic operations and a thread-local update. Without [`Counting`] installed, every
//! count is zero.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// What was allocated: a `realloc` counts as one allocation of the bytes it
/// grows by; frees are not counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Calls to `alloc`, `alloc_zeroed` and `realloc`.
    pub allocations: u64,
    /// Bytes those calls asked for (for `realloc`, the growth only).
    pub bytes: u64,
}

/// The counting allocator over [`System`]; see the crate docs for how to install it.
pub struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);
/// Bytes allocated and not yet freed, by every thread.
static LIVE: AtomicU64 = AtomicU64::new(0);
/// The most `LIVE` has been since the last [`reset_peak`].
static PEAK: AtomicU64 = AtomicU64::new(0);

/// Adds `grow` live bytes and removes `shrink`, raising the peak.
fn live(grow: usize, shrink: usize) {
    let now = LIVE.fetch_add(grow as u64, Relaxed) + grow as u64;
    LIVE.fetch_sub(shrink as u64, Relaxed);
    PEAK.fetch_max(now, Relaxed);
}

/// Bytes allocated and not yet freed, by every thread, now.
pub fn live_bytes() -> u64 {
    LIVE.load(Relaxed)
}

/// The most bytes that were allocated and not yet freed at once since the
/// last [`reset_peak`] (or the start): what a piece of code holds at its
/// worst, for tests that state a memory bound.
pub fn peak_bytes() -> u64 {
    PEAK.load(Relaxed)
}

/// Starts a new peak from the bytes live now.
pub fn reset_peak() {
    PEAK.store(LIVE.load(Relaxed), Relaxed);
}

thread_local! {
    // Const-initialized and without a destructor: touching it never allocates.
    static THREAD: Cell<Counts> = const { Cell::new(Counts { allocations: 0, bytes: 0 }) };
}

fn note(bytes: usize) {
    let bytes = bytes as u64;
    ALLOCATIONS.fetch_add(1, Relaxed);
    BYTES.fetch_add(bytes, Relaxed);
    // `try_with`: the thread's counts may already be gone while it exits.
    let _ = THREAD.try_with(|counts| counts.set(counts.get().plus(1, bytes)));
}

impl Counts {
    fn plus(self, allocations: u64, bytes: u64) -> Counts {
        Counts {
            allocations: self.allocations + allocations,
            bytes: self.bytes + bytes,
        }
    }
}

// SAFETY: every call is passed on unchanged to `System`, which upholds the
// `GlobalAlloc` contract; counting only touches atomics and a const-initialized
// thread-local `Cell`, neither of which allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        live(layout.size(), 0);
        // SAFETY: the caller's guarantees for `layout` are passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        live(layout.size(), 0);
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size.saturating_sub(layout.size()));
        live(new_size, layout.size());
        // SAFETY: `ptr` was allocated by `System` (through this allocator)
        // with `layout`, as the caller guarantees.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        live(0, layout.size());
        // SAFETY: as for `realloc`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Runs `f` and returns its result with what every thread allocated meanwhile,
/// for code that hands work to other threads.
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, Counts) {
    scoped(
        || Counts::default().plus(ALLOCATIONS.load(Relaxed), BYTES.load(Relaxed)),
        f,
    )
}

/// Runs `f` and returns its result with what the calling thread allocated
/// meanwhile: other threads (other tests of the same binary) do not count.
pub fn measure_thread<R>(f: impl FnOnce() -> R) -> (R, Counts) {
    scoped(|| THREAD.with(Cell::get), f)
}

/// `f`'s result, through `black_box` so that building it is not optimized
/// away, and the difference of `now` across it.
fn scoped<R>(now: impl Fn() -> Counts, f: impl FnOnce() -> R) -> (R, Counts) {
    let before = now();
    let result = std::hint::black_box(f());
    let after = now();
    let counts = Counts {
        allocations: after.allocations - before.allocations,
        bytes: after.bytes - before.bytes,
    };
    (result, counts)
}
