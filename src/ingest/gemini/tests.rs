//! Unit tests of the gemini parser: small inline records in the real format, plus the real corpus.

use super::*;
use crate::model::{EventType, ParsedSession, RawEvent, TurnEnd};
use serde_json::json;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

fn chats_path(name: &str) -> PathBuf {
    PathBuf::from(format!("/home/u/.gemini/tmp/webapp/chats/{name}"))
}

use crate::ingest::lines::numbered_lines as jsonl;

fn header() -> Value {
    json!({"sessionId": "5e551011-aaaa-bbbb-cccc-000000000001", "projectHash": "abc123",
           "startTime": "2026-03-21T11:00:00.000Z", "lastUpdated": "2026-03-21T11:00:00.000Z",
           "kind": "main"})
}

fn user(id: &str, text: &str) -> Value {
    json!({"id": id, "timestamp": "2026-03-21T11:00:01.000Z", "type": "user",
           "content": [{"text": text}]})
}

fn reply(id: &str, text: &str) -> Value {
    json!({"id": id, "timestamp": "2026-03-21T11:00:02.000Z", "type": "gemini",
           "content": text, "thoughts": [], "model": "gemini-2.5-pro"})
}

fn shell_call(id: &str, command: &str, output: &str) -> Value {
    json!({"id": id, "name": "run_shell_command",
           "args": {"command": command, "description": "run it"},
           "result": [{"functionResponse": {"id": id, "name": "run_shell_command",
                        "response": {"output": output}}}],
           "status": "success", "timestamp": "2026-03-21T11:00:03.000Z",
           "resultDisplay": output, "displayName": "Shell"})
}

fn session_json(messages: Value) -> Value {
    json!({"sessionId": "38d857b1-0000-0000-0000-000000000000", "projectHash": "ff00",
           "startTime": "2026-03-20T09:15:00.000Z", "lastUpdated": "2026-03-20T09:20:00.000Z",
           "messages": messages})
}

fn one(output: ParseOutput) -> ParsedSession {
    assert_eq!(output.sessions.len(), 1);
    output.sessions.into_iter().next().unwrap()
}

fn kinds(session: &ParsedSession) -> Vec<(String, EventType)> {
    session
        .events
        .iter()
        .map(|event| (event.key.clone(), event.kind))
        .collect()
}

#[test]
fn sniff_json_accepts_sessions_and_rejects_the_prompt_log() {
    assert!(sniff_json(&session_json(json!([]))));
    let prompt_log = json!([{"sessionId": "x", "messageId": 0, "type": "user",
                             "message": "hi", "timestamp": "2025-09-16T20:40:32.002Z"}]);
    assert!(!sniff_json(&prompt_log));
    assert!(!sniff_json(&json!({"sessionId": "x"})));
    assert!(!sniff_json(&json!("text")));
}

#[test]
fn sniff_jsonl_wants_the_metadata_header() {
    assert!(sniff_jsonl(&jsonl(&[header(), user("u1", "hi")])));
    let claude = json!({"type": "user", "sessionId": "s", "uuid": "u", "message": {}});
    assert!(!sniff_jsonl(&jsonl(&[claude])));
    let qwen = json!({"uuid": "u", "sessionId": "s", "type": "user", "projectHash": "p"});
    assert!(!sniff_jsonl(&jsonl(&[qwen])));
    assert!(!sniff_jsonl(&[]));
}

