//! The fast answer path (the in-memory `session_index` and `turn_index` tables, whose key
//! filters are lookups) against the SQL-only reference (those tables as views over the
//! Parquet tables, running the same SQL): every id of the fixture store (and a
//! sample of the real corpus) opens to the same envelope, searches, scoped or not, return
//! the same hits, list_sessions pages (every mode and sort, window edges, slugs, following
//! cursors) are the same, and keyed lookups over the index tables return the same rows.

use std::collections::VecDeque;
use std::path::Path;

use datafusion::arrow::array::ArrayRef;
use datafusion::arrow::compute::concat_batches;
use datafusion::arrow::record_batch::RecordBatch;
use esker::mcp::server::EskerServer;
use esker::service::catalog::{AnswerPath, Catalog, NamedQuery, WarmSnapshot, text_parameter};
use serde_json::{Value, json};

use crate::support::{corpus_store, fixture_store, query_rows};

/// Searches run against every store: common words, rare words, phrases, tool names.
const QUERIES: [&str; 9] = [
    "parquet",
    "error",
    "the",
    "test",
    "migration failed",
    "cargo build",
    "Bash",
    "exec_command",
    "file",
];

fn strings(data_dir: &Path, sql: &str) -> Vec<String> {
    query_rows(data_dir, sql)
        .into_iter()
        .filter_map(|row| {
            row.values()
                .next()
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .collect()
}

/// The envelope without its timing block, and the text, as one comparable value.
async fn answer(server: &EskerServer, tool: &str, arguments: Value) -> Value {
    let arguments = arguments.as_object().expect("object arguments").clone();
    let reply = server.call(tool, &arguments).await.expect("known tool");
    let mut envelope = reply.envelope;
    strip_performance(&mut envelope);
    json!({"envelope": envelope, "is_error": reply.is_error, "text": reply.text})
}

/// Removes timing and the moment of observation (`data.coverage.observed_at_unix_ms`): both
/// differ between any two calls.
fn strip_performance(value: &mut Value) {
    if let Value::Object(map) = value {
        map.remove("performance");
        map.remove("observed_at_unix_ms");
        map.values_mut().for_each(strip_performance);
    }
}

/// Asserts both paths answer `calls` identically, following every list_sessions cursor;
/// returns how many answers were successes.
async fn assert_same_answers(data_dir: &Path, calls: Vec<(&'static str, Value)>) -> usize {
    let fast_catalog = Catalog::open_with(data_dir, AnswerPath::Fastest).unwrap();
    let snapshot = fast_catalog.snapshot().await.expect("store opens");
    snapshot.ready_directory().await.expect("directory loads");
    assert!(
        snapshot.directory().is_some(),
        "the index tables are in memory"
    );
    let fast = EskerServer::new(fast_catalog);
    let sql = EskerServer::new(Catalog::open_with(data_dir, AnswerPath::SqlOnly).unwrap());
    let mut successes = 0;
    let mut calls: VecDeque<(&str, Value)> = calls.into();
    while let Some((tool, arguments)) = calls.pop_front() {
        let expected = answer(&sql, tool, arguments.clone()).await;
        let actual = answer(&fast, tool, arguments.clone()).await;
        if actual != expected {
            let shown = |value: &Value| value.to_string().chars().take(3000).collect::<String>();
            panic!(
                "{tool} {arguments} differs between paths\nfast: {}\nsql:  {}",
                shown(&actual),
                shown(&expected)
            );
        }
        successes += usize::from(expected["is_error"] == false);
        if let Some(cursor) = expected["envelope"]["data"]["next_cursor"].as_str() {
            let mut next_page = arguments.clone();
            next_page["cursor"] = json!(cursor);
            calls.push_back((tool, next_page));
        }
    }
    successes
}

/// list_sessions over broad and edge windows, every mode, both sorts, small pages.
fn list_calls() -> Vec<(&'static str, Value)> {
    let windows = [
        ("2000-01-01T00:00:00Z", "2100-01-01T00:00:00Z"),
        ("2025-11-18T14:00:00Z", "2025-11-18T14:03:00Z"),
        ("2026-03-14T10:00:00Z", "2026-03-14T11:30:00.100Z"),
        ("2026-03-14T11:30:00.100Z", "2026-03-14T11:30:00.101Z"),
    ];
    let modes = [
        None,
        Some("web_search"),
        Some("mcp_internal"),
        Some("tool_calling"),
        Some("chat"),
    ];
    let mut calls = Vec::new();
    for (start, end) in windows {
        for mode in modes {
            for sort in ["desc", "asc"] {
                for limit in [2, 50] {
                    let mut arguments = json!({
                        "start_datetime": start, "end_datetime": end, "sort": sort, "limit": limit,
                    });
                    if let Some(mode) = mode {
                        arguments["mode"] = json!(mode);
                    }
                    calls.push(("list_sessions", arguments));
                }
            }
        }
    }
    for source in ["codex", "claude", "gemini"] {
        for sort in ["desc", "asc"] {
            calls.push((
                "list_sessions",
                json!({
                    "start_datetime": windows[0].0, "end_datetime": windows[0].1,
                    "sort": sort, "limit": 2, "source": source,
                }),
            ));
        }
    }
    calls
}

/// list_sessions({slug}) of every slug of the store (and one it lacks) over broad and narrow
/// windows, with and without a mode, in pages of one and of fifty.
fn slug_list_calls(data_dir: &Path) -> Vec<(&'static str, Value)> {
    let mut slugs = strings(
        data_dir,
        "SELECT DISTINCT slug FROM (SELECT session_slug AS slug FROM sessions \
         UNION ALL SELECT chain_slug AS slug FROM sessions) WHERE slug IS NOT NULL ORDER BY slug",
    );
    slugs.push("no-such-slug".to_owned());
    let windows = [
        ("2000-01-01T00:00:00Z", "2100-01-01T00:00:00Z"),
        ("2025-11-18T14:03:00Z", "2026-05-03T10:00:00Z"),
    ];
    let mut calls = Vec::new();
    for slug in &slugs {
        for (start, end) in windows {
            for mode in [None, Some("tool_calling")] {
                for limit in [1, 50] {
                    let mut arguments = json!({
                        "start_datetime": start, "end_datetime": end, "slug": slug, "limit": limit,
                    });
                    if let Some(mode) = mode {
                        arguments["mode"] = json!(mode);
                    }
                    calls.push(("list_sessions", arguments));
                }
            }
        }
    }
    calls
}

/// Every open and search the comparison makes on a store; `every` samples the events.
fn calls_for(data_dir: &Path, every: usize) -> Vec<(&'static str, Value)> {
    let mut calls = Vec::new();
    let events = strings(data_dir, "SELECT event_id FROM events ORDER BY event_id");
    let turns = strings(data_dir, "SELECT turn_id FROM turns ORDER BY turn_id");
    let sessions = strings(
        data_dir,
        "SELECT session_id FROM sessions ORDER BY session_id",
    );
    for id in events.iter().step_by(every).chain(&turns).chain(&sessions) {
        calls.push(("open", json!({ "id": id })));
    }
    for query in QUERIES {
        calls.push(("search_sessions", json!({"query": query, "n_hits": 50})));
        let all_types = json!([
            "user_input",
            "assistant_response",
            "reasoning",
            "tool_call",
            "tool_response",
            "compaction",
            "system",
            "runtime"
        ]);
        calls.push((
            "search_sessions",
            json!({"query": query, "event_types": all_types, "n_hits": 50}),
        ));
        for within in sessions.iter().chain(turns.iter().step_by(every.max(5))) {
            calls.push((
                "search_sessions",
                json!({"query": query, "within_id": within, "n_hits": 20}),
            ));
        }
    }
    calls.extend(list_calls());
    calls.extend(slug_list_calls(data_dir));
    for missing in ["event:nope", "turn:nope", "session:nope"] {
        calls.push(("open", json!({ "id": missing })));
        calls.push((
            "search_sessions",
            json!({"query": "x", "within_id": missing}),
        ));
    }
    calls
}

#[tokio::test]
async fn the_fast_path_answers_exactly_like_sql_on_the_fixtures() {
    let data_dir = fixture_store();
    let calls = calls_for(data_dir, 1);
    let call_count = calls.len();
    let successes = assert_same_answers(data_dir, calls).await;
    assert!(
        successes > call_count / 2,
        "most calls succeed ({successes} of {call_count})"
    );
}

#[tokio::test]
async fn the_fast_path_answers_exactly_like_sql_on_the_real_corpus() {
    let Some((data_dir, _)) = corpus_store() else {
        return;
    };
    let calls = calls_for(data_dir, 23);
    let call_count = calls.len();
    let successes = assert_same_answers(data_dir, calls).await;
    assert!(successes > call_count / 2, "{successes} of {call_count}");
}

#[tokio::test]
async fn the_fast_path_lists_slug_chains_exactly_like_sql() {
    let data_dir = super::relay::chain_store();
    let calls = slug_list_calls(data_dir);
    let call_count = calls.len();
    let successes = assert_same_answers(data_dir, calls).await;
    assert!(
        successes >= call_count,
        "every slug listing succeeds ({successes} of {call_count}, cursors included)"
    );
    let chain_pages = query_rows(
        data_dir,
        &format!(
            "SELECT count(*) AS members FROM sessions WHERE chain_slug = '{}'",
            super::relay::CHAIN_SLUG
        ),
    );
    assert_eq!(
        chain_pages[0]["members"], 5,
        "the store holds the five-session chain"
    );
}

/// Keyed lookups and an ordered scan over the index tables, as tool queries make them.
const INDEX_LOOKUPS: [NamedQuery; 4] = [
    NamedQuery {
        name: "session_by_id",
        sql: "SELECT * FROM session_index WHERE session_id = $1",
    },
    NamedQuery {
        name: "turns_of_session",
        sql: "SELECT * FROM turn_index WHERE session_id = $1 ORDER BY ordinal",
    },
    NamedQuery {
        name: "turn_by_id_or_session",
        sql: "SELECT turn_id, ordinal FROM turn_index \
              WHERE turn_id = $1 OR session_id = $1 ORDER BY turn_id",
    },
    NamedQuery {
        name: "newest_sessions",
        sql: "SELECT session_id, updated_at FROM session_index \
              WHERE session_id <> $1 ORDER BY updated_at DESC, session_id DESC LIMIT 3",
    },
];

/// The query's rows as the columns of one batch (none when there are no rows: an empty result
/// may come as no batch at all).
async fn rows_of(snapshot: &WarmSnapshot, query: NamedQuery, key: &str) -> Vec<ArrayRef> {
    let batches: Vec<RecordBatch> = snapshot
        .run_batches(query, vec![text_parameter(key)])
        .await
        .unwrap_or_else(|error| panic!("{}: {error}", query.name))
        .into_iter()
        .filter(|batch| batch.num_rows() > 0)
        .collect();
    let Some(first) = batches.first() else {
        return Vec::new();
    };
    concat_batches(&first.schema(), &batches)
        .expect("one batch")
        .columns()
        .to_vec()
}

/// The physical plan of a key lookup, as text.
async fn lookup_plan(snapshot: &WarmSnapshot) -> String {
    let explain = NamedQuery {
        name: "explain_lookup",
        sql: "EXPLAIN SELECT title FROM session_index WHERE session_id = 'session:none'",
    };
    let batches = snapshot
        .run_batches(explain, Vec::new())
        .await
        .expect("explain");
    datafusion::arrow::util::pretty::pretty_format_batches(&batches)
        .expect("format")
        .to_string()
}

#[tokio::test]
async fn in_memory_index_tables_answer_keyed_sql_like_the_parquet_views() {
    let data_dir = fixture_store();
    let memory_catalog = Catalog::open_with(data_dir, AnswerPath::Fastest).unwrap();
    let memory = memory_catalog.snapshot().await.expect("store opens");
    memory.ready_directory().await.expect("index tables load");
    let parquet_catalog = Catalog::open_with(data_dir, AnswerPath::SqlOnly).unwrap();
    let parquet = parquet_catalog.snapshot().await.expect("store opens");

    let memory_plan = lookup_plan(&memory).await;
    assert!(
        memory_plan.contains("partition_sizes") && !memory_plan.contains("parquet"),
        "loaded session_index is scanned from memory:\n{memory_plan}"
    );
    let parquet_plan = lookup_plan(&parquet).await;
    assert!(
        parquet_plan.contains("parquet"),
        "the reference reads Parquet:\n{parquet_plan}"
    );

    let sessions = strings(
        data_dir,
        "SELECT session_id FROM sessions ORDER BY session_id",
    );
    let turns = strings(data_dir, "SELECT turn_id FROM turns ORDER BY turn_id");
    assert!(
        !sessions.is_empty() && !turns.is_empty(),
        "the fixtures hold sessions and turns"
    );
    let keys =
        sessions
            .iter()
            .chain(&turns)
            .map(String::as_str)
            .chain(["session:none", "turn:none", ""]);
    let mut found = 0;
    for key in keys {
        for query in INDEX_LOOKUPS {
            let expected = rows_of(&parquet, query, key).await;
            let actual = rows_of(&memory, query, key).await;
            assert_eq!(
                actual, expected,
                "{} {key}: in-memory table and Parquet view differ",
                query.name
            );
            found += expected.first().map_or(0, |column| column.len());
        }
    }
    assert!(
        found >= sessions.len() + turns.len(),
        "every session and turn is found ({found} rows)"
    );
}
