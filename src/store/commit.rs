//! The store's part of one atomic commit: creates the next generation, writes its Parquet
//! tables with the touched sessions replaced (events, turns, sessions, file touches),
//! compacts crowded partitions, saves the checkpoints and flips `current`. The commit as a
//! whole (the search index beside the tables, memory entries) is driven from
//! `crate::engine::commit`.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;

use super::chains::{
    CHAIN_COLUMNS, CHAIN_KEY_COLUMNS, ChainPosition, chain_positions, link_continuations,
};
use super::digest::{EventDigests, event_digests};
use super::faults::crash_point;
use super::parquet_io::{self as pio, FileLayout};
use super::rows::{AssembledSession, EventRow, SessionRow, TouchRow, TurnRow};
use super::state::{ChangedKeys, Checkpoint, SessionLocation, StoreState};
use super::{Snapshot, Store, StoreError, link_or_copy};

/// A partition holding more files than this after a commit is compacted into one file.
pub const MAX_FILES_PER_PARTITION: usize = 8;

/// The `events` columns zstd shrinks by less than 1.35× (1M documents, 2026-12-03: 3.2 MB
/// compressed, 3.4 MB uncompressed, of a 361 MB table), written uncompressed: open(event),
/// open(turn) and search hits read them, and each compressed column chunk read costs a zstd
/// context pair.
const EVENTS_UNCOMPRESSED: &[&str] = &[
    "type",
    "subtype",
    "model",
    "originating_model",
    "tool_name",
    "input_tokens",
    "cached_input_tokens",
    "output_tokens",
    "reasoning_tokens",
    "total_tokens",
    "exit_code",
    "terminal",
];

/// `events`: sorted by (session, seq); a located lookup (partition, session, seq or turn
/// ordinal) prunes to one row group by min/max, drops other files by the session bloom
/// filter, and to one page by the page statistics.
const EVENTS_LAYOUT: FileLayout<'static> = FileLayout {
    sorted_by: &["session_id", "seq"],
    bloom: &["event_id", "session_id"],
    page_statistics: &["session_id", "seq", "turn_ordinal", "timestamp"],
    no_dictionary: &["event_id", "text", "payload"],
    small_pages: &["text", "payload"],
    uncompressed: EVENTS_UNCOMPRESSED,
    row_group_rows: pio::ROW_GROUP_ROWS,
    page_rows: pio::PAGE_ROWS,
};
/// `turns`: 16 buckets by session, sorted by (session, ordinal).
const TURNS_LAYOUT: FileLayout<'static> = FileLayout {
    sorted_by: &["session_id", "ordinal"],
    bloom: &["turn_id", "session_id"],
    page_statistics: &["session_id", "ordinal"],
    no_dictionary: &["turn_id", "first_event_id", "last_event_id"],
    small_pages: &[],
    uncompressed: &[],
    row_group_rows: pio::LOOKUP_ROW_GROUP_ROWS,
    page_rows: pio::LOOKUP_PAGE_ROWS,
};
/// `sessions`: 16 buckets by session (like `turns`), each sorted by id.
const SESSIONS_LAYOUT: FileLayout<'static> = FileLayout {
    sorted_by: &["session_id"],
    bloom: &["session_id"],
    page_statistics: &["session_id"],
    no_dictionary: &["session_id", "native_id"],
    small_pages: &[],
    uncompressed: &[],
    row_group_rows: pio::LOOKUP_ROW_GROUP_ROWS,
    page_rows: pio::LOOKUP_PAGE_ROWS,
};
/// `file_touches` is looked up by file name (`queries/file_attention_touches.sql`).
const TOUCHES_LAYOUT: FileLayout<'static> = FileLayout {
    sorted_by: &["file_name", "tail", "session_id"],
    bloom: &["file_name"],
    page_statistics: &["file_name", "tail"],
    no_dictionary: &[],
    small_pages: &[],
    uncompressed: &[],
    row_group_rows: pio::ROW_GROUP_ROWS,
    page_rows: pio::PAGE_ROWS,
};

/// The file layout of a store table's Parquet files (`memories`, a layer above, has its
/// own in `memory::table`).
pub fn table_layout(table: &str) -> Option<FileLayout<'static>> {
    match table {
        "events" => Some(EVENTS_LAYOUT),
        "turns" => Some(TURNS_LAYOUT),
        "sessions" => Some(SESSIONS_LAYOUT),
        "file_touches" => Some(TOUCHES_LAYOUT),
        _ => None,
    }
}

/// What one commit changes.
#[derive(Debug, Default)]
pub struct CommitInput {
    /// The complete new state of every touched session (replaces all its old rows).
    pub sessions: Vec<AssembledSession>,
    /// Sessions whose source no longer contains them: all their rows are removed.
    pub removed_sessions: Vec<String>,
    /// New or updated checkpoints, by source path.
    pub checkpoints: BTreeMap<String, Checkpoint>,
    /// Records whether the ingested logs were redacted (see `StoreState::redacted`).
    pub redacted: Option<bool>,
    /// Records the redaction rules version (see `StoreState::redaction_rules`).
    pub redaction_rules: Option<String>,
}

impl CommitInput {
    /// The state keys this commit sets or removes: its checkpoints' paths, its sessions' and
    /// removed sessions' ids.
    pub fn changed_keys(&self) -> ChangedKeys {
        ChangedKeys {
            checkpoints: self.checkpoints.keys().cloned().collect(),
            sessions: self
                .removed_sessions
                .iter()
                .cloned()
                .chain(
                    self.sessions
                        .iter()
                        .map(|session| session.session.session_id.clone()),
                )
                .collect(),
        }
    }
}

/// What one commit did.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct CommitSummary {
    pub generation: u64,
    /// Events whose id the store did not have before.
    pub new_events: usize,
    /// Events written for the touched sessions (new and rewritten).
    pub written_events: usize,
    pub sessions_written: usize,
    /// Partitions merged into a single file by this commit.
    pub compacted_partitions: usize,
}

fn parquet_failure(path: &Path) -> impl Fn(String) -> StoreError + '_ {
    move |message| StoreError::Parquet {
        path: path.to_path_buf(),
        message,
    }
}

/// A generation being written: its directory exists and holds the format marker; `current`
/// still points at `previous`.
#[derive(Debug, Clone)]
pub struct NextGeneration {
    pub previous: Snapshot,
    pub generation: u64,
    pub root: PathBuf,
}

/// Creates the directory of the generation after the highest one on disk (a leftover of a
/// crashed commit is removed first) with its format marker.
pub fn begin_generation(store: &Store) -> Result<NextGeneration, StoreError> {
    let previous = store.current()?;
    let generation = store.highest_generation_on_disk()?.max(previous.generation) + 1;
    let root = store.generation_dir(generation);
    if root.exists() {
        fs::remove_dir_all(&root).map_err(StoreError::io(&root))?;
    }
    fs::create_dir_all(&root).map_err(StoreError::io(&root))?;
    super::write_format(&root)?;
    Ok(NextGeneration {
        previous,
        generation,
        root,
    })
}

