//! The generated issues: their size at the demo's size, and their kinds.

use triage::generate::{Gen, Generate};
use triage::model::{Detail, Issue};

#[test]
fn messages_at_size_7_are_about_4_kb() {
    let mut g = Gen::new(7, 7);
    let sizes: Vec<usize> = (0..2000)
        .map(|_| Issue::generate(&mut g).to_json().len())
        .collect();
    let min = *sizes.iter().min().unwrap();
    let max = *sizes.iter().max().unwrap();
    let mean = sizes.iter().sum::<usize>() as f64 / sizes.len() as f64;
    println!(
        "size 7: {} messages, min {min} B, mean {mean:.0} B, max {max} B",
        sizes.len()
    );
    assert!((3900.0..=4400.0).contains(&mean), "mean {mean}");
    assert!(min >= 2400 && max <= 6200, "min {min} max {max}");
}

#[test]
fn a_third_of_the_issues_are_of_each_kind() {
    let mut g = Gen::new(1, 7);
    let mut counts = [0usize; 3];
    for _ in 0..3000 {
        match Issue::generate(&mut g).detail {
            Detail::Bug(_) => counts[0] += 1,
            Detail::Incident(_) => counts[1] += 1,
            Detail::Request(_) => counts[2] += 1,
        }
    }
    for count in counts {
        assert!((850..=1150).contains(&count), "{counts:?}");
    }
}
