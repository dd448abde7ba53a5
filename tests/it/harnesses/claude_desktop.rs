//! Claude Desktop's Code tab (`claude-desktop`) and Cowork (`cowork`): a home holding
//! `tests/standalone-fixtures/claude-desktop` as `~/.config/Claude` (its records, a Cowork task's
//! folder with its Claude Code transcript, the task's uploads and outputs, the skills mirror) and
//! `~/.claude` (the Code session's transcript), indexed with no PATH. The Cowork transcript is
//! counted by this test's own reading of its Claude records and read as `cowork` with its
//! record's title, cwd and model; a record without its transcript is listed as a session with
//! no events and the record's facts; a record whose transcript exists adds no session; the
//! task's own files are never logs; `esker doctor` lists both folders; an appended turn adds
//! exactly its events.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{assert_tools_paired, index_home, number, rows};
use crate::cli::{esker_at_home, stdout_of};
use crate::support::{copy_tree, standalone_fixture, stderr_of};

const CODE_CLI: &str = "5d6e7f80-0000-4000-8000-000000000c01";
const GONE_CLI: &str = "5d6e7f80-0000-4000-8000-000000000c02";
const TASK_CLI: &str = "5d6e7f80-0000-4000-8000-000000000d01";
const NEW_CLI: &str = "5d6e7f80-0000-4000-8000-000000000d02";

fn home_with_fixture() -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("temp dir");
    let fixture = standalone_fixture("claude-desktop");
    copy_tree(&fixture.join("Claude"), &home.path().join(".config/Claude"));
    copy_tree(&fixture.join("claude-home"), &home.path().join(".claude"));
    home
}

fn task_transcript(home: &Path) -> PathBuf {
    walkdir::WalkDir::new(home.join(".config/Claude/local-agent-mode-sessions"))
        .into_iter()
        .map(|entry| entry.expect("walk").into_path())
        .find(|path| {
            path.extension()
                .is_some_and(|extension| extension == "jsonl")
        })
        .expect("the task's transcript")
}

/// `(prompts, replies, calls, results)` of Claude records, by this test's reading: a prompt is
/// a user record with text, a reply an assistant text block, a call a `tool_use` block, a
/// result a `tool_result` block.
fn raw_counts(file: &Path) -> [i64; 4] {
    let mut counts = [0; 4];
    for line in fs::read_to_string(file).expect("transcript").lines() {
        let record: Value = serde_json::from_str(line).expect("JSON line");
        let content = &record["message"]["content"];
        if record["type"] == "user" && content.is_string() {
            counts[0] += 1;
        }
        for block in content.as_array().into_iter().flatten() {
            match block["type"].as_str() {
                Some("text") if record["type"] == "assistant" => counts[1] += 1,
                Some("tool_use") => counts[2] += 1,
                Some("tool_result") => counts[3] += 1,
                _ => {}
            }
        }
    }
    counts
}

fn indexed_counts(dir: &Path, session: &str) -> [i64; 4] {
    let of = |kind: &str| {
        number(
            dir,
            &format!("SELECT count(*) FROM events WHERE {kind} AND session_id = '{session}'"),
        )
        .expect("count")
    };
    [
        of("type = 'user_input'"),
        of("type = 'assistant_response'"),
        of("type = 'tool_call'"),
        of("type = 'tool_response'"),
    ]
}

