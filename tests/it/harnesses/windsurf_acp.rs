//! Windsurf's ACP agent window (`windsurf`, format `windsurf_acp`): a home holding
//! `tests/standalone-fixtures/windsurf-acp` as `~/.config/Windsurf` (two `acp-events/*.ndjson`
//! logs and the global `state.vscdb` naming them), indexed with no PATH from the default
//! locations. Every count is also taken from the raw logs by this test's own reading (a message
//! is the chunks of one kind sharing a `cognition.ai/clientMessageId` or
//! `cognition.ai/streamingMessageId`; a call a `tool_call`; a result the first `completed` or
//! `failed` update of a call); the session facts come from the store's metadata cache or
//! session-info row, the torn line is a counted malformed line, the store's API key is never
//! read, a title changed in the store alone re-reads its log, and a half-written last line is
//! held back and adds exactly its event once complete.
//!
//! Current builds' message stores (format `windsurf_acp_db`): a home holding, at Devin
//! Desktop's Linux place, the `acp-messages/<uuid>.db` stores and the global store that
//! `tests/standalone-fixtures/windsurf-acp-db/stores.json` describes (built here as SQLite),
//! counted by this test's own reading of the rows (a row is one message; a call is a
//! `tool_call` row, its result a terminal status; a `subagent` row's `childMessages` are a child
//! session's rows, counted the same way); the sub-agent is a child session named after its
//! parent and linked from the `run_subagent` call's result; a row rewritten in place and one
//! appended add exactly their events.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::devin::LIVE_DDL;
use super::{
    Counts, assert_rest_adds, assert_tools_paired, columns, doctor_location, index_home,
    indexed_counts, number, rows, texts,
};
use crate::support::{copy_tree, standalone_fixture};

const CADET: &str = "acp/devin-cli/brindle-cadet";
const CADET_LOG: &str = "0b7e2c1a-5d7e-4c1f-9a55-3f0c2d9e8a11";
const OTTER: &str = "acp/devin-cli/quiet-otter";
/// Windsurf's sessions in the store.
const WINDSURF: &str = "source = 'windsurf'";

fn home_with_fixture() -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("temp dir");
    copy_tree(
        &standalone_fixture("windsurf-acp").join("Windsurf"),
        &home.path().join(".config/Windsurf"),
    );
    home
}

fn user_dir(home: &Path) -> PathBuf {
    home.join(".config/Windsurf/User")
}

fn logs(home: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = fs::read_dir(user_dir(home).join("acp-events"))
        .expect("acp-events")
        .map(|entry| entry.expect("entry").path())
        .collect();
    found.sort();
    found
}

/// This test's own reading of the raw logs; also returns the malformed lines it met.
fn raw_counts(files: &[PathBuf]) -> (Counts, i64) {
    let mut counts = Counts::default();
    let mut malformed = 0;
    for file in files {
        counts.sessions += 1;
        let mut messages = HashSet::new();
        let mut calls = HashSet::new();
        let mut answered = HashSet::new();
        for line in fs::read_to_string(file).expect("log").lines() {
            let Ok(record) = serde_json::from_str::<Value>(line) else {
                malformed += 1;
                continue;
            };
            let update = &record["notification"];
            let kind = update["sessionUpdate"].as_str().unwrap_or("");
            let meta = &update["_meta"];
            let message = |field: &str| meta[field].as_str().unwrap_or("").to_string();
            match kind {
                "user_message_chunk" => {
                    let id = message("cognition.ai/clientMessageId");
                    counts.prompts += i64::from(messages.insert((kind.to_string(), id)));
                }
                "agent_message_chunk" | "agent_thought_chunk" => {
                    let id = message("cognition.ai/streamingMessageId");
                    let new = i64::from(messages.insert((kind.to_string(), id)));
                    if kind == "agent_message_chunk" {
                        counts.replies += new;
                    } else {
                        counts.reasoning += new;
                    }
                }
                "tool_call" => {
                    let id = update["toolCallId"].as_str().unwrap_or("").to_string();
                    counts.calls += i64::from(calls.insert(id));
                }
                "tool_call_update" => {
                    let status = update["status"].as_str().unwrap_or("");
                    let id = update["toolCallId"].as_str().unwrap_or("").to_string();
                    if matches!(status, "completed" | "failed") && answered.insert(id) {
                        counts.results += 1;
                        counts.failed += i64::from(status == "failed");
                    }
                }
                _ => {}
            }
        }
    }
    (counts, malformed)
}

