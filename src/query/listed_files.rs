//! A serving table's files, listed once per generation and grouped by partition, so that a
//! scan prunes partitions by evaluating its partition filters once over the distinct
//! partitions instead of once per file.
//!
//! DataFusion 55's `ListingTable` lists the table at every scan and evaluates the partition
//! filters file by file (`pruned_partition_list` → `filter_partitioned_file`: each call builds
//! the filter's physical expression and evaluates it on a one-row batch), then collects and
//! merges every kept file's statistics. At a million documents `events` has ~140 files in
//! ~36 `source/month` partitions, and a search's hit statement
//! (`array_has($3, concat(source, '/', month))`) spent ~8 ms of physical planning there.
//! A generation's files never change, so [`ListedFiles`] lists them once, evaluates the
//! partition filters over one batch of distinct partitions, and builds the scan from a
//! template the listing table planned itself (its Parquet source, reader factory and
//! options), so the scan reads exactly what the listing table's would.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::datatypes::{Field, Schema};
use datafusion::catalog::{ScanArgs, Session, TableProvider};
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{Column, DFSchema, ScalarValue, Statistics};
use datafusion::datasource::listing::helpers::{expr_applicable_for_cols, pruned_partition_list};
use datafusion::datasource::listing::{ListingTable, PartitionedFile};
use datafusion::datasource::physical_plan::{
    FileGroup, FileScanConfig, FileScanConfigBuilder, FileSource, ParquetSource,
};
use datafusion::datasource::source::DataSourceExec;
use datafusion::error::Result as DataFusionResult;
use datafusion::logical_expr::Expr;
use datafusion::logical_expr::utils::conjunction;
use datafusion::physical_plan::ExecutionPlan;
use futures::TryStreamExt;

/// Every file of one generation's table, each with the row of its partition in
/// [`ListedFiles::partitions`].
#[derive(Debug)]
pub struct ListedFiles {
    /// The listing table's own scan of one file, without projection or filters: the Parquet
    /// source, object store and options every scan of this table is built from.
    template: FileScanConfig,
    /// The partition columns as a schema (what partition filters are planned against).
    partition_schema: DFSchema,
    /// One row per distinct partition (no columns, one row, for an unpartitioned table).
    partitions: RecordBatch,
    files: Vec<(usize, PartitionedFile)>,
}

impl ListedFiles {
    /// Lists `table` (a listing table with one table path) in `state`; `None` when it is
    /// another kind of table, has several paths, or holds no file (then the listing table
    /// scans as it always does).
    pub async fn list(
        table: &Arc<dyn TableProvider>,
        state: &dyn Session,
    ) -> DataFusionResult<Option<ListedFiles>> {
        let Some(listing) = table.downcast_ref::<ListingTable>() else {
            return Ok(None);
        };
        let [table_path] = listing.table_paths().as_slice() else {
            return Ok(None);
        };
        let options = listing.options();
        if options.output_partitioning.is_some() {
            // Declared partitioning ties file groups to partitions; leave it to the table.
            return Ok(None);
        }
        let store = state.runtime_env().object_store(table_path)?;
        let listed: Vec<PartitionedFile> = pruned_partition_list(
            state,
            store.as_ref(),
            table_path,
            &[],
            &options.file_extension,
            &options.table_partition_cols,
        )
        .await?
        .try_collect()
        .await?;
        if listed.is_empty() {
            return Ok(None);
        }
        // A scan limited to one row stops collecting file statistics once a file holds a row
        // (a few files, read side by side); the statistics cache keeps them across commits.
        let args = ScanArgs::default().with_limit(Some(1));
        let plan = table.scan_with_args(state, args).await?.into_inner();
        let Some(template) = file_scan_of(plan.as_ref()).cloned() else {
            return Ok(None);
        };
        let partition_fields: Vec<Field> = options
            .table_partition_cols
            .iter()
            .map(|(name, data_type)| Field::new(name, data_type.clone(), true))
            .collect();
        let partition_schema =
            DFSchema::from_unqualified_fields(partition_fields.clone().into(), HashMap::new())?;
        let (partitions, files) = by_partition(listed, &partition_fields)?;
        Ok(Some(ListedFiles {
            template,
            partition_schema,
            partitions,
            files,
        }))
    }

    /// The filters DataFusion lets this table answer exactly: those over partition columns
    /// only (what `ListingTable::supports_filters_pushdown` calls exact).
    pub fn partition_filters(&self, filters: &[Expr]) -> Vec<Expr> {
        let names: Vec<&str> = self
            .partition_schema
            .fields()
            .iter()
            .map(|field| field.name().as_str())
            .collect();
        if names.is_empty() {
            return Vec::new();
        }
        filters
            .iter()
            .filter(|filter| expr_applicable_for_cols(&names, filter))
            .map(unqualified)
            .collect()
    }

    /// The files of the partitions `partition_filters` keep.
    pub fn files_matching(
        &self,
        state: &dyn Session,
        partition_filters: &[Expr],
    ) -> DataFusionResult<impl Iterator<Item = &PartitionedFile>> {
        let kept = self.partitions_kept(state, partition_filters)?;
        Ok(self
            .files
            .iter()
            .filter(move |(partition, _)| kept[*partition])
            .map(|(_, file)| file))
    }

