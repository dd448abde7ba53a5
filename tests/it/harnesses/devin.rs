//! Devin CLI (`devin`): a home holding `tests/standalone-fixtures/devin/cli` as
//! `~/.local/share/devin/cli` (two ATIF trajectories under `transcripts/` and the `sessions.db`
//! beside them), indexed with no PATH from the default location. Every count is also taken from
//! the raw trajectories by this test's own reading (a prompt is a `user` step with text that
//! Devin does not mark `is_user_input: false`; a reply an `agent` step with a message; a call a
//! `tool_calls` entry; a result an `observation.results` entry, failed on a non-zero
//! `extra.exit_code`); the step that is not an object is skipped with a counted warning, the
//! store row gives title, cwd, model and start (epoch seconds), token usage is each step's
//! `metrics` (or the legacy `metadata.metrics`), resume is `devin --resume`, `esker doctor`
//! lists the folder, a half-written trajectory waits and an appended turn adds exactly its
//! events.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{
    Counts, assert_rest_adds, assert_tools_paired, count_events, doctor_location, index_home,
    indexed_counts, number, resume_line, rows, texts,
};
use crate::support::{copy_tree, standalone_fixture};

const MAIN: &str = "bald-ketch";
const LEGACY: &str = "quiet-otter";
/// Devin's sessions in the store.
const DEVIN: &str = "source = 'devin'";

fn cli_folder(home: &Path) -> PathBuf {
    home.join(".local/share/devin/cli")
}

fn home_with_fixture() -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("temp dir");
    copy_tree(
        &standalone_fixture("devin").join("cli"),
        &cli_folder(home.path()),
    );
    home
}

fn trajectories(home: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = fs::read_dir(cli_folder(home).join("transcripts"))
        .expect("transcripts")
        .map(|entry| entry.expect("entry").path())
        .collect();
    found.sort();
    found
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).expect("read")).expect("JSON")
}

