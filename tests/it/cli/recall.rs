//! `esker recall --hook AGENT` as an agent's hook runs it, on the fixture store: the block
//! stays within its token budget, the working directory's project comes first, the running
//! session is left out and every cited id opens with `esker show`; a broken or missing store,
//! garbage on stdin or an unknown agent input print nothing and exit 0. Every agent esker hooks
//! (CodeBuddy Code, Qwen Code, Cursor, Kiro, Cline and Kimi Code beside the first five) gets the block in
//! its own answer shape from its own input.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

use super::stdout_of;
use crate::support::{
    clear_harness_env, esker_bin, fixture_store, fixtures_dir, index_into, query_rows, run_esker,
    stderr_of,
};

/// How long a test lets recall run: the 1 s default is for release builds on an idle machine,
/// not a debug build sharing two cores with the suite. The failure tests keep the default,
/// and one sets a deadline nothing can meet.
const GENEROUS_DEADLINE_MS: &str = "60000";

/// `esker recall` with `args` and `stdin`, isolated like [`run_esker`] (and with no ESKER_LOG),
/// under [`GENEROUS_DEADLINE_MS`].
fn recall(data_dir: &Path, args: &[&str], stdin: &str) -> Output {
    let mut full = vec!["--deadline-ms", GENEROUS_DEADLINE_MS];
    full.extend_from_slice(args);
    recall_with_default_deadline(data_dir, &full, stdin)
}

/// `esker recall` as [`recall`] runs it, with recall's own deadline.
fn recall_with_default_deadline(data_dir: &Path, args: &[&str], stdin: &str) -> Output {
    with_stdin(recall_command(data_dir, args), stdin)
}

