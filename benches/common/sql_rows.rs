//! Rows of a read-only SQL statement as strings, shared by the bench binaries that pick
//! their inputs from a store by SQL (`benches/scale`, `benches/recall_quality`) through `#[path]`.

use datafusion::arrow::array::{Array, AsArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::DataType;
use datafusion::prelude::SessionContext;
use esker::query::run_read_only;

/// Runs `sql` and returns every row as strings (null as empty).
pub async fn strings(context: &SessionContext, sql: &str) -> anyhow::Result<Vec<Vec<String>>> {
    let (_, batches) = run_read_only(context, sql).await?;
    let mut rows = Vec::new();
    for batch in batches {
        let columns = batch
            .columns()
            .iter()
            .map(|column| cast(column, &DataType::Utf8))
            .collect::<Result<Vec<_>, _>>()?;
        for index in 0..batch.num_rows() {
            rows.push(
                columns
                    .iter()
                    .map(|column| {
                        let text = column.as_string::<i32>();
                        if text.is_null(index) {
                            String::new()
                        } else {
                            text.value(index).to_owned()
                        }
                    })
                    .collect(),
            );
        }
    }
    Ok(rows)
}
