//! Harnesses whose sessions live in SQLite stores or across several JSON files (OpenCode's
//! `opencode.db` and legacy `storage/` tree) through the real binary: sessions, sub-agent
//! links, pairing, failures and tokens; a row inserted by a live writer (uncheckpointed WAL)
//! adds exactly its events and only its session is re-read; the owner's files never change.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::{corpus_dir, corpus_store, fixtures_dir, index_into, query_count, query_rows};

const PARENT: &str = "ses_kiwi_parent0000000001";
const CHILD: &str = "ses_kiwi_child00000000002";
const LEGACY: &str = "ses_kiwi_legacy000000003";

fn opencode_fixtures() -> PathBuf {
    fixtures_dir().join("opencode")
}

fn text(row: &serde_json::Map<String, Value>, column: &str) -> String {
    row.get(column)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

fn session(data_dir: &Path, native_id: &str) -> serde_json::Map<String, Value> {
    let rows = query_rows(
        data_dir,
        &format!(
            "SELECT title, cwd, model, parent_session_id, input_tokens, cached_input_tokens, \
             output_tokens, reasoning_tokens, total_tokens, turn_count, completed, source \
             FROM sessions WHERE native_id = '{native_id}'"
        ),
    );
    assert_eq!(rows.len(), 1, "{native_id}: {rows:?}");
    rows[0].clone()
}

#[test]
fn opencode_store_and_tree_sessions_with_links_pairs_failures_and_tokens() {
    let data = tempfile::tempdir().expect("temp dir");
    let stderr = index_into(data.path(), &[&opencode_fixtures()]);
    assert!(stderr.contains("opencode_db=1"), "{stderr}");
    assert!(stderr.contains("opencode_tree=1"), "{stderr}");
    assert!(stderr.contains("0 failed"), "{stderr}");
    let data_dir = data.path();

    let parent = session(data_dir, PARENT);
    assert_eq!(text(&parent, "source"), "opencode");
    assert_eq!(text(&parent, "title"), "Kiwi build failure");
    assert_eq!(text(&parent, "cwd"), "/home/dev/kiwi");
    assert_eq!(text(&parent, "model"), "claude-sonnet-4-5");
    let number = |row: &serde_json::Map<String, Value>, column: &str| {
        row.get(column).and_then(Value::as_i64)
    };
    let input = (12 + 4000 + 500) + (5 + 4500);
    let output = (200 + 30) + 80;
    assert_eq!(number(&parent, "input_tokens"), Some(input));
    assert_eq!(number(&parent, "cached_input_tokens"), Some(4000 + 4500));
    assert_eq!(number(&parent, "output_tokens"), Some(output));
    assert_eq!(number(&parent, "reasoning_tokens"), Some(30));
    assert_eq!(number(&parent, "total_tokens"), Some(input + output));
    assert_eq!(parent["completed"], json!(true));

    let child = session(data_dir, CHILD);
    assert_eq!(
        text(&child, "parent_session_id"),
        format!("session:opencode-{PARENT}"),
        "the sub-agent session links to its parent"
    );
    assert_eq!(
        text(&child, "title"),
        "inspect Cargo.toml for the kiwi feature",
        "a default title gives way to the first prompt"
    );

    let events = query_rows(
        data_dir,
        &format!(
            "SELECT type, tool_name, tool_call_id, subtype, text FROM events \
             WHERE session_id = 'session:opencode-{PARENT}' ORDER BY seq"
        ),
    );
    let summary: Vec<(String, String, String)> = events
        .iter()
        .map(|row| {
            (
                text(row, "type"),
                text(row, "tool_call_id"),
                text(row, "subtype"),
            )
        })
        .collect();
    let expected = [
        ("user_input", "", ""),
        ("system", "", "synthetic"),
        ("reasoning", "", ""),
        ("tool_call", "toolu_kiwi_1", ""),
        ("tool_response", "toolu_kiwi_1", ""),
        ("tool_call", "toolu_kiwi_2", ""),
        ("tool_response", "toolu_kiwi_2", "error"),
        ("assistant_response", "", ""),
    ];
    let expected: Vec<(String, String, String)> = expected
        .iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect();
    assert_eq!(summary, expected);
    assert_eq!(text(&events[0], "text"), "why does the kiwi build fail");

    let legacy = session(data_dir, LEGACY);
    assert_eq!(text(&legacy, "title"), "Kiwi changelog");
    assert_eq!(number(&legacy, "total_tokens"), Some(2 + 9000 + 150));

    let again = index_into(data_dir, &[&opencode_fixtures()]);
    assert!(again.contains(" 0 ingested"), "{again}");
    assert!(again.contains("events: 0 new"), "{again}");
}

/// Every file of `dir` with its bytes (a store's files before and after esker read it).
pub fn files_and_bytes(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = fs::read_dir(dir)
        .expect("read dir")
        .filter_map(Result::ok)
        .map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            (name, fs::read(entry.path()).unwrap_or_default())
        })
        .collect();
    files.sort();
    files
}