#[test]
fn gemini_message_emits_reasoning_then_reply_then_calls_and_results() {
    let mut message = reply("g1", "I will list the files.");
    message["thoughts"] = json!([
        {"subject": "Listing files", "description": "Use ls.", "timestamp": "2026-03-20T09:15:01.000Z"},
        {"subject": "", "description": ""}
    ]);
    message["toolCalls"] = json!([shell_call("call-1", "ls", "Output: a.txt\nExit Code: 0")]);
    let value = session_json(json!([
        user("u1", "list files"),
        message,
        reply("g2", "Done.")
    ]));
    let session = one(parse_json(&chats_path("session-a.json"), &value));
    assert_eq!(
        kinds(&session),
        vec![
            ("u1".into(), EventType::UserInput),
            ("g1.thought.0".into(), EventType::Reasoning),
            ("g1".into(), EventType::AssistantResponse),
            ("g1.call.call-1".into(), EventType::ToolCall),
            ("g1.result.call-1".into(), EventType::ToolResponse),
            ("g2".into(), EventType::AssistantResponse),
        ]
    );
    let events = &session.events;
    assert!(events[0].starts_turn);
    assert_eq!(events[0].originating_model, None);
    assert_eq!(events[1].text, "Listing files\nUse ls.");
    assert_eq!(events[1].model.as_deref(), Some("gemini-2.5-pro"));
    assert_eq!(
        events[3].text,
        r#"run_shell_command(command="ls", description="run it")"#
    );
    assert_eq!(
        events[3].payload,
        Some(json!({"command": "ls", "description": "run it"}))
    );
    assert_eq!(events[3].model, None);
    assert_eq!(
        events[3].originating_model.as_deref(),
        Some("gemini-2.5-pro")
    );
    assert_eq!(events[4].tool_name.as_deref(), Some("run_shell_command"));
    assert_eq!(events[4].tool_call_id.as_deref(), Some("call-1"));
    assert_eq!(events[4].text, "Output: a.txt\nExit Code: 0");
    assert_eq!(events[4].exit_code, Some(0));
    assert_eq!(session.meta.model.as_deref(), Some("gemini-2.5-pro"));
    assert_eq!(
        session.meta.started_at.map(|time| time.to_rfc3339()),
        Some("2026-03-20T09:15:00+00:00".into())
    );
}

#[test]
fn shell_exit_code_and_error_status_are_kept() {
    let mut message = reply("g1", "");
    message["toolCalls"] = json!([
        shell_call("c1", "pytest", "Output: 1 failed\nExit Code: 1"),
        {"id": "c2", "name": "replace", "args": "{\"file_path\": \"a.py\"}",
         "result": [{"functionResponse": {"id": "c2", "name": "replace",
                      "response": {"error": "0 occurrences found"}}}],
         "status": "error", "resultDisplay": "Error: could not find the string"}
    ]);
    let value = session_json(json!([user("u1", "fix"), message]));
    let session = one(parse_json(&chats_path("session-a.json"), &value));
    let shell = &session.events[2];
    assert_eq!(shell.kind, EventType::ToolResponse);
    assert_eq!(shell.exit_code, Some(1));
    assert_eq!(shell.payload, Some(json!({"status": "success"})));
    let call = &session.events[3];
    assert_eq!(
        call.payload,
        Some(json!({"file_path": "a.py"})),
        "string args are parsed"
    );
    let failed = &session.events[4];
    assert_eq!(failed.text, "0 occurrences found");
    assert_eq!(failed.exit_code, None);
    assert_eq!(failed.payload, Some(json!({"status": "error"})));
    assert_eq!(failed.subtype.as_deref(), Some("error"));
    assert_eq!(failed.tool_name.as_deref(), Some("replace"));
}

#[test]
fn only_the_last_tool_free_reply_before_a_prompt_or_eof_is_terminal() {
    let mut with_call = reply("g2", "Running it.");
    with_call["toolCalls"] = json!([shell_call("c1", "ls", "Output: x")]);
    let value = session_json(json!([
        user("u1", "first"),
        reply("g1", "Let me look."),
        with_call,
        reply("g3", "All done."),
        {"id": "i1", "type": "info", "content": "Memory reloaded successfully."},
        user("u2", "second"),
        reply("g4", "Sure."),
    ]));
    let session = one(parse_json(&chats_path("session-a.json"), &value));
    let terminal: Vec<&str> = session
        .events
        .iter()
        .filter(|event| event.turn_end == Some(TurnEnd::Terminal))
        .map(|event| event.key.as_str())
        .collect();
    assert_eq!(terminal, vec!["g3", "g4"]);
}

