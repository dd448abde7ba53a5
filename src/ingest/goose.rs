//! Goose (`~/.local/share/goose/sessions/sessions.db`, `$GOOSE_PATH_ROOT/data/sessions`): a
//! SQLite store, `sessions(id, name, description, working_dir, created_at, updated_at,
//! accumulated_{input,output,total}_tokens, parent_session_id?, …)` (columns vary by version:
//! read by name) and `messages(id, session_id, role, content_json, created_timestamp, …)`.
//! `content_json` is a list of `text`, `thinking`, `redactedThinking`, `toolRequest{id,
//! toolCall{status, value{name, arguments}}}`, `toolResponse{id, toolResult{status, value |
//! error}}`, `image`, `systemNotification` items. Goose records tokens per session only: the
//! session's accumulated usage is put on its last reply. Before v1.20 Goose wrote one
//! `<session id>.jsonl` per session (same directory, or `~/.goose/sessions`): a first line of
//! session metadata (`working_dir`, `description`, token counts) then one message per line
//! (`{id, role, created, content: [...]}`, the same content items): read by [`parse_jsonl`].

use std::path::Path;

use rusqlite::Connection;
use serde_json::{Map, Value};

use crate::ingest::content::{epoch_time, mark_terminal_replies, totals_carrier};
use crate::ingest::lines::JsonLine;
use crate::ingest::sqlite::{self, row_as_object, table_names};
use crate::model::{
    EventType, ParseOutput, ParsedSession, RawEvent, SessionMeta, Source, TokenUsage,
    parse_timestamp, tool_call_text,
};

/// One session's row (by column name) and its messages.
#[derive(Debug, Clone)]
pub struct GooseSession {
    pub id: String,
    pub info: Map<String, Value>,
    pub messages: Vec<GooseMessage>,
}

#[derive(Debug, Clone)]
pub struct GooseMessage {
    pub id: i64,
    pub role: String,
    pub created: Option<i64>,
    pub content: Value,
}

/// A legacy session log: its first line is the session's metadata (a working directory, no
/// role), and a message, when there is one, has a role and a content list.
pub fn sniff_jsonl(lines: &[JsonLine]) -> bool {
    let Some(first) = lines.first() else {
        return false;
    };
    let header = &first.value;
    let is_header = header.get("working_dir").is_some_and(Value::is_string)
        && (header.get("description").is_some() || header.get("message_count").is_some())
        && header.get("role").is_none();
    let messages_fit = lines.iter().skip(1).take(2).all(|line| {
        line.value.get("role").is_some_and(Value::is_string)
            && line.value.get("content").is_some_and(Value::is_array)
    });
    is_header && messages_fit
}

/// Parses a legacy `<session id>.jsonl` log: the metadata line and its messages (keyed by line,
/// the file being append-only).
pub fn parse_jsonl(path: &Path, lines: &[JsonLine]) -> ParseOutput {
    let id = path
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_default();
    let info = lines
        .first()
        .and_then(|line| line.value.as_object().cloned())
        .unwrap_or_default();
    let messages = lines
        .iter()
        .skip(1)
        .filter_map(|line| {
            let role = line.value.get("role")?.as_str()?.to_string();
            let created = line.value.get("created").and_then(|created| {
                created
                    .as_i64()
                    .or_else(|| created.as_f64().map(|seconds| seconds as i64))
            });
            Some(GooseMessage {
                id: line.number as i64,
                role,
                created,
                content: line.value.get("content").cloned().unwrap_or(Value::Null),
            })
        })
        .collect();
    parse(&GooseSession { id, info, messages })
}

/// A database file named like Goose's.
pub fn is_store_name(name: &str) -> bool {
    name == "sessions.db"
}

/// Goose's tables: `sessions`, and `messages` with `content_json`.
pub fn has_schema(connection: &Connection) -> rusqlite::Result<bool> {
    let tables = table_names(connection)?;
    if !(tables.iter().any(|name| name == "sessions")
        && tables.iter().any(|name| name == "messages"))
    {
        return Ok(false);
    }
    let statement = connection.prepare(include_str!("../../queries/goose_messages_probe.sql"));
    Ok(statement.is_ok())
}