/// `esker recall --data-dir DATA_DIR ARGS`, isolated from this machine's homes and logs, its
/// resident's idle time short.
fn recall_command(data_dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(esker_bin());
    command
        .arg("recall")
        .arg("--data-dir")
        .arg(data_dir)
        .args(args)
        .env("HOME", "/nonexistent-esker-test-home")
        .env_remove("ESKER_DATA_DIR")
        .env_remove("ESKER_LOG")
        // The residents these hooks start end soon after the suite.
        .env("ESKER_RECALL_IDLE_SECS", "20")
        .env_remove("CODEX_HOME")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("GEMINI_CLI_HOME")
        .env_remove("DEVIN_PROJECT_DIR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    clear_harness_env(&mut command);
    command
}

/// Runs `command` with `stdin` written to it.
fn with_stdin(mut command: Command, stdin: &str) -> Output {
    let mut child = command.spawn().expect("esker binary runs");
    let mut pipe = child.stdin.take().expect("stdin");
    // The process may exit before reading (that is the point of some tests).
    let _ = pipe.write_all(stdin.as_bytes());
    drop(pipe);
    child.wait_with_output().expect("esker recall ends")
}

fn claude_prompt(cwd: &str, session_id: &str, prompt: &str) -> String {
    json!({
        "session_id": session_id,
        "transcript_path": "/tmp/transcript.jsonl",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    })
    .to_string()
}

/// The ids a block cites: the last word of each item line.
fn cited_ids(block: &str) -> Vec<String> {
    block
        .lines()
        .filter(|line| line.starts_with("- "))
        .map(|line| line.rsplit(' ').next().unwrap().to_owned())
        .collect()
}

fn tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

fn cwd_of_session(store: &Path, session_id: &str) -> Option<String> {
    query_rows(
        store,
        &format!("SELECT cwd FROM sessions WHERE session_id = '{session_id}'"),
    )
    .first()
    .and_then(|row| row.get("cwd").and_then(Value::as_str).map(str::to_owned))
}

fn session_of_event(store: &Path, event_id: &str) -> String {
    query_rows(
        store,
        &format!("SELECT session_id FROM events WHERE event_id = '{event_id}'"),
    )[0]["session_id"]
        .as_str()
        .expect("event's session")
        .to_owned()
}

fn inside(cwd: Option<&str>, project: &str) -> bool {
    cwd.is_some_and(|cwd| cwd == project || cwd.starts_with(&format!("{project}/")))
}

/// The search hits for `query` a recall would show (score at least 0.5), best first.
fn shown_hits(store: &Path, query: &str) -> Vec<Value> {
    let output = run_esker(&[
        "search",
        "--data-dir",
        store.to_str().unwrap(),
        "--json",
        "-n",
        "50",
        query,
    ]);
    assert!(output.status.success(), "{}", stderr_of(&output));
    let data: Value = serde_json::from_str(&stdout_of(&output)).unwrap();
    data["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|hit| hit["score"].as_f64().unwrap() >= 0.5)
        .cloned()
        .collect()
}

/// A project with hits that are not the best ones: the working directory of the lowest shown
/// hit whose session ran in an absolute directory other than the best hit's.
fn a_later_project(store: &Path, hits: &[Value]) -> String {
    let cwd_of = |hit: &Value| cwd_of_session(store, hit["session"]["id"].as_str().unwrap());
    let best = cwd_of(&hits[0]);
    hits.iter()
        .rev()
        .filter_map(cwd_of)
        .find(|cwd| cwd.starts_with('/') && Some(cwd) != best.as_ref())
        .or(best)
        .expect("a hit with a working directory")
}

fn assert_opens(store: &Path, id: &str) {
    let output = run_esker(&["show", "--data-dir", store.to_str().unwrap(), id]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{id}: {}",
        stderr_of(&output)
    );
}

#[test]
fn a_prompt_recalls_the_project_first_within_the_budget_with_ids_that_open() {
    assert_recalls_the_project_first(fixture_store(), "migration");
}

#[test]
fn the_shared_corpus_recalls_the_project_first_within_the_budget_with_ids_that_open() {
    let Some((store, _)) = crate::support::corpus_store() else {
        eprintln!("SKIPPED: the shared corpus (../shared/corpus) is absent");
        return;
    };
    // A word of the corpus found in the sessions of more than one project.
    let query = ["error", "test", "file", "build", "fix"]
        .into_iter()
        .find(|query| {
            let hits = shown_hits(store, query);
            let mut cwds: Vec<String> = hits
                .iter()
                .filter_map(|hit| cwd_of_session(store, hit["session"]["id"].as_str().unwrap()))
                .filter(|cwd| cwd.starts_with('/'))
                .collect();
            cwds.sort();
            cwds.dedup();
            cwds.len() > 1
        })
        .expect("a word found in two projects of the corpus");
    assert_recalls_the_project_first(store, query);
}

/// A hook's recall for `query` from the working directory of a project whose hits are not the
/// best: within the default budget, that project's lines first, each date first, every id
/// opening with `esker show`.
fn assert_recalls_the_project_first(store: &Path, query: &str) {
    let hits = shown_hits(store, query);
    assert!(!hits.is_empty(), "{query}");
    let project = a_later_project(store, &hits);
    let output = recall(
        store,
        &["--hook", "claude-code"],
        &claude_prompt(&project, "not-an-indexed-session", query),
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
    assert_eq!(stderr_of(&output), "", "a hook writes no stderr unasked");
    let block = stdout_of(&output);
    assert!(tokens(&block) <= 1500, "{block}");
    let ids = cited_ids(&block);
    assert!(!ids.is_empty(), "{block}");
    let in_project: Vec<bool> = ids
        .iter()
        .map(|id| {
            let session = session_of_event(store, id);
            inside(cwd_of_session(store, &session).as_deref(), &project)
        })
        .collect();
    assert!(in_project[0], "the project's hits come first: {block}");
    assert!(
        in_project.windows(2).all(|pair| pair[0] || !pair[1]),
        "no project hit after another project's: {in_project:?}\n{block}"
    );
    for id in &ids {
        assert_opens(store, id);
    }
    for line in block.lines().filter(|line| line.starts_with("- ")) {
        let date = line[2..].split(' ').next().unwrap();
        assert_eq!(date.len(), 10, "a date first: {line}");
    }
}

#[test]
fn the_budget_bounds_the_block_and_the_running_session_is_left_out() {
    let store = fixture_store();
    let hits = shown_hits(store, "migration");
    let project = a_later_project(store, &hits);
    let full = stdout_of(&recall(
        store,
        &["--hook", "claude-code"],
        &claude_prompt(&project, "none", "migration"),
    ));
    for budget in ["40", "120", "300"] {
        let output = recall(
            store,
            &["--hook", "claude-code", "--budget", budget],
            &claude_prompt(&project, "none", "migration"),
        );
        assert_eq!(output.status.code(), Some(0));
        let block = stdout_of(&output);
        assert!(
            tokens(&block) <= budget.parse().unwrap(),
            "{budget}: {block}"
        );
        let full_ids = cited_ids(&full);
        assert!(cited_ids(&block).iter().all(|id| full_ids.contains(id)));
    }

    let first = cited_ids(&full)[0].clone();
    let running = session_of_event(store, &first);
    let without = stdout_of(&recall(
        store,
        &["--hook", "claude-code"],
        &claude_prompt(&project, &running, "migration"),
    ));
    for id in cited_ids(&without) {
        assert_ne!(session_of_event(store, &id), running, "{without}");
    }
}

#[test]
fn options_alone_recall_without_a_hook_and_json_agents_get_json() {
    let store = fixture_store();
    let hits = shown_hits(store, "migration");
    let project = a_later_project(store, &hits);
    let plain = recall(store, &["--prompt", "migration", "--cwd", &project], "");
    assert_eq!(plain.status.code(), Some(0));
    assert!(!cited_ids(&stdout_of(&plain)).is_empty());

    let gemini_input = json!({
        "session_id": "g", "transcript_path": "/t.json", "cwd": project,
        "hook_event_name": "BeforeAgent", "timestamp": "2026-03-20T09:15:00Z",
        "prompt": "migration",
    });
    let gemini = recall(store, &["--hook", "gemini"], &gemini_input.to_string());
    let answer: Value = serde_json::from_str(&stdout_of(&gemini)).expect("Gemini gets JSON only");
    assert_eq!(answer["hookSpecificOutput"]["hookEventName"], "BeforeAgent");
    let context = answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(!cited_ids(context).is_empty());

    let copilot_input = json!({"sessionId": "c", "timestamp": 1, "cwd": project, "source": "new"});
    let copilot = stdout_of(&recall(
        store,
        &["--hook", "copilot"],
        &copilot_input.to_string(),
    ));
    if !copilot.is_empty() {
        let answer: Value = serde_json::from_str(&copilot).expect("Copilot gets JSON");
        assert!(answer["additionalContext"].is_string());
    }
}

#[test]
fn a_session_start_recalls_the_projects_recent_sessions() {
    let store = fixture_store();
    let hits = shown_hits(store, "migration");
    let project = a_later_project(store, &hits);
    let input = json!({
        "session_id": "new", "transcript_path": "/t.jsonl", "cwd": project,
        "hook_event_name": "SessionStart", "source": "startup",
    });
    let output = recall(store, &["--hook", "claude-code"], &input.to_string());
    assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
    let block = stdout_of(&output);
    let ids = cited_ids(&block);
    assert!(!ids.is_empty(), "{block}");
    assert!(tokens(&block) <= 1500);
    for id in &ids {
        assert_opens(store, id);
    }
}

#[test]
fn nothing_relevant_prints_nothing() {
    let store = fixture_store();
    let output = recall(
        store,
        &["--hook", "claude-code"],
        &claude_prompt("/home/dev/webapp", "s", "zqxjvw kplmrtq"),
    );
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout_of(&output), "");
}

#[test]
fn garbage_stdin_or_a_missing_store_prints_nothing_and_exits_0() {
    let store = fixture_store();
    for stdin in ["", "not json", "[1, 2]", "{\"cwd\": 3}"] {
        let output = recall_with_default_deadline(store, &["--hook", "claude-code"], stdin);
        assert_eq!(output.status.code(), Some(0), "{stdin}");
        assert_eq!(stdout_of(&output), "", "{stdin}");
        assert_eq!(stderr_of(&output), "", "{stdin}");
    }
    let missing = tempfile::tempdir().unwrap();
    let nowhere = missing.path().join("no-store-here");
    let output = recall(
        &nowhere,
        &["--hook", "claude-code"],
        &claude_prompt("/home/dev/webapp", "s", "migration"),
    );
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout_of(&output), "");
    assert_eq!(stderr_of(&output), "");
    assert!(!nowhere.exists(), "recall created no store");
}

#[test]
fn a_missed_deadline_prints_nothing_and_exits_0() {
    let store = fixture_store();
    let output = recall_with_default_deadline(
        store,
        &["--hook", "claude-code", "--deadline-ms", "0"],
        &claude_prompt("/home/dev/webapp", "s", "migration"),
    );
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout_of(&output), "");
    assert_eq!(stderr_of(&output), "");
}