#[test]
fn windsurf_acp_sessions_are_read_from_their_logs_with_the_stores_facts() {
    let home = home_with_fixture();
    let data = tempfile::tempdir().expect("temp dir");
    let dir = data.path();
    let stderr = index_home(home.path(), dir);

    let (raw, malformed) = raw_counts(&logs(home.path()));
    assert_eq!(
        (raw, malformed),
        (
            Counts {
                sessions: 2,
                prompts: 2,
                replies: 3,
                reasoning: 2,
                calls: 2,
                results: 2,
                failed: 1,
            },
            1
        ),
        "the fixture, as this test reads it"
    );
    for expected in [
        "windsurf_acp=2",
        "sessions: 2;",
        "events: 11 new",
        "malformed lines: 1;",
        "parser warnings: 0;",
    ] {
        assert!(stderr.contains(expected), "{expected}: {stderr}");
    }
    assert_eq!(
        indexed_counts(dir, WINDSURF),
        raw,
        "every message read once"
    );
    assert_tools_paired(dir);

    // The metadata cache gives the first session's facts, a session-info row the second's.
    let facts = columns(
        dir,
        "SELECT native_id, title, cwd, model, agent_name FROM sessions \
         WHERE source = 'windsurf' ORDER BY native_id",
        &["native_id", "title", "cwd", "model", "agent_name"],
    );
    assert_eq!(
        facts,
        [
            json!([
                CADET,
                "Fix flaky test",
                "/home/u/proj",
                "swe-1-6",
                "devin-cli"
            ]),
            json!([
                OTTER,
                "Rename the config loader",
                "/home/u/app",
                "swe-1-5",
                "devin-cli"
            ]),
        ]
    );

    // Chunks of one message are one event, wherever they are in the log.
    assert_eq!(
        texts(
            dir,
            "SELECT text FROM events WHERE type = 'assistant_response' ORDER BY timestamp"
        ),
        [
            "It races on tmp_path.",
            "I'll rename it in two files.",
            "Done: renamed."
        ]
    );
    assert_eq!(
        texts(
            dir,
            "SELECT text FROM events WHERE type = 'user_input' ORDER BY timestamp"
        ),
        [
            "Why does test_io flake?",
            "Rename load_cfg to load_config.\nfn load_cfg() {}"
        ]
    );
    let failed = rows(
        dir,
        "SELECT tool_name, text FROM events WHERE type = 'tool_response' AND subtype = 'error'",
    );
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0]["tool_name"], "run_command");
    assert_eq!(failed[0]["text"], "1 failed");

    // Nothing of the store but the ACP keys is read.
    assert_eq!(
        number(
            dir,
            "SELECT count(*) FROM events WHERE text LIKE '%fixture-never-read%'"
        ),
        Some(0)
    );

    // `esker doctor` lists the event-log folder; the torn line is its one skipped line.
    let folder = user_dir(home.path()).join("acp-events");
    let location = doctor_location(home.path(), dir, &folder);
    assert_eq!(location["harness"], "windsurf");
    assert_eq!(location["sessions"].as_u64(), Some(2), "{location:#}");
}

