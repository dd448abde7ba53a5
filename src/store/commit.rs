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
use super::faults::crash_point;
use super::parquet_io::{self as pio, FileLayout};
use super::rows::{AssembledSession, EventRow, SessionRow, TouchRow, TurnRow};
use super::state::{ChangedKeys, Checkpoint, SessionLocation, StoreState};
use super::{Snapshot, Store, StoreError};

/// A partition holding more files than this after a commit is compacted into one file.
pub const MAX_FILES_PER_PARTITION: usize = 8;

/// `events`: sorted by (session, seq); a located lookup (partition, session, seq or turn
/// ordinal) prunes to one row group by min/max, drops other files by the session bloom
/// filter, and to one page by the page statistics.
const EVENTS_LAYOUT: FileLayout<'static> = FileLayout {
    sorted_by: &["session_id", "seq"],
    bloom: &["event_id", "session_id"],
    page_statistics: &["session_id", "seq", "turn_ordinal", "timestamp"],
    no_dictionary: &["event_id", "text", "payload"],
    small_pages: &["text", "payload"],
    row_group_rows: pio::ROW_GROUP_ROWS,
};
/// `turns`: 16 buckets by session, sorted by (session, ordinal).
const TURNS_LAYOUT: FileLayout<'static> = FileLayout {
    sorted_by: &["session_id", "ordinal"],
    bloom: &["turn_id", "session_id"],
    page_statistics: &["session_id", "ordinal"],
    no_dictionary: &["turn_id", "first_event_id", "last_event_id"],
    small_pages: &[],
    row_group_rows: pio::LOOKUP_ROW_GROUP_ROWS,
};
/// `sessions`: 16 buckets by session (like `turns`), each sorted by id.
const SESSIONS_LAYOUT: FileLayout<'static> = FileLayout {
    sorted_by: &["session_id"],
    bloom: &["session_id"],
    page_statistics: &["session_id"],
    no_dictionary: &["session_id", "native_id"],
    small_pages: &[],
    row_group_rows: pio::LOOKUP_ROW_GROUP_ROWS,
};
/// `file_touches` is looked up by file name (`queries/file_attention_touches.sql`).
const TOUCHES_LAYOUT: FileLayout<'static> = FileLayout {
    sorted_by: &["file_name", "tail", "session_id"],
    bloom: &["file_name"],
    page_statistics: &["file_name", "tail"],
    no_dictionary: &[],
    small_pages: &[],
    row_group_rows: pio::ROW_GROUP_ROWS,
};

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

/// Writes the Parquet tables of one commit into `next`, counting into `summary`.
pub fn write_tables(
    next: &NextGeneration,
    schemas: &TableSchemas,
    input: &CommitInput,
    state: &StoreState,
    summary: &mut CommitSummary,
) -> Result<(), StoreError> {
    let touched: HashSet<String> = input
        .sessions
        .iter()
        .map(|session| session.session.session_id.clone())
        .chain(input.removed_sessions.iter().cloned())
        .collect();
    TableWrite {
        previous_root: &next.previous.root,
        root: &next.root,
        generation: next.generation,
        schemas,
        input,
        touched: &touched,
        state,
    }
    .run(summary)
}

