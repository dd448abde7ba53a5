//! User records: typed input, slash and bash commands, injected context, sub-agent prompts,
//! and the tool results the harness sends back in user records.

use serde_json::{Map, Value};

use super::parser::Parser;
use super::text::{
    bool_field, content_text, exit_code_from_text, slash_command, str_field_of, strip_local_output,
    strip_tagged, tag_content,
};
use crate::ingest::lines::JsonLine;
use crate::model::{EventType, RawEvent, TurnEnd};

/// Longest string kept from `toolUseResult` in a tool response's metadata.
const MAX_METADATA_STRING: usize = 200;

/// A classified piece of user-record text.
struct Classified {
    kind: EventType,
    subtype: Option<&'static str>,
    text: String,
    starts_turn: bool,
    turn_end: Option<TurnEnd>,
}

impl Parser<'_> {
    pub(super) fn user(
        &mut self,
        session: usize,
        record: &Map<String, Value>,
        line: &JsonLine,
        key: &str,
    ) {
        let Some(content) = record
            .get("message")
            .and_then(|message| message.get("content"))
        else {
            self.warn(line.number, "user record without message content skipped");
            return;
        };
        if bool_field(record, "isCompactSummary") {
            let mut event = self.base_event(key.to_string(), EventType::Compaction, record, line);
            event.subtype = Some("compact_summary".to_string());
            event.text = content_text(content);
            self.push(session, event);
            return;
        }
        if bool_field(record, "isMeta") {
            let text = content_text(content);
            let mut event = self.base_event(key.to_string(), EventType::System, record, line);
            event.subtype = Some(if is_caveat(&text) {
                "local_command_caveat".to_string()
            } else {
                "meta".to_string()
            });
            event.text = text;
            self.push(session, event);
            return;
        }
        if let Some(subtype) = injected_subtype(record, content) {
            // Claude Code 2.1.2xx names where a user record came from: only `human` is typed
            // (a `peer` is another session's message, a `task-notification` a finished
            // background task or fork), and a fork starts with its `<fork-boilerplate>`.
            let mut event = self.base_event(key.to_string(), EventType::System, record, line);
            event.subtype = Some(subtype.to_string());
            event.text = content_text(content);
            self.push(session, event);
            return;
        }
        let builder = &self.builders[session];
        if builder.is_subagent && !builder.has_user_input && !has_tool_result(content) {
            // A sub-agent's first user record is the prompt from its parent agent.
            let mut event = self.base_event(key.to_string(), EventType::UserInput, record, line);
            event.text = content_text(content);
            event.subtype = Some("agent_prompt".to_string());
            event.starts_turn = true;
            self.push(session, event);
            return;
        }
        match content {
            Value::String(text) => {
                let classified = classify_user_text(text);
                let mut event = self.base_event(key.to_string(), classified.kind, record, line);
                event.subtype = classified.subtype.map(str::to_string);
                event.text = classified.text;
                event.starts_turn = classified.starts_turn;
                event.turn_end = classified.turn_end;
                self.push(session, event);
            }
            Value::Array(blocks) => {
                let tool_results = blocks
                    .iter()
                    .filter(|block| str_field_of(block, "type") == Some("tool_result"))
                    .count();
                let mut events = Vec::new();
                let mut user_parts: Vec<String> = Vec::new();
                let mut user_position = None;
                for (block_index, block) in blocks.iter().enumerate() {
                    let block_key = format!("{key}:{block_index}");
                    match str_field_of(block, "type") {
                        Some("tool_result") => {
                            let event = self.tool_response(
                                block,
                                record,
                                line,
                                block_key,
                                tool_results == 1,
                            );
                            events.push(event);
                        }
                        Some("text") => {
                            let text = str_field_of(block, "text").unwrap_or_default();
                            let classified = classify_user_text(text);
                            if classified.kind == EventType::UserInput
                                && classified.subtype.is_none()
                            {
                                user_position.get_or_insert(events.len());
                                user_parts.push(classified.text);
                                continue;
                            }
                            let mut event =
                                self.base_event(block_key, classified.kind, record, line);
                            event.subtype = classified.subtype.map(str::to_string);
                            event.text = classified.text;
                            event.starts_turn = classified.starts_turn;
                            event.turn_end = classified.turn_end;
                            events.push(event);
                        }
                        Some(other @ ("image" | "document")) => {
                            user_position.get_or_insert(events.len());
                            user_parts.push(format!("[{other}]"));
                        }
                        _ => {
                            let mut event =
                                self.base_event(block_key, EventType::Unknown, record, line);
                            event.text = str_field_of(block, "type")
                                .map(|kind| format!("[{kind}]"))
                                .unwrap_or_default();
                            event.payload = Some(block.clone());
                            events.push(event);
                        }
                    }
                }
                if let Some(position) = user_position {
                    let mut event =
                        self.base_event(key.to_string(), EventType::UserInput, record, line);
                    event.text = user_parts.join("\n\n");
                    event.starts_turn = true;
                    events.insert(position.min(events.len()), event);
                }
                for event in events {
                    self.push(session, event);
                }
            }
            _ => {
                self.warn(line.number, "user record with unusable content skipped");
            }
        }
    }

    /// Fills a tool_response event from a `*tool_result` block: the call id, the tool name
    /// of its `tool_use` (never the id), and the result text.
    pub(super) fn fill_tool_result(&self, event: &mut RawEvent, block: &Value) {
        let call_id = str_field_of(block, "tool_use_id").map(str::to_string);
        event.tool_name = Some(
            call_id
                .as_deref()
                .and_then(|id| self.index.tool_names.get(id))
                .cloned()
                .unwrap_or_else(|| "unknown".to_string()),
        );
        event.tool_call_id = call_id;
        event.text = block.get("content").map(content_text).unwrap_or_default();
    }

    fn tool_response(
        &self,
        block: &Value,
        record: &Map<String, Value>,
        line: &JsonLine,
        key: String,
        owns_tool_use_result: bool,
    ) -> RawEvent {
        let mut event = self.base_event(key, EventType::ToolResponse, record, line);
        self.fill_tool_result(&mut event, block);
        let is_error = block.get("is_error").and_then(Value::as_bool) == Some(true);
        let tool_use_result = if owns_tool_use_result {
            record.get("toolUseResult")
        } else {
            None
        };
        let mut payload = Map::new();
        if is_error {
            payload.insert("is_error".to_string(), Value::Bool(true));
        }
        if let Some(Value::Object(result)) = tool_use_result {
            event.exit_code = result.get("exitCode").and_then(Value::as_i64);
            let metadata: Map<String, Value> = result
                .iter()
                .filter(|(_, value)| match value {
                    Value::Bool(_) | Value::Number(_) => true,
                    Value::String(text) => {
                        !text.is_empty() && text.chars().count() <= MAX_METADATA_STRING
                    }
                    _ => false,
                })
                .map(|(name, value)| (name.clone(), value.clone()))
                .collect();
            if !metadata.is_empty() {
                payload.insert("metadata".to_string(), Value::Object(metadata));
            }
        }
        if event.exit_code.is_none() && is_error {
            event.exit_code = exit_code_from_text(&event.text).or_else(|| {
                tool_use_result
                    .and_then(Value::as_str)
                    .and_then(exit_code_from_text)
            });
        }
        if !payload.is_empty() {
            event.payload = Some(Value::Object(payload));
        }
        event
    }
}

