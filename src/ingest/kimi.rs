//! Kimi CLI (`$KIMI_SHARE_DIR`, default `~/.kimi`): one session per
//! `sessions/<md5(workdir)>/<uuid>/` folder holding `wire.jsonl` (the event stream, read here:
//! a `{"type":"metadata","protocol_version"}` header, then `{timestamp: epoch seconds, message:
//! {type, payload}}` records), `context.jsonl` (the model's context, no times), sub-agent
//! `context_sub_N.jsonl` and `state.json`. The folder is a grouped session: a change to any of
//! its files re-reads it. Wire types: `TurnBegin{user_input}`, `StepBegin{n}`,
//! `ContentPart{type: think|text}`, `ToolCall{id, function{name, arguments}}` and
//! `ToolCallPart` (argument fragments), `ToolResult{tool_call_id, return_value{is_error,
//! output, message}}`, `StatusUpdate{token_usage{input_other, output, input_cache_read,
//! input_cache_creation}, message_id}`, `StepInterrupted`, `TurnEnd`. A sub-agent's
//! `context_sub_N.jsonl` (OpenAI-chat-like `{role, content, tool_calls, tool_call_id}` rows plus
//! `_usage`/`_checkpoint` bookkeeping, no times) is a child session `<uuid>-sub-N` of the
//! folder's session ([`parse_sub_context`]).

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::ingest::content::{
    UNKNOWN_TOOL, arguments_of, mark_terminal_replies, tool_call, tool_response,
};
use crate::ingest::lines::JsonLine;
use crate::model::{
    EventType, ParseOutput, ParseWarning, ParsedSession, RawEvent, SessionMeta, Source, TokenUsage,
    TurnEnd, tool_call_text,
};

/// The files of a session folder whose change re-reads it.
const MEMBER_PREFIXES: [&str; 2] = ["wire", "context"];

/// The session folder (`sessions/<hash>/<uuid>`) a file belongs to, if it is one of its files.
pub fn key_of(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_str()?;
    let is_member = name == "state.json"
        || (name.ends_with(".jsonl")
            && MEMBER_PREFIXES
                .iter()
                .any(|prefix| name.starts_with(prefix)));
    if !is_member {
        return None;
    }
    let session = path.parent()?;
    let hash = session.parent()?;
    let sessions = hash.parent()?;
    let hash_name = hash.file_name()?.to_str()?;
    let looks_right = sessions.file_name()? == "sessions"
        && hash_name.len() == 32
        && hash_name.bytes().all(|byte| byte.is_ascii_hexdigit());
    looks_right.then(|| session.to_path_buf())
}

/// Every file of the session folder `key`.
pub fn members(key: &Path) -> Vec<PathBuf> {
    let mut members: Vec<PathBuf> = fs::read_dir(key)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| key_of(path).is_some())
        .collect();
    members.sort();
    members
}

/// The wire log: its first line is the protocol header.
pub fn sniff(lines: &[JsonLine]) -> bool {
    lines.first().is_some_and(|line| {
        line.value.get("type").and_then(Value::as_str) == Some("metadata")
            && line.value.get("protocol_version").is_some()
    })
}

/// The session's title and working directory from `state.json`, when present.
pub fn state_of(key: &Path) -> (Option<String>, Option<String>) {
    let Ok(text) = fs::read_to_string(key.join("state.json")) else {
        return (None, None);
    };
    let Ok(state) = serde_json::from_str::<Value>(&text) else {
        return (None, None);
    };
    let field = |name: &str| {
        state
            .get(name)
            .and_then(Value::as_str)
            .filter(|text| !text.trim().is_empty())
            .map(str::to_string)
    };
    (
        field("title"),
        field("workDir").or_else(|| field("work_dir")),
    )
}

struct Builder {
    events: Vec<RawEvent>,
    call_names: HashMap<String, String>,
    counted_messages: HashSet<String>,
    /// Index of the open streamed content event and its kind (merging fragments).
    open_content: Option<(usize, EventType)>,
    last_call: Option<usize>,
}

