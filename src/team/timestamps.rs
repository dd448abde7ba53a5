//! Rewrites a table's Parquet file with its timestamps in another unit: a local store keeps
//! nanoseconds (DataFusion's `TIMESTAMP WITH TIME ZONE`), a published dataset microseconds
//! (Delta Lake's `timestamp`, the only unit Spark, Trino, Athena and Snowflake read). The
//! values are whole microseconds, so both directions are exact.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::record_batch::{RecordBatch, RecordBatchReader};
use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use super::TeamError;
use crate::memory;
use crate::store::StoreError;
use crate::store::commit;
use crate::store::parquet_io as pio;

/// The file layout of `table`'s Parquet files: the store's tables and the memories table.
fn table_layout(table: &str) -> Option<pio::FileLayout<'static>> {
    match table {
        "memories" => Some(memory::table::LAYOUT),
        store_table => commit::table_layout(store_table),
    }
}

/// Rows per batch read and written.
const BATCH_ROWS: usize = 8192;

/// Writes `source` (a file of `table`) to `target` with every timestamp column in `unit`
/// (time zone UTC), in the table's own file layout (sort order, bloom filters, page
/// statistics), and returns its row count.
pub fn rewrite_timestamps(
    table: &str,
    source: &Path,
    target: &Path,
    unit: TimeUnit,
) -> Result<u64, TeamError> {
    let layout = table_layout(table)
        .ok_or_else(|| TeamError::Usage(format!("no table named {table} in a store")))?;
    let failed = |message: String| {
        TeamError::Store(StoreError::Parquet {
            path: source.to_path_buf(),
            message,
        })
    };
    let file = File::open(source).map_err(TeamError::io(source.display()))?;
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .map_err(|error| failed(error.to_string()))?
        .with_batch_size(BATCH_ROWS)
        .build()
        .map_err(|error| failed(error.to_string()))?;
    let schema = with_timestamp_unit(&reader.schema(), unit);
    let mut rows = 0u64;
    let batches = reader.map(|batch| {
        let batch = cast_to(&batch?, &schema)?;
        rows += batch.num_rows() as u64;
        Ok::<_, ArrowError>(batch)
    });
    pio::write_all(target, &schema, &layout, batches)?;
    Ok(rows)
}

/// `schema` with every timestamp column in `unit`, time zone UTC.
pub fn with_timestamp_unit(schema: &SchemaRef, unit: TimeUnit) -> SchemaRef {
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|field| match field.data_type() {
            DataType::Timestamp(_, _) => field
                .as_ref()
                .clone()
                .with_data_type(DataType::Timestamp(unit, Some("UTC".into()))),
            _ => field.as_ref().clone(),
        })
        .collect();
    Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

/// `batch` with each column cast to `schema`'s type (only timestamp columns change).
fn cast_to(batch: &RecordBatch, schema: &SchemaRef) -> Result<RecordBatch, ArrowError> {
    let columns = batch
        .columns()
        .iter()
        .zip(schema.fields())
        .map(|(column, field)| {
            if column.data_type() == field.data_type() {
                Ok(column.clone())
            } else {
                cast(column, field.data_type())
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    RecordBatch::try_new(schema.clone(), columns)
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{Array, Int64Array, StringArray, TimestampNanosecondArray};
    use datafusion::parquet::file::reader::{FileReader, SerializedFileReader};

    fn turns_like_file(path: &Path) -> SchemaRef {
        let schema = Arc::new(Schema::new(vec![
            Field::new("session_id", DataType::Utf8, false),
            Field::new("ordinal", DataType::Int64, false),
            Field::new(
                "started_at",
                DataType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into())),
                false,
            ),
        ]));
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(StringArray::from(vec!["a", "b"])),
                Arc::new(Int64Array::from(vec![1, 2])),
                Arc::new(
                    TimestampNanosecondArray::from(vec![
                        1_733_000_000_123_456_000,
                        1_733_000_001_000_001_000,
                    ])
                    .with_timezone("UTC"),
                ),
            ],
        )
        .unwrap();
        let layout = table_layout("turns").unwrap();
        pio::write_parquet(path, &schema, &[batch], &layout).unwrap();
        schema
    }

    #[test]
    fn a_file_goes_to_microseconds_and_back_exactly_in_its_tables_layout() {
        let dir = tempfile::tempdir().unwrap();
        let store_file = dir.path().join("store.parquet");
        let published = dir.path().join("published.parquet");
        let pulled = dir.path().join("pulled.parquet");
        let schema = turns_like_file(&store_file);

        let rows =
            rewrite_timestamps("turns", &store_file, &published, TimeUnit::Microsecond).unwrap();
        assert_eq!(rows, 2);
        let batches = pio::read_parquet(&published).unwrap();
        assert_eq!(
            batches[0].schema().field(2).data_type(),
            &DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
        );
        let reader = SerializedFileReader::new(File::open(&published).unwrap()).unwrap();
        let footer = reader.metadata().file_metadata();
        let sorting = reader.metadata().row_group(0).sorting_columns().cloned();
        assert!(
            sorting.is_some_and(|columns| !columns.is_empty()),
            "{footer:?}"
        );

        rewrite_timestamps("turns", &published, &pulled, TimeUnit::Nanosecond).unwrap();
        let back = pio::read_parquet(&pulled).unwrap();
        assert_eq!(back[0].schema(), schema);
        let original = pio::read_parquet(&store_file).unwrap();
        assert_eq!(back, original);
        assert_eq!(back[0].column(2).null_count(), 0);
    }

    #[test]
    fn an_unknown_table_is_a_usage_error() {
        let dir = tempfile::tempdir().unwrap();
        let error = rewrite_timestamps(
            "nope",
            &dir.path().join("a"),
            &dir.path().join("b"),
            TimeUnit::Microsecond,
        )
        .unwrap_err();
        assert!(error.to_string().contains("nope"), "{error}");
    }
}