#[test]
fn reply_with_pending_tool_call_at_eof_is_not_terminal() {
    let mut message = reply("g1", "Running the migration.");
    message["toolCalls"] = json!([{"id": "c1", "name": "run_shell_command",
                                   "args": {"command": "make migrate"}, "status": "executing"}]);
    let value = session_json(json!([user("u1", "migrate"), message]));
    let session = one(parse_json(&chats_path("session-a.json"), &value));
    assert_eq!(
        kinds(&session),
        vec![
            ("u1".into(), EventType::UserInput),
            ("g1".into(), EventType::AssistantResponse),
            ("g1.call.c1".into(), EventType::ToolCall),
        ]
    );
    assert!(session.events.iter().all(|event| event.turn_end.is_none()));
}

#[test]
fn request_cancelled_is_a_terminal_runtime_event() {
    let value = session_json(json!([
        user("u1", "do it"),
        reply("g1", "Starting."),
        {"id": "i1", "timestamp": "2026-03-20T09:16:00.000Z", "type": "info",
         "content": "Request cancelled."},
        {"id": "e1", "type": "error", "content": "[API Error: quota exceeded]"},
        {"id": "w1", "type": "warning", "content": "Low disk"},
    ]));
    let session = one(parse_json(&chats_path("session-a.json"), &value));
    let cancel = &session.events[2];
    assert_eq!(cancel.kind, EventType::Runtime);
    assert_eq!(cancel.turn_end, Some(TurnEnd::Terminal));
    assert_eq!(cancel.subtype.as_deref(), Some("cancelled"));
    assert_eq!(session.events[1].turn_end, None);
    assert_eq!(session.events[3].kind, EventType::Runtime);
    assert_eq!(session.events[3].subtype.as_deref(), Some("error"));
    assert_eq!(session.events[4].kind, EventType::System);
}

#[test]
fn continuation_and_steering_hints_do_not_start_turns() {
    let steering = json!({"id": "s1", "type": "user", "content": [
        {"text": "User steering update:\n<user_input>\nuse parquet instead\n</user_input>\nInternal instruction: Re-evaluate the active plan."},
        {"functionResponse": {"id": "c1", "name": "read_file", "response": {"output": "dup"}}}
    ]});
    let mut with_call = reply("g1", "");
    with_call["toolCalls"] = json!([shell_call("c1", "cat a", "Output: dup")]);
    let value = session_json(json!([
        user("u1", "go"),
        with_call,
        steering,
        reply("g2", "Noted."),
        {"id": "n1", "type": "user", "content": [{"text": "System: Please continue."}],
         "displayContent": [{"functionResponse": {"id": "c1", "name": "x", "response": {}}}]},
        reply("g3", "Finished."),
    ]));
    let session = one(parse_json(&chats_path("session-a.json"), &value));
    let starts: Vec<&str> = session
        .events
        .iter()
        .filter(|event| event.starts_turn)
        .map(|event| event.key.as_str())
        .collect();
    assert_eq!(starts, vec!["u1"]);
    let hint = session
        .events
        .iter()
        .find(|event| event.key == "s1")
        .unwrap();
    assert_eq!(hint.kind, EventType::UserInput);
    assert_eq!(hint.text, "use parquet instead");
    assert_eq!(hint.subtype.as_deref(), Some("steering"));
    assert!(
        !session
            .events
            .iter()
            .any(|event| event.key == "s1.result.c1"),
        "recorded tool results are not duplicated"
    );
    let cont = session
        .events
        .iter()
        .find(|event| event.key == "n1")
        .unwrap();
    assert_eq!(cont.kind, EventType::System);
    let terminal: Vec<&str> = session
        .events
        .iter()
        .filter(|event| event.turn_end.is_some())
        .map(|event| event.key.as_str())
        .collect();
    assert_eq!(terminal, vec!["g3"]);
}

#[test]
fn steering_hint_sent_after_the_agent_stopped_opens_a_turn() {
    let hint = |id: &str| {
        json!({"id": id, "type": "user", "content": [
            {"text": "User steering update:\n<user_input>\nalso check the flaky test\n</user_input>\nInternal instruction: Re-evaluate."}
        ]})
    };
    let value = session_json(json!([
        user("u1", "go"),
        reply("g1", "Done."),
        hint("s1"),
        reply("g2", "Checked."),
    ]));
    let session = one(parse_json(&chats_path("session-a.json"), &value));
    let hint_event = &session.events[2];
    assert_eq!(hint_event.kind, EventType::UserInput);
    assert!(hint_event.starts_turn);
    assert_eq!(hint_event.text, "also check the flaky test");
    assert_eq!(session.events[1].turn_end, Some(TurnEnd::Terminal));
    assert_eq!(session.events[3].turn_end, Some(TurnEnd::Terminal));
}