/// A fixture store copied into a fresh tree and held open by its owner.
pub struct LiveStore {
    /// The tree esker indexes.
    pub logs: tempfile::TempDir,
    /// The owner's connection: WAL mode, never checkpointed, so rows it inserts stay in the
    /// `-wal` while esker reads.
    pub owner: rusqlite::Connection,
}

/// Copies the store `source` to `relative` (its database path) inside a fresh tree and opens
/// it as its owner would.
pub fn live_store(source: &Path, relative: &str) -> LiveStore {
    let logs = tempfile::tempdir().expect("temp dir");
    let database = logs.path().join(relative);
    fs::create_dir_all(database.parent().expect("parent")).expect("mkdir");
    fs::copy(source, &database).expect("copy store");
    let owner = rusqlite::Connection::open(&database).expect("owner opens");
    owner
        .execute_batch("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;")
        .expect("wal mode");
    LiveStore { logs, owner }
}

#[test]
fn a_row_a_live_writer_inserts_adds_exactly_its_events_and_the_store_is_untouched() {
    let LiveStore { logs, owner } =
        live_store(&opencode_fixtures().join("opencode.db"), "opencode.db");
    let data = tempfile::tempdir().expect("temp dir");
    index_into(data.path(), &[logs.path()]);
    let before = query_count(data.path(), "SELECT count(*) FROM events");

    let t = 1_770_718_000_000_i64;
    owner
        .execute(
            "INSERT INTO message VALUES ('msg_p4', ?1, ?2, ?2, ?3)",
            rusqlite::params![
                PARENT,
                t,
                json!({"role": "user", "time": {"created": t}}).to_string()
            ],
        )
        .expect("insert message");
    owner
        .execute(
            "INSERT INTO part VALUES ('prt_p4a', 'msg_p4', ?1, ?2, ?2, ?3)",
            rusqlite::params![
                PARENT,
                t,
                json!({"type": "text", "text": "and the kiwi docs?"}).to_string()
            ],
        )
        .expect("insert part");
    owner
        .execute(
            "UPDATE session SET time_updated = ?1 WHERE id = ?2",
            rusqlite::params![t, PARENT],
        )
        .expect("touch session");
    let owner_files = files_and_bytes(logs.path());
    assert!(
        owner_files
            .iter()
            .any(|(name, bytes)| name == "opencode.db-wal" && !bytes.is_empty()),
        "the new rows are still in the WAL"
    );

    let stderr = index_into(data.path(), &[logs.path()]);
    assert!(stderr.contains("events: 1 new"), "{stderr}");
    assert!(
        stderr.contains("(1 sessions, 9 events)"),
        "only the changed session is re-read: {stderr}"
    );
    assert_eq!(
        query_count(data.path(), "SELECT count(*) FROM events"),
        before + 1
    );
    assert_eq!(
        query_count(
            data.path(),
            "SELECT count(*) FROM events WHERE text = 'and the kiwi docs?'"
        ),
        1
    );
    assert_eq!(
        files_and_bytes(logs.path()),
        owner_files,
        "reading never changed the owner's files"
    );
    let again = index_into(data.path(), &[logs.path()]);
    assert!(again.contains("events: 0 new"), "{again}");

    // A deleted session leaves the index with its rows.
    owner
        .execute("DELETE FROM part WHERE session_id = ?1", [CHILD])
        .expect("delete parts");
    owner
        .execute("DELETE FROM message WHERE session_id = ?1", [CHILD])
        .expect("delete messages");
    owner
        .execute("DELETE FROM session WHERE id = ?1", [CHILD])
        .expect("delete session");
    index_into(data.path(), &[logs.path()]);
    assert_eq!(
        query_count(
            data.path(),
            &format!("SELECT count(*) FROM sessions WHERE native_id = '{CHILD}'")
        ),
        0
    );
}

