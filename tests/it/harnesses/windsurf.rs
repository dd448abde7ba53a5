//! Windsurf (`windsurf`): a home holding the fixture's Cascade hook transcripts
//! (`~/.windsurf/transcripts`, from `tests/standalone-fixtures/windsurf`) and one file of
//! Cascade's own encrypted history (`~/.codeium/windsurf/cascade/*.pb`), indexed with no PATH
//! from the default locations. Every count is also taken from the raw steps by this test's own
//! reading; a rewritten transcript (the hook writes the whole trajectory after each response)
//! adds exactly its new steps' events, and a search finds a reply.

use std::fs;
use std::path::Path;

use serde_json::{Value, json};

use super::index_home;
use super::{Counts, assert_tools_paired, indexed_counts, number, rows, texts};
use crate::support::copy_tree;
use crate::support::{
    corpus_dir, corpus_store, query_count, run_esker, standalone_fixture, stderr_of,
};

const HERON: &str = "3f9c1a52-7d4e-4b8a-9e21-5c6d7e8f9a01";
const DIST: &str = "c41d8e07-2b6a-4f3c-8d19-0e7a5b4c3d2f";

/// A temp home with the fixture's `~/.windsurf` and `~/.codeium`.
fn home_with_fixtures() -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("temp dir");
    let fixture = standalone_fixture("windsurf");
    copy_tree(&fixture.join("windsurf"), &home.path().join(".windsurf"));
    copy_tree(&fixture.join("codeium"), &home.path().join(".codeium"));
    home
}

fn transcript(home: &Path, id: &str) -> std::path::PathBuf {
    home.join(".windsurf/transcripts")
        .join(format!("{id}.jsonl"))
}

/// What the raw transcripts hold, counted from their steps; also the lines that are no JSON.
fn raw_counts(home: &Path) -> (Counts, i64) {
    let mut counts = Counts::default();
    let mut malformed = 0;
    for id in [HERON, DIST] {
        counts.sessions += 1;
        let text = fs::read_to_string(transcript(home, id)).expect("transcript");
        for line in text.lines() {
            let Ok(step) = serde_json::from_str::<Value>(line) else {
                malformed += 1;
                continue;
            };
            let kind = step["type"].as_str().expect("type");
            let data = &step[kind];
            match kind {
                "user_input" => counts.prompts += 1,
                "planner_response" => {
                    counts.replies += 1;
                    counts.reasoning += i64::from(data.get("thinking").is_some());
                }
                _ => {
                    counts.calls += 1;
                    counts.results += 1;
                    counts.failed += i64::from(data["exit_code"].as_i64().unwrap_or(0) != 0);
                }
            }
        }
    }
    (counts, malformed)
}