#[test]
fn unrecorded_function_responses_in_user_messages_become_tool_responses() {
    let value = session_json(json!([
        user("u1", "go"),
        {"id": "u2", "type": "user", "content": [
            {"functionResponse": {"id": "orphan", "name": "glob", "response": {"output": "a.rs"}}}
        ]},
    ]));
    let session = one(parse_json(&chats_path("session-a.json"), &value));
    let response = &session.events[1];
    assert_eq!(response.key, "u2.result.orphan");
    assert_eq!(response.kind, EventType::ToolResponse);
    assert_eq!(response.tool_name.as_deref(), Some("glob"));
    assert_eq!(response.text, "a.rs");
}

#[test]
fn display_content_is_the_typed_prompt() {
    let value = session_json(json!([
        {"id": "u1", "type": "user",
         "content": [{"text": "@notes.md summarize"}, {"text": "\n--- Content from referenced files ---\nhello"}],
         "displayContent": [{"text": "@notes.md summarize"}]}
    ]));
    let session = one(parse_json(&chats_path("session-a.json"), &value));
    assert_eq!(session.events[0].text, "@notes.md summarize");
    assert_eq!(
        session.events[0].payload,
        Some(
            json!({"content": "@notes.md summarize\n--- Content from referenced files ---\nhello"})
        )
    );
}

#[test]
fn jsonl_reappended_message_replaces_the_copy_at_its_first_position() {
    let mut updated = reply("g1", "Checking the migration.");
    updated["toolCalls"] = json!([shell_call(
        "c1",
        "alembic upgrade head",
        "Output: ok\nExit Code: 0"
    )]);
    let lines = jsonl(&[
        header(),
        user("u1", "run the migration"),
        json!({"$set": {"lastUpdated": "2026-03-21T11:00:01.000Z"}}),
        reply("g1", "Checking the migration."),
        json!({"$set": {"lastUpdated": "2026-03-21T11:00:02.000Z"}}),
        updated,
        reply("g2", "Migration applied."),
    ]);
    let session = one(parse_jsonl(&chats_path("session-b.jsonl"), &lines));
    assert_eq!(session.native_id, "5e551011-aaaa-bbbb-cccc-000000000001");
    assert_eq!(
        kinds(&session),
        vec![
            ("u1".into(), EventType::UserInput),
            ("g1".into(), EventType::AssistantResponse),
            ("g1.call.c1".into(), EventType::ToolCall),
            ("g1.result.c1".into(), EventType::ToolResponse),
            ("g2".into(), EventType::AssistantResponse),
        ]
    );
    assert_eq!(
        session.events[1].line, 6,
        "content comes from the newest copy"
    );
    assert_eq!(session.events[1].turn_end, None);
    assert_eq!(session.events[4].turn_end, Some(TurnEnd::Terminal));
}

#[test]
fn jsonl_set_updates_metadata() {
    let lines = jsonl(&[
        header(),
        user("u1", "hi"),
        json!({"$set": {"summary": "Fix the flaky test"}}),
        json!({"$set": {"directories": ["/src/webapp"]}}),
    ]);
    let session = one(parse_jsonl(&chats_path("session-b.jsonl"), &lines));
    assert_eq!(session.meta.summary.as_deref(), Some("Fix the flaky test"));
    assert_eq!(session.meta.title.as_deref(), Some("Fix the flaky test"));
    assert_eq!(session.meta.cwd.as_deref(), Some("/src/webapp"));
    assert_eq!(session.meta.parent_native_id, None);
}

#[test]
fn jsonl_rewind_removes_the_target_and_everything_after() {
    let lines = jsonl(&[
        header(),
        user("u1", "first"),
        reply("g1", "one"),
        user("u2", "second"),
        reply("g2", "two"),
        json!({"$rewindTo": "u2"}),
        user("u3", "second, rephrased"),
        reply("g3", "three"),
    ]);
    let session = one(parse_jsonl(&chats_path("session-b.jsonl"), &lines));
    let keys: Vec<&str> = session
        .events
        .iter()
        .map(|event| event.key.as_str())
        .collect();
    assert_eq!(keys, vec!["u1", "g1", "u3", "g3"]);
    assert_eq!(session.events[1].turn_end, Some(TurnEnd::Terminal));
}

