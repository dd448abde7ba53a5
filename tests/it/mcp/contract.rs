//! Every profile's answers against its contract's key sets (issue #48: an added field broke
//! Moraine's smoke test). Each test drives one profile through the real stdio client over the
//! fixtures, checks every JSON object of every answer against [`keys`] (no key missing where
//! the seed lists it, none beyond the seed's and esker's documented additions, no object the
//! contract does not declare), and that every declared object was met at least once.

mod keys;
mod walk;

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use self::keys::*;
use self::walk::{Seen, Shape, check};
use super::client::{EskerClient, fixture_rows};
use super::memory::MemoryClient;
use crate::support::fixture_store;

/// The structured content of a call and whether it was an error.
async fn structured(client: &EskerClient, tool: &str, arguments: Value) -> (Value, bool) {
    let result = client.call(tool, arguments).await;
    let value = result
        .structured_content
        .expect("every result carries structuredContent");
    (value, result.is_error == Some(true))
}

/// The JSON a client of the profile reads (its text content), and whether it was an error.
async fn text_json(client: &EskerClient, tool: &str, arguments: Value) -> (Value, Value, bool) {
    let result = client.call(tool, arguments.clone()).await;
    let text = result
        .content
        .first()
        .and_then(|block| block.as_text())
        .map(|text| text.text.clone())
        .unwrap_or_default();
    let structured = result
        .structured_content
        .expect("every result carries structuredContent");
    let parsed = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (parsed, structured, result.is_error == Some(true))
}

/// A moraine-profile call checked against `shape` (or the error contract when it failed).
async fn moraine(
    client: &EskerClient,
    seen: &mut Seen,
    shape: &Shape,
    tool: &str,
    arguments: Value,
) -> Value {
    // A call cut at its deadline (a debug build on a loaded CI machine) is a contract answer
    // too: its envelope is checked, and the call asked again.
    for _ in 0..3 {
        let (envelope, is_error) = structured(client, tool, arguments.clone()).await;
        if is_error && envelope["error"]["code"] == "deadline_exceeded" {
            check(&MORAINE_ERROR, &envelope, seen);
            continue;
        }
        assert!(!is_error, "{tool} {arguments} failed: {envelope:#}");
        check(shape, &envelope, seen);
        return envelope;
    }
    panic!("{tool} {arguments} missed its deadline three times over");
}

fn ids(array: &Value, pointer: &str) -> Vec<String> {
    array
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|item| item.pointer(pointer).and_then(Value::as_str))
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

const EVERY_DAY: [&str; 2] = ["2000-01-01T00:00:00Z", "2100-01-01T00:00:00Z"];

