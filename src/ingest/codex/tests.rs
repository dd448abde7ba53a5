//! Unit tests of the codex parser: small inline records in the real format, plus the real corpus.

use super::fork::uuid_v7_millis;
use super::text::injected_kind;
use super::tools::{exit_code_from_text, tool_output};
use super::*;
use crate::model::{EventType, ParsedSession, RawEvent, Source, TurnEnd};
use serde_json::json;
use std::collections::HashSet;
use std::path::PathBuf;

const SID: &str = "019cebc9-d900-7a4c-9123-b1612dd272d1";

use crate::ingest::lines::numbered_lines as json_lines;

fn parse_records(records: &[Value]) -> (ParsedSession, Vec<ParseWarning>) {
    let path = PathBuf::from(format!("rollout-2026-03-14T10-00-00-{SID}.jsonl"));
    let mut output = parse(&path, &json_lines(records));
    assert_eq!(output.sessions.len(), 1, "one session per file");
    (output.sessions.remove(0), output.warnings)
}

fn event<'s>(session: &'s ParsedSession, key: &str) -> &'s RawEvent {
    session
        .events
        .iter()
        .find(|event| event.key == key)
        .unwrap_or_else(|| panic!("no event {key}: {:#?}", keys(session)))
}

fn keys(session: &ParsedSession) -> Vec<String> {
    session.events.iter().map(|e| e.key.clone()).collect()
}

fn of_kind(session: &ParsedSession, kind: EventType) -> Vec<&RawEvent> {
    session.events.iter().filter(|e| e.kind == kind).collect()
}

fn ts(time: &str) -> String {
    format!("2026-03-14T{time}Z")
}

fn meta(time: &str, id: &str, extra: Value) -> Value {
    let mut payload = json!({
        "id": id, "timestamp": ts(time), "cwd": "/src/parquet-indexer",
        "originator": "codex_cli_rs", "cli_version": "0.116.0", "source": "cli",
        "model_provider": "openai",
        "git": {"commit_hash": "3b9e0c41", "branch": "fix/flaky-migration-test"}
    });
    if let (Some(fields), Value::Object(extra)) = (payload.as_object_mut(), extra) {
        fields.extend(extra);
    }
    json!({"timestamp": ts(time), "type": "session_meta", "payload": payload})
}

fn item(time: &str, payload: Value) -> Value {
    json!({"timestamp": ts(time), "type": "response_item", "payload": payload})
}

fn event_msg(time: &str, payload: Value) -> Value {
    json!({"timestamp": ts(time), "type": "event_msg", "payload": payload})
}

fn message(time: &str, role: &str, text: &str) -> Value {
    let part = if role == "assistant" {
        "output_text"
    } else {
        "input_text"
    };
    item(
        time,
        json!({"type": "message", "role": role, "content": [{"type": part, "text": text}]}),
    )
}

fn turn_context(time: &str, turn_id: &str, model: &str) -> Value {
    json!({"timestamp": ts(time), "type": "turn_context",
           "payload": {"turn_id": turn_id, "cwd": "/src/parquet-indexer", "model": model}})
}

fn exec_call(time: &str, call_id: &str, cmd: &str) -> Value {
    let arguments = json!({"cmd": cmd, "workdir": "/src/parquet-indexer"}).to_string();
    item(
        time,
        json!({"type": "function_call", "name": "exec_command",
                      "arguments": arguments, "call_id": call_id}),
    )
}

fn output(time: &str, call_id: &str, text: &str) -> Value {
    item(
        time,
        json!({"type": "function_call_output", "call_id": call_id, "output": text}),
    )
}

fn exec_end(time: &str, call_id: &str, exit_code: i64) -> Value {
    event_msg(
        time,
        json!({"type": "exec_command_end", "call_id": call_id,
        "command": ["bash", "-lc", "cargo test"], "aggregated_output": "test result",
        "exit_code": exit_code, "status": if exit_code == 0 { "completed" } else { "failed" }}),
    )
}

/// A current-format rollout: injected context, two turns, a flaky test failing then passing.
fn current_rollout() -> Vec<Value> {
    let prompt = "The migration test is a flaky test, please fix it";
    vec![
        meta("10:00:00.100", SID, json!({})),
        event_msg(
            "10:00:04.000",
            json!({"type": "task_started", "turn_id": "019cebc9-e972-71c1-b714-9d439536b321"}),
        ),
        message(
            "10:00:04.010",
            "developer",
            "<permissions instructions>\nsandbox\n</permissions instructions>",
        ),
        message(
            "10:00:04.011",
            "user",
            "# AGENTS.md instructions for /src\n\n<INSTRUCTIONS>\nbe nice\n</INSTRUCTIONS>",
        ),
        message(
            "10:00:04.012",
            "user",
            "<environment_context>\n  <cwd>/src/parquet-indexer</cwd>\n</environment_context>",
        ),
        turn_context(
            "10:00:04.013",
            "019cebc9-e972-71c1-b714-9d439536b321",
            "gpt-5.4",
        ),
        message("10:00:04.014", "user", prompt),
        event_msg(
            "10:00:04.014",
            json!({"type": "user_message", "message": prompt, "images": []}),
        ),
        item(
            "10:00:05.000",
            json!({"type": "reasoning", "summary": [{"type": "summary_text", "text": "**Reproduce first**"}], "encrypted_content": "gAAAAsecret"}),
        ),
        event_msg(
            "10:00:05.001",
            json!({"type": "agent_reasoning", "text": "**Reproduce first**"}),
        ),
        event_msg(
            "10:00:05.100",
            json!({"type": "agent_message", "message": "Running the test.", "phase": "commentary"}),
        ),
        item(
            "10:00:05.101",
            json!({"type": "message", "role": "assistant", "phase": "commentary", "content": [{"type": "output_text", "text": "Running the test."}]}),
        ),
        exec_call("10:00:06.000", "call_1", "cargo test --test migrations"),
        exec_end("10:00:09.000", "call_1", 1),
        output(
            "10:00:09.001",
            "call_1",
            "Chunk ID: ab12\nWall time: 3.0 seconds\nProcess exited with code 1\nOutput:\ntest result: FAILED",
        ),
        exec_call("10:00:10.000", "call_2", "cargo test --test migrations"),
        output(
            "10:00:12.000",
            "call_2",
            "Process exited with code 0\nOutput:\ntest result: ok",
        ),
        exec_end("10:00:12.001", "call_2", 0),
        event_msg(
            "10:00:13.000",
            json!({"type": "token_count", "info": {"last_token_usage": {"input_tokens": 100, "output_tokens": 20, "total_tokens": 120}}}),
        ),
        item(
            "10:00:14.000",
            json!({"type": "message", "role": "assistant", "phase": "final_answer", "content": [{"type": "output_text", "text": "Fixed the flaky test."}]}),
        ),
        event_msg(
            "10:00:14.001",
            json!({"type": "agent_message", "message": "Fixed the flaky test.", "phase": "final_answer"}),
        ),
        event_msg(
            "10:00:14.002",
            json!({"type": "task_complete", "turn_id": "019cebc9-e972-71c1-b714-9d439536b321", "last_agent_message": "Fixed the flaky test."}),
        ),
        turn_context(
            "10:05:00.000",
            "019cebce-4000-7000-8000-000000000000",
            "gpt-5.4-mini",
        ),
        message("10:05:00.001", "user", "Now update the parquet docs"),
        event_msg(
            "10:05:00.002",
            json!({"type": "user_message", "message": "Now update the parquet docs"}),
        ),
        item(
            "10:05:01.000",
            json!({"type": "reasoning", "summary": [], "content": null, "encrypted_content": "gAAAAsecret2"}),
        ),
        message(
            "10:05:02.000",
            "user",
            "<turn_aborted>\nThe user interrupted the previous turn on purpose.\n</turn_aborted>",
        ),
        event_msg(
            "10:05:02.001",
            json!({"type": "turn_aborted", "turn_id": "x", "reason": "interrupted"}),
        ),
    ]
}

#[test]
fn sniff_accepts_current_envelope() {
    assert!(sniff(&json_lines(&current_rollout()[..3])));
    let turn_only = [json!({"timestamp": "t", "type": "turn_context", "payload": {"cwd": "/"}})];
    assert!(sniff(&json_lines(&turn_only)));
}

#[test]
fn sniff_accepts_legacy_header_state_and_bare_items() {
    let header = json!({"id": "8a837827-6a97-40ad-9fc8-905176aa9307", "timestamp": "2025-08-25T21:06:52.427Z", "instructions": null});
    assert!(sniff(&json_lines(&[header])));
    assert!(sniff(&json_lines(&[json!({"record_type": "state"})])));
    let bare = json!({"type": "message", "id": null, "role": "user", "content": [{"type": "input_text", "text": "hi"}]});
    assert!(sniff(&json_lines(&[bare])));
}