/// Text of an ATIF message: a string or content parts.
fn message_text(message: &Value) -> String {
    match message {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter(|part| part["type"] == "text")
            .filter_map(|part| part["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// This test's own reading of the raw trajectories; also returns the records that are not
/// steps.
fn raw_counts(files: &[PathBuf]) -> (Counts, i64) {
    let mut counts = Counts::default();
    let mut not_steps = 0;
    for file in files {
        counts.sessions += 1;
        for step in read_json(file)["steps"].as_array().expect("steps") {
            if !step.is_object() {
                not_steps += 1;
                continue;
            }
            let has_text = !message_text(&step["message"]).trim().is_empty();
            match step["source"].as_str() {
                Some("user") => {
                    let injected = step["metadata"]["is_user_input"] == json!(false);
                    counts.prompts += i64::from(has_text && !injected);
                }
                Some("agent") => {
                    counts.replies += i64::from(has_text);
                    counts.reasoning += i64::from(step["reasoning_content"].is_string());
                    counts.calls += step["tool_calls"].as_array().map_or(0, Vec::len) as i64;
                }
                _ => {}
            }
            for result in step["observation"]["results"]
                .as_array()
                .into_iter()
                .flatten()
            {
                counts.results += 1;
                let exit = result["extra"]["exit_code"].as_i64().unwrap_or(0);
                counts.failed += i64::from(exit != 0);
            }
        }
    }
    (counts, not_steps)
}

#[test]
fn devin_sessions_are_read_from_their_trajectories_with_the_store_row() {
    let home = home_with_fixture();
    let data = tempfile::tempdir().expect("temp dir");
    let dir = data.path();
    let stderr = index_home(home.path(), dir);

    let (raw, not_steps) = raw_counts(&trajectories(home.path()));
    assert_eq!(
        (raw, not_steps),
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
        "the fixture, as this test reads it"
    );
    for expected in ["devin_trajectory=2", "parser warnings: 1;"] {
        assert!(stderr.contains(expected), "{expected}: {stderr}");
    }
    assert_eq!(indexed_counts(dir, DEVIN), raw, "every step read once");
    assert_tools_paired(dir);

    // The store row gives title, cwd, model and the start (epoch seconds); a trajectory with no
    // row keeps its own facts (its title is then the first prompt, as for any untitled session).
    let facts: Vec<Value> = rows(
        dir,
        "SELECT native_id, title, cwd, model FROM sessions WHERE source = 'devin' \
         ORDER BY native_id",
    )
    .into_iter()
    .map(|row| {
        json!([
            row.get("native_id"),
            row.get("title"),
            row.get("cwd"),
            row.get("model")
        ])
    })
    .collect();
    assert_eq!(
        facts,
        [
            json!([
                MAIN,
                "Fix heron's failing parse test",
                "/home/dev/src/heron",
                "claude-sonnet-4-6"
            ]),
            json!([LEGACY, "list the files", null, "swe-1-7"]),
        ]
    );
    let main = format!("session:devin-{MAIN}");
    let started = rows(
        dir,
        &format!("SELECT started_at FROM sessions WHERE session_id = '{main}'"),
    );
    assert!(
        started[0]["started_at"]
            .as_str()
            .is_some_and(|time| time.starts_with("2026-11-18T11:06:40")),
        "created_at 1795000000 read as seconds, before the first step: {started:?}"
    );

    // Prompts are the user's words; injected context and the system prompt are `system`.
    assert_eq!(
        texts(
            dir,
            &format!(
                "SELECT text FROM events WHERE type = 'user_input' AND session_id = '{main}' \
                 ORDER BY seq"
            )
        ),
        [
            "Why does `cargo test` fail in heron? Fix it.",
            "Also find every caller of parse.",
        ]
    );
    assert_eq!(
        count_events(dir, DEVIN, "type = 'system'"),
        2,
        "the system prompt and the injected reminder"
    );
    let failed = rows(
        dir,
        "SELECT tool_name, exit_code FROM events WHERE type = 'tool_response' \
         AND subtype = 'error'",
    );
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["tool_name"], "exec");
    assert_eq!(failed[0]["exit_code"], 101);

    // Token usage: each step's metrics (prompt tokens include the cached ones).
    assert_eq!(
        number(
            dir,
            &format!("SELECT sum(input_tokens) FROM events WHERE session_id = '{main}'")
        ),
        Some(12000 + 15000 + 15500 + 16000 + 16500)
    );
    assert_eq!(
        number(
            dir,
            &format!("SELECT sum(cached_input_tokens) FROM events WHERE session_id = '{main}'")
        ),
        Some(9000 + 12000 + 15000 + 15500 + 16000)
    );
    // The legacy file's `metadata.metrics`: input plus both cache buckets.
    assert_eq!(
        number(
            dir,
            &format!(
                "SELECT sum(input_tokens) FROM events WHERE session_id = 'session:devin-{LEGACY}'"
            )
        ),
        Some(300 + 100 + 50 + 40 + 450)
    );

    // Resume by id in the session's directory.
    let resume = resume_line(home.path(), dir, &main);
    assert_eq!(
        resume,
        format!("cd /home/dev/src/heron && devin --resume {MAIN}")
    );

    // `esker doctor` lists the trajectory folder with its two sessions.
    let folder = cli_folder(home.path()).join("transcripts");
    let location = doctor_location(home.path(), dir, &folder);
    assert_eq!(location["harness"], "devin-cli");
    assert_eq!(location["sessions"].as_u64(), Some(2), "{location:#}");
}

#[test]
fn an_appended_turn_adds_exactly_its_events_and_a_half_written_trajectory_waits() {
    let home = home_with_fixture();
    let live = cli_folder(home.path())
        .join("transcripts")
        .join(format!("{MAIN}.json"));
    let whole_text = fs::read_to_string(&live).expect("trajectory");
    let mut trajectory: Value = serde_json::from_str(&whole_text).expect("JSON");
    let steps = trajectory["steps"].as_array().expect("steps").clone();
    // Written after the first turn (the system prompt and five steps).
    trajectory["steps"] = Value::Array(steps[..5].to_vec());
    let head = serde_json::to_string_pretty(&trajectory).expect("JSON");
    let (_, added) = assert_rest_adds(
        home.path(),
        &live,
        (&head, &whole_text),
        DEVIN,
        |data, before| {
            // Caught mid-write: not JSON yet, nothing read, nothing lost.
            fs::write(&live, &whole_text[..whole_text.len() / 2]).expect("half");
            let waiting = index_home(home.path(), data);
            assert!(waiting.contains("1 held back"), "{waiting}");
            assert_eq!(count_events(data, DEVIN, "true"), before);
        },
    );
    // The injected reminder; a prompt; a reply, a call and its result; a reply.
    assert_eq!(added, 6);
}
