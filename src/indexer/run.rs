//! One indexing pass: walks the given paths, re-reads only files whose checkpoint changed,
//! parses and assembles them, commits the touched sessions, and reports a summary.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::Value;

use super::assemble::assemble;
use super::grouped::{self, Claim, Group, SharedIndexes, SqliteStore};
use super::status::IngestMonitor;
use crate::engine::commit::{SearchBatch, commit_from};
use crate::heap::Resident;
use crate::ids::stable_hash_hex;
use crate::ingest::homes::{Homes, Origin};
use crate::ingest::lines::SplitLines;
use crate::ingest::reader::{ReadLimits, stream_json_lines};
use crate::ingest::{
    Content, Format, Recognised, format_named, line_format, parse, recognise_whole,
};
use crate::model::{EventType, Source};
use crate::redact::Redactor;
use crate::store::commit::CommitInput;
use crate::store::rows::AssembledSession;
use crate::store::state::{Checkpoint, StoreState};
use crate::store::{Store, StoreError, WriterLock};

/// Format name recorded for files of no known format (so unchanged ones are not re-read).
pub(crate) const UNKNOWN_FORMAT: &str = "unknown";

/// Format name recorded for encrypted files of a known harness.
pub(crate) const ENCRYPTED_FORMAT: &str = "encrypted";

/// How many issues (malformed lines, parser warnings) are printed per file; all are counted.
const ISSUES_SHOWN_PER_FILE: usize = 5;

/// The memory an indexing pass keeps under unless told otherwise.
pub const DEFAULT_MEMORY_LIMIT: u64 = 2 << 30;

/// The smallest `--memory-limit` accepted: a first index under a 256 MB limit peaked at
/// 307 MB resident (the binary's mapped code, tantivy's least buffers, the store's state and
/// one 16 MiB batch: PERFORMANCE.md "Heavy histories"), under 512 MB at 346 MB.
pub const MIN_MEMORY_LIMIT: u64 = 384 << 20;

/// A batch is committed for memory only once it holds this much (fewer, larger commits
/// where the limit is tight), and memory is looked at again after this much more is read.
const MEMORY_CHECK_BYTES: u64 = 4 << 20;

impl IndexOptions {
    /// The batch size the pass commits at: `batch_bytes`, at most a sixteenth of the memory
    /// limit (a batch's parsed rows, tables and index buffers take ~10× its bytes at peak:
    /// 1.2–1.5 GB for 128 MiB batches, PERFORMANCE.md).
    pub fn effective_batch_bytes(&self) -> u64 {
        self.batch_bytes.min((self.memory_limit / 16).max(1 << 20))
    }
}

/// The heap (anonymous resident memory) past which a pass commits its batch early: three
/// quarters of `limit`, or, in a process that already held more when the pass began (a
/// server's in-memory directory may take up to half of the limit), what it held then plus half
/// of the limit, so the pass does not commit every few MiB for memory it did not take.
fn memory_mark(limit: u64, held_at_start: u64) -> u64 {
    (limit / 4 * 3).max(held_at_start.saturating_add(limit / 2))
}

/// Whether this process's heap passed `mark`.
fn memory_is_high(mark: u64) -> bool {
    crate::heap::Resident::read().is_some_and(|resident| resident.anonymous > mark)
}

/// Options of one indexing pass.
#[derive(Debug, Clone)]
pub struct IndexOptions {
    /// Files or directories (walked recursively).
    pub paths: Vec<PathBuf>,
    /// Show a progress bar on stderr when it is a terminal.
    pub progress: bool,
    /// Print one line per ingested or skipped file on stderr.
    pub list_files: bool,
    /// Print skipped lines and unreadable files (file and line) on stderr; otherwise they are
    /// only counted and logged.
    pub report_issues: bool,
    /// How long to wait for another writer; `None` fails at once with a clear error.
    pub wait_for_lock: Option<Duration>,
    /// Who is writing, recorded in the lock file for the error another writer sees.
    pub writer_role: String,
    /// Drop the whole store first and rebuild it from the source logs.
    pub rebuild: bool,
    /// Replace secrets in the logs by `[REDACTED:<kind>]` before anything is stored.
    pub redact: bool,
    /// The rules secrets are found with (the built-in ones unless `--rules` adds a file).
    pub redactor: Arc<Redactor>,
    /// Commit after reading this many bytes of changed logs, so memory stays bounded and a
    /// crash loses at most one batch of work.
    pub batch_bytes: u64,
    /// The resident memory (heap, not mapped files) the pass keeps under: batches are at most
    /// a sixteenth of it, and a batch is committed early when the process's anonymous
    /// memory passes three quarters of it, or half of it above what the process held when the
    /// pass began (`--memory-limit`, default 2 GiB).
    pub memory_limit: u64,
    pub limits: ReadLimits,
    /// Where the pass reports its progress and outcome (the server's `get_ingest_status`).
    pub monitor: Option<IngestMonitor>,
}

impl Default for IndexOptions {
    fn default() -> IndexOptions {
        IndexOptions {
            paths: Vec::new(),
            progress: false,
            list_files: false,
            report_issues: false,
            wait_for_lock: None,
            writer_role: "esker index".to_string(),
            rebuild: false,
            redact: true,
            redactor: Redactor::builtin(),
            batch_bytes: 128 << 20,
            memory_limit: DEFAULT_MEMORY_LIMIT,
            limits: ReadLimits::default(),
            monitor: None,
        }
    }
}

/// What one pass did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IndexSummary {
    pub files_seen: usize,
    pub files_ingested: usize,
    pub files_unchanged: usize,
    pub files_skipped: usize,
    pub files_held_back: usize,
    pub files_failed: usize,
    /// Files of a known harness that are encrypted (Antigravity IDE `.pb` trajectories,
    /// Windsurf's Cascade history).
    pub files_encrypted: usize,
    /// SQLite stores being written while read: retried on the next pass.
    pub stores_busy: usize,
    /// Directory entries that could not be walked (symlink loops, dangling links, no access).
    pub walk_errors: usize,
    pub sessions: usize,
    pub new_events: usize,
    pub written_events: usize,
    pub malformed_lines: u64,
    /// Records a parser skipped or could not fully use (unknown type, wrong field type...).
    pub parser_warnings: u64,
    pub secrets_redacted: u64,
    pub commits: usize,
    /// Commits made early because memory passed three quarters of the limit.
    pub memory_commits: usize,
    pub bytes_read: u64,
    pub elapsed: Duration,
    pub generation: Option<u64>,
    pub by_format: BTreeMap<&'static str, usize>,
    /// Records of a type esker does not know, kept as `unknown` events: per source, how many of
    /// each type (the event's subtype) the files read in this pass hold. Drift shows here the
    /// day a harness ships a new record type.
    pub unknown_records: BTreeMap<&'static str, BTreeMap<String, u64>>,
}

