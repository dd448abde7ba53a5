//! An in-memory DataFusion table kept in a declared row order and answering key filters by
//! lookup (the pattern of InfluxDB 3's last-value cache): it claims `Inexact` pushdown for every
//! filter, reads `key = literal` / `key IN (...)` predicates with [`LiteralGuarantee::analyze`],
//! and scans only the matching rows; without a key predicate it scans every row in its declared
//! order, so `ORDER BY <that order> LIMIT n` stops after n rows. DataFusion applies every
//! filter again above the scan, so a lookup only ever narrows what would have been read.

use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::array::{
    Array, AsArray, LargeStringArray, RecordBatch, StringArray, StringViewArray, UInt32Array,
};
use datafusion::arrow::compute::{SortOptions, take_record_batch};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{Column, DFSchema, Result as DataFusionResult, ScalarValue};
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::datasource::source::DataSourceExec;
use datafusion::logical_expr::utils::conjunction;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown, TableType};
use datafusion::physical_expr::expressions::col;
use datafusion::physical_expr::utils::{Guarantee, LiteralGuarantee};
use datafusion::physical_expr::{LexOrdering, PhysicalSortExpr};
use datafusion::physical_plan::ExecutionPlan;

/// The rows of one table, one batch in `order`, with a sorted permutation per key column.
#[derive(Debug)]
pub struct KeyedTable {
    rows: RecordBatch,
    /// The declared row order: (column, options) from the most significant.
    order: Vec<(&'static str, SortOptions)>,
    keys: Vec<KeyIndex>,
}

/// Rows by the value of one string column: a permutation of the rows sorted by (value, row),
/// searched by bisection (no per-key allocation).
#[derive(Debug)]
struct KeyIndex {
    column: &'static str,
    values: Texts,
    sorted_rows: Vec<u32>,
}

/// A string column of any Arrow flavour.
#[derive(Debug, Clone)]
pub enum Texts {
    Utf8(StringArray),
    Large(LargeStringArray),
    View(StringViewArray),
}

impl Texts {
    /// The column as strings; `None` when it holds none.
    pub fn of(array: &dyn Array) -> Option<Texts> {
        if let Some(view) = array.as_string_view_opt() {
            return Some(Texts::View(view.clone()));
        }
        if let Some(utf8) = array.as_string_opt::<i32>() {
            return Some(Texts::Utf8(utf8.clone()));
        }
        array
            .as_string_opt::<i64>()
            .map(|large| Texts::Large(large.clone()))
    }

