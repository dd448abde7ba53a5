//! Typed access to the rows a named query returns. Columns are normalized once per batch
//! (any string flavour to Utf8, integers to Int64, timestamps to UTC nanoseconds) so the tool
//! code reads `row.string("title")` without caring how DataFusion stored the column.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, BooleanArray, Int64Array, StringArray, TimestampNanosecondArray,
};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, TimeUnit};
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::record_batch::RecordBatch;

/// A column that is missing or does not have the type the reader asked for.
#[derive(Debug, thiserror::Error)]
pub enum RowError {
    #[error("query result has no column {0}")]
    MissingColumn(String),
    #[error("column {column} is not {expected}")]
    WrongType {
        column: String,
        expected: &'static str,
    },
    #[error("column {0} is null")]
    UnexpectedNull(String),
    #[error("cannot normalize column {column}: {source}")]
    Cast { column: String, source: ArrowError },
}

/// The rows of one query result.
#[derive(Debug, Default)]
pub struct Rows {
    batches: Vec<NormalizedBatch>,
}

#[derive(Debug)]
struct NormalizedBatch {
    columns: HashMap<String, ArrayRef>,
    row_count: usize,
}

impl Rows {
    pub fn from_batches(batches: &[RecordBatch]) -> Result<Rows, RowError> {
        let batches = batches
            .iter()
            .filter(|batch| batch.num_rows() > 0)
            .map(normalize_batch)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Rows { batches })
    }

    pub fn len(&self) -> usize {
        self.batches.iter().map(|batch| batch.row_count).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn iter(&self) -> impl Iterator<Item = Row<'_>> {
        self.batches
            .iter()
            .flat_map(|batch| (0..batch.row_count).map(move |index| Row { batch, index }))
    }

    pub fn first(&self) -> Option<Row<'_>> {
        self.iter().next()
    }
}

fn normalize_batch(batch: &RecordBatch) -> Result<NormalizedBatch, RowError> {
    let schema = batch.schema();
    let columns = schema
        .fields()
        .iter()
        .zip(batch.columns())
        .map(|(field, column)| {
            let normalized = normalize_column(column).map_err(|source| RowError::Cast {
                column: field.name().clone(),
                source,
            })?;
            Ok((field.name().clone(), normalized))
        })
        .collect::<Result<HashMap<_, _>, RowError>>()?;
    Ok(NormalizedBatch {
        columns,
        row_count: batch.num_rows(),
    })
}

/// One column in the types [`Row`] reads (any string flavour to Utf8, integers to Int64,
/// timestamps to nanoseconds).
fn normalize_column(column: &ArrayRef) -> Result<ArrayRef, ArrowError> {
    let target = match column.data_type() {
        DataType::Utf8View | DataType::LargeUtf8 | DataType::Dictionary(_, _) => DataType::Utf8,
        DataType::Int8
        | DataType::Int16
        | DataType::Int32
        | DataType::UInt8
        | DataType::UInt16
        | DataType::UInt32 => DataType::Int64,
        DataType::Timestamp(_, timezone) => {
            DataType::Timestamp(TimeUnit::Nanosecond, timezone.clone())
        }
        _ => return Ok(Arc::clone(column)),
    };
    cast(column, &target)
}

/// One row of a query result.
#[derive(Debug, Clone, Copy)]
pub struct Row<'a> {
    batch: &'a NormalizedBatch,
    index: usize,
}

impl<'a> Row<'a> {
    fn column(&self, name: &str) -> Result<&'a ArrayRef, RowError> {
        self.batch
            .columns
            .get(name)
            .ok_or_else(|| RowError::MissingColumn(name.to_owned()))
    }

    fn typed<T: 'static>(&self, name: &str, expected: &'static str) -> Result<&'a T, RowError> {
        self.column(name)?
            .as_any()
            .downcast_ref::<T>()
            .ok_or_else(|| RowError::WrongType {
                column: name.to_owned(),
                expected,
            })
    }

    fn is_null(&self, name: &str) -> Result<bool, RowError> {
        Ok(self.column(name)?.is_null(self.index))
    }

    fn required<T>(&self, name: &str, value: Option<T>) -> Result<T, RowError> {
        value.ok_or_else(|| RowError::UnexpectedNull(name.to_owned()))
    }

    pub fn opt_string(&self, name: &str) -> Result<Option<&'a str>, RowError> {
        let array = self.typed::<StringArray>(name, "a string")?;
        Ok((!array.is_null(self.index)).then(|| array.value(self.index)))
    }

    pub fn string(&self, name: &str) -> Result<&'a str, RowError> {
        let value = self.opt_string(name)?;
        self.required(name, value)
    }

    pub fn opt_i64(&self, name: &str) -> Result<Option<i64>, RowError> {
        if self.is_null(name)? {
            return Ok(None);
        }
        let array = self.typed::<Int64Array>(name, "an integer")?;
        Ok(Some(array.value(self.index)))
    }

    pub fn i64(&self, name: &str) -> Result<i64, RowError> {
        let value = self.opt_i64(name)?;
        self.required(name, value)
    }

    pub fn opt_bool(&self, name: &str) -> Result<Option<bool>, RowError> {
        if self.is_null(name)? {
            return Ok(None);
        }
        let array = self.typed::<BooleanArray>(name, "a boolean")?;
        Ok(Some(array.value(self.index)))
    }

    pub fn bool(&self, name: &str) -> Result<bool, RowError> {
        let value = self.opt_bool(name)?;
        self.required(name, value)
    }

    /// A timestamp column as UTC nanoseconds since the epoch.
    pub fn opt_timestamp_nanos(&self, name: &str) -> Result<Option<i64>, RowError> {
        if self.is_null(name)? {
            return Ok(None);
        }
        let array = self.typed::<TimestampNanosecondArray>(name, "a timestamp")?;
        Ok(Some(array.value(self.index)))
    }
}