/// Classifies the text of a user record (or one text block of it).
fn classify_user_text(raw: &str) -> Classified {
    let text = raw.trim();
    let make = |kind, subtype, text: String| Classified {
        kind,
        subtype,
        text,
        starts_turn: false,
        turn_end: None,
    };
    if text.starts_with("[Request interrupted by user") {
        let mut classified = make(EventType::Runtime, Some("interrupt"), text.to_string());
        classified.turn_end = Some(TurnEnd::Terminal);
        return classified;
    }
    if let Some(command) = slash_command(text) {
        let mut classified = make(EventType::UserInput, Some("slash_command"), command);
        classified.starts_turn = true;
        return classified;
    }
    if text.starts_with("<local-command-stdout>")
        || text.starts_with("<local-command-stderr>")
        || text.starts_with("<bash-stdout>")
        || text.starts_with("<bash-stderr>")
    {
        return make(
            EventType::Runtime,
            Some("local_command_output"),
            strip_local_output(text),
        );
    }
    if let Some(input) =
        tag_content(text, "bash-input").filter(|_| text.starts_with("<bash-input>"))
    {
        let mut classified = make(
            EventType::UserInput,
            Some("bash_input"),
            format!("!{input}"),
        );
        classified.starts_turn = true;
        return classified;
    }
    if is_caveat(text) {
        return make(
            EventType::System,
            Some("local_command_caveat"),
            text.to_string(),
        );
    }
    if text.starts_with("<task-notification>") {
        return make(
            EventType::System,
            Some("task_notification"),
            text.to_string(),
        );
    }
    if text.starts_with("<ide_") {
        return make(EventType::System, Some("ide_context"), text.to_string());
    }
    let without_reminders = strip_tagged(text, "system-reminder");
    let without_reminders = without_reminders.trim();
    if without_reminders.is_empty() {
        return make(EventType::System, Some("system_reminder"), text.to_string());
    }
    let mut classified = make(EventType::UserInput, None, without_reminders.to_string());
    classified.starts_turn = true;
    classified
}

/// The subtype of a user record the harness wrote for the user rather than the user typed
/// (its `origin.kind` is not `human`, or it is a fork's directive), without tool results.
fn injected_subtype(record: &Map<String, Value>, content: &Value) -> Option<&'static str> {
    if has_tool_result(content) {
        return None;
    }
    if content_text(content)
        .trim_start()
        .starts_with("<fork-boilerplate>")
    {
        return Some("fork_boilerplate");
    }
    let origin = record
        .get("origin")
        .and_then(|origin| origin.get("kind"))
        .and_then(Value::as_str)?;
    match origin {
        "human" => None,
        "task-notification" => Some("task_notification"),
        "peer" => Some("peer_message"),
        _ => Some("injected_input"),
    }
}

fn is_caveat(text: &str) -> bool {
    let text = text.trim_start();
    text.starts_with("<local-command-caveat>")
        || text.starts_with(
            "Caveat: The messages below were generated by the user while running local commands",
        )
}

pub(super) fn has_tool_result(content: &Value) -> bool {
    content.as_array().is_some_and(|blocks| {
        blocks
            .iter()
            .any(|block| str_field_of(block, "type") == Some("tool_result"))
    })
}
