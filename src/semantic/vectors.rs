//! The vector sidecar: one Parquet part per embedding pass under
//! `<data_dir>/vectors/<model key>/`, each row an event's vector as int8 codes with one scale
//! (value ≈ code × scale) and the event's scope columns, so a search filters without the
//! tables. In memory ([`VectorTable`]) the codes form one matrix scanned exactly.

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use datafusion::arrow::array::{
    Array, FixedSizeBinaryArray, FixedSizeBinaryBuilder, Float32Array, Int64Array, StringArray,
};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use super::SemanticError;

/// The scope of an embedded event: what a search filters on and a hit reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VectorRow {
    pub event_id: String,
    pub session_id: String,
    pub turn_id: String,
    pub event_type: String,
    pub source: String,
    pub timestamp_micros: Option<i64>,
}

/// Every vector of one model, in memory.
#[derive(Debug, Default)]
pub struct VectorTable {
    dim: usize,
    rows: Vec<VectorRow>,
    /// `rows.len() × dim` int8 codes.
    codes: Vec<i8>,
    scales: Vec<f32>,
    by_event: HashMap<String, usize>,
}

/// The sidecar directory of a model's vectors.
pub fn vectors_dir(data_dir: &Path, model_key: &str) -> PathBuf {
    data_dir.join("vectors").join(model_key)
}

/// The parts of a sidecar directory, oldest first (empty when there is none).
pub fn part_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut parts: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with("part-") && name.ends_with(".parquet"))
        })
        .collect();
    parts.sort();
    parts
}

/// The int8 codes and scale of a vector.
pub fn quantize(vector: &[f32]) -> (Vec<i8>, f32) {
    let largest = vector
        .iter()
        .fold(0.0f32, |most, value| most.max(value.abs()));
    if largest <= 0.0 {
        return (vec![0; vector.len()], 0.0);
    }
    let scale = largest / 127.0;
    let codes = vector
        .iter()
        .map(|value| (value / scale).round().clamp(-127.0, 127.0) as i8)
        .collect();
    (codes, scale)
}

fn schema(dim: usize) -> SchemaRef {
    let text = |name: &str| Field::new(name, DataType::Utf8, false);
    Arc::new(Schema::new(vec![
        text("event_id"),
        text("session_id"),
        text("turn_id"),
        text("type"),
        text("source"),
        Field::new("timestamp_micros", DataType::Int64, true),
        Field::new("scale", DataType::Float32, false),
        Field::new("vector", DataType::FixedSizeBinary(dim as i32), false),
    ]))
}

/// Appends `rows` with their `vectors` as a new part of `dir`.
pub fn append_part(
    dir: &Path,
    rows: &[VectorRow],
    vectors: &[Vec<f32>],
) -> Result<Option<PathBuf>, SemanticError> {
    let Some(dim) = vectors.first().map(Vec::len) else {
        return Ok(None);
    };
    std::fs::create_dir_all(dir).map_err(SemanticError::io(dir))?;
    let next = part_files(dir)
        .last()
        .and_then(|path| part_number(path))
        .map_or(1, |number| number + 1);
    let path = dir.join(format!("part-{next:06}.parquet"));
    let failed = |message: String| SemanticError::Vectors {
        path: path.clone(),
        message,
    };
    let batch = part_batch(rows, vectors, dim).map_err(&failed)?;
    // Written aside and renamed, so a reader never sees half a part.
    let staging = dir.join(format!(".part-{next:06}.tmp-{}", std::process::id()));
    let file = File::create(&staging).map_err(SemanticError::io(&staging))?;
    let mut writer =
        ArrowWriter::try_new(file, batch.schema(), None).map_err(|e| failed(e.to_string()))?;
    writer.write(&batch).map_err(|e| failed(e.to_string()))?;
    writer.close().map_err(|e| failed(e.to_string()))?;
    std::fs::rename(&staging, &path).map_err(SemanticError::io(&path))?;
    Ok(Some(path))
}

fn part_number(path: &Path) -> Option<u64> {
    let name = path.file_name()?.to_str()?;
    name.strip_prefix("part-")?
        .strip_suffix(".parquet")?
        .parse()
        .ok()
}

