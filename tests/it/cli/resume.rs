//! `esker resume` on the fixture store: `--print` gives the exact `cd DIR && COMMAND` line of a
//! session of every fixture harness that has a resume command (the session named by its id,
//! a turn or an event, a sub-agent's through the session that started it); a harness without
//! one, an unknown id and a vanished working directory exit 2 saying why; run, the command
//! takes over in the session's directory and its exit code is esker's.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{Map, Value};

use super::stdout_of;
use crate::support::{
    clear_harness_env, esker_bin, fixture_store, query_rows, run_esker, stderr_of,
};

const CLAUDE: &str = "session:claude-3f2b8c1e-5a47-4d9e-9b1c-7e6f0a2d4c58";

/// A fixture session and the command that resumes it.
struct Case {
    source: &'static str,
    native_id: &'static str,
    /// The working directory the fixture records; `None`: whatever the store holds (a path of
    /// this checkout, or a value the test does not pin).
    cwd: Option<&'static str>,
    command: &'static str,
}

const CASES: &[Case] = &[
    Case {
        source: "claude",
        native_id: "3f2b8c1e-5a47-4d9e-9b1c-7e6f0a2d4c58",
        cwd: Some("/home/dev/webapp"),
        command: "claude --resume 3f2b8c1e-5a47-4d9e-9b1c-7e6f0a2d4c58",
    },
    Case {
        source: "codex",
        native_id: "019cebc9-d900-7a4c-9123-b1612dd272d1",
        cwd: Some("/home/dev/src/parquet-indexer"),
        command: "codex resume 019cebc9-d900-7a4c-9123-b1612dd272d1",
    },
    Case {
        source: "gemini",
        native_id: "7c1e2a90-4b3d-4f5e-9a61-2d8f0c3b5e17",
        cwd: None,
        command: "gemini --resume 7c1e2a90-4b3d-4f5e-9a61-2d8f0c3b5e17",
    },
    Case {
        source: "qwen",
        native_id: "6f1e3a2b-9c4d-4e8f-a1b2-3c4d5e6f7a8b",
        cwd: Some("/home/dev/webapp"),
        command: "qwen --resume 6f1e3a2b-9c4d-4e8f-a1b2-3c4d5e6f7a8b",
    },
    Case {
        source: "copilot",
        native_id: "4c1d7e2a-8b3f-4a6e-9d2c-5f0e1a7b3c94",
        cwd: Some("/home/dev/webapp"),
        command: "copilot --resume=4c1d7e2a-8b3f-4a6e-9d2c-5f0e1a7b3c94",
    },
    Case {
        source: "copilot",
        native_id: "4f1e2d3c-0000-4000-8000-00000000f001",
        cwd: None,
        command: "copilot --resume=4f1e2d3c-0000-4000-8000-00000000f001",
    },
    Case {
        source: "opencode",
        native_id: "ses_kiwi_parent0000000001",
        cwd: Some("/home/dev/kiwi"),
        command: "opencode --session ses_kiwi_parent0000000001",
    },
    Case {
        source: "pi",
        native_id: "0195c2a4-7b1e-7c3d-9e8f-1a2b3c4d5e6f",
        cwd: Some("/home/dev/webapp"),
        command: "pi --session 0195c2a4-7b1e-7c3d-9e8f-1a2b3c4d5e6f",
    },
    Case {
        source: "kimi",
        native_id: "7d1e2f3a-0000-4000-8000-00000000d001",
        cwd: Some("/home/dev/zoo"),
        command: "kimi --session 7d1e2f3a-0000-4000-8000-00000000d001",
    },
    Case {
        source: "kimi",
        native_id: "sess-ibis-0001",
        cwd: Some("/srv/ibis"),
        command: "kimi --session sess-ibis-0001",
    },
    Case {
        source: "goose",
        native_id: "20260212_1",
        cwd: Some("/srv/heron"),
        command: "goose session --resume --session-id 20260212_1",
    },
    Case {
        source: "crush",
        native_id: "otter-parent-0001",
        cwd: None,
        command: "crush --session otter-parent-0001",
    },
    Case {
        source: "amp",
        native_id: "T-5e7a9c1b-3d5f-4b7d-9f1b-3d5f7b9d1f3b",
        cwd: Some("/home/dev/webapp"),
        command: "amp threads continue T-5e7a9c1b-3d5f-4b7d-9f1b-3d5f7b9d1f3b",
    },
    Case {
        source: "factory",
        native_id: "2c4e6a8b-0d1f-4a3c-8e5b-7d9f1b3d5f7a",
        cwd: Some("/home/dev/webapp"),
        command: "droid --resume 2c4e6a8b-0d1f-4a3c-8e5b-7d9f1b3d5f7a",
    },
    Case {
        source: "cursor",
        native_id: "4f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f",
        cwd: Some("/home/dev/heron"),
        command: "cursor-agent --resume 4f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f",
    },
];

