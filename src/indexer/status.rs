//! What the indexer reports about itself while it runs: the progress of the current pass, the
//! outcome of past passes, the watcher's state. The MCP server reads it for
//! `get_ingest_status` and for the `coverage` object of every retrieval answer. Holds counts
//! and times only, never paths or error text.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{SystemTime, UNIX_EPOCH};

use super::run::IndexSummary;

/// How many past passes the status keeps (Moraine keeps 61 heartbeats).
pub const HISTORY_LIMIT: usize = 61;

/// How the files are being watched between passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Watching {
    /// No watching: one pass at startup, or no indexer in this process.
    Off,
    /// File system events (notify).
    Events,
    /// Polling, because the platform refused a watcher.
    Polling,
}

impl Watching {
    pub fn as_str(self) -> &'static str {
        match self {
            Watching::Off => "off",
            Watching::Events => "events",
            Watching::Polling => "polling",
        }
    }
}

/// The pass in progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PassProgress {
    pub started_unix_ms: i64,
    pub files_total: u64,
    pub files_completed: u64,
    pub bytes_total: u64,
    pub bytes_completed: u64,
    pub last_progress_unix_ms: i64,
}

/// A finished pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PassRecord {
    pub finished_unix_ms: i64,
    pub duration_ms: u64,
    pub files_seen: u64,
    pub files_ingested: u64,
    pub files_unchanged: u64,
    pub files_held_back: u64,
    pub files_failed: u64,
    pub bytes_total: u64,
    pub bytes_read: u64,
    pub new_events: u64,
    /// False when the pass ended in an error (it is retried by the next pass).
    pub succeeded: bool,
}

/// Everything the monitor knows at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IngestSnapshot {
    /// Whether an indexer runs in this process at all.
    pub in_process: bool,
    pub watching: Watching,
    /// Whether the indexer thread has stopped (it should run for the process's life).
    pub indexer_stopped: bool,
    /// Whether the last attempt found the writer lock held by another process.
    pub waiting_for_writer_lock: bool,
    pub current: Option<PassProgress>,
    pub first_pass_finished: bool,
    pub last_commit_unix_ms: Option<i64>,
    pub history: VecDeque<PassRecord>,
}

impl IngestSnapshot {
    pub fn last_pass(&self) -> Option<&PassRecord> {
        self.history.back()
    }

    /// Files that failed in the last finished pass (they are retried by the next one).
    pub fn files_failed(&self) -> u64 {
        self.last_pass().map_or(0, |pass| pass.files_failed)
    }
}

/// Shared between the indexer (writes) and the server (reads); cheap to clone.
#[derive(Debug, Clone)]
pub struct IngestMonitor {
    state: Arc<Mutex<IngestSnapshot>>,
}

impl IngestMonitor {
    /// A monitor for an indexer running in this process.
    pub fn in_process() -> IngestMonitor {
        IngestMonitor::with(true)
    }

    /// The monitor of a server that does not index (another process writes the store).
    pub fn external() -> IngestMonitor {
        IngestMonitor::with(false)
    }

    fn with(in_process: bool) -> IngestMonitor {
        IngestMonitor {
            state: Arc::new(Mutex::new(IngestSnapshot {
                in_process,
                watching: Watching::Off,
                indexer_stopped: false,
                waiting_for_writer_lock: false,
                current: None,
                first_pass_finished: false,
                last_commit_unix_ms: None,
                history: VecDeque::new(),
            })),
        }
    }

    fn lock(&self) -> MutexGuard<'_, IngestSnapshot> {
        // A panic while holding the lock leaves counts, never broken invariants: keep going.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub fn snapshot(&self) -> IngestSnapshot {
        self.lock().clone()
    }

    pub fn set_watching(&self, watching: Watching) {
        self.lock().watching = watching;
    }

    pub fn indexer_stopped(&self) {
        let mut state = self.lock();
        state.indexer_stopped = true;
        state.current = None;
    }

    /// A pass found its files: `bytes_total` is the sum of their sizes.
    pub fn pass_started(&self, files_total: u64, bytes_total: u64) {
        let now = unix_now_ms();
        let mut state = self.lock();
        state.waiting_for_writer_lock = false;
        state.current = Some(PassProgress {
            started_unix_ms: now,
            files_total,
            files_completed: 0,
            bytes_total,
            bytes_completed: 0,
            last_progress_unix_ms: now,
        });
    }

    /// One file of the current pass is done (read, skipped or failed).
    pub fn file_done(&self, file_bytes: u64) {
        let mut state = self.lock();
        if let Some(current) = state.current.as_mut() {
            current.files_completed += 1;
            current.bytes_completed += file_bytes;
            current.last_progress_unix_ms = unix_now_ms();
        }
    }

    /// A commit of this pass landed.
    pub fn committed(&self) {
        self.lock().last_commit_unix_ms = Some(unix_now_ms());
    }

    /// The pass ended with `summary`.
    pub fn pass_finished(&self, summary: &IndexSummary) {
        let mut state = self.lock();
        let bytes_total = state.current.map_or(0, |current| current.bytes_total);
        let record = PassRecord {
            finished_unix_ms: unix_now_ms(),
            duration_ms: summary.elapsed.as_millis() as u64,
            files_seen: summary.files_seen as u64,
            files_ingested: summary.files_ingested as u64,
            files_unchanged: summary.files_unchanged as u64,
            files_held_back: summary.files_held_back as u64,
            files_failed: summary.files_failed as u64,
            bytes_total,
            bytes_read: summary.bytes_read,
            new_events: summary.new_events as u64,
            succeeded: true,
        };
        finish(&mut state, record);
    }

    /// The pass ended in an error; the writer lock held elsewhere is not a failure.
    pub fn pass_failed(&self, lock_held_elsewhere: bool) {
        let mut state = self.lock();
        if lock_held_elsewhere {
            state.waiting_for_writer_lock = true;
            state.current = None;
            return;
        }
        let current = state.current;
        let now = unix_now_ms();
        let record = PassRecord {
            finished_unix_ms: now,
            duration_ms: current.map_or(0, |pass| (now - pass.started_unix_ms).max(0) as u64),
            files_seen: current.map_or(0, |pass| pass.files_total),
            files_ingested: 0,
            files_unchanged: 0,
            files_held_back: 0,
            files_failed: 0,
            bytes_total: current.map_or(0, |pass| pass.bytes_total),
            bytes_read: 0,
            new_events: 0,
            succeeded: false,
        };
        finish(&mut state, record);
    }
}