#[test]
fn jsonl_rewind_to_unknown_id_clears_like_the_cli() {
    let lines = jsonl(&[
        header(),
        user("u1", "first"),
        json!({"$rewindTo": "nope"}),
        user("u2", "again"),
    ]);
    let output = parse_jsonl(&chats_path("session-b.jsonl"), &lines);
    assert_eq!(output.warnings.len(), 1);
    let session = one(output);
    let keys: Vec<&str> = session
        .events
        .iter()
        .map(|event| event.key.as_str())
        .collect();
    assert_eq!(keys, vec!["u2"]);
}

#[test]
fn jsonl_history_snapshot_only_adds_new_synthetic_messages() {
    let lines = jsonl(&[
        header(),
        user("u1", "first"),
        reply("g1", "one"),
        json!({"$set": {"messages": [
            {"id": "syn1", "type": "user", "content": [{"text": "<state_snapshot>we did X</state_snapshot>"}]},
            {"id": "syn2", "type": "gemini", "content": [{"text": "Got it. Thanks for the additional context!"}]},
            {"id": "g1", "type": "gemini", "content": "masked"}
        ]}}),
        user("u2", "next"),
    ]);
    let session = one(parse_jsonl(&chats_path("session-b.jsonl"), &lines));
    assert_eq!(
        kinds(&session),
        vec![
            ("u1".into(), EventType::UserInput),
            ("g1".into(), EventType::AssistantResponse),
            ("syn1".into(), EventType::Compaction),
            ("syn2".into(), EventType::System),
            ("u2".into(), EventType::UserInput),
        ]
    );
    assert_eq!(session.events[1].text, "one");
    assert_eq!(session.events[1].turn_end, Some(TurnEnd::Terminal));
    assert!(!session.events[2].starts_turn);
}

#[test]
fn subagent_links_to_the_parent_directory() {
    let path =
        PathBuf::from("/h/.gemini/tmp/p/chats/b1f31681-4b57-4337-8bc5-ac73580f752a/xb7gtb.json");
    let mut value = session_json(json!([
        user("u1", "# Initial Context\nFind the docs"),
        reply("g1", "Found.")
    ]));
    value["sessionId"] = json!("xb7gtb");
    value["kind"] = json!("subagent");
    value["directories"] = json!(["C:\\vault"]);
    let session = one(parse_json(&path, &value));
    assert_eq!(session.native_id, "xb7gtb");
    assert_eq!(
        session.meta.parent_native_id.as_deref(),
        Some("b1f31681-4b57-4337-8bc5-ac73580f752a")
    );
    assert_eq!(session.meta.cwd.as_deref(), Some("C:\\vault"));
    assert!(session.events[0].starts_turn);
    assert_eq!(
        session.events[0].subtype.as_deref(),
        Some("subagent_prompt")
    );

    value["sessionId"] = json!("b1f31681-4b57-4337-8bc5-ac73580f752a");
    let shared = one(parse_json(&path, &value));
    assert_eq!(
        shared.native_id,
        "b1f31681-4b57-4337-8bc5-ac73580f752a-xb7gtb"
    );
}

#[test]
fn main_session_is_not_a_subagent() {
    let session = one(parse_json(
        &chats_path("session-a.json"),
        &session_json(json!([])),
    ));
    assert_eq!(session.meta.parent_native_id, None);
    assert!(session.events.is_empty());
}

#[test]
fn workspace_info_gives_the_cwd_when_metadata_has_none() {
    let value = session_json(json!([
        {"id": "i1", "type": "info", "content": "Current workspace directories:\n- /src/webapp"}
    ]));
    let session = one(parse_json(&chats_path("session-a.json"), &value));
    assert_eq!(session.meta.cwd.as_deref(), Some("/src/webapp"));
}

