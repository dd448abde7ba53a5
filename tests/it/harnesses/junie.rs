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

use super::{
    Counts, assert_rest_adds, assert_tools_paired, count, count_events, doctor_location,
    head_lines, index_home, indexed_counts, number, resume_line, rows, texts,
};
use crate::support::standalone_fixture;

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
struct JunieCounts {
    base: Counts,
    input_tokens: i64,
    output_tokens: i64,
}

/// Junie's sessions in the store.
const JUNIE: &str = "source = 'junie'";

const TOOL_BLOCKS: [&str; 6] = [
    "TerminalBlockUpdatedEvent",
    "ViewFilesBlockUpdatedEvent",
    "FileChangesBlockUpdatedEvent",
    "ToolBlockUpdatedEvent",
    "McpBlockUpdatedEvent",
    "CustomAgentBlockUpdatedEvent",
];

/// This test's own reading of the raw logs; also returns the lines that are no JSON.
fn raw_counts(files: &[PathBuf]) -> (JunieCounts, i64) {
    let mut counts = JunieCounts::default();
    let mut bad_lines = 0;
    for file in files {
        counts.base.sessions += 1;
        let mut requests = HashSet::new();
        let mut prompted = false;
        let mut replies = HashSet::new();
        let mut thoughts = HashSet::new();
        // Step id -> the block's last update.
        let mut tools: HashMap<String, Value> = HashMap::new();
        for line in fs::read_to_string(file).expect("log").lines() {
            let Ok(record) = serde_json::from_str::<Value>(line) else {
                bad_lines += 1;
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
                "AgentThoughtBlockUpdatedEvent" => {
                    let text = agent["text"].as_str().or(agent["thought"].as_str());
                    if text.is_some_and(|text| !text.trim().is_empty()) {
                        thoughts.insert(step);
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
        counts.base.prompts += requests.len() as i64 + i64::from(headless);
        counts.base.replies += replies.len() as i64;
        counts.base.reasoning += thoughts.len() as i64;
        counts.base.calls += tools.len() as i64;
        // Every block of the fixture finished: one result each.
        counts.base.results += tools.len() as i64;
        counts.base.failed += tools
            .values()
            .filter(|last| {
                last["status"] == "FAILED" || last["exitCode"].as_i64().unwrap_or(0) != 0
            })
            .count() as i64;
    }
    (counts, bad_lines)
}

fn junie_counts(dir: &Path) -> JunieCounts {
    JunieCounts {
        base: indexed_counts(dir, JUNIE),
        input_tokens: count(dir, "SELECT coalesce(sum(input_tokens), 0) FROM events"),
        output_tokens: count(dir, "SELECT coalesce(sum(output_tokens), 0) FROM events"),
    }
}

#[test]
fn junie_sessions_are_read_whole_and_counted_as_their_records() {
    let home = home_with_fixture();
    let data = tempfile::tempdir().expect("temp dir");
    let dir = data.path();
    let stderr = index_home(home.path(), dir);

    let files = logs(home.path());
    let (raw, bad_lines) = raw_counts(&files);
    assert_eq!(
        (raw, bad_lines),
        (
            JunieCounts {
                base: Counts {
                    sessions: 2,
                    prompts: 3,
                    replies: 4,
                    reasoning: 1,
                    calls: 8,
                    results: 8,
                    failed: 1
                },
                input_tokens: 2130 + 11840 + 310 + 13970 + 420 + 14200 + 95 + 15010 + 5200,
                output_tokens: 96 + 140 + 210 + 64 + 88
            },
            1
        ),
        "the fixture, as this test reads it"
    );
    for expected in ["junie_session=2", "malformed lines: 1;", "files: 2 seen"] {
        assert!(stderr.contains(expected), "{expected}: {stderr}");
    }
    assert_eq!(
        junie_counts(dir),
        raw,
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
    assert_eq!(
        resume_line(home.path(), dir, &format!("session:junie-{HERON}")),
        format!("cd /home/dev/src/heron && junie --session-id {HERON} --resume")
    );

    // `esker doctor` lists the sessions folder: two logs, nothing skipped.
    let location = doctor_location(home.path(), dir, &home.path().join(SESSIONS));
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
    let head = head_lines(&text, cut);
    let (_, added) = assert_rest_adds(home.path(), &live, (&head, &text), JUNIE, |data, before| {
        // A half-written line at the end waits for the rest of it.
        let half = &lines[cut + 1][..lines[cut + 1].len() / 2];
        fs::write(&live, format!("{head}{}\n{half}", lines[cut])).expect("partial");
        let waiting = index_home(home.path(), data);
        assert_eq!(count_events(data, JUNIE, "true"), before, "{waiting}");
    });
    assert_eq!(
        added, 8,
        "a compaction, a prompt, 2 calls, 2 results, a system message, a reply"
    );
}
