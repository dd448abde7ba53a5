//! Kiro CLI (`kiro`) and Amazon Q Developer CLI (`amazon-q`): a home holding every real Kiro CLI
//! session published in `ingo-eichhorst/Irrlicht` (`replaydata/agents/kiro-cli`, recorded from
//! live Kiro CLI 2.5 and later, copied to `tests/standalone-fixtures/kiro/irrlicht`) as
//! `~/.kiro/sessions/cli/<id>.jsonl` (with `<id>.json` where the recording has one), and the
//! SQLite stores `generate.py` writes at `~/.local/share/kiro-cli/data.sqlite3` and
//! `~/.local/share/amazon-q/data.sqlite3`, indexed with no PATH. Every count is also taken from
//! the raw files and rows by this test's own reading; resume, `esker doctor`, an appended turn
//! and a saved-again conversation are checked too, and the CLI's secrets are never read.

use std::fs;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};
use serde_json::{Value, json};

use super::{
    Counts, assert_rest_adds, assert_tools_paired, doctor, head_lines, index_home, indexed_counts,
    location, number, resume_line, rows, texts,
};
use crate::support::standalone_fixture;

const SESSIONS: &str = ".kiro/sessions/cli";
const KIRO_STORE: &str = ".local/share/kiro-cli/data.sqlite3";
const Q_STORE: &str = ".local/share/amazon-q/data.sqlite3";

/// The recordings: `(name in ~/.kiro/sessions/cli, transcript, metadata)`; the name is the
/// metadata's session id, else the recording's scenario and folder.
fn recordings() -> Vec<(String, PathBuf, Option<PathBuf>)> {
    let root = standalone_fixture("kiro").join("irrlicht");
    let mut found: Vec<(String, PathBuf, Option<PathBuf>)> = walkdir::WalkDir::new(&root)
        .into_iter()
        .map(|entry| entry.expect("walk").into_path())
        .filter(|path| {
            path.file_name()
                .is_some_and(|name| name == "transcript.jsonl")
        })
        .map(|transcript| {
            let metadata = transcript.with_extension("json");
            let metadata = metadata.is_file().then_some(metadata);
            let id = metadata
                .as_ref()
                .and_then(|path| read_json(path)["session_id"].as_str().map(str::to_string));
            let recording = transcript.parent().expect("recording");
            let fallback = format!(
                "{}-{}",
                recording
                    .parent()
                    .and_then(Path::parent)
                    .and_then(Path::file_name)
                    .map(|name| name.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                recording
                    .file_name()
                    .map(|name| name.to_string_lossy()[..19].to_string())
                    .unwrap_or_default()
            );
            (id.unwrap_or(fallback), transcript, metadata)
        })
        .collect();
    found.sort();
    found
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).expect("read")).expect("JSON")
}

/// A temp home with every recording in Kiro's session folder and both stores.
fn home_with_fixtures() -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("temp dir");
    let sessions = home.path().join(SESSIONS);
    fs::create_dir_all(&sessions).expect("mkdir");
    for (name, transcript, metadata) in recordings() {
        fs::copy(&transcript, sessions.join(format!("{name}.jsonl"))).expect("copy transcript");
        if let Some(metadata) = metadata {
            fs::copy(&metadata, sessions.join(format!("{name}.json"))).expect("copy metadata");
        }
    }
    let stores = standalone_fixture("kiro").join("stores");
    for (from, to) in [("kiro-cli", KIRO_STORE), ("amazon-q", Q_STORE)] {
        let target = home.path().join(to);
        fs::create_dir_all(target.parent().expect("parent")).expect("mkdir");
        fs::copy(stores.join(from).join("data.sqlite3"), &target).expect("copy store");
    }
    home
}

