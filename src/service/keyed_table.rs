//! An in-memory DataFusion table kept in a declared row order and answering key filters by
//! lookup (the pattern of InfluxDB 3's last-value cache): it claims `Inexact` pushdown for every
//! filter, reads `key = literal` / `key IN (...)` predicates with [`LiteralGuarantee::analyze`]
//! (a disjunction of keyed predicates reads the union of their rows), and scans only the
//! matching rows. Every other filter prunes blocks of [`BATCH_ROWS`] rows by their minimum and
//! maximum (a zone map evaluated by DataFusion's `PruningPredicate`), so a time window over a
//! table ordered by time reads the blocks that overlap it; what is left is scanned in the
//! declared order, so `ORDER BY <that order> LIMIT n` stops after n rows. DataFusion applies
//! every filter again above the scan, so a lookup only ever narrows what would have been read.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, LargeStringArray, RecordBatch, RecordBatchOptions,
    StringArray, StringViewArray, StringViewBuilder, UInt32Array, UInt64Array, make_comparator,
    new_empty_array,
};
use datafusion::arrow::compute::{
    SortColumn, SortOptions, concat, interleave_record_batch, lexsort_to_indices, take_record_batch,
};
use datafusion::arrow::datatypes::{DataType, SchemaRef};
use datafusion::arrow::error::ArrowError;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::pruning::PruningStatistics;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{Column, DFSchema, Result as DataFusionResult, ScalarValue};
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::datasource::source::DataSourceExec;
use datafusion::functions_aggregate::min_max::{MaxAccumulator, MinAccumulator};
use datafusion::logical_expr::utils::conjunction;
use datafusion::logical_expr::{
    Accumulator, Expr, Operator, TableProviderFilterPushDown, TableType,
};
use datafusion::physical_expr::expressions::{BinaryExpr, col};
use datafusion::physical_expr::utils::{Guarantee, LiteralGuarantee};
use datafusion::physical_expr::{LexOrdering, PhysicalExpr, PhysicalSortExpr};
use datafusion::physical_optimizer::pruning::{PruningPredicate, PruningPredicateBuilder};
use datafusion::physical_plan::ExecutionPlan;

/// The rows of one table, one batch in `order`, with a sorted permutation per key column and
/// a zone map of its blocks.
#[derive(Debug)]
pub struct KeyedTable {
    rows: RecordBatch,
    /// The declared row order: (column, options) from the most significant.
    order: Vec<(&'static str, SortOptions)>,
    keys: Vec<KeyIndex>,
    zones: ZoneMap,
}

/// A scan's filters as the table reads them: their conjunction as a physical expression (key
/// lookups) and the zone maps' pruning predicate, built once per scan.
pub struct ScanFilter {
    predicate: Option<Arc<dyn PhysicalExpr>>,
    pruning: Option<Arc<PruningPredicate>>,
}

/// The rows a scan reads.
#[derive(Debug, PartialEq)]
enum Selection {
    /// These rows (ascending positions), from a key lookup.
    Rows(Vec<u32>),
    /// The blocks of [`BATCH_ROWS`] rows flagged `true`.
    Blocks(Vec<bool>),
    /// Every row.
    All,
}

/// The minimum and maximum of each ordered (non-text) column over every block of
/// [`BATCH_ROWS`] rows: the statistics DataFusion's `PruningPredicate` proves a block holds
/// no match with, as it does with Parquet row groups.
#[derive(Debug)]
struct ZoneMap {
    blocks: usize,
    row_counts: ArrayRef,
    /// Column name → (minimums, maximums), one value per block.
    bounds: HashMap<String, (ArrayRef, ArrayRef)>,
}

/// Rows by the value of one string column: a permutation of the rows sorted by (value, row),
/// searched by bisection (no per-key allocation).
#[derive(Debug)]
struct KeyIndex {
    column: &'static str,
    values: Texts,
    sorted_rows: Vec<u32>,
    /// Whether the table is ordered by this key first, ascending: its rows are then already
    /// in key order (a session's turns in `turn_index`), and no sort is needed.
    in_row_order: bool,
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

    fn array(&self) -> &dyn Array {
        match self {
            Texts::Utf8(array) => array,
            Texts::Large(array) => array,
            Texts::View(array) => array,
        }
    }

    /// Whether `row` holds a value (not a null).
    pub fn is_valid(&self, row: usize) -> bool {
        self.array().is_valid(row)
    }

    /// How many rows the column has.
    pub fn len(&self) -> usize {
        self.array().len()
    }

    /// Whether the column has no rows.
    pub fn is_empty(&self) -> bool {
        self.array().is_empty()
    }

