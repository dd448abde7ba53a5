//! VS Code chat sessions (`vscode-copilot`): a home holding VS Code's user directory at its
//! Linux place and VS Code Insiders' at its macOS place (`tests/standalone-fixtures/
//! vscode-copilot`), indexed with no PATH. Operation logs are replayed, a `.json` left beside
//! its `.jsonl` is never read, `workspace.json` gives the working directory, another
//! extension's files in the workspace storage are never read, and a half-written snapshot, a
//! malformed log line and a log entry whose path is missing are skipped with counted warnings;
//! once the snapshot is whole and the log's last line complete, a pass adds exactly their events.

use std::fs;
use std::io::Write;
use std::path::Path;

use serde_json::{Value, json};

use super::index_home;
use super::{assert_tools_paired, count, rows, texts};
use crate::support::copy_tree;
use crate::support::{corpus_dir, corpus_store, query_count, standalone_fixture};

const HERON: &str = "3b1f6c2e-8d4a-4f7b-9c1e-0a2b3c4d5e6f";
const FLOCK: &str = "7c9d0e1f-2a3b-4c5d-8e6f-7a8b9c0d1e2f";
const HALF_WRITTEN: &str = "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b";
const EGRET: &str = "4a5b6c7d-8e9f-4a0b-9c1d-2e3f4a5b6c7d";
const EMPTY_WINDOW: &str = "1f2e3d4c-5b6a-4978-8a6b-5c4d3e2f1a0b";
const KESTREL: &str = "6d5c4b3a-2f1e-4d0c-9b8a-7f6e5d4c3b2a";

const HERON_CHATS: &str =
    ".config/Code/User/workspaceStorage/5f1c0a9e3d7b2c4a8e6f1d0b9a7c3e52/chatSessions";
const EGRET_CHATS: &str =
    ".config/Code/User/workspaceStorage/9ab4e2d17c6f0a3b5d8e2c4f6a1b3d70/chatSessions";

/// A temp home with the fixture's `Code` user directory under `~/.config` and its `Code -
/// Insiders` one under `~/Library/Application Support`.
fn home_with_fixtures() -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("temp dir");
    let fixture = standalone_fixture("vscode-copilot");
    copy_tree(&fixture.join("Code"), &home.path().join(".config/Code"));
    copy_tree(
        &fixture.join("Code - Insiders"),
        &home
            .path()
            .join("Library/Application Support/Code - Insiders"),
    );
    home
}

/// A column of a query row; `null` when the row leaves it out (query output omits nulls).
fn field(row: &serde_json::Map<String, Value>, name: &str) -> Value {
    row.get(name).cloned().unwrap_or(Value::Null)
}