/// Records the commit in `state` (session locations, checkpoints, redaction facts), saves it
/// into `next` (the state shards it changed; `state` must be the previous generation's) and
/// makes `next` current; older generations nobody pins are removed. Returns
/// the new state.
pub fn finish_generation(
    store: &Store,
    next: &NextGeneration,
    input: CommitInput,
    mut state: StoreState,
) -> Result<StoreState, StoreError> {
    let changed = ChangedKeys {
        checkpoints: input.checkpoints.keys().cloned().collect(),
        sessions: input
            .removed_sessions
            .iter()
            .cloned()
            .chain(
                input
                    .sessions
                    .iter()
                    .map(|session| session.session.session_id.clone()),
            )
            .collect(),
    };
    for removed in &input.removed_sessions {
        state.sessions.remove(removed);
    }
    for session in &input.sessions {
        state.sessions.insert(
            session.session.session_id.clone(),
            SessionLocation {
                partition: partition_of(session),
                source_path: session.session.source_path.clone(),
                event_count: session.events.len() as u64,
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

    store.flip_current(next.generation)?;
    crash_point("after-flip");
    store.remove_old_generations(next.generation, next.previous.generation)?;
    crash_point("after-cleanup");
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
    root: &'a Path,
    generation: u64,
    schemas: &'a TableSchemas,
    input: &'a CommitInput,
    touched: &'a HashSet<String>,
    state: &'a StoreState,
}

impl TableWrite<'_> {
    fn run(&self, summary: &mut CommitSummary) -> Result<(), StoreError> {
        let sessions = &self.input.sessions;
        let events_plan = EventsPlan::new(sessions, self.touched, self.state);
        let old_event_ids = write_events(
            self.previous_root,
            self.root,
            self.generation,
            &self.schemas.events,
            &events_plan,
            summary,
        )?;
        summary.written_events = sessions.iter().map(|session| session.events.len()).sum();
        summary.new_events = sessions
            .iter()
            .flat_map(|session| session.events.iter())
            .filter(|event| !old_event_ids.contains(&event.event_id))
            .count();
        crash_point("after-events");
        tracing::debug!("events written");
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
        write_sessions(
            self.previous_root,
            self.root,
            self.generation,
            &self.schemas.sessions,
            sessions,
            self.touched,
        )?;
        crash_point("after-tables");
        Ok(())
    }
}

fn partition_of(session: &AssembledSession) -> String {
    format!(
        "source={}/month={}",
        session.session.source.as_str(),
        session.month()
    )
}

/// Which partitions a commit must rewrite, and the new event rows of each.
struct EventsPlan<'a> {
    touched_sessions: &'a HashSet<String>,
    /// Partitions that held or will hold a touched session.
    touched_partitions: BTreeSet<String>,
    new_rows: BTreeMap<String, Vec<&'a EventRow>>,
}

impl<'a> EventsPlan<'a> {
    fn new(
        sessions: &'a [AssembledSession],
        touched_sessions: &'a HashSet<String>,
        state: &StoreState,
    ) -> EventsPlan<'a> {
        let mut touched_partitions: BTreeSet<String> = touched_sessions
            .iter()
            .filter_map(|session_id| state.sessions.get(session_id))
            .map(|location| location.partition.clone())
            .collect();
        let mut new_rows: BTreeMap<String, Vec<&EventRow>> = BTreeMap::new();
        for session in sessions {
            let partition = partition_of(session);
            touched_partitions.insert(partition.clone());
            new_rows
                .entry(partition)
                .or_default()
                .extend(session.events.iter());
        }
        EventsPlan {
            touched_sessions,
            touched_partitions,
            new_rows,
        }
    }
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
    let mut all_partitions: BTreeSet<String> = previous_partitions.keys().cloned().collect();
    all_partitions.extend(plan.touched_partitions.iter().cloned());
    let mut replaced_event_ids = HashSet::new();
    for partition in all_partitions {
        let old_files = previous_partitions
            .get(&partition)
            .cloned()
            .unwrap_or_default();
        let partition_dir = root.join("events").join(&partition);
        fs::create_dir_all(&partition_dir).map_err(StoreError::io(&partition_dir))?;
        if !plan.touched_partitions.contains(&partition) {
            link_files(&old_files, &partition_dir)?;
            continue;
        }
        let mut kept_files = Vec::new();
        let mut batches_to_write = Vec::new();
        for old_file in &old_files {
            let sessions_in_file = pio::read_string_column(old_file, "session_id")?;
            if sessions_in_file.is_disjoint(plan.touched_sessions) {
                kept_files.push(old_file.clone());
                continue;
            }
            let batches = pio::read_parquet(old_file)?;
            let to_error = parquet_failure(old_file);
            for removed in
                pio::filter_in(&batches, "session_id", plan.touched_sessions).map_err(&to_error)?
            {
                replaced_event_ids.extend(
                    pio::column_strings(&removed, "event_id")
                        .map_err(&to_error)?
                        .into_iter()
                        .flatten(),
                );
            }
            batches_to_write.extend(
                pio::filter_out(&batches, "session_id", plan.touched_sessions)
                    .map_err(&to_error)?,
            );
        }
        if let Some(rows) = plan.new_rows.get(&partition) {
            batches_to_write.push(
                pio::events_batch(file_schema, rows).map_err(parquet_failure(&partition_dir))?,
            );
        }
        if kept_files.len() + 1 > MAX_FILES_PER_PARTITION {
            for kept_file in kept_files.drain(..) {
                batches_to_write.extend(pio::read_parquet(&kept_file)?);
            }
            summary.compacted_partitions += 1;
        }
        link_files(&kept_files, &partition_dir)?;
        if batches_to_write.iter().any(|batch| batch.num_rows() > 0) {
            let file = partition_dir.join(format!("part-g{generation:06}.parquet"));
            write_sorted(&file, file_schema, &batches_to_write, &EVENTS_LAYOUT)?;
        }
    }
    Ok(replaced_event_ids)
}