/// A title changed in the store while the log stays as it was is read on the next pass (the
/// store's facts are the log's sidecar, hashed in its checkpoint); no event is written twice.
#[test]
fn a_title_changed_in_the_store_re_reads_its_log() {
    let home = home_with_fixture();
    let data = tempfile::tempdir().expect("temp dir");
    let dir = data.path();
    index_home(home.path(), dir);
    let before = indexed_counts(dir, WINDSURF);

    let store = user_dir(home.path()).join("globalStorage/state.vscdb");
    let connection = rusqlite::Connection::open(&store).expect("open the store");
    let cache: String = connection
        .query_row(
            "SELECT value FROM ItemTable WHERE key = 'windsurf.acp.metadataCache'",
            [],
            |row| row.get(0),
        )
        .expect("the metadata cache");
    let mut cache: Value = serde_json::from_str(&cache).expect("JSON");
    cache["sessions"][0]["title"] = json!("Fix the flaky test_io");
    connection
        .execute(
            "UPDATE ItemTable SET value = ?1 WHERE key = 'windsurf.acp.metadataCache'",
            [cache.to_string()],
        )
        .expect("rename");
    drop(connection);

    let stderr = index_home(home.path(), dir);
    assert!(
        stderr.contains("windsurf_acp=1"),
        "only the renamed log: {stderr}"
    );
    assert_eq!(
        texts(
            dir,
            &format!("SELECT title FROM sessions WHERE native_id = '{CADET}'")
        ),
        ["Fix the flaky test_io"]
    );
    assert_eq!(indexed_counts(dir, WINDSURF), before, "no event twice");
}

/// A prompt line caught half-written is held back (no event, no malformed line) and read once
/// complete, adding exactly its event.
#[test]
fn a_half_written_last_line_is_read_once_complete() {
    let home = home_with_fixture();
    let live = logs(home.path())
        .into_iter()
        .find(|path| path.to_string_lossy().contains(CADET_LOG))
        .expect("the first session's log");
    let text = fs::read_to_string(&live).expect("log");
    let prompt = json!({"providerId": "devin-cli", "notification": {
        "sessionUpdate": "user_message_chunk",
        "content": {"type": "text", "text": "Now fix the race."},
        "_meta": {"cognition.ai/timestamp": "2026-06-07T03:11:00.000Z",
            "cognition.ai/clientMessageId": "m2"}}})
    .to_string();
    let whole = format!("{text}{prompt}\n");
    let head = format!("{text}{}", &prompt[..prompt.len() / 2]);
    let (data, added) = assert_rest_adds(
        home.path(),
        &live,
        (&head, &whole),
        WINDSURF,
        |dir, events| assert_eq!(events, 11, "the half-written line adds nothing: {dir:?}"),
    );
    assert_eq!(added, 1, "the completed line is one prompt");
    assert_eq!(
        number(
            data.path(),
            &format!("SELECT turn_count FROM sessions WHERE native_id = '{CADET}'")
        ),
        Some(2)
    );
}

// ---- current builds: one SQLite message store per session, `acp-messages/<uuid>.db`

const PLOVER: &str = "acp/devin-cli/amber-plover";
const WREN: &str = "acp/devin-cli/quiet-wren";
/// The child session of amber-plover's sub-agent `a7`.
const SUB_AGENT: &str = "acp/devin-cli/amber-plover-sub-a7";

/// The message-store fixture: its stores' rows and the global store's items
/// (`tests/standalone-fixtures/windsurf-acp-db/stores.json`).
fn message_store_fixture() -> Value {
    let path = standalone_fixture("windsurf-acp-db").join("stores.json");
    serde_json::from_str(&fs::read_to_string(path).expect("fixture")).expect("JSON")
}

/// Devin Desktop's `User` directory on Linux.
fn devin_user_dir(home: &Path) -> PathBuf {
    home.join(".config/Devin/User")
}

