//! Kiro CLI's v3 (KAS) engine (`kiro`): a home holding `tests/standalone-fixtures/kiro/v3`
//! (`generate_v3.py`, two session folders in two workspaces) as `~/.kiro/sessions`, indexed
//! with no PATH from the default location. Every count is also taken from the raw
//! `messages.jsonl` by this test's own reading (a prompt is a `user` record with text; a reply an
//! `assistant` `Say`; reasoning an `assistant` `Reasoning`, stored encrypted; a call a
//! `tool_call` or `sub_agent_start`; a result a `tool_result` or `sub_agent_complete`, failed on
//! `success: false` or a non-zero `Exit Code`); `session.json` is read with its log and never as
//! a log, the half-written line is skipped with a counted warning, `esker doctor` lists the
//! folder, an appended turn adds exactly its events and a malformed line skips only itself.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{
    Counts, assert_rest_adds, assert_tools_paired, count_events, doctor_location, head_lines,
    index_home, indexed_counts, number, rows, texts,
};
use crate::support::{copy_tree, standalone_fixture};

const FIX: &str = "sess_4b1f6c2e-8d3a-4f5b-9c7e-1a2b3c4d5e6f";
const LOGS: &str = "sess_c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f";
/// Kiro's sessions in the store.
const KIRO: &str = "source = 'kiro'";

fn home_with_fixture() -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("temp dir");
    copy_tree(
        &standalone_fixture("kiro").join("v3").join("sessions"),
        &home.path().join(".kiro").join("sessions"),
    );
    home
}

fn logs(home: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = walkdir::WalkDir::new(home.join(".kiro"))
        .into_iter()
        .map(|entry| entry.expect("walk").into_path())
        .filter(|path| {
            path.file_name()
                .is_some_and(|name| name == "messages.jsonl")
        })
        .collect();
    found.sort();
    found
}

fn log_of(home: &Path, session: &str) -> PathBuf {
    logs(home)
        .into_iter()
        .find(|path| path.to_string_lossy().contains(session))
        .expect("the session's log")
}

/// The exit code a shell result reports (`Exit Code: N`).
fn exit_code(text: &str) -> Option<i64> {
    let (_, rest) = text.rsplit_once("Exit Code:")?;
    rest.trim().parse().ok()
}

/// This test's own reading of the raw logs: the counts, the compactions and the lines that
/// are not JSON.
fn raw_counts(files: &[PathBuf]) -> (Counts, i64, i64) {
    let mut counts = Counts::default();
    let (mut compactions, mut malformed) = (0, 0);
    for file in files {
        counts.sessions += 1;
        for line in fs::read_to_string(file).expect("log").lines() {
            let Ok(record) = serde_json::from_str::<Value>(line) else {
                malformed += 1;
                continue;
            };
            let payload = &record["payload"];
            let text = payload["content"].as_str().unwrap_or("");
            match (payload["type"].as_str(), payload["operationType"].as_str()) {
                (Some("user"), _) => counts.prompts += i64::from(!text.trim().is_empty()),
                (Some("assistant"), Some("Say")) => {
                    counts.replies += i64::from(!text.trim().is_empty())
                }
                (Some("assistant"), Some("Reasoning")) => counts.reasoning += 1,
                (Some("assistant"), Some("Summary")) => compactions += 1,
                (Some("tool_call" | "sub_agent_start"), _) => counts.calls += 1,
                (Some("tool_result"), _) => {
                    counts.results += 1;
                    let failed = payload["success"] == json!(false)
                        || exit_code(text).is_some_and(|code| code != 0);
                    counts.failed += i64::from(failed);
                }
                (Some("sub_agent_complete"), _) => counts.results += 1,
                _ => {}
            }
        }
    }
    (counts, compactions, malformed)
}