impl IndexSummary {
    /// Counts the `unknown` events of sessions read in this pass by source and record type.
    fn count_unknown_records(&mut self, sessions: &[AssembledSession]) {
        let unknown = sessions
            .iter()
            .flat_map(|session| &session.events)
            .filter(|event| event.event_type == EventType::Unknown);
        for event in unknown {
            let record_type = event.subtype.as_deref().unwrap_or("untyped");
            *self
                .unknown_records
                .entry(event.source.as_str())
                .or_default()
                .entry(record_type.to_string())
                .or_default() += 1;
        }
    }

    /// One line per source that had records of unknown types: `claude: 2 unknown record
    /// types: foo ×12, bar ×1` (most frequent first).
    pub fn unknown_record_lines(&self) -> Vec<String> {
        self.unknown_records
            .iter()
            .map(|(source, types)| {
                let mut counted: Vec<(&String, &u64)> = types.iter().collect();
                counted.sort_by(|left, right| right.1.cmp(left.1).then(left.0.cmp(right.0)));
                let listed = counted
                    .iter()
                    .map(|(record_type, count)| format!("{record_type} \u{d7}{count}"))
                    .collect::<Vec<_>>()
                    .join(", ");
                let noun = if types.len() == 1 { "type" } else { "types" };
                format!("{source}: {} unknown record {noun}: {listed}", types.len())
            })
            .collect()
    }
}

impl fmt::Display for IndexSummary {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let seconds = self.elapsed.as_secs_f64();
        let megabytes = self.bytes_read as f64 / 1_000_000.0;
        let throughput = if seconds > 0.0 {
            megabytes / seconds
        } else {
            0.0
        };
        let formats = self
            .by_format
            .iter()
            .map(|(format, count)| format!("{format}={count}"))
            .collect::<Vec<_>>()
            .join(" ");
        write!(
            formatter,
            "files: {} seen, {} ingested, {} unchanged, {} skipped (unknown format), {} encrypted, {} held back, \
             {} busy (retried next pass), {} failed; \
             formats: {}; sessions: {}; events: {} new ({} written); malformed lines: {}; \
             parser warnings: {}; walk errors: {}; secrets redacted: {}; commits: {}; \
             elapsed: {:.2}s; {:.1} MB read at {:.1} MB/s",
            self.files_seen,
            self.files_ingested,
            self.files_unchanged,
            self.files_skipped,
            self.files_encrypted,
            self.files_held_back,
            self.stores_busy,
            self.files_failed,
            if formats.is_empty() {
                "none".to_string()
            } else {
                formats
            },
            self.sessions,
            self.new_events,
            self.written_events,
            self.malformed_lines,
            self.parser_warnings,
            self.walk_errors,
            self.secrets_redacted,
            self.commits,
            seconds,
            megabytes,
            throughput
        )?;
        if self.memory_commits > 0 {
            write!(
                formatter,
                "; {} of the commits early, for the memory limit",
                self.memory_commits
            )?;
        }
        for line in self.unknown_record_lines() {
            write!(formatter, "\n{line}")?;
        }
        Ok(())
    }
}

/// Errors that stop a pass (a bad source file never does).
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("path does not exist: {0}")]
    MissingPath(PathBuf),
}

/// A skipped line or record of one file.
pub(super) struct FileIssue {
    pub(super) line: u64,
    pub(super) message: String,
}

/// A file (or grouped source) read and parsed, ready to commit.
pub(super) struct IngestedFile {
    pub(super) format: Format,
    pub(super) checkpoint: Checkpoint,
    pub(super) sessions: Vec<AssembledSession>,
    pub(super) removed_sessions: Vec<String>,
    pub(super) malformed_lines: u64,
    pub(super) parser_warnings: u64,
    pub(super) secrets_redacted: u64,
    pub(super) issues: Vec<FileIssue>,
    /// Further checkpoints the source keeps (a store's per-session row checkpoints).
    pub(super) extra_checkpoints: Vec<(String, Checkpoint)>,
}

/// What happened to one file (or grouped source).
pub(super) enum FileOutcome {
    Unchanged,
    Skipped(Checkpoint),
    HeldBack,
    Ingested(Box<IngestedFile>),
    /// Only the held-back tail changed: the checkpoint moves, the data does not.
    CheckpointOnly(Checkpoint),
    /// A file of a known harness that is encrypted: counted, remembered, not read.
    Encrypted(Checkpoint),
    /// A SQLite store changed while it was read: nothing moves, the next pass retries.
    Busy(PathBuf),
    /// A store that could not be read (reported like an unreadable file).
    Failed(String),
}

/// Work read since the last commit.
#[derive(Default)]
struct Batch {
    input: CommitInput,
    /// Where each session of `input.sessions` is, by id (a session is in a batch once).
    positions: HashMap<String, usize>,
    /// The search index side, fed as sessions are admitted (opened with the first one).
    search: Option<SearchBatch>,
    removed: Vec<(String, String)>,
    bytes: u64,
}

impl Batch {
    /// Adds parsed sessions to the batch and hands them to the search index. When two files
    /// yield the same session (Gemini copies a resumed `.json` session into a new `.jsonl`
    /// under the same id), the copy with the most events is kept, whether the other copy is
    /// in this batch or already stored.
    fn admit(
        &mut self,
        sessions: Vec<AssembledSession>,
        store: &Store,
        state: &mut StoreState,
    ) -> Result<(), IndexError> {
        if sessions.is_empty() {
            return Ok(());
        }
        state.ensure_loaded(
            sessions
                .iter()
                .map(|session| session.session.session_id.as_str()),
        )?;
        for session in sessions {
            if let Some(kept) = fuller_stored_copy(&session, state) {
                tracing::info!(
                    session = %session.session.session_id,
                    kept = %kept,
                    dropped = %session.session.source_path,
                    "session found in two files; keeping the fuller stored copy"
                );
                continue;
            }
            let search = match &mut self.search {
                Some(search) => search,
                None => self.search.insert(SearchBatch::open(store, state)?),
            };
            match self.positions.get(&session.session.session_id) {
                Some(&position) => {
                    let kept = &mut self.input.sessions[position];
                    let keep_stored = kept.events.len() >= session.events.len();
                    let (fuller, other) = if keep_stored {
                        (&*kept, &session)
                    } else {
                        (&session, &*kept)
                    };
                    tracing::info!(
                        session = %session.session.session_id,
                        kept = %fuller.session.source_path,
                        dropped = %other.session.source_path,
                        "session found in two files; keeping the fuller copy"
                    );
                    if keep_stored {
                        continue;
                    }
                    search.put_session(&session, Some(kept))?;
                    *kept = session;
                }
                None => {
                    search.put_session(&session, None)?;
                    self.positions.insert(
                        session.session.session_id.clone(),
                        self.input.sessions.len(),
                    );
                    self.input.sessions.push(session);
                }
            }
        }
        Ok(())
    }
}

/// The source of a stored copy of `session` read from another file with more events.
fn fuller_stored_copy<'a>(session: &AssembledSession, state: &'a StoreState) -> Option<&'a str> {
    state
        .sessions
        .get(&session.session.session_id)
        .filter(|location| {
            location.source_path != session.session.source_path
                && location.event_count > session.events.len() as u64
        })
        .map(|location| location.source_path.as_str())
}

