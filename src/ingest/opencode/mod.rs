//! OpenCode (`$XDG_DATA_HOME/opencode`): sessions in `opencode.db` (SQLite, v1.2+: tables
//! `session`, `message(id, session_id, data)`, `part(id, message_id, session_id, data)`) or in
//! the legacy `storage/` tree (`session/<project>/<ses>.json`, `message/<ses>/<msg>.json`,
//! `part/<msg>/<prt>.json`). Both hold the same JSON: a message `{role, time, modelID,
//! tokens{input, output, reasoning, cache{read, write}}, finish, error}` and its parts (`text`,
//! `reasoning`, `tool` {callID, tool, state{status, input, output|error}} — the call and its
//! result in one part —, `step-start`/`step-finish`, `patch`, `compaction`, `retry`, `file`,
//! `subtask`, `agent`). `text` parts with `synthetic: true` are injected, not typed.
//!
//! Layout: this file turns one session's records into events (pure); `tree` reads the legacy
//! tree, `store` reads the database.

pub mod store;
pub mod tree;

use serde_json::{Value, json};

use crate::model::{
    EventType, ParseOutput, ParsedSession, RawEvent, SessionMeta, Source, TokenUsage, TurnEnd,
    parse_timestamp, tool_call_text,
};

/// One message with its parts, each carrying its id.
#[derive(Debug, Clone)]
pub struct MessageRecord {
    pub id: String,
    pub info: Value,
    pub parts: Vec<(String, Value)>,
}

/// One session as read from either store.
#[derive(Debug, Clone)]
pub struct SessionRecord {
    pub id: String,
    /// The session's info (`title`, `directory`, `version`, `parentID`, `time`).
    pub info: Value,
    pub messages: Vec<MessageRecord>,
}

/// Parses one session.
pub fn parse(record: &SessionRecord) -> ParseOutput {
    let mut messages: Vec<&MessageRecord> = record.messages.iter().collect();
    messages.sort_by_key(|message| (created_ms(&message.info), message.id.clone()));
    let mut events = Vec::new();
    for message in messages {
        match message.info.get("role").and_then(Value::as_str) {
            Some("user") => user_events(message, &mut events),
            _ => assistant_events(message, &mut events),
        }
    }
    let text = |name: &str| {
        record
            .info
            .get(name)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|text| !text.is_empty())
            .map(str::to_string)
    };
    let meta = SessionMeta {
        title: text("title").filter(|title| !is_default_title(title)),
        cwd: text("directory"),
        harness_version: text("version"),
        parent_native_id: text("parentID").or_else(|| text("parent_id")),
        model: events
            .iter()
            .find_map(|event: &RawEvent| event.model.clone()),
        started_at: record
            .info
            .pointer("/time/created")
            .and_then(parse_timestamp),
        ..SessionMeta::default()
    };
    ParseOutput {
        sessions: vec![ParsedSession {
            source: Source::OpenCode,
            native_id: record.id.clone(),
            meta,
            events,
        }],
        warnings: Vec::new(),
    }
}

/// OpenCode names an untitled session `New session - <time>`: the first prompt is better.
fn is_default_title(title: &str) -> bool {
    title.starts_with("New session - ") || title.starts_with("Child session - ")
}

fn created_ms(info: &Value) -> i64 {
    info.pointer("/time/created")
        .and_then(Value::as_i64)
        .unwrap_or(0)
}

fn message_time(message: &MessageRecord) -> Option<chrono::DateTime<chrono::Utc>> {
    message
        .info
        .pointer("/time/created")
        .and_then(parse_timestamp)
}

fn part_time(
    part: &Value,
    fallback: Option<chrono::DateTime<chrono::Utc>>,
) -> Option<chrono::DateTime<chrono::Utc>> {
    part.pointer("/time/start")
        .or_else(|| part.pointer("/state/time/start"))
        .and_then(parse_timestamp)
        .or(fallback)
}

fn str_of<'a>(value: &'a Value, pointer: &str) -> Option<&'a str> {
    value.pointer(pointer).and_then(Value::as_str)
}

fn user_events(message: &MessageRecord, events: &mut Vec<RawEvent>) {
    let time = message_time(message);
    let mut typed = Vec::new();
    let mut context = Vec::new();
    for (id, part) in &message.parts {
        let synthetic = part.get("synthetic").and_then(Value::as_bool) == Some(true);
        let (subtype, text) = match (str_of(part, "/type"), synthetic) {
            (Some("text"), false) => {
                typed.push(str_of(part, "/text").unwrap_or("").to_string());
                continue;
            }
            (Some("text"), true) => ("synthetic", str_of(part, "/text")),
            (Some("file"), _) => (
                "attachment",
                str_of(part, "/filename").or_else(|| str_of(part, "/url")),
            ),
            _ => continue,
        };
        let mut event = RawEvent::new(id.clone(), EventType::System, 0);
        event.timestamp = time;
        event.subtype = Some(subtype.to_string());
        event.text = text.unwrap_or("").to_string();
        context.push(event);
    }
    let prompt = typed.join("\n\n");
    if !prompt.trim().is_empty() {
        let mut event = RawEvent::new(message.id.clone(), EventType::UserInput, 0);
        event.timestamp = time;
        event.text = prompt;
        event.starts_turn = true;
        events.push(event);
    }
    // What the harness attached follows the prompt, inside its turn.
    events.extend(context);
}