/// A home holding the fixture's message stores and global store where Devin Desktop keeps them
/// on Linux, the SQLite files built here from the fixture's rows.
fn home_with_message_stores() -> (tempfile::TempDir, Value) {
    let fixture = message_store_fixture();
    let home = tempfile::tempdir().expect("temp dir");
    let user = devin_user_dir(home.path());
    let folder = user.join("acp-messages");
    fs::create_dir_all(&folder).expect("mkdir");
    for store in fixture["stores"].as_array().expect("stores") {
        let uuid = store["uuid"].as_str().expect("uuid");
        let connection =
            rusqlite::Connection::open(folder.join(format!("{uuid}.db"))).expect("create store");
        connection
            .execute_batch(
                "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); \
                 CREATE TABLE messages (position INTEGER PRIMARY KEY, kind TEXT NOT NULL, \
                 payload TEXT NOT NULL);",
            )
            .expect("tables");
        for (key, value) in store["meta"].as_object().expect("meta") {
            connection
                .execute(
                    "INSERT INTO meta (key, value) VALUES (?1, ?2)",
                    rusqlite::params![key, value.as_str().expect("text")],
                )
                .expect("meta row");
        }
        for message in store["messages"].as_array().expect("messages") {
            connection
                .execute(
                    "INSERT INTO messages (position, kind, payload) VALUES (?1, ?2, ?3)",
                    rusqlite::params![
                        message["position"].as_i64(),
                        message["kind"].as_str(),
                        message["payload"].to_string()
                    ],
                )
                .expect("message row");
        }
    }
    let global = user.join("globalStorage");
    fs::create_dir_all(&global).expect("mkdir");
    let state = rusqlite::Connection::open(global.join("state.vscdb")).expect("create state");
    state
        .execute_batch("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
        .expect("table");
    for (key, value) in fixture["global"].as_object().expect("global") {
        state
            .execute(
                "INSERT INTO ItemTable (key, value) VALUES (?1, ?2)",
                rusqlite::params![key, value.to_string()],
            )
            .expect("item");
    }
    (home, fixture)
}

/// This test's own reading of the stores' rows: a message is the chunks of one row kind sharing
/// a `cognition.ai/clientMessageId` or `streamingMessageId` (a row's chunks without one are that
/// row's message); a call a `tool_call` row; a result a call whose status is `completed` or
/// `failed`, failed when `failed` or when its `_meta.terminal_exit.exit_code` is not 0; a
/// `subagent` row whose `childMessages` hold rows is a session of its own, those rows (payloads
/// numbered by their place) counted the same way; a store without messages holds no session.
fn raw_store_counts(fixture: &Value) -> Counts {
    let mut counts = Counts::default();
    for store in fixture["stores"].as_array().expect("stores") {
        let rows: Vec<(i64, &Value)> = store["messages"]
            .as_array()
            .expect("messages")
            .iter()
            .map(|message| {
                let position = message["position"].as_i64().expect("position");
                (position, &message["payload"])
            })
            .collect();
        counts = counts + session_counts(&rows);
    }
    counts
}

/// [`raw_store_counts`] of one session's rows, `(position, payload)`, and of its sub-agents'.
fn session_counts(rows: &[(i64, &Value)]) -> Counts {
    let mut counts = Counts {
        sessions: i64::from(!rows.is_empty()),
        ..Counts::default()
    };
    let mut seen = HashSet::new();
    for &(position, payload) in rows {
        match payload["kind"].as_str().unwrap_or("") {
            kind @ ("user_message" | "agent_message" | "agent_thought") => {
                for chunk in payload["content"].as_array().expect("chunks") {
                    let meta = &chunk["_meta"];
                    let id = meta["cognition.ai/clientMessageId"]
                        .as_str()
                        .or(meta["cognition.ai/streamingMessageId"].as_str())
                        .map_or_else(|| format!("row {position}"), str::to_string);
                    if !seen.insert((kind, id)) {
                        continue;
                    }
                    match kind {
                        "user_message" => counts.prompts += 1,
                        "agent_message" => counts.replies += 1,
                        _ => counts.reasoning += 1,
                    }
                }
            }
            "tool_call" => {
                let call = &payload["content"];
                counts.calls += 1;
                let status = call["status"].as_str().unwrap_or("");
                if matches!(status, "completed" | "failed") {
                    counts.results += 1;
                    let exit = call["_meta"]["terminal_exit"]["exit_code"]
                        .as_i64()
                        .unwrap_or(0);
                    counts.failed += i64::from(status == "failed" || exit != 0);
                }
            }
            "subagent" => {
                let children = payload["childMessages"].as_array().into_iter().flatten();
                let child_rows: Vec<(i64, &Value)> = (0..).zip(children).collect();
                counts = counts + session_counts(&child_rows);
            }
            _ => {}
        }
    }
    counts
}

#[test]
fn message_stores_of_current_builds_are_read_with_the_global_stores_facts() {
    let (home, fixture) = home_with_message_stores();
    let data = tempfile::tempdir().expect("temp dir");
    let dir = data.path();
    let stderr = index_home(home.path(), dir);

    let raw = raw_store_counts(&fixture);
    assert_eq!(
        raw,
        Counts {
            sessions: 3,
            prompts: 3,
            replies: 5,
            reasoning: 2,
            calls: 5,
            results: 5,
            failed: 1,
        },
        "the fixture, as this test reads it"
    );
    for expected in ["windsurf_acp_db=3", "sessions: 3;", "parser warnings: 0;"] {
        assert!(stderr.contains(expected), "{expected}: {stderr}");
    }
    assert_eq!(
        indexed_counts(dir, WINDSURF),
        raw,
        "every message read once"
    );
    assert_tools_paired(dir);

    // The global store names the first store and gives its facts; the second is named by its
    // own `info`.
    let facts = columns(
        dir,
        "SELECT native_id, title, cwd, model, agent_name FROM sessions \
         WHERE source = 'windsurf' ORDER BY native_id",
        &["native_id", "title", "cwd", "model", "agent_name"],
    );
    assert_eq!(
        facts,
        [
            json!([
                PLOVER,
                "Speed up the build",
                "/home/u/plover",
                "swe-1-6",
                "devin-cli"
            ]),
            json!([
                SUB_AGENT,
                "Explore",
                "/home/u/plover",
                "swe-1-6",
                "subagent_explore"
            ]),
            json!([WREN, "List the crates", "/home/u/wren", "swe-1-6", null]),
        ]
    );

    // The `subagent` row is a `system` event of its session, and its `childMessages` a child
    // session `<session>-sub-<agentId>` naming the session as its parent (its title the row's,
    // its profile as agent name, its cwd and model the parent's, above).
    assert_eq!(
        texts(
            dir,
            &format!(
                "SELECT e.text FROM events e JOIN sessions s ON s.session_id = e.session_id \
                 WHERE e.type = 'system' AND e.subtype = 'subagent' AND s.native_id = '{PLOVER}'"
            )
        ),
        ["Explore\nFind where the linker is configured"]
    );
    assert_eq!(
        texts(
            dir,
            &format!("SELECT parent_session_id FROM sessions WHERE native_id = '{SUB_AGENT}'")
        ),
        texts(
            dir,
            &format!("SELECT session_id FROM sessions WHERE native_id = '{PLOVER}'")
        ),
        "the child names its parent"
    );
    // The child holds the sub-agent's own rows, none of its parent's: its task as the prompt.
    assert_eq!(
        texts(
            dir,
            &format!(
                "SELECT e.type FROM events e JOIN sessions s ON s.session_id = e.session_id \
                 WHERE s.native_id = '{SUB_AGENT}' ORDER BY e.seq"
            )
        ),
        [
            "user_input",
            "reasoning",
            "tool_call",
            "tool_response",
            "assistant_response"
        ]
    );
    assert_eq!(
        texts(
            dir,
            &format!(
                "SELECT e.text FROM events e JOIN sessions s ON s.session_id = e.session_id \
                 WHERE s.native_id = '{SUB_AGENT}' AND e.type = 'user_input'"
            )
        ),
        ["Find where the linker is configured"]
    );
    // The `run_subagent` call whose `task` is the row's answers with the child's id.
    let link = texts(
        dir,
        "SELECT payload FROM events WHERE type = 'tool_response' AND tool_name = 'run_subagent'",
    );
    assert_eq!(link.len(), 1, "{link:?}");
    let link: Value = serde_json::from_str(&link[0]).expect("payload is JSON");
    assert_eq!(link, json!({"subagent_session_ids": [SUB_AGENT]}));

    // A row is one message: two rows without ids are two replies; chunks of one id join.
    assert_eq!(
        texts(
            dir,
            "SELECT text FROM events WHERE type = 'assistant_response' ORDER BY timestamp"
        ),
        [
            "The linker fails.",
            "In .cargo/config.toml.",
            "Fixed:",
            "use lld.",
            "Two: core and cli."
        ]
    );
    let failed = rows(
        dir,
        "SELECT tool_name, exit_code, text FROM events WHERE type = 'tool_response' \
         AND subtype = 'error'",
    );
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0]["tool_name"], "exec");
    assert_eq!(failed[0]["exit_code"], 2);
    assert_eq!(failed[0]["text"], "error: linker failed");

    // Nothing of the global store but the ACP keys is read.
    assert_eq!(
        number(
            dir,
            "SELECT count(*) FROM events WHERE text LIKE '%never-read%'"
        ),
        Some(0)
    );

    // `esker doctor` lists the message-store folder with every session read from it, the
    // sub-agent's child session among them.
    let folder = devin_user_dir(home.path()).join("acp-messages");
    let location = doctor_location(home.path(), dir, &folder);
    assert_eq!(location["harness"], "windsurf");
    assert_eq!(
        location["sessions"].as_u64(),
        u64::try_from(raw.sessions).ok(),
        "{location:#}"
    );
}