#[test]
fn sniff_rejects_claude_gemini_and_garbage() {
    let claude = json!({"type": "user", "sessionId": "s", "uuid": "u", "message": {"role": "user", "content": "hi"}});
    let claude_summary = json!({"type": "summary", "summary": "Fix tests", "leafUuid": "u"});
    let gemini = json!({"sessionId": "s", "projectHash": "h", "startTime": "t", "messages": []});
    let gemini_line =
        json!({"id": "m1", "timestamp": "2026-01-01T00:00:00Z", "type": "user", "content": "hi"});
    for value in [
        claude,
        claude_summary,
        gemini,
        gemini_line,
        json!([1, 2]),
        json!("text"),
    ] {
        assert!(!sniff(&json_lines(std::slice::from_ref(&value))), "{value}");
    }
    assert!(!sniff(&[]));
}

#[test]
fn user_message_event_is_the_turn_start_and_its_copy_is_skipped() {
    let (session, _) = parse_records(&current_rollout());
    let inputs = of_kind(&session, EventType::UserInput);
    assert_eq!(inputs.len(), 2);
    assert_eq!(inputs[0].key, "L8");
    assert!(inputs.iter().all(|e| e.starts_turn));
    assert!(
        session
            .events
            .iter()
            .all(|e| e.key != "L7" && e.key != "L24")
    );
    let starts: Vec<_> = session.events.iter().filter(|e| e.starts_turn).collect();
    assert_eq!(starts.len(), 2);
}

#[test]
fn injected_context_and_developer_messages_are_system() {
    let (session, _) = parse_records(&current_rollout());
    for (key, subtype) in [
        ("L3", "developer"),
        ("L4", "agents_md"),
        ("L5", "environment_context"),
        ("L27", "turn_aborted"),
    ] {
        let event = event(&session, key);
        assert_eq!(event.kind, EventType::System, "{key}");
        assert_eq!(event.subtype.as_deref(), Some(subtype), "{key}");
        assert!(!event.starts_turn);
    }
}

#[test]
fn injected_kind_recognizes_harness_text_only() {
    for text in [
        "<environment_context>\n<cwd>/x</cwd>\n</environment_context>",
        "<user_instructions>\nrules\n</user_instructions>",
        "# AGENTS.md instructions for /x\n\n<INSTRUCTIONS>\nx\n</INSTRUCTIONS>",
        "<turn_aborted>\nThe user interrupted\n</turn_aborted>",
        "<INSTRUCTIONS>do this</INSTRUCTIONS>",
        "<subagent_notification>{\"agent\":\"a\"}</subagent_notification>",
        "<some_new_tag>\nwhole message\n</some_new_tag>",
    ] {
        assert!(injected_kind(text).is_some(), "{text}");
    }
    for text in [
        "fix the flaky test",
        "<div> does not render, why?",
        "# Context from my IDE setup:\n\n## My request for Codex:\nfix it",
    ] {
        assert_eq!(injected_kind(text), None, "{text}");
    }
}

#[test]
fn assistant_text_comes_from_response_items_with_phase() {
    let (session, _) = parse_records(&current_rollout());
    let replies = of_kind(&session, EventType::AssistantResponse);
    assert_eq!(replies.len(), 2, "agent_message copies are skipped");
    assert_eq!(replies[0].key, "L12");
    assert_eq!(replies[0].subtype.as_deref(), Some("commentary"));
    assert_eq!(replies[0].turn_end, None);
    assert_eq!(replies[1].key, "L20");
    assert_eq!(replies[1].subtype.as_deref(), Some("final_answer"));
    assert_eq!(replies[1].turn_end, Some(TurnEnd::Terminal));
    assert_eq!(replies[1].model.as_deref(), Some("gpt-5.4"));
}

#[test]
fn agent_message_without_response_item_copy_is_kept() {
    let records = vec![
        meta("10:00:00.000", SID, json!({})),
        event_msg(
            "10:00:01.000",
            json!({"type": "user_message", "message": "hello"}),
        ),
        event_msg(
            "10:00:02.000",
            json!({"type": "agent_message", "message": "Hi, what should I fix?"}),
        ),
        event_msg(
            "10:00:03.000",
            json!({"type": "agent_reasoning", "text": "thinking about migration"}),
        ),
    ];
    let (session, _) = parse_records(&records);
    let reply = event(&session, "L3");
    assert_eq!(reply.kind, EventType::AssistantResponse);
    assert_eq!(reply.text, "Hi, what should I fix?");
    assert_eq!(event(&session, "L4").kind, EventType::Reasoning);
}

#[test]
fn a_desktop_reply_citing_memories_is_one_reply() {
    // Codex Desktop (0.12x) appends the memories a reply cites to the response item's text;
    // the `agent_message` twin carries them in `memory_citation`.
    let answer = "Yes: the Olympus team is the default.";
    let cited = format!(
        "{answer}\n\n<oai-mem-citation>\n<citation_entries>\nMEMORY.md:1-9|note=[Olympus]\n</citation_entries>\n</oai-mem-citation>"
    );
    let records = vec![
        meta(
            "10:00:00.000",
            SID,
            json!({"originator": "Codex Desktop", "source": "vscode"}),
        ),
        event_msg(
            "10:00:01.000",
            json!({"type": "user_message", "message": "is the team the default?"}),
        ),
        event_msg(
            "10:00:02.000",
            json!({"type": "agent_message", "message": format!("{answer}\n\n"), "phase": "final_answer",
                   "memory_citation": {"entries": [{"path": "MEMORY.md"}]}}),
        ),
        item(
            "10:00:02.000",
            json!({"type": "message", "role": "assistant", "phase": "final_answer",
                   "content": [{"type": "output_text", "text": cited}]}),
        ),
    ];
    let (session, _) = parse_records(&records);
    let replies = of_kind(&session, EventType::AssistantResponse);
    assert_eq!(replies.len(), 1, "{:#?}", keys(&session));
}

#[test]
fn reasoning_uses_summaries_and_never_ciphertext() {
    let (session, _) = parse_records(&current_rollout());
    let reasoning = of_kind(&session, EventType::Reasoning);
    assert_eq!(reasoning.len(), 2, "agent_reasoning copy skipped");
    assert_eq!(reasoning[0].text, "**Reproduce first**");
    assert_eq!(reasoning[1].text, "[encrypted reasoning]");
    assert!(session.events.iter().all(|e| !e.text.contains("gAAAA")));
}

#[test]
fn exit_codes_come_from_exec_command_end_before_or_after_the_output() {
    let (session, _) = parse_records(&current_rollout());
    let first = event(&session, "L15");
    assert_eq!(first.kind, EventType::ToolResponse);
    assert_eq!(first.tool_name.as_deref(), Some("exec_command"));
    assert_eq!(first.tool_call_id.as_deref(), Some("call_1"));
    assert_eq!(first.exit_code, Some(1));
    assert!(first.text.contains("test result: FAILED"));
    let second = event(&session, "L17");
    assert_eq!(second.exit_code, Some(0));
    // exec_command_end lines are copies: no events of their own.
    assert!(
        session
            .events
            .iter()
            .all(|e| e.key != "L14" && e.key != "L18")
    );
}

#[test]
fn tool_calls_render_parsed_arguments() {
    let (session, _) = parse_records(&current_rollout());
    let calls = of_kind(&session, EventType::ToolCall);
    assert_eq!(calls.len(), 2);
    assert_eq!(
        calls[0].text,
        r#"exec_command(cmd="cargo test --test migrations", workdir="/src/parquet-indexer")"#
    );
    assert_eq!(
        calls[0].payload.as_ref().and_then(|p| p.get("cmd")),
        Some(&json!("cargo test --test migrations"))
    );
}

#[test]
fn exit_code_from_json_string_output_and_text_headers() {
    let json_output = tool_output(&json!(
        "{\"output\":\"FAILED\\n\",\"metadata\":{\"exit_code\":2,\"duration_seconds\":0.5}}"
    ));
    assert_eq!(json_output.text, "FAILED\n");
    assert_eq!(json_output.exit_code, Some(2));
    assert_eq!(
        json_output.extras,
        Some(json!({"metadata": {"exit_code": 2, "duration_seconds": 0.5}}))
    );
    assert_eq!(
        exit_code_from_text("Exit code: 1\nWall time: 0.9 seconds\nOutput:\n"),
        Some(1)
    );
    assert_eq!(
        exit_code_from_text(
            "Chunk ID: 1\nWall time: 1 seconds\nProcess exited with code 127\nOutput:\nx"
        ),
        Some(127)
    );
    assert_eq!(
        exit_code_from_text(
            "failed in sandbox LinuxSeccomp with execution error: sandbox denied exec error, exit code: 2, stdout: , stderr: x"
        ),
        Some(2)
    );
    assert_eq!(
        exit_code_from_text("Output:\nExit code: 9"),
        None,
        "program output cannot fake it"
    );
    assert_eq!(
        exit_code_from_text("Process running with session ID 3"),
        None
    );
    let parts = tool_output(
        &json!([{"type": "input_text", "text": "a.txt"}, {"type": "input_image", "image_url": "data:"}]),
    );
    assert_eq!(parts.text, "a.txt\n[image]");
    let object = tool_output(&json!({"content": "done", "success": true}));
    assert_eq!(
        (object.text.as_str(), object.extras),
        ("done", Some(json!({"success": true})))
    );
}

