//! Memory entries in the store: acknowledged saves survive `kill -9` loops whole and once,
//! `esker index --rebuild` keeps them, a save succeeds while another writer holds the lock
//! and is folded once it is released, a crash inside a fold refolds once, and
//! `esker memory add|search|list` with its exit codes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};

use crate::mcp::memory::{MemoryClient, fake_github_token, wait_until_folded};
use crate::support::{esker_bin, fixtures_dir, index_into, query_count, query_rows, stderr_of};

const REPLY_TIMEOUT: Duration = Duration::from_secs(30);

fn path_arg(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

/// `esker ARGS` in `cwd` with an isolated environment plus `env`.
fn esker(args: &[&str], cwd: &Path, env: &[(&str, &str)]) -> Output {
    Command::new(esker_bin())
        .args(args)
        .current_dir(cwd)
        .env("HOME", "/nonexistent-esker-test-home")
        .env_remove("ESKER_DATA_DIR")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .expect("esker runs")
}

/// `esker serve --profile memory` driven by hand-written JSON-RPC lines, so it can be killed
/// right after a reply or with a request in flight.
struct RawServer {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl RawServer {
    async fn start(data_dir: &Path) -> RawServer {
        let mut child = tokio::process::Command::new(esker_bin())
            .args([
                "serve",
                "--no-index",
                "--profile",
                "memory",
                "--project",
                "demo",
            ])
            .arg("--data-dir")
            .arg(data_dir)
            .env("HOME", "/nonexistent-esker-test-home")
            .env_remove("ESKER_DATA_DIR")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("esker serve starts");
        let mut server = RawServer {
            stdin: child.stdin.take().expect("stdin"),
            stdout: BufReader::new(child.stdout.take().expect("stdout")),
            child,
            next_id: 1,
        };
        let params = json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "esker-memory-kill-test", "version": "0"},
        });
        server.request("initialize", params).await;
        server
            .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        server
    }

    async fn send(&mut self, message: Value) {
        let line = format!("{message}\n");
        self.stdin.write_all(line.as_bytes()).await.expect("write");
        self.stdin.flush().await.expect("flush");
    }

    /// Sends a request and returns its id.
    async fn send_request(&mut self, method: &str, params: Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        id
    }

    async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params).await;
        loop {
            let mut line = String::new();
            let read = tokio::time::timeout(REPLY_TIMEOUT, self.stdout.read_line(&mut line))
                .await
                .expect("the server answers in time")
                .expect("stdout is readable");
            assert!(read > 0, "the server closed stdout");
            let message: Value = serde_json::from_str(&line).expect("JSON line");
            if message["id"] == id {
                return message;
            }
        }
    }

    fn save_params(text: &str) -> Value {
        json!({"name": "save_memory", "arguments": {"text": text}})
    }

    /// Saves `text`; returns the id once the save is acknowledged.
    async fn save(&mut self, text: &str) -> String {
        let reply = self
            .request("tools/call", RawServer::save_params(text))
            .await;
        let result = &reply["result"];
        assert_eq!(result["isError"], false, "{reply}");
        result["structuredContent"]["id"]
            .as_str()
            .expect("an id")
            .to_owned()
    }

    /// SIGKILL, then reap.
    async fn kill(mut self) {
        self.child.start_kill().expect("SIGKILL");
        let _ = self.child.wait().await;
    }
}

/// Body → how many rows of `memories` hold it.
fn bodies_in_table(data_dir: &Path) -> BTreeMap<String, i64> {
    query_rows(
        data_dir,
        "SELECT body, count(*) AS n FROM memories GROUP BY body",
    )
    .into_iter()
    .map(|row| {
        (
            row["body"].as_str().expect("body").to_owned(),
            row["n"].as_i64().expect("count"),
        )
    })
    .collect()
}

