//! Antigravity (CLI, 2.0 app, IDE) end to end through the real binary: one session per
//! conversation from all of its files, titles, cwd, products, tokens from the `.db`, the
//! encrypted `.pb` counted, incremental re-reads, and every real conversation of the corpus.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::{
    copy_tree, corpus_dir, corpus_store, fixtures_dir, index_into, query_count, query_rows,
};

const PELICAN: &str = "1a2b3c4d-0000-4000-8000-00000000a001";
const HERON: &str = "1a2b3c4d-0000-4000-8000-00000000a002";
const OTTER: &str = "1a2b3c4d-0000-4000-8000-00000000b001";
const PUFFIN: &str = "1a2b3c4d-0000-4000-8000-00000000c001";

fn fixture_homes() -> PathBuf {
    fixtures_dir().join("antigravity")
}

fn text(row: &serde_json::Map<String, Value>, column: &str) -> String {
    row.get(column)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

fn session_row(data_dir: &Path, native_id: &str) -> serde_json::Map<String, Value> {
    let rows = query_rows(
        data_dir,
        &format!(
            "SELECT title, cwd, harness_version, model, models, input_tokens, cached_input_tokens, \
             output_tokens, reasoning_tokens, total_tokens, turn_count, completed, source \
             FROM sessions WHERE native_id = '{native_id}'"
        ),
    );
    assert_eq!(rows.len(), 1, "one session {native_id}: {rows:?}");
    rows[0].clone()
}

fn event_texts(data_dir: &Path, native_id: &str, kind: &str) -> Vec<String> {
    query_rows(
        data_dir,
        &format!(
            "SELECT text FROM events WHERE session_id = 'session:antigravity-{native_id}' \
             AND type = '{kind}' ORDER BY seq"
        ),
    )
    .iter()
    .map(|row| text(row, "text"))
    .collect()
}

#[test]
fn every_product_becomes_one_session_per_conversation() {
    let data = tempfile::tempdir().expect("temp dir");
    let stderr = index_into(data.path(), &[&fixture_homes()]);
    assert!(stderr.contains("1 encrypted"), "{stderr}");
    assert!(stderr.contains("0 failed"), "{stderr}");
    assert!(stderr.contains("antigravity=4"), "{stderr}");
    let data_dir = data.path();
    assert_eq!(
        query_count(
            data_dir,
            "SELECT count(*) FROM sessions WHERE source = 'antigravity'"
        ),
        4
    );

    // CLI: title from the annotation, cwd from the history, tokens and model from the .db.
    let pelican = session_row(data_dir, PELICAN);
    assert_eq!(
        text(&pelican, "title"),
        "Pelican migration \"wingspan\" fix"
    );
    assert_eq!(text(&pelican, "cwd"), "/home/dev/app");
    assert_eq!(text(&pelican, "harness_version"), "antigravity-cli");
    assert_eq!(text(&pelican, "model"), "gemini-3-flash-a");
    assert_eq!(text(&pelican, "models"), r#"["gemini-3-flash-a"]"#);
    let number = |row: &serde_json::Map<String, Value>, column: &str| {
        row.get(column).and_then(Value::as_i64)
    };
    let input = 16004 + (941 + 16259) + (1644 + 16255) + (2091 + 16249);
    let output = 247 + 268 + 371 + 175;
    assert_eq!(number(&pelican, "input_tokens"), Some(input));
    assert_eq!(
        number(&pelican, "cached_input_tokens"),
        Some(16259 + 16255 + 16249)
    );
    assert_eq!(number(&pelican, "output_tokens"), Some(output));
    assert_eq!(
        number(&pelican, "reasoning_tokens"),
        Some(139 + 106 + 46 + 93)
    );
    assert_eq!(number(&pelican, "total_tokens"), Some(input + output));
    assert_eq!(number(&pelican, "turn_count"), Some(2));
    assert_eq!(pelican["completed"], json!(true));

    // Prompts are the request blocks; other conversations listed in the history are not content.
    assert_eq!(
        event_texts(data_dir, PELICAN, "user_input"),
        vec![
            "why does the pelican migration fail",
            "now run the pelican tests"
        ]
    );
    assert_eq!(
        query_count(
            data_dir,
            "SELECT count(*) FROM events WHERE text LIKE '%Flamingo%'"
        ),
        0
    );
    // The full file lacks step 3: the compact copy (cut) stands in; step 10's full line is torn,
    // its compact copy is used once; the checkpoint, written late, sits at its step.
    let responses = query_rows(
        data_dir,
        &format!(
            "SELECT tool_name, tool_call_id, subtype, exit_code, text FROM events \
             WHERE session_id = 'session:antigravity-{PELICAN}' AND type = 'tool_response' ORDER BY seq"
        ),
    );
    let summary: Vec<(String, String, Option<i64>)> = responses
        .iter()
        .map(|row| {
            (
                text(row, "tool_name"),
                text(row, "subtype"),
                row.get("exit_code").and_then(Value::as_i64),
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            ("view_file".to_string(), String::new(), None),
            ("run_command".to_string(), "error".to_string(), None),
            ("run_command".to_string(), String::new(), Some(2)),
        ]
    );
    assert!(text(&responses[0], "text").contains("<truncated 57 bytes>"));
    assert!(text(&responses[1], "text").contains("problem parsing the tool call"));
    let calls = query_rows(
        data_dir,
        &format!(
            "SELECT tool_call_id, payload FROM events WHERE session_id = \
             'session:antigravity-{PELICAN}' AND type = 'tool_call' ORDER BY seq"
        ),
    );
    let call_ids: Vec<String> = calls.iter().map(|row| text(row, "tool_call_id")).collect();
    let response_ids: Vec<String> = responses
        .iter()
        .map(|row| text(row, "tool_call_id"))
        .collect();
    assert_eq!(call_ids, response_ids, "every call answered, in order");
    let typed: Value = serde_json::from_str(&text(&calls[1], "payload")).expect("payload JSON");
    assert_eq!(typed["WaitMsBeforeAsync"], json!(2000), "typed arguments");
    let replies = event_texts(data_dir, PELICAN, "assistant_response");
    assert_eq!(
        replies
            .iter()
            .filter(|reply| reply.contains("expects centimetres"))
            .count(),
        1
    );
    assert_eq!(event_texts(data_dir, PELICAN, "compaction").len(), 1);
    assert_eq!(event_texts(data_dir, PELICAN, "reasoning").len(), 1);

    // Chunks only: a CLI conversation titled by its first prompt, no usage (null, not 0).
    let heron = session_row(data_dir, HERON);
    assert_eq!(text(&heron, "title"), "list the heron fixtures");
    assert!(heron.get("total_tokens").is_none_or(Value::is_null));
    assert_eq!(event_texts(data_dir, HERON, "tool_response").len(), 1);
    assert_eq!(event_texts(data_dir, HERON, "user_input").len(), 2);

    // The app: title and cwd from the summaries index.
    let otter = session_row(data_dir, OTTER);
    assert_eq!(text(&otter, "title"), "Otter dashboard");
    assert_eq!(text(&otter, "cwd"), "c:/Users/dev/Otter App");
    assert_eq!(text(&otter, "harness_version"), "antigravity-app");
    assert_eq!(text(&otter, "model"), "Gemini 3.5 Flash (Medium)");
    assert_eq!(event_texts(data_dir, OTTER, "system").len(), 2);

    // The IDE: editor state is context, the failed MCP call is paired and marked.
    let puffin = session_row(data_dir, PUFFIN);
    assert_eq!(text(&puffin, "harness_version"), "antigravity-ide");
    assert_eq!(
        text(&puffin, "title"),
        "add a license header to the puffin script"
    );
    assert_eq!(
        query_count(
            data_dir,
            &format!(
                "SELECT count(*) FROM events WHERE session_id = 'session:antigravity-{PUFFIN}' \
                 AND type = 'tool_response' AND tool_name = 'call_mcp_tool' AND subtype = 'error'"
            )
        ),
        1
    );
    assert_eq!(
        query_count(
            data_dir,
            "SELECT count(*) FROM events WHERE type = 'user_input' AND \
             (text LIKE '%Active Document%' OR text LIKE '%ADDITIONAL_METADATA%')"
        ),
        0
    );

    let again = index_into(data_dir, &[&fixture_homes()]);
    assert!(again.contains(" 0 ingested"), "{again}");
    assert!(again.contains("events: 0 new"), "{again}");
}

fn append_line(path: &Path, record: &Value) {
    let mut file = fs::OpenOptions::new()
        .append(true)
        .open(path)
        .expect("open transcript");
    writeln!(file, "{record}").expect("append");
}

#[test]
fn a_change_to_any_file_re_reads_the_conversation_and_adds_exactly_the_new_events() {
    let homes = tempfile::tempdir().expect("temp dir");
    copy_tree(
        &fixture_homes().join("antigravity-cli"),
        &homes.path().join("antigravity-cli"),
    );
    let data = tempfile::tempdir().expect("temp dir");
    index_into(data.path(), &[homes.path()]);
    let events_before = query_count(data.path(), "SELECT count(*) FROM events");

    let logs = homes.path().join(format!(
        "antigravity-cli/brain/{PELICAN}/.system_generated/logs"
    ));
    let prompt = json!({"step_index": 11, "source": "USER_EXPLICIT", "type": "USER_INPUT",
        "status": "DONE", "created_at": "2026-02-10T09:00:00Z",
        "content": "<USER_REQUEST>\nconvert the wingspan to centimetres\n</USER_REQUEST>"});
    let reply = json!({"step_index": 12, "source": "MODEL", "type": "PLANNER_RESPONSE",
        "status": "DONE", "created_at": "2026-02-10T09:00:03Z",
        "content": "Converted the wingspan column to centimetres."});
    // The harness finishes the torn line of step 10 and appends the new steps to both forms.
    let full = logs.join("transcript_full.jsonl");
    let torn = fs::read_to_string(&full).expect("read full");
    let compact = fs::read_to_string(logs.join("transcript.jsonl")).expect("read compact");
    let step_10 = compact
        .lines()
        .find(|line| line.contains("\"step_index\":10"))
        .expect("step 10");
    let kept = &torn[..torn.rfind('\n').expect("complete lines") + 1];
    fs::write(&full, format!("{kept}{step_10}\n")).expect("finish torn line");
    for path in [full.clone(), logs.join("transcript.jsonl")] {
        append_line(&path, &prompt);
        append_line(&path, &reply);
    }
    let stderr = index_into(data.path(), &[homes.path()]);
    assert!(stderr.contains("events: 2 new"), "{stderr}");
    assert_eq!(
        query_count(data.path(), "SELECT count(*) FROM events"),
        events_before + 2
    );
    assert_eq!(
        query_count(
            data.path(),
            &format!("SELECT turn_count FROM sessions WHERE native_id = '{PELICAN}'")
        ),
        3
    );

    // A changed annotation (the title) alone re-reads the conversation: nothing new, new title.
    fs::write(
        homes
            .path()
            .join(format!("antigravity-cli/annotations/{PELICAN}.pbtxt")),
        "title:\"Pelican units\"",
    )
    .expect("write annotation");
    let stderr = index_into(data.path(), &[homes.path()]);
    assert!(stderr.contains("1 ingested"), "{stderr}");
    assert!(stderr.contains("events: 0 new"), "{stderr}");
    assert_eq!(
        text(&session_row(data.path(), PELICAN), "title"),
        "Pelican units"
    );

    // Indexing one changed member (as the watcher does) reads the whole conversation.
    append_line(
        &full,
        &json!({"step_index": 13, "source": "SYSTEM", "type": "EPHEMERAL_MESSAGE",
            "status": "DONE", "created_at": "2026-02-10T09:00:04Z", "content": "reminder"}),
    );
    let stderr = index_into(data.path(), &[&full]);
    assert!(stderr.contains("events: 1 new"), "{stderr}");
    assert_eq!(
        query_count(data.path(), "SELECT count(*) FROM events"),
        events_before + 3
    );
}

#[test]
fn corpus_recognises_every_antigravity_conversation() {
    let Some((data_dir, stderr)) = corpus_store() else {
        return;
    };
    let corpus = corpus_dir().expect("corpus present").join("antigravity");
    assert!(stderr.contains("0 failed"), "{stderr}");
    assert!(stderr.contains("1 encrypted"), "{stderr}");
    let mut conversations = 0;
    for entry in walkdir::WalkDir::new(&corpus).min_depth(4).max_depth(4) {
        let entry = entry.expect("walk corpus");
        let is_conversation = entry.file_type().is_dir()
            && entry.path().parent().and_then(Path::file_name) == Some("brain".as_ref());
        if !is_conversation {
            continue;
        }
        conversations += 1;
        let key = entry.path().canonicalize().expect("canonical");
        let listed = format!("{:<17}  {}", "antigravity", key.display());
        assert!(stderr.contains(&listed), "{listed} not listed:\n{stderr}");
    }
    assert_eq!(conversations, 14);
    assert_eq!(
        query_count(
            data_dir,
            "SELECT count(*) FROM sessions WHERE source = 'antigravity'"
        ),
        14
    );
    assert_eq!(
        query_count(
            data_dir,
            "SELECT count(*) FROM sessions WHERE source = 'antigravity' AND total_tokens > 0"
        ),
        2,
        "the two conversations with a .db have tokens, the others none"
    );
    for product in ["antigravity-cli", "antigravity-app", "antigravity-ide"] {
        assert!(
            query_count(
                data_dir,
                &format!("SELECT count(*) FROM sessions WHERE harness_version = '{product}'")
            ) > 0,
            "{product}"
        );
    }
    assert_eq!(
        query_count(
            data_dir,
            "SELECT count(*) FROM sessions WHERE source = 'antigravity' AND title = \
             'Docker Compose Connection Error'"
        ),
        1,
        "the CLI annotation titles its conversation"
    );
    // SQLite was never opened in place: no -wal/-shm appeared beside the corpus stores.
    let stray = walkdir::WalkDir::new(&corpus)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|entry| {
            let name = entry.file_name().to_string_lossy();
            name.ends_with(".db-wal") || name.ends_with(".db-shm")
        })
        .count();
    assert_eq!(stray, 0);
}