#[test]
fn a_broken_store_prints_nothing_and_exits_0() {
    let data = tempfile::tempdir().expect("temp data");
    index_into(data.path(), &[&fixtures_dir()]);
    for table in ["sessions", "events"] {
        corrupt_files(&data.path().join("current").join(table));
    }
    for stdin in [
        claude_prompt("/home/dev/webapp", "s", "migration"),
        json!({"session_id": "s", "cwd": "/home/dev/webapp", "hook_event_name": "SessionStart"})
            .to_string(),
    ] {
        let output = recall_with_default_deadline(data.path(), &["--hook", "claude-code"], &stdin);
        assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
        assert_eq!(stdout_of(&output), "", "{stdin}");
        assert_eq!(stderr_of(&output), "");
    }
}

/// Overwrites every file below `dir` (a table's Parquet files, partitions included).
fn corrupt_files(dir: &Path) {
    for entry in std::fs::read_dir(dir).expect("table dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            corrupt_files(&path);
        } else {
            std::fs::write(path, b"not parquet").expect("corrupt");
        }
    }
}

/// The block an agent's answer carries: the JSON member that holds it, or the plain text.
fn block_of(agent: &str, stdout: &str) -> String {
    let member = |value: &Value, path: &[&str]| {
        path.iter()
            .fold(value, |value, key| &value[key])
            .as_str()
            .unwrap_or_else(|| panic!("{agent}: no {path:?} in {value}"))
            .to_owned()
    };
    match agent {
        "kiro" | "kimi" | "junie" => stdout.to_owned(),
        "codebuddy" | "qwen" => {
            let answer: Value = serde_json::from_str(stdout).expect("JSON answer");
            member(&answer, &["hookSpecificOutput", "additionalContext"])
        }
        "cursor" => member(
            &serde_json::from_str(stdout).expect("JSON answer"),
            &["additional_context"],
        ),
        "cline" => {
            let answer: Value = serde_json::from_str(stdout).expect("JSON answer");
            assert_eq!(answer["cancel"], false, "{answer}");
            member(&answer, &["contextModification"])
        }
        other => panic!("no answer shape for {other}"),
    }
}

