//! The in-memory index tables of one store generation, `session_index` and `turn_index`: the
//! hot columns of `sessions` and `turns` as DataFusion tables ([`BucketedTable`]) registered
//! in the serving context, so the same SQL answers over memory as over Parquet: list_sessions
//! (`queries/list_sessions_*.sql`), search hits' turn and session columns
//! (`queries/search_hit_parents.sql`), scope checks, and open's turn lookups
//! (`queries/turn_by_id.sql`, `queries/turn_neighbourhood.sql`). A key filter there is a
//! lookup. Until a generation's tables are loaded, each name is a view over its Parquet table
//! (`queries/session_index.sql`, `queries/turn_index.sql`). A commit's new generation carries
//! the replaced [`Directory`] over ([`Directory::refreshed_sessions`],
//! [`Directory::refreshed_turns`]): only the rows its commit changed are read again (whole
//! buckets where a base file was rewritten, single sessions where only a hot file was).

use std::sync::{Arc, OnceLock};

use async_trait::async_trait;
use datafusion::arrow::compute::SortOptions;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::error::ArrowError;
use datafusion::catalog::{Session, TableProvider};
use datafusion::error::{DataFusionError, Result as DataFusionResult};
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown, TableType};
use datafusion::physical_plan::ExecutionPlan;
use datafusion::prelude::SessionContext;

use crate::service::bucketed_table::BucketedTable;
use crate::service::catalog::NamedQuery;
use crate::service::keyed_table::{KeyedTableError, RowCollector, unqualified};
use crate::service::rows::RowError;
use crate::store::commit::ChangedRows;

/// The hot session columns, in (updated_at DESC, session_id DESC) order once in memory.
pub const SESSION_INDEX: &str = "session_index";
/// The hot turn columns, in (session_id, ordinal) order once in memory.
pub const TURN_INDEX: &str = "turn_index";

const SESSION_INDEX_VIEW: &str = include_str!("../../queries/session_index.sql");
const TURN_INDEX_VIEW: &str = include_str!("../../queries/turn_index.sql");

/// The columns of `sessions` that `session_index` holds (`queries/session_index.sql`).
pub const SESSION_INDEX_COLUMNS: [&str; 24] = [
    "session_id",
    "title",
    "source",
    "started_at",
    "updated_at",
    "completed",
    "turn_count",
    "event_count",
    "input_tokens",
    "cached_input_tokens",
    "output_tokens",
    "reasoning_tokens",
    "total_tokens",
    "mode",
    "session_slug",
    "chain_id",
    "chain_slug",
    "chain_number",
    "chain_length",
    "parent_session_id",
    "session_summary",
    "cwd",
    "project",
    "model",
];
/// The columns of `turns` that `turn_index` holds (`queries/turn_index.sql`).
pub const TURN_INDEX_COLUMNS: [&str; 5] = [
    "turn_id",
    "session_id",
    "ordinal",
    "completed",
    "event_count",
];

/// The rows `session_index` is loaded with, in its declared order ([`SESSION_ORDER`]).
pub const SESSION_INDEX_ROWS: NamedQuery = NamedQuery {
    name: "session_index_rows",
    sql: include_str!("../../queries/session_index_rows.sql"),
};
/// The rows `turn_index` is loaded with, in its declared order ([`TURN_ORDER`]).
pub const TURN_INDEX_ROWS: NamedQuery = NamedQuery {
    name: "turn_index_rows",
    sql: include_str!("../../queries/turn_index_rows.sql"),
};

/// `ORDER BY x DESC` (nulls first) and `ORDER BY x` (nulls last), as DataFusion's SQL sorts.
const DESCENDING: SortOptions = SortOptions {
    descending: true,
    nulls_first: true,
};
const ASCENDING: SortOptions = SortOptions {
    descending: false,
    nulls_first: false,
};
/// The ORDER BY of `queries/session_index_rows.sql`.
pub const SESSION_ORDER: [(&str, SortOptions); 2] =
    [("updated_at", DESCENDING), ("session_id", DESCENDING)];
