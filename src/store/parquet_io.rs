//! Converts rows to Arrow batches shaped by the DDL schema, and reads/writes/filters Parquet.

use std::collections::HashSet;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use datafusion::arrow::array::{
    Array, ArrayRef, BooleanArray, Int32Array, Int64Array, PrimitiveArray, StringArray,
    TimestampMicrosecondArray,
};
use datafusion::arrow::compute::{
    SortColumn, cast, concat, concat_batches, filter_record_batch, interleave, lexsort_to_indices,
    take_record_batch,
};
use datafusion::arrow::datatypes::{ArrowPrimitiveType, Int32Type, Int64Type, Schema, SchemaRef};
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::parquet::arrow::ProjectionMask;
use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use datafusion::parquet::basic::{Compression, ZstdLevel};
use datafusion::parquet::file::metadata::SortingColumn;
use datafusion::parquet::file::properties::{EnabledStatistics, WriterProperties};
use datafusion::parquet::schema::types::ColumnPath;

use super::StoreError;
use super::rows::{EventRow, SessionRow, TouchRow, TurnRow};
use crate::model::TokenUsage;

/// Rows per row group: small enough that bloom filters and min/max stats prune lookups well.
pub const ROW_GROUP_ROWS: usize = 8192;
/// Rows per row group of the tables served by keyed lookups (`sessions`, `turns`).
pub const LOOKUP_ROW_GROUP_ROWS: usize = 1024;
/// Rows per data page: a located lookup decodes one page of each column, not the row group.
pub const PAGE_ROWS: usize = 1024;
/// Rows per data page of the tables served by keyed lookups (`sessions`, `turns`): a lookup
/// of one session decodes 128 rows of each projected column, not the 1,024 of its row group
/// (the chain range and open(turn) rows at 10M documents decoded whole row groups of
/// `sessions`' and `turns`' text columns: PERFORMANCE.md "Round 5").
pub const LOOKUP_PAGE_ROWS: usize = 128;
/// Bytes per data page of the wide columns (event text, payloads): a located lookup decodes
/// one such page per wide column (~0.1 ms at 128 KiB).
const WIDE_PAGE_BYTES: usize = 128 * 1024;
/// zstd level of every column. Level 3 instead of the parquet crate's default 1: the events of
/// the 100k generated corpus take 39.4 MB instead of 43.4 (−9%; `text` is ~90% of them)
/// (PERFORMANCE.md, "Memory and bytes, and 10M again").
const ZSTD_LEVEL: i32 = 3;
/// zstd level of the wide columns. With 128 KiB pages instead of 64 KiB at level 3, the `text`
/// of a 1M-corpus events file takes 7% less (PERFORMANCE.md, "Smaller ids, streamed loads").
const WIDE_ZSTD_LEVEL: i32 = 5;
/// Rows per batch [`write_sorted`] hands the writer.
const SORTED_WRITE_ROWS: usize = 8192;

/// How a table's files are laid out for lookups.
#[derive(Debug, Clone, Copy)]
pub struct FileLayout<'a> {
    /// The columns the rows are sorted by (ascending, nulls first: `concat_sorted`'s order),
    /// declared in the footer so readers know the order.
    pub sorted_by: &'a [&'a str],
    /// Columns with a bloom filter per row group (point lookups of ids).
    pub bloom: &'a [&'a str],
    /// Columns with page statistics (the column index) for page pruning; the others keep
    /// row-group statistics only (a column index of text prunes nothing and costs cache).
    pub page_statistics: &'a [&'a str],
    /// Unique or near-unique columns written without a dictionary (a point read would decode
    /// a dictionary page as large as the values first).
    pub no_dictionary: &'a [&'a str],
    /// Wide columns written in small pages ([`WIDE_PAGE_BYTES`]).
    pub small_pages: &'a [&'a str],
    /// Columns zstd barely shrinks (dictionary-coded names, counts, flags), written
    /// uncompressed: parquet-rs builds a zstd compressor and decompressor for every compressed
    /// column chunk it reads (~11% of a search's CPU at 1M documents on this VM), and a lookup
    /// reading these columns then builds none for them.
    pub uncompressed: &'a [&'a str],
    /// Rows per row group: [`ROW_GROUP_ROWS`], or [`LOOKUP_ROW_GROUP_ROWS`] for tables read
    /// a few rows at a time (a row group the lookup does not select is never read; inside a
    /// selected one, skipping rows decompresses the pages before them).
    pub row_group_rows: usize,
    /// Rows per data page: [`PAGE_ROWS`], or [`LOOKUP_PAGE_ROWS`] for the lookup tables (the
    /// writer is handed that many rows at a time, so its pages end there).
    pub page_rows: usize,
}

fn parquet_error(path: &Path) -> impl Fn(String) -> StoreError + '_ {
    move |message| StoreError::Parquet {
        path: path.to_path_buf(),
        message,
    }
}

