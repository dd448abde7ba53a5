//! `esker handoff` on the fixture store: the pack of the Claude fixture session holds its goal,
//! its files (changed first, its sub-agent's too) and its failures, and every id it cites opens
//! with `esker show`; it stays within its token budget; a turn id or a sub-agent's session
//! hands off the top-level session; `--write --to claude` and `--to codex` create a new
//! session under a temporary HOME that esker's own parser for that harness reads back as
//! exactly one session holding the pack, with the resume command printed; an unknown harness,
//! or `--write` for a harness esker cannot write, exits 2.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use super::{esker_at_home, stdout_of};
use crate::support::{fixture_store, query_rows, run_esker, stderr_of};

const CLAUDE: &str = "session:claude-3f2b8c1e-5a47-4d9e-9b1c-7e6f0a2d4c58";
const GOAL: &str = "The users migration fails on staging. Can you fix it and rerun it?";
const CWD: &str = "/home/dev/webapp";

fn handoff(args: &[&str]) -> Output {
    let mut full = vec!["handoff", "--data-dir", fixture_store().to_str().unwrap()];
    full.extend_from_slice(args);
    run_esker(&full)
}

fn succeeded(output: &Output) -> String {
    assert_eq!(output.status.code(), Some(0), "{}", stderr_of(output));
    stdout_of(output)
}

/// Every `session:`, `turn:` and `event:` id in `text`, each once, in order.
fn cited_ids(text: &str) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for prefix in ["session:", "turn:", "event:"] {
        for (start, _) in text.match_indices(prefix) {
            let preceded_by_word = text[..start]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_');
            if preceded_by_word {
                continue;
            }
            let id: String = text[start..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, ':' | '-' | '_'))
                .collect();
            if id.len() > prefix.len() && !ids.contains(&id) {
                ids.push(id);
            }
        }
    }
    ids
}

fn estimated_tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

fn single_value(sql: &str, column: &str) -> String {
    let rows = query_rows(fixture_store(), sql);
    let row = rows.first().unwrap_or_else(|| panic!("no row for {sql}"));
    row[column].as_str().expect("a text value").to_owned()
}

#[test]
fn the_pack_holds_the_goal_the_files_and_the_failures_with_ids_that_open() {
    let pack = succeeded(&handoff(&["--to", "codex", CLAUDE]));
    for expected in [
        "# Hand-off: ",
        "You continue in codex the work of a claude-code session.",
        &format!("- session: `{CLAUDE}`"),
        "## Goal (the first prompt)",
        &format!("> {GOAL}"),
        "## Last state (the last turns)",
        "Marked the exported_at example as pending",
        "## Files touched (changed first)",
        "- `db/migrate/20251118090000_add_index_to_users_email.rb`: changed (",
        // Read by the review sub-agent.
        "- `app/services/parquet_exporter.rb`: read (Read",
        "## Open problems (last 5 turns)",
    ] {
        assert!(pack.contains(expected), "{expected:?} missing:\n{pack}");
    }
    let changed = pack.find("add_index_to_users_email.rb").unwrap();
    let read = pack.find("app/services/parquet_exporter.rb`").unwrap();
    assert!(changed < read, "changed files come first:\n{pack}");

    // The failed spec run of the last turns is cited among the open problems.
    let failed_run = single_value(
        &format!(
            "SELECT event_id FROM events WHERE session_id = '{CLAUDE}' \
             AND type = 'tool_response' AND exit_code = 1 AND text LIKE '%ParquetExporter%'"
        ),
        "event_id",
    );
    let problems = &pack[pack.find("## Open problems").unwrap()..];
    assert!(problems.contains(&failed_run), "{failed_run}:\n{pack}");

    let ids = cited_ids(&pack);
    assert!(ids.len() >= 5, "{ids:?}");
    for id in &ids {
        let shown = run_esker(&["show", "--data-dir", fixture_store().to_str().unwrap(), id]);
        assert_eq!(
            shown.status.code(),
            Some(0),
            "{id} does not open: {}",
            stderr_of(&shown)
        );
    }
}

#[test]
fn the_pack_stays_within_its_budget() {
    let default = succeeded(&handoff(&["--to", "claude", CLAUDE]));
    assert!(estimated_tokens(&default) <= 2000, "{}", default.len());
    for budget in [2000, 600, 250, 60] {
        let budget_text = budget.to_string();
        let pack = succeeded(&handoff(&[
            "--to",
            "claude",
            "--budget",
            &budget_text,
            CLAUDE,
        ]));
        assert!(
            estimated_tokens(&pack) <= budget,
            "{budget}: {} tokens\n{pack}",
            estimated_tokens(&pack)
        );
    }
    let small = succeeded(&handoff(&["--to", "claude", "--budget", "250", CLAUDE]));
    assert!(small.starts_with("# Hand-off: "), "{small}");
}

