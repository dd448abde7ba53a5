//! One atomic commit: writes the next generation with the touched sessions replaced (events,
//! turns, sessions, file touches, search index, checkpoints), folds the memory journal into
//! it, flips `current`. The Parquet tables and the search index are written at the same time
//! (one core each): the tables by `store::commit`, the index here through `search::writer`.

use std::collections::HashSet;
use std::path::Path;

use crate::heap::Resident;
use crate::query::{EVENT_PARTITION_COLUMNS, declared_schema};
use crate::search::writer::{SearchWriter, publish};
use crate::store::commit::{
    CommitInput, CommitSummary, NextGeneration, TableSchemas, begin_generation, finish_generation,
    write_tables,
};
use crate::store::faults::crash_point;
use crate::store::parquet_io as pio;
use crate::store::rows::AssembledSession;
use crate::store::state::StoreState;
use crate::store::{Store, StoreError};

use super::SEARCH_INDEX_DIR;

/// Writes and publishes the next generation from the caller's copy of the current
/// generation's state (the writer lock holder keeps it in step) and returns the new state:
/// the state file is parsed once per indexing run, not once per commit (it is tens of MB at
/// a million documents). `search` is the batch's search side, fed while the batch was read
/// ([`SearchBatch`]); without one the commit indexes `input.sessions` itself.
pub async fn commit_from(
    store: &Store,
    input: CommitInput,
    mut state: StoreState,
    search: Option<SearchBatch>,
) -> Result<(CommitSummary, StoreState), StoreError> {
    // The table writer reads the stored locations of the touched sessions.
    state.ensure_loaded(
        input
            .sessions
            .iter()
            .map(|session| session.session.session_id.as_str())
            .chain(input.removed_sessions.iter().map(String::as_str))
            .chain(input.checkpoints.keys().map(String::as_str)),
    )?;
    let next = begin_generation(store)?;
    let mut summary = CommitSummary {
        generation: next.generation,
        sessions_written: input.sessions.len(),
        ..CommitSummary::default()
    };
    let schemas = declared_schemas().await?;
    // The search index and the Parquet tables are written at the same time (one core each).
    let started = std::time::Instant::now();
    let (tables, search) = std::thread::scope(|scope| {
        let search = scope.spawn(|| {
            let search_root = next.root.join(SEARCH_INDEX_DIR);
            let written = write_search_index(
                store,
                &next.previous.root,
                &search_root,
                &state,
                &input,
                search,
            );
            tracing::debug!(
                elapsed_ms = started.elapsed().as_millis() as u64,
                rss_mib = resident_mib(),
                "search index written"
            );
            written
        });
        let tables = write_tables(&next, &schemas, &input, &state, &mut summary);
        tracing::debug!(
            elapsed_ms = started.elapsed().as_millis() as u64,
            rss_mib = resident_mib(),
            "tables written"
        );
        let search = search
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (tables, search)
    });
    let digests = tables?;
    state.search_opstamp = search?;
    fold_memory(store, &next).await?;
    crash_point("after-publish");
    let state = finish_generation(store, &next, input, digests, state)?;
    if let Some(resident) = Resident::read() {
        tracing::debug!(
            generation = summary.generation,
            rss_mib = Resident::mib(resident.now),
            anonymous_mib = Resident::mib(resident.anonymous),
            peak_mib = Resident::mib(resident.peak),
            "generation committed"
        );
    }
    Ok((summary, state))
}

/// This process's resident set in MiB, for the commit's step logs (0 where unknown).
fn resident_mib() -> u64 {
    Resident::read().map_or(0, |resident| Resident::mib(resident.now))
}

/// The declared schemas of the tables (`tables/*.sql`).
async fn declared_schemas() -> Result<TableSchemas, StoreError> {
    Ok(TableSchemas {
        events: pio::schema_without(&declared_schema("events").await?, &EVENT_PARTITION_COLUMNS),
        turns: declared_schema("turns").await?,
        sessions: declared_schema("sessions").await?,
        file_touches: declared_schema("file_touches").await?,
    })
}

