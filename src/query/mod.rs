//! DataFusion access to a store snapshot: registers `events`, `turns`, `sessions`,
//! `file_touches` and `memories` from the DDL in `tables/*.sql`, and runs read-only ad-hoc SQL
//! for `esker query`.

pub mod keyed_scan;
pub mod listed_files;
pub mod output;
pub mod page_index_reader;
pub mod prepared;
pub mod serving;
pub mod session_bucket;
pub mod session_set;

use std::path::Path;
use std::sync::Arc;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::datasource::listing::PartitionedFile;
use datafusion::execution::context::SQLOptions;
use datafusion::prelude::{SessionConfig, SessionContext};

use crate::store::Snapshot;
use keyed_scan::KeyedScan;
use serving::ServingRuntime;

/// The DDL of each table, compiled in. `{location}` is replaced by the table directory.
pub const TABLE_DDL: [(&str, &str); 5] = [
    ("events", include_str!("../../tables/events.sql")),
    ("turns", include_str!("../../tables/turns.sql")),
    ("sessions", include_str!("../../tables/sessions.sql")),
    (
        "file_touches",
        include_str!("../../tables/file_touches.sql"),
    ),
    ("memories", include_str!("../../tables/memories.sql")),
];

/// Partition columns of `events`, in directory order.
pub const EVENT_PARTITION_COLUMNS: [&str; 2] = ["source", "month"];

#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    #[error("{0}")]
    DataFusion(#[from] datafusion::error::DataFusionError),
    #[error("path is not valid UTF-8: {0}")]
    NonUtf8Path(String),
    #[error("unknown table {0}")]
    UnknownTable(String),
    #[error("reading the table declarations: {0}")]
    Declarations(std::io::Error),
}

/// A failure reading the tables' declarations inside a store operation (a commit).
impl From<QueryError> for crate::store::StoreError {
    fn from(error: QueryError) -> crate::store::StoreError {
        crate::store::StoreError::Contents(Box::new(error))
    }
}

/// A fresh context with the tables of `snapshot` registered.
pub async fn context_for(snapshot: &Snapshot) -> Result<SessionContext, QueryError> {
    context_at(&snapshot.root).await
}

/// A context with the tables under `root` (`root/events`, `root/turns`, ...), configured for
/// analytic queries (`esker query`: DataFusion's defaults, two partitions).
pub async fn context_at(root: &Path) -> Result<SessionContext, QueryError> {
    let context = SessionContext::new_with_config(session_config());
    register_functions(&context);
    register_tables(&context, root).await?;
    Ok(context)
}

/// esker's SQL functions, so the named queries run in every context that reads the tables
/// (`esker query`, a published dataset's, the serving ones): `session_bucket(session_id)` and
/// `in_session_set(session_id, name)` with no named set (a serving catalog registers its own).
pub fn register_functions(context: &SessionContext) {
    context.register_udf(session_bucket::session_bucket_udf());
    context.register_udf(session_set::in_session_set_udf(Default::default()));
}

/// A serving context for `snapshot` (the MCP server's named lookups) on the process-wide
/// `runtime` ([`serving::serving_runtime_within`]), whose caches it shares with every generation.
/// Its keyed tables read only the files and rows of the keys a query names.
pub async fn serving_context_for(
    snapshot: &Snapshot,
    runtime: &ServingRuntime,
) -> Result<SessionContext, QueryError> {
    serving_context_with(snapshot, runtime, serving::serving_config()).await
}

/// A context for `snapshot` on `runtime` with `config` (the serving configuration or a
/// variant of it, as the scale profile compares).
pub async fn serving_context_with(
    snapshot: &Snapshot,
    runtime: &ServingRuntime,
    config: SessionConfig,
) -> Result<SessionContext, QueryError> {
    let context = SessionContext::new_with_config_rt(config, Arc::clone(&runtime.env));
    register_functions(&context);
    // Registered with statistics collection on, DataFusion's `ListingTableFactory` lists every
    // file of a table and gathers its statistics at once (a pre-warm): 31-40 ms per table at
    // 10M documents, ~100 ms of each new generation's opening. The serving scans list a
    // generation's files once, on first use ([`listed_files`]), so the tables are registered
    // without it and scans still collect statistics as configured.
    let collecting = collect_statistics(&context, false);
    let registered = register_tables(&context, &snapshot.root).await;
    collect_statistics(&context, collecting);
    registered?;
    for (table_name, key_column, bucketed_by_key) in KEYED_TABLES {
        let listing = context.table_provider(table_name).await?;
        context.deregister_table(table_name)?;
        let keyed = KeyedScan::new(
            listing,
            key_column,
            bucketed_by_key,
            Arc::clone(&runtime.file_keys),
        );
        context.register_table(table_name, Arc::new(keyed))?;
    }
    Ok(context)
}

/// Every file of `context`'s keyed tables (a serving context's, [`serving_context_for`]),
/// each with its table's key column, in [`KEYED_TABLES`]' order (the events first: every
/// search hit and open lands there).
pub async fn keyed_files(
    context: &SessionContext,
) -> Result<Vec<(&'static str, PartitionedFile)>, QueryError> {
    let state = context.state();
    let mut files = Vec::new();
    for (table_name, _, _) in KEYED_TABLES {
        let provider = context.table_provider(table_name).await?;
        if let Some(keyed) = provider.downcast_ref::<KeyedScan>() {
            files.extend(keyed.files(&state).await?);
        }
    }
    Ok(files)
}