#[test]
fn duplicate_ids_in_a_json_array_get_unique_keys() {
    let value = session_json(json!([user("u1", "a"), user("u1", "b")]));
    let session = one(parse_json(&chats_path("session-a.json"), &value));
    assert_eq!(session.events[0].key, "u1");
    assert_eq!(session.events[1].key, "u1.dup.2");
}

#[test]
fn garbage_never_panics() {
    let weird = session_json(json!([
        7, null, {"type": "gemini"}, {"id": 5, "type": "user", "content": {"x": 1}},
        {"id": "g", "type": "gemini", "content": [{"thought": true, "text": "hidden"}, {"inlineData": {"mimeType": "image/png"}}],
         "thoughts": "nope", "toolCalls": [3, {"args": "not json"}, {"id": "c", "name": "", "result": "plain"}]},
        {"id": "x", "type": "mystery", "content": "?"},
        {"id": "e", "type": "user", "content": []}
    ]));
    let output = parse_json(&chats_path("session-a.json"), &weird);
    let session = one(output);
    assert!(
        session
            .events
            .iter()
            .any(|event| event.kind == EventType::Unknown)
    );
    let call = session
        .events
        .iter()
        .find(|event| event.key == "g.call.1")
        .unwrap();
    assert_eq!(call.payload, Some(json!("not json")));
    assert_eq!(call.tool_name.as_deref(), Some("unknown_tool"));
    let _ = parse_json(&chats_path("x.json"), &json!([1, 2]));
    let _ = parse_json(&chats_path("x.json"), &json!({"messages": "no"}));
    let lines = jsonl(&[
        json!(1),
        json!({"$set": 3}),
        json!({"$rewindTo": 4}),
        json!({"id": "a"}),
        json!({}),
    ]);
    let session = one(parse_jsonl(&chats_path("x.jsonl"), &lines));
    assert_eq!(session.native_id, "x");
}

fn collect_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_files(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn check_invariants(path: &Path, session: &ParsedSession) {
    let mut keys = HashSet::new();
    for event in &session.events {
        assert!(
            keys.insert(event.key.clone()),
            "{path:?}: duplicate key {}",
            event.key
        );
        if matches!(event.kind, EventType::ToolCall | EventType::ToolResponse) {
            let name = event.tool_name.as_deref().unwrap_or("");
            assert!(!name.is_empty(), "{path:?}: {} lacks tool_name", event.key);
            assert_ne!(
                Some(name),
                event.tool_call_id.as_deref(),
                "{path:?}: {}",
                event.key
            );
        }
        if event.model.is_some() {
            assert!(matches!(
                event.kind,
                EventType::AssistantResponse | EventType::Reasoning
            ));
        }
        if event.starts_turn {
            assert_eq!(event.kind, EventType::UserInput);
        }
    }
}

#[test]
fn parses_the_hand_made_fixtures() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gemini/tmp/webapp/chats");
    if !root.is_dir() {
        eprintln!("fixtures absent, skipping");
        return;
    }
    let read_json = |path: &Path| -> Value {
        serde_json::from_slice(&std::fs::read(path).expect("fixture readable")).expect("json")
    };
    let main_path = root.join("session-2026-03-20T09-15-7c1e2a90.json");
    let main = one(parse_json(&main_path, &read_json(&main_path)));
    check_invariants(&main_path, &main);
    assert_eq!(main.native_id, "7c1e2a90-4b3d-4f5e-9a61-2d8f0c3b5e17");
    assert_eq!(
        main.events.iter().filter(|event| event.starts_turn).count(),
        2
    );
    let exit_codes: Vec<i64> = main
        .events
        .iter()
        .filter_map(|event| event.exit_code)
        .collect();
    assert_eq!(exit_codes, vec![1]);
    assert!(
        main.events
            .iter()
            .any(|event| event.subtype.as_deref() == Some("error"))
    );
    assert!(
        main.events
            .iter()
            .any(|event| event.text.contains("parquet"))
    );

    let sub_path = root.join("7c1e2a90-4b3d-4f5e-9a61-2d8f0c3b5e17/q7m2xk.json");
    let sub = one(parse_json(&sub_path, &read_json(&sub_path)));
    assert_eq!(
        sub.meta.parent_native_id.as_deref(),
        Some(main.native_id.as_str())
    );

    let jsonl_path = root.join("session-2026-03-21T11-00-a4f09b2c.jsonl");
    let split =
        crate::ingest::lines::split_json_lines(&std::fs::read(&jsonl_path).expect("fixture"));
    assert!(sniff_jsonl(&split.lines));
    let session = one(parse_jsonl(&jsonl_path, &split.lines));
    check_invariants(&jsonl_path, &session);
    assert_eq!(
        session.meta.summary.as_deref(),
        Some("Fix the flaky checkout test with freezegun.")
    );
    assert!(
        !session
            .events
            .iter()
            .any(|event| event.text.contains("delete")),
        "rewound away"
    );
    assert_eq!(
        session
            .events
            .iter()
            .filter(|event| event.kind == EventType::ToolCall)
            .count(),
        3
    );
}