#[test]
fn custom_and_web_search_calls_pair_with_their_outputs() {
    let records = vec![
        meta("10:00:00.000", SID, json!({})),
        event_msg(
            "10:00:01.000",
            json!({"type": "user_message", "message": "search parquet docs and patch"}),
        ),
        event_msg(
            "10:00:02.000",
            json!({"type": "web_search_end", "call_id": "ws_1", "query": "parquet row groups", "action": {"type": "search", "query": "parquet row groups"}}),
        ),
        item(
            "10:00:02.001",
            json!({"type": "web_search_call", "status": "completed", "action": {"type": "search", "query": "parquet row groups"}}),
        ),
        item(
            "10:00:03.000",
            json!({"type": "custom_tool_call", "call_id": "call_p", "name": "apply_patch", "input": "*** Begin Patch\n*** End Patch\n"}),
        ),
        event_msg(
            "10:00:03.001",
            json!({"type": "patch_apply_end", "call_id": "call_p", "success": true, "stdout": "Success"}),
        ),
        item(
            "10:00:03.002",
            json!({"type": "custom_tool_call_output", "call_id": "call_p", "output": "{\"output\":\"Success. Updated the following files:\\nM a.rs\\n\",\"metadata\":{\"exit_code\":0}}"}),
        ),
    ];
    let (session, _) = parse_records(&records);
    assert!(
        session
            .events
            .iter()
            .all(|e| e.key != "L3" && e.key != "L6"),
        "copies skipped"
    );
    let search = event(&session, "L4");
    assert_eq!(search.kind, EventType::ToolCall);
    assert_eq!(search.tool_name.as_deref(), Some("web_search"));
    assert_eq!(search.tool_call_id.as_deref(), Some("ws_1"));
    assert_eq!(
        search.text,
        r#"web_search(type="search", query="parquet row groups")"#
    );
    let patch = event(&session, "L5");
    assert_eq!(
        patch.payload,
        Some(json!({"input": "*** Begin Patch\n*** End Patch\n"}))
    );
    let result = event(&session, "L7");
    assert_eq!(result.tool_name.as_deref(), Some("apply_patch"));
    assert_eq!(result.exit_code, Some(0));
    assert!(result.text.starts_with("Success. Updated"));
}

#[test]
fn lone_tool_events_stand_for_the_call_with_suffixed_keys() {
    let records = vec![
        meta("10:00:00.000", SID, json!({})),
        event_msg(
            "10:00:01.000",
            json!({"type": "mcp_tool_call_end", "call_id": "call_m",
            "invocation": {"server": "docs", "tool": "search", "arguments": {"q": "parquet"}},
            "result": {"Ok": {"content": [{"type": "text", "text": "3 hits"}], "isError": false}}}),
        ),
        event_msg(
            "10:00:02.000",
            json!({"type": "exec_command_begin", "call_id": "call_x"}),
        ),
        event_msg(
            "10:00:03.000",
            json!({"type": "exec_command_end", "call_id": "call_x", "command": ["ls"], "aggregated_output": "a\n", "exit_code": 3}),
        ),
    ];
    let (session, _) = parse_records(&records);
    let call = event(&session, "L2");
    assert_eq!(
        (call.kind, call.tool_name.as_deref()),
        (EventType::ToolCall, Some("mcp__docs__search"))
    );
    let response = event(&session, "L2.1");
    assert_eq!(
        (response.kind, response.text.as_str()),
        (EventType::ToolResponse, "3 hits")
    );
    assert_eq!(response.tool_name.as_deref(), Some("mcp__docs__search"));
    assert!(
        session.events.iter().all(|e| e.key != "L3"),
        "begin with an end is a copy"
    );
    assert_eq!(event(&session, "L4.1").exit_code, Some(3));
    assert_eq!(of_kind(&session, EventType::ToolCall).len(), 2);
}

#[test]
fn runtime_events_and_turn_ends() {
    let (session, _) = parse_records(&current_rollout());
    let complete = event(&session, "L22");
    assert_eq!(
        (complete.kind, complete.turn_end),
        (EventType::Runtime, Some(TurnEnd::Normal))
    );
    assert_eq!(complete.subtype.as_deref(), Some("task_complete"));
    let aborted = event(&session, "L28");
    assert_eq!(
        (aborted.kind, aborted.turn_end),
        (EventType::Runtime, Some(TurnEnd::Terminal))
    );
    assert_eq!(aborted.text, "turn aborted: interrupted");
    let tokens = event(&session, "L19");
    assert_eq!(tokens.subtype.as_deref(), Some("token_count"));
    assert_eq!(tokens.text, "token_count input=100 output=20 total=120");
    assert_eq!(
        event(&session, "L2").subtype.as_deref(),
        Some("task_started")
    );
    let error = [
        meta("10:00:00.000", SID, json!({})),
        event_msg(
            "10:00:01.000",
            json!({"type": "error", "message": "exceeded retry limit, last status: 429"}),
        ),
    ];
    let (session, _) = parse_records(&error);
    let error = event(&session, "L2");
    assert_eq!((error.kind, error.turn_end), (EventType::Runtime, None));
    assert!(error.text.contains("429"));
}

#[test]
fn compaction_records_are_compaction_events() {
    let records = vec![
        meta("10:00:00.000", SID, json!({})),
        json!({"timestamp": ts("10:00:01.000"), "type": "compacted", "payload": {"message": "", "replacement_history": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
            {"type": "compaction", "encrypted_content": "gAAAAxyz"}]}}),
        event_msg("10:00:01.001", json!({"type": "context_compacted"})),
        json!({"timestamp": ts("10:00:02.000"), "type": "compacted", "payload": {"message": "Summary: fixed the flaky migration test."}}),
    ];
    let (session, _) = parse_records(&records);
    let compactions = of_kind(&session, EventType::Compaction);
    assert_eq!(compactions.len(), 3);
    assert_eq!(
        compactions[0].text,
        "[context compacted: encrypted summary, 2 history items kept]"
    );
    assert_eq!(compactions[1].subtype.as_deref(), Some("context_compacted"));
    assert_eq!(
        compactions[2].text,
        "Summary: fixed the flaky migration test."
    );
    assert!(compactions.iter().all(|e| !e.starts_turn));
}

#[test]
fn session_meta_fills_metadata_and_models_follow_turn_context() {
    let (session, _) = parse_records(&current_rollout());
    assert_eq!(session.native_id, SID);
    assert_eq!(session.source, Source::Codex);
    let meta = &session.meta;
    assert_eq!(meta.cwd.as_deref(), Some("/src/parquet-indexer"));
    assert_eq!(meta.git_branch.as_deref(), Some("fix/flaky-migration-test"));
    assert_eq!(meta.harness_version.as_deref(), Some("0.116.0"));
    assert_eq!(meta.model.as_deref(), Some("gpt-5.4"));
    assert_eq!(meta.started_at, parse_timestamp(&json!(ts("10:00:00.100"))));
    assert!(!meta.started_by_mcp);
    assert_eq!(meta.title, None);
    let first = event(&session, "L1");
    assert_eq!(first.subtype.as_deref(), Some("session_meta"));
    assert_eq!(
        first.payload.as_ref().and_then(|p| p.get("model_provider")),
        Some(&json!("openai"))
    );
    // Events before the first turn_context ran under the model it declares.
    assert_eq!(
        event(&session, "L2").originating_model.as_deref(),
        Some("gpt-5.4")
    );
    assert_eq!(
        event(&session, "L2").model,
        None,
        "model only on replies and reasoning"
    );
    assert_eq!(
        event(&session, "L26").model.as_deref(),
        Some("gpt-5.4-mini")
    );
}

