//! Factory Droid sessions (`~/.factory/sessions/<cwd-slug>/<uuid>.jsonl`, with
//! `<uuid>.settings.json` beside it): a `session_start` line `{id, title, sessionTitle, owner,
//! version, cwd}`, then `message` lines `{id, parentId, timestamp, message: {role, content}}`
//! with Anthropic-style blocks (`text`, `thinking`, `tool_use {id, name, input}`, and in user
//! messages `tool_result {tool_use_id, content, is_error}`), plus `todo_state` lines.
//!
//! The messages carry no token counts; the settings file keeps the session's running totals
//! (`tokenUsage {inputTokens, outputTokens, cacheCreationTokens, cacheReadTokens,
//! thinkingTokens}`) and its `model`, so the totals are set on the session's last reply.
//! `<system-reminder>` blocks in user messages are context the CLI injects, not the user's
//! words. A `session_start` title of `New Session` is Droid's placeholder, not a title.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::content::{
    UNKNOWN_TOOL, block_text, only_tagged_blocks, plain_event, reported_exit_code, strip_tagged,
    text_field, tool_call, tool_response, totals_carrier,
};
use super::lines::JsonLine;
use crate::model::{
    EventType, ParseOutput, ParseWarning, ParsedSession, RawEvent, SessionMeta, Source, TokenUsage,
    add_counts, parse_timestamp,
};

const REMINDER_TAG: &str = "system-reminder";
/// The title Droid gives every session before it names it.
const PLACEHOLDER_TITLE: &str = "New Session";

/// A Droid session: its `session_start` header with an `id`.
pub fn sniff(lines: &[JsonLine]) -> bool {
    lines.iter().take(2).any(|line| {
        line.value.get("type").and_then(Value::as_str) == Some("session_start")
            && line.value.get("id").is_some_and(Value::is_string)
    })
}

/// `<uuid>.settings.json` beside a session file.
pub fn read_settings(path: &Path) -> Option<Value> {
    let stem = path.file_stem()?.to_str()?;
    let text =
        std::fs::read_to_string(path.with_file_name(format!("{stem}.settings.json"))).ok()?;
    serde_json::from_str(&text).ok()
}

pub fn parse(path: &Path, lines: &[JsonLine], settings: Option<&Value>) -> ParseOutput {
    let mut parser = Parser::default();
    for line in lines {
        parser.record(line);
    }
    if let Some(settings) = settings {
        parser.meta.model = text_field(settings, "model").or(parser.meta.model.take());
        if let Some(usage) = settings.get("tokenUsage").and_then(usage_of) {
            parser.attach_totals(usage);
        }
    }
    let native_id = parser.native_id.take().unwrap_or_else(|| {
        path.file_stem()
            .and_then(|stem| stem.to_str())
            .unwrap_or("session")
            .to_string()
    });
    ParseOutput {
        sessions: vec![ParsedSession {
            source: Source::Factory,
            native_id,
            meta: parser.meta,
            events: parser.events,
        }],
        warnings: parser.warnings,
    }
}

#[derive(Default)]
struct Parser {
    events: Vec<RawEvent>,
    warnings: Vec<ParseWarning>,
    meta: SessionMeta,
    native_id: Option<String>,
    /// Tool call id -> tool name.
    calls: HashMap<String, String>,
    keys: HashSet<String>,
}

struct At {
    key: String,
    line: u64,
    time: Option<DateTime<Utc>>,
}

impl Parser {
    fn record(&mut self, line: &JsonLine) {
        let record = &line.value;
        match record.get("type").and_then(Value::as_str).unwrap_or("") {
            "session_start" => {
                self.native_id = text_field(record, "id");
                self.meta.cwd = text_field(record, "cwd");
                self.meta.title = ["sessionTitle", "title"]
                    .iter()
                    .filter_map(|field| text_field(record, field))
                    .find(|title| title != PLACEHOLDER_TITLE);
                self.meta.harness_version = record
                    .get("version")
                    .and_then(Value::as_i64)
                    .map(|version| format!("session v{version}"));
            }
            "message" => {
                let key = text_field(record, "id")
                    .filter(|id| self.keys.insert(id.clone()))
                    .unwrap_or_else(|| format!("line.{}", line.number));
                let at = At {
                    key,
                    line: line.number,
                    time: record.get("timestamp").and_then(parse_timestamp),
                };
                self.message(&at, record.get("message").unwrap_or(&Value::Null));
            }
            "todo_state" => {}
            other => self.warnings.push(ParseWarning {
                line: line.number,
                message: format!("record of type {other:?} skipped"),
            }),
        }
    }

