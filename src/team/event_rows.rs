//! Event rows read back from a Parquet file of `events` (the search index of a pulled store is
//! built from them, with the same `SearchWriter::add_event` as a commit).

use std::path::Path;

use chrono::{DateTime, Utc};
use datafusion::arrow::array::{Array, BooleanArray, Int64Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, TimeUnit};
use datafusion::arrow::record_batch::RecordBatch;

use crate::model::{EventType, Source, TokenUsage};
use crate::store::StoreError;
use crate::store::parquet_io::{column_strings, read_parquet};
use crate::store::rows::EventRow;

/// The events of one file of partition `source=<source>/month=<month>`.
pub fn read_event_rows(
    file: &Path,
    source: Source,
    month: &str,
) -> Result<Vec<EventRow>, StoreError> {
    let mut rows = Vec::new();
    for batch in read_parquet(file)? {
        rows.extend(
            batch_rows(&batch, source, month).map_err(|message| StoreError::Parquet {
                path: file.to_path_buf(),
                message,
            })?,
        );
    }
    Ok(rows)
}

fn batch_rows(batch: &RecordBatch, source: Source, month: &str) -> Result<Vec<EventRow>, String> {
    let text = |name: &str| column_strings(batch, name);
    let (event_ids, session_ids, turn_ids) =
        (text("event_id")?, text("session_id")?, text("turn_id")?);
    let (types, models, originating_models) =
        (text("type")?, text("model")?, text("originating_model")?);
    let (tool_names, tool_call_ids, subtypes) =
        (text("tool_name")?, text("tool_call_id")?, text("subtype")?);
    let (texts, payloads, source_paths) = (text("text")?, text("payload")?, text("source_path")?);
    let (turn_ordinals, ordinals, seqs) = (
        ints(batch, "turn_ordinal")?,
        ints(batch, "ordinal")?,
        ints(batch, "seq")?,
    );
    let (exit_codes, source_lines) = (ints(batch, "exit_code")?, ints(batch, "source_line")?);
    let (inferred, terminal) = (
        bools(batch, "timestamp_inferred")?,
        bools(batch, "terminal")?,
    );
    let timestamps = micros(batch, "timestamp")?;
    let usage = [
        "input_tokens",
        "cached_input_tokens",
        "output_tokens",
        "reasoning_tokens",
        "total_tokens",
    ]
    .map(|name| ints(batch, name));
    let [input, cached, output, reasoning, total] = usage;
    let (input, cached, output, reasoning, total) = (input?, cached?, output?, reasoning?, total?);
    let owned = |values: &[Option<String>], row: usize| values[row].clone().unwrap_or_default();
    (0..batch.num_rows())
        .map(|row| {
            let usage = TokenUsage {
                input: input[row],
                cached_input: cached[row],
                output: output[row],
                reasoning: reasoning[row],
                total: total[row],
            };
            let has_usage = [usage.input, usage.cached_input, usage.output]
                .into_iter()
                .chain([usage.reasoning, usage.total])
                .any(|count| count.is_some());
            Ok(EventRow {
                event_id: owned(&event_ids, row),
                session_id: owned(&session_ids, row),
                turn_id: owned(&turn_ids, row),
                turn_ordinal: turn_ordinals[row].unwrap_or_default() as i32,
                ordinal: ordinals[row].unwrap_or_default() as i32,
                seq: seqs[row].unwrap_or_default(),
                event_type: EventType::parse(&owned(&types, row)).unwrap_or(EventType::Unknown),
                timestamp: DateTime::<Utc>::from_timestamp_micros(
                    timestamps[row].unwrap_or_default(),
                )
                .ok_or_else(|| "timestamp out of range".to_string())?,
                timestamp_inferred: inferred[row].unwrap_or_default(),
                terminal: terminal[row].unwrap_or_default(),
                model: models[row].clone(),
                originating_model: originating_models[row].clone(),
                tool_name: tool_names[row].clone(),
                tool_call_id: tool_call_ids[row].clone(),
                exit_code: exit_codes[row],
                subtype: subtypes[row].clone(),
                text: owned(&texts, row),
                payload: payloads[row].clone(),
                source_path: owned(&source_paths, row),
                source_line: source_lines[row].unwrap_or_default(),
                usage: has_usage.then_some(usage),
                source,
                month: month.to_string(),
            })
        })
        .collect()
}

fn ints(batch: &RecordBatch, name: &str) -> Result<Vec<Option<i64>>, String> {
    let column = batch
        .column_by_name(name)
        .ok_or_else(|| format!("no {name} column"))?;
    let array = cast(column, &DataType::Int64).map_err(|error| error.to_string())?;
    let array = array
        .as_any()
        .downcast_ref::<Int64Array>()
        .ok_or_else(|| format!("{name} is not an integer column"))?;
    Ok(array.iter().collect())
}

/// A timestamp column as microseconds since the epoch, whatever unit the file stores.
fn micros(batch: &RecordBatch, name: &str) -> Result<Vec<Option<i64>>, String> {
    let column = batch
        .column_by_name(name)
        .ok_or_else(|| format!("no {name} column"))?;
    let in_micros = cast(
        column,
        &DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
    )
    .map_err(|error| error.to_string())?;
    let array = cast(&in_micros, &DataType::Int64).map_err(|error| error.to_string())?;
    let array = array
        .as_any()
        .downcast_ref::<Int64Array>()
        .ok_or_else(|| format!("{name} is not a timestamp column"))?;
    Ok(array.iter().collect())
}

fn bools(batch: &RecordBatch, name: &str) -> Result<Vec<Option<bool>>, String> {
    let column = batch
        .column_by_name(name)
        .ok_or_else(|| format!("no {name} column"))?;
    let array = column
        .as_any()
        .downcast_ref::<BooleanArray>()
        .ok_or_else(|| format!("{name} is not a boolean column"))?;
    Ok(array.iter().collect())
}
