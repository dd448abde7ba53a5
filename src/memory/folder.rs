//! The server's background folding: after saves it waits for a quiet moment (saves in a burst
//! become one commit), then folds the journal into a new generation when the writer lock is
//! free, retrying every second while another writer (`esker index`, the server's own log
//! indexer) holds it — whose commits fold the entries too. Runs on a thread of its own so
//! tool calls keep the runtime's workers.

use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::time::{Duration, Instant};

use super::fold::{FoldOutcome, fold_if_unlocked};
use crate::store::Store;

/// A fold starts once no save came for this long...
const QUIET: Duration = Duration::from_millis(500);
/// ...or this long after the first save of a burst.
const MAX_DELAY: Duration = Duration::from_secs(5);
/// Wait between attempts while another writer holds the lock.
const LOCKED_RETRY: Duration = Duration::from_secs(1);
/// Wait after a failed fold, and how many failures end the attempt (the next save retries).
const FAILED_RETRY: Duration = Duration::from_secs(5);
const MAX_FAILURES: usize = 5;
/// How the folder names itself in the writer lock.
pub const WRITER_ROLE: &str = "esker serve (memory folder)";

/// Asks the folder to fold; cheap to clone.
#[derive(Debug, Clone)]
pub struct FolderHandle {
    requests: Sender<()>,
}

impl FolderHandle {
    /// Asks for a fold soon (never blocks).
    pub fn request(&self) {
        let _ = self.requests.send(());
    }
}

/// Starts the folder for `store`; it also folds whatever an earlier process left unfolded.
/// It stops when every handle is dropped.
pub fn spawn(store: Store) -> std::io::Result<FolderHandle> {
    let (requests, received) = channel();
    std::thread::Builder::new()
        .name("esker-memory-folder".to_owned())
        .spawn(move || run(&store, &received))?;
    let handle = FolderHandle { requests };
    handle.request();
    Ok(handle)
}

fn run(store: &Store, requests: &Receiver<()>) {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            tracing::warn!("memory folder cannot start: {error}");
            return;
        }
    };
    while requests.recv().is_ok() {
        let open = wait_for_quiet(requests);
        fold_until_done(store, &runtime);
        if !open {
            return;
        }
    }
}

/// Drains the requests of a burst; `false` when the handles are gone.
fn wait_for_quiet(requests: &Receiver<()>) -> bool {
    let first = Instant::now();
    loop {
        match requests.recv_timeout(QUIET) {
            Ok(()) if first.elapsed() < MAX_DELAY => continue,
            Ok(()) | Err(RecvTimeoutError::Timeout) => return true,
            Err(RecvTimeoutError::Disconnected) => return false,
        }
    }
}

fn fold_until_done(store: &Store, runtime: &tokio::runtime::Runtime) {
    let mut failures = 0;
    loop {
        match runtime.block_on(fold_if_unlocked(store, WRITER_ROLE)) {
            Ok(FoldOutcome::Folded(summary)) => {
                tracing::debug!(
                    generation = summary.generation,
                    entries = summary.folded_entries,
                    "memory entries folded"
                );
                return;
            }
            Ok(FoldOutcome::NothingPending) => return,
            Ok(FoldOutcome::Locked) => std::thread::sleep(LOCKED_RETRY),
            Err(error) => {
                failures += 1;
                tracing::warn!("folding memory entries failed: {error}");
                if failures >= MAX_FAILURES {
                    return;
                }
                std::thread::sleep(FAILED_RETRY);
            }
        }
    }
}
