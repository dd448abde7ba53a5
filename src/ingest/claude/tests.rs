//! Unit tests of the claude parser: small inline records in the real format, plus the real corpus.

use super::text::{exit_code_from_text, strip_ansi, strip_tagged};
use super::user::has_tool_result;
use super::*;
use crate::model::{EventType, ParsedSession, TurnEnd};
use serde_json::json;
use std::collections::{HashMap, HashSet};

const SID: &str = "6f0c1e2a-1111-4222-8333-944455556666";

use crate::ingest::lines::numbered_lines;

fn lines(values: Vec<Value>) -> Vec<JsonLine> {
    numbered_lines(&values)
}

fn parse_values(path: &str, values: Vec<Value>) -> ParseOutput {
    parse(Path::new(path), &lines(values), None)
}

fn main_path() -> String {
    format!("/home/dev/.claude/projects/-home-dev-webapp/{SID}.jsonl")
}

fn user(uuid: &str, parent: Option<&str>, content: Value) -> Value {
    json!({"parentUuid": parent, "isSidechain": false, "userType": "external",
        "cwd": "/home/dev/webapp", "sessionId": SID, "version": "2.0.42", "gitBranch": "main",
        "type": "user", "message": {"role": "user", "content": content}, "uuid": uuid,
        "timestamp": "2025-11-17T23:50:06.058Z"})
}

fn assistant(uuid: &str, message_id: &str, block: Value, stop: Option<&str>) -> Value {
    json!({"parentUuid": null, "isSidechain": false, "cwd": "/home/dev/webapp",
        "sessionId": SID, "version": "2.0.42", "type": "assistant", "uuid": uuid,
        "timestamp": "2025-11-17T23:50:09.000Z",
        "message": {"id": message_id, "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5-20250929", "content": [block], "stop_reason": stop}})
}

fn kinds(session: &ParsedSession) -> Vec<EventType> {
    session.events.iter().map(|event| event.kind).collect()
}

#[test]
fn sniff_accepts_claude_records_and_summary_only_heads() {
    assert!(sniff(&lines(vec![user("u1", None, json!("hi"))])));
    assert!(sniff(&lines(vec![
        json!({"type": "summary", "summary": "Fix the migration", "leafUuid": "x"}),
        json!({"type": "summary", "summary": "Other", "leafUuid": "y"}),
    ])));
    assert!(sniff(&lines(vec![
        json!({"type": "queue-operation", "operation": "enqueue", "sessionId": SID}),
    ])));
}

#[test]
fn sniff_rejects_other_formats() {
    assert!(!sniff(&lines(vec![
        json!({"timestamp": "2025-01-01T00:00:00Z", "type": "session_meta", "payload": {"id": "x"}}),
    ])));
    assert!(!sniff(&lines(vec![
        json!({"uuid": "a", "sessionId": "s", "type": "user",
        "message": {"role": "user", "parts": [{"text": "hi"}]}})
    ])));
    assert!(!sniff(&lines(vec![
        json!({"sessionId": "g", "projectHash": "abc", "kind": "main"}),
        json!({"id": "g1", "type": "user", "content": [{"text": "hi"}]}),
    ])));
    assert!(!sniff(&lines(vec![json!([1, 2])])));
}

/// A lean record as converters and retrieval benchmarks write the Claude Code layout.
fn lean(kind: &str, second: u32, content: Value) -> Value {
    json!({"type": kind, "sessionId": "bench-q17", "timestamp": format!("2024-03-01T10:00:{second:02}Z"),
        "message": {"role": kind, "content": content}})
}

#[test]
fn lean_claude_shaped_records_are_read_with_ids_from_session_and_line() {
    let records = vec![
        lean("user", 1, json!("Where did I park the car on Tuesday?")),
        lean("assistant", 2, json!("In the north garage, level 3.")),
        lean(
            "user",
            3,
            json!([{"type": "text", "text": "And on Friday?"}]),
        ),
        lean(
            "assistant",
            4,
            json!([{"type": "text", "text": "Level 5."}]),
        ),
    ];
    assert!(
        sniff(&lines(records.clone())),
        "lean records are Claude Code's"
    );
    let path = "/data/bench/bench-q17.jsonl";
    let output = parse_values(path, records.clone());
    assert!(output.warnings.is_empty(), "{:?}", output.warnings);
    let [session] = output.sessions.as_slice() else {
        panic!("one session: {:?}", output.sessions.len());
    };
    assert_eq!(session.native_id, "bench-q17");
    assert_eq!(
        kinds(session),
        [
            EventType::UserInput,
            EventType::AssistantResponse,
            EventType::UserInput,
            EventType::AssistantResponse,
        ]
    );
    let keys: Vec<&str> = session
        .events
        .iter()
        .map(|event| event.key.as_str())
        .collect();
    assert_eq!(keys, ["line1", "line2:0", "line3", "line4:0"]);
    let first_two = parse_values(path, records[..2].to_vec());
    let earlier_keys: Vec<&str> = first_two.sessions[0]
        .events
        .iter()
        .map(|event| event.key.as_str())
        .collect();
    assert_eq!(earlier_keys, keys[..2], "an append keeps the earlier ids");
}