/// Each agent's own prompt input, as its hook writes it, for `prompt` in `cwd`.
fn prompt_input(agent: &str, cwd: &str, prompt: &str) -> Value {
    match agent {
        "codebuddy" => json!({
            "session_id": "b1", "transcript_path": "/t.jsonl", "cwd": cwd,
            "hook_event_name": "UserPromptSubmit", "prompt": prompt,
        }),
        "qwen" => json!({
            "session_id": "q1", "transcript_path": "/t.jsonl", "cwd": cwd,
            "hook_event_name": "UserPromptSubmit", "timestamp": "2026-12-06T10:00:00Z",
            "prompt": prompt, "submitted_prompt": prompt,
        }),
        "kiro" => json!({
            "session_id": "k1", "hook_event_name": "UserPromptSubmit", "cwd": cwd,
            "prompt": prompt,
        }),
        "cline" => json!({
            "clineVersion": "4.2.0", "hookName": "UserPromptSubmit",
            "timestamp": "1796550000000", "taskId": "t1", "workspaceRoots": [cwd],
            "userId": "u1", "userPromptSubmit": {"prompt": prompt, "attachments": []},
        }),
        "kimi" => json!({
            "hook_event_name": "UserPromptSubmit", "session_id": "session_k",
            "session_title": "Fix the migration", "client_type": "kimi_code_cli", "cwd": cwd,
            "prompt": [{"type": "text", "text": prompt}],
        }),
        // Junie's `cwd` is its own home; the project is `project_path`.
        "junie" => json!({
            "hook_event_name": "UserPromptSubmit", "prompt": prompt, "session_id": "j1",
            "cwd": "/home/dev/.junie", "project_path": cwd,
        }),
        other => panic!("no prompt input for {other}"),
    }
}