/// Writes `batches` as one file sorted and laid out as `layout` says.
fn write_sorted(
    file: &Path,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    layout: &FileLayout<'_>,
) -> Result<(), StoreError> {
    let sorted =
        pio::concat_sorted(schema, batches, layout.sorted_by).map_err(parquet_failure(file))?;
    pio::write_parquet(file, schema, &[sorted], layout)
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
        let target = target_dir.join(file.file_name().unwrap_or_default());
        fs::hard_link(file, &target)
            .or_else(|_| fs::copy(file, &target).map(|_| ()))
            .map_err(StoreError::io(&target))?;
    }
    Ok(())
}

/// `turns/` and `file_touches/` are split into this many files by a hash of the session id,
/// so a commit rewrites only the buckets of the sessions it touches.
pub const TURN_BUCKETS: u64 = 16;

pub(crate) fn turn_bucket(session_id: &str) -> u64 {
    (crate::ids::stable_hash(&[session_id.as_bytes()]) % u128::from(TURN_BUCKETS)) as u64
}

/// The bucket a `part-bNN-gNNNNNN.parquet` file holds; `None` for a file of the unbucketed
/// layout (rewritten into buckets on the next commit).
pub(crate) fn bucket_of_file(path: &Path) -> Option<u64> {
    let name = path.file_name()?.to_str()?;
    name.strip_prefix("part-b")?.split_once('-')?.0.parse().ok()
}

/// A table stored as [`TURN_BUCKETS`] files by a hash of the session id.
struct BucketedTable<'a> {
    /// The table's directory in a generation.
    name: &'static str,
    schema: &'a SchemaRef,
    layout: &'static FileLayout<'static>,
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
    };
    let mut new_rows = Vec::with_capacity(sessions.len());
    for session in sessions {
        let rows: Vec<&TurnRow> = session.turns.iter().collect();
        let batch = pio::turns_batch(schema, &rows).map_err(parquet_failure(root))?;
        new_rows.push((session.session.session_id.as_str(), batch));
    }
    write_bucketed(previous_root, root, generation, &table, new_rows, touched)
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
    };
    let mut new_rows = Vec::new();
    for session in sessions
        .iter()
        .filter(|session| !session.touches.is_empty())
    {
        let rows: Vec<&TouchRow> = session.touches.iter().collect();
        let batch = pio::touches_batch(schema, &rows).map_err(parquet_failure(root))?;
        new_rows.push((session.session.session_id.as_str(), batch));
    }
    write_bucketed(previous_root, root, generation, &table, new_rows, touched)
}

