//! Folding the journal into a generation. Every generation a commit writes gets the memory
//! part of the previous one (Parquet files and index files as hard links) plus the journal
//! lines appended since, recorded in `memory_fold.json` as the journal offset it holds; the
//! offset is committed with the generation, so a crash before the flip folds the same lines
//! again into the next attempt and a crash after it never folds them twice.
//!
//! Two kinds of commit fold: every commit of the log indexer (`store::commit`), and a
//! memory-only commit ([`commit_pending`]) that links everything else of the current
//! generation unchanged; the server runs one when it saved entries and the writer lock is
//! free ([`super::folder`]), `esker index` at the end of each run.

use std::collections::HashSet;
use std::fs;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::index::{self, MemoryFields};
use super::journal::{Journal, JournalRecord, JournalTail};
use super::table;
use crate::store::faults::crash_point;
use crate::store::{Store, StoreError, WriterLock};

/// The memory index's directory in a generation.
pub const INDEX_DIR: &str = "memory_index";
/// How much of the journal a generation holds.
pub const MARKER_FILE: &str = "memory_fold.json";
/// Lock files tantivy leaves in an index directory; never linked forward.
const TANTIVY_LOCK_FILES: [&str; 2] = [".tantivy-writer.lock", ".tantivy-meta.lock"];

/// The contents of `memory_fold.json`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FoldMarker {
    /// Journal bytes folded: the next fold reads from here.
    pub journal_offset: u64,
    /// Entries the generation holds.
    pub entries: u64,
}

impl FoldMarker {
    /// The marker of a generation; a generation without one (older, or an empty generation
    /// 0 after a rebuild) holds nothing yet.
    pub fn read(generation_root: &Path) -> Result<FoldMarker, StoreError> {
        let path = generation_root.join(MARKER_FILE);
        match fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text).map_err(|error| StoreError::CorruptState {
                path,
                message: error.to_string(),
            }),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(FoldMarker::default()),
            Err(error) => Err(StoreError::io(&path)(error)),
        }
    }

    fn write(&self, generation_root: &Path) -> Result<(), StoreError> {
        let path = generation_root.join(MARKER_FILE);
        let text = serde_json::to_string(self).expect("the marker serializes");
        fs::write(&path, text).map_err(StoreError::io(&path))
    }
}

/// What a fold added.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FoldSummary {
    pub generation: u64,
    pub folded_entries: usize,
    /// Journal lines whose id a generation already held (never expected; counted, skipped).
    pub duplicate_entries: usize,
    pub marker: FoldMarker,
}

/// The journal lines a generation has not folded yet.
#[derive(Debug, Clone)]
pub struct Pending {
    marker: FoldMarker,
    tail: JournalTail,
}

impl Pending {
    /// Reads the journal from where `generation_root` stopped.
    pub fn of(store: &Store, generation_root: &Path) -> Result<Pending, StoreError> {
        let marker = FoldMarker::read(generation_root)?;
        let tail = Journal::of_store(store.data_dir()).read_from(marker.journal_offset)?;
        Ok(Pending { marker, tail })
    }

    /// Whether folding would change nothing (no complete line since the marker).
    pub fn is_empty(&self) -> bool {
        self.tail.end == self.marker.journal_offset
    }
}

/// Writes the memory part of generation `generation` (being built at `root`): the previous
/// generation's entries plus the journal's unfolded lines.
pub async fn fold_into(
    store: &Store,
    previous_root: &Path,
    root: &Path,
    generation: u64,
) -> Result<FoldSummary, StoreError> {
    let pending = Pending::of(store, previous_root)?;
    write_memory_part(previous_root, root, generation, pending).await
}

async fn write_memory_part(
    previous_root: &Path,
    root: &Path,
    generation: u64,
    pending: Pending,
) -> Result<FoldSummary, StoreError> {
    let index_dir = root.join(INDEX_DIR);
    carry_index_forward(&previous_root.join(INDEX_DIR), &index_dir)?;
    let memory_index = tantivy::Index::open_in_dir(&index_dir).map_err(search_error)?;
    let fields = MemoryFields::from_schema(&memory_index.schema())?;
    let (records, duplicate_entries) = new_records(&memory_index, &fields, pending.tail.records)?;

    if records.is_empty() {
        table::link_forward(previous_root, root)?;
    } else {
        let table_dir = root.join(table::TABLE_DIR);
        fs::create_dir_all(&table_dir).map_err(StoreError::io(&table_dir))?;
        let schema = crate::query::declared_schema(table::TABLE_DIR).await?;
        table::write(previous_root, root, generation, &schema, &records)?;
        let mut writer = index::writer(&memory_index)?;
        index::add_records(&writer, &fields, &records)?;
        writer.commit().map_err(search_error)?;
        writer.wait_merging_threads().map_err(search_error)?;
    }
    let marker = FoldMarker {
        journal_offset: pending.tail.end,
        entries: pending.marker.entries + records.len() as u64,
    };
    marker.write(root)?;
    Ok(FoldSummary {
        generation,
        folded_entries: records.len(),
        duplicate_entries,
        marker,
    })
}