#[test]
fn parses_the_real_corpus() {
    let roots = [
        PathBuf::from("/work/shared/corpus/gemini"),
        PathBuf::from("/work/shared/corpus/other-formats/agent-sessions/gemini"),
        PathBuf::from("/work/shared/corpus/other-formats/agtrace"),
    ];
    if !roots[0].is_dir() {
        eprintln!("corpus absent, skipping");
        return;
    }
    let mut files = Vec::new();
    for root in &roots {
        collect_files(root, &mut files);
    }
    files.retain(|path| {
        let name = path.to_string_lossy();
        name.contains("/gemini/") || name.ends_with("gemini_session.json")
    });
    files.sort();
    let mut parsed = HashMap::new();
    let mut rejected_logs = false;
    for path in &files {
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        let output = if path.extension().is_some_and(|ext| ext == "jsonl") {
            let split = crate::ingest::lines::split_json_lines(&bytes);
            assert!(sniff_jsonl(&split.lines), "{path:?} not sniffed");
            parse_jsonl(path, &split.lines)
        } else {
            let value: Value = serde_json::from_slice(&bytes).expect("valid json");
            if path.file_name().is_some_and(|name| name == "logs.json") {
                assert!(!sniff_json(&value), "logs.json must not be a session");
                rejected_logs = true;
                continue;
            }
            assert!(sniff_json(&value), "{path:?} not sniffed");
            parse_json(path, &value)
        };
        let session = one(output);
        check_invariants(path, &session);
        assert!(!session.events.is_empty(), "{path:?}");
        assert!(
            session.events.iter().any(|event| event.starts_turn),
            "{path:?}"
        );
        let counts = EventType::ALL.map(|kind| {
            session
                .events
                .iter()
                .filter(|event| event.kind == kind)
                .count()
        });
        eprintln!(
            "{:?}: {} {:?} {:?}",
            path.file_name().unwrap_or_default(),
            session.native_id,
            counts,
            session.meta
        );
        parsed.insert(session.native_id.clone(), session);
    }
    assert!(rejected_logs, "logs.json present in the corpus");

    let sub = parsed.get("xb7gtb").expect("subagent parsed");
    assert_eq!(
        sub.meta.parent_native_id.as_deref(),
        Some("b1f31681-4b57-4337-8bc5-ac73580f752a")
    );
    assert!(parsed.contains_key("b1f31681-4b57-4337-8bc5-ac73580f752a"));

    // JSONL with re-appended messages: one event per message id, tool calls included.
    let jsonl_session = parsed
        .get("c737eb36-0f7f-466b-8044-9cb1f572378f")
        .expect("jsonl session parsed");
    let replies: Vec<&str> = jsonl_session
        .events
        .iter()
        .filter(|event| event.kind == EventType::AssistantResponse)
        .map(|event| event.key.as_str())
        .collect();
    let unique: HashSet<&&str> = replies.iter().collect();
    assert_eq!(unique.len(), replies.len());
    assert!(
        jsonl_session
            .events
            .iter()
            .any(|event| event.kind == EventType::ToolCall)
    );
    assert!(
        jsonl_session
            .events
            .iter()
            .any(|event| event.kind == EventType::ToolResponse && event.exit_code == Some(1))
    );

    // Sept 2025 recorder: no toolCalls, many thoughts.
    let early = parsed
        .get("38d857b1-d6e1-40bd-9008-9cdef5fb73d2")
        .expect("early session parsed");
    assert!(
        early
            .events
            .iter()
            .any(|event| event.kind == EventType::Reasoning)
    );
    assert!(
        early
            .events
            .iter()
            .any(|event| event.turn_end == Some(TurnEnd::Terminal))
    );
}