/// Writes the Parquet tables of one commit into `next`, counting into `summary`. Returns the
/// digest of each written session's events, for [`finish_generation`].
pub fn write_tables(
    next: &NextGeneration,
    schemas: &TableSchemas,
    input: &CommitInput,
    state: &StoreState,
    summary: &mut CommitSummary,
) -> Result<EventsDigests, StoreError> {
    let touched: HashSet<String> = input
        .sessions
        .iter()
        .map(|session| session.session.session_id.clone())
        .chain(input.removed_sessions.iter().cloned())
        .collect();
    TableWrite {
        previous_root: &next.previous.root,
        previous_generation: next.previous.generation,
        root: &next.root,
        generation: next.generation,
        schemas,
        input,
        touched: &touched,
        state,
    }
    .run(summary)
}

/// The digest of each written session's events (`store::digest`), by session id.
pub type EventsDigests = HashMap<String, String>;

/// Records the commit in `state` (session locations with `digests`, checkpoints, redaction
/// facts), saves it into `next` (the state shards it changed; `state` must be the previous
/// generation's, with the shards of the changed keys read: saving refuses a shard it never
/// read) and makes `next` current; older generations nobody pins are removed. Returns the new
/// state.
pub fn finish_generation(
    store: &Store,
    next: &NextGeneration,
    input: CommitInput,
    mut digests: EventsDigests,
    mut state: StoreState,
) -> Result<StoreState, StoreError> {
    let changed = input.changed_keys();
    for removed in &input.removed_sessions {
        state.sessions.remove(removed);
    }
    for session in &input.sessions {
        let session_id = &session.session.session_id;
        state.sessions.insert(
            session_id.clone(),
            SessionLocation {
                partition: partition_of(session),
                source_path: session.session.source_path.clone(),
                event_count: session.events.len() as u64,
                events_digest: digests.remove(session_id),
            },
        );
    }
    state.checkpoints.extend(input.checkpoints);
    if let Some(redacted) = input.redacted {
        state.redacted = redacted;
    }
    if let Some(rules) = input.redaction_rules {
        state.redaction_rules = rules;
    }
    state.save_changed(&next.root, &next.previous.root, &changed)?;
    crash_point("after-state");
    tracing::debug!("state saved");

    store.flip_current(next.generation)?;
    crash_point("after-flip");
    store.remove_old_generations(next.generation, next.previous.generation)?;
    crash_point("after-cleanup");
    tracing::debug!("old generations removed");
    Ok(state)
}

/// The declared schemas of the tables (events without its partition columns).
pub struct TableSchemas {
    pub events: SchemaRef,
    pub turns: SchemaRef,
    pub sessions: SchemaRef,
    pub file_touches: SchemaRef,
}

/// Writes the Parquet tables of one commit.
struct TableWrite<'a> {
    previous_root: &'a Path,
    previous_generation: u64,
    root: &'a Path,
    generation: u64,
    schemas: &'a TableSchemas,
    input: &'a CommitInput,
    touched: &'a HashSet<String>,
    state: &'a StoreState,
}

impl TableWrite<'_> {
    fn run(&self, summary: &mut CommitSummary) -> Result<EventsDigests, StoreError> {
        let sessions = &self.input.sessions;
        let digests: Vec<EventDigests> = sessions
            .iter()
            .map(|session| {
                let stored = self.state.sessions.get(&session.session.session_id);
                event_digests(
                    &session.events,
                    stored.map_or(0, |location| location.event_count as usize),
                )
            })
            .collect();
        let events_plan =
            EventsPlan::new(sessions, &digests, &self.input.removed_sessions, self.state);
        let old_event_ids = write_events(
            self.previous_root,
            self.root,
            self.generation,
            &self.schemas.events,
            &events_plan,
            summary,
        )?;
        summary.written_events = sessions.iter().map(|session| session.events.len()).sum();
        summary.new_events = events_plan.appended_events
            + events_plan
                .replaced_rows
                .iter()
                .filter(|event| !old_event_ids.contains(&event.event_id))
                .count();
        crash_point("after-events");
        tracing::debug!(
            appended_sessions = sessions.len() - events_plan.replaced_in_input,
            "events written"
        );
        write_turns(
            self.previous_root,
            self.root,
            self.generation,
            &self.schemas.turns,
            sessions,
            self.touched,
        )?;
        tracing::debug!("turns written");
        write_file_touches(
            self.previous_root,
            self.root,
            self.generation,
            &self.schemas.file_touches,
            sessions,
            self.touched,
        )?;
        tracing::debug!("file touches written");
        let moved = write_sessions(
            self.previous_root,
            self.root,
            self.generation,
            &self.schemas.sessions,
            sessions,
            self.touched,
        )?;
        write_rewritten_sessions(self.root, self.previous_generation, self.touched, &moved)?;
        crash_point("after-tables");
        tracing::debug!("sessions written");
        Ok(sessions
            .iter()
            .zip(digests)
            .map(|(session, digests)| (session.session.session_id.clone(), digests.all))
            .collect())
    }
}

fn partition_of(session: &AssembledSession) -> String {
    format!(
        "source={}/month={}",
        session.session.source.as_str(),
        session.month()
    )
}

/// What a commit does to `events`: which sessions' stored rows it replaces, and the rows it
/// writes into each partition.
///
/// A session whose first stored events are unchanged (same count and digest as the state
/// records) only gained events at its end: its stored rows stay where they are and only the
/// new events are written (an append costs what it adds, not the size of the file holding the
/// session). Any other touched session is replaced: its old rows are filtered out of the files
/// holding them and all its events are written.
struct EventsPlan<'a> {
    /// Sessions whose stored rows are removed (replaced or removed sessions).
    replaced_sessions: HashSet<String>,
    /// Partitions holding stored rows of a replaced session: only their files are read.
    replacing_partitions: BTreeSet<String>,
    /// Rows written into each partition.
    new_rows: BTreeMap<String, Vec<&'a EventRow>>,
    /// All the events of the replaced sessions of the input.
    replaced_rows: Vec<&'a EventRow>,
    /// Input sessions that are replaced rather than appended to.
    replaced_in_input: usize,
    /// Events added to appended sessions.
    appended_events: usize,
}

