//! OpenClaw (`openclaw`): a home holding a `~/.openclaw` from before the SQLite store (agent
//! `main`: a Pi-format transcript, its `sessions.json` index and a compaction checkpoint) and a
//! `~/.qclaw` written by 2026.9 (agent `vera`'s `openclaw-agent.sqlite`, large events as zstd
//! frames, one of them with a wrong recorded length), from `tests/standalone-fixtures/openclaw`,
//! indexed with no PATH. Every count is also taken from the raw files by this test's own
//! reading; appended lines and rows add exactly their events, and the checkpoint is never a
//! session (of OpenClaw's or Pi's).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};
use serde_json::{Value, json};

use super::index_home;
use super::{assert_tools_paired, count, rows, texts, turns_without_prompt};
use crate::support::copy_tree;
use crate::support::{corpus_dir, corpus_store, query_count, standalone_fixture};

const FALCON: &str = "7c1e2a90-5b3d-4f6e-8a1c-2d3e4f5a6b7c";
const OSPREY_1: &str = "9d2f4b61-osprey-window-1";
const OSPREY_2: &str = "9d2f4b62-osprey-window-2";
const TRANSCRIPT: &str =
    ".openclaw/agents/main/sessions/7c1e2a90-5b3d-4f6e-8a1c-2d3e4f5a6b7c.jsonl";
const STORE: &str = ".qclaw/agents/vera/agent/openclaw-agent.sqlite";

/// A temp home with the fixture's `~/.openclaw` and `~/.qclaw`.
fn home_with_fixtures() -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("temp dir");
    let fixture = standalone_fixture("openclaw");
    copy_tree(&fixture.join("openclaw"), &home.path().join(".openclaw"));
    copy_tree(&fixture.join("qclaw"), &home.path().join(".qclaw"));
    home
}

/// What the raw files hold, counted from the records themselves.
#[derive(Debug, Default, PartialEq)]
struct RawCounts {
    sessions: i64,
    unreadable: i64,
    prompts: i64,
    replies: i64,
    reasoning: i64,
    calls: i64,
    results: i64,
    model_changes: i64,
    usages: i64,
    /// Sessions with events before their first prompt: those open with a turn of their own.
    preambles: i64,
}

/// Where the raw reading is: whether the current session has had its first prompt, and
/// whether it already opened a preamble turn before it.
#[derive(Default)]
struct Reading {
    prompted: bool,
    preamble: bool,
}

fn count_record(record: &Value, counts: &mut RawCounts, reading: &mut Reading) {
    match record["type"].as_str() {
        Some("session") => {
            counts.sessions += 1;
            *reading = Reading::default();
            return;
        }
        Some("model_change") => counts.model_changes += 1,
        Some("message") => {}
        _ => return,
    }
    let prompt = record["message"]["role"].as_str() == Some("user");
    if !prompt && !reading.prompted && !reading.preamble {
        reading.preamble = true;
        counts.preambles += 1;
    }
    reading.prompted |= prompt;
    let message = &record["message"];
    match message["role"].as_str() {
        Some("user") => counts.prompts += 1,
        Some("toolResult") => counts.results += 1,
        Some("assistant") => {
            for block in message["content"].as_array().expect("content") {
                match block["type"].as_str() {
                    Some("text") => counts.replies += 1,
                    Some("thinking") => counts.reasoning += 1,
                    Some("toolCall") => counts.calls += 1,
                    _ => {}
                }
            }
            counts.usages += i64::from(message["usage"].is_object());
        }
        _ => {}
    }
}

/// The records of the store: `event_json`, or the zstd frame whose decoded length matches
/// `event_utf8_bytes` (`None` for one that does not).
fn store_records(path: &Path) -> Vec<Option<Value>> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY;
    let connection = Connection::open_with_flags(path, flags).expect("open store");
    let mut statement = connection
        .prepare(
            "SELECT event_json, event_zstd, event_utf8_bytes FROM transcript_events \
             ORDER BY session_id, seq",
        )
        .expect("prepare");
    let rows = statement
        .query_map([], |row| {
            Ok((
                row.get::<_, Option<String>>(0)?,
                row.get::<_, Option<Vec<u8>>>(1)?,
                row.get::<_, Option<i64>>(2)?,
            ))
        })
        .expect("query");
    rows.map(|row| {
        let (json, frame, size) = row.expect("row");
        let text = match json {
            Some(json) => json.into_bytes(),
            None => {
                let text = zstd::stream::decode_all(&frame.expect("frame")[..]).ok()?;
                (Some(text.len() as i64) == size).then_some(text)?
            }
        };
        serde_json::from_slice(&text).ok()
    })
    .collect()
}