    /// The value at `row` (`""` for a null: key columns are `NOT NULL`).
    pub fn value(&self, row: usize) -> &str {
        match self {
            Texts::Utf8(array) => array.value(row),
            Texts::Large(array) => array.value(row),
            Texts::View(array) => array.value(row),
        }
    }
}

/// Failures while building a table.
#[derive(Debug, thiserror::Error)]
pub enum KeyedTableError {
    #[error("keyed table has no string column {0}")]
    KeyColumn(&'static str),
    #[error("keyed table has more than 2^32 rows")]
    TooManyRows,
}

impl KeyedTable {
    /// A table over `rows`, which must already be sorted by `order`, looked up by `keys`.
    pub fn new(
        rows: RecordBatch,
        order: Vec<(&'static str, SortOptions)>,
        keys: &[&'static str],
    ) -> Result<KeyedTable, KeyedTableError> {
        let row_count = u32::try_from(rows.num_rows()).map_err(|_| KeyedTableError::TooManyRows)?;
        let keys = keys
            .iter()
            .map(|&column| {
                let values = rows
                    .column_by_name(column)
                    .and_then(|array| Texts::of(array))
                    .ok_or(KeyedTableError::KeyColumn(column))?;
                let mut sorted_rows: Vec<u32> = (0..row_count).collect();
                sorted_rows.sort_by(|&left, &right| {
                    (values.value(left as usize), left).cmp(&(values.value(right as usize), right))
                });
                Ok(KeyIndex {
                    column,
                    values,
                    sorted_rows,
                })
            })
            .collect::<Result<Vec<_>, KeyedTableError>>()?;
        Ok(KeyedTable { rows, order, keys })
    }

    /// Every row, in the declared order.
    pub fn rows(&self) -> &RecordBatch {
        &self.rows
    }

    /// The positions of the rows whose `column` is `value`, ascending (so in table order);
    /// empty when `column` is not a key.
    pub fn rows_with(&self, column: &str, value: &str) -> &[u32] {
        self.keys
            .iter()
            .find(|key| key.column == column)
            .map_or(&[], |key| key.rows_with(value))
    }

    /// The rows a scan with `filters` must read: those of the first key an `In` guarantee
    /// names, else `None` (every row).
    fn rows_for(&self, state: &dyn Session, filters: &[Expr]) -> Option<Vec<u32>> {
        let predicate = conjunction(filters.iter().map(unqualified))?;
        let schema = DFSchema::try_from(self.rows.schema()).ok()?;
        let physical = state.create_physical_expr(predicate, &schema).ok()?;
        let guarantees = LiteralGuarantee::analyze(&physical);
        self.keys.iter().find_map(|key| {
            let guarantee = guarantees.iter().find(|guarantee| {
                guarantee.guarantee == Guarantee::In && guarantee.column.name == key.column
            })?;
            let mut rows = Vec::new();
            for literal in &guarantee.literals {
                rows.extend_from_slice(key.rows_with(text_of(literal)?));
            }
            rows.sort_unstable();
            rows.dedup();
            Some(rows)
        })
    }

    /// The declared order as physical sort expressions over the table's schema.
    fn ordering(&self) -> DataFusionResult<Option<LexOrdering>> {
        let schema = self.rows.schema();
        let sort_exprs = self
            .order
            .iter()
            .map(|(column, options)| Ok(PhysicalSortExpr::new(col(column, &schema)?, *options)))
            .collect::<DataFusionResult<Vec<_>>>()?;
        Ok(LexOrdering::new(sort_exprs))
    }
}

impl KeyIndex {
    fn rows_with(&self, value: &str) -> &[u32] {
        let value_at = |row: &u32| self.values.value(*row as usize);
        let start = self
            .sorted_rows
            .partition_point(|row| value_at(row) < value);
        let length = self.sorted_rows[start..].partition_point(|row| value_at(row) == value);
        &self.sorted_rows[start..start + length]
    }
}

/// Rows per batch a scan yields: a LIMIT over the declared order stops after the first
/// batches instead of filtering every row.
const BATCH_ROWS: usize = 4096;

/// `rows` as zero-copy slices of at most [`BATCH_ROWS`] rows (one empty batch for none).
fn chunks(rows: &RecordBatch) -> Vec<RecordBatch> {
    if rows.num_rows() == 0 {
        return vec![rows.clone()];
    }
    (0..rows.num_rows())
        .step_by(BATCH_ROWS)
        .map(|start| rows.slice(start, BATCH_ROWS.min(rows.num_rows() - start)))
        .collect()
}

/// A filter with its columns unqualified (the table's own schema has no qualifier).
pub fn unqualified(filter: &Expr) -> Expr {
    filter
        .clone()
        .transform(|expr| {
            Ok(match expr {
                Expr::Column(column) => {
                    Transformed::yes(Expr::Column(Column::new_unqualified(column.name)))
                }
                other => Transformed::no(other),
            })
        })
        .map_or_else(|_| filter.clone(), |transformed| transformed.data)
}

/// The string a key literal holds; `None` for any other literal (no lookup then).
fn text_of(literal: &ScalarValue) -> Option<&str> {
    match literal {
        ScalarValue::Utf8(Some(text))
        | ScalarValue::Utf8View(Some(text))
        | ScalarValue::LargeUtf8(Some(text)) => Some(text),
        _ => None,
    }
}

#[async_trait]
impl TableProvider for KeyedTable {
    fn schema(&self) -> SchemaRef {
        self.rows.schema()
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
        let mut rows = match self.rows_for(state, filters) {
            Some(rows) => take_record_batch(&self.rows, &UInt32Array::from(rows))?,
            None => self.rows.clone(),
        };
        if let Some(limit) = limit {
            rows = rows.slice(0, limit.min(rows.num_rows()));
        }
        let mut source =
            MemorySourceConfig::try_new(&[chunks(&rows)], self.schema(), projection.cloned())?;
        if let Some(ordering) = self.ordering()? {
            source = source.try_with_sort_information(vec![ordering])?;
        }
        Ok(DataSourceExec::from_data_source(source))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{Int64Array, StringArray};
    use datafusion::arrow::datatypes::{DataType, Field, Schema};
    use datafusion::physical_plan::collect;
    use datafusion::prelude::{SessionContext, col, lit};

    /// Five rows by `n` descending; `kind` repeats.
    fn table() -> Arc<KeyedTable> {
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Utf8, false),
            Field::new("kind", DataType::Utf8, false),
            Field::new("n", DataType::Int64, false),
        ]));
        let rows = RecordBatch::try_new(
            schema,
            vec![
                Arc::new(StringArray::from(vec!["e", "d", "c", "b", "a"])),
                Arc::new(StringArray::from(vec!["x", "y", "x", "y", "x"])),
                Arc::new(Int64Array::from(vec![5, 4, 3, 2, 1])),
            ],
        )
        .unwrap();
        let descending = SortOptions {
            descending: true,
            nulls_first: true,
        };
        Arc::new(KeyedTable::new(rows, vec![("n", descending)], &["id", "kind"]).unwrap())
    }