/// The `session_index` columns looked up by value: a session by id, a session's sub-agents
/// (open(session)), a chain's members by id (open with a range) and by slug (list_sessions).
pub const SESSION_KEYS: [&str; 5] = [
    "session_id",
    "parent_session_id",
    "chain_id",
    "chain_slug",
    "session_slug",
];
/// The rows of `session_index` in the buckets `$1` names (a list of bucket numbers).
pub const SESSION_INDEX_BUCKET_ROWS: NamedQuery = NamedQuery {
    name: "session_index_bucket_rows",
    sql: include_str!("../../queries/session_index_bucket_rows.sql"),
};
/// The rows of `turn_index` in the buckets `$1` names.
pub const TURN_INDEX_BUCKET_ROWS: NamedQuery = NamedQuery {
    name: "turn_index_bucket_rows",
    sql: include_str!("../../queries/turn_index_bucket_rows.sql"),
};
/// The rows of `session_index` of the sessions `$1` lists (at most 256 ids).
pub const SESSION_INDEX_SESSION_ROWS: NamedQuery = NamedQuery {
    name: "session_index_session_rows",
    sql: include_str!("../../queries/session_index_session_rows.sql"),
};
/// The rows of `turn_index` of the sessions `$1` lists.
pub const TURN_INDEX_SESSION_ROWS: NamedQuery = NamedQuery {
    name: "turn_index_session_rows",
    sql: include_str!("../../queries/turn_index_session_rows.sql"),
};
/// A turn's session and ordinal by its id, a key lookup in `turn_index`.
pub const TURN_BY_ID: NamedQuery = NamedQuery {
    name: "turn_by_id",
    sql: include_str!("../../queries/turn_by_id.sql"),
};
/// A turn and the turns around it, each with its session's title and source.
pub const TURN_NEIGHBOURHOOD: NamedQuery = NamedQuery {
    name: "turn_neighbourhood",
    sql: include_str!("../../queries/turn_neighbourhood.sql"),
};
/// The ORDER BY of `queries/turn_index_rows.sql`.
const TURN_ORDER: [(&str, SortOptions); 2] = [("session_id", ASCENDING), ("ordinal", ASCENDING)];

