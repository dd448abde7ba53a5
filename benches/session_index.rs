//! Criterion benches of the in-memory `session_index` ([`BucketedTable`]: one `KeyedTable` per
//! store bucket, as the server loads it) at a million sessions, the size of a 10M-document store: list_sessions windows, a session's sub-agents and a
//! chain's members, each through its named query and the serving configuration. The rows are
//! synthetic, with string-view columns split across many buffers as Parquet decoding leaves
//! them (before `KeyedTable` compacted them, this alone cost a scan 0.3 s at this size).
//!
//! Run: `cargo bench --bench session_index` (`ESKER_BENCH_SESSIONS=N` to change the size)

use std::sync::Arc;

use chrono::DateTime;
use criterion::{Criterion, criterion_group, criterion_main};
use datafusion::arrow::array::{
    Array, ArrayRef, BooleanArray, Int64Array, RecordBatch, StringViewArray,
    TimestampNanosecondArray,
};
use datafusion::arrow::compute::concat;
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};
use datafusion::common::ScalarValue;
use datafusion::dataframe::DataFrame;
use datafusion::logical_expr::LogicalPlan;
use datafusion::prelude::SessionContext;
use esker::query::serving::serving_config;
use esker::service::bucketed_table::BucketedTable;
use esker::service::catalog::text_list_parameter;
use esker::service::directory::{SESSION_KEYS, SESSION_ORDER};
use esker::service::keyed_table::RowCollector;

// The allocator the shipped binary runs, so that these figures are the server's.
esker::shipped_allocator!();

/// Rows per generated batch, as a Parquet reader yields them.
const BATCH: usize = 8192;
/// String buffers per column of one batch (one per decoded page).
const PAGES_PER_BATCH: usize = 64;
/// First session start (2025-06-01) and the year the sessions start over.
const START_NANOS: i64 = 1_748_736_000_000_000_000;
const SPAN_NANOS: i64 = 365 * 24 * 3600 * 1_000_000_000;
const HOUR_NANOS: i64 = 3600 * 1_000_000_000;

fn schema() -> SchemaRef {
    let time = DataType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into()));
    let text = [
        "session_id",
        "title",
        "source",
        "mode",
        "session_slug",
        "chain_id",
        "chain_slug",
        "parent_session_id",
        "session_summary",
        "cwd",
    ];
    let numbers = [
        "turn_count",
        "event_count",
        "input_tokens",
        "cached_input_tokens",
        "output_tokens",
        "reasoning_tokens",
        "total_tokens",
        "chain_number",
        "chain_length",
    ];
    let mut fields = vec![
        Field::new("started_at", time.clone(), true),
        Field::new("updated_at", time, true),
        Field::new("completed", DataType::Boolean, true),
    ];
    fields.extend(text.map(|name| Field::new(name, DataType::Utf8View, true)));
    fields.extend(numbers.map(|name| Field::new(name, DataType::Int64, true)));
    Arc::new(Schema::new(fields))
}

/// The text of `column` at session `row` (every tenth session is a sub-agent of the one
/// before it; chains group ten sessions).
fn text(column: &str, row: usize) -> Option<String> {
    Some(match column {
        "session_id" => format!("session:{row:012}"),
        "source" => "codex".to_owned(),
        "mode" => if row.is_multiple_of(3) {
            "tool_calling"
        } else {
            "chat"
        }
        .to_owned(),
        "chain_id" => format!("chain:{:012}", row / 10),
        "parent_session_id" if row % 10 == 9 => format!("session:{:012}", row - 1),
        "parent_session_id" => return None,
        other => format!("{other} of session {row:012}, long enough to sit in a buffer"),
    })
}

/// Sessions `rows` (newest first) as one batch, each string column split into pages.
fn batch(schema: &SchemaRef, rows: std::ops::Range<usize>, total: usize) -> RecordBatch {
    let started: Vec<i64> = rows
        .clone()
        .map(|row| START_NANOS + SPAN_NANOS - row as i64 * (SPAN_NANOS / total as i64))
        .collect();
    let columns = schema
        .fields()
        .iter()
        .map(|field| -> ArrayRef {
            let times = |offset: i64| {
                let values = started.iter().map(|start| start + offset);
                Arc::new(TimestampNanosecondArray::from_iter_values(values).with_timezone("UTC"))
            };
            match (field.name().as_str(), field.data_type()) {
                ("started_at", _) => times(0),
                ("updated_at", _) => times(HOUR_NANOS),
                ("completed", _) => Arc::new(BooleanArray::from(vec![true; rows.len()])),
                (name, DataType::Utf8View) => paged_texts(name, rows.clone()),
                _ => Arc::new(Int64Array::from_iter_values(
                    rows.clone().map(|row| row as i64),
                )),
            }
        })
        .collect();
    RecordBatch::try_new(Arc::clone(schema), columns).expect("batch")
}

