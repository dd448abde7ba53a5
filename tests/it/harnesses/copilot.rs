//! GitHub Copilot CLI: `session-state/<uuid>/events.jsonl` with `workspace.yaml` beside it, and
//! the legacy `history-session-state/<id>.json`.

use serde_json::Value;

use super::{assert_append_adds, assert_tools_paired, fixture, number, rows, store_of, texts};

const LOG: &str = "copilot/session-state/4c1d7e2a-8b3f-4a6e-9d2c-5f0e1a7b3c94/events.jsonl";

#[test]
fn copilot_session_reads_prompts_replies_tools_and_usage() {
    let data = store_of("copilot");
    let dir = data.path();
    let session = rows(
        dir,
        "SELECT source, native_id, title, cwd, git_branch, model, harness_version, turn_count, \
         input_tokens, cached_input_tokens, output_tokens, reasoning_tokens, total_tokens FROM sessions",
    );
    assert_eq!(session.len(), 1, "{session:?}");
    let session = &session[0];
    assert_eq!(session["source"], "copilot");
    assert_eq!(session["native_id"], "4c1d7e2a-8b3f-4a6e-9d2c-5f0e1a7b3c94");
    assert_eq!(
        session["title"], "Fix pelican migration on SQLite",
        "title from workspace.yaml"
    );
    assert_eq!(session["cwd"], "/home/dev/webapp");
    assert_eq!(session["git_branch"], "main");
    assert_eq!(session["model"], "claude-sonnet-4.6");
    assert_eq!(session["harness_version"], "1.0.60");
    assert_eq!(
        session["turn_count"], 3,
        "preamble, then one turn per prompt"
    );
    // The shutdown's run totals: input counts cache reads and writes; output equals the sum of
    // the replies' outputTokens (120 + 80 + 40).
    assert_eq!(session["input_tokens"], 45000);
    assert_eq!(session["cached_input_tokens"], 30000);
    assert_eq!(session["output_tokens"], 240);
    assert_eq!(session["reasoning_tokens"], 35);
    assert_eq!(session["total_tokens"], 45240);

    assert_eq!(
        texts(
            dir,
            "SELECT text FROM events WHERE type = 'user_input' ORDER BY seq"
        ),
        [
            "why does the pelican migration fail on sqlite?",
            "rewrite it as a table rebuild"
        ],
        "what the user typed, without the injected datetime and reminders"
    );
    assert_eq!(
        texts(
            dir,
            "SELECT text FROM events WHERE type = 'reasoning' ORDER BY seq"
        ),
        ["The user wants the cause of a failing migration; run it first."]
    );
    assert_eq!(
        texts(
            dir,
            "SELECT text FROM events WHERE type = 'assistant_response' ORDER BY seq"
        ),
        [
            "Let me run the migration and read its file.",
            "SQLite cannot drop a column in this version: the pelican migration needs a table rebuild."
        ]
    );
    assert_eq!(
        texts(
            dir,
            "SELECT subtype FROM events WHERE type = 'system' ORDER BY seq"
        ),
        ["model_change", "system_prompt"],
        "the system prompt is context, not a prompt"
    );

    assert_eq!(
        texts(
            dir,
            "SELECT tool_name FROM events WHERE type = 'tool_call' ORDER BY seq"
        ),
        ["bash", "view", "bash"],
        "one call per tool request (execution_start is not a second call)"
    );
    assert_tools_paired(dir);
    let responses = rows(
        dir,
        "SELECT tool_name, subtype, exit_code, text FROM events WHERE type = 'tool_response' ORDER BY seq",
    );
    assert_eq!(responses.len(), 3);
    assert_eq!(responses[0]["exit_code"], 1, "{:?}", responses[0]);
    assert!(
        responses[0].get("subtype").is_none(),
        "a command that ran is no failed call"
    );
    assert_eq!(responses[1]["tool_name"], "view");
    assert_eq!(responses[1]["subtype"], "error", "the failed view call");
    assert!(
        responses[1]["text"]
            .as_str()
            .is_some_and(|text| text.contains("Path does not exist"))
    );
    assert_eq!(
        responses[2]["subtype"], "denied",
        "a call the user denied gets the denial as its result"
    );

    let turns = rows(
        dir,
        "SELECT t.ordinal, t.completed, e.type AS terminal_type FROM turns t LEFT JOIN events e \
         ON e.event_id = t.terminal_event_id ORDER BY t.ordinal",
    );
    assert_eq!(turns[1]["completed"], true);
    assert_eq!(turns[1]["terminal_type"], "assistant_response");
    assert_eq!(turns[2]["completed"], true);
    assert_eq!(
        turns[2]["terminal_type"], "runtime",
        "the abort ends the last turn"
    );
    assert_eq!(
        number(
            dir,
            "SELECT count(*) FROM events WHERE output_tokens IS NOT NULL AND type = 'assistant_response'"
        ),
        Some(2),
        "replies carry their own output tokens"
    );
    assert_eq!(
        number(dir, "SELECT count(*) FROM events WHERE timestamp_inferred"),
        Some(0)
    );
}