/// Failures while loading the index tables.
#[derive(Debug, thiserror::Error)]
pub enum DirectoryError {
    #[error("index table rows: {0}")]
    Rows(#[from] RowError),
    #[error("index table: {0}")]
    Table(#[from] KeyedTableError),
    #[error("index table batches: {0}")]
    Arrow(#[from] ArrowError),
}

/// One index table as registered in a generation's context: the view over Parquet until
/// [`IndexTable::install`] puts its rows in memory, then the [`BucketedTable`]. Both have the
/// view's schema and every filter is `Inexact`, so a plan made against either is right for
/// both (a query planned during the swap reads the view).
#[derive(Debug)]
pub struct IndexTable {
    plain: Arc<dyn TableProvider>,
    loaded: OnceLock<Arc<BucketedTable>>,
}

/// The two index tables of a generation.
#[derive(Debug, Clone)]
pub struct IndexTables {
    sessions: Arc<IndexTable>,
    turns: Arc<IndexTable>,
}

/// Registers `session_index` and `turn_index` in `context` as views over `sessions` and
/// `turns`; the returned handles install the in-memory rows later.
pub async fn register_index_tables(
    context: &SessionContext,
) -> Result<IndexTables, DataFusionError> {
    let sessions = IndexTable::over_view(context, SESSION_INDEX, SESSION_INDEX_VIEW).await?;
    let turns = IndexTable::over_view(context, TURN_INDEX, TURN_INDEX_VIEW).await?;
    Ok(IndexTables { sessions, turns })
}

impl IndexTables {
    /// Serves both tables from the directory's rows from now on.
    pub fn install(&self, directory: &Directory) {
        self.sessions.install(Arc::clone(&directory.sessions));
        self.turns.install(Arc::clone(&directory.turns));
    }

    /// An empty collector for the rows of `queries/session_index_rows.sql`.
    pub fn session_rows(&self) -> RowCollector {
        RowCollector::new(self.sessions.schema())
    }

    /// An empty collector for the rows of `queries/turn_index_rows.sql`.
    pub fn turn_rows(&self) -> RowCollector {
        RowCollector::new(self.turns.schema())
    }
}

impl IndexTable {
    async fn over_view(
        context: &SessionContext,
        name: &str,
        view_sql: &str,
    ) -> Result<Arc<IndexTable>, DataFusionError> {
        let plain = context.sql(view_sql).await?.into_view();
        let table = Arc::new(IndexTable {
            plain,
            loaded: OnceLock::new(),
        });
        context.register_table(name, Arc::clone(&table) as Arc<dyn TableProvider>)?;
        Ok(table)
    }

    fn install(&self, rows: Arc<BucketedTable>) {
        // A generation's rows never change: a second load of the same rows is dropped.
        let _ = self.loaded.set(rows);
    }
}

#[async_trait]
impl TableProvider for IndexTable {
    fn schema(&self) -> SchemaRef {
        self.plain.schema()
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> DataFusionResult<Vec<TableProviderFilterPushDown>> {
        Ok(vec![TableProviderFilterPushDown::Inexact; filters.len()])
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> DataFusionResult<Arc<dyn ExecutionPlan>> {
        match self.loaded.get() {
            Some(rows) => rows.scan(state, projection, filters, limit).await,
            None => {
                // The view resolves the filters' columns by name, not by this table's name.
                let filters: Vec<Expr> = filters.iter().map(unqualified).collect();
                self.plain.scan(state, projection, &filters, limit).await
            }
        }
    }
}

/// A generation's loaded index tables, with what a later generation needs to carry them over.
/// Tools read them only through SQL (the tables are registered as `session_index` and
/// `turn_index`): a key filter there is a lookup. Each is split by store bucket
/// ([`BucketedTable`]), so a refresh rebuilds only the buckets a commit changed.
#[derive(Debug)]
pub struct Directory {
    sessions: Arc<BucketedTable>,
    turns: Arc<BucketedTable>,
}

impl Directory {
    /// The in-memory `session_index`, each bucket sorted into [`SESSION_ORDER`].
    pub fn session_table(rows: RowCollector) -> Result<BucketedTable, DirectoryError> {
        Ok(BucketedTable::sorting(
            rows,
            SESSION_ORDER.to_vec(),
            &SESSION_KEYS,
        )?)
    }

    /// The in-memory `turn_index`, each bucket sorted into [`TURN_ORDER`].
    pub fn turn_table(rows: RowCollector) -> Result<BucketedTable, DirectoryError> {
        Ok(BucketedTable::sorting(
            rows,
            TURN_ORDER.to_vec(),
            &["turn_id", "session_id"],
        )?)
    }

    /// The directory over the two in-memory tables (a million-document store has ~10^5
    /// sessions and a few 10^5 turns: loading them takes tens of milliseconds).
    pub fn from_tables(sessions: BucketedTable, turns: BucketedTable) -> Directory {
        Directory {
            sessions: Arc::new(sessions),
            turns: Arc::new(turns),
        }
    }

    /// `session_index` with the rows of `changed` (its buckets' sessions and its single
    /// sessions) replaced by `rows`, those rows in a later generation
    /// (`queries/session_index_bucket_rows.sql`, `queries/session_index_session_rows.sql`):
    /// what a commit leaves, without reading or rebuilding the other buckets.
    pub fn refreshed_sessions(
        &self,
        changed: &ChangedRows,
        rows: RowCollector,
    ) -> Result<BucketedTable, DirectoryError> {
        Ok(self.sessions.refreshed(changed, rows)?)
    }

    /// `turn_index` with the rows of `changed` replaced by `rows`
    /// (`queries/turn_index_bucket_rows.sql`, `queries/turn_index_session_rows.sql`).
    pub fn refreshed_turns(
        &self,
        changed: &ChangedRows,
        rows: RowCollector,
    ) -> Result<BucketedTable, DirectoryError> {
        Ok(self.turns.refreshed(changed, rows)?)
    }

    pub fn session_count(&self) -> usize {
        self.sessions.row_count()
    }

    pub fn turn_count(&self) -> usize {
        self.turns.row_count()
    }
}