/// The text blocks of a session file's record.
fn text_blocks(record: &Value) -> String {
    record["data"]["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|block| block["kind"] == "text")
        .filter_map(|block| block["data"].as_str())
        .collect::<Vec<_>>()
        .join("")
}

fn file_counts(files: &[PathBuf]) -> Counts {
    let mut counts = Counts::default();
    for file in files {
        counts.sessions += 1;
        for line in fs::read_to_string(file).expect("transcript").lines() {
            if line.trim().is_empty() {
                continue;
            }
            let record: Value = serde_json::from_str(line).expect("JSON line");
            let blocks = record["data"]["content"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let nonempty = !text_blocks(&record).trim().is_empty();
            match record["kind"].as_str() {
                Some("Prompt") => counts.prompts += i64::from(nonempty),
                Some("AssistantMessage") => {
                    counts.replies += i64::from(nonempty);
                    counts.calls += blocks.iter().filter(|b| b["kind"] == "toolUse").count() as i64;
                }
                Some("ToolResults") => {
                    for block in blocks.iter().filter(|b| b["kind"] == "toolResult") {
                        counts.results += 1;
                        let exit = block["data"]["content"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter_map(|part| part["data"]["exit_status"].as_str())
                            .map(|status| {
                                status.rsplit(':').next().unwrap_or("").trim().to_string()
                            })
                            .next();
                        let failed = block["data"]["status"] != "success"
                            || exit.is_some_and(|code| code != "0");
                        counts.failed += i64::from(failed);
                    }
                }
                _ => {}
            }
        }
    }
    counts
}

/// The newest row of every conversation of a store (`conversations_v2`, or Amazon Q's
/// `conversations`, whose rows are one conversation each); rows that are not JSON are `Null`.
fn conversations(store: &Path, kiro: bool) -> Vec<Value> {
    let connection =
        Connection::open_with_flags(store, OpenFlags::SQLITE_OPEN_READ_ONLY).expect("open store");
    let sql = if kiro {
        "SELECT value FROM conversations_v2 c WHERE updated_at = (SELECT max(updated_at) \
         FROM conversations_v2 d WHERE d.conversation_id = c.conversation_id) \
         ORDER BY conversation_id"
    } else {
        "SELECT value FROM conversations ORDER BY key"
    };
    let mut statement = connection.prepare(sql).expect("prepare");
    let values = statement
        .query_map([], |row| row.get::<_, String>(0))
        .expect("query");
    values
        .map(|value| serde_json::from_str(&value.expect("row")).unwrap_or(Value::Null))
        .collect()
}

fn store_counts(states: &[Value]) -> Counts {
    let mut counts = Counts::default();
    // A row whose value is not JSON holds no conversation to read.
    for state in states.iter().filter(|state| state.is_object()) {
        counts.sessions += 1;
        for entry in state["history"].as_array().into_iter().flatten() {
            let content = &entry["user"]["content"];
            for prompt in [
                &content["Prompt"]["prompt"],
                &content["CancelledToolUses"]["prompt"],
            ] {
                counts.prompts += i64::from(prompt.as_str().is_some_and(|text| !text.is_empty()));
            }
            for variant in ["ToolUseResults", "CancelledToolUses"] {
                for result in content[variant]["tool_use_results"]
                    .as_array()
                    .into_iter()
                    .flatten()
                {
                    counts.results += 1;
                    let exit = result["content"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .find_map(|block| block["Json"]["exit_status"].as_str());
                    let failed =
                        result["status"] == "Error" || exit.is_some_and(|code| code != "0");
                    counts.failed += i64::from(failed);
                }
            }
            let assistant = &entry["assistant"];
            for variant in ["Response", "ToolUse"] {
                let text = assistant[variant]["content"].as_str().unwrap_or("");
                counts.replies += i64::from(!text.is_empty());
                counts.calls += assistant[variant]["tool_uses"]
                    .as_array()
                    .map_or(0, |calls| calls.len() as i64);
            }
        }
    }
    counts
}

fn session_files(home: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(home.join(SESSIONS))
        .expect("sessions")
        .map(|entry| entry.expect("entry").path())
        .filter(|path| {
            path.extension()
                .is_some_and(|extension| extension == "jsonl")
        })
        .collect();
    files.sort();
    files
}

#[test]
fn kiro_sessions_and_both_stores_are_read_whole() {
    let home = home_with_fixtures();
    let data = tempfile::tempdir().expect("temp dir");
    let dir = data.path();
    let stderr = index_home(home.path(), dir);

    let files = session_files(home.path());
    let from_files = file_counts(&files);
    assert_eq!(
        from_files,
        Counts {
            sessions: 29,
            prompts: 45,
            replies: 46,
            reasoning: 0,
            calls: 30,
            results: 30,
            failed: 1,
        },
        "every recording, as this test reads them: {files:?}"
    );
    let from_kiro_store = store_counts(&conversations(&home.path().join(KIRO_STORE), true));
    assert_eq!(
        from_kiro_store,
        Counts {
            sessions: 2,
            prompts: 4,
            replies: 5,
            reasoning: 0,
            calls: 3,
            results: 3,
            failed: 1,
        },
        "the newest row of each conversation"
    );
    let q_states = conversations(&home.path().join(Q_STORE), false);
    assert_eq!(
        q_states.iter().filter(|state| state.is_null()).count(),
        1,
        "a row that is not JSON: skipped with a parser warning"
    );
    let from_q_store = store_counts(&q_states);
    assert_eq!(
        from_q_store,
        Counts {
            sessions: 1,
            prompts: 1,
            replies: 1,
            reasoning: 0,
            calls: 1,
            results: 1,
            failed: 1,
        },
        "the one readable conversation"
    );
    for expected in [
        format!("kiro_session={}", files.len()),
        "kiro_db=1".to_string(),
        "amazon_q_db=1".to_string(),
        "parser warnings: 1;".to_string(),
    ] {
        assert!(stderr.contains(&expected), "{expected}: {stderr}");
    }
    assert_eq!(
        indexed_counts(dir, "source = 'kiro'"),
        from_files + from_kiro_store,
        "every record of every session read once"
    );
    assert_eq!(indexed_counts(dir, "source = 'amazon-q'"), from_q_store);
    assert_tools_paired(dir);

    // A session file takes its facts from its metadata file.
    let (id, _, metadata) = recordings()
        .into_iter()
        .find(|(_, transcript, metadata)| {
            metadata.is_some() && transcript.to_string_lossy().contains("2-2_auto-executed")
        })
        .expect("the recording with a tool call and metadata");
    let metadata = read_json(&metadata.expect("metadata"));
    let facts = rows(
        dir,
        &format!("SELECT title, cwd, model FROM sessions WHERE native_id = '{id}'"),
    );
    assert_eq!(
        facts,
        [json!({"title": metadata["title"], "cwd": metadata["cwd"], "model": "qwen3-coder-next"})
            .as_object()
            .expect("object")
            .clone()]
    );
    assert_eq!(
        texts(
            dir,
            &format!(
                "SELECT tool_name FROM events WHERE type = 'tool_call' AND session_id = \
                 'session:kiro-{id}'"
            )
        ),
        ["shell"]
    );

    // The store's conversation: its newest row, its failures and its directory.
    let osprey = rows(
        dir,
        "SELECT cwd, model, turn_count FROM sessions WHERE native_id = 'kiro-conv-osprey'",
    );
    assert_eq!(
        osprey,
        [
            json!({"cwd": "/home/dev/src/osprey", "model": "claude-sonnet-4.5", "turn_count": 3})
                .as_object()
                .expect("object")
                .clone()
        ]
    );
    assert_eq!(
        texts(
            dir,
            "SELECT text FROM events WHERE type = 'compaction' AND session_id = \
             'session:kiro-kiro-conv-heron'"
        ),
        ["The user asked what heron does."]
    );
    let q_failure = rows(
        dir,
        "SELECT tool_name, exit_code FROM events WHERE type = 'tool_response' \
         AND session_id = 'session:amazon-q-q-conv-kestrel'",
    );
    assert_eq!(
        q_failure,
        [json!({"tool_name": "execute_bash", "exit_code": 2})
            .as_object()
            .expect("object")
            .clone()]
    );
    assert_eq!(
        number(
            dir,
            "SELECT count(*) FROM events WHERE text LIKE '%SECRET-NEVER-READ%'"
        ),
        Some(0),
        "the CLI's credentials beside its conversations are never read"
    );

    // Resume: Kiro by id, Amazon Q by the conversation of the directory.
    let resume = |id: &str| resume_line(home.path(), dir, id);
    let cwd = metadata["cwd"].as_str().expect("cwd");
    assert!(
        resume(&format!("session:kiro-{id}"))
            .ends_with(&format!("&& kiro-cli chat --resume-id {id}")),
        "{cwd}"
    );
    assert_eq!(
        resume("session:amazon-q-q-conv-kestrel"),
        "cd /home/dev/src/kestrel && q chat --resume"
    );

    // `esker doctor` lists the sessions folder (v2's `cli/` in it) and both stores, the
    // metadata files not skipped.
    let diagnosis = doctor(home.path(), dir);
    let location = |path: &Path| location(&diagnosis, path);
    let folder = location(&home.path().join(".kiro/sessions"));
    assert_eq!(folder["harness"], "kiro-cli");
    assert_eq!(folder["sessions"].as_u64(), Some(files.len() as u64));
    assert_eq!(folder["skipped"], json!([]), "{folder:#}");
    for (store, harness, format) in [
        (KIRO_STORE, "kiro-cli", "kiro_db"),
        (Q_STORE, "amazon-q-cli", "amazon_q_db"),
    ] {
        let found = location(&home.path().join(store));
        assert_eq!(found["harness"], harness, "{found:#}");
        assert_eq!(found["kind"], "store");
        assert_eq!(
            found["indexed_by_format"],
            json!({ format: 1 }),
            "{found:#}"
        );
    }
}

#[test]
fn an_appended_turn_and_a_saved_conversation_add_exactly_their_events() {
    let home = home_with_fixtures();
    // The longest recording, cut after its first tool result.
    let live = session_files(home.path())
        .into_iter()
        .max_by_key(|file| {
            fs::read_to_string(file)
                .map(|text| text.matches("\"toolUse\"").count())
                .unwrap_or(0)
        })
        .expect("a session");
    let text = fs::read_to_string(&live).expect("transcript");
    let cut = text
        .lines()
        .position(|line| line.contains("\"ToolResults\""))
        .expect("a tool result")
        + 1;
    let head = head_lines(&text, cut);
    let (data, _) = assert_rest_adds(home.path(), &live, (&head, &text), "true", |_, _| {});

    // Kiro saves a conversation again with one more turn: only its new events are new.
    let store = home.path().join(KIRO_STORE);
    let connection = Connection::open(&store).expect("open store");
    let value: String = connection
        .query_row(
            "SELECT value FROM conversations_v2 WHERE conversation_id = 'kiro-conv-heron'",
            [],
            |row| row.get(0),
        )
        .expect("heron");
    let mut state: Value = serde_json::from_str(&value).expect("JSON");
    let mut entry = state["history"][0].clone();
    entry["user"]["content"] = json!({"Prompt": {"prompt": "and where does it log?"}});
    entry["assistant"] =
        json!({"Response": {"message_id": "h2", "content": "To stderr, as JSON lines."}});
    state["history"]
        .as_array_mut()
        .expect("history")
        .push(entry);
    connection
        .execute(
            "UPDATE conversations_v2 SET value = ?1, updated_at = updated_at + 60000 \
             WHERE conversation_id = 'kiro-conv-heron'",
            [state.to_string()],
        )
        .expect("save again");
    drop(connection);
    let saved = index_home(home.path(), data.path());
    assert!(saved.contains("events: 2 new"), "{saved}");
    let again = index_home(home.path(), data.path());
    assert!(again.contains("events: 0 new"), "{again}");
}
