//! `scale profile --work DIR`: splits the cost of the located open(event) SQL on a store the
//! scale run left behind into SQL parse + logical planning, physical planning and execution,
//! in an analytic context (`esker query`'s) and in the server's serving context (filter
//! pushdown, page index, shared caches), each warm and reused as the server holds it; then
//! search_sessions' hit statement (`queries/search_hit_events.sql`) for the hits of real
//! queries, in the serving context and in variants of it (IN-list pruning off, page index
//! off, two partitions), and for 10 and 50 hits spread over many partitions; then the three
//! statements of open with a range over a 10-session chain (`open_session.sql`,
//! `open_session_turns.sql`, `open_session_children.sql`), timed and explained; then
//! open(turn)'s two Parquet statements (`open_turn_alone.sql`, `open_turn_events.sql`) for the
//! widest turns of at most 100 events, and agtrace's `agtrace_preview_events.sql` for the hits of
//! the same real queries, timed and explained.

use std::path::Path;
use std::time::Instant;

use datafusion::physical_plan::collect;
use datafusion::prelude::SessionContext;
use datafusion::scalar::ScalarValue;
use esker::indexer::run::DEFAULT_MEMORY_LIMIT;
use esker::query::serving::serving_runtime_within;
use esker::query::{context_at, read_only_options, run_read_only, serving_context_for};
use esker::store::Store;

use crate::stats::{Report, Samples};

const LOCATED: &str = include_str!("../../queries/open_event_located.sql");

pub async fn profile(data_dir: &Path, rounds: usize) -> anyhow::Result<Report> {
    let snapshot = Store::open(data_dir)?.current()?;
    let analytic = context_at(&snapshot.root).await?;
    let serving =
        serving_context_for(&snapshot, &serving_runtime_within(DEFAULT_MEMORY_LIMIT)?).await?;
    let (_, batches) = run_read_only(
        &analytic,
        "SELECT source, month, session_id, CAST(seq AS VARCHAR), event_id FROM events \
         WHERE type = 'tool_response' ORDER BY event_id LIMIT 50",
    )
    .await?;
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
            targets.push([0, 1, 2, 3, 4].map(|index| text(index, row)));
        }
    }
    anyhow::ensure!(!targets.is_empty(), "no events in {}", data_dir.display());
    let mut report = Report::default();
    for (name, context) in [("analytic", &analytic), ("serving", &serving)] {
        profile_context(name, context, &targets, rounds, &mut report).await?;
    }
    // The located open(event) for the first target (what PERFORMANCE.md shows).
    let explained = explain_analyze(&serving, LOCATED, parameters_of(&targets[0])?).await?;
    eprintln!("{explained}");
    let index = esker::search::SearchIndex::open(&snapshot)?;
    let mut configured = Vec::new();
    for (label, settings) in [
        (
            " no predicate cache",
            vec![("datafusion.execution.parquet.max_predicate_cache_size", "0")],
        ),
        (
            " no pushdown",
            vec![("datafusion.execution.parquet.pushdown_filters", "false")],
        ),
        (
            " no predicate cache, tp2",
            vec![
                ("datafusion.execution.parquet.max_predicate_cache_size", "0"),
                ("datafusion.execution.target_partitions", "2"),
            ],
        ),
        (
            " no predicate cache, no page index",
            vec![
                ("datafusion.execution.parquet.max_predicate_cache_size", "0"),
                ("datafusion.execution.parquet.enable_page_index", "false"),
            ],
        ),
    ] {
        let mut config = esker::query::serving::serving_config();
        for (key, value) in settings {
            config = config.set_str(key, value);
        }
        let context = esker::query::serving_context_with(
            &snapshot,
            &serving_runtime_within(DEFAULT_MEMORY_LIMIT)?,
            config,
        )
        .await?;
        configured.push((label, context));
    }
    for text in [
        "deploy service account 403",
        "error",
        "timeout retry connection refused",
    ] {
        let results = index.search(&esker::search::SearchQuery {
            text,
            session_id: None,
            turn_id: None,
            event_types: &esker::model::EventType::SEARCH_DEFAULT,
            source: None,
            sessions: None,
            limit: 10,
            cancel: None,
        })?;
        let hit_targets: Vec<[String; 5]> = results
            .hits
            .iter()
            .map(|hit| {
                [
                    hit.location.source.clone(),
                    hit.location.month.clone(),
                    hit.session_id.clone(),
                    hit.location.seq.to_string(),
                    hit.event_id.clone(),
                ]
            })
            .collect();
        // The hit statement in the serving context (explained) and in each variant of it,
        // then agtrace's previews statement over the same hits (explained).
        let label = format!(", query {text:?}");
        let mut runs = vec![(&serving, HIT_EVENTS, label.clone(), true)];
        for (config_label, context) in &configured {
            runs.push((
                context,
                HIT_EVENTS,
                format!("{label},{config_label}"),
                false,
            ));
        }
        runs.push((&serving, PREVIEW_EVENTS, label, true));
        for (context, statement, label, explain) in runs {
            let explained = profile_hits(
                context,
                statement,
                &hit_targets,
                10,
                rounds,
                &label,
                &mut report,
            )
            .await?;
            if explain {
                eprintln!("{explained}");
            }
        }
    }
    for count in [10, 50] {
        let label = ", spread over partitions";
        let explained = profile_hits(
            &serving,
            HIT_EVENTS,
            &targets,
            count,
            rounds,
            label,
            &mut report,
        )
        .await?;
        eprintln!("{explained}");
    }
    profile_chain_range(&analytic, &serving, rounds, &mut report).await?;
    profile_open_turn(&analytic, &serving, rounds, &mut report).await?;
    Ok(report)
}