fn finish(state: &mut IngestSnapshot, record: PassRecord) {
    state.current = None;
    state.first_pass_finished |= record.succeeded;
    if state.history.len() == HISTORY_LIMIT {
        state.history.pop_front();
    }
    state.history.push_back(record);
}

/// Milliseconds since the Unix epoch, now.
pub fn unix_now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_millis() as i64)
}

/// Whether another process holds the writer lock at `lock_path` right now: `None` where the
/// platform does not tell. Reads `/proc/locks` so it never takes the lock itself (even a
/// shared probe would make a starting writer fail).
pub fn writer_lock_held(lock_path: &Path) -> Option<bool> {
    let inode = lock_inode(lock_path)?;
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    Some(locks.lines().any(|line| holds_inode(line, inode)))
}

#[cfg(unix)]
fn lock_inode(path: &Path) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    match std::fs::metadata(path) {
        Ok(metadata) => Some(metadata.ino()),
        // No lock file: no writer has ever run, so none holds it.
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Some(0),
        Err(_) => None,
    }
}

#[cfg(not(unix))]
fn lock_inode(_path: &Path) -> Option<u64> {
    None
}

/// Whether a `/proc/locks` line ("1: FLOCK ADVISORY WRITE 123 fd:01:4567 0 EOF") is an
/// exclusive lock on `inode`.
fn holds_inode(line: &str, inode: u64) -> bool {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let Some(position) = fields.iter().position(|field| *field == "WRITE") else {
        return false;
    };
    fields
        .get(position + 2)
        .and_then(|device_inode| device_inode.rsplit(':').next())
        .and_then(|number| number.parse::<u64>().ok())
        .is_some_and(|found| inode != 0 && found == inode)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn summary(files_failed: usize) -> IndexSummary {
        IndexSummary {
            files_seen: 3,
            files_ingested: 2,
            files_failed,
            bytes_read: 300,
            elapsed: Duration::from_millis(40),
            ..IndexSummary::default()
        }
    }

    #[test]
    fn a_pass_moves_from_current_to_history() {
        let monitor = IngestMonitor::in_process();
        monitor.pass_started(3, 900);
        monitor.file_done(300);
        let during = monitor.snapshot();
        let current = during.current.expect("a pass runs");
        assert_eq!((current.files_completed, current.bytes_completed), (1, 300));
        assert!(!during.first_pass_finished);
        monitor.committed();
        monitor.pass_finished(&summary(1));
        let after = monitor.snapshot();
        assert!(after.current.is_none());
        assert!(after.first_pass_finished);
        assert_eq!(after.files_failed(), 1);
        assert_eq!(after.last_pass().unwrap().bytes_total, 900);
        assert!(after.last_commit_unix_ms.is_some());
    }

    #[test]
    fn a_held_lock_is_waiting_not_a_failed_pass() {
        let monitor = IngestMonitor::in_process();
        monitor.pass_failed(true);
        let state = monitor.snapshot();
        assert!(state.waiting_for_writer_lock);
        assert!(state.history.is_empty());
        monitor.pass_failed(false);
        let state = monitor.snapshot();
        assert!(!state.history.back().unwrap().succeeded);
        assert!(!state.first_pass_finished);
    }

    #[test]
    fn history_keeps_the_last_passes_only() {
        let monitor = IngestMonitor::in_process();
        for _ in 0..HISTORY_LIMIT + 5 {
            monitor.pass_started(1, 1);
            monitor.pass_finished(&summary(0));
        }
        assert_eq!(monitor.snapshot().history.len(), HISTORY_LIMIT);
    }

    #[test]
    fn proc_locks_lines_are_matched_by_inode_and_exclusive_only() {
        let line = "1: FLOCK  ADVISORY  WRITE 4242 fd:01:123456 0 EOF";
        assert!(holds_inode(line, 123456));
        assert!(!holds_inode(line, 12345));
        assert!(!holds_inode(
            "2: FLOCK  ADVISORY  READ 4242 fd:01:123456 0 EOF",
            123456
        ));
        assert!(!holds_inode(line, 0));
    }

    #[test]
    fn a_held_writer_lock_is_seen_and_a_released_one_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.lock");
        assert!(!writer_lock_held(&path).unwrap_or(false));
        let file = std::fs::File::create(&path).unwrap();
        file.lock().unwrap();
        if let Some(held) = writer_lock_held(&path) {
            assert!(held, "an exclusive flock must be seen in /proc/locks");
        }
        file.unlock().unwrap();
        if let Some(held) = writer_lock_held(&path) {
            assert!(!held);
        }
    }
}
