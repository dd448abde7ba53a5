//! Aider: `.aider.chat.history.md`, one session per run, no per-message times.

use super::{assert_append_adds, fixture, number, rows, store_of, texts};

const HISTORY: &str = "aider/webapp/.aider.chat.history.md";

#[test]
fn aider_history_reads_one_session_per_run_with_prompts_replies_and_printed_usage() {
    let data = store_of("aider");
    let dir = data.path();
    let sessions = rows(
        dir,
        "SELECT source, title, cwd, model, harness_version, started_at, input_tokens, output_tokens, \
         total_tokens, session_id FROM sessions ORDER BY started_at",
    );
    assert_eq!(
        sessions.len(),
        2,
        "the run aborted at start-up is no session: {sessions:?}"
    );
    let (first, last) = (&sessions[0], &sessions[1]);
    assert_eq!(first["source"], "aider");
    assert_eq!(
        first["title"], "why does the heron importer skip rows",
        "the first prompt's first line"
    );
    assert!(
        first["cwd"]
            .as_str()
            .is_some_and(|cwd| cwd.ends_with("/aider/webapp")),
        "the directory holding the history: {first:?}"
    );
    assert_eq!(first["model"], "anthropic/claude-sonnet-4-5");
    assert_eq!(first["harness_version"], "v0.86.1");
    assert!(
        first["started_at"]
            .as_str()
            .is_some_and(|time| time.starts_with("2026-03-29T11:00:00")),
        "{first:?}"
    );
    // The rounded counts aider prints: 2.3k + 3.1k sent, 150 + 220 received.
    assert_eq!(first["input_tokens"], 5400);
    assert_eq!(first["output_tokens"], 370);
    assert_eq!(first["total_tokens"], 5770);
    assert_eq!(last["input_tokens"], 1200);

    let first_id = first["session_id"].as_str().expect("id");
    assert_eq!(
        texts(
            dir,
            &format!(
                "SELECT text FROM events WHERE session_id = '{first_id}' AND type = 'user_input' ORDER BY seq"
            )
        ),
        [
            "why does the heron importer skip rows\nwith empty ids?",
            "keep them and log a warning instead"
        ],
        "consecutive #### lines are one prompt"
    );
    let replies = texts(
        dir,
        &format!(
            "SELECT text FROM events WHERE session_id = '{first_id}' AND type = 'assistant_response' ORDER BY seq"
        ),
    );
    assert_eq!(replies.len(), 2);
    assert!(
        replies[1].contains("<<<<<<< SEARCH") && replies[1].ends_with("```"),
        "the edit block stays in the reply: {replies:?}"
    );
    assert_eq!(
        number(
            dir,
            "SELECT count(*) FROM events WHERE NOT timestamp_inferred"
        ),
        Some(0),
        "every time is inferred from the run's start"
    );
    let last_id = last["session_id"].as_str().expect("id");
    let turns = rows(
        dir,
        &format!(
            "SELECT t.completed, e.type AS terminal_type FROM turns t LEFT JOIN events e \
             ON e.event_id = t.terminal_event_id WHERE t.session_id = '{last_id}' ORDER BY t.ordinal"
        ),
    );
    assert_eq!(
        turns.last().and_then(|turn| turn.get("terminal_type")),
        Some(&serde_json::json!("runtime")),
        "^C ends the last turn: {turns:?}"
    );
    assert_eq!(
        number(
            dir,
            "SELECT count(*) FROM events WHERE type = 'user_input' AND text LIKE '> %'"
        ),
        Some(0),
        "aider's own output is never a prompt"
    );
}

#[test]
fn aider_append_adds_exactly_the_new_events() {
    // Lines 35-57: a run aborted at start-up (no session) and a run with its notices, a
    // question, its reply, the token notice, a second prompt and the ^C interrupt.
    assert_append_adds(&fixture(HISTORY), 34, 7);
}