    /// Whether each distinct partition passes `partition_filters`: one evaluation over all.
    fn partitions_kept(
        &self,
        state: &dyn Session,
        partition_filters: &[Expr],
    ) -> DataFusionResult<Vec<bool>> {
        let rows = self.partitions.num_rows();
        let Some(filter) = conjunction(partition_filters.iter().cloned()) else {
            return Ok(vec![true; rows]);
        };
        let predicate = state.create_physical_expr(filter, &self.partition_schema)?;
        let matches = predicate.evaluate(&self.partitions)?.into_array(rows)?;
        let matches = matches.as_boolean();
        Ok((0..rows)
            .map(|row| matches.is_valid(row) && matches.value(row))
            .collect())
    }

    /// A scan of `files` by `source` built from the template: `projection` and `limit` as
    /// asked, the files split into the session's target partitions (one empty group when
    /// there is no file), statistics unknown, no declared partitioning and no declared
    /// ordering (a group of several files is not sorted as a whole; DataFusion sorts what a
    /// query orders).
    pub fn scan(
        &self,
        state: &dyn Session,
        files: Vec<PartitionedFile>,
        projection: Option<&[usize]>,
        limit: Option<usize>,
        source: Arc<dyn FileSource>,
    ) -> DataFusionResult<Arc<dyn ExecutionPlan>> {
        let table_schema = Arc::clone(self.template.file_source().table_schema().table_schema());
        // No file: one empty group, a Parquet scan of nothing (as a keyed scan has always
        // planned a key no file holds).
        let groups = match files.is_empty() {
            true => vec![FileGroup::new(Vec::new())],
            false => FileGroup::new(files).split_files(state.config().target_partitions().max(1)),
        };
        let config = FileScanConfigBuilder::from(self.template.clone())
            .with_source(source)
            .with_file_groups(groups)
            .with_statistics(Statistics::new_unknown(&table_schema))
            .with_output_ordering(Vec::new())
            .with_output_partitioning(None)
            .with_preserve_order(false)
            .with_limit(limit)
            .with_projection_indices(projection.map(<[usize]>::to_vec))?
            .build();
        Ok(DataSourceExec::from_data_source(config))
    }

    /// A new source like the template's, as `ParquetFormat::create_physical_plan` builds it
    /// (options, metadata size hint, the metadata-caching reader factory), with metrics of its
    /// own: a source's metrics set is shared by every plan holding it, and DataFusion adds
    /// each file a scan opens to it, so one source reused by every scan would grow without
    /// bound and report every scan's figures in each `EXPLAIN ANALYZE`.
    pub fn fresh_source(&self) -> Arc<dyn FileSource> {
        let template = self.template.file_source();
        let Some(parquet) = template.downcast_ref::<ParquetSource>() else {
            return Arc::clone(template);
        };
        let options = parquet.table_parquet_options().clone();
        let hint = options.global.metadata_size_hint;
        let mut fresh =
            ParquetSource::new(parquet.table_schema().clone()).with_table_parquet_options(options);
        if let Some(hint) = hint {
            fresh = fresh.with_metadata_size_hint(hint);
        }
        if let Some(factory) = parquet.parquet_file_reader_factory() {
            fresh = fresh.with_parquet_file_reader_factory(Arc::clone(factory));
        }
        Arc::new(fresh)
    }
}

/// `filter` with its columns unqualified, as the partition schema names them (DataFusion
/// hands scans unqualified filters; a filter taken from a plan names `events.source`).
fn unqualified(filter: &Expr) -> Expr {
    filter
        .clone()
        .transform(|expr| match expr {
            Expr::Column(column) if column.relation.is_some() => Ok(Transformed::yes(
                Expr::Column(Column::new_unqualified(column.name)),
            )),
            other => Ok(Transformed::no(other)),
        })
        .map(|transformed| transformed.data)
        .unwrap_or_else(|_| filter.clone())
}

/// The file scan configuration of a plain file scan plan.
pub fn file_scan_of(plan: &dyn ExecutionPlan) -> Option<&FileScanConfig> {
    plan.downcast_ref::<DataSourceExec>()
        .and_then(|exec| exec.data_source().downcast_ref::<FileScanConfig>())
}

/// The distinct partitions of `files` as one batch, and each file with its partition's row.
fn by_partition(
    files: Vec<PartitionedFile>,
    partition_fields: &[Field],
) -> DataFusionResult<(RecordBatch, Vec<(usize, PartitionedFile)>)> {
    let mut rows: HashMap<Vec<ScalarValue>, usize> = HashMap::new();
    let mut distinct: Vec<Vec<ScalarValue>> = Vec::new();
    let mut indexed = Vec::with_capacity(files.len());
    for file in files {
        let row = *rows
            .entry(file.partition_values.clone())
            .or_insert_with(|| {
                distinct.push(file.partition_values.clone());
                distinct.len() - 1
            });
        indexed.push((row, file));
    }
    let schema = Arc::new(Schema::new(partition_fields.to_vec()));
    let columns = (0..partition_fields.len())
        .map(|column| {
            ScalarValue::iter_to_array(distinct.iter().map(|values| values[column].clone()))
        })
        .collect::<DataFusionResult<Vec<_>>>()?;
    let options = datafusion::arrow::record_batch::RecordBatchOptions::new()
        .with_row_count(Some(distinct.len()));
    let partitions = RecordBatch::try_new_with_options(schema, columns, &options)?;
    Ok((partitions, indexed))
}
