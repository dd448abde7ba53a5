//! Grok Build (`grok`): a home holding `tests/standalone-fixtures/grok` as `~/.grok` (a session
//! and the sub-agent it spawned, in Grok's own layout), indexed with no PATH from the default
//! location. Every count is also taken from the raw `updates.jsonl` by this test's own reading
//! (a prompt is a run of `user_message_chunk` lines of one `promptIndex` without `hostTurn`; a
//! reply a run of `agent_message_chunk` lines; a call a `tool_call`; a result the first
//! `tool_call_update` of a call with status `completed` or `failed`); the session's metadata
//! files are read with it and never as logs, the half-written line is skipped with a counted
//! warning, token usage is each `turn_completed`'s, the sub-agent names its parent, resume is
//! `grok --resume`, `esker doctor` lists the folder, and an appended turn adds exactly its
//! events.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{
    Counts, assert_rest_adds, assert_tools_paired, columns, count_events, doctor_location,
    head_lines, index_home, indexed_counts, number, resume_line, rows, texts,
};
use crate::support::{copy_tree, standalone_fixture};

const PARENT: &str = "019f7000-0000-7000-8000-00000000a001";
const CHILD: &str = "019f7000-0000-7000-8000-00000000a002";
/// Grok's sessions in the store.
const GROK: &str = "source = 'grok'";

fn home_with_fixture() -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("temp dir");
    copy_tree(
        &standalone_fixture("grok").join("sessions"),
        &home.path().join(".grok").join("sessions"),
    );
    home
}

fn logs(home: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = walkdir::WalkDir::new(home.join(".grok"))
        .into_iter()
        .map(|entry| entry.expect("walk").into_path())
        .filter(|path| path.file_name().is_some_and(|name| name == "updates.jsonl"))
        .collect();
    found.sort();
    found
}

/// Grok's counts: the shared ones and the turns that carry token usage.
#[derive(Debug, Default, PartialEq, Clone, Copy)]
struct GrokCounts {
    base: Counts,
    turns_with_usage: i64,
}

/// This test's own reading of the raw logs; also returns the malformed lines it met.
fn raw_counts(files: &[PathBuf]) -> (GrokCounts, i64) {
    let mut counts = GrokCounts::default();
    let mut malformed = 0;
    for file in files {
        counts.base.sessions += 1;
        let mut previous: Option<(String, Value)> = None;
        let mut answered = HashSet::new();
        for line in fs::read_to_string(file).expect("log").lines() {
            let Ok(record) = serde_json::from_str::<Value>(line) else {
                malformed += 1;
                continue;
            };
            let update = &record["params"]["update"];
            let kind = update["sessionUpdate"].as_str().unwrap_or("").to_string();
            let index = update["_meta"]["promptIndex"].clone();
            let host = update["_meta"]["hostTurn"] == json!(true);
            let run_kind = match kind.as_str() {
                "user_message_chunk" if host => Some("host".to_string()),
                "user_message_chunk" => Some(format!("prompt{index}")),
                "agent_message_chunk" => Some("reply".to_string()),
                "agent_thought_chunk" => Some("thought".to_string()),
                _ => None,
            };
            let conversational = run_kind.is_some()
                || matches!(
                    kind.as_str(),
                    "tool_call" | "tool_call_update" | "turn_completed"
                );
            if let Some(run) = run_kind {
                let continues = previous.as_ref().is_some_and(|(last, _)| *last == run);
                if !continues {
                    counts.base.prompts += i64::from(run.starts_with("prompt"));
                    counts.base.replies += i64::from(run == "reply");
                    counts.base.reasoning += i64::from(run == "thought");
                }
                previous = Some((run, index));
            } else if conversational {
                previous = None;
            }
            match kind.as_str() {
                "tool_call" => counts.base.calls += 1,
                "tool_call_update" => {
                    let status = update["status"].as_str().unwrap_or("");
                    let id = update["toolCallId"].as_str().unwrap_or("").to_string();
                    if matches!(status, "completed" | "failed") && answered.insert(id) {
                        counts.base.results += 1;
                        let exit = update["rawOutput"]["exit_code"].as_i64().unwrap_or(0);
                        counts.base.failed += i64::from(status == "failed" || exit != 0);
                    }
                }
                "turn_completed" => {
                    counts.turns_with_usage += i64::from(update["usage"].is_object())
                }
                _ => {}
            }
        }
    }
    (counts, malformed)
}

fn grok_counts(dir: &Path) -> GrokCounts {
    GrokCounts {
        base: indexed_counts(dir, GROK),
        turns_with_usage: count_events(dir, GROK, "input_tokens IS NOT NULL"),
    }
}