/// Every session id with the stamp of its rows.
pub fn session_stamps(connection: &Connection) -> rusqlite::Result<Vec<(String, String)>> {
    sqlite::session_stamps(
        connection,
        include_str!("../../queries/goose_session_stamps.sql"),
    )
}

/// One session's row and messages.
pub fn read_session(connection: &Connection, id: &str) -> rusqlite::Result<GooseSession> {
    let info = row_as_object(
        connection,
        include_str!("../../queries/goose_session.sql"),
        id,
    )?;
    let messages = sqlite::rows_of(
        connection,
        include_str!("../../queries/goose_messages.sql"),
        id,
        |row| {
            Ok(GooseMessage {
                id: row.get(0)?,
                role: row.get(1)?,
                content: sqlite::json_column(row, 2)?,
                created: row.get(3)?,
            })
        },
    )?;
    Ok(GooseSession {
        id: id.to_string(),
        info,
        messages,
    })
}

fn text_of(item: &Value, pointer: &str) -> String {
    item.pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

/// The text of a tool result value: a list of content items, or `{content: [...]}`.
fn result_text(value: &Value) -> String {
    let items = value
        .as_array()
        .or_else(|| value.get("content").and_then(Value::as_array));
    match items {
        Some(items) => items
            .iter()
            .filter_map(|item| item.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        None => value
            .as_str()
            .map_or_else(|| value.to_string(), str::to_string),
    }
}

/// Parses one session.
pub fn parse(session: &GooseSession) -> ParseOutput {
    let mut events: Vec<RawEvent> = Vec::new();
    let mut names: std::collections::HashMap<String, String> = Default::default();
    for message in &session.messages {
        let time = epoch_time(message.created);
        let items = message.content.as_array().cloned().unwrap_or_default();
        if message.role == "user" {
            let prompt: Vec<String> = items
                .iter()
                .filter(|item| item.get("type").and_then(Value::as_str) == Some("text"))
                .map(|item| text_of(item, "/text"))
                .collect();
            let prompt = prompt.join("\n\n");
            if !prompt.trim().is_empty() {
                let mut event = RawEvent::new(format!("m{}", message.id), EventType::UserInput, 0);
                event.timestamp = time;
                event.text = prompt;
                event.starts_turn = true;
                events.push(event);
            }
        }
        for (index, item) in items.iter().enumerate() {
            let key = format!("m{}.{index}", message.id);
            let mut event = RawEvent::new(key, EventType::Unknown, message.id.max(0) as u64);
            event.timestamp = time;
            let kind = item.get("type").and_then(Value::as_str).unwrap_or("");
            match (message.role.as_str(), kind) {
                ("user", "text") => continue,
                (_, "text") => {
                    event.kind = EventType::AssistantResponse;
                    event.text = text_of(item, "/text");
                }
                (_, "thinking") => {
                    event.kind = EventType::Reasoning;
                    event.text = text_of(item, "/thinking");
                }
                (_, "toolRequest") => {
                    let id = text_of(item, "/id");
                    let name = item
                        .pointer("/toolCall/value/name")
                        .and_then(Value::as_str)
                        .unwrap_or("unknown_tool")
                        .to_string();
                    let arguments = item
                        .pointer("/toolCall/value/arguments")
                        .cloned()
                        .unwrap_or(Value::Null);
                    event.kind = EventType::ToolCall;
                    event.text = tool_call_text(&name, &arguments);
                    event.payload = Some(arguments);
                    event.tool_call_id = Some(id.clone());
                    names.insert(id, name.clone());
                    event.tool_name = Some(name);
                }
                (_, "toolResponse") => {
                    let id = text_of(item, "/id");
                    event.kind = EventType::ToolResponse;
                    event.tool_name = Some(
                        names
                            .get(&id)
                            .cloned()
                            .unwrap_or_else(|| "unknown_tool".to_string()),
                    );
                    event.tool_call_id = Some(id);
                    let failed = item.pointer("/toolResult/status").and_then(Value::as_str)
                        == Some("error")
                        || item.pointer("/toolResult/isError") == Some(&Value::Bool(true));
                    event.text = match item.pointer("/toolResult/value") {
                        Some(value) if !failed => result_text(value),
                        _ => text_of(item, "/toolResult/error"),
                    };
                    if failed {
                        event.subtype = Some("error".to_string());
                    }
                }
                (_, "redactedThinking" | "image") => continue,
                (_, other) => {
                    event.kind = EventType::System;
                    event.subtype = Some(other.to_string());
                    event.text = text_of(item, "/msg");
                }
            }
            events.push(event);
        }
    }
    mark_terminal_replies(&mut events);
    attach_session_usage(&session.info, &mut events);
    let field = |name: &str| {
        session
            .info
            .get(name)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|text| !text.is_empty())
            .map(str::to_string)
    };
    let user_named = session.info.get("user_set_name").and_then(Value::as_i64) == Some(1);
    let title = field("name")
        .filter(|name| user_named || name != "CLI Session")
        .or_else(|| field("description"));
    let meta = SessionMeta {
        title,
        cwd: field("working_dir"),
        parent_native_id: field("parent_session_id"),
        started_at: session.info.get("created_at").and_then(parse_timestamp),
        model: field("provider_name"),
        ..SessionMeta::default()
    };
    ParseOutput {
        sessions: vec![ParsedSession {
            source: Source::Goose,
            native_id: session.id.clone(),
            meta,
            events,
        }],
        warnings: Vec::new(),
    }
}

/// The session's accumulated usage on its last reply (Goose keeps no per-call usage).
fn attach_session_usage(info: &Map<String, Value>, events: &mut [RawEvent]) {
    let count = |names: [&str; 2]| {
        names
            .iter()
            .find_map(|name| info.get(*name).and_then(Value::as_i64))
    };
    let input = count(["accumulated_input_tokens", "input_tokens"]);
    let output = count(["accumulated_output_tokens", "output_tokens"]);
    if input.is_none() && output.is_none() {
        return;
    }
    let usage = TokenUsage {
        input,
        output,
        total: count(["accumulated_total_tokens", "total_tokens"]),
        ..TokenUsage::default()
    }
    .with_derived_total();
    if let Some(index) = totals_carrier(events) {
        TokenUsage::attach(&mut events[index], usage);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::TurnEnd;
    use serde_json::json;

    #[test]
    fn prompts_tools_failures_and_session_usage() {
        let message = |id, role: &str, content: Value| GooseMessage {
            id,
            role: role.to_string(),
            created: Some(1_770_800_000 + id),
            content,
        };
        let mut info = Map::new();
        info.insert("name".into(), json!("Heron report"));
        info.insert("working_dir".into(), json!("/srv/heron"));
        info.insert("accumulated_input_tokens".into(), json!(900));
        info.insert("accumulated_output_tokens".into(), json!(90));
        let session = GooseSession {
            id: "20260211_1".into(),
            info,
            messages: vec![
                message(
                    1,
                    "user",
                    json!([{"type": "text", "text": "summarize the heron report"}]),
                ),
                message(
                    2,
                    "assistant",
                    json!([
                    {"type": "thinking", "thinking": "Read it first."},
                    {"type": "toolRequest", "id": "call_1", "toolCall": {"status": "success",
                        "value": {"name": "developer__shell", "arguments": {"command": "cat report.md"}}}}]),
                ),
                message(
                    3,
                    "user",
                    json!([{"type": "toolResponse", "id": "call_1",
                    "toolResult": {"status": "error", "error": "report.md: not found"}}]),
                ),
                message(
                    4,
                    "assistant",
                    json!([{"type": "text", "text": "The heron report is missing."}]),
                ),
            ],
        };
        let output = parse(&session);
        let parsed = &output.sessions[0];
        let kinds: Vec<EventType> = parsed.events.iter().map(|event| event.kind).collect();
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
        assert_eq!(
            parsed.events[3].tool_name.as_deref(),
            Some("developer__shell")
        );
        assert_eq!(parsed.events[3].subtype.as_deref(), Some("error"));
        assert_eq!(parsed.events[4].turn_end, Some(TurnEnd::Terminal));
        assert_eq!(parsed.usage_carriers()[0].1.total, Some(990));
        assert_eq!(parsed.meta.title.as_deref(), Some("Heron report"));
    }
}
