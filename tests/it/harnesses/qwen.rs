//! Qwen Code: JSONL chat records (with a sub-session) and the legacy whole-file JSON chats.

use super::{assert_append_adds, assert_tools_paired, fixture, number, rows, store_of, texts};

const PARENT: &str =
    "qwen/projects/-home-dev-webapp/chats/6f1e3a2b-9c4d-4e8f-a1b2-3c4d5e6f7a8b.jsonl";

#[test]
fn qwen_jsonl_session_reads_prompts_thoughts_tools_usage_and_its_sub_session() {
    let data = store_of("qwen");
    let dir = data.path();
    let sessions = rows(
        dir,
        "SELECT source, native_id, title, cwd, git_branch, model, harness_version, parent_session_id, \
         session_id, input_tokens, cached_input_tokens, output_tokens, reasoning_tokens, total_tokens \
         FROM sessions ORDER BY started_at",
    );
    assert_eq!(sessions.len(), 3, "{sessions:?}");
    assert!(sessions.iter().all(|session| session["source"] == "qwen"));
    let legacy = &sessions[0];
    let parent = &sessions[1];
    let child = &sessions[2];
    assert_eq!(parent["native_id"], "6f1e3a2b-9c4d-4e8f-a1b2-3c4d5e6f7a8b");
    assert_eq!(
        parent["title"], "Otter endpoints",
        "the custom_title record"
    );
    assert_eq!(parent["cwd"], "/home/dev/webapp");
    assert_eq!(parent["git_branch"], "main");
    assert_eq!(parent["model"], "qwen3-coder-plus");
    assert_eq!(parent["harness_version"], "0.5.1");
    assert_eq!(
        child["parent_session_id"], parent["session_id"],
        "the parent_session record links the sub-session"
    );
    // usageMetadata of the four assistant records; the ui_telemetry copy is not counted.
    assert_eq!(parent["input_tokens"], 48600);
    assert_eq!(parent["cached_input_tokens"], 36300);
    assert_eq!(parent["output_tokens"], 130);
    assert_eq!(parent["reasoning_tokens"], 25);
    assert_eq!(parent["total_tokens"], 48730);

    let session_id = parent["session_id"].as_str().expect("session id");
    let of_parent = |sql: &str| texts(dir, &sql.replace("$S", session_id));
    assert_eq!(
        of_parent(
            "SELECT text FROM events WHERE session_id = '$S' AND type = 'user_input' ORDER BY seq"
        ),
        ["list the otter endpoints", "now add POST /otters"],
        "the <system-reminder> Qwen prepends is not the user's words"
    );
    assert_eq!(
        of_parent("SELECT text FROM events WHERE session_id = '$S' AND type = 'reasoning'"),
        ["The user wants the otter routes; search the source."]
    );
    assert_eq!(
        of_parent(
            "SELECT text FROM events WHERE session_id = '$S' AND type = 'assistant_response' ORDER BY seq"
        ),
        [
            "I'll search the routes.",
            "There is one otter endpoint: GET /otters in src/otter.ts.",
            "Added POST /otters next to the GET route."
        ]
    );
    assert_tools_paired(dir);
    let responses = rows(
        dir,
        "SELECT tool_name, subtype, text FROM events WHERE type = 'tool_response' ORDER BY seq",
    );
    assert_eq!(responses.len(), 2);
    assert_eq!(responses[0]["tool_name"], "grep_search");
    assert_eq!(responses[1]["tool_name"], "read_file");
    assert_eq!(responses[1]["subtype"], "error", "the failed read");
    assert_eq!(
        number(
            dir,
            &format!("SELECT count(*) FROM turns WHERE session_id = '{session_id}' AND completed")
        ),
        Some(2),
        "both turns end with a reply that calls no tool"
    );

    // The legacy JSON chat: relabelled qwen, reminders out of the prompt; a message that is
    // nothing but a reminder is context, not a prompt.
    assert_eq!(legacy["title"], "why is the badger build slow?");
    assert_eq!(legacy["input_tokens"], 9000);
    assert_eq!(legacy["cached_input_tokens"], 4000);
    let legacy_id = legacy["session_id"].as_str().expect("session id");
    assert_eq!(
        texts(
            dir,
            &format!("SELECT type FROM events WHERE session_id = '{legacy_id}' ORDER BY seq")
        ),
        ["user_input", "assistant_response", "system"]
    );
}

#[test]
fn qwen_append_adds_exactly_the_new_events() {
    // Lines 8-10: a title record (no event), the second prompt and its reply.
    assert_append_adds(&fixture(PARENT), 7, 2);
}