/// Memory entries have no source log: every commit carries them forward and folds the
/// journal lines saved since the previous one.
async fn fold_memory(store: &Store, next: &NextGeneration) -> Result<(), StoreError> {
    crate::memory::fold::fold_into(store, &next.previous.root, &next.root, next.generation).await?;
    Ok(())
}

/// The search-index side of a batch being read: each session goes to tantivy's indexing
/// threads as soon as it is parsed (its stored documents deleted, its events added), so
/// tokenizing overlaps reading and parsing, and the commit only commits. Nothing is visible
/// before [`commit_from`] commits: a batch dropped uncommitted leaves the master index at its
/// last commit (tantivy discards uncommitted documents).
pub struct SearchBatch {
    writer: SearchWriter,
    /// Events already added in this batch (an event id is indexed once).
    event_ids: HashSet<String>,
}

impl SearchBatch {
    /// Opens the master index writer at the current generation's commit.
    pub fn open(store: &Store, state: &StoreState) -> Result<SearchBatch, StoreError> {
        let current = store.current()?;
        SearchBatch::open_at(store, &current.root, state)
    }

    fn open_at(
        store: &Store,
        generation_root: &Path,
        state: &StoreState,
    ) -> Result<SearchBatch, StoreError> {
        let writer = SearchWriter::open(
            &store.master_index_dir(),
            &generation_root.join(SEARCH_INDEX_DIR),
            state.search_opstamp,
        )?;
        Ok(SearchBatch {
            writer,
            event_ids: HashSet::new(),
        })
    }

    /// Starts no merge of committed segments at this batch's commit. During a pass of
    /// several batches, merges started at each commit held up the next batch (the writer of
    /// a batch waits for its merges); merges of the segments tantivy flushes while a batch
    /// is read still run beside the reading, and the pass's last commit merges as usual.
    pub fn defer_merges(&self) {
        self.writer.defer_merges();
    }

    /// Replaces what the index holds of `session` (stored, or `replaced`: a copy added
    /// earlier in this batch) by its events.
    pub fn put_session(
        &mut self,
        session: &AssembledSession,
        replaced: Option<&AssembledSession>,
    ) -> Result<(), StoreError> {
        for event in replaced.iter().flat_map(|copy| copy.events.iter()) {
            self.event_ids.remove(&event.event_id);
        }
        self.writer.delete_session(&session.session.session_id);
        for event in &session.events {
            if self.event_ids.insert(event.event_id.clone()) {
                self.writer.add_event(event)?;
            }
        }
        Ok(())
    }

    /// Removes the sessions that are gone, commits the master index, waits for its merges
    /// and publishes the commit into the new generation. Returns the commit opstamp.
    fn commit_into(
        mut self,
        removed_sessions: &[String],
        published_dir: &Path,
        master_dir: &Path,
    ) -> Result<u64, StoreError> {
        for session_id in removed_sessions {
            self.writer.delete_session(session_id);
        }
        let opstamp = self.writer.commit()?;
        tracing::debug!("search index committed");
        crash_point("after-search-commit");
        self.writer.finish()?;
        tracing::debug!("search index merges done");
        publish(master_dir, published_dir)?;
        Ok(opstamp)
    }
}

/// Commits the batch's search side (opening one over `input.sessions` when the batch was
/// read without one) and publishes it into the new generation. Returns the commit opstamp.
fn write_search_index(
    store: &Store,
    previous_root: &Path,
    published_dir: &Path,
    state: &StoreState,
    input: &CommitInput,
    search: Option<SearchBatch>,
) -> Result<u64, StoreError> {
    let search = match search {
        Some(search) => search,
        None => {
            let mut search = SearchBatch::open_at(store, previous_root, state)?;
            for session in &input.sessions {
                search.put_session(session, None)?;
            }
            search
        }
    };
    search.commit_into(
        &input.removed_sessions,
        published_dir,
        &store.master_index_dir(),
    )
}