    /// How many rows are null.
    pub fn null_count(&self) -> usize {
        self.array().null_count()
    }
}

/// Failures while building a table.
#[derive(Debug, thiserror::Error)]
pub enum KeyedTableError {
    #[error("keyed table has no string column {0}")]
    KeyColumn(&'static str),
    #[error("keyed table has no order column {0}")]
    OrderColumn(&'static str),
    #[error("keyed table has more than 2^32 rows")]
    TooManyRows,
    #[error("keyed table rows: {0}")]
    Arrow(#[source] ArrowError),
}

impl KeyedTable {
    /// A table over `rows` in any order (a [`RowCollector`]'s, whose strings are compacted),
    /// sorted into `order` by one permutation (strings are not copied again: only their views
    /// move).
    pub fn sorting(
        rows: RecordBatch,
        order: Vec<(&'static str, SortOptions)>,
        keys: &[&'static str],
    ) -> Result<KeyedTable, KeyedTableError> {
        let sorted = sorted_into(rows, &order)?;
        KeyedTable::new(sorted, order, keys)
    }

    /// This table with the rows `keep` flags `false` left out and `added` (rows in any order,
    /// of this table's schema) put in: the kept rows are already in order, so `added` is
    /// sorted alone and merged in, and the key indexes are merged the same way. The result
    /// is the table [`KeyedTable::sorting`] makes of the same rows, for a cost linear in the
    /// rows kept (no sort of them, no copy of their strings) — how a new generation carries
    /// the rows of the buckets its commit did not rewrite. Also returns where each row of the
    /// result comes from: `(0, row of this table)` or `(1, row of the sorted added rows)`.
    pub fn refreshed(
        &self,
        keep: &[bool],
        added: RecordBatch,
    ) -> Result<(KeyedTable, Vec<(usize, usize)>), KeyedTableError> {
        let added = sorted_into(added, &self.order)?;
        let merge = self.merged_order(keep, &added)?;
        let rows = interleave_record_batch(&[&self.rows, &added], &merge.indices)
            .map_err(KeyedTableError::Arrow)?;
        let rows = without_dead_strings(rows)?;
        let keys = self
            .keys
            .iter()
            .map(|key| key.merged(&rows, &merge))
            .collect::<Result<Vec<_>, KeyedTableError>>()?;
        let zones = ZoneMap::of(&rows);
        let table = KeyedTable {
            rows,
            order: self.order.clone(),
            keys,
            zones,
        };
        Ok((table, merge.indices))
    }

    /// Where each kept row and each row of `added` (sorted) goes in the merged order.
    fn merged_order(
        &self,
        keep: &[bool],
        added: &RecordBatch,
    ) -> Result<MergedOrder, KeyedTableError> {
        let comparators = self
            .order
            .iter()
            .map(|(name, options)| {
                let column = |rows: &RecordBatch| {
                    rows.column_by_name(name)
                        .cloned()
                        .ok_or(KeyedTableError::OrderColumn(name))
                };
                make_comparator(&column(&self.rows)?, &column(added)?, *options)
                    .map_err(KeyedTableError::Arrow)
            })
            .collect::<Result<Vec<_>, KeyedTableError>>()?;
        let kept: Vec<usize> = (0..self.rows.num_rows())
            .filter(|row| keep.get(*row).copied().unwrap_or(false))
            .collect();
        // An added row goes before a kept one only when it sorts strictly before it.
        let added_first = |new: usize, old: usize| {
            comparators
                .iter()
                .map(|compare| compare(kept[old], new))
                .find(|ordering| ordering.is_ne())
                .is_some_and(|ordering| ordering.is_gt())
        };
        let order = merge_runs(kept.len(), added.num_rows(), added_first);
        u32::try_from(order.len()).map_err(|_| KeyedTableError::TooManyRows)?;
        let mut merge = MergedOrder {
            indices: Vec::with_capacity(order.len()),
            old_to_new: vec![None; self.rows.num_rows()],
            added_to_new: Vec::with_capacity(added.num_rows()),
        };
        for (position, (from_added, index)) in order.into_iter().enumerate() {
            let position = position as u32;
            if from_added {
                merge.added_to_new.push(position);
                merge.indices.push((1, index));
            } else {
                merge.old_to_new[kept[index]] = Some(position);
                merge.indices.push((0, kept[index]));
            }
        }
        Ok(merge)
    }

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
                let values = key_values(&rows, column)?;
                let in_row_order = order
                    .first()
                    .is_some_and(|(leading, options)| *leading == column && !options.descending);
                let sorted_rows = if in_row_order {
                    values.valid_rows(0..row_count)
                } else {
                    values.sorted(0..row_count)
                };
                Ok(KeyIndex {
                    column,
                    values,
                    sorted_rows,
                    in_row_order,
                })
            })
            .collect::<Result<Vec<_>, KeyedTableError>>()?;
        let zones = ZoneMap::of(&rows);
        Ok(KeyedTable {
            rows,
            order,
            keys,
            zones,
        })
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

    /// The rows a scan with `filters` must read: those a key lookup finds, in the blocks the
    /// zone map cannot rule out.
    fn selection(&self, filter: &ScanFilter) -> Selection {
        let Some(predicate) = &filter.predicate else {
            return Selection::All;
        };
        let blocks = filter
            .pruning
            .as_ref()
            .and_then(|pruning| self.zones.matching_blocks(pruning));
        match (self.key_rows(predicate), blocks) {
            (Some(mut rows), Some(blocks)) => {
                rows.retain(|row| blocks[*row as usize / BATCH_ROWS]);
                Selection::Rows(rows)
            }
            (Some(rows), None) => Selection::Rows(rows),
            (None, Some(blocks)) => Selection::Blocks(blocks),
            (None, None) => Selection::All,
        }
    }

    /// `filters` made ready to select rows of this table (or of any table of its schema:
    /// the buckets of a [`crate::service::bucketed_table::BucketedTable`] share one).
    pub fn scan_filter(&self, state: &dyn Session, filters: &[Expr]) -> ScanFilter {
        let predicate = conjunction(filters.iter().map(unqualified)).and_then(|predicate| {
            let schema = DFSchema::try_from(self.rows.schema()).ok()?;
            state.create_physical_expr(predicate, &schema).ok()
        });
        let pruning = predicate.as_ref().and_then(|predicate| {
            PruningPredicateBuilder::new()
                .with_file_schema(self.rows.schema())
                .build(Arc::clone(predicate))
        });
        ScanFilter { predicate, pruning }
    }

    /// The rows `predicate` can match by the keys (ascending), or `None` when it pins no key:
    /// a conjunction reads its smallest keyed part, a disjunction the union of its parts when
    /// every part is keyed.
    fn key_rows(&self, predicate: &Arc<dyn PhysicalExpr>) -> Option<Vec<u32>> {
        if let Some(binary) = predicate.downcast_ref::<BinaryExpr>() {
            match binary.op() {
                Operator::And => {
                    let left = self.key_rows(binary.left());
                    let right = self.key_rows(binary.right());
                    return match (left, right) {
                        (Some(left), Some(right)) if right.len() < left.len() => Some(right),
                        (Some(left), _) => Some(left),
                        (None, right) => right,
                    };
                }
                Operator::Or => {
                    let mut rows = self.key_rows(binary.left())?;
                    rows.extend(self.key_rows(binary.right())?);
                    rows.sort_unstable();
                    rows.dedup();
                    return Some(rows);
                }
                _ => {}
            }
        }
        self.guaranteed_rows(predicate)
    }

    /// The rows of the first key an `In` guarantee of `predicate` names.
    fn guaranteed_rows(&self, predicate: &Arc<dyn PhysicalExpr>) -> Option<Vec<u32>> {
        let guarantees = LiteralGuarantee::analyze(predicate);
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

    /// The rows a scan with `filters` (and `limit`) reads, in order, in batches of at most
    /// [`BATCH_ROWS`].
    pub fn scanned_batches(
        &self,
        filter: &ScanFilter,
        limit: Option<usize>,
    ) -> DataFusionResult<Vec<RecordBatch>> {
        let batches = match self.selection(filter) {
            Selection::Rows(rows) => {
                chunks(&take_record_batch(&self.rows, &UInt32Array::from(rows))?)
            }
            Selection::Blocks(blocks) => (0..blocks.len())
                .filter(|index| blocks[*index])
                .map(|index| block(&self.rows, index))
                .collect(),
            Selection::All => chunks(&self.rows),
        };
        Ok(limited(batches, limit))
    }

    /// The declared order as physical sort expressions over the table's schema.
    pub fn ordering(&self) -> DataFusionResult<Option<LexOrdering>> {
        let schema = self.rows.schema();
        let sort_exprs = self
            .order
            .iter()
            .map(|(column, options)| Ok(PhysicalSortExpr::new(col(column, &schema)?, *options)))
            .collect::<DataFusionResult<Vec<_>>>()?;
        Ok(LexOrdering::new(sort_exprs))
    }
}

/// Where the rows of a [`KeyedTable::refreshed`] table come from.
struct MergedOrder {
    /// (0, row of the old table) or (1, row of the added rows), in the merged order.
    indices: Vec<(usize, usize)>,
    /// The merged position of each old row (`None`: left out).
    old_to_new: Vec<Option<u32>>,
    /// The merged position of each added row, ascending.
    added_to_new: Vec<u32>,
}

/// The merge of two sorted runs, `kept_len` and `added_len` long, as (from the added run,
/// index in its run) pairs; `added_first(added, kept)` says whether an added entry goes before
/// a kept one. Each added entry gallops through the kept entries before it, so a merge of a
/// few added entries into many kept ones makes a few comparisons per added entry (the log of
/// the kept run it skips), not one per kept entry.
fn merge_runs(
    kept_len: usize,
    added_len: usize,
    added_first: impl Fn(usize, usize) -> bool,
) -> Vec<(bool, usize)> {
    let mut order = Vec::with_capacity(kept_len + added_len);
    let mut next_kept = 0;
    for added in 0..added_len {
        let end = first_where(next_kept, kept_len, |kept| added_first(added, kept));
        order.extend((next_kept..end).map(|kept| (false, kept)));
        order.push((true, added));
        next_kept = end;
    }
    order.extend((next_kept..kept_len).map(|kept| (false, kept)));
    order
}

/// The first index in `start..end` where `holds` is true (`end` when none), for a `holds`
/// false then true over the range: exponential steps from `start`, then bisection.
fn first_where(start: usize, end: usize, holds: impl Fn(usize) -> bool) -> usize {
    let (mut low, mut step) = (start, 1);
    let mut high = loop {
        let probe = low + step - 1;
        if probe >= end {
            break end;
        }
        if holds(probe) {
            break probe;
        }
        low = probe + 1;
        step *= 2;
    };
    while low < high {
        let middle = low + (high - low) / 2;
        if holds(middle) {
            high = middle;
        } else {
            low = middle + 1;
        }
    }
    low
}

/// The string column `column` of `rows`, as a key.
fn key_values(rows: &RecordBatch, column: &'static str) -> Result<Texts, KeyedTableError> {
    rows.column_by_name(column)
        .and_then(|array| Texts::of(array))
        .ok_or(KeyedTableError::KeyColumn(column))
}

impl Texts {
    /// `rows` without the null ones (a null never equals a literal).
    fn valid_rows(&self, rows: impl Iterator<Item = u32>) -> Vec<u32> {
        rows.filter(|&row| self.is_valid(row as usize)).collect()
    }

    /// `rows` without the null ones, sorted by (value, row).
    fn sorted(&self, rows: impl Iterator<Item = u32>) -> Vec<u32> {
        let mut keyed: Vec<(&str, u32)> = rows
            .filter(|&row| self.is_valid(row as usize))
            .map(|row| (self.value(row as usize), row))
            .collect();
        keyed.sort_unstable();
        keyed.into_iter().map(|(_, row)| row).collect()
    }

    /// The order of a key index: by value, then by row.
    fn key_order(&self, left: u32, right: u32) -> std::cmp::Ordering {
        (self.value(left as usize), left).cmp(&(self.value(right as usize), right))
    }
}

impl KeyIndex {
    /// The index over the rows of a merge: the kept rows' entries (still in key order once
    /// renumbered) merged with the added rows' entries.
    fn merged(&self, rows: &RecordBatch, merge: &MergedOrder) -> Result<KeyIndex, KeyedTableError> {
        let values = key_values(rows, self.column)?;
        if self.in_row_order {
            let row_count =
                u32::try_from(rows.num_rows()).map_err(|_| KeyedTableError::TooManyRows)?;
            return Ok(KeyIndex {
                column: self.column,
                sorted_rows: values.valid_rows(0..row_count),
                values,
                in_row_order: true,
            });
        }
        let kept: Vec<u32> = self
            .sorted_rows
            .iter()
            .filter_map(|&row| merge.old_to_new[row as usize])
            .collect();
        let added = values.sorted(merge.added_to_new.iter().copied());
        let order = merge_runs(kept.len(), added.len(), |new, old| {
            values.key_order(added[new], kept[old]).is_lt()
        });
        let sorted_rows = order
            .into_iter()
            .map(|(from_added, index)| {
                if from_added {
                    added[index]
                } else {
                    kept[index]
                }
            })
            .collect();
        Ok(KeyIndex {
            column: self.column,
            values,
            sorted_rows,
            in_row_order: false,
        })
    }

    fn rows_with(&self, value: &str) -> &[u32] {
        let value_at = |row: &u32| self.values.value(*row as usize);
        let start = self
            .sorted_rows
            .partition_point(|row| value_at(row) < value);
        let length = self.sorted_rows[start..].partition_point(|row| value_at(row) == value);
        &self.sorted_rows[start..start + length]
    }
}

/// `rows` sorted into `order` by one permutation (strings are not copied: only their views
/// move).
fn sorted_into(
    rows: RecordBatch,
    order: &[(&'static str, SortOptions)],
) -> Result<RecordBatch, KeyedTableError> {
    let sort_columns = order
        .iter()
        .map(|(name, options)| {
            let values = rows
                .column_by_name(name)
                .ok_or(KeyedTableError::OrderColumn(name))?;
            Ok(SortColumn {
                values: Arc::clone(values),
                options: Some(*options),
            })
        })
        .collect::<Result<Vec<_>, KeyedTableError>>()?;
    let permutation = lexsort_to_indices(&sort_columns, None).map_err(KeyedTableError::Arrow)?;
    drop(sort_columns);
    take_record_batch(&rows, &permutation).map_err(KeyedTableError::Arrow)
}

/// Bytes of strings a merged string-view column may hold for rows it no longer has, beyond a
/// quarter of its live strings, before its live strings are copied into fresh blocks.
const DEAD_STRING_SLACK: usize = 4 * 1024 * 1024;

/// `rows` with each string-view column copied into fresh blocks when the strings of rows left
/// out by earlier merges pass a quarter of its live strings (and the slack): a merge keeps
/// referencing the blocks its kept rows' strings are in, and so the strings of the rows it
/// dropped. At 1M documents, six one-bucket refreshes in a row took the server's RSS from 224
/// to 330 MB when compacting at twice the live strings without returning freed memory to the
/// allocator, and from 225 to 231 MB with this threshold and the release after each refresh
/// (`Catalog::snapshot`; the two were not measured apart).
fn without_dead_strings(rows: RecordBatch) -> Result<RecordBatch, KeyedTableError> {
    let columns = rows
        .columns()
        .iter()
        .map(|column| match column.as_string_view_opt() {
            Some(strings) => {
                let held: usize = strings.data_buffers().iter().map(|block| block.len()).sum();
                let live = strings.total_buffer_bytes_used();
                if held > live + live / 4 + DEAD_STRING_SLACK {
                    Arc::new(strings.gc()) as ArrayRef
                } else {
                    Arc::clone(column)
                }
            }
            None => Arc::clone(column),
        })
        .collect();
    RecordBatch::try_new(rows.schema(), columns).map_err(KeyedTableError::Arrow)
}

/// Gathers a table's rows from a stream of batches, copying each string-view column's values
/// into its own blocks as a batch arrives, so that the batch (and the decoded Parquet pages its
/// views point into) is freed at once: a load holds the strings once, not the scanned batches,
/// a sorted copy of them and a compacted copy at the same time (2.4 GB at 10M documents when
/// DataFusion's sorted batches were concatenated and compacted).
#[derive(Debug)]
pub struct RowCollector {
    schema: SchemaRef,
    columns: Vec<ColumnCollector>,
    rows: usize,
}

/// One column being gathered.
#[derive(Debug)]
enum ColumnCollector {
    /// Strings copied into the builder's blocks (up to 2 MiB each). Concatenated as scanned,
    /// the views would reference every decoded Parquet page's buffer (thousands per column at
    /// 10^6 sessions), and DataFusion sizes each scanned batch by walking its columns' buffers:
    /// with the pages' buffers a scan of a million sessions spent 0.3 s before reading a row.
    Views(StringViewBuilder),
    /// Any other column: the batches' arrays (fixed-width values; no page buffers behind them),
    /// concatenated at the end.
    Arrays(Vec<ArrayRef>),
}

impl RowCollector {
    pub fn new(schema: SchemaRef) -> RowCollector {
        let columns = schema
            .fields()
            .iter()
            .map(|field| match field.data_type() {
                DataType::Utf8View => ColumnCollector::Views(StringViewBuilder::new()),
                _ => ColumnCollector::Arrays(Vec::new()),
            })
            .collect();
        RowCollector {
            schema,
            columns,
            rows: 0,
        }
    }

    /// How many rows have been pushed.
    pub fn row_count(&self) -> usize {
        self.rows
    }

    /// Copies `batch`'s rows in (its schema must be the collector's).
    pub fn push(&mut self, batch: &RecordBatch) -> Result<(), KeyedTableError> {
        let types = |schema: &SchemaRef| -> Vec<DataType> {
            schema
                .fields()
                .iter()
                .map(|field| field.data_type().clone())
                .collect()
        };
        let same_types = batch
            .schema()
            .fields()
            .iter()
            .map(|field| field.data_type())
            .eq(self.schema.fields().iter().map(|field| field.data_type()));
        if !same_types {
            return Err(KeyedTableError::Arrow(ArrowError::SchemaError(format!(
                "batch columns {:?} are not the table's {:?}",
                types(&batch.schema()),
                types(&self.schema)
            ))));
        }
        for (column, array) in self.columns.iter_mut().zip(batch.columns()) {
            match column {
                ColumnCollector::Views(builder) => {
                    builder.extend(array.as_string_view().iter());
                }
                ColumnCollector::Arrays(arrays) => arrays.push(Arc::clone(array)),
            }
        }
        self.rows += batch.num_rows();
        Ok(())
    }

    /// Every pushed row, in push order.
    pub fn finish(self) -> Result<RecordBatch, KeyedTableError> {
        let columns = self
            .columns
            .into_iter()
            .zip(self.schema.fields())
            .map(|(column, field)| match column {
                ColumnCollector::Views(mut builder) => Ok(Arc::new(builder.finish()) as ArrayRef),
                ColumnCollector::Arrays(arrays) if arrays.is_empty() => {
                    Ok(new_empty_array(field.data_type()))
                }
                ColumnCollector::Arrays(arrays) => {
                    let arrays: Vec<&dyn Array> = arrays.iter().map(AsRef::as_ref).collect();
                    concat(&arrays).map_err(KeyedTableError::Arrow)
                }
            })
            .collect::<Result<Vec<_>, KeyedTableError>>()?;
        let options = RecordBatchOptions::new()
            .with_row_count(Some(columns.first().map_or(0, |column| column.len())));
        RecordBatch::try_new_with_options(self.schema, columns, &options)
            .map_err(KeyedTableError::Arrow)
    }
}

/// Rows per batch a scan yields and per block of the zone map: a LIMIT over the declared order
/// stops after the first batches instead of filtering every row.
const BATCH_ROWS: usize = 4096;

/// The first row and the length of block `block` of a table of `rows` rows.
fn block_span(rows: usize, block: usize) -> (usize, usize) {
    let start = block * BATCH_ROWS;
    (start, BATCH_ROWS.min(rows - start))
}

/// Block `block` of `rows`: a zero-copy slice of at most [`BATCH_ROWS`] rows.
fn block(rows: &RecordBatch, block: usize) -> RecordBatch {
    let (start, length) = block_span(rows.num_rows(), block);
    rows.slice(start, length)
}

/// `rows` as zero-copy slices of at most [`BATCH_ROWS`] rows.
fn chunks(rows: &RecordBatch) -> Vec<RecordBatch> {
    (0..rows.num_rows().div_ceil(BATCH_ROWS))
        .map(|index| block(rows, index))
        .collect()
}

/// At most `limit` rows of `batches`, in order.
fn limited(batches: Vec<RecordBatch>, limit: Option<usize>) -> Vec<RecordBatch> {
    let Some(mut left) = limit else {
        return batches;
    };
    let mut kept = Vec::new();
    for batch in batches {
        if left == 0 {
            break;
        }
        let taken = batch.num_rows().min(left);
        left -= taken;
        kept.push(batch.slice(0, taken));
    }
    kept
}

impl ZoneMap {
    /// The zone map of `rows`' ordered columns (text columns are not ordered usefully).
    fn of(rows: &RecordBatch) -> ZoneMap {
        let blocks = rows.num_rows().div_ceil(BATCH_ROWS);
        let row_counts: ArrayRef = Arc::new(UInt64Array::from_iter_values(
            (0..blocks).map(|index| block_span(rows.num_rows(), index).1 as u64),
        ));
        let bounds = rows
            .schema()
            .fields()
            .iter()
            .zip(rows.columns())
            .filter(|(field, _)| is_zoned(field.data_type()))
            .filter_map(|(field, column)| {
                Some((field.name().clone(), block_bounds(column, blocks)?))
            })
            .collect();
        ZoneMap {
            blocks,
            row_counts,
            bounds,
        }
    }

    /// Which blocks may hold a row matching `predicate`; `None` when the zone map rules
    /// nothing out.
    fn matching_blocks(&self, pruning: &PruningPredicate) -> Option<Vec<bool>> {
        let blocks = pruning.prune(self).ok()?;
        (!blocks.iter().all(|keep| *keep)).then_some(blocks)
    }
}

/// Whether a column's values order usefully (numbers, times, booleans).
fn is_zoned(data_type: &DataType) -> bool {
    data_type.is_numeric() || data_type.is_temporal() || *data_type == DataType::Boolean
}

/// The minimum and maximum of `column` over each of `blocks` blocks; `None` when the type has
/// no min/max.
fn block_bounds(column: &ArrayRef, blocks: usize) -> Option<(ArrayRef, ArrayRef)> {
    let mut minimums = Vec::with_capacity(blocks);
    let mut maximums = Vec::with_capacity(blocks);
    for index in 0..blocks {
        let (start, length) = block_span(column.len(), index);
        let values = column.slice(start, length);
        let mut minimum = MinAccumulator::try_new(column.data_type()).ok()?;
        let mut maximum = MaxAccumulator::try_new(column.data_type()).ok()?;
        minimum.update_batch(std::slice::from_ref(&values)).ok()?;
        maximum.update_batch(&[values]).ok()?;
        minimums.push(minimum.evaluate().ok()?);
        maximums.push(maximum.evaluate().ok()?);
    }
    let minimums = ScalarValue::iter_to_array(minimums).ok()?;
    let maximums = ScalarValue::iter_to_array(maximums).ok()?;
    Some((minimums, maximums))
}

impl PruningStatistics for ZoneMap {
    fn min_values(&self, column: &Column) -> Option<ArrayRef> {
        self.bounds
            .get(column.name())
            .map(|(min, _)| Arc::clone(min))
    }

    fn max_values(&self, column: &Column) -> Option<ArrayRef> {
        self.bounds
            .get(column.name())
            .map(|(_, max)| Arc::clone(max))
    }

    fn num_containers(&self) -> usize {
        self.blocks
    }

    fn null_counts(&self, _column: &Column) -> Option<ArrayRef> {
        None
    }

    fn row_counts(&self) -> Option<ArrayRef> {
        Some(Arc::clone(&self.row_counts))
    }

    fn contained(&self, _column: &Column, _values: &HashSet<ScalarValue>) -> Option<BooleanArray> {
        None
    }
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
        let mut batches = self.scanned_batches(&self.scan_filter(state, filters), limit)?;
        if batches.is_empty() {
            batches.push(RecordBatch::new_empty(self.schema()));
        }
        let mut source =
            MemorySourceConfig::try_new(&[batches], self.schema(), projection.cloned())?;
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

    /// `(session, ordinal, note)` rows as string-view batches, each from its own buffers.
    fn view_batch(schema: &SchemaRef, rows: &[(&str, i64, Option<&str>)]) -> RecordBatch {
        let sessions: StringViewArray = rows.iter().map(|row| Some(row.0)).collect();
        let notes: StringViewArray = rows.iter().map(|row| row.2).collect();
        RecordBatch::try_new(
            Arc::clone(schema),
            vec![
                Arc::new(sessions),
                Arc::new(Int64Array::from_iter_values(rows.iter().map(|row| row.1))),
                Arc::new(notes),
            ],
        )
        .unwrap()
    }

    #[tokio::test]
    async fn collected_rows_are_copied_out_of_their_batches_and_sorted_into_the_order() {
        let schema: SchemaRef = Arc::new(Schema::new(vec![
            Field::new("session", DataType::Utf8View, false),
            Field::new("ordinal", DataType::Int64, false),
            Field::new("note", DataType::Utf8View, true),
        ]));
        let long = "a session id longer than twelve bytes";
        let mut rows = RowCollector::new(Arc::clone(&schema));
        for batch in [
            vec![("s2", 2, Some("third")), (long, 1, None)],
            vec![],
            vec![
                ("s2", 1, Some("second, a note of more than 12 bytes")),
                ("s1", 1, Some("first")),
            ],
        ] {
            rows.push(&view_batch(&schema, &batch)).unwrap();
        }
        let wrong = RecordBatch::try_new(
            Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, false)])),
            vec![Arc::new(Int64Array::from(vec![1]))],
        )
        .unwrap();
        assert!(rows.push(&wrong).is_err());
        let ascending = SortOptions {
            descending: false,
            nulls_first: false,
        };
        let table = Arc::new(
            KeyedTable::sorting(
                rows.finish().unwrap(),
                vec![("session", ascending), ("ordinal", ascending)],
                &["session"],
            )
            .unwrap(),
        );
        let sessions = Texts::of(table.rows().column(0)).unwrap();
        let notes = table.rows().column(2).as_string_view();
        let listed: Vec<(String, Option<&str>)> = (0..table.rows().num_rows())
            .map(|row| {
                (
                    sessions.value(row).to_owned(),
                    notes.is_valid(row).then(|| notes.value(row)),
                )
            })
            .collect();
        assert_eq!(
            listed,
            [
                (long.to_owned(), None),
                ("s1".to_owned(), Some("first")),
                (
                    "s2".to_owned(),
                    Some("second, a note of more than 12 bytes")
                ),
                ("s2".to_owned(), Some("third")),
            ]
        );
        // The long strings live in the collector's one block, not in the pushed batches'.
        assert_eq!(
            table.rows().column(0).as_string_view().data_buffers().len(),
            1
        );
        assert_eq!(table.rows_with("session", "s2"), [2, 3]);
        let context = SessionContext::new();
        context.register_table("t", table).unwrap();
        assert_eq!(
            ids(
                &context,
                "SELECT session FROM t WHERE session = 's2' ORDER BY session, ordinal"
            )
            .await,
            ["s2", "s2"]
        );
    }

    /// `(session, n, note)` rows of `sessions` sessions, each `per_session` rows long;
    /// `salt` changes the numbers and notes (a later version of the same sessions).
    fn session_rows(
        sessions: &[usize],
        per_session: usize,
        salt: usize,
    ) -> Vec<(String, Option<i64>, Option<String>)> {
        sessions
            .iter()
            .flat_map(|&session| {
                (0..per_session).map(move |index| {
                    let mix = (session * 7919 + index * 104_729 + salt * 31) % 1000;
                    (
                        format!("session-{session:04}-with-a-long-id"),
                        (!mix.is_multiple_of(13)).then_some((mix % 97) as i64),
                        (!mix.is_multiple_of(5))
                            .then(|| format!("note {} of a length past twelve", mix % 11)),
                    )
                })
            })
            .collect()
    }

    fn collected(
        schema: &SchemaRef,
        rows: &[(String, Option<i64>, Option<String>)],
    ) -> RowCollector {
        let mut collector = RowCollector::new(Arc::clone(schema));
        for chunk in rows.chunks(7) {
            let sessions: StringViewArray = chunk.iter().map(|row| Some(row.0.as_str())).collect();
            let numbers: Int64Array = chunk.iter().map(|row| row.1).collect();
            let notes: StringViewArray = chunk.iter().map(|row| row.2.as_deref()).collect();
            let batch = RecordBatch::try_new(
                Arc::clone(schema),
                vec![Arc::new(sessions), Arc::new(numbers), Arc::new(notes)],
            )
            .unwrap();
            collector.push(&batch).unwrap();
        }
        collector
    }

    #[test]
    fn a_merge_of_runs_places_each_added_entry_before_the_first_kept_one_after_it() {
        let kept = [1, 3, 3, 5, 8, 13, 21];
        for added in [
            vec![],
            vec![0],
            vec![3],
            vec![2, 3, 4, 30],
            vec![21, 22],
            vec![0, 100],
        ] {
            let order = merge_runs(kept.len(), added.len(), |new, old| added[new] < kept[old]);
            let merged: Vec<i32> = order
                .iter()
                .map(|&(from_added, index)| {
                    if from_added {
                        added[index]
                    } else {
                        kept[index]
                    }
                })
                .collect();
            let mut expected: Vec<i32> = kept.iter().chain(&added).copied().collect();
            expected.sort();
            assert_eq!(merged, expected, "{added:?}");
            let kept_positions: Vec<usize> = order
                .iter()
                .filter(|(from_added, _)| !from_added)
                .map(|(_, index)| *index)
                .collect();
            assert_eq!(kept_positions, (0..kept.len()).collect::<Vec<_>>());
            // Ties: the kept entry first.
            if let Some(tie) = order
                .iter()
                .position(|&(from, index)| from && added[index] == 3)
            {
                assert_eq!(order[tie - 1], (false, 2));
            }
        }
        for start in 0..5 {
            for end in start..9 {
                for threshold in 0..10 {
                    assert_eq!(
                        first_where(start, end, |index| index >= threshold),
                        threshold.clamp(start, end)
                    );
                }
            }
        }
    }

    #[tokio::test]
    async fn a_refreshed_table_is_the_table_sorted_from_the_same_rows() {
        let schema: SchemaRef = Arc::new(Schema::new(vec![
            Field::new("session", DataType::Utf8View, false),
            Field::new("n", DataType::Int64, true),
            Field::new("note", DataType::Utf8View, true),
        ]));
        let descending = SortOptions {
            descending: true,
            nulls_first: true,
        };
        let ascending = SortOptions {
            descending: false,
            nulls_first: false,
        };
        // By time, as `session_index`; by the key first, as `turn_index` (whose key index is
        // then the row order).
        for order in [
            vec![
                ("n", descending),
                ("session", descending),
                ("note", ascending),
            ],
            vec![
                ("session", ascending),
                ("n", ascending),
                ("note", ascending),
            ],
        ] {
            refresh_rounds(&schema, order).await;
        }
    }

    async fn refresh_rounds(schema: &SchemaRef, order: Vec<(&'static str, SortOptions)>) {
        let schema = Arc::clone(schema);
        let keys = ["session", "note"];
        let all: Vec<usize> = (0..300).collect();
        let mut current = session_rows(&all, 3, 0);
        let mut table = KeyedTable::sorting(
            collected(&schema, &current).finish().unwrap(),
            order.clone(),
            &keys,
        )
        .unwrap();
        // Each round replaces some sessions' rows (with more or fewer rows), drops a few and
        // adds new ones.
        for round in 1..4usize {
            let replaced: HashSet<String> = all
                .iter()
                .filter(|session| *session % (round + 2) == 0)
                .map(|session| format!("session-{session:04}-with-a-long-id"))
                .collect();
            let replaced_ids: Vec<usize> = all
                .iter()
                .copied()
                .filter(|session| session % (round + 2) == 0 && session % 11 != 0)
                .chain(300 * round..300 * round + 5)
                .collect();
            let added = session_rows(&replaced_ids, round % 3 + 1, round);
            let keep: Vec<bool> = {
                let sessions = Texts::of(table.rows().column(0)).unwrap();
                (0..table.rows().num_rows())
                    .map(|row| !replaced.contains(sessions.value(row)))
                    .collect()
            };
            let (refreshed, origins) = table
                .refreshed(&keep, collected(&schema, &added).finish().unwrap())
                .unwrap();
            assert_eq!(origins.len(), refreshed.rows().num_rows());
            assert_eq!(
                origins.iter().filter(|(from, _)| *from == 1).count(),
                added.len(),
                "every added row is placed once"
            );
            current.retain(|row| !replaced.contains(&row.0));
            current.extend(added);
            let sorted = KeyedTable::sorting(
                collected(&schema, &current).finish().unwrap(),
                order.clone(),
                &keys,
            )
            .unwrap();
            assert_eq!(refreshed.rows(), sorted.rows(), "round {round}");
            for key in keys {
                let values = Texts::of(sorted.rows().column_by_name(key).unwrap()).unwrap();
                for row in 0..sorted.rows().num_rows() {
                    if values.is_valid(row) {
                        let value = values.value(row);
                        assert_eq!(
                            refreshed.rows_with(key, value),
                            sorted.rows_with(key, value),
                            "round {round}: {key} = {value}"
                        );
                    }
                }
            }
            let (refreshed, sorted) = (Arc::new(refreshed), Arc::new(sorted));
            let by_refreshed = SessionContext::new();
            by_refreshed.register_table("t", refreshed.clone()).unwrap();
            let by_sorted = SessionContext::new();
            by_sorted.register_table("t", sorted).unwrap();
            for sql in [
                "SELECT session FROM t WHERE n BETWEEN 10 AND 40 ORDER BY n DESC, session DESC LIMIT 9",
                "SELECT session FROM t WHERE session = 'session-0006-with-a-long-id'",
                "SELECT note FROM t WHERE note = 'note 3 of a length past twelve' AND n > 50",
            ] {
                assert_eq!(
                    ids(&by_refreshed, sql).await,
                    ids(&by_sorted, sql).await,
                    "{sql}"
                );
            }
            drop((by_refreshed, by_sorted));
            table = Arc::try_unwrap(refreshed).unwrap();
        }
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

    #[tokio::test]
    async fn a_disjunction_of_keys_scans_the_union_of_their_rows() {
        let context = SessionContext::new();
        let table = table();
        let scanned = |filters: Vec<Expr>| scanned_rows(&table, &context, filters);
        assert_eq!(
            scanned(vec![col("id").eq(lit("a")).or(col("kind").eq(lit("y")))]).await,
            3,
            "a, and the two rows of kind y"
        );
        assert_eq!(
            scanned(vec![
                col("id")
                    .eq(lit("e"))
                    .or(col("kind").eq(lit("y")).and(col("n").gt(lit(3i64))))
            ])
            .await,
            3,
            "a keyed conjunction inside a disjunction reads its keyed part"
        );
        assert_eq!(
            scanned(vec![col("id").eq(lit("a")).or(col("n").eq(lit(4i64)))]).await,
            5,
            "one unkeyed side scans every row"
        );
    }

    /// `rows` rows by `n` descending (`n` = rows - 1 ... 0), `id` = `r<n>`, `parent` set on
    /// every seventh row only.
    fn long_table(rows: i64) -> Arc<KeyedTable> {
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Utf8, false),
            Field::new("parent", DataType::Utf8, true),
            Field::new("n", DataType::Int64, false),
        ]));
        let values: Vec<i64> = (0..rows).rev().collect();
        let rows = RecordBatch::try_new(
            schema,
            vec![
                Arc::new(StringArray::from_iter_values(
                    values.iter().map(|n| format!("r{n}")),
                )),
                Arc::new(StringArray::from_iter(
                    values
                        .iter()
                        .map(|n| (n % 7 == 0).then(|| format!("p{}", n % 3))),
                )),
                Arc::new(Int64Array::from(values)),
            ],
        )
        .unwrap();
        let descending = SortOptions {
            descending: true,
            nulls_first: true,
        };
        Arc::new(KeyedTable::new(rows, vec![("n", descending)], &["id", "parent"]).unwrap())
    }