impl<'a> EventsPlan<'a> {
    fn new(
        sessions: &'a [AssembledSession],
        digests: &[EventDigests],
        removed_sessions: &[String],
        state: &StoreState,
    ) -> EventsPlan<'a> {
        let mut plan = EventsPlan {
            replaced_sessions: HashSet::new(),
            replacing_partitions: BTreeSet::new(),
            new_rows: BTreeMap::new(),
            replaced_rows: Vec::new(),
            replaced_in_input: 0,
            appended_events: 0,
        };
        for removed in removed_sessions {
            plan.replace(removed, state);
        }
        for (session, digests) in sessions.iter().zip(digests) {
            let partition = partition_of(session);
            let rows = match unchanged_prefix(session, &partition, digests, state) {
                Some(stored) => {
                    plan.appended_events += session.events.len() - stored;
                    &session.events[stored..]
                }
                None => {
                    plan.replace(&session.session.session_id, state);
                    plan.replaced_in_input += 1;
                    plan.replaced_rows.extend(session.events.iter());
                    &session.events[..]
                }
            };
            if !rows.is_empty() {
                plan.new_rows.entry(partition).or_default().extend(rows);
            }
        }
        plan
    }

    fn replace(&mut self, session_id: &str, state: &StoreState) {
        self.replaced_sessions.insert(session_id.to_string());
        if let Some(location) = state.sessions.get(session_id) {
            self.replacing_partitions.insert(location.partition.clone());
        }
    }

    /// Partitions whose files change.
    fn written_partitions(&self) -> BTreeSet<String> {
        self.replacing_partitions
            .iter()
            .chain(self.new_rows.keys())
            .cloned()
            .collect()
    }
}

/// How many of the session's events are stored unchanged in `partition`, when the stored
/// events are exactly its first ones (so only the rest must be written).
fn unchanged_prefix(
    session: &AssembledSession,
    partition: &str,
    digests: &EventDigests,
    state: &StoreState,
) -> Option<usize> {
    let stored = state.sessions.get(&session.session.session_id)?;
    let stored_digest = stored.events_digest.as_deref()?;
    let count = stored.event_count as usize;
    let unchanged = count > 0
        && count <= session.events.len()
        && stored.partition == partition
        && digests.prefix.as_deref() == Some(stored_digest);
    unchanged.then_some(count)
}

/// Writes the events of the new generation; returns the ids of the replaced old events.
fn write_events(
    previous_root: &Path,
    root: &Path,
    generation: u64,
    file_schema: &SchemaRef,
    plan: &EventsPlan<'_>,
    summary: &mut CommitSummary,
) -> Result<HashSet<String>, StoreError> {
    let previous_partitions = list_partitions(&previous_root.join("events"))?;
    let written_partitions = plan.written_partitions();
    let mut all_partitions: BTreeSet<String> = previous_partitions.keys().cloned().collect();
    all_partitions.extend(written_partitions.iter().cloned());
    let mut replaced_event_ids = HashSet::new();
    for partition in all_partitions {
        let old_files = previous_partitions
            .get(&partition)
            .cloned()
            .unwrap_or_default();
        let partition_dir = root.join("events").join(&partition);
        fs::create_dir_all(&partition_dir).map_err(StoreError::io(&partition_dir))?;
        if !written_partitions.contains(&partition) {
            link_files(&old_files, &partition_dir)?;
            continue;
        }
        let replacing = plan.replacing_partitions.contains(&partition);
        let mut kept_files = Vec::new();
        let mut batches_to_write = Vec::new();
        for old_file in &old_files {
            if !replacing
                || pio::read_string_column(old_file, "session_id")?
                    .is_disjoint(&plan.replaced_sessions)
            {
                kept_files.push(old_file.clone());
                continue;
            }
            let batches = pio::read_parquet(old_file)?;
            let to_error = parquet_failure(old_file);
            for removed in pio::filter_in(&batches, "session_id", &plan.replaced_sessions)
                .map_err(&to_error)?
            {
                replaced_event_ids.extend(
                    pio::column_strings(&removed, "event_id")
                        .map_err(&to_error)?
                        .into_iter()
                        .flatten(),
                );
            }
            batches_to_write.extend(
                pio::filter_out(&batches, "session_id", &plan.replaced_sessions)
                    .map_err(&to_error)?,
            );
        }
        if let Some(rows) = plan.new_rows.get(&partition) {
            batches_to_write.push(
                pio::events_batch(file_schema, rows).map_err(parquet_failure(&partition_dir))?,
            );
        }
        let writes_a_file = batches_to_write.iter().any(|batch| batch.num_rows() > 0);
        if kept_files.len() + usize::from(writes_a_file) > MAX_FILES_PER_PARTITION {
            for merged in files_to_merge(&mut kept_files)? {
                batches_to_write.extend(pio::read_parquet(&merged)?);
            }
            summary.compacted_partitions += 1;
        }
        link_files(&kept_files, &partition_dir)?;
        if batches_to_write.iter().any(|batch| batch.num_rows() > 0) {
            let file = partition_dir.join(format!("part-g{generation:06}.parquet"));
            pio::write_sorted(&file, file_schema, &batches_to_write, &EVENTS_LAYOUT)?;
        }
    }
    Ok(replaced_event_ids)
}

/// Takes out of a crowded partition's `files` the ones to merge into the file the commit
/// writes (size-tiered): the smallest files, at least enough to leave half the limit, then
/// every next file no more than twice the size of those taken so far. Small files written by
/// appends merge often and cheaply; a large compacted file is rewritten only once the small
/// ones add up to half its size.
fn files_to_merge(files: &mut Vec<PathBuf>) -> Result<Vec<PathBuf>, StoreError> {
    let mut sized = Vec::with_capacity(files.len());
    for file in files.drain(..) {
        let bytes = fs::metadata(&file).map_err(StoreError::io(&file))?.len();
        sized.push((bytes, file));
    }
    sized.sort();
    let at_least = (sized.len() + 1).saturating_sub(MAX_FILES_PER_PARTITION / 2);
    let mut taken_bytes = 0u64;
    let mut taken = 0;
    while taken < sized.len() && (taken < at_least || sized[taken].0 <= 2 * taken_bytes) {
        taken_bytes += sized[taken].0;
        taken += 1;
    }
    let kept = sized.split_off(taken);
    files.extend(kept.into_iter().map(|(_, file)| file));
    Ok(sized.into_iter().map(|(_, file)| file).collect())
}