#[test]
fn a_turn_or_a_sub_agent_hands_off_its_top_level_session() {
    let expected = succeeded(&handoff(&["--to", "codex", CLAUDE]));
    let turn = single_value(
        &format!(
            "SELECT turn_id FROM turns WHERE session_id = '{CLAUDE}' ORDER BY ordinal LIMIT 1"
        ),
        "turn_id",
    );
    assert_eq!(succeeded(&handoff(&["--to", "codex", &turn])), expected);
    let child = single_value(
        &format!(
            "SELECT session_id FROM sessions WHERE parent_session_id = '{CLAUDE}' \
             ORDER BY session_id LIMIT 1"
        ),
        "session_id",
    );
    let output = handoff(&["--to", "codex", &child]);
    assert_eq!(succeeded(&output), expected);
    assert!(
        stderr_of(&output).contains("sub-agent"),
        "{}",
        stderr_of(&output)
    );
}

#[test]
fn an_unknown_harness_or_an_unwritable_one_exits_2() {
    let unknown = handoff(&["--to", "vim", CLAUDE]);
    assert_eq!(unknown.status.code(), Some(2));
    assert_eq!(stdout_of(&unknown), "");
    let stderr = stderr_of(&unknown);
    assert!(stderr.contains("unknown harness \"vim\""), "{stderr}");
    assert!(stderr.contains("codex, claude, gemini"), "{stderr}");

    let home = tempfile::tempdir().unwrap();
    let unwritable = esker_at_home(
        home.path(),
        &[
            "handoff",
            "--data-dir",
            fixture_store().to_str().unwrap(),
            "--to",
            "gemini",
            "--write",
            CLAUDE,
        ],
    );
    assert_eq!(unwritable.status.code(), Some(2));
    assert!(
        stderr_of(&unwritable).contains("cannot write a gemini-cli session"),
        "{}",
        stderr_of(&unwritable)
    );
    assert!(std::fs::read_dir(home.path()).unwrap().next().is_none());

    let malformed = handoff(&["--to", "codex", "not-an-id"]);
    assert_eq!(malformed.status.code(), Some(2));
}

/// What `--write` printed: the pack, the path written and the resume line.
struct Written {
    pack: String,
    path: PathBuf,
    resume_line: String,
}

fn write_to(home: &Path, harness: &str) -> Written {
    let output = esker_at_home(
        home,
        &[
            "handoff",
            "--data-dir",
            fixture_store().to_str().unwrap(),
            "--to",
            harness,
            "--write",
            CLAUDE,
        ],
    );
    let stdout = succeeded(&output);
    let (pack, trailer) = stdout
        .rsplit_once("\nwrote ")
        .unwrap_or_else(|| panic!("no written path:\n{stdout}"));
    let (path, resume) = trailer
        .split_once("\nresume: ")
        .unwrap_or_else(|| panic!("no resume line:\n{stdout}"));
    Written {
        pack: pack.to_owned(),
        path: PathBuf::from(path),
        resume_line: resume.trim_end().to_owned(),
    }
}

/// Indexes what `--write` created under `home` into a store of its own and returns the one
/// session's row and its user inputs.
fn index_back(home: &Path, harness_dir: &str) -> (serde_json::Map<String, Value>, Vec<String>) {
    let store = home.join("store");
    let logs = home.join(harness_dir);
    let indexed = esker_at_home(
        home,
        &[
            "index",
            "-q",
            "--data-dir",
            store.to_str().unwrap(),
            logs.to_str().unwrap(),
        ],
    );
    assert!(indexed.status.success(), "{}", stderr_of(&indexed));
    let sessions = query_rows(
        &store,
        "SELECT session_id, source, native_id, cwd, parent_session_id FROM sessions",
    );
    assert_eq!(sessions.len(), 1, "exactly one session: {sessions:?}");
    let prompts = query_rows(
        &store,
        "SELECT text FROM events WHERE type = 'user_input' ORDER BY seq",
    )
    .iter()
    .map(|row| row["text"].as_str().unwrap_or_default().to_owned())
    .collect();
    (sessions[0].clone(), prompts)
}

fn assert_holds_the_pack(prompts: &[String], pack: &str) {
    assert_eq!(prompts.len(), 1, "{prompts:?}");
    assert_eq!(prompts[0].trim(), pack.trim());
    assert!(prompts[0].contains(GOAL), "{}", prompts[0]);
}

