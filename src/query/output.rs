//! Renders query results as a table, CSV, JSON array or JSON lines for `esker query`.

use std::io::Write;

use datafusion::arrow::csv::WriterBuilder as CsvWriterBuilder;
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::json::{ArrayWriter, LineDelimitedWriter};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::arrow::util::pretty::pretty_format_batches;

/// Output formats of `esker query`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    Table,
    Csv,
    Json,
    Jsonl,
}

/// Writes `batches` to `out` in `format`.
pub fn write_batches(
    out: &mut dyn Write,
    batches: &[RecordBatch],
    format: OutputFormat,
) -> Result<(), ArrowError> {
    match format {
        OutputFormat::Table => writeln!(out, "{}", pretty_format_batches(batches)?)?,
        OutputFormat::Csv => {
            let mut writer = CsvWriterBuilder::new().with_header(true).build(out);
            for batch in batches {
                writer.write(batch)?;
            }
        }
        OutputFormat::Json => {
            let mut writer = ArrayWriter::new(out);
            let batch_refs: Vec<&RecordBatch> = batches.iter().collect();
            writer.write_batches(&batch_refs)?;
            writer.finish()?;
            writeln!(writer.into_inner())?;
        }
        OutputFormat::Jsonl => {
            let mut writer = LineDelimitedWriter::new(out);
            let batch_refs: Vec<&RecordBatch> = batches.iter().collect();
            writer.write_batches(&batch_refs)?;
            writer.finish()?;
        }
    }
    Ok(())
}