    #[tokio::test]
    async fn a_range_filter_scans_only_the_blocks_that_overlap_it() {
        let context = SessionContext::new();
        let table = long_table(5 * BATCH_ROWS as i64);
        let scanned = |filters: Vec<Expr>| scanned_rows(&table, &context, filters);
        let top = 5 * BATCH_ROWS as i64 - 1;
        assert_eq!(
            scanned(vec![col("n").gt_eq(lit(top - 10))]).await,
            BATCH_ROWS,
            "the newest block only"
        );
        assert_eq!(
            scanned(vec![
                col("n").gt_eq(lit(100i64)),
                col("n").lt(lit(BATCH_ROWS as i64 + 100))
            ])
            .await,
            2 * BATCH_ROWS,
            "a window across two blocks"
        );
        assert_eq!(scanned(vec![col("n").lt(lit(0i64))]).await, 0);
        assert_eq!(
            scanned(vec![col("n").gt_eq(lit(0i64))]).await,
            5 * BATCH_ROWS,
            "a window over everything"
        );
        assert_eq!(
            scanned(vec![col("parent").eq(lit("p1")), col("n").lt(lit(1000i64))]).await,
            (0..BATCH_ROWS).filter(|n| n % 7 == 0 && n % 3 == 1).count(),
            "a key lookup keeps its rows in the blocks the window overlaps (the oldest)"
        );
        assert!(
            table.rows_with("parent", "").is_empty(),
            "null keys are not looked up"
        );
    }