#[test]
fn windsurf_transcripts_are_read_from_a_home_with_exact_counts() {
    let home = home_with_fixtures();
    let data = tempfile::tempdir().expect("temp dir");
    let dir = data.path();
    let stderr = index_home(home.path(), dir);
    for expected in [
        "windsurf_transcript=2",
        "1 encrypted",
        "sessions: 2;",
        "events: 19 new",
        "malformed lines: 1;",
        "parser warnings: 0;",
    ] {
        assert!(stderr.contains(expected), "{expected}: {stderr}");
    }

    let (raw, malformed) = raw_counts(home.path());
    assert_eq!(
        (raw, malformed),
        (
            Counts {
                sessions: 2,
                prompts: 3,
                replies: 5,
                reasoning: 1,
                calls: 5,
                results: 5,
                failed: 1,
            },
            1
        ),
        "the fixture holds what this test expects"
    );
    assert_eq!(
        indexed_counts(dir, "source = 'windsurf'"),
        raw,
        "every step is indexed once"
    );
    assert_eq!(
        number(dir, "SELECT sum(turn_count) FROM sessions"),
        Some(raw.prompts),
        "one turn per prompt"
    );
    assert_tools_paired(dir);

    let sessions = rows(
        dir,
        "SELECT native_id, cwd, model, turn_count, event_count FROM sessions ORDER BY native_id",
    );
    let summary: Vec<Value> = sessions
        .iter()
        .map(|row| {
            let columns = ["native_id", "cwd", "model", "turn_count", "event_count"];
            let column = |name: &&str| row.get(*name).cloned().unwrap_or(Value::Null);
            Value::Array(columns.iter().map(column).collect())
        })
        .collect();
    assert_eq!(
        summary,
        [
            json!([HERON, "/home/dev/heron", "claude-sonnet-4-5", 2, 17]),
            json!([DIST, null, null, 1, 2]),
        ]
    );
    assert_eq!(
        texts(
            dir,
            "SELECT tool_name FROM events WHERE type = 'tool_call' ORDER BY timestamp, event_id"
        ),
        [
            "read_action",
            "command_action",
            "code_action",
            "command_action",
            "code_action"
        ]
    );
    let failed = rows(
        dir,
        "SELECT r.exit_code, c.text AS call FROM events r JOIN events c \
         ON c.tool_call_id = r.tool_call_id AND c.type = 'tool_call' \
         WHERE r.type = 'tool_response' AND r.subtype = 'error'",
    );
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0].get("exit_code"), Some(&json!(1)));
    assert!(
        failed[0]["call"]
            .as_str()
            .is_some_and(|call| call.contains("pytest tests/test_export.py -q")),
        "{failed:?}"
    );

    let found = run_esker(&[
        "search",
        "--data-dir",
        dir.to_str().expect("utf-8"),
        "--json",
        "null region exported",
    ]);
    assert!(found.status.success(), "{}", stderr_of(&found));
    let hits = String::from_utf8_lossy(&found.stdout);
    assert!(hits.contains(HERON), "{hits}");
}

#[test]
fn a_rewritten_transcript_adds_exactly_its_new_steps() {
    let home = home_with_fixtures();
    let data = tempfile::tempdir().expect("temp dir");
    index_home(home.path(), data.path());
    let again = index_home(home.path(), data.path());
    assert!(again.contains("events: 0 new"), "{again}");

    // The hook writes the whole trajectory again after each response.
    let path = transcript(home.path(), HERON);
    let mut text = fs::read_to_string(&path).expect("transcript");
    for (kind, data) in [
        (
            "user_input",
            json!({"user_response": "and bump the version"}),
        ),
        ("planner_response", json!({"response": "Bumped to 0.9.1."})),
    ] {
        let mut step = json!({"status": "done", "type": kind, "trajectory_id": HERON,
            "timestamp": "2026-11-03T14:09:00.000Z", "model_name": "claude-sonnet-4-5"});
        step[kind] = data;
        text.push_str(&format!("{step}\n"));
    }
    let rewritten = path.with_extension("tmp");
    fs::write(&rewritten, text).expect("write");
    fs::rename(&rewritten, &path).expect("replace");

    let appended = index_home(home.path(), data.path());
    assert!(appended.contains("events: 2 new"), "{appended}");
    assert_eq!(
        number(
            data.path(),
            &format!("SELECT turn_count FROM sessions WHERE native_id = '{HERON}'")
        ),
        Some(3)
    );
}

#[test]
fn corpus_windsurf_sessions_are_read_when_the_corpus_has_some() {
    let Some(corpus) = corpus_dir() else {
        eprintln!("SKIPPED: ../shared/corpus is absent; no real Windsurf session checked");
        return;
    };
    if !corpus.join("windsurf").is_dir() {
        eprintln!(
            "SKIPPED: ../shared/corpus holds no Windsurf Cascade transcript (`~/.windsurf/transcripts/<trajectory_id>.jsonl`)"
        );
        return;
    }
    let Some((data_dir, stderr)) = corpus_store() else {
        return;
    };
    assert!(
        query_count(
            data_dir,
            "SELECT count(*) FROM sessions WHERE source = 'windsurf'"
        ) > 0,
        "Windsurf files in the corpus: {stderr}"
    );
    assert_eq!(
        query_count(
            data_dir,
            "SELECT count(*) FROM events c WHERE c.source = 'windsurf' AND c.type = 'tool_call' \
             AND NOT EXISTS (SELECT 1 FROM events r WHERE r.type = 'tool_response' \
             AND r.session_id = c.session_id AND r.tool_call_id = c.tool_call_id)"
        ),
        0,
        "every real call has its result"
    );
}