fn strings<'a, R: 'a>(rows: &[&'a R], value: impl Fn(&'a R) -> Option<&'a str>) -> ArrayRef {
    Arc::new(rows.iter().map(|row| value(row)).collect::<StringArray>())
}

fn int32s<R>(rows: &[&R], value: impl Fn(&R) -> Option<i32>) -> ArrayRef {
    Arc::new(rows.iter().map(|row| value(row)).collect::<Int32Array>())
}

fn int64s<R>(rows: &[&R], value: impl Fn(&R) -> Option<i64>) -> ArrayRef {
    Arc::new(rows.iter().map(|row| value(row)).collect::<Int64Array>())
}

fn booleans<R>(rows: &[&R], value: impl Fn(&R) -> Option<bool>) -> ArrayRef {
    Arc::new(rows.iter().map(|row| value(row)).collect::<BooleanArray>())
}

fn timestamps<R>(rows: &[&R], value: impl Fn(&R) -> Option<DateTime<Utc>>) -> ArrayRef {
    let array: TimestampMicrosecondArray = rows
        .iter()
        .map(|row| value(row).map(|time| time.timestamp_micros()))
        .collect();
    Arc::new(array.with_timezone("UTC"))
}

/// The five token columns shared by `events`, `turns` and `sessions`.
fn usage_column<R>(
    name: &str,
    rows: &[&R],
    usage: impl Fn(&R) -> Option<TokenUsage>,
) -> Option<ArrayRef> {
    let field: fn(TokenUsage) -> Option<i64> = match name {
        "input_tokens" => |usage| usage.input,
        "cached_input_tokens" => |usage| usage.cached_input,
        "output_tokens" => |usage| usage.output,
        "reasoning_tokens" => |usage| usage.reasoning,
        "total_tokens" => |usage| usage.total,
        _ => return None,
    };
    Some(int64s(rows, |row| usage(row).and_then(field)))
}

fn json_list(items: &[String]) -> String {
    serde_json::to_string(items).unwrap_or_else(|_| "[]".to_string())
}

fn event_column(name: &str, rows: &[&EventRow]) -> Option<ArrayRef> {
    Some(match name {
        "event_id" => strings(rows, |row| Some(&row.event_id)),
        "session_id" => strings(rows, |row| Some(&row.session_id)),
        "turn_id" => strings(rows, |row| Some(&row.turn_id)),
        "turn_ordinal" => int32s(rows, |row| Some(row.turn_ordinal)),
        "ordinal" => int32s(rows, |row| Some(row.ordinal)),
        "seq" => int64s(rows, |row| Some(row.seq)),
        "type" => strings(rows, |row| Some(row.event_type.as_str())),
        "timestamp" => timestamps(rows, |row| Some(row.timestamp)),
        "timestamp_inferred" => booleans(rows, |row| Some(row.timestamp_inferred)),
        "terminal" => booleans(rows, |row| Some(row.terminal)),
        "model" => strings(rows, |row| row.model.as_deref()),
        "originating_model" => strings(rows, |row| row.originating_model.as_deref()),
        "tool_name" => strings(rows, |row| row.tool_name.as_deref()),
        "tool_call_id" => strings(rows, |row| row.tool_call_id.as_deref()),
        "exit_code" => int64s(rows, |row| row.exit_code),
        "subtype" => strings(rows, |row| row.subtype.as_deref()),
        "text" => strings(rows, |row| Some(&row.text)),
        "payload" => strings(rows, |row| row.payload.as_deref()),
        "source_path" => strings(rows, |row| Some(&row.source_path)),
        "source_line" => int64s(rows, |row| Some(row.source_line)),
        "source" => strings(rows, |row| Some(row.source.as_str())),
        "month" => strings(rows, |row| Some(&row.month)),
        other => return usage_column(other, rows, |row| row.usage),
    })
}

