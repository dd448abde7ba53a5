//! The in-memory index tables of one store generation, `session_index` and `turn_index`: the
//! hot columns of `sessions` and `turns` as DataFusion tables ([`KeyedTable`]) registered in the
//! serving context, so the same SQL answers over memory as over Parquet: list_sessions
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
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::catalog::{Session, TableProvider};
use datafusion::error::{DataFusionError, Result as DataFusionResult};
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown, TableType};
use datafusion::physical_plan::ExecutionPlan;
use datafusion::prelude::SessionContext;

use crate::service::catalog::NamedQuery;
use crate::service::keyed_table::{KeyedTable, KeyedTableError, RowCollector, Texts, unqualified};
use crate::service::rows::RowError;
use crate::store::commit::{ChangedRows, turn_bucket, turn_buckets};

/// The hot session columns, in (updated_at DESC, session_id DESC) order once in memory.
pub const SESSION_INDEX: &str = "session_index";
/// The hot turn columns, in (session_id, ordinal) order once in memory.
pub const TURN_INDEX: &str = "turn_index";

const SESSION_INDEX_VIEW: &str = include_str!("../../queries/session_index.sql");
const TURN_INDEX_VIEW: &str = include_str!("../../queries/turn_index.sql");

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
/// [`IndexTable::install`] puts its rows in memory, then the [`KeyedTable`]. Both have the
/// view's schema and every filter is `Inexact`, so a plan made against either is right for
/// both (a query planned during the swap reads the view).
#[derive(Debug)]
pub struct IndexTable {
    plain: Arc<dyn TableProvider>,
    loaded: OnceLock<Arc<KeyedTable>>,
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