#[test]
fn corpus_opencode_store_and_tree_are_read_and_left_unchanged() {
    let Some((data_dir, stderr)) = corpus_store() else {
        return;
    };
    assert!(stderr.contains("0 failed"), "{stderr}");
    let corpus = corpus_dir().expect("corpus").join("opencode");
    let database = corpus
        .join("suhd550-dev_stunning-memory/opencode.db")
        .canonicalize()
        .expect("store");
    assert!(
        stderr.contains(&format!("{:<17}  {}", "opencode_db", database.display())),
        "{stderr}"
    );
    for session in [
        "ses_53993b312ffeefelTsBlbUVXV8",
        "ses_539950424ffev4SAECXTZKSubM",
    ] {
        let key = corpus
            .join("jwp23_dotfiles/storage/message")
            .join(session)
            .canonicalize()
            .expect("session dir");
        assert!(
            stderr.contains(&format!("{:<17}  {}", "opencode_tree", key.display())),
            "{stderr}"
        );
    }
    assert_eq!(
        query_count(
            data_dir,
            "SELECT count(*) FROM sessions WHERE source = 'opencode' AND total_tokens > 0"
        ),
        3
    );
    let stray = walkdir::WalkDir::new(&corpus)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|entry| {
            let name = entry.file_name().to_string_lossy();
            name.ends_with(".db-wal") || name.ends_with(".db-shm")
        })
        .count();
    assert_eq!(stray, 0, "no -wal/-shm created beside the corpus store");
}

const KIMI: &str = "7d1e2f3a-0000-4000-8000-00000000d001";

fn kimi_folder(root: &Path) -> PathBuf {
    root.join(format!("sessions/5f0c1c0e3a6b4d2e9f8a7b6c5d4e3f2a/{KIMI}"))
}