fn turn_column(name: &str, rows: &[&TurnRow]) -> Option<ArrayRef> {
    Some(match name {
        "turn_id" => strings(rows, |row| Some(&row.turn_id)),
        "session_id" => strings(rows, |row| Some(&row.session_id)),
        "source" => strings(rows, |row| Some(row.source.as_str())),
        "ordinal" => int32s(rows, |row| Some(row.ordinal)),
        "completed" => booleans(rows, |row| Some(row.completed)),
        "terminal_event_id" => strings(rows, |row| row.terminal_event_id.as_deref()),
        "event_count" => int32s(rows, |row| Some(row.event_count)),
        "started_at" => timestamps(rows, |row| Some(row.started_at)),
        "updated_at" => timestamps(rows, |row| Some(row.updated_at)),
        "first_event_id" => strings(rows, |row| Some(&row.first_event_id)),
        "last_event_id" => strings(rows, |row| Some(&row.last_event_id)),
        "user_input_event_id" => strings(rows, |row| {
            row.user_input.as_ref().map(|input| input.event_id.as_str())
        }),
        "user_input_text" => strings(rows, |row| {
            row.user_input.as_ref().map(|input| input.text.as_str())
        }),
        "user_input_truncated" => booleans(rows, |row| {
            row.user_input.as_ref().map(|input| input.truncated)
        }),
        "final_response_event_id" => strings(rows, |row| {
            row.final_response
                .as_ref()
                .map(|response| response.event_id.as_str())
        }),
        "final_response_text" => strings(rows, |row| {
            row.final_response
                .as_ref()
                .map(|response| response.text.as_str())
        }),
        "final_response_truncated" => booleans(rows, |row| {
            row.final_response
                .as_ref()
                .map(|response| response.truncated)
        }),
        "tools_called" => {
            let lists: Vec<String> = rows
                .iter()
                .map(|row| json_list(&row.tools_called))
                .collect();
            Arc::new(StringArray::from(lists))
        }
        "event_types" => {
            let lists: Vec<String> = rows.iter().map(|row| json_list(&row.event_types)).collect();
            Arc::new(StringArray::from(lists))
        }
        other => return usage_column(other, rows, |row| row.usage),
    })
}

fn session_column(name: &str, rows: &[&SessionRow]) -> Option<ArrayRef> {
    Some(match name {
        "session_id" => strings(rows, |row| Some(&row.session_id)),
        "source" => strings(rows, |row| Some(row.source.as_str())),
        "native_id" => strings(rows, |row| Some(&row.native_id)),
        "title" => strings(rows, |row| Some(&row.title)),
        "session_summary" => strings(rows, |row| row.session_summary.as_deref()),
        "session_slug" => strings(rows, |row| row.session_slug.as_deref()),
        "mode" => strings(rows, |row| Some(&row.mode)),
        "cwd" => strings(rows, |row| row.cwd.as_deref()),
        "project" => strings(rows, |row| row.project.as_deref()),
        "git_branch" => strings(rows, |row| row.git_branch.as_deref()),
        "model" => strings(rows, |row| row.model.as_deref()),
        "harness_version" => strings(rows, |row| row.harness_version.as_deref()),
        "agent_name" => strings(rows, |row| row.agent_name.as_deref()),
        "started_at" => timestamps(rows, |row| Some(row.started_at)),
        "updated_at" => timestamps(rows, |row| Some(row.updated_at)),
        "completed" => booleans(rows, |row| Some(row.completed)),
        "turn_count" => int32s(rows, |row| Some(row.turn_count)),
        "event_count" => int32s(rows, |row| Some(row.event_count)),
        "first_turn_id" => strings(rows, |row| row.first_turn_id.as_deref()),
        "last_turn_id" => strings(rows, |row| row.last_turn_id.as_deref()),
        "parent_session_id" => strings(rows, |row| row.parent_session_id.as_deref()),
        "forked_from_session_id" => strings(rows, |row| row.forked_from_session_id.as_deref()),
        "previous_session_id" => strings(rows, |row| row.previous_session_id.as_deref()),
        "next_session_id" => strings(rows, |row| row.next_session_id.as_deref()),
        "chain_id" => strings(rows, |row| Some(row.chain.as_ref()?.id.as_str())),
        "chain_slug" => strings(rows, |row| row.chain.as_ref()?.slug.as_deref()),
        "chain_number" => int32s(rows, |row| row.chain.as_ref().map(|chain| chain.number)),
        "chain_length" => int32s(rows, |row| row.chain.as_ref().map(|chain| chain.length)),
        "source_path" => strings(rows, |row| Some(&row.source_path)),
        "models" => {
            let lists: Vec<String> = rows.iter().map(|row| json_list(&row.models)).collect();
            Arc::new(StringArray::from(lists))
        }
        other => return usage_column(other, rows, |row| row.usage),
    })
}

fn touch_column(name: &str, rows: &[&TouchRow]) -> Option<ArrayRef> {
    Some(match name {
        "event_id" => strings(rows, |row| Some(&row.event_id)),
        "session_id" => strings(rows, |row| Some(&row.session_id)),
        "turn_id" => strings(rows, |row| Some(&row.turn_id)),
        "timestamp" => timestamps(rows, |row| Some(row.timestamp)),
        "source" => strings(rows, |row| Some(row.source.as_str())),
        "cwd" => strings(rows, |row| row.cwd.as_deref()),
        "root" => strings(rows, |row| row.root.as_deref()),
        "path" => strings(rows, |row| Some(&row.path)),
        "resolved_path" => strings(rows, |row| Some(&row.resolved_path)),
        "tail" => strings(rows, |row| Some(&row.tail)),
        "file_name" => strings(rows, |row| Some(&row.file_name)),
        "tool" => strings(rows, |row| Some(&row.tool)),
        "mutation" => booleans(rows, |row| Some(row.mutation)),
        "match_kind" => strings(rows, |row| Some(row.match_kind)),
        _ => return None,
    })
}

