//! This process's heap as the OS sees it: its resident set (read from `/proc/self/status`) and
//! handing freed heap memory back after a large transient allocation.
//!
//! glibc's malloc keeps what a thread frees in that thread's arena for reuse, and trims an
//! arena only from its top. After `esker serve` loads a 10M-document directory (a SQL sort,
//! a concatenation and a compaction, each a copy of ~0.8 GB that is dropped) the process held
//! 2.3 GB of anonymous memory of which 1.3 GB was free blocks in the arenas; one
//! `malloc_trim(0)` returns them (measured: 2,291 → 978 MiB).

/// The allocator the shipped binary declares, re-exported for [`shipped_allocator!`].
#[cfg(all(target_os = "linux", not(target_env = "musl")))]
pub use tikv_jemallocator::Jemalloc;

/// Declares the global allocator `esker` ships with (jemalloc on glibc Linux: it returns freed
/// memory to the OS, see this module). The binary calls it, and so does every bench that runs
/// esker in-process, so that their figures are the server's (under glibc's malloc, malloc and
/// free took ~20% of `scale profile`'s samples at 1M documents; PERFORMANCE.md, "The benches
/// run the shipped allocator"). The library itself leaves the allocator to its user.
#[macro_export]
macro_rules! shipped_allocator {
    () => {
        #[cfg(all(target_os = "linux", not(target_env = "musl")))]
        #[global_allocator]
        static ALLOCATOR: $crate::heap::Jemalloc = $crate::heap::Jemalloc;
    };
}

/// The resident set figures of this process, in bytes (Linux; `None` elsewhere).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resident {
    /// `VmRSS`: resident now.
    pub now: u64,
    /// `VmHWM`: the peak so far.
    pub peak: u64,
    /// `RssAnon`: resident heap and other anonymous memory (not mapped files).
    pub anonymous: u64,
}

impl Resident {
    /// Reads `/proc/self/status`.
    pub fn read() -> Option<Resident> {
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        let field = |name: &str| -> Option<u64> {
            let line = status.lines().find(|line| line.starts_with(name))?;
            let kilobytes: u64 = line[name.len()..].split_whitespace().next()?.parse().ok()?;
            Some(kilobytes * 1024)
        };
        Some(Resident {
            now: field("VmRSS:")?,
            peak: field("VmHWM:")?,
            anonymous: field("RssAnon:")?,
        })
    }

    /// Mebibytes, for logs.
    pub fn mib(bytes: u64) -> u64 {
        bytes / (1024 * 1024)
    }
}

/// Returns freed heap memory to the OS now: jemalloc's unused dirty pages in every arena (the
/// binary's allocator, `src/main.rs`; it would return them by itself after its ten-second decay)
/// and glibc's free blocks (`malloc_trim(0)`, which also releases free pages inside the arenas,
/// not only at their tops; what library users and tests allocate with). Blocks for as long as
/// the allocators walk their arenas (milliseconds to tens of milliseconds for gigabytes): call
/// it off the async workers. Returns whether either allocator released memory or accepted the
/// request.
pub fn release_free_memory() -> bool {
    let jemalloc = purge_jemalloc_arenas();
    let glibc = trim_glibc_heap();
    jemalloc || glibc
}

#[cfg(all(target_os = "linux", not(target_env = "musl")))]
fn purge_jemalloc_arenas() -> bool {
    use std::ptr::null_mut;
    // `arena.<MALLCTL_ARENAS_ALL>.purge`: a void control, no value read or written.
    let name = c"arena.4096.purge";
    // SAFETY: a NUL-terminated control name with null old/new pointers, as jemalloc's
    // mallctl documents for void controls; it only releases pages no allocation holds.
    unsafe { tikv_jemalloc_sys::mallctl(name.as_ptr(), null_mut(), null_mut(), null_mut(), 0) == 0 }
}

#[cfg(not(all(target_os = "linux", not(target_env = "musl"))))]
fn purge_jemalloc_arenas() -> bool {
    false
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn trim_glibc_heap() -> bool {
    // SAFETY: malloc_trim only walks and unmaps glibc's own free lists, under its locks.
    unsafe { libc::malloc_trim(0) == 1 }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn trim_glibc_heap() -> bool {
    false
}

#[cfg(test)]
mod tests {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::sync::Mutex;

    use super::*;

    /// The release tests measure this whole process: one at a time.
    static MEASURING: Mutex<()> = Mutex::new(());

    const BLOCK: usize = 64 * 1024;
    const BLOCKS: usize = 4_000;

    /// Allocates [`BLOCKS`] blocks of [`BLOCK`] bytes from `allocator`, frees every other one
    /// (neither allocator can shrink past the live blocks between them), calls
    /// [`release_free_memory`] and returns how many bytes of anonymous memory left the process
    /// (the best of three tries: other tests' threads allocate meanwhile).
    fn released_after_fragmenting(allocator: &dyn GlobalAlloc) -> u64 {
        let _measuring = MEASURING
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        // Below glibc's mmap threshold, so the blocks live in an arena.
        let layout = Layout::from_size_align(BLOCK, 8).unwrap();
        let mut best = 0;
        for _ in 0..3 {
            let blocks: Vec<*mut u8> = (0..BLOCKS)
                .map(|_| {
                    // SAFETY: a non-zero-size layout; each block is written, then freed once.
                    unsafe {
                        let block = allocator.alloc(layout);
                        assert!(!block.is_null());
                        block.write_bytes(1, BLOCK);
                        block
                    }
                })
                .collect();
            for block in blocks.iter().step_by(2) {
                // SAFETY: allocated above with `layout`, freed once.
                unsafe { allocator.dealloc(*block, layout) };
            }
            let before = Resident::read().unwrap().anonymous;
            release_free_memory();
            let after = Resident::read().unwrap().anonymous;
            best = best.max(before.saturating_sub(after));
            for block in blocks.iter().skip(1).step_by(2) {
                // SAFETY: the blocks not freed above, freed once.
                unsafe { allocator.dealloc(*block, layout) };
            }
        }
        best
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_resident_set_is_read_and_the_peak_is_at_least_the_current_size() {
        let resident = Resident::read().expect("Linux has /proc/self/status");
        assert!(resident.now > 0);
        assert!(resident.peak >= resident.now);
        assert!(resident.anonymous <= resident.now);
    }

    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[test]
    fn glibc_free_blocks_inside_the_heap_go_back_to_the_os() {
        // 2,000 freed blocks of 64 KiB are 125 MiB.
        let released = released_after_fragmenting(&System);
        assert!(released > 64 * 1024 * 1024, "released {released} bytes");
    }

    #[cfg(all(target_os = "linux", not(target_env = "musl")))]
    #[test]
    fn jemalloc_dirty_pages_go_back_to_the_os_when_purged() {
        // This test binary's global allocator is glibc's: jemalloc is called directly. Without
        // the purge its freed pages stay resident until the ten-second decay.
        let released = released_after_fragmenting(&tikv_jemallocator::Jemalloc);
        assert!(released > 64 * 1024 * 1024, "released {released} bytes");
    }
}