#[test]
fn subagent_and_mcp_sources() {
    let spawn = json!({"source": {"subagent": {"thread_spawn": {"parent_thread_id": "019d50e7-0024-70b2-ad77-923977703877", "depth": 1, "agent_nickname": "Epicurus", "agent_role": "explorer"}}}});
    let (session, _) = parse_records(&[meta("10:00:00.000", SID, spawn)]);
    assert_eq!(
        session.meta.parent_native_id.as_deref(),
        Some("019d50e7-0024-70b2-ad77-923977703877")
    );
    assert_eq!(
        session.meta.agent_name.as_deref(),
        Some("Epicurus (explorer)")
    );
    assert_eq!(session.meta.forked_from_native_id, None);
    let review = json!({"source": {"subagent": "review"}});
    let (session, _) = parse_records(&[meta("10:00:00.000", SID, review)]);
    assert_eq!(session.meta.agent_name.as_deref(), Some("review"));
    let (session, _) = parse_records(&[meta("10:00:00.000", SID, json!({"source": "mcp"}))]);
    assert!(session.meta.started_by_mcp);
    let titled = [
        meta("10:00:00.000", SID, json!({})),
        event_msg(
            "10:00:01.000",
            json!({"type": "thread_name_updated", "thread_id": SID, "thread_name": "Fix flaky migration test"}),
        ),
    ];
    let (session, _) = parse_records(&titled);
    assert_eq!(
        session.meta.title.as_deref(),
        Some("Fix flaky migration test")
    );
}

#[test]
fn legacy_file_uses_user_response_items() {
    let records = vec![
        json!({"id": "5f0c2e8a-7d3b-4c1e-9a6f-2b8d4e7c1a90", "timestamp": "2025-08-20T07:15:02.114Z", "instructions": null, "git": {"branch": "main"}}),
        json!({"record_type": "state"}),
        json!({"type": "message", "id": null, "role": "user", "content": [{"type": "input_text", "text": "<environment_context>\nCurrent working directory: /src/jobs\n</environment_context>"}]}),
        json!({"type": "message", "id": null, "role": "user", "content": [{"type": "input_text", "text": "Export parquet instead of CSV"}]}),
        json!({"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAA"}),
        json!({"type": "function_call", "id": "fc_1", "name": "shell", "arguments": "{\"command\":[\"pytest\"]}", "call_id": "call_a"}),
        json!({"type": "function_call_output", "call_id": "call_a", "output": "{\"output\":\"1 failed\",\"metadata\":{\"exit_code\":1,\"duration_seconds\":0.4}}"}),
        json!({"type": "message", "id": "msg_1", "role": "assistant", "content": [{"type": "output_text", "text": "The test fails without pyarrow."}]}),
        json!({"record_type": "state"}),
    ];
    let (session, warnings) = parse_records(&records);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(session.native_id, "5f0c2e8a-7d3b-4c1e-9a6f-2b8d4e7c1a90");
    assert_eq!(session.meta.git_branch.as_deref(), Some("main"));
    assert_eq!(session.meta.cwd.as_deref(), Some("/src/jobs"));
    assert_eq!(
        session.meta.started_at,
        parse_timestamp(&json!("2025-08-20T07:15:02.114Z"))
    );
    assert_eq!(event(&session, "L3").kind, EventType::System);
    let input = event(&session, "L4");
    assert_eq!(
        (input.kind, input.starts_turn),
        (EventType::UserInput, true)
    );
    assert_eq!(event(&session, "L7").exit_code, Some(1));
    assert_eq!(event(&session, "L7").tool_name.as_deref(), Some("shell"));
    assert_eq!(event(&session, "L8").kind, EventType::AssistantResponse);
    assert!(
        session
            .events
            .iter()
            .all(|e| e.key != "L2" && e.key != "L9"),
        "state lines are bookkeeping"
    );
}

/// Child meta, copy of the parent (its meta and a turn, all re-stamped in one burst), then
/// the child's own turn.
fn forked_rollout(child_meta_extra: Value, own_turn_id: &str, own_start: &str) -> Vec<Value> {
    let child = "019cec1c-3f24-74fd-b12a-abfe228f219e";
    vec![
        meta("11:30:00.118", child, child_meta_extra),
        meta("11:30:00.120", SID, json!({})),
        event_msg(
            "11:30:00.121",
            json!({"type": "task_started", "turn_id": "019cebc9-e972-71c1-b714-9d439536b321"}),
        ),
        turn_context(
            "11:30:00.122",
            "019cebc9-e972-71c1-b714-9d439536b321",
            "gpt-5.4",
        ),
        message("11:30:00.123", "user", "parent prompt about the flaky test"),
        event_msg(
            "11:30:00.123",
            json!({"type": "user_message", "message": "parent prompt about the flaky test"}),
        ),
        exec_call("11:30:00.124", "call_parent", "cargo test"),
        output(
            "11:30:00.125",
            "call_parent",
            "Exit code: 1\nOutput:\nFAILED",
        ),
        event_msg(
            "11:30:00.126",
            json!({"type": "task_complete", "turn_id": "019cebc9-e972-71c1-b714-9d439536b321"}),
        ),
        event_msg(
            own_start,
            json!({"type": "task_started", "turn_id": own_turn_id}),
        ),
        turn_context(own_start, own_turn_id, "gpt-5.4"),
        message(own_start, "user", "child prompt: port the parquet fix"),
        event_msg(
            own_start,
            json!({"type": "user_message", "message": "child prompt: port the parquet fix"}),
        ),
        output(own_start, "call_parent", "late output of a parent call"),
    ]
}

#[test]
fn forked_rollout_skips_the_copied_parent_history() {
    // Own turn id minted after the child (UUIDv7), though only 3 ms after the copy burst.
    let records = forked_rollout(
        json!({}),
        "019cec1c-3f30-7000-8000-000000000000",
        "11:30:00.129",
    );
    let (session, warnings) = parse_records(&records);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(session.native_id, "019cec1c-3f24-74fd-b12a-abfe228f219e");
    assert_eq!(session.meta.forked_from_native_id.as_deref(), Some(SID));
    let marker = event(&session, "L2");
    assert_eq!(
        (marker.kind, marker.subtype.as_deref()),
        (EventType::System, Some("fork_replay"))
    );
    assert_eq!(
        marker.payload,
        Some(json!({"parent_id": SID, "copied_lines": 7}))
    );
    assert_eq!(keys(&session), ["L1", "L2", "L10", "L13", "L14"]);
    let inputs = of_kind(&session, EventType::UserInput);
    assert_eq!(inputs.len(), 1);
    assert_eq!(inputs[0].text, "child prompt: port the parquet fix");
    assert_eq!(
        event(&session, "L14").tool_name.as_deref(),
        Some("exec_command"),
        "name resolved through copied call"
    );
}

/// A fork of the parent's last turn only (codex-rs `fork_turns`): no parent `session_meta`
/// in the copy, which starts at the parent's user message; the parent's turn ids are older
/// than the child's own id.
fn truncated_fork(own_turn_id: &str) -> Vec<Value> {
    let child = "019cec1c-3f24-74fd-b12a-abfe228f219e";
    let parent_turn = "019cebc9-e972-71c1-b714-9d439536b321";
    vec![
        meta(
            "11:30:00.118",
            child,
            json!({"forked_from_id": SID, "source": {"subagent": {"thread_spawn": {"parent_thread_id": SID, "depth": 1}}}}),
        ),
        message("11:30:00.120", "user", "parent prompt about the flaky test"),
        event_msg(
            "11:30:00.120",
            json!({"type": "task_started", "turn_id": parent_turn}),
        ),
        event_msg(
            "11:30:00.121",
            json!({"type": "user_message", "message": "parent prompt about the flaky test"}),
        ),
        message(
            "11:30:00.122",
            "assistant",
            "parent answer: the lock is held",
        ),
        event_msg(
            "11:30:00.122",
            json!({"type": "task_complete", "turn_id": parent_turn}),
        ),
        event_msg(
            "11:30:00.129",
            json!({"type": "task_started", "turn_id": own_turn_id}),
        ),
        message("11:30:00.129", "user", "child prompt: port the parquet fix"),
        event_msg(
            "11:30:00.129",
            json!({"type": "user_message", "message": "child prompt: port the parquet fix"}),
        ),
        message("11:30:01.500", "assistant", "child answer: ported"),
    ]
}

#[test]
fn a_fork_of_the_last_turns_skips_its_copy_without_a_parent_meta() {
    let records = truncated_fork("019cec1c-3f30-7000-8000-000000000000");
    let (session, warnings) = parse_records(&records);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(session.meta.forked_from_native_id.as_deref(), Some(SID));
    let marker = event(&session, "L2");
    assert_eq!(
        (marker.kind, marker.subtype.as_deref()),
        (EventType::System, Some("fork_replay"))
    );
    assert_eq!(
        marker.payload,
        Some(json!({"parent_id": SID, "copied_lines": 5}))
    );
    let texts: Vec<&str> = session
        .events
        .iter()
        .map(|event| event.text.as_str())
        .collect();
    assert!(
        texts
            .iter()
            .all(|text| !text.contains("parent prompt") && !text.contains("parent answer")),
        "{texts:?}"
    );
    let inputs = of_kind(&session, EventType::UserInput);
    assert_eq!(inputs.len(), 1);
    assert_eq!(inputs[0].text, "child prompt: port the parquet fix");
    assert!(texts.contains(&"child answer: ported"), "{texts:?}");
}