/// Devin Desktop rewrites a streaming message's row in place and appends the next: only that
/// store is read again, the rewritten message keeps its event (its text grows), the new row adds
/// exactly its own, and the result equals indexing the stores at once.
#[test]
fn a_row_rewritten_in_place_and_a_new_row_add_exactly_their_events() {
    let (home, fixture) = home_with_message_stores();
    let data = tempfile::tempdir().expect("temp dir");
    let dir = data.path();
    index_home(home.path(), dir);

    let wren = &fixture["stores"][1];
    let uuid = wren["uuid"].as_str().expect("uuid");
    let path = devin_user_dir(home.path()).join(format!("acp-messages/{uuid}.db"));
    let mut reply = wren["messages"][2]["payload"].clone();
    reply["content"].as_array_mut().expect("chunks").push(
        json!({"sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": " Both build."},
            "_meta": {"cognition.ai/timestamp": "2026-10-02T09:00:23.000Z",
                "cognition.ai/streamingMessageId": "w2"}}),
    );
    let prompt = json!({"kind": "user_message", "content": [
        {"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "Thanks"},
         "_meta": {"cognition.ai/timestamp": "2026-10-02T09:00:30.000Z",
            "cognition.ai/clientMessageId": "w3"}}]});
    let connection = rusqlite::Connection::open(&path).expect("open the store");
    connection
        .execute(
            "UPDATE messages SET payload = ?1 WHERE position = 2",
            [reply.to_string()],
        )
        .expect("rewrite the reply");
    connection
        .execute(
            "INSERT INTO messages (position, kind, payload) VALUES (3, 'user_message', ?1)",
            [prompt.to_string()],
        )
        .expect("append a prompt");
    drop(connection);

    let stderr = index_home(home.path(), dir);
    assert!(
        stderr.contains("windsurf_acp_db=1"),
        "only the changed store: {stderr}"
    );
    assert!(stderr.contains("events: 1 new"), "{stderr}");
    assert_eq!(
        texts(
            dir,
            &format!(
                "SELECT text FROM events WHERE type = 'assistant_response' AND session_id IN \
                 (SELECT session_id FROM sessions WHERE native_id = '{WREN}')"
            )
        ),
        ["Two: core and cli. Both build."]
    );
    let one_shot = tempfile::tempdir().expect("temp dir");
    index_home(home.path(), one_shot.path());
    assert_eq!(
        indexed_counts(dir, WINDSURF),
        indexed_counts(one_shot.path(), WINDSURF),
        "reading again equals reading once"
    );
    let again = index_home(home.path(), dir);
    assert!(again.contains("events: 0 new"), "{again}");
}