#[test]
fn vscode_chat_sessions_are_read_from_a_home_with_exact_counts() {
    let home = home_with_fixtures();
    let data = tempfile::tempdir().expect("temp dir");
    let dir = data.path();
    let stderr = index_home(home.path(), dir);
    for expected in [
        "files: 6 seen, 6 ingested",
        "formats: vscode_chat=6;",
        "sessions: 5;",
        "events: 33 new",
        "malformed lines: 1;",
        "parser warnings: 2;",
        "vscode-copilot: 1 unknown record type: response:egretCensus \u{d7}1",
    ] {
        assert!(stderr.contains(expected), "{expected}: {stderr}");
    }

    let sessions = rows(
        dir,
        "SELECT native_id, source, title, cwd, model, harness_version, turn_count, event_count, \
         input_tokens, output_tokens, total_tokens FROM sessions ORDER BY native_id",
    );
    let summary: Vec<Value> = sessions
        .iter()
        .map(|row| {
            let columns = [
                "native_id",
                "title",
                "cwd",
                "model",
                "turn_count",
                "event_count",
                "input_tokens",
                "output_tokens",
            ];
            Value::Array(columns.iter().map(|name| field(row, name)).collect())
        })
        .collect();
    assert_eq!(
        summary,
        [
            json!([
                EMPTY_WINDOW,
                "Regex for ISO dates",
                null,
                null,
                1,
                2,
                null,
                null
            ]),
            json!([
                HERON,
                "Heron count off by one",
                "/home/dev/heron",
                "claude-sonnet-4.5",
                3,
                18,
                21500 + 23000,
                640 + 90
            ]),
            json!([
                EGRET,
                "count the egrets in survey.csv",
                "/home/dev/My Egret",
                "gpt-4.1",
                1,
                3,
                900,
                30
            ]),
            json!([
                KESTREL,
                "Kestrel cache issues",
                "/srv/kestrel",
                "claude-sonnet-4.5",
                1,
                6,
                5000,
                200
            ]),
            json!([
                FLOCK,
                "What flock means",
                "/home/dev/heron",
                "gpt-4.1",
                2,
                4,
                1800,
                45
            ]),
        ]
    );
    assert!(sessions.iter().all(|row| row["source"] == "vscode-copilot"));
    assert_eq!(
        sessions[1]["harness_version"], "0.37.4",
        "Copilot Chat's version"
    );
    assert_eq!(sessions[4]["total_tokens"], 1800 + 45);
    assert_eq!(
        count(dir, "SELECT count(*) FROM sessions WHERE cwd IS NOT NULL"),
        4,
        "every workspace session has its folder; the empty window's has none"
    );
    assert_eq!(count(dir, "SELECT count(*) FROM turns"), 8);
    assert_eq!(count(dir, "SELECT count(*) FROM events"), 33);

    let by_type: Vec<Value> = rows(
        dir,
        "SELECT type, count(*) AS n FROM events GROUP BY type ORDER BY type",
    )
    .iter()
    .map(|row| json!([row["type"], row["n"]]))
    .collect();
    assert_eq!(
        by_type,
        [
            json!(["assistant_response", 9]),
            json!(["reasoning", 1]),
            json!(["runtime", 2]),
            json!(["tool_call", 6]),
            json!(["tool_response", 6]),
            json!(["unknown", 1]),
            json!(["user_input", 8]),
        ]
    );
    assert_tools_paired(dir);

    let responses: Vec<Value> = rows(
        dir,
        "SELECT tool_name, tool_call_id, subtype, exit_code FROM events \
         WHERE type = 'tool_response' ORDER BY session_id, seq",
    )
    .iter()
    .map(|row| {
        let columns = ["tool_name", "tool_call_id", "subtype", "exit_code"];
        Value::Array(columns.iter().map(|name| field(row, name)).collect())
    })
    .collect();
    assert_eq!(
        responses,
        [
            json!(["run_in_terminal", "call_heron1", "error", 101]),
            json!(["copilot_readFile", "call_heron2", null, null]),
            json!(["copilot_replaceString", "call_heron3", null, null]),
            json!(["run_in_terminal", "call_heron4", "error", null]),
            json!(["runSubagent", "toolu_kestrel1", null, null]),
            json!(["mcp_github_list_issues", "toolu_kestrel2", null, null]),
        ],
        "a non-zero exit code and a denied call are failures"
    );
    let read_call = texts(
        dir,
        "SELECT payload FROM events WHERE type = 'tool_call' AND tool_name = 'copilot_readFile'",
    );
    let arguments: Value = serde_json::from_str(&read_call[0]).expect("payload is JSON");
    assert_eq!(
        arguments,
        json!({"filePath": "/home/dev/heron/src/count.rs", "startLine": 1, "endLine": 40}),
        "the call's arguments come from Copilot's tool-call rounds"
    );
    assert_eq!(
        texts(
            dir,
            "SELECT text FROM events WHERE type = 'tool_response' AND tool_name = 'mcp_github_list_issues'"
        ),
        ["#41 cache evicts hot keys\n#57 cache warm-up is slow"]
    );
    assert_eq!(
        texts(
            dir,
            &format!(
                "SELECT text FROM events WHERE type = 'assistant_response' \
                 AND session_id = 'session:vscode-copilot-{HERON}' ORDER BY seq"
            )
        ),
        [
            "Let me run the test.",
            "The test expects 12 herons but `count.rs` counts 11.",
            "Fixed: the off-by-one in `count_herons`.",
            "You skipped the test run; tell me when to try again.",
            "Bumping the",
        ],
        "markdown parts and inline references between them are one reply"
    );
    assert_eq!(
        texts(
            dir,
            "SELECT subtype FROM events WHERE type = 'runtime' ORDER BY session_id"
        ),
        ["cancelled", "error"]
    );
    assert_eq!(
        count(dir, "SELECT count(*) FROM events WHERE text LIKE '%stale%'"),
        0,
        "the snapshot beside an operation log is stale and never read"
    );
    assert_eq!(
        count(
            dir,
            "SELECT count(*) FROM events WHERE text LIKE '%not a session%'"
        ),
        0
    );

    let again = index_home(home.path(), dir);
    assert!(again.contains("events: 0 new"), "{again}");
    assert!(again.contains("6 unchanged"), "{again}");
}