#[test]
fn grok_sessions_are_read_from_their_update_logs_with_their_metadata() {
    let home = home_with_fixture();
    let data = tempfile::tempdir().expect("temp dir");
    let dir = data.path();
    let stderr = index_home(home.path(), dir);

    let files = logs(home.path());
    let (raw, malformed) = raw_counts(&files);
    assert_eq!(
        (raw, malformed),
        (
            GrokCounts {
                base: Counts {
                    sessions: 2,
                    prompts: 4,
                    replies: 6,
                    reasoning: 1,
                    calls: 6,
                    results: 6,
                    failed: 2,
                },
                turns_with_usage: 5,
            },
            1
        ),
        "the fixture, as this test reads it"
    );
    for expected in ["grok_updates=2", "malformed lines: 1;"] {
        assert!(stderr.contains(expected), "{expected}: {stderr}");
    }
    assert_eq!(grok_counts(dir), raw, "every record read once");
    assert_tools_paired(dir);

    // The session's facts come from its summary.json; the sub-agent names its parent.
    let facts = columns(
        dir,
        "SELECT native_id, title, cwd, model, parent_session_id FROM sessions \
         WHERE source = 'grok' ORDER BY native_id",
        &["native_id", "title", "cwd", "model", "parent_session_id"],
    );
    let cwd = "/home/dev/src/heron";
    assert_eq!(
        facts,
        [
            json!([
                PARENT,
                "Fix heron's failing parse test",
                cwd,
                "grok-build",
                null
            ]),
            json!([
                CHILD,
                "Find parse callers",
                cwd,
                "grok-4.5-build",
                format!("session:grok-{PARENT}")
            ]),
        ]
    );

    // Prompts are the user's words, chunks joined; the host's turn is context.
    let parent = format!("session:grok-{PARENT}");
    assert_eq!(
        texts(
            dir,
            &format!(
                "SELECT text FROM events WHERE type = 'user_input' AND session_id = '{parent}' \
                 ORDER BY seq"
            )
        ),
        [
            "Why does `cargo test` fail in heron?\nFix it if you can.",
            "Write the body then.",
            "Thanks, that is all.",
        ]
    );
    assert_eq!(
        texts(
            dir,
            &format!("SELECT text FROM events WHERE type = 'system' AND session_id = '{parent}'")
        ),
        ["Background task finished: cargo build"]
    );
    let failed = columns(
        dir,
        "SELECT tool_name, exit_code FROM events WHERE type = 'tool_response' \
         AND subtype = 'error' ORDER BY seq",
        &["tool_name", "exit_code"],
    );
    assert_eq!(
        failed,
        [
            json!(["run_terminal_cmd", 101]),
            json!(["search_replace", null])
        ]
    );

    // Token usage: each turn's, input with cache reads.
    assert_eq!(
        number(
            dir,
            &format!("SELECT sum(input_tokens) FROM events WHERE session_id = '{parent}'")
        ),
        Some(12000 + 15000 + 16000 + 16500)
    );
    assert_eq!(
        number(
            dir,
            &format!("SELECT sum(cached_input_tokens) FROM events WHERE session_id = '{parent}'")
        ),
        Some(9000 + 12000 + 15000 + 16000)
    );
    assert_eq!(
        number(
            dir,
            &format!("SELECT sum(reasoning_tokens) FROM events WHERE session_id = '{parent}'")
        ),
        Some(300)
    );

    // Resume by id in the session's directory.
    let resume = resume_line(home.path(), dir, &parent);
    assert!(
        resume.ends_with(&format!("&& grok --resume {PARENT}")),
        "{resume}"
    );

    // `esker doctor` lists the sessions folder; the metadata files are not skipped logs.
    let folder = home.path().join(".grok").join("sessions");
    let location = doctor_location(home.path(), dir, &folder);
    assert_eq!(location["harness"], "grok-build");
    assert_eq!(location["sessions"].as_u64(), Some(2), "{location:#}");
    // Only the half-written line is reported: the metadata files are not skipped logs.
    let log = logs(home.path())
        .into_iter()
        .find(|path| path.to_string_lossy().contains(PARENT))
        .expect("the parent's log");
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
    let live = logs(home.path())
        .into_iter()
        .find(|path| path.to_string_lossy().contains(PARENT))
        .expect("the parent's log");
    let text = fs::read_to_string(&live).expect("log");
    // Cut after the second turn's completion.
    let cut = text
        .lines()
        .position(|line| line.contains("\"prompt_id\":\"p-2\""))
        .expect("turn 2")
        + 1;
    let head = head_lines(&text, cut);
    assert_rest_adds(home.path(), &live, (&head, &text), GROK, |_, _| {});
}

/// A title Grok rewrites in `summary.json` while the log stays as it was (a rename) is read
/// on the next pass: the sidecar's hash is kept in the log's checkpoint. Its events are not
/// written twice.
#[test]
fn a_renamed_session_is_read_again_though_its_log_did_not_change() {
    let home = home_with_fixture();
    let data = tempfile::tempdir().expect("temp dir");
    let dir = data.path();
    index_home(home.path(), dir);
    let before = grok_counts(dir);
    let title_sql = format!("SELECT title FROM sessions WHERE native_id = '{PARENT}'");
    let title = |dir: &Path| rows(dir, &title_sql)[0]["title"].clone();
    assert_eq!(title(dir), "Fix heron's failing parse test");

    let summary = logs(home.path())
        .into_iter()
        .find(|path| path.to_string_lossy().contains(PARENT))
        .expect("the parent's log")
        .with_file_name("summary.json");
    let mut facts: Value = serde_json::from_str(&fs::read_to_string(&summary).unwrap()).unwrap();
    facts["generated_title"] = json!("Heron: the parse test, fixed");
    fs::write(&summary, serde_json::to_string_pretty(&facts).unwrap()).unwrap();

    let stderr = index_home(home.path(), dir);
    assert!(
        stderr.contains("grok_updates=1"),
        "only the renamed log: {stderr}"
    );
    assert_eq!(title(dir), "Heron: the parse test, fixed");
    assert_eq!(grok_counts(dir), before, "no event twice");
    let again = index_home(home.path(), dir);
    assert!(
        !again.contains("grok_updates="),
        "nothing changed since: {again}"
    );
}