/// `source=<s>/month=<m>` -> its Parquet files, for an `events/` directory.
fn list_partitions(events_dir: &Path) -> Result<BTreeMap<String, Vec<PathBuf>>, StoreError> {
    let mut partitions = BTreeMap::new();
    for source_dir in read_dir_sorted(events_dir)? {
        for month_dir in read_dir_sorted(&source_dir)? {
            let files: Vec<PathBuf> = read_dir_sorted(&month_dir)?
                .into_iter()
                .filter(|path| {
                    path.extension()
                        .is_some_and(|extension| extension == "parquet")
                })
                .collect();
            let relative = format!("{}/{}", file_name(&source_dir), file_name(&month_dir));
            partitions.insert(relative, files);
        }
    }
    Ok(partitions)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn read_dir_sorted(dir: &Path) -> Result<Vec<PathBuf>, StoreError> {
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    let mut paths: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(StoreError::io(dir))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .collect();
    paths.sort();
    Ok(paths)
}

fn link_files(files: &[PathBuf], target_dir: &Path) -> Result<(), StoreError> {
    for file in files {
        link_or_copy(file, &target_dir.join(file.file_name().unwrap_or_default()))?;
    }
    Ok(())
}

/// `turns/` and `file_touches/` are split into this many files by a hash of the session id,
/// so a commit rewrites only the buckets of the sessions it touches.
pub const TURN_BUCKETS: u64 = 16;

/// The bucket of `turns`, `sessions` and `file_touches` a session's rows are in.
pub fn turn_bucket(session_id: &str) -> u64 {
    (crate::ids::stable_hash(&[session_id.as_bytes()]) % u128::from(TURN_BUCKETS)) as u64
}

/// The bucket of each id in turn (`None` for a missing one); a run of equal ids (a session's
/// turns, in order) is hashed once.
pub fn turn_buckets<'a>(
    session_ids: impl IntoIterator<Item = Option<&'a str>>,
) -> impl Iterator<Item = Option<u64>> {
    let mut last: Option<(&'a str, u64)> = None;
    session_ids.into_iter().map(move |session_id| {
        let session_id = session_id?;
        let bucket = match last {
            Some((previous, bucket)) if previous == session_id => bucket,
            _ => turn_bucket(session_id),
        };
        last = Some((session_id, bucket));
        Some(bucket)
    })
}

/// The bucket a `part-bNN-…parquet` file holds (a base `part-bNN-gNNNNNN` or a hot
/// `part-bNN-hNNNNNN` file); `None` for a file of the unbucketed layout (rewritten into buckets
/// on the next commit).
pub fn bucket_of_file(path: &Path) -> Option<u64> {
    let name = path.file_name()?.to_str()?;
    name.strip_prefix("part-b")?.split_once('-')?.0.parse().ok()
}

/// What differs between two generations' `sessions` and `turns`: the rows a later
/// generation's in-memory directory must read again (src/service/catalog.rs).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChangedRows {
    /// Buckets whose base files differ: read again whole.
    pub buckets: BTreeSet<u64>,
    /// Sessions of the hot files that differ in buckets whose base files did not: read again
    /// alone (none of them is in `buckets`).
    pub sessions: BTreeSet<String>,
}

/// Past this many sessions to read again one by one, their buckets are read whole.
const MAX_CHANGED_SESSIONS: usize = 1024;

/// The file of a generation naming the generation its commit was made on and the sessions
/// whose `sessions`/`turns` rows that commit wrote (touched, removed, or moved in a chain):
/// [`changed_rows`] reads it instead of every session of a rewritten hot file.
const REWRITTEN_SESSIONS_FILE: &str = "rewritten_sessions.json";

/// The contents of [`REWRITTEN_SESSIONS_FILE`].
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct RewrittenSessions {
    /// The generation the commit was made on.
    after: u64,
    sessions: BTreeSet<String>,
}

/// Records in the generation at `root` the sessions whose rows its commit wrote.
fn write_rewritten_sessions(
    root: &Path,
    after: u64,
    touched: &HashSet<String>,
    moved: &HashSet<String>,
) -> Result<(), StoreError> {
    let record = RewrittenSessions {
        after,
        sessions: touched.iter().chain(moved).cloned().collect(),
    };
    let path = root.join(REWRITTEN_SESSIONS_FILE);
    let text = serde_json::to_string(&record).map_err(|error| StoreError::Parquet {
        path: path.clone(),
        message: error.to_string(),
    })?;
    fs::write(&path, text).map_err(StoreError::io(&path))
}

/// The sessions whose rows the commits from the generation at `previous` to the one at `next`
/// wrote, from each generation's [`REWRITTEN_SESSIONS_FILE`]; `None` when one of them is gone
/// (removed, as generations nobody pins are) or holds none (written before the file was).
fn rewritten_between(previous: &Path, next: &Path) -> Option<BTreeSet<String>> {
    let generations = next.parent()?;
    let target = super::parse_generation_name(previous.file_name()?.to_str()?)?;
    let mut sessions = BTreeSet::new();
    let mut at = next.to_path_buf();
    loop {
        let text = fs::read_to_string(at.join(REWRITTEN_SESSIONS_FILE)).ok()?;
        let record: RewrittenSessions = serde_json::from_str(&text).ok()?;
        sessions.extend(record.sessions);
        match record.after.cmp(&target) {
            std::cmp::Ordering::Equal => return Some(sessions),
            std::cmp::Ordering::Less => return None,
            std::cmp::Ordering::Greater => {
                at = generations.join(super::generation_name(record.after));
            }
        }
    }
}

/// The rows of `sessions` and `turns` that differ between the generations at `previous` and
/// `next` (a file is the same when its name, size and modification time are: a commit
/// hard-links the files it leaves alone); `None` when either holds a file outside the bucket
/// layout. A session's rows live in one file of its bucket. Where a bucket's base files are
/// the same in both generations, only its hot file changed, and the rows that may differ are
/// those of the sessions in the old or the new hot file (a commit that moves a session out of
/// the base rewrites the base): on most commits of an active session that is a few sessions,
/// where its bucket is 1/16 of the store.
pub fn changed_rows(previous: &Path, next: &Path) -> Result<Option<ChangedRows>, StoreError> {
    let mut changed = ChangedRows::default();
    let mut hot_files = Vec::new();
    for table in ["sessions", "turns"] {
        let (Some(before), Some(after)) = (
            bucket_files(&previous.join(table))?,
            bucket_files(&next.join(table))?,
        ) else {
            return Ok(None);
        };
        let buckets: BTreeSet<u64> = before.keys().chain(after.keys()).copied().collect();
        let empty = BTreeSet::new();
        for bucket in buckets {
            let (old, new) = (
                before.get(&bucket).unwrap_or(&empty),
                after.get(&bucket).unwrap_or(&empty),
            );
            if old == new {
                continue;
            }
            let base = |files: &BTreeSet<FileIdentity>| -> BTreeSet<FileIdentity> {
                files
                    .iter()
                    .filter(|file| !is_hot_file(Path::new(&file.0)))
                    .cloned()
                    .collect()
            };
            if base(old) != base(new) {
                changed.buckets.insert(bucket);
                continue;
            }
            let differing = old.symmetric_difference(new).map(|file| {
                let root = if old.contains(file) { previous } else { next };
                root.join(table).join(&file.0)
            });
            hot_files.extend(differing.map(|path| (bucket, path)));
        }
    }
    // The sessions the commits wrote, where each generation names them; else every session
    // of the old and new hot files.
    let rewritten = rewritten_between(previous, next);
    for (bucket, file) in hot_files {
        if changed.buckets.contains(&bucket) {
            continue;
        }
        match &rewritten {
            Some(rewritten) => changed.sessions.extend(
                rewritten
                    .iter()
                    .filter(|session_id| turn_bucket(session_id) == bucket)
                    .cloned(),
            ),
            None => changed
                .sessions
                .extend(pio::read_string_column(&file, "session_id")?),
        }
    }
    changed
        .sessions
        .retain(|session_id| !changed.buckets.contains(&turn_bucket(session_id)));
    if changed.sessions.len() > MAX_CHANGED_SESSIONS {
        let sessions = std::mem::take(&mut changed.sessions);
        changed
            .buckets
            .extend(sessions.iter().map(|session_id| turn_bucket(session_id)));
    }
    Ok(Some(changed))
}