/// Reads ahead the key runs and footers of `files` ([`keyed_files`]) into `runtime`'s
/// caches, the footers up to half of the metadata cache, while `wanted` holds
/// ([`keyed_scan::warm_files`]). Blocking.
pub fn warm_keyed_files(
    files: &[(&'static str, PartitionedFile)],
    runtime: &ServingRuntime,
    wanted: &dyn Fn() -> bool,
) -> keyed_scan::Warmed {
    let footers = runtime.env.cache_manager.get_file_metadata_cache();
    let budget = footers.cache_limit() / 2;
    keyed_scan::warm_files(files, &runtime.file_keys, footers.as_ref(), budget, wanted)
}

/// Sets `context`'s `collect_statistics` to `collect`; returns what it was.
fn collect_statistics(context: &SessionContext, collect: bool) -> bool {
    let state = context.state_ref();
    let mut state = state.write();
    let execution = &mut state.config_mut().options_mut().execution;
    std::mem::replace(&mut execution.collect_statistics, collect)
}

/// The serving tables whose files are sorted by a key that lookups name, that key, and
/// whether the files are buckets of it (`turns` and `sessions`: 16 buckets by session id;
/// `file_touches` is bucketed by session but looked up by file name): their scans open only
/// the files holding the keys a query names ([`keyed_scan`]).
const KEYED_TABLES: [(&str, &str, bool); 4] = [
    ("events", "session_id", false),
    ("turns", "session_id", true),
    ("sessions", "session_id", true),
    ("file_touches", "file_name", false),
];

async fn register_tables(context: &SessionContext, root: &Path) -> Result<(), QueryError> {
    for (table_name, ddl) in TABLE_DDL {
        register(context, root, table_name, ddl).await?;
    }
    Ok(())
}

/// The analytic configuration of `esker query` and the writer's schema reads.
fn session_config() -> SessionConfig {
    utc(SessionConfig::new())
        .with_information_schema(true)
        .with_target_partitions(2)
}

/// UTC session time zone: `TIMESTAMP WITH TIME ZONE` in the DDL becomes a UTC-adjusted
/// timestamp, which Parquet readers (DuckDB, pyarrow, polars) then see as UTC, not naive.
fn utc(config: SessionConfig) -> SessionConfig {
    config.set_str("datafusion.execution.time_zone", "UTC")
}

/// Registers one table of `TABLE_DDL` at `root/<table_name>`.
async fn register(
    context: &SessionContext,
    root: &Path,
    table_name: &str,
    ddl: &str,
) -> Result<(), QueryError> {
    let location = root.join(table_name);
    let location_text = location
        .to_str()
        .ok_or_else(|| QueryError::NonUtf8Path(location.display().to_string()))?;
    let statement = ddl.replace(
        "{location}",
        &format!("{}/", location_text.replace('\'', "''")),
    );
    let started = std::time::Instant::now();
    context.sql(&statement).await?.collect().await?;
    tracing::debug!(
        table = table_name,
        elapsed_us = started.elapsed().as_micros() as u64,
        "registered a table"
    );
    Ok(())
}

/// The schema a table is declared with in `tables/*.sql` (partition columns included). The
/// declarations are registered once per process over an empty directory, so no data file is
/// listed or read: registered over a store, every file's footer is read for statistics (at a
/// million documents that took a commit of one appended line ~250 ms).
pub async fn declared_schema(table_name: &str) -> Result<SchemaRef, QueryError> {
    static DECLARED: tokio::sync::OnceCell<Vec<(&'static str, SchemaRef)>> =
        tokio::sync::OnceCell::const_new();
    let declared = DECLARED.get_or_try_init(declare_all).await?;
    declared
        .iter()
        .find(|(name, _)| *name == table_name)
        .map(|(_, schema)| Arc::clone(schema))
        .ok_or_else(|| QueryError::UnknownTable(table_name.to_string()))
}

async fn declare_all() -> Result<Vec<(&'static str, SchemaRef)>, QueryError> {
    let empty = tempfile::tempdir().map_err(QueryError::Declarations)?;
    let context = SessionContext::new_with_config(session_config());
    let mut declared = Vec::with_capacity(TABLE_DDL.len());
    for (table_name, ddl) in TABLE_DDL {
        let table_dir = empty.path().join(table_name);
        std::fs::create_dir_all(&table_dir).map_err(QueryError::Declarations)?;
        register(&context, empty.path(), table_name, ddl).await?;
        let provider = context
            .table_provider(table_name)
            .await
            .map_err(|_| QueryError::UnknownTable(table_name.to_string()))?;
        declared.push((table_name, provider.schema()));
    }
    Ok(declared)
}

/// Options that make ad-hoc SQL read-only: no DDL, no DML (INSERT, COPY), no SET statements.
pub fn read_only_options() -> SQLOptions {
    SQLOptions::new()
        .with_allow_ddl(false)
        .with_allow_dml(false)
        .with_allow_statements(false)
}

/// Runs one read-only SQL statement and collects its batches.
pub async fn run_read_only(
    context: &SessionContext,
    sql: &str,
) -> Result<(SchemaRef, Vec<RecordBatch>), QueryError> {
    let frame = context.sql_with_options(sql, read_only_options()).await?;
    let schema: SchemaRef = frame.schema().inner().clone();
    let batches = frame.collect().await?;
    Ok((schema, batches))
}