/// open(turn)'s statements over Parquet (`open_turn_alone.sql`, `open_turn_events.sql`) for the
/// widest turns of at most 100 events (the scale run's "open(turn), ≤ 100 events" handles), each
/// timed over `rounds` runs cycling through the turns, then the first turn's `EXPLAIN ANALYZE`.
async fn profile_open_turn(
    analytic: &SessionContext,
    serving: &SessionContext,
    rounds: usize,
    report: &mut Report,
) -> anyhow::Result<()> {
    let turns = crate::handles::strings(
        analytic,
        "SELECT source, month, session_id, CAST(min(turn_ordinal) AS VARCHAR), turn_id \
         FROM events WHERE turn_id IN (SELECT turn_id FROM turns WHERE event_count <= 100 \
         ORDER BY event_count DESC, turn_id LIMIT 20) \
         GROUP BY source, month, session_id, turn_id ORDER BY turn_id",
    )
    .await?;
    anyhow::ensure!(!turns.is_empty(), "no turn of at most 100 events");
    let text = |value: &String| ScalarValue::Utf8(Some(value.clone()));
    let alone_of = |turn: &Vec<String>| vec![text(&turn[2]), text(&turn[4])];
    let events_of = |turn: &Vec<String>| -> anyhow::Result<Vec<ScalarValue>> {
        Ok(vec![
            text(&turn[0]),
            text(&turn[1]),
            text(&turn[2]),
            ScalarValue::Int32(Some(turn[3].parse()?)),
        ])
    };
    let alone: Vec<_> = turns.iter().map(alone_of).collect();
    let events = turns
        .iter()
        .map(events_of)
        .collect::<anyhow::Result<Vec<_>>>()?;
    for (name, sql, bindings) in [
        ("open_turn_alone.sql", OPEN_TURN_ALONE, alone),
        ("open_turn_events.sql", OPEN_TURN_EVENTS, events),
    ] {
        let label = format!("profile {name}, {} turns of ≤ 100 events", bindings.len());
        let explained = timed_and_explained(serving, sql, &bindings, rounds, label, report).await?;
        eprintln!("{name}, turn {}:\n{explained}", turns[0][4]);
    }
    Ok(())
}

