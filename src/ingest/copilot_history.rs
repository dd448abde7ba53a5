//! GitHub Copilot CLI's legacy sessions (`$COPILOT_HOME/history-session-state/<id>.json`, before
//! the `session-state/` event logs; migrated there when resumed): one JSON document per session,
//! `{sessionId, startTime, chatMessages: [...], timeline: [...]}`, whole-file rewritten.
//! `chatMessages` is the OpenAI-style conversation read here: `user` prompts (a message that is
//! only tagged blocks is injected context: `system`), `assistant` replies and `tool_calls[{id,
//! function{name, arguments}}]`, `tool` results by `tool_call_id`; the `system` prompt is left
//! out. Messages carry no times (they are inferred from `startTime`) and no token counts. The
//! format is read as the public parsers describe it; no real file was available.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use crate::ingest::content::{
    UNKNOWN_TOOL, arguments_of, block_text, mark_terminal_replies, only_tagged_blocks, plain_event,
    text_field, tool_call, tool_response,
};
use crate::model::{
    EventType, ParseOutput, ParsedSession, RawEvent, SessionMeta, Source, parse_timestamp,
};

/// A legacy session document: a `sessionId` and its `chatMessages`.
pub fn sniff(value: &Value) -> bool {
    value.get("sessionId").is_some_and(Value::is_string)
        && value.get("chatMessages").is_some_and(Value::is_array)
}

pub fn parse(path: &Path, session: &Value) -> ParseOutput {
    let native_id = text_field(session, "sessionId").unwrap_or_else(|| {
        path.file_stem()
            .map(|stem| stem.to_string_lossy().into_owned())
            .unwrap_or_default()
    });
    let messages = session
        .get("chatMessages")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let mut events: Vec<RawEvent> = Vec::new();
    let mut names: HashMap<String, String> = HashMap::new();
    for (index, message) in messages.iter().enumerate() {
        let line = index as u64 + 1;
        let key = format!("m{index}");
        let text = block_text(message.get("content").unwrap_or(&Value::Null));
        match message.get("role").and_then(Value::as_str).unwrap_or("") {
            "user" if only_tagged_blocks(&text) => events.push(plain_event(
                key,
                EventType::System,
                line,
                None,
                text,
                Some("context"),
            )),
            "user" if !text.trim().is_empty() => {
                let mut event = plain_event(key, EventType::UserInput, line, None, text, None);
                event.starts_turn = true;
                events.push(event);
            }
            "assistant" => {
                if !text.trim().is_empty() {
                    events.push(plain_event(
                        format!("{key}.text"),
                        EventType::AssistantResponse,
                        line,
                        None,
                        text,
                        None,
                    ));
                }
                let calls = message.get("tool_calls").and_then(Value::as_array);
                for (number, call) in calls.into_iter().flatten().enumerate() {
                    let name = call
                        .pointer("/function/name")
                        .and_then(Value::as_str)
                        .unwrap_or(UNKNOWN_TOOL);
                    let id = text_field(call, "id");
                    if let Some(id) = &id {
                        names.insert(id.clone(), name.to_string());
                    }
                    events.push(tool_call(
                        format!("{key}.call{number}"),
                        line,
                        None,
                        name,
                        id.as_deref(),
                        arguments_of(call.pointer("/function/arguments")),
                    ));
                }
            }
            "tool" => {
                let id = text_field(message, "tool_call_id");
                let name = id
                    .as_ref()
                    .and_then(|id| names.get(id).cloned())
                    .or_else(|| text_field(message, "name"))
                    .unwrap_or_else(|| UNKNOWN_TOOL.to_string());
                let failed = text.trim_start().starts_with("Error") || text.contains("<error>");
                events.push(tool_response(
                    key,
                    line,
                    None,
                    &name,
                    id.as_deref(),
                    text,
                    failed,
                ));
            }
            _ => {}
        }
    }
    mark_terminal_replies(&mut events);
    let meta = SessionMeta {
        started_at: session.get("startTime").and_then(parse_timestamp),
        ..SessionMeta::default()
    };
    ParseOutput {
        sessions: vec![ParsedSession {
            source: Source::Copilot,
            native_id,
            meta,
            events,
        }],
        warnings: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn chat_messages_become_prompts_replies_and_paired_tools() {
        let session = json!({"sessionId": "hist-1", "startTime": "2025-10-08T21:10:16.398Z",
            "chatMessages": [
                {"role": "system", "content": "You are Copilot."},
                {"role": "user", "content": "<current_datetime>2025-10-08</current_datetime>"},
                {"role": "user", "content": "show the crane config"},
                {"role": "assistant", "content": "", "tool_calls": [{"id": "call_crane_1",
                    "type": "function", "function": {"name": "str_replace_editor",
                    "arguments": "{\"command\":\"view\",\"path\":\"/srv/crane.toml\"}"}}]},
                {"role": "tool", "tool_call_id": "call_crane_1", "content": "Error: no such file"},
                {"role": "assistant", "content": "There is no crane.toml."}
            ],
            "timeline": []});
        assert!(sniff(&session));
        let output = parse(Path::new("hist-1.json"), &session);
        let parsed = &output.sessions[0];
        let kinds: Vec<EventType> = parsed.events.iter().map(|event| event.kind).collect();
        assert_eq!(
            kinds,
            vec![
                EventType::System,
                EventType::UserInput,
                EventType::ToolCall,
                EventType::ToolResponse,
                EventType::AssistantResponse,
            ]
        );
        assert_eq!(
            parsed.events[3].tool_name.as_deref(),
            Some("str_replace_editor")
        );
        assert_eq!(parsed.events[3].subtype.as_deref(), Some("error"));
        assert_eq!(
            parsed.events[2].payload,
            Some(json!({"command": "view", "path": "/srv/crane.toml"}))
        );
        assert!(parsed.meta.started_at.is_some());
    }
}