fn part_batch(rows: &[VectorRow], vectors: &[Vec<f32>], dim: usize) -> Result<RecordBatch, String> {
    let text = |value: fn(&VectorRow) -> &str| -> Arc<dyn Array> {
        Arc::new(StringArray::from_iter_values(rows.iter().map(value)))
    };
    let mut codes = FixedSizeBinaryBuilder::with_capacity(vectors.len(), dim as i32);
    let mut scales = Vec::with_capacity(vectors.len());
    for vector in vectors {
        if vector.len() != dim {
            return Err(format!(
                "a vector of {} values among vectors of {dim}",
                vector.len()
            ));
        }
        let (code, scale) = quantize(vector);
        let bytes: Vec<u8> = code.iter().map(|&value| value as u8).collect();
        codes.append_value(&bytes).map_err(|e| e.to_string())?;
        scales.push(scale);
    }
    let columns: Vec<Arc<dyn Array>> = vec![
        text(|row| &row.event_id),
        text(|row| &row.session_id),
        text(|row| &row.turn_id),
        text(|row| &row.event_type),
        text(|row| &row.source),
        Arc::new(Int64Array::from_iter(
            rows.iter().map(|row| row.timestamp_micros),
        )),
        Arc::new(Float32Array::from(scales)),
        Arc::new(codes.finish()),
    ];
    RecordBatch::try_new(schema(dim), columns).map_err(|e| e.to_string())
}

impl VectorTable {
    /// Reads every part of `dir` (none: an empty table).
    pub fn load(dir: &Path) -> Result<VectorTable, SemanticError> {
        let mut table = VectorTable::default();
        for path in part_files(dir) {
            table.read_part(&path)?;
        }
        Ok(table)
    }

    fn read_part(&mut self, path: &Path) -> Result<(), SemanticError> {
        let failed = |message: String| SemanticError::Vectors {
            path: path.to_path_buf(),
            message,
        };
        let file = File::open(path).map_err(SemanticError::io(path))?;
        let reader = ParquetRecordBatchReaderBuilder::try_new(file)
            .and_then(|builder| builder.build())
            .map_err(|e| failed(e.to_string()))?;
        for batch in reader {
            let batch = batch.map_err(|e| failed(e.to_string()))?;
            self.add_batch(&batch).map_err(&failed)?;
        }
        Ok(())
    }

    fn add_batch(&mut self, batch: &RecordBatch) -> Result<(), String> {
        let text = |name: &str| -> Result<&StringArray, String> {
            batch
                .column_by_name(name)
                .and_then(|column| column.as_any().downcast_ref::<StringArray>())
                .ok_or_else(|| format!("no text column {name}"))
        };
        let column = |name: &str| {
            batch
                .column_by_name(name)
                .ok_or_else(|| format!("no column {name}"))
        };
        let (event_ids, sessions, turns, types, sources) = (
            text("event_id")?,
            text("session_id")?,
            text("turn_id")?,
            text("type")?,
            text("source")?,
        );
        let timestamps = column("timestamp_micros")?
            .as_any()
            .downcast_ref::<Int64Array>()
            .ok_or("timestamp_micros is not Int64")?;
        let scales = column("scale")?
            .as_any()
            .downcast_ref::<Float32Array>()
            .ok_or("scale is not Float32")?;
        let vectors = column("vector")?
            .as_any()
            .downcast_ref::<FixedSizeBinaryArray>()
            .ok_or("vector is not FixedSizeBinary")?;
        let dim = vectors.value_length() as usize;
        if self.rows.is_empty() {
            self.dim = dim;
        } else if dim != self.dim {
            return Err(format!(
                "vectors of {dim} values among vectors of {}",
                self.dim
            ));
        }
        for row in 0..batch.num_rows() {
            let event_id = event_ids.value(row);
            if self.by_event.contains_key(event_id) {
                continue;
            }
            self.by_event.insert(event_id.to_owned(), self.rows.len());
            self.rows.push(VectorRow {
                event_id: event_id.to_owned(),
                session_id: sessions.value(row).to_owned(),
                turn_id: turns.value(row).to_owned(),
                event_type: types.value(row).to_owned(),
                source: sources.value(row).to_owned(),
                timestamp_micros: timestamps.is_valid(row).then(|| timestamps.value(row)),
            });
            self.scales.push(scales.value(row));
            self.codes
                .extend(vectors.value(row).iter().map(|&byte| byte as i8));
        }
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn contains(&self, event_id: &str) -> bool {
        self.by_event.contains_key(event_id)
    }

    pub fn row(&self, index: usize) -> &VectorRow {
        &self.rows[index]
    }

    /// The cosine of `query` (normalised) with the vector of `event_id`, if it has one.
    pub fn cosine_of(&self, query: &QueryVector, event_id: &str) -> Option<f32> {
        let index = *self.by_event.get(event_id)?;
        (query.codes.len() == self.dim).then(|| self.cosine_at(query, index))
    }

    fn cosine_at(&self, query: &QueryVector, index: usize) -> f32 {
        let codes = &self.codes[index * self.dim..(index + 1) * self.dim];
        let dot: i32 = codes
            .iter()
            .zip(&query.codes)
            .map(|(&left, &right)| i32::from(left) * i32::from(right))
            .sum();
        dot as f32 * query.scale * self.scales[index]
    }

    /// The `k` rows closest to `query` among those `keep` accepts, best first, with their
    /// cosines: an exact scan of every vector.
    pub fn nearest(
        &self,
        query: &QueryVector,
        keep: impl Fn(&VectorRow) -> bool,
        k: usize,
    ) -> Vec<(usize, f32)> {
        if query.codes.len() != self.dim || k == 0 {
            return Vec::new();
        }
        let mut scored: Vec<(usize, f32)> = (0..self.rows.len())
            .filter(|&index| keep(&self.rows[index]))
            .map(|index| (index, self.cosine_at(query, index)))
            .collect();
        let by_score = |left: &(usize, f32), right: &(usize, f32)| {
            right
                .1
                .total_cmp(&left.1)
                .then_with(|| left.0.cmp(&right.0))
        };
        if scored.len() > k {
            scored.select_nth_unstable_by(k - 1, by_score);
            scored.truncate(k);
        }
        scored.sort_by(by_score);
        scored
    }
}

/// A query's vector quantised like the table's.
#[derive(Debug, Clone)]
pub struct QueryVector {
    codes: Vec<i8>,
    scale: f32,
}

impl QueryVector {
    pub fn new(vector: &[f32]) -> QueryVector {
        let (codes, scale) = quantize(vector);
        QueryVector { codes, scale }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: &str, session: &str, event_type: &str) -> VectorRow {
        VectorRow {
            event_id: id.into(),
            session_id: session.into(),
            turn_id: format!("turn:{session}"),
            event_type: event_type.into(),
            source: "codex".into(),
            timestamp_micros: Some(1),
        }
    }

