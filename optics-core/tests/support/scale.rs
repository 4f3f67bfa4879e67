//! How many cases a property runs: as written, or more for a campaign.
//! Also compiled into optics-core's unit tests and the root crate's
//! property tests (`#[path]`), so that one `PROPTEST_SCALE` deepens every
//! suite of the workspace (`tests/property_scale.rs` checks that each one
//! goes through it).

/// `n` property cases, times `PROPTEST_SCALE` when it is set: the suites
/// run as written in CI, and as deep as asked for a campaign
/// (`PROPTEST_SCALE=400 cargo test --release -p optics-core`).
///
/// # Panics
///
/// If `PROPTEST_SCALE` is set to anything but a whole number from 1 up, or
/// the product passes `u32`: a campaign asked for wrongly must not run as a
/// short one.
pub fn scaled(n: u32) -> u32 {
    let Some(scale) = std::env::var_os("PROPTEST_SCALE") else {
        return n;
    };
    let scale = scale
        .to_str()
        .and_then(|text| text.parse::<u32>().ok())
        .filter(|&scale| scale >= 1)
        .unwrap_or_else(|| {
            panic!("PROPTEST_SCALE must be a whole number from 1 up, got {scale:?}")
        });
    n.checked_mul(scale)
        .unwrap_or_else(|| panic!("PROPTEST_SCALE={scale} takes {n} cases past u32"))
}
