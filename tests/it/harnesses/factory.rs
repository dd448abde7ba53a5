//! Factory Droid: session JSONL with its `.settings.json` (model and token totals).

use super::{assert_append_adds, assert_tools_paired, fixture, rows, store_of, texts};

const LOG: &str = "factory/sessions/-home-dev-webapp/2c4e6a8b-0d1f-4a3c-8e5b-7d9f1b3d5f7a.jsonl";

#[test]
fn factory_session_reads_prompts_tools_and_the_settings_totals() {
    let data = store_of("factory");
    let dir = data.path();
    let sessions = rows(
        dir,
        "SELECT source, native_id, title, cwd, model, input_tokens, cached_input_tokens, \
         output_tokens, reasoning_tokens, total_tokens, turn_count FROM sessions",
    );
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    let session = &sessions[0];
    assert_eq!(session["source"], "factory");
    assert_eq!(session["native_id"], "2c4e6a8b-0d1f-4a3c-8e5b-7d9f1b3d5f7a");
    assert_eq!(
        session["title"], "Lemur queue retries",
        "sessionTitle, not the New Session placeholder"
    );
    assert_eq!(session["cwd"], "/home/dev/webapp");
    assert_eq!(session["model"], "claude-opus-4-7", "from settings.json");
    assert_eq!(
        session["input_tokens"], 43120,
        "input + cache writes + cache reads"
    );
    assert_eq!(session["cached_input_tokens"], 40000);
    assert_eq!(session["output_tokens"], 900);
    assert_eq!(session["reasoning_tokens"], 150);
    assert_eq!(session["total_tokens"], 44020);
    assert_eq!(
        session["turn_count"], 3,
        "the injected reminder before the first prompt, then one turn per prompt"
    );

    assert_eq!(
        texts(
            dir,
            "SELECT text FROM events WHERE type = 'user_input' ORDER BY seq"
        ),
        ["why does the lemur queue retry forever?", "set it to 5"]
    );
    assert_eq!(
        texts(
            dir,
            "SELECT subtype FROM events WHERE type = 'system' ORDER BY seq"
        ),
        ["context"],
        "the injected <system-reminder> block is context"
    );
    assert_eq!(
        texts(dir, "SELECT text FROM events WHERE type = 'reasoning'"),
        ["Infinite retries: look at the retry policy first."]
    );
    assert_eq!(
        texts(
            dir,
            "SELECT text FROM events WHERE type = 'assistant_response' ORDER BY seq"
        ),
        [
            "Checking the retry policy.",
            "maxRetries is Infinity in src/lemur/queue.ts; set it to 5.",
            "Done: maxRetries is 5."
        ]
    );
    assert_tools_paired(dir);
    let responses = rows(
        dir,
        "SELECT tool_name, subtype, exit_code FROM events WHERE type = 'tool_response' ORDER BY seq",
    );
    assert_eq!(responses[0]["tool_name"], "Grep");
    assert_eq!(responses[1]["tool_name"], "Execute");
    assert_eq!(responses[1]["subtype"], "error", "the failed test run");
    assert_eq!(responses[1]["exit_code"], 1);
    assert_eq!(
        texts(
            dir,
            "SELECT type FROM events WHERE total_tokens IS NOT NULL"
        ),
        ["assistant_response"],
        "the totals sit on one event, the last reply"
    );
}

#[test]
fn factory_append_adds_exactly_the_new_events() {
    // Lines 9-10: the second prompt and its reply.
    assert_append_adds(&fixture(LOG), 8, 2);
}