/// The uncompressed bytes of `columns` in the files of the generation table at `table_dir`
/// (their footers only): what loading those columns into memory costs, about.
pub fn table_column_bytes(table_dir: &Path, columns: &[&str]) -> Result<u64, StoreError> {
    let mut bytes = 0;
    for file in parquet_files(table_dir)? {
        bytes += pio::uncompressed_column_bytes(&file, columns)?;
    }
    Ok(bytes)
}

/// What tells a file from a rewritten one: its name, size and modification time.
type FileIdentity = (String, u64, Option<std::time::SystemTime>);

/// A bucketed table's files by bucket; `None` when a file names no bucket.
fn bucket_files(
    table_dir: &Path,
) -> Result<Option<BTreeMap<u64, BTreeSet<FileIdentity>>>, StoreError> {
    let mut buckets: BTreeMap<u64, BTreeSet<FileIdentity>> = BTreeMap::new();
    for file in parquet_files(table_dir)? {
        let Some(bucket) = bucket_of_file(&file) else {
            return Ok(None);
        };
        let metadata = fs::metadata(&file).map_err(StoreError::io(&file))?;
        let name = file
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        buckets
            .entry(bucket)
            .or_default()
            .insert((name, metadata.len(), metadata.modified().ok()));
    }
    Ok(Some(buckets))
}

/// Whether a bucket file is the bucket's hot file (see [`write_bucketed`]).
fn is_hot_file(path: &Path) -> bool {
    path.file_name()
        .and_then(|name| name.to_str())
        .and_then(|name| name.strip_prefix("part-b"))
        .and_then(|rest| rest.split_once('-'))
        .is_some_and(|(_, rest)| rest.starts_with('h'))
}

fn bucket_file_name(bucket: u64, generation: u64, hot: bool) -> String {
    let kind = if hot { 'h' } else { 'g' };
    format!("part-b{bucket:02}-{kind}{generation:06}.parquet")
}

/// Rows a bucket's hot file may hold; past it the commit merges the hot file into the base.
const HOT_ROWS_LIMIT: usize = 4096;

/// Base files a bucket may hold: bulk loads of new sessions add one each, and the commit
/// that would add one more merges the smaller ones into the file it writes.
const MAX_BASE_FILES: usize = MAX_FILES_PER_PARTITION;

/// A commit touching more sessions than this is a bulk load (a first pass, a rebuild): it
/// rewrites every bucket it touches as one base file, leaving no hot file behind to be opened
/// beside the base by every later read.
const BULK_SESSIONS: usize = 256;

/// A table stored as [`TURN_BUCKETS`] buckets by a hash of the session id.
struct BucketedTable<'a> {
    /// The table's directory in a generation.
    name: &'static str,
    schema: &'a SchemaRef,
    layout: &'static FileLayout<'static>,
    /// Whether a bulk load of new sessions may add a base file to a bucket instead of
    /// rewriting it. Not for `file_touches`: file_attention reads a file name's touches in
    /// every bucket, about a millisecond per file opened.
    bulk_adds_base_files: bool,
}

/// What a commit changes in a bucketed table.
struct BucketChange<'a> {
    /// Sessions whose stored rows are replaced by `new_rows` (touched and removed sessions).
    replaced: &'a HashSet<String>,
    /// Sessions whose stored rows stay but are written again through `finish` (sessions whose
    /// chain position moved).
    restamped: &'a HashSet<String>,
    /// The new rows, by bucket.
    new_rows: BTreeMap<u64, Vec<RecordBatch>>,
    /// Applied to every file's rows before they are written.
    finish: &'a dyn Fn(RecordBatch) -> Result<RecordBatch, String>,
}

impl BucketChange<'_> {
    fn is_bulk(&self) -> bool {
        self.replaced.len() > BULK_SESSIONS
    }
}

fn unchanged(batch: RecordBatch) -> Result<RecordBatch, String> {
    Ok(batch)
}

fn write_turns(
    previous_root: &Path,
    root: &Path,
    generation: u64,
    schema: &SchemaRef,
    sessions: &[AssembledSession],
    touched: &HashSet<String>,
) -> Result<(), StoreError> {
    let table = BucketedTable {
        name: "turns",
        schema,
        layout: &TURNS_LAYOUT,
        bulk_adds_base_files: true,
    };
    let turns_of = |session: &AssembledSession| {
        let rows: Vec<&TurnRow> = session.turns.iter().collect();
        pio::turns_batch(schema, &rows).map(Some)
    };
    write_rows_of_sessions(
        previous_root,
        root,
        generation,
        &table,
        sessions,
        touched,
        turns_of,
    )
}

fn write_file_touches(
    previous_root: &Path,
    root: &Path,
    generation: u64,
    schema: &SchemaRef,
    sessions: &[AssembledSession],
    touched: &HashSet<String>,
) -> Result<(), StoreError> {
    let table = BucketedTable {
        name: "file_touches",
        schema,
        layout: &TOUCHES_LAYOUT,
        bulk_adds_base_files: false,
    };
    let touches_of = |session: &AssembledSession| {
        if session.touches.is_empty() {
            return Ok(None);
        }
        let rows: Vec<&TouchRow> = session.touches.iter().collect();
        pio::touches_batch(schema, &rows).map(Some)
    };
    write_rows_of_sessions(
        previous_root,
        root,
        generation,
        &table,
        sessions,
        touched,
        touches_of,
    )
}

/// Writes a bucketed table whose rows each belong to one session (`turns`, `file_touches`):
/// the touched sessions' rows are replaced by what `rows_of` gives for each (`None`: none).
fn write_rows_of_sessions(
    previous_root: &Path,
    root: &Path,
    generation: u64,
    table: &BucketedTable<'_>,
    sessions: &[AssembledSession],
    touched: &HashSet<String>,
    rows_of: impl Fn(&AssembledSession) -> Result<Option<RecordBatch>, String>,
) -> Result<(), StoreError> {
    let mut new_rows: BTreeMap<u64, Vec<RecordBatch>> = BTreeMap::new();
    for session in sessions {
        if let Some(batch) = rows_of(session).map_err(parquet_failure(root))? {
            new_rows
                .entry(turn_bucket(&session.session.session_id))
                .or_default()
                .push(batch);
        }
    }
    let change = BucketChange {
        replaced: touched,
        restamped: &HashSet::new(),
        new_rows,
        finish: &unchanged,
    };
    write_bucketed(previous_root, root, generation, table, &change)
}

/// The files of one bucket in a generation.
#[derive(Debug, Default)]
struct BucketFiles {
    /// The bucket's base files: one, or up to [`MAX_BASE_FILES`] after bulk loads.
    base: Vec<PathBuf>,
    /// The hot file: the rows of sessions touched since the base was last written.
    hot: Vec<PathBuf>,
}