#[test]
fn kiro_v3_sessions_are_read_from_their_message_logs_with_their_metadata() {
    let home = home_with_fixture();
    let data = tempfile::tempdir().expect("temp dir");
    let dir = data.path();
    let stderr = index_home(home.path(), dir);

    let files = logs(home.path());
    let (raw, compactions, malformed) = raw_counts(&files);
    assert_eq!(
        (raw, compactions, malformed),
        (
            Counts {
                sessions: 2,
                prompts: 4,
                replies: 5,
                reasoning: 3,
                calls: 7,
                results: 7,
                failed: 2,
            },
            1,
            1
        ),
        "the fixture, as this test reads it"
    );
    for expected in ["kiro_v3_session=2", "malformed lines: 1;"] {
        assert!(stderr.contains(expected), "{expected}: {stderr}");
    }
    assert_eq!(indexed_counts(dir, KIRO), raw, "every record read once");
    assert_eq!(
        count_events(dir, KIRO, "type = 'compaction'"),
        compactions,
        "the summary after a summarization"
    );
    assert_tools_paired(dir);

    // The facts come from session.json; `auto` is no model, nor is the reasoning's `qdev::auto`.
    let facts: Vec<Value> = rows(
        dir,
        "SELECT native_id, title, cwd, model FROM sessions WHERE source = 'kiro' \
         ORDER BY native_id",
    )
    .into_iter()
    .map(Value::Object)
    .collect();
    assert_eq!(
        facts,
        [
            json!({"native_id": FIX, "title": "Fix the failing heron parse test",
                "cwd": "/home/dev/src/heron", "model": "claude-sonnet-4.5"}),
            json!({"native_id": LOGS, "title": "What heron logs",
                "cwd": "/home/dev/src/heron-docs"}),
        ]
    );

    // Prompts are the user's words; the system prompt and bookkeeping are not events.
    let fix = format!("session:kiro-{FIX}");
    assert_eq!(
        texts(
            dir,
            &format!(
                "SELECT text FROM events WHERE type = 'user_input' AND session_id = '{fix}' \
                 ORDER BY seq"
            )
        ),
        ["Why does `cargo test` fail in heron?", "Yes, trim it."]
    );
    assert_eq!(
        number(
            dir,
            "SELECT count(*) FROM events WHERE text LIKE '%You are Kiro CLI%' \
             OR text LIKE '%EqQBCkgI%'"
        ),
        Some(0),
        "neither the system prompt nor the reasoning's signature is an event's text"
    );
    assert_eq!(
        texts(
            dir,
            "SELECT DISTINCT text FROM events WHERE type = 'reasoning'"
        ),
        ["[encrypted reasoning]"]
    );
    let failed: Vec<Value> = rows(
        dir,
        "SELECT tool_name, exit_code FROM events WHERE type = 'tool_response' \
         AND subtype = 'error' ORDER BY seq",
    )
    .into_iter()
    .map(Value::Object)
    .collect();
    assert_eq!(
        failed,
        [
            json!({"tool_name": "execute_bash", "exit_code": 101}),
            json!({"tool_name": "fs_write"}),
        ]
    );
    assert_eq!(
        texts(
            dir,
            &format!(
                "SELECT text FROM events WHERE type = 'tool_response' AND tool_name = \
                 'subagent' AND session_id = '{fix}'"
            )
        ),
        ["The trim is right; add a test for a value with no space."]
    );
    assert_eq!(
        count_events(dir, KIRO, "input_tokens IS NOT NULL"),
        0,
        "v3 records credits, not tokens"
    );

    // `esker doctor` lists the sessions folder; session.json is not a skipped log, only the
    // half-written line is reported.
    let folder = home.path().join(".kiro").join("sessions");
    let location = doctor_location(home.path(), dir, &folder);
    assert_eq!(location["harness"], "kiro-cli");
    assert_eq!(location["sessions"].as_u64(), Some(2), "{location:#}");
    let log = log_of(home.path(), FIX);
    assert_eq!(
        location["skipped"],
        json!([{"reason": "malformed_lines", "count": 1,
            "paths": [log.to_str().expect("utf-8")]}]),
        "{location:#}"
    );
}

#[test]
fn an_appended_turn_adds_exactly_its_events() {
    let home = home_with_fixture();
    let live = log_of(home.path(), FIX);
    let text = fs::read_to_string(&live).expect("log");
    // Cut after the first turn's end.
    let cut = text
        .lines()
        .position(|line| line.contains("\"turn_end\""))
        .expect("turn 1")
        + 1;
    let head = head_lines(&text, cut);
    let (data, added) = assert_rest_adds(home.path(), &live, (&head, &text), KIRO, |_, _| {});
    // The second turn: a prompt, reasoning, the sub-agent, two calls, two results, a reply.
    assert_eq!(added, 9);

    // Kiro rewrites session.json every turn; a new status and time alone re-read nothing.
    let metadata = live.with_file_name("session.json");
    let mut facts: Value =
        serde_json::from_str(&fs::read_to_string(&metadata).expect("read")).expect("JSON");
    facts["status"] = json!("in_progress");
    facts["lastModifiedAt"] = json!("2026-11-02T10:00:00.000Z");
    fs::write(
        &metadata,
        serde_json::to_string_pretty(&facts).expect("JSON"),
    )
    .expect("write");
    let stderr = index_home(home.path(), data.path());
    assert!(stderr.contains("formats: none;"), "{stderr}");

    // A title Kiro rewrites in session.json is read on the next pass, no event written twice.
    facts["title"] = json!("Heron: the parse test, fixed");
    fs::write(
        &metadata,
        serde_json::to_string_pretty(&facts).expect("JSON"),
    )
    .expect("write");
    let stderr = index_home(home.path(), data.path());
    assert!(stderr.contains("events: 0 new"), "{stderr}");
    assert_eq!(
        texts(
            data.path(),
            &format!("SELECT title FROM sessions WHERE native_id = '{FIX}'")
        ),
        ["Heron: the parse test, fixed"]
    );
}

#[test]
fn a_malformed_line_skips_only_itself() {
    let home = home_with_fixture();
    let live = log_of(home.path(), LOGS);
    let text = fs::read_to_string(&live).expect("log");
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(
        3,
        "{\"id\":\"torn\",\"timestamp\":\"2026-11-02T12:14:09.000Z\",\"payload\":",
    );
    lines.insert(6, "not json at all");
    fs::write(&live, format!("{}\n", lines.join("\n"))).expect("write");

    let data = tempfile::tempdir().expect("temp dir");
    let stderr = index_home(home.path(), data.path());
    assert!(stderr.contains("malformed lines: 3;"), "{stderr}");
    let (raw, _, malformed) = raw_counts(&logs(home.path()));
    assert_eq!(malformed, 3, "the fixture's own and the two added");
    assert_eq!(indexed_counts(data.path(), KIRO), raw);
}