#[test]
fn a_fork_whose_first_lines_hold_no_parent_turn_keeps_them() {
    // Turn ids that are not UUIDv7 prove nothing: every line stays the child's own.
    let records = truncated_fork("turn-2");
    let mut records = records;
    records[2] = event_msg(
        "11:30:00.120",
        json!({"type": "task_started", "turn_id": "turn-1"}),
    );
    records[5] = event_msg(
        "11:30:00.122",
        json!({"type": "task_complete", "turn_id": "turn-1"}),
    );
    let (session, _) = parse_records(&records);
    assert!(
        session
            .events
            .iter()
            .all(|event| event.subtype.as_deref() != Some("fork_replay")),
        "no copy is claimed without a parent turn id"
    );
    assert_eq!(of_kind(&session, EventType::UserInput).len(), 2);
}

#[test]
fn fork_replay_ends_at_a_pause_when_turn_ids_are_not_uuid_v7() {
    let explicit = json!({"forked_from_id": "019ceb00-0000-7000-8000-000000000000"});
    let records = forked_rollout(explicit, "turn-2", "11:30:07.000");
    let (session, _) = parse_records(&records);
    assert_eq!(
        session.meta.forked_from_native_id.as_deref(),
        Some("019ceb00-0000-7000-8000-000000000000"),
        "explicit forked_from_id wins"
    );
    assert_eq!(of_kind(&session, EventType::UserInput).len(), 1);
    assert_eq!(keys(&session), ["L1", "L2", "L10", "L13", "L14"]);
}

#[test]
fn fork_replay_ends_when_the_child_meta_returns() {
    let child = "019cec1c-3f24-74fd-b12a-abfe228f219e";
    let mut records = forked_rollout(json!({}), "turn-2", "11:30:00.130");
    records.insert(9, meta("11:30:00.127", child, json!({})));
    let (session, _) = parse_records(&records);
    assert_eq!(keys(&session), ["L1", "L2", "L11", "L14", "L15"]);
}

#[test]
fn unterminated_fork_replay_warns() {
    let records = forked_rollout(json!({}), "turn-2", "11:30:00.130");
    let (session, warnings) = parse_records(&records);
    assert_eq!(keys(&session), ["L1", "L2"]);
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].message.contains("never ended"));
}

#[test]
fn uuid_v7_timestamps() {
    assert_eq!(
        uuid_v7_millis("019cebc9-d900-7a4c-9123-b1612dd272d1"),
        Some(0x019c_ebc9_d900)
    );
    assert_eq!(
        uuid_v7_millis("8a837827-6a97-40ad-9fc8-905176aa9307"),
        None,
        "v4"
    );
    assert_eq!(uuid_v7_millis("[trimmed for fixture]"), None);
}

#[test]
fn unknown_records_are_kept_raw_and_bad_lines_warn() {
    let records = vec![
        meta("10:00:00.000", SID, json!({})),
        json!({"timestamp": ts("10:00:01.000"), "type": "telemetry_blob", "payload": {"x": 1}}),
        item("10:00:02.000", json!({"type": "hologram", "data": 1})),
        json!(["not", "an", "object"]),
        json!({"timestamp": ts("10:00:03.000"), "type": "event_msg", "payload": null}),
        json!({"timestamp": ts("10:00:04.000"), "type": "response_item", "payload": {"type": "function_call_output"}}),
        event_msg(
            "10:00:05.000",
            json!({"type": "brand_new_event", "message": "hello"}),
        ),
    ];
    let (session, warnings) = parse_records(&records);
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0].line, 4);
    let unknown = event(&session, "L2");
    assert_eq!(unknown.kind, EventType::Unknown);
    assert_eq!(unknown.payload.as_ref(), Some(&records[1]));
    assert_eq!(event(&session, "L3").kind, EventType::Unknown);
    assert_eq!(event(&session, "L6").tool_name.as_deref(), Some("function"));
    let new_event = event(&session, "L7");
    assert_eq!(
        (new_event.kind, new_event.text.as_str()),
        (EventType::Runtime, "brand_new_event: hello")
    );
}

#[test]
fn missing_meta_takes_the_id_from_the_file_name() {
    let records = [event_msg(
        "10:00:01.000",
        json!({"type": "user_message", "message": "hi"}),
    )];
    let (session, warnings) = parse_records(&records);
    assert_eq!(session.native_id, SID);
    assert_eq!(warnings.len(), 1);
    assert!(parse(Path::new("x.jsonl"), &[]).sessions.is_empty());
}

// ---- real files -----------------------------------------------------------------------

fn jsonl_files(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            jsonl_files(&path, found);
        } else if path.extension().is_some_and(|ext| ext == "jsonl") {
            found.push(path);
        }
    }
}

fn check_invariants(path: &Path, session: &ParsedSession) {
    let name = path.display();
    let mut seen = HashSet::new();
    let mut last_line = 0;
    for event in &session.events {
        assert!(
            seen.insert(event.key.as_str()),
            "{name}: duplicate key {}",
            event.key
        );
        assert!(
            event
                .key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_.:-".contains(c)),
            "{name}: key {}",
            event.key
        );
        assert!(
            event.line >= last_line,
            "{name}: file order at {}",
            event.key
        );
        last_line = event.line;
        if event.starts_turn {
            assert_eq!(event.kind, EventType::UserInput, "{name}: {}", event.key);
        }
        if event.kind == EventType::UserInput {
            let text = event.text.trim_start();
            for injected in [
                "<environment_context>",
                "<user_instructions>",
                "# AGENTS.md instructions",
                "<turn_aborted>",
                "<INSTRUCTIONS>",
                "<permissions instructions>",
            ] {
                assert!(
                    !text.starts_with(injected),
                    "{name}: injected user_input {}",
                    event.key
                );
            }
        }
        if event.model.is_some() {
            assert!(
                matches!(
                    event.kind,
                    EventType::AssistantResponse | EventType::Reasoning
                ),
                "{name}: {}",
                event.key
            );
        }
        if event.kind == EventType::Reasoning {
            assert!(
                !event.text.starts_with("gAAAA"),
                "{name}: ciphertext in {}",
                event.key
            );
        }
    }
    let calls: Vec<&RawEvent> = session
        .events
        .iter()
        .filter(|e| e.kind == EventType::ToolCall)
        .collect();
    let call_ids: HashSet<&str> = calls
        .iter()
        .filter_map(|e| e.tool_call_id.as_deref())
        .collect();
    // A web_search_call item carries no id on disk; it borrows its web_search_end's id, and
    // has none when that event is absent. Every other call has its own id.
    let without_id = calls.iter().filter(|e| e.tool_call_id.is_none()).count();
    assert_eq!(
        calls.len() - without_id,
        call_ids.len(),
        "{name}: one tool_call per distinct call id"
    );
    for event in &session.events {
        if matches!(event.kind, EventType::ToolCall | EventType::ToolResponse) {
            let tool = event.tool_name.as_deref().unwrap_or("");
            assert!(!tool.is_empty(), "{name}: no tool name on {}", event.key);
            // (small.jsonl blanks both to "[trimmed for fixture]" in its synthetic records.)
            let placeholder = tool.starts_with("[trimmed");
            assert!(
                placeholder || !call_ids.contains(tool),
                "{name}: tool name is a call id on {}",
                event.key
            );
            if event.tool_call_id.is_none() {
                assert_eq!(tool, "web_search", "{name}: no call id on {}", event.key);
            }
        }
    }
    let normal = session
        .events
        .iter()
        .filter(|e| e.turn_end == Some(TurnEnd::Normal))
        .count();
    let completes = session
        .events
        .iter()
        .filter(|e| e.subtype.as_deref() == Some("task_complete"))
        .count();
    assert_eq!(normal, completes, "{name}");
}