/// A project whose hits recall finds for "migration" but does not put first when no project is
/// current: the working directory of the lowest line of a project-less block that ran in an
/// absolute directory other than the first line's.
fn a_project_below_the_top(store: &Path) -> String {
    let output = recall(
        store,
        &["--hook", "claude-code"],
        &claude_prompt("/nowhere/no-project", "none", "migration"),
    );
    let ids = cited_ids(&stdout_of(&output));
    let cwds: Vec<Option<String>> = ids
        .iter()
        .map(|id| cwd_of_session(store, &session_of_event(store, id)))
        .collect();
    let top = cwds.first().cloned().flatten();
    cwds.into_iter()
        .rev()
        .flatten()
        .find(|cwd| cwd.starts_with('/') && Some(cwd) != top.as_ref())
        .expect("a second project among the recalled lines")
}

/// CodeBuddy Code, Qwen Code, Kiro, Cline, Kimi Code and Junie recall on a prompt, each read from its own
/// input and answered in its own shape, within the budget, with ids that open.
#[test]
fn every_prompt_agent_gets_the_block_in_its_own_shape() {
    let store = fixture_store();
    let project = a_project_below_the_top(store);
    for (agent, budget) in [
        ("codebuddy", "1500"),
        ("qwen", "600"),
        ("kiro", "1500"),
        ("cline", "300"),
        ("kimi", "1500"),
        ("junie", "1500"),
    ] {
        let input = prompt_input(agent, &project, "migration");
        let output = recall(
            store,
            &["--hook", agent, "--budget", budget],
            &input.to_string(),
        );
        assert_eq!(
            output.status.code(),
            Some(0),
            "{agent}: {}",
            stderr_of(&output)
        );
        assert_eq!(stderr_of(&output), "", "{agent}");
        let block = block_of(agent, &stdout_of(&output));
        assert!(
            tokens(&block) <= budget.parse().unwrap(),
            "{agent}: {block}"
        );
        let ids = cited_ids(&block);
        assert!(!ids.is_empty(), "{agent}: {block}");
        let first = session_of_event(store, &ids[0]);
        assert!(
            inside(cwd_of_session(store, &first).as_deref(), &project),
            "{agent}: the project {project} first: {block}"
        );
        for id in &ids {
            assert_opens(store, id);
        }
    }
}

/// Qwen Code fires `UserPromptSubmit` on tool-result continuations too: without
/// `submitted_prompt` the input is not a user's and nothing is printed.
#[test]
fn a_qwen_continuation_prints_nothing() {
    let store = fixture_store();
    let hits = shown_hits(store, "migration");
    let project = a_later_project(store, &hits);
    let mut input = prompt_input("qwen", &project, "migration");
    input.as_object_mut().unwrap().remove("submitted_prompt");
    let output = recall(store, &["--hook", "qwen"], &input.to_string());
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout_of(&output), "");
}