// ---- a `devin-cli` session the Devin CLI of the same home also records: the CLI's copy is kept

/// Writes the Devin CLI's `sessions.db` where the CLI keeps it on Linux in `home`, holding each
/// of `sessions` (its name, the client message id of its prompt) as a row the CLI has not
/// hidden, with a prompt node carrying the id and a reply node, the chain's head; returns it.
fn write_cli_store(home: &Path, sessions: &[(&str, &str)]) -> PathBuf {
    let cli = home.join(".local/share/devin/cli");
    fs::create_dir_all(cli.join("transcripts")).expect("mkdir");
    let path = cli.join("sessions.db");
    let store = rusqlite::Connection::open(&path).expect("create the CLI store");
    store.execute_batch(LIVE_DDL).expect("tables");
    for (name, client_id) in sessions {
        store
            .execute(
                "INSERT INTO sessions (id, working_directory, backend_type, model, agent_mode, \
                 created_at, last_activity_at, title, main_chain_id, hidden) \
                 VALUES (?1, '/home/u/proj', 'windsurf', 'swe-1-6', 'normal', 1795000000, \
                 1795000100, 'The CLI''s copy', 2, 0)",
                [name],
            )
            .expect("session");
        let prompt = json!({"message_id": "u-1", "role": "user", "content": "The CLI's prompt",
            "metadata": {"is_user_input": true,
                "extensions": {"chisel/client-message-id": client_id}}});
        let reply = json!({"message_id": "a-2", "role": "assistant",
            "content": "The CLI's reply", "metadata": {"metrics": {"input_tokens": 10,
                "output_tokens": 5}}});
        for (node, parent, message) in [(1, None, prompt), (2, Some(1), reply)] {
            store
                .execute(
                    "INSERT INTO message_nodes (session_id, node_id, parent_node_id, \
                     chat_message, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                    rusqlite::params![name, node, parent, message.to_string(), 1_795_000_000],
                )
                .expect("node");
        }
    }
    path
}