#[test]
fn write_to_claude_creates_one_claude_session_holding_the_pack() {
    let home = tempfile::tempdir().unwrap();
    let written = write_to(home.path(), "claude");
    let project = home.path().join(".claude/projects/-home-dev-webapp");
    assert_eq!(written.path.parent(), Some(project.as_path()));
    let native_id = written
        .path
        .file_stem()
        .and_then(|stem| stem.to_str())
        .expect("a uuid file name")
        .to_owned();
    assert!(uuid::Uuid::parse_str(&native_id).is_ok(), "{native_id}");
    assert_eq!(
        written.resume_line,
        format!("cd {CWD} && claude --resume {native_id}")
    );
    let first_record: Value = serde_json::from_str(
        std::fs::read_to_string(&written.path)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        first_record["message"]["content"].as_str(),
        Some(written.pack.as_str())
    );

    let (session, prompts) = index_back(home.path(), ".claude");
    assert_eq!(session["source"], "claude");
    assert_eq!(session["native_id"].as_str(), Some(native_id.as_str()));
    assert_eq!(session["cwd"].as_str(), Some(CWD));
    assert!(
        session.get("parent_session_id").is_none_or(Value::is_null),
        "a top-level session: {session:?}"
    );
    assert_holds_the_pack(&prompts, &written.pack);
}

#[test]
fn write_to_codex_creates_one_codex_rollout_holding_the_pack() {
    let home = tempfile::tempdir().unwrap();
    let written = write_to(home.path(), "codex");
    let sessions_dir = home.path().join(".codex/sessions");
    assert!(
        written.path.starts_with(&sessions_dir),
        "{}",
        written.path.display()
    );
    let day = written
        .path
        .parent()
        .unwrap()
        .strip_prefix(&sessions_dir)
        .unwrap();
    assert_eq!(day.components().count(), 3, "YYYY/MM/DD: {}", day.display());
    let name = written.path.file_name().unwrap().to_str().unwrap();
    assert!(
        name.starts_with("rollout-") && name.ends_with(".jsonl"),
        "{name}"
    );
    // `rollout-YYYY-MM-DDThh-mm-ss-<uuid>.jsonl`: the uuid is the last 36 characters.
    let stem = name.trim_end_matches(".jsonl");
    let native_id = &stem[stem.len() - 36..];
    assert!(uuid::Uuid::parse_str(native_id).is_ok(), "{name}");
    assert_eq!(
        written.resume_line,
        format!("cd {CWD} && codex resume {native_id}")
    );

    let (session, prompts) = index_back(home.path(), ".codex");
    assert_eq!(session["source"], "codex");
    assert_eq!(session["native_id"].as_str(), Some(native_id));
    assert_eq!(session["cwd"].as_str(), Some(CWD));
    assert_holds_the_pack(&prompts, &written.pack);
}

/// The real agent CLIs, when installed: `ESKER_AGENT_BIN` (a directory holding `claude` and
/// `codex`, as `.ci/run` installs them from npm), else `PATH`.
fn real_agent_cli(name: &str) -> Option<PathBuf> {
    let dirs: Vec<PathBuf> = match std::env::var_os("ESKER_AGENT_BIN") {
        Some(dir) => vec![PathBuf::from(dir)],
        None => std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()).collect(),
    };
    dirs.into_iter()
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// Claude Code and Codex themselves resume the sessions `--write` creates: each CLI's own
/// resume command, run in print mode against a local stand-in for its model API, sends the
/// model the pack followed by the new prompt (tests/python/real_resume.py).
#[test]
fn the_real_claude_and_codex_clis_resume_a_written_handoff() {
    let (Some(claude), Some(codex)) = (real_agent_cli("claude"), real_agent_cli("codex")) else {
        assert!(
            std::env::var("ESKER_REQUIRE_AGENTS").as_deref() != Ok("1"),
            "claude and codex are required (ESKER_REQUIRE_AGENTS=1); install them with \
             `npm install --prefix DIR @anthropic-ai/claude-code @openai/codex` and set \
             ESKER_AGENT_BIN=DIR/node_modules/.bin"
        );
        eprintln!(
            "SKIPPED: the real claude and codex CLIs are not installed (npm install \
             @anthropic-ai/claude-code @openai/codex; ESKER_AGENT_BIN=DIR/node_modules/.bin)"
        );
        return;
    };
    let work = tempfile::tempdir().unwrap();
    crate::python::run_python(
        "real_resume.py",
        &[
            crate::support::esker_bin(),
            claude.to_str().unwrap(),
            codex.to_str().unwrap(),
            work.path().to_str().unwrap(),
        ],
    );
}
