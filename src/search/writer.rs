//! Writes the master tantivy index: replaces the documents of touched sessions, commits, and
//! publishes the commit into a generation directory as hard links.

use std::fs;
use std::path::Path;

use tantivy::indexer::{IndexWriterOptions, NoMergePolicy};
use tantivy::schema::TantivyDocument;
use tantivy::{Index, IndexWriter, Term};

use super::merge_policy::{BoundedMergePolicy, MAX_MERGE_INPUT_BYTES};
use super::{SearchError, SearchFields};
use crate::model::EventType;
use crate::store::faults::crash_point;
use crate::store::rows::EventRow;

/// Memory budget of each indexing thread, at most.
const WRITER_MEMORY_BYTES_PER_THREAD: usize = 64_000_000;

/// The least tantivy accepts per thread.
const MIN_WRITER_MEMORY_BYTES_PER_THREAD: usize = 15_000_000;

/// The budget per indexing thread of writers opened from now on (0: the maximum).
static WRITER_BUDGET: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Sizes the indexing threads' buffers for a process that keeps under `memory_limit` bytes:
/// a thirty-second of it per thread, between tantivy's least (15 MB) and 64 MB (reached at
/// the default 2 GiB limit).
pub fn set_writer_memory_limit(memory_limit: u64) {
    let per_thread = usize::try_from(memory_limit / 32)
        .unwrap_or(usize::MAX)
        .clamp(
            MIN_WRITER_MEMORY_BYTES_PER_THREAD,
            WRITER_MEMORY_BYTES_PER_THREAD,
        );
    WRITER_BUDGET.store(per_thread, std::sync::atomic::Ordering::Relaxed);
}

fn writer_memory_per_thread() -> usize {
    match WRITER_BUDGET.load(std::sync::atomic::Ordering::Relaxed) {
        0 => WRITER_MEMORY_BYTES_PER_THREAD,
        budget => budget,
    }
}

/// Indexing threads: tantivy is most of the CPU time of an indexing pass (tokenizing,
/// stemming, postings), so it gets every core while the Parquet tables are written.
fn indexing_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |cores| cores.get().clamp(1, 4))
}

/// Lock files tantivy keeps in an index directory; never published.
const LOCK_FILES: [&str; 2] = [".tantivy-writer.lock", ".tantivy-meta.lock"];

/// The writable master index.
pub struct SearchWriter {
    writer: IndexWriter<TantivyDocument>,
    fields: SearchFields,
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> SearchError + '_ {
    move |source| SearchError::Io {
        path: path.to_path_buf(),
        source,
    }
}

impl SearchWriter {
    /// Opens the master index in `master_dir`, first restoring it from `published_dir` (the
    /// current generation's copy) when its last commit is not `expected_opstamp` (a crash after
    /// the index commit but before the generation flip) or when it is missing.
    pub fn open(
        master_dir: &Path,
        published_dir: &Path,
        expected_opstamp: u64,
    ) -> Result<SearchWriter, SearchError> {
        let master_opstamp = Index::open_in_dir(master_dir)
            .and_then(|index| index.load_metas())
            .map(|metas| metas.opstamp)
            .ok();
        if master_opstamp != Some(expected_opstamp) {
            restore_master(master_dir, published_dir)?;
        }
        let index = Index::open_in_dir(master_dir)?;
        super::analyzer::register_analyzers(&index);
        let fields = SearchFields::from_schema(&index.schema())?;
        if fields.exact.is_none() {
            tracing::warn!(
                "the search index predates exact-word matching: searches match word stems \
                 only; `esker index --rebuild` recreates it"
            );
        }
        if fields.locator.is_none() {
            tracing::warn!(
                "the search index predates event locators: `esker index --rebuild` recreates it"
            );
        }
        let options = IndexWriterOptions::builder()
            .num_worker_threads(indexing_threads())
            .memory_budget_per_thread(writer_memory_per_thread())
            // One merge at a time: each maps its input segments (see `merge_policy`).
            .num_merge_threads(1)
            .build();
        let writer = index.writer_with_options(options)?;
        writer.set_merge_policy(Box::new(BoundedMergePolicy::new(
            master_dir,
            MAX_MERGE_INPUT_BYTES,
        )));
        Ok(SearchWriter { writer, fields })
    }

    /// Removes every document of `session_id`.
    pub fn delete_session(&mut self, session_id: &str) {
        self.writer
            .delete_term(Term::from_field_text(self.fields.session_id, session_id));
    }

