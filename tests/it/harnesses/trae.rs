//! TRAE CLI 2.0 (`trae-cli`): a home holding TRAE's rollouts (`~/.trae/cli/sessions`,
//! `archived_sessions` and the prompt history `history.jsonl`, from
//! `tests/standalone-fixtures/trae`) beside Codex's own (`~/.codex/sessions`, from
//! `tests/fixtures/codex`), indexed with no PATH from the default locations. The files are
//! Codex's format: only their place makes them TRAE's. Every count is also taken from the raw
//! records by this test's own reading (Codex's rule: a prompt is an `event_msg` `user_message`,
//! a reply an assistant `response_item`); the sessions are `trae-cli` in the tables, in
//! `esker sessions` / `esker search` filters and in `esker doctor`, resume with `traex resume`,
//! and the Codex ones stay `codex`. A home moved by `$TRAE_HOME` is read and labelled too, and
//! an appended turn adds exactly its events.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{
    Counts, assert_rest_adds, assert_tools_paired, count_events, doctor, head_lines, index_home,
    index_home_with, indexed_counts, location, number, resume_line, rows, texts,
};
use crate::cli::{esker_at_home, stdout_of};
use crate::support::{copy_tree, fixtures_dir, index_into, standalone_fixture, stderr_of};

const LIVE: &str = "019ea3f1-2c4d-7b10-8e55-3a9c0d1e2f34";
const ARCHIVED: &str = "019e9a22-7f10-7a44-9c03-6d7e8f9a0b12";

/// A temp home with the fixture's `~/.trae` and Codex's fixture rollouts in `~/.codex`.
fn home_with_fixtures() -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("temp dir");
    copy_tree(
        &standalone_fixture("trae").join("trae"),
        &home.path().join(".trae"),
    );
    copy_tree(
        &fixtures_dir().join("codex/sessions"),
        &home.path().join(".codex/sessions"),
    );
    home
}

fn rollouts(folder: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = walkdir::WalkDir::new(folder)
        .into_iter()
        .map(|entry| entry.expect("walk").into_path())
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with("rollout-") && name.ends_with(".jsonl"))
        })
        .collect();
    found.sort();
    found
}

/// What the raw rollouts hold, counted from their records.
#[derive(Debug, Default, PartialEq)]
struct TraeCounts {
    base: Counts,
    /// Injected context (`<environment_context>`).
    injected: i64,
}

fn raw_counts(files: &[PathBuf]) -> TraeCounts {
    let mut counts = TraeCounts::default();
    for file in files {
        counts.base.sessions += 1;
        let text = fs::read_to_string(file).expect("rollout");
        let records: Vec<Value> = text
            .lines()
            .map(|line| serde_json::from_str(line).expect("JSON line"))
            .collect();
        for record in &records {
            let payload = &record["payload"];
            let kind = payload["type"].as_str().unwrap_or_default();
            match (record["type"].as_str().expect("type"), kind) {
                ("event_msg", "user_message") => counts.base.prompts += 1,
                ("event_msg", "exec_command_end") => {
                    counts.base.failed += i64::from(payload["exit_code"].as_i64() != Some(0));
                }
                ("response_item", "message") => match payload["role"].as_str() {
                    Some("assistant") => counts.base.replies += 1,
                    // A user item that repeats no `user_message` is injected context.
                    Some("user") => {
                        let said = &payload["content"][0]["text"];
                        let typed = records.iter().any(|other| {
                            other["payload"]["type"] == "user_message"
                                && other["payload"]["message"] == *said
                        });
                        counts.injected += i64::from(!typed);
                    }
                    _ => {}
                },
                ("response_item", "reasoning") => counts.base.reasoning += 1,
                ("response_item", "function_call" | "custom_tool_call") => counts.base.calls += 1,
                ("response_item", "function_call_output" | "custom_tool_call_output") => {
                    counts.base.results += 1;
                }
                _ => {}
            }
        }
    }
    counts
}

/// The store's counts of `source`: as Codex's, a failure is a result with a nonzero exit code.
fn trae_counts(dir: &Path, source: &str) -> TraeCounts {
    let sessions = format!("source = '{source}'");
    let of = |condition: &str| count_events(dir, &sessions, condition);
    TraeCounts {
        base: Counts {
            failed: of("type = 'tool_response' AND exit_code <> 0"),
            ..indexed_counts(dir, &sessions)
        },
        injected: of("type = 'system' AND text LIKE '%<environment_context>%'"),
    }
}