fn resume(args: &[&str]) -> Output {
    let mut full = vec!["resume", "--data-dir", fixture_store().to_str().unwrap()];
    full.extend_from_slice(args);
    run_esker(&full)
}

fn text<'r>(row: &'r Map<String, Value>, column: &str) -> Option<&'r str> {
    row.get(column).and_then(Value::as_str)
}

/// The one session of `source` with the harness's id `native_id`.
fn session_row(source: &str, native_id: &str) -> Map<String, Value> {
    let rows = query_rows(
        fixture_store(),
        &format!(
            "SELECT session_id, cwd, source_path FROM sessions \
             WHERE source = '{source}' AND native_id = '{native_id}'"
        ),
    );
    assert_eq!(rows.len(), 1, "{source} {native_id}: {rows:?}");
    rows[0].clone()
}

/// What `--print` prints for a session in `cwd`.
fn printed_line(cwd: Option<&str>, command: &str) -> String {
    match cwd {
        Some(dir) => format!("cd {} && {command}\n", esker::resume::shell_quote(dir)),
        None => format!("{command}\n"),
    }
}

fn assert_prints(id: &str, expected: &str) -> Output {
    let output = resume(&["--print", id]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{id}: {}",
        stderr_of(&output)
    );
    assert_eq!(stdout_of(&output), expected, "{id}");
    output
}

#[test]
fn print_gives_the_exact_line_of_every_harness_with_a_resume_command() {
    for case in CASES {
        let row = session_row(case.source, case.native_id);
        let cwd = text(&row, "cwd");
        if let Some(pinned) = case.cwd {
            assert_eq!(cwd, Some(pinned), "{} {}", case.source, case.native_id);
        }
        let session_id = text(&row, "session_id").expect("session id");
        assert_prints(session_id, &printed_line(cwd, case.command));
    }
}

#[test]
fn goose_legacy_files_are_resumed_by_path() {
    let row = session_row("goose", "20250301_121500");
    assert_eq!(text(&row, "cwd"), Some("/srv/kestrel"));
    let path = text(&row, "source_path").expect("source path");
    assert!(path.ends_with("20250301_121500.jsonl"), "{path}");
    let command = format!(
        "goose session --resume --path {}",
        esker::resume::shell_quote(path)
    );
    assert_prints(
        text(&row, "session_id").unwrap(),
        &printed_line(Some("/srv/kestrel"), &command),
    );
}

#[test]
fn a_turn_an_event_or_a_sub_agent_resumes_its_session() {
    let expected = printed_line(
        Some("/home/dev/webapp"),
        "claude --resume 3f2b8c1e-5a47-4d9e-9b1c-7e6f0a2d4c58",
    );
    assert_prints(CLAUDE, &expected);
    let turns = query_rows(
        fixture_store(),
        &format!(
            "SELECT turn_id, user_input_event_id FROM turns WHERE session_id = '{CLAUDE}' \
             AND user_input_event_id IS NOT NULL ORDER BY ordinal LIMIT 1"
        ),
    );
    let turn = turns.first().expect("a turn with a prompt");
    assert_prints(text(turn, "turn_id").unwrap(), &expected);
    assert_prints(text(turn, "user_input_event_id").unwrap(), &expected);

    let children = query_rows(
        fixture_store(),
        &format!(
            "SELECT session_id FROM sessions WHERE parent_session_id = '{CLAUDE}' \
             ORDER BY session_id"
        ),
    );
    let child = children.first().expect("the fixture's sub-agent");
    let output = assert_prints(text(child, "session_id").unwrap(), &expected);
    assert!(
        stderr_of(&output).contains("sub-agent"),
        "{}",
        stderr_of(&output)
    );
}

#[test]
fn a_harness_without_a_resume_command_exits_2_naming_it() {
    for (source, harness, filter) in [
        ("aider", "aider", ""),
        ("cline", "cline", "AND native_id = '1770976800000'"),
        (
            "cursor",
            "cursor",
            "AND native_id = '8e2f4b6a-1c3d-4e5f-9a7b-0c2d4e6f8a1b'",
        ),
        ("roo", "roo-code", "AND parent_session_id IS NULL"),
        ("antigravity", "antigravity", ""),
    ] {
        let rows = query_rows(
            fixture_store(),
            &format!(
                "SELECT session_id FROM sessions WHERE source = '{source}' {filter} \
                 ORDER BY session_id LIMIT 1"
            ),
        );
        let session_id = text(rows.first().expect(source), "session_id").unwrap();
        let output = resume(&["--print", session_id]);
        assert_eq!(output.status.code(), Some(2), "{source}");
        assert_eq!(stdout_of(&output), "", "{source}");
        let stderr = stderr_of(&output);
        assert!(
            stderr.contains(&format!("{harness} has no resume command")),
            "{source}: {stderr}"
        );
    }
}

