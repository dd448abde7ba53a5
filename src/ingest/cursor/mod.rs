//! Cursor agent transcripts (`~/.cursor/projects/<workspace>/agent-transcripts/<id>/<id>.jsonl`,
//! older `agent-transcripts/<id>.jsonl`): one `{role, message: {content: [...]}}` line per
//! message, with Anthropic-style blocks (`text`, `thinking`, `tool_use {name, input}`, and in
//! some builds `tool_result {tool_use_id?, content, is_error?}`).
//!
//! The transcripts carry no ids, timestamps, model or token counts: events are keyed by line
//! (the file is append-only), their times are inferred from the file's (`timestamp_inferred`),
//! and usage stays null. A tool call without an id gets its line key (`line.<n>.<block>`) as
//! call id; a `tool_result` pairs with its call by `tool_use_id` when it has one, else with the
//! oldest unanswered call, and takes that call's id. What the user typed
//! sits inside `<user_query>` tags; the other tagged blocks of a user message (git diffs, open
//! files, rules) are context the IDE attached and become `system` events. Assistant text that
//! is only `[REDACTED]` (Cursor hides some replies) is left out.
//!
//! The `cursor-agent` CLI's chat stores (`~/.cursor/chats/<hash>/<chat>/store.db`) are read by
//! [`store`]; the Cursor IDE's own chat store (`globalStorage/state.vscdb`, source `cursor-ide`)
//! by [`ide_store`] and [`ide`].

pub mod ide;
pub mod ide_store;
pub mod store;

use std::collections::VecDeque;
use std::path::Path;

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::ingest::content::{
    UNKNOWN_TOOL, block_text, only_tagged_blocks, plain_event, strip_tagged, tag_content,
    text_field, tool_call, tool_response,
};
use crate::ingest::lines::JsonLine;
use crate::model::{
    EventType, ParseOutput, ParseWarning, ParsedSession, RawEvent, SessionMeta, Source,
};

/// The tag Cursor wraps the user's own words in.
const USER_QUERY: &str = "user_query";
/// What Cursor writes in place of a reply it does not keep.
pub(crate) const REDACTED_REPLY: &str = "[REDACTED]";

/// A Cursor transcript line: `role` user/assistant and `message.content`, with none of the
/// record fields (`type`, `uuid`, `id`, `sessionId`) other harnesses' lines have.
pub fn sniff(lines: &[JsonLine]) -> bool {
    let is_transcript_line = |record: &Value| {
        let Some(object) = record.as_object() else {
            return false;
        };
        let role = object.get("role").and_then(Value::as_str);
        matches!(role, Some("user" | "assistant"))
            && object
                .get("message")
                .and_then(|message| message.get("content"))
                .is_some()
            && !["type", "uuid", "id", "sessionId", "timestamp"]
                .iter()
                .any(|key| object.contains_key(*key))
    };
    lines
        .first()
        .is_some_and(|line| is_transcript_line(&line.value))
        && lines
            .iter()
            .all(|line| is_transcript_line(&line.value) || line.value.get("role").is_none())
}

pub fn parse(path: &Path, lines: &[JsonLine]) -> ParseOutput {
    let mut parser = Parser::default();
    for line in lines {
        parser.line(line);
    }
    let native_id = path
        .file_stem()
        .and_then(|stem| stem.to_str())
        .unwrap_or("transcript")
        .to_string();
    ParseOutput {
        sessions: vec![ParsedSession {
            source: Source::Cursor,
            native_id,
            meta: SessionMeta::default(),
            events: parser.events,
        }],
        warnings: parser.warnings,
    }
}

#[derive(Default)]
struct Parser {
    events: Vec<RawEvent>,
    warnings: Vec<ParseWarning>,
    /// Calls not yet answered, oldest first: (call id if any, tool name).
    pending: VecDeque<(Option<String>, String)>,
}

