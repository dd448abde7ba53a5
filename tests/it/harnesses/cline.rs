//! Cline and Roo Code: task folders (`ui_messages.json` plus the files beside it) read as one
//! grouped session each; Roo's sub-task links to its parent through `history_item.json`; a
//! message appended to `ui_messages.json` adds exactly its events.

use std::fs;

use serde_json::Value;

use super::{assert_tools_paired, fixture, number, rows, store_of, texts};
use crate::support::{corpus_dir, corpus_store, index_into, query_count};

const CLINE_TASK: &str = "cline/saoudrizwan.claude-dev/tasks/1770976800000";
const ROO_PARENT: &str = "0b1c2d3e-0000-4000-8000-00000000e001";
const ROO_CHILD: &str = "0b1c2d3e-0000-4000-8000-00000000e002";

#[test]
fn cline_task_reads_prompts_reasoning_tools_failures_and_request_usage() {
    let data = store_of("cline");
    let dir = data.path();
    let sessions = rows(
        dir,
        "SELECT source, native_id, cwd, model, input_tokens, cached_input_tokens, output_tokens, \
         total_tokens, turn_count, completed FROM sessions",
    );
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    let session = &sessions[0];
    assert_eq!(session["source"], "cline");
    assert_eq!(session["native_id"], "1770976800000");
    assert_eq!(
        session["cwd"], "/home/dev/sett",
        "from the environment details"
    );
    assert_eq!(session["model"], "claude-sonnet-4-5");
    // tokensIn + cache writes + cache reads of the four API requests.
    assert_eq!(session["input_tokens"], 4200 + 3150 + 3390 + 3600);
    assert_eq!(session["cached_input_tokens"], 3000 + 3300 + 3400);
    assert_eq!(session["output_tokens"], 80 + 60 + 120 + 40);
    assert_eq!(session["turn_count"], 2);
    assert_eq!(
        session["completed"], true,
        "the failed request ends the last turn"
    );

    assert_eq!(
        texts(
            dir,
            "SELECT text FROM events WHERE type = 'user_input' ORDER BY seq"
        ),
        [
            "why does the badger count test fail?",
            "check the sett MCP server too"
        ],
        "the <task> request Cline sends is never a prompt"
    );
    assert_eq!(
        texts(dir, "SELECT text FROM events WHERE type = 'reasoning'"),
        ["Run the badger test to see the failure."]
    );
    assert_tools_paired(dir);
    let responses = rows(
        dir,
        "SELECT tool_name, subtype, text FROM events WHERE type = 'tool_response' ORDER BY seq",
    );
    let names: Vec<&str> = responses
        .iter()
        .map(|row| row["tool_name"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(names, ["execute_command", "readFile", "count_badgers"]);
    assert_eq!(responses[0]["subtype"], "error", "exit code 101");
    assert_eq!(
        responses[0]["text"],
        "running 1 test\ntest badger_count ... FAILED\nerror: test failed\nexit code: 101",
        "streamed output chunks are one response"
    );
    assert_eq!(responses[2]["subtype"], "error", "the MCP server's error");
    assert_eq!(
        texts(dir, "SELECT text FROM events WHERE terminal ORDER BY seq"),
        [
            "Add the seventh badger to fixtures/sett.csv and the badger count test passes.",
            "Failed to create stream: 429 rate limited"
        ]
    );
}

#[test]
fn roo_sub_task_links_to_its_parent_and_answers_its_new_task_call() {
    let data = store_of("roo");
    let dir = data.path();
    let child = rows(
        dir,
        &format!(
            "SELECT source, title, cwd, parent_session_id FROM sessions WHERE native_id = '{ROO_CHILD}'"
        ),
    );
    assert_eq!(child.len(), 1, "{child:?}");
    assert_eq!(child[0]["source"], "roo");
    assert_eq!(child[0]["title"], "write docs/egret.md from survey.csv");
    assert_eq!(child[0]["cwd"], "/home/dev/egret");
    assert_eq!(
        child[0]["parent_session_id"],
        format!("session:roo-{ROO_PARENT}")
    );
    assert_tools_paired(dir);
    assert_eq!(
        texts(
            dir,
            &format!(
                "SELECT text FROM events WHERE type = 'tool_response' AND tool_name = 'newTask' \
                 AND session_id = 'session:roo-{ROO_PARENT}'"
            )
        ),
        ["docs/egret.md written: 14 egrets."],
        "the sub-task's result answers the parent's newTask call"
    );
    assert_eq!(
        number(
            dir,
            "SELECT sum(total_tokens) FROM sessions WHERE source = 'roo'"
        ),
        Some((2000 + 1000 + 150) + (300 + 3000 + 60) + (900 + 200))
    );
}

#[test]
fn a_message_appended_to_a_cline_task_adds_exactly_its_events() {
    let logs = tempfile::tempdir().expect("temp dir");
    let folder = logs.path().join("tasks/1770976800000");
    fs::create_dir_all(&folder).expect("mkdir");
    for entry in fs::read_dir(fixture(CLINE_TASK)).expect("fixture") {
        let entry = entry.expect("entry");
        fs::copy(entry.path(), folder.join(entry.file_name())).expect("copy");
    }
    let data = tempfile::tempdir().expect("temp dir");
    let first = index_into(data.path(), &[logs.path()]);
    assert!(first.contains("cline_task=1"), "{first}");
    let before = query_count(data.path(), "SELECT count(*) FROM events");

    let path = folder.join("ui_messages.json");
    let mut messages: Vec<Value> =
        serde_json::from_str(&fs::read_to_string(&path).expect("read")).expect("json");
    messages.push(serde_json::json!({"ts": 1770976900000_i64, "type": "say",
        "say": "user_feedback", "text": "retry the sett server"}));
    messages.push(serde_json::json!({"ts": 1770976900100_i64, "type": "say",
        "say": "completion_result", "text": "The sett server answers: 7 badgers."}));
    fs::write(&path, serde_json::to_string(&messages).expect("json")).expect("write");
    let second = index_into(data.path(), &[logs.path()]);
    assert!(second.contains("events: 2 new"), "{second}");
    assert_eq!(
        query_count(data.path(), "SELECT count(*) FROM events"),
        before + 2
    );
    let third = index_into(data.path(), &[logs.path()]);
    assert!(third.contains("events: 0 new"), "{third}");
}

#[test]
fn corpus_cline_ui_messages_are_read_as_tasks() {
    let Some((data_dir, stderr)) = corpus_store() else {
        return;
    };
    let corpus = corpus_dir().expect("corpus").join("cline");
    for repository in ["haram-333_fineye", "Jeehunter_mcp-vscode-server"] {
        let folder = corpus.join(repository).canonicalize().expect("folder");
        assert!(
            stderr.contains(&format!("{:<17}  {}", "cline_task", folder.display())),
            "{repository}: {stderr}"
        );
    }
    assert_eq!(
        query_count(
            data_dir,
            "SELECT count(*) FROM sessions WHERE source = 'cline' AND total_tokens > 0"
        ),
        2
    );
    assert!(
        query_count(
            data_dir,
            "SELECT count(*) FROM events WHERE source = 'cline' AND type = 'user_input'"
        ) >= 15,
        "the task and every user_feedback are prompts"
    );
}

const API_TASK: &str = "1771000000000";

#[test]
fn cline_api_history_fills_request_usage_call_ids_and_failures_without_new_events() {
    let data = store_of("cline-api");
    let dir = data.path();
    let sessions = rows(
        dir,
        "SELECT native_id, cwd, input_tokens, cached_input_tokens, output_tokens, total_tokens \
         FROM sessions",
    );
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    let session = &sessions[0];
    assert_eq!(session["native_id"], API_TASK);
    assert_eq!(session["cwd"], "/home/dev/marten");
    // ui_messages' requests report no tokens: each takes its assistant message's metrics.
    assert_eq!(session["input_tokens"], (2100 + 1500) + (300 + 3400));
    assert_eq!(session["cached_input_tokens"], 1500 + 3400);
    assert_eq!(session["output_tokens"], 90 + 40);
    assert_eq!(session["total_tokens"], 7300 + 130);

    let events = rows(
        dir,
        "SELECT type, tool_name, tool_call_id, subtype FROM events ORDER BY seq",
    );
    let summary: Vec<String> = events
        .iter()
        .map(|row| {
            let text = |name: &str| row.get(name).and_then(Value::as_str).unwrap_or("");
            format!(
                "{}:{}:{}:{}",
                text("type"),
                text("tool_name"),
                text("tool_call_id"),
                text("subtype")
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            "user_input:::",
            "reasoning:::",
            "tool_call:readFile:toolu_marten_1:",
            "tool_response:readFile:toolu_marten_1:",
            "tool_call:execute_command:toolu_marten_2:",
            "tool_response:execute_command:toolu_marten_2:error",
            "assistant_response:::",
        ],
        "events come from ui_messages only; the history gives the real call ids and the \
         failure the command output does not show"
    );
    assert_tools_paired(dir);
}
