//! Claude Desktop's Code tab (`claude-desktop`) and Cowork (`cowork`): a home holding
//! `tests/standalone-fixtures/claude-desktop` as `~/.config/Claude` (its records, a Cowork task's
//! folder with its Claude Code transcript, the task's uploads and outputs, the skills mirror) and
//! `~/.claude` (the Code session's transcript), indexed with no PATH. The Cowork transcript is
//! counted by this test's own reading of its Claude records and read as `cowork` with its
//! record's title, cwd and model; a record without its transcript is listed as a session with
//! no events and the record's facts; a record whose transcript exists adds no session; the
//! task's own files are never logs; `esker doctor` lists both folders; an appended turn adds
//! exactly its events. The `claude` session of the Code record's transcript takes the record's
//! title (its own summary kept as its summary), a rename in the app re-reads that transcript
//! alone, and a transcript no record names keeps its own title.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{
    Counts, assert_no_resume, assert_rest_adds, assert_tools_paired, columns, count_events, doctor,
    head_lines, index_home, indexed_counts, location, number, rows,
};
use crate::support::{copy_tree, standalone_fixture};

const CODE_CLI: &str = "5d6e7f80-0000-4000-8000-000000000c01";
const GONE_CLI: &str = "5d6e7f80-0000-4000-8000-000000000c02";
const TASK_CLI: &str = "5d6e7f80-0000-4000-8000-000000000d01";
const NEW_CLI: &str = "5d6e7f80-0000-4000-8000-000000000d02";
/// A Claude Code session of the home that no Code record names.
const LONE_CLI: &str = "5d6e7f80-0000-4000-8000-000000000c03";

fn home_with_fixture() -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("temp dir");
    let fixture = standalone_fixture("claude-desktop");
    copy_tree(&fixture.join("Claude"), &home.path().join(".config/Claude"));
    copy_tree(&fixture.join("claude-home"), &home.path().join(".claude"));
    home
}

/// The Code tab's record naming Claude Code session `cli`.
fn code_record(home: &Path, cli: &str) -> PathBuf {
    walkdir::WalkDir::new(home.join(".config/Claude/claude-code-sessions"))
        .into_iter()
        .map(|entry| entry.expect("walk").into_path())
        .find(|path| {
            path.is_file() && fs::read_to_string(path).is_ok_and(|text| text.contains(cli))
        })
        .expect("the Code record")
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
    assert_eq!(listed[0][2], "Tidy the heron README", "the record's title");
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

/// The `claude` sessions of the store: native id, title and summary, by native id.
fn claude_titles(dir: &Path) -> Vec<Value> {
    columns(
        dir,
        "SELECT native_id, title, session_summary FROM sessions WHERE source = 'claude' \
         ORDER BY native_id",
        &["native_id", "title", "session_summary"],
    )
}

#[test]
fn a_code_record_titles_its_transcript_and_a_rename_rereads_it_alone() {
    let home = home_with_fixture();
    // The Code session's transcript names itself too (a summary of its last message)...
    let projects = home.path().join(".claude/projects/-home-dev-src-heron");
    let transcript = projects.join(format!("{CODE_CLI}.jsonl"));
    let mut text = fs::read_to_string(&transcript).expect("transcript");
    let summary = json!({"type": "summary", "summary": "Numbered the install steps",
        "leafUuid": "5d6e7f80-0002"});
    text.push_str(&format!("{summary}\n"));
    fs::write(&transcript, text).expect("write the summary");
    // ... and another session of the home, with a title of its own, has no record.
    let lone = [
        json!({"type": "user", "uuid": "5d6e7f80-0301", "parentUuid": null,
            "sessionId": LONE_CLI, "timestamp": "2026-11-18T11:00:00.000Z",
            "cwd": "/home/dev/src/heron", "version": "2.1.0",
            "message": {"role": "user", "content": "Draft the release notes"}}),
        json!({"type": "assistant", "uuid": "5d6e7f80-0302", "parentUuid": "5d6e7f80-0301",
            "sessionId": LONE_CLI, "timestamp": "2026-11-18T11:01:00.000Z",
            "cwd": "/home/dev/src/heron", "version": "2.1.0",
            "message": {"id": "msg_c3", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": "Drafted."}],
                "usage": {"input_tokens": 500, "output_tokens": 20}}}),
        json!({"type": "custom-title", "customTitle": "Heron release notes",
            "sessionId": LONE_CLI}),
    ];
    let lone_text: String = lone.iter().map(|line| format!("{line}\n")).collect();
    fs::write(projects.join(format!("{LONE_CLI}.jsonl")), lone_text).expect("write");

    let data = tempfile::tempdir().expect("temp dir");
    let dir = data.path();
    index_home(home.path(), dir);
    assert_eq!(
        claude_titles(dir),
        [
            json!([
                CODE_CLI,
                "Tidy the heron README",
                "Numbered the install steps"
            ]),
            json!([LONE_CLI, "Heron release notes", null]),
        ]
    );

    // Renamed in the app: the record is rewritten; the next pass reads it and that transcript.
    let record_path = code_record(home.path(), CODE_CLI);
    let mut record: Value =
        serde_json::from_str(&fs::read_to_string(&record_path).expect("record")).expect("JSON");
    record["title"] = json!("Release the tidied heron README");
    fs::write(&record_path, record.to_string()).expect("rename");
    let renamed = index_home(home.path(), dir);
    assert!(
        renamed.contains(" 2 ingested,")
            && renamed.contains("formats: claude_desktop_record=1 claude_transcript=1;"),
        "{renamed}"
    );
    assert_eq!(
        claude_titles(dir),
        [
            json!([
                CODE_CLI,
                "Release the tidied heron README",
                "Numbered the install steps"
            ]),
            json!([LONE_CLI, "Heron release notes", null]),
        ]
    );
    assert_eq!(
        number(
            dir,
            "SELECT count(*) FROM sessions WHERE source = 'claude-desktop'"
        ),
        Some(1),
        "the record whose transcript exists still adds no session"
    );

    let again = index_home(home.path(), dir);
    assert!(again.contains(" 0 ingested,"), "{again}");
}