#[test]
fn trae_rollouts_are_trae_cli_sessions_and_codex_ones_stay_codex() {
    let home = home_with_fixtures();
    let data = tempfile::tempdir().expect("temp dir");
    let dir = data.path();
    let stderr = index_home(home.path(), dir);
    for expected in ["trae_rollout=2", "codex_rollout=3", "sessions: 5;"] {
        assert!(stderr.contains(expected), "{expected}: {stderr}");
    }

    let trae = rollouts(&home.path().join(".trae/cli"));
    assert_eq!(trae.len(), 2, "{trae:?}");
    let raw = raw_counts(&trae);
    assert_eq!(
        raw,
        TraeCounts {
            base: Counts {
                sessions: 2,
                prompts: 3,
                replies: 3,
                reasoning: 1,
                calls: 4,
                results: 4,
                failed: 1
            },
            injected: 1
        },
        "the fixture holds what this test expects"
    );
    assert_eq!(trae_counts(dir, "trae-cli"), raw, "every record read once");
    // As for Codex: one turn per prompt, after the one holding the session's preamble.
    assert_eq!(
        number(
            dir,
            "SELECT count(DISTINCT turn_id) FROM events WHERE type = 'user_input' AND session_id \
             IN (SELECT session_id FROM sessions WHERE source = 'trae-cli')"
        ),
        Some(raw.base.prompts),
        "one turn per prompt"
    );
    assert_eq!(
        number(
            dir,
            "SELECT sum(turn_count) FROM sessions WHERE source = 'trae-cli'"
        ),
        Some(raw.base.prompts + raw.base.sessions),
        "and a preamble turn per session"
    );
    assert_eq!(
        texts(
            dir,
            &format!(
                "SELECT text FROM events WHERE subtype = 'session_meta' AND session_id = \
                 'session:trae-cli-{LIVE}'"
            )
        ),
        [format!(
            "TRAE CLI session {LIVE} in /home/dev/src/kestrel (originator=codex-tui, \
             cli_version=0.208.1, model_provider=trae)"
        )]
    );
    let codex = rollouts(&home.path().join(".codex/sessions"));
    assert_eq!(
        number(
            dir,
            "SELECT count(*) FROM sessions WHERE source = 'codex' \
             AND source_path LIKE '%/.codex/sessions/%'"
        ),
        Some(codex.len() as i64),
        "Codex's own rollouts stay codex"
    );
    assert_eq!(
        number(
            dir,
            "SELECT count(*) FROM sessions WHERE source = 'trae-cli' \
             AND source_path LIKE '%/.trae/cli/%'"
        ),
        Some(raw.base.sessions)
    );
    assert_tools_paired(dir);

    // The prompt history beside the rollouts is no session.
    assert_eq!(
        number(dir, "SELECT count(*) FROM sessions"),
        Some(raw.base.sessions + codex.len() as i64)
    );

    let sessions = rows(
        dir,
        "SELECT native_id, source, cwd, model, git_branch, harness_version, turn_count \
         FROM sessions WHERE source = 'trae-cli' ORDER BY native_id",
    );
    let summary: Vec<Value> = sessions
        .iter()
        .map(|row| {
            let columns = [
                "native_id",
                "source",
                "cwd",
                "model",
                "git_branch",
                "harness_version",
                "turn_count",
            ];
            let column = |name: &&str| row.get(*name).cloned().unwrap_or(Value::Null);
            Value::Array(columns.iter().map(column).collect())
        })
        .collect();
    let cwd = "/home/dev/src/kestrel";
    assert_eq!(
        summary,
        [
            json!([
                ARCHIVED,
                "trae-cli",
                cwd,
                "doubao-seed-code",
                "main",
                "0.208.1",
                2
            ]),
            json!([
                LIVE,
                "trae-cli",
                cwd,
                "doubao-seed-code",
                "main",
                "0.208.1",
                3
            ]),
        ]
    );
    assert_eq!(
        texts(
            dir,
            &format!(
                "SELECT tool_name FROM events WHERE type = 'tool_call' AND session_id = \
                 'session:trae-cli-{LIVE}' ORDER BY seq"
            )
        ),
        [
            "exec_command",
            "apply_patch",
            "exec_command",
            "exec_command"
        ]
    );
    let failed = rows(
        dir,
        "SELECT r.exit_code, c.text AS call FROM events r JOIN events c \
         ON c.tool_call_id = r.tool_call_id AND c.type = 'tool_call' \
         WHERE r.type = 'tool_response' AND r.exit_code = 101",
    );
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert!(
        failed[0]["call"]
            .as_str()
            .is_some_and(|call| call.contains("cargo test -p kestrel-ingest")),
        "{failed:?}"
    );
    assert!(
        number(
            dir,
            &format!(
                "SELECT sum(input_tokens) FROM events WHERE session_id = 'session:trae-cli-{LIVE}'"
            )
        )
        .is_some_and(|tokens| tokens > 0),
        "token counts are read"
    );

    // `esker sessions` and `esker search` filter by the new source.
    let data_arg = dir.to_str().expect("utf-8");
    let listed = esker_at_home(
        home.path(),
        &[
            "sessions",
            "--data-dir",
            data_arg,
            "--json",
            "--source",
            "trae-cli",
        ],
    );
    assert!(listed.status.success(), "{}", stderr_of(&listed));
    let listed: Value = serde_json::from_str(&stdout_of(&listed)).expect("JSON");
    let mut ids: Vec<&str> = listed["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .map(|item| item["id"].as_str().expect("id"))
        .collect();
    ids.sort_unstable();
    assert_eq!(
        ids,
        [
            format!("session:trae-cli-{ARCHIVED}"),
            format!("session:trae-cli-{LIVE}")
        ]
    );
    for (source, hits_trae) in [("trae-cli", true), ("codex", false)] {
        let found = esker_at_home(
            home.path(),
            &[
                "search",
                "--data-dir",
                data_arg,
                "--json",
                "--source",
                source,
                "empty manifests",
            ],
        );
        // No hit is exit code 1.
        assert_eq!(
            found.status.code(),
            Some(if hits_trae { 0 } else { 1 }),
            "{}",
            stderr_of(&found)
        );
        let hits = stdout_of(&found);
        assert_eq!(
            hits.contains(&format!("session:trae-cli-{LIVE}")),
            hits_trae,
            "{source}: {hits}"
        );
    }

    // Resumed with TRAE's own command, in the session's directory.
    assert_eq!(
        resume_line(home.path(), dir, &format!("session:trae-cli-{LIVE}")),
        format!("cd {cwd} && traex resume {LIVE}")
    );

    // `esker doctor` lists TRAE's places with their sessions.
    let diagnosis = doctor(home.path(), dir);
    for (folder, sessions) in [("sessions", 1), ("archived_sessions", 1)] {
        let trae = location(&diagnosis, &home.path().join(".trae/cli").join(folder));
        assert_eq!(trae["harness"], "trae-cli", "{trae:#}");
        assert_eq!(trae["exists"], true);
        assert_eq!(trae["sessions"].as_u64(), Some(sessions), "{trae:#}");
        assert_eq!(trae["indexed_by_format"], json!({"trae_rollout": 1}));
        assert_eq!(trae["skipped"], json!([]), "{trae:#}");
    }
    let codex = location(&diagnosis, &home.path().join(".codex/sessions"));
    assert_eq!(codex["harness"], "codex");
    assert_eq!(
        codex["sessions"].as_u64(),
        Some(codex_rollouts(home.path()))
    );
}

fn codex_rollouts(home: &Path) -> u64 {
    rollouts(&home.join(".codex/sessions")).len() as u64
}

#[test]
fn a_home_moved_by_trae_home_is_read_as_trae() {
    let home = tempfile::tempdir().expect("temp dir");
    let moved = home.path().join("elsewhere/trae");
    copy_tree(&standalone_fixture("trae").join("trae"), &moved);
    let data = tempfile::tempdir().expect("temp dir");
    let stderr = index_home_with(home.path(), data.path(), &[("TRAE_HOME", &moved)]);
    assert!(stderr.contains("trae_rollout=2"), "{stderr}");
    assert_eq!(
        texts(
            data.path(),
            "SELECT DISTINCT source FROM sessions ORDER BY source"
        ),
        ["trae-cli"]
    );
    // Named on the command line, a `.trae/cli` home holds the same two sessions: its prompt
    // history `history.jsonl` is no format esker reads.
    let dotted = home.path().join("other/.trae");
    copy_tree(&standalone_fixture("trae").join("trae"), &dotted);
    let named = tempfile::tempdir().expect("temp dir");
    let stderr = index_into(named.path(), &[&dotted.join("cli")]);
    for expected in [
        "1 skipped (unknown format)",
        "trae_rollout=2",
        "sessions: 2;",
    ] {
        assert!(stderr.contains(expected), "{expected}: {stderr}");
    }
    // Without the variable the same folder is not looked at.
    let unset = tempfile::tempdir().expect("temp dir");
    let stderr = index_home(home.path(), unset.path());
    assert!(!stderr.contains("trae_rollout"), "{stderr}");
}

#[test]
fn an_appended_turn_adds_exactly_its_events() {
    let home = home_with_fixtures();
    let live = rollouts(&home.path().join(".trae/cli/sessions"))
        .pop()
        .expect("live rollout");
    let text = fs::read_to_string(&live).expect("rollout");
    // The first turn ends at its `task_complete`.
    let first_turn = text
        .lines()
        .position(|line| line.contains("\"task_complete\""))
        .expect("a completed turn")
        + 1;
    let head = head_lines(&text, first_turn);
    let session = format!("session_id = 'session:trae-cli-{LIVE}'");
    assert_rest_adds(home.path(), &live, (&head, &text), &session, |_, _| {});
}