fn raw_counts(transcript: &Path, store: &Path) -> RawCounts {
    let mut counts = RawCounts::default();
    let mut reading = Reading::default();
    let text = fs::read_to_string(transcript).expect("transcript");
    for line in text.lines() {
        count_record(
            &serde_json::from_str(line).expect("record"),
            &mut counts,
            &mut reading,
        );
    }
    for record in store_records(store) {
        match record {
            Some(record) => count_record(&record, &mut counts, &mut reading),
            None => counts.unreadable += 1,
        }
    }
    counts
}

fn indexed_counts(dir: &Path) -> RawCounts {
    let of_type = |kind: &str| {
        count(
            dir,
            &format!("SELECT count(*) FROM events WHERE type = '{kind}'"),
        )
    };
    RawCounts {
        sessions: count(
            dir,
            "SELECT count(*) FROM sessions WHERE source = 'openclaw'",
        ),
        unreadable: 0,
        prompts: of_type("user_input"),
        replies: of_type("assistant_response"),
        reasoning: of_type("reasoning"),
        calls: of_type("tool_call"),
        results: of_type("tool_response"),
        model_changes: count(
            dir,
            "SELECT count(*) FROM events WHERE type = 'system' AND subtype = 'model_change'",
        ),
        usages: count(
            dir,
            "SELECT count(*) FROM events WHERE input_tokens IS NOT NULL",
        ),
        preambles: turns_without_prompt(dir),
    }
}

#[test]
fn openclaw_transcripts_and_stores_are_read_from_a_home_with_exact_counts() {
    let home = home_with_fixtures();
    let data = tempfile::tempdir().expect("temp dir");
    let dir = data.path();
    let stderr = index_home(home.path(), dir);
    for expected in [
        "openclaw_session=1",
        "openclaw_db=1",
        "sessions: 3;",
        "events: 17 new",
        "parser warnings: 1;",
    ] {
        assert!(stderr.contains(expected), "{expected}: {stderr}");
    }

    let raw = raw_counts(&home.path().join(TRANSCRIPT), &home.path().join(STORE));
    assert_eq!(
        raw,
        RawCounts {
            sessions: 3,
            unreadable: 1,
            prompts: 4,
            replies: 5,
            reasoning: 1,
            calls: 3,
            results: 3,
            model_changes: 1,
            usages: 7,
            preambles: 1,
        },
        "the fixture holds what this test expects"
    );
    assert_eq!(
        indexed_counts(dir),
        RawCounts {
            unreadable: 0,
            ..raw
        },
        "every readable record is indexed once"
    );
    assert_eq!(
        count(
            dir,
            "SELECT count(*) FROM sessions WHERE source <> 'openclaw'"
        ),
        0,
        "the compaction checkpoint is no session, not even a Pi one"
    );
    assert_eq!(
        count(dir, "SELECT sum(turn_count) FROM sessions"),
        raw.prompts + raw.preambles,
        "one turn per prompt, and one for what comes before a session's first prompt"
    );
    assert_tools_paired(dir);

    let sessions = rows(
        dir,
        "SELECT native_id, title, cwd, model, turn_count, event_count, input_tokens, \
         cached_input_tokens, output_tokens FROM sessions ORDER BY native_id",
    );
    let column = |row: &serde_json::Map<String, Value>, name: &str| {
        row.get(name).cloned().unwrap_or(Value::Null)
    };
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
                "cached_input_tokens",
                "output_tokens",
            ];
            Value::Array(columns.iter().map(|name| column(row, name)).collect())
        })
        .collect();
    assert_eq!(summary.len(), 3, "{summary:?}");
    assert_eq!(
        summary[0],
        json!([
            FALCON,
            "Falcon tracker double counts",
            "/home/dev/falcon",
            "claude-sonnet-4-5",
            3,
            11,
            4 * 3000 + 1200 + 1400 + 1500 + 1600,
            12000,
            260
        ])
    );
    assert_eq!(
        summary[1],
        json!([
            OSPREY_1,
            "Nightly osprey digest",
            "/srv/vera",
            "gpt-5.1",
            1,
            4,
            3200,
            0,
            450
        ])
    );
    assert_eq!(summary[2][0], OSPREY_2);
    assert_eq!(summary[2][5], 2);
    assert_eq!(
        texts(
            dir,
            "SELECT text FROM events WHERE type = 'tool_response' AND subtype = 'error'"
        ),
        ["EACCES: tracker.py is read-only"]
    );
    assert!(
        count(
            dir,
            &format!(
                "SELECT length(text) FROM events WHERE type = 'tool_response' \
                 AND session_id = 'session:openclaw-{OSPREY_1}'"
            )
        ) > 1024,
        "the compressed tool result is read whole"
    );
}

