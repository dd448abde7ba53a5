//! Assistant records: one event per content block (text, reasoning, tool calls, server-side
//! tool results), deduplicated across the lines that repeat one API message.

use serde_json::{Map, Value};

use super::parser::{MessageUsage, Parser};
use super::text::{bool_field, content_text, str_field, str_field_of};
use crate::ingest::lines::JsonLine;
use crate::model::{EventType, TokenUsage, TurnEnd, tool_call_text};

/// Model name Claude Code writes on messages it synthesized itself (API errors, interrupts).
const SYNTHETIC_MODEL: &str = "<synthetic>";

impl Parser<'_> {
    pub(super) fn assistant(
        &mut self,
        session: usize,
        record: &Map<String, Value>,
        line: &JsonLine,
        key: &str,
    ) {
        let Some(message) = record.get("message").and_then(Value::as_object) else {
            self.warn(line.number, "assistant record without message skipped");
            return;
        };
        let content = message.get("content");
        let message_id = str_field(message, "id").map(str::to_string);
        let usage = message.get("usage").and_then(claude_usage);
        if bool_field(record, "isApiErrorMessage") {
            let mut event = self.base_event(key.to_string(), EventType::Runtime, record, line);
            event.subtype = Some("api_error".to_string());
            event.text = content.map(content_text).unwrap_or_default();
            event.turn_end = Some(TurnEnd::Terminal);
            let pushed = self.push(session, event);
            self.note_usage(message_id.as_deref().unwrap_or(key), usage, session, pushed);
            return;
        }
        let model = str_field(message, "model")
            .filter(|model| *model != SYNTHETIC_MODEL && !model.is_empty());
        if let Some(model) = model {
            self.builders[session].set_model(model);
        }
        let blocks: Vec<Value> = match content {
            Some(Value::Array(blocks)) => blocks.clone(),
            Some(Value::String(text)) => vec![serde_json::json!({"type": "text", "text": text})],
            _ => {
                self.warn(line.number, "assistant record without content skipped");
                self.note_usage(message_id.as_deref().unwrap_or(key), usage, session, None);
                return;
            }
        };
        let mut last_pushed = None;
        for (block_index, block) in blocks.iter().enumerate() {
            let block_kind = str_field_of(block, "type").unwrap_or_default();
            if let Some(message_id) = &message_id {
                let fingerprint = match block_kind {
                    "tool_use" | "server_tool_use" => format!(
                        "{block_kind}:{}",
                        str_field_of(block, "id").unwrap_or_default()
                    ),
                    _ => format!("{block_kind}:{block}"),
                };
                if !self.seen_blocks.insert((message_id.clone(), fingerprint)) {
                    // The same block of the same API message was already emitted.
                    continue;
                }
            }
            let block_key = format!("{key}:{block_index}");
            let mut event = self.base_event(block_key, EventType::Unknown, record, line);
            match block_kind {
                "text" => {
                    let text = str_field_of(block, "text").unwrap_or_default();
                    if text.trim().is_empty() {
                        continue;
                    }
                    event.kind = EventType::AssistantResponse;
                    event.text = text.to_string();
                    event.model = model.map(str::to_string);
                }
                "thinking" => {
                    event.kind = EventType::Reasoning;
                    let thinking = str_field_of(block, "thinking").unwrap_or_default();
                    event.text = if thinking.trim().is_empty() {
                        "[encrypted reasoning]".to_string()
                    } else {
                        thinking.to_string()
                    };
                    event.model = model.map(str::to_string);
                }
                "redacted_thinking" => {
                    event.kind = EventType::Reasoning;
                    event.text = "[redacted reasoning]".to_string();
                    event.model = model.map(str::to_string);
                }
                "tool_use" | "server_tool_use" => {
                    event.kind = EventType::ToolCall;
                    let name = str_field_of(block, "name").unwrap_or("unknown");
                    let arguments = match block.get("input") {
                        Some(Value::String(text)) => serde_json::from_str(text)
                            .unwrap_or_else(|_| Value::String(text.clone())),
                        Some(other) => other.clone(),
                        None => Value::Null,
                    };
                    event.text = tool_call_text(name, &arguments);
                    event.tool_name = Some(name.to_string());
                    event.tool_call_id = str_field_of(block, "id").map(str::to_string);
                    event.payload = Some(arguments);
                    event.cwd = record
                        .get("cwd")
                        .and_then(Value::as_str)
                        .map(str::to_string);
                }
                kind if kind.ends_with("_tool_result") => {
                    // Server-side tool results (web search) arrive inside the assistant message.
                    event.kind = EventType::ToolResponse;
                    self.fill_tool_result(&mut event, block);
                }
                _ => {
                    event.text = format!("[{block_kind}]");
                    event.payload = Some(block.clone());
                }
            }
            let is_text = event.kind == EventType::AssistantResponse;
            let pushed = self.push(session, event);
            last_pushed = pushed.or(last_pushed);
            if let Some(index) = pushed
                && is_text
                && let Some(message_id) = &message_id
            {
                self.last_text.insert(message_id.clone(), (session, index));
            }
        }
        self.note_usage(
            message_id.as_deref().unwrap_or(key),
            usage,
            session,
            last_pushed,
        );
    }

    /// Records a message's usage (keyed by message id, else the record's key): the latest
    /// record of a message id has its final counts, and they land on the message's last event
    /// (the event before it when it produced none).
    fn note_usage(
        &mut self,
        message_id: &str,
        usage: Option<TokenUsage>,
        session: usize,
        pushed: Option<usize>,
    ) {
        let Some(usage) = usage else {
            return;
        };
        let events_so_far = self.builders[session].session.events.len();
        let entry = self
            .message_usage
            .entry(message_id.to_string())
            .or_insert(MessageUsage {
                session,
                event: events_so_far.checked_sub(1),
                usage,
            });
        entry.usage = usage;
        if pushed.is_some() && entry.session == session {
            entry.event = pushed;
        }
    }
}

/// A Claude `message.usage`: input counts fresh, cache-write and cache-read prompt tokens;
/// Claude does not report reasoning tokens separately.
fn claude_usage(usage: &Value) -> Option<TokenUsage> {
    let count = |field: &str| usage.get(field).and_then(Value::as_i64);
    let fresh = count("input_tokens");
    let cache_write = count("cache_creation_input_tokens");
    let cache_read = count("cache_read_input_tokens");
    let output = count("output_tokens");
    if [fresh, cache_write, cache_read, output]
        .iter()
        .all(Option::is_none)
    {
        return None;
    }
    let input = fresh.unwrap_or(0) + cache_write.unwrap_or(0) + cache_read.unwrap_or(0);
    Some(
        TokenUsage {
            input: Some(input),
            cached_input: cache_read,
            output,
            reasoning: None,
            total: None,
        }
        .with_derived_total(),
    )
}