/// Builds a batch with exactly `schema`'s columns, each cast to the declared type.
pub fn build_batch(
    schema: &SchemaRef,
    column_for: impl Fn(&str) -> Option<ArrayRef>,
) -> Result<RecordBatch, String> {
    let columns = schema
        .fields()
        .iter()
        .map(|field| {
            let array = column_for(field.name())
                .ok_or_else(|| format!("no row value for declared column {}", field.name()))?;
            if array.data_type() == field.data_type() {
                Ok(array)
            } else {
                cast(&array, field.data_type()).map_err(|error| error.to_string())
            }
        })
        .collect::<Result<Vec<_>, String>>()?;
    RecordBatch::try_new(schema.clone(), columns).map_err(|error| error.to_string())
}

pub fn events_batch(file_schema: &SchemaRef, rows: &[&EventRow]) -> Result<RecordBatch, String> {
    build_batch(file_schema, |name| event_column(name, rows))
}

pub fn turns_batch(schema: &SchemaRef, rows: &[&TurnRow]) -> Result<RecordBatch, String> {
    build_batch(schema, |name| turn_column(name, rows))
}

pub fn sessions_batch(schema: &SchemaRef, rows: &[&SessionRow]) -> Result<RecordBatch, String> {
    build_batch(schema, |name| session_column(name, rows))
}

pub fn touches_batch(schema: &SchemaRef, rows: &[&TouchRow]) -> Result<RecordBatch, String> {
    build_batch(schema, |name| touch_column(name, rows))
}

/// The schema without `drop` columns (the partition columns, which live in directory names).
pub fn schema_without(schema: &SchemaRef, drop: &[&str]) -> SchemaRef {
    let fields: Vec<_> = schema
        .fields()
        .iter()
        .filter(|field| !drop.contains(&field.name().as_str()))
        .cloned()
        .collect();
    Arc::new(Schema::new(fields))
}

fn writer_properties(schema: &SchemaRef, layout: &FileLayout<'_>) -> WriterProperties {
    let column = |name: &&str| ColumnPath::from(*name);
    let mut builder = WriterProperties::builder()
        .set_max_row_group_row_count(Some(layout.row_group_rows))
        .set_data_page_row_count_limit(layout.page_rows)
        .set_write_batch_size(layout.page_rows)
        .set_compression(Compression::ZSTD(
            ZstdLevel::try_new(ZSTD_LEVEL).unwrap_or_default(),
        ))
        .set_statistics_enabled(EnabledStatistics::Chunk)
        .set_sorting_columns(sorting_columns(schema, layout.sorted_by));
    for name in layout.bloom {
        builder = builder.set_column_bloom_filter_enabled(column(name), true);
    }
    for name in layout.page_statistics {
        builder = builder.set_column_statistics_enabled(column(name), EnabledStatistics::Page);
    }
    for name in layout.no_dictionary {
        builder = builder.set_column_dictionary_enabled(column(name), false);
    }
    for name in layout.small_pages {
        builder = builder
            .set_column_data_page_size_limit(column(name), WIDE_PAGE_BYTES)
            .set_column_compression(
                column(name),
                Compression::ZSTD(ZstdLevel::try_new(WIDE_ZSTD_LEVEL).unwrap_or_default()),
            );
    }
    for name in layout.uncompressed {
        builder = builder.set_column_compression(column(name), Compression::UNCOMPRESSED);
    }
    builder.build()
}

/// The footer's declaration of `sorted_by` (columns of `schema`, flat: leaf = field index).
fn sorting_columns(schema: &SchemaRef, sorted_by: &[&str]) -> Option<Vec<SortingColumn>> {
    let columns: Vec<SortingColumn> = sorted_by
        .iter()
        .map_while(|name| schema.index_of(name).ok())
        .map(|index| SortingColumn {
            column_idx: index as i32,
            descending: false,
            nulls_first: true,
        })
        .collect();
    (columns.len() == sorted_by.len() && !columns.is_empty()).then_some(columns)
}

/// Writes `batches` (all of `schema`, sorted as `layout` says) as one Parquet file.
pub fn write_parquet(
    path: &Path,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    layout: &FileLayout<'_>,
) -> Result<(), StoreError> {
    write_all(path, schema, layout, batches.iter().cloned().map(Ok))
}

