//! One atomic commit: writes the next generation with the touched sessions replaced (events,
//! turns, sessions, file touches, search index, checkpoints), folds the memory journal into
//! it, flips `current`. The Parquet tables and the search index are written at the same time
//! (one core each): the tables by `store::commit`, the index here through `search::writer`.

use std::collections::HashSet;
use std::path::Path;

use crate::query::{EVENT_PARTITION_COLUMNS, declared_schema};
use crate::search::writer::{SearchWriter, publish};
use crate::store::commit::{
    CommitInput, CommitSummary, NextGeneration, TableSchemas, begin_generation, finish_generation,
    write_tables,
};
use crate::store::faults::crash_point;
use crate::store::parquet_io as pio;
use crate::store::state::StoreState;
use crate::store::{Store, StoreError};

use super::SEARCH_INDEX_DIR;

/// Writes and publishes the next generation from the caller's copy of the current
/// generation's state (the writer lock holder keeps it in step) and returns the new state:
/// the state file is parsed once per indexing run, not once per commit (it is tens of MB at
/// a million documents).
pub async fn commit_from(
    store: &Store,
    input: CommitInput,
    mut state: StoreState,
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
            let written =
                write_search_index(store, &next.previous.root, &search_root, &state, &input);
            tracing::debug!(
                elapsed_ms = started.elapsed().as_millis() as u64,
                "search index written"
            );
            written
        });
        let tables = write_tables(&next, &schemas, &input, &state, &mut summary);
        tracing::debug!(
            elapsed_ms = started.elapsed().as_millis() as u64,
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
    Ok((summary, state))
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

/// Replaces the touched sessions in the master search index, commits it and publishes the
/// commit into the new generation. Returns the commit opstamp.
fn write_search_index(
    store: &Store,
    previous_root: &Path,
    published_dir: &Path,
    state: &StoreState,
    input: &CommitInput,
) -> Result<u64, StoreError> {
    let master_dir = store.master_index_dir();
    let mut writer = SearchWriter::open(
        &master_dir,
        &previous_root.join("tantivy"),
        state.search_opstamp,
    )?;
    let mut written_ids: HashSet<&str> = HashSet::new();
    for session_id in input
        .sessions
        .iter()
        .map(|session| &session.session.session_id)
        .chain(input.removed_sessions.iter())
    {
        writer.delete_session(session_id);
    }
    for event in input
        .sessions
        .iter()
        .flat_map(|session| session.events.iter())
    {
        if written_ids.insert(&event.event_id) {
            writer.add_event(event)?;
        }
    }
    let opstamp = writer.commit()?;
    tracing::debug!("search index committed");
    crash_point("after-search-commit");
    writer.finish()?;
    tracing::debug!("search index merges done");
    publish(&master_dir, published_dir)?;
    Ok(opstamp)
}