/// Writes a bucketed table of the new generation: buckets holding no touched session are hard
/// links to the previous files; the others are rewritten without the touched sessions' old rows
/// plus `new_rows` (the new rows of each touched session).
fn write_bucketed(
    previous_root: &Path,
    root: &Path,
    generation: u64,
    table: &BucketedTable<'_>,
    new_rows: Vec<(&str, RecordBatch)>,
    touched: &HashSet<String>,
) -> Result<(), StoreError> {
    let table_dir = root.join(table.name);
    fs::create_dir_all(&table_dir).map_err(StoreError::io(&table_dir))?;
    let previous_files: Vec<PathBuf> = read_dir_sorted(&previous_root.join(table.name))?
        .into_iter()
        .filter(|path| {
            path.extension()
                .is_some_and(|extension| extension == "parquet")
        })
        .collect();
    let migrating = previous_files
        .iter()
        .any(|file| bucket_of_file(file).is_none());
    let touched_buckets: BTreeSet<u64> = if migrating {
        (0..TURN_BUCKETS).collect()
    } else {
        touched
            .iter()
            .map(|session_id| turn_bucket(session_id))
            .collect()
    };
    let mut kept = Vec::new();
    let mut rows_by_bucket: BTreeMap<u64, Vec<RecordBatch>> = BTreeMap::new();
    for file in &previous_files {
        if bucket_of_file(file).is_some_and(|bucket| !touched_buckets.contains(&bucket)) {
            kept.push(file.clone());
            continue;
        }
        let batches = pio::read_parquet(file)?;
        let untouched =
            pio::filter_out(&batches, "session_id", touched).map_err(parquet_failure(file))?;
        for batch in untouched {
            split_by_bucket(&batch, &mut rows_by_bucket).map_err(parquet_failure(file))?;
        }
    }
    link_files(&kept, &table_dir)?;
    for (session_id, batch) in new_rows {
        rows_by_bucket
            .entry(turn_bucket(session_id))
            .or_default()
            .push(batch);
    }
    for (bucket, batches) in rows_by_bucket {
        if batches.iter().all(|batch| batch.num_rows() == 0) {
            continue;
        }
        let file = table_dir.join(format!("part-b{bucket:02}-g{generation:06}.parquet"));
        write_sorted(&file, table.schema, &batches, table.layout)?;
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

/// Writes `sessions/` of the new generation in [`TURN_BUCKETS`] files: buckets holding no
/// touched session and no session whose chain position changed are hard links to the previous
/// files; the others are rewritten with the touched sessions' new rows and the chain columns
/// recomputed over every session.
fn write_sessions(
    previous_root: &Path,
    root: &Path,
    generation: u64,
    schema: &SchemaRef,
    sessions: &[AssembledSession],
    touched: &HashSet<String>,
) -> Result<(), StoreError> {
    let table_dir = root.join("sessions");
    fs::create_dir_all(&table_dir).map_err(StoreError::io(&table_dir))?;
    let previous_files = parquet_files(&previous_root.join("sessions"))?;
    let rows: Vec<&SessionRow> = sessions.iter().map(|session| &session.session).collect();
    let new_rows = pio::sessions_batch(schema, &rows).map_err(parquet_failure(&table_dir))?;
    let chains = relink_chains(&previous_files, &new_rows, touched)?;
    let migrating = previous_files
        .iter()
        .any(|file| bucket_of_file(file).is_none());
    let rewritten_buckets: BTreeSet<u64> = if migrating {
        (0..TURN_BUCKETS).collect()
    } else {
        touched
            .iter()
            .chain(chains.moved.iter())
            .map(|session_id| turn_bucket(session_id))
            .collect()
    };
    let mut rows_by_bucket: BTreeMap<u64, Vec<RecordBatch>> = BTreeMap::new();
    let mut kept = Vec::new();
    for file in &previous_files {
        if bucket_of_file(file).is_some_and(|bucket| !rewritten_buckets.contains(&bucket)) {
            kept.push(file.clone());
            continue;
        }
        let batches = pio::read_parquet(file)?;
        for batch in
            pio::filter_out(&batches, "session_id", touched).map_err(parquet_failure(file))?
        {
            split_by_bucket(&batch, &mut rows_by_bucket).map_err(parquet_failure(file))?;
        }
    }
    link_files(&kept, &table_dir)?;
    split_by_bucket(&new_rows, &mut rows_by_bucket).map_err(parquet_failure(&table_dir))?;
    for (bucket, batches) in rows_by_bucket {
        let file = table_dir.join(format!("part-b{bucket:02}-g{generation:06}.parquet"));
        let combined = pio::concat_sorted(schema, &batches, SESSIONS_LAYOUT.sorted_by)
            .map_err(parquet_failure(&file))?;
        if combined.num_rows() == 0 {
            continue;
        }
        let chained = super::chains::apply_chain_positions(&combined, &chains.positions)
            .map_err(parquet_failure(&file))?;
        pio::write_parquet(&file, schema, &[chained], &SESSIONS_LAYOUT)?;
    }
    Ok(())
}

/// The continuation chains after a commit, computed over the chain columns of every session
/// (a narrow read of each stored bucket) so they equal a recomputation over the whole table.
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
    for file in previous_files {
        let stored = pio::read_columns(file, &columns)?;
        batches.extend(
            pio::filter_out(&stored, "session_id", touched).map_err(parquet_failure(file))?,
        );
    }
    batches.push(new_keys);
    let keys_schema = batches[batches.len() - 1].schema();
    let relink = || -> Result<Relinked, String> {
        let keys = datafusion::arrow::compute::concat_batches(&keys_schema, &batches)
            .map_err(|error| error.to_string())?;
        let before = chain_positions(&keys)?;
        let after = chain_positions(&link_continuations(&keys)?)?;
        let session_ids = pio::column_strings(&keys, "session_id")?;
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