/// Writes a bucketed table of the new generation. Each bucket is a base file (or a few, after
/// bulk loads of new sessions: see [`rewrite_bucket`]) plus at most one small hot file holding the sessions touched since the base was last written, so a commit
/// that touches a session already in the hot file rewrites only the hot file: an active
/// session costs what it changes, not the size of its bucket. A touched session still in the
/// base moves to the hot file (the base is rewritten once, without it); a hot file past
/// [`HOT_ROWS_LIMIT`] rows, or any hot file in a bulk commit ([`BULK_SESSIONS`]), merges into
/// the base. Buckets the commit does not change are hard links to the previous files.
fn write_bucketed(
    previous_root: &Path,
    root: &Path,
    generation: u64,
    table: &BucketedTable<'_>,
    change: &BucketChange<'_>,
) -> Result<(), StoreError> {
    let table_dir = root.join(table.name);
    fs::create_dir_all(&table_dir).map_err(StoreError::io(&table_dir))?;
    let previous_files = parquet_files(&previous_root.join(table.name))?;
    if previous_files
        .iter()
        .any(|file| bucket_of_file(file).is_none())
    {
        return migrate_to_buckets(&previous_files, &table_dir, generation, table, change);
    }
    let mut buckets: BTreeMap<u64, BucketFiles> = BTreeMap::new();
    for file in previous_files {
        let files = buckets
            .entry(bucket_of_file(&file).unwrap_or(0))
            .or_default();
        if is_hot_file(&file) {
            files.hot.push(file);
        } else {
            files.base.push(file);
        }
    }
    let changed_buckets: BTreeSet<u64> = change
        .replaced
        .iter()
        .chain(change.restamped.iter())
        .map(|session_id| turn_bucket(session_id))
        .chain(change.new_rows.keys().copied())
        .collect();
    for bucket in &changed_buckets {
        buckets.entry(*bucket).or_default();
    }
    for (bucket, files) in &buckets {
        if changed_buckets.contains(bucket) {
            let target = BucketTarget {
                table_dir: &table_dir,
                generation,
                table,
                bucket: *bucket,
            };
            rewrite_bucket(&target, files, change)?;
        } else {
            link_files(&files.base, &table_dir)?;
            link_files(&files.hot, &table_dir)?;
        }
    }
    Ok(())
}

/// Where one bucket of a commit is written.
struct BucketTarget<'a> {
    table_dir: &'a Path,
    generation: u64,
    table: &'a BucketedTable<'a>,
    bucket: u64,
}

impl BucketTarget<'_> {
    /// Writes `batches` (sorted, through `finish`) as the bucket's base or hot file; nothing
    /// when they hold no rows.
    fn write(
        &self,
        batches: &[RecordBatch],
        hot: bool,
        finish: &dyn Fn(RecordBatch) -> Result<RecordBatch, String>,
    ) -> Result<(), StoreError> {
        if batches.iter().all(|batch| batch.num_rows() == 0) {
            return Ok(());
        }
        let file = self
            .table_dir
            .join(bucket_file_name(self.bucket, self.generation, hot));
        let sorted = pio::concat_sorted(self.table.schema, batches, self.table.layout.sorted_by)
            .and_then(finish)
            .map_err(parquet_failure(&file))?;
        pio::write_parquet(&file, self.table.schema, &[sorted], self.table.layout)
    }
}

fn rewrite_bucket(
    target: &BucketTarget<'_>,
    files: &BucketFiles,
    change: &BucketChange<'_>,
) -> Result<(), StoreError> {
    let in_bucket = |session_id: &&String| turn_bucket(session_id) == target.bucket;
    let replaced: HashSet<String> = change.replaced.iter().filter(in_bucket).cloned().collect();
    let restamped: HashSet<String> = change.restamped.iter().filter(in_bucket).cloned().collect();
    let mut hot_rows = Vec::new();
    for file in &files.hot {
        hot_rows.extend(pio::read_parquet(file)?);
    }
    let mut in_hot = HashSet::new();
    for batch in &hot_rows {
        in_hot.extend(
            pio::column_strings(batch, "session_id")
                .map_err(parquet_failure(target.table_dir))?
                .into_iter()
                .flatten(),
        );
    }
    let leaving: HashSet<String> = replaced.union(&restamped).cloned().collect();
    let outside_hot: HashSet<String> = leaving.difference(&in_hot).cloned().collect();
    let mut base_is_hit = false;
    for file in &files.base {
        if !outside_hot.is_empty()
            && !pio::read_string_column(file, "session_id")?.is_disjoint(&outside_hot)
        {
            base_is_hit = true;
        }
    }
    let to_error = parquet_failure(target.table_dir);
    let mut hot_out = pio::filter_out(&hot_rows, "session_id", &replaced).map_err(&to_error)?;
    let mut base_out = None;
    if base_is_hit {
        let base_rows = read_all(&files.base)?;
        hot_out.extend(pio::filter_in(&base_rows, "session_id", &restamped).map_err(&to_error)?);
        base_out = Some(pio::filter_out(&base_rows, "session_id", &leaving).map_err(&to_error)?);
    }
    hot_out.extend(
        change
            .new_rows
            .get(&target.bucket)
            .cloned()
            .unwrap_or_default(),
    );
    let hot_count: usize = hot_out.iter().map(RecordBatch::num_rows).sum();
    if change.is_bulk()
        && target.table.bulk_adds_base_files
        && !base_is_hit
        && !files.base.is_empty()
    {
        // A bulk load of sessions the base does not hold (a first pass): their rows become
        // one more base file and the stored ones are linked, so a commit writes what it adds,
        // not the whole bucket. Past MAX_BASE_FILES, the smaller files merge into the new one
        // (size-tiered, as crowded `events` partitions do).
        let mut kept = files.base.clone();
        let mut rows = hot_out;
        if kept.len() + 1 > MAX_BASE_FILES {
            for merged in files_to_merge(&mut kept)? {
                rows.extend(pio::read_parquet(&merged)?);
            }
        }
        link_files(&kept, target.table_dir)?;
        return target.write(&rows, false, change.finish);
    }
    if files.base.is_empty() || hot_count > HOT_ROWS_LIMIT || change.is_bulk() {
        let mut merged = match base_out {
            Some(rows) => rows,
            None => read_all(&files.base)?,
        };
        merged.extend(hot_out);
        return target.write(&merged, false, change.finish);
    }
    match base_out {
        Some(rows) => target.write(&rows, false, change.finish)?,
        None => link_files(&files.base, target.table_dir)?,
    }
    target.write(&hot_out, true, change.finish)
}

fn read_all(files: &[PathBuf]) -> Result<Vec<RecordBatch>, StoreError> {
    let mut batches = Vec::new();
    for file in files {
        batches.extend(pio::read_parquet(file)?);
    }
    Ok(batches)
}