/// Session starts: Cursor's `sessionStart` (workspace roots, no cwd), Kiro's, CodeBuddy's and
/// Qwen's `SessionStart` recall the project's recent sessions in each agent's shape.
#[test]
fn session_start_agents_get_the_projects_recent_sessions() {
    let store = fixture_store();
    let hits = shown_hits(store, "migration");
    let project = a_later_project(store, &hits);
    let inputs = [
        (
            "cursor",
            json!({
                "hook_event_name": "sessionStart", "conversation_id": "conv-1",
                "generation_id": "gen-1", "workspace_roots": [project],
                "cursor_version": "3.20.17",
            }),
        ),
        (
            "kiro",
            json!({"session_id": "k2", "hook_event_name": "SessionStart", "cwd": project}),
        ),
        (
            "codebuddy",
            json!({
                "session_id": "b2", "transcript_path": "/t.jsonl", "cwd": project,
                "hook_event_name": "SessionStart", "source": "startup",
            }),
        ),
        (
            "qwen",
            json!({
                "session_id": "q2", "transcript_path": "/t.jsonl", "cwd": project,
                "hook_event_name": "SessionStart", "source": "startup", "model": "qwen3-coder",
            }),
        ),
    ];
    for (agent, input) in inputs {
        let output = recall(store, &["--hook", agent], &input.to_string());
        assert_eq!(
            output.status.code(),
            Some(0),
            "{agent}: {}",
            stderr_of(&output)
        );
        let block = block_of(agent, &stdout_of(&output));
        assert!(tokens(&block) <= 1500, "{agent}");
        let ids = cited_ids(&block);
        assert!(!ids.is_empty(), "{agent}: {block}");
        for id in &ids {
            assert_opens(store, id);
        }
    }
}

/// Devin CLI gives its hooks the project in `$DEVIN_PROJECT_DIR`, not in their input: its
/// block puts that project first, in `hookSpecificOutput.additionalContext`. Esker's Claude
/// Code hook, which Devin also runs, prints nothing there.
#[test]
fn devin_recalls_its_project_from_its_variable_and_claude_codes_hook_stays_silent_there() {
    let store = fixture_store();
    let project = a_project_below_the_top(store);
    let input = json!({
        "hook_event_name": "UserPromptSubmit", "session_id": "bald-ketch", "prompt_id": "p1",
        "prompt": "migration",
    });
    let mut command = recall_command(
        store,
        &["--deadline-ms", GENEROUS_DEADLINE_MS, "--hook", "devin"],
    );
    command.env("DEVIN_PROJECT_DIR", &project);
    let output = with_stdin(command, &input.to_string());
    assert_eq!(output.status.code(), Some(0), "{}", stderr_of(&output));
    let answer: Value = serde_json::from_str(&stdout_of(&output)).expect("JSON answer");
    assert_eq!(
        answer["hookSpecificOutput"]["hookEventName"],
        "UserPromptSubmit"
    );
    let block = answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .expect("the block");
    let ids = cited_ids(block);
    let first = session_of_event(store, &ids[0]);
    assert!(
        inside(cwd_of_session(store, &first).as_deref(), &project),
        "the project {project} first: {block}"
    );

    let mut claude = recall_command(
        store,
        &[
            "--deadline-ms",
            GENEROUS_DEADLINE_MS,
            "--hook",
            "claude-code",
        ],
    );
    claude.env("DEVIN_PROJECT_DIR", &project);
    let silent = with_stdin(claude, &claude_prompt(&project, "s", "migration"));
    assert_eq!(silent.status.code(), Some(0));
    assert_eq!(stdout_of(&silent), "", "Devin's own hook answers");
}

