//! Every way to ask the allocator for memory is counted: `alloc`,
//! `alloc_zeroed` and `realloc` (growing or shrinking), on this thread and
//! on others.

use std::alloc::{GlobalAlloc, Layout};

#[global_allocator]
static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;

#[test]
fn alloc_zeroed_and_realloc_are_counted() {
    let layout = Layout::from_size_align(64, 8).unwrap();
    let ((), counts) = alloc_counter::measure_thread(|| {
        // SAFETY: a non-zero layout; each block is freed with the layout it
        // has at that point.
        unsafe {
            let a = GLOBAL.alloc(layout);
            let z = GLOBAL.alloc_zeroed(layout);
            let grown = GLOBAL.realloc(a, layout, 256);
            let shrunk = GLOBAL.realloc(grown, Layout::from_size_align(256, 8).unwrap(), 32);
            GLOBAL.dealloc(z, layout);
            GLOBAL.dealloc(shrunk, Layout::from_size_align(32, 8).unwrap());
        }
    });
    // Four calls; bytes: 64 + 64, then the growth by 192, then no growth.
    assert_eq!(counts.allocations, 4);
    assert_eq!(counts.bytes, 64 + 64 + 192);
}

#[test]
fn a_vec_that_grows_counts_each_reallocation() {
    let (v, counts) = alloc_counter::measure_thread(|| {
        let mut v: Vec<u64> = Vec::with_capacity(1);
        for i in 0..1000 {
            v.push(i);
        }
        v
    });
    assert_eq!(v.len(), 1000);
    // The first allocation (1 element), then growth to 4 (the least a
    // growing vector of 8-byte elements takes) and each doubling to 1,024.
    assert_eq!(counts.allocations, 1 + 9);
    assert_eq!(counts.bytes, 1024 * 8);
}

#[test]
fn measure_counts_other_threads_and_measure_thread_does_not() {
    let spawn = || {
        std::thread::spawn(|| std::hint::black_box(vec![1u8; 4096]))
            .join()
            .unwrap()
    };
    let (_, all) = alloc_counter::measure(spawn);
    assert!(all.allocations >= 1 && all.bytes >= 4096, "{all:?}");
    let (_, here) = alloc_counter::measure_thread(|| {
        std::thread::spawn(|| drop(std::hint::black_box(vec![1u8; 4096])))
            .join()
            .unwrap()
    });
    assert!(here.bytes < 4096, "{here:?}");
}