/// The CLI hides (retires) or shows again its session `name`.
fn set_cli_hidden(store: &Path, name: &str, hidden: bool) {
    let connection = rusqlite::Connection::open(store).expect("open the CLI store");
    connection
        .execute(
            "UPDATE sessions SET hidden = ?1, last_activity_at = last_activity_at + 1 \
             WHERE id = ?2",
            rusqlite::params![i64::from(hidden), name],
        )
        .expect("hide");
}

/// How many indexed sessions match `condition`.
fn sessions_where(dir: &Path, condition: &str) -> i64 {
    number(
        dir,
        &format!("SELECT count(*) FROM sessions WHERE {condition}"),
    )
    .unwrap_or(0)
}

/// The `left_to_cli_copy` skip `esker doctor` reports for `folder`, if any.
fn left_to_cli(home: &Path, dir: &Path, folder: &Path) -> Option<Value> {
    let location = doctor_location(home, dir, folder);
    location["skipped"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|skip| skip["reason"] == "left_to_cli_copy")
        .cloned()
}

/// A `devin-cli` event log whose session the Devin CLI of the same home indexes (same name, a
/// shared client message id) is indexed once, as the CLI's; a Desktop session the CLI does not
/// hold stays; hiding the CLI's session brings the Desktop's copy back (reading only that log
/// again), and showing it again takes it out.
#[test]
fn a_desktop_log_of_a_cli_session_is_left_to_the_cli_copy_until_the_cli_hides_it() {
    let home = home_with_fixture();
    let store = write_cli_store(home.path(), &[("brindle-cadet", "m1")]);
    let data = tempfile::tempdir().expect("temp dir");
    let dir = data.path();
    let stderr = index_home(home.path(), dir);
    assert!(
        stderr
            .contains("Devin Desktop copy of CLI session brindle-cadet: the CLI's copy is indexed"),
        "{stderr}"
    );
    assert_eq!(sessions_where(dir, &format!("native_id = '{CADET}'")), 0);
    assert_eq!(
        sessions_where(dir, "source = 'devin' AND native_id = 'brindle-cadet'"),
        1,
        "the CLI's copy is the session"
    );
    assert_eq!(
        sessions_where(dir, &format!("native_id = '{OTTER}'")),
        1,
        "a Desktop session the CLI does not hold is indexed"
    );

    // `esker doctor` says where the Desktop's copy went.
    let folder = user_dir(home.path()).join("acp-events");
    let left = left_to_cli(home.path(), dir, &folder).expect("the log left to the CLI's copy");
    assert_eq!(left["count"].as_u64(), Some(1), "{left:#}");
    assert!(
        left["paths"][0]
            .as_str()
            .is_some_and(|path| path.ends_with(&format!("{CADET_LOG}.ndjson"))),
        "{left:#}"
    );
    let location = doctor_location(home.path(), dir, &folder);
    assert_eq!(location["sessions"].as_u64(), Some(1), "{location:#}");

    // The CLI hides the session: its copy leaves the index, the Desktop's comes back.
    set_cli_hidden(&store, "brindle-cadet", true);
    let stderr = index_home(home.path(), dir);
    assert!(
        stderr.contains("windsurf_acp=1"),
        "only the paired log: {stderr}"
    );
    assert_eq!(sessions_where(dir, &format!("native_id = '{CADET}'")), 1);
    assert_eq!(sessions_where(dir, "native_id = 'brindle-cadet'"), 0);
    assert_eq!(left_to_cli(home.path(), dir, &folder), None);
    assert_equals_one_shot(home.path(), dir);

    // Shown again: the Desktop's copy leaves again.
    set_cli_hidden(&store, "brindle-cadet", false);
    index_home(home.path(), dir);
    assert_eq!(sessions_where(dir, &format!("native_id = '{CADET}'")), 0);
    assert_eq!(sessions_where(dir, "native_id = 'brindle-cadet'"), 1);
}