#[test]
fn appended_lines_and_rows_add_exactly_their_events() {
    let home = home_with_fixtures();
    let data = tempfile::tempdir().expect("temp dir");
    index_home(home.path(), data.path());
    let again = index_home(home.path(), data.path());
    assert!(again.contains("events: 0 new"), "{again}");

    let mut transcript = fs::OpenOptions::new()
        .append(true)
        .open(home.path().join(TRANSCRIPT))
        .expect("open transcript");
    let prompt = json!({"type": "message", "id": "a0000012", "parentId": "a0000011",
        "timestamp": "2026-07-14T10:02:00.000Z",
        "message": {"role": "user", "content": [{"type": "text", "text": "done, retry"}]}});
    let reply = json!({"type": "message", "id": "a0000013", "parentId": "a0000012",
        "timestamp": "2026-07-14T10:02:03.000Z",
        "message": {"role": "assistant", "content": [{"type": "text", "text": "Fixed."}],
            "model": "claude-sonnet-4-5", "stopReason": "stop",
            "usage": {"input": 10, "output": 2, "cacheRead": 0, "cacheWrite": 0}}});
    writeln!(transcript, "{prompt}\n{reply}").expect("append");
    drop(transcript);

    let long_reply = "steady ".repeat(300);
    let record = json!({"type": "message", "id": "c0000003", "parentId": "c0000002",
        "timestamp": "2026-10-02T05:01:00.000Z",
        "message": {"role": "assistant", "content": [{"type": "text", "text": long_reply}],
            "model": "gpt-5.1", "stopReason": "stop"}})
    .to_string();
    let frame = zstd::stream::encode_all(record.as_bytes(), 1).expect("compress");
    let connection = Connection::open(home.path().join(STORE)).expect("open store");
    connection
        .execute(
            "INSERT INTO transcript_events VALUES (?1, 3, NULL, 1790917260000, ?2, ?3, NULL)",
            rusqlite::params![OSPREY_2, frame, record.len() as i64],
        )
        .expect("append row");
    drop(connection);

    let appended = index_home(home.path(), data.path());
    assert!(appended.contains("events: 3 new"), "{appended}");
    let last = index_home(home.path(), data.path());
    assert!(last.contains("events: 0 new"), "{last}");
}

/// OpenClaw transcripts and stores under `dir`.
fn openclaw_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(openclaw_files(&path));
        } else if esker::ingest::openclaw::is_transcript_path(&path)
            || esker::ingest::openclaw::is_store_path(&path)
        {
            found.push(path);
        }
    }
    found
}

#[test]
fn corpus_openclaw_sessions_are_read_when_the_corpus_has_some() {
    let Some(corpus) = corpus_dir() else {
        eprintln!("SKIPPED: ../shared/corpus is absent; no real OpenClaw session checked");
        return;
    };
    let files = openclaw_files(&corpus);
    if files.is_empty() {
        eprintln!(
            "SKIPPED: ../shared/corpus holds no OpenClaw transcript or store \
             (agents/<id>/sessions/*.jsonl, agents/<id>/agent/openclaw-agent.sqlite)"
        );
        return;
    }
    let Some((data_dir, stderr)) = corpus_store() else {
        return;
    };
    assert!(stderr.contains("openclaw_"), "{stderr}");
    assert!(
        query_count(
            data_dir,
            "SELECT count(*) FROM sessions WHERE source = 'openclaw'"
        ) > 0,
        "OpenClaw files in the corpus: {files:?}"
    );
}