/// The new agents' answers without a store: nothing, exit 0, no stderr.
#[test]
fn the_new_agents_print_nothing_on_a_missing_store() {
    let missing = tempfile::tempdir().unwrap();
    let nowhere = missing.path().join("no-store-here");
    for agent in ["codebuddy", "qwen", "kiro", "cline", "kimi", "junie"] {
        let input = prompt_input(agent, "/home/dev/webapp", "migration");
        let output = recall(&nowhere, &["--hook", agent], &input.to_string());
        assert_eq!(output.status.code(), Some(0), "{agent}");
        assert_eq!(stdout_of(&output), "", "{agent}");
        assert_eq!(stderr_of(&output), "", "{agent}");
    }
}

/// `esker recall --hook claude-code` with the resident recall on or off, its debug log on
/// stderr.
fn recall_resident(data_dir: &Path, stdin: &str, resident: bool) -> Output {
    let mut command = recall_command(
        data_dir,
        &[
            "--deadline-ms",
            GENEROUS_DEADLINE_MS,
            "--hook",
            "claude-code",
        ],
    );
    command
        .env("ESKER_LOG", "esker::cli::recall=debug")
        .env("ESKER_RECALL_RESIDENT", if resident { "1" } else { "0" })
        .env("ESKER_RECALL_IDLE_SECS", "120");
    with_stdin(command, stdin)
}