#[test]
fn assistant_blocks_split_over_lines_become_events_and_end_turn_marks_last_text() {
    let output = parse_values(
        &main_path(),
        vec![
            user("u1", None, json!("Why does the parquet export fail?")),
            assistant(
                "a1",
                "msg_1",
                json!({"type": "thinking", "thinking": "Look at the writer.", "signature": "sig"}),
                Some("end_turn"),
            ),
            assistant(
                "a2",
                "msg_1",
                json!({"type": "text", "text": "Let me check."}),
                Some("end_turn"),
            ),
            assistant(
                "a3",
                "msg_1",
                json!({"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "src/export.rs"}}),
                Some("end_turn"),
            ),
            assistant(
                "a4",
                "msg_1",
                json!({"type": "text", "text": "The schema is stale."}),
                Some("end_turn"),
            ),
        ],
    );
    let session = &output.sessions[0];
    assert_eq!(session.native_id, SID);
    assert_eq!(
        kinds(session),
        vec![
            EventType::UserInput,
            EventType::Reasoning,
            EventType::AssistantResponse,
            EventType::ToolCall,
            EventType::AssistantResponse
        ]
    );
    let events = &session.events;
    assert!(events[0].starts_turn);
    assert_eq!(events[0].originating_model, None);
    assert_eq!(events[1].key, "a1:0");
    assert_eq!(
        events[1].model.as_deref(),
        Some("claude-sonnet-4-5-20250929")
    );
    assert_eq!(events[2].turn_end, None);
    assert_eq!(events[3].text, r#"Read(file_path="src/export.rs")"#);
    assert_eq!(
        events[3].payload,
        Some(json!({"file_path": "src/export.rs"}))
    );
    assert_eq!(events[3].model, None);
    assert_eq!(
        events[3].originating_model.as_deref(),
        Some("claude-sonnet-4-5-20250929")
    );
    assert_eq!(events[4].turn_end, Some(TurnEnd::Terminal));
    assert_eq!(
        session.meta.model.as_deref(),
        Some("claude-sonnet-4-5-20250929")
    );
    assert_eq!(session.meta.cwd.as_deref(), Some("/home/dev/webapp"));
    assert_eq!(session.meta.git_branch.as_deref(), Some("main"));
    assert_eq!(session.meta.harness_version.as_deref(), Some("2.0.42"));
    assert!(session.meta.started_at.is_some());
}

#[test]
fn repeated_records_and_blocks_are_emitted_once() {
    let text = json!({"type": "text", "text": "Done with the migration."});
    let output = parse_values(
        &main_path(),
        vec![
            user("u1", None, json!("run the migration")),
            assistant("a1", "msg_1", text.clone(), None),
            // a resume replays the same record
            user("u1", None, json!("run the migration")),
            assistant("a1", "msg_1", text.clone(), None),
            // the same block of the same API message under another uuid
            assistant("a9", "msg_1", text, None),
        ],
    );
    let session = &output.sessions[0];
    assert_eq!(
        kinds(session),
        vec![EventType::UserInput, EventType::AssistantResponse]
    );
    assert!(output.warnings.is_empty());
}

#[test]
fn replays_under_new_uuids_are_not_new_events() {
    let answer = |uuid: &str, parent: &str, message_id: &str, block: Value| {
        let mut record = assistant(uuid, message_id, block, None);
        record["parentUuid"] = json!(parent);
        record
    };
    let call = json!({"type": "tool_use", "id": "toolu_1", "name": "Bash",
        "input": {"command": "make migrate"}});
    let result = json!([{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}]);
    let output = parse_values(
        &main_path(),
        vec![
            user("u1", None, json!("run the migration")),
            answer("a1", "u1", "msg_1", call.clone()),
            user("r1", Some("a1"), result.clone()),
            // a compaction/resume replay re-keys every record of the same exchange
            user("u1-replay", None, json!("run the migration")),
            answer("a1-replay", "u1-replay", "msg_1", call),
            user("r1-replay", Some("a1-replay"), result),
            user("u2", Some("r1-replay"), json!("run the migration")),
        ],
    );
    let session = &output.sessions[0];
    assert_eq!(
        kinds(session),
        vec![
            EventType::UserInput,
            EventType::ToolCall,
            EventType::ToolResponse,
            EventType::UserInput,
        ],
        "only the first exchange and the genuinely new prompt remain"
    );
}

#[test]
fn tool_results_resolve_names_and_exit_codes() {
    let mut failing = user(
        "u2",
        Some("a1"),
        json!([{"type": "tool_result", "tool_use_id": "toolu_1", "is_error": true,
            "content": "Exit code 1\nerror: relation \"users\" does not exist"}]),
    );
    failing["toolUseResult"] =
        json!("Error: Exit code 1\nerror: relation \"users\" does not exist");
    let mut ok = user(
        "u3",
        Some("a2"),
        json!([{"type": "tool_result", "tool_use_id": "toolu_2",
            "content": [{"type": "text", "text": "migrated"}, {"type": "image", "source": {}}]}]),
    );
    ok["toolUseResult"] = json!({"stdout": "migrated", "stderr": "", "interrupted": false,
        "isImage": false, "exitCode": 0, "originalFile": "x".repeat(500)});
    let output = parse_values(
        &main_path(),
        vec![
            assistant(
                "a1",
                "msg_1",
                json!({"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "rake db:migrate"}}),
                Some("tool_use"),
            ),
            failing,
            assistant(
                "a2",
                "msg_2",
                json!({"type": "tool_use", "id": "toolu_2", "name": "Bash", "input": "{\"command\":\"rake db:migrate\"}"}),
                Some("tool_use"),
            ),
            ok,
            user(
                "u4",
                None,
                json!([{"type": "tool_result", "tool_use_id": "toolu_gone", "content": "?"}]),
            ),
        ],
    );
    let events = &output.sessions[0].events;
    let failed = &events[1];
    assert_eq!(failed.kind, EventType::ToolResponse);
    assert_eq!(failed.key, "u2:0");
    assert_eq!(failed.tool_name.as_deref(), Some("Bash"));
    assert_eq!(failed.tool_call_id.as_deref(), Some("toolu_1"));
    assert_eq!(failed.exit_code, Some(1));
    assert_eq!(failed.payload, Some(json!({"is_error": true})));
    assert!(!failed.starts_turn);
    // JSON-string arguments are parsed
    assert_eq!(
        events[2].payload,
        Some(json!({"command": "rake db:migrate"}))
    );
    let succeeded = &events[3];
    assert_eq!(succeeded.exit_code, Some(0));
    assert_eq!(succeeded.text, "migrated\n[image]");
    let metadata = &succeeded.payload.as_ref().unwrap()["metadata"];
    assert_eq!(metadata["stdout"], json!("migrated"));
    assert!(metadata.get("originalFile").is_none());
    assert_eq!(events[4].tool_name.as_deref(), Some("unknown"));
}

#[test]
fn injected_user_content_is_not_user_input() {
    let mut meta = user(
        "m1",
        None,
        json!("Please analyze this codebase and create a CLAUDE.md"),
    );
    meta["isMeta"] = json!(true);
    let mut compact = user(
        "c1",
        None,
        json!("This session is being continued from a previous conversation."),
    );
    compact["isCompactSummary"] = json!(true);
    let output = parse_values(
        &main_path(),
        vec![
            meta,
            user(
                "u1",
                None,
                json!(
                    "<local-command-caveat>Caveat: The messages below were generated by the user while running local commands.</local-command-caveat>"
                ),
            ),
            user(
                "u2",
                None,
                json!(
                    "<local-command-stdout>\u{1b}[1mSet model to opus\u{1b}[22m</local-command-stdout>"
                ),
            ),
            user(
                "u3",
                None,
                json!(
                    "<task-notification><task-id>b1</task-id><status>completed</status></task-notification>"
                ),
            ),
            user(
                "u4",
                None,
                json!([{"type": "text", "text": "<system-reminder>The todo list is empty.</system-reminder>"}]),
            ),
            user(
                "u5",
                None,
                json!([
                    {"type": "text", "text": "<ide_selection>The user selected lines 1 to 2 of db/migrate.rb</ide_selection>"},
                    {"type": "text", "text": "Why is this migration slow?"},
                    {"type": "image", "source": {"type": "base64", "data": "AAAA"}}
                ]),
            ),
            compact,
            user(
                "u6",
                None,
                json!(
                    "fix the flaky test<system-reminder>remember the todo list</system-reminder>"
                ),
            ),
        ],
    );
    let events = &output.sessions[0].events;
    let summary: Vec<(EventType, Option<&str>, bool)> = events
        .iter()
        .map(|event| (event.kind, event.subtype.as_deref(), event.starts_turn))
        .collect();
    assert_eq!(
        summary,
        vec![
            (EventType::System, Some("meta"), false),
            (EventType::System, Some("local_command_caveat"), false),
            (EventType::Runtime, Some("local_command_output"), false),
            (EventType::System, Some("task_notification"), false),
            (EventType::System, Some("system_reminder"), false),
            (EventType::System, Some("ide_context"), false),
            (EventType::UserInput, None, true),
            (EventType::Compaction, Some("compact_summary"), false),
            (EventType::UserInput, None, true),
        ]
    );
    assert_eq!(events[2].text, "Set model to opus");
    assert_eq!(events[5].key, "u5:0");
    assert_eq!(events[6].key, "u5");
    assert_eq!(events[6].text, "Why is this migration slow?\n\n[image]");
    assert_eq!(events[8].text, "fix the flaky test");
}

#[test]
fn slash_commands_the_user_typed_are_user_input() {
    let output = parse_values(
        &main_path(),
        vec![
            user(
                "u1",
                None,
                json!(
                    "<command-name>/review</command-name>\n<command-message>review</command-message>\n<command-args>the parquet writer</command-args>"
                ),
            ),
            user(
                "u2",
                None,
                json!(
                    "<command-name>clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>"
                ),
            ),
            user("u3", None, json!("<bash-input>cargo test</bash-input>")),
            user(
                "u4",
                None,
                json!("<bash-stdout>ok</bash-stdout><bash-stderr></bash-stderr>"),
            ),
        ],
    );
    let events = &output.sessions[0].events;
    assert_eq!(events[0].kind, EventType::UserInput);
    assert!(events[0].starts_turn);
    assert_eq!(events[0].text, "/review the parquet writer");
    assert_eq!(events[1].text, "/clear");
    assert_eq!(events[2].text, "!cargo test");
    assert_eq!(events[3].kind, EventType::Runtime);
    assert_eq!(events[3].text, "ok");
}

#[test]
fn interrupts_are_terminal_runtime_events() {
    let output = parse_values(
        &main_path(),
        vec![
            user("u1", None, json!("run the flaky test")),
            user(
                "u2",
                None,
                json!([
                    {"type": "tool_result", "tool_use_id": "toolu_9", "is_error": true, "content": "The user doesn't want to proceed with this tool use."},
                    {"type": "text", "text": "[Request interrupted by user for tool use]"}
                ]),
            ),
            user(
                "u3",
                None,
                json!([{"type": "text", "text": "[Request interrupted by user]"}]),
            ),
        ],
    );
    let events = &output.sessions[0].events;
    assert_eq!(events[1].kind, EventType::ToolResponse);
    assert_eq!(events[1].exit_code, None);
    for event in &events[2..] {
        assert_eq!(event.kind, EventType::Runtime);
        assert_eq!(event.turn_end, Some(TurnEnd::Terminal));
        assert!(!event.starts_turn);
    }
}

#[test]
fn system_records_map_to_compaction_runtime_and_system() {
    let system = |uuid: &str, subtype: &str, extra: Value| {
        let mut record = json!({"type": "system", "subtype": subtype, "uuid": uuid,
            "sessionId": SID, "isSidechain": false, "timestamp": "2025-12-16T18:27:28.381Z"});
        if let (Some(record), Some(extra)) = (record.as_object_mut(), extra.as_object()) {
            record.extend(extra.clone());
        }
        record
    };
    let mut api_error_message = assistant(
        "a1",
        "synthetic-1",
        json!({"type": "text", "text": "API Error: Connection error."}),
        Some("stop_sequence"),
    );
    api_error_message["isApiErrorMessage"] = json!(true);
    api_error_message["message"]["model"] = json!("<synthetic>");
    let output = parse_values(
        &main_path(),
        vec![
            system(
                "s1",
                "compact_boundary",
                json!({"content": "Conversation compacted", "compactMetadata": {"trigger": "auto", "preTokens": 155328}}),
            ),
            system(
                "s2",
                "turn_duration",
                json!({"durationMs": 2500, "messageCount": 7}),
            ),
            system(
                "s3",
                "api_error",
                json!({"level": "error", "cause": {"code": "ECONNRESET"}, "retryAttempt": 1, "maxRetries": 10}),
            ),
            system(
                "s4",
                "away_summary",
                json!({"content": "Fixed the migration."}),
            ),
            system(
                "s5",
                "local_command",
                json!({"content": "<command-name>/model</command-name>\n<command-args>opus</command-args>"}),
            ),
            api_error_message,
        ],
    );
    let events = &output.sessions[0].events;
    assert_eq!(events[0].kind, EventType::Compaction);
    assert_eq!(events[0].subtype.as_deref(), Some("compact_boundary"));
    assert_eq!(
        events[0].payload,
        Some(json!({"trigger": "auto", "preTokens": 155328}))
    );
    assert_eq!(events[1].kind, EventType::Runtime);
    assert_eq!(events[1].turn_end, Some(TurnEnd::Normal));
    assert_eq!(events[2].kind, EventType::Runtime);
    assert_eq!(events[2].text, "API error: ECONNRESET (retry 1/10)");
    assert_eq!(events[2].turn_end, None);
    assert_eq!(events[3].kind, EventType::System);
    assert_eq!(events[3].text, "Fixed the migration.");
    assert_eq!(events[4].kind, EventType::Runtime);
    assert!(!events[4].starts_turn);
    assert_eq!(events[4].text, "/model opus");
    assert_eq!(events[5].kind, EventType::Runtime);
    assert_eq!(events[5].turn_end, Some(TurnEnd::Terminal));
    assert_eq!(output.sessions[0].meta.model, None);
}

#[test]
fn bookkeeping_is_skipped_and_unknown_records_are_kept() {
    let output = parse_values(
        &main_path(),
        vec![
            json!({"type": "file-history-snapshot", "messageId": "m", "snapshot": {}}),
            json!({"type": "queue-operation", "operation": "enqueue", "content": "hi", "sessionId": SID}),
            json!({"type": "permission-mode", "permissionMode": "default", "sessionId": SID}),
            json!({"type": "last-prompt", "lastPrompt": "hi", "sessionId": SID}),
            user("u1", None, json!("hi")),
            json!({"type": "hologram", "uuid": "h1", "sessionId": SID, "isSidechain": false, "data": 1}),
            json!({"uuid": "h2", "sessionId": SID, "note": "no type"}),
        ],
    );
    let events = &output.sessions[0].events;
    assert_eq!(events.len(), 3);
    assert_eq!(events[1].kind, EventType::Unknown);
    assert_eq!(events[1].key, "h1");
    assert_eq!(events[1].payload.as_ref().unwrap()["data"], json!(1));
    assert_eq!(events[2].kind, EventType::Unknown);
    assert_eq!(events[2].key, "line7");
}

#[test]
fn inline_sidechains_become_linked_subagent_sessions() {
    let sidechain = |uuid: &str, parent: Option<&str>, kind: &str, message: Value| {
        json!({"parentUuid": parent, "isSidechain": true, "sessionId": SID, "version": "1.0.24",
            "cwd": "/home/dev/webapp", "type": kind, "uuid": uuid, "message": message,
            "timestamp": "2025-06-14T23:46:00.000Z"})
    };
    let output = parse_values(
        &main_path(),
        vec![
            user("u1", None, json!("find every migration")),
            assistant(
                "a1",
                "msg_1",
                json!({"type": "tool_use", "id": "toolu_t", "name": "Task",
                "input": {"description": "Find migrations", "prompt": "List the migration files", "subagent_type": "Explore"}}),
                None,
            ),
            sidechain(
                "s1",
                None,
                "user",
                json!({"role": "user", "content": "List the migration files"}),
            ),
            sidechain(
                "s2",
                Some("s1"),
                "assistant",
                json!({"id": "msg_s", "role": "assistant", "model": "claude-haiku-4-5", "content": [{"type": "text", "text": "Found 3."}], "stop_reason": "end_turn"}),
            ),
            sidechain(
                "t1",
                None,
                "user",
                json!({"role": "user", "content": "Warmup"}),
            ),
            sidechain(
                "t2",
                Some("t1"),
                "assistant",
                json!({"id": "msg_t", "role": "assistant", "model": "claude-haiku-4-5", "content": [{"type": "text", "text": "Ready."}]}),
            ),
            user(
                "u2",
                Some("a1"),
                json!([{"type": "tool_result", "tool_use_id": "toolu_t", "content": "Found 3."}]),
            ),
        ],
    );
    assert_eq!(output.sessions.len(), 3);
    let main = &output.sessions[0];
    assert_eq!(main.events.len(), 3);
    assert_eq!(
        main.events.iter().filter(|event| event.starts_turn).count(),
        1
    );
    assert_eq!(main.events[2].tool_name.as_deref(), Some("Task"));
    let first = &output.sessions[1];
    assert_eq!(first.native_id, format!("{SID}-sidechain-s1"));
    assert_eq!(first.meta.parent_native_id.as_deref(), Some(SID));
    assert_eq!(first.meta.agent_name.as_deref(), Some("Explore"));
    assert_eq!(first.meta.title.as_deref(), Some("Find migrations"));
    assert_eq!(
        kinds(first),
        vec![EventType::UserInput, EventType::AssistantResponse]
    );
    assert!(first.events[0].starts_turn);
    assert_eq!(first.events[1].turn_end, Some(TurnEnd::Terminal));
    let second = &output.sessions[2];
    assert_eq!(second.native_id, format!("{SID}-sidechain-t1"));
    assert_eq!(second.meta.agent_name, None);
    assert_eq!(second.events[0].text, "Warmup");
}

#[test]
fn old_layout_agent_file_is_a_subagent_of_its_session() {
    let record = |uuid: &str, parent: Option<&str>, kind: &str, message: Value| {
        json!({"parentUuid": parent, "isSidechain": true, "sessionId": SID, "agentId": "c8d9b115",
            "slug": "humble-doodling-wolf", "type": kind, "uuid": uuid, "message": message})
    };
    let output = parse_values(
        "/home/dev/.claude/projects/-home-dev-webapp/agent-c8d9b115.jsonl",
        vec![
            record(
                "s1",
                None,
                "user",
                json!({"role": "user", "content": [{"type": "text", "text": "Explore the parquet writer"}]}),
            ),
            record(
                "s2",
                Some("s1"),
                "assistant",
                json!({"id": "m", "role": "assistant", "model": "claude-haiku-4-5", "content": [{"type": "tool_use", "id": "toolu_g", "name": "Glob", "input": {"pattern": "**/*.rs"}}]}),
            ),
            record(
                "s3",
                Some("s2"),
                "user",
                json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_g", "content": "src/parquet.rs"}]}),
            ),
        ],
    );
    assert_eq!(output.sessions.len(), 1);
    let session = &output.sessions[0];
    assert_eq!(session.native_id, "agent-c8d9b115");
    assert_eq!(session.meta.parent_native_id.as_deref(), Some(SID));
    assert_eq!(session.meta.slug.as_deref(), Some("humble-doodling-wolf"));
    assert_eq!(
        kinds(session),
        vec![
            EventType::UserInput,
            EventType::ToolCall,
            EventType::ToolResponse
        ]
    );
    assert!(session.events[0].starts_turn);
    assert_eq!(session.events[0].subtype.as_deref(), Some("agent_prompt"));
    assert_eq!(session.events[2].tool_name.as_deref(), Some("Glob"));
}

#[test]
fn new_layout_subagent_takes_name_and_title_from_the_sidecar() {
    let sidecar = json!({"agentType": "general-purpose", "description": "Research the flaky test"});
    let path = format!("/p/-home-dev-webapp/{SID}/subagents/agent-a4ca7529859c158c2.jsonl");
    let values = vec![
        json!({"parentUuid": null, "isSidechain": true, "agentId": "a4ca7529859c158c2",
        "type": "user", "uuid": "s1", "message": {"role": "user", "content": "Why is the test flaky?"}}),
    ];
    let output = parse(Path::new(&path), &lines(values), Some(&sidecar));
    let session = &output.sessions[0];
    assert_eq!(session.native_id, "agent-a4ca7529859c158c2");
    // no sessionId on the record: the directory names the parent
    assert_eq!(session.meta.parent_native_id.as_deref(), Some(SID));
    assert_eq!(session.meta.agent_name.as_deref(), Some("general-purpose"));
    assert_eq!(
        session.meta.title.as_deref(),
        Some("Research the flaky test")
    );
}

#[test]
fn titles_prefer_custom_then_ai_then_own_summary() {
    let base = vec![
        json!({"type": "summary", "summary": "Another session's work", "leafUuid": "not-here"}),
        user("u1", None, json!("fix the migration")),
        json!({"type": "summary", "summary": "Migration fix", "leafUuid": "u1"}),
    ];
    let output = parse_values(&main_path(), base.clone());
    let meta = &output.sessions[0].meta;
    assert_eq!(meta.title.as_deref(), Some("Migration fix"));
    assert_eq!(meta.summary.as_deref(), Some("Migration fix"));

    let mut with_titles = base;
    with_titles.push(json!({"type": "ai-title", "aiTitle": "AI title", "sessionId": SID}));
    let output = parse_values(&main_path(), with_titles.clone());
    assert_eq!(output.sessions[0].meta.title.as_deref(), Some("AI title"));
    with_titles
        .push(json!({"type": "custom-title", "customTitle": "migration-work", "sessionId": SID}));
    with_titles.push(json!({"type": "ai-title", "aiTitle": "Later AI title", "sessionId": SID}));
    let output = parse_values(&main_path(), with_titles);
    assert_eq!(
        output.sessions[0].meta.title.as_deref(),
        Some("migration-work")
    );
    assert_eq!(
        output.sessions[0].meta.summary.as_deref(),
        Some("Migration fix")
    );

    let summaries_only = parse_values(
        &main_path(),
        vec![json!({"type": "summary", "summary": "Elsewhere", "leafUuid": "x"})],
    );
    assert!(summaries_only.sessions.is_empty());
}

#[test]
fn attachments_queued_prompts_and_hooks() {
    let attachment = |uuid: &str, body: Value| json!({"type": "attachment", "uuid": uuid, "sessionId": SID, "isSidechain": false, "attachment": body});
    let output = parse_values(
        &main_path(),
        vec![
            user("u1", None, json!("export to parquet")),
            attachment(
                "t1",
                json!({"type": "queued_command", "prompt": "and check the flaky test", "commandMode": "prompt", "origin": {"kind": "human"}}),
            ),
            attachment(
                "t2",
                json!({"type": "queued_command", "prompt": "<task-notification>done</task-notification>", "commandMode": "task-notification"}),
            ),
            attachment(
                "t3",
                json!({"type": "hook_success", "hookName": "PostToolUse:Bash", "content": "", "stdout": "lint ok\n", "exitCode": 0}),
            ),
            attachment(
                "t4",
                json!({"type": "skill_listing", "content": "- review: review code"}),
            ),
        ],
    );
    let events = &output.sessions[0].events;
    assert_eq!(events[1].kind, EventType::UserInput);
    assert!(!events[1].starts_turn);
    assert_eq!(events[1].text, "and check the flaky test");
    assert_eq!(events[2].kind, EventType::System);
    assert_eq!(events[3].kind, EventType::Runtime);
    assert_eq!(events[3].text, "PostToolUse:Bash: lint ok");
    assert_eq!(events[3].exit_code, Some(0));
    assert_eq!(events[4].kind, EventType::System);
    assert_eq!(events[4].subtype.as_deref(), Some("skill_listing"));
}

#[test]
fn reasoning_without_text_is_marked_not_leaked() {
    let output = parse_values(
        &main_path(),
        vec![
            assistant(
                "a1",
                "m1",
                json!({"type": "thinking", "thinking": "", "signature": "EqQBCkYIBxgCKkB"}),
                None,
            ),
            assistant(
                "a2",
                "m1",
                json!({"type": "redacted_thinking", "data": "EmwKAhgBEgy"}),
                None,
            ),
        ],
    );
    let events = &output.sessions[0].events;
    assert_eq!(events[0].text, "[encrypted reasoning]");
    assert_eq!(events[1].kind, EventType::Reasoning);
    assert_eq!(events[1].text, "[redacted reasoning]");
}

#[test]
fn other_session_ids_in_the_file_are_recorded_as_fork_origin() {
    let mut old = user("u0", None, json!("earlier prompt"));
    old["sessionId"] = json!("0000aaaa-0000-4000-8000-000000000000");
    let output = parse_values(&main_path(), vec![old, user("u1", None, json!("continue"))]);
    assert_eq!(output.sessions.len(), 1);
    assert_eq!(output.sessions[0].native_id, SID);
    assert_eq!(
        output.sessions[0].meta.forked_from_native_id.as_deref(),
        Some("0000aaaa-0000-4000-8000-000000000000")
    );
}

#[test]
fn malformed_records_warn_and_never_panic() {
    let output = parse_values(
        &main_path(),
        vec![
            json!("just a string"),
            json!({"type": "user", "uuid": "x1", "sessionId": SID}),
            json!({"type": "assistant", "uuid": "x2", "sessionId": SID, "message": {"content": 5}}),
            json!({"type": "user", "uuid": "x3", "sessionId": SID, "message": {"content": [{"type": "tool_result"}, 7, {"no": "type"}]}}),
            json!({"type": "system", "uuid": "x4", "sessionId": SID}),
            json!({"type": "attachment", "uuid": "x5", "sessionId": SID, "attachment": "odd"}),
            json!({"type": "summary", "summary": 3}),
            json!({"type": "custom-title"}),
            json!({"type": "user", "uuid": "x6", "isSidechain": true, "parentUuid": "x6", "message": {"content": "loop"}}),
        ],
    );
    assert_eq!(output.warnings.len(), 3);
    assert!(!output.sessions.is_empty());
    assert!(parse_values("", vec![]).sessions.is_empty());
}

#[test]
fn exit_codes_and_ansi_helpers() {
    assert_eq!(
        exit_code_from_text("Error: Exit code 127\npytest: not found"),
        Some(127)
    );
    assert_eq!(exit_code_from_text("Exit code 2"), Some(2));
    assert_eq!(exit_code_from_text("exit status 1"), None);
    assert_eq!(
        strip_ansi("\u{1b}[1mbold\u{1b}[22m \u{1b}]0;title\u{7}x"),
        "bold x"
    );
    assert_eq!(strip_tagged("a<r>b</r>c<r>d", "r"), "ac");
}

/// Every real Claude transcript in the shared corpus parses and satisfies the contract.
#[test]
fn corpus_files_parse_and_satisfy_invariants() {
    let roots = [
        Path::new("/work/shared/corpus/claude").to_path_buf(),
        Path::new("/work/shared/corpus/other-formats/agtrace").to_path_buf(),
    ];
    if !roots[0].is_dir() {
        eprintln!("corpus absent, skipping");
        return;
    }
    let mut files = Vec::new();
    let mut stack: Vec<std::path::PathBuf> = roots.to_vec();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().and_then(|ext| ext.to_str()) == Some("jsonl")
                && (path.starts_with(&roots[0])
                    || path
                        .file_name()
                        .and_then(|name| name.to_str())
                        .is_some_and(|name| name.starts_with("claude_")))
            {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(
        files.len() >= 9,
        "expected the corpus files, found {files:?}"
    );
    let mut subagents = 0;
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let split = crate::ingest::lines::split_json_lines(&bytes);
        let head = &split.lines[..split.lines.len().min(10)];
        assert!(sniff(head), "sniff failed for {path:?}");
        let sidecar: Option<Value> = std::fs::read(path.with_extension("meta.json"))
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok());
        let output = parse(path, &split.lines, sidecar.as_ref());
        assert!(!output.sessions.is_empty(), "no sessions in {path:?}");
        let records: HashMap<u64, &Value> = split
            .lines
            .iter()
            .map(|line| (line.number, &line.value))
            .collect();
        let mut all_keys = HashSet::new();
        for session in &output.sessions {
            let context = format!("{path:?} {}", session.native_id);
            assert!(!session.events.is_empty(), "{context}: empty session");
            let is_subagent = session.native_id.starts_with("agent-")
                || session.native_id.contains("-sidechain-");
            if is_subagent {
                subagents += 1;
                assert!(
                    session.meta.parent_native_id.is_some(),
                    "{context}: no parent"
                );
                assert!(
                    session.events[0].starts_turn || session.events[0].kind != EventType::UserInput
                );
            }
            let mut last_line = 0;
            for event in &session.events {
                assert!(
                    event.line >= last_line,
                    "{context}: events out of file order"
                );
                last_line = event.line;
                assert!(
                    all_keys.insert(event.key.clone()),
                    "{context}: duplicate key {}",
                    event.key
                );
                assert!(
                    event
                        .key
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "_.:-".contains(c)),
                    "{context}: key charset {}",
                    event.key
                );
                let record = records[&event.line];
                if event.starts_turn {
                    assert_eq!(event.kind, EventType::UserInput, "{context}");
                }
                if event.kind == EventType::UserInput {
                    let text = event.text.trim_start();
                    for injected in [
                        "<local-command",
                        "<system-reminder>",
                        "<task-notification>",
                        "<command-name>",
                        "<ide_",
                        "Caveat:",
                        "This session is being continued",
                        "[Request interrupted",
                    ] {
                        assert!(
                            !text.starts_with(injected),
                            "{context}: injected user_input {text:.80}"
                        );
                    }
                    assert_ne!(record.get("isMeta"), Some(&json!(true)), "{context}");
                    assert_ne!(
                        record.get("isCompactSummary"),
                        Some(&json!(true)),
                        "{context}"
                    );
                    assert!(
                        !has_tool_result(&record["message"]["content"]),
                        "{context}: tool_result as user_input"
                    );
                }
                if matches!(event.kind, EventType::ToolCall | EventType::ToolResponse) {
                    let name = event.tool_name.as_deref().unwrap_or_default();
                    assert!(!name.is_empty(), "{context}: tool without name");
                    assert!(
                        !name.starts_with("toolu_") && !name.starts_with("call_"),
                        "{context}: {name}"
                    );
                    assert_ne!(event.tool_name, event.tool_call_id, "{context}");
                    assert!(event.tool_call_id.is_some(), "{context}");
                }
                if event.model.is_some() {
                    assert!(
                        matches!(
                            event.kind,
                            EventType::AssistantResponse | EventType::Reasoning
                        ),
                        "{context}"
                    );
                }
                if event.turn_end == Some(TurnEnd::Terminal) {
                    assert!(
                        matches!(
                            event.kind,
                            EventType::AssistantResponse | EventType::Runtime
                        ),
                        "{context}"
                    );
                }
                if record.get("isSidechain") == Some(&json!(true)) {
                    assert!(is_subagent, "{context}: sidechain record in parent");
                }
            }
        }
    }
    assert!(
        subagents >= 3,
        "expected sub-agent sessions, found {subagents}"
    );
}

fn with_usage(
    mut record: Value,
    input: i64,
    cache_write: i64,
    cache_read: i64,
    output: i64,
) -> Value {
    record["message"]["usage"] = json!({"input_tokens": input,
        "cache_creation_input_tokens": cache_write, "cache_read_input_tokens": cache_read,
        "output_tokens": output, "service_tier": "standard"});
    record
}

#[test]
fn usage_of_a_message_repeated_over_records_counts_once_with_its_final_counts() {
    let output = parse_values(
        &main_path(),
        vec![
            user("u1", None, json!("fix the build")),
            with_usage(
                assistant(
                    "a1",
                    "msg_1",
                    json!({"type": "thinking", "thinking": "hmm"}),
                    None,
                ),
                10,
                100,
                1000,
                5,
            ),
            with_usage(
                assistant(
                    "a2",
                    "msg_1",
                    json!({"type": "text", "text": "on it"}),
                    None,
                ),
                10,
                100,
                1000,
                7,
            ),
            with_usage(
                assistant(
                    "a3",
                    "msg_1",
                    json!({"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "make"}}),
                    Some("tool_use"),
                ),
                10,
                100,
                1000,
                9,
            ),
            with_usage(
                assistant(
                    "a4",
                    "msg_2",
                    json!({"type": "text", "text": "done"}),
                    Some("end_turn"),
                ),
                3,
                0,
                1110,
                2,
            ),
        ],
    );
    let session = &output.sessions[0];
    let carriers = session.usage_carriers();
    assert_eq!(carriers.len(), 2, "one usage per message id: {carriers:?}");
    assert_eq!(carriers[0].0, "a3:0", "on the message's last event");
    let first = carriers[0].1;
    assert_eq!(first.input, Some(1110), "fresh + cache write + cache read");
    assert_eq!(first.cached_input, Some(1000));
    assert_eq!(first.output, Some(9), "the last record's final count");
    assert_eq!(
        first.reasoning, None,
        "Claude does not report reasoning tokens"
    );
    assert_eq!(first.total, Some(1119));
    assert_eq!(carriers[1].1.total, Some(1115));
}

#[test]
fn a_file_whose_records_name_no_session_yields_none() {
    let mut journal_record = user("u1", None, json!("run the workflow step"));
    journal_record["sessionId"] = json!("");
    let output = parse_values(
        "/home/dev/.claude/projects/-p/s/subagents/workflows/wf_1/journal.jsonl",
        vec![journal_record.clone(), {
            let mut other = journal_record;
            other["uuid"] = json!("u2");
            other
        }],
    );
    assert!(output.sessions.is_empty(), "no session with a made-up id");
    assert_eq!(output.warnings.len(), 1);
    assert!(output.warnings[0].message.contains("2 records skipped"));
}

#[test]
fn records_with_an_empty_session_id_never_create_a_session() {
    let mut stray = user("u2", None, json!("stray"));
    stray["sessionId"] = json!("  ");
    stray["isSidechain"] = json!(true);
    let output = parse_values(&main_path(), vec![user("u1", None, json!("hello")), stray]);
    for session in &output.sessions {
        assert!(!session.native_id.trim().is_empty());
        assert!(
            session
                .meta
                .parent_native_id
                .as_deref()
                .is_none_or(|parent| !parent.trim().is_empty()),
            "no parent link to an empty id"
        );
    }
}

/// Claude Code 2.1.2xx: a tool runs while its API message still streams, so the message's
/// later records follow the results of its first calls (issue #48).
#[test]
fn results_between_records_of_one_streaming_message_are_kept() {
    let with_parent = |mut record: Value, parent: &str| {
        record["parentUuid"] = json!(parent);
        record
    };
    let result = |uuid: &str, parent: &str, id: &str| {
        let mut record = user(
            uuid,
            Some(parent),
            json!([{"type": "tool_result", "tool_use_id": id, "content": "ok"}]),
        );
        record["sourceToolAssistantUUID"] = json!(parent);
        record
    };
    let values = vec![
        user("u1", None, json!("read both files")),
        with_parent(
            assistant(
                "a1",
                "msg_1",
                json!({"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "a"}}),
                Some("tool_use"),
            ),
            "u1",
        ),
        result("r1", "a1", "toolu_1"),
        with_parent(
            assistant(
                "a2",
                "msg_1",
                json!({"type": "tool_use", "id": "toolu_2", "name": "Bash", "input": {"command": "ls"}}),
                None,
            ),
            "r1",
        ),
        result("r2", "a2", "toolu_2"),
        // A resume replays a result under a new uuid: it counts once.
        result("r2-copy", "a2", "toolu_2"),
    ];
    let output = parse_values(&main_path(), values);
    let session = &output.sessions[0];
    let results: Vec<_> = session
        .events
        .iter()
        .filter(|event| event.kind == EventType::ToolResponse)
        .map(|event| event.tool_call_id.as_deref().unwrap_or_default())
        .collect();
    assert_eq!(results, ["toolu_1", "toolu_2"]);
}

/// Records of 2.1.2xx that carry no conversation (`mode`, `ai-title`, `bridge-session`,
/// `file-history-delta`, `fork-context-ref`, `frame-link`) add no event; user records the
/// harness wrote (`origin.kind` `peer` / `task-notification`) are `system`, typed ones
/// (`human`) prompts; a record type nobody knows is an `unknown` event named by its type.
#[test]
fn new_record_types_and_origins() {
    let mut peer = user(
        "u2",
        Some("u1"),
        json!(
            "Another Claude session sent a message:\n<cross-session-message from=\"uds:/run/x.sock\">build done</cross-session-message>"
        ),
    );
    peer["origin"] = json!({"kind": "peer"});
    peer["promptSource"] = json!("system");
    let mut typed = user("u1", None, json!("是否要改用 AgentX?"));
    typed["origin"] = json!({"kind": "human"});
    typed["promptSource"] = json!("typed");
    let values = vec![
        json!({"type": "mode", "mode": "normal", "sessionId": SID}),
        json!({"type": "ai-title", "aiTitle": "AgentX 路徑優化", "sessionId": SID}),
        json!({"type": "bridge-session", "sessionId": SID, "bridgeSessionId": "cse_01", "lastSequenceNum": 0}),
        typed,
        json!({"type": "file-history-delta", "messageId": "m1", "snapshotMessageId": "m0",
               "trackingPath": "/w/CLAUDE.md", "backup": {"backupFileName": null, "version": 1},
               "timestamp": "2025-11-17T23:50:07.000Z"}),
        json!({"type": "frame-link", "path": "/tmp/x.html", "frameUrl": "https://claude.ai/code/artifact/1",
               "title": "gates", "sessionId": SID}),
        peer,
        json!({"type": "hologram-sync", "sessionId": SID, "uuid": "h1",
               "timestamp": "2025-11-17T23:50:08.000Z"}),
    ];
    let output = parse_values(&main_path(), values);
    let session = &output.sessions[0];
    assert_eq!(session.meta.title.as_deref(), Some("AgentX 路徑優化"));
    let summary: Vec<(EventType, Option<&str>)> = session
        .events
        .iter()
        .map(|event| (event.kind, event.subtype.as_deref()))
        .collect();
    assert_eq!(
        summary,
        [
            (EventType::UserInput, None),
            (EventType::System, Some("peer_message")),
            (EventType::Unknown, Some("hologram-sync")),
        ]
    );
}

/// A fork sub-agent (`/subtask`, sidecar `isFork`): its file opens with `fork-context-ref` and a
/// `<fork-boilerplate>` directive, neither a prompt.
#[test]
fn a_fork_sub_agent_has_no_prompt_of_its_own() {
    let path = format!(
        "/home/dev/.claude/projects/-home-dev-webapp/{SID}/subagents/agent-a202607291641-fork-461b702d51a31db6.jsonl"
    );
    let mut directive = user(
        "f1",
        None,
        json!(
            "<fork-boilerplate>\nYou are a worker fork. The transcript above is the parent's history.\n</fork-boilerplate>\nretest on 1600"
        ),
    );
    directive["isSidechain"] = json!(true);
    directive["agentId"] = json!("a202607291641-fork-461b702d51a31db6");
    let mut reply = assistant(
        "f2",
        "msg_f",
        json!({"type": "text", "text": "Retested: all gates pass."}),
        Some("end_turn"),
    );
    reply["isSidechain"] = json!(true);
    reply["parentUuid"] = json!("f1");
    reply["agentId"] = json!("a202607291641-fork-461b702d51a31db6");
    let values = vec![
        json!({"type": "fork-context-ref", "agentId": "a202607291641-fork-461b702d51a31db6",
               "parentSessionId": SID, "parentLastUuid": "p9", "contextLength": 1045}),
        directive,
        reply,
    ];
    let sidecar = json!({"agentType": "fork", "isFork": true, "description": "retest on 1600",
                         "name": "202607291641-fork", "spawnDepth": 1});
    let output = parse(Path::new(&path), &lines(values), Some(&sidecar));
    let events: Vec<_> = output
        .sessions
        .iter()
        .flat_map(|session| &session.events)
        .collect();
    assert!(
        events
            .iter()
            .all(|event| event.kind != EventType::UserInput),
        "{events:#?}"
    );
    assert_eq!(
        events
            .iter()
            .filter(|event| event.kind == EventType::AssistantResponse)
            .count(),
        1
    );
    assert!(
        events
            .iter()
            .any(|event| event.subtype.as_deref() == Some("fork_boilerplate"))
    );
}
