//! Junie (`junie`): the hand-made store `tests/standalone-fixtures/junie/generate.py` writes
//! (`~/.junie/sessions/index.jsonl`, two session folders with `events.jsonl`, `state.json`,
//! `transcript.md` and a `task-1` folder), indexed with no PATH from a temp home. Every count is
//! also taken from the raw records by this test's own reading (blocks folded by `stepId`);
//! titles, folders, usage, the headless task, a half-written line, resume, `esker doctor` and
//! an appended turn are checked too.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{assert_tools_paired, index_home, number, rows, texts};
use crate::cli::{esker_at_home, stdout_of};
use crate::support::{standalone_fixture, stderr_of};

const SESSIONS: &str = ".junie/sessions";
const HERON: &str = "session-261110-101500-h3rn";
const KESTREL: &str = "session-261110-120000-k5tl";

/// A temp home holding a copy of the fixture's `~/.junie`.
fn home_with_fixture() -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("temp dir");
    let from = standalone_fixture("junie").join("home");
    for entry in walkdir::WalkDir::new(&from) {
        let entry = entry.expect("walk");
        let target = home
            .path()
            .join(entry.path().strip_prefix(&from).expect("under"));
        if entry.file_type().is_dir() {
            fs::create_dir_all(&target).expect("mkdir");
        } else {
            fs::copy(entry.path(), &target).expect("copy");
        }
    }
    home
}

fn logs(home: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = fs::read_dir(home.join(SESSIONS))
        .expect("sessions")
        .map(|entry| entry.expect("entry").path().join("events.jsonl"))
        .filter(|path| path.is_file())
        .collect();
    found.sort();
    found
}

/// What the raw logs hold, counted from their records.
#[derive(Debug, Default, PartialEq, Clone, Copy)]
struct Counts {
    sessions: i64,
    prompts: i64,
    replies: i64,
    calls: i64,
    results: i64,
    failed: i64,
    input_tokens: i64,
    output_tokens: i64,
    bad_lines: i64,
}

const TOOL_BLOCKS: [&str; 6] = [
    "TerminalBlockUpdatedEvent",
    "ViewFilesBlockUpdatedEvent",
    "FileChangesBlockUpdatedEvent",
    "ToolBlockUpdatedEvent",
    "McpBlockUpdatedEvent",
    "CustomAgentBlockUpdatedEvent",
];

fn raw_counts(files: &[PathBuf]) -> Counts {
    let mut counts = Counts::default();
    for file in files {
        counts.sessions += 1;
        let mut requests = HashSet::new();
        let mut prompted = false;
        let mut replies = HashSet::new();
        // Step id -> the block's last update.
        let mut tools: HashMap<String, Value> = HashMap::new();
        for line in fs::read_to_string(file).expect("log").lines() {
            let Ok(record) = serde_json::from_str::<Value>(line) else {
                counts.bad_lines += 1;
                continue;
            };
            if record["kind"] == "UserPromptEvent" {
                prompted = true;
                let text = record["presentablePrompt"]
                    .as_str()
                    .or(record["prompt"].as_str())
                    .unwrap_or("");
                if !text.trim().is_empty() {
                    requests.insert(record["requestId"].as_str().unwrap_or(line).to_string());
                }
                continue;
            }
            let agent = &record["event"]["agentEvent"];
            let kind = agent["kind"].as_str().unwrap_or("");
            let step = agent["stepId"].as_str().unwrap_or("").to_string();
            match kind {
                "MarkdownBlockUpdatedEvent" | "ResultBlockUpdatedEvent" => {
                    let text = agent["text"].as_str().or(agent["result"].as_str());
                    if text.is_some_and(|text| !text.trim().is_empty()) {
                        replies.insert(step);
                    }
                }
                "LlmResponseMetadataEvent" => {
                    for usage in agent["modelUsage"].as_array().into_iter().flatten() {
                        counts.input_tokens +=
                            ["inputTokens", "cacheInputTokens", "cacheCreateTokens"]
                                .iter()
                                .map(|field| usage[field].as_i64().unwrap_or(0))
                                .sum::<i64>();
                        counts.output_tokens += usage["outputTokens"].as_i64().unwrap_or(0);
                    }
                }
                kind if TOOL_BLOCKS.contains(&kind) => {
                    tools.insert(step, agent.clone());
                }
                _ => {}
            }
        }
        let headless = !prompted
            && serde_json::from_str::<Value>(
                &fs::read_to_string(file.with_file_name("state.json")).unwrap_or_default(),
            )
            .is_ok_and(|state| state["issue"]["description"].is_string());
        counts.prompts += requests.len() as i64 + i64::from(headless);
        counts.replies += replies.len() as i64;
        counts.calls += tools.len() as i64;
        // Every block of the fixture finished: one result each.
        counts.results += tools.len() as i64;
        counts.failed += tools
            .values()
            .filter(|last| {
                last["status"] == "FAILED" || last["exitCode"].as_i64().unwrap_or(0) != 0
            })
            .count() as i64;
    }
    counts
}