#[test]
fn kimi_session_folders_are_one_session_with_pairs_failures_tokens_and_appends() {
    let logs = tempfile::tempdir().expect("temp dir");
    let folder = kimi_folder(logs.path());
    fs::create_dir_all(&folder).expect("mkdir");
    for name in [
        "wire.jsonl",
        "context.jsonl",
        "context_sub_1.jsonl",
        "state.json",
    ] {
        fs::copy(
            kimi_folder(&fixtures_dir().join("kimi")).join(name),
            folder.join(name),
        )
        .expect("copy fixture");
    }
    let data = tempfile::tempdir().expect("temp dir");
    let stderr = index_into(data.path(), &[logs.path()]);
    assert!(stderr.contains("kimi=1"), "{stderr}");
    let data_dir = data.path();
    let row = session(data_dir, KIMI);
    assert_eq!(text(&row, "source"), "kimi");
    assert_eq!(text(&row, "title"), "Lynx fixture count");
    assert_eq!(text(&row, "cwd"), "/home/dev/zoo");
    let input = (300 + 2000 + 100) + (120 + 2300) + (50 + 2400);
    let output = 40 + 30 + 12;
    assert_eq!(row.get("input_tokens").and_then(Value::as_i64), Some(input));
    assert_eq!(
        row.get("total_tokens").and_then(Value::as_i64),
        Some(input + output)
    );
    assert_eq!(row.get("turn_count").and_then(Value::as_i64), Some(2));
    let sub_agent = session(data_dir, &format!("{KIMI}-sub-1"));
    assert_eq!(
        text(&sub_agent, "parent_session_id"),
        format!("session:kimi-{KIMI}"),
        "context_sub_1.jsonl is a child session of the folder's session"
    );
    assert_eq!(
        text(&sub_agent, "title"),
        "find which lynx fixture is stale"
    );
    assert_eq!(text(&sub_agent, "cwd"), "/home/dev/zoo");
    let sub_responses = query_rows(
        data_dir,
        &format!(
            "SELECT subtype FROM events WHERE session_id = 'session:kimi-{KIMI}-sub-1' \
             AND type = 'tool_response' ORDER BY seq"
        ),
    );
    assert_eq!(text(&sub_responses[0], "subtype"), "error");
    assert_eq!(sub_responses.len(), 2);
    let responses = query_rows(
        data_dir,
        &format!(
            "SELECT tool_name, tool_call_id, subtype FROM events WHERE session_id = \
             'session:kimi-{KIMI}' AND type = 'tool_response' ORDER BY seq"
        ),
    );
    let summary: Vec<(String, String, String)> = responses
        .iter()
        .map(|row| {
            (
                text(row, "tool_name"),
                text(row, "tool_call_id"),
                text(row, "subtype"),
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            ("Shell".into(), "tool_lynx_1".into(), "error".into()),
            ("Shell".into(), "tool_lynx_2".into(), String::new()),
        ]
    );
    let payload = query_rows(
        data_dir,
        "SELECT payload FROM events WHERE tool_call_id = 'tool_lynx_1' AND type = 'tool_call'",
    );
    assert_eq!(
        text(&payload[0], "payload"),
        r#"{"command":"ls fixtures/lynx"}"#,
        "streamed argument fragments are joined"
    );

    // An appended step adds exactly its events; a changed state.json alone re-reads the folder.
    let mut wire = fs::OpenOptions::new()
        .append(true)
        .open(folder.join("wire.jsonl"))
        .expect("open wire");
    use std::io::Write;
    for record in [
        json!({"timestamp": 1770804100.0, "message": {"type": "TurnBegin",
            "payload": {"user_input": "the ocelot ones, please"}}}),
        json!({"timestamp": 1770804101.0, "message": {"type": "ContentPart",
            "payload": {"type": "text", "text": "There are no ocelot fixtures."}}}),
    ] {
        writeln!(wire, "{record}").expect("append");
    }
    drop(wire);
    let stderr = index_into(data_dir, &[logs.path()]);
    assert!(stderr.contains("events: 2 new"), "{stderr}");
    fs::write(
        folder.join("state.json"),
        r#"{"title": "Lynx and ocelot", "workDir": "/home/dev/zoo"}"#,
    )
    .expect("state");
    let stderr = index_into(data_dir, &[logs.path()]);
    assert!(stderr.contains("events: 0 new"), "{stderr}");
    assert_eq!(text(&session(data_dir, KIMI), "title"), "Lynx and ocelot");
}

const IBIS: &str = "sess-ibis-0001";

#[test]
fn kimi_code_sessions_with_sub_agents_tools_failures_usage_and_appends() {
    let logs = tempfile::tempdir().expect("temp dir");
    let source = fixtures_dir().join("kimi-code");
    for entry in walkdir::WalkDir::new(&source) {
        let entry = entry.expect("walk");
        let target = logs
            .path()
            .join(entry.path().strip_prefix(&source).expect("inside"));
        if entry.file_type().is_dir() {
            fs::create_dir_all(&target).expect("mkdir");
        } else {
            fs::copy(entry.path(), &target).expect("copy");
        }
    }
    let data = tempfile::tempdir().expect("temp dir");
    let data_dir = data.path();
    let stderr = index_into(data_dir, &[logs.path()]);
    assert!(stderr.contains("kimi_code=1"), "{stderr}");
    let main = session(data_dir, IBIS);
    assert_eq!(text(&main, "source"), "kimi");
    assert_eq!(text(&main, "title"), "Ibis nest logs");
    assert_eq!(text(&main, "cwd"), "/srv/ibis");
    assert_eq!(main.get("input_tokens").and_then(Value::as_i64), Some(4200));
    assert_eq!(
        main.get("cached_input_tokens").and_then(Value::as_i64),
        Some(3000)
    );
    assert_eq!(main.get("output_tokens").and_then(Value::as_i64), Some(180));
    assert_eq!(main["completed"], json!(true));
    let sub_agent = session(data_dir, &format!("{IBIS}-explore-1"));
    assert_eq!(
        text(&sub_agent, "parent_session_id"),
        format!("session:kimi-{IBIS}")
    );
    assert_eq!(
        text(&sub_agent, "title"),
        "find where ibis nest logs are written"
    );
    let events = query_rows(
        data_dir,
        &format!(
            "SELECT type, tool_name, subtype FROM events WHERE session_id = 'session:kimi-{IBIS}' \
             ORDER BY seq"
        ),
    );
    let kinds: Vec<String> = events.iter().map(|row| text(row, "type")).collect();
    assert_eq!(
        kinds,
        [
            "user_input",
            "system",
            "reasoning",
            "tool_call",
            "tool_response",
            "tool_call",
            "tool_response",
            "assistant_response"
        ],
        "the prompt's echo is dropped; the injected reminder is system"
    );
    assert_eq!(text(&events[4], "subtype"), "error");
    assert_eq!(text(&events[6], "tool_name"), "Task");
    crate::harnesses::assert_tools_paired(data_dir);

    let wire = logs
        .path()
        .join("sessions/9c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f")
        .join(IBIS)
        .join("agents/main/wire.jsonl");
    let mut file = fs::OpenOptions::new()
        .append(true)
        .open(&wire)
        .expect("open");
    use std::io::Write;
    for record in [
        json!({"type": "turn.prompt", "time": "2026-02-14T09:01:00Z", "input": "and yesterday's?"}),
        json!({"type": "context.append_loop_event", "time": "2026-02-14T09:01:02Z",
            "event": {"type": "content.part", "part": {"type": "text", "text": "Yesterday's are rotated to nests.log.1."}}}),
    ] {
        writeln!(file, "{record}").expect("append");
    }
    drop(file);
    let stderr = index_into(data_dir, &[logs.path()]);
    assert!(stderr.contains("events: 2 new"), "{stderr}");
    let stderr = index_into(data_dir, &[logs.path()]);
    assert!(stderr.contains("events: 0 new"), "{stderr}");
}

#[test]
fn corpus_kimi_session_is_read() {
    let Some((data_dir, stderr)) = corpus_store() else {
        return;
    };
    let folder = corpus_dir()
        .expect("corpus")
        .join("kimi/youngstunners88_ihhashi/sessions/697a0ebec3147bb421a9dd6a0531906f/0be84c98-0aeb-48c3-aa42-0fb8330914ef")
        .canonicalize()
        .expect("folder");
    assert!(
        stderr.contains(&format!("{:<17}  {}", "kimi", folder.display())),
        "{stderr}"
    );
    assert_eq!(
        query_count(
            data_dir,
            "SELECT count(*) FROM sessions WHERE source = 'kimi' AND total_tokens > 0"
        ),
        1
    );
}

#[test]
fn goose_store_sessions_with_tools_failures_and_session_usage() {
    let data = tempfile::tempdir().expect("temp dir");
    let stderr = index_into(data.path(), &[&fixtures_dir().join("goose")]);
    assert!(stderr.contains("goose_db=1"), "{stderr}");
    let row = session(data.path(), "20260212_1");
    assert_eq!(text(&row, "source"), "goose");
    assert_eq!(text(&row, "title"), "Heron report");
    assert_eq!(text(&row, "cwd"), "/srv/heron");
    assert_eq!(row.get("total_tokens").and_then(Value::as_i64), Some(5300));
    assert_eq!(row["completed"], json!(true));
    let responses = query_rows(
        data.path(),
        "SELECT tool_name, tool_call_id, subtype, text FROM events WHERE \
         session_id = 'session:goose-20260212_1' AND type = 'tool_response' ORDER BY seq",
    );
    assert_eq!(responses.len(), 2);
    assert_eq!(text(&responses[0], "tool_name"), "developer__shell");
    assert_eq!(text(&responses[0], "subtype"), "error");
    assert_eq!(text(&responses[1], "text"), "Herons: 12 nests, 30 chicks.");
    let again = index_into(data.path(), &[&fixtures_dir().join("goose")]);
    assert!(again.contains(" 0 ingested"), "{again}");
}

#[test]
fn goose_legacy_jsonl_sessions_with_tools_failures_usage_and_appends() {
    let data = tempfile::tempdir().expect("temp dir");
    let legacy = fixtures_dir().join("goose/legacy-sessions");
    let stderr = index_into(data.path(), &[&legacy]);
    assert!(stderr.contains("goose_jsonl=1"), "{stderr}");
    let row = session(data.path(), "20250301_121500");
    assert_eq!(text(&row, "source"), "goose");
    assert_eq!(text(&row, "title"), "Kestrel nest count");
    assert_eq!(text(&row, "cwd"), "/srv/kestrel");
    assert_eq!(row.get("input_tokens").and_then(Value::as_i64), Some(1900));
    assert_eq!(row.get("total_tokens").and_then(Value::as_i64), Some(2100));
    assert_eq!(row["completed"], json!(true));
    let responses = query_rows(
        data.path(),
        "SELECT tool_name, subtype FROM events WHERE session_id = 'session:goose-20250301_121500' \
         AND type = 'tool_response' ORDER BY seq",
    );
    assert_eq!(responses.len(), 2);
    assert_eq!(text(&responses[0], "tool_name"), "developer__shell");
    assert_eq!(text(&responses[0], "subtype"), "error");
    crate::harnesses::assert_append_adds(&legacy.join("20250301_121500.jsonl"), 4, 3);
}

#[test]
fn corpus_goose_store_is_recognised() {
    let Some((_, stderr)) = corpus_store() else {
        return;
    };
    let database = corpus_dir()
        .expect("corpus")
        .join("goose/jwp23_dotfiles/sessions/sessions.db")
        .canonicalize()
        .expect("store");
    assert!(
        stderr.contains(&format!(
            "{:<17}  {} (0 sessions",
            "goose_db",
            database.display()
        )),
        "the real store (one session, no messages yet) is recognised: {stderr}"
    );
}

const OTTER: &str = "otter-parent-0001";
const OTTER_AGENT: &str = "call_otter_2";

fn crush_project() -> PathBuf {
    fixtures_dir().join("crush/otter")
}

#[test]
fn crush_store_sessions_with_sub_agent_link_pairs_failures_errors_and_usage() {
    let data = tempfile::tempdir().expect("temp dir");
    let stderr = index_into(data.path(), &[&fixtures_dir().join("crush")]);
    assert!(stderr.contains("crush_db=1"), "{stderr}");
    assert!(stderr.contains("0 failed"), "{stderr}");
    let data_dir = data.path();
    let parent = session(data_dir, OTTER);
    assert_eq!(text(&parent, "source"), "crush");
    assert_eq!(text(&parent, "title"), "Otter survey");
    let project = crush_project().canonicalize().expect("project");
    assert_eq!(
        text(&parent, "cwd"),
        project.to_string_lossy(),
        "the project holding .crush/ is the working directory"
    );
    assert_eq!(text(&parent, "model"), "gpt-4o");
    assert_eq!(
        parent.get("input_tokens").and_then(Value::as_i64),
        Some(5200)
    );
    assert_eq!(
        parent.get("output_tokens").and_then(Value::as_i64),
        Some(310)
    );
    assert_eq!(parent.get("turn_count").and_then(Value::as_i64), Some(2));

    let child = session(data_dir, OTTER_AGENT);
    assert_eq!(
        text(&child, "parent_session_id"),
        format!("session:crush-{OTTER}"),
        "the agent tool's session links to its parent"
    );
    assert_eq!(
        text(&child, "title"),
        "find the otter survey file",
        "Crush's default title gives way to the first prompt"
    );

    let events = query_rows(
        data_dir,
        &format!(
            "SELECT type, tool_name, tool_call_id, subtype, terminal, text FROM events \
             WHERE session_id = 'session:crush-{OTTER}' ORDER BY seq"
        ),
    );
    let summary: Vec<(String, String, String)> = events
        .iter()
        .map(|row| {
            (
                text(row, "type"),
                text(row, "tool_name"),
                text(row, "subtype"),
            )
        })
        .collect();
    let expected = [
        ("user_input", "", ""),
        ("reasoning", "", ""),
        ("tool_call", "bash", ""),
        ("tool_response", "bash", "error"),
        ("tool_call", "agent", ""),
        ("tool_response", "agent", ""),
        ("tool_call", "view", ""),
        ("tool_response", "view", ""),
        ("assistant_response", "", ""),
        ("user_input", "", ""),
        ("runtime", "", "error"),
    ];
    let expected: Vec<(String, String, String)> = expected
        .iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect();
    assert_eq!(summary, expected);
    assert_eq!(
        text(&events[0], "text"),
        "how many otters are in the survey?"
    );
    assert_eq!(events[8]["terminal"], json!(true));
    assert_eq!(
        events[10]["terminal"],
        json!(true),
        "an API error ends its turn"
    );
    crate::harnesses::assert_tools_paired(data_dir);

    let again = index_into(data_dir, &[&fixtures_dir().join("crush")]);
    assert!(again.contains(" 0 ingested"), "{again}");
}

#[test]
fn crush_rows_a_live_writer_inserts_add_exactly_their_events() {
    let LiveStore { logs, owner } = live_store(
        &crush_project().join(".crush/crush.db"),
        "otter/.crush/crush.db",
    );
    let store_dir = logs.path().join("otter/.crush");
    let data = tempfile::tempdir().expect("temp dir");
    index_into(data.path(), &[logs.path()]);
    let before = query_count(data.path(), "SELECT count(*) FROM events");

    let t = 1_770_973_300_i64;
    for (id, role, parts) in [
        (
            "m-otter-11",
            "user",
            json!([{"type": "text", "data": {"text": "count the beavers too"}}]),
        ),
        (
            "m-otter-12",
            "assistant",
            json!([{"type": "text", "data": {"text": "No beavers were surveyed."}},
                {"type": "finish", "data": {"reason": "end_turn", "time": t + 2}}]),
        ),
    ] {
        owner
            .execute(
                "INSERT INTO messages (id, session_id, role, parts, model, created_at, updated_at) \
                 VALUES (?1, ?2, ?3, ?4, 'gpt-4o', ?5, ?5)",
                rusqlite::params![id, OTTER, role, parts.to_string(), t],
            )
            .expect("insert message");
    }
    let owner_files = files_and_bytes(&store_dir);
    let stderr = index_into(data.path(), &[logs.path()]);
    assert!(stderr.contains("events: 2 new"), "{stderr}");
    assert!(
        stderr.contains("(1 sessions, 13 events)"),
        "only the changed session is re-read: {stderr}"
    );
    assert_eq!(
        query_count(data.path(), "SELECT count(*) FROM events"),
        before + 2
    );
    assert_eq!(
        files_and_bytes(&store_dir),
        owner_files,
        "reading never changed the owner's files"
    );
    let again = index_into(data.path(), &[logs.path()]);
    assert!(again.contains("events: 0 new"), "{again}");
}

#[test]
fn corpus_crush_store_is_read_with_its_wal_and_left_unchanged() {
    let Some((data_dir, stderr)) = corpus_store() else {
        return;
    };
    let store_dir = corpus_dir()
        .expect("corpus")
        .join("crush/gleicon_mcpfier/.crush");
    let before = files_and_bytes(&store_dir);
    let database = store_dir.join("crush.db").canonicalize().expect("store");
    assert!(
        stderr.contains(&format!(
            "{:<17}  {} (3 sessions",
            "crush_db",
            database.display()
        )),
        "{stderr}"
    );
    // The three sessions live in the uncheckpointed WAL: 60 messages.
    assert!(
        query_count(
            data_dir,
            "SELECT count(*) FROM events WHERE source = 'crush' AND type = 'user_input'"
        ) >= 10
    );
    assert_eq!(
        query_count(
            data_dir,
            "SELECT count(*) FROM events WHERE source = 'crush' AND type = 'tool_response' \
             AND subtype = 'error'"
        ),
        2
    );
    assert_eq!(files_and_bytes(&store_dir), before);
}
