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

use super::{
    Counts, assert_no_resume, assert_rest_adds, assert_tools_paired, count_events, doctor,
    head_lines, index_home, indexed_counts, location, number, rows,
};
use crate::support::{copy_tree, standalone_fixture};

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

/// The counts of one transcript of Claude records, by this test's reading: a prompt is a user
/// record with text, a reply an assistant text block, reasoning a `thinking` block, a call a
/// `tool_use` block, a result a `tool_result` block, failed if `is_error`.
fn raw_counts(file: &Path) -> Counts {
    let mut counts = Counts {
        sessions: 1,
        ..Counts::default()
    };
    for line in fs::read_to_string(file).expect("transcript").lines() {
        let record: Value = serde_json::from_str(line).expect("JSON line");
        let content = &record["message"]["content"];
        if record["type"] == "user" && content.is_string() {
            counts.prompts += 1;
        }
        for block in content.as_array().into_iter().flatten() {
            match block["type"].as_str() {
                Some("text") if record["type"] == "assistant" => counts.replies += 1,
                Some("thinking") => counts.reasoning += 1,
                Some("tool_use") => counts.calls += 1,
                Some("tool_result") => {
                    counts.results += 1;
                    counts.failed += i64::from(block["is_error"] == true);
                }
                _ => {}
            }
        }
    }
    counts
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
    assert_eq!(
        raw_counts(&transcript),
        Counts {
            sessions: 1,
            prompts: 1,
            replies: 2,
            reasoning: 0,
            calls: 2,
            results: 2,
            failed: 1,
        }
    );
    // Claude marks a failed result `is_error` in its payload.
    let session = format!("session_id = '{task}'");
    let failed = "type = 'tool_response' AND payload LIKE '%\"is_error\":true%'";
    assert_eq!(
        Counts {
            failed: count_events(dir, &session, failed),
            ..indexed_counts(dir, &session)
        },
        raw_counts(&transcript)
    );
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
    let diagnosis = doctor(home.path(), dir);
    for (folder, harness) in [
        ("claude-code-sessions", "claude-desktop"),
        ("local-agent-mode-sessions", "claude-cowork"),
    ] {
        let found = location(&diagnosis, &home.path().join(".config/Claude").join(folder));
        assert_eq!(found["harness"], harness, "{found:#}");
        assert_eq!(found["skipped"], json!([]), "{found:#}");
    }

    // Neither harness has a resume command esker can run.
    assert_no_resume(home.path(), dir, &task);
}

#[test]
fn an_appended_cowork_turn_adds_exactly_its_events() {
    let home = home_with_fixture();
    let live = task_transcript(home.path());
    let text = fs::read_to_string(&live).expect("transcript");
    let head = head_lines(&text, 3);
    assert_rest_adds(home.path(), &live, (&head, &text), "true", |_, _| {});
}