fn search_error(error: tantivy::TantivyError) -> StoreError {
    StoreError::from(crate::search::SearchError::from(error))
}

/// The tail's records whose id the index (and the tail before them) does not hold yet.
fn new_records(
    memory_index: &tantivy::Index,
    fields: &MemoryFields,
    tail: Vec<JournalRecord>,
) -> Result<(Vec<JournalRecord>, usize), StoreError> {
    if tail.is_empty() {
        return Ok((tail, 0));
    }
    let searcher = memory_index.reader().map_err(search_error)?.searcher();
    let part = super::search::Part {
        searcher,
        fields: *fields,
    };
    let ids: Vec<&str> = tail.iter().map(|record| record.entry.id.as_str()).collect();
    let held: HashSet<String> = super::search::by_ids(std::slice::from_ref(&part), &ids)?
        .into_keys()
        .collect();
    let mut seen: HashSet<String> = HashSet::new();
    let total = tail.len();
    let records: Vec<JournalRecord> = tail
        .into_iter()
        .filter(|record| !held.contains(&record.entry.id) && seen.insert(record.entry.id.clone()))
        .collect();
    let duplicates = total - records.len();
    if duplicates > 0 {
        tracing::warn!(
            duplicates,
            "memory journal lines already folded were skipped"
        );
    }
    Ok((records, duplicates))
}

/// Links the previous generation's index files into `target` (a fresh index when there is
/// none). Segment files never change and tantivy replaces `meta.json` by rename, so writing
/// to the new directory leaves the previous generation's view intact.
fn carry_index_forward(previous: &Path, target: &Path) -> Result<(), StoreError> {
    if !previous.join("meta.json").is_file() {
        index::create_in_dir(target)?;
        return Ok(());
    }
    fs::create_dir_all(target).map_err(StoreError::io(target))?;
    for entry in fs::read_dir(previous).map_err(StoreError::io(previous))? {
        let entry = entry.map_err(StoreError::io(previous))?;
        let name = entry.file_name();
        if TANTIVY_LOCK_FILES.iter().any(|lock| name == *lock) || !entry.path().is_file() {
            continue;
        }
        link_or_copy(&entry.path(), &target.join(&name))?;
    }
    Ok(())
}

fn link_or_copy(source: &Path, target: &Path) -> Result<(), StoreError> {
    fs::hard_link(source, target)
        .or_else(|_| fs::copy(source, target).map(|_| ()))
        .map_err(StoreError::io(target))
}

/// Commits a generation that only folds the journal's pending lines (everything else is the
/// current generation's, linked); `None` when there is nothing to fold or the store is of an
/// older format (its rebuild folds the whole journal). Call with the writer lock held.
pub async fn commit_pending(
    store: &Store,
    _lock: &WriterLock,
) -> Result<Option<FoldSummary>, StoreError> {
    if store.outdated_format()?.is_some() {
        return Ok(None);
    }
    let previous = store.current()?;
    let pending = Pending::of(store, &previous.root)?;
    if pending.is_empty() {
        return Ok(None);
    }
    let generation = store.highest_generation_on_disk()?.max(previous.generation) + 1;
    let root = store.generation_dir(generation);
    if root.exists() {
        fs::remove_dir_all(&root).map_err(StoreError::io(&root))?;
    }
    fs::create_dir_all(&root).map_err(StoreError::io(&root))?;
    link_tree_except_memory(&previous.root, &root)?;
    let summary = write_memory_part(&previous.root, &root, generation, pending).await?;
    crash_point("memory-after-fold");
    store.flip_current(generation)?;
    crash_point("memory-after-flip");
    store.remove_old_generations(generation, previous.generation)?;
    tracing::info!(
        generation,
        entries = summary.folded_entries,
        "folded memory entries"
    );
    Ok(Some(summary))
}