#[tokio::test]
async fn moraine_answers_hold_exactly_the_contract_keys() {
    let client = EskerClient::fixtures().await;
    let mut seen = Seen::default();
    for query in ["parquet", "test", "error", "the config"] {
        moraine(
            &client,
            &mut seen,
            &MORAINE_SEARCH,
            "search_sessions",
            json!({"query": query, "n_hits": 50}),
        )
        .await;
    }
    moraine(
        &client,
        &mut seen,
        &MORAINE_SEARCH,
        "search_sessions",
        json!({"query": "parquet", "harness": "codex", "source": "codex"}),
    )
    .await;

    let window = json!({"start_datetime": EVERY_DAY[0], "end_datetime": EVERY_DAY[1], "limit": 50});
    let mut sessions = Vec::new();
    let mut arguments = window.clone();
    loop {
        let page = moraine(
            &client,
            &mut seen,
            &MORAINE_LIST,
            "list_sessions",
            arguments,
        )
        .await;
        sessions.extend(ids(&page["data"]["sessions"], "/id"));
        match page["data"]["next_cursor"].as_str() {
            Some(cursor) => {
                arguments = window.clone();
                arguments["cursor"] = json!(cursor);
            }
            None => break,
        }
    }
    let slug = fixture_rows(
        "SELECT session_slug FROM sessions WHERE session_slug IS NOT NULL ORDER BY session_id LIMIT 1",
    )[0]["session_slug"]
        .clone();
    let mut by_slug = window.clone();
    by_slug["slug"] = slug;
    by_slug["sort"] = json!("asc");
    by_slug["harness"] = json!("claude-code");
    moraine(&client, &mut seen, &MORAINE_LIST, "list_sessions", by_slug).await;

    let mut turns = Vec::new();
    for session in &sessions {
        let opened = moraine(
            &client,
            &mut seen,
            &MORAINE_OPEN_SESSION,
            "open",
            json!({"id": session}),
        )
        .await;
        turns.extend(ids(&opened["data"]["turns"], "/id"));
        if !opened["data"]["session"]["chain"].is_null() {
            moraine(
                &client,
                &mut seen,
                &MORAINE_OPEN_RANGE,
                "open",
                json!({"id": session, "sessions": "1"}),
            )
            .await;
        }
    }
    moraine(
        &client,
        &mut seen,
        &MORAINE_OPEN_SESSION,
        "open",
        json!({"id": sessions[0], "limit": 1}),
    )
    .await;
    moraine(
        &client,
        &mut seen,
        &MORAINE_OPEN_TURN,
        "open",
        json!({"id": turns[0], "limit": 1}),
    )
    .await;
    let mut events = Vec::new();
    for turn in &turns {
        let opened = moraine(
            &client,
            &mut seen,
            &MORAINE_OPEN_TURN,
            "open",
            json!({"id": turn}),
        )
        .await;
        events.extend(ids(&opened["data"]["events"], "/id"));
    }
    for event in events.iter().take(400) {
        moraine(
            &client,
            &mut seen,
            &MORAINE_OPEN_EVENT,
            "open",
            json!({"id": event}),
        )
        .await;
    }

    let touched = fixture_rows(
        "SELECT resolved_path FROM file_touches WHERE root <> '' ORDER BY resolved_path LIMIT 1",
    )[0]["resolved_path"]
        .clone();
    for granularity in ["sessions", "events"] {
        moraine(
            &client,
            &mut seen,
            &MORAINE_FILE_ATTENTION,
            "file_attention",
            json!({"path": touched, "scope": "all", "granularity": granularity}),
        )
        .await;
    }
    moraine(
        &client,
        &mut seen,
        &MORAINE_INGEST_STATUS,
        "get_ingest_status",
        json!({}),
    )
    .await;
    check_ingest_status_of_an_indexing_server(&mut seen).await;

    for (tool, arguments) in [
        ("open", json!({"id": "not-an-id"})),
        ("open", json!({"id": "session:c2Vzcy1ub3RoZXJl"})),
        ("search_sessions", json!({"query": "  "})),
        (
            "search_sessions",
            json!({"query": "x", "event_types": ["debug_trace"]}),
        ),
        ("list_sessions", json!({"start_datetime": EVERY_DAY[0]})),
        ("file_attention", json!({"path": " x"})),
        ("get_ingest_status", json!({"unexpected": 1})),
    ] {
        let (envelope, is_error) = structured(&client, tool, arguments.clone()).await;
        assert!(is_error, "{tool} {arguments} should fail");
        check(&MORAINE_ERROR, &envelope, &mut seen);
    }

    seen.assert_every_path_met(
        &[
            &MORAINE_SEARCH,
            &MORAINE_LIST,
            &MORAINE_OPEN_SESSION,
            &MORAINE_OPEN_RANGE,
            &MORAINE_OPEN_TURN,
            &MORAINE_OPEN_EVENT,
            &MORAINE_FILE_ATTENTION,
            &MORAINE_INGEST_STATUS,
            &MORAINE_ERROR,
        ],
        // A pass in progress, an ETA, an alert and a rate need a pass caught running or
        // failing: `ingest_status`'s unit test checks those key sets.
        &[
            "data.current",
            "data.current.progress",
            "data.eta",
            "data.alerts[]",
            "data.rate",
        ],
    );
}

