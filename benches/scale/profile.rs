//! `scale profile --work DIR`: splits the cost of the open(event) SQL on a store the scale run
//! left behind into SQL parse + logical planning, physical planning and execution, with the
//! warm, reused context the server holds.

use std::path::Path;
use std::time::Instant;

use datafusion::physical_plan::collect;
use datafusion::scalar::ScalarValue;
use esker::query::{context_at, read_only_options, run_read_only};
use esker::store::Store;

use crate::stats::{Report, Samples};

const LOCATED: &str = include_str!("../../queries/open_event_in_session.sql");
const UNLOCATED: &str = include_str!("../../queries/open_event.sql");

pub async fn profile(data_dir: &Path, rounds: usize) -> anyhow::Result<Report> {
    let root = Store::open(data_dir)?.current()?.root;
    let context = context_at(&root).await?;
    let (_, batches) = run_read_only(&context, "SELECT event_id, session_id, source FROM events WHERE type = 'tool_response' ORDER BY event_id LIMIT 50").await?;
    let mut targets = Vec::new();
    for batch in &batches {
        let text = |index: usize, row: usize| {
            let column = datafusion::arrow::compute::cast(
                batch.column(index),
                &datafusion::arrow::datatypes::DataType::Utf8,
            )
            .expect("castable");
            datafusion::arrow::array::AsArray::as_string::<i32>(&column)
                .value(row)
                .to_owned()
        };
        for row in 0..batch.num_rows() {
            targets.push([text(0, row), text(1, row), text(2, row)]);
        }
    }
    anyhow::ensure!(!targets.is_empty(), "no events in {}", data_dir.display());
    let mut report = Report::default();
    for (name, sql, located) in [
        ("open_event_in_session.sql", LOCATED, true),
        ("open_event.sql", UNLOCATED, false),
    ] {
        let (mut planning, mut physical, mut execution) =
            (Samples::default(), Samples::default(), Samples::default());
        for round in 0..rounds {
            let [event_id, session_id, source] = &targets[round % targets.len()];
            let mut parameters = vec![ScalarValue::Utf8(Some(event_id.clone()))];
            if located {
                parameters.push(ScalarValue::Utf8(Some(session_id.clone())));
                parameters.push(ScalarValue::Utf8(Some(source.clone())));
            }
            let started = Instant::now();
            let frame = context
                .sql_with_options(sql, read_only_options())
                .await?
                .with_param_values(parameters)?;
            planning.record(started.elapsed());
            let started = Instant::now();
            let task = frame.task_ctx();
            let plan = frame.create_physical_plan().await?;
            physical.record(started.elapsed());
            let started = Instant::now();
            let rows: usize = collect(plan, std::sync::Arc::new(task))
                .await?
                .iter()
                .map(|batch| batch.num_rows())
                .sum();
            execution.record(started.elapsed());
            anyhow::ensure!(rows == 1, "{name} returned {rows} rows");
        }
        report.latency(
            format!("profile {name}: parse + logical plan + optimize"),
            planning,
            None,
        );
        report.latency(format!("profile {name}: physical plan"), physical, None);
        report.latency(format!("profile {name}: execute"), execution, None);
    }
    Ok(report)
}
