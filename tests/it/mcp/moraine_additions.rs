//! Moraine's additions to spec 000 through real clients: `get_ingest_status`, `data.coverage`
//! (partial while a writer holds the store), paged `open`, `harness`/`source` filters,
//! literal `isError: false`, and the lenient `initialize` Moraine's own test client sends.

use std::fs::File;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use super::client::{EskerClient, fixture_rows};
use crate::support::{esker_bin, fixture_store, fixtures_dir, index_into};

const PARTIAL: &str =
    "coverage_partial: historical ingestion is incomplete; retrieval results may be incomplete.";

/// Every key anywhere in `value`.
fn keys_of(value: &Value, keys: &mut Vec<String>) {
    match value {
        Value::Object(fields) => {
            for (key, value) in fields {
                keys.push(key.clone());
                keys_of(value, keys);
            }
        }
        Value::Array(items) => items.iter().for_each(|item| keys_of(item, keys)),
        _ => {}
    }
}

fn condition<'a>(status: &'a Value, kind: &str) -> &'a Value {
    status["data"]["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|condition| condition["condition_type"] == kind)
        .unwrap_or_else(|| panic!("no {kind} condition in {status}"))
}

/// esker's indexer facts: `_meta["esker/indexer"]` of a `get_ingest_status` result (issue #48:
/// Moraine's `data` holds only Moraine's keys).
async fn indexer_meta(client: &EskerClient) -> Value {
    let result = client.call("get_ingest_status", json!({})).await;
    assert_eq!(result.is_error, Some(false));
    let meta = result.meta.expect("get_ingest_status carries _meta");
    let text = result.content[0]
        .as_text()
        .expect("a text summary")
        .text
        .clone();
    assert!(text.contains("Indexer: "), "{text}");
    meta.get("esker/indexer")
        .cloned()
        .unwrap_or_else(|| panic!("no esker/indexer in {meta:?}"))
}

/// A home with one Claude Code session in its default location.
fn home_with_a_claude_session() -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("temp home");
    let project = home.path().join(".claude/projects/-home-dev-app");
    std::fs::create_dir_all(&project).expect("mkdir");
    let record = json!({
        "type": "user", "uuid": "u1", "parentUuid": null,
        "sessionId": "0a1b2c3d-0a9e-4b8c-8d7e-5f4a3b2c1d0e",
        "timestamp": "2026-03-03T08:00:00.000Z", "cwd": "/home/dev/app", "isSidechain": false,
        "message": {"role": "user", "content": "why does the kestrelqueue stall"}
    });
    std::fs::write(
        project.join("0a1b2c3d-0a9e-4b8c-8d7e-5f4a3b2c1d0e.jsonl"),
        format!("{record}\n"),
    )
    .expect("write");
    home
}

