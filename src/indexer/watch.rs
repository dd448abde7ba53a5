//! Live indexing: watches the source locations (inotify through `notify`, with a polling
//! fallback) and runs an indexing pass over the files that changed, so a line an agent just
//! wrote is searchable within a couple of seconds.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use notify::{RecommendedWatcher, RecursiveMode, Watcher};

use super::run::{IndexError, IndexOptions, IndexSummary, index_paths};
use super::status::Watching;
use crate::store::{Store, StoreError};

/// How a watch loop behaves.
#[derive(Debug, Clone)]
pub struct WatchOptions {
    /// A full pass over every location runs at least this often (catches anything the file
    /// events missed; the only trigger when events are unavailable).
    pub full_pass_every: Duration,
    /// Used instead of `full_pass_every` when file events cannot be watched.
    pub poll_every: Duration,
    /// Quiet time gathered after a file event before the pass starts (a burst of appends
    /// becomes one commit).
    pub debounce: Duration,
    /// While another process holds the writer lock, try again this often.
    pub retry_locked_every: Duration,
}

impl Default for WatchOptions {
    fn default() -> WatchOptions {
        WatchOptions {
            full_pass_every: Duration::from_secs(60),
            poll_every: Duration::from_secs(1),
            debounce: Duration::from_millis(100),
            retry_locked_every: Duration::from_millis(500),
        }
    }
}

/// Indexes `options.paths` now, then again whenever files under them change; runs until the
/// process ends. Passes run on a private single-threaded runtime, so call this on a thread of
/// its own. `on_pass` sees each pass's outcome.
pub fn watch_and_index(
    store: &Store,
    options: &IndexOptions,
    watch: &WatchOptions,
    mut on_pass: impl FnMut(&Result<IndexSummary, IndexError>),
) -> Result<(), StoreError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(StoreError::io(store.data_dir()))?;
    let (sender, events) = channel::<notify::Result<notify::Event>>();
    let watcher = start_watcher(&options.paths, sender);
    if let Some(monitor) = &options.monitor {
        monitor.set_watching(if watcher.is_some() {
            Watching::Events
        } else {
            Watching::Polling
        });
    }
    let full_pass_every = if watcher.is_some() {
        watch.full_pass_every
    } else {
        watch.poll_every
    };
    let mut pending: Option<BTreeSet<PathBuf>> = None; // None: a full pass is due
    let mut last_full_pass = Instant::now();
    loop {
        let pass_options = match &pending {
            None => options.clone(),
            Some(changed) => IndexOptions {
                paths: changed
                    .iter()
                    .filter(|path| path.exists())
                    .cloned()
                    .collect(),
                ..options.clone()
            },
        };
        if pending.is_none() || !pass_options.paths.is_empty() {
            let outcome = runtime.block_on(index_paths(store, &pass_options));
            let locked = matches!(outcome, Err(IndexError::Store(StoreError::Locked { .. })));
            on_pass(&outcome);
            if locked {
                std::thread::sleep(watch.retry_locked_every);
                continue;
            }
            if pending.is_none() {
                last_full_pass = Instant::now();
            }
        }
        let until_full_pass = full_pass_every.saturating_sub(last_full_pass.elapsed());
        pending = wait_for_changes(&events, until_full_pass, watch.debounce);
    }
}

/// Watches every path recursively; `None` (and a warning) when the platform refuses.
fn start_watcher(
    paths: &[PathBuf],
    sender: std::sync::mpsc::Sender<notify::Result<notify::Event>>,
) -> Option<RecommendedWatcher> {
    let mut watcher = match notify::recommended_watcher(sender) {
        Ok(watcher) => watcher,
        Err(error) => {
            tracing::warn!(%error, "cannot watch files; polling instead");
            return None;
        }
    };
    for path in paths {
        if let Err(error) = watcher.watch(path, RecursiveMode::Recursive) {
            tracing::warn!(path = %path.display(), %error, "cannot watch; polling instead");
            return None;
        }
    }
    Some(watcher)
}

/// Waits up to `timeout` for file events, then gathers more for `debounce`. Returns the
/// changed log files, or `None` when a full pass is due (timeout, or the events overflowed).
fn wait_for_changes(
    events: &Receiver<notify::Result<notify::Event>>,
    timeout: Duration,
    debounce: Duration,
) -> Option<BTreeSet<PathBuf>> {
    let first = match events.recv_timeout(timeout) {
        Ok(event) => event,
        Err(RecvTimeoutError::Timeout) => return None,
        Err(RecvTimeoutError::Disconnected) => {
            std::thread::sleep(timeout);
            return None;
        }
    };
    let mut changed = BTreeSet::new();
    let mut needs_full_pass = !collect_paths(first, &mut changed);
    let deadline = Instant::now() + debounce;
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match events.recv_timeout(left) {
            Ok(event) => needs_full_pass |= !collect_paths(event, &mut changed),
            Err(_) => break,
        }
    }
    if needs_full_pass { None } else { Some(changed) }
}

/// Adds the log files an event names; false when the event asks for a rescan (or failed).
fn collect_paths(event: notify::Result<notify::Event>, changed: &mut BTreeSet<PathBuf>) -> bool {
    let Ok(event) = event else {
        return false;
    };
    if event.need_rescan() {
        return false;
    }
    // Reads (our own included) and metadata changes do not change what a log says.
    if event.kind.is_access()
        || matches!(
            event.kind,
            notify::EventKind::Modify(notify::event::ModifyKind::Metadata(_))
        )
    {
        return true;
    }
    for path in event.paths {
        if event.kind.is_create() && path.is_dir() {
            // A new directory (a new project): its files may predate the watch on it.
            return false;
        }
        if is_log_file(&path) || super::grouped::claim(&path).is_some() {
            changed.insert(path);
        }
    }
    true
}

fn is_log_file(path: &Path) -> bool {
    let name = path
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or("");
    name.ends_with(".jsonl")
        || (name.ends_with(".json") && !name.ends_with(".meta.json"))
        || name == crate::ingest::aider::HISTORY_FILE
        || crate::ingest::windsurf_acp::is_event_log_path(path)
}
