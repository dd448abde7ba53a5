//! The embedding pass: after a lexical commit, the events of the current generation that have
//! no vector yet (prompts, replies, tool calls, compactions) are embedded and appended to the
//! sidecar as one new part. It reads the Parquet event files directly (a projection of the
//! scope columns and the text) and never touches the tantivy index or the tables, so the
//! lexical ingest pass does exactly what it did without it.

use std::collections::HashSet;
use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};
use std::time::Instant;

use datafusion::arrow::array::{Array, Int64Array, StringArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, TimeUnit};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::parquet::arrow::ProjectionMask;
use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use super::SemanticError;
use super::embedder::Embedder;
use super::vectors::{VectorRow, append_part, part_files, vectors_dir};
use crate::model::EventType;
use crate::store::Store;
use crate::store::parquet_io::read_string_column;

/// The event types embedded: what people and agents wrote (raw tool output stays lexical).
pub const EMBEDDED_TYPES: [EventType; 4] = [
    EventType::UserInput,
    EventType::AssistantResponse,
    EventType::ToolCall,
    EventType::Compaction,
];

/// Characters of an event's text that are embedded (its start; the model reads at most 512
/// tokens of it anyway).
const MAX_TEXT_CHARS: usize = 4_000;

/// Texts embedded per call to the embedder.
const EMBED_BATCH: usize = 512;

/// Vectors per sidecar part (bounds the memory of a first pass over a large store).
const PART_ROWS: usize = 50_000;

/// What one pass did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EmbedSummary {
    /// Events embedded by this pass.
    pub embedded: usize,
    /// Events that already had a vector.
    pub already: usize,
    /// Another pass held the sidecar: this one did nothing.
    pub skipped_busy: bool,
    pub seconds: f64,
}

impl std::fmt::Display for EmbedSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.skipped_busy {
            return write!(f, "another embedding pass is running");
        }
        write!(
            f,
            "{} events embedded ({} already), {:.1} s",
            self.embedded, self.already, self.seconds
        )
    }
}

/// One event waiting for its vector.
struct Pending {
    row: VectorRow,
    text: String,
}

/// Embeds the events of `store`'s current generation that have no vector of `embedder` yet.
pub fn embed_pending(store: &Store, embedder: &Embedder) -> Result<EmbedSummary, SemanticError> {
    embed_pending_into(store, embedder, store.data_dir())
}

/// [`embed_pending`] with the sidecar under `vectors_root` instead of the store's data dir
/// (the benchmark keeps its vectors apart from a shared store).
pub fn embed_pending_into(
    store: &Store,
    embedder: &Embedder,
    vectors_root: &Path,
) -> Result<EmbedSummary, SemanticError> {
    let started = Instant::now();
    let dir = vectors_dir(vectors_root, embedder.key());
    let Some(_lock) = try_lock_sidecar(&dir)? else {
        return Ok(EmbedSummary {
            skipped_busy: true,
            ..EmbedSummary::default()
        });
    };
    let embedded = embedded_ids(&dir)?;
    let snapshot = store.pin_current()?;
    let mut summary = EmbedSummary::default();
    let mut batch: Vec<Pending> = Vec::new();
    let mut part_rows: Vec<VectorRow> = Vec::new();
    let mut part_vectors: Vec<Vec<f32>> = Vec::new();
    for file in event_files(&snapshot.root.join("events")) {
        for pending in pending_events(&file, &embedded, &mut summary.already)? {
            batch.push(pending);
            if batch.len() >= EMBED_BATCH {
                embed_batch(embedder, &mut batch, &mut part_rows, &mut part_vectors)?;
            }
            if part_rows.len() >= PART_ROWS {
                summary.embedded += flush(&dir, &mut part_rows, &mut part_vectors)?;
            }
        }
    }
    embed_batch(embedder, &mut batch, &mut part_rows, &mut part_vectors)?;
    summary.embedded += flush(&dir, &mut part_rows, &mut part_vectors)?;
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}

fn embed_batch(
    embedder: &Embedder,
    batch: &mut Vec<Pending>,
    rows: &mut Vec<VectorRow>,
    vectors: &mut Vec<Vec<f32>>,
) -> Result<(), SemanticError> {
    if batch.is_empty() {
        return Ok(());
    }
    let texts: Vec<String> = batch
        .iter_mut()
        .map(|p| std::mem::take(&mut p.text))
        .collect();
    vectors.extend(embedder.embed(&texts)?);
    rows.extend(batch.drain(..).map(|pending| pending.row));
    Ok(())
}

fn flush(
    dir: &Path,
    rows: &mut Vec<VectorRow>,
    vectors: &mut Vec<Vec<f32>>,
) -> Result<usize, SemanticError> {
    let count = rows.len();
    append_part(dir, rows, vectors)?;
    rows.clear();
    vectors.clear();
    Ok(count)
}

