//! One indexing pass: walks the given paths, re-reads only files whose checkpoint changed,
//! parses and assembles them, commits the touched sessions, and reports a summary.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::Value;

use super::assemble::assemble;
use super::{Content, Format, Recognised, format_named, parse, recognise};
use crate::ids::stable_hash_hex;
use crate::store::commit::{CommitInput, commit};
use crate::store::rows::AssembledSession;
use crate::store::state::{Checkpoint, StoreState};
use crate::store::{Store, StoreError, WriterLock};

/// Format name recorded for files of no known format (so unchanged ones are not re-read).
const UNKNOWN_FORMAT: &str = "unknown";

/// Options of one indexing pass.
#[derive(Debug, Clone, Default)]
pub struct IndexOptions {
    /// Files or directories (walked recursively).
    pub paths: Vec<PathBuf>,
    /// Show a progress bar on stderr when it is a terminal.
    pub progress: bool,
    /// Print one line per ingested or skipped file on stderr.
    pub list_files: bool,
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
    pub sessions: usize,
    pub new_events: usize,
    pub written_events: usize,
    pub malformed_lines: u64,
    pub bytes_read: u64,
    pub elapsed: Duration,
    pub generation: Option<u64>,
    pub by_format: BTreeMap<&'static str, usize>,
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
            "files: {} seen, {} ingested, {} unchanged, {} skipped (unknown format), {} held back, {} failed; \
             formats: {}; sessions: {}; events: {} new ({} written); malformed lines: {}; \
             elapsed: {:.2}s; {:.1} MB read at {:.1} MB/s",
            self.files_seen,
            self.files_ingested,
            self.files_unchanged,
            self.files_skipped,
            self.files_held_back,
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
            seconds,
            megabytes,
            throughput
        )
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

/// What happened to one file.
enum FileOutcome {
    Unchanged,
    Skipped(Checkpoint),
    HeldBack,
    Ingested {
        format: Format,
        checkpoint: Checkpoint,
        sessions: Vec<AssembledSession>,
        removed_sessions: Vec<String>,
        malformed_lines: u64,
    },
    /// Only the held-back tail changed: the checkpoint moves, the data does not.
    CheckpointOnly(Checkpoint),
}

/// Runs one indexing pass into `store`.
pub async fn index_paths(
    store: &Store,
    options: &IndexOptions,
) -> Result<IndexSummary, IndexError> {
    let started = Instant::now();
    for path in &options.paths {
        if !path.exists() {
            return Err(IndexError::MissingPath(path.clone()));
        }
    }
    let _lock = WriterLock::acquire(store)?;
    let state = StoreState::load(&store.current()?.root)?;
    let files = discover_files(&options.paths);
    let progress = progress_bar(options.progress, files.len() as u64);

    let mut summary = IndexSummary {
        files_seen: files.len(),
        ..IndexSummary::default()
    };
    let mut input = CommitInput::default();
    let mut removed_sessions = Vec::new();
    for file in &files {
        progress.inc(1);
        let key = file.to_string_lossy().into_owned();
        match read_file(file, state.checkpoints.get(&key), &mut summary.bytes_read) {
            Ok(FileOutcome::Unchanged) => summary.files_unchanged += 1,
            Ok(FileOutcome::HeldBack) => summary.files_held_back += 1,
            Ok(FileOutcome::Skipped(checkpoint)) => {
                if options.list_files {
                    progress
                        .suspend(|| eprintln!("  skipped (unknown format)  {}", file.display()));
                }
                summary.files_skipped += 1;
                input.checkpoints.insert(key, checkpoint);
            }
            Ok(FileOutcome::CheckpointOnly(checkpoint)) => {
                summary.files_unchanged += 1;
                input.checkpoints.insert(key, checkpoint);
            }
            Ok(FileOutcome::Ingested {
                format,
                checkpoint,
                sessions,
                removed_sessions: removed,
                malformed_lines,
            }) => {
                let event_count: usize = sessions.iter().map(|session| session.events.len()).sum();
                if options.list_files {
                    progress.suspend(|| {
                        eprintln!(
                            "  {:<17}  {} ({} sessions, {} events)",
                            format.name(),
                            file.display(),
                            sessions.len(),
                            event_count
                        )
                    });
                }
                summary.files_ingested += 1;
                summary.malformed_lines += malformed_lines;
                *summary.by_format.entry(format.name()).or_default() += 1;
                input.checkpoints.insert(key, checkpoint);
                input.sessions.extend(sessions);
                removed_sessions.extend(removed);
            }
            Err(error) => {
                progress.suspend(|| eprintln!("  failed  {}: {error}", file.display()));
                summary.files_failed += 1;
            }
        }
    }
    progress.finish_and_clear();

    input.sessions = keep_fullest_copy(std::mem::take(&mut input.sessions));
    summary.sessions = input.sessions.len();
    input.removed_sessions = removed_sessions
        .into_iter()
        .filter(|removed| {
            !input
                .sessions
                .iter()
                .any(|session| &session.session.session_id == removed)
        })
        .collect();
    if !input.checkpoints.is_empty() || !input.removed_sessions.is_empty() {
        let commit_summary = commit(store, input).await?;
        summary.new_events = commit_summary.new_events;
        summary.written_events = commit_summary.written_events;
        summary.generation = Some(commit_summary.generation);
    }
    summary.elapsed = started.elapsed();
    Ok(summary)
}