const OPEN_TURN_ALONE: &str = include_str!("../../queries/open_turn_alone.sql");
const OPEN_TURN_EVENTS: &str = include_str!("../../queries/open_turn_events.sql");
const PREVIEW_EVENTS: (&str, &str) = (
    "agtrace_preview_events.sql",
    include_str!("../../queries/agtrace_preview_events.sql"),
);

/// The statements open({id, sessions: "1-10"}) runs for the members of a 10-session chain
/// once it knows them (`open_chain_id.sql` and `open_chain_members.sql` read the in-memory
/// `session_index` first), each timed over `rounds` runs in the serving context (with
/// `session_index` as its Parquet view, as before the directory loads) and explained.
async fn profile_chain_range(
    analytic: &SessionContext,
    serving: &SessionContext,
    rounds: usize,
    report: &mut Report,
) -> anyhow::Result<()> {
    let members: Vec<ScalarValue> = crate::handles::strings(
        analytic,
        "SELECT session_id FROM sessions WHERE chain_id = (SELECT chain_id FROM sessions \
         WHERE chain_id IS NOT NULL GROUP BY chain_id HAVING count(*) = 10 ORDER BY chain_id \
         LIMIT 1) ORDER BY chain_number",
    )
    .await?
    .into_iter()
    .filter_map(|row| row.into_iter().next())
    .map(|session_id| ScalarValue::Utf8(Some(session_id)))
    .collect();
    if members.len() != 10 {
        eprintln!("no 10-session chain in the store: chain range not profiled");
        return Ok(());
    }
    esker::service::directory::register_index_tables(serving).await?;
    let list = ScalarValue::List(ScalarValue::new_list_nullable(
        &members,
        &datafusion::arrow::datatypes::DataType::Utf8,
    ));
    for (name, sql) in [
        ("open_session.sql", OPEN_SESSION),
        ("open_session_turns.sql", OPEN_SESSION_TURNS),
        ("open_session_children.sql", OPEN_SESSION_CHILDREN),
    ] {
        let label = format!("profile {name}, 10-session chain range");
        let bindings = [vec![list.clone()]];
        let explained = timed_and_explained(serving, sql, &bindings, rounds, label, report).await?;
        eprintln!("{name}, 10-session chain range:\n{explained}");
    }
    Ok(())
}

/// Runs `sql` `rounds` times in `context`, cycling through `bindings`, records the times as
/// `label`, then returns the `EXPLAIN ANALYZE` of the first binding.
async fn timed_and_explained(
    context: &SessionContext,
    sql: &str,
    bindings: &[Vec<ScalarValue>],
    rounds: usize,
    label: String,
    report: &mut Report,
) -> anyhow::Result<String> {
    let mut samples = Samples::default();
    for round in 0..rounds {
        let started = Instant::now();
        context_rows(context, sql, bindings[round % bindings.len()].clone()).await?;
        samples.record(started.elapsed());
    }
    report.latency(label, samples, None);
    explain_analyze(context, sql, bindings[0].clone()).await
}

const OPEN_SESSION: &str = include_str!("../../queries/open_session.sql");
const OPEN_SESSION_TURNS: &str = include_str!("../../queries/open_session_turns.sql");
const OPEN_SESSION_CHILDREN: &str = include_str!("../../queries/open_session_children.sql");

/// Plans, binds and runs `sql`; returns its row count.
async fn context_rows(
    context: &SessionContext,
    sql: &str,
    parameters: Vec<ScalarValue>,
) -> anyhow::Result<usize> {
    let batches = context
        .sql_with_options(sql, read_only_options())
        .await?
        .with_param_values(parameters)?
        .collect()
        .await?;
    Ok(batches.iter().map(|batch| batch.num_rows()).sum())
}

/// `EXPLAIN ANALYZE` of `sql` bound to `parameters`, as a printed table.
async fn explain_analyze(
    context: &SessionContext,
    sql: &str,
    parameters: Vec<ScalarValue>,
) -> anyhow::Result<String> {
    let frame = context
        .sql_with_options(&format!("EXPLAIN ANALYZE {sql}"), read_only_options())
        .await?
        .with_param_values(parameters)?;
    let batches = frame.collect().await?;
    Ok(datafusion::arrow::util::pretty::pretty_format_batches(&batches)?.to_string())
}