#[test]
fn copilot_append_adds_exactly_the_new_events() {
    // Lines 17-24: the second prompt, a tool request, its denial, the abort and the shutdown.
    assert_append_adds(&fixture(LOG), 16, 5);
}

#[test]
fn copilot_legacy_history_session_reads_prompts_tools_and_failures() {
    let data = store_of("copilot-history");
    let dir = data.path();
    let sessions = rows(
        dir,
        "SELECT source, native_id, title, started_at, completed, total_tokens FROM sessions",
    );
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    assert_eq!(sessions[0]["source"], "copilot");
    assert_eq!(
        sessions[0]["native_id"],
        "4f1e2d3c-0000-4000-8000-00000000f001"
    );
    assert_eq!(sessions[0]["title"], "why does the crane deploy fail?");
    assert_eq!(sessions[0]["completed"], true);
    assert_eq!(
        sessions[0].get("total_tokens").and_then(Value::as_i64),
        None,
        "no usage recorded"
    );
    assert_eq!(
        texts(
            dir,
            "SELECT text FROM events WHERE type = 'user_input' ORDER BY seq"
        ),
        ["why does the crane deploy fail?", "set it to 2"],
        "the injected <current_datetime> message is not a prompt"
    );
    assert_tools_paired(dir);
    assert_eq!(
        texts(
            dir,
            "SELECT subtype FROM events WHERE type = 'tool_response' ORDER BY seq"
        ),
        ["error", ""]
    );
    assert_eq!(
        number(dir, "SELECT count(*) FROM events WHERE timestamp_inferred"),
        number(dir, "SELECT count(*) FROM events"),
        "the messages carry no times: all inferred"
    );
}

const SUB_AGENT_LOG: &str =
    "copilot-subagent/session-state/7e9a1c3b-2d4f-4b6a-8c0e-1f3a5b7c9d11/events.jsonl";
const SUB_AGENT_PARENT: &str = "7e9a1c3b-2d4f-4b6a-8c0e-1f3a5b7c9d11";

#[test]
fn copilot_sub_agent_records_become_a_child_session_linked_to_the_parent() {
    let data = store_of("copilot-subagent");
    let dir = data.path();
    let sessions = rows(
        dir,
        "SELECT native_id, title, parent_session_id, agent_name, model, output_tokens \
         FROM sessions ORDER BY native_id",
    );
    assert_eq!(sessions.len(), 2, "{sessions:?}");
    assert_eq!(sessions[0]["native_id"], SUB_AGENT_PARENT);
    assert!(sessions[0].get("parent_session_id").is_none());
    let child = &sessions[1];
    assert_eq!(
        child["native_id"],
        format!("{SUB_AGENT_PARENT}-sub-toolu_task_1")
    );
    assert_eq!(
        child["parent_session_id"],
        format!("session:copilot-{SUB_AGENT_PARENT}"),
        "the sub-agent links to the session whose task call started it"
    );
    assert_eq!(child["agent_name"], "explore");
    assert_eq!(child["title"], "find where ibis counts are written");
    assert_eq!(child["model"], "claude-haiku-4.5");
    assert_eq!(child["output_tokens"], 20 + 15 + 25, "its replies' tokens");
    assert_eq!(sessions[0]["output_tokens"], 60 + 30);

    let child_events = texts(
        dir,
        &format!(
            "SELECT type || ':' || coalesce(tool_name, '') || ':' || coalesce(subtype, '') \
             FROM events WHERE session_id = 'session:copilot-{SUB_AGENT_PARENT}-sub-toolu_task_1' \
             ORDER BY seq"
        ),
    );
    assert_eq!(
        child_events,
        [
            "tool_call:grep:",
            "tool_response:grep:error",
            "tool_call:glob:",
            "tool_response:glob:",
            "assistant_response::"
        ]
    );
    assert_eq!(
        texts(
            dir,
            &format!(
                "SELECT tool_name FROM events WHERE session_id = 'session:copilot-{SUB_AGENT_PARENT}' \
                 AND type IN ('tool_call', 'tool_response') ORDER BY seq"
            )
        ),
        ["task", "task"],
        "the delegating call and its result stay in the parent"
    );
    assert_tools_paired(dir);
}

#[test]
fn copilot_sub_agent_append_adds_exactly_the_new_events() {
    // Lines 11-19: the sub-agent's second call and reply, its completion, the task result, the
    // parent's reply, the turn end and the shutdown.
    assert_append_adds(&fixture(SUB_AGENT_LOG), 10, 7);
}
