//! Auggie (`auggie`): the hand-made sessions `tests/standalone-fixtures/auggie/generate.py`
//! writes (`~/.augment/sessions/<id>.json`: a session, the sub-agent session it started, and a
//! `-backup1.json` copy that is not a session), indexed with no PATH from a temp home. Every
//! count is also taken from the raw snapshots by this test's own reading; the sub-agent link,
//! tokens, the compaction, resume, `esker doctor`, a snapshot caught mid-rewrite and a saved
//! turn adding exactly its events are checked too.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{
    Counts, assert_rest_adds, assert_tools_paired, count, count_events, doctor_location,
    index_home, indexed_counts, number, resume_line, rows, texts,
};
use crate::support::standalone_fixture;

const SESSIONS: &str = ".augment/sessions";
const MAIN: &str = "4c1f2a9e-7b3d-4e8a-9c5f-2d6b8e1a3f70";
const CHILD: &str = "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b";

fn home_with_fixture() -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("temp dir");
    let sessions = home.path().join(SESSIONS);
    fs::create_dir_all(&sessions).expect("mkdir");
    let from = standalone_fixture("auggie").join("home").join(SESSIONS);
    for entry in fs::read_dir(&from).expect("fixture") {
        let entry = entry.expect("entry");
        fs::copy(entry.path(), sessions.join(entry.file_name())).expect("copy");
    }
    home
}

/// The session files (not the backups).
fn session_files(home: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(home.join(SESSIONS))
        .expect("sessions")
        .map(|entry| entry.expect("entry").path())
        .filter(|path| !path.to_string_lossy().contains("-backup"))
        .collect();
    files.sort();
    files
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).expect("read")).expect("JSON")
}

#[derive(Debug, Default, PartialEq, Clone, Copy)]
struct AuggieCounts {
    base: Counts,
    compactions: i64,
    input_tokens: i64,
    output_tokens: i64,
}

/// Auggie's sessions in the store.
const AUGGIE: &str = "source = 'auggie'";

fn raw_counts(files: &[PathBuf]) -> AuggieCounts {
    let mut counts = AuggieCounts::default();
    for file in files {
        let session = read_json(file);
        counts.base.sessions += 1;
        for entry in session["chatHistory"].as_array().into_iter().flatten() {
            let exchange = &entry["exchange"];
            let nonempty = |field: &str| {
                exchange[field]
                    .as_str()
                    .is_some_and(|text| !text.trim().is_empty())
            };
            if entry["isHistorySummary"] == true {
                counts.compactions += 1;
            } else {
                counts.base.prompts += i64::from(nonempty("request_message"));
            }
            counts.base.replies += i64::from(nonempty("response_text"));
            let mut calls = HashSet::new();
            let mut usage_read = false;
            for node in exchange["response_nodes"].as_array().into_iter().flatten() {
                if node["type"] == 5 {
                    calls.insert(node["tool_use"]["tool_use_id"].to_string());
                }
                let thought = &node["thinking"];
                counts.base.reasoning += i64::from(["summary", "content"].iter().any(|field| {
                    thought[field]
                        .as_str()
                        .is_some_and(|text| !text.trim().is_empty())
                }));
                let usage = &node["token_usage"];
                if usage.is_object() && !usage_read {
                    usage_read = true;
                    counts.input_tokens += [
                        "input_tokens",
                        "cache_read_input_tokens",
                        "cache_creation_input_tokens",
                    ]
                    .iter()
                    .map(|field| usage[field].as_i64().unwrap_or(0))
                    .sum::<i64>();
                    counts.output_tokens += usage["output_tokens"].as_i64().unwrap_or(0);
                }
            }
            counts.base.calls += calls.len() as i64;
            for node in exchange["request_nodes"].as_array().into_iter().flatten() {
                if node["tool_result_node"].is_object() {
                    counts.base.results += 1;
                    counts.base.failed += i64::from(node["tool_result_node"]["is_error"] == true);
                }
            }
        }
    }
    counts
}

fn auggie_counts(dir: &Path) -> AuggieCounts {
    AuggieCounts {
        base: indexed_counts(dir, AUGGIE),
        compactions: count_events(dir, AUGGIE, "type = 'compaction'"),
        input_tokens: count(dir, "SELECT coalesce(sum(input_tokens), 0) FROM events"),
        output_tokens: count(dir, "SELECT coalesce(sum(output_tokens), 0) FROM events"),
    }
}