impl Parser {
    fn line(&mut self, line: &JsonLine) {
        let record = &line.value;
        let role = record.get("role").and_then(Value::as_str).unwrap_or("");
        let content = record
            .get("message")
            .and_then(|message| message.get("content"))
            .unwrap_or(&Value::Null);
        let blocks: Vec<&Value> = match content {
            Value::Array(blocks) => blocks.iter().collect(),
            other => vec![other],
        };
        for (index, block) in blocks.into_iter().enumerate() {
            let key = format!("line.{}.{index}", line.number);
            match (role, block_type(block)) {
                ("user", "text") => self.user_text(key, line.number, &block_text(block)),
                ("user", "tool_result") => self.tool_result(key, line.number, block),
                ("assistant", "text") => {
                    let text = block_text(block);
                    if !text.trim().is_empty() && text.trim() != REDACTED_REPLY {
                        self.events.push(plain_event(
                            key,
                            EventType::AssistantResponse,
                            line.number,
                            None,
                            text,
                            None,
                        ));
                    }
                }
                ("assistant", "thinking") => {
                    let text = text_field(block, "thinking").unwrap_or_default();
                    if !text.is_empty() {
                        self.events.push(plain_event(
                            key,
                            EventType::Reasoning,
                            line.number,
                            None,
                            text,
                            None,
                        ));
                    }
                }
                ("assistant", "tool_use") => self.tool_use(key, line.number, block),
                (_, other) => self.warnings.push(ParseWarning {
                    line: line.number,
                    message: format!("{role} block of type {other:?} skipped"),
                }),
            }
        }
    }

    fn user_text(&mut self, key: String, line: u64, text: &str) {
        self.events.extend(user_text_events(&key, line, None, text));
    }

    fn tool_use(&mut self, key: String, line: u64, block: &Value) {
        let name = text_field(block, "name").unwrap_or_else(|| UNKNOWN_TOOL.into());
        let call_id = text_field(block, "id").or_else(|| Some(key.clone()));
        let arguments = block.get("input").cloned().unwrap_or(Value::Null);
        self.events.push(tool_call(
            key,
            line,
            None,
            &name,
            call_id.as_deref(),
            arguments,
        ));
        self.pending.push_back((call_id, name));
    }

    fn tool_result(&mut self, key: String, line: u64, block: &Value) {
        let wanted = text_field(block, "tool_use_id");
        let position = match &wanted {
            Some(id) => self
                .pending
                .iter()
                .position(|(call_id, _)| call_id.as_deref() == Some(id.as_str())),
            None => (!self.pending.is_empty()).then_some(0),
        };
        let (call_id, name) = position
            .and_then(|position| self.pending.remove(position))
            .unwrap_or_else(|| (wanted, UNKNOWN_TOOL.to_string()));
        let failed = block.get("is_error").and_then(Value::as_bool) == Some(true);
        let text = block_text(block.get("content").unwrap_or(&Value::Null));
        self.events.push(tool_response(
            key,
            line,
            None,
            &name,
            call_id.as_deref(),
            text,
            failed,
        ));
    }
}

/// The events of one user text block: the words inside `<user_query>` are the prompt; the
/// rest (or a block of nothing but tagged context) is what the IDE or CLI attached, a `system`
/// event keyed `<key>.context`.
pub(crate) fn user_text_events(
    key: &str,
    line: u64,
    time: Option<DateTime<Utc>>,
    text: &str,
) -> Vec<RawEvent> {
    let (typed, context) = match tag_content(text, USER_QUERY) {
        Some(query) => (query.trim().to_string(), strip_tagged(text, USER_QUERY)),
        None if only_tagged_blocks(text) => (String::new(), text.to_string()),
        None => (text.trim().to_string(), String::new()),
    };
    let mut events = Vec::new();
    let context = context.trim();
    if !context.is_empty() {
        events.push(plain_event(
            format!("{key}.context"),
            EventType::System,
            line,
            time,
            context.to_string(),
            Some("context"),
        ));
    }
    if !typed.is_empty() {
        let mut event = plain_event(
            key.to_string(),
            EventType::UserInput,
            line,
            time,
            typed,
            None,
        );
        event.starts_turn = true;
        events.push(event);
    }
    events
}

fn block_type(block: &Value) -> &str {
    match block {
        Value::String(_) => "text",
        other => other.get("type").and_then(Value::as_str).unwrap_or("text"),
    }
}