    #[tokio::test]
    async fn sql_over_the_table_answers_as_over_plain_memory() {
        let table = long_table(3 * BATCH_ROWS as i64 + 17);
        let keyed = SessionContext::new();
        keyed.register_table("t", table.clone()).unwrap();
        let plain = SessionContext::new();
        let memory = datafusion::datasource::MemTable::try_new(
            table.rows().schema(),
            vec![vec![table.rows().clone()]],
        )
        .unwrap();
        plain.register_table("t", Arc::new(memory)).unwrap();
        let queries = [
            "SELECT id FROM t WHERE n >= 5000 AND n < 9000 ORDER BY n DESC LIMIT 7",
            "SELECT id FROM t WHERE n < 20 OR n > 12300 ORDER BY n DESC",
            "SELECT id FROM t WHERE parent = 'p2' AND n BETWEEN 4000 AND 4400 ORDER BY n",
            "SELECT id FROM t WHERE id = 'r12' OR parent IN ('p0', 'p1') ORDER BY n LIMIT 50",
            "SELECT id FROM t WHERE parent IS NULL AND n > 12280 ORDER BY n DESC",
            "SELECT id FROM t WHERE NOT (n >= 100) ORDER BY n",
            "SELECT id FROM t WHERE n = 4096 OR id = 'r4097' ORDER BY n",
        ];
        for sql in queries {
            assert_eq!(ids(&keyed, sql).await, ids(&plain, sql).await, "{sql}");
            assert!(!ids(&plain, sql).await.is_empty(), "{sql} finds rows");
        }
    }
}