fn paged_texts(column: &str, rows: std::ops::Range<usize>) -> ArrayRef {
    let page_rows = rows.len().div_ceil(PAGES_PER_BATCH);
    let pages: Vec<ArrayRef> = rows
        .clone()
        .step_by(page_rows)
        .map(|first| {
            let page = first..(first + page_rows).min(rows.end);
            Arc::new(StringViewArray::from_iter(
                page.map(|row| text(column, row)),
            )) as ArrayRef
        })
        .collect();
    let pages: Vec<&dyn Array> = pages.iter().map(|page| page.as_ref()).collect();
    concat(&pages).expect("concat pages")
}

/// The table as the server builds it: batches gathered by a [`RowCollector`], split by bucket
/// and sorted into the declared order.
fn session_index(total: usize) -> Arc<BucketedTable> {
    let schema = schema();
    let mut rows = RowCollector::new(Arc::clone(&schema));
    for first in (0..total).step_by(BATCH) {
        rows.push(&batch(&schema, first..(first + BATCH).min(total), total))
            .expect("collect batch");
    }
    let table = BucketedTable::sorting(rows, SESSION_ORDER.to_vec(), &SESSION_KEYS)
        .expect("bucketed table");
    Arc::new(table)
}

fn stamp(text: &str) -> ScalarValue {
    let nanos = DateTime::parse_from_rfc3339(text)
        .expect("a datetime")
        .timestamp_nanos_opt();
    ScalarValue::TimestampNanosecond(nanos, Some("+00:00".into()))
}

fn texts(value: &str) -> ScalarValue {
    ScalarValue::Utf8(Some(value.to_owned()))
}

/// `$1..$10` of `queries/list_sessions_desc.sql` for a window, limit 50.
fn window(start: &str, end: &str) -> Vec<ScalarValue> {
    vec![
        stamp(start),
        stamp(end),
        texts(""),
        ScalarValue::Boolean(Some(false)),
        stamp(start),
        texts(""),
        ScalarValue::Int64(Some(50)),
        texts(""),
        ScalarValue::Boolean(Some(false)),
        texts(""),
    ]
}

fn run(
    runtime: &tokio::runtime::Runtime,
    context: &SessionContext,
    plan: &LogicalPlan,
    parameters: &[ScalarValue],
) -> usize {
    let bound = plan
        .clone()
        .with_param_values(parameters.to_vec())
        .expect("bind");
    let batches = runtime
        .block_on(DataFrame::new(context.state(), bound).collect())
        .expect("run");
    batches.iter().map(RecordBatch::num_rows).sum()
}

fn bench_session_index(criterion: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let total = std::env::var("ESKER_BENCH_SESSIONS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(1_000_000);
    let context = SessionContext::new_with_config(serving_config());
    context
        .register_table("session_index", session_index(total))
        .expect("register");
    let plan = |sql: &str| {
        runtime
            .block_on(context.state().create_logical_plan(sql))
            .expect("plan")
    };
    let list = plan(include_str!("../queries/list_sessions_desc.sql"));
    let children = plan(include_str!("../queries/open_session_children.sql"));
    let chain_id = plan(include_str!("../queries/open_chain_id.sql"));
    let members = plan(include_str!("../queries/open_chain_members.sql"));
    // A session with a sub-agent (the session after it) in the middle of the table.
    let session_row = total / 20 * 10 + 8;
    let session = format!("session:{session_row:012}");
    let cases = [
        (
            "list_sessions, broad window",
            &list,
            window("2025-01-01T00:00:00Z", "2027-01-01T00:00:00Z"),
        ),
        (
            "list_sessions, one day",
            &list,
            window("2025-09-01T00:00:00Z", "2025-09-02T00:00:00Z"),
        ),
        (
            "a session's sub-agents",
            &children,
            vec![text_list_parameter(&[&session])],
        ),
        ("a session's chain id", &chain_id, vec![texts(&session)]),
        (
            "a chain's members",
            &members,
            vec![
                texts(&session),
                texts(&format!("chain:{:012}", session_row / 10)),
            ],
        ),
    ];
    for (name, plan, parameters) in cases {
        assert!(
            run(&runtime, &context, plan, &parameters) > 0,
            "{name} finds rows"
        );
        criterion.bench_function(&format!("{name} ({total} sessions)"), |bench| {
            bench.iter(|| run(&runtime, &context, plan, &parameters))
        });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30);
    targets = bench_session_index
}
criterion_main!(benches);