/// Writes the rows of `batches` to `path` in `layout.sorted_by` order (as [`concat_sorted`]
/// orders them) without a sorted copy of the rows: the sort runs over the key columns alone,
/// and the writer receives [`SORTED_WRITE_ROWS`] rows at a time, gathered from `batches`.
/// An events compaction at 10M documents merges partitions of 10^5–10^6 rows of event text;
/// concatenating them and then taking them in order held three copies at once.
pub fn write_sorted(
    path: &Path,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    layout: &FileLayout<'_>,
) -> Result<(), StoreError> {
    let to_error = parquet_error(path);
    let batches: Vec<&RecordBatch> = batches.iter().filter(|b| b.num_rows() > 0).collect();
    let order = sorted_positions(schema, &batches, layout.sorted_by)
        .map_err(|error| to_error(error.to_string()))?;
    let chunks = order.chunks(SORTED_WRITE_ROWS);
    write_all(
        path,
        schema,
        layout,
        chunks.map(|chunk| gather_rows(schema, &batches, chunk)),
    )
}

/// Writes each batch `batches` yields to a new Parquet file at `path`, one at a time.
pub fn write_all(
    path: &Path,
    schema: &SchemaRef,
    layout: &FileLayout<'_>,
    batches: impl IntoIterator<Item = Result<RecordBatch, ArrowError>>,
) -> Result<(), StoreError> {
    let to_error = parquet_error(path);
    let mut writer = open_writer(path, schema, layout)?;
    for batch in batches {
        batch
            .and_then(|batch| writer.write(&batch).map_err(ArrowError::from))
            .map_err(|error| to_error(error.to_string()))?;
    }
    writer
        .close()
        .map_err(|error| to_error(error.to_string()))?;
    Ok(())
}

/// The (batch, row) of every row of `batches` in `sort_columns` order, sorted by the key
/// columns alone (the other columns are not copied).
fn sorted_positions(
    schema: &SchemaRef,
    batches: &[&RecordBatch],
    sort_columns: &[&str],
) -> Result<Vec<(usize, usize)>, ArrowError> {
    let mut starts = Vec::with_capacity(batches.len());
    let mut total = 0;
    for batch in batches {
        starts.push(total);
        total += batch.num_rows();
    }
    let position = |global: usize| {
        let batch = starts.partition_point(|&start| start <= global) - 1;
        (batch, global - starts[batch])
    };
    if total < 2 || sort_columns.is_empty() {
        return Ok((0..total).map(position).collect());
    }
    let sort_keys = sort_columns
        .iter()
        .map(|name| {
            let index = schema.index_of(name)?;
            let arrays: Vec<&dyn Array> = batches
                .iter()
                .map(|batch| batch.column(index).as_ref())
                .collect();
            Ok(SortColumn {
                values: concat(&arrays)?,
                options: None,
            })
        })
        .collect::<Result<Vec<_>, ArrowError>>()?;
    let order = lexsort_to_indices(&sort_keys, None)?;
    Ok(order
        .values()
        .iter()
        .map(|&global| position(global as usize))
        .collect())
}

/// The rows at `positions` ((batch, row) pairs) of `batches`, as one batch.
fn gather_rows(
    schema: &SchemaRef,
    batches: &[&RecordBatch],
    positions: &[(usize, usize)],
) -> Result<RecordBatch, ArrowError> {
    let columns = (0..schema.fields().len())
        .map(|column| {
            let arrays: Vec<&dyn Array> = batches
                .iter()
                .map(|batch| batch.column(column).as_ref())
                .collect();
            interleave(&arrays, positions)
        })
        .collect::<Result<Vec<_>, ArrowError>>()?;
    RecordBatch::try_new(schema.clone(), columns)
}

/// A Parquet writer at `path` (its directory created) with `layout`'s properties.
fn open_writer(
    path: &Path,
    schema: &SchemaRef,
    layout: &FileLayout<'_>,
) -> Result<ArrowWriter<File>, StoreError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(StoreError::io(parent))?;
    }
    let file = File::create(path).map_err(StoreError::io(path))?;
    ArrowWriter::try_new(
        file,
        schema.clone(),
        Some(writer_properties(schema, layout)),
    )
    .map_err(|error| parquet_error(path)(error.to_string()))
}

/// Reads a whole Parquet file.
pub fn read_parquet(path: &Path) -> Result<Vec<RecordBatch>, StoreError> {
    let to_error = parquet_error(path);
    let file = File::open(path).map_err(StoreError::io(path))?;
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .and_then(|builder| builder.with_batch_size(ROW_GROUP_ROWS).build())
        .map_err(|error| to_error(error.to_string()))?;
    reader
        .map(|batch| batch.map_err(|error| to_error(error.to_string())))
        .collect()
}

/// The uncompressed bytes of the columns `columns` names in one file, from its footer alone.
pub fn uncompressed_column_bytes(path: &Path, columns: &[&str]) -> Result<u64, StoreError> {
    let to_error = parquet_error(path);
    let file = File::open(path).map_err(StoreError::io(path))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file)
        .map_err(|error| to_error(error.to_string()))?;
    let mut bytes = 0;
    for row_group in builder.metadata().row_groups() {
        for column in row_group.columns() {
            if columns.contains(&column.column_path().string().as_str()) {
                bytes += u64::try_from(column.uncompressed_size()).unwrap_or(0);
            }
        }
    }
    Ok(bytes)
}

