//! TRAE CLI 2.0 (`trae-cli`): a home holding TRAE's rollouts (`~/.trae/cli/sessions`,
//! `archived_sessions` and the prompt history `history.jsonl`, from
//! `tests/standalone-fixtures/trae`) beside Codex's own (`~/.codex/sessions`, from
//! `tests/fixtures/codex`), indexed with no PATH from the default locations. The files are
//! Codex's format (one also holds TRAE's own `history_mutation` and `item_completed` records):
//! only their place makes them TRAE's. Every count is also taken from the raw records by this
//! test's own reading: whatever several records say (a reply as a response item, a
//! `history_mutation` item and an `agent_message` event) was said as often as the record type
//! that says it most, and a `replace` / `rollback` says nothing new. The sessions are `trae-cli`
//! in the tables, in `esker sessions` / `esker search` filters and in `esker doctor`, resume with
//! `traex resume`, and the Codex ones stay `codex`. A home moved by `$TRAE_HOME` is read and
//! labelled too, and an appended turn adds exactly its events.

use std::collections::HashMap;
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
/// The rollout with TRAE's own `history_mutation` and `item_completed` records.
const MUTATING: &str = "019ea8c4-5e21-7f02-9b13-2c3d4e5f6a70";

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
    /// Injected context: user-role items that repeat no prompt.
    injected: i64,
}

fn records(file: &Path) -> Vec<Value> {
    fs::read_to_string(file)
        .expect("rollout")
        .lines()
        .map(|line| serde_json::from_str(line).expect("JSON line"))
        .collect()
}

/// What one rollout says: for each kind of thing (`prompt`, `reply`, `call`, ...) and key (its
/// text or call id), how often each record type says it.
#[derive(Default)]
struct Said(HashMap<(&'static str, String), HashMap<&'static str, i64>>);

impl Said {
    fn add(&mut self, kind: &'static str, key: &str, source: &'static str) {
        *self
            .0
            .entry((kind, key.trim().to_string()))
            .or_default()
            .entry(source)
            .or_default() += 1;
    }

    /// How many things of `kind` were said (each as often as the record type that says it most),
    /// leaving out those also said as a thing of kind `except`.
    fn times(&self, kind: &str, except: Option<&'static str>) -> i64 {
        self.0
            .iter()
            .filter(|((said, key), _)| {
                *said == kind
                    && except.is_none_or(|other| !self.0.contains_key(&(other, key.clone())))
            })
            .map(|(_, by_source)| by_source.values().copied().max().unwrap_or(0))
            .sum()
    }
}

/// The text blocks of a message or turn item, joined as typed.
fn text_of(content: &Value) -> String {
    content
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|block| block["text"].as_str())
        .collect()
}

/// A Responses-API item (a `response_item` payload or a `history_mutation` item).
fn said_in_item(said: &mut Said, item: &Value, source: &'static str) {
    let call = item["call_id"].as_str().unwrap_or_default();
    match item["type"].as_str().unwrap_or_default() {
        "message" => {
            let kind = match (item["role"].as_str(), item["channel"].as_str()) {
                (Some("assistant"), Some("analysis" | "reasoning")) => "reasoning",
                (Some("assistant"), _) => "reply",
                (Some("user"), _) => "user item",
                _ => return,
            };
            said.add(kind, &text_of(&item["content"]), source);
        }
        "reasoning" => {
            let summary = text_of(&item["summary"]);
            let text = if summary.is_empty() {
                text_of(&item["content"])
            } else {
                summary
            };
            said.add("reasoning", &text, source);
        }
        "function_call" | "custom_tool_call" => said.add("call", call, source),
        "function_call_output" | "custom_tool_call_output" => said.add("result", call, source),
        _ => {}
    }
}

/// A turn item (`item_completed`, `display_completions`).
fn said_in_turn_item(said: &mut Said, item: &Value, source: &'static str) {
    match item["type"].as_str().unwrap_or_default() {
        "UserMessage" => said.add("prompt", &text_of(&item["content"]), source),
        "AgentMessage" => said.add("reply", &text_of(&item["content"]), source),
        "FileChange" => {
            let id = item["id"].as_str().expect("file change id");
            said.add("call", id, source);
            said.add("result", id, source);
        }
        _ => {}
    }
}