/// OpenCode's counts: `input` is the fresh prompt, cache reads and writes apart, `output`
/// without reasoning. esker's `input` counts every prompt token, `output` every generated one.
pub fn usage_of(tokens: &Value) -> Option<TokenUsage> {
    let count = |pointer: &str| tokens.pointer(pointer).and_then(Value::as_i64);
    let (fresh, output) = (count("/input"), count("/output"));
    if fresh.is_none() && output.is_none() {
        return None;
    }
    let cache_read = count("/cache/read").unwrap_or(0);
    let cache_write = count("/cache/write").unwrap_or(0);
    let reasoning = count("/reasoning").unwrap_or(0);
    let usage = TokenUsage {
        input: Some(fresh.unwrap_or(0) + cache_read + cache_write),
        cached_input: Some(cache_read),
        output: Some(output.unwrap_or(0) + reasoning),
        reasoning: Some(reasoning),
        total: None,
    };
    let zero = usage.input == Some(0) && usage.output == Some(0);
    (!zero).then(|| usage.with_derived_total())
}

fn assistant_events(message: &MessageRecord, events: &mut Vec<RawEvent>) {
    let first = events.len();
    let time = message_time(message);
    let model = str_of(&message.info, "/modelID").map(str::to_string);
    for (id, part) in &message.parts {
        let mut event = RawEvent::new(id.clone(), EventType::Unknown, 0);
        event.timestamp = part_time(part, time);
        event.originating_model = model.clone();
        match str_of(part, "/type").unwrap_or("") {
            "text" => {
                event.kind = EventType::AssistantResponse;
                event.text = str_of(part, "/text").unwrap_or("").to_string();
                event.model = model.clone();
                if event.text.trim().is_empty() {
                    continue;
                }
            }
            "reasoning" => {
                event.kind = EventType::Reasoning;
                event.text = str_of(part, "/text").unwrap_or("").to_string();
                event.model = model.clone();
                if event.text.trim().is_empty() {
                    continue;
                }
            }
            "tool" => {
                tool_events(id, part, event, events);
                continue;
            }
            "compaction" => {
                event.kind = EventType::Compaction;
                event.text = "Conversation compacted".to_string();
            }
            "retry" => {
                event.kind = EventType::Runtime;
                event.subtype = Some("retry".to_string());
                event.text = str_of(part, "/error/data/message")
                    .unwrap_or("retry")
                    .to_string();
            }
            "subtask" | "agent" => {
                event.kind = EventType::System;
                event.subtype = str_of(part, "/type").map(str::to_string);
                event.text = str_of(part, "/description")
                    .or_else(|| str_of(part, "/prompt"))
                    .or_else(|| str_of(part, "/name"))
                    .unwrap_or("")
                    .to_string();
            }
            // Step boundaries, snapshots and patches carry no conversation content.
            _ => continue,
        }
        events.push(event);
    }
    if let Some(error) = message.info.get("error").filter(|error| !error.is_null()) {
        let mut event = RawEvent::new(format!("{}.error", message.id), EventType::Runtime, 0);
        event.timestamp = message
            .info
            .pointer("/time/completed")
            .and_then(parse_timestamp)
            .or(time);
        event.subtype = Some("error".to_string());
        event.text = str_of(error, "/data/message")
            .or_else(|| str_of(error, "/name"))
            .unwrap_or("error")
            .to_string();
        event.turn_end = Some(TurnEnd::Terminal);
        events.push(event);
    }
    let finished = matches!(str_of(&message.info, "/finish"), Some("stop" | "end_turn"));
    if finished
        && let Some(last) = events[first..].last_mut()
        && last.kind == EventType::AssistantResponse
    {
        last.turn_end = Some(TurnEnd::Terminal);
    }
    if let Some(usage) = message.info.get("tokens").and_then(usage_of) {
        match events.get_mut(first) {
            Some(carrier) => TokenUsage::attach(carrier, usage),
            None => {
                let mut event =
                    RawEvent::new(format!("{}.usage", message.id), EventType::Runtime, 0);
                event.timestamp = time;
                event.subtype = Some("model_call".to_string());
                event.text = "model call".to_string();
                event.model = model;
                event.usage = Some(usage);
                events.push(event);
            }
        }
    }
}

/// A `tool` part: the call, and its result when the state settled.
fn tool_events(id: &str, part: &Value, mut call: RawEvent, events: &mut Vec<RawEvent>) {
    let name = str_of(part, "/tool").unwrap_or("unknown_tool").to_string();
    let call_id = str_of(part, "/callID").map_or_else(|| id.to_string(), str::to_string);
    let input = part.pointer("/state/input").cloned().unwrap_or(Value::Null);
    call.kind = EventType::ToolCall;
    call.text = tool_call_text(&name, &input);
    call.tool_name = Some(name.clone());
    call.tool_call_id = Some(call_id.clone());
    call.payload = Some(input);
    let status = str_of(part, "/state/status").unwrap_or("").to_string();
    let mut result = RawEvent::new(format!("{id}.result"), EventType::ToolResponse, 0);
    result.timestamp = part
        .pointer("/state/time/end")
        .and_then(parse_timestamp)
        .or(call.timestamp);
    result.originating_model = call.originating_model.clone();
    events.push(call);
    match status.as_str() {
        "completed" => {
            result.text = str_of(part, "/state/output").unwrap_or("").to_string();
        }
        "error" => {
            result.text = str_of(part, "/state/error").unwrap_or("error").to_string();
            result.subtype = Some("error".to_string());
        }
        _ => return,
    }
    result.tool_name = Some(name);
    result.tool_call_id = Some(call_id);
    result.payload = part
        .pointer("/state/metadata")
        .filter(|metadata| !metadata.is_null())
        .map(|metadata| json!({ "metadata": metadata, "status": status }));
    events.push(result);
}

#[cfg(test)]
mod tests;