#[test]
fn corpus_files_parse_with_invariants() {
    let corpus = Path::new("/work/shared/corpus");
    if !corpus.join("codex").is_dir() {
        eprintln!("corpus absent, skipping");
        return;
    }
    let mut files = Vec::new();
    jsonl_files(&corpus.join("codex"), &mut files);
    let real_files = files.len();
    assert!(
        real_files >= 8,
        "expected the 8 real rollouts, found {real_files}"
    );
    files.push(corpus.join("other-formats/agent-sessions/codex/small.jsonl"));
    files.push(corpus.join("other-formats/agtrace/codex_session.jsonl"));
    jsonl_files(Path::new("/work/main/tests/fixtures/codex"), &mut files);
    let expected_inputs = [
        ("8a837827-6a97-40ad-9fc8-905176aa9307", 6),
        ("75c9806c-1e19-4dc5-913e-2b9809173b33", 3),
        ("c61729d4-da6d-46a4-9a29-ec2c614e5e23", 63),
        ("019c373a-e799-76a0-839f-1d739e71eefa", 4),
        ("019c372e-2526-7e72-83e1-9cba8efad18d", 1),
        ("019d3cf7-965c-7fb0-8eca-afeca7fe7b00", 19),
        ("019da910-1d2d-7883-b552-6e3adf8a4ed9", 6),
        ("019d781a-be34-7041-abb1-577f9360b907", 1),
        ("019b04ae-b1c6-7c72-a134-a4c2de66058c", 2),
    ];
    let mut checked_inputs = 0;
    for path in &files {
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        let split = crate::ingest::lines::split_json_lines(&bytes);
        let head = &split.lines[..split.lines.len().min(5)];
        assert!(sniff(head), "{} not sniffed", path.display());
        let output = parse(path, &split.lines);
        assert_eq!(output.sessions.len(), 1, "{}", path.display());
        let session = &output.sessions[0];
        check_invariants(path, session);
        if let Some((_, inputs)) = expected_inputs
            .iter()
            .find(|(id, _)| *id == session.native_id)
        {
            assert_eq!(
                of_kind(session, EventType::UserInput).len(),
                *inputs,
                "{}",
                path.display()
            );
            checked_inputs += 1;
        }
        // Each line alone must also parse cleanly (robustness on every record shape).
        for line in &split.lines {
            let single = parse(path, std::slice::from_ref(line));
            for session in &single.sessions {
                check_invariants(path, session);
            }
        }
    }
    assert_eq!(checked_inputs, expected_inputs.len());

    let subagent = files
        .iter()
        .find(|p| p.to_string_lossy().contains("019d781a-be34"))
        .map(|p| {
            let bytes = std::fs::read(p).unwrap_or_default();
            parse(p, &crate::ingest::lines::split_json_lines(&bytes).lines)
        });
    if let Some(output) = subagent {
        let meta = &output.sessions[0].meta;
        assert_eq!(
            meta.parent_native_id.as_deref(),
            Some("019d50e7-0024-70b2-ad77-923977703877")
        );
        assert_eq!(meta.agent_name.as_deref(), Some("Epicurus (explorer)"));
    }
    let archived = files
        .iter()
        .find(|p| p.to_string_lossy().contains("019d3cf7-965c"))
        .map(|p| {
            let bytes = std::fs::read(p).unwrap_or_default();
            parse(p, &crate::ingest::lines::split_json_lines(&bytes).lines)
        });
    if let Some(output) = archived {
        let session = &output.sessions[0];
        assert_eq!(of_kind(session, EventType::Compaction).len(), 2);
        let shell: Vec<_> = session
            .events
            .iter()
            .filter(|e| {
                e.kind == EventType::ToolResponse && e.tool_name.as_deref() == Some("shell_command")
            })
            .collect();
        let finished = shell.iter().filter(|e| !e.text.contains("aborted by user"));
        assert!(
            !shell.is_empty() && finished.clone().all(|e| e.exit_code.is_some()),
            "exit codes on every finished shell_command"
        );
        assert!(finished.clone().any(|e| e.exit_code == Some(1)));
        assert_eq!(
            of_kind(session, EventType::ToolCall).len(),
            76,
            "70 function/custom calls + 6 web searches"
        );
    }
}

fn token_count(time: &str, total: [i64; 5], last: [i64; 5]) -> Value {
    let usage = |[input, cached, output, reasoning, total]: [i64; 5]| {
        json!({"input_tokens": input, "cached_input_tokens": cached, "output_tokens": output,
               "reasoning_output_tokens": reasoning, "total_tokens": total})
    };
    event_msg(
        time,
        json!({"type": "token_count", "info": {"total_token_usage": usage(total),
               "last_token_usage": usage(last), "model_context_window": 258400},
               "rate_limits": null}),
    )
}

#[test]
fn token_counts_count_each_call_once_on_its_model_output() {
    let records = vec![
        meta("10:00:00", SID, json!({})),
        event_msg(
            "10:00:01",
            json!({"type": "user_message", "message": "build it"}),
        ),
        // Rate limits only: no usage.
        event_msg("10:00:01.5", json!({"type": "token_count", "info": null})),
        message("10:00:02", "assistant", "first call"),
        token_count("10:00:03", [100, 80, 10, 4, 110], [100, 80, 10, 4, 110]),
        // The same cumulative report again (Codex writes it after the tool outputs too).
        token_count("10:00:04", [100, 80, 10, 4, 110], [100, 80, 10, 4, 110]),
        message("10:00:05", "assistant", "second call"),
        token_count("10:00:06", [250, 180, 30, 9, 280], [150, 100, 20, 5, 170]),
    ];
    let (session, _) = parse_records(&records);
    let carriers = session.usage_carriers();
    assert_eq!(
        carriers.iter().map(|(key, _)| *key).collect::<Vec<_>>(),
        vec!["L4", "L7"],
        "each call's usage on its own model output, the repeat not counted"
    );
    assert_eq!(carriers[0].1.input, Some(100));
    assert_eq!(carriers[0].1.cached_input, Some(80));
    assert_eq!(carriers[0].1.reasoning, Some(4));
    assert_eq!(
        carriers[1].1.total,
        Some(170),
        "last_token_usage, not the cumulative total"
    );
    let sum = crate::model::TokenUsage::sum(carriers.iter().map(|(_, usage)| *usage)).unwrap();
    assert_eq!(
        sum.total,
        Some(280),
        "the calls add up to the final cumulative total"
    );
}

#[test]
fn usage_reported_before_any_model_output_waits_for_the_next_one() {
    let records = vec![
        meta("10:00:00", SID, json!({})),
        event_msg("10:00:01", json!({"type": "user_message", "message": "go"})),
        token_count("10:00:02", [5, 0, 1, 0, 6], [5, 0, 1, 0, 6]),
        message("10:00:03", "assistant", "reply"),
    ];
    let (session, _) = parse_records(&records);
    assert_eq!(
        event(&session, "L4").usage.and_then(|usage| usage.total),
        Some(6)
    );
}

/// TRAE CLI's rollout: its prompt is an `item_completed` `UserMessage` (split into blocks),
/// its runtime notices user-role response items. Read as TRAE's, the prompt is one user input
/// and the notice context; read as Codex's (no such items there), nothing changes.
#[test]
fn trae_prompts_are_its_user_message_items_and_its_notices_are_context() {
    let records = vec![
        meta("10:00:00", SID, json!({"originator": "codex-tui"})),
        item(
            "10:00:01",
            json!({"type": "message", "role": "user", "content": [
                {"type": "input_text", "text": "Process limit: at most 64 processes may run."}
            ]}),
        ),
        event_msg(
            "10:00:01",
            json!({"type": "item_completed", "turn_id": "turn-1", "item": {
                "type": "UserMessage", "id": "u1",
                "content": [{"type": "text", "text": "rename the "}, {"type": "text", "text": "config loader"}]
            }}),
        ),
        item(
            "10:00:01",
            json!({"type": "message", "role": "user", "content": [
                {"type": "input_text", "text": "rename the config loader"}
            ]}),
        ),
        item(
            "10:00:02",
            json!({"type": "message", "role": "assistant", "content": [
                {"type": "output_text", "text": "Renamed it to LoadConfig."}
            ]}),
        ),
    ];
    let path = PathBuf::from(format!("rollout-2026-03-14T10-00-00-{SID}.jsonl"));
    let trae = parse_as(&path, &json_lines(&records), Source::TraeCli);
    let session = &trae.sessions[0];
    let prompts: Vec<&str> = of_kind(session, EventType::UserInput)
        .iter()
        .map(|event| event.text.as_str())
        .collect();
    assert_eq!(prompts, ["rename the config loader"]);
    let notices: Vec<&RawEvent> = of_kind(session, EventType::System)
        .into_iter()
        .filter(|event| event.subtype.as_deref() == Some("user_context"))
        .collect();
    assert_eq!(notices.len(), 1, "{:#?}", keys(session));
    assert!(notices[0].text.starts_with("Process limit"));
    assert_eq!(of_kind(session, EventType::AssistantResponse).len(), 1);

    let (codex, _) = parse_records(&records);
    let codex_prompts = of_kind(&codex, EventType::UserInput);
    assert_eq!(
        codex_prompts.len(),
        2,
        "Codex's reading of user-role items without user_message events is unchanged"
    );
}

// ---- TRAE CLI's `history_mutation` and `item_completed` records -----------------------------
// Shapes from docs/HARNESS-RESEARCH.md section 2 (deja-vu's TRAE page and the readers it names).