fn said_in_event(said: &mut Said, event: &Value) {
    let text = |key: &str| event[key].as_str().unwrap_or_default().to_string();
    let call = text("call_id");
    match event["type"].as_str().unwrap_or_default() {
        "user_message" => said.add("prompt", &text("message"), "user_message"),
        "agent_message" => said.add("reply", &text("message"), "agent_message"),
        "agent_reasoning" => said.add("reasoning", &text("text"), "agent_reasoning"),
        "item_completed" => said_in_turn_item(said, &event["item"], "item_completed"),
        "exec_command_end" | "patch_apply_end" => {
            said.add("call", &call, "tool event");
            said.add("result", &call, "tool event");
            if event["exit_code"].as_i64().is_some_and(|code| code != 0) {
                said.add("failure", &call, "tool event");
            }
        }
        _ => {}
    }
}

/// TRAE's `history_mutation`: an append says its displayed prompts and its items again or for
/// the first time; a `replace` or `rollback` says nothing new.
fn said_in_mutation(said: &mut Said, mutation: &Value) {
    if mutation["operation"] != "append" {
        return;
    }
    for shown in mutation["display_completions"]
        .as_array()
        .into_iter()
        .flatten()
    {
        said_in_turn_item(said, &shown["item"], "display_completions");
    }
    for item in mutation["items"].as_array().into_iter().flatten() {
        said_in_item(said, item, "history_mutation");
    }
}

fn said_in(file: &Path) -> Said {
    let mut said = Said::default();
    for record in records(file) {
        let payload = &record["payload"];
        match record["type"].as_str().expect("type") {
            "response_item" => said_in_item(&mut said, payload, "response_item"),
            "event_msg" => said_in_event(&mut said, payload),
            "history_mutation" => said_in_mutation(&mut said, payload),
            _ => {}
        }
    }
    said
}

fn raw_counts(files: &[PathBuf]) -> TraeCounts {
    let mut counts = TraeCounts::default();
    for file in files {
        let said = said_in(file);
        counts.base = counts.base
            + Counts {
                sessions: 1,
                prompts: said.times("prompt", None),
                replies: said.times("reply", None),
                reasoning: said.times("reasoning", None),
                calls: said.times("call", None),
                results: said.times("result", None),
                failed: said.times("failure", None),
            };
        counts.injected += said.times("user item", Some("prompt"));
    }
    counts
}

/// The `history_mutation` records of `file` whose operation is `replace` or `rollback`, and the
/// call ids only their items name.
fn history_rewrites(file: &Path) -> (i64, Vec<String>) {
    let said = said_in(file);
    let mut rewrites = 0;
    let mut only_there = Vec::new();
    for record in records(file) {
        let payload = &record["payload"];
        if record["type"] != "history_mutation" || payload["operation"] == "append" {
            continue;
        }
        rewrites += 1;
        for item in payload["items"].as_array().into_iter().flatten() {
            if let Some(call) = item["call_id"].as_str()
                && !said.0.contains_key(&("call", call.to_string()))
            {
                only_there.push(call.to_string());
            }
        }
    }
    (rewrites, only_there)
}

fn rollout_of(home: &Path, id: &str) -> PathBuf {
    rollouts(&home.join(".trae/cli"))
        .into_iter()
        .find(|path| path.to_string_lossy().contains(id))
        .unwrap_or_else(|| panic!("no rollout of {id}"))
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
        injected: of("type = 'system' AND subtype IN ('environment_context', 'user_context')"),
    }
}