/// Runs one indexing pass into `store`: reads changed files and commits them in batches.
pub async fn index_paths(
    store: &Store,
    options: &IndexOptions,
) -> Result<IndexSummary, IndexError> {
    let outcome = run_pass(store, options).await;
    if let Some(monitor) = &options.monitor {
        match &outcome {
            Ok(summary) => monitor.pass_finished(summary),
            Err(error) => monitor.pass_failed(matches!(
                error,
                IndexError::Store(StoreError::Locked { .. })
            )),
        }
    }
    outcome
}

async fn run_pass(store: &Store, options: &IndexOptions) -> Result<IndexSummary, IndexError> {
    let started = Instant::now();
    for path in &options.paths {
        if fs::symlink_metadata(path).is_err() {
            return Err(IndexError::MissingPath(path.clone()));
        }
    }
    let lock = match options.wait_for_lock {
        Some(wait) => WriterLock::acquire_waiting(store, &options.writer_role, wait)?,
        None => WriterLock::try_acquire(store, &options.writer_role)?,
    };
    let mut paths = options.paths.clone();
    if options.rebuild {
        store.reset(&lock)?;
    } else if let Some(found) = store.outdated_format()? {
        paths.extend(previously_indexed_files(store));
        tracing::warn!(
            found,
            expected = crate::store::FORMAT_VERSION,
            "the store was written by an older esker: rebuilding it from the source logs"
        );
        store.reset(&lock)?;
    }
    let mut state = StoreState::load_lazily(&store.verify()?.root)?;
    // Facts cached across files (Claude Desktop's Code titles) are checked again once a pass.
    crate::ingest::claude_desktop_titles::pass_started();
    let mut summary = IndexSummary::default();
    let mut sources = discover_sources(&paths, options.report_issues, &mut summary);
    let sizes = newest_first(&mut sources.files);
    let files = &sources.files;
    // Only the state shards of this pass's files are read (a SQLite store's rows are kept
    // under keys of their own: a pass over one reads them all).
    if sources.stores.is_empty() {
        let keys: Vec<String> = files
            .iter()
            .chain(sources.encrypted.iter())
            .map(|file| file.to_string_lossy().into_owned())
            .chain(
                sources
                    .groups
                    .iter()
                    .map(|group| group.key.to_string_lossy().into_owned()),
            )
            .collect();
        state.ensure_loaded(keys.iter().map(String::as_str))?;
    } else {
        state.ensure_all_loaded()?;
    }
    let source_count =
        files.len() + sources.encrypted.len() + sources.groups.len() + sources.stores.len();
    let bytes_total: u64 = sizes.iter().sum();
    let progress = progress_bar(options.progress, bytes_total, source_count);
    summary.files_seen = source_count;
    if let Some(monitor) = &options.monitor {
        monitor.pass_started(source_count as u64, bytes_total);
    }

    // Switching redaction on or off, or to other rules, re-reads every file, so the store is
    // all one way.
    let redaction_rules = redaction_rules_of(options);
    let redaction_changed =
        state.redacted != options.redact || state.redaction_rules != redaction_rules;
    let mut batch = Batch::default();
    let batch_bytes = options.effective_batch_bytes();
    crate::search::writer::set_writer_memory_limit(options.memory_limit);
    let mut commit_at = first_commit_bytes(batch_bytes);
    let mut memory_checked_at = 0;
    let held_at_start = crate::heap::Resident::read().map_or(0, |resident| resident.anonymous);
    let early_commit_mark = memory_mark(options.memory_limit, held_at_start);
    let mut shared = SharedIndexes::default();
    let others = sources.encrypted.iter().map(PassSource::Encrypted);
    let groups = sources.groups.iter().map(PassSource::Group);
    let stores = sources.stores.iter().map(PassSource::Store);
    let all = files
        .iter()
        .map(PassSource::File)
        .chain(others)
        .chain(groups)
        .chain(stores);
    for (position, source) in all.enumerate() {
        let file_bytes = sizes.get(position).copied().unwrap_or(0);
        progress.inc(file_bytes);
        progress.set_message(format!("{}/{source_count} files", position + 1));
        let file = source.path();
        let key = file.to_string_lossy().into_owned();
        // A store's rows are kept under keys of their own; its commit in this pass may come
        // after entries were evicted by earlier commits.
        if matches!(source, PassSource::Store(_)) {
            state.ensure_all_loaded()?;
        } else {
            state.ensure_loaded([key.as_str()])?;
        }
        let checkpoint = state.checkpoints.get(&key).filter(|_| !redaction_changed);
        let outcome = match source {
            PassSource::File(file) => read_file(file, checkpoint, options),
            PassSource::Encrypted(file) => Ok(encrypted_outcome(file, checkpoint)),
            PassSource::Group(group) => {
                Ok(grouped::read_group(group, checkpoint, options, &mut shared))
            }
            PassSource::Store(store) => {
                let no_rows = BTreeMap::new();
                let rows = if redaction_changed {
                    &no_rows
                } else {
                    &state.checkpoints
                };
                Ok(grouped::read_store(store, checkpoint, rows, options))
            }
        };
        let sessions = record_outcome(
            file,
            key,
            outcome,
            options,
            &progress,
            &mut batch,
            &mut summary,
        );
        batch.admit(sessions, store, &mut state)?;
        if let Some(monitor) = &options.monitor {
            monitor.file_done(file_bytes);
        }
        let memory_high = batch.bytes >= memory_checked_at + MEMORY_CHECK_BYTES && {
            memory_checked_at = batch.bytes;
            memory_is_high(early_commit_mark)
        };
        if batch.bytes >= commit_at || memory_high {
            if memory_high && batch.bytes < commit_at {
                tracing::info!(
                    batch_bytes = batch.bytes,
                    memory_limit_mib = options.memory_limit >> 20,
                    "memory past three quarters of the limit: committing the batch early"
                );
                summary.memory_commits += 1;
            }
            memory_checked_at = 0;
            commit_at = (commit_at.saturating_mul(2)).min(batch_bytes);
            if position + 1 < source_count
                && let Some(search) = &batch.search
            {
                // More sources follow: the pass's last commit merges as usual.
                search.defer_merges();
            }
            batch.input.redacted = Some(options.redact);
            batch.input.redaction_rules = Some(redaction_rules.clone());
            commit_batch(store, &mut state, std::mem::take(&mut batch), &mut summary).await?;
            report_commit(options, &summary);
            if memory_high {
                crate::heap::release_free_memory();
            }
        }
    }
    progress.finish_and_clear();
    batch.input.redacted = Some(options.redact);
    batch.input.redaction_rules = Some(redaction_rules);
    commit_batch(store, &mut state, batch, &mut summary).await?;
    report_commit(options, &summary);
    // Memory entries saved while no log changed are folded too (a run without commits would
    // otherwise leave them in the journal).
    if let Err(error) = crate::memory::fold::commit_pending(store, &lock).await {
        tracing::warn!("folding memory entries failed: {error}");
    }
    summary.elapsed = started.elapsed();
    Ok(summary)
}