/// Parses the wire log of session `id`.
pub fn parse(
    id: &str,
    wire: &[JsonLine],
    title: Option<String>,
    cwd: Option<String>,
) -> ParseOutput {
    let mut warnings = Vec::new();
    let mut builder = Builder {
        events: Vec::new(),
        call_names: HashMap::new(),
        counted_messages: HashSet::new(),
        open_content: None,
        last_call: None,
    };
    for line in wire {
        builder.record(line, &mut warnings);
    }
    let meta = SessionMeta {
        title,
        cwd,
        started_at: builder.events.iter().find_map(|event| event.timestamp),
        ..SessionMeta::default()
    };
    ParseOutput {
        sessions: vec![ParsedSession {
            source: Source::Kimi,
            native_id: id.to_string(),
            meta,
            events: builder.events,
        }],
        warnings,
    }
}

fn time_of(record: &Value) -> Option<DateTime<Utc>> {
    let seconds = record.get("timestamp").and_then(Value::as_f64)?;
    DateTime::<Utc>::from_timestamp_micros((seconds * 1_000_000.0) as i64)
}

fn str_at<'a>(value: &'a Value, pointer: &str) -> Option<&'a str> {
    value.pointer(pointer).and_then(Value::as_str)
}

/// The text of `user_input`: a string, or `[{type: text, text}]` parts.
fn user_text(input: &Value) -> String {
    match input {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

impl Builder {
    fn record(&mut self, line: &JsonLine, warnings: &mut Vec<ParseWarning>) {
        let record = &line.value;
        let Some(kind) = str_at(record, "/message/type") else {
            if record.get("type").and_then(Value::as_str) != Some("metadata") {
                warnings.push(ParseWarning {
                    line: line.number,
                    message: "Kimi wire record without message type, skipped".to_string(),
                });
            }
            return;
        };
        let payload = record.pointer("/message/payload").unwrap_or(&Value::Null);
        let key = format!("w{}", line.number);
        let mut event = RawEvent::new(key, EventType::Unknown, line.number);
        event.timestamp = time_of(record);
        if kind != "ContentPart" {
            self.open_content = None;
        }
        if kind != "ToolCallPart" && kind != "ToolCall" {
            self.last_call = None;
        }
        match kind {
            "TurnBegin" => {
                event.kind = EventType::UserInput;
                event.text = user_text(payload.get("user_input").unwrap_or(&Value::Null));
                event.starts_turn = true;
            }
            "ContentPart" => {
                let (part_kind, text) = match str_at(payload, "/type") {
                    Some("think") => (EventType::Reasoning, str_at(payload, "/think")),
                    _ => (EventType::AssistantResponse, str_at(payload, "/text")),
                };
                let text = text.unwrap_or("");
                if let Some((index, open_kind)) = self.open_content
                    && open_kind == part_kind
                {
                    self.events[index].text.push_str(text);
                    return;
                }
                event.kind = part_kind;
                event.text = text.to_string();
                self.open_content = Some((self.events.len(), part_kind));
            }
            "ToolCall" => {
                let name = str_at(payload, "/function/name").unwrap_or("unknown_tool");
                let id = str_at(payload, "/id").map_or_else(|| event.key.clone(), str::to_string);
                let arguments_text = str_at(payload, "/function/arguments").unwrap_or("");
                let arguments = serde_json::from_str(arguments_text)
                    .unwrap_or_else(|_| Value::String(arguments_text.to_string()));
                event.kind = EventType::ToolCall;
                event.text = tool_call_text(name, &arguments);
                event.tool_name = Some(name.to_string());
                event.tool_call_id = Some(id.clone());
                event.payload = Some(arguments);
                self.call_names.insert(id, name.to_string());
                self.last_call = Some(self.events.len());
            }
            "ToolCallPart" => {
                self.extend_last_call(str_at(payload, "/arguments_part").unwrap_or(""));
                return;
            }
            "ToolResult" => {
                let id = str_at(payload, "/tool_call_id").unwrap_or("").to_string();
                let name = self
                    .call_names
                    .get(&id)
                    .cloned()
                    .unwrap_or_else(|| "unknown_tool".to_string());
                let value = payload.get("return_value").unwrap_or(&Value::Null);
                let output = str_at(value, "/output").unwrap_or("");
                let message = str_at(value, "/message").unwrap_or("");
                event.kind = EventType::ToolResponse;
                event.text = if output.is_empty() { message } else { output }.to_string();
                event.tool_name = Some(name);
                event.tool_call_id = (!id.is_empty()).then_some(id);
                if value.get("is_error").and_then(Value::as_bool) == Some(true) {
                    event.subtype = Some("error".to_string());
                }
            }
            "StatusUpdate" => {
                self.attach_usage(payload);
                return;
            }
            "StepInterrupted" => {
                event.kind = EventType::Runtime;
                event.subtype = Some("interrupted".to_string());
                event.text = "step interrupted".to_string();
                event.turn_end = Some(TurnEnd::Terminal);
            }
            "TurnEnd" => {
                event.kind = EventType::Runtime;
                event.subtype = Some("turn_end".to_string());
                event.text = "turn ended".to_string();
                event.turn_end = Some(TurnEnd::Normal);
            }
            "StepBegin" => return,
            other => {
                event.kind = EventType::System;
                event.subtype = Some(other.to_ascii_lowercase());
                event.payload = Some(payload.clone());
            }
        }
        self.events.push(event);
    }

    /// Streamed argument fragments complete the last tool call's arguments.
    fn extend_last_call(&mut self, fragment: &str) {
        let Some(index) = self.last_call else {
            return;
        };
        let call = &mut self.events[index];
        let mut text = match call.payload.take() {
            Some(Value::String(text)) => text,
            Some(value) if value.as_object().is_some_and(|object| !object.is_empty()) => {
                value.to_string()
            }
            _ => String::new(),
        };
        text.push_str(fragment);
        let arguments = serde_json::from_str(&text).unwrap_or_else(|_| Value::String(text.clone()));
        let name = call.tool_name.clone().unwrap_or_default();
        call.text = tool_call_text(&name, &arguments);
        call.payload = Some(arguments);
    }

    /// A status update's usage goes once (per `message_id`) on the step's latest model event.
    fn attach_usage(&mut self, payload: &Value) {
        let Some(tokens) = payload.get("token_usage") else {
            return;
        };
        if let Some(message) = str_at(payload, "/message_id")
            && !self.counted_messages.insert(message.to_string())
        {
            return;
        }
        let count = |name: &str| tokens.get(name).and_then(Value::as_i64).unwrap_or(0);
        let cache_read = count("input_cache_read");
        let usage = TokenUsage {
            input: Some(count("input_other") + cache_read + count("input_cache_creation")),
            cached_input: Some(cache_read),
            output: Some(count("output")),
            reasoning: None,
            total: None,
        }
        .with_derived_total();
        let carrier = self.events.iter().rposition(|event| {
            matches!(
                event.kind,
                EventType::AssistantResponse | EventType::Reasoning | EventType::ToolCall
            )
        });
        match carrier {
            Some(index) => TokenUsage::attach(&mut self.events[index], usage),
            None => {
                if let Some(last) = self.events.last_mut() {
                    TokenUsage::attach(last, usage);
                }
            }
        }
    }
}

/// The sub-agent number of a `context_sub_N.jsonl` file name.
pub fn sub_agent_number(name: &str) -> Option<u32> {
    name.strip_prefix("context_sub_")?
        .strip_suffix(".jsonl")?
        .parse()
        .ok()
}

/// The sub-agent context files of a session folder, with their numbers, in order.
pub fn sub_contexts(key: &Path) -> Vec<(u32, PathBuf)> {
    let mut found: Vec<(u32, PathBuf)> = members(key)
        .into_iter()
        .filter_map(|path| {
            let number = sub_agent_number(path.file_name()?.to_str()?)?;
            Some((number, path))
        })
        .collect();
    found.sort();
    found
}

/// Parses sub-agent `number`'s context (`context_sub_N.jsonl`) of session `parent_id` as a
/// child session: `user` rows are its prompts, `assistant` rows its reasoning (`think` parts),
/// replies and `tool_calls`, `tool` rows the results (`<system>ERROR…` marks a failure).
/// `_usage` rows give the context size, not a call's usage, and are not token counts.
pub fn parse_sub_context(parent_id: &str, number: u32, rows: &[JsonLine]) -> ParsedSession {
    let mut events: Vec<RawEvent> = Vec::new();
    let mut names: HashMap<String, String> = HashMap::new();
    for line in rows {
        let row = &line.value;
        let key = format!("c{}", line.number);
        match row.get("role").and_then(Value::as_str).unwrap_or("") {
            "user" => {
                let text = context_text(row.get("content"), "text");
                if text.trim().is_empty() {
                    continue;
                }
                let mut event = RawEvent::new(key, EventType::UserInput, line.number);
                event.text = text;
                event.starts_turn = true;
                events.push(event);
            }
            "assistant" => {
                let think = context_text(row.get("content"), "think");
                if !think.trim().is_empty() {
                    let mut event =
                        RawEvent::new(format!("{key}.think"), EventType::Reasoning, line.number);
                    event.text = think;
                    events.push(event);
                }
                let text = context_text(row.get("content"), "text");
                if !text.trim().is_empty() {
                    let mut event = RawEvent::new(
                        format!("{key}.text"),
                        EventType::AssistantResponse,
                        line.number,
                    );
                    event.text = text;
                    events.push(event);
                }
                let calls = row.get("tool_calls").and_then(Value::as_array);
                for (index, call) in calls.into_iter().flatten().enumerate() {
                    let name = str_at(call, "/function/name").unwrap_or(UNKNOWN_TOOL);
                    let id = str_at(call, "/id").map(str::to_string);
                    let arguments = arguments_of(call.pointer("/function/arguments"));
                    if let Some(id) = &id {
                        names.insert(id.clone(), name.to_string());
                    }
                    events.push(tool_call(
                        format!("{key}.call{index}"),
                        line.number,
                        None,
                        name,
                        id.as_deref(),
                        arguments,
                    ));
                }
            }
            "tool" => {
                let id = str_at(row, "/tool_call_id");
                let name = id
                    .and_then(|id| names.get(id).cloned())
                    .unwrap_or_else(|| UNKNOWN_TOOL.to_string());
                let text = context_text(row.get("content"), "text");
                let failed = text.trim_start().starts_with("<system>ERROR");
                events.push(tool_response(
                    key,
                    line.number,
                    None,
                    &name,
                    id,
                    text,
                    failed,
                ));
            }
            _ => {}
        }
    }
    mark_terminal_replies(&mut events);
    ParsedSession {
        source: Source::Kimi,
        native_id: format!("{parent_id}-sub-{number}"),
        meta: SessionMeta {
            parent_native_id: Some(parent_id.to_string()),
            agent_name: Some(format!("sub-{number}")),
            ..SessionMeta::default()
        },
        events,
    }
}

/// The `kind` parts of a context row's content (`text` or `think`), joined; a plain string
/// content is text.
fn context_text(content: Option<&Value>, kind: &str) -> String {
    match content {
        Some(Value::String(text)) if kind == "text" => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter(|part| part.get("type").and_then(Value::as_str) == Some(kind))
            .filter_map(|part| part.get(kind).and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::lines::numbered_lines;
    use serde_json::json;

    fn record(time: f64, kind: &str, payload: Value) -> Value {
        json!({"timestamp": time, "message": {"type": kind, "payload": payload}})
    }

    #[test]
    fn a_sub_agent_context_is_a_child_session() {
        let rows = numbered_lines(&[
            json!({"role": "_checkpoint", "id": 0}),
            json!({"role": "user", "content": "find the lynx fixtures"}),
            json!({"role": "assistant", "content": [{"type": "think", "think": "Search."}],
                "tool_calls": [{"type": "function", "id": "tool_sub_1",
                    "function": {"name": "Shell", "arguments": "{\"command\": \"ls fixtures\"}"}}]}),
            json!({"role": "_usage", "token_count": 900}),
            json!({"role": "tool", "tool_call_id": "tool_sub_1",
                "content": [{"type": "text", "text": "<system>ERROR: no such directory</system>"}]}),
            json!({"role": "assistant", "content": [{"type": "text", "text": "No fixtures folder."}]}),
        ]);
        assert_eq!(sub_agent_number("context_sub_2.jsonl"), Some(2));
        assert_eq!(sub_agent_number("context.jsonl"), None);
        let child = parse_sub_context("parent-uuid", 2, &rows);
        assert_eq!(child.native_id, "parent-uuid-sub-2");
        assert_eq!(child.meta.parent_native_id.as_deref(), Some("parent-uuid"));
        let kinds: Vec<EventType> = child.events.iter().map(|event| event.kind).collect();
        assert_eq!(
            kinds,
            vec![
                EventType::UserInput,
                EventType::Reasoning,
                EventType::ToolCall,
                EventType::ToolResponse,
                EventType::AssistantResponse,
            ]
        );
        assert_eq!(child.events[3].tool_name.as_deref(), Some("Shell"));
        assert_eq!(child.events[3].subtype.as_deref(), Some("error"));
        assert_eq!(child.events[4].turn_end, Some(TurnEnd::Terminal));
        assert!(
            child.usage_carriers().is_empty(),
            "_usage is a context size"
        );
    }

    #[test]
    fn turns_parts_tools_failures_usage_and_interrupts() {
        let lines = numbered_lines(&[
            json!({"type": "metadata", "protocol_version": "1.3"}),
            record(
                1.0,
                "TurnBegin",
                json!({"user_input": [{"type": "text", "text": "list the lynx files"}]}),
            ),
            record(1.1, "StepBegin", json!({"n": 1})),
            record(
                1.2,
                "ContentPart",
                json!({"type": "think", "think": "List "}),
            ),
            record(
                1.3,
                "ContentPart",
                json!({"type": "think", "think": "them."}),
            ),
            record(
                1.4,
                "ToolCall",
                json!({"type": "function", "id": "tool_1", "function": {"name": "Shell", "arguments": "{\"comm"}}),
            ),
            record(
                1.5,
                "ToolCallPart",
                json!({"arguments_part": "and\": \"ls\"}"}),
            ),
            record(
                1.6,
                "ToolResult",
                json!({"tool_call_id": "tool_1", "return_value": {"is_error": true, "output": "", "message": "permission denied"}}),
            ),
            record(
                1.7,
                "StatusUpdate",
                json!({"token_usage": {"input_other": 10, "output": 5, "input_cache_read": 100, "input_cache_creation": 0}, "message_id": "m1"}),
            ),
            record(
                1.8,
                "StatusUpdate",
                json!({"token_usage": {"input_other": 10, "output": 5, "input_cache_read": 100, "input_cache_creation": 0}, "message_id": "m1"}),
            ),
            record(
                1.9,
                "ContentPart",
                json!({"type": "text", "text": "No lynx files."}),
            ),
            record(2.0, "TurnEnd", json!({})),
            record(3.0, "TurnBegin", json!({"user_input": "again"})),
            record(3.1, "StepInterrupted", json!({})),
        ]);
        let output = parse("s1", &lines, None, None);
        let events = &output.sessions[0].events;
        let kinds: Vec<EventType> = events.iter().map(|event| event.kind).collect();
        assert_eq!(
            kinds,
            vec![
                EventType::UserInput,
                EventType::Reasoning,
                EventType::ToolCall,
                EventType::ToolResponse,
                EventType::AssistantResponse,
                EventType::Runtime,
                EventType::UserInput,
                EventType::Runtime,
            ]
        );
        assert_eq!(events[1].text, "List them.");
        assert_eq!(events[2].payload, Some(json!({"command": "ls"})));
        assert_eq!(events[3].tool_name.as_deref(), Some("Shell"));
        assert_eq!(events[3].subtype.as_deref(), Some("error"));
        assert_eq!(events[3].text, "permission denied");
        let usage = output.sessions[0].usage_carriers();
        assert_eq!(usage.len(), 1, "one usage per message id");
        assert_eq!(usage[0].1.input, Some(110));
        assert_eq!(events[7].turn_end, Some(TurnEnd::Terminal));
        assert!(output.warnings.is_empty());
    }

    #[test]
    fn only_files_of_a_session_folder_are_members() {
        let folder = Path::new("/h/.kimi/sessions/697a0ebec3147bb421a9dd6a0531906f/0be84c98");
        assert_eq!(
            key_of(&folder.join("wire.jsonl")),
            Some(folder.to_path_buf())
        );
        assert_eq!(
            key_of(&folder.join("context_sub_1.jsonl")),
            Some(folder.to_path_buf())
        );
        assert_eq!(key_of(&folder.join("notes.jsonl")), None);
        assert_eq!(key_of(Path::new("/h/sessions/short/x/wire.jsonl")), None);
    }
}
