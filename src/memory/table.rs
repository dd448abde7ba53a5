//! The `memories` Parquet table (declared in `tables/memories.sql`): a generation's
//! `memories/` holds the previous generation's files (hard links) plus one file of the entries
//! it folded; when that makes more than [`MAX_FILES`] files they are compacted into one.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, Int64Array, StringArray, TimestampMicrosecondArray};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;

use super::journal::JournalRecord;
use crate::store::StoreError;
use crate::store::parquet_io as pio;

/// The table's directory in a generation.
pub const TABLE_DIR: &str = crate::store::MEMORIES_TABLE;
/// More files than this after a fold are compacted into one.
pub const MAX_FILES: usize = 8;
/// Rows are sorted by these columns in every file.
const SORT_COLUMNS: [&str; 2] = ["created_at", "journal_offset"];
/// The layout of the memories files: sorted by time, an id bloom filter.
pub const LAYOUT: pio::FileLayout<'static> = pio::FileLayout {
    sorted_by: &SORT_COLUMNS,
    bloom: &["id"],
    page_statistics: &SORT_COLUMNS,
    no_dictionary: &["id"],
    small_pages: &[],
    uncompressed: &[],
    row_group_rows: pio::ROW_GROUP_ROWS,
    page_rows: pio::PAGE_ROWS,
};

/// The Parquet files of the table in a generation, sorted by name.
pub fn files(generation_root: &Path) -> Result<Vec<PathBuf>, StoreError> {
    let dir = generation_root.join(TABLE_DIR);
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .map_err(StoreError::io(&dir))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| {
            path.extension()
                .is_some_and(|extension| extension == "parquet")
        })
        .collect();
    files.sort();
    Ok(files)
}

/// Links the previous generation's files into the new generation's table, unchanged.
pub fn link_forward(previous_root: &Path, root: &Path) -> Result<(), StoreError> {
    let dir = root.join(TABLE_DIR);
    fs::create_dir_all(&dir).map_err(StoreError::io(&dir))?;
    link_files(&files(previous_root)?, &dir)
}

fn link_files(files: &[PathBuf], dir: &Path) -> Result<(), StoreError> {
    for file in files {
        let target = dir.join(file.file_name().unwrap_or_default());
        fs::hard_link(file, &target)
            .or_else(|_| fs::copy(file, &target).map(|_| ()))
            .map_err(StoreError::io(&target))?;
    }
    Ok(())
}

/// Writes the table of a new generation: the previous files linked, plus `records` (not
/// empty) in a file of their own; when that makes more than [`MAX_FILES`] files, one file of
/// all the rows instead.
pub fn write(
    previous_root: &Path,
    root: &Path,
    generation: u64,
    schema: &SchemaRef,
    records: &[JournalRecord],
) -> Result<(), StoreError> {
    let dir = root.join(TABLE_DIR);
    fs::create_dir_all(&dir).map_err(StoreError::io(&dir))?;
    let previous_files = files(previous_root)?;
    let new_file = dir.join(format!("part-g{generation:06}.parquet"));
    let mut batches = vec![batch(schema, records).map_err(parquet_failure(&new_file))?];
    if previous_files.len() + 1 > MAX_FILES {
        for file in &previous_files {
            batches.extend(pio::read_parquet(file)?);
        }
    } else {
        link_files(&previous_files, &dir)?;
    }
    pio::write_sorted(&new_file, schema, &batches, &LAYOUT)
}

fn parquet_failure(path: &Path) -> impl Fn(String) -> StoreError + '_ {
    move |message| StoreError::Parquet {
        path: path.to_path_buf(),
        message,
    }
}

/// `records` as a batch of the declared schema.
pub fn batch(schema: &SchemaRef, records: &[JournalRecord]) -> Result<RecordBatch, String> {
    pio::build_batch(schema, |name| column(name, records))
}

fn column(name: &str, records: &[JournalRecord]) -> Option<ArrayRef> {
    let strings = |value: fn(&JournalRecord) -> Option<&str>| -> ArrayRef {
        Arc::new(records.iter().map(value).collect::<StringArray>())
    };
    Some(match name {
        "id" => strings(|record| Some(&record.entry.id)),
        "title" => strings(|record| Some(&record.entry.title)),
        "body" => strings(|record| Some(&record.entry.body)),
        "entry_type" => strings(|record| Some(&record.entry.entry_type)),
        "project" => strings(|record| Some(&record.entry.project)),
        "session_id" => strings(|record| record.entry.session_id.as_deref()),
        "source_ref" => strings(|record| record.entry.source_ref.as_deref()),
        "content_hash" => strings(|record| record.entry.content_hash.as_deref()),
        "metadata" => Arc::new(
            records
                .iter()
                .map(|record| Some(record.entry.metadata_json()))
                .collect::<StringArray>(),
        ),
        "created_at" => {
            let micros: TimestampMicrosecondArray = records
                .iter()
                .map(|record| Some(record.entry.created_at.timestamp_micros()))
                .collect();
            Arc::new(micros.with_timezone("UTC"))
        }
        "journal_offset" => Arc::new(
            records
                .iter()
                .map(|record| i64::try_from(record.offset).ok())
                .collect::<Int64Array>(),
        ),
        _ => return None,
    })
}