/// `$1..$5` of `open_event_located.sql`.
fn parameters_of(target: &[String; 5]) -> anyhow::Result<Vec<ScalarValue>> {
    let [source, month, session_id, seq, event_id] = target;
    Ok(vec![
        ScalarValue::Utf8(Some(source.clone())),
        ScalarValue::Utf8(Some(month.clone())),
        ScalarValue::Utf8(Some(session_id.clone())),
        ScalarValue::Int64(Some(seq.parse()?)),
        ScalarValue::Utf8(Some(event_id.clone())),
    ])
}

/// Runs the located open(event) `rounds` times in `context`, timing each phase.
async fn profile_context(
    name: &str,
    context: &SessionContext,
    targets: &[[String; 5]],
    rounds: usize,
    report: &mut Report,
) -> anyhow::Result<()> {
    let (mut planning, mut physical, mut execution) =
        (Samples::default(), Samples::default(), Samples::default());
    for round in 0..rounds {
        let parameters = parameters_of(&targets[round % targets.len()])?;
        let started = Instant::now();
        let frame = context
            .sql_with_options(LOCATED, read_only_options())
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
        anyhow::ensure!(rows == 1, "open_event_located.sql returned {rows} rows");
    }
    let label = |phase: &str| format!("profile open_event_located.sql, {name} context: {phase}");
    report.latency(label("parse + logical plan + optimize"), planning, None);
    report.latency(label("physical plan"), physical, None);
    report.latency(label("execute"), execution, None);
    Ok(())
}

const HIT_EVENTS: (&str, &str) = (
    "search_hit_events.sql",
    include_str!("../../queries/search_hit_events.sql"),
);

/// A statement over hit events bound like search_sessions' (`$1` event ids, `$2` their session
/// ids, `$3` their partitions: `queries/search_hit_events.sql`, agtrace's previews) for the
/// first `count` targets, timed per phase in `context`, then its `EXPLAIN ANALYZE`.
async fn profile_hits(
    context: &SessionContext,
    (name, sql): (&str, &str),
    targets: &[[String; 5]],
    count: usize,
    rounds: usize,
    context_label: &str,
    report: &mut Report,
) -> anyhow::Result<String> {
    let chosen = &targets[..count.min(targets.len())];
    let list = |index: usize| {
        let values: Vec<ScalarValue> = chosen
            .iter()
            .map(|target| ScalarValue::Utf8(Some(target[index].clone())))
            .collect();
        ScalarValue::List(ScalarValue::new_list_nullable(
            &values,
            &datafusion::arrow::datatypes::DataType::Utf8,
        ))
    };
    let keys: Vec<ScalarValue> = chosen
        .iter()
        .map(|target| ScalarValue::Utf8(Some(format!("{}/{}", target[0], target[1]))))
        .collect();
    let key_list = ScalarValue::List(ScalarValue::new_list_nullable(
        &keys,
        &datafusion::arrow::datatypes::DataType::Utf8,
    ));
    let parameters = vec![list(4), list(2), key_list];
    let (mut planning, mut physical, mut execution) =
        (Samples::default(), Samples::default(), Samples::default());
    for _ in 0..rounds {
        let started = Instant::now();
        let frame = context
            .sql_with_options(sql, read_only_options())
            .await?
            .with_param_values(parameters.clone())?;
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
        anyhow::ensure!(rows == chosen.len(), "{name} returned {rows} rows");
    }
    let label = |phase: &str| format!("profile {name}{context_label}, {count} hits: {phase}");
    report.latency(label("parse + logical plan + optimize"), planning, None);
    report.latency(label("physical plan"), physical, None);
    report.latency(label("execute"), execution, None);
    explain_analyze(context, sql, parameters).await
}