#[test]
fn records_link_their_transcripts_and_records_without_one_are_listed() {
    let home = home_with_fixture();
    let data = tempfile::tempdir().expect("temp dir");
    let dir = data.path();
    let stderr = index_home(home.path(), dir);
    for expected in ["cowork_transcript=1", "claude_desktop_record=4"] {
        assert!(stderr.contains(expected), "{expected}: {stderr}");
    }

    // One session per conversation: the Code session's transcript is Claude Code's, its record
    // adds no second one; the Cowork task is its transcript; the two records without a
    // transcript are sessions of their own.
    let sessions = rows(
        dir,
        "SELECT native_id, source, title, cwd, model FROM sessions ORDER BY native_id",
    );
    let listed: Vec<Value> = sessions
        .iter()
        .map(|row| {
            let column = |name: &str| row.get(name).cloned().unwrap_or(Value::Null);
            json!([
                column("native_id"),
                column("source"),
                column("title"),
                column("cwd"),
                column("model")
            ])
        })
        .collect();
    assert_eq!(listed.len(), 4, "{listed:#?}");
    assert_eq!(listed[0][0], CODE_CLI);
    assert_eq!(listed[0][1], "claude");
    assert_eq!(
        &listed[1..],
        [
            json!([
                GONE_CLI,
                "claude-desktop",
                "Bisect the flaky login test",
                "/home/dev/src/osprey",
                "claude-sonnet-4-5"
            ]),
            json!([
                TASK_CLI,
                "cowork",
                "Summarise my trip notes",
                "/home/dev/trip",
                "claude-opus-4-5"
            ]),
            json!([
                NEW_CLI,
                "cowork",
                "Draft the newsletter",
                "/home/dev/news",
                "claude-opus-4-5"
            ]),
        ]
    );
    for empty in [GONE_CLI, NEW_CLI] {
        assert_eq!(
            number(
                dir,
                &format!(
                    "SELECT count(*) FROM events e JOIN sessions s ON s.session_id = e.session_id \
                     WHERE s.native_id = '{empty}'"
                )
            ),
            Some(0),
            "{empty}: no transcript, no events"
        );
    }

    // The Cowork transcript, read whole by the Claude parser.
    let transcript = task_transcript(home.path());
    let task = format!("session:cowork-{TASK_CLI}");
    assert_eq!(raw_counts(&transcript), [1, 2, 2, 2]);
    assert_eq!(indexed_counts(dir, &task), raw_counts(&transcript));
    assert_tools_paired(dir);
    assert_eq!(
        number(
            dir,
            &format!("SELECT sum(input_tokens) FROM events WHERE session_id = '{task}'")
        ),
        Some((3000 + 2000) + (3200 + 3000) + (3400 + 3200)),
        "input counts the cache reads"
    );
    assert_eq!(
        number(
            dir,
            "SELECT count(*) FROM events WHERE text LIKE '%not a record%'"
        ),
        Some(0),
        "the task's uploads are not logs"
    );

    // `esker doctor`: both folders, the task's own files not skipped logs.
    let data_arg = dir.to_str().expect("utf-8");
    let doctor = esker_at_home(home.path(), &["doctor", "--json", "--data-dir", data_arg]);
    assert!(doctor.status.success(), "{}", stderr_of(&doctor));
    let diagnosis: Value = serde_json::from_str(&stdout_of(&doctor)).expect("JSON");
    for (folder, harness) in [
        ("claude-code-sessions", "claude-desktop"),
        ("local-agent-mode-sessions", "claude-cowork"),
    ] {
        let path = home.path().join(".config/Claude").join(folder);
        let location = diagnosis["locations"]
            .as_array()
            .expect("locations")
            .iter()
            .find(|location| location["path"] == path.to_str().expect("utf-8"))
            .unwrap_or_else(|| panic!("{folder} not listed: {diagnosis:#}"))
            .clone();
        assert_eq!(location["harness"], harness, "{location:#}");
        assert_eq!(location["skipped"], json!([]), "{location:#}");
    }

    // Neither harness has a resume command esker can run.
    let resume = esker_at_home(
        home.path(),
        &["resume", "--print", "--data-dir", data_arg, &task],
    );
    assert_eq!(resume.status.code(), Some(2), "{}", stderr_of(&resume));
}

#[test]
fn an_appended_cowork_turn_adds_exactly_its_events() {
    let home = home_with_fixture();
    let live = task_transcript(home.path());
    let text = fs::read_to_string(&live).expect("transcript");
    let lines: Vec<&str> = text.lines().collect();
    fs::write(&live, format!("{}\n", lines[..3].join("\n"))).expect("head");
    let data = tempfile::tempdir().expect("temp dir");
    index_home(home.path(), data.path());
    let count = |dir: &Path| number(dir, "SELECT count(*) FROM events").expect("count");
    let before = count(data.path());
    fs::write(&live, &text).expect("append the rest");
    let appended = index_home(home.path(), data.path());
    let one_shot = tempfile::tempdir().expect("temp dir");
    index_home(home.path(), one_shot.path());
    let whole = count(one_shot.path());
    assert!(whole > before, "the rest has events");
    assert!(
        appended.contains(&format!("events: {} new", whole - before)),
        "{appended}"
    );
}