/// `get_ingest_status` of a server that indexes (history, current), against the contract.
async fn check_ingest_status_of_an_indexing_server(seen: &mut Seen) {
    let home = tempfile::tempdir().expect("temp home");
    let project = home.path().join(".claude/projects/-home-dev-app");
    std::fs::create_dir_all(&project).expect("mkdir");
    let record = json!({
        "type": "user", "uuid": "u1", "parentUuid": null,
        "sessionId": "0c0c0c0c-0a9e-4b8c-8d7e-5f4a3b2c1d0e",
        "timestamp": "2026-03-03T08:00:00.000Z", "cwd": "/home/dev/app", "isSidechain": false,
        "message": {"role": "user", "content": "contract keys"}
    });
    std::fs::write(
        project.join("0c0c0c0c-0a9e-4b8c-8d7e-5f4a3b2c1d0e.jsonl"),
        format!("{record}\n"),
    )
    .expect("write");
    let data = tempfile::tempdir().expect("temp data");
    let client = EskerClient::start_with(
        data.path(),
        &["--full-pass-every", "3600"],
        home.path().to_str().unwrap(),
    )
    .await;
    let mut last = Value::Null;
    for _ in 0..crate::support::background_polls(Duration::from_millis(100)) {
        let (status, _) = structured(&client, "get_ingest_status", json!({})).await;
        check(&MORAINE_INGEST_STATUS, &status, seen);
        if status["data"]["history"]
            .as_array()
            .is_some_and(|history| !history.is_empty())
        {
            return;
        }
        last = status;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the indexing server never finished a pass; its last status: {last:#}");
}

/// An agtrace-profile answer checked against `shape`, or the error contract.
async fn agtrace(
    client: &EskerClient,
    seen: &mut Seen,
    shape: &Shape,
    tool: &str,
    arguments: Value,
) -> Value {
    let (response, structured, is_error) = text_json(client, tool, arguments.clone()).await;
    assert_eq!(response, structured, "the text is the structured answer");
    if is_error {
        check(&AGTRACE_ERROR, &response, seen);
    } else {
        check(shape, &response, seen);
    }
    response
}

async fn agtrace_client(data_dir: &Path) -> EskerClient {
    EskerClient::start_with(
        data_dir,
        &["--no-index", "--profile", "agtrace"],
        "/nonexistent-esker-test-home",
    )
    .await
}

#[tokio::test]
async fn agtrace_answers_hold_exactly_the_contract_keys() {
    let client = agtrace_client(fixture_store()).await;
    let mut seen = Seen::default();
    let mut sessions = Vec::new();
    let mut cursor = Value::Null;
    loop {
        let page = agtrace(
            &client,
            &mut seen,
            &AGTRACE_LIST,
            "list_sessions",
            json!({"limit": 50, "cursor": cursor}),
        )
        .await;
        sessions.extend(ids(&page["sessions"], "/id"));
        cursor = page["next_cursor"].clone();
        if cursor.is_null() {
            break;
        }
    }
    agtrace(
        &client,
        &mut seen,
        &AGTRACE_PROJECTS,
        "get_project_info",
        json!({}),
    )
    .await;
    let levels = [
        ("summary", &AGTRACE_DETAILS_SUMMARY),
        ("turns", &AGTRACE_DETAILS_TURNS),
        ("steps", &AGTRACE_DETAILS_STEPS),
        ("full", &AGTRACE_DETAILS_FULL),
    ];
    for session in &sessions {
        for (level, shape) in levels {
            let mut cursor = Value::Null;
            loop {
                let page = agtrace(
                    &client,
                    &mut seen,
                    shape,
                    "get_session_details",
                    json!({"session_id": session, "detail_level": level,
                        "include_reasoning": level == "turns", "cursor": cursor}),
                )
                .await;
                cursor = page["next_cursor"].clone();
                if cursor.is_null() {
                    break;
                }
            }
        }
        agtrace(
            &client,
            &mut seen,
            &AGTRACE_ANALYZE,
            "analyze_session",
            json!({"session_id": session, "include_loops": true}),
        )
        .await;
    }
    for (query, event_type) in [
        ("parquet", Value::Null),
        ("test", json!("ToolCall")),
        ("error", json!("ToolResult")),
        ("the", json!("User")),
        ("tokens", json!("TokenUsage")),
        ("the", json!("Notification")),
        ("the", json!("Reasoning")),
    ] {
        agtrace(
            &client,
            &mut seen,
            &AGTRACE_PREVIEWS,
            "search_event_previews",
            json!({"query": query, "event_type": event_type, "limit": 50}),
        )
        .await;
    }
    let events = fixture_rows(
        "SELECT native_id, seq FROM events JOIN sessions USING (session_id) ORDER BY native_id, seq",
    );
    for event in &events {
        agtrace(
            &client,
            &mut seen,
            &AGTRACE_EVENT,
            "get_event_details",
            json!({"session_id": event["native_id"],
                "event_index": event["seq"].as_i64().unwrap() - 1}),
        )
        .await;
    }
    for (tool, arguments) in [
        ("get_session_details", json!({"session_id": "zzzzzzzz"})),
        (
            "get_session_details",
            json!({"session_id": sessions[0], "cursor": "00"}),
        ),
        (
            "get_event_details",
            json!({"session_id": sessions[0], "event_index": 1_000_000}),
        ),
        ("list_sessions", json!({"provider": "copilot"})),
    ] {
        let (response, _, is_error) = text_json(&client, tool, arguments.clone()).await;
        assert!(is_error, "{tool} {arguments} should fail");
        check(&AGTRACE_ERROR, &response, &mut seen);
    }
    seen.assert_every_path_met(
        &[
            &AGTRACE_LIST,
            &AGTRACE_PROJECTS,
            &AGTRACE_DETAILS_SUMMARY,
            &AGTRACE_DETAILS_TURNS,
            &AGTRACE_DETAILS_STEPS,
            &AGTRACE_DETAILS_FULL,
            &AGTRACE_ANALYZE,
            &AGTRACE_PREVIEWS,
            &AGTRACE_EVENT,
            &AGTRACE_ERROR,
        ],
        &[],
    );
}

/// A relay-profile answer: its JSON (text) against `shape` or relay's error shape, and the
/// structured content (the object itself, or FastMCP's `{result}` around a list).
async fn relay(
    client: &EskerClient,
    seen: &mut Seen,
    shape: &Shape,
    tool: &str,
    arguments: Value,
) -> Value {
    let (response, structured, is_error) = text_json(client, tool, arguments.clone()).await;
    assert!(!is_error, "relay never answers isError");
    let failed = response.get("error").is_some()
        || response
            .as_array()
            .is_some_and(|items| items.iter().any(|item| item.get("error").is_some()));
    check(if failed { &RELAY_ERROR } else { shape }, &response, seen);
    if response.is_object() {
        assert_eq!(structured, response);
    } else {
        check(&RELAY_WRAPPED, &structured, seen);
        if !response.is_string() {
            assert_eq!(structured["result"], response);
        }
    }
    response
}

#[tokio::test]
async fn relay_answers_hold_exactly_the_contract_keys() {
    let client = EskerClient::start_with(
        fixture_store(),
        &["--no-index", "--profile", "relay"],
        "/nonexistent-esker-test-home",
    )
    .await;
    let mut seen = Seen::default();
    let listed = relay(
        &client,
        &mut seen,
        &RELAY_LIST,
        "list_sessions",
        json!({"limit": 500}),
    )
    .await;
    let slug = listed
        .as_array()
        .unwrap()
        .iter()
        .find_map(|session| session["slug"].as_str().map(str::to_owned))
        .expect("a session with a slug");
    relay(
        &client,
        &mut seen,
        &RELAY_LIST,
        "list_sessions",
        json!({"slug": slug}),
    )
    .await;
    for query in ["parquet", "test OR error", "\"the config\""] {
        relay(
            &client,
            &mut seen,
            &RELAY_SEARCH,
            "search_history",
            json!({"query": query, "limit": 50}),
        )
        .await;
    }
    for session in ids(&listed, "/session_id") {
        relay(
            &client,
            &mut seen,
            &RELAY_CONVERSATION,
            "get_conversation",
            json!({"session_id_or_slug": session, "format": "json"}),
        )
        .await;
    }
    relay(
        &client,
        &mut seen,
        &RELAY_CONVERSATION,
        "get_conversation",
        json!({"session_id_or_slug": slug}),
    )
    .await;
    relay(
        &client,
        &mut seen,
        &RELAY_CONVERSATION,
        "get_conversation",
        json!({"session_id_or_slug": "no-such-session"}),
    )
    .await;
    relay(
        &client,
        &mut seen,
        &RELAY_SEARCH,
        "search_history",
        json!({"query": "\""}),
    )
    .await;
    seen.assert_every_path_met(
        &[
            &RELAY_LIST,
            &RELAY_SEARCH,
            &RELAY_CONVERSATION,
            &RELAY_ERROR,
            &RELAY_WRAPPED,
        ],
        &[],
    );
}

#[tokio::test]
async fn memory_answers_hold_exactly_the_contract_keys() {
    let root = tempfile::tempdir().expect("temp dir");
    let data_dir = root.path().join("data");
    esker::store::Store::open(&data_dir).expect("a new store");
    let client = MemoryClient::start(&data_dir, root.path(), "memory").await;
    let mut seen = Seen::default();
    let mut answer = |shape: &'static Shape, response: Value| check(shape, &response, &mut seen);
    let saved = client
        .ok(
            "save_memory",
            json!({"text": "parquet over csv, decided", "metadata": {"why": {"speed": true}}}),
        )
        .await;
    let id = saved["id"].clone();
    answer(&MEMORY_SAVE, saved);
    answer(
        &MEMORY_SEARCH,
        client.ok("search", json!({"query": "parquet"})).await,
    );
    answer(
        &MEMORY_TIMELINE,
        client.ok("timeline", json!({"anchor_id": id})).await,
    );
    answer(
        &MEMORY_ENTRIES,
        client.ok("get_entries", json!({"ids": [id]})).await,
    );
    answer(&MEMORY_INGEST, client.ok("ingest_docs", json!({})).await);
    answer(
        &MEMORY_RETENTION,
        client
            .ok("retention_dry_run", json!({"max_age_days": 1}))
            .await,
    );
    for (tool, arguments) in [
        ("search", json!({"query": ""})),
        (
            "timeline",
            json!({"anchor_id": "00000000-0000-4000-8000-000000000000"}),
        ),
    ] {
        let (is_error, response) = client.call(tool, arguments).await;
        assert!(is_error);
        answer(&MEMORY_ERROR, response);
    }
    seen.assert_every_path_met(
        &[
            &MEMORY_SAVE,
            &MEMORY_SEARCH,
            &MEMORY_TIMELINE,
            &MEMORY_ENTRIES,
            &MEMORY_INGEST,
            &MEMORY_RETENTION,
            &MEMORY_ERROR,
        ],
        &[],
    );
}
