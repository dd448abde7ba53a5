//! Pi (pi-coding-agent): v3 session trees, with a session spawned from another.

use super::{assert_append_adds, assert_tools_paired, fixture, rows, store_of, texts};

const PARENT: &str = "pi/sessions/--home-dev-webapp--/\
                      2026-03-25T10-00-00-000Z_0195c2a4-7b1e-7c3d-9e8f-1a2b3c4d5e6f.jsonl";

#[test]
fn pi_session_reads_prompts_thinking_tools_usage_and_its_parent_link() {
    let data = store_of("pi");
    let dir = data.path();
    let sessions = rows(
        dir,
        "SELECT source, native_id, session_id, parent_session_id, title, cwd, model, input_tokens, \
         cached_input_tokens, output_tokens, total_tokens, turn_count FROM sessions ORDER BY started_at",
    );
    assert_eq!(sessions.len(), 2, "{sessions:?}");
    let (parent, child) = (&sessions[0], &sessions[1]);
    assert_eq!(parent["source"], "pi");
    assert_eq!(parent["native_id"], "0195c2a4-7b1e-7c3d-9e8f-1a2b3c4d5e6f");
    assert_eq!(
        parent["title"], "Walrus test timeouts",
        "the session_info name"
    );
    assert_eq!(parent["cwd"], "/home/dev/webapp");
    assert_eq!(parent["model"], "claude-sonnet-4-5");
    assert_eq!(
        child["parent_session_id"], parent["session_id"],
        "parentSession (a file path) links the child to its parent"
    );
    // input counts the uncached part plus cache reads and writes.
    assert_eq!(parent["input_tokens"], 2515);
    assert_eq!(parent["cached_input_tokens"], 2200);
    assert_eq!(parent["output_tokens"], 80);
    assert_eq!(parent["total_tokens"], 2595);
    assert_eq!(
        parent["turn_count"], 3,
        "preamble, then one turn per prompt"
    );

    let parent_id = parent["session_id"].as_str().expect("id");
    let of_parent = |kind: &str| {
        texts(
            dir,
            &format!(
                "SELECT text FROM events WHERE session_id = '{parent_id}' AND type = '{kind}' ORDER BY seq"
            ),
        )
    };
    assert_eq!(
        of_parent("user_input"),
        ["why do the walrus tests time out?", "run it once more"]
    );
    assert_eq!(
        of_parent("reasoning"),
        ["Timeouts in one suite: read the test, then run it."]
    );
    assert_eq!(
        of_parent("assistant_response"),
        [
            "Let me read the test and run it.",
            "The walrus test waits on port 9999, which nothing opens in CI."
        ]
    );
    assert_eq!(of_parent("runtime"), ["Request was aborted"]);

    assert_tools_paired(dir);
    let tools = rows(
        dir,
        "SELECT type, tool_name, subtype, exit_code FROM events WHERE type IN ('tool_call', 'tool_response') \
         ORDER BY seq",
    );
    let names: Vec<&str> = tools
        .iter()
        .map(|row| row["tool_name"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(names, ["read", "bash", "read", "bash", "bash", "bash"]);
    assert_eq!(tools[3]["subtype"], "error", "the failed test run");
    assert_eq!(tools[3]["exit_code"], 1);
    assert_eq!(
        tools[4]["subtype"], "user_command",
        "a `!` command the user ran is a call"
    );
    assert_eq!(tools[5]["exit_code"], 0);

    let turns = rows(
        dir,
        &format!(
            "SELECT t.completed, e.type AS terminal_type FROM turns t LEFT JOIN events e \
             ON e.event_id = t.terminal_event_id WHERE t.session_id = '{parent_id}' ORDER BY t.ordinal"
        ),
    );
    assert_eq!(turns[1]["terminal_type"], "assistant_response");
    assert_eq!(turns[2]["terminal_type"], "runtime", "the aborted request");
}

#[test]
fn pi_append_adds_exactly_the_new_events() {
    // Lines 10-12: the second prompt, a user shell command (call + result) and the abort.
    assert_append_adds(&fixture(PARENT), 9, 4);
}
