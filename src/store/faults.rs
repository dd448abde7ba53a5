//! Fault injection for crash-safety tests: `ESKER_CRASH_AT=<point>[:<nth>]` aborts the process
//! (no destructors, no flushes, like `kill -9`) the nth time it reaches the named point.

use std::sync::atomic::{AtomicU64, Ordering};

/// The named points, in the order a commit reaches them.
pub const CRASH_POINTS: [&str; 7] = [
    "after-events",
    "after-tables",
    "after-search-commit",
    "after-publish",
    "after-state",
    "after-flip",
    "after-cleanup",
];

static HITS: AtomicU64 = AtomicU64::new(0);

/// Aborts here when `ESKER_CRASH_AT` names this point (and this is its nth hit).
pub fn crash_point(point: &str) {
    let Ok(setting) = std::env::var("ESKER_CRASH_AT") else {
        return;
    };
    let (name, nth) = match setting.split_once(':') {
        Some((name, nth)) => (name, nth.parse::<u64>().unwrap_or(1)),
        None => (setting.as_str(), 1),
    };
    if name != point {
        return;
    }
    let hit = HITS.fetch_add(1, Ordering::SeqCst) + 1;
    if hit == nth {
        eprintln!("esker: ESKER_CRASH_AT={setting}: aborting at {point}");
        std::process::abort();
    }
}
