//! Amp: whole-file thread JSON, rewritten as the thread grows.

use std::fs;

use serde_json::Value;

use super::{assert_tools_paired, fixture, number, rows, store_of, texts};
use crate::support::index_into;

const THREAD: &str = "amp/threads/T-5e7a9c1b-3d5f-4b7d-9f1b-3d5f7b9d1f3b.json";

#[test]
fn amp_thread_reads_prompts_thinking_tools_and_per_inference_usage() {
    let data = store_of("amp");
    let dir = data.path();
    let sessions = rows(
        dir,
        "SELECT source, native_id, title, cwd, model, harness_version, input_tokens, \
         cached_input_tokens, output_tokens, total_tokens, completed FROM sessions",
    );
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    let session = &sessions[0];
    assert_eq!(session["source"], "amp");
    assert_eq!(
        session["native_id"],
        "T-5e7a9c1b-3d5f-4b7d-9f1b-3d5f7b9d1f3b"
    );
    assert_eq!(session["title"], "Ferret deploy hang");
    assert_eq!(session["cwd"], "/home/dev/webapp");
    assert_eq!(session["model"], "claude-sonnet-4-5-20250929");
    assert_eq!(session["harness_version"], "0.0.1774900000-gabc123");
    // totalInputTokens (fresh + cache writes + cache reads) of the four inferences.
    assert_eq!(session["input_tokens"], 34790);
    assert_eq!(session["cached_input_tokens"], 33900);
    assert_eq!(session["output_tokens"], 145);
    assert_eq!(session["total_tokens"], 34935);
    assert_eq!(session["completed"], true, "the last reply ends its turn");

    assert_eq!(
        texts(
            dir,
            "SELECT text FROM events WHERE type = 'user_input' ORDER BY seq"
        ),
        ["why does the ferret deploy script hang?", "remove it"]
    );
    assert_eq!(
        texts(dir, "SELECT text FROM events WHERE type = 'reasoning'"),
        ["A hanging deploy: run it in dry-run mode and watch where it stops."]
    );
    assert_eq!(
        number(
            dir,
            "SELECT count(*) FROM events WHERE text LIKE '%canary%'"
        ),
        Some(0),
        "~debug is never indexed"
    );
    assert_tools_paired(dir);
    let responses = rows(
        dir,
        "SELECT tool_name, subtype, exit_code, text FROM events WHERE type = 'tool_response' ORDER BY seq",
    );
    assert_eq!(responses[0]["tool_name"], "Bash");
    assert_eq!(responses[0]["exit_code"], 124);
    assert_eq!(responses[1]["tool_name"], "Read");
    assert_eq!(responses[1]["subtype"], "error", "the failed read");
    assert_eq!(
        responses[1]["text"],
        "EACCES: /tmp/ferret.lock is not readable"
    );
    assert_eq!(
        number(
            dir,
            "SELECT count(*) FROM events WHERE type = 'assistant_response' AND timestamp_inferred"
        ),
        Some(3),
        "replies without a usage timestamp get inferred times"
    );
}

#[test]
fn amp_thread_rewritten_with_more_messages_adds_exactly_them() {
    let original = fs::read_to_string(fixture(THREAD)).expect("fixture");
    let full: Value = serde_json::from_str(&original).expect("thread JSON");
    let mut partial = full.clone();
    partial["messages"]
        .as_array_mut()
        .expect("messages")
        .truncate(6);
    let logs = tempfile::tempdir().expect("temp dir");
    let live = logs
        .path()
        .join("T-5e7a9c1b-3d5f-4b7d-9f1b-3d5f7b9d1f3b.json");
    fs::write(&live, serde_json::to_string_pretty(&partial).expect("JSON")).expect("write");
    let data = tempfile::tempdir().expect("temp dir");
    index_into(data.path(), &[logs.path()]);

    fs::write(&live, serde_json::to_string_pretty(&full).expect("JSON")).expect("rewrite");
    let stderr = index_into(data.path(), &[logs.path()]);
    assert!(
        stderr.contains("events: 2 new"),
        "the second prompt and its reply: {stderr}"
    );
    let stderr = index_into(data.path(), &[logs.path()]);
    assert!(stderr.contains("events: 0 new"), "{stderr}");
}