#[test]
fn gemini_tokens_land_on_the_reply_with_thoughts_as_output_and_tool_tokens_as_input() {
    let mut message = reply("g1", "Listing.");
    message["thoughts"] = json!([{"subject": "Plan", "description": "Use ls."}]);
    message["tokens"] = json!({"input": 1000, "output": 20, "cached": 600, "thoughts": 30, "tool": 5, "total": 1055});
    let mut silent = reply("g2", "");
    silent["toolCalls"] = json!([shell_call("call-1", "ls", "a.txt")]);
    silent["tokens"] =
        json!({"input": 10, "output": 1, "cached": 0, "thoughts": 0, "tool": 0, "total": 11});
    let value = session_json(json!([user("u1", "list"), message, silent]));
    let session = one(parse_json(&chats_path("session-a.json"), &value));
    let carriers = session.usage_carriers();
    assert_eq!(
        carriers.iter().map(|(key, _)| *key).collect::<Vec<_>>(),
        vec!["g1", "g2.call.call-1"],
        "the reply, else the message's first event"
    );
    let usage = carriers[0].1;
    assert_eq!(usage.input, Some(1005));
    assert_eq!(usage.cached_input, Some(600));
    assert_eq!(usage.output, Some(50));
    assert_eq!(usage.reasoning, Some(30));
    assert_eq!(usage.total, Some(1055), "input + output is Gemini's total");
}

/// A session the A2A server (`@google/gemini-cli-a2a-server`, IDE agent mode) wrote: its
/// sessions all carry the id `a2a-server` (the file name's id slot reads `a2a-serv`), and the
/// prompt is the second text part of a user message whose first part is `<session_context>`.
fn a2a_lines() -> Vec<crate::ingest::lines::JsonLine> {
    jsonl(&[
        json!({"sessionId": "a2a-server", "projectHash": "abc123",
               "startTime": "2026-07-02T09:14:00.000Z", "lastUpdated": "2026-07-02T09:14:30.000Z",
               "kind": "main"}),
        json!({"id": "m1", "timestamp": "2026-07-02T09:14:01.000Z", "type": "user",
        "content": [
            {"text": "<session_context>\nworkspace: /src/heron\nopen files: main.py\n</session_context>"},
            {"text": "add a --dry-run flag to the importer"}
        ]}),
        json!({"id": "m2", "timestamp": "2026-07-02T09:14:05.000Z", "type": "gemini",
               "content": "Added the flag.", "thoughts": [], "model": "gemini-3-pro"}),
        json!({"$set": {"lastUpdated": "2026-07-02T09:14:30.000Z"}}),
    ])
}

#[test]
fn a2a_server_sessions_keep_their_prompt_and_a_session_id_per_file() {
    let path = chats_path("session-2026-07-02T09-14-a2a-serv.jsonl");
    let session = one(parse_jsonl(&path, &a2a_lines()));
    let prompts: Vec<&RawEvent> = session
        .events
        .iter()
        .filter(|event| event.kind == EventType::UserInput)
        .collect();
    assert_eq!(prompts.len(), 1, "{:?}", kinds(&session));
    assert_eq!(prompts[0].text, "add a --dry-run flag to the importer");
    let sent = prompts[0].payload.as_ref().expect("what was sent");
    assert!(
        sent["content"]
            .as_str()
            .is_some_and(|content| content.contains("workspace: /src/heron")),
        "the session context stays in the payload: {sent}"
    );
    // Every A2A session of a project has the id `a2a-server`: the file tells them apart.
    assert_eq!(
        session.native_id,
        "a2a-server-session-2026-07-02T09-14-a2a-serv"
    );
    let other = one(parse_jsonl(
        &chats_path("session-2026-07-02T10-01-a2a-serv.jsonl"),
        &a2a_lines(),
    ));
    assert_ne!(other.native_id, session.native_id);
}