#[test]
fn trae_rollouts_are_trae_cli_sessions_and_codex_ones_stay_codex() {
    let home = home_with_fixtures();
    let data = tempfile::tempdir().expect("temp dir");
    let dir = data.path();
    let stderr = index_home(home.path(), dir);
    for expected in ["trae_rollout=3", "codex_rollout=3", "sessions: 6;"] {
        assert!(stderr.contains(expected), "{expected}: {stderr}");
    }

    let trae = rollouts(&home.path().join(".trae/cli"));
    assert_eq!(trae.len(), 3, "{trae:?}");
    let raw = raw_counts(&trae);
    assert_eq!(
        raw,
        TraeCounts {
            base: Counts {
                sessions: 3,
                prompts: 5,
                replies: 7,
                reasoning: 2,
                calls: 8,
                results: 8,
                failed: 2
            },
            injected: 3
        },
        "the fixture holds what this test expects"
    );
    assert_eq!(trae_counts(dir, "trae-cli"), raw, "every record read once");
    assert_trae_records_read(home.path(), dir);
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
            json!([
                MUTATING,
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
            format!("session:trae-cli-{LIVE}"),
            format!("session:trae-cli-{MUTATING}")
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
    for (folder, sessions) in [("sessions", 2), ("archived_sessions", 1)] {
        let trae = location(&diagnosis, &home.path().join(".trae/cli").join(folder));
        assert_eq!(trae["harness"], "trae-cli", "{trae:#}");
        assert_eq!(trae["exists"], true);
        assert_eq!(trae["sessions"].as_u64(), Some(sessions), "{trae:#}");
        assert_eq!(trae["indexed_by_format"], json!({"trae_rollout": sessions}));
        assert_eq!(trae["skipped"], json!([]), "{trae:#}");
    }
    let codex = location(&diagnosis, &home.path().join(".codex/sessions"));
    assert_eq!(codex["harness"], "codex");
    assert_eq!(
        codex["sessions"].as_u64(),
        Some(codex_rollouts(home.path()))
    );
}

/// TRAE's own records: none is an unknown record; each `replace` / `rollback` leaves one
/// marker, and a call only their items name is not read; the calls only `history_mutation`
/// appends and an `item_completed` file change carry are read, in order.
fn assert_trae_records_read(home: &Path, dir: &Path) {
    let trae = "source = 'trae-cli'";
    assert_eq!(
        count_events(dir, trae, "type = 'unknown'"),
        0,
        "no unknown record"
    );
    let mutating = rollout_of(home, MUTATING);
    let (rewrites, only_rewritten) = history_rewrites(&mutating);
    assert!(
        rewrites > 0 && !only_rewritten.is_empty(),
        "the fixture rewrites history"
    );
    let session = format!("session_id = 'session:trae-cli-{MUTATING}'");
    let markers = "subtype IN ('history_replace', 'history_rollback')";
    assert_eq!(
        count_events(dir, trae, &format!("{session} AND {markers}")),
        rewrites,
        "one marker per replace or rollback"
    );
    for call in &only_rewritten {
        assert_eq!(
            count_events(dir, trae, &format!("tool_call_id = '{call}'")),
            0,
            "{call} is only re-sent history"
        );
    }
    assert_eq!(
        texts(
            dir,
            &format!(
                "SELECT tool_name FROM events WHERE type = 'tool_call' AND {session} ORDER BY seq"
            )
        ),
        ["exec", "apply_patch", "exec", "exec"]
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
    assert!(stderr.contains("trae_rollout=3"), "{stderr}");
    assert_eq!(
        texts(
            data.path(),
            "SELECT DISTINCT source FROM sessions ORDER BY source"
        ),
        ["trae-cli"]
    );
    // Named on the command line, a `.trae/cli` home holds the same three sessions: its prompt
    // history `history.jsonl` is no format esker reads.
    let dotted = home.path().join("other/.trae");
    copy_tree(&standalone_fixture("trae").join("trae"), &dotted);
    let named = tempfile::tempdir().expect("temp dir");
    let stderr = index_into(named.path(), &[&dotted.join("cli")]);
    for expected in [
        "1 skipped (unknown format)",
        "trae_rollout=3",
        "sessions: 3;",
    ] {
        assert!(stderr.contains(expected), "{expected}: {stderr}");
    }
    // Without the variable the same folder is not looked at.
    let unset = tempfile::tempdir().expect("temp dir");
    let stderr = index_home(home.path(), unset.path());
    assert!(!stderr.contains("trae_rollout"), "{stderr}");
}

/// For the Codex-only rollout and for the one with TRAE's own records, whose second turn's
/// calls and replies only `history_mutation` and `item_completed` carry.
#[test]
fn an_appended_turn_adds_exactly_its_events() {
    for id in [LIVE, MUTATING] {
        let home = home_with_fixtures();
        let live = rollout_of(home.path(), id);
        let text = fs::read_to_string(&live).expect("rollout");
        // The first turn ends at its `task_complete`.
        let first_turn = text
            .lines()
            .position(|line| line.contains("\"task_complete\""))
            .expect("a completed turn")
            + 1;
        let head = head_lines(&text, first_turn);
        let session = format!("session_id = 'session:trae-cli-{id}'");
        assert_rest_adds(home.path(), &live, (&head, &text), &session, |_, _| {});
    }
}