/// Hard-links every file under `source` into `target` (same relative paths) except the
/// memory part, which the fold writes.
fn link_tree_except_memory(source: &Path, target: &Path) -> Result<(), StoreError> {
    for entry in fs::read_dir(source).map_err(StoreError::io(source))? {
        let entry = entry.map_err(StoreError::io(source))?;
        let name = entry.file_name();
        if [table::TABLE_DIR, INDEX_DIR, MARKER_FILE]
            .iter()
            .any(|memory_part| name == *memory_part)
        {
            continue;
        }
        link_recursively(&entry.path(), &target.join(&name))?;
    }
    Ok(())
}

fn link_recursively(source: &Path, target: &Path) -> Result<(), StoreError> {
    if !source.is_dir() {
        return link_or_copy(source, target);
    }
    fs::create_dir_all(target).map_err(StoreError::io(target))?;
    for entry in fs::read_dir(source).map_err(StoreError::io(source))? {
        let entry = entry.map_err(StoreError::io(source))?;
        link_recursively(&entry.path(), &target.join(entry.file_name()))?;
    }
    Ok(())
}

/// What an attempt to fold found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FoldOutcome {
    Folded(FoldSummary),
    NothingPending,
    /// Another writer holds the lock: its commits, or a later attempt, fold the entries.
    Locked,
}

/// Folds pending entries now if the writer lock is free.
pub async fn fold_if_unlocked(store: &Store, role: &str) -> Result<FoldOutcome, StoreError> {
    let lock = match WriterLock::try_acquire(store, role) {
        Ok(lock) => lock,
        Err(StoreError::Locked { .. }) => return Ok(FoldOutcome::Locked),
        Err(error) => return Err(error),
    };
    Ok(match commit_pending(store, &lock).await? {
        Some(summary) => FoldOutcome::Folded(summary),
        None => FoldOutcome::NothingPending,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::entry::Draft;
    use crate::memory::search;
    use crate::memory::view::MemoryReader;

    fn entry(text: &str) -> crate::memory::entry::MemoryEntry {
        Draft {
            text: text.to_owned(),
            ..Draft::default()
        }
        .normalize("p", "note", chrono::Utc::now())
        .unwrap()
    }

    #[tokio::test]
    async fn folds_carry_entries_forward_and_compact_the_table() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let journal = Journal::of_store(store.data_dir());
        let folds = table::MAX_FILES + 2;
        for fold in 0..folds {
            journal
                .append(&[entry(&format!("fold {fold} note"))])
                .unwrap();
            let outcome = fold_if_unlocked(&store, "test").await.unwrap();
            assert!(matches!(outcome, FoldOutcome::Folded(ref s) if s.folded_entries == 1));
        }
        assert_eq!(
            fold_if_unlocked(&store, "test").await.unwrap(),
            FoldOutcome::NothingPending
        );
        let root = store.current().unwrap().root;
        let marker = FoldMarker::read(&root).unwrap();
        assert_eq!(marker.entries, folds as u64);
        assert_eq!(marker.journal_offset, journal.size().unwrap());
        assert!(table::files(&root).unwrap().len() <= table::MAX_FILES);
        let rows: usize = table::files(&root)
            .unwrap()
            .iter()
            .map(|file| {
                crate::store::parquet_io::read_parquet(file)
                    .unwrap()
                    .iter()
                    .map(|batch| batch.num_rows())
                    .sum::<usize>()
            })
            .sum();
        assert_eq!(rows, folds);
        let view = MemoryReader::new(store.clone()).view().unwrap();
        assert_eq!(view.tail_entries, 0);
        assert_eq!(search::count(&view.parts), folds as u64);
    }

    #[tokio::test]
    async fn the_writer_lock_defers_folding() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        Journal::of_store(store.data_dir())
            .append(&[entry("held")])
            .unwrap();
        let lock = WriterLock::try_acquire(&store, "another writer").unwrap();
        assert_eq!(
            fold_if_unlocked(&store, "test").await.unwrap(),
            FoldOutcome::Locked
        );
        let view = MemoryReader::new(store.clone()).view().unwrap();
        assert_eq!(
            view.tail_entries, 1,
            "readers see the journal tail meanwhile"
        );
        drop(lock);
        assert!(matches!(
            fold_if_unlocked(&store, "test").await.unwrap(),
            FoldOutcome::Folded(_)
        ));
    }
}