/// The sidecar's lock, or `None` when another pass holds it.
fn try_lock_sidecar(dir: &Path) -> Result<Option<File>, SemanticError> {
    std::fs::create_dir_all(dir).map_err(SemanticError::io(dir))?;
    let path = dir.join("embed.lock");
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(SemanticError::io(&path))?;
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(TryLockError::WouldBlock) => Ok(None),
        Err(TryLockError::Error(error)) => Err(SemanticError::io(path)(error)),
    }
}

/// The ids of the events the sidecar has vectors for.
fn embedded_ids(dir: &Path) -> Result<HashSet<String>, SemanticError> {
    let mut ids = HashSet::new();
    for part in part_files(dir) {
        ids.extend(read_string_column(&part, "event_id")?);
    }
    Ok(ids)
}

/// The Parquet files of the events table, in a stable order.
fn event_files(events_dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(events_dir)
        .into_iter()
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.into_path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "parquet"))
        .collect();
    files.sort();
    files
}

/// The `source=` partition of an events file.
fn source_of(file: &Path) -> String {
    file.ancestors()
        .filter_map(|dir| dir.file_name()?.to_str()?.strip_prefix("source="))
        .next()
        .unwrap_or_default()
        .to_owned()
}

/// The events of `file` that should have a vector and have none.
fn pending_events(
    file: &Path,
    embedded: &HashSet<String>,
    already: &mut usize,
) -> Result<Vec<Pending>, SemanticError> {
    let failed = |message: String| SemanticError::Vectors {
        path: file.to_path_buf(),
        message,
    };
    let handle = File::open(file).map_err(SemanticError::io(file))?;
    let builder =
        ParquetRecordBatchReaderBuilder::try_new(handle).map_err(|e| failed(e.to_string()))?;
    let columns = [
        "event_id",
        "session_id",
        "turn_id",
        "type",
        "timestamp",
        "text",
    ];
    let indices = columns
        .iter()
        .map(|name| builder.schema().index_of(name))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| failed(e.to_string()))?;
    let mask = ProjectionMask::roots(builder.parquet_schema(), indices);
    let reader = builder
        .with_projection(mask)
        .build()
        .map_err(|e| failed(e.to_string()))?;
    let source = source_of(file);
    let wanted: Vec<&str> = EMBEDDED_TYPES.iter().map(|kind| kind.as_str()).collect();
    let mut pending = Vec::new();
    for batch in reader {
        let batch = batch.map_err(|e| failed(e.to_string()))?;
        let columns = BatchColumns::of(&batch).map_err(&failed)?;
        for row in 0..batch.num_rows() {
            if !wanted.contains(&columns.types.value(row)) {
                continue;
            }
            let event_id = columns.event_ids.value(row);
            if embedded.contains(event_id) {
                *already += 1;
                continue;
            }
            let text = columns.texts.value(row);
            if text.trim().is_empty() {
                continue;
            }
            pending.push(Pending {
                row: VectorRow {
                    event_id: event_id.to_owned(),
                    session_id: columns.sessions.value(row).to_owned(),
                    turn_id: columns.turns.value(row).to_owned(),
                    event_type: columns.types.value(row).to_owned(),
                    source: source.clone(),
                    timestamp_micros: columns
                        .timestamps
                        .is_valid(row)
                        .then(|| columns.timestamps.value(row)),
                },
                text: text.chars().take(MAX_TEXT_CHARS).collect(),
            });
        }
    }
    Ok(pending)
}

/// The projected columns of an events batch, as Utf8 / Int64 (micros).
struct BatchColumns {
    event_ids: StringArray,
    sessions: StringArray,
    turns: StringArray,
    types: StringArray,
    timestamps: Int64Array,
    texts: StringArray,
}

impl BatchColumns {
    fn of(batch: &RecordBatch) -> Result<BatchColumns, String> {
        let text = |name: &str| -> Result<StringArray, String> {
            let column = batch
                .column_by_name(name)
                .ok_or(format!("no column {name}"))?;
            let array = cast(column, &DataType::Utf8).map_err(|e| e.to_string())?;
            array
                .as_any()
                .downcast_ref::<StringArray>()
                .cloned()
                .ok_or_else(|| format!("{name} is not text"))
        };
        let timestamp = batch
            .column_by_name("timestamp")
            .ok_or("no column timestamp")?;
        let micros = cast(timestamp, &DataType::Timestamp(TimeUnit::Microsecond, None))
            .and_then(|array| cast(&array, &DataType::Int64))
            .map_err(|e| e.to_string())?;
        Ok(BatchColumns {
            event_ids: text("event_id")?,
            sessions: text("session_id")?,
            turns: text("turn_id")?,
            types: text("type")?,
            timestamps: micros
                .as_any()
                .downcast_ref::<Int64Array>()
                .cloned()
                .ok_or("timestamp is not a time")?,
            texts: text("text")?,
        })
    }
}