fn indexed_counts(dir: &Path) -> Counts {
    let count = |sql: &str| number(dir, sql).unwrap_or(0);
    let of = |kind: &str| count(&format!("SELECT count(*) FROM events WHERE {kind}"));
    Counts {
        sessions: count("SELECT count(*) FROM sessions WHERE source = 'junie'"),
        prompts: of("type = 'user_input'"),
        replies: of("type = 'assistant_response'"),
        calls: of("type = 'tool_call'"),
        results: of("type = 'tool_response'"),
        failed: of("type = 'tool_response' AND subtype = 'error'"),
        input_tokens: count("SELECT sum(input_tokens) FROM events"),
        output_tokens: count("SELECT sum(output_tokens) FROM events"),
        bad_lines: 0,
    }
}

#[test]
fn junie_sessions_are_read_whole_and_counted_as_their_records() {
    let home = home_with_fixture();
    let data = tempfile::tempdir().expect("temp dir");
    let dir = data.path();
    let stderr = index_home(home.path(), dir);

    let files = logs(home.path());
    let raw = raw_counts(&files);
    assert_eq!(
        raw,
        Counts {
            sessions: 2,
            prompts: 3,
            replies: 4,
            calls: 8,
            results: 8,
            failed: 1,
            input_tokens: 2130 + 11840 + 310 + 13970 + 420 + 14200 + 95 + 15010 + 5200,
            output_tokens: 96 + 140 + 210 + 64 + 88,
            bad_lines: 1,
        },
        "the fixture, as this test reads it"
    );
    for expected in ["junie_session=2", "malformed lines: 1;", "files: 2 seen"] {
        assert!(stderr.contains(expected), "{expected}: {stderr}");
    }
    assert_eq!(
        indexed_counts(dir),
        Counts {
            bad_lines: 0,
            ..raw
        },
        "every record read once, blocks folded by step"
    );
    assert_tools_paired(dir);

    // Facts from index.jsonl (the title Junie set wins over the task name).
    let facts = rows(
        dir,
        "SELECT native_id, title, cwd, model FROM sessions ORDER BY native_id",
    );
    assert_eq!(
        facts,
        [
            json!({"native_id": HERON, "title": "Fix the failing heron tests",
                "cwd": "/home/dev/src/heron", "model": "anthropic/claude-sonnet-4-5"}),
            json!({"native_id": KESTREL, "title": "List the kestrel modules",
                "cwd": "/home/dev/src/kestrel", "model": "openai/gpt-5"}),
        ]
        .map(|row| row.as_object().expect("object").clone())
    );
    // The typed words, not the hooks' context; the headless task from state.json.
    assert_eq!(
        texts(
            dir,
            "SELECT text FROM events WHERE type = 'user_input' ORDER BY session_id, ordinal"
        ),
        [
            "cargo test fails in heron since the last merge; find out why and fix it",
            "add a regression test for the config path",
            "list the modules of kestrel",
        ]
    );
    // The failed command: its exit code and output, once, though the task replayed it.
    let failure = rows(
        dir,
        "SELECT tool_name, exit_code, text FROM events WHERE type = 'tool_response' \
         AND subtype = 'error'",
    );
    assert_eq!(failure.len(), 1);
    assert_eq!(failure[0]["tool_name"], "terminal");
    assert_eq!(failure[0]["exit_code"], 101);
    assert_eq!(
        texts(
            dir,
            "SELECT text FROM events WHERE type = 'assistant_response' AND session_id = \
             'session:junie-session-261110-120000-k5tl'"
        ),
        ["kestrel has two modules: main.rs and log.rs."]
    );
    assert_eq!(
        number(dir, "SELECT count(*) FROM events WHERE type = 'compaction'"),
        Some(1)
    );
    assert_eq!(
        number(
            dir,
            "SELECT count(*) FROM events WHERE text LIKE '%AgentPlanUpdatedEvent%' \
             OR text LIKE '%(rendered log)%'"
        ),
        Some(0),
        "task folders and transcript.md are not logs"
    );

    // Resume from the session's project.
    let data_arg = dir.to_str().expect("utf-8");
    let output = esker_at_home(
        home.path(),
        &[
            "resume",
            "--print",
            "--data-dir",
            data_arg,
            &format!("session:junie-{HERON}"),
        ],
    );
    assert!(output.status.success(), "{}", stderr_of(&output));
    assert_eq!(
        stdout_of(&output).trim(),
        format!("cd /home/dev/src/heron && junie --session-id {HERON} --resume")
    );

    // `esker doctor` lists the sessions folder: two logs, nothing skipped.
    let doctor = esker_at_home(home.path(), &["doctor", "--json", "--data-dir", data_arg]);
    assert!(doctor.status.success(), "{}", stderr_of(&doctor));
    let diagnosis: Value = serde_json::from_str(&stdout_of(&doctor)).expect("JSON");
    let folder = home.path().join(SESSIONS);
    let location = diagnosis["locations"]
        .as_array()
        .expect("locations")
        .iter()
        .find(|location| location["path"] == folder.to_str().expect("utf-8"))
        .unwrap_or_else(|| panic!("not listed: {diagnosis:#}"))
        .clone();
    assert_eq!(location["harness"], "junie");
    assert_eq!(location["sessions"].as_u64(), Some(2));
    assert_eq!(location["sources"].as_u64(), Some(2), "{location:#}");
}