    fn install(&self, rows: Arc<KeyedTable>) {
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
/// `turn_index`): a key filter there is a lookup ([`KeyedTable`]).
#[derive(Debug)]
pub struct Directory {
    sessions: Arc<KeyedTable>,
    turns: Arc<KeyedTable>,
    /// The store bucket (`store::commit::turn_bucket`) of each row's session, per table: what
    /// a refresh keeps rows by.
    session_buckets: Vec<u8>,
    turn_buckets: Vec<u8>,
}

impl Directory {
    /// The in-memory `session_index`, sorted into [`SESSION_ORDER`].
    pub fn session_table(rows: RowCollector) -> Result<KeyedTable, DirectoryError> {
        Ok(KeyedTable::sorting(
            rows,
            SESSION_ORDER.to_vec(),
            &SESSION_KEYS,
        )?)
    }

    /// The in-memory `turn_index`, sorted into [`TURN_ORDER`].
    pub fn turn_table(rows: RowCollector) -> Result<KeyedTable, DirectoryError> {
        Ok(KeyedTable::sorting(
            rows,
            TURN_ORDER.to_vec(),
            &["turn_id", "session_id"],
        )?)
    }

    /// The directory over the two in-memory tables (a million-document store has ~10^5
    /// sessions and a few 10^5 turns: loading them takes tens of milliseconds).
    pub fn from_tables(
        sessions: KeyedTable,
        turns: KeyedTable,
    ) -> Result<Directory, DirectoryError> {
        let session_buckets = buckets_of(&texts(sessions.rows(), "session_id")?);
        let turn_buckets = buckets_of(&texts(turns.rows(), "session_id")?);
        Ok(Directory::with_buckets(
            sessions,
            turns,
            session_buckets,
            turn_buckets,
        ))
    }

    fn with_buckets(
        sessions: KeyedTable,
        turns: KeyedTable,
        session_buckets: Vec<u8>,
        turn_buckets: Vec<u8>,
    ) -> Directory {
        Directory {
            sessions: Arc::new(sessions),
            turns: Arc::new(turns),
            session_buckets,
            turn_buckets,
        }
    }

    /// `session_index` with the rows of `changed` (its buckets' sessions and its single
    /// sessions) replaced by `rows`, those rows in a later generation
    /// (`queries/session_index_bucket_rows.sql`, `queries/session_index_session_rows.sql`):
    /// what a commit leaves, without reading the rest again.
    pub fn refreshed_sessions(
        &self,
        changed: &ChangedRows,
        rows: RowCollector,
    ) -> Result<RefreshedTable, DirectoryError> {
        RefreshedTable::of(&self.sessions, &self.session_buckets, changed, rows)
    }

    /// `turn_index` with the rows of `changed` replaced by `rows`
    /// (`queries/turn_index_bucket_rows.sql`, `queries/turn_index_session_rows.sql`).
    pub fn refreshed_turns(
        &self,
        changed: &ChangedRows,
        rows: RowCollector,
    ) -> Result<RefreshedTable, DirectoryError> {
        RefreshedTable::of(&self.turns, &self.turn_buckets, changed, rows)
    }

    /// The directory over two refreshed tables.
    pub fn from_refreshed(
        sessions: RefreshedTable,
        turns: RefreshedTable,
    ) -> Result<Directory, DirectoryError> {
        Ok(Directory::with_buckets(
            sessions.table,
            turns.table,
            sessions.buckets,
            turns.buckets,
        ))
    }

    pub fn session_count(&self) -> usize {
        self.sessions.rows().num_rows()
    }

    pub fn turn_count(&self) -> usize {
        self.turns.rows().num_rows()
    }
}

/// An index table carried into a later generation, with its rows' buckets.
#[derive(Debug)]
pub struct RefreshedTable {
    table: KeyedTable,
    buckets: Vec<u8>,
}

impl RefreshedTable {
    /// `table` (whose rows are in `row_buckets`) without the rows of `changed`'s buckets and
    /// sessions (found by the `session_id` key), with `rows`.
    fn of(
        table: &KeyedTable,
        row_buckets: &[u8],
        changed: &ChangedRows,
        rows: RowCollector,
    ) -> Result<RefreshedTable, DirectoryError> {
        let mut keep: Vec<bool> = row_buckets
            .iter()
            .map(|bucket| !changed.buckets.contains(&u64::from(*bucket)))
            .collect();
        for session_id in &changed.sessions {
            for row in table.rows_with("session_id", session_id) {
                keep[*row as usize] = false;
            }
        }
        let (table, origins) = table.refreshed(&keep, rows)?;
        let buckets = carried_buckets(row_buckets, &origins, &table)?;
        Ok(RefreshedTable { table, buckets })
    }
}

/// The bucket of each row's session (ids are never null: [`texts`] rejects nulls).
fn buckets_of(session_ids: &Texts) -> Vec<u8> {
    turn_buckets((0..session_ids.len()).map(|row| Some(session_ids.value(row))))
        .map(|bucket| bucket.unwrap_or_default() as u8)
        .collect()
}

/// The buckets of a refreshed table's rows: a kept row's from `old`, an added row's hashed.
fn carried_buckets(
    old: &[u8],
    origins: &[(usize, usize)],
    table: &KeyedTable,
) -> Result<Vec<u8>, RowError> {
    let session_ids = texts(table.rows(), "session_id")?;
    Ok(origins
        .iter()
        .enumerate()
        .map(|(position, &(from, row))| match from {
            0 => old[row],
            _ => turn_bucket(session_ids.value(position)) as u8,
        })
        .collect())
}

/// A string column as it is stored (no copy), nulls rejected.
fn texts(batch: &RecordBatch, name: &str) -> Result<Texts, RowError> {
    let column = optional_texts(batch, name)?;
    if column.null_count() > 0 {
        return Err(RowError::UnexpectedNull(name.to_owned()));
    }
    Ok(column)
}

/// A string column as it is stored (no copy).
fn optional_texts(batch: &RecordBatch, name: &str) -> Result<Texts, RowError> {
    let column = batch
        .column_by_name(name)
        .ok_or_else(|| RowError::MissingColumn(name.to_owned()))?;
    Texts::of(column).ok_or_else(|| RowError::WrongType {
        column: name.to_owned(),
        expected: "a string",
    })
}