/// Rewrites a table of the unbucketed layout (or with unbucketed files among its files) into
/// base bucket files.
fn migrate_to_buckets(
    previous_files: &[PathBuf],
    table_dir: &Path,
    generation: u64,
    table: &BucketedTable<'_>,
    change: &BucketChange<'_>,
) -> Result<(), StoreError> {
    let mut rows_by_bucket: BTreeMap<u64, Vec<RecordBatch>> = BTreeMap::new();
    for file in previous_files {
        let batches = pio::read_parquet(file)?;
        let kept = pio::filter_out(&batches, "session_id", change.replaced)
            .map_err(parquet_failure(file))?;
        for batch in kept {
            split_by_bucket(&batch, &mut rows_by_bucket).map_err(parquet_failure(file))?;
        }
    }
    for (bucket, batches) in &change.new_rows {
        rows_by_bucket
            .entry(*bucket)
            .or_default()
            .extend(batches.iter().cloned());
    }
    for (bucket, batches) in rows_by_bucket {
        let target = BucketTarget {
            table_dir,
            generation,
            table,
            bucket,
        };
        target.write(&batches, false, change.finish)?;
    }
    Ok(())
}

/// Appends the rows of `batch` to the list of the bucket of each row's session.
fn split_by_bucket(
    batch: &RecordBatch,
    rows_by_bucket: &mut BTreeMap<u64, Vec<RecordBatch>>,
) -> Result<(), String> {
    let buckets: Vec<u64> = pio::column_strings(batch, "session_id")?
        .iter()
        .map(|session_id| turn_bucket(session_id.as_deref().unwrap_or_default()))
        .collect();
    let present: BTreeSet<u64> = buckets.iter().copied().collect();
    for bucket in present {
        let mask: datafusion::arrow::array::BooleanArray =
            buckets.iter().map(|&row| Some(row == bucket)).collect();
        let rows = datafusion::arrow::compute::filter_record_batch(batch, &mask)
            .map_err(|error| error.to_string())?;
        rows_by_bucket.entry(bucket).or_default().push(rows);
    }
    Ok(())
}

/// Writes `sessions/` of the new generation, bucketed like `turns` (see [`write_bucketed`]):
/// the touched sessions' rows are replaced, and the sessions whose chain position changed are
/// written again; every written file gets the chain columns recomputed over every session.
fn write_sessions(
    previous_root: &Path,
    root: &Path,
    generation: u64,
    schema: &SchemaRef,
    sessions: &[AssembledSession],
    touched: &HashSet<String>,
) -> Result<HashSet<String>, StoreError> {
    let previous_files = parquet_files(&previous_root.join("sessions"))?;
    let rows: Vec<&SessionRow> = sessions.iter().map(|session| &session.session).collect();
    let new_rows = pio::sessions_batch(schema, &rows).map_err(parquet_failure(root))?;
    let table = BucketedTable {
        name: "sessions",
        schema,
        layout: &SESSIONS_LAYOUT,
        bulk_adds_base_files: true,
    };
    if let Some(carried) = carried_chain_positions(&previous_files, &new_rows, touched)? {
        // No session joined, left or moved in a chain: the stored chain columns stand.
        let new_rows = super::chains::apply_chain_positions(&new_rows, &carried)
            .map_err(parquet_failure(root))?;
        let mut new_rows_by_bucket = BTreeMap::new();
        split_by_bucket(&new_rows, &mut new_rows_by_bucket).map_err(parquet_failure(root))?;
        let change = BucketChange {
            replaced: touched,
            restamped: &HashSet::new(),
            new_rows: new_rows_by_bucket,
            finish: &unchanged,
        };
        write_bucketed(previous_root, root, generation, &table, &change)?;
        return Ok(HashSet::new());
    }
    let chains = relink_chains(&previous_files, &new_rows, touched)?;
    let mut new_rows_by_bucket = BTreeMap::new();
    split_by_bucket(&new_rows, &mut new_rows_by_bucket).map_err(parquet_failure(root))?;
    let restamp =
        |batch: RecordBatch| super::chains::apply_chain_positions(&batch, &chains.positions);
    let change = BucketChange {
        replaced: touched,
        restamped: &chains.moved,
        new_rows: new_rows_by_bucket,
        finish: &restamp,
    };
    write_bucketed(previous_root, root, generation, &table, &change)?;
    Ok(chains.moved)
}

/// The values of the [`CHAIN_KEY_COLUMNS`] of each row, sorted.
fn chain_keys(batch: &RecordBatch) -> Result<Vec<ChainKey>, String> {
    let strings = |column: &str| pio::column_strings(batch, column);
    let (ids, sources, slugs) = (
        strings("session_id")?,
        strings("source")?,
        strings("session_slug")?,
    );
    let (parents, forked_from) = (
        strings("parent_session_id")?,
        strings("forked_from_session_id")?,
    );
    let started_at = pio::column_micros(batch, "started_at")?;
    let mut keys: Vec<ChainKey> = (0..batch.num_rows())
        .map(|row| {
            (
                ids[row].clone(),
                sources[row].clone(),
                slugs[row].clone(),
                parents[row].clone(),
                forked_from[row].clone(),
                started_at[row],
            )
        })
        .collect();
    keys.sort();
    Ok(keys)
}

/// One session's [`CHAIN_KEY_COLUMNS`] values, in that order.
type ChainKey = (
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<i64>,
);

/// The stored chain positions of the touched sessions when the commit cannot move any chain:
/// every touched session is stored (in a bucket file) with the same chain keys as its new row,
/// so every session's keys, and so every chain, are what they were. `None` otherwise (a new
/// or removed session, or changed keys), where the chains are recomputed. Reads only the
/// buckets of the touched sessions.
fn carried_chain_positions(
    previous_files: &[PathBuf],
    new_rows: &RecordBatch,
    touched: &HashSet<String>,
) -> Result<Option<HashMap<String, ChainPosition>>, StoreError> {
    if touched.is_empty() || new_rows.num_rows() != touched.len() {
        return Ok(None);
    }
    let touched_buckets: BTreeSet<u64> = touched.iter().map(|id| turn_bucket(id)).collect();
    let columns: Vec<&str> = CHAIN_KEY_COLUMNS
        .iter()
        .chain(CHAIN_COLUMNS.iter())
        .copied()
        .collect();
    let mut stored = Vec::new();
    for file in previous_files {
        match bucket_of_file(file) {
            Some(bucket) if !touched_buckets.contains(&bucket) => continue,
            Some(_) => {}
            None => return Ok(None),
        }
        let batches = pio::read_columns(file, &columns)?;
        stored.extend(
            pio::filter_in(&batches, "session_id", touched).map_err(parquet_failure(file))?,
        );
    }
    let compare = || -> Result<Option<HashMap<String, ChainPosition>>, String> {
        let Some(first) = stored.first() else {
            return Ok(None);
        };
        let stored = datafusion::arrow::compute::concat_batches(&first.schema(), &stored)
            .map_err(|error| error.to_string())?;
        if stored.num_rows() != touched.len() {
            return Ok(None);
        }
        if chain_keys(&stored)? != chain_keys(new_rows)? {
            return Ok(None);
        }
        let session_ids = pio::column_strings(&stored, "session_id")?;
        let positions = chain_positions(&stored)?;
        Ok(Some(
            session_ids
                .into_iter()
                .zip(positions)
                .filter_map(|(id, position)| Some((id?, position)))
                .filter(|(_, position)| *position != ChainPosition::default())
                .collect(),
        ))
    };
    compare().map_err(parquet_failure(Path::new("sessions")))
}