/// Tells the monitor a commit landed (when this pass has committed at all).
fn report_commit(options: &IndexOptions, summary: &IndexSummary) {
    if let (Some(monitor), Some(_)) = (&options.monitor, summary.generation) {
        monitor.committed();
    }
}

/// The first commit of a pass comes after this many bytes of changed logs (or the pass's
/// `batch_bytes` when smaller), each later one after twice as many as the one before, up to
/// `batch_bytes`: on a first index of a large history, the newest logs (read first, see
/// [`newest_first`]) are searchable within seconds while the rest fills in, at the cost of a
/// few small commits.
pub const FIRST_COMMIT_BYTES: u64 = 16 << 20;

fn first_commit_bytes(batch_bytes: u64) -> u64 {
    batch_bytes.min(FIRST_COMMIT_BYTES)
}

/// Orders plain log files newest first (by modification time, then by path; a file that
/// cannot be read last), so a pass over a large history commits the recent weeks first.
/// Returns their sizes in the new order (0 for a file that cannot be read: the pass reports
/// it on its own).
fn newest_first(files: &mut Vec<PathBuf>) -> Vec<u64> {
    let mut stamped: Vec<(Option<std::time::SystemTime>, u64, PathBuf)> = files
        .drain(..)
        .map(|file| {
            let metadata = fs::metadata(&file).ok();
            let modified = metadata.as_ref().and_then(|m| m.modified().ok());
            let size = metadata.map_or(0, |m| m.len());
            (modified, size, file)
        })
        .collect();
    stamped.sort_by(|(a_time, _, a_path), (b_time, _, b_path)| {
        b_time.cmp(a_time).then_with(|| a_path.cmp(b_path))
    });
    let mut sizes = Vec::with_capacity(stamped.len());
    for (_, size, file) in stamped {
        sizes.push(size);
        files.push(file);
    }
    sizes
}