    async fn ids(context: &SessionContext, sql: &str) -> Vec<String> {
        let batches = context.sql(sql).await.unwrap().collect().await.unwrap();
        batches
            .iter()
            .flat_map(|batch| {
                let ids = Texts::of(batch.column(0)).unwrap();
                (0..batch.num_rows())
                    .map(|row| ids.value(row).to_owned())
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    #[tokio::test]
    async fn sql_over_the_table_filters_orders_and_looks_up() {
        let context = SessionContext::new();
        context.register_table("t", table()).unwrap();
        assert_eq!(
            ids(
                &context,
                "SELECT id FROM t WHERE id IN ('b', 'd', 'zz') ORDER BY id"
            )
            .await,
            ["b", "d"]
        );
        assert_eq!(
            ids(
                &context,
                "SELECT id FROM t WHERE kind = 'x' AND n < 5 ORDER BY n"
            )
            .await,
            ["a", "c"]
        );
        assert_eq!(
            ids(
                &context,
                "SELECT id FROM t WHERE id = 'c' OR n = 1 ORDER BY id"
            )
            .await,
            ["a", "c"],
            "a disjunction over other columns scans every row"
        );
        assert_eq!(
            ids(&context, "SELECT id FROM t ORDER BY n DESC LIMIT 2").await,
            ["e", "d"]
        );
        let explained = context
            .sql("EXPLAIN SELECT id FROM t ORDER BY n DESC LIMIT 2")
            .await
            .unwrap()
            .collect()
            .await
            .unwrap();
        let plan = datafusion::arrow::util::pretty::pretty_format_batches(&explained)
            .unwrap()
            .to_string();
        assert!(
            plan.contains("DataSourceExec") && !plan.contains("SortExec"),
            "the declared order needs no sort:\n{plan}"
        );
    }

    /// How many rows a scan of `table` with `filters` reads.
    async fn scanned_rows(
        table: &KeyedTable,
        context: &SessionContext,
        filters: Vec<Expr>,
    ) -> usize {
        let plan = table
            .scan(&context.state(), None, &filters, None)
            .await
            .unwrap();
        let batches = collect(plan, context.task_ctx()).await.unwrap();
        batches.iter().map(RecordBatch::num_rows).sum()
    }

    #[tokio::test]
    async fn a_key_predicate_scans_only_the_matching_rows() {
        let context = SessionContext::new();
        let table = table();
        let scanned = |filters: Vec<Expr>| scanned_rows(&table, &context, filters);
        assert_eq!(scanned(vec![col("id").eq(lit("b"))]).await, 1);
        assert_eq!(
            scanned(vec![col("t.kind").eq(lit("y")), col("n").gt(lit(0i64))]).await,
            2,
            "a qualified key column is a key too"
        );
        assert_eq!(scanned(vec![col("id").eq(lit("nope"))]).await, 0);
        assert_eq!(scanned(vec![col("n").eq(lit(3i64))]).await, 5);
        assert_eq!(table.rows_with("kind", "x"), [0, 2, 4]);
        assert_eq!(table.rows_with("n", "3"), [] as [u32; 0], "not a key");
    }
}