/// A session name the CLI also holds, but with no prompt in common (no shared client message
/// id), is not taken for the same session: both copies are indexed.
#[test]
fn a_name_the_cli_holds_without_a_shared_prompt_keeps_both_copies() {
    let home = home_with_fixture();
    write_cli_store(home.path(), &[("brindle-cadet", "cli-only-request")]);
    let data = tempfile::tempdir().expect("temp dir");
    let dir = data.path();
    let stderr = index_home(home.path(), dir);
    assert!(!stderr.contains("Devin Desktop copy"), "{stderr}");
    assert_eq!(sessions_where(dir, &format!("native_id = '{CADET}'")), 1);
    assert_eq!(
        sessions_where(dir, "source = 'devin' AND native_id = 'brindle-cadet'"),
        1
    );
    let folder = user_dir(home.path()).join("acp-events");
    assert_eq!(left_to_cli(home.path(), dir, &folder), None);
}

/// A message store (current builds) of a session the CLI indexes gives no session (nor any
/// sub-agent session of its rows); hiding the CLI's session brings it back, as reading once.
#[test]
fn a_desktop_message_store_of_a_cli_session_is_left_to_the_cli_copy_until_hidden() {
    let (home, _) = home_with_message_stores();
    let store = write_cli_store(home.path(), &[("amber-plover", "m1")]);
    let data = tempfile::tempdir().expect("temp dir");
    let dir = data.path();
    let stderr = index_home(home.path(), dir);
    assert!(
        stderr
            .contains("Devin Desktop copy of CLI session amber-plover: the CLI's copy is indexed"),
        "{stderr}"
    );
    let plover_and_children = format!("native_id LIKE '{PLOVER}%'");
    assert_eq!(sessions_where(dir, &plover_and_children), 0);
    assert_eq!(
        sessions_where(dir, "source = 'devin' AND native_id = 'amber-plover'"),
        1
    );
    assert_eq!(sessions_where(dir, &format!("native_id = '{WREN}'")), 1);
    let folder = devin_user_dir(home.path()).join("acp-messages");
    let left = left_to_cli(home.path(), dir, &folder).expect("the store left to the CLI's copy");
    assert_eq!(left["count"].as_u64(), Some(1), "{left:#}");

    set_cli_hidden(&store, "amber-plover", true);
    index_home(home.path(), dir);
    assert_eq!(sessions_where(dir, &format!("native_id = '{PLOVER}'")), 1);
    assert_eq!(sessions_where(dir, "native_id = 'amber-plover'"), 0);
    assert_eq!(left_to_cli(home.path(), dir, &folder), None);
    assert_equals_one_shot(home.path(), dir);
}

/// The Windsurf sessions of the store at `dir` are those a fresh index of `home` gives: the
/// Desktop's copy that came back equals reading it once.
fn assert_equals_one_shot(home: &Path, dir: &Path) {
    let one_shot = tempfile::tempdir().expect("temp dir");
    index_home(home, one_shot.path());
    assert_eq!(
        indexed_counts(dir, WINDSURF),
        indexed_counts(one_shot.path(), WINDSURF),
        "coming back equals reading once"
    );
}