#[test]
fn an_appended_turn_adds_exactly_its_events() {
    let home = home_with_fixture();
    let live = home.path().join(SESSIONS).join(HERON).join("events.jsonl");
    let text = fs::read_to_string(&live).expect("log");
    let lines: Vec<&str> = text.lines().collect();
    // Cut before the second task: the rest is one more turn.
    let cut = lines
        .iter()
        .rposition(|line| line.contains("\"TaskStartedEvent\""))
        .expect("a second task");
    fs::write(&live, format!("{}\n", lines[..cut].join("\n"))).expect("head");
    let data = tempfile::tempdir().expect("temp dir");
    index_home(home.path(), data.path());
    let count = |dir: &Path| number(dir, "SELECT count(*) FROM events").expect("count");
    let before = count(data.path());

    // A half-written line at the end waits for the rest of it.
    let half = &lines[cut + 1][..lines[cut + 1].len() / 2];
    fs::write(
        &live,
        format!("{}\n{}\n{half}", lines[..cut].join("\n"), lines[cut]),
    )
    .expect("partial");
    let waiting = index_home(home.path(), data.path());
    assert_eq!(count(data.path()), before, "{waiting}");

    fs::write(&live, &text).expect("append the rest");
    let appended = index_home(home.path(), data.path());
    let one_shot = tempfile::tempdir().expect("temp dir");
    index_home(home.path(), one_shot.path());
    let whole = count(one_shot.path());
    assert_eq!(
        whole - before,
        8,
        "a compaction, a prompt, 2 calls, 2 results, a system message, a reply"
    );
    assert!(
        appended.contains(&format!("events: {} new", whole - before)),
        "{appended}"
    );
    let again = index_home(home.path(), data.path());
    assert!(again.contains("events: 0 new"), "{again}");
}