#[tokio::test]
async fn kill_9_right_after_replies_loses_no_acknowledged_entry_and_duplicates_none() {
    let root = tempfile::tempdir().expect("temp dir");
    let data_dir = root.path().join("data");
    esker::store::Store::open(&data_dir).expect("a new store");
    let rounds: u64 = std::env::var("ESKER_MEMORY_KILL_ROUNDS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(8);
    let mut acknowledged: Vec<(String, String)> = Vec::new();
    let mut in_flight: Vec<String> = Vec::new();
    for round in 0..rounds {
        let mut server = RawServer::start(&data_dir).await;
        for entry in 0..1 + round % 4 {
            let text = format!("durable entry r{round}e{entry} of the kill loop");
            let id = server.save(&text).await;
            acknowledged.push((id, text));
        }
        match round % 3 {
            // Killed the moment the last reply arrived.
            0 => {}
            // Killed with one more save in flight (present once or absent, never half).
            1 => {
                let text = format!("durable entry r{round} in flight of the kill loop");
                server
                    .send_request("tools/call", RawServer::save_params(&text))
                    .await;
                in_flight.push(text);
            }
            // Killed around the background fold (it starts 500 ms after the last save).
            _ => tokio::time::sleep(Duration::from_millis(350 + (round * 97) % 500)).await,
        }
        server.kill().await;
    }

    let client = MemoryClient::start(&data_dir, root.path(), "memory").await;
    let ids: Vec<&String> = acknowledged.iter().map(|(id, _)| id).collect();
    let entries = client.ok("get_entries", json!({"ids": ids})).await;
    let found: BTreeMap<String, String> = entries["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|item| {
            (
                item["id"].as_str().unwrap().to_owned(),
                item["body"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    for (id, text) in &acknowledged {
        assert_eq!(found.get(id), Some(text), "acknowledged entry {id} lost");
    }
    let searched = client
        .ok(
            "search",
            json!({"query": "durable kill loop", "limit": 100}),
        )
        .await;
    let total = searched["total"].as_i64().expect("total");
    let expected_min = acknowledged.len() as i64;
    let expected_max = expected_min + in_flight.len() as i64;
    assert!(
        (expected_min..=expected_max).contains(&total),
        "search counts {total} entries, expected {expected_min}..={expected_max}"
    );

    wait_until_folded(&data_dir, total);
    let bodies = bodies_in_table(&data_dir);
    assert!(
        bodies.values().all(|&n| n == 1),
        "duplicated rows: {bodies:?}"
    );
    for (_, text) in &acknowledged {
        assert!(bodies.contains_key(text), "{text} is not in the table");
    }
    let distinct = query_count(&data_dir, "SELECT count(DISTINCT id) FROM memories");
    assert_eq!(distinct, total);
}

#[test]
fn rebuild_keeps_memory_entries_and_query_sees_them() {
    let root = tempfile::tempdir().expect("temp dir");
    let data_dir = root.path().join("data");
    index_into(&data_dir, &[&fixtures_dir()]);
    let data = path_arg(&data_dir);
    let sessions = query_count(&data_dir, "SELECT count(*) FROM sessions");
    for text in [
        "rebuild keeps the first",
        "rebuild keeps the second",
        "and the third",
    ] {
        let added = esker(
            &["memory", "add", "--data-dir", data, text],
            root.path(),
            &[],
        );
        assert!(added.status.success(), "{}", stderr_of(&added));
    }
    let before = query_rows(
        &data_dir,
        "SELECT id, body, journal_offset FROM memories ORDER BY id",
    );
    assert_eq!(before.len(), 3);

    let rebuilt = esker(
        &[
            "index",
            "--data-dir",
            data,
            "--rebuild",
            path_arg(&fixtures_dir()),
        ],
        root.path(),
        &[],
    );
    assert!(rebuilt.status.success(), "{}", stderr_of(&rebuilt));
    let after = query_rows(
        &data_dir,
        "SELECT id, body, journal_offset FROM memories ORDER BY id",
    );
    assert_eq!(after, before, "--rebuild keeps every entry as it was");
    assert_eq!(
        query_count(&data_dir, "SELECT count(*) FROM sessions"),
        sessions
    );
    let found = esker(
        &["memory", "search", "--data-dir", data, "rebuild"],
        root.path(),
        &[],
    );
    assert!(found.status.success(), "{}", stderr_of(&found));
    assert_eq!(
        String::from_utf8_lossy(&found.stdout)
            .matches("rebuild keeps")
            .count(),
        2
    );
}

#[tokio::test]
async fn a_save_succeeds_while_another_writer_holds_the_lock_and_is_folded_after() {
    let root = tempfile::tempdir().expect("temp dir");
    let data_dir = root.path().join("data");
    let store = esker::store::Store::open(&data_dir).expect("a new store");
    let lock = esker::store::WriterLock::try_acquire(&store, "a test holding the lock")
        .expect("the lock is free");
    let client = MemoryClient::start(&data_dir, root.path(), "memory").await;
    let id = client
        .save(json!({"text": "saved while esker index was writing"}))
        .await;
    let found = client.ok("search", json!({"query": "writing"})).await;
    assert_eq!(
        found["items"][0]["id"],
        id.as_str(),
        "searchable from the journal"
    );
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        query_count(&data_dir, "SELECT count(*) FROM memories"),
        0,
        "nothing is folded while another writer holds the lock"
    );
    drop(lock);
    wait_until_folded(&data_dir, 1);
    let found = client.ok("search", json!({"query": "writing"})).await;
    assert_eq!(found["total"], 1);
}

#[test]
fn a_crash_inside_a_fold_folds_the_entry_once_later() {
    let root = tempfile::tempdir().expect("temp dir");
    let data_dir = root.path().join("data");
    let data = path_arg(&data_dir);
    let crashed = esker(
        &["memory", "add", "--data-dir", data, "crashed while folding"],
        root.path(),
        &[("ESKER_CRASH_AT", "memory-after-fold")],
    );
    assert!(!crashed.status.success(), "the crash point aborts");
    assert_eq!(query_count(&data_dir, "SELECT count(*) FROM memories"), 0);
    let listed = esker(
        &["memory", "list", "--data-dir", data, "--json"],
        root.path(),
        &[],
    );
    let items: Value = serde_json::from_slice(&listed.stdout).expect("JSON");
    assert_eq!(items["items"][0]["body"], "crashed while folding");

    let added = esker(
        &["memory", "add", "--data-dir", data, "the next save"],
        root.path(),
        &[],
    );
    assert!(added.status.success(), "{}", stderr_of(&added));
    let bodies = bodies_in_table(&data_dir);
    let expected: BTreeMap<String, i64> = [("crashed while folding", 1), ("the next save", 1)]
        .into_iter()
        .map(|(body, n)| (body.to_owned(), n))
        .collect();
    assert_eq!(bodies, expected);
}

#[test]
fn esker_memory_commands_save_search_and_list_with_exit_codes() {
    let root = tempfile::tempdir().expect("temp dir");
    let data_dir = root.path().join("data");
    let data = path_arg(&data_dir);
    let cwd = root.path();
    let added = esker(
        &[
            "memory",
            "add",
            "--data-dir",
            data,
            "--type",
            "decision",
            "--metadata",
            r#"{"issue": 16}"#,
            "--json",
            "Fold",
            "the",
            "journal",
            "at",
            "commit",
        ],
        cwd,
        &[],
    );
    assert!(added.status.success(), "{}", stderr_of(&added));
    let saved: Value = serde_json::from_slice(&added.stdout).expect("JSON");
    assert_eq!(saved["status"], "saved");
    assert_eq!(saved["folded"], true);

    let token = fake_github_token();
    let blocked = esker(
        &[
            "memory",
            "add",
            "--data-dir",
            data,
            &format!("push with {token}"),
        ],
        cwd,
        &[],
    );
    assert_eq!(blocked.status.code(), Some(2));
    let message = stderr_of(&blocked);
    assert!(
        message.contains("POLICY_BLOCKED") && message.contains("github_token"),
        "{message}"
    );
    assert!(!message.contains(&token));
    let bad_metadata = esker(
        &[
            "memory",
            "add",
            "--data-dir",
            data,
            "--metadata",
            "[1]",
            "text",
        ],
        cwd,
        &[],
    );
    assert_eq!(bad_metadata.status.code(), Some(2));

    let hit = esker(
        &["memory", "search", "--data-dir", data, "journal"],
        cwd,
        &[],
    );
    assert_eq!(hit.status.code(), Some(0), "{}", stderr_of(&hit));
    assert!(String::from_utf8_lossy(&hit.stdout).contains("Fold the journal at commit"));
    let miss = esker(
        &["memory", "search", "--data-dir", data, "absent"],
        cwd,
        &[],
    );
    assert_eq!(miss.status.code(), Some(1));

    let listed = esker(
        &[
            "memory",
            "list",
            "--data-dir",
            data,
            "--json",
            "--type",
            "decision",
        ],
        cwd,
        &[],
    );
    assert_eq!(listed.status.code(), Some(0));
    let items: Value = serde_json::from_slice(&listed.stdout).expect("JSON");
    let projects: BTreeSet<&str> = items["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["project"].as_str().unwrap())
        .collect();
    let cwd_name = cwd.file_name().unwrap().to_str().unwrap();
    assert_eq!(
        projects,
        BTreeSet::from([cwd_name]),
        "the default project is the cwd's name"
    );
    assert_eq!(items["items"][0]["metadata"], json!({"issue": 16}));
    let empty = esker(
        &["memory", "list", "--data-dir", data, "--project", "nobody"],
        cwd,
        &[],
    );
    assert_eq!(empty.status.code(), Some(1));
}

#[test]
fn the_memories_table_has_the_declared_columns_and_types() {
    let root = tempfile::tempdir().expect("temp dir");
    let data_dir = root.path().join("data");
    let added = esker(
        &[
            "memory",
            "add",
            "--data-dir",
            path_arg(&data_dir),
            "--source-ref",
            "a.md",
            "typed",
        ],
        root.path(),
        &[],
    );
    assert!(added.status.success(), "{}", stderr_of(&added));
    let columns: Vec<(String, String, String)> = query_rows(
        &data_dir,
        "SELECT column_name, data_type, is_nullable FROM information_schema.columns \
         WHERE table_name = 'memories' ORDER BY ordinal_position",
    )
    .into_iter()
    .map(|row| {
        let text = |key: &str| row[key].as_str().expect(key).to_owned();
        (text("column_name"), text("data_type"), text("is_nullable"))
    })
    .collect();
    let expected = [
        ("id", "Utf8View", "NO"),
        ("title", "Utf8View", "NO"),
        ("body", "Utf8View", "NO"),
        ("entry_type", "Utf8View", "NO"),
        ("project", "Utf8View", "NO"),
        ("session_id", "Utf8View", "YES"),
        ("source_ref", "Utf8View", "YES"),
        ("content_hash", "Utf8View", "YES"),
        ("metadata", "Utf8View", "NO"),
        ("created_at", "Timestamp(ns, \"UTC\")", "NO"),
        ("journal_offset", "Int64", "NO"),
    ];
    let expected: Vec<(String, String, String)> = expected
        .iter()
        .map(|(name, kind, nullable)| ((*name).into(), (*kind).into(), (*nullable).into()))
        .collect();
    assert_eq!(columns, expected);
    let row = &query_rows(
        &data_dir,
        "SELECT source_ref, content_hash, metadata FROM memories",
    )[0];
    assert_eq!(row["source_ref"], "a.md");
    assert_eq!(row["content_hash"].as_str().map(str::len), Some(64));
    assert_eq!(row["metadata"], "{}");
}