/// Reads the distinct values of one string column (cheap: one column chunk per row group).
pub fn read_string_column(path: &Path, column: &str) -> Result<HashSet<String>, StoreError> {
    let to_error = parquet_error(path);
    let file = File::open(path).map_err(StoreError::io(path))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file)
        .map_err(|error| to_error(error.to_string()))?;
    let column_index = builder
        .schema()
        .index_of(column)
        .map_err(|error| to_error(error.to_string()))?;
    let mask = ProjectionMask::roots(builder.parquet_schema(), [column_index]);
    let reader = builder
        .with_projection(mask)
        .build()
        .map_err(|error| to_error(error.to_string()))?;
    let mut values = HashSet::new();
    for batch in reader {
        let batch = batch.map_err(|error| to_error(error.to_string()))?;
        let array = string_array(&batch, 0).map_err(&to_error)?;
        values.extend(array.iter().flatten().map(str::to_string));
    }
    Ok(values)
}

/// Reads only the named columns of a Parquet file, in the order named.
pub fn read_columns(path: &Path, columns: &[&str]) -> Result<Vec<RecordBatch>, StoreError> {
    let to_error = parquet_error(path);
    let file = File::open(path).map_err(StoreError::io(path))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file)
        .map_err(|error| to_error(error.to_string()))?;
    let indices = columns
        .iter()
        .map(|column| builder.schema().index_of(column))
        .collect::<Result<Vec<usize>, _>>()
        .map_err(|error| to_error(error.to_string()))?;
    let mask = ProjectionMask::roots(builder.parquet_schema(), indices);
    let reader = builder
        .with_batch_size(ROW_GROUP_ROWS)
        .with_projection(mask)
        .build()
        .map_err(|error| to_error(error.to_string()))?;
    reader
        .map(|batch| {
            let batch = batch.map_err(|error| to_error(error.to_string()))?;
            project_by_name(&batch, columns).map_err(&to_error)
        })
        .collect()
}

/// The named columns of a batch, in the order named.
pub fn project_by_name(batch: &RecordBatch, columns: &[&str]) -> Result<RecordBatch, String> {
    let indices = columns
        .iter()
        .map(|column| batch.schema().index_of(column))
        .collect::<Result<Vec<usize>, _>>()
        .map_err(|error| error.to_string())?;
    batch.project(&indices).map_err(|error| error.to_string())
}

fn string_array(batch: &RecordBatch, index: usize) -> Result<StringArray, String> {
    let array = cast(
        batch.column(index),
        &datafusion::arrow::datatypes::DataType::Utf8,
    )
    .map_err(|error| error.to_string())?;
    array
        .as_any()
        .downcast_ref::<StringArray>()
        .cloned()
        .ok_or_else(|| "expected a string column".to_string())
}

/// Keeps only the rows whose `column` value is not in `excluded`.
pub fn filter_out(
    batches: &[RecordBatch],
    column: &str,
    excluded: &HashSet<String>,
) -> Result<Vec<RecordBatch>, String> {
    filter_rows(batches, column, excluded, false)
}

/// Keeps only the rows whose `column` value is in `included`.
pub fn filter_in(
    batches: &[RecordBatch],
    column: &str,
    included: &HashSet<String>,
) -> Result<Vec<RecordBatch>, String> {
    filter_rows(batches, column, included, true)
}

fn filter_rows(
    batches: &[RecordBatch],
    column: &str,
    values: &HashSet<String>,
    keep_members: bool,
) -> Result<Vec<RecordBatch>, String> {
    batches
        .iter()
        .map(|batch| {
            let index = batch
                .schema()
                .index_of(column)
                .map_err(|error| error.to_string())?;
            let column_values = string_array(batch, index)?;
            let keep: BooleanArray = column_values
                .iter()
                .map(|value| {
                    Some(value.is_some_and(|value| values.contains(value)) == keep_members)
                })
                .collect();
            filter_record_batch(batch, &keep).map_err(|error| error.to_string())
        })
        .filter(|batch| batch.as_ref().map_or(true, |batch| batch.num_rows() > 0))
        .collect()
}