    fn unit(values: &[f32]) -> Vec<f32> {
        let mut vector = values.to_vec();
        super::super::embedder::normalize(&mut vector);
        vector
    }

    #[test]
    fn parts_append_and_the_scan_ranks_by_cosine_within_the_filter() {
        let dir = tempfile::tempdir().expect("temp dir");
        let first = [
            row("event:a", "session:1", "user_input"),
            row("event:b", "session:1", "tool_call"),
        ];
        let second = [
            row("event:c", "session:2", "user_input"),
            row("event:a", "session:1", "user_input"),
        ];
        append_part(
            dir.path(),
            &first,
            &[unit(&[1.0, 0.0, 0.0]), unit(&[0.7, 0.7, 0.0])],
        )
        .expect("first part");
        append_part(
            dir.path(),
            &second,
            &[unit(&[0.0, 0.0, 1.0]), unit(&[0.0, 1.0, 0.0])],
        )
        .expect("second part");
        assert_eq!(part_files(dir.path()).len(), 2);
        let table = VectorTable::load(dir.path()).expect("loads");
        assert_eq!(table.len(), 3, "a repeated event keeps its first vector");
        let query = QueryVector::new(&unit(&[1.0, 0.1, 0.0]));
        let everything = table.nearest(&query, |_| true, 10);
        let ids: Vec<&str> = everything
            .iter()
            .map(|(i, _)| table.row(*i).event_id.as_str())
            .collect();
        assert_eq!(ids, ["event:a", "event:b", "event:c"]);
        assert!((everything[0].1 - 0.995).abs() < 0.02, "{everything:?}");
        let inputs = table.nearest(&query, |row| row.event_type == "user_input", 1);
        assert_eq!(table.row(inputs[0].0).event_id, "event:a");
        let in_session_2 = table.nearest(&query, |row| row.session_id == "session:2", 5);
        assert_eq!(in_session_2.len(), 1);
        assert!(table.cosine_of(&query, "event:c").unwrap().abs() < 0.02);
        assert!(table.cosine_of(&query, "event:z").is_none());
    }

    #[test]
    fn quantised_cosines_stay_close_to_exact_ones() {
        let mut state = 11u32;
        let mut random = || {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (state >> 8) as f32 / (1u32 << 24) as f32 - 0.5
        };
        let left = unit(&(0..64).map(|_| random()).collect::<Vec<_>>());
        let right = unit(&(0..64).map(|_| random()).collect::<Vec<_>>());
        let exact: f32 = left.iter().zip(&right).map(|(a, b)| a * b).sum();
        let dir = tempfile::tempdir().expect("temp dir");
        append_part(
            dir.path(),
            &[row("event:r", "session:1", "user_input")],
            &[right],
        )
        .expect("part");
        let table = VectorTable::load(dir.path()).expect("loads");
        let approximate = table
            .cosine_of(&QueryVector::new(&left), "event:r")
            .unwrap();
        assert!(
            (approximate - exact).abs() < 0.02,
            "{approximate} vs {exact}"
        );
    }
}