    /// Indexes one event: its ids and location, and, unless it is of type `unknown` (located
    /// only, never searched), its text. The tool name is indexed with the text, stemmed and in
    /// exact form, so that "exec_command" or "Bash" find calls.
    pub fn add_event(&mut self, event: &EventRow) -> Result<(), SearchError> {
        let mut document = TantivyDocument::default();
        document.add_text(self.fields.event_id, &event.event_id);
        if let Some(event_key) = self.fields.event_key {
            document.add_u64(event_key, crate::ids::event_key(&event.event_id));
        }
        document.add_text(self.fields.session_id, &event.session_id);
        document.add_text(self.fields.turn_id, &event.turn_id);
        document.add_text(self.fields.event_type, event.event_type.as_str());
        document.add_text(self.fields.source, event.source.as_str());
        document.add_i64(
            self.fields.timestamp_micros,
            event.timestamp.timestamp_micros(),
        );
        if let Some(locator) = self.fields.locator {
            document.add_text(locator.month, &event.month);
            document.add_i64(locator.seq, event.seq);
        }
        if event.event_type == EventType::Unknown {
            self.writer.add_document(document)?;
            return Ok(());
        }
        match &event.tool_name {
            Some(tool_name) => {
                document.add_text(self.fields.text, format!("{tool_name} {}", event.text))
            }
            None => document.add_text(self.fields.text, &event.text),
        }
        if let Some(exact) = self.fields.exact {
            if let Some(tool_name) = &event.tool_name {
                document.add_text(exact, tool_name);
            }
            document.add_text(exact, &event.text);
        }
        self.writer.add_document(document)?;
        Ok(())
    }

    /// Starts no merge at the next commit (merges already running go on).
    pub fn defer_merges(&self) {
        self.writer.set_merge_policy(Box::new(NoMergePolicy));
    }

    /// Commits the master index and returns the commit's opstamp.
    pub fn commit(&mut self) -> Result<u64, SearchError> {
        Ok(self.writer.commit()?)
    }

    /// Waits for merges and releases the writer lock.
    pub fn finish(self) -> Result<(), SearchError> {
        self.writer.wait_merging_threads()?;
        Ok(())
    }
}

/// Publishes the master index's current files into `generation_index_dir` as hard links.
/// Segment files are immutable and `meta.json` is replaced by rename, so the links keep this
/// commit's view even as the master moves on.
pub fn publish(master_dir: &Path, generation_index_dir: &Path) -> Result<(), SearchError> {
    fs::create_dir_all(generation_index_dir).map_err(io_error(generation_index_dir))?;
    for entry in fs::read_dir(master_dir).map_err(io_error(master_dir))? {
        let entry = entry.map_err(io_error(master_dir))?;
        let name = entry.file_name();
        if LOCK_FILES.iter().any(|lock| name == *lock) || !entry.path().is_file() {
            continue;
        }
        let target = generation_index_dir.join(&name);
        fs::hard_link(entry.path(), &target)
            .or_else(|_| fs::copy(entry.path(), &target).map(|_| ()))
            .map_err(io_error(&target))?;
    }
    Ok(())
}

/// The crash point reached after each file [`restore_master`] copies (`ESKER_CRASH_AT`).
pub const RESTORE_CRASH_POINT: &str = "search-restore-copied-file";

/// Replaces the master index with a copy of a published one. The copy is made in a sibling
/// directory and renamed into place, so a crash during the copy never leaves a master whose
/// `meta.json` names segment files that were not copied yet (the next open finds the master
/// missing or still ahead, and restores again).
fn restore_master(master_dir: &Path, published_dir: &Path) -> Result<(), SearchError> {
    let staging = master_dir.with_extension("restoring");
    if staging.exists() {
        fs::remove_dir_all(&staging).map_err(io_error(&staging))?;
    }
    fs::create_dir_all(&staging).map_err(io_error(&staging))?;
    for entry in fs::read_dir(published_dir).map_err(io_error(published_dir))? {
        let entry = entry.map_err(io_error(published_dir))?;
        let name = entry.file_name();
        if LOCK_FILES.iter().any(|lock| name == *lock) {
            continue;
        }
        let target = staging.join(&name);
        fs::copy(entry.path(), &target).map_err(io_error(&target))?;
        crash_point(RESTORE_CRASH_POINT);
    }
    if master_dir.exists() {
        fs::remove_dir_all(master_dir).map_err(io_error(master_dir))?;
    }
    fs::rename(&staging, master_dir).map_err(io_error(master_dir))?;
    Ok(())
}