/// The continuation chains after a commit, equal to a recomputation over the whole table: the
/// chain columns of every session are read (a narrow read of each stored bucket), the chains
/// that hold a touched session, before or after the commit, are relinked
/// ([`super::chains::rows_in_touched_chains`]), and every other chain keeps its stored columns.
struct Relinked {
    /// The chain position of every session in a chain.
    positions: HashMap<String, ChainPosition>,
    /// Untouched sessions whose chain position changed: their buckets are rewritten too.
    moved: HashSet<String>,
}

fn relink_chains(
    previous_files: &[PathBuf],
    new_rows: &RecordBatch,
    touched: &HashSet<String>,
) -> Result<Relinked, StoreError> {
    let columns: Vec<&str> = CHAIN_KEY_COLUMNS
        .iter()
        .chain(CHAIN_COLUMNS.iter())
        .copied()
        .collect();
    let new_keys =
        pio::project_by_name(new_rows, &columns).map_err(parquet_failure(Path::new("sessions")))?;
    let mut batches = Vec::new();
    let mut touched_rows = vec![new_keys.clone()];
    for file in previous_files {
        let stored = pio::read_columns(file, &columns)?;
        touched_rows
            .extend(pio::filter_in(&stored, "session_id", touched).map_err(parquet_failure(file))?);
        batches.extend(
            pio::filter_out(&stored, "session_id", touched).map_err(parquet_failure(file))?,
        );
    }
    batches.push(new_keys);
    let keys_schema = batches[batches.len() - 1].schema();
    let relink = || -> Result<Relinked, String> {
        use datafusion::arrow::compute::{and, filter_record_batch, is_not_null, not};
        let keys = datafusion::arrow::compute::concat_batches(&keys_schema, &batches)
            .map_err(|error| error.to_string())?;
        let seeds: Vec<&RecordBatch> = touched_rows.iter().collect();
        let in_touched_chains = super::chains::rows_in_touched_chains(&keys, &seeds)?;
        let relinked_rows =
            filter_record_batch(&keys, &in_touched_chains).map_err(|error| error.to_string())?;
        let before = chain_positions(&relinked_rows)?;
        let after = chain_positions(&link_continuations(&relinked_rows)?)?;
        let session_ids = pio::column_strings(&relinked_rows, "session_id")?;
        let mut relinked = Relinked {
            positions: HashMap::new(),
            moved: HashSet::new(),
        };
        for ((session_id, before), after) in session_ids.into_iter().zip(before).zip(after) {
            let Some(session_id) = session_id else {
                continue;
            };
            if before != after && !touched.contains(&session_id) {
                relinked.moved.insert(session_id.clone());
            }
            if after != ChainPosition::default() {
                relinked.positions.insert(session_id, after);
            }
        }
        // Every other session in a chain keeps the position it is stored with.
        let chain_ids = keys
            .column_by_name("chain_id")
            .ok_or_else(|| "sessions without chain_id".to_string())?;
        let untouched_chained = and(
            &not(&in_touched_chains).map_err(|error| error.to_string())?,
            &is_not_null(chain_ids).map_err(|error| error.to_string())?,
        )
        .map_err(|error| error.to_string())?;
        let kept_rows =
            filter_record_batch(&keys, &untouched_chained).map_err(|error| error.to_string())?;
        let kept_ids = pio::column_strings(&kept_rows, "session_id")?;
        for (session_id, position) in kept_ids.into_iter().zip(chain_positions(&kept_rows)?) {
            if let Some(session_id) = session_id {
                relinked.positions.insert(session_id, position);
            }
        }
        Ok(relinked)
    };
    relink().map_err(parquet_failure(Path::new("sessions")))
}

/// The Parquet files of a table directory, sorted.
fn parquet_files(table_dir: &Path) -> Result<Vec<PathBuf>, StoreError> {
    Ok(read_dir_sorted(table_dir)?
        .into_iter()
        .filter(|path| {
            path.extension()
                .is_some_and(|extension| extension == "parquet")
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files_of_sizes(dir: &Path, sizes: &[usize]) -> Vec<PathBuf> {
        sizes
            .iter()
            .enumerate()
            .map(|(index, size)| {
                let file = dir.join(format!("part-{index}.parquet"));
                fs::write(&file, vec![0u8; *size]).expect("write file");
                file
            })
            .collect()
    }

    fn names(files: &[PathBuf]) -> BTreeSet<String> {
        files.iter().map(|file| file_name(file)).collect()
    }

    #[test]
    fn a_crowded_partition_merges_its_small_files_and_keeps_the_large_one() {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut files = files_of_sizes(dir.path(), &[100_000, 40, 10, 12, 9, 11, 10, 30]);
        let merged = files_to_merge(&mut files).expect("sizes");
        assert_eq!(
            names(&files),
            BTreeSet::from(["part-0.parquet".to_string()])
        );
        assert_eq!(merged.len(), 7);
    }

    #[test]
    fn small_files_adding_up_to_half_the_large_one_merge_with_it() {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut files = files_of_sizes(dir.path(), &[1_000, 100, 100, 100, 100, 100, 100, 100]);
        let merged = files_to_merge(&mut files).expect("sizes");
        assert!(files.is_empty(), "kept {files:?}");
        assert_eq!(merged.len(), 8);
    }

    #[test]
    fn equal_large_files_merge_until_half_the_limit_is_left() {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut files = files_of_sizes(dir.path(), &[1_000; 8]);
        let merged = files_to_merge(&mut files).expect("sizes");
        // All equal: each next file is within twice what was taken, so all merge.
        assert_eq!(merged.len() + files.len(), 8);
        assert!(files.len() < MAX_FILES_PER_PARTITION / 2, "{files:?}");
    }

    #[test]
    fn hot_and_base_bucket_files_are_told_apart() {
        let base = Path::new(&bucket_file_name(7, 42, false)).to_path_buf();
        let hot = Path::new(&bucket_file_name(7, 42, true)).to_path_buf();
        assert_eq!(file_name(&base), "part-b07-g000042.parquet");
        assert_eq!(bucket_of_file(&base), Some(7));
        assert_eq!(bucket_of_file(&hot), Some(7));
        assert!(is_hot_file(&hot));
        assert!(!is_hot_file(&base));
    }
}