/// Polls `get_ingest_status` until its coverage condition is `state`.
async fn wait_for_coverage(client: &EskerClient, state: &str) -> Value {
    let mut status = Value::Null;
    for _ in 0..crate::support::background_polls(Duration::from_millis(100)) {
        status = client.success("get_ingest_status", json!({})).await;
        if condition(&status, "coverage")["state"] == state {
            return status;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("coverage never became {state}: {status}");
}

#[tokio::test]
async fn get_ingest_status_reports_the_background_pass_in_moraines_shape() {
    let home = home_with_a_claude_session();
    let data = tempfile::tempdir().expect("temp data");
    let client = EskerClient::start_with(
        data.path(),
        &["--full-pass-every", "3600"],
        home.path().to_str().unwrap(),
    )
    .await;
    let status = wait_for_coverage(&client, "true").await;
    assert_eq!(status["schema_version"], "moraine.mcp.get_ingest_status.v1");
    assert_eq!(status["request"], json!({}));
    let data = &status["data"];
    for key in [
        "observed_at_unix_ms",
        "current",
        "conditions",
        "alerts",
        "rate",
        "eta",
        "history",
    ] {
        assert!(data.get(key).is_some(), "{key} missing from {data}");
    }
    assert_eq!(condition(&status, "health")["state"], "true");
    assert_eq!(condition(&status, "readiness")["state"], "true");
    assert!(
        data.get("indexer").is_none(),
        "Moraine's data has no indexer"
    );
    let indexer = indexer_meta(&client).await;
    assert_eq!(indexer["mode"], "in_process");
    let last_pass = &indexer["last_pass"];
    assert_eq!(last_pass["files_ingested"], 1, "{last_pass}");
    assert_eq!(last_pass["files_failed"], 0);
    assert!(!data["history"].as_array().unwrap().is_empty());
    let mut keys = Vec::new();
    keys_of(data, &mut keys);
    for forbidden in [
        "host",
        "source_path",
        "credentials",
        "last_error",
        "sources",
    ] {
        assert!(
            !keys.iter().any(|key| key == forbidden),
            "{forbidden} exposed"
        );
    }
    let text = serde_json::to_string(data).unwrap();
    assert!(
        !text.contains(home.path().to_str().unwrap()),
        "no paths in the status"
    );

    let search = client
        .success("search_sessions", json!({"query": "kestrelqueue"}))
        .await;
    assert_eq!(search["data"]["coverage"]["state"], "complete");
    assert_eq!(search["data"]["result_count"], 1);
    assert!(search["warnings"].as_array().unwrap().is_empty());

    let extra = client
        .failure(
            "get_ingest_status",
            json!({"verbose": "SECRET_STATUS_ARGUMENT"}),
        )
        .await;
    assert_eq!(extra["error"]["code"], "invalid_request");
    assert_eq!(extra["request"], json!({}), "rejected without reflection");
    assert!(!extra.to_string().contains("SECRET_STATUS_ARGUMENT"));
}

/// Holds the store's writer lock the way another `esker index` would.
fn hold_writer_lock(data_dir: &Path) -> File {
    let lock = File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(data_dir.join("index.lock"))
        .expect("lock file");
    lock.lock().expect("exclusive lock");
    lock
}

#[tokio::test]
async fn coverage_is_partial_while_a_pass_cannot_finish_and_complete_after() {
    let data = tempfile::tempdir().expect("temp data");
    index_into(data.path(), &[&fixtures_dir()]);
    let home = home_with_a_claude_session();
    let lock = hold_writer_lock(data.path());
    let client = EskerClient::start_with(
        data.path(),
        &["--full-pass-every", "3600"],
        home.path().to_str().unwrap(),
    )
    .await;
    let status = wait_for_coverage(&client, "false").await;
    assert_eq!(
        condition(&status, "coverage")["reason"],
        "waiting_for_writer_lock"
    );
    for (tool, arguments) in [
        ("search_sessions", json!({"query": "parquet"})),
        (
            "list_sessions",
            json!({"start_datetime": "2000-01-01T00:00:00Z", "end_datetime": "2100-01-01T00:00:00Z"}),
        ),
    ] {
        let envelope = client.success(tool, arguments).await;
        assert_eq!(envelope["data"]["coverage"]["state"], "partial", "{tool}");
        assert!(
            envelope["warnings"]
                .as_array()
                .unwrap()
                .contains(&json!(PARTIAL)),
            "{tool}: {}",
            envelope["warnings"]
        );
    }
    drop(lock);
    wait_for_coverage(&client, "true").await;
    let search = client
        .success("search_sessions", json!({"query": "kestrelqueue"}))
        .await;
    assert_eq!(search["data"]["coverage"]["state"], "complete");
    assert_eq!(search["data"]["result_count"], 1, "the held-back pass ran");
}

#[tokio::test]
async fn a_server_that_does_not_index_sees_another_writer_as_partial_coverage() {
    let data = tempfile::tempdir().expect("temp data");
    index_into(data.path(), &[&fixtures_dir()]);
    let client = EskerClient::start(data.path()).await;
    let idle = client.success("get_ingest_status", json!({})).await;
    assert_eq!(condition(&idle, "coverage")["reason"], "store_committed");
    assert_eq!(indexer_meta(&client).await["mode"], "external");
    let lock = hold_writer_lock(data.path());
    let busy = client
        .success("search_sessions", json!({"query": "parquet"}))
        .await;
    assert_eq!(busy["data"]["coverage"]["state"], "partial");
    assert_eq!(busy["data"]["coverage"]["reason"], "writer_active");
    drop(lock);
    let done = client
        .success("search_sessions", json!({"query": "parquet"}))
        .await;
    assert_eq!(done["data"]["coverage"]["state"], "complete");
}

/// Follows `next_cursor` from `first` to the end; returns every child id and page size.
async fn walk_pages(client: &EskerClient, id: &str, key: &str, first: Value) -> Vec<String> {
    let mut ids = Vec::new();
    let mut arguments = first;
    let mut cursors = Vec::new();
    loop {
        let envelope = client.success("open", arguments.clone()).await;
        let data = &envelope["data"];
        let page = data[key].as_array().unwrap();
        assert!(page.len() <= 2, "a page holds at most limit children");
        ids.extend(
            page.iter()
                .map(|child| child["id"].as_str().unwrap().to_owned()),
        );
        match data["next_cursor"].as_str() {
            Some(cursor) => {
                assert!(
                    !cursors.contains(&cursor.to_owned()),
                    "cursors never repeat"
                );
                cursors.push(cursor.to_owned());
                arguments = json!({"id": id, "cursor": cursor});
            }
            None => {
                assert!(data["next_cursor"].is_null());
                return ids;
            }
        }
    }
}

#[tokio::test]
async fn open_pages_turns_and_events_with_cursors_bound_to_the_id() {
    let client = EskerClient::fixtures().await;
    let session_id = fixture_rows(
        "SELECT session_id FROM sessions WHERE turn_count >= 3 ORDER BY turn_count DESC, session_id LIMIT 1",
    )[0]["session_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let whole = client.open(&session_id).await;
    let all_turns: Vec<String> = whole["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|turn| turn["id"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        whole.get("next_cursor").is_none(),
        "spec-000 open is unchanged"
    );
    let paged = walk_pages(
        &client,
        &session_id,
        "turns",
        json!({"id": session_id, "limit": 2}),
    )
    .await;
    assert_eq!(paged, all_turns, "pages cover every turn once, in order");

    let turn_id = fixture_rows(
        "SELECT turn_id FROM turns WHERE event_count >= 3 ORDER BY event_count DESC, turn_id LIMIT 1",
    )[0]["turn_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let whole_turn = client.open(&turn_id).await;
    let all_events: Vec<String> = whole_turn["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|event| event["id"].as_str().unwrap().to_owned())
        .collect();
    let paged_events = walk_pages(
        &client,
        &turn_id,
        "events",
        json!({"id": turn_id, "limit": 2}),
    )
    .await;
    assert_eq!(paged_events, all_events);

    let first = client
        .success("open", json!({"id": session_id, "limit": 1}))
        .await;
    let cursor = first["data"]["next_cursor"].as_str().unwrap();
    let misbound = client
        .failure("open", json!({"id": turn_id, "cursor": cursor}))
        .await;
    assert_eq!(misbound["error"]["code"], "invalid_request");
    let event_id = all_events[0].clone();
    let event_page = client
        .failure("open", json!({"id": event_id, "limit": 2}))
        .await;
    assert_eq!(event_page["error"]["code"], "invalid_request");
}

#[tokio::test]
async fn harness_and_source_filter_search_hits_and_sessions_carry_their_harness() {
    let client = EskerClient::fixtures().await;
    let unfiltered = client.search(json!({"query": "test", "n_hits": 50})).await;
    let hit_sources: Vec<&str> = unfiltered["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| hit["session"]["source"].as_str().unwrap())
        .collect();
    assert!(hit_sources.len() > 1, "{unfiltered}");
    for (source, harness) in [
        ("codex", "codex"),
        ("claude", "claude-code"),
        ("gemini", "gemini-cli"),
    ] {
        for filter in [json!({"source": source}), json!({"harness": harness})] {
            let mut arguments = json!({"query": "test", "n_hits": 50});
            arguments
                .as_object_mut()
                .unwrap()
                .extend(filter.as_object().unwrap().clone());
            let envelope = client.success("search_sessions", arguments).await;
            let key = filter.as_object().unwrap().keys().next().unwrap().clone();
            assert_eq!(envelope["request"][&key], filter[&key], "echoed");
            let hits = envelope["data"]["results"].as_array().unwrap();
            assert_eq!(
                !hits.is_empty(),
                hit_sources.contains(&source),
                "{filter}: hits exactly when unfiltered search has hits of that source"
            );
            for hit in hits {
                assert_eq!(hit["session"]["source"], source);
                assert_eq!(hit["session"]["harness"], harness);
            }
        }
    }
    let contradictory = client
        .search(json!({"query": "test", "source": "codex", "harness": "claude-code"}))
        .await;
    assert_eq!(contradictory["result_count"], 0);
    let unknown = client
        .failure(
            "search_sessions",
            json!({"query": "test", "harness": "Claude-Code"}),
        )
        .await;
    assert_eq!(unknown["error"]["code"], "invalid_request");
    let plain = client
        .success("search_sessions", json!({"query": "test"}))
        .await;
    assert!(
        plain["request"].get("harness").is_none(),
        "spec-000 echo unchanged"
    );
}

#[tokio::test]
async fn success_results_say_is_error_false_literally() {
    let client = EskerClient::fixtures().await;
    let result = client
        .call("search_sessions", json!({"query": "parquet"}))
        .await;
    let wire = serde_json::to_value(&result).unwrap();
    assert_eq!(wire["isError"], json!(false), "{wire}");
}

#[tokio::test]
async fn a_bare_initialize_is_answered_and_tools_list_works_before_initialized() {
    let mut child = tokio::process::Command::new(esker_bin())
        .args(["serve", "--no-index", "--data-dir"])
        .arg(fixture_store())
        .env("HOME", "/nonexistent-esker-test-home")
        .env_remove("ESKER_DATA_DIR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("esker serve starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let lines = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}),
    ];
    let mut replies = Vec::new();
    for line in lines {
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .await
            .unwrap();
        stdin.flush().await.unwrap();
        let mut reply = String::new();
        tokio::time::timeout(Duration::from_secs(30), stdout.read_line(&mut reply))
            .await
            .expect("answered in time")
            .unwrap();
        replies.push(serde_json::from_str::<Value>(&reply).expect("a JSON reply"));
    }
    assert_eq!(
        replies[0]["result"]["serverInfo"]["name"], "esker",
        "{}",
        replies[0]
    );
    let names: Vec<&str> = replies[1]["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("tools/list answered: {}", replies[1]))
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"get_ingest_status"), "{names:?}");
}

#[tokio::test]
async fn harness_and_source_filter_list_sessions_and_bind_its_cursors() {
    let client = EskerClient::fixtures().await;
    let window = json!({"start_datetime": "2000-01-01T00:00:00Z", "end_datetime": "2100-01-01T00:00:00Z", "limit": 50});
    for (source, harness) in [
        ("codex", "codex"),
        ("claude", "claude-code"),
        ("gemini", "gemini-cli"),
    ] {
        let expected: Vec<String> = fixture_rows(&format!(
            "SELECT session_id FROM sessions WHERE source = '{source}' ORDER BY updated_at DESC, session_id DESC"
        ))
        .iter()
        .map(|row| row["session_id"].as_str().unwrap().to_owned())
        .collect();
        assert!(!expected.is_empty(), "fixtures hold {source} sessions");
        let mut arguments = window.clone();
        arguments["harness"] = json!(harness);
        let listed = client.success("list_sessions", arguments.clone()).await;
        assert_eq!(listed["request"]["harness"], harness);
        let ids: Vec<String> = listed["data"]["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|item| item["id"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(ids, expected, "{harness}: exactly its sessions, in order");
        for item in listed["data"]["sessions"].as_array().unwrap() {
            assert_eq!(item["session"]["harness"], harness);
        }
    }
    let mut paged = window.clone();
    paged["limit"] = json!(1);
    paged["source"] = json!("claude");
    let first = client.success("list_sessions", paged.clone()).await;
    let cursor = first["data"]["next_cursor"]
        .as_str()
        .expect("more than one claude session");
    let mut other_filter = paged.clone();
    other_filter["source"] = json!("codex");
    other_filter["cursor"] = json!(cursor);
    let refused = client.failure("list_sessions", other_filter).await;
    assert_eq!(refused["error"]["code"], "invalid_request");
    let mut contradictory = window.clone();
    contradictory["source"] = json!("codex");
    contradictory["harness"] = json!("gemini-cli");
    let none = client.list(contradictory).await;
    assert_eq!(none["result_count"], 0);
}
