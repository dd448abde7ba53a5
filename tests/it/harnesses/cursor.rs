//! Cursor agent transcripts: no ids, timestamps, model or usage in the log.

use super::{assert_append_adds, fixture, number, rows, store_of, texts};

const LOG: &str = "cursor/projects/home-dev-webapp/agent-transcripts/\
                   8e2f4b6a-1c3d-4e5f-9a7b-0c2d4e6f8a1b/8e2f4b6a-1c3d-4e5f-9a7b-0c2d4e6f8a1b.jsonl";

#[test]
fn cursor_transcript_reads_queries_replies_and_tools_with_inferred_times() {
    let data = store_of("cursor");
    let dir = data.path();
    let session = rows(
        dir,
        "SELECT source, native_id, title, turn_count, total_tokens FROM sessions",
    );
    assert_eq!(session.len(), 1, "{session:?}");
    assert_eq!(session[0]["source"], "cursor");
    assert_eq!(
        session[0]["native_id"],
        "8e2f4b6a-1c3d-4e5f-9a7b-0c2d4e6f8a1b"
    );
    assert_eq!(
        session[0]["title"], "why is the heron cache stale after deploy?",
        "the first query, without its <user_query> wrapper"
    );
    assert_eq!(session[0]["turn_count"], 2);
    assert!(
        session[0].get("total_tokens").is_none(),
        "no usage in the log is null, not 0"
    );

    assert_eq!(
        texts(
            dir,
            "SELECT text FROM events WHERE type = 'user_input' ORDER BY seq"
        ),
        [
            "why is the heron cache stale after deploy?",
            "now add the build hash to the cache key"
        ]
    );
    let context = texts(
        dir,
        "SELECT text FROM events WHERE type = 'system' ORDER BY seq",
    );
    assert_eq!(context.len(), 2, "{context:?}");
    assert!(context[0].starts_with("<git_diff_from_branch_to_main>"));
    assert!(
        context[1].starts_with("<attached_files>"),
        "attached files beside the query are context"
    );
    assert_eq!(
        texts(
            dir,
            "SELECT text FROM events WHERE type = 'reasoning' ORDER BY seq"
        ),
        ["Stale cache after deploy: check the cache key and the build hash."]
    );
    assert_eq!(
        texts(
            dir,
            "SELECT text FROM events WHERE type = 'assistant_response' ORDER BY seq"
        ),
        [
            "Let me look at how the cache key is built.",
            "The heron cache key omits the build hash, so entries from the previous deploy are served.",
            "Added the build hash to the heron cache key."
        ],
        "a [REDACTED] reply is left out"
    );

    let calls = rows(
        dir,
        "SELECT c.tool_name, c.tool_call_id, r.tool_name AS response_name, r.subtype, r.text \
         FROM events c LEFT JOIN events r ON r.type = 'tool_response' \
         AND r.tool_call_id = c.tool_call_id WHERE c.type = 'tool_call' ORDER BY c.seq",
    );
    assert_eq!(calls.len(), 3, "{calls:?}");
    assert_eq!(calls[0]["tool_name"], "Shell");
    assert_eq!(calls[0]["response_name"], "Shell", "paired by position");
    assert_eq!(calls[1]["tool_name"], "Read");
    assert_eq!(calls[1]["response_name"], "Read");
    assert_eq!(calls[1]["subtype"], "error", "the failed read");
    assert_eq!(calls[2]["tool_name"], "Edit");
    assert!(
        calls[2].get("response_name").is_none(),
        "a call without a result stays unanswered"
    );

    assert_eq!(
        number(
            dir,
            "SELECT count(*) FROM events WHERE NOT timestamp_inferred OR timestamp IS NULL"
        ),
        Some(0),
        "every time is inferred, none is null"
    );
    assert_eq!(
        number(dir, "SELECT count(*) FROM turns WHERE completed"),
        Some(1),
        "the first turn ends where the next query starts"
    );
}

#[test]
fn cursor_append_adds_exactly_the_new_events() {
    // Lines 8-11: the attached diff, the second query with its attached files, an edit call
    // and the reply.
    assert_append_adds(&fixture(LOG), 7, 5);
}