    fn message(&mut self, at: &At, message: &Value) {
        let role = message.get("role").and_then(Value::as_str).unwrap_or("");
        if let Some(model) = text_field(message, "model") {
            self.meta.model.get_or_insert(model);
        }
        let content = message.get("content").unwrap_or(&Value::Null);
        let blocks: Vec<&Value> = match content {
            Value::Array(blocks) => blocks.iter().collect(),
            other => vec![other],
        };
        for (index, block) in blocks.into_iter().enumerate() {
            let key = format!("{}.{index}", at.key);
            let kind = match block {
                Value::String(_) => "text",
                other => other.get("type").and_then(Value::as_str).unwrap_or(""),
            };
            match (role, kind) {
                ("user", "text") => self.user_text(key, at, &block_text(block)),
                ("user", "tool_result") => self.tool_result(key, at, block),
                ("assistant", "text") => {
                    let text = block_text(block);
                    if !text.trim().is_empty() {
                        self.events.push(plain_event(
                            key,
                            EventType::AssistantResponse,
                            at.line,
                            at.time,
                            text,
                            None,
                        ));
                    }
                }
                ("assistant", "thinking") => {
                    if let Some(text) = text_field(block, "thinking") {
                        self.events.push(plain_event(
                            key,
                            EventType::Reasoning,
                            at.line,
                            at.time,
                            text,
                            None,
                        ));
                    }
                }
                ("assistant", "tool_use") => {
                    let name = text_field(block, "name").unwrap_or_else(|| UNKNOWN_TOOL.into());
                    let call_id = text_field(block, "id");
                    let arguments = block.get("input").cloned().unwrap_or(Value::Null);
                    self.events.push(tool_call(
                        key,
                        at.line,
                        at.time,
                        &name,
                        call_id.as_deref(),
                        arguments,
                    ));
                    if let Some(call_id) = call_id {
                        self.calls.insert(call_id, name);
                    }
                }
                _ => self.warnings.push(ParseWarning {
                    line: at.line,
                    message: format!("{role} block of type {kind:?} skipped"),
                }),
            }
        }
    }

    fn user_text(&mut self, key: String, at: &At, text: &str) {
        let typed = strip_tagged(text, REMINDER_TAG).trim().to_string();
        if typed.is_empty() || only_tagged_blocks(&typed) {
            if !text.trim().is_empty() {
                self.events.push(plain_event(
                    key,
                    EventType::System,
                    at.line,
                    at.time,
                    text.trim().to_string(),
                    Some("context"),
                ));
            }
            return;
        }
        let mut event = plain_event(key, EventType::UserInput, at.line, at.time, typed, None);
        event.starts_turn = true;
        if text.contains(&format!("<{REMINDER_TAG}>")) {
            event.payload = Some(serde_json::json!({ "content": text }));
        }
        self.events.push(event);
    }

    fn tool_result(&mut self, key: String, at: &At, block: &Value) {
        let call_id = text_field(block, "tool_use_id");
        let name = call_id
            .as_ref()
            .and_then(|id| self.calls.get(id).cloned())
            .unwrap_or_else(|| UNKNOWN_TOOL.to_string());
        let failed = block.get("is_error").and_then(Value::as_bool) == Some(true);
        let text = block_text(block.get("content").unwrap_or(&Value::Null));
        let mut event = tool_response(
            key,
            at.line,
            at.time,
            &name,
            call_id.as_deref(),
            text,
            failed,
        );
        event.exit_code = reported_exit_code(&event.text);
        self.events.push(event);
    }

    /// The session's totals on its last reply (else its last event).
    fn attach_totals(&mut self, usage: TokenUsage) {
        if let Some(target) = totals_carrier(&self.events) {
            TokenUsage::attach(&mut self.events[target], usage);
        }
    }
}

/// The settings' `tokenUsage`: input excludes the cache, thinking is part of the output.
fn usage_of(usage: &Value) -> Option<TokenUsage> {
    let count = |field: &str| usage.get(field).and_then(Value::as_i64);
    let (input, output, cache_write, cache_read, thinking) = (
        count("inputTokens"),
        count("outputTokens"),
        count("cacheCreationTokens"),
        count("cacheReadTokens"),
        count("thinkingTokens"),
    );
    if [input, output, cache_write, cache_read]
        .iter()
        .all(Option::is_none)
    {
        return None;
    }
    Some(
        TokenUsage {
            input: add_counts(add_counts(input, cache_write), cache_read),
            cached_input: cache_read,
            output,
            reasoning: thinking,
            total: None,
        }
        .with_derived_total(),
    )
}