#[test]
fn a_half_written_snapshot_and_log_line_are_read_once_complete() {
    let home = home_with_fixtures();
    let data = tempfile::tempdir().expect("temp dir");
    let first = index_home(home.path(), data.path());
    assert!(first.contains("sessions: 5;"), "{first}");

    let snapshot = home
        .path()
        .join(HERON_CHATS)
        .join(format!("{HALF_WRITTEN}.json"));
    let whole = json!({"version": 3, "sessionId": HALF_WRITTEN, "creationDate": 1767229200000_i64,
        "initialLocation": "panel", "responderUsername": "GitHub Copilot",
        "requests": [{"requestId": "request_c1", "timestamp": 1767229201000_i64,
            "message": {"text": "half-written question, now whole", "parts": []},
            "variableData": {"variables": []}, "modelId": "copilot/gpt-4.1",
            "response": [{"value": "Answered."}], "isCanceled": false}]});
    fs::write(
        &snapshot,
        serde_json::to_string_pretty(&whole).expect("json"),
    )
    .expect("write");
    let log = home.path().join(EGRET_CHATS).join(format!("{EGRET}.jsonl"));
    let mut file = fs::OpenOptions::new()
        .append(true)
        .open(&log)
        .expect("open log");
    file.write_all(
        b" herons?\",\"parts\":[]},\"timestamp\":1767226000000,\"modelId\":\"copilot/gpt-4.1\",\
          \"variableData\":{\"variables\":[]},\"response\":[]}]}\n\
          {\"kind\":2,\"k\":[\"requests\",1,\"response\"],\"v\":[{\"value\":\"No herons in survey.csv.\"}]}\n",
    )
    .expect("append");
    drop(file);

    let second = index_home(home.path(), data.path());
    assert!(second.contains("events: 4 new"), "{second}");
    assert!(
        second.contains("parser warnings: 1;"),
        "only the log's missing path is left: {second}"
    );
    assert_eq!(count(data.path(), "SELECT count(*) FROM sessions"), 6);
    assert_eq!(
        texts(
            data.path(),
            &format!(
                "SELECT text FROM events WHERE type = 'user_input' \
                 AND session_id = 'session:vscode-copilot-{EGRET}' ORDER BY seq"
            )
        ),
        ["count the egrets in survey.csv", "and the herons?"]
    );
}

/// The chat session files under `dir` (files of a `chatSessions` or `emptyWindowChatSessions`
/// folder).
fn chat_session_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(chat_session_files(&path));
        } else if esker::ingest::vscode_copilot::key_of(&path).is_some() {
            found.push(path);
        }
    }
    found
}

#[test]
fn corpus_vscode_chat_sessions_are_read_when_the_corpus_has_some() {
    let Some(corpus) = corpus_dir() else {
        eprintln!("SKIPPED: ../shared/corpus is absent; no real VS Code chat sessions checked");
        return;
    };
    let files = chat_session_files(&corpus);
    if files.is_empty() {
        eprintln!(
            "SKIPPED: ../shared/corpus holds no VS Code chat session (chatSessions/*.json[l]); \
             only the fixtures are checked"
        );
        return;
    }
    let Some((data_dir, stderr)) = corpus_store() else {
        return;
    };
    assert!(stderr.contains("vscode_chat="), "{stderr}");
    assert!(
        query_count(
            data_dir,
            "SELECT count(*) FROM sessions WHERE source = 'vscode-copilot'"
        ) > 0,
        "{} chat session files in the corpus: {files:?}",
        files.len()
    );
}