/// Waits up to a minute for `done`.
fn eventually(what: &str, done: impl Fn() -> bool) {
    let started = std::time::Instant::now();
    while !done() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(60),
            "timed out waiting for {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Whether a resident holds the store's recall lock.
fn resident_runs(data_dir: &Path) -> bool {
    let lock = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(data_dir.join("recall.lock"))
        .expect("lock file");
    lock.try_lock().is_err()
}

/// One raw exchange with the resident's socket: `line` out, the answer's JSON back.
fn ask_socket(data_dir: &Path, line: &str) -> Value {
    use std::io::Read;
    let mut stream = std::os::unix::net::UnixStream::connect(data_dir.join("recall.sock"))
        .expect("the resident listens");
    stream.write_all(line.as_bytes()).expect("question sent");
    stream
        .shutdown(std::net::Shutdown::Write)
        .expect("question ends");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("answer read");
    serde_json::from_str(&answer).expect("a JSON answer")
}

/// A Claude Code session in `dir` whose only exchange holds `word`.
fn write_claude_session(dir: &Path, word: &str) {
    let project = dir.join("projects").join("-home-dev-webapp");
    std::fs::create_dir_all(&project).expect("project dir");
    let session = "9d8c7b6a-0000-4e1f-8a2b-3c4d5e6f7a8b";
    let record = |kind: &str, uuid: &str, parent: Value, message: Value, at: &str| {
        json!({"parentUuid": parent, "isSidechain": false, "userType": "external",
               "cwd": "/home/dev/webapp", "sessionId": session, "version": "2.1.114",
               "type": kind, "message": message, "uuid": uuid, "timestamp": at})
        .to_string()
    };
    let lines = [
        record(
            "user",
            "7b000001-1c2d-4e5f-8a6b-000000000001",
            Value::Null,
            json!({"role": "user", "content": format!("Why does the {word} job stall at night?")}),
            "2026-12-01T09:00:00.000Z",
        ),
        record(
            "assistant",
            "7b000002-1c2d-4e5f-8a6b-000000000002",
            json!("7b000001-1c2d-4e5f-8a6b-000000000001"),
            json!({"model": "claude-sonnet-4-5-20250929", "id": "msg_9", "type": "message",
                   "role": "assistant", "stop_reason": "end_turn",
                   "content": [{"type": "text",
                                "text": format!("The {word} job waits on the backup lock; run it at 02:30 instead.")}],
                   "usage": {"input_tokens": 5, "output_tokens": 9}}),
            "2026-12-01T09:00:05.000Z",
        ),
    ];
    std::fs::write(
        project.join(format!("{session}.jsonl")),
        lines.join("\n") + "\n",
    )
    .expect("session written");
}

#[test]
fn a_resident_recall_answers_as_the_cold_one_follows_new_data_and_exits_when_told() {
    let data = tempfile::tempdir().expect("temp data");
    let store = data.path();
    index_into(store, &[&fixtures_dir()]);
    let prompt = claude_prompt("/home/dev/webapp", "not-an-indexed-session", "migration");

    let cold = recall_resident(store, &prompt, false);
    let cold_block = stdout_of(&cold);
    assert!(!cold_block.is_empty(), "{}", stderr_of(&cold));
    assert!(!store.join("recall.sock").exists(), "off means no resident");

    // The first hook finds no resident, starts one and answers cold itself.
    let first = recall_resident(store, &prompt, true);
    assert_eq!(stdout_of(&first), cold_block);
    assert!(
        stderr_of(&first).contains("started a resident recall"),
        "{}",
        stderr_of(&first)
    );
    eventually("the resident's socket", || {
        store.join("recall.sock").exists()
    });
    let answered = recall_resident(store, &prompt, true);
    assert!(
        stderr_of(&answered).contains("answered by the resident recall"),
        "{}",
        stderr_of(&answered)
    );
    assert_eq!(
        stdout_of(&answered),
        cold_block,
        "the resident's block is the cold one"
    );
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(store.join("recall.sock"))
            .expect("socket")
            .permissions(),
    );
    assert_eq!(mode & 0o077, 0, "only the owner may ask: {mode:o}");

    // A second resident leaves the store to the first.
    let second = Command::new(esker_bin())
        .args([
            "recall",
            "--resident",
            "--data-dir",
            store.to_str().unwrap(),
        ])
        .output()
        .expect("a second resident runs");
    assert_eq!(second.status.code(), Some(0));
    assert!(resident_runs(store));

    // New history indexed after the resident started is in its next answer.
    let logs = tempfile::tempdir().expect("temp logs");
    write_claude_session(logs.path(), "zanzibarite");
    index_into(store, &[logs.path()]);
    let fresh = recall_resident(
        store,
        &claude_prompt("/home/dev/webapp", "none", "zanzibarite job stall"),
        true,
    );
    assert!(
        stderr_of(&fresh).contains("answered by the resident recall"),
        "{}",
        stderr_of(&fresh)
    );
    assert!(
        stdout_of(&fresh).contains("zanzibarite"),
        "{}",
        stdout_of(&fresh)
    );

    // A garbled question is refused and the resident goes on; another build's question is
    // refused and the resident exits (the next hook starts the new binary).
    let refused = ask_socket(store, "not json\n");
    assert!(refused["refused"].as_str().is_some(), "{refused}");
    let other_build = json!({"build": "0.0.0 another", "request": {"prompt": "migration",
        "cwd": "/home/dev/webapp", "running_session": null, "budget": 1500}});
    let refused = ask_socket(store, &format!("{other_build}\n"));
    assert!(
        refused["refused"]
            .as_str()
            .is_some_and(|why| why.contains("0.0.0 another")),
        "{refused}"
    );
    eventually("the resident to exit", || !resident_runs(store));
    assert!(!store.join("recall.sock").exists(), "it removed its socket");

    // A resident whose socket is removed exits too.
    let _ = recall_resident(store, &prompt, true);
    eventually("a new resident", || store.join("recall.sock").exists());
    std::fs::remove_file(store.join("recall.sock")).expect("socket removed");
    eventually("the resident to see its socket gone", || {
        !resident_runs(store)
    });
}

#[test]
fn an_idle_resident_recall_exits() {
    let data = tempfile::tempdir().expect("temp data");
    let store = data.path();
    index_into(store, &[&fixtures_dir()]);
    let resident = Command::new(esker_bin())
        .args([
            "recall",
            "--resident",
            "--data-dir",
            store.to_str().unwrap(),
        ])
        .env("ESKER_RECALL_IDLE_SECS", "1")
        .env_remove("ESKER_DATA_DIR")
        .status()
        .expect("a resident runs and exits");
    assert_eq!(resident.code(), Some(0));
    assert!(!store.join("recall.sock").exists());
    assert!(!resident_runs(store));
}