/// When two files yield the same session (Gemini copies a resumed `.json` session into a new
/// `.jsonl` under the same id), keeps the copy with the most events.
fn keep_fullest_copy(sessions: Vec<AssembledSession>) -> Vec<AssembledSession> {
    let mut by_id: BTreeMap<String, AssembledSession> = BTreeMap::new();
    for session in sessions {
        let session_id = session.session.session_id.clone();
        match by_id.get(&session_id) {
            Some(kept) if kept.events.len() >= session.events.len() => {
                tracing::info!(
                    session = %session_id,
                    kept = %kept.session.source_path,
                    dropped = %session.session.source_path,
                    "session found in two files; keeping the fuller copy"
                );
            }
            _ => {
                by_id.insert(session_id, session);
            }
        }
    }
    by_id.into_values().collect()
}

fn progress_bar(enabled: bool, total: u64) -> ProgressBar {
    if !enabled {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template("{spinner} indexing [{bar:30}] {pos}/{len} files {elapsed}")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// Every `.jsonl` / `.json` file under `paths` (sidecar `.meta.json` files excluded), sorted,
/// deduplicated.
pub fn discover_files(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut files = BTreeSet::new();
    for path in paths {
        let walker = walkdir::WalkDir::new(path).follow_links(true);
        for entry in walker.into_iter().filter_map(|entry| entry.ok()) {
            if entry.file_type().is_file() && is_candidate(entry.path()) {
                let absolute = entry
                    .path()
                    .canonicalize()
                    .unwrap_or_else(|_| entry.path().to_path_buf());
                files.insert(absolute);
            }
        }
    }
    files.into_iter().collect()
}

fn is_candidate(path: &Path) -> bool {
    let name = path
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or("");
    (name.ends_with(".jsonl") || name.ends_with(".json")) && !name.ends_with(".meta.json")
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
    bytes_read: &mut u64,
) -> Result<FileOutcome, StoreError> {
    let metadata = fs::metadata(path).map_err(StoreError::io(path))?;
    let identity = FileIdentity::of(&metadata);
    if previous.is_some_and(|checkpoint| identity.matches(checkpoint)) {
        return Ok(FileOutcome::Unchanged);
    }
    let bytes = fs::read(path).map_err(StoreError::io(path))?;
    *bytes_read += bytes.len() as u64;
    let previous_format = previous.and_then(|checkpoint| format_named(&checkpoint.format));
    let (format, content, complete_offset) = match recognise(&bytes, previous_format) {
        Recognised::Known {
            format,
            content,
            complete_offset,
        } => (format, content, complete_offset),
        Recognised::Incomplete => return Ok(FileOutcome::HeldBack),
        Recognised::Unknown => {
            let checkpoint =
                checkpoint_for(&identity, 0, String::new(), UNKNOWN_FORMAT, Vec::new(), 0);
            return Ok(FileOutcome::Skipped(checkpoint));
        }
    };
    let complete_part = &bytes[..complete_offset as usize];
    let content_hash = stable_hash_hex(&[complete_part]);
    let malformed_lines = match &content {
        Content::Lines(split) => split.malformed.len() as u64,
        Content::Whole(_) => 0,
    };
    if let Some(checkpoint) = previous
        && checkpoint.complete_offset == complete_offset
        && checkpoint.content_hash == content_hash
        && checkpoint.format == format.name()
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
    let sidecar = read_sidecar(path);
    let output = parse(format, path, &content, sidecar.as_ref());
    for warning in &output.warnings {
        tracing::debug!(file = %path.display(), line = warning.line, "{}", warning.message);
    }
    let sessions: Vec<AssembledSession> = output
        .sessions
        .iter()
        .filter(|session| !session.events.is_empty())
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
    let checkpoint = checkpoint_for(
        &identity,
        complete_offset,
        content_hash,
        format.name(),
        session_ids,
        malformed_lines,
    );
    Ok(FileOutcome::Ingested {
        format,
        checkpoint,
        sessions,
        removed_sessions,
        malformed_lines,
    })
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
    }
}

/// A Claude sub-agent's `agent-<id>.meta.json` beside its transcript.
fn read_sidecar(path: &Path) -> Option<Value> {
    let stem = path.file_stem()?.to_str()?;
    let sidecar_path = path.with_file_name(format!("{stem}.meta.json"));
    let text = fs::read_to_string(sidecar_path).ok()?;
    serde_json::from_str(&text).ok()
}

/// The harnesses' default log locations that exist on this machine, honouring `CODEX_HOME`,
/// `CLAUDE_CONFIG_DIR` and `GEMINI_CLI_HOME`.
pub fn default_locations() -> Vec<PathBuf> {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let env_dir = |name: &str| {
        std::env::var_os(name)
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
    };
    let codex_home = env_dir("CODEX_HOME").unwrap_or_else(|| home.join(".codex"));
    let claude_home = env_dir("CLAUDE_CONFIG_DIR").unwrap_or_else(|| home.join(".claude"));
    let gemini_home = env_dir("GEMINI_CLI_HOME").unwrap_or_else(|| home.clone());
    [
        codex_home.join("sessions"),
        codex_home.join("archived_sessions"),
        claude_home.join("projects"),
        gemini_home.join(".gemini").join("tmp"),
    ]
    .into_iter()
    .filter(|path| path.is_dir())
    .collect()
}