fn parse_trae(records: &[Value]) -> (ParsedSession, Vec<ParseWarning>) {
    let path = PathBuf::from(format!("rollout-2026-03-14T10-00-00-{SID}.jsonl"));
    let mut output = parse_as(&path, &json_lines(records), Source::TraeCli);
    assert_eq!(output.sessions.len(), 1, "one session per file");
    (output.sessions.remove(0), output.warnings)
}

fn trae_meta() -> Value {
    meta(
        "10:00:00",
        SID,
        json!({"originator": "codex-tui", "model_provider": "trae"}),
    )
}

fn history_mutation(time: &str, payload: Value) -> Value {
    json!({"timestamp": ts(time), "type": "history_mutation", "payload": payload})
}

fn append(time: &str, turn: &str, items: Value) -> Value {
    history_mutation(
        time,
        json!({"turn_id": turn, "operation": "append", "items": items}),
    )
}

fn assistant_item(text: &str) -> Value {
    json!({"type": "message", "role": "assistant",
           "content": [{"type": "output_text", "text": text}]})
}

fn completed(time: &str, turn: &str, item: Value) -> Value {
    event_msg(
        time,
        json!({"type": "item_completed", "turn_id": turn, "item": item}),
    )
}

fn agent_message_item(text: &str) -> Value {
    json!({"type": "AgentMessage", "id": text, "content": [{"type": "Text", "text": text}]})
}

/// `(key, text)` of the events of `kind`, in order.
fn keyed(session: &ParsedSession, kind: EventType) -> Vec<(&str, &str)> {
    of_kind(session, kind)
        .into_iter()
        .map(|event| (event.key.as_str(), event.text.as_str()))
        .collect()
}

/// `(call id, tool name)` of the events of `kind`, in order.
fn calls_of(session: &ParsedSession, kind: EventType) -> Vec<(&str, &str)> {
    of_kind(session, kind)
        .into_iter()
        .map(|event| {
            (
                event.tool_call_id.as_deref().unwrap_or(""),
                event.tool_name.as_deref().unwrap_or(""),
            )
        })
        .collect()
}

fn subtypes(session: &ParsedSession, kind: EventType) -> Vec<&str> {
    of_kind(session, kind)
        .into_iter()
        .filter_map(|event| event.subtype.as_deref())
        .collect()
}

/// The example of a Rust TRAE adapter's test (research section 2): an append repeats the
/// prompt, two replies and a call the response items carry, and alone carries the call's
/// output and an injected context; a file change is only an `item_completed` item; a `replace`
/// re-sends a call the file never ran.
#[test]
fn a_trae_append_adds_only_what_no_other_record_carries() {
    let first_reply = assistant_item("Renaming the stale file.");
    let last_reply = assistant_item("Done.");
    let exec = json!({"type": "function_call", "call_id": "call-1", "name": "exec",
        "arguments": "{\"command\":[\"bash\",\"-lc\",\"mv stale.go old.go\"],\"workdir\":\"/w/api/internal\"}"});
    let records = vec![
        trae_meta(),
        event_msg(
            "10:00:00.500",
            json!({"type": "user_message", "turn_id": "turn-1", "message": "clean up retry"}),
        ),
        item("10:00:00.600", first_reply.clone()),
        item("10:00:00.700", exec.clone()),
        item("10:00:00.800", last_reply.clone()),
        history_mutation(
            "10:00:01",
            json!({"turn_id": "turn-1", "operation": "append",
            "display_completions": [{"turn_id": "turn-1", "item": {"type": "UserMessage",
                "id": "u1", "content": [{"type": "text", "text": "clean up retry"}]}}],
            "items": [
                {"type": "message", "role": "user", "content": [
                    {"type": "input_text", "text": "<environment_context>cwd</environment_context>"}]},
                first_reply,
                exec,
                {"type": "function_call_output", "call_id": "call-1", "output": [
                    {"type": "input_text", "text": "removed\n"},
                    {"type": "input_image", "image_url": "data:image/png;base64,AAAA"}]},
                last_reply,
            ]}),
        ),
        completed(
            "10:00:01.100",
            "turn-1",
            json!({"type": "FileChange", "id": "fc-1", "status": "completed",
                   "changes": {"/w/api/internal/stale.go": {"type": "delete"}}}),
        ),
        history_mutation(
            "10:00:01.200",
            json!({"turn_id": "turn-1", "operation": "replace", "items": [
                {"type": "function_call", "call_id": "call-9", "name": "exec",
                 "arguments": "{\"command\":[\"bash\",\"-lc\",\"go vet ./...\"]}"}]}),
        ),
    ];
    let (session, warnings) = parse_trae(&records);
    assert_eq!(
        keyed(&session, EventType::UserInput),
        [("L2", "clean up retry")]
    );
    assert_eq!(
        keyed(&session, EventType::AssistantResponse),
        [("L3", "Renaming the stale file."), ("L5", "Done.")]
    );
    assert_eq!(
        calls_of(&session, EventType::ToolCall),
        [("call-1", "exec"), ("fc-1", "apply_patch")]
    );
    assert_eq!(
        calls_of(&session, EventType::ToolResponse),
        [("call-1", "exec"), ("fc-1", "apply_patch")]
    );
    assert_eq!(event(&session, "L6.1").text, "removed\n\n[image]");
    assert_eq!(
        event(&session, "L7.1").text,
        "delete /w/api/internal/stale.go"
    );
    let context = event(&session, "L6");
    assert_eq!(context.kind, EventType::System);
    assert_eq!(context.subtype.as_deref(), Some("environment_context"));
    let replaced = event(&session, "L8");
    assert_eq!(replaced.subtype.as_deref(), Some("history_replace"));
    assert_eq!(
        replaced.payload.as_ref().map(|payload| &payload["items"]),
        Some(&json!(1))
    );
    assert!(of_kind(&session, EventType::Unknown).is_empty());
    assert!(warnings.is_empty(), "{warnings:?}");
}

/// deja-vu's order for replies, per reply: response items, then appends, then `item_completed`
/// `AgentMessage`, then `agent_message`; each reply is read once, from the first that has it.
#[test]
fn a_reply_is_read_from_the_first_source_that_carries_it() {
    let records = vec![
        trae_meta(),
        event_msg("10:00:01", json!({"type": "user_message", "message": "go"})),
        append("10:00:02", "turn-1", json!([assistant_item("A")])),
        completed("10:00:03", "turn-1", agent_message_item("A")),
        event_msg("10:00:04", json!({"type": "agent_message", "message": "A"})),
        completed("10:00:05", "turn-1", agent_message_item("B")),
        event_msg("10:00:06", json!({"type": "agent_message", "message": "B"})),
        event_msg("10:00:07", json!({"type": "agent_message", "message": "C"})),
        message("10:00:08", "assistant", "D"),
        append("10:00:09", "turn-1", json!([assistant_item("D")])),
        completed("10:00:10", "turn-1", agent_message_item("D")),
        event_msg("10:00:11", json!({"type": "agent_message", "message": "D"})),
    ];
    let (session, _) = parse_trae(&records);
    assert_eq!(
        keyed(&session, EventType::AssistantResponse),
        [("L3", "A"), ("L6", "B"), ("L8", "C"), ("L9", "D")]
    );
}

/// The same words said twice are two replies: an append's copy of a response item uses that
/// item up, so a later append saying them again is read.
#[test]
fn words_an_append_says_more_often_than_the_response_items_are_read_again() {
    let records = vec![
        trae_meta(),
        event_msg(
            "10:00:01",
            json!({"type": "user_message", "message": "first"}),
        ),
        message("10:00:02", "assistant", "Done."),
        append("10:00:03", "turn-1", json!([assistant_item("Done.")])),
        event_msg(
            "10:00:04",
            json!({"type": "user_message", "message": "second"}),
        ),
        append("10:00:05", "turn-2", json!([assistant_item("Done.")])),
    ];
    let (session, _) = parse_trae(&records);
    assert_eq!(
        keyed(&session, EventType::AssistantResponse),
        [("L3", "Done."), ("L6", "Done.")]
    );
}