/// Concatenates batches of one schema and sorts the rows by the `sort_columns` (ascending).
pub fn concat_sorted(
    schema: &SchemaRef,
    batches: &[RecordBatch],
    sort_columns: &[&str],
) -> Result<RecordBatch, String> {
    let combined = concat_batches(schema, batches).map_err(|error| error.to_string())?;
    if combined.num_rows() < 2 {
        return Ok(combined);
    }
    let sort_keys = sort_columns
        .iter()
        .map(|name| {
            let index = schema.index_of(name).map_err(|error| error.to_string())?;
            Ok(SortColumn {
                values: combined.column(index).clone(),
                options: None,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let order = lexsort_to_indices(&sort_keys, None).map_err(|error| error.to_string())?;
    take_record_batch(&combined, &order).map_err(|error| error.to_string())
}

/// The values of a string column of a batch, nulls as `None`.
pub fn column_strings(batch: &RecordBatch, column: &str) -> Result<Vec<Option<String>>, String> {
    Ok(column_string_array(batch, column)?
        .iter()
        .map(|value| value.map(str::to_string))
        .collect())
}

/// A string column of a batch as one `Utf8` array (no string copied per row).
pub fn column_string_array(batch: &RecordBatch, column: &str) -> Result<StringArray, String> {
    let index = batch
        .schema()
        .index_of(column)
        .map_err(|error| error.to_string())?;
    string_array(batch, index)
}

/// The values of a timestamp column as microseconds, nulls as `None`.
pub fn column_micros(batch: &RecordBatch, column: &str) -> Result<Vec<Option<i64>>, String> {
    primitive_column::<Int64Type>(batch, column, "a timestamp")
}

/// The values of an integer column of a batch as `i32`, nulls as `None`.
pub fn column_int32(batch: &RecordBatch, column: &str) -> Result<Vec<Option<i32>>, String> {
    primitive_column::<Int32Type>(batch, column, "an integer")
}

/// The values of a column cast to the primitive type `T`, nulls as `None`.
fn primitive_column<T: ArrowPrimitiveType>(
    batch: &RecordBatch,
    column: &str,
    expected: &str,
) -> Result<Vec<Option<T::Native>>, String> {
    let index = batch
        .schema()
        .index_of(column)
        .map_err(|error| error.to_string())?;
    let array = cast(batch.column(index), &T::DATA_TYPE).map_err(|error| error.to_string())?;
    let array = array
        .as_any()
        .downcast_ref::<PrimitiveArray<T>>()
        .ok_or_else(|| format!("expected {expected} column"))?;
    Ok(array.iter().collect())
}

/// Replaces one column of a batch with string values (cast to the column's type).
pub fn replace_string_column(
    batch: &RecordBatch,
    column: &str,
    values: Vec<Option<String>>,
) -> Result<RecordBatch, String> {
    replace_column(batch, column, Arc::new(StringArray::from(values)))
}

/// `batch` with `column` replaced by `values` (cast to the declared type).
pub fn replace_int32_column(
    batch: &RecordBatch,
    column: &str,
    values: Vec<Option<i32>>,
) -> Result<RecordBatch, String> {
    replace_column(batch, column, Arc::new(Int32Array::from(values)))
}

fn replace_column(
    batch: &RecordBatch,
    column: &str,
    array: ArrayRef,
) -> Result<RecordBatch, String> {
    let schema = batch.schema();
    let index = schema.index_of(column).map_err(|error| error.to_string())?;
    let array = cast(&array, schema.field(index).data_type()).map_err(|error| error.to_string())?;
    let mut columns = batch.columns().to_vec();
    columns[index] = array;
    RecordBatch::try_new(schema, columns).map_err(|error| error.to_string())
}

#[cfg(test)]
mod tests {
    use datafusion::arrow::datatypes::{DataType, Field};

    use super::*;

    fn schema() -> SchemaRef {
        Arc::new(Schema::new(vec![
            Field::new("session_id", DataType::Utf8, false),
            Field::new("seq", DataType::Int64, false),
            Field::new("text", DataType::Utf8, true),
        ]))
    }

    /// `rows` rows of `sessions` sessions in a scrambled order, every seventh text null.
    fn scrambled_batch(
        schema: &SchemaRef,
        first: usize,
        rows: usize,
        sessions: usize,
    ) -> RecordBatch {
        let numbers: Vec<usize> = (first..first + rows)
            .map(|n| (n * 7919) % 100_003)
            .collect();
        let session_ids =
            StringArray::from_iter_values(numbers.iter().map(|n| format!("s{:03}", n % sessions)));
        let seqs = Int64Array::from_iter_values(numbers.iter().map(|n| *n as i64));
        let texts: StringArray = numbers
            .iter()
            .map(|n| (n % 7 != 0).then(|| format!("text of row {n}")))
            .collect();
        RecordBatch::try_new(
            schema.clone(),
            vec![Arc::new(session_ids), Arc::new(seqs), Arc::new(texts)],
        )
        .unwrap()
    }

    #[test]
    fn rows_written_sorted_by_key_gathering_equal_the_sorted_copy() {
        let schema = schema();
        // More rows than one write chunk, across batches of uneven sizes and an empty one.
        let batches = vec![
            scrambled_batch(&schema, 0, 9_000, 40),
            scrambled_batch(&schema, 9_000, 0, 40),
            scrambled_batch(&schema, 20_000, 7_500, 40),
            scrambled_batch(&schema, 40_000, 3, 40),
        ];
        let layout = FileLayout {
            sorted_by: &["session_id", "seq"],
            bloom: &["session_id"],
            page_statistics: &["session_id", "seq"],
            no_dictionary: &["text"],
            small_pages: &["text"],
            uncompressed: &["seq"],
            row_group_rows: ROW_GROUP_ROWS,
            page_rows: PAGE_ROWS,
        };
        let directory = tempfile::tempdir().unwrap();
        let file = directory.path().join("part.parquet");
        write_sorted(&file, &schema, &batches, &layout).unwrap();

        let written = concat_batches(&schema, &read_parquet(&file).unwrap()).unwrap();
        let expected = concat_sorted(&schema, &batches, layout.sorted_by).unwrap();
        assert_eq!(written.num_rows(), 16_503);
        assert_eq!(written, expected);
    }

    #[test]
    fn wide_columns_get_larger_pages_and_a_higher_zstd_level_and_listed_ones_none() {
        let schema = schema();
        let layout = FileLayout {
            sorted_by: &["session_id"],
            bloom: &[],
            page_statistics: &[],
            no_dictionary: &["text"],
            small_pages: &["text"],
            uncompressed: &["seq"],
            row_group_rows: ROW_GROUP_ROWS,
            page_rows: PAGE_ROWS,
        };
        let properties = writer_properties(&schema, &layout);
        let zstd = |level| Compression::ZSTD(ZstdLevel::try_new(level).unwrap());
        let text = ColumnPath::from("text");
        let id = ColumnPath::from("session_id");
        assert_eq!(properties.compression(&text), zstd(WIDE_ZSTD_LEVEL));
        assert_eq!(
            properties.column_data_page_size_limit(&text),
            WIDE_PAGE_BYTES
        );
        assert_eq!(properties.compression(&id), zstd(ZSTD_LEVEL));
        assert_ne!(properties.column_data_page_size_limit(&id), WIDE_PAGE_BYTES);
        let seq = ColumnPath::from("seq");
        assert_eq!(properties.compression(&seq), Compression::UNCOMPRESSED);
    }

    /// A lookup table's pages end every [`LOOKUP_PAGE_ROWS`] rows inside its row groups, so a
    /// selection of one session's rows decodes a page of each column, not the row group.
    #[test]
    fn lookup_tables_end_a_page_every_lookup_page_rows() {
        use datafusion::parquet::file::reader::{FileReader, SerializedFileReader};
        use datafusion::parquet::file::serialized_reader::ReadOptionsBuilder;

        let schema = schema();
        let directory = tempfile::tempdir().unwrap();
        let pages_per_row_group = |page_rows: usize| {
            let file = directory.path().join(format!("pages-{page_rows}.parquet"));
            let layout = FileLayout {
                sorted_by: &["session_id", "seq"],
                bloom: &["session_id"],
                page_statistics: &["session_id"],
                no_dictionary: &[],
                small_pages: &[],
                uncompressed: &[],
                row_group_rows: LOOKUP_ROW_GROUP_ROWS,
                page_rows,
            };
            let batch = scrambled_batch(&schema, 0, 3 * LOOKUP_ROW_GROUP_ROWS, 40);
            write_sorted(&file, &schema, &[batch], &layout).unwrap();
            let options = ReadOptionsBuilder::new().with_page_index().build();
            let reader =
                SerializedFileReader::new_with_options(File::open(&file).unwrap(), options)
                    .unwrap();
            let metadata = reader.metadata();
            assert_eq!(metadata.num_row_groups(), 3);
            let offsets = metadata.offset_index().expect("an offset index");
            offsets
                .iter()
                .map(|columns| {
                    columns
                        .iter()
                        .map(|column| column.page_locations().len())
                        .collect::<Vec<_>>()
                })
                .collect::<Vec<_>>()
        };
        let pages = LOOKUP_ROW_GROUP_ROWS / LOOKUP_PAGE_ROWS;
        assert_eq!(
            pages_per_row_group(LOOKUP_PAGE_ROWS),
            vec![vec![pages; 3]; 3]
        );
        assert_eq!(pages_per_row_group(PAGE_ROWS), vec![vec![1; 3]; 3]);
    }

    #[test]
    fn no_rows_write_an_empty_file_with_the_schema() {
        let schema = schema();
        let directory = tempfile::tempdir().unwrap();
        let file = directory.path().join("empty.parquet");
        let layout = FileLayout {
            sorted_by: &["session_id"],
            bloom: &[],
            page_statistics: &[],
            no_dictionary: &[],
            small_pages: &[],
            uncompressed: &[],
            row_group_rows: ROW_GROUP_ROWS,
            page_rows: PAGE_ROWS,
        };
        write_sorted(
            &file,
            &schema,
            &[scrambled_batch(&schema, 0, 0, 1)],
            &layout,
        )
        .unwrap();
        let rows: usize = read_parquet(&file)
            .unwrap()
            .iter()
            .map(|b| b.num_rows())
            .sum();
        assert_eq!(rows, 0);
    }
}