/// One source of a pass: a file, an encrypted file, or a grouped session.
enum PassSource<'a> {
    File(&'a PathBuf),
    Encrypted(&'a PathBuf),
    Group(&'a Group),
    Store(&'a SqliteStore),
}

impl PassSource<'_> {
    /// The path its checkpoint is kept under.
    fn path(&self) -> &Path {
        match self {
            PassSource::File(path) | PassSource::Encrypted(path) => path,
            PassSource::Group(group) => &group.key,
            PassSource::Store(store) => &store.path,
        }
    }
}

/// An encrypted file: remembered by its identity so it is counted once, not re-noted.
fn encrypted_outcome(file: &Path, previous: Option<&Checkpoint>) -> FileOutcome {
    let Ok(metadata) = fs::metadata(file) else {
        return FileOutcome::Unchanged;
    };
    let identity = FileIdentity::of(&metadata);
    if previous.is_some_and(|checkpoint| identity.matches(checkpoint)) {
        return FileOutcome::Unchanged;
    }
    FileOutcome::Encrypted(checkpoint_for(
        &identity,
        0,
        String::new(),
        ENCRYPTED_FORMAT,
        Vec::new(),
        0,
    ))
}

/// The files an older store had indexed that still exist: a format upgrade re-reads them too,
/// so sessions indexed from other paths than this run's are not lost.
fn previously_indexed_files(store: &Store) -> Vec<PathBuf> {
    let Ok(snapshot) = store.current() else {
        return Vec::new();
    };
    let Ok(previous) = StoreState::load(&snapshot.root) else {
        return Vec::new();
    };
    previous
        .checkpoints
        .keys()
        .map(PathBuf::from)
        .filter(|path| path.exists())
        .collect()
}

/// Adds what reading one file gave to the batch and the summary; returns the sessions it
/// parsed, for [`Batch::admit`].
fn record_outcome(
    file: &Path,
    key: String,
    outcome: Result<FileOutcome, StoreError>,
    options: &IndexOptions,
    progress: &ProgressBar,
    batch: &mut Batch,
    summary: &mut IndexSummary,
) -> Vec<AssembledSession> {
    let mut sessions = Vec::new();
    match outcome {
        Ok(FileOutcome::Unchanged) => summary.files_unchanged += 1,
        Ok(FileOutcome::HeldBack) => summary.files_held_back += 1,
        Ok(FileOutcome::Skipped(checkpoint)) => {
            if options.list_files {
                progress.suspend(|| eprintln!("  skipped (unknown format)  {}", file.display()));
            }
            summary.files_skipped += 1;
            batch.input.checkpoints.insert(key, checkpoint);
        }
        Ok(FileOutcome::CheckpointOnly(checkpoint)) => {
            summary.files_unchanged += 1;
            batch.input.checkpoints.insert(key, checkpoint);
        }
        Ok(FileOutcome::Encrypted(checkpoint)) => {
            if options.list_files {
                progress.suspend(|| eprintln!("  skipped (encrypted)  {}", file.display()));
            }
            summary.files_encrypted += 1;
            batch.input.checkpoints.insert(key, checkpoint);
        }
        Ok(FileOutcome::Busy(store)) => {
            if options.report_issues {
                progress.suspend(|| {
                    eprintln!(
                        "  busy  {}: being written, retried on the next pass",
                        store.display()
                    )
                });
            }
            summary.stores_busy += 1;
        }
        Ok(FileOutcome::Failed(error)) => {
            if options.report_issues {
                progress.suspend(|| eprintln!("  failed  {}: {error}", file.display()));
            }
            tracing::warn!(file = %file.display(), %error, "cannot read log source");
            summary.files_failed += 1;
        }
        Ok(FileOutcome::Ingested(ingested)) => {
            let ingested = *ingested;
            let event_count: usize = ingested.sessions.iter().map(|s| s.events.len()).sum();
            if options.list_files {
                progress.suspend(|| {
                    eprintln!(
                        "  {:<17}  {} ({} sessions, {} events)",
                        ingested.format.name(),
                        file.display(),
                        ingested.sessions.len(),
                        event_count
                    )
                });
            }
            report_issues(file, &ingested.issues, options.report_issues, progress);
            summary.files_ingested += 1;
            summary.malformed_lines += ingested.malformed_lines;
            summary.parser_warnings += ingested.parser_warnings;
            summary.count_unknown_records(&ingested.sessions);
            summary.secrets_redacted += ingested.secrets_redacted;
            *summary.by_format.entry(ingested.format.name()).or_default() += 1;
            summary.bytes_read += ingested.checkpoint.complete_offset;
            batch.bytes += ingested.checkpoint.complete_offset.max(1);
            batch
                .input
                .checkpoints
                .insert(key.clone(), ingested.checkpoint);
            batch.input.checkpoints.extend(ingested.extra_checkpoints);
            sessions = ingested.sessions;
            batch.removed.extend(
                ingested
                    .removed_sessions
                    .into_iter()
                    .map(|id| (id, key.clone())),
            );
        }
        Err(error) => {
            if options.report_issues {
                progress.suspend(|| eprintln!("  failed  {}: {error}", file.display()));
            }
            tracing::warn!(file = %file.display(), %error, "cannot read log file");
            summary.files_failed += 1;
        }
    }
    sessions
}

/// Prints a file's skipped lines (a few of them; all are counted) with file and line.
fn report_issues(file: &Path, issues: &[FileIssue], to_stderr: bool, progress: &ProgressBar) {
    for issue in issues.iter().take(ISSUES_SHOWN_PER_FILE) {
        tracing::debug!(file = %file.display(), line = issue.line, "{}", issue.message);
        if to_stderr {
            progress.suspend(|| {
                eprintln!(
                    "  warning  {}:{}: {}",
                    file.display(),
                    issue.line,
                    issue.message
                )
            });
        }
    }
    if to_stderr && issues.len() > ISSUES_SHOWN_PER_FILE {
        progress.suspend(|| {
            eprintln!(
                "  warning  {}: {} more skipped lines or records",
                file.display(),
                issues.len() - ISSUES_SHOWN_PER_FILE
            )
        });
    }
}

/// Commits a batch (if it changes anything) and moves `state` to the new generation.
async fn commit_batch(
    store: &Store,
    state: &mut StoreState,
    batch: Batch,
    summary: &mut IndexSummary,
) -> Result<(), IndexError> {
    let mut input = batch.input;
    state.ensure_loaded(
        batch
            .removed
            .iter()
            .map(|(session_id, _)| session_id.as_str()),
    )?;
    // Tables are written in session id order, as the batch's sessions were before they were
    // indexed while read.
    input
        .sessions
        .sort_unstable_by(|a, b| a.session.session_id.cmp(&b.session.session_id));
    summary.sessions += input.sessions.len();
    let written = batch.positions;
    input.removed_sessions = batch
        .removed
        .into_iter()
        .filter(|(session_id, source)| {
            !written.contains_key(session_id)
                && state
                    .sessions
                    .get(session_id)
                    .is_some_and(|location| &location.source_path == source)
        })
        .map(|(session_id, _)| session_id)
        .collect();
    let redaction_unchanged = input
        .redacted
        .is_none_or(|redacted| redacted == state.redacted)
        && input
            .redaction_rules
            .as_ref()
            .is_none_or(|rules| *rules == state.redaction_rules);
    if input.checkpoints.is_empty() && input.removed_sessions.is_empty() && redaction_unchanged {
        return Ok(());
    }
    let committed = input.changed_keys();
    if let Some(resident) = Resident::read() {
        tracing::debug!(
            sessions = input.sessions.len(),
            rss_mib = Resident::mib(resident.now),
            peak_mib = Resident::mib(resident.peak),
            "committing a batch"
        );
    }
    let (commit_summary, committed_state) =
        commit_from(store, input, std::mem::take(state), batch.search).await?;
    summary.new_events += commit_summary.new_events;
    summary.written_events += commit_summary.written_events;
    summary.generation = Some(commit_summary.generation);
    summary.commits += 1;
    *state = committed_state;
    // This pass reads each source once: what it committed is looked up again only by a
    // session found in two files, which reads its shard back.
    state.evict(&committed);
    Ok(())
}

/// A bar over the bytes of the pass's plain log files, with the rate, the time left and
/// the count of sources read (SQLite stores and grouped sessions count as sources of no
/// bytes).
fn progress_bar(enabled: bool, bytes_total: u64, source_count: usize) -> ProgressBar {
    if !enabled {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(bytes_total), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template(
        "{spinner} indexing [{bar:30}] {binary_bytes}/{binary_total_bytes} \
         {binary_bytes_per_sec}, {eta} left, {msg} {elapsed}",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(format!("0/{source_count} files"));
    bar
}

/// Every `.jsonl` / `.json` file (sidecar `.meta.json` files and the Kiro IDE extension's own
/// files excluded), aider history and Windsurf ACP `acp-events/*.ndjson` log under `paths`,
/// sorted, deduplicated.
pub fn discover_files(paths: &[PathBuf]) -> Vec<PathBuf> {
    discover_reporting(paths, false, &mut IndexSummary::default())
}

/// [`discover_files`], counting (and optionally printing) what could not be walked: symlink
/// loops, dangling links, directories without access.
fn discover_reporting(
    paths: &[PathBuf],
    to_stderr: bool,
    summary: &mut IndexSummary,
) -> Vec<PathBuf> {
    discover_sources(paths, to_stderr, summary).files
}

/// What a pass reads: plain log files, encrypted files of known harnesses, and grouped
/// sessions (each once, whichever of its files was found).
#[derive(Default)]
struct Sources {
    files: Vec<PathBuf>,
    encrypted: Vec<PathBuf>,
    groups: Vec<Group>,
    stores: Vec<SqliteStore>,
}

fn discover_sources(paths: &[PathBuf], to_stderr: bool, summary: &mut IndexSummary) -> Sources {
    let mut files = BTreeSet::new();
    let mut encrypted = BTreeSet::new();
    let mut groups = BTreeSet::new();
    let mut stores = BTreeSet::new();
    for path in paths {
        let walker = walkdir::WalkDir::new(path).follow_links(true);
        for entry in walker.into_iter() {
            let entry = match entry {
                Ok(entry) => entry,
                Err(error) => {
                    summary.walk_errors += 1;
                    tracing::warn!(%error, "cannot walk");
                    if to_stderr {
                        eprintln!("  warning  cannot walk: {error}");
                    }
                    continue;
                }
            };
            if !entry.file_type().is_file() {
                continue;
            }
            let absolute = || {
                entry
                    .path()
                    .canonicalize()
                    .unwrap_or_else(|_| entry.path().to_path_buf())
            };
            match grouped::claim(entry.path()) {
                Some(Claim::Member(group)) => {
                    groups.insert(Group {
                        key: group.key.canonicalize().unwrap_or(group.key),
                        ..group
                    });
                }
                Some(Claim::Encrypted) => {
                    encrypted.insert(absolute());
                }
                Some(Claim::Store(store)) if store.path.is_file() => {
                    stores.insert(SqliteStore {
                        path: store.path.canonicalize().unwrap_or(store.path),
                        ..store
                    });
                }
                Some(Claim::Store(_)) => {}
                None if is_candidate(entry.path()) => {
                    files.insert(absolute());
                }
                None => {}
            }
        }
    }
    Sources {
        files: files.into_iter().collect(),
        encrypted: encrypted.into_iter().collect(),
        groups: groups.into_iter().collect(),
        stores: stores.into_iter().collect(),
    }
}

/// What a pass would read under one location, as the keys its checkpoints are kept under.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Survey {
    /// Plain log files, grouped sessions and SQLite stores (their checkpoint keys).
    pub sources: Vec<PathBuf>,
    /// Files of a known harness that are encrypted at rest.
    pub encrypted: Vec<PathBuf>,
    /// Directory entries that could not be walked.
    pub walk_errors: usize,
}

/// Walks `location` as an index pass would, without reading any file.
pub fn survey(location: &Path) -> Survey {
    let mut summary = IndexSummary::default();
    let found = discover_sources(&[location.to_path_buf()], false, &mut summary);
    let mut sources = found.files;
    sources.extend(found.groups.into_iter().map(|group| group.key));
    sources.extend(found.stores.into_iter().map(|store| store.path));
    sources.sort();
    Survey {
        sources,
        encrypted: found.encrypted,
        walk_errors: summary.walk_errors,
    }
}

fn is_candidate(path: &Path) -> bool {
    let name = path
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or("");
    if let Some(desktop) = crate::ingest::claude_desktop::is_log_path(path) {
        return desktop;
    }
    ((name.ends_with(".jsonl") || name.ends_with(".json"))
        && !name.ends_with(".meta.json")
        && !crate::ingest::kiro::is_metadata_path(path)
        && !crate::ingest::kiro_v3::is_side_file(path)
        && !crate::ingest::junie::is_companion_path(path)
        && !crate::ingest::auggie::is_backup_path(path)
        && !crate::ingest::grok::is_side_file(path)
        && !crate::ingest::kiro_ide::is_store_file(path))
        || name == crate::ingest::aider::HISTORY_FILE
        || crate::ingest::windsurf_acp::is_event_log_path(path)
}

/// Identity of a file on disk.
struct FileIdentity {
    size: u64,
    mtime_ns: i128,
    device: u64,
    inode: u64,
}

impl FileIdentity {
    fn of(metadata: &fs::Metadata) -> FileIdentity {
        FileIdentity {
            size: metadata.len(),
            mtime_ns: i128::from(metadata.mtime()) * 1_000_000_000
                + i128::from(metadata.mtime_nsec()),
            device: metadata.dev(),
            inode: metadata.ino(),
        }
    }

    fn matches(&self, checkpoint: &Checkpoint) -> bool {
        self.size == checkpoint.size
            && self.mtime_ns == checkpoint.mtime_ns
            && self.device == checkpoint.device
            && self.inode == checkpoint.inode
    }

    fn modified(&self) -> DateTime<Utc> {
        DateTime::<Utc>::from_timestamp_nanos(self.mtime_ns.clamp(0, i128::from(i64::MAX)) as i64)
    }
}

fn read_file(
    path: &Path,
    previous: Option<&Checkpoint>,
    options: &IndexOptions,
) -> Result<FileOutcome, StoreError> {
    let file = fs::File::open(path).map_err(StoreError::io(path))?;
    let metadata = file.metadata().map_err(StoreError::io(path))?;
    let identity = FileIdentity::of(&metadata);
    let previous_format = previous.and_then(|checkpoint| format_named(&checkpoint.format));
    if let Some(checkpoint) = previous
        && identity.matches(checkpoint)
        && previous_format.is_none_or(|format| {
            sidecar_hash(format, path, sidecar_of(format, path).as_ref()) == checkpoint.sidecar_hash
        })
    {
        return Ok(FileOutcome::Unchanged);
    }
    let Some(mut read) = read_content(path, file, &identity, previous_format, options)? else {
        return Ok(FileOutcome::HeldBack);
    };
    let Some(format) = read.format else {
        let checkpoint = checkpoint_for(&identity, 0, String::new(), UNKNOWN_FORMAT, Vec::new(), 0);
        return Ok(FileOutcome::Skipped(checkpoint));
    };
    let mut issues: Vec<FileIssue> = match &read.content {
        Content::Lines(split) => split
            .malformed
            .iter()
            .map(|warning| FileIssue {
                line: warning.line,
                message: warning.message.clone(),
            })
            .collect(),
        Content::Whole(_) => Vec::new(),
    };
    let malformed_lines = issues.len() as u64;
    let sidecar = sidecar_of(format, path);
    let sidecar_hash = sidecar_hash(format, path, sidecar.as_ref());
    if let Some(checkpoint) = previous
        && checkpoint.complete_offset == read.complete_offset
        && checkpoint.content_hash == read.content_hash
        && checkpoint.format == format.name()
        && checkpoint.sidecar_hash == sidecar_hash
    {
        let moved = Checkpoint {
            size: identity.size,
            mtime_ns: identity.mtime_ns,
            device: identity.device,
            inode: identity.inode,
            ..checkpoint.clone()
        };
        return Ok(FileOutcome::CheckpointOnly(moved));
    }
    let secrets_redacted = if options.redact {
        redact_content(&options.redactor, &mut read.content)
    } else {
        0
    };
    let output = parse(format, path, &read.content, sidecar.as_ref());
    drop(read.content);
    let parser_warnings = output.warnings.len() as u64;
    issues.extend(output.warnings.iter().map(|warning| FileIssue {
        line: warning.line,
        message: warning.message.clone(),
    }));
    // A Claude Desktop record without its transcript is a session of metadata alone.
    let sessions: Vec<AssembledSession> = output
        .sessions
        .iter()
        .filter(|session| !session.events.is_empty() || format == Format::ClaudeDesktopRecord)
        .map(|session| assemble(session, path, identity.modified()))
        .collect();
    let session_ids: Vec<String> = sessions
        .iter()
        .map(|session| session.session.session_id.clone())
        .collect();
    let removed_sessions = previous
        .map(|checkpoint| {
            checkpoint
                .sessions
                .iter()
                .filter(|old| !session_ids.contains(old))
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    let checkpoint = Checkpoint {
        sidecar_hash,
        ..checkpoint_for(
            &identity,
            read.complete_offset,
            read.content_hash,
            format.name(),
            session_ids,
            malformed_lines,
        )
    };
    Ok(FileOutcome::Ingested(Box::new(IngestedFile {
        format,
        checkpoint,
        sessions,
        removed_sessions,
        malformed_lines,
        parser_warnings,
        secrets_redacted,
        issues,
        extra_checkpoints: Vec::new(),
    })))
}

/// A file's content as its format needs it.
struct ReadContent {
    /// `None`: not a session log of any known format.
    format: Option<Format>,
    content: Content,
    complete_offset: u64,
    content_hash: String,
}

/// Streams the file as JSON lines; when they are not a known JSONL format, reads it as one
/// JSON document (bounded by `limits.max_json_file_bytes`). `None`: a whole-file JSON log
/// caught mid-rewrite, to be read again later.
fn read_content(
    path: &Path,
    file: fs::File,
    identity: &FileIdentity,
    previous_format: Option<Format>,
    options: &IndexOptions,
) -> Result<Option<ReadContent>, StoreError> {
    let streamed = stream_json_lines(file, options.limits).map_err(StoreError::io(path))?;
    if let Some(format) = line_format(&streamed.split) {
        return Ok(Some(ReadContent {
            format: crate::ingest::format_at(format, path),
            complete_offset: streamed.split.complete_offset,
            content: Content::Lines(streamed.split),
            content_hash: streamed.content_hash,
        }));
    }
    let unknown = ReadContent {
        format: None,
        content: Content::Lines(SplitLines::default()),
        complete_offset: 0,
        content_hash: String::new(),
    };
    if !matches!(streamed.first_byte, Some(b'{') | Some(b'[') | Some(b'#')) {
        return Ok(Some(unknown));
    }
    if identity.size > options.limits.max_json_file_bytes {
        tracing::warn!(
            file = %path.display(),
            size = identity.size,
            limit = options.limits.max_json_file_bytes,
            "JSON file larger than the limit; skipped"
        );
        return Ok(Some(unknown));
    }
    let bytes = fs::read(path).map_err(StoreError::io(path))?;
    Ok(match recognise_whole(&bytes, previous_format) {
        Recognised::Known {
            format,
            content,
            complete_offset,
        } => Some(ReadContent {
            format: Some(format),
            content,
            complete_offset,
            content_hash: stable_hash_hex(&[&bytes[..complete_offset as usize]]),
        }),
        Recognised::Incomplete => None,
        Recognised::Unknown => Some(unknown),
    })
}

/// Redacts secrets in every parsed JSON value of the content; returns how many were replaced.
fn redact_content(redactor: &Redactor, content: &mut Content) -> u64 {
    let count = match content {
        Content::Lines(split) => split
            .lines
            .iter_mut()
            .map(|line| redactor.redact_value(&mut line.value))
            .sum(),
        Content::Whole(value) => redactor.redact_value(value),
    };
    count as u64
}

/// What the store records about the redaction of a pass: the rules version, or nothing
/// when secrets are kept.
fn redaction_rules_of(options: &IndexOptions) -> String {
    if options.redact {
        options.redactor.version().to_string()
    } else {
        String::new()
    }
}

fn checkpoint_for(
    identity: &FileIdentity,
    complete_offset: u64,
    content_hash: String,
    format: &str,
    sessions: Vec<String>,
    malformed_lines: u64,
) -> Checkpoint {
    Checkpoint {
        size: identity.size,
        mtime_ns: identity.mtime_ns,
        device: identity.device,
        inode: identity.inode,
        complete_offset,
        content_hash,
        format: format.to_string(),
        sessions,
        malformed_lines,
        sidecar_hash: String::new(),
    }
}

/// The metadata a log of `format` is read with: its harness's sidecar (for a Claude Code
/// transcript, the title of the Claude Desktop Code record naming it), else (a Claude
/// sub-agent's transcript) the `.meta.json` beside it.
fn sidecar_of(format: Format, path: &Path) -> Option<Value> {
    crate::ingest::harness_sidecar(format, path).or_else(|| {
        matches!(format, Format::ClaudeTranscript)
            .then(|| crate::ingest::claude::subagent_meta(path))
            .flatten()
    })
}

/// What the checkpoint keeps of the sidecar of a log at `path`: a hash of the part its parser
/// reads (of OpenClaw's `sessions.json`, shared by an agent's sessions, the name of this
/// transcript's session only, so a new session does not re-read the others), empty for none.
fn sidecar_hash(format: Format, path: &Path, sidecar: Option<&Value>) -> String {
    let read = match format {
        Format::OpenClawSession => sidecar.and_then(|index| {
            let session = path.file_stem()?.to_str()?;
            crate::ingest::openclaw::display_name_of(index, session).map(Value::from)
        }),
        _ => sidecar.cloned(),
    };
    read.map_or_else(String::new, |value| {
        stable_hash_hex(&[value.to_string().as_bytes()])
    })
}

/// The harnesses' default log locations that exist on this machine, under `$HOME` (honouring
/// each harness's variable: `CODEX_HOME`, `CLAUDE_CONFIG_DIR`, ...) and every other home
/// esker's config file, `$ESKER_HOMES` and WSL name (`ingest::homes`). What the config names
/// that cannot be used is warned about.
pub fn default_locations() -> Vec<PathBuf> {
    let (homes, locations) = known_locations_with_homes();
    for problem in &homes.problems {
        tracing::warn!("{problem}");
    }
    locations
        .into_iter()
        .filter(KnownLocation::exists)
        .map(|location| location.path)
        .collect()
}

/// One place a harness writes its history to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownLocation {
    pub source: Source,
    pub path: PathBuf,
    /// A store file rather than a folder of logs.
    pub is_file: bool,
    /// The home it is under, and why that home is read.
    pub origin: Origin,
}

impl KnownLocation {
    fn folder(source: Source, path: PathBuf) -> KnownLocation {
        KnownLocation {
            source,
            path,
            is_file: false,
            origin: Origin::Home,
        }
    }

    fn file(source: Source, path: PathBuf) -> KnownLocation {
        KnownLocation {
            source,
            path,
            is_file: true,
            origin: Origin::Home,
        }
    }

    pub fn exists(&self) -> bool {
        if self.is_file {
            self.path.is_file()
        } else {
            self.path.is_dir()
        }
    }
}

/// Every place esker looks for history on this machine, existing or not (folders whose names
/// are only known by listing their parent, such as VS Code workspaces, as far as they exist).
pub fn known_locations() -> Vec<KnownLocation> {
    known_locations_with_homes().1
}

/// [`known_locations`], with the homes they are under.
pub fn known_locations_with_homes() -> (Homes, Vec<KnownLocation>) {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let homes = crate::ingest::homes::discover(&home, &|name| std::env::var_os(name));
    let locations = locations_of_homes(&home, &homes, &env_dir);
    (homes, locations)
}

/// A variable naming a folder, when set and not empty.
fn env_dir(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
}

/// The locations under `home` (with `env_dir` looking this machine's variables up), then
/// those of every harness home and other home in `homes` not already listed.
pub fn locations_of_homes(
    home: &Path,
    homes: &Homes,
    env_dir: &dyn Fn(&str) -> Option<PathBuf>,
) -> Vec<KnownLocation> {
    let mut known = locations_under(home, env_dir);
    let mut add_new = |found: Vec<KnownLocation>, origin: &Origin| {
        for mut location in found {
            if known.iter().all(|seen| seen.path != location.path) {
                location.origin = origin.clone();
                known.push(location);
            }
        }
    };
    for harness_home in &homes.harness_homes {
        let env = |name: &str| {
            if name == harness_home.variable {
                Some(harness_home.path.clone())
            } else {
                env_dir(name)
            }
        };
        let mut found = locations_under(home, &env);
        found.retain(|location| location.source == harness_home.source);
        add_new(found, &harness_home.origin);
    }
    for extra in &homes.extra {
        add_new(
            locations_under(&extra.path, &|name| extra.env(name)),
            &extra.origin,
        );
    }
    known
}

/// The places under one home, with `env_dir` looking its variables up.
fn locations_under(home: &Path, env_dir: &dyn Fn(&str) -> Option<PathBuf>) -> Vec<KnownLocation> {
    let codex_home = env_dir("CODEX_HOME").unwrap_or_else(|| home.join(".codex"));
    let claude_home = env_dir("CLAUDE_CONFIG_DIR").unwrap_or_else(|| home.join(".claude"));
    let gemini_home = env_dir("GEMINI_CLI_HOME").unwrap_or_else(|| home.to_path_buf());
    let dot_gemini = home.join(".gemini");
    let mut locations = vec![
        (Source::Codex, codex_home.join("sessions")),
        (Source::Codex, codex_home.join("archived_sessions")),
        (Source::Claude, claude_home.join("projects")),
        (Source::Gemini, gemini_home.join(".gemini").join("tmp")),
        (
            Source::Antigravity,
            env_dir("ANTIGRAVITY_CLI_DIR").unwrap_or_else(|| dot_gemini.join("antigravity-cli")),
        ),
        (
            Source::Antigravity,
            env_dir("ANTIGRAVITY_DIR").unwrap_or_else(|| dot_gemini.join("antigravity")),
        ),
        (Source::Antigravity, dot_gemini.join("antigravity-ide")),
        (Source::Antigravity, dot_gemini.join("antigravity-backup")),
    ];
    locations.extend(crate::ingest::locations::labelled_candidates(home, env_dir));
    locations.extend([
        (
            Source::Kimi,
            env_dir("KIMI_SHARE_DIR")
                .unwrap_or_else(|| home.join(".kimi"))
                .join("sessions"),
        ),
        (
            Source::Goose,
            env_dir("GOOSE_PATH_ROOT").map_or_else(
                || home.join(".local/share/goose/sessions"),
                |root| root.join("data").join("sessions"),
            ),
        ),
    ]);
    let mut known: Vec<KnownLocation> = locations
        .into_iter()
        .map(|(source, path)| KnownLocation::folder(source, path))
        .collect();
    known.extend(opencode_locations(home, &env_dir));
    known.extend(
        crate::ingest::locations::cursor_ide_stores(home, env_dir)
            .into_iter()
            .map(|path| KnownLocation::file(Source::CursorIde, path)),
    );
    known.extend(
        crate::ingest::locations::labelled_store_files(home, env_dir)
            .into_iter()
            .map(|(source, path)| KnownLocation::file(source, path)),
    );
    known
}

/// OpenCode's stores under `$XDG_DATA_HOME/opencode` (default `~/.local/share/opencode`): its
/// `opencode*.db` files and the legacy `storage/` tree, plus `$OPENCODE_DB`; not the whole
/// directory (it also holds git snapshots of every worktree).
fn opencode_locations(
    home: &Path,
    env_dir: &dyn Fn(&str) -> Option<PathBuf>,
) -> Vec<KnownLocation> {
    let root = env_dir("XDG_DATA_HOME")
        .unwrap_or_else(|| home.join(".local").join("share"))
        .join("opencode");
    let databases = fs::read_dir(&root)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| crate::ingest::opencode::store::is_candidate(path) && path.is_file());
    let mut databases: Vec<PathBuf> = databases.collect();
    databases.sort();
    let mut locations: Vec<KnownLocation> = databases
        .into_iter()
        .map(|path| KnownLocation::file(Source::OpenCode, path))
        .collect();
    locations.push(KnownLocation::folder(
        Source::OpenCode,
        root.join("storage"),
    ));
    locations
        .extend(env_dir("OPENCODE_DB").map(|path| KnownLocation::file(Source::OpenCode, path)));
    locations
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_read_newest_first_with_their_sizes_and_unreadable_ones_last() {
        let dir = tempfile::tempdir().unwrap();
        let now = std::time::SystemTime::now();
        let day = Duration::from_secs(86_400);
        let mut files = Vec::new();
        for (name, age_days, bytes) in [("a.jsonl", 30, 1), ("b.jsonl", 1, 22), ("c.jsonl", 7, 333)]
        {
            let path = dir.path().join(name);
            fs::write(&path, "x".repeat(bytes)).unwrap();
            let file = fs::File::options().write(true).open(&path).unwrap();
            file.set_modified(now - day * age_days).unwrap();
            files.push(path);
        }
        files.push(dir.path().join("gone.jsonl"));
        let sizes = newest_first(&mut files);
        let names: Vec<_> = files
            .iter()
            .map(|file| file.file_name().unwrap().to_str().unwrap())
            .collect();
        assert_eq!(names, ["b.jsonl", "c.jsonl", "a.jsonl", "gone.jsonl"]);
        assert_eq!(sizes, [22, 333, 1, 0]);
    }

    #[test]
    fn the_first_commit_comes_early_unless_batches_are_smaller() {
        assert_eq!(first_commit_bytes(128 << 20), FIRST_COMMIT_BYTES);
        assert_eq!(first_commit_bytes(1000), 1000);
        assert!(FIRST_COMMIT_BYTES < IndexOptions::default().batch_bytes);
    }

    #[test]
    fn the_memory_limit_bounds_the_batch_and_marks_when_to_commit_early() {
        let with_limit = |memory_limit: u64| IndexOptions {
            memory_limit,
            ..IndexOptions::default()
        };
        assert_eq!(
            with_limit(DEFAULT_MEMORY_LIMIT).effective_batch_bytes(),
            128 << 20
        );
        assert_eq!(with_limit(512 << 20).effective_batch_bytes(), 32 << 20);
        assert_eq!(
            with_limit(MIN_MEMORY_LIMIT).effective_batch_bytes(),
            24 << 20
        );
        assert_eq!(with_limit(1 << 20).effective_batch_bytes(), 1 << 20);
        let tiny_batches = IndexOptions {
            batch_bytes: 300,
            ..IndexOptions::default()
        };
        assert_eq!(
            tiny_batches.effective_batch_bytes(),
            300,
            "--batch-bytes below a MiB holds"
        );
        assert_eq!(memory_mark(DEFAULT_MEMORY_LIMIT, 100 << 20), 1536 << 20);
        assert_eq!(
            memory_mark(DEFAULT_MEMORY_LIMIT, 900 << 20),
            (900 << 20) + (1024 << 20),
            "a server's directory held before the pass is not the pass's memory"
        );
        assert!(
            memory_is_high(1),
            "this process has more than a byte of heap"
        );
        assert!(!memory_is_high(u64::MAX / 2));
    }

    #[test]
    fn unknown_record_types_are_reported_per_source_most_frequent_first() {
        let mut summary = IndexSummary::default();
        assert!(summary.unknown_record_lines().is_empty());
        assert!(!summary.to_string().contains('\n'));
        let claude = summary.unknown_records.entry("claude").or_default();
        claude.insert("bar".to_string(), 1);
        claude.insert("foo".to_string(), 12);
        summary
            .unknown_records
            .entry("codex")
            .or_default()
            .insert("event_msg/new_thing".to_string(), 3);
        assert_eq!(
            summary.unknown_record_lines(),
            [
                "claude: 2 unknown record types: foo \u{d7}12, bar \u{d7}1",
                "codex: 1 unknown record type: event_msg/new_thing \u{d7}3",
            ]
        );
        let printed = summary.to_string();
        assert!(printed.ends_with("codex: 1 unknown record type: event_msg/new_thing \u{d7}3"));
    }
}