/// Reasoning and calls only an append carries become events; their `agent_reasoning` and
/// `exec_command_end` copies only lend the exit code. A call only a lifecycle event carries
/// keeps its own pair, and the append's output of it is not read twice.
#[test]
fn reasoning_and_calls_only_an_append_carries_are_read() {
    let pick_package = "**Pick the package**\n\nOnly the retry package.";
    let records = vec![
        trae_meta(),
        event_msg(
            "10:00:01",
            json!({"type": "user_message", "message": "run the tests"}),
        ),
        append(
            "10:00:02",
            "turn-1",
            json!([
                {"type": "message", "role": "assistant", "channel": "analysis",
                 "content": [{"type": "output_text", "text": pick_package}]},
                {"type": "reasoning", "content": [{"type": "reasoning_text", "text": "Check the backoff."}]},
                {"type": "function_call", "call_id": "call-2", "name": "exec",
                 "arguments": "{\"command\":[\"bash\",\"-lc\",\"go test ./retry/...\"]}"},
                {"type": "function_call_output", "call_id": "call-2", "output": "--- FAIL: TestBackoff"},
                {"type": "function_call_output", "call_id": "call-3", "output": "ok"},
            ]),
        ),
        event_msg(
            "10:00:03",
            json!({"type": "agent_reasoning", "text": pick_package}),
        ),
        exec_end("10:00:04", "call-2", 1),
        exec_end("10:00:05", "call-3", 0),
    ];
    let (session, warnings) = parse_trae(&records);
    assert_eq!(
        keyed(&session, EventType::Reasoning),
        [("L3", pick_package), ("L3.1", "Check the backoff.")]
    );
    assert_eq!(
        calls_of(&session, EventType::ToolCall),
        [("call-2", "exec"), ("call-3", "exec_command")]
    );
    assert_eq!(
        calls_of(&session, EventType::ToolResponse),
        [("call-2", "exec"), ("call-3", "exec_command")]
    );
    let failed = event(&session, "L3.3");
    assert_eq!(
        failed.exit_code,
        Some(1),
        "the exit code of its exec_command_end"
    );
    assert_eq!(failed.text, "--- FAIL: TestBackoff");
    assert!(warnings.is_empty(), "{warnings:?}");
}

/// `replace` and `rollback` leave a marker and read none of their items; an unknown operation,
/// a mutation with none and an unknown item type are counted unknown records, never a crash.
#[test]
fn history_mutations_other_than_appends() {
    let records = vec![
        trae_meta(),
        event_msg("10:00:01", json!({"type": "user_message", "message": "go"})),
        history_mutation(
            "10:00:02",
            json!({"turn_id": "turn-1", "operation": "replace", "items": [
                {"type": "function_call", "call_id": "call-9", "name": "exec", "arguments": "{}"},
                assistant_item("an old reply")]}),
        ),
        history_mutation(
            "10:00:03",
            json!({"turn_id": "turn-1", "operation": "rollback"}),
        ),
        history_mutation(
            "10:00:04",
            json!({"turn_id": "turn-1", "operation": "truncate", "items": [assistant_item("x")]}),
        ),
        history_mutation(
            "10:00:05",
            json!({"turn_id": "turn-1", "items": [assistant_item("y")]}),
        ),
        append(
            "10:00:06",
            "turn-1",
            json!([
                {"type": "brand_new_item", "id": "n1"},
                {"type": "ghost_snapshot", "ghost_commit": {"id": "abc"}},
                {"type": "trae_extra_info", "id": "t1"},
            ]),
        ),
    ];
    let (session, _) = parse_trae(&records);
    assert_eq!(
        subtypes(&session, EventType::System)
            .into_iter()
            .filter(|subtype| subtype.starts_with("history_"))
            .collect::<Vec<_>>(),
        ["history_replace", "history_rollback"]
    );
    assert_eq!(
        event(&session, "L3").text,
        "[conversation history replaced; its 2 items not read again]"
    );
    assert_eq!(
        event(&session, "L4").text,
        "[conversation history rolled back]"
    );
    assert!(of_kind(&session, EventType::ToolCall).is_empty());
    assert!(of_kind(&session, EventType::AssistantResponse).is_empty());
    assert_eq!(
        subtypes(&session, EventType::Unknown),
        [
            "history_mutation/truncate",
            "history_mutation",
            "history_mutation/brand_new_item"
        ]
    );
}

/// A prompt only `display_completions` shows is read once per turn (the same words in a later
/// turn are a second prompt), its user-role copy is not, and one an `item_completed` item
/// carries is read from there. Read as Codex's, the displayed prompts are not prompts.
#[test]
fn displayed_prompts_no_event_carries_are_read_once_per_turn() {
    let shown = |turn: &str, parts: Value| json!({"turn_id": turn, "item": {"type": "UserMessage", "content": parts}});
    let flaky =
        json!([{"type": "text", "text": "fix the "}, {"type": "text", "text": "flaky test"}]);
    let commit = json!([{"type": "text", "text": "now commit"}]);
    let displayed = |time: &str, turn: &str, parts: &Value, items: Value| {
        history_mutation(
            time,
            json!({"turn_id": turn, "operation": "append",
                   "display_completions": [shown(turn, parts.clone())], "items": items}),
        )
    };
    let records = vec![
        trae_meta(),
        item(
            "10:00:01",
            json!({"type": "message", "role": "user", "content": [
                {"type": "input_text", "text": "Process limit: at most 64 processes may run."}]}),
        ),
        displayed(
            "10:00:02",
            "turn-1",
            &flaky,
            json!([
                {"type": "message", "role": "user",
                 "content": [{"type": "input_text", "text": "fix the flaky test"}]},
                assistant_item("On it."),
            ]),
        ),
        displayed(
            "10:00:03",
            "turn-1",
            &flaky,
            json!([assistant_item("Fixed.")]),
        ),
        completed(
            "10:00:04",
            "turn-2",
            json!({"type": "UserMessage", "content": commit.clone()}),
        ),
        displayed("10:00:05", "turn-2", &commit, json!([])),
        displayed("10:00:06", "turn-3", &flaky, json!([])),
    ];
    let (session, _) = parse_trae(&records);
    assert_eq!(
        keyed(&session, EventType::UserInput),
        [
            ("L3", "fix the flaky test"),
            ("L5", "now commit"),
            ("L7", "fix the flaky test")
        ]
    );
    assert_eq!(
        keyed(&session, EventType::AssistantResponse),
        [("L3.1", "On it."), ("L4", "Fixed.")]
    );
    assert_eq!(
        subtypes(&session, EventType::System)
            .into_iter()
            .filter(|subtype| *subtype == "user_context")
            .count(),
        1,
        "the runtime notice"
    );

    let (codex, _) = parse_records(&records);
    let codex_prompts: Vec<&str> = of_kind(&codex, EventType::UserInput)
        .into_iter()
        .map(|event| event.text.as_str())
        .collect();
    assert_eq!(
        codex_prompts,
        [
            "Process limit: at most 64 processes may run.",
            "fix the flaky test"
        ]
    );
}

/// A file change or MCP call `item_completed` item stands for its call only when no call item
/// or lifecycle event has its call id, and only once.
#[test]
fn tool_turn_items_are_read_only_when_nothing_else_has_their_call() {
    let records = vec![
        trae_meta(),
        event_msg("10:00:01", json!({"type": "user_message", "message": "go"})),
        item(
            "10:00:02",
            json!({"type": "function_call", "call_id": "call-1", "name": "lookup", "arguments": "{}"}),
        ),
        output("10:00:03", "call-1", "found"),
        event_msg(
            "10:00:04",
            json!({"type": "patch_apply_end", "call_id": "call-7", "stdout": "Success", "stderr": "",
                   "success": true, "changes": {"/src/a.rs": {"type": "update"}}}),
        ),
        completed(
            "10:00:05",
            "turn-1",
            json!({"type": "FileChange", "id": "call-7", "status": "completed",
                   "changes": {"/src/a.rs": {"type": "update"}}}),
        ),
        completed(
            "10:00:06",
            "turn-1",
            json!({"type": "FileChange", "id": "call-8", "status": "completed",
                   "changes": {"/src/b.rs": {"type": "add", "content": ""}}}),
        ),
        completed(
            "10:00:07",
            "turn-1",
            json!({"type": "McpToolCall", "id": "call-9", "server": "docs", "tool": "search",
                   "arguments": {"q": "retry"}, "status": "completed",
                   "result": {"content": [{"type": "text", "text": "3 hits"}], "isError": false}}),
        ),
        completed(
            "10:00:08",
            "turn-1",
            json!({"type": "McpToolCall", "id": "call-1", "server": "docs", "tool": "lookup",
                   "arguments": {}, "status": "completed"}),
        ),
        completed(
            "10:00:09",
            "turn-1",
            json!({"type": "FileChange", "id": "call-8", "status": "completed",
                   "changes": {"/src/b.rs": {"type": "add", "content": ""}}}),
        ),
    ];
    let (session, warnings) = parse_trae(&records);
    let expected = [
        ("call-1", "lookup"),
        ("call-7", "apply_patch"),
        ("call-8", "apply_patch"),
        ("call-9", "mcp__docs__search"),
    ];
    assert_eq!(calls_of(&session, EventType::ToolCall), expected);
    assert_eq!(calls_of(&session, EventType::ToolResponse), expected);
    assert_eq!(event(&session, "L7.1").text, "add /src/b.rs");
    assert_eq!(event(&session, "L8.1").text, "3 hits");
    assert!(warnings.is_empty(), "{warnings:?}");
}