#[test]
fn unknown_and_malformed_ids_exit_2() {
    let missing = resume(&["--print", "session:claude-nope"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        stderr_of(&missing).contains("not_found"),
        "{}",
        stderr_of(&missing)
    );
    let malformed = resume(&["--print", "not-an-id"]);
    assert_eq!(malformed.status.code(), Some(2));
    assert!(
        stderr_of(&malformed).contains("not-an-id"),
        "{}",
        stderr_of(&malformed)
    );
}

#[test]
fn a_vanished_working_directory_is_an_error_naming_the_command() {
    if Path::new("/home/dev/webapp").exists() {
        eprintln!("SKIPPED: /home/dev/webapp exists on this machine");
        return;
    }
    let output = resume(&[CLAUDE]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = stderr_of(&output);
    assert!(stderr.contains("no longer exists"), "{stderr}");
    assert!(
        stderr.contains("claude --resume 3f2b8c1e-5a47-4d9e-9b1c-7e6f0a2d4c58"),
        "{stderr}"
    );
}

#[test]
fn show_prints_the_resume_line_of_a_session() {
    let output = run_esker(&[
        "show",
        "--data-dir",
        fixture_store().to_str().unwrap(),
        CLAUDE,
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
    assert!(
        stdout_of(&output).contains(
            "resume: cd /home/dev/webapp && claude --resume 3f2b8c1e-5a47-4d9e-9b1c-7e6f0a2d4c58\n"
        ),
        "{}",
        stdout_of(&output)
    );
}

/// Run (no `--print`), the harness replaces esker in the session's directory: a stand-in
/// `crush` on PATH prints where it runs and its arguments, and its exit code is esker's.
#[cfg(unix)]
#[test]
fn run_hands_over_to_the_harness_in_the_session_directory() {
    use std::os::unix::fs::PermissionsExt;

    let row = session_row("crush", "otter-parent-0001");
    let cwd = text(&row, "cwd").expect("crush records the project directory");
    let bin = tempfile::tempdir().expect("temp dir");
    let fake = bin.path().join("crush");
    std::fs::write(&fake, "#!/bin/sh\necho \"$(pwd -P) $*\"\nexit 7\n").expect("write");
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let mut command = Command::new(esker_bin());
    command
        .args([
            "resume",
            "--data-dir",
            fixture_store().to_str().unwrap(),
            text(&row, "session_id").unwrap(),
        ])
        .env("HOME", "/nonexistent-esker-test-home")
        .env("PATH", bin.path())
        .env_remove("ESKER_DATA_DIR");
    clear_harness_env(&mut command);
    let output = command.output().expect("esker runs");
    assert_eq!(output.status.code(), Some(7), "{}", stderr_of(&output));
    let physical = Path::new(cwd).canonicalize().expect("the directory exists");
    assert_eq!(
        stdout_of(&output),
        format!("{} --session otter-parent-0001\n", physical.display())
    );
}

/// `open(session)` over MCP carries the line `esker resume --print` prints, for every harness
/// with a resume command; null for a harness without one.
#[tokio::test]
async fn open_session_carries_the_resume_line_over_mcp() {
    let client = crate::mcp::client::EskerClient::fixtures().await;
    for case in CASES {
        let row = session_row(case.source, case.native_id);
        let session_id = text(&row, "session_id").expect("session id");
        let opened = client
            .success("open", serde_json::json!({"id": session_id}))
            .await;
        let printed = stdout_of(&resume(&["--print", session_id]));
        assert_eq!(
            opened["data"]["session"]["resume_command"].as_str(),
            Some(printed.trim_end()),
            "{} {}",
            case.source,
            case.native_id
        );
    }
    let aider = query_rows(
        fixture_store(),
        "SELECT session_id FROM sessions WHERE source = 'aider' LIMIT 1",
    );
    let aider = text(&aider[0], "session_id").expect("an aider fixture session");
    let opened = client
        .success("open", serde_json::json!({"id": aider}))
        .await;
    assert!(opened["data"]["session"]["resume_command"].is_null());
}