#[test]
fn auggie_sessions_are_read_whole_and_counted_as_their_exchanges() {
    let home = home_with_fixture();
    let data = tempfile::tempdir().expect("temp dir");
    let dir = data.path();
    let stderr = index_home(home.path(), dir);

    let raw = raw_counts(&session_files(home.path()));
    assert_eq!(
        raw,
        AuggieCounts {
            base: Counts {
                sessions: 2,
                prompts: 4,
                replies: 7,
                reasoning: 1,
                calls: 5,
                results: 5,
                failed: 1
            },
            compactions: 1,
            input_tokens: 11325 + 13363 + 14001 + 14307 + 14525 + 3003 + 5204 + 5282,
            output_tokens: 221 + 180 + 95 + 60 + 40 + 12 + 70 + 15
        },
        "the fixture, as this test reads it"
    );
    assert!(stderr.contains("auggie_session=2"), "{stderr}");
    assert!(
        stderr.contains("files: 2 seen"),
        "the backup is no session: {stderr}"
    );
    assert_eq!(auggie_counts(dir), raw, "every exchange read once");
    assert_tools_paired(dir);

    let facts = rows(
        dir,
        "SELECT native_id, title, cwd, model, parent_session_id FROM sessions \
         ORDER BY native_id",
    );
    assert_eq!(
        facts,
        [
            json!({"native_id": MAIN, "title": "heron config_path fix",
                "cwd": "/home/dev/src/heron", "model": "claude-sonnet-4-5"}),
            // No title of its own: its first prompt.
            json!({"native_id": CHILD, "title": "add a test for config::path()",
                "cwd": "/home/dev/src/heron",
                "model": "claude-haiku-4-5",
                "parent_session_id": format!("session:auggie-{MAIN}")}),
        ]
        .map(|row| row.as_object().expect("object").clone())
    );
    // A call's name on its result, which arrives in the next exchange's request.
    let failed = rows(
        dir,
        "SELECT tool_name, tool_call_id FROM events WHERE type = 'tool_response' \
         AND subtype = 'error'",
    );
    assert_eq!(
        failed,
        [
            json!({"tool_name": "launch-process", "tool_call_id": "toolu_01Run"})
                .as_object()
                .expect("object")
                .clone()
        ]
    );
    assert_eq!(
        texts(dir, "SELECT text FROM events WHERE type = 'compaction'"),
        ["Fixed heron's config_path build break; added tests/config_path.rs."]
    );
    assert_eq!(
        number(dir, "SELECT count(*) FROM events WHERE type = 'reasoning'"),
        Some(1)
    );

    // Resume from the session's folder.
    assert_eq!(
        resume_line(home.path(), dir, &format!("session:auggie-{MAIN}")),
        format!("cd /home/dev/src/heron && auggie --resume {MAIN}")
    );

    let location = doctor_location(home.path(), dir, &home.path().join(SESSIONS));
    assert_eq!(location["harness"], "auggie");
    assert_eq!(location["sessions"].as_u64(), Some(2));
    assert_eq!(location["skipped"], json!([]), "{location:#}");
}

#[test]
fn a_saved_turn_adds_exactly_its_events_and_a_half_written_snapshot_waits() {
    let home = home_with_fixture();
    let live = home.path().join(SESSIONS).join(format!("{MAIN}.json"));
    let whole_text = fs::read_to_string(&live).expect("session");
    let mut session: Value = serde_json::from_str(&whole_text).expect("JSON");
    let history = session["chatHistory"].as_array().expect("history").clone();
    // Saved after three exchanges.
    session["chatHistory"] = Value::Array(history[..3].to_vec());
    let head = serde_json::to_string_pretty(&session).expect("JSON");
    let (_, added) = assert_rest_adds(
        home.path(),
        &live,
        (&head, &whole_text),
        AUGGIE,
        |data, before| {
            // Caught mid-rewrite: not JSON yet, nothing read, nothing lost.
            fs::write(&live, &whole_text[..whole_text.len() / 2]).expect("half");
            let waiting = index_home(home.path(), data);
            assert!(waiting.contains("1 held back"), "{waiting}");
            assert_eq!(count_events(data, AUGGIE, "true"), before);
        },
    );
    // Exchanges 4 to 7: a prompt and a call; a result and a reply; a compaction; a prompt and
    // a reply.
    assert_eq!(added, 7);
}
